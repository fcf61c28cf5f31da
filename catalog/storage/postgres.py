"""The shared backend: one PostgreSQL database for several app replicas (issue #21), via psycopg 3.

Selected by ``GPU_ADVISOR_DATABASE_URL=postgresql://…`` (see :func:`catalog.store.open_catalog`). The schema is
``schema.sql`` with its two dialect differences translated explicitly (:func:`pg_schema_sql`); the version
lives in ``catalog_meta`` as in the DuckDB file and upgrades are the steps of :data:`PG_MIGRATIONS`.

* **Writes** (change sets, restore, workshop data) run on PostgreSQL in one transaction each, parameterised,
  under a session advisory lock: one writer at a time across every replica, as the process lock does for
  the DuckDB file. Row versions are checked inside the transaction exactly as for DuckDB.
* **Reads** of catalog data are the same DuckDB SQL as the embedded backend, run on an in-memory DuckDB
  snapshot of the catalog tables (taken in one REPEATABLE READ transaction, with the ``data_version`` it
  holds). Every read first asks PostgreSQL for the current ``data_version`` (one indexed row) and rebuilds the
  snapshot when it moved, so a replica never answers from a catalog older than the last commit it can see:
  cache coherence across replicas is bounded by one round trip, and the UI's caches key on the same number.
  The reads stay in DuckDB because the offer query uses DuckDB's list functions and the pages depend on its
  DataFrame types (issue #21 allows it: "analytics-heavy reads can stay in DuckDB over a snapshot").
* Workshop reads (workspaces, scenarios, votes) go to PostgreSQL directly: they are not versioned.

Connections come from one small :class:`psycopg_pool.ConnectionPool` per store (one store per replica process):
each is checked on checkout (``check``), so a connection that died with a PostgreSQL restart is replaced before
a statement runs on it; a lost connection the pool cannot replace raises
:class:`~catalog.errors.CatalogUnavailableError` after :data:`catalog.storage.pgconn.POOL_WAIT_S`, and the next call gets a new one, so
the app recovers without a restart. Logs and errors name the database by :func:`redact` only.
"""

from __future__ import annotations

import collections
import datetime as dt
import logging
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from catalog.errors import CatalogError, CatalogUnavailableError, SchemaVersionError
from catalog.models import TABLE_KEYS, TABLE_ORDER, as_of_lower_bound
from catalog.seeding import SEED_DIR, load_seed
from catalog.storage.changes import ChangeVerbs
from catalog.storage.common import (
    SCHEMA_SQL,
    SCHEMA_VERSION,
    TABLE_COLUMNS,
    db_values,
)
from catalog.storage.ducksql import column_types
from catalog.storage.login_failures import count_failure, forget_failure
from catalog.storage.pgconn import DATABASE_LABEL, PgCursor, checkout, connect, open_pool, redact, unavailable
from catalog.storage.queries import Queries
from catalog.storage.quotes import QuoteVerbs
from catalog.storage.workshop import Workshop

#: Key of the advisory lock every writer holds (any constant; "GPUC" in ASCII).
WRITER_LOCK_KEY = 0x47505543
#: Catalog-data tables copied into the read snapshot (workshop tables are read from PostgreSQL directly).
SNAPSHOT_TABLES = ("catalog_meta", *TABLE_ORDER, "change_sets", "change_log")
_DUCK_CONFIG: dict[str, str | bool | int | float | list[str]] = {
    "autoinstall_known_extensions": False, "autoload_known_extensions": False}


def pg_schema_sql() -> str:
    """``schema.sql`` in PostgreSQL's dialect. The two differences, translated here and tested:

    * ``DOUBLE`` is ``DOUBLE PRECISION`` in PostgreSQL;
    * ``isfinite(x)`` exists for dates only in PostgreSQL: ``x < 'Infinity'`` excludes +inf and NaN (NaN sorts
      above every number there), and the column's ``x > 0`` excludes -inf, as ``isfinite`` does in DuckDB.
    Everything else (CHECK, PRIMARY KEY, UNIQUE, DEFAULT, ``IF NOT EXISTS``) is common SQL.
    """
    sql = SCHEMA_SQL.read_text()
    sql = re.sub(r"\bDOUBLE\b", "DOUBLE PRECISION", sql)
    sql, n = re.subn(r"isfinite\((\w+)\)", r"\1 < 'Infinity'::float8", sql)
    if n != 1:  # a new isfinite() in schema.sql must be looked at, not translated blindly
        raise AssertionError(f"schema.sql has {n} isfinite() checks; pg_schema_sql expects 1")
    return sql


