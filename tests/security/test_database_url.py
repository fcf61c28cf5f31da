"""Issue #28.3: the database URL's password, user, host, port, name and query parameters never reach a page, a
message or an export; pages and exports say "the catalog database"."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from catalog.errors import CatalogUnavailableError
from catalog.storage.common import DATABASE_URL_ENV
from catalog.storage.postgres import PostgresCatalogStore, redact
from ui.exports import excel_workbook, header
from ui.scenario import Scenario

ROOT = Path(__file__).resolve().parents[2]
SECRET = "s3cr3t-pw-4411"
#: Nothing reachable listens on port 9 of 127.0.0.1: the connection is refused at once.
UNREACHABLE = [f"postgresql://advisor@127.0.0.1:9/catalog?password={SECRET}",
               f"postgresql://advisor:{SECRET}@127.0.0.1:9/catalog?sslmode=disable&application_name=x",
               f"postgres://127.0.0.1:9/catalog?user=advisor&password={SECRET}"]
#: Connection details a viewer must not see (the password, the user, the host, the port, the database name).
DETAILS = (SECRET, "advisor", "127.0.0.1", ":9", "sslmode", "application_name")


def _texts(at: AppTest) -> list[str]:
    return [e.value for e in [*at.error, *at.warning, *at.markdown, *at.caption, *at.info]]


@pytest.mark.parametrize("url", UNREACHABLE)
def test_redact_strips_credentials_and_query_parameters(url):
    shown = redact(url)
    assert SECRET not in shown and "advisor" not in shown and "?" not in shown, shown


@pytest.mark.parametrize("url", UNREACHABLE)
def test_the_unavailable_message_names_no_connection_detail(url):
    with pytest.raises(CatalogUnavailableError) as caught:
        PostgresCatalogStore(url)
    message = str(caught.value)
    assert "the catalog database" in message.lower()
    assert not [d for d in DETAILS if d in message], message


@pytest.mark.parametrize("url", UNREACHABLE)
def test_the_catalog_unavailable_banner_shows_no_connection_detail(url, monkeypatch):
    monkeypatch.setenv(DATABASE_URL_ENV, url)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    texts = _texts(at)
    assert any("Catalog unavailable" in t for t in texts), texts
    assert not [(d, t) for t in texts for d in DETAILS if d in t]


def _workbook_text(blob: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        return "\n".join(z.read(n).decode("utf-8", "replace") for n in z.namelist())


def test_workbook_headers_name_the_catalog_database_not_its_url(pg_url, monkeypatch):
    url = pg_url + ("&" if "?" in pg_url else "?") + f"application_name={SECRET}"
    monkeypatch.setenv(DATABASE_URL_ENV, url)
    store = PostgresCatalogStore(url)
    try:
        lines = dict(header(store, Scenario()))
        assert "the catalog database" in lines["Catalog version"], lines
        text = _workbook_text(excel_workbook(store, Scenario()))
    finally:
        store.close()
    host_and_db = url.split("@")[-1].split("?")[0]
    for detail in (SECRET, host_and_db, host_and_db.rsplit("/", 1)[-1], "application_name"):
        assert detail not in text and detail not in str(lines), detail
