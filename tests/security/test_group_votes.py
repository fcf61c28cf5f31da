"""Issue #28.8: group weighting. A join code alone reads no participant's name or weights (a scenario's
``scoring.group_code`` from a link shows nothing in another workspace), and one browser casts one vote: voting
again from another tab of the same browser, under another name, replaces its vote."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from streamlit.testing.v1 import AppTest
from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string

from catalog.store import CatalogStore
from engine.scoring import CRITERION_NAMES
from ui.scenario import Scenario, ScoringSection

ROOT = Path(__file__).resolve().parents[2]
POINTS = {c: 10.0 for c in CRITERION_NAMES}


def test_votes_are_read_only_with_the_workspace_that_started_the_session(store):
    acme, globex = store.create_workspace("ACME"), store.create_workspace("Globex")
    code = store.create_group_session(acme)
    store.submit_vote(code, "Ann", POINTS, voter="voter-a-0123456789abcdef")
    assert store.votes(code, acme) == {"Ann": POINTS}
    assert store.votes(code, globex) == {} and store.votes(code, None) == {}
    assert store.votes(code, "not-a-real-token-123") == {}
    assert store.group_session_in_workspace(code, acme) and not store.group_session_in_workspace(code, globex)


def test_a_group_code_from_a_link_shows_nothing_in_another_workspace(catalog_path):
    with CatalogStore(catalog_path) as s:
        victim = s.create_workspace("ACME")
        code = s.create_group_session(victim)
        s.submit_vote(code, "Ann Secretname", {**POINTS, "price_eur_per_gpu_hour": 93.0},
                      voter="voter-a-0123456789abcdef")
        attacker = s.create_workspace("Mallory Ltd")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["ws"] = attacker
    at.session_state["scenario"] = Scenario(scoring=ScoringSection(group_code=code))  # as a link would set it
    at.run()
    at.switch_page("app_pages/workshop.py").run()
    assert not at.exception, at.exception
    assert any("not started in this workspace" in e.value for e in at.error)
    shown = " ".join([m.value for m in at.markdown] + [c.value for c in at.caption]
                     + [d.value.to_csv() for d in at.dataframe])
    assert "Secretname" not in shown and "participant(s)" not in shown
    assert not [b for b in at.button if b.key == "gw_use"]


@pytest.fixture
def browser_cookie(monkeypatch):
    """Give every AppTest session the cookies a browser would send (Streamlit's XSRF cookie, re-masked per load)."""
    import streamlit.runtime.context as context

    def use(token: bytes) -> None:
        client = SimpleNamespace(headers=[], cookies={"_streamlit_xsrf": generate_xsrf_token_string(token)},
                                 remote_ip=None)
        monkeypatch.setattr(context, "_get_client_context", lambda: client)

    return use


def _vote(code: str, name: str, price_points: int) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["join"] = code
    at.run()
    at.switch_page("app_pages/workshop.py").run()
    at.text_input(key="gw_name").set_value(name).run()
    at.slider(key="gw_price_eur_per_gpu_hour").set_value(price_points).run()
    at.button(key="gw_submit").click().run()
    assert any("your weights are in" in s.value for s in at.success), [e.value for e in at.error]
    return at


def test_a_second_tab_of_the_same_browser_replaces_its_vote(catalog_path, browser_cookie):
    with CatalogStore(catalog_path) as s:
        token = s.create_workspace("ACME")
        code = s.create_group_session(token)
    browser_cookie(b"browser-one-16by")
    _vote(code, "Dana", 90)
    _vote(code, "Someone Else", 100)  # another tab (a new session, no ?voter=), same browser, another name
    browser_cookie(b"browser-two-16by")
    _vote(code, "Eve", 20)  # another browser: its own vote
    with CatalogStore(catalog_path) as s:
        votes = s.votes(code, token)
    assert sorted(votes) == ["Eve", "Someone Else"]
    assert votes["Someone Else"]["price_eur_per_gpu_hour"] == 100.0
