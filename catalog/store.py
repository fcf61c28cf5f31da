"""The catalog store: the only place that speaks SQL to the catalog. Every query is parameterised.

This module is the public face; the code lives in :mod:`catalog.storage` (connection and schema, queries,
changes, workshop persistence; a DuckDB and a PostgreSQL backend behind one interface). ``CatalogStore`` is
the embedded DuckDB backend (``make run``); :func:`open_catalog` and :func:`open_catalog_for_app` pick the
backend from the location: a ``postgresql://`` URL (``$GPU_ADVISOR_DATABASE_URL``) or a file path.
"""

from __future__ import annotations

import os  # noqa: F401 (tests patch catalog.store.os.access)

from catalog.storage.common import (
    CATALOG_ENV,
    DATABASE_URL_ENV,
    DEFAULT_CATALOG_PATH,
    NOT_STATED,
    REPO_ROOT,
    SCHEMA_SQL,
    SCHEMA_VERSION,
    STALE_AFTER_DAYS,
    VERIFIED_FRESH_DAYS,
    ApplyResult,
    OfferFilter,
    resolve_catalog_location,
    resolve_catalog_path,
)
from catalog.storage.duck import CatalogStore, build_catalog
from catalog.storage.interface import CatalogBackend
from catalog.storage.workshop import (
    GROUP_CODE_BYTES,
    MAX_PARTICIPANT_NAME,
    MAX_PARTICIPANTS,
    MAX_SCENARIO_JSON_CHARS,
    MAX_SCENARIOS_PER_WORKSPACE,
    MAX_WORKSHOP_TEXT,
    MAX_WORKSPACE_JSON_CHARS,
    WORKSPACE_TOKEN_BYTES,
    workspace_id,
)


def is_database_url(location: str) -> bool:
    return location.startswith(("postgresql://", "postgres://"))


def open_catalog(location: str | None = None) -> CatalogBackend:
    """Open (building from the seed when missing) the catalog at ``location``: a ``postgresql://`` URL, a file
    path, or, when None, ``$GPU_ADVISOR_DATABASE_URL`` else the DuckDB file (:func:`resolve_catalog_location`)."""
    location = location or resolve_catalog_location()
    if is_database_url(location):
        from catalog.storage.postgres import PostgresCatalogStore

        return PostgresCatalogStore.open_or_build(location)
    return CatalogStore.open_or_build(location)


def open_catalog_for_app(location: str | None = None) -> tuple[CatalogBackend, str | None]:
    """The app's store and a notice for the user (None when all is normal). A file degrades to read-only where
    it can (:meth:`CatalogStore.open_for_app`); a database that cannot be reached raises
    :class:`~catalog.errors.CatalogUnavailableError` (the UI says so and retries)."""
    location = location or resolve_catalog_location()
    if is_database_url(location):
        return open_catalog(location), None
    return CatalogStore.open_for_app(location)


__all__ = [
    "CatalogBackend", "is_database_url", "open_catalog", "open_catalog_for_app",
    "CATALOG_ENV", "DATABASE_URL_ENV", "DEFAULT_CATALOG_PATH", "GROUP_CODE_BYTES", "MAX_PARTICIPANTS",
    "MAX_PARTICIPANT_NAME", "MAX_SCENARIOS_PER_WORKSPACE", "MAX_SCENARIO_JSON_CHARS", "MAX_WORKSHOP_TEXT",
    "MAX_WORKSPACE_JSON_CHARS",
    "NOT_STATED", "REPO_ROOT", "SCHEMA_SQL", "SCHEMA_VERSION", "STALE_AFTER_DAYS", "VERIFIED_FRESH_DAYS",
    "WORKSPACE_TOKEN_BYTES", "ApplyResult", "CatalogStore", "OfferFilter", "build_catalog",
    "resolve_catalog_location", "resolve_catalog_path", "workspace_id",
]
