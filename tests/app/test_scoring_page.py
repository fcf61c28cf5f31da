"""AppTest of the Provider scoring page: presets change the winner where the data says so, constraints are
reported with reasons, an empty ranking is explained, and the weights persist in the scenario.

Expected winners are computed with the engine on the same catalog, never hard-coded, with the page's own offer
scope (GPU class, memory per GPU, price outliers: ui.offer_scope) unless a test widens it to any GPU.
"""

import datetime as dt
import re
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from catalog.models import EU_EEA_COUNTRIES
from catalog.store import CatalogStore, OfferFilter
from engine.adapters import build_decision_matrix, price_outlier_columns
from engine.money import DEFAULT_USD_PER_EUR
from engine.scope import OfferScope, scope_constraints
from engine.scoring import CRITERION_NAMES, PRESETS, ScoringResult, rank_alternatives
from tests.app.conftest import open_page
from tests.app.synthetic import add_h100_price_outlier
from ui.offer_scope import picker_labels
from ui.scenario import ScoringSection, widget_key
from ui.scoring_inputs import RESET_KEY, TYPED_KEY, typed_weight_key, weight_key

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def scoring(catalog_path) -> AppTest:
    return open_page("app_pages/scoring.py")


def catalog_frame(catalog_path: Path) -> pd.DataFrame:
    """The offers frame as the page gets it: outlier flags added, labels with GPUs per node."""
    with CatalogStore(catalog_path) as store:
        frame = store.list_offers(OfferFilter(), usd_per_eur=DEFAULT_USD_PER_EUR, today=dt.date.today())
    frame = pd.concat([frame, price_outlier_columns(frame)], axis=1)
    return frame.assign(offer_label=picker_labels(frame, flags=False))


def engine_ranking(catalog_path: Path, preset: str, scope: OfferScope | None = None, *, constraints=None,
                   first_load: bool = False, **kwargs) -> ScoringResult:
    """The engine's ranking under ``preset`` and ``scope`` (default: the page's default scope). The hard
    constraints are the ones given, else the client brief's on first load (``first_load``), else the preset's."""
    p = PRESETS[preset]
    basis = kwargs.pop("price_basis", "on_demand")
    matrix = build_decision_matrix(catalog_frame(catalog_path), price_basis=basis, reference_date=dt.date.today(),
                                   label_columns=("offer_label",))
    base = constraints if constraints is not None else ScoringSection().constraints if first_load else p.constraints
    return rank_alternatives(matrix, p.weights(), constraints=scope_constraints(
        ScoringSection().scope if scope is None else scope, None, base), **kwargs)


def widen_to_any_gpu(at: AppTest) -> None:
    """GPU class 'any', no model to fit (price outliers stay out, as by default)."""
    at.multiselect(key="_sc_scope_gpus").set_value([]).run()
    at.toggle(key="_sc_scope_fit_on").set_value(False).run()
    assert not at.exception


def ranking(at: AppTest) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "Score" in d.value.columns)


def excluded(at: AppTest) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "Reasons" in d.value.columns)


def text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def top_label(result: ScoringResult) -> str:
    return result.labels[int(result.order[0])]


def test_first_load_ranks_the_regulated_enterprise_preset(scoring, catalog_path):
    # the preset's weights with the client brief's constraints (the default brief: EU data centre required)
    expected = engine_ranking(catalog_path, "Regulated enterprise", first_load=True)
    assert expected.ids, "the seed catalog ranks offers under the default preset"
    table = ranking(scoring)
    assert len(table) == len(expected.ids)
    assert table["Score"].iloc[0] == pytest.approx(float(expected.scores.max()))
    assert f"**#1 {top_label(expected)}**" in text(scoring)
    assert "of 1,000 weight draws" in text(scoring)
    assert len(scoring.get("plotly_chart")) == 4
    assert scoring.session_state["scenario"].scoring.preset == "Regulated enterprise"


