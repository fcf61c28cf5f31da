"""The catalog store: the only place that speaks SQL to the catalog. Every query is parameterised.

This module is the public face; the code lives in :mod:`catalog.storage` (connection and schema, queries,
changes, workshop persistence; a DuckDB and a PostgreSQL backend behind one interface). ``CatalogStore`` is
the embedded DuckDB backend (``make run``); :func:`open_catalog` and :func:`open_catalog_for_app` pick the
backend from the location: a ``postgresql://`` URL (``$GPU_ADVISOR_DATABASE_URL``) or a file path.
"""

from __future__ import annotations

import os  # noqa: F401 (tests patch catalog.store.os.access)

from catalog.storage.common import (
    _META_COLUMNS,
    _TABLE_COLUMNS,
    _TABLE_ORDER,
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
    _content,
    _stored,
    resolve_catalog_location,
    resolve_catalog_path,
)
from catalog.storage.duck import CatalogStore, build_catalog
from catalog.storage.ducksql import _arrow, _column_types, _fetch_rows, _registered
from catalog.storage.workshop import (
    GROUP_CODE_BYTES,
    MAX_PARTICIPANT_NAME,
    MAX_PARTICIPANTS,
    MAX_SCENARIO_JSON_CHARS,
    MAX_SCENARIOS_PER_WORKSPACE,
    MAX_WORKSHOP_TEXT,
    WORKSPACE_TOKEN_BYTES,
    workspace_id,
)

__all__ = [
    "CATALOG_ENV", "DATABASE_URL_ENV", "DEFAULT_CATALOG_PATH", "GROUP_CODE_BYTES", "MAX_PARTICIPANTS",
    "MAX_PARTICIPANT_NAME", "MAX_SCENARIOS_PER_WORKSPACE", "MAX_SCENARIO_JSON_CHARS", "MAX_WORKSHOP_TEXT",
    "NOT_STATED", "REPO_ROOT", "SCHEMA_SQL", "SCHEMA_VERSION", "STALE_AFTER_DAYS", "VERIFIED_FRESH_DAYS",
    "WORKSPACE_TOKEN_BYTES", "ApplyResult", "CatalogStore", "OfferFilter", "build_catalog",
    "resolve_catalog_location", "resolve_catalog_path", "workspace_id",
    "_META_COLUMNS", "_TABLE_COLUMNS", "_TABLE_ORDER", "_arrow", "_column_types", "_content", "_fetch_rows",
    "_registered", "_stored",
]
