"""The embedded backend: one DuckDB file (connection, schema check, migrations, build from the seed).

DuckDB lets one process hold a database file read-write, and that lock keeps every other process
out, readers included. So the Streamlit server opens the file once per process (``ui.catalog`` caches
the :class:`CatalogStore`) and takes a fresh cursor for each call, because sessions run on separate
threads. A second process that finds the file locked gets :class:`CatalogLockedError` naming the
holder. Several processes sharing one catalog use the PostgreSQL backend (:mod:`catalog.storage.postgres`).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from catalog.errors import (
    CatalogCorruptError,
    CatalogError,
    CatalogLockedError,
    SchemaVersionError,
)
from catalog.models import TABLE_KEYS, TABLE_ORDER
from catalog.seeding import SEED_DIR, SeedRows, load_seed
from catalog.storage.changes import ChangeVerbs, rollback_if_open
from catalog.storage.common import (
    CATALOG_ENV,
    SCHEMA_SQL,
    SCHEMA_VERSION,
    TABLE_COLUMNS,
    resolve_catalog_path,
    rows_frame,
)
from catalog.storage.ducksql import arrow_table, column_types, fetch_rows, registered
from catalog.storage.queries import Queries
from catalog.storage.quotes import QuoteVerbs
from catalog.storage.workshop import Workshop

#: Older schema versions a writable open upgrades in place (see :meth:`CatalogStore._migrate`).
_MIGRATABLE = ("1", "2", "3")
_DUCKDB_MAGIC = b"DUCK"
_CONFIG: dict[str, str | bool | int | float | list[str]] = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}


def _insert_rows(con: duckdb.DuckDBPyConnection, seed: SeedRows) -> None:
    for table in TABLE_ORDER:
        frame = rows_frame(getattr(seed, table), table)  # noqa: F841 (read by DuckDB's replacement scan)
        cols = ", ".join(TABLE_COLUMNS[table])
        # Table and column names come from the constant map above, never from input.
        con.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM frame")


def build_catalog(path: str | os.PathLike, seed_dir: Path = SEED_DIR) -> Path:
    """Build a new catalog file from the seed. Never overwrites: fails if ``path`` exists.

    The file is written under a temporary name and linked into place only when complete, so a crash
    mid-build leaves no half-built catalog behind.
    """
    path = Path(path)
    if path.exists():
        raise CatalogError(f"Refusing to build: {path} already exists (an existing catalog is never overwritten).")
    seed = load_seed(seed_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}-{threading.get_ident()}")
    for leftover in (tmp, Path(f"{tmp}.wal")):
        leftover.unlink(missing_ok=True)
    con = duckdb.connect(str(tmp), config=_CONFIG)
    try:
        con.execute("BEGIN TRANSACTION")
        con.execute(SCHEMA_SQL.read_text())
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        con.executemany(
            "INSERT INTO catalog_meta VALUES (?, ?)",
            [["schema_version", str(SCHEMA_VERSION)], ["data_version", "1"], ["built_at", now],
             ["built_from", "seed"]],
        )
        _insert_rows(con, seed)
        con.execute("INSERT INTO change_sets VALUES (0, now(), 'seed', 'seed', 'built from catalog/seed/')")
        con.execute("COMMIT")
        con.execute("CHECKPOINT")
    except Exception:
        con.close()
        tmp.unlink(missing_ok=True)
        raise
    con.close()
    try:
        os.link(tmp, path)  # atomic, and fails if someone else created the file meanwhile
    except FileExistsError as exc:
        raise CatalogError(f"Refusing to build: {path} appeared while building; it was left untouched.") from exc
    finally:
        tmp.unlink(missing_ok=True)
    return path


def _lock_holder(message: str) -> str:
    match = re.search(r"PID (\d+)", message)
    if not match:
        return "another process"
    pid = match.group(1)
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        cmd = ""
    return f"process {pid}" + (f" ({cmd[:120]})" if cmd else "")


#: One writer per process: DuckDB allows one writing process per file, and inside it this lock makes
#: every change set (validate against current versions, write, log) run alone.
_WRITE_LOCK = threading.Lock()

_LOG_TYPES = {"change_set_id": "BIGINT", "seq": "INTEGER", "table_name": "VARCHAR", "row_key": "VARCHAR",
              "action": "VARCHAR", "before_json": "VARCHAR", "after_json": "VARCHAR"}


class CatalogStore(ChangeVerbs, Queries, Workshop, QuoteVerbs):
    """An open catalog. Thread-safe for reads: every call takes its own cursor."""

    _constraint_errors = (duckdb.ConstraintException,)
    _db_errors = (duckdb.Error,)

    def __init__(self, path: str | os.PathLike, *, read_only: bool | None = None):
        self.path = Path(path)
        self.location = str(self.path)
        if not self.path.exists():
            raise CatalogError(f"No catalog at {self.path}. Start the app (it builds one from the seed) or run `make catalog`.")
        with self.path.open("rb") as fh:
            head = fh.read(16)
        if len(head) < 12 or head[8:12] != _DUCKDB_MAGIC:
            raise CatalogCorruptError(
                f"{self.path} is not a DuckDB catalog (the file is empty or damaged). Nothing was changed. "
                f"Fix: move it aside (mv '{self.path}' '{self.path}.bad') and restart: the app rebuilds the "
                "catalog from the embedded seed."
            )
        if read_only is None:
            read_only = not os.access(self.path, os.W_OK)
        self.read_only = read_only
        try:
            self._con = duckdb.connect(str(self.path), read_only=read_only, config=_CONFIG)
        except duckdb.IOException as exc:
            text = str(exc)
            if "lock" in text.lower():
                raise CatalogLockedError(
                    f"The catalog {self.path} is held by {_lock_holder(text)}. DuckDB lets one process open "
                    "a file for writing and then locks out every other process. Stop that process, or point "
                    f"{CATALOG_ENV} at a copy of the file."
                ) from exc
            raise CatalogCorruptError(f"{self.path} could not be opened: {text}. Nothing was changed.") from exc
        except duckdb.Error as exc:
            raise CatalogCorruptError(f"{self.path} could not be opened: {exc}. Nothing was changed.") from exc
        try:
            self._check_schema()
        except CatalogError:
            self._con.close()
            raise
        self._add_missing_tables()

    # -- lifecycle ---------------------------------------------------------------------------------

    @classmethod
    def open_or_build(cls, path: str | os.PathLike | None = None) -> CatalogStore:
        """Open the catalog at ``path`` (see :func:`resolve_catalog_path`), building it first if missing."""
        resolved = resolve_catalog_path(path)
        if not resolved.exists():
            try:
                build_catalog(resolved)
            except CatalogError:
                if not resolved.exists():
                    raise
        return cls(resolved)

    @classmethod
    def open_for_app(cls, path: str | os.PathLike | None = None) -> tuple[CatalogStore, str | None]:
        """Open the catalog for the app, degrading to a read-only mode instead of failing where it can.

        Returns the store and a notice for the user (None when all is normal):

        * file locked by another process: a read-only snapshot copy of the file (its last checkpoint);
        * file missing and its folder not writable: the embedded seed catalog, read-only, in a temp folder;
        * file not writable: the file itself, read-only (``CatalogStore`` decides from the permissions).

        A damaged file or one of another schema version still raises: the user must decide what to do.
        """
        resolved = resolve_catalog_path(path)
        try:
            store = cls.open_or_build(resolved)
        except CatalogLockedError as exc:
            return cls._snapshot(resolved), (f"{exc} Showing a read-only snapshot of the file as of its last "
                                             "checkpoint; edits are disabled until the other process lets go.")
        except (OSError, duckdb.IOException) as exc:  # DuckDB reports a folder it cannot write to as IOException
            reason = getattr(exc, "strerror", None) or str(exc).removeprefix("IO Error: ")
            return cls._seed_copy(), (f"The catalog {resolved} could not be created ({reason}). Showing "
                                      "the embedded seed catalog, read-only.")
        if store.read_only:
            return store, f"The catalog file {resolved} is not writable: read-only mode, edits are disabled."
        return store, None

    @classmethod
    def _snapshot(cls, path: Path) -> CatalogStore:
        import shutil
        import tempfile

        target = Path(tempfile.mkdtemp(prefix="catalog-snapshot-")) / path.name
        shutil.copyfile(path, target)
        return cls(target, read_only=True)

    @classmethod
    def _seed_copy(cls) -> CatalogStore:
        import tempfile

        target = Path(tempfile.mkdtemp(prefix="catalog-seed-")) / "catalog.duckdb"
        build_catalog(target)
        return cls(target, read_only=True)

    def close(self) -> None:
        self._con.close()

    def __enter__(self) -> CatalogStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def cursor(self) -> duckdb.DuckDBPyConnection:
        return self._con.cursor()

    def _read_cursor(self) -> duckdb.DuckDBPyConnection:
        return self.cursor()

    @contextmanager
    def _write_cursor(self) -> Iterator[Any]:
        with _WRITE_LOCK:
            yield self.cursor()

    def meta(self) -> dict[str, str]:
        return dict(self.cursor().execute("SELECT key, value FROM catalog_meta").fetchall())

    # -- set-wise writes: Arrow tables registered as views (one statement per table and action) ------

    def _fetch_written(self, cur: Any, table: str, keys: list[str]) -> dict[str, dict]:
        return fetch_rows(cur, table, keys)

    def _delete_keys(self, cur: Any, table: str, keys: list[str]) -> None:
        with registered(cur, "_doomed", arrow_table([{"k": k} for k in keys], ["k"], {"k": "VARCHAR"})):
            cur.execute(f"DELETE FROM {table} WHERE {TABLE_KEYS[table]} IN (SELECT k FROM _doomed)")

    def _insert_records(self, cur: Any, table: str, columns: list[str], records: list[dict]) -> None:
        names = ", ".join(columns)
        with registered(cur, "_fresh", arrow_table(records, columns, column_types(cur, table))):
            cur.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM _fresh")

    def _update_records(self, cur: Any, table: str, changed: tuple[str, ...], records: list[dict],
                        editor: str) -> None:
        key_col = TABLE_KEYS[table]
        sets = ", ".join(f"{c} = _patch.{c}" for c in changed)
        with registered(cur, "_patch", arrow_table(records, [key_col, *changed], column_types(cur, table))):
            cur.execute(f"UPDATE {table} SET {sets}, row_version = {table}.row_version + 1, "
                        f"updated_by = ? FROM _patch WHERE {table}.{key_col} = _patch.{key_col}", [editor])

    def _insert_log(self, cur: Any, entries: list[dict]) -> None:
        with registered(cur, "_entries", arrow_table(entries, list(entries[0]), _LOG_TYPES)):
            cur.execute("INSERT INTO change_log SELECT * FROM _entries")

    def _check_schema(self) -> None:
        try:
            row = self.cursor().execute("SELECT value FROM catalog_meta WHERE key = 'schema_version'").fetchone()
        except duckdb.CatalogException as exc:
            raise SchemaVersionError(
                f"{self.path} is a DuckDB file but not a GPU Cloud Advisor catalog (no catalog_meta table). "
                f"Nothing was changed. Fix: point {CATALOG_ENV} at a catalog, or move this file aside and restart."
            ) from exc
        found = row[0] if row else "none"
        if found in _MIGRATABLE and not self.read_only:
            self._migrate(int(found))
            return
        if found in _MIGRATABLE:
            raise SchemaVersionError(
                f"{self.path} has catalog schema version {found}; this app reads version {SCHEMA_VERSION}. "
                "Nothing was changed: the file is open read-only, so it cannot be upgraded here. Fix: open it once "
                "with write access (the app upgrades it in place and keeps a copy of the old file next to it as "
                f"'{self.path.name}.v{found}.bak'), or export it with the app version that wrote it."
            )
        if found != str(SCHEMA_VERSION):
            raise SchemaVersionError(
                f"{self.path} has catalog schema version {found}; this app reads version {SCHEMA_VERSION}. "
                "Nothing was changed. Fix: open it with the app version that wrote it and export it, or move it "
                f"aside (mv '{self.path}' '{self.path}.v{found}') and restart to build a fresh catalog from the seed."
            )

    def _migrate(self, found: int) -> None:
        """Rebuild an older catalog to the current schema in one transaction, keeping every row.

        A copy of the file is kept first (``<name>.v<found>.bak``). Each catalog table is copied aside,
        dropped and re-created from ``schema.sql``, and its rows are copied back column by column (columns
        added since get their default, NULL; the version-3 parent-company columns take the seed's sourced
        values for the providers it knows, the version-4 dedicated-hardware columns those of the offers it
        knows). Tables new since (``region_countries``, ``certification_scopes``) start from the seed.
        """
        import shutil

        self._con.execute("CHECKPOINT")
        backup = self.path.with_name(f"{self.path.name}.v{found}.bak")
        if not backup.exists():
            shutil.copyfile(self.path, backup)
        con = self._con
        with _WRITE_LOCK:
            con.execute("BEGIN TRANSACTION")
            try:
                present = [t for t in TABLE_ORDER if self._has_table(t)]
                old_columns = {t: [c for c, _ in column_types(con, t).items()] for t in present}
                for t in present:
                    con.execute(f"CREATE TEMP TABLE _old_{t} AS SELECT * FROM {t}")
                for t in reversed(present):
                    con.execute(f"DROP TABLE {t}")
                con.execute(SCHEMA_SQL.read_text())
                for t in present:
                    cols = [c for c in [*TABLE_COLUMNS[t], "row_version", "updated_by"] if c in old_columns[t]]
                    names = ", ".join(cols)
                    con.execute(f"INSERT INTO {t} ({names}) SELECT {names} FROM _old_{t}")
                    con.execute(f"DROP TABLE _old_{t}")
                if "providers" in present and "parent_company" not in old_columns["providers"]:
                    # columns new in version 3: sourced values from the seed for the providers it knows
                    for p in load_seed().providers:
                        con.execute("UPDATE providers SET parent_company = ?, parent_company_source_url = ?, "
                                    "parent_company_as_of = ? WHERE provider_id = ?",
                                    [p.parent_company, p.parent_company_source_url, p.parent_company_as_of,
                                     p.provider_id])
                if "offers" in present and "is_dedicated_hardware" not in old_columns["offers"]:
                    # columns new in version 4: sourced values from the seed for the offers it knows
                    for o in load_seed().offers:
                        if o.is_dedicated_hardware is not None:
                            con.execute("UPDATE offers SET is_dedicated_hardware = ?, dedicated_source_url = ?, "
                                        "dedicated_as_of = ? WHERE offer_id = ?",
                                        [o.is_dedicated_hardware, o.dedicated_source_url, o.dedicated_as_of,
                                         o.offer_id])
                for new_table in ("region_countries", "certification_scopes"):
                    if new_table in present:
                        continue
                    seed = load_seed()
                    known = {r[0] for r in con.execute("SELECT provider_id FROM providers").fetchall()}
                    rows = [r for r in getattr(seed, new_table) if r.provider_id in known]
                    frame = rows_frame(rows, new_table)  # noqa: F841 (DuckDB scan)
                    names = ", ".join(TABLE_COLUMNS[new_table])
                    con.execute(f"INSERT INTO {new_table} ({names}) SELECT {names} FROM frame")
                con.execute("UPDATE catalog_meta SET value = ? WHERE key = 'schema_version'", [str(SCHEMA_VERSION)])
                con.execute("INSERT OR REPLACE INTO catalog_meta VALUES (?, ?)",
                            [f"migrated_from_v{found}", dt.datetime.now(dt.UTC).isoformat(timespec="seconds")])
                con.execute("COMMIT")
            except Exception as exc:
                rollback_if_open(con, (duckdb.Error,))
                raise SchemaVersionError(
                    f"{self.path} (schema version {found}) could not be upgraded to version {SCHEMA_VERSION}: "
                    f"{str(exc).splitlines()[0][:300]}. Nothing was changed; a copy of the file is at {backup}."
                ) from exc
            con.execute("CHECKPOINT")

    def _add_missing_tables(self) -> None:
        """Create tables added since the file was built (only ``CREATE TABLE IF NOT EXISTS``: additive,
        nothing existing is touched). A read-only file is left as it is; reads of a missing table then
        return no rows (:meth:`_has_table`)."""
        if self.read_only or all(self._has_table(t) for t in ("provider_facts", "region_countries",
                                                               "certification_scopes", "group_sessions",
                                                               "workspace_quotes")):
            return
        with _WRITE_LOCK:
            self._con.execute(SCHEMA_SQL.read_text())

    def _has_table(self, table: str) -> bool:
        row = self.cursor().execute(
            "SELECT count(*) FROM duckdb_tables() WHERE table_name = ? AND database_name = current_database()",
            [table],
        ).fetchone()
        return bool(row and row[0])

    # -- reads -------------------------------------------------------------------------------------

