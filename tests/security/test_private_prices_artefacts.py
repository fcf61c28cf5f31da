"""Issue #28 item 2: a private negotiated price leaves through what an editor makes for a client only when the
editor explicitly includes private prices, and then labelled as such.

As a signed-in editor, picking on Rent or own an offer whose on-demand price is a private quote must not write
that amount into the scenario (share link, JSON, saved scenario) unless the editor switched on "Include private
prices in this scenario and its exports" (then the scenario says so); a viewer who opens such a link never sees
the amount (it is dropped with a notice). The Excel workbook and the PDF report are computed from public prices
by default and label every private-price figure when the editor opted in.
"""

from __future__ import annotations

import base64
import io
import json
import zlib

import pytest

from tests.security.conftest import (
    PASSWORD,
    PASSWORD_SECRETS,
    QUOTE_AMOUNT,
    QUOTE_OFFER,
    new_session,
    sign_in,
)
from tests.security.test_private_quotes import AMOUNT_SHOWN
from ui.scenario import SCENARIO_KEY

PUBLIC_ON_DEMAND = 3.1664  # the offer's public on-demand price, EUR per GPU-hour (seed catalog)
PRIVATE_LABEL = "private price, not for distribution"


def _link_json(code: str) -> str:
    """The scenario JSON a share link carries (``v2.<base64url(zlib(json))>``)."""
    packed = code.partition(".")[2]
    return zlib.decompress(base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4))).decode()


def _editor_on_tco(include_private: bool = False):
    at = sign_in(new_session(PASSWORD_SECRETS), "alice", PASSWORD)
    assert any("Signed in as **alice** (editor)" in c.value for c in at.caption)
    if include_private:
        at.toggle(key="_private_prices").set_value(True).run()
    at.switch_page("app_pages/tco.py").run()
    assert not at.exception, at.exception
    at.selectbox(key="tco_on_demand_offer").set_value(QUOTE_OFFER).run()
    assert not at.exception, at.exception
    return at


def _carried(at) -> str:
    """Everything the scenario travels as: the address bar's ?s= (share link) and the JSON download."""
    from ui.workshop import to_json

    return _link_json(at.query_params["s"][0] if isinstance(at.query_params["s"], list) else at.query_params["s"]) \
        + "\n" + to_json(at.session_state[SCENARIO_KEY])


def test_an_editor_picking_an_offer_with_a_private_price_writes_the_public_price(quote_catalog):
    at = _editor_on_tco()
    price = at.session_state[SCENARIO_KEY].tco.inputs.price_on_demand_eur_per_gpu_hour
    assert price == pytest.approx(PUBLIC_ON_DEMAND, abs=1e-4)
    carried = _carried(at)
    assert str(QUOTE_AMOUNT) not in carried
    assert '"private_prices": true' not in carried.replace('"private_prices":true', '"private_prices": true')


def test_an_editor_who_includes_private_prices_gets_them_marked_and_a_viewer_never_sees_them(quote_catalog, shown):
    at = _editor_on_tco(include_private=True)
    scenario = at.session_state[SCENARIO_KEY]
    assert scenario.tco.inputs.price_on_demand_eur_per_gpu_hour == pytest.approx(QUOTE_AMOUNT)
    assert scenario.private_prices and scenario.tco.on_demand_price_private  # marked, not silent
    assert any(PRIVATE_LABEL in w.value for w in at.warning)  # said on the page too
    carried = _carried(at)
    assert str(QUOTE_AMOUNT) in carried and '"private_prices":true' in carried.replace(" ", "")
    code = at.query_params["s"]
    code = code[0] if isinstance(code, list) else code

    viewer = new_session(PASSWORD_SECRETS)
    viewer.query_params["s"] = code
    viewer.run()
    viewer.switch_page("app_pages/tco.py").run()
    assert not viewer.exception, viewer.exception
    opened = viewer.session_state[SCENARIO_KEY]
    assert not opened.private_prices and not opened.tco.on_demand_price_private
    assert opened.tco.inputs.price_on_demand_eur_per_gpu_hour == pytest.approx(PUBLIC_ON_DEMAND, abs=1e-4)
    seen = shown()
    seen.add_tree(viewer, "tco")
    assert not seen.find(str(QUOTE_AMOUNT))
    assert not [where for where, text in seen.texts if AMOUNT_SHOWN.search(text)]
    assert any("private" in e.value.lower() for e in [*viewer.info, *viewer.warning]), "the viewer is told why"
    assert str(QUOTE_AMOUNT) not in _link_json(viewer.query_params["s"][0] if isinstance(
        viewer.query_params["s"], list) else viewer.query_params["s"])