def test_switching_preset_changes_the_winner(scoring, catalog_path):
    widen_to_any_gpu(scoring)
    regulated = engine_ranking(catalog_path, "Regulated enterprise", OfferScope())
    cheapest = engine_ranking(catalog_path, "Cheapest inference", OfferScope())
    assert regulated.top != cheapest.top, "the data says the two presets pick different winners"
    before = ranking(scoring).iloc[0]
    scoring.selectbox(key=widget_key("sc", "preset")).set_value("Cheapest inference").run()
    assert not scoring.exception
    after = ranking(scoring).iloc[0]
    assert (after["Provider"], after["GPU"], after["GPUs"], after["Region"]) != (
        before["Provider"], before["GPU"], before["GPUs"], before["Region"])
    assert after["Score"] == pytest.approx(float(cheapest.scores.max()))
    assert f"**#1 {top_label(cheapest)}**" in text(scoring)
    assert len(ranking(scoring)) == len(cheapest.ids)
    # the preset set the weights and switched the constraints off
    assert scoring.slider(key=weight_key("price_eur_per_gpu_hour")).value == 55
    assert not scoring.toggle(key=widget_key("sc_constraints", "eu_resident_only")).value
    assert not scoring.toggle(key=widget_key("sc_constraints", "eu_jurisdiction_only")).value


def test_a_constraint_toggle_reduces_the_ranked_count_and_reports_why(scoring):
    scoring.selectbox(key=widget_key("sc", "preset")).set_value("Cheapest inference").run()
    n_all = len(ranking(scoring))
    scoring.toggle(key=widget_key("sc_constraints", "sxm_only")).set_value(True).run()
    assert not scoring.exception
    n_sxm = len(ranking(scoring))
    assert 0 < n_sxm < n_all
    assert f"**SXM boards only**: removes {n_all - n_sxm} of {n_all}" in text(scoring)
    left_out = excluded(scoring)
    by_sxm_alone = left_out[left_out["Reasons"].str.startswith("form factor: ") & ~left_out["Reasons"].str.contains("; ")]
    assert len(by_sxm_alone) == n_all - n_sxm  # the others fail the like-for-like scope as well
    assert (left_out["Removed by"] == "constraint").all()
    assert scoring.session_state["scenario"].scoring.constraints.sxm_only


def test_sovereign_preset_ranks_the_eu_infiniband_offers_and_explains_an_empty_ranking(scoring, catalog_path):
    # Since issue #18 the catalog has EU-parent InfiniBand offers in EU data centres (Nebius H100/H200 SXM in FI/FR),
    # so the sovereign preset ranks them; requiring BSI C5 on top empties the ranking (no C5 scope covers a GPU
    # service), and the page explains which constraint removed what.
    expected = engine_ranking(catalog_path, "Sovereign training cluster")
    scoring.selectbox(key=widget_key("sc", "preset")).set_value("Sovereign training cluster").run()
    assert not scoring.exception
    assert not scoring.error
    assert expected.ids and len(ranking(scoring)) == len(expected.ids)
    with CatalogStore(catalog_path) as store:
        frame = store.list_offers(OfferFilter(), usd_per_eur=DEFAULT_USD_PER_EUR, today=dt.date.today())
    ranked = frame.set_index("offer_id").loc[list(expected.ids)]
    assert set(ranked["parent_jurisdiction"]) == {"EU"} and ranked["is_eu_datacenter"].all()
    assert ranked["inter_node"].str.startswith("InfiniBand").all()

    scoring.multiselect(key=widget_key("sc_constraints", "required_certifications")).set_value(["BSI-C5"]).run()
    assert not scoring.exception
    message = scoring.warning[0].value
    assert "No offer is left to rank" in message
    for constraint in ("EU/EEA data centre only", "EU-controlled provider only", "InfiniBand between nodes only"):
        assert f"**{constraint}**: removes" in message
    assert "not stated" in message
    left_out = excluded(scoring)
    assert len(left_out) == len(frame)
    assert left_out["Reasons"].str.len().gt(0).all()
    assert not any("Score" in d.value.columns for d in scoring.dataframe)


def test_missing_values_show_as_not_stated(scoring):
    table = ranking(scoring)
    facts = table.drop(columns=["Rank", "Score", "Source"])
    assert (facts == "not stated").any().any()
    assert not facts.isna().any().any()


def test_a_weight_change_updates_the_verdict_and_persists(scoring):
    before = text(scoring)
    scoring.slider(key=weight_key("price_eur_per_gpu_hour")).set_value(60).run()
    assert not scoring.exception
    assert text(scoring) != before
    assert scoring.session_state["scenario"].scoring.weight_points["price_eur_per_gpu_hour"] == 60
    scoring.switch_page("app_pages/providers.py").run()
    scoring.switch_page("app_pages/scoring.py").run()
    assert scoring.slider(key=weight_key("price_eur_per_gpu_hour")).value == 60
    scoring.button(key=RESET_KEY).click().run()
    assert scoring.slider(key=weight_key("price_eur_per_gpu_hour")).value == 15


