"""AppTest of the Rent-or-own page: verdict follows the slider, bad input shows a message, presets fill inputs."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import open_page

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tco(catalog_path) -> AppTest:
    return open_page("app_pages/tco.py")


def headline(at: AppTest) -> str:
    return at.subheader[0].value


def test_first_load_shows_a_verdict_and_charts(tco):
    assert "utilisation" in headline(tco) and "Owning wins above" in headline(tco)
    assert len(tco.get("plotly_chart")) >= 5


def test_moving_the_utilisation_slider_changes_the_verdict(tco):
    high = headline(tco)
    tco.slider(key="_tco_utilisation_fraction").set_value(0.2).run()
    low = headline(tco)
    assert low != high
    assert "At 20% utilisation, renting on demand is cheaper" in low
    assert "At 70% utilisation, owning is cheaper" in high


def test_an_invalid_input_shows_the_message_not_a_traceback(tco):
    tco.number_input(key="_tco_depreciation_years").set_value(0.0).run()
    assert not tco.exception
    messages = [e.value for e in tco.error]
    assert any("depreciation years" in m and "greater than 0" in m for m in messages)
    tco.number_input(key="_tco_depreciation_years").set_value(4.0).run()
    assert not tco.error and "Owning wins above" in headline(tco)


def test_a_catalog_offer_fills_the_on_demand_price(tco):
    # Scaleway lists its H100 PCIe at 2.87 EUR per GPU-hour (EUR row: no conversion involved).
    tco.selectbox(key="tco_on_demand_offer").set_value("scaleway-h100-pcie-h100-1-80g-fr-par-2-eur").run()
    assert tco.number_input(key="_tco_price_on_demand_eur_per_gpu_hour").value == pytest.approx(2.87)
    assert "Owning wins above" in headline(tco)


def test_a_gpu_spec_sets_power_from_its_tdp(tco):
    tco.selectbox(key="tco_gpu_spec").set_value("A100 SXM 80GB").run()
    # A100 SXM TDP 400 W x 1.82 (Epoch chip-to-server ratio) = 0.728 kW per GPU at the wall
    assert tco.number_input(key="_tco_power_at_load_kw_per_gpu").value == pytest.approx(0.728)


def test_a_higher_rental_price_lowers_the_break_even(tco):
    tco.number_input(key="_tco_price_on_demand_eur_per_gpu_hour").set_value(2.0).run()
    cheap = headline(tco)
    tco.number_input(key="_tco_price_on_demand_eur_per_gpu_hour").set_value(6.0).run()
    dear = headline(tco)

    def break_even(text: str) -> int:
        return int(text.split("Owning wins above ")[1].split("%")[0])

    assert break_even(dear) < break_even(cheap)
