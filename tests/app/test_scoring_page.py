"""AppTest of the Provider scoring page: presets change the winner where the data says so, constraints are
reported with reasons, an empty ranking is explained, and the weights persist in the scenario.

Expected winners are computed with the engine on the same catalog, never hard-coded.
"""

import datetime as dt
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from catalog.models import EU_EEA_COUNTRIES
from catalog.store import CatalogStore, OfferFilter
from engine.money import DEFAULT_USD_PER_EUR
from engine.scoring import PRESETS, ScoringResult, build_decision_matrix, rank_alternatives
from tests.app.conftest import open_page

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def scoring(catalog_path) -> AppTest:
    return open_page("app_pages/scoring.py")


def engine_ranking(catalog_path: Path, preset: str, constraints=None) -> ScoringResult:
    """The engine's ranking for a preset's weights, with the preset's constraints or the ones given."""
    with CatalogStore(catalog_path) as store:
        frame = store.list_offers(OfferFilter(), usd_per_eur=DEFAULT_USD_PER_EUR, today=dt.date.today())
    p = PRESETS[preset]
    matrix = build_decision_matrix(frame, reference_date=dt.date.today())
    return rank_alternatives(matrix, p.weights(), constraints=p.constraints if constraints is None else constraints)


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
    from ui.scenario import Scenario

    expected = engine_ranking(catalog_path, "Regulated enterprise", Scenario().scoring.constraints)
    assert expected.ids, "the seed catalog ranks offers under the default preset"
    table = ranking(scoring)
    assert len(table) == len(expected.ids)
    assert table["Score"].iloc[0] == pytest.approx(float(expected.scores.max()))
    assert f"**#1 {top_label(expected)}**" in text(scoring)
    assert "of 1,000 weight draws" in text(scoring)
    assert len(scoring.get("plotly_chart")) == 4
    assert scoring.session_state["scenario"].scoring.preset == "Regulated enterprise"


def test_switching_preset_changes_the_winner(scoring, catalog_path):
    regulated = engine_ranking(catalog_path, "Regulated enterprise")
    cheapest = engine_ranking(catalog_path, "Cheapest inference")
    assert regulated.top != cheapest.top, "the data says the two presets pick different winners"
    before = ranking(scoring).iloc[0]
    scoring.selectbox(key="_sc_preset").set_value("Cheapest inference").run()
    assert not scoring.exception
    after = ranking(scoring).iloc[0]
    assert (after["Provider"], after["Region"]) != (before["Provider"], before["Region"])
    assert after["Score"] == pytest.approx(float(cheapest.scores.max()))
    assert f"**#1 {top_label(cheapest)}**" in text(scoring)
    assert len(ranking(scoring)) == len(cheapest.ids)
    # the preset set the weights and switched the constraints off
    assert scoring.slider(key="_sc_w_price_eur_per_gpu_hour").value == 55
    assert not scoring.toggle(key="_sc_eu_dc").value and not scoring.toggle(key="_sc_eu_jur").value


def test_a_constraint_toggle_reduces_the_ranked_count_and_reports_why(scoring):
    scoring.selectbox(key="_sc_preset").set_value("Cheapest inference").run()
    n_all = len(ranking(scoring))
    scoring.toggle(key="_sc_sxm").set_value(True).run()
    assert not scoring.exception
    n_sxm = len(ranking(scoring))
    assert 0 < n_sxm < n_all
    assert f"**SXM boards only**: removes {n_all - n_sxm} of {n_all}" in text(scoring)
    left_out = excluded(scoring)
    assert len(left_out) == n_all - n_sxm
    assert left_out["Reasons"].str.startswith("form factor: ").all()
    assert (left_out["Removed by"] == "constraint").all()
    assert scoring.session_state["scenario"].scoring.constraints.sxm_only


