"""Issue #27.12: the share link carries the Providers comparison selection, and the export header (client,
scenario name) is prefilled from the workspace."""

from pathlib import Path

import pytest
from pydantic import ValidationError
from streamlit.testing.v1 import AppTest

from ui.scenario import MAX_COMPARED_OFFERS, ProvidersSection, Scenario
from ui.workshop import decode_link, encode_link

ROOT = Path(__file__).resolve().parents[2]


def _app() -> AppTest:
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)


def _compare_tab(at: AppTest) -> AppTest:
    at.switch_page("app_pages/providers.py").run()
    at.session_state["prov_tab"] = "Compare offers"
    return at.run()


def test_the_comparison_travels_in_the_share_link(catalog_path):
    # an H100 pair under the brief's filters and an L4 offer the brief's filters hide
    pair = ("nebius-h100-sxm-gpu-h100-sxm-8gpu-eu-north1-fi", "scaleway-l4-pcie-l4-2-24g-fr-par-2-eur")
    at = _app()
    at.query_params["s"] = encode_link(Scenario(providers=ProvidersSection(compare_offer_ids=pair)))
    at.run()
    _compare_tab(at)
    assert not at.exception
    assert at.multiselect(key="prov_compare").value == list(pair)
    assert any("outside the current filters" in c.value and "L4" in c.value for c in at.caption)
    table = at.dataframe[-1].value  # the comparison table, one column per offer
    assert len(table.columns) == 2 and any("L4" in c for c in table.columns)

    # picking a new pair writes it into the scenario, hence into the next share link
    mine = ["scaleway-h100-pcie-h100-1-80g-fr-par-2-eur", "gcp-h100-sxm-a3-highgpu-8g-europe-west3-de"]
    at.multiselect(key="prov_compare").set_value(mine).run()
    ids = at.session_state["scenario"].providers.compare_offer_ids
    assert list(ids) == mine
    assert decode_link(encode_link(at.session_state["scenario"])).providers.compare_offer_ids == ids


@pytest.mark.parametrize("ids", [tuple(f"offer-{i}" for i in range(MAX_COMPARED_OFFERS + 1)),
                                 ("Not A Slug",), ("x" * 201,)])
def test_a_link_cannot_carry_an_unbounded_or_malformed_selection(ids):
    with pytest.raises(ValidationError):
        ProvidersSection(compare_offer_ids=ids)


def test_the_export_header_is_prefilled_from_the_workspace(store):
    token = store.create_workspace("ACME Automotive")
    at = _app()
    at.query_params["ws"] = token
    at.run()
    at.switch_page("app_pages/workshop.py").run()
    assert at.text_input(key="ws_x_client").value == "ACME Automotive"
    assert at.text_input(key="ws_x_name").value == ""
    at.button(key="ws_confirm").click().run()  # a workspace opened from a link: confirm whose it is (#28.7)
    at.text_input(key="ws_name").input("Board baseline").run()
    at.button(key="ws_save").click().run()
    assert not at.exception
    assert at.text_input(key="ws_x_name").value == "Board baseline"  # the scenario just saved
    at.text_input(key="ws_x_client").input("ACME (board copy)").run()
    at.text_input(key="ws_name").input("Variant B").run()
    at.button(key="ws_save").click().run()
    assert at.text_input(key="ws_x_client").value == "ACME (board copy)"  # what the user typed stays
    assert at.text_input(key="ws_x_name").value == "Variant B"