#: Tables added to ``schema.sql`` without a schema version (workshop data and failed sign-ins, never read by catalog
#: queries), with their indexes.
ADDITIVE_TABLES_SQL = "\n".join(re.findall(r"CREATE TABLE IF NOT EXISTS (?:workspace_quotes|login_failures) \(.*?\n\);"
                                            r"|CREATE INDEX IF NOT EXISTS login_failures\w* ON [^;]*;", pg_schema_sql(), re.S))

#: Versioned migrations of a PostgreSQL catalog: version -> (what it does, SQL). Version 3 is the first schema
#: this backend knows (the DuckDB file's versions 1-2 predate it); a later version adds its step here, applied
#: in order on the first writable open, each in its own transaction with the version bump.
PG_MIGRATIONS: dict[int, tuple[str, str]] = {
    4: ("offers.is_dedicated_hardware with its source URL and date (issue #29); the seed's sourced values are "
        "filled in for the offers it knows (:func:`_fill_dedicated_from_seed`)",
        "ALTER TABLE offers ADD COLUMN IF NOT EXISTS is_dedicated_hardware BOOLEAN;\n"
        "ALTER TABLE offers ADD COLUMN IF NOT EXISTS dedicated_source_url VARCHAR;\n"
        "ALTER TABLE offers ADD COLUMN IF NOT EXISTS dedicated_as_of VARCHAR;"),
}


def _fill_dedicated_from_seed(conn: Any) -> None:
    """Version 4's data step (as the DuckDB file's upgrade does): the seed's sourced dedicated-hardware values for
    the offers it knows; every other offer stays NULL (not stated)."""
    rows = [[o.is_dedicated_hardware, o.dedicated_source_url, o.dedicated_as_of, o.offer_id]
            for o in load_seed().offers if o.is_dedicated_hardware is not None]
    if rows:
        with conn.cursor() as cur:
            cur.executemany("UPDATE offers SET is_dedicated_hardware = %s, dedicated_source_url = %s, "
                            "dedicated_as_of = %s WHERE offer_id = %s", rows)
    # the catalog's content changed: every replica's read snapshot is rebuilt on its next read
    conn.execute("UPDATE catalog_meta SET value = CAST(CAST(value AS BIGINT) + 1 AS VARCHAR) WHERE key = 'data_version'")


#: Python steps that follow a migration's SQL in the same transaction (data the SQL cannot state by itself).
PG_MIGRATION_FILLS: dict[int, Callable[[Any], None]] = {4: _fill_dedicated_from_seed}


_SNAPSHOT_ARROW = {"VARCHAR": "string", "DOUBLE": "float64", "INTEGER": "int64", "BIGINT": "int64",
                   "BOOLEAN": "bool_", "DATE": "date32"}


def _arrow_column(values: list, duck_type: str) -> Any:
    import pyarrow as pa

    if duck_type == "TIMESTAMP WITH TIME ZONE":
        return pa.array(values, type=pa.timestamp("us", tz="UTC"))
    return pa.array(values, type=getattr(pa, _SNAPSHOT_ARROW[duck_type])())


