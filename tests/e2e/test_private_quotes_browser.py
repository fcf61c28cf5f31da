"""Issue #15 item 1 in Debian Chromium against `streamlit run`: an editor signs in and opens the pages that show
the private negotiated quote; then an anonymous visitor (another browser context, another session) opens every
page, the editor's tabs and both catalog downloads, and nowhere finds the quote, its id or the editor's e-mail
address. (The AppTest sweep in tests/security/test_private_quotes.py covers every download and change set.)"""

from __future__ import annotations

import io
import json
import re
import shutil
import zipfile
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from catalog.store import CatalogStore
from tests.e2e.conftest import RERUN_LIMIT_MS, start_server, wait_idle
from tests.security.conftest import (
    EDITOR_EMAIL,
    HASH,
    PASSWORD,
    QUOTE_AMOUNT,
    QUOTE_ID,
    QUOTE_NOTE,
    add_private_quote,
)
from tests.security.test_private_prices_artefacts import _link_json
from tests.security.test_private_quotes import AMOUNT_SHOWN

PAGES = {"": "GPU Cloud Advisor", "providers": "Providers & offers", "tco": "Rent or own",
         "workload": "Workload cost", "scoring": "Provider scoring", "placement": "Hybrid placement",
         "workshop": "Workshop", "editor": "Catalog editor"}


@pytest.fixture(scope="module")
def quote_app(seed_catalog_file, tmp_path_factory):
    work = tmp_path_factory.mktemp("private-quote")
    catalog = work / "catalog.duckdb"
    shutil.copyfile(seed_catalog_file, catalog)
    with CatalogStore(catalog) as s:
        add_private_quote(s)
    secrets = work / "secrets.toml"
    secrets.write_text(f'[local_users.alice]\npassword_hash = "{HASH}"\nrole = "editor"\n')
    proc, url = start_server(catalog, work / "streamlit.log", secrets=secrets)
    yield url
    proc.terminate()
    proc.wait(timeout=10)


def _open(page: Page, url: str, path: str) -> str:
    """Open a page through the navigation (one session), wait for its run to finish, return what it shows:
    the document (text, the grids' accessible cells, chart SVG text)."""
    if path == "":
        page.get_by_role("link", name="Home").first.click()
    else:
        page.locator(f'[data-testid="stSidebarNav"] a[href$="/{path}"]').first.click()
    expect(page.get_by_role("heading", name=PAGES[path]).first).to_be_visible(timeout=60_000)
    expect(page.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0, timeout=60_000)
    page.wait_for_timeout(1500)  # charts and grids draw after the run
    return page.content()


def _sign_in(page: Page, url: str) -> None:
    page.goto(f"{url}/editor")
    expect(page.get_by_role("heading", name="Catalog editor")).to_be_visible(timeout=60_000)
    page.get_by_label("User name").fill("alice")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_text("Signed in as alice (editor)")).to_be_visible(timeout=30_000)


def _include_private_prices(page: Page) -> None:
    """The editor's explicit choice (issue #28.2): without it an editor's pages use public prices too."""
    page.get_by_text("Include private prices in this scenario and its exports").click()
    expect(page.get_by_text("Private prices are in use")).to_be_visible(timeout=30_000)


def _leaks(text: str) -> list[str]:
    found = [needle for needle in (QUOTE_ID, QUOTE_NOTE, EDITOR_EMAIL) if needle in text]
    return found + [m.group(0) for m in AMOUNT_SHOWN.finditer(text)]


