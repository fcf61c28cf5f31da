"""The Scoring and Placement pages take their widget keys from the scenario model's fields (issue #32.5).

Every key a table row (:class:`ui.field_widgets.Bound`) or a named key holds is ``widget_key(section, field)`` of a
real field; a misspelt field fails when the table is built; filling the widgets from a section and reading them
back returns that section; and on the running pages every ``_sc_`` / ``_pl`` key in the session state is one of
those derived keys (or lies under one), or one of the few named keys that hold no field.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from engine.scoring import CRITERION_NAMES, Constraints
from tests.app.conftest import open_page
from ui import placement_compare as plc
from ui import placement_view as pl
from ui import scoring_inputs as sc
from ui.field_widgets import Bound, prefill, read_back
from ui.scenario import (
    WIDGET_FIELDS,
    DisplaySettings,
    OwnClusterSettings,
    PlacementSection,
    ScoringSection,
    widget_key,
)

#: Per page: the prefix of its keys, the sections its keys derive from, and the named keys that hold no field.
PAGES = {
    "app_pages/scoring.py": ("_sc_", ("sc", "sc_constraints"), {sc.RESET_KEY, sc.TYPED_KEY}),
    "app_pages/placement.py": ("_pl", ("pl", "pl_own_cluster"), {pl.K_RESET, pl.K_SUBMIT, plc.SUBMIT_KEY, plc.RAMP_KEY}),
}
#: Per page, its tables.
TABLES = {"app_pages/scoring.py": [*sc.SECTION_FIELDS, *sc.CONSTRAINT_FIELDS],
          "app_pages/placement.py": [*pl.SETTINGS, plc.HORIZON, *plc.OWN_FIELDS]}


def test_the_sections_are_the_scenario_models():
    assert WIDGET_FIELDS["sc"] is ScoringSection and WIDGET_FIELDS["pl"] is PlacementSection
    assert WIDGET_FIELDS["sc_constraints"] is ScoringSection.model_fields["constraints"].annotation is Constraints
    assert WIDGET_FIELDS["pl_own_cluster"] is PlacementSection.model_fields["own_cluster"].annotation \
        is OwnClusterSettings


@pytest.mark.parametrize("bound", [b for table in TABLES.values() for b in table], ids=lambda b: b.key)
def test_every_table_key_is_the_derived_key_of_a_real_field(bound: Bound):
    assert bound.field in WIDGET_FIELDS[bound.section].model_fields
    assert bound.key == widget_key(bound.section, bound.field) == f"_{bound.section}_{bound.field}"


def test_the_named_keys_are_derived_keys_too():
    assert sc.MAX_PRICE_KEY == widget_key("sc_constraints", "max_price_eur_per_gpu_hour")
    assert sc.SCOPE_KEY == widget_key("sc", "scope")
    assert {sc.weight_key(name) for name in CRITERION_NAMES} == {
        f"{widget_key('sc', 'weight_points')}_{name}" for name in CRITERION_NAMES}
    assert [pl.K_EXAMPLE, pl.K_GRID, pl.K_CAP, pl.K_SCOPE, pl.K_RESIDENCY] == [
        widget_key("pl", f) for f in ("example", "workloads", "capacity_gpus", "scope", "residency")]
    assert (pl.K_TERM, pl.K_DISCOUNT) == (widget_key("pl", "commitment_term_years"),
                                          widget_key("pl", "other_provider_discount_fraction"))
    # the settings cover every plain setting of the section the page edits, the own-cluster table every field
    assert {b.field for b in pl.SETTINGS} == {"commitment_term_years", "other_provider_discount_fraction",
                                              "commit_on_stale_or_unknown", "match_workload_page",
                                              "marketplace_for_every_workload"}
    assert [b.field for b in plc.OWN_FIELDS] == list(OwnClusterSettings.model_fields)


@pytest.mark.parametrize(("section", "field"), [("sc", "presets"), ("sc", "max_price_eur_per_gpu_hour"),
                                                ("sc_constraints", "eu_resident"), ("pl", "commitment_term"),
                                                ("pl", "other_discount_pct"), ("pl_own_cluster", "lead_days")])
def test_a_misspelt_field_raises(section, field):
    with pytest.raises(KeyError, match=field):
        Bound(section, field)


def test_a_weight_of_no_criterion_raises():
    with pytest.raises(KeyError, match="price"):
        sc.weight_key("price")


# --- prefill -> read back ----------------------------------------------------------------------------------------


def scoring_round_trip(section: ScoringSection, display: DisplaySettings) -> ScoringSection:
    state: dict = {}
    sc.prefill_widgets(section, display, state)
    return sc.section_from_widgets(section, display, section.scope, state)


def test_the_default_scoring_section_comes_back():
    default = ScoringSection()
    # the page stores the preset's weights written out (as it always did); everything else is the default
    assert scoring_round_trip(default, DisplaySettings()) == default.model_copy(
        update={"weight_points": default.points()})


def test_an_edited_scoring_section_comes_back_in_another_currency():
    points = {name: float(i * 7 % 101) for i, name in enumerate(CRITERION_NAMES)}
    edited = ScoringSection(preset="Cheapest inference", weight_points=points, method="topsis", missing="exclude",
                            price_basis="reserved_3y", concentration=50.0,
                            constraints=Constraints(sxm_only=True, eu_legal_seat_only=True,
                                                    max_price_eur_per_gpu_hour=2.3456,
                                                    required_certifications=("ISO27001", "BSI-C5")))
    usd = DisplaySettings(currency="USD", usd_per_eur=1.1)
    assert scoring_round_trip(edited, usd) == edited  # the shown USD cap keeps the stored EUR value exactly
    state: dict = {}
    sc.prefill_widgets(edited, usd, state)
    assert state[sc.MAX_PRICE_KEY] == round(2.3456 * 1.1, 2) and state[sc.KEYS["required_certifications"]] == [
        "ISO27001", "BSI-C5"]


def placement_round_trip(section: PlacementSection) -> PlacementSection:
    state: dict = {}
    pl.prefill_widgets(section, state)
    prefill([plc.HORIZON], section, state)
    prefill(plc.OWN_FIELDS, section.own_cluster, state)
    workloads, problems = pl.rows_to_workloads(state[pl.K_BASE])
    assert problems == [] and tuple(workloads) == pl.portfolio(section)
    return PlacementSection.model_validate({
        **section.model_dump(), **read_back(pl.SETTINGS, state), **read_back([plc.HORIZON], state),
        "capacity_gpus": pl.capacity_from_frame(state[pl.K_CAP_BASE]),
        "own_cluster": OwnClusterSettings(**read_back(plc.OWN_FIELDS, state))})


def test_the_default_placement_section_comes_back():
    assert placement_round_trip(PlacementSection()) == PlacementSection()


def test_an_edited_placement_section_comes_back():
    edited = PlacementSection(example="AI start-up", commitment_term_years=None, other_provider_discount_fraction=0.25,
                              capacity_gpus={"offer-a": 8.0, "offer-b": 0.0}, commit_on_stale_or_unknown=True,
                              match_workload_page=True, marketplace_for_every_workload=True, horizon_months=18,
                              own_cluster=OwnClusterSettings(include=False, lead_time_days=30.0, fixed_gpus=8,
                                                             max_gpus=64.0, country="DE", is_eu_datacenter=False,
                                                             is_eu_client=False, gpu_model="H200"))
    assert placement_round_trip(edited) == edited
    state: dict = {}
    pl.prefill_widgets(edited, state)
    assert (state[pl.K_TERM], state[pl.K_DISCOUNT]) == ("Published reserved prices only", 25)
    prefill(plc.OWN_FIELDS, PlacementSection().own_cluster, state)  # None sizes show as 0 and come back as None
    assert (state[plc.OWN["fixed_gpus"]], state[plc.OWN["max_gpus"]]) == (0, 0.0)
    assert read_back(plc.OWN_FIELDS, state) == PlacementSection().own_cluster.model_dump()


# --- the running pages -------------------------------------------------------------------------------------------


def _state_keys(at: AppTest) -> set[str]:
    return {k for k in at.session_state._state.filtered_state if isinstance(k, str)}


def _widget_keys(at: AppTest) -> set[str]:
    kinds = (at.button, at.checkbox, at.multiselect, at.number_input, at.radio, at.selectbox, at.select_slider,
             at.slider, at.text_input, at.toggle)
    return {w.key for kind in kinds for w in kind if w.key}


@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_key_derives_from_a_field(catalog_path, page):
    prefix, sections, named = PAGES[page]
    at = open_page(page)
    derived = {widget_key(s, f) for s in sections for f in WIDGET_FIELDS[s].model_fields}
    keys = {k for k in _state_keys(at) | _widget_keys(at) if k.startswith(prefix)}
    stray = {k for k in keys - named if not any(k == d or k.startswith(d + "_") for d in derived)}
    assert keys and stray == set()
    assert {b.key for b in TABLES[page]} <= _widget_keys(at)  # the table's keys are the keys of widgets on the page