def build_postgres_catalog(url: str, seed_dir: Path = SEED_DIR) -> str:
    """Create the schema and load the seed into an empty database, in one transaction. Never overwrites: fails
    if the database already holds a catalog (several replicas may start at once: the advisory lock lets one
    build and the others find it built)."""
    seed = load_seed(seed_dir)
    conn = connect(url, autocommit=False)
    try:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", [WRITER_LOCK_KEY])
            if conn.execute("SELECT to_regclass('catalog_meta')").fetchone()[0] is not None:
                raise CatalogError(f"Refusing to build: {redact(url)} already holds a catalog (an existing catalog "
                                   "is never overwritten).")
            conn.execute(pg_schema_sql())
            now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
            with conn.cursor() as cur:
                cur.executemany("INSERT INTO catalog_meta VALUES (%s, %s)",
                                [["schema_version", str(SCHEMA_VERSION)], ["data_version", "1"], ["built_at", now],
                                 ["built_from", "seed"]])
                for table in TABLE_ORDER:
                    cols = TABLE_COLUMNS[table]
                    records = []
                    for r in getattr(seed, table):
                        d = db_values(r.model_dump(mode="python"))
                        if "as_of_date" in cols:
                            d["as_of_date"] = as_of_lower_bound(d["as_of"])
                        records.append([d.get(c) for c in cols])
                    if records:
                        cur.executemany(f"INSERT INTO {table} ({', '.join(cols)}) "
                                        f"VALUES ({', '.join(['%s'] * len(cols))})", records)
            conn.execute("INSERT INTO change_sets VALUES (0, now(), 'seed', 'seed', 'built from catalog/seed/')")
    finally:
        conn.close()
    return url


