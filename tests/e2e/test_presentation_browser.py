"""Presentation mode in Debian Chromium (#19.5): the key numbers are the largest text after the title, every chart
text is at least 18 px, and no page link in the sidebar is cut off. At 1280x720 (#27.15) no metric value wraps
inside a number, no chart text leaves its figure on any page, and collapsing the sidebar gives the page its width."""

import re

import pytest
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


# --------------------------------------------------------------------------------------------------
# Issue #27.15: at 1280x720 no metric value wraps inside a number, no chart text leaves its figure or runs over
# another, and collapsing the sidebar gives the page the full width.
# --------------------------------------------------------------------------------------------------

PROJECTOR = {"width": 1280, "height": 720}
#: Each metric value's height against one line of its own type, and whether it runs past its card.
_METRICS_JS = """() => [...document.querySelectorAll('[data-testid="stMetricValue"]')].map(e => {
    const inner = e.querySelector('p') || e.querySelector('div') || e, cs = getComputedStyle(inner);
    const line = parseFloat(cs.lineHeight) || 1.2 * parseFloat(cs.fontSize);
    const card = e.closest('[data-testid="stMetric"]').getBoundingClientRect(), r = inner.getBoundingClientRect();
    return {text: e.textContent, height: r.height, line: line, past_card: Math.round(r.right - card.right),
            overflow: inner.scrollWidth - inner.clientWidth}; })"""
#: Every non-empty text of every plotly figure whose bounding box leaves the figure's own box.
_CHART_TEXT_JS = """() => { const out = [];
    document.querySelectorAll('[data-testid="stPlotlyChart"]').forEach((chart, i) => {
      const svg = chart.querySelector('.main-svg'); if (!svg) return; const f = svg.getBoundingClientRect();
      chart.querySelectorAll('svg text').forEach(t => {
        if (!t.textContent.trim()) return; const b = t.getBoundingClientRect(); if (!b.width && !b.height) return;
        const off = [f.left - b.left, b.right - f.right, f.top - b.top, b.bottom - f.bottom];
        if (Math.max(...off) > 1) out.push([i, t.textContent.slice(0, 50), off.map(Math.round)]); }); });
    return out; }"""


#: Pairs of texts of one figure whose boxes overlap by more than a fifth of the smaller (rotated tick labels, whose
#: axis-aligned boxes overlap while their glyphs do not, are left out).
_CHART_OVERLAP_JS = """() => { const out = [];
    document.querySelectorAll('[data-testid="stPlotlyChart"]').forEach((chart, i) => {
      const boxes = [...chart.querySelectorAll('svg text')]
        .filter(t => t.textContent.trim() && !/rotate/.test(t.getAttribute('transform') || ''))
        .map(t => [t.textContent.slice(0, 40), t.getBoundingClientRect()]).filter(([, b]) => b.width && b.height);
      for (let a = 0; a < boxes.length; a++) for (let b = a + 1; b < boxes.length; b++) {
        const [ta, A] = boxes[a], [tb, B] = boxes[b];
        const w = Math.min(A.right, B.right) - Math.max(A.left, B.left);
        const h = Math.min(A.bottom, B.bottom) - Math.max(A.top, B.top);
        if (w > 2 && h > 2 && w * h > 0.2 * Math.min(A.width * A.height, B.width * B.height)) out.push([i, ta, tb]); } });
    return out; }"""


def _scenario_link(**sections) -> str:
    from ui.scenario import Scenario
    from ui.workshop import encode_link

    return encode_link(Scenario(**sections))


def _inference_link() -> str:
    from ui.scenario import WorkloadSection

    return _scenario_link(workload=WorkloadSection(mode="inference"))


def _settle(page: Page, charts: bool) -> None:
    expect(page.locator('[data-testid="stMain"] h1').first).to_be_visible(timeout=90_000)
    if charts:
        expect(page.locator('[data-testid="stPlotlyChart"] .main-svg').first).to_be_visible(timeout=90_000)
    page.wait_for_timeout(2500)  # plotly lays its text out after the figure appears


def _assert_fits(page: Page, where: str) -> None:
    metrics = page.evaluate(_METRICS_JS)
    broken = [m for m in metrics if m["height"] > 1.5 * m["line"] or m["past_card"] > 1 or m["overflow"] > 1]
    assert not broken, (where, broken)
    out = page.evaluate(_CHART_TEXT_JS)
    assert not out, (where, out[:8])
    overlapping = page.evaluate(_CHART_OVERLAP_JS)
    assert not overlapping, (where, overlapping[:8])


@pytest.mark.parametrize(("path", "charts", "metrics"), [
    ("", True, True), ("providers", True, False), ("tco", True, True), ("workload", True, True),
    ("workload?s={inference}", True, True), ("scoring", True, False), ("placement", True, True),
    ("workshop", False, False), ("editor", False, False)])
def test_at_1280x720_no_number_wraps_and_no_chart_text_leaves_its_figure(page: Page, app_url: str, path: str,
                                                                         charts: bool, metrics: bool):
    page.set_viewport_size(PROJECTOR)
    url = f"{app_url}/{path.format(inference=_inference_link())}"
    page.goto(url + ("&" if "?" in url else "?") + "present=1")
    _settle(page, charts)
    if metrics:
        assert page.locator('[data-testid="stMetricValue"]').count() > 0, path
    _assert_fits(page, path or "home")
    if path == "providers":  # the comparison's charts (only the open tab is drawn)
        page.get_by_role("tab", name="Compare offers").click()
        expect(page.locator('[data-testid="stPlotlyChart"] .main-svg').first).to_be_visible(timeout=60_000)
        page.wait_for_timeout(2500)
        _assert_fits(page, "providers, compare")


def test_collapsing_the_sidebar_gives_the_page_the_full_width(page: Page, app_url: str):
    page.set_viewport_size(PROJECTOR)
    page.goto(f"{app_url}/placement?present=1")
    _settle(page, charts=True)
    sidebar = page.locator('section[data-testid="stSidebar"]')
    assert sidebar.bounding_box()["width"] >= 400  # presentation mode's wide sidebar: page links in full
    sidebar.hover()
    page.locator('[data-testid="stSidebarCollapseButton"] button').first.click()
    expect(sidebar).to_have_attribute("data-collapsed", "true")
    page.wait_for_timeout(1500)
    box = sidebar.bounding_box()
    assert box is None or box["x"] + box["width"] <= 1, box  # nothing of it stays on screen
    main = page.locator('[data-testid="stMain"]').bounding_box()
    assert main["x"] <= 1 and main["width"] >= PROJECTOR["width"] - 2, main
    _assert_fits(page, "placement, sidebar collapsed")
