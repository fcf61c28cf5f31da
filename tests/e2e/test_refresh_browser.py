"""Monthly refresh in a real browser: an editor signs in, uploads the real Nebius vms.csv, sees the preview
(counts, diff, progress while it runs) and applies it; the catalog then holds the offers and a logged change set."""

import re
import shutil
import subprocess
from pathlib import Path

import bcrypt
import pytest
from playwright.sync_api import Page, expect

from catalog.store import CatalogStore
from tests.e2e.conftest import start_server

DATA = Path(__file__).resolve().parents[1] / "catalog" / "data"
pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def editor_app(seed_catalog_file, tmp_path_factory):
    work = tmp_path_factory.mktemp("refresh")
    catalog = work / "catalog.duckdb"
    shutil.copyfile(seed_catalog_file, catalog)
    secrets = work / "secrets.toml"
    digest = bcrypt.hashpw(b"s3cret", bcrypt.gensalt(rounds=4)).decode()
    secrets.write_text(f'[local_users.alice]\npassword_hash = "{digest}"\nrole = "editor"\n')
    proc, url = start_server(catalog, work / "streamlit.log", secrets=secrets)
    yield url, catalog
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def test_upload_preview_and_apply_a_nebius_refresh(page: Page, editor_app):
    url, catalog = editor_app
    page.goto(f"{url}/editor")
    expect(page.get_by_role("heading", name="Catalog editor")).to_be_visible(timeout=30_000)
    page.get_by_label("User name").fill("alice")
    page.get_by_label("Password", exact=True).fill("s3cret")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_text(re.compile(r"Signed in as alice"))).to_be_visible(timeout=20_000)
    page.get_by_role("tab", name="Import / export").click()
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(DATA / "skypilot_v8_nebius_vms.csv"))
    provider = page.get_by_label("Provider of this file")
    expect(provider).to_be_visible(timeout=20_000)
    provider.click()
    page.keyboard.type("nebius")
    page.keyboard.press("Enter")
    page.get_by_label("Where the file comes from (URL)").fill(
        "https://github.com/skypilot-org/skypilot-catalog/blob/0082b04/catalogs/v8/nebius/vms.csv")
    page.get_by_label("Where the file comes from (URL)").press("Enter")
    page.get_by_label("Date of the file (YYYY-MM-DD, or YYYY-MM)").fill("2026-11-01")
    page.get_by_label("Date of the file (YYYY-MM-DD, or YYYY-MM)").press("Enter")
    page.get_by_role("button", name="Preview the refresh").click()
    expect(page.get_by_test_id("stMetric").filter(has_text="New offers")).to_contain_text("18", timeout=30_000)
    page.screenshot(path=str(Path(catalog).parent / "refresh-preview.png"), full_page=True)
    page.get_by_role("button", name="Apply refresh").click()
    expect(page.get_by_text(re.compile(r"Refreshed as change set #1: \d+ row change"))).to_be_visible(timeout=30_000)
    # The server holds the file (DuckDB locks out other processes): check a copy of it and its WAL.
    copy = Path(catalog).with_name("check.duckdb")
    shutil.copyfile(catalog, copy)
    wal = Path(f"{catalog}.wal")
    if wal.exists():
        shutil.copyfile(wal, Path(f"{copy}.wal"))
    with CatalogStore(copy) as s:
        assert s.row("offers", "nebius-h100-gpu-h100-sxm-1gpu-16vcpu-200gb-eu-north1")["datacenter_country"] == "FI"
        assert s.change_sets().iloc[0]["kind"] == "import"
