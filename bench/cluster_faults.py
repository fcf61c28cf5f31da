"""Faults on a running ``make cluster`` (issue #21), driven in Chromium through nginx; prints what it measured.

1. **Kill a replica.** A browser opens Home from a share link (``?s=``: the client brief with 24 GPUs), the
   replica that serves it is killed (SIGKILL), and the same tab must come back by itself on another replica
   with the scenario from its URL (24 GPUs) and keep working (it opens Providers). The replica is restarted
   afterwards, so the cluster is whole again. (A page switch clicked during the 2-4 s of CONNECTING starts the
   new session from the clicked page's address, which has no ``?s=``: the scenario is then the default one.)
2. **Restart PostgreSQL.** With PostgreSQL stopped, a click shows "Catalog unavailable, retrying"; once it is
   started again the page recovers by itself (no reload, no app restart) and shows the catalog.

Usage: ``make cluster && python bench/cluster_faults.py`` (exit code 1 on a failed check).
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.cluster import CLUSTER_DIR, load_state, replica_of, save_state, start_replica, wait_http  # noqa: E402
from bench.pg_local import LocalPostgres  # noqa: E402

TIMEOUT_MS = 120_000
#: Streamlit retries its websocket within about a second; the rerun on the new replica took 2-4 s here.
RECONNECT_S = 10


def _gpus_input(page):
    return page.get_by_label("GPUs in the cluster").first


def kill_a_replica(browser, state: dict) -> None:
    from ui.scenario import ClientBrief, Scenario
    from ui.workshop import encode_link

    url = state["url"]
    code = encode_link(Scenario(brief=ClientBrief(cluster_gpus=24)))
    context = browser.new_context()
    page = context.new_page()
    response = page.goto(f"{url}?s={code}", wait_until="domcontentloaded")
    replica = response.headers["x-replica"]
    _gpus_input(page).wait_for(timeout=TIMEOUT_MS)
    assert _gpus_input(page).input_value() == "24", "the share link's scenario did not load"
    route = next(c["value"] for c in context.cookies() if c["name"] == "gpuadv_route")
    victim = next(r for r in state["replicas"] if replica.endswith(f":{r['port']}"))
    print(f"kill: the tab is on replica {replica} (pid {victim['pid']}); killing it")
    t0 = time.monotonic()
    os.killpg(victim["pid"], signal.SIGKILL)
    try:
        _after_the_kill(page, url, route, replica, t0)
    finally:  # the cluster is whole again whatever happened
        victim["pid"] = start_replica(state["replicas"].index(victim) + 1, victim["port"], state["database_url"])
        save_state(state)
        wait_http(f"http://127.0.0.1:{victim['port']}/_stcore/health")
        print(f"kill: replica on port {victim['port']} restarted (pid {victim['pid']})")
    context.close()


def _after_the_kill(page, url: str, route: str, replica: str, t0: float) -> None:
    # The tab reconnects by itself (Streamlit retries its websocket); nginx sends the route to another replica.
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    now_on = replica
    while time.monotonic() < deadline:
        now_on = replica_of(url, route)[0].split(",")[-1].strip()  # "dead, next" when nginx had to retry
        if now_on != replica:
            break
        time.sleep(0.5)
    assert now_on != replica, "nginx kept the route on the dead replica"
    # Streamlit shows CONNECTING, reconnects (nginx: another replica) and reruns the page from its URL: give it
    # RECONNECT_S, then the page must be idle (no stale elements) with the URL's scenario.
    page.wait_for_timeout(RECONNECT_S * 1000)
    while time.monotonic() < deadline and page.locator('[data-stale="true"]').count():
        time.sleep(0.2)
    value = _gpus_input(page).input_value()
    print(f"kill: within {RECONNECT_S} s of the kill the tab reconnected to replica {now_on} and reran its page; "
          f"GPUs in the cluster = {value} (the scenario from its URL)")
    assert value == "24", "the scenario was lost with the replica"
    nav = page.get_by_test_id("stSidebarNavItems")
    nav.get_by_role("link", name="Providers & offers").click()
    page.get_by_role("heading", name="Providers & offers").first.wait_for(timeout=TIMEOUT_MS)
    nav.get_by_role("link", name="Home").click()
    page.locator('[data-testid="stMetric"]').filter(has=page.get_by_text("Offers", exact=True)).first.wait_for(
        timeout=TIMEOUT_MS)
    value = _gpus_input(page).input_value()
    print(f"kill: the new session keeps working: Providers, then Home with GPUs in the cluster = {value}")
    assert value == "24", "the new session lost the scenario on a page switch"


def restart_postgres(browser, state: dict) -> None:
    pg = state["pg"]
    server = LocalPostgres(Path(pg["datadir"]), pg["port"], Path(pg["bindir"]))
    context = browser.new_context()
    page = context.new_page()
    page.goto(state["url"] + "providers", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Providers & offers").first.wait_for(timeout=TIMEOUT_MS)
    server.stop()
    print("postgres: stopped")
    try:
        page.get_by_test_id("stSidebarNavItems").get_by_role("link", name="Home").click()
        page.get_by_text("Catalog unavailable, retrying").first.wait_for(timeout=TIMEOUT_MS)
        print("postgres: the page says 'Catalog unavailable, retrying'")
        page.screenshot(path=str(CLUSTER_DIR / "fault-unavailable.png"))
        time.sleep(5)
    finally:
        server.start()
    t0 = time.monotonic()
    print("postgres: started again")
    page.locator('[data-testid="stMetric"]').filter(has=page.get_by_text("Offers", exact=True)).first.wait_for(
        timeout=TIMEOUT_MS)
    print(f"postgres: the same tab shows the catalog again {time.monotonic() - t0:.1f} s after PostgreSQL came "
          "back (no reload, no app restart)")
    assert page.get_by_text("Catalog unavailable, retrying").count() == 0
    page.screenshot(path=str(CLUSTER_DIR / "fault-recovered.png"))
    context.close()


def main() -> int:
    from playwright.sync_api import sync_playwright

    state = load_state()
    if not state:
        print("no cluster running: make cluster")
        return 1
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium")
        try:
            kill_a_replica(browser, state)
            restart_postgres(browser, state)
        finally:
            browser.close()
    print("cluster faults: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