def test_sovereign_preset_ranks_the_eu_infiniband_offers_and_explains_an_empty_ranking(scoring, catalog_path):
    # Since issue #18 the catalog has EU-parent InfiniBand offers in EU data centres (Nebius H100/H200 SXM in FI/FR),
    # so the sovereign preset ranks them; requiring BSI C5 on top empties the ranking (no C5 scope covers a GPU
    # service), and the page explains which constraint removed what.
    expected = engine_ranking(catalog_path, "Sovereign training cluster")
    scoring.selectbox(key="_sc_preset").set_value("Sovereign training cluster").run()
    assert not scoring.exception
    assert not scoring.error
    assert expected.ids and len(ranking(scoring)) == len(expected.ids)
    with CatalogStore(catalog_path) as store:
        frame = store.list_offers(OfferFilter(), usd_per_eur=DEFAULT_USD_PER_EUR, today=dt.date.today())
    ranked = frame.set_index("offer_id").loc[list(expected.ids)]
    assert set(ranked["parent_jurisdiction"]) == {"EU"} and ranked["is_eu_datacenter"].all()
    assert ranked["inter_node"].str.startswith("InfiniBand").all()

    scoring.multiselect(key="_sc_certs").set_value(["BSI-C5"]).run()
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
    scoring.slider(key="_sc_w_price_eur_per_gpu_hour").set_value(60).run()
    assert not scoring.exception
    assert text(scoring) != before
    assert scoring.session_state["scenario"].scoring.weight_points["price_eur_per_gpu_hour"] == 60
    scoring.switch_page("app_pages/providers.py").run()
    scoring.switch_page("app_pages/scoring.py").run()
    assert scoring.slider(key="_sc_w_price_eur_per_gpu_hour").value == 60
    scoring.button(key="_sc_reset").click().run()
    assert scoring.slider(key="_sc_w_price_eur_per_gpu_hour").value == 15


def test_no_weight_at_all_asks_for_one(scoring):
    for slider in scoring.slider:
        if slider.key and slider.key.startswith("_sc_w_"):
            slider.set_value(0)
    scoring.run()
    assert not scoring.exception
    assert "at least one criterion" in scoring.error[0].value


def test_topsis_and_the_exclude_rule_run_and_are_stated(scoring):
    scoring.radio(key="_sc_method").set_value("topsis").run()
    assert not scoring.exception
    assert "TOPSIS closeness" in text(scoring)
    assert any("weighted-sum view" in c.value for c in scoring.caption)
    n_worst = len(ranking(scoring))
    scoring.radio(key="_sc_missing").set_value("exclude").run()
    assert not scoring.exception
    if scoring.warning:  # every offer misses a weighted criterion: the explanation names the rule
        assert "Missing-data rule" in scoring.warning[0].value
    else:
        assert len(ranking(scoring)) < n_worst
    assert (excluded(scoring)["Removed by"] == "missing data").any()


def test_max_price_is_entered_in_the_display_currency(scoring):
    scoring.selectbox(key="_sc_preset").set_value("Cheapest inference").run()
    scoring.sidebar.radio(key="_currency").set_value("USD").run()
    scoring.number_input(key="_sc_max_price").set_value(2.0).run()
    assert not scoring.exception
    cap = scoring.session_state["scenario"].scoring.constraints.max_price_eur_per_gpu_hour
    assert cap == pytest.approx(2.0 / DEFAULT_USD_PER_EUR)
    assert "**Maximum price $2.00**: removes" in text(scoring)


def test_required_certification_and_eu_seat_filter_by_provider_facts(scoring, catalog_path):
    scoring.selectbox(key="_sc_preset").set_value("Cheapest inference").run()
    n_all = len(ranking(scoring))
    scoring.multiselect(key="_sc_certs").set_value(["ISO27001"]).run()
    scoring.toggle(key="_sc_eu_seat").set_value(True).run()
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
    scoring.selectbox(key="_sc_preset").set_value("Cheapest inference").run()
    scoring.selectbox(key="_sc_basis").set_value("reserved_3y").run()
    scoring.radio(key="_sc_missing").set_value("exclude").run()  # an offer without that price is left out
    assert not scoring.exception
    with CatalogStore(catalog_path) as store:
        frame = store.list_offers(OfferFilter(), usd_per_eur=DEFAULT_USD_PER_EUR, today=dt.date.today())
    p = PRESETS["Cheapest inference"]
    matrix = build_decision_matrix(frame, price_basis="reserved_3y", reference_date=dt.date.today())
    expected = rank_alternatives(matrix, p.weights(), constraints=p.constraints, missing="exclude")
    with_3y = set(frame.loc[frame["reserved_3y_eur_per_gpu_hour"].notna(), "offer_id"])
    assert 0 < len(ranking(scoring)) == len(expected.ids)
    assert set(expected.ids) <= with_3y
    assert scoring.session_state["scenario"].scoring.price_basis == "reserved_3y"