def test_typed_weights_are_the_same_weights_as_the_sliders(scoring):
    """Issue #31: "Type the weights" draws number fields holding the sliders' values; a typed value ranks like a
    dragged one, and switching back shows it on the slider."""
    price = weight_key("price_eur_per_gpu_hour")
    scoring.slider(key=price).set_value(60).run()
    dragged = text(scoring)
    scoring.slider(key=price).set_value(15).run()
    scoring.toggle(key=TYPED_KEY).set_value(True).run()
    assert not scoring.exception and not [s for s in scoring.slider if s.key == price]
    typed = typed_weight_key("price_eur_per_gpu_hour")
    assert scoring.number_input(key=typed).value == 15
    scoring.number_input(key=typed).set_value(60).run()
    assert not scoring.exception
    assert scoring.session_state["scenario"].scoring.weight_points["price_eur_per_gpu_hour"] == 60
    assert text(scoring) == dragged
    scoring.toggle(key=TYPED_KEY).set_value(False).run()
    assert scoring.slider(key=price).value == 60


def test_no_weight_at_all_asks_for_one(scoring):
    weights = {weight_key(name) for name in CRITERION_NAMES}
    for slider in scoring.slider:
        if slider.key in weights:
            slider.set_value(0)
    scoring.run()
    assert not scoring.exception
    assert "at least one criterion" in scoring.error[0].value


def test_topsis_and_the_exclude_rule_run_and_are_stated(scoring):
    scoring.radio(key=widget_key("sc", "method")).set_value("topsis").run()
    assert not scoring.exception
    assert "TOPSIS closeness" in text(scoring)
    assert any("weighted-sum view" in c.value for c in scoring.caption)
    n_worst = len(ranking(scoring))
    scoring.radio(key=widget_key("sc", "missing")).set_value("exclude").run()
    assert not scoring.exception
    if scoring.warning:  # every offer misses a weighted criterion: the explanation names the rule
        assert "Missing-data rule" in scoring.warning[0].value
    else:
        assert len(ranking(scoring)) < n_worst
    assert (excluded(scoring)["Removed by"] == "missing data").any()


def test_max_price_is_entered_in_the_display_currency(scoring):
    scoring.selectbox(key=widget_key("sc", "preset")).set_value("Cheapest inference").run()
    scoring.sidebar.radio(key="_currency").set_value("USD").run()
    scoring.number_input(key=widget_key("sc_constraints", "max_price_eur_per_gpu_hour")).set_value(2.0).run()
    assert not scoring.exception
    cap = scoring.session_state["scenario"].scoring.constraints.max_price_eur_per_gpu_hour
    assert cap == pytest.approx(2.0 / DEFAULT_USD_PER_EUR)
    assert "**Maximum price $2.00**: removes" in text(scoring)


def test_required_certification_and_eu_seat_filter_by_provider_facts(scoring, catalog_path):
    widen_to_any_gpu(scoring)
    scoring.selectbox(key=widget_key("sc", "preset")).set_value("Cheapest inference").run()
    n_all = len(ranking(scoring))
    scoring.multiselect(key=widget_key("sc_constraints", "required_certifications")).set_value(["ISO27001"]).run()
    scoring.toggle(key=widget_key("sc_constraints", "eu_legal_seat_only")).set_value(True).run()
    assert not scoring.exception
    with CatalogStore(catalog_path) as store:
        providers = store.table("providers").set_index("provider_id")
    ok = {pid for pid, p in providers.iterrows()
          if "ISO27001" in (p.certifications or "").split(";") and p.legal_seat_country in EU_EEA_COUNTRIES}
    assert ok  # e.g. OVHcloud, Scaleway, Gcore hold ISO 27001 and sit in the EU
    left = ranking(scoring)
    assert 0 < len(left) < n_all
    names = providers["name"]
    assert set(left["Provider"]) <= {names[pid] for pid in ok}
    section = scoring.session_state["scenario"].scoring
    assert section.constraints.required_certifications == ("ISO27001",) and section.constraints.eu_legal_seat_only
    why = excluded(scoring)
    assert why["Reasons"].str.contains("certifications: |legal seat: ").all()


