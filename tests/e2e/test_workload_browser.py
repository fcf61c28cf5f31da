"""In Debian Chromium: the Workload cost page shows the ranking table and the time-versus-cost scatter, and
changing an input re-prices the offers."""

import re

from playwright.sync_api import Page, expect

from tests.e2e.conftest import enter_value


def test_ranking_table_and_scatter_render_and_follow_an_input(page: Page, app_url: str):
    page.goto(f"{app_url}/workload")
    expect(page.get_by_role("heading", name="Workload cost")).to_be_visible(timeout=30_000)
    expect(page.locator('[data-testid="stDataFrame"]').first).to_be_visible(timeout=30_000)
    expect(page.locator('[data-testid="stPlotlyChart"] .main-svg').first).to_be_visible(timeout=30_000)
    expect(page.get_by_text("Time versus cost, every priced offer")).to_be_visible()
    expect(page.get_by_text("Pareto front (nothing cheaper and faster)")).to_be_visible()
    # issue #17: the scaling loss of the selected offer (compute, bubble, exposed communication, failures)
    expect(page.get_by_text("Where the money goes: scaling loss on this offer")).to_be_visible()
    expect(page.get_by_text(re.compile(r"the goodput is \d+\.\d%"))).to_be_visible()

    fastest = page.locator('[data-testid="stMetric"]').filter(has_text="Fastest job")
    expect(fastest).to_contain_text(re.compile(r"\d+\.\d (days|hours)"), timeout=30_000)
    before = fastest.inner_text()
    verdict = page.locator('[data-testid="stMarkdownContainer"] p').filter(has_text="per job").first
    verdict_before = verdict.inner_text()

    gpus = page.get_by_label("GPUs", exact=True)
    enter_value(page, gpus, "128")
    expect(fastest).not_to_have_text(before, timeout=30_000)
    expect(verdict).not_to_have_text(verdict_before, timeout=30_000)
    expect(page.locator('[data-testid="stDataFrame"]').first).to_be_visible()
    assert not page.locator('[data-testid="stException"]').count()

    # a manual layout from the expander re-prices every offer with it
    page.get_by_text("Parallelism, reliability and power").click()
    page.get_by_role("radio", name="Manual").click()
    expect(page.get_by_text(re.compile(r"Layout TP 8 · PP 1 · DP 16"))).to_be_visible(timeout=30_000)
    assert not page.locator('[data-testid="stException"]').count()
