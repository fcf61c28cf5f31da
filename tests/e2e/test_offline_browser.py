"""In Debian Chromium (issue #27.16): the product loads nothing from outside the server (a client office that
blocks other hosts sees the same app) and shows no developer toolbar (no Deploy button, no developer menu)."""

import re
from urllib.parse import urlsplit

from playwright.sync_api import Page, expect

PAGES = [("", "GPU Cloud Advisor"), ("providers", "Providers & offers"), ("tco", "Rent or own"),
         ("workload", "Workload cost"), ("scoring", "Provider scoring"), ("placement", "Hybrid placement"),
         ("workshop", "Workshop"), ("editor", "Catalog editor")]
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


def test_every_page_loads_only_from_the_server_and_hides_the_developer_toolbar(page: Page, app_url: str):
    outside: list[str] = []

    def record(request) -> None:
        parts = urlsplit(request.url)
        if parts.scheme in ("http", "https", "ws", "wss") and parts.hostname not in LOOPBACK:
            outside.append(request.url)

    page.on("request", record)
    for path, heading in PAGES:
        page.goto(f"{app_url}/{path}")
        expect(page.get_by_role("heading", name=re.compile(heading)).first).to_be_visible(timeout=60_000)
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(1_500)  # icons and fonts requested after the first paint
        expect(page.locator('[data-testid="stAppDeployButton"]')).to_have_count(0)
        expect(page.locator('[data-testid="stSpinner"]')).to_have_count(0, timeout=60_000)
    assert not outside, outside
    # the viewer's menu keeps what a viewer needs (print, settings); the developer's items are gone
    page.locator('[data-testid="stMainMenu"]').click()
    menu = page.locator('[data-testid="stMainMenuPopover"]')
    expect(menu).to_be_visible(timeout=10_000)
    expect(menu).not_to_contain_text("Clear cache")
    expect(menu).not_to_contain_text("Deploy")
