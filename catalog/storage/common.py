"""What every catalog backend shares: constants, the table map, row helpers, and the base class.

The store is split by concept (issue #20): :mod:`catalog.storage.duck` (the embedded DuckDB file: connection,
schema, migrations, build), :mod:`catalog.storage.postgres` (the shared PostgreSQL backend, issue #21),
:mod:`catalog.storage.queries` (reads), :mod:`catalog.storage.changes` (change sets, restore, history) and
:mod:`catalog.storage.workshop` (workspaces, scenarios, votes). :class:`StoreBase` names the few hooks a
backend provides; everything above it is written once.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, overload

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from catalog.errors import ReadOnlyCatalogError
from catalog.models import as_of_lower_bound
from catalog.rules import Finding

#: 2: no SQL foreign keys between catalog tables (the store checks references), region_countries,
#: offers.instance_type/last_seen, prices.last_seen/last_seen_source_url, prices > 0. A version-1 file is
#: rebuilt on its first writable open (:func:`_migrate`), after a backup copy next to it.
#: 3: providers.parent_company (+ source URL, date) and the certification_scopes table (issue #18); a
#: version-2 file is rebuilt the same way (new columns empty, the new table from the seed).
#: 4: offers.is_dedicated_hardware (+ dedicated_source_url, dedicated_as_of), issue #29; a version-3 file is rebuilt
#: the same way, with the seed's sourced values for the offers it knows.
SCHEMA_VERSION = 4
SCHEMA_SQL = Path(__file__).resolve().parent.parent / "schema.sql"
REPO_ROOT = Path(__file__).resolve().parent.parent.parent
#: Environment variable that overrides the catalog location.
CATALOG_ENV = "GPU_ADVISOR_CATALOG"
DEFAULT_CATALOG_PATH = REPO_ROOT / "data" / "catalog.duckdb"
#: Rows whose ``as_of`` lies more than this many days back are flagged "stale" (issue: 180 days).
STALE_AFTER_DAYS = 180
#: A row verified (or benchmarked) longer ago than this is shown "verified on DATE, not re-checked" and
#: no longer counts as current (issue #16: verification expires; a monthly refresh re-checks prices).
VERIFIED_FRESH_DAYS = 90
#: Marker used in filters for "the source did not state this value".
NOT_STATED = "not stated"
#: Environment variable that selects the shared PostgreSQL backend (``postgresql://…``, issue #21); unset means
#: the embedded DuckDB file (``make run``).
DATABASE_URL_ENV = "GPU_ADVISOR_DATABASE_URL"

#: Table -> its columns in the order the schema declares them (what every write and seed load lists).
TABLE_COLUMNS = {
    "gpu_models": ["gpu_model", "architecture", "vendor"],
    "gpu_aliases": ["alias", "gpu_model", "form_factor"],
    "gpu_specs": [
        "gpu_spec_id", "gpu_model", "form_factor", "memory_gb", "memory_type", "memory_bandwidth_tbps",
        "fp16_dense_tflops", "bf16_dense_tflops", "fp8_dense_tflops", "tdp_watts",
        "nvlink_bandwidth_gb_per_s_bidirectional", "mig_max_instances", "source_url", "as_of",
        "verification_status", "notes",
    ],
    "providers": [
        "provider_id", "name", "hq_country", "legal_seat_country", "parent_jurisdiction",
        "eu_data_residency", "eu_regions", "certifications", "uptime_sla_pct", "performance_sla",
        "support_model", "min_commitment", "burst_capacity", "source_url", "extra_source_urls", "as_of",
        "as_of_date", "verification_status", "notes", "parent_company", "parent_company_source_url",
        "parent_company_as_of",
    ],
    "provider_facts": [
        "fact_id", "provider_id", "field", "value", "source_url", "as_of", "as_of_date", "verification_status",
        "notes",
    ],
    "offers": [
        "offer_id", "provider_id", "gpu_model", "gpu_spec_id", "form_factor", "gpus_per_node", "memory_gb",
        "memory_type", "intra_node", "inter_node", "inter_node_bandwidth_gbps_per_gpu",
        "inter_node_source_url", "inter_node_as_of", "mig_supported", "region", "datacenter_country",
        "source_url", "as_of", "as_of_date", "verification_status", "notes", "instance_type", "last_seen",
        "is_dedicated_hardware", "dedicated_source_url", "dedicated_as_of",
    ],
    "prices": [
        "price_id", "offer_id", "price_type", "term_months", "upfront_pct", "amount_per_gpu_hour",
        "currency", "valid_from", "valid_to", "source_url", "retrieved_at", "method",
        "verification_status", "notes", "is_private", "expires_on", "last_seen", "last_seen_source_url",
    ],
    "region_countries": [
        "region_key", "provider_id", "region", "datacenter_country", "source_url", "as_of", "as_of_date",
        "verification_status", "notes",
    ],
    "certification_scopes": [
        "scope_id", "provider_id", "certification", "covers_gpu_compute", "scope_services", "scope_countries",
        "source_url", "as_of", "as_of_date", "verification_status", "notes",
    ],
}
#: Columns the store derives or maintains itself; never part of an edit or of a row's content.
META_COLUMNS = ("as_of_date", "row_version", "updated_by")


class OfferFilter(BaseModel):
    """What the Providers page (and others) narrow the offer list by. ``None`` means "any".

    List filters on optional columns accept :data:`NOT_STATED` to keep rows the source left empty.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    gpu_models: tuple[str, ...] | None = None
    form_factors: tuple[str, ...] | None = None
    intra_nodes: tuple[str, ...] | None = None
    inter_nodes: tuple[str, ...] | None = None
    memory_types: tuple[str, ...] | None = None
    eu_datacenter_only: bool = False
    jurisdictions: tuple[str, ...] | None = None
    price_types: tuple[str, ...] | None = None
    max_price_eur_per_gpu_hour: float | None = Field(default=None, ge=0)
    provider_ids: tuple[str, ...] | None = None


