"""AppTest of the Rent-or-own page: one horizon for every figure, committed prices only from the offer itself or
the user's quote, bad input shows a message, presets fill inputs."""

import math
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.tco import TcoInputs, evaluate_tco
from tests.app.conftest import open_page

ROOT = Path(__file__).resolve().parents[2]
SCALEWAY_H100_SXM_8 = "scaleway-h100-sxm-h100-sxm-8-80g-fr-par-2-eur"


@pytest.fixture
def tco(catalog_path) -> AppTest:
    return open_page("app_pages/tco.py")


def headline(at: AppTest) -> str:
    return at.subheader[0].value


def metric(at: AppTest, start: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(start))


def euros(text: str) -> float:
    return float(re.sub(r"[^0-9.]", "", text))


def set_usage(at: AppTest, gpus: int, months: int, u: float) -> None:
    at.number_input(key="_tco_cluster_gpus").set_value(gpus)
    at.number_input(key="_tco_horizon_months").set_value(months)
    at.slider(key="_tco_utilisation_fraction").set_value(u)
    at.run()


def test_every_input_field_has_a_widget_under_its_derived_key(tco):
    """Issue #32.5: the widgets' keys come from TcoInputs' field names (ui.scenario.widget_key), so a new input is
    one field plus one widget; a field drawn by no widget (or under another key) fails here."""
    from ui.scenario import widget_key
    from ui.tco_view import RESERVED_FIELDS

    drawn = {w.key for kind in ("number_input", "slider") for w in tco.get(kind)}
    wanted = {widget_key("tco", name) for name in TcoInputs.model_fields if name not in RESERVED_FIELDS}
    assert len(wanted) == 22 and wanted - drawn == set()
    assert widget_key("tco", "utilisation_fraction") == "_tco_utilisation_fraction"  # the key bench/ and tests use


def test_first_load_follows_the_client_brief_and_shows_a_verdict_totals_and_charts(tco):
    # the default brief: 16 GPUs, 36 months, 60 %
    assert "Over 3 years at 60% utilisation" in headline(tco) and "is the cheapest way to run 16 GPUs" in headline(tco)
    assert any("this page follows it" in c.value for c in tco.caption)
    assert len(tco.get("plotly_chart")) >= 5
    assert metric(tco, "Rent reserved") == "not compared"  # the default has no committed price


def test_issue_14_headline_metrics_and_curve_answer_the_same_horizon(catalog_path):
    """16 GPUs, 36 months, 60 %, Scaleway H100 SXM fr-par-2: before the fix the headline said owning saves ~EUR 30k a
    year while the next line said the purchase does not pay back in 36 months. Now the cheapest option named in the
    headline has the lowest 36-month total of the metrics, and those totals are the engine's cumulative ends."""
    from catalog.store import CatalogStore

    with CatalogStore(catalog_path, read_only=True) as store:  # the offer's current EUR price (issue #18: 2026-07-30)
        prices = store.list_prices()
    current = prices[(prices.offer_id == SCALEWAY_H100_SXM_8) & (prices.price_type == "on-demand")
                     & prices.valid_to.isna()]
    assert len(current) == 1 and current.iloc[0].currency == "EUR"
    price_eur = round(float(current.iloc[0].amount_per_gpu_hour), 4)  # the page's price input keeps 4 decimals
    tco = open_page("app_pages/tco.py")
    tco.selectbox(key="tco_on_demand_offer").set_value(SCALEWAY_H100_SXM_8).run()
    set_usage(tco, 16, 36, 0.60)
    text = headline(tco)
    assert text.startswith("Over 3 years at 60% utilisation")
    own, od = euros(metric(tco, "Own, total")), euros(metric(tco, "Rent on demand, total"))
    assert ("owning is the cheapest way to run 16 GPUs" in text) == (own < od)
    expected = evaluate_tco(TcoInputs(cluster_gpus=16, horizon_months=36, utilisation_fraction=0.6,
                                      price_on_demand_eur_per_gpu_hour=price_eur))
    assert own == pytest.approx(expected.cumulative_cost_eur["owned"][-1], abs=1)
    assert od == pytest.approx(expected.cumulative_cost_eur["on_demand"][-1], abs=1)
    assert "pays back" not in " ".join(m.value for m in tco.markdown)


def test_offer_without_committed_price_never_gets_a_reserved_option(tco):
    """Issue #14 item 2: the old page applied a default (Lambda 3-year) discount to any offer."""
    tco.selectbox(key="tco_on_demand_offer").set_value(SCALEWAY_H100_SXM_8).run()
    radio = tco.radio(key="tco_committed")
    assert radio.options == ["No committed price (compare on demand and owning only)", "Your quote (type the price and term)"]
    assert metric(tco, "Rent reserved") == "not compared"
    assert "renting reserved" not in headline(tco)
    assert any("No committed price stated for this offer" in c.value for c in tco.caption)


