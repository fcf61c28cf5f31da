"""A tiny `make load` (bench/load_test.py): 3 real browser sessions open the pages with a result to change and
change it while one editor session saves a price; every viewer then sees the new price, the catalog lost
nothing. (The full run, every page and 20 viewers, is `make load`: minutes, not part of `make test`.)"""

from concurrent.futures import ThreadPoolExecutor

from bench.load_test import LoadConfig, format_report, run_load_test


def test_three_viewers_and_one_editor_see_every_save_and_lose_none(tmp_path):
    config = LoadConfig(viewers=3, edits=1, rounds=1, max_rounds=1, deadline_s=100, step_timeout_s=45, ramp_s=0.5,
                        edit_gap_s=1.0, pages=("", "providers", "tco", "workload", "scoring"), probe=False,
                        artifacts=tmp_path / "screenshots")
    # Its own thread: the load test runs its own asyncio loop, which must not meet pytest-playwright's.
    with ThreadPoolExecutor(1) as pool:
        report = pool.submit(run_load_test, config).result(timeout=config.deadline_s + 150)
    table = format_report(report)
    assert report.errors == [], table
    assert len(report.edits_acknowledged) == 1 and report.edits_verified == 1 and report.lost_edits == 0, table
    assert report.viewers_saw_prices == 3, table
    assert all(report.interactions[page] for page in ("providers", "tco", "workload", "scoring")), table
    assert report.passed, table
