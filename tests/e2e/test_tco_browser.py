"""In Debian Chromium: the TCO page answers one horizon everywhere (issue #14 item 1) and follows the slider."""

import re

from playwright.sync_api import Page, expect

from tests.e2e.conftest import enter_value, step_slider_to


def _money(text: str) -> float:
    return float(re.sub(r"[^0-9.]", "", text))


def test_break_even_chart_updates_after_a_slider_change(page: Page, app_url: str):
    page.goto(f"{app_url}/tco")
    expect(page.get_by_role("heading", name="Rent or own")).to_be_visible(timeout=30_000)
    chart = page.locator(".st-key-tco_break_even_chart[data-stale=\"false\"]")
    expect(chart.locator(".main-svg").first).to_be_visible(timeout=30_000)
    expect(chart).to_contain_text("you: 60%", timeout=30_000)  # the client brief's utilisation
    expect(chart).to_contain_text(re.compile(r"owning wins above \d+%"))

    step_slider_to(page, page.get_by_role("slider").first, 0.50)
    expect(chart).to_contain_text("you: 50%", timeout=20_000)
    expect(page.get_by_text(re.compile(r"^Over 3 years at 50% utilisation, "))).to_be_visible()


def test_client_case_headline_metrics_and_cumulative_chart_agree(page: Page, app_url: str):
    """16 H100 SXM on Scaleway fr-par-2 for 36 months at 60 %: the cheapest option named in the headline has the
    lowest 36-month total among the metrics, and the net-cost chart's horizon-end label names the same option."""
    page.goto(f"{app_url}/tco")
    expect(page.get_by_role("heading", name="Rent or own")).to_be_visible(timeout=30_000)
    picker = page.get_by_label("On-demand price from a catalog offer")
    picker.click(timeout=60_000)
    page.keyboard.type("Scaleway · H100 SXM · 8 GPUs · fr-par-2")
    page.keyboard.press("Enter")
    for label, value in (("GPUs in the cluster", "16"), ("Horizon (months)", "36")):
        box = page.get_by_role("spinbutton", name=label)
        enter_value(page, box, value)
        expect(box).to_have_value(value, timeout=20_000)
    step_slider_to(page, page.get_by_role("slider").first, 0.60)
    headline = page.get_by_text(re.compile(r"^Over 3 years at 60% utilisation, .* is the cheapest way to run 16 GPUs"))
    expect(headline).to_be_visible(timeout=30_000)
    expect(page.get_by_text("no committed price stated for this offer").first).to_be_visible()
    totals = {}
    for name, label in (("owning", "Own, total over 3 years"), ("renting on demand", "Rent on demand, total over 3 years")):
        metric = page.locator('[data-testid="stMetric"]').filter(has_text=label)
        totals[name] = _money(metric.locator('[data-testid="stMetricValue"]').inner_text())
    cheapest = min(totals, key=totals.get)
    assert f"{cheapest} is the cheapest way to run 16 GPUs" in headline.inner_text()
    chart = page.locator(".st-key-tco_cumulative[data-stale=\"false\"]")
    expected_label = {"owning": "own lowest", "renting on demand": "rent on demand lowest"}[cheapest]
    expect(chart).to_contain_text(f"horizon end: {expected_label}", timeout=20_000)


def test_monte_carlo_draws_rerun_the_block_and_the_link_keeps_them(page: Page, app_url: str):
    """The Monte Carlo block is a fragment (issue #31): moving Draws redraws it with the new count without a
    full rerun, and the URL written from inside the fragment restores that count after a reload."""
    page.goto(f"{app_url}/tco")
    expect(page.get_by_role("heading", name="Rent or own")).to_be_visible(timeout=30_000)
    expect(page.get_by_text(re.compile(r"^Over 20,000 draws of the uncertain inputs"))).to_be_visible(timeout=60_000)
    draws = page.locator(".st-key-tco_draws").get_by_role("slider")
    draws.focus()
    page.keyboard.press("End")  # 100,000 draws, the last option
    expect(page.get_by_text(re.compile(r"^Over 100,000 draws of the uncertain inputs"))).to_be_visible(timeout=60_000)
    expect(page).to_have_url(re.compile(r"[?&]s="), timeout=20_000)
    page.reload()
    expect(page.get_by_text(re.compile(r"^Over 100,000 draws of the uncertain inputs"))).to_be_visible(timeout=60_000)
