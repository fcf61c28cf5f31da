"""In Debian Chromium: inputs set on two pages travel in the share link to a fresh browser context; exports follow
the current scenario; the report reads right when rendered; reload and back restore the scenario; user text stays
text."""

import io
import re
import urllib.parse
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import enter_value, step_slider_to, visit_tco_then_workload


def test_share_link_reproduces_inputs_from_two_pages(page: Page, browser: Browser, app_url: str):
    page.goto(f"{app_url}/tco")
    expect(page.get_by_text(re.compile(r"^Over 3 years at 60% utilisation, "))).to_be_visible(timeout=30_000)
    # Wait until the page has settled (charts drawn): a rerun that lands mid-keypress drops the slider's focus.
    expect(page.locator('.st-key-tco_break_even_chart[data-stale="false"]')).to_contain_text("you: 60%", timeout=30_000)
    step_slider_to(page, page.get_by_role("slider").first, 0.55)
    expect(page.get_by_text(re.compile(r"^Over 3 years at 55% utilisation, "))).to_be_visible(timeout=20_000)

    page.get_by_role("link", name="Workload cost").click()
    gpus = page.get_by_label("GPUs", exact=True)
    expect(gpus).to_be_visible(timeout=30_000)
    verdict_line = page.locator('[data-testid="stMarkdownContainer"] p').filter(has_text="Cheapest:").first
    expect(verdict_line).to_be_visible(timeout=30_000)
    before = verdict_line.inner_text()
    enter_value(page, gpus, "128")
    expect(verdict_line).not_to_have_text(before, timeout=30_000)  # the server has the new value
    verdict = verdict_line.inner_text()

    page.get_by_role("link", name="Workshop").click()
    link = page.locator('[data-testid="stCode"]').first
    expect(link).to_contain_text("?s=v2.", timeout=20_000)
    url = link.inner_text().strip()

    fresh = browser.new_context(viewport={"width": 1600, "height": 1000})
    other = fresh.new_page()
    other.goto(url)
    visit_tco_then_workload(other, utilisation_pct=55, gpus=128)
    other_verdict = other.locator('[data-testid="stMarkdownContainer"] p').filter(has_text="Cheapest:").first
    # Same offer, duration and cost as in the first session. (Regression: the fresh session once showed the
    # cost at 2.08x because its exchange-rate widget came back at its min_value 0.5 instead of the scenario's.)
    days = re.search(r"[\d.,]+ (?:days|hours|h\b)", verdict).group(0)  # the job's duration (hours for a short one)
    expect(other_verdict).to_contain_text(verdict.split(" at ")[0], timeout=30_000)
    expect(other_verdict).to_contain_text(days)
    try:
        expect(other_verdict).to_have_text(verdict)
    except AssertionError:
        from ui.workshop import decode_link
        linked = decode_link(url.split("?s=", 1)[1]).display
        fx = '[data-testid="stSidebar"] input[type="number"]'
        raise AssertionError(
            f"cost differs. link display={linked!r}; session A FX input={page.locator(fx).input_value()!r}, "
            f"session B FX input={other.locator(fx).input_value()!r}; A: {verdict!r}; B: {other_verdict.inner_text()!r}"
        ) from None
    fresh.close()


def test_share_link_keeps_the_exchange_rate_when_the_server_is_busy(browser: Browser, app_url: str):
    """Regression: under CPU contention a session opened from a share link came back with the sidebar's exchange
    rate at the widget's min_value (0.5), pricing every USD offer 2.08x too high (5 of 6 sessions before the fix)."""
    import subprocess
    import sys

    from ui.scenario import Scenario
    from ui.workshop import encode_link

    url = f"{app_url}/?s={encode_link(Scenario())}"
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        for _ in range(3):
            context = browser.new_context(viewport={"width": 1600, "height": 1000})
            page = context.new_page()
            page.goto(url)
            visit_tco_then_workload(page, utilisation_pct=60, gpus=16)  # the brief's defaults
            expect(page.locator('[data-testid="stSidebar"] input[type="number"]')).to_have_value("1.0411")
            context.close()
    finally:
        for burner in burners:
            burner.kill()


def _open_export(page: Page, app_url: str | None = None) -> None:
    if app_url:
        page.goto(f"{app_url}/workshop")
    else:
        page.get_by_role("link", name="Workshop").click()
    expect(page.get_by_role("heading", name="Workshop")).to_be_visible(timeout=60_000)
    page.get_by_role("tab", name="Export").click()
    expect(page.get_by_role("button", name="Build the Excel workbook")).to_be_visible(timeout=30_000)


def _build_and_download(page: Page, what: str) -> bytes:
    """Build the workbook ("xlsx") or the report ("pdf") and download it through the browser."""
    build, download = {"xlsx": ("Build the Excel workbook", "Download workbook"),
                       "pdf": ("Build the PDF report", "Download report")}[what]
    page.get_by_role("button", name=build).click()
    button = page.get_by_role("button", name=download, exact=True)
    expect(button).to_be_enabled(timeout=120_000)
    with page.expect_download(timeout=60_000) as info:
        button.click()
    return Path(info.value.path()).read_bytes()