class PostgresCatalogStore(ChangeVerbs, Queries, Workshop, QuoteVerbs):
    """A catalog in a PostgreSQL database, shared by every replica. Thread-safe like :class:`CatalogStore`."""

    def __init__(self, url: str, *, read_only: bool = False):
        import psycopg

        self._constraint_errors = (psycopg.errors.IntegrityError,)
        self._db_errors = (psycopg.Error,)
        self.url = url
        #: What messages, pages and exports call it (never the URL or any part of it).
        self.location = DATABASE_LABEL
        #: Where the DuckDB backend has a file path (cache keys only): the redacted URL (host, port, database).
        self.path = Path(redact(url))
        self.read_only = read_only
        self._lock = threading.Lock()  # one writer per process; the advisory lock orders the processes
        self._snap_lock = threading.Lock()
        self._pool: Any = None
        self._snap: duckdb.DuckDBPyConnection | None = None
        self._snap_version: int | None = None
        #: The last replaced snapshots, kept referenced so a read still running on one is never cut off.
        self._retired: collections.deque[duckdb.DuckDBPyConnection] = collections.deque(maxlen=4)
        self._check_schema()
        self._pool = open_pool(url)  # after the check: an unreachable or foreign database fails at once

    # -- lifecycle -------------------------------------------------------------------------------------

    @classmethod
    def open_or_build(cls, url: str) -> PostgresCatalogStore:
        """Open the catalog in this database, loading the seed first when the database is empty."""
        conn = connect(url)
        try:
            empty = conn.execute("SELECT to_regclass('catalog_meta')").fetchone()[0] is None
        finally:
            conn.close()
        if empty:
            try:
                build_postgres_catalog(url)
            except CatalogUnavailableError:
                raise
            except CatalogError:
                pass  # another replica built it meanwhile
        return cls(url)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
        if self._snap is not None:
            self._snap.close()
            self._snap = None

    def __enter__(self) -> PostgresCatalogStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_schema(self) -> None:
        """The schema version, checked (and migrated, when writable) on one connection outside the pool."""
        conn = connect(self.url)
        try:
            self._check_schema_on(conn)
        finally:
            conn.close()

    def _check_schema_on(self, conn: Any) -> None:
        if conn.execute("SELECT to_regclass('catalog_meta')").fetchone()[0] is None:
            raise SchemaVersionError("The catalog database holds no GPU Cloud Advisor catalog (no catalog_meta table). "
                                     "Nothing was changed. Fix: open it with open_or_build (loads the seed) or run "
                                     "`make cluster`, which seeds it.")
        row = conn.execute("SELECT value FROM catalog_meta WHERE key = 'schema_version'").fetchone()
        found = int(row[0]) if row else 0
        if found < SCHEMA_VERSION and not self.read_only and all(v in PG_MIGRATIONS
                                                                 for v in range(found + 1, SCHEMA_VERSION + 1)):
            self._migrate(conn, found)
            self._add_missing_tables(conn)
            return
        if found != SCHEMA_VERSION:
            raise SchemaVersionError(
                f"The catalog database has catalog schema version {found}; this app reads version {SCHEMA_VERSION}. "
                "Nothing was changed. Fix: run the app version that wrote it, or point GPU_ADVISOR_DATABASE_URL at "
                "another database.")
        self._add_missing_tables(conn)

    def _add_missing_tables(self, conn: Any) -> None:
        """Workshop tables added without a schema version (only ``CREATE TABLE IF NOT EXISTS``, additive): a database
        built before them gets them on its first writable open, as the DuckDB file does."""
        if not self.read_only:
            conn.execute(ADDITIVE_TABLES_SQL)

    def _migrate(self, conn: Any, found: int) -> None:
        """Apply :data:`PG_MIGRATIONS` after ``found`` in order, each step and its version bump atomically."""
        for version in range(found + 1, SCHEMA_VERSION + 1):
            _, sql = PG_MIGRATIONS[version]
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", [WRITER_LOCK_KEY])
                if int(conn.execute("SELECT value FROM catalog_meta WHERE key = 'schema_version'").fetchone()[0]) \
                        >= version:
                    continue  # another replica applied it
                conn.execute(sql)
                if version in PG_MIGRATION_FILLS:
                    PG_MIGRATION_FILLS[version](conn)
                conn.execute("UPDATE catalog_meta SET value = %s WHERE key = 'schema_version'", [str(version)])

    # -- backend hooks ---------------------------------------------------------------------------------

    def cursor(self) -> PgCursor:
        """A cursor for single autocommit statements (each takes a pooled connection for its own run)."""
        return PgCursor(self._pool, self.url)

    @contextmanager
    def _write_cursor(self) -> Iterator[PgCursor]:
        """One pooled connection holding the writer lock (a session advisory lock) for the whole write."""
        with self._lock:
            cur = PgCursor(self._pool, self.url, hold=True,
                            setup=(("SELECT pg_advisory_lock(%s)", [WRITER_LOCK_KEY]),),
                            teardown=(("SELECT pg_advisory_unlock(%s)", [WRITER_LOCK_KEY]),))
            cur.attach()
            try:
                yield cur
            finally:
                cur.release()

    def meta(self) -> dict[str, str]:
        return dict(self.cursor().execute("SELECT key, value FROM catalog_meta").fetchall())

    @property
    def data_version(self) -> int:
        """The catalog version on PostgreSQL now (one indexed row): what every replica's caches key on."""
        row = self.cursor().execute("SELECT value FROM catalog_meta WHERE key = 'data_version'").fetchone()
        return int(row[0]) if row else 0

    def _read_cursor(self) -> duckdb.DuckDBPyConnection:
        version = self.data_version
        with self._snap_lock:
            if self._snap is None or self._snap_version != version:
                if self._snap is not None:  # sessions may still read the old one: it closes when the last goes
                    self._retired.append(self._snap)
                self._snap, self._snap_version = self._take_snapshot()
            return self._snap.cursor()

    def _take_snapshot(self) -> tuple[duckdb.DuckDBPyConnection, int]:
        """The catalog tables at one version, copied into an in-memory DuckDB with the same schema."""
        import psycopg
        import pyarrow as pa

        data: dict[str, tuple[list[str], list[tuple]]] = {}
        for attempt in (1, 2):  # a connection that died since its last use is replaced once
            conn = checkout(self._pool, self.url)
            try:
                with conn.transaction():
                    conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                    for table in SNAPSHOT_TABLES:
                        cur = conn.execute(f"SELECT * FROM {table}")
                        data[table] = ([c.name for c in cur.description], cur.fetchall())
                break
            except psycopg.OperationalError as exc:
                if attempt == 2 or not conn.broken:
                    raise unavailable(self.url, exc, "Retrying on the next action.") from exc
            finally:
                self._pool.putconn(conn)
        meta = dict(data["catalog_meta"][1])
        snap = duckdb.connect(":memory:", config=_DUCK_CONFIG)
        snap.execute(SCHEMA_SQL.read_text())
        for table in SNAPSHOT_TABLES:
            names, rows = data[table]
            if not rows:
                continue
            types = column_types(snap, table)
            columns = list(zip(*rows, strict=True))
            frame = pa.table({n: _arrow_column(list(col), types[n]) for n, col in zip(names, columns, strict=True)})
            snap.register("_pg_rows", frame)
            snap.execute(f"INSERT INTO {table} ({', '.join(names)}) SELECT {', '.join(names)} FROM _pg_rows")
            snap.unregister("_pg_rows")
        return snap, int(meta.get("data_version", "0"))

    # -- failed sign-ins, shared by the replicas (catalog.storage.interface.SharedSignInFailures) -------------------

    def count_login_failure(self, attempt_id: str, name: str, client: str, *, max_name_failures: int,
                            max_client_failures: int, window_s: float) -> str | None:
        """Count a sign-in attempt as failed before its password is checked, for every replica: "locked",
        "client-locked" (refused, nothing counted) or None (counted; :meth:`forget_login_failure` if it succeeds)."""
        return self._on_pooled_connection(count_failure, attempt_id, name, client, max_name_failures=max_name_failures,
                                          max_client_failures=max_client_failures, window_s=window_s)

    def forget_login_failure(self, attempt_id: str) -> None:
        self._on_pooled_connection(forget_failure, attempt_id)

    def _on_pooled_connection(self, work: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``work(conn, ...)`` on a pooled connection (its own transaction; not retried: a lost connection is an
        unavailable database, and the caller fails closed)."""
        import psycopg

        conn = checkout(self._pool, self.url)
        try:
            return work(conn, *args, **kwargs)
        except psycopg.OperationalError as exc:
            raise unavailable(self.url, exc, "Retrying on the next action.") from exc
        except psycopg.Error as exc:  # e.g. a read-only store on a database that predates the table
            logging.getLogger("gpu_cloud_advisor").error("catalog database %s: %s", redact(self.url),
                                                         str(exc).strip().splitlines()[0][:300] if str(exc).strip() else exc)
            raise CatalogError("The catalog database refused the statement; the server log says why.") from exc
        finally:
            self._pool.putconn(conn)

    def _has_table(self, table: str) -> bool:
        return True  # the schema is created whole, and every migration brings it to the current version

    # -- set-wise writes: psycopg executemany (pipelined), arrays for key sets -----------------------------

    def _fetch_written(self, cur: Any, table: str, keys: list[str]) -> dict[str, dict]:
        if not keys:
            return {}
        key_col = TABLE_KEYS[table]
        cur.execute(f"SELECT * FROM {table} WHERE {key_col} = ANY(?)", [sorted(set(keys))])
        names = [d[0] for d in cur.description]
        return {r[names.index(key_col)]: dict(zip(names, r, strict=True)) for r in cur.fetchall()}

    def _delete_keys(self, cur: Any, table: str, keys: list[str]) -> None:
        cur.execute(f"DELETE FROM {table} WHERE {TABLE_KEYS[table]} = ANY(?)", [list(keys)])

    def _insert_records(self, cur: Any, table: str, columns: list[str], records: list[dict]) -> None:
        marks = ", ".join("?" * len(columns))
        cur.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})",
                        [[r.get(c) for c in columns] for r in records])

    def _update_records(self, cur: Any, table: str, changed: tuple[str, ...], records: list[dict],
                        editor: str) -> None:
        key_col = TABLE_KEYS[table]
        sets = ", ".join(f"{c} = ?" for c in changed)
        cur.executemany(f"UPDATE {table} SET {sets}, row_version = row_version + 1, updated_by = ? "
                        f"WHERE {key_col} = ?", [[*(r[c] for c in changed), editor, r[key_col]] for r in records])

    def _insert_log(self, cur: Any, entries: list[dict]) -> None:
        columns = list(entries[0])
        self._insert_records(cur, "change_log", columns, entries)
