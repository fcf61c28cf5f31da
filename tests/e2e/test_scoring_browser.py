"""In Debian Chromium: the ranking, the contribution chart and the verdict follow a weight slider."""

import re

from playwright.sync_api import Page, expect


def test_ranking_and_contribution_chart_update_after_a_weight_change(page: Page, app_url: str):
    page.goto(f"{app_url}/scoring")
    expect(page.get_by_role("heading", name="Provider scoring")).to_be_visible(timeout=30_000)
    table = page.locator('[data-testid="stDataFrame"]').first
    expect(table).to_be_visible(timeout=30_000)
    chart = page.locator('[data-testid="stPlotlyChart"]').filter(has_text="Why #1 wins").first
    expect(chart.locator(".main-svg").first).to_be_visible(timeout=30_000)
    expect(chart).to_contain_text("#1 ")
    verdict = page.get_by_text(re.compile(r"^#1 .+ wins with a weighted-sum score"))
    expect(verdict).to_contain_text("(now 15%)")  # price weight of the default preset, 15 of 100 points
    chart_before, verdict_before = chart.inner_text(), verdict.inner_text()

    slider = page.get_by_role("slider").first  # the first weight: effective price
    expect(slider).to_have_value("15")
    slider.focus()
    for _ in range(25):
        page.keyboard.press("ArrowRight")
    expect(slider).to_have_value("40")

    expect(verdict).not_to_contain_text("(now 15%)", timeout=20_000)
    expect(verdict).not_to_have_text(verdict_before)
    expect(chart).not_to_have_text(chart_before, timeout=20_000)
    expect(table).to_be_visible()
