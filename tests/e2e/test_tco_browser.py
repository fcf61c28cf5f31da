"""In Debian Chromium: the break-even chart follows the utilisation slider."""

import re

from playwright.sync_api import Page, expect

from tests.e2e.conftest import step_slider_to


def test_break_even_chart_updates_after_a_slider_change(page: Page, app_url: str):
    page.goto(f"{app_url}/tco")
    expect(page.get_by_role("heading", name="Rent or own")).to_be_visible(timeout=30_000)
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    expect(chart.locator(".main-svg").first).to_be_visible(timeout=30_000)
    expect(chart).to_contain_text("you: 70%", timeout=30_000)
    expect(chart).to_contain_text(re.compile(r"own beats on-demand above \d+%"))

    step_slider_to(page, page.get_by_role("slider").first, 0.60)
    expect(chart).to_contain_text("you: 60%", timeout=20_000)
    expect(page.get_by_text(re.compile(r"^At 60% utilisation"))).to_be_visible()