def test_an_offers_own_committed_price_is_used_with_its_term(catalog_path):
    from catalog.store import CatalogStore

    with CatalogStore(catalog_path, read_only=True) as store:
        prices = store.list_prices()
        offers = store.list_offers(usd_per_eur=1.0411)
    committed = prices[(prices.price_type == "reserved") & prices.term_months.notna() & ~prices.is_private]
    with_on_demand = set(offers.dropna(subset=["on_demand_eur_per_gpu_hour"]).offer_id)
    row = committed[committed.offer_id.isin(with_on_demand) & (committed.currency == "EUR")].head(1)
    if row.empty:
        row = committed[committed.offer_id.isin(with_on_demand)].head(1)
    row = row.iloc[0]
    tco = open_page("app_pages/tco.py")
    tco.toggle(key="tco_all_gpus").set_value(True).run()  # the offer may be outside the brief's GPU class
    tco.selectbox(key="tco_on_demand_offer").set_value(row.offer_id).run()
    tco.radio(key="tco_committed").set_value(row.price_id).run()
    section = tco.session_state["scenario"].tco
    expected = row.amount_per_gpu_hour if row.currency == "EUR" else row.amount_per_gpu_hour / 1.0411
    assert section.inputs.price_reserved_eur_per_gpu_hour == pytest.approx(expected, abs=1e-4)
    assert section.inputs.reserved_term_months == int(row.term_months)
    assert (section.reserved_origin, section.reserved_price_id) == ("offer", row.price_id)
    assert metric(tco, "Rent reserved") != "not compared"
    # Switching to another offer drops the committed price: it belongs to the first offer only.
    tco.selectbox(key="tco_on_demand_offer").set_value(SCALEWAY_H100_SXM_8).run()
    assert tco.session_state["scenario"].tco.inputs.price_reserved_eur_per_gpu_hour is None
    assert metric(tco, "Rent reserved") == "not compared"


def test_your_quote_is_labelled_and_a_term_past_the_horizon_is_shown(tco):
    set_usage(tco, 8, 24, 0.9)
    tco.radio(key="tco_committed").set_value("quote").run()
    tco.number_input(key="tco_quote_price").set_value(1.5)
    tco.number_input(key="tco_quote_term").set_value(36)
    tco.run()
    notes = " ".join(c.value for c in tco.caption)
    assert "your quote" in notes and "36 months are paid (12 beyond the horizon" in notes
    assert tco.session_state["scenario"].tco.reserved_origin == "quote"
    reserved_total = euros(metric(tco, "Rent reserved"))
    assert reserved_total == pytest.approx(8 * 730 * 36 * 1.5, abs=1)


def test_moving_the_utilisation_slider_changes_the_verdict(tco):
    tco.number_input(key="_tco_price_on_demand_eur_per_gpu_hour").set_value(2.8).run()
    high = headline(tco)
    tco.slider(key="_tco_utilisation_fraction").set_value(0.2).run()
    low = headline(tco)
    assert "renting on demand is the cheapest way to run 16 GPUs" in low
    assert "owning is the cheapest way to run 16 GPUs" in high


def test_an_invalid_input_shows_the_message_not_a_traceback(tco):
    tco.number_input(key="_tco_depreciation_years").set_value(0.0).run()
    assert not tco.exception
    messages = [e.value for e in tco.error]
    assert any("depreciation years" in m and "greater than 0" in m for m in messages)
    tco.number_input(key="_tco_depreciation_years").set_value(4.0).run()
    assert not tco.error and "is the cheapest way to run" in headline(tco)


def test_a_catalog_offer_fills_the_on_demand_price(tco):
    # Scaleway lists its H100 PCIe at 2.87 EUR per GPU-hour (EUR row: no conversion involved).
    tco.selectbox(key="tco_on_demand_offer").set_value("scaleway-h100-pcie-h100-1-80g-fr-par-2-eur").run()
    assert tco.number_input(key="_tco_price_on_demand_eur_per_gpu_hour").value == pytest.approx(2.87)
    assert "is the cheapest way to run" in headline(tco)


def test_offer_labels_show_gpus_per_node_and_region(tco):
    options = tco.selectbox(key="tco_on_demand_offer").options
    scaleway = [o for o in options if o.startswith("Scaleway · H100 SXM")]
    assert len(scaleway) == len(set(scaleway)) >= 2
    assert any("8 GPUs · fr-par-2" in o for o in scaleway)


