"""The Scoring and Placement pages take their widget keys from the scenario model's fields (issue #32.5).

Every key a table row (:class:`ui.field_widgets.Bound`) or a named key holds is ``widget_key(section, field)`` of a
real field; a misspelt field fails when the table is built; filling the widgets from a section and reading them
back returns that section; and on the running pages every ``_sc_`` / ``_pl_`` key in the session state is one of
those derived keys (or lies under one), or one of the few named keys that hold no field.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from engine.scoring import CRITERION_NAMES, Constraints
from tests.app.conftest import open_page
from ui import placement_view as pl
from ui import scoring_inputs as sc
from ui.field_widgets import Bound, read_back
from ui.scenario import WIDGET_FIELDS, DisplaySettings, PlacementSection, ScoringSection, widget_key

#: Per page: the prefix of its keys, the sections its keys derive from, and the named keys that hold no field.
PAGES = {
    "app_pages/scoring.py": ("_sc_", ("sc", "sc_constraints"), {sc.RESET_KEY}),
    "app_pages/placement.py": ("_pl_", ("pl",), {pl.K_RESET, pl.K_SUBMIT}),
}


def test_the_sections_are_the_scenario_models():
    assert WIDGET_FIELDS["sc"] is ScoringSection and WIDGET_FIELDS["pl"] is PlacementSection
    assert WIDGET_FIELDS["sc_constraints"] is ScoringSection.model_fields["constraints"].annotation is Constraints


@pytest.mark.parametrize("bound", [*sc.SECTION_FIELDS, *sc.CONSTRAINT_FIELDS, *pl.SETTINGS], ids=lambda b: b.key)
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
    # the settings cover every plain setting of the section the page edits
    assert {b.field for b in pl.SETTINGS} == {"commitment_term_years", "other_provider_discount_fraction",
                                              "commit_on_stale_or_unknown", "match_workload_page",
                                              "marketplace_for_every_workload"}


@pytest.mark.parametrize(("section", "field"), [("sc", "presets"), ("sc", "max_price_eur_per_gpu_hour"),
                                                ("sc_constraints", "eu_resident"), ("pl", "commitment_term"),
                                                ("pl", "other_discount_pct")])
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
    workloads, problems = pl.rows_to_workloads(state[pl.K_BASE])
    assert problems == [] and tuple(workloads) == pl.portfolio(section)
    return PlacementSection.model_validate({**section.model_dump(), **read_back(pl.SETTINGS, state),
                                            "capacity_gpus": pl.capacity_from_frame(state[pl.K_CAP_BASE])})


def test_the_default_placement_section_comes_back():
    assert placement_round_trip(PlacementSection()) == PlacementSection()


def test_an_edited_placement_section_comes_back():
    edited = PlacementSection(example="AI start-up", commitment_term_years=None, other_provider_discount_fraction=0.25,
                              capacity_gpus={"offer-a": 8.0, "offer-b": 0.0}, commit_on_stale_or_unknown=True,
                              match_workload_page=True, marketplace_for_every_workload=True)
    assert placement_round_trip(edited) == edited
    state: dict = {}
    pl.prefill_widgets(edited, state)
    assert (state[pl.K_TERM], state[pl.K_DISCOUNT]) == ("Published reserved prices only", 25)


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
    table = [*sc.SECTION_FIELDS, *sc.CONSTRAINT_FIELDS] if prefix == "_sc_" else list(pl.SETTINGS)
    assert {b.key for b in table} <= _widget_keys(at)  # the table's keys are the keys of widgets on the page
