"""A tiny `make load` (bench/load_test.py): 3 real browser sessions open the pages with a result to change and
change it while one editor session saves two prices; every viewer then sees the new prices, the catalog lost
nothing. It runs the same code as `make load` (the same edit plan, `plan_edits`, on a fresh seed catalog with
today's date; the same server-side timing); the full run, every page and 20 viewers, is `make load`: minutes,
not part of `make test`."""

from concurrent.futures import ThreadPoolExecutor

from bench.load.config import LoadConfig
from bench.load.report import format_report
from bench.load.run import run_load_test

PAGES_WITH_AN_INPUT = ("providers", "tco", "workload", "scoring")


def test_three_viewers_and_one_editor_see_every_save_and_lose_none(tmp_path):
    config = LoadConfig(viewers=3, edits=2, rounds=1, max_rounds=1, deadline_s=300, step_timeout_s=60, ramp_s=0.5,
                        edit_gap_s=1.0, pages=("", *PAGES_WITH_AN_INPUT), probe=False,
                        artifacts=tmp_path / "screenshots")
    # Its own thread: the load test runs its own asyncio loop, which must not meet pytest-playwright's.
    with ThreadPoolExecutor(1) as pool:
        report = pool.submit(run_load_test, config).result(timeout=config.deadline_s + 150)
    table = format_report(report)
    assert report.errors == [], table
    assert len(report.edits_acknowledged) == 2 and report.edits_verified == 2 and report.lost_edits == 0, table
    assert report.viewers_saw_prices == 3, table
    assert all(report.interactions[page] for page in PAGES_WITH_AN_INPUT), table
    # The server timed every viewer's input change on its side too (bench/timed_server.py).
    assert all(len(report.server_inputs[page]) >= 3 for page in PAGES_WITH_AN_INPUT), table
    assert report.passed, table
