"""Issue #27.3/#27.4: every page applies every item of the brief or says in its banner which it does not apply and
why; when no offer meets the brief, every page says so and names the nearest alternatives.

The brief of the issue: EU data centre + EU parent + BSI C5, applied on Home. No EU-parent provider states a C5
certificate whose scope covers GPU compute, so no offer meets it; without C5, 12 offers of Nebius, Scaleway,
Seeweb and Verda do.
"""

import pytest

from tests.app.conftest import open_page
from ui.brief_scope import BRIEF_WORKLOAD, brief_workload
from ui.scenario import ClientBrief, widget_key

NOTHING = "No offer in the catalog meets the whole brief"


def _apply_on_home(*, eu_parent: bool = True, certs: tuple[str, ...] = ("BSI-C5",)):
    at = open_page("app_pages/home.py")
    next(t for t in at.toggle if t.label == "EU parent company required").set_value(eu_parent)
    next(m for m in at.multiselect if m.label == "Required certifications").set_value(list(certs))
    at.button[0].click()  # the form's submit button
    at.run()
    assert not at.exception
    return at


def _banner(at) -> str:
    return " ".join(c.value for c in at.caption if "Client brief" in c.value)


def _texts(at) -> str:
    return " ".join(x.value for x in [*at.warning, *at.info, *at.markdown, *at.error])


@pytest.fixture
def c5(catalog_path):
    return _apply_on_home()


def test_providers_lists_no_offer_without_the_certificate_and_names_the_alternatives(c5):
    at = c5.switch_page("app_pages/providers.py").run()
    assert not at.exception
    assert at.multiselect(key="prov_certs").value == ["BSI-C5"]
    assert not any("** from" in m.value for m in at.markdown), "offers listed although none holds C5 in scope"
    text = _texts(at)
    assert NOTHING in text
    from tests.app.test_board_page import _without_c5

    assert _without_c5(at.session_state["scenario"]) in text.replace("\\", "")  # Markdown escapes
    assert "GPUs, horizon, utilisation" in _banner(at)  # what a price list does not apply, and why


def test_tco_picker_lists_only_offers_meeting_the_brief_and_says_none_does(c5):
    at = c5.switch_page("app_pages/tco.py").run()
    assert not at.exception
    assert at.selectbox(key="tco_on_demand_offer").options == []
    assert NOTHING in _texts(at)
    assert "applied to the offer picker only" in _banner(at)


def test_tco_picker_keeps_eu_regions_only_under_an_eu_brief(catalog_path):
    at = _apply_on_home(eu_parent=False, certs=())
    at.switch_page("app_pages/tco.py").run()
    options = at.selectbox(key="tco_on_demand_offer").options
    assert options, "the EU H100-class offers are pickable"
    for region in ("us-east-1", "us-central1", "uksouth", "switzerlandnorth"):
        assert not any(region in o for o in options), region


def test_inference_uses_the_briefs_utilisation(c5):
    at = c5.switch_page("app_pages/workload.py").run()
    at.segmented_control(key=widget_key("wl", "mode")).set_value("inference").run()
    assert not at.exception
    assert at.number_input(key=widget_key("wl", "inference.target_utilisation_fraction")).value == pytest.approx(60.0)
    assert at.session_state["scenario"].workload.inference.target_utilisation_fraction == pytest.approx(0.6)
    assert NOTHING in _texts(at)


def test_placement_plans_the_brief_not_the_example(c5):
    at = c5.switch_page("app_pages/placement.py").run()
    assert not at.exception
    section = at.session_state["scenario"].placement
    brief = at.session_state["scenario"].brief
    assert [w.name for w in section.workloads] == [BRIEF_WORKLOAD]
    assert section.workloads[0] == brief_workload(brief)
    assert section.scope.gpu_models == brief.gpu_models
    assert "horizon (the plan covers one year" in _banner(at)
    assert NOTHING in _texts(at)


def test_placement_example_is_named_as_a_difference(catalog_path):
    at = open_page("app_pages/placement.py")
    banner = _banner(at)
    assert "this page follows it" not in banner
    assert "workloads" in banner and "EU fintech" in banner


def test_scoring_says_nothing_meets_the_brief(c5):
    at = c5.switch_page("app_pages/scoring.py").run()
    assert not at.exception
    assert NOTHING in _texts(at)
    assert "horizon, utilisation" in _banner(at)


def test_brief_workload_keeps_the_briefs_numbers():
    w = brief_workload(ClientBrief(cluster_gpus=16, utilisation_fraction=0.6))
    assert (w.peak_gpus, w.mean_gpus, w.busy_hours_per_day, w.may_leave_eu) == (16, 9.6, 14, False)
    assert w.min_gpu_memory_gb == pytest.approx(77.8)


def test_placement_error_names_the_rule_that_removed_the_venues(c5):
    # Issue #27.9: it read "(, out of 0 venues)" and blamed the workload grid.
    at = c5.switch_page("app_pages/placement.py").run()
    error = " ".join(e.value for e in at.error).replace("\\", "")  # Markdown escapes of link values
    assert "out of 0 venues" not in error and "(, " not in error
    assert "The client-wide venue rules leave no catalog offer" in error
    from ui.catalog import offers

    n_offers = len(offers(None, at.session_state["scenario"].display.usd_per_eur))
    assert f"certified BSI-C5 (in scope) removes all {n_offers}" in error
    assert "Relax the named requirement in the grid" not in error


def test_a_single_host_listing_never_meets_the_brief(catalog_path):
    """The board's shortlist opened on 'Vast.ai · H100 × node size not stated · EUR 1.20', one marketplace host's
    listing on one day in France: a price observation, not an offer for the brief's 16 GPUs."""
    import datetime as dt

    import numpy as np

    from catalog.store import CatalogStore, OfferFilter
    from engine.adapters import is_single_host_listing
    from ui import offer_scope
    from ui.brief_scope import brief_constraints, meets_brief
    from ui.scenario import DEFAULT_USD_PER_EUR

    with CatalogStore(catalog_path) as store:
        frame = store.list_offers(OfferFilter(), usd_per_eur=DEFAULT_USD_PER_EUR, today=dt.date.today())
    hosts = is_single_host_listing(frame)
    for brief in (ClientBrief(),  # the default: H100-class in an EU data centre (the FR host was its cheapest)
                  ClientBrief(eu_resident_only=False, gpu_class="Any GPU", model_params_billion=None)):
        passes_filters = np.asarray(offer_scope.filter_offers(frame, brief_constraints(brief), ())[0], dtype=bool)
        assert (passes_filters & hosts).any()  # every other item of the brief lets a host listing through...
        assert not (meets_brief(frame, brief) & hosts).any()  # ...this rule does not
        assert (meets_brief(frame, brief) == (passes_filters & ~hosts)).all()  # and removes nothing else
