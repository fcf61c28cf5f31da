"""Shared fixtures: every test gets a fresh catalog built from catalog/seed/, and clean Streamlit caches."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from catalog.store import CATALOG_ENV, CatalogStore, build_catalog

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def seed_catalog_file(tmp_path_factory) -> Path:
    """One catalog built from the seed per test session (building takes about a second)."""
    path = tmp_path_factory.mktemp("seed") / "catalog.duckdb"
    build_catalog(path)
    return path


@pytest.fixture
def catalog_path(seed_catalog_file: Path, tmp_path: Path, monkeypatch) -> Path:
    """A private copy of the seed catalog, also set as the app's catalog via the environment."""
    path = tmp_path / "catalog.duckdb"
    shutil.copyfile(seed_catalog_file, path)
    monkeypatch.setenv(CATALOG_ENV, str(path))
    return path


@pytest.fixture
def store(catalog_path: Path):
    with CatalogStore(catalog_path) as s:
        yield s


@pytest.fixture(autouse=True)
def _clear_streamlit_caches():
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_resource.clear()


from tests.pg_fixtures import pg_server, pg_url  # noqa: E402,F401 (PostgreSQL fixtures for the store suite)
