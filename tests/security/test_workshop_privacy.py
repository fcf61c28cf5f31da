"""Issue #15.7 / #19.7: saved scenarios and group sessions belong to a client workspace opened by an unguessable
link; votes are bound to the browser session that cast them."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from catalog.errors import CatalogError
from catalog.store import CatalogStore, workspace_id
from ui.scenario import Scenario
from ui.workshop import to_json

ROOT = Path(__file__).resolve().parents[2]
POINTS = {"price_eur_per_gpu_hour": 80.0}
ME, YOU = "me-0123456789abcdef0123", "you-0123456789abcdef012"


def test_each_workspace_lists_only_its_own_scenarios(store):
    acme, globex = store.create_workspace("ACME"), store.create_workspace("Globex")
    a = store.save_scenario("ACME plan", to_json(Scenario()), 1, workspace=acme, client="ACME")
    store.save_scenario("Globex plan", to_json(Scenario()), 1, workspace=globex, client="Globex")
    assert list(store.list_scenarios(acme)["name"]) == ["ACME plan"]
    assert list(store.list_scenarios(globex)["name"]) == ["Globex plan"]
    assert store.list_scenarios(None).empty and store.list_scenarios("not-a-real-token-123").empty
    with pytest.raises(CatalogError, match="in this workspace"):
        store.scenario_json(a, globex)  # knowing the number is not enough


def test_workspace_links_are_unguessable_and_not_stored(store, catalog_path):
    tokens = {store.create_workspace("ACME") for _ in range(20)}
    assert len(tokens) == 20 and all(len(t) >= 24 for t in tokens)
    stored = {r[0] for r in store.cursor().execute("SELECT workspace_id FROM workspaces").fetchall()}
    assert not tokens & stored  # only hashes
    assert {workspace_id(t) for t in tokens} <= stored


def test_saving_needs_a_valid_workspace(store):
    with pytest.raises(CatalogError, match="not valid"):
        store.save_scenario("x", to_json(Scenario()), 1, workspace="guessed-token-000000000")


def test_the_workshop_page_lists_nothing_without_the_workspace_link(store):
    acme = store.create_workspace("ACME")
    store.save_scenario("Secret merger plan", to_json(Scenario()), 1, workspace=acme, client="ACME")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.run()
    at.switch_page("app_pages/workshop.py").run()
    assert not at.exception
    page = " ".join(str(e.value) for e in [*at.markdown, *at.caption, *at.info, *at.selectbox]
                    if hasattr(e, "value"))
    assert "Secret merger plan" not in page and "ACME" not in page
    assert not [s for s in at.selectbox if s.key == "ws_pick"]
    at2 = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at2.query_params["ws"] = acme
    at2.run()
    at2.switch_page("app_pages/workshop.py").run()
    assert "Secret merger plan" in at2.selectbox(key="ws_pick").options[0]


def test_a_wrong_workspace_link_says_so(store):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["ws"] = "AAAAAAAAAAAAAAAAAAAAAAAA"
    at.run()
    at.switch_page("app_pages/workshop.py").run()
    assert any("workspace link is not valid" in e.value for e in at.error)


def test_a_vote_cannot_be_overwritten_by_another_session_reusing_the_name(store):
    token = store.create_workspace("ACME")
    code = store.create_group_session(token)
    store.submit_vote(code, "Ann", POINTS, voter=ME)
    with pytest.raises(CatalogError, match="already voted as 'Ann'"):
        store.submit_vote(code, "Ann", {"price_eur_per_gpu_hour": 0.0}, voter=YOU)
    assert store.votes(code, token) == {"Ann": POINTS}
    store.submit_vote(code, "Ann", {"price_eur_per_gpu_hour": 10.0}, voter=ME)  # the owner may change it
    assert store.votes(code, token)["Ann"]["price_eur_per_gpu_hour"] == 10.0
    store.submit_vote(code, "Ann B.", POINTS, voter=ME)  # renaming keeps one vote per session
    assert list(store.votes(code, token)) == ["Ann B."]


def test_votes_need_a_real_session_and_are_capped(store):
    with pytest.raises(CatalogError, match="join link is not valid"):
        store.submit_vote("ABC123", "Ann", POINTS, voter=ME)
    code = store.create_group_session(store.create_workspace("ACME"))
    for i in range(50):
        store.submit_vote(code, f"p{i}", POINTS, voter=f"voter-{i:04d}-0123456789ab")
    with pytest.raises(CatalogError, match="50 participants"):
        store.submit_vote(code, "late", POINTS, voter=YOU)
    with pytest.raises(CatalogError, match="0 to 100"):
        store.submit_vote(code, "p1", {"price_eur_per_gpu_hour": float("inf")}, voter="voter-0001-0123456789ab")


def test_an_old_catalog_gets_the_workspace_tables_and_hides_its_unscoped_scenarios(catalog_path):
    """A catalog built before workspaces: the tables and columns are added on the first writable open; the
    scenarios saved before belong to no workspace and are listed to nobody."""
    import duckdb

    con = duckdb.connect(str(catalog_path))
    con.execute("DROP TABLE group_sessions; DROP TABLE workspaces")
    con.execute("ALTER TABLE scenarios DROP COLUMN workspace_id; ALTER TABLE workshop_votes DROP COLUMN voter_id")
    con.execute("INSERT INTO scenarios VALUES (1, 'old', 'ACME', NULL, now(), 1, '{}')")
    con.close()
    with CatalogStore(catalog_path) as store:
        token = store.create_workspace("ACME")
        assert store.list_scenarios(token).empty
        store.save_scenario("new", to_json(Scenario()), 1, workspace=token)
        assert list(store.list_scenarios(token)["name"]) == ["new"]


# Issue #28.7: a workspace link sent by someone else must not capture what the victim saves unawares.

def _workshop(token: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    if token:
        at.query_params["ws"] = token
    at.run()
    at.switch_page("app_pages/workshop.py").run()
    assert not at.exception, at.exception
    return at


def test_saving_into_a_workspace_from_someone_elses_link_asks_first(store):
    token = store.create_workspace("Mallory Consulting")
    created = store.workspace(token)["created_at"]
    at = _workshop(token)
    warning = next(w.value for w in at.warning if "You did not start this workspace" in w.value)
    assert "Mallory Consulting" in warning and f"{created:%Y-%m-%d}" in warning
    assert at.text_input(key="ws_name").disabled and at.button(key="ws_save").disabled
    assert store.list_scenarios(token).empty
    at.button(key="ws_start_own").click().run()  # the user starts their own instead
    assert "_workspace" not in at.session_state
    assert at.text_input(key="ws_new_client") is not None


def test_a_confirmed_or_own_workspace_saves(store):
    token = store.create_workspace("ACME")
    at = _workshop(token)
    at.button(key="ws_confirm").click().run()
    assert not any("You did not start" in w.value for w in at.warning)
    at.text_input(key="ws_name").set_value("plan").run()
    at.button(key="ws_save").click().run()
    assert list(store.list_scenarios(token)["name"]) == ["plan"]
    own = _workshop()
    own.text_input(key="ws_new_client").set_value("Globex").run()
    own.button(key="ws_create").click().run()
    assert not any("You did not start" in w.value for w in own.warning)
    own.text_input(key="ws_name").set_value("mine").run()
    own.button(key="ws_save").click().run()
    assert any("Saved as scenario" in s.value for s in own.success)
