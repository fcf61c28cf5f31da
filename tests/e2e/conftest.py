"""Real-browser fixtures: `streamlit run` on a free loopback port, driven by Playwright in Debian Chromium."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(catalog: Path, log_path: Path, *, secrets: Path | None = None,
                 port: int | None = None, local_editing: bool = False) -> tuple[subprocess.Popen, str]:
    """``local_editing``: editing without sign-in (the server listens on loopback), as `make run LOCAL_EDITING=1`;
    off unless asked for, whatever the calling shell's environment says."""
    port = port or free_port()
    env = {**os.environ, "GPU_ADVISOR_CATALOG": str(catalog), "GPU_ADVISOR_LOCAL_EDITING": "1" if local_editing else ""}
    log = log_path.open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
         *(["--secrets.files", str(secrets)] if secrets else [])],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read() == b"ok":
                return proc, url
        except OSError:
            time.sleep(0.1)
        if proc.poll() is not None:
            break
    proc.kill()
    raise RuntimeError(f"streamlit did not become healthy; log:\n{log_path.read_text()}")


def serve_seed_copy(seed_catalog_file, workdir: Path, prepare=None, **server_kwargs):
    """Generator for a fixture: a copy of the seed catalog (``prepare(catalog)`` may change it) served by
    ``streamlit run``; yields the URL, stops the server afterwards."""
    catalog = workdir / "catalog.duckdb"
    shutil.copyfile(seed_catalog_file, catalog)
    if prepare is not None:
        prepare(catalog)
    proc, url = start_server(catalog, workdir / "streamlit.log", **server_kwargs)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="session")
def app_url(seed_catalog_file, tmp_path_factory):
    yield from serve_seed_copy(seed_catalog_file, tmp_path_factory.mktemp("e2e"))


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is required for browser tests: run `make test` (it installs it) "
                    "or apt-get install chromium")
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": ["--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-quic"],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1600, "height": 1000}}


def pytest_collection_modifyitems(items):
    for item in items:
        if "/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


def wait_http(url: str, proc: subprocess.Popen, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer")


#: Counts the script runs the page has finished (``stApp``'s ``data-test-script-state`` turning ``notRunning``), so
#: a test waits for the rerun its action caused instead of a fixed time (issue #32 item 9).
_RUN_COUNTER_JS = """() => {
  if (window.__stRuns === undefined) {
    window.__stRuns = 0;
    const app = document.querySelector('[data-testid="stApp"]');
    let last = app.getAttribute('data-test-script-state');
    // Every record's old value, then the current one: a short run can start and end within one batch of records.
    new MutationObserver((records) => {
      const states = records.map((r) => r.oldValue).concat([app.getAttribute('data-test-script-state')]);
      for (const state of states.slice(1)) {
        if (state === 'notRunning' && last !== 'notRunning') window.__stRuns += 1;
        last = state;
      }
    }).observe(app, {attributes: true, attributeOldValue: true, attributeFilter: ['data-test-script-state']});
  }
  return window.__stRuns;
}"""

#: Upper bound for one rerun on a loaded machine: a signal ends the wait, this only stops a hung test.
RERUN_LIMIT_MS = 180_000


def finished_runs(page) -> int:
    """Script runs finished since the counter was installed on this page (installs it on first use)."""
    return int(page.evaluate(_RUN_COUNTER_JS))


def wait_for_rerun(page, before: int) -> None:
    """Wait until a script run finished after ``before`` (from :func:`finished_runs`)."""
    page.wait_for_function("n => window.__stRuns > n", arg=before, timeout=RERUN_LIMIT_MS)


def wait_idle(page) -> None:
    """Wait until no script run is in progress."""
    from playwright.sync_api import expect

    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning",
                                                           timeout=RERUN_LIMIT_MS)


def _same_entry(shown: str, typed: str) -> bool:
    try:
        return float(shown) == float(typed)
    except ValueError:
        return shown == typed


def enter_value(page, box, value: str, *, tries: int = 5) -> None:
    """Type ``value`` into a text or number input and commit it with Enter, as a user would, typing again when a
    rerun redrew the field and dropped the edit (a number input that gets new props mid-typing shows the server's
    value again, and Enter starts no run: a full-suite run waited 180 s for it). Returns once the app is idle with
    the field showing ``value``; the caller waits for the content the new value changes."""
    started = """([n]) => window.__stRuns > n || document.querySelector('[data-testid="stApp"]')
                   .getAttribute('data-test-script-state') !== 'notRunning'"""
    for _ in range(tries):
        wait_idle(page)
        before = finished_runs(page)
        box.fill(value)
        box.press("Enter")
        try:  # the run the Enter starts (a quick run may come and go unseen; the field check below decides)
            page.wait_for_function(started, arg=[before], timeout=5_000)
        except Exception:
            pass
        wait_idle(page)
        if _same_entry(box.input_value(), value):
            return
    raise AssertionError(f"the field did not keep {value!r}")