def test_a_saved_or_uploaded_scenario_with_private_prices_loses_them_for_a_viewer(quote_catalog):
    """The same rule wherever a scenario enters a viewer's session (JSON upload, saved scenario): checked on
    every run, so an editor who signs out keeps no private amount either."""
    from ui.private_prices import drop_private

    at = _editor_on_tco(include_private=True)
    scenario = at.session_state[SCENARIO_KEY]
    public, dropped = drop_private(scenario, public_on_demand=lambda offer_id: PUBLIC_ON_DEMAND)
    assert dropped and not public.private_prices and not public.tco.on_demand_price_private
    assert public.tco.inputs.price_on_demand_eur_per_gpu_hour == pytest.approx(PUBLIC_ON_DEMAND)
    assert drop_private(public, public_on_demand=lambda offer_id: None) == (public, False)


# --------------------------------------------------------------------------------------------------
# Exports: Excel and PDF as an editor, without and with the opt-in
# --------------------------------------------------------------------------------------------------

def _workbook(at) -> dict[str, list[tuple]]:
    import openpyxl

    at.switch_page("app_pages/workshop.py").run()
    at.button(key="ws_build_xlsx").click().run()
    assert not at.exception, at.exception
    book = openpyxl.load_workbook(io.BytesIO(at.session_state["ws_xlsx"]["data"]), read_only=True)
    return {ws.title: [tuple(r) for r in ws.iter_rows(values_only=True)] for ws in book.worksheets}


def _cells(rows: list[tuple]) -> list:
    return [c for r in rows for c in r if c is not None]


def _near_quote(values: list) -> bool:
    return any(isinstance(v, float) and abs(v - QUOTE_AMOUNT) < 1e-6 for v in values)


def test_the_editors_workbook_uses_public_prices_unless_private_ones_are_included(quote_catalog):
    plain = _workbook(_editor_on_tco())
    text = json.dumps({k: [list(map(str, r)) for r in v] for k, v in plain.items()})
    assert str(QUOTE_AMOUNT) not in text and PRIVATE_LABEL not in text
    assert not any(_near_quote(_cells(rows)) for rows in plain.values())

    marked = _workbook(_editor_on_tco(include_private=True))
    catalog_rows = marked["Catalog rows used"]
    quote_rows = [r for r in catalog_rows if QUOTE_OFFER in r]
    assert quote_rows and all(PRIVATE_LABEL in " ".join(map(str, r)) for r in quote_rows)
    assert not any(PRIVATE_LABEL in " ".join(map(str, r)) for r in catalog_rows[1:] if QUOTE_OFFER not in r)
    assert any(PRIVATE_LABEL in str(c) for c in _cells(marked["Summary"]))
    tco_price = [r for r in marked["TCO inputs"] if r[0] and "On-demand price" in str(r[0])]
    assert tco_price and PRIVATE_LABEL in str(tco_price[0])
    for sheet in ("Workload results, training", "Placement plan"):
        rows = [r for r in marked.get(sheet, []) if PRIVATE_LABEL in " ".join(map(str, r))]
        assert rows, f"{sheet}: no figure labelled as a private price"


@pytest.mark.skipif(__import__("shutil").which("chromium") is None, reason="the PDF report needs Debian's chromium")
def test_the_editors_pdf_uses_public_prices_unless_private_ones_are_included(quote_catalog):
    from pypdf import PdfReader

    def report(include_private: bool) -> str:
        at = _editor_on_tco(include_private)
        at.switch_page("app_pages/workshop.py").run()
        at.button(key="ws_build_pdf").click().run()
        assert not at.exception, at.exception
        reader = PdfReader(io.BytesIO(at.session_state["ws_pdf"]["data"]))
        return " ".join(" ".join((p.extract_text() or "").split()) for p in reader.pages)

    plain = report(False)
    assert "0.4217" not in plain and not AMOUNT_SHOWN.search(plain) and PRIVATE_LABEL not in plain
    marked = report(True)
    assert marked.count(PRIVATE_LABEL) >= 3  # the banner, the TCO price and the rows priced on it