def test_anonymous_visitor_after_an_editor_sees_no_private_quote(page: Page, browser, quote_app):
    url = quote_app
    page.goto(f"{url}/editor")
    expect(page.get_by_role("heading", name="Catalog editor")).to_be_visible(timeout=60_000)
    page.get_by_label("User name").fill("alice")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_text("Signed in as alice (editor)")).to_be_visible(timeout=30_000)
    _include_private_prices(page)
    # The control: the editor's placement plan bursts on the private quote, so the check below can see a leak.
    _open(page, url, "placement")
    # The plan's reasons draw after the run; wait for them rather than for a fixed time (issue #32 item 9).
    expect(page.get_by_text(re.compile(r"0\.42 EUR/GPU-h")).first).to_be_attached(timeout=120_000)
    editor_saw = page.content() + _open(page, url, "providers") + _open(page, url, "scoring")
    assert "0.42 EUR/GPU-h" in editor_saw
    _open(page, url, "workload")

    anonymous = browser.new_context(viewport={"width": 1600, "height": 1000}, accept_downloads=True)
    try:
        visitor = anonymous.new_page()
        visitor.goto(f"{url}/")
        expect(visitor.get_by_role("heading", name="GPU Cloud Advisor")).to_be_visible(timeout=60_000)
        seen = {path or "home": _open(visitor, url, path) for path in PAGES}
        for tab in ("History", "Needs re-verification", "Import / export"):
            visitor.get_by_role("tab", name=tab).click()
            visitor.wait_for_timeout(1500)
            seen[f"editor {tab}"] = visitor.content()
        for button in ("Download table (CSV)", "Download whole catalog (Excel)"):
            # The file is built on click (issue #31). A click that lands while a rerun redraws the page is lost (seen
            # in the full suite: no download event in 180 s): wait for the app to be idle, and click again if nothing
            # starts; the download event is the app's own signal (issue #32 item 9).
            for attempt in range(3):
                wait_idle(visitor)
                try:
                    with visitor.expect_download(timeout=RERUN_LIMIT_MS // 3) as download:
                        visitor.get_by_role("button", name=button).click()
                    break
                except PlaywrightTimeoutError:
                    if attempt == 2:
                        raise
            data = download.value.path().read_bytes()
            if data[:2] == b"PK":
                with zipfile.ZipFile(io.BytesIO(data)) as z:
                    data = b"\n".join(z.read(n) for n in z.namelist())
            seen[button] = data.decode("utf-8", "replace")
    finally:
        anonymous.close()
    leaks = {where: sorted(set(found)) for where, text in seen.items() if (found := _leaks(text))}
    assert not leaks, leaks
    assert seen["Download table (CSV)"].count("\n") > 300  # the public prices are there


def test_an_editors_share_link_shows_an_anonymous_viewer_no_private_amount(page: Page, browser, quote_app):
    """Issue #28.2: the editor includes private prices and picks the offer whose on-demand price is the quote on
    Rent or own; the share link (the address bar) opened by an anonymous visitor shows the public price and a
    notice, never the quote."""
    url = quote_app
    _sign_in(page, url)
    _include_private_prices(page)
    _open(page, url, "tco")
    page.get_by_label("On-demand price from a catalog offer").click(timeout=60_000)
    page.keyboard.type("Scaleway · H100 SXM · 8 GPUs · fr-par-2")
    page.keyboard.press("Enter")
    expect(page.get_by_text("private price, not for distribution").first).to_be_visible(timeout=60_000)
    page.wait_for_function("() => location.search.includes('s=')", timeout=30_000)
    expect(page.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0, timeout=60_000)
    page.wait_for_timeout(1500)  # the last run's address
    link = page.url
    carried = json.loads(_link_json(parse_qs(urlsplit(link).query)["s"][0]))
    # the control: the editor's link carries the quote, marked as a private price
    assert carried["tco"]["inputs"]["price_on_demand_eur_per_gpu_hour"] == QUOTE_AMOUNT, carried
    assert carried["private_prices"] and carried["tco"]["on_demand_price_private"]

    anonymous = browser.new_context(viewport={"width": 1600, "height": 1000})
    try:
        visitor = anonymous.new_page()
        visitor.goto(link)
        expect(visitor.get_by_role("heading", name="Rent or own")).to_be_visible(timeout=60_000)
        expect(visitor.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0, timeout=60_000)
        expect(visitor.get_by_text("They were left out: the public catalog price is used instead.")).to_be_visible(
            timeout=30_000)
        visitor.wait_for_function("() => !location.search.includes('" + parse_qs(urlsplit(link).query)["s"][0]
                                  + "')", timeout=30_000)  # the address now carries the viewer's scenario
        visitor.wait_for_timeout(1500)  # charts draw after the run
        opened = json.loads(_link_json(parse_qs(urlsplit(visitor.url).query)["s"][0]))
        assert opened["tco"]["inputs"]["price_on_demand_eur_per_gpu_hour"] == pytest.approx(3.16635, abs=1e-4)
        assert "private_prices" not in opened and "on_demand_price_private" not in opened["tco"]
        seen = {"tco": visitor.content(), "workshop": _open(visitor, url, "workshop")}
        expect(visitor.get_by_text("Include private prices in this scenario and its exports")).to_have_count(0)
    finally:
        anonymous.close()
    leaks = {where: sorted(set(found)) for where, text in seen.items() if (found := _leaks(text))}
    assert not leaks, leaks
    assert "0.4217" not in seen["workshop"]