def resolve_catalog_path(path: str | os.PathLike | None = None) -> Path:
    """The catalog path: the argument, else ``$GPU_ADVISOR_CATALOG``, else ``data/catalog.duckdb``."""
    if path is not None:
        return Path(path)
    env = os.environ.get(CATALOG_ENV)
    return Path(env) if env else DEFAULT_CATALOG_PATH


def resolve_catalog_location(path: str | os.PathLike | None = None) -> str:
    """Where the app's catalog lives: ``$GPU_ADVISOR_DATABASE_URL`` when set (and no path is given), else the
    DuckDB file of :func:`resolve_catalog_path`."""
    url = os.environ.get(DATABASE_URL_ENV, "").strip()
    if path is None and url:
        return url
    return str(resolve_catalog_path(path))


def db_values(row: dict) -> dict:
    """Model values as stored: lists become ';'-separated text (DuckDB cannot update LIST columns of a
    row that a foreign key references)."""
    return {k: ";".join(v) if isinstance(v, list) else v for k, v in row.items()}


def rows_frame(rows: list[BaseModel], table: str) -> pd.DataFrame:
    """Model rows of ``table`` as a frame of its columns, as the store writes them (the seed load)."""
    records = []
    for r in rows:
        d = db_values(r.model_dump(mode="python"))
        if "as_of" in TABLE_COLUMNS[table] and "as_of_date" in TABLE_COLUMNS[table]:
            d["as_of_date"] = as_of_lower_bound(d["as_of"])
        records.append(d)
    return pd.DataFrame.from_records(records, columns=TABLE_COLUMNS[table])



@dataclass
class ApplyResult:
    change_set_id: int
    rows: int
    warnings: list[Finding] = field(default_factory=list)


def jsonable(value):
    """``value`` as JSON can hold it: dates as ISO text, arrays as lists."""
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


@overload
def row_content(row: dict) -> dict: ...
@overload
def row_content(row: None) -> None: ...
def row_content(row: dict | None) -> dict | None:
    """A row's own values (JSON-ready, without the columns the store maintains): what the change log records."""
    if row is None:
        return None
    return {k: jsonable(v) for k, v in row.items() if k not in META_COLUMNS}



def stored_row(row: dict, table: str) -> dict:
    """A validated row as the store writes it (lists joined, as_of_date derived)."""
    values = db_values(row)
    if "as_of_date" in TABLE_COLUMNS[table]:
        values["as_of_date"] = as_of_lower_bound(values["as_of"])
    return values


F = TypeVar("F", bound=Callable[..., Any])


def store_write(method: F) -> F:
    """Decorator of a store method that writes: refuses with ReadOnlyCatalogError on a read-only store."""
    def wrapper(self: StoreBase, *args: Any, **kwargs: Any) -> Any:
        if self.read_only:
            raise ReadOnlyCatalogError(
                f"The catalog {self.location} is open read-only (the file is not writable); nothing was saved."
            )
        return method(self, *args, **kwargs)

    wrapper.__doc__ = method.__doc__
    wrapper.__name__ = method.__name__
    return wrapper  # type: ignore[return-value]


class StoreBase:
    """The hooks a backend provides. Cursors follow the DB-API shape with ``?`` placeholders
    (``execute`` returns the cursor, ``fetchone``/``fetchall``/``description``, ``df()``)."""

    read_only: bool = False
    #: Where the catalog lives, for messages and cache keys (a file path, or a URL without its password).
    location: str = ""
    #: Exceptions of the driver: a constraint refused a row / any database error.
    _constraint_errors: tuple[type[BaseException], ...] = ()
    _db_errors: tuple[type[BaseException], ...] = ()

    def cursor(self) -> Any:
        """A cursor on the backend itself (writes, workshop data)."""
        raise NotImplementedError

    def _read_cursor(self) -> Any:
        """A DuckDB cursor on the current catalog content (the reads are DuckDB SQL on every backend)."""
        raise NotImplementedError

    def _write_cursor(self) -> AbstractContextManager[Any]:
        """One writer at a time (per process for DuckDB, across replicas for PostgreSQL) and its cursor."""
        raise NotImplementedError

    def meta(self) -> dict[str, str]:
        raise NotImplementedError

    def _has_table(self, table: str) -> bool:
        raise NotImplementedError

    @property
    def data_version(self) -> int:
        """Grows with every committed write; read caches key on it."""
        return int(self.meta().get("data_version", "0"))

    # Set-wise writes inside an open transaction of ``cur`` (a cursor of :meth:`_write_cursor`).
    def _fetch_written(self, cur: Any, table: str, keys: list[str]) -> dict[str, dict]:
        raise NotImplementedError

    def _delete_keys(self, cur: Any, table: str, keys: list[str]) -> None:
        raise NotImplementedError

    def _insert_records(self, cur: Any, table: str, columns: list[str], records: list[dict]) -> None:
        raise NotImplementedError

    def _update_records(self, cur: Any, table: str, changed: tuple[str, ...], records: list[dict],
                        editor: str) -> None:
        raise NotImplementedError

    def _insert_log(self, cur: Any, entries: list[dict]) -> None:
        raise NotImplementedError


def iter_rows(cur: Any) -> Iterator[dict]:
    names = [d[0] for d in cur.description]
    for r in cur.fetchall():
        yield dict(zip(names, r, strict=True))

