"""Issue #29.9: an editor promotes a workspace quote to the catalog as a sourced row through the normal change set
(validated, in the history with its message, restorable); a viewer holding the workspace link cannot."""

from __future__ import annotations

import datetime as dt

from catalog.models import Editor, Role
from tests.catalog.test_quotes_store import quote
from tests.security.conftest import PASSWORD, PASSWORD_SECRETS, new_session, sign_in
from ui.quote_promotion import promotion_changes

SOURCE = "https://example.com/acme-quote-2026-11.pdf"


def _offer(store) -> str:
    return str(store.list_offers(usd_per_eur=1.0).query("provider_id == 'nebius' and gpu_model == 'H100'")
               .iloc[0]["offer_id"])


def test_a_promoted_quote_is_a_sourced_price_in_the_history_and_restore_removes_it(store):
    ws = store.create_workspace("ACME")
    offer = _offer(store)
    store.save_quotes(ws, [quote(provider="Nebius", provider_id="nebius", offer_id=offer, gpu_model=None,
                                 form_factor=None, price_per_gpu_hour=1.7731)])
    [stored] = store.list_quotes(ws)
    before = store.change_sets()["change_set_id"].max()
    from catalog.models import ChangeSet

    changes = promotion_changes(stored, SOURCE, private=False, taken=set())
    result = store.apply_changes(ChangeSet(changes=changes, message="promoted quote"), Editor(name="ed", role=Role.EDITOR))
    prices = store.list_prices([offer])
    row = prices[prices["amount_per_gpu_hour"] == 1.7731].iloc[0]
    assert row["source_url"] == SOURCE and row["method"] == "quote" and row["price_type"] == "reserved"
    assert int(row["term_months"]) == 36 and not bool(row["is_private"])
    assert "Quote from Nebius" in row["notes"]
    log = store.change_sets()
    assert "promoted quote" in set(log["message"]) and result.change_set_id > before
    store.restore(int(before), Editor(name="ed", role=Role.EDITOR), message="undo")
    assert 1.7731 not in set(store.list_prices([offer])["amount_per_gpu_hour"])


def test_a_new_offer_quote_becomes_an_offer_and_its_price(store):
    ws = store.create_workspace("ACME")
    store.save_quotes(ws, [quote(provider="Nebius", provider_id="nebius", price_per_gpu_hour=2.2, term_months=None,
                                 upfront_pct=None)])
    [stored] = store.list_quotes(ws)
    from catalog.models import ChangeSet

    changes = promotion_changes(stored, SOURCE, private=True, taken=set())
    assert [c.table for c in changes] == ["offers", "prices"]
    store.apply_changes(ChangeSet(changes=changes, message="new offer from quote"), Editor(name="ed", role=Role.EDITOR))
    offer = store.row("offers", changes[0].key)
    assert offer["datacenter_country"] == "DE" and offer["inter_node"] == "InfiniBand-NDR"
    assert store.list_prices([changes[0].key]).empty  # private: a viewer's read leaves it out
    assert len(store.list_prices([changes[0].key], include_private=True)) == 1


def test_only_an_editor_sees_the_promotion_and_it_writes_through_the_page(store):
    ws = store.create_workspace("ACME")
    store.save_quotes(ws, [quote(provider="Nebius", provider_id="nebius", offer_id=_offer(store), gpu_model=None,
                                 form_factor=None, price_per_gpu_hour=1.6612, valid_until=(
                                     dt.date.today() + dt.timedelta(days=9)).isoformat())])
    viewer = new_session()
    viewer.query_params["ws"] = ws
    viewer.run()
    viewer.switch_page("app_pages/workshop.py").run()
    assert not [b for b in viewer.button if b.key == "qp_go"]
    at = sign_in(new_session(PASSWORD_SECRETS), "alice", PASSWORD)
    at.query_params["ws"] = ws
    at.switch_page("app_pages/workshop.py").run()
    from ui.quotes import WORKSPACE_KEY

    at.session_state[WORKSPACE_KEY] = ws  # the link is read on a session's first run; sign-in came first here
    at.run()
    at.text_input(key="qp_url").set_value(SOURCE).run()
    at.button(key="qp_go").click().run()
    assert not at.exception and any("change set" in s.value for s in at.success), [e.value for e in at.error]
    assert 1.6612 in set(store.list_prices([_offer(store)])["amount_per_gpu_hour"])