def test_three_year_commitment_basis_ranks_only_offers_with_a_three_year_price(scoring, catalog_path):
    scoring.selectbox(key=widget_key("sc", "preset")).set_value("Cheapest inference").run()
    scoring.selectbox(key=widget_key("sc", "price_basis")).set_value("reserved_3y").run()
    scoring.radio(key=widget_key("sc", "missing")).set_value("exclude").run()  # an offer without that price is left out
    assert not scoring.exception
    frame = catalog_frame(catalog_path)
    expected = engine_ranking(catalog_path, "Cheapest inference", price_basis="reserved_3y", missing="exclude")
    with_3y = set(frame.loc[frame["reserved_3y_eur_per_gpu_hour"].notna(), "offer_id"])
    assert 0 < len(ranking(scoring)) == len(expected.ids)
    assert set(expected.ids) <= with_3y
    assert scoring.session_state["scenario"].scoring.price_basis == "reserved_3y"


# ---------------------------------------------------------------------------------------------------
# Issue 14, item 3: like-for-like ranking; item 4: outliers; item 7: stale warning, labels
# ---------------------------------------------------------------------------------------------------


def test_first_load_ranks_only_the_clients_gpu_class_that_holds_the_model(scoring, catalog_path):
    """The consultant's brief: 16 H100 for a 70B fine-tune. No L4 (24 GB) may rank above (or beside) an H100."""
    table = ranking(scoring)
    frame = catalog_frame(catalog_path).set_index("offer_id")
    expected = engine_ranking(catalog_path, "Regulated enterprise", first_load=True)
    ranked = frame.loc[list(expected.ids)]
    client_class = ScoringSection().scope.gpu_models  # the brief's class: H100, H100 NVL, H200
    assert "H100" in client_class and "L4" not in client_class
    assert len(table) == len(expected.ids) > 0
    assert ranked["gpu_model"].isin(client_class).all() and (ranked["memory_gb"] >= 70 / 0.9).all()
    assert table["GPU"].str.startswith(("H100", "H200")).all()
    assert not table["GPU"].str.startswith(("L4", "L40S")).any()
    assert any(f"{' or '.join(client_class)} only · at least 78 GB per GPU" in c.value for c in scoring.caption)
    assert f"**GPU class: {' or '.join(client_class)}**: removes" in text(scoring)


def test_a_model_that_must_fit_decides_which_gpus_compete(scoring, catalog_path):
    widen_to_any_gpu(scoring)
    scoring.toggle(key="_sc_scope_fit_on").set_value(True).run()  # 70B full fine-tune on 16 GPUs: 78 GB per GPU
    assert not scoring.exception
    frame = catalog_frame(catalog_path).set_index("offer_id")
    fits = engine_ranking(catalog_path, "Regulated enterprise", ScoringSection().scope.model_copy(
        update={"gpu_models": ()}), first_load=True)
    assert len(ranking(scoring)) == len(fits.ids) > 0
    assert (frame.loc[list(fits.ids), "memory_gb"] >= 70 / 0.9).all()
    why = excluded(scoring)
    small = why[why["Offer"].str.contains(" · L4 ")]
    assert len(small) and small["Reasons"].str.contains("memory 24 GB per GPU, below the 78 GB needed").all()
    # served in INT4 on one 8-GPU node the same model needs 35 GB / 7.2 = 4.9 GB per GPU: the L4 competes
    scoring.selectbox(key="_sc_scope_fit_use").set_value("serving-int4").run()
    scoring.number_input(key="_sc_scope_fit_n").set_value(8).run()
    assert not scoring.exception
    assert ranking(scoring)["GPU"].str.startswith("L4").any()
    assert scoring.session_state["scenario"].scoring.scope.fit.use == "serving-int4"


def test_a_provider_ranking_beside_the_offer_ranking(scoring):
    scoring.selectbox(key=widget_key("sc", "preset")).set_value("Cheapest inference").run()
    offers_table = ranking(scoring)
    providers = next(d.value for d in scoring.dataframe if "Best offer" in d.value.columns)
    assert providers["Provider"].is_unique
    assert set(providers["Provider"]) == set(offers_table["Provider"])
    best = offers_table.groupby("Provider")["Score"].max()
    for _, row in providers.iterrows():
        assert row["Score"] == pytest.approx(best[row["Provider"]])
        assert row["Offers ranked"] == (offers_table["Provider"] == row["Provider"]).sum()
    assert providers["Score"].is_monotonic_decreasing and providers["Rank"].iloc[0] == 1