def edit_first_row_cell(page, grid, columns_right: int, value: str, *, x_offset: int = 40,
                        in_form: bool = False) -> None:
    """Edit a cell of the first data row of an ``st.data_editor`` grid (a canvas): click the row's first
    cell, move right with the keyboard, open the editor with Enter, type and commit, as a user would, clicking
    again if a rerun swallowed the first click. Outside a form the edit reruns the script: wait for that run to
    finish (the app's own signal, not a fixed time); inside a form wait for the cell editor to close."""
    from playwright.sync_api import expect

    cell = page.locator("input.gdg-input, textarea.gdg-input").first
    for attempt in range(5):
        wait_idle(page)
        box = grid.bounding_box()
        page.mouse.click(box["x"] + x_offset, box["y"] + 35 + 17)  # header 35 px, rows 35 px: row 1's middle
        for _ in range(columns_right):
            page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
        try:
            expect(cell).to_be_visible(timeout=5_000)
            break
        except AssertionError:
            if attempt == 4:
                raise
            page.keyboard.press("Escape")
    before = finished_runs(page)
    cell.fill(value)
    cell.press("Enter")
    expect(cell).to_have_count(0, timeout=RERUN_LIMIT_MS)
    if not in_form:
        wait_for_rerun(page, before)


def step_slider_to(page, slider, target: float, *, tries: int = 60) -> None:
    """Move a slider to ``target`` with the arrow keys, re-focusing it whenever a rerun took the focus away
    (as a user clicks again); pressing a fixed number of keys lost presses when a rerun landed mid-way."""
    for _ in range(tries):
        value = float(slider.input_value())
        if abs(value - target) < 1e-9:
            return
        slider.focus()
        page.keyboard.press("ArrowLeft" if value > target else "ArrowRight")
        page.wait_for_timeout(50)


def visit_tco_then_workload(page, *, utilisation_pct: int, gpus: int) -> None:
    """From any page: open Rent or own (TCO) and Workload cost through the navigation and wait for both to
    show the given inputs."""
    page.get_by_role("link", name="Rent or own (TCO)").click()
    expect(page.get_by_text(re.compile(rf"^Over \d+ (years|months) at {utilisation_pct}% utilisation, "))).to_be_visible(
        timeout=60_000)
    page.get_by_role("link", name="Workload cost").click()
    expect(page.get_by_label("GPUs", exact=True)).to_have_value(str(gpus), timeout=60_000)


def pdf_page_text(data: bytes, *, pages: list[int] | None = None, dpi: int = 150) -> dict[int, str]:
    """What a reader sees on the PDF's pages: each page rendered to PNG by poppler's pdftoppm and read back by
    tesseract OCR (not the PDF's text layer). ``pages`` are 1-based; default all. Needs poppler-utils and
    tesseract-ocr (``make test`` and ``.ci/run`` install them)."""
    import tempfile

    for tool in ("pdftoppm", "tesseract"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is required to check the PDF report: run `make test` (it installs poppler-utils and "
                        "tesseract-ocr) or apt-get install poppler-utils tesseract-ocr")
    with tempfile.TemporaryDirectory() as tmp:
        pdf = Path(tmp) / "report.pdf"
        pdf.write_bytes(data)
        out: dict[int, str] = {}
        for number in pages or range(1, _pdf_pages(pdf) + 1):
            png = Path(tmp) / f"page-{number}"
            subprocess.run(["pdftoppm", "-png", "-r", str(dpi), "-f", str(number), "-l", str(number), "-singlefile",
                            str(pdf), str(png)], check=True, capture_output=True, timeout=60)
            text = subprocess.run(["tesseract", f"{png}.png", "-", "--psm", "3"], check=True, capture_output=True,
                                  timeout=120).stdout.decode()
            out[number] = text
        return out


def _pdf_pages(pdf: Path) -> int:
    from pypdf import PdfReader

    return len(PdfReader(str(pdf)).pages)


def pdf_pages_with(data: bytes, phrases: list[str]) -> dict[str, int]:
    """The first page (1-based) whose text layer holds each phrase: tells which pages to render and read."""
    import io

    from pypdf import PdfReader

    texts = [" ".join((p.extract_text() or "").split()) for p in PdfReader(io.BytesIO(data)).pages]
    return {phrase: next((i + 1 for i, t in enumerate(texts) if phrase in t), 0) for phrase in phrases}
