"""In Debian Chromium: the break-even chart follows the utilisation slider."""

import re

from playwright.sync_api import Page, expect


def test_break_even_chart_updates_after_a_slider_change(page: Page, app_url: str):
    page.goto(f"{app_url}/tco")
    expect(page.get_by_role("heading", name="Rent or own")).to_be_visible(timeout=30_000)
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    expect(chart.locator(".main-svg").first).to_be_visible(timeout=30_000)
    expect(chart).to_contain_text("you: 70%", timeout=30_000)
    expect(chart).to_contain_text(re.compile(r"own beats on-demand above \d+%"))

    slider = page.get_by_role("slider").first
    for _ in range(60):  # step to 0.60, re-focusing when a rerun took the focus away (as a user would click again)
        value = float(slider.input_value())
        if abs(value - 0.60) < 1e-9:
            break
        slider.focus()
        page.keyboard.press("ArrowLeft" if value > 0.60 else "ArrowRight")
        page.wait_for_timeout(50)
    expect(chart).to_contain_text("you: 60%", timeout=20_000)
    expect(page.get_by_text(re.compile(r"^At 60% utilisation"))).to_be_visible()