def test_a_gpu_spec_sets_power_from_its_tdp(tco):
    tco.selectbox(key="tco_gpu_spec").set_value("A100 SXM 80GB").run()
    # A100 SXM TDP 400 W x (1 + 0.8214 server share, the shared power model) = 0.7286 kW per GPU
    assert tco.number_input(key="_tco_power_at_load_kw_per_gpu").value == pytest.approx(0.7286)


def test_a_higher_rental_price_lowers_the_break_even(tco):
    def break_even(at: AppTest) -> float:
        text = next(m.value for m in at.markdown if "owning beats renting on demand above" in m.value)
        return float(text.split("above **")[1].split("%")[0])

    tco.number_input(key="_tco_price_on_demand_eur_per_gpu_hour").set_value(2.5).run()
    cheap = break_even(tco)
    tco.number_input(key="_tco_price_on_demand_eur_per_gpu_hour").set_value(6.0).run()
    assert break_even(tco) < cheap


def test_usd_mode_says_the_inputs_stay_in_eur(tco):
    tco.session_state["scenario"] = tco.session_state["scenario"].model_copy(
        update={"display": tco.session_state["scenario"].display.model_copy(update={"currency": "USD"})})
    tco.run()
    assert any("Inputs on this page are in EUR" in i.value for i in tco.info)
    assert "$" in metric(tco, "Own, total") and not math.isnan(euros(metric(tco, "Own, total")))


def test_the_offer_picker_follows_the_briefs_gpu_class(tco):
    options = tco.selectbox(key="tco_on_demand_offer").options
    assert options and all((" H100" in o or " H200" in o) for o in options)
    tco.toggle(key="tco_all_gpus").set_value(True).run()
    assert any(" L4 " in o for o in tco.selectbox(key="tco_on_demand_offer").options)


def test_a_stale_offer_is_marked_in_the_picker_and_warned_about(tco):
    from ui.brief_scope import offers_meeting_brief
    from ui.catalog import offers
    from ui.offer_scope import price_is_stale
    from ui.scenario import ClientBrief

    catalog = offers_meeting_brief(offers(None, 1.0411), ClientBrief())  # the picker lists the brief's offers
    catalog = catalog[catalog.on_demand_eur_per_gpu_hour.notna()]
    stale = catalog[price_is_stale(catalog)]
    assert len(stale), "the seed has H100-class prices retrieved more than 180 days ago"
    row = stale.iloc[0]
    picker = tco.selectbox(key="tco_on_demand_offer")
    assert sum("⚠ stale price" in o for o in picker.options) == len(stale)
    picker.set_value(row.offer_id).run()
    assert any("more than 180 days (stale)" in w.value for w in tco.warning)


def test_a_price_outlier_is_flagged_in_the_picker_and_warned_about(catalog_path):
    """The shared outlier rule (engine.outliers) flags an implausibly cheap on-demand price wherever it is offered."""
    from tests.app.synthetic import add_h100_price_outlier

    offer_id = add_h100_price_outlier(catalog_path)
    tco = open_page("app_pages/tco.py")
    picker = tco.selectbox(key="tco_on_demand_offer")
    label = next(o for o in picker.options if "⚠ price outlier" in o)
    assert label
    picker.set_value(offer_id).run()
    assert any("price outlier" in w.value for w in tco.warning)


def test_tornado_axis_words_stay_inside_the_figure_on_a_projector(monkeypatch):
    # Presentation mode: the axis title, centred on a plot squeezed right by the long input names, ran past the
    # figure's right edge; it is an annotation right-aligned to the plot's edge instead (screenshot checked).
    from engine.tco import TcoInputs
    from engine.tco.uncertainty import tornado
    from ui import charts, tco_charts

    result = tornado(TcoInputs(), 0.2)
    normal = tco_charts.tornado_chart(result)
    assert "black line: base" in normal.layout.xaxis.title.text and not normal.layout.annotations
    monkeypatch.setattr(tco_charts, "presenting", lambda: True)
    monkeypatch.setattr(charts, "presenting", lambda: True)
    big = tco_charts.tornado_chart(result)
    assert not big.layout.xaxis.title.text
    (note,) = [a for a in big.layout.annotations if "black line: base" in a.text]
    assert (note.xref, note.x, note.xanchor, note.align) == ("paper", 1, "right", "right")
    assert note.text.count("<br>") == 2 and note.font.size >= charts.PROJECTOR_MIN_FONT
