"""ui.offer_scope: one place reads and sets every page's offer scope (the client brief uses it), picker labels
tell node sizes and regions apart, and the filter is engine.scoring.apply_constraints with reasons."""

import pandas as pd
import pytest

from engine.scope import OfferScope, Residency, WorkloadFit
from engine.scoring import Constraints
from ui.offer_scope import (
    PAGES,
    filter_offers,
    page_scope,
    picker_label,
    picker_labels,
    residency_from_brief,
    scope_from_brief,
    with_page_scope,
)
from ui.scenario import ClientBrief, Scenario, widget_key
from ui.scoring_inputs import weight_key


def test_defaults_answer_the_consultants_case():
    scenario = Scenario()
    brief = scenario.brief  # 16 H100-class GPUs, a 70B model, EU data centre
    scope, residency = page_scope(scenario, "scoring")
    assert scope.gpu_models == brief.gpu_models and "H100" in scope.gpu_models
    assert scope.memory_floor_gb() == pytest.approx(16 * brief.model_params_billion / brief.cluster_gpus / 0.9)
    assert residency.eu_resident_only == brief.eu_resident_only
    assert page_scope(scenario, "workload")[1] == residency
    assert not any(page_scope(scenario, p)[0].include_price_outliers for p in PAGES)


@pytest.mark.parametrize("page", PAGES)
def test_with_page_scope_round_trips_on_every_page(page):
    scope = OfferScope(gpu_models=("H200",), fit=WorkloadFit(model_params_b=405, n_gpus=64),
                       include_price_outliers=True)
    residency = Residency(eu_legal_seat_only=True, required_certifications=("BSI-C5",))
    scenario = with_page_scope(Scenario(), page, scope, residency)
    assert page_scope(scenario, page) == (scope, residency)
    others = [p for p in PAGES if p != page]
    assert all(page_scope(scenario, p) == page_scope(Scenario(), p) for p in others)
    assert Scenario.model_validate_json(scenario.model_dump_json()) == scenario  # saved and shared as it is


def test_scoring_keeps_its_other_constraints_when_residency_is_set():
    base = with_page_scope(Scenario(), "scoring", residency=Residency())
    base = base.model_copy(update={"scoring": base.scoring.model_copy(
        update={"constraints": base.scoring.constraints.model_copy(update={"sxm_only": True})})})
    scenario = with_page_scope(base, "scoring", residency=Residency(eu_resident_only=True))
    assert scenario.scoring.constraints.sxm_only and scenario.scoring.constraints.eu_resident_only


def test_picker_labels_tell_node_sizes_and_regions_apart():
    rows = pd.DataFrame([
        {"offer_id": "a", "provider_name": "Scaleway", "gpu_model": "L4", "form_factor": "PCIe", "gpus_per_node": 2,
         "region": "fr-par-1"},
        {"offer_id": "b", "provider_name": "Scaleway", "gpu_model": "L4", "form_factor": "PCIe", "gpus_per_node": 8,
         "region": "fr-par-1"},
        {"offer_id": "c", "provider_name": "Scaleway", "gpu_model": "L4", "form_factor": "PCIe", "gpus_per_node": 8,
         "region": "fr-par-2", "is_stale": True, "as_of_date": "2025-01-01"},
        {"offer_id": "d", "provider_name": "X", "gpu_model": "H100", "form_factor": None, "gpus_per_node": None,
         "region": None, "price_outlier": True},
        {"offer_id": "e", "provider_name": "X", "gpu_model": "H100", "form_factor": None, "gpus_per_node": None,
         "region": None},
    ])
    labels = picker_labels(rows)
    assert labels.is_unique
    assert labels[0] == "Scaleway · L4 PCIe · 2 GPUs · fr-par-1"
    assert labels[2].startswith("Scaleway · L4 PCIe · 8 GPUs · fr-par-2 ⚠ stale price (")
    assert labels[3] == "X · H100 · node size not stated · region not stated · d ⚠ price outlier"
    assert "None" not in " ".join(labels) and "nan" not in " ".join(labels)
    assert picker_label(rows.iloc[3].to_dict(), flags=False) == "X · H100 · node size not stated · region not stated"


def test_filter_offers_reads_the_price_type_in_use():
    frame = pd.DataFrame({"offer_id": ["a", "b"], "on_demand_is_outlier": [True, False],
                          "on_demand_outlier_reason": ["price outlier: far below", None],
                          "spot_is_outlier": [False, False], "spot_outlier_reason": [None, None]})
    c = Constraints(exclude_price_outliers=True)
    keep, why = filter_offers(frame, c, ["on_demand_eur_per_gpu_hour"])
    assert keep.tolist() == [False, True] and why == ["price outlier: far below", ""]
    keep, _ = filter_offers(frame, c, ["spot_eur_per_gpu_hour"])
    assert keep.all()