def _workbook_gpus(data: bytes) -> int:
    import openpyxl

    rows = openpyxl.load_workbook(io.BytesIO(data), read_only=True)["TCO inputs"].iter_rows(values_only=True)
    return next(r[1] for r in rows if r[0] == "GPUs in the cluster")


def _pdf_text(data: bytes) -> str:
    from pypdf import PdfReader

    return " ".join(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages).split())


def test_the_next_download_reflects_a_changed_input(page: Page, app_url: str):
    """#19.1: build both files, change the cluster from 16 to 64 GPUs on Rent or own, come back: the old files can no
    longer be downloaded, and the rebuilt ones say 64 GPUs."""
    _open_export(page, app_url)
    assert _workbook_gpus(_build_and_download(page, "xlsx")) == 16
    assert "run 16 GPUs" in _pdf_text(_build_and_download(page, "pdf"))

    page.get_by_role("link", name="Rent or own (TCO)").click()
    gpus = page.get_by_label("GPUs in the cluster")
    expect(gpus).to_have_value("16", timeout=60_000)
    enter_value(page, gpus, "64")
    expect(page.get_by_text(re.compile(r"run 64 GPUs"))).to_be_visible(timeout=60_000)

    _open_export(page)
    for outdated in ("Download workbook (outdated)", "Download report (outdated)"):
        expect(page.get_by_role("button", name=outdated)).to_be_disabled(timeout=30_000)
    assert _workbook_gpus(_build_and_download(page, "xlsx")) == 64
    assert "run 64 GPUs" in _pdf_text(_build_and_download(page, "pdf"))


def test_the_downloaded_report_shows_the_client_header_scoring_and_placement(page: Page, app_url: str):
    """#19.4: the PDF downloaded from the browser, rendered to PNG and read back, has the client header and the
    scoring and placement sections."""
    from tests.e2e.conftest import finished_runs, pdf_page_text, pdf_pages_with, wait_for_rerun, wait_idle

    _open_export(page, app_url)
    page.get_by_label("Client (report header)").fill("Globex Corporation")
    wait_idle(page)
    before = finished_runs(page)
    page.get_by_label("Scenario name (report header)").fill("Burst to spot")
    page.get_by_label("Scenario name (report header)").press("Enter")
    wait_for_rerun(page, before)  # the name reaches the server before the report is built
    data = _build_and_download(page, "pdf")
    where = pdf_pages_with(data, ["Provider scoring", "Hybrid placement"])
    seen = pdf_page_text(data, pages=sorted({1, *where.values()}))
    first = " ".join(seen[1].split())
    assert "Globex Corporation" in first and "Burst to spot" in first and "Catalog version" in first
    assert "Provider scoring" in seen[where["Provider scoring"]]
    assert "Hybrid placement" in seen[where["Hybrid placement"]]


def test_reload_and_back_restore_the_scenario(page: Page, app_url: str):
    """#19.6: the scenario is in the URL; a reload keeps it and the back button returns to the previous one."""
    page.goto(f"{app_url}/tco")
    gpus = page.get_by_label("GPUs in the cluster")
    expect(gpus).to_have_value("16", timeout=60_000)
    enter_value(page, gpus, "64")
    expect(page.get_by_text(re.compile(r"run 64 GPUs"))).to_be_visible(timeout=60_000)
    expect(page).to_have_url(re.compile(r"[?&]s=v\d+\."), timeout=30_000)
    page.reload()
    expect(page.get_by_text(re.compile(r"run 64 GPUs"))).to_be_visible(timeout=60_000)
    expect(page.get_by_label("GPUs in the cluster")).to_have_value("64")
    page.go_back()
    expect(page.get_by_text(re.compile(r"run 16 GPUs"))).to_be_visible(timeout=60_000)
    expect(page.get_by_label("GPUs in the cluster")).to_have_value("16")


def test_hostile_names_render_as_text_in_the_browser(page: Page, app_url: str):
    """#15.6: a ?join= value and a client name with Markdown image/link syntax show as text: no image, no link."""
    payload = "![x](http://evil.example/t.png) [click](http://evil.example)"
    page.goto(f"{app_url}/workshop?join=" + urllib.parse.quote(payload))
    expect(page.get_by_text("This join link is not valid")).to_be_visible(timeout=60_000)
    assert page.locator("img[src*='evil'], a[href*='evil']").count() == 0
    page.goto(f"{app_url}/workshop")
    page.get_by_label("Client", exact=True).fill(payload)
    page.get_by_label("Client", exact=True).press("Enter")
    page.get_by_role("button", name="Start a workspace").click()
    expect(page.get_by_text(re.compile(r"^Workspace .*evil\.example"))).to_be_visible(timeout=60_000)
    assert page.locator("img[src*='evil'], a[href*='evil']").count() == 0
