"""Issue #28.11: anonymous visitors cannot create workspaces and scenarios without bound (300 workspaces in
1.2 s, 200 scenarios x 1 MB each), and scenario ids say nothing about how many exist."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from streamlit.testing.v1 import AppTest

from catalog.errors import CatalogError
from catalog.store import MAX_WORKSPACE_JSON_CHARS
from ui.rate_limit import RateLimiter
from ui.workshop_view import WORKSPACES_PER_CLIENT_PER_HOUR

ROOT = Path(__file__).resolve().parents[2]


def test_the_limiter_counts_per_client_and_in_total_and_forgets_after_the_window():
    limit = RateLimiter(per_client=3, total=5, window_s=60.0)
    assert [limit.allow("a", now=t) for t in range(4)] == [True, True, True, False]
    assert limit.allow("b", now=4) and limit.allow("b", now=5)
    assert not limit.allow("c", now=6)  # 5 events from everyone in the window
    assert limit.allow("a", now=61.5)  # a's first events left the window


def test_the_limiter_stays_bounded_in_memory_and_fails_closed_when_full():
    limit = RateLimiter(per_client=2, total=10**9, window_s=60.0, max_clients=1_000)
    for i in range(5_000):  # addresses rotating (an IPv6 block): at most max_clients are tracked
        limit.allow(f"2001:db8::{i:x}", now=1.0)
        limit.allow(f"2001:db8::{i:x}", now=1.0)
    clients, times = limit.tracked()
    assert clients <= 1_000 and times <= 1_000 * 2 + 2_000
    assert not limit.allow("2001:db8::ffff", now=2.0)  # full of live addresses: refused, not grown
    assert limit.allow("2001:db8::ffff", now=62.0)  # once they expire, room again
    assert limit.tracked()[0] == 1


@pytest.fixture
def from_address(monkeypatch):
    import streamlit.runtime.context as context

    client = SimpleNamespace(headers=[], cookies={}, remote_ip="198.51.100.7")
    monkeypatch.setattr(context, "_get_client_context", lambda: client)


def test_an_anonymous_client_starts_a_limited_number_of_workspaces(store, from_address):
    def workspaces() -> int:
        return store.cursor().execute("SELECT count(*) FROM workspaces").fetchone()[0]

    before = workspaces()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.run()
    at.switch_page("app_pages/workshop.py").run()
    for i in range(WORKSPACES_PER_CLIENT_PER_HOUR + 3):
        at.text_input(key="ws_new_client").set_value(f"Client {i}").run()
        at.button(key="ws_create").click().run()
        assert not at.exception, at.exception
        if "_workspace" in at.session_state:
            at.button(key="ws_leave").click().run()
    assert workspaces() - before == WORKSPACES_PER_CLIENT_PER_HOUR
    assert any("Too many workspaces started from your address" in e.value for e in at.error)


@pytest.fixture(params=["duckdb", "postgresql"])
def any_store(request, catalog_path):
    from catalog.store import open_catalog

    return open_catalog(str(catalog_path) if request.param == "duckdb" else request.getfixturevalue("pg_url"))


def test_scenario_ids_are_random_and_listed_newest_first(any_store):
    store = any_store
    token = store.create_workspace("ACME")
    ids = [store.save_scenario(f"s{i}", "{}", 2, workspace=token) for i in range(12)]
    assert len(set(ids)) == 12 and sorted(ids) != list(range(ids[0], ids[0] + 12))
    assert max(ids) > 2**32  # drawn from 2**53 values, not counted
    assert list(store.list_scenarios(token)["name"]) == [f"s{i}" for i in reversed(range(12))]


def test_a_workspace_holds_a_bounded_total_size(any_store):
    store = any_store
    token = store.create_workspace("ACME")
    big = "x" * 990_000
    saved = 0
    with pytest.raises(CatalogError, match="MB"):
        for i in range(20):
            store.save_scenario(f"s{i}", big, 2, workspace=token)
            saved += 1
    assert saved == MAX_WORKSPACE_JSON_CHARS // 990_000