def test_forget_widgets_drops_only_that_pages_scope_keys(monkeypatch):
    import ui.offer_scope as offer_scope

    eu_dc, sxm = widget_key("sc_constraints", "eu_resident_only"), widget_key("sc_constraints", "sxm_only")
    weight, price = weight_key("support_score"), widget_key("wl", "price_type")
    pl_res, pl_stale = widget_key("pl", "residency") + "_certs", widget_key("pl", "commit_on_stale_or_unknown")
    state = {"_wl_scope_gpus": ["H100"], "_wl_scope_res_certs": [], price: "spot", eu_dc: True, sxm: True,
             "_sc_scope_fit_on": True, weight: 20, pl_res: [], pl_stale: True, "scenario": object()}
    monkeypatch.setattr(offer_scope.st, "session_state", state)
    offer_scope.forget_widgets("workload")
    assert set(state) == {price, eu_dc, sxm, "_sc_scope_fit_on", weight, pl_res, pl_stale, "scenario"}
    offer_scope.forget_widgets("scoring")  # residency toggles go; the other constraints and the weights stay
    assert set(state) == {price, sxm, weight, pl_res, pl_stale, "scenario"}
    offer_scope.forget_widgets("placement")
    assert set(state) == {price, sxm, weight, pl_stale, "scenario"}


@pytest.mark.parametrize("page", PAGES)
def test_the_defaults_agree_with_the_brief(page):
    """Applying the default brief to any page changes nothing: the first load already answers the brief."""
    scenario = Scenario()
    scope, residency = page_scope(scenario, page)
    assert scope_from_brief(scenario.brief, page, scope) == scope
    if page != "placement":  # placement's workloads carry their own EU rules; the brief's are opt-in there
        assert residency_from_brief(scenario.brief) == residency


def test_a_brief_reaches_scoring_and_workload():
    brief = ClientBrief(gpu_class="MI300X", model_params_billion=405, cluster_gpus=64, eu_jurisdiction_only=True)
    scenario = Scenario()
    for page in ("scoring", "workload"):
        scope, _ = page_scope(scenario, page)
        scenario = with_page_scope(scenario, page, scope_from_brief(brief, page, scope), residency_from_brief(brief))
    scope, residency = page_scope(scenario, "scoring")
    assert scope.gpu_models == ("MI300X",) and scope.memory_floor_gb() == pytest.approx(16 * 405 / 64 / 0.9)
    assert residency.eu_jurisdiction_only
    assert page_scope(scenario, "workload")[0].gpu_models == ("MI300X",)
    assert page_scope(scenario, "workload")[0].fit is None


def test_required_certifications_count_only_within_their_scope_as_on_scoring():
    """A certificate held for other services (catalog certifications_in_scope, issue #18) does not pass the
    Workload and Placement filter either: the same column the Scoring matrix reads."""
    frame = pd.DataFrame({"offer_id": ["a", "b"], "certifications": ["ISO27001;SecNumCloud", "ISO27001"],
                          "certifications_in_scope": ["ISO27001", "ISO27001"]})
    keep, why = filter_offers(frame, Constraints(required_certifications=("SecNumCloud",)), [])
    assert keep.tolist() == [False, False]
    assert why[0] == "certifications: SecNumCloud not on record"


def test_a_price_is_stale_by_its_retrieval_date_not_the_offers():
    """Issue 14 item 7 is about stale prices: an offer observed long ago whose price was retrieved recently is
    not flagged; a price retrieved long ago is, even on a recently observed offer."""
    import datetime as dt

    from ui.offer_scope import flags_text, price_is_stale

    today = dt.date(2026, 12, 3)
    rows = pd.DataFrame([
        {"offer_id": "fresh-price", "as_of_date": "2025-12-30", "price_retrieved_at": "2026-07-30"},
        {"offer_id": "old-price", "as_of_date": "2026-11-01", "price_retrieved_at": "2025-05-29"},
        {"offer_id": "no-retrieval", "as_of_date": "2025-01-01", "price_retrieved_at": None},
        {"offer_id": "partial-date", "as_of_date": "2026-11-01", "price_retrieved_at": "2026-05"},
    ])
    assert price_is_stale(rows, today).tolist() == [False, True, True, True]  # 2026-05 -> 2026-05-01: 216 days
    assert flags_text(rows.iloc[1].to_dict(), today) == "⚠ stale price (553 d)"