def test_criteria_that_separate_nothing_are_reported_as_the_engine_finds_them(scoring, catalog_path):
    """The page reports exactly the engine's inert criteria (weight that separates nothing) and the criteria only
    some offers state. (The seed of 2026-12-04 states SLA and support for some EU offers, so on first load no
    criterion is inert any more; the engine's inert rule has its own tests in tests/engine.)"""
    expected = engine_ranking(catalog_path, "Regulated enterprise", first_load=True)
    criteria = next(d.value for d in scoring.dataframe if "Status" in d.value.columns).set_index("Criterion")
    inert = criteria[criteria["Status"].str.startswith("inert")]
    assert len(inert) == len(expected.uninformative) and (inert["Share used"] == 0).all()
    assert criteria["Share used"].sum() == pytest.approx(1.0)
    assert ranking(scoring).columns.str.endswith("(inert)").sum() == len(expected.uninformative)
    notes = [c.value for c in scoring.caption if "Inert:" in c.value]
    if expected.uninformative:
        assert f"**Inert: {expected.inert_share:.0%} of your weight.**" in notes[0]
        assert inert["Share"].sum() == pytest.approx(expected.inert_share)
    else:
        assert notes == []
    assert expected.stated_vs_not
    only_one = next(c.value for c in scoring.caption if "Only one value is stated" in c.value)
    named = only_one.split(" for ", 1)[1].split(":", 1)[0].split(", ")
    assert len(named) == len(expected.stated_vs_not)  # one label per criterion the engine names


def test_a_price_outlier_is_left_out_unless_included(catalog_path):
    """A synthetic EU H100 at EUR 0.25/GPU-h (far below every other H100) would win the default ranking."""
    offer_id = add_h100_price_outlier(catalog_path)
    scoring = open_page("app_pages/scoring.py")
    frame = catalog_frame(catalog_path).set_index("offer_id")
    assert frame.at[offer_id, "on_demand_is_outlier"]
    label = frame.at[offer_id, "offer_label"]
    assert label not in text(scoring) and not ranking(scoring)["Flags"].str.contains("price outlier").any()
    why = excluded(scoring).set_index("Offer")
    assert why.at[label, "Reasons"].startswith("price outlier: this on-demand price is")
    assert "**Price outliers left out**: removes 1 of" in text(scoring)
    scoring.toggle(key="_sc_scope_outliers").set_value(True).run()
    assert not scoring.exception
    used = engine_ranking(catalog_path, "Regulated enterprise", ScoringSection().scope.model_copy(
        update={"include_price_outliers": True}), first_load=True)
    assert offer_id in used.ids and len(ranking(scoring)) == len(used.ids)
    assert ranking(scoring)["Flags"].str.startswith("⚠ price outlier").sum() == 1
    assert (f"**#1 {label}**" in text(scoring)) == (used.top == offer_id)
    assert ("The #1's price is flagged as an outlier" in text(scoring)) == (used.top == offer_id)


def test_the_verdict_warns_when_the_winner_is_stale(scoring, catalog_path):
    expected = engine_ranking(catalog_path, "Regulated enterprise", first_load=True)
    from tests.app.staleness import stale_by_hand

    stale = stale_by_hand(catalog_frame(catalog_path).set_index("offer_id"))
    verdict = next(m.value for m in scoring.markdown if m.value.startswith("**#1"))
    assert ("The #1's price is stale" in verdict) == bool(stale[expected.top])
    in_order = [expected.ids[i] for i in expected.order]
    assert (ranking(scoring)["Flags"].str.contains("stale price") == stale.loc[in_order].to_numpy()).all()


def test_the_default_page_says_which_rule_of_the_preset_the_brief_switches_off(scoring):
    """#27.11: "Regulated enterprise" promises EU-controlled providers; the default brief only prefers an EU parent,
    so the page says the preset's EU-parent rule is off and that its weights still prefer EU parents."""
    captions = " ".join(c.value for c in scoring.caption)
    assert "EU-controlled providers" in captions
    assert re.search(r"hard rule \*EU-controlled provider[^*]*\* is off \(still preferred by weight\)", captions, re.I), captions
