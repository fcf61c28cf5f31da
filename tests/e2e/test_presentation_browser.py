"""Presentation mode in Debian Chromium (#19.5): the key numbers are the largest text after the title, every chart
text is at least 18 px, and no page link in the sidebar is cut off."""

import re

from playwright.sync_api import Page, expect


def _font_px(page: Page, selector: str) -> list[float]:
    """Font size of the text itself: the innermost paragraph of each match (Streamlit wraps text in <p>)."""
    return page.evaluate(f"""() => [...document.querySelectorAll({selector!r})]
        .map(e => parseFloat(getComputedStyle(e.querySelector('p') || e).fontSize))""")


def test_presentation_mode_is_readable_on_a_projector(page: Page, app_url: str):
    page.goto(f"{app_url}/tco?present=1")
    expect(page.get_by_text(re.compile(r"^Over 3 years at 60% utilisation"))).to_be_visible(timeout=60_000)
    expect(page.locator('[data-testid="stPlotlyChart"] .main-svg').first).to_be_visible(timeout=60_000)
    page.wait_for_timeout(1500)
    values = _font_px(page, '[data-testid="stMetricValue"]')
    labels = _font_px(page, '[data-testid="stMetricLabel"]')
    headline = _font_px(page, '[data-testid="stMain"] h3')
    assert values and labels and headline
    assert min(values) > max(labels) and min(values) > max(headline), (values, labels, headline)
    chart_text = page.evaluate("""() => [...document.querySelectorAll('[data-testid="stPlotlyChart"] svg text')]
        .filter(t => t.textContent.trim()).map(t => [t.textContent, parseFloat(t.style.fontSize || getComputedStyle(t).fontSize)])""")
    small = [(t, px) for t, px in chart_text if px < 18]
    assert chart_text and not small, small[:10]
    page.set_viewport_size({"width": 1280, "height": 800})  # a common projector
    page.wait_for_timeout(1000)
    cut = page.evaluate("""() => [...document.querySelectorAll('[data-testid="stSidebarNav"] a *')]
        .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)""")
    assert not cut, cut
    links = page.locator('[data-testid="stSidebarNav"] a')
    assert any(text.endswith("Rent or own (TCO)") for text in links.all_inner_texts())


def test_normal_mode_keeps_the_compact_style(page: Page, app_url: str):
    page.goto(f"{app_url}/tco")
    expect(page.locator('[data-testid="stPlotlyChart"] .main-svg').first).to_be_visible(timeout=60_000)
    page.wait_for_timeout(1000)
    sizes = page.evaluate("""() => [...document.querySelectorAll('[data-testid="stPlotlyChart"] svg text')]
        .map(t => parseFloat(t.style.fontSize || getComputedStyle(t).fontSize))""")
    assert min(sizes) < 18  # the projector sizes apply only in presentation mode
