"""Workspace quotes on the pages (issue #29.6-7): entry and validation on the Workshop page, use on Rent or own,
Workload, Scoring and Placement behind one toggle, and privacy (another workspace, a visitor without the link, a share
link, a JSON file never carry a quote)."""

from __future__ import annotations

import datetime as dt
import json

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import ROOT
from tests.catalog.test_quotes_store import quote

NAME, PRICE = "Zeta Quote Cloud", 0.9137
LABEL = f"Quote from {NAME}, {dt.date.today().isoformat()}"


@pytest.fixture
def acme(store):
    token = store.create_workspace("ACME")
    store.save_quotes(token, [quote(provider=NAME, price_per_gpu_hour=PRICE)])
    return token


def _open(page: str, workspace: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    if workspace:
        at.query_params["ws"] = workspace
    at.run()
    if page != "app_pages/home.py":
        at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def _everything(at: AppTest) -> str:
    """Every text, option and table cell the page shows (main area and sidebar), and the address bar."""
    parts = [str(getattr(e, "value", "")) for e in [*at.main, *at.sidebar]]
    for kind in (at.selectbox, at.radio, at.multiselect):
        parts += [str(o) for w in kind for o in (w.options or [])]
    parts += [d.value.to_csv() for d in at.dataframe]
    parts += [str(dict(at.query_params))]
    return " ".join(parts)


PAGES = ["app_pages/tco.py", "app_pages/workload.py", "app_pages/scoring.py", "app_pages/placement.py"]


def test_scoring_and_workload_rank_the_quote_labelled_and_the_toggle_takes_it_out(acme):
    at = _open("app_pages/scoring.py", acme)
    assert LABEL in " ".join(d.value.to_csv() for d in at.dataframe)
    at.sidebar.toggle(key="_include_quotes").set_value(False).run()
    assert LABEL not in _everything(at)
    at.switch_page("app_pages/workload.py").run()
    assert LABEL not in _everything(at)
    at.sidebar.toggle(key="_include_quotes").set_value(True).run()
    assert not at.exception and LABEL in _everything(at)


def test_rent_or_own_offers_the_quote_as_committed_price_and_the_share_link_leaves_it_out(acme):
    at = _open("app_pages/tco.py", acme)
    committed = at.radio(key="tco_committed")
    option = next(o for o in committed.options if LABEL in o)
    assert "36-month" in option or "3-year" in option
    committed.set_value("quote:1").run()
    assert not at.exception
    assert any("reserved" in m.label.lower() and m.value != "not compared" for m in at.metric)
    assert any(f"{LABEL}: capacity 64 GPUs, lead time 90 days, dedicated hardware" in c.value for c in at.caption)
    scenario = at.session_state["scenario"]
    assert scenario.tco.inputs.price_reserved_eur_per_gpu_hour == pytest.approx(PRICE)
    from ui.workshop import decode_link

    shared = decode_link(at.query_params["s"][0] if isinstance(at.query_params["s"], list) else at.query_params["s"])
    assert shared.tco.inputs.price_reserved_eur_per_gpu_hour is None and shared.tco.reserved_price_id is None
    at.switch_page("app_pages/workshop.py").run()
    download = json.dumps([str(getattr(e, "proto", "")) for e in at.get("download_button")])
    assert f"{PRICE}" not in download


def test_placement_sees_the_quote_through_the_offer_frame(acme):
    at = _open("app_pages/placement.py", acme)
    shown = _everything(at)
    assert NAME in shown and LABEL in shown, [line for line in shown.splitlines() if NAME in line][:3]


@pytest.mark.parametrize("page", [*PAGES, "app_pages/workshop.py"])
def test_no_other_workspace_and_no_visitor_sees_a_quote(acme, store, page):
    other = store.create_workspace("Globex")
    for workspace in (None, other):
        at = _open(page, workspace)
        shown = _everything(at)
        assert NAME not in shown and f"{PRICE}" not in shown, (page, workspace)


def test_entering_a_quote_on_the_workshop_page_validates_and_saves(store):
    token = store.create_workspace("ACME")
    at = _open("app_pages/workshop.py", token)
    at.text_input(key="q_provider").set_value("Nordic Racks")
    at.selectbox(key="q_gpu").set_value("H100")
    at.selectbox(key="q_form_factor").set_value("OAM")  # no H100 OAM spec sheet: the hardware-truth rule refuses
    at.number_input(key="q_price").set_value(2.1)
    at.number_input(key="q_term").set_value(36)
    at.text_input(key="q_country").set_value("se")
    next(b for b in at.button if b.label == "Save the quote").click().run()
    assert any("was not saved" in e.value and "no OAM spec sheet of the H100" in e.value for e in at.error)
    assert store.list_quotes(token) == []
    at.selectbox(key="q_form_factor").set_value("SXM")
    next(b for b in at.button if b.label == "Save the quote").click().run()
    assert not at.exception and not at.error
    [saved] = store.list_quotes(token)
    assert saved.quote.provider == "Nordic Racks" and saved.quote.datacenter_country == "SE"
    assert saved.quote.term_months == 36 and saved.quote.price_per_gpu_hour == 2.1
    at.run()
    assert "Nordic Racks" in " ".join(d.value.to_csv() for d in at.dataframe)


def test_an_expired_quote_is_flagged_and_left_out_of_the_pages(store):
    token = store.create_workspace("ACME")
    old = dt.date.today() - dt.timedelta(days=40)
    store.save_quotes(token, [quote(provider=NAME, quote_date=old.isoformat(),
                                    valid_until=(old + dt.timedelta(days=10)).isoformat())])
    at = _open("app_pages/workshop.py", token)
    assert "expired" in " ".join(d.value.to_csv() for d in at.dataframe)
    assert any("expired" in w.value for w in at.warning)
    at.switch_page("app_pages/scoring.py").run()
    assert NAME not in " ".join(d.value.to_string() for d in at.dataframe)


def test_editing_a_quote_replaces_it_and_a_bad_edit_keeps_the_old_one(acme, store):
    """#29: a negotiation moves the price and the validity; the consultant edits the quote instead of deleting it
    and typing it again. A refused edit leaves the stored quote as it was."""
    [before] = store.list_quotes(acme)
    at = _open("app_pages/workshop.py", acme)
    next(b for b in at.button if b.label == "Edit this quote").click().run()
    assert not at.exception
    assert at.number_input(key="q_price").value == pytest.approx(PRICE)  # the form holds the stored quote
    assert at.text_input(key="q_provider").value == NAME
    assert any(f"Editing quote #{before.quote_id}" in m.value for m in at.markdown)
    save = f"Save the changes to #{before.quote_id}"
    at.date_input(key="q_valid").set_value(before.quote.quote_date - dt.timedelta(days=1))  # before its own date
    next(b for b in at.button if b.label == save).click().run()
    assert any("was not saved" in e.value for e in at.error)
    assert store.list_quotes(acme) == [before]  # nothing written
    at.date_input(key="q_valid").set_value(before.quote.valid_until + dt.timedelta(days=30))
    at.number_input(key="q_price").set_value(0.85)
    next(b for b in at.button if b.label == save).click().run()
    assert not at.exception and not at.error
    [after] = store.list_quotes(acme)
    assert after.quote_id == before.quote_id and after.quote.price_per_gpu_hour == pytest.approx(0.85)
    assert after.quote.valid_until == before.quote.valid_until + dt.timedelta(days=30)
    assert after.quote.provider == NAME and after.quote.offer_id == before.quote.offer_id  # the rest unchanged
    assert any(f"Quote #{before.quote_id} updated" in s.value for s in at.success)
    assert not any(b.label.startswith("Save the changes") for b in at.button)  # back to recording a new quote


def test_a_quote_on_a_bare_metal_offer_keeps_its_hardware_unless_the_quote_states_its_own(store):
    """#29 item 2: a quote on a catalog offer that its source states dedicated (OCI bare metal) is dedicated too when
    the quote says nothing; a quote that states shared is shared, without the catalog source vouching for it."""
    from catalog.quotes import Quote, StoredQuote
    from ui.quotes import quote_offer_id, with_quotes

    oci = "oracle-h100-sxm-bm-gpu-h100-8-all-commercial-regions"
    frame = store.list_offers(usd_per_eur=1.1)
    stored = [StoredQuote(quote_id=i, quote=Quote.model_validate(quote(offer_id=oci, gpu_model=None, is_dedicated=d)))
              for i, d in ((1, None), (2, False))]
    rows = with_quotes(frame, stored, True, today=dt.date.today()).set_index("offer_id")
    silent, shared = rows.loc[quote_offer_id(1)], rows.loc[quote_offer_id(2)]
    assert bool(silent["is_dedicated"]) and silent["dedicated_source_url"] == rows.loc[oci, "dedicated_source_url"]
    assert shared["is_dedicated"] == False and pd.isna(shared["dedicated_source_url"])  # noqa: E712
