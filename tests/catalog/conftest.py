"""The store suite runs on both backends (issue #21): every test that takes ``store`` runs once on the embedded
DuckDB file and once on a PostgreSQL database seeded the same way. Tests of the file itself (locks, damaged
files, schema upgrades of old files) take ``catalog_path`` and stay DuckDB-only."""

from __future__ import annotations

import pytest

from catalog.store import CatalogStore


@pytest.fixture(params=["duckdb", "postgresql"])
def store(request, catalog_path):
    if request.param == "duckdb":
        with CatalogStore(catalog_path) as s:
            yield s
        return
    from catalog.storage.postgres import PostgresCatalogStore

    with PostgresCatalogStore(request.getfixturevalue("pg_url")) as s:
        yield s
