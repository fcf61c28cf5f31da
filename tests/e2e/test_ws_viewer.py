"""The browserless viewer of `make load` (bench/ws_viewer.py, ``--ws-viewers``) against a real `streamlit run`:
it tours and changes inputs as a tab does, its scenario lives in the address (``?s=``) as a tab's does, and
when its server dies it reconnects and gets its scenario back (the fault of issue #21, here without nginx: a
new server on the same port)."""

import asyncio
import os
import shutil
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from bench.load.config import TCO_HEADLINE, LoadConfig, Report
from bench.load.viewers import WsViewer
from bench.ws_viewer import ProtocolViewer
from tests.e2e.conftest import free_port, start_server
from ui.scenario import ClientBrief

pytestmark = pytest.mark.e2e


def _run(coro):
    """In its own thread: pytest-playwright may hold an event loop in the main one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result(timeout=300)


@pytest.fixture
def server(seed_catalog_file, tmp_path):
    catalog = tmp_path / "catalog.duckdb"
    shutil.copyfile(seed_catalog_file, catalog)
    port = free_port()
    started = []

    def start():
        proc, url = start_server(catalog, tmp_path / f"streamlit-{len(started)}.log", port=port)
        started.append(proc)
        return proc, url

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def _shown_utilisation(result) -> int:
    import re

    return int(re.search(r" at (\d+)% utilisation", result.text(TCO_HEADLINE)).group(1))


def test_the_scenario_a_session_changed_comes_back_from_its_address_and_only_from_it(server):
    _, url = server()
    default = round(100 * ClientBrief().utilisation_fraction)

    async def scenario() -> tuple[int, float, int, int]:
        report = Report(LoadConfig(viewers=0, ws_viewers=1, think_s=0))
        viewer = WsViewer(1, url, report, 120)
        await viewer.session.open("")
        await viewer.open("tco")
        before = _shown_utilisation(viewer.session.last)
        await viewer.interact("tco")  # raises unless the headline shows the new utilisation
        assert report.errors == [] and report.ws_inputs["tco"]
        query = viewer.session.query_string
        assert query.startswith("s="), query  # the app wrote the changed scenario into the address
        await viewer.session.close()
        again, fresh = ProtocolViewer(url), ProtocolViewer(url)
        shown_again = _shown_utilisation(await again.open("tco", query))
        shown_fresh = _shown_utilisation(await fresh.open("tco", ""))
        await again.close()
        await fresh.close()
        return before, viewer.utilisation, shown_again, shown_fresh

    before, changed, shown_again, shown_fresh = _run(scenario())
    assert before == default
    assert round(100 * changed) != default
    assert shown_again == round(100 * changed)  # a new session at the same address: the session's scenario
    assert shown_fresh == default               # without the address's ?s=: the default brief (negative control)


def test_when_its_server_dies_a_session_reconnects_with_its_scenario_and_goes_on(server):
    first, url = server()

    async def scenario(report: Report) -> WsViewer:
        viewer = WsViewer(1, url, report, 120)
        await viewer.session.open("")
        await viewer.open("tco")
        await viewer.interact("tco")
        os.kill(first.pid, signal.SIGKILL)  # the replica goes away with the session in it
        first.wait(timeout=10)
        server()  # a new server on the same address (nginx would send the socket to another replica)
        await viewer.open("workload")  # the step that finds the socket gone
        await viewer.interact("workload")
        await viewer.session.close()
        return viewer

    report = Report(LoadConfig(viewers=0, ws_viewers=1, think_s=0))
    viewer = _run(scenario(report))
    assert report.errors == []
    assert len(report.ws_reconnects) == 1 and report.ws_scenarios_kept == [True]
    assert viewer.session.page == "workload" and report.ws_inputs["workload"]  # the interrupted step went on
