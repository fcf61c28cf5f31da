"""End to end in Debian Chromium with a local OIDC provider: sign in, edit a price, save, and see the new
price on the Providers page and the change in History."""

import json
import re
import shutil
import subprocess
import sys

import pytest
from playwright.sync_api import Page, expect

from catalog.store import CatalogStore
from tests.e2e.conftest import (
    RERUN_LIMIT_MS,
    edit_first_row_cell,
    enter_value,
    finished_runs,
    free_port,
    start_server,
    wait_for_rerun,
    wait_http,
)


@pytest.fixture(scope="module")
def oidc_app(seed_catalog_file, tmp_path_factory):
    work = tmp_path_factory.mktemp("oidc")
    catalog = work / "catalog.duckdb"
    shutil.copyfile(seed_catalog_file, catalog)
    with CatalogStore(catalog) as s:
        first = s.editable_rows("prices").iloc[0]
    idp_port, app_port = free_port(), free_port()
    idp = subprocess.Popen(
        [sys.executable, "-m", "oidc_provider_mock", "--port", str(idp_port), "--user-claims",
         json.dumps({"sub": "alice", "email": "alice@example.com", "email_verified": True, "name": "Alice"})],
        stdout=(work / "idp.log").open("w"), stderr=subprocess.STDOUT)
    wait_http(f"http://127.0.0.1:{idp_port}/.well-known/openid-configuration", idp)
    secrets = work / "secrets.toml"
    secrets.write_text(f"""
[auth]
redirect_uri = "http://127.0.0.1:{app_port}/oauth2callback"
cookie_secret = "a-test-cookie-secret-of-32-bytes!"
client_id = "test-client"
client_secret = "test-secret"
server_metadata_url = "http://127.0.0.1:{idp_port}/.well-known/openid-configuration"

[editors]
emails = ["alice@example.com"]
""")
    proc, url = start_server(catalog, work / "streamlit.log", secrets=secrets, port=app_port)
    yield url, first
    for p in (proc, idp):
        p.terminate()
        p.wait(timeout=10)


def test_sign_in_edit_a_price_and_see_it_everywhere(page: Page, oidc_app):
    url, first = oidc_app
    page.goto(f"{url}/editor")
    expect(page.get_by_role("heading", name="Catalog editor")).to_be_visible(timeout=30_000)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"http://127\.0\.0\.1:\d+/(?!editor).*"), timeout=20_000)
    page.get_by_role("button", name=re.compile("alice")).first.click()
    page.wait_for_url(re.compile(rf"{re.escape(url)}/?$"), timeout=30_000)  # Streamlit lands on / after the callback
    page.goto(f"{url}/editor")
    expect(page.get_by_text("Signed in as alice@example.com (editor)")).to_be_visible(timeout=30_000)

    # Edit the amount of the first price row: click its first cell, move right to the amount column.
    grid = page.locator('[data-testid="stDataFrame"]').first
    expect(grid).to_be_visible(timeout=20_000)
    # price_id, offer_id, price_type, term_months, upfront_pct -> amount_per_gpu_hour: 5 columns right
    edit_first_row_cell(page, grid, 5, "0.01")
    # A new amount needs its own source and date (the old row's would vouch for a price they never stated).
    edit_first_row_cell(page, grid, 9, "https://example.com/e2e-price-check")
    edit_first_row_cell(page, grid, 10, "2026-12-01")
    message = page.get_by_label("What changed and why (saved in the history)").first
    before = finished_runs(page)
    message.fill("E2E: price check")
    message.press("Enter")
    wait_for_rerun(page, before)
    page.get_by_role("button", name="Save changes").first.click()
    # Polled from the click on: the confirmation shows in the save's run and a later rerun may replace it, so waiting
    # for the run to finish first can miss it; the limit is only a ceiling for a busy machine (issue #32 item 9).
    expect(page.get_by_text(re.compile(r"Saved change set #1"))).to_be_visible(timeout=RERUN_LIMIT_MS)

    page.get_by_role("link", name="Providers & offers").click()
    expect(page.get_by_role("heading", name="Providers & offers")).to_be_visible(timeout=20_000)
    page.get_by_role("button", name="Clear filters").first.click()  # the client brief narrows a first visit
    expect(page.get_by_text(re.compile(r"This page differs"))).to_be_visible(timeout=20_000)
    enter_value(page, page.get_by_label("Max price (€ per GPU-hour)", exact=True), "0.02")
    expect(page.get_by_text(re.compile(r"^1 offer from 1 provider\b"))).to_be_visible(timeout=RERUN_LIMIT_MS)

    page.get_by_role("link", name="Catalog editor").click()
    page.get_by_role("tab", name="History").click()
    # The history grid (canvas; its accessible cells carry the text) lists the change set with its message,
    # and the diff of that change set shows the old amount closed and the new one added.
    cells = page.locator('td[role="gridcell"]')
    expect(cells.filter(has_text="E2E: price check").first).to_be_attached(timeout=20_000)
    expect(cells.filter(has_text="alice@example.com").first).to_be_attached()
    expect(cells.filter(has_text=first["price_id"]).first).to_be_attached()
