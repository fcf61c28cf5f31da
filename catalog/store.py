"""The only module that speaks SQL to the catalog. Every query is parameterised.

DuckDB lets one process hold a database file read-write, and that lock keeps every other process
out, readers included. So the Streamlit server opens the file once per process (``ui.catalog`` caches
the :class:`CatalogStore`) and takes a fresh cursor for each call, because sessions run on separate
threads. A second process that finds the file locked gets :class:`CatalogLockedError` naming the
holder.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import os
import re
import secrets
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from catalog.errors import (
    CatalogCorruptError,
    CatalogError,
    CatalogLockedError,
    CatalogPermissionError,
    ChangeValidationError,
    ConflictError,
    ReadOnlyCatalogError,
    SchemaVersionError,
    StaleChangeSetError,
)
from catalog.models import (
    EU_EEA_COUNTRIES,
    REFERENCES,
    TABLE_KEYS,
    TABLE_MODELS,
    TABLE_ORDER,
    ChangeSet,
    Editor,
    Role,
    RowChange,
    as_of_lower_bound,
    certification_tokens,
)
from catalog.rules import Finding, RuleContext, check_rows
from catalog.seeding import SEED_DIR, SeedRows, load_seed

#: 2: no SQL foreign keys between catalog tables (the store checks references), region_countries,
#: offers.instance_type/last_seen, prices.last_seen/last_seen_source_url, prices > 0. A version-1 file is
#: rebuilt on its first writable open (:func:`_migrate`), after a backup copy next to it.
#: 3: providers.parent_company (+ source URL, date) and the certification_scopes table (issue #18); a
#: version-2 file is rebuilt the same way (new columns empty, the new table from the seed).
SCHEMA_VERSION = 3
SCHEMA_SQL = Path(__file__).resolve().parent / "schema.sql"
REPO_ROOT = Path(__file__).resolve().parent.parent
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
#: A change-log entry (alias ``l``) of a private negotiated price, before or after the change: shown to editors only.
_PRIVATE_LOG_ENTRY = ("(l.table_name = 'prices' AND (coalesce(json_extract(l.before_json, '$.is_private')::BOOLEAN, false)"
                      " OR coalesce(json_extract(l.after_json, '$.is_private')::BOOLEAN, false)))")
#: What viewers read instead of the message of a change set that touched a private price.
_PRIVATE_MESSAGE = "(changed a private negotiated price: the message is shown to editors only)"

#: Older schema versions a writable open upgrades in place (see :meth:`CatalogStore._migrate`).
_MIGRATABLE = ("1", "2")

#: Workshop limits (issue #15: a link or a participant must not grow the file or the page without bound).
MAX_SCENARIOS_PER_WORKSPACE = 200
MAX_SCENARIO_JSON_CHARS = 1_000_000
MAX_PARTICIPANTS = 50
MAX_PARTICIPANT_NAME = 60
MAX_WORKSHOP_TEXT = 120
WORKSPACE_TOKEN_BYTES = 18  # 144 random bits, 24 URL-safe characters
GROUP_CODE_BYTES = 9  # 72 random bits, 12 URL-safe characters
_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{8,64}")


def workspace_id(token: str) -> str:
    """The stored key of a link token (SHA-256 hex): the catalog file never holds a working link."""
    return hashlib.sha256(token.encode()).hexdigest()


_DUCKDB_MAGIC = b"DUCK"
_CONFIG = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}

_TABLE_COLUMNS = {
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
# Insert order respects the foreign keys.
_TABLE_ORDER = TABLE_ORDER
#: Columns the store derives or maintains itself; never part of an edit or of a row's content.
_META_COLUMNS = ("as_of_date", "row_version", "updated_by")


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


def _db_values(row: dict) -> dict:
    """Model values as stored: lists become ';'-separated text (DuckDB cannot update LIST columns of a
    row that a foreign key references)."""
    return {k: ";".join(v) if isinstance(v, list) else v for k, v in row.items()}


def _frame(rows: list[BaseModel], table: str) -> pd.DataFrame:
    records = []
    for r in rows:
        d = _db_values(r.model_dump(mode="python"))
        if "as_of" in _TABLE_COLUMNS[table] and "as_of_date" in _TABLE_COLUMNS[table]:
            d["as_of_date"] = as_of_lower_bound(d["as_of"])
        records.append(d)
    return pd.DataFrame.from_records(records, columns=_TABLE_COLUMNS[table])


def _insert_rows(con: duckdb.DuckDBPyConnection, seed: SeedRows) -> None:
    for table in _TABLE_ORDER:
        frame = _frame(getattr(seed, table), table)  # noqa: F841 (read by DuckDB's replacement scan)
        cols = ", ".join(_TABLE_COLUMNS[table])
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


# ---------------------------------------------------------------------------------------------------
# Writes
# ---------------------------------------------------------------------------------------------------

#: One writer per process: DuckDB allows one writing process per file, and inside it this lock makes
#: every change set (validate against current versions, write, log) run alone.
_WRITE_LOCK = threading.Lock()


@dataclass
class ApplyResult:
    change_set_id: int
    rows: int
    warnings: list[Finding] = field(default_factory=list)


def _jsonable(value):
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def _content(row: dict | None) -> dict | None:
    if row is None:
        return None
    return {k: _jsonable(v) for k, v in row.items() if k not in _META_COLUMNS}


def _store_write(method):
    def wrapper(self: CatalogStore, *args, **kwargs):
        if self.read_only:
            raise ReadOnlyCatalogError(
                f"The catalog {self.path} is open read-only (the file is not writable); nothing was saved."
            )
        return method(self, *args, **kwargs)

    wrapper.__doc__ = method.__doc__
    wrapper.__name__ = method.__name__
    return wrapper


def _get_row(cur, table: str, key: str) -> dict | None:
    key_col = TABLE_KEYS[table]
    cur.execute(f"SELECT * FROM {table} WHERE {key_col} = ?", [key])
    row = cur.fetchone()
    if row is None:
        return None
    return dict(zip([d[0] for d in cur.description], row, strict=True))


def _rule_context(cur, usd_per_eur: float) -> RuleContext:
    ctx = RuleContext(usd_per_eur=usd_per_eur)
    cur.execute("SELECT * FROM gpu_specs")
    names = [d[0] for d in cur.description]
    ctx.specs = {r[0]: dict(zip(names, r, strict=True)) for r in cur.fetchall()}
    ctx.gpu_models = {r[0] for r in cur.execute("SELECT gpu_model FROM gpu_models").fetchall()}
    ctx.aliases = {a.lower(): m for a, m in cur.execute("SELECT alias, gpu_model FROM gpu_aliases").fetchall()}
    ctx.offer_gpu_model = dict(cur.execute("SELECT offer_id, gpu_model FROM offers").fetchall())
    eur = "CASE currency WHEN 'EUR' THEN amount_per_gpu_hour ELSE amount_per_gpu_hour / ? END"
    ctx.on_demand_eur_by_offer = dict(cur.execute(
        f"SELECT offer_id, min({eur}) FROM prices WHERE valid_to IS NULL AND price_type = 'on-demand' GROUP BY offer_id",
        [usd_per_eur]).fetchall())
    ctx.median_on_demand_eur_by_model = dict(cur.execute(
        f"""SELECT o.gpu_model, median({eur}) FROM prices p JOIN offers o USING (offer_id)
            WHERE p.valid_to IS NULL AND p.price_type = 'on-demand' GROUP BY o.gpu_model""",
        [usd_per_eur]).fetchall())
    return ctx


def _validate_change_set(cur, changes: list[RowChange], usd_per_eur: float) -> tuple[list[dict | None], list[Finding]]:
    """Validate every row with its pydantic model and the hardware-truth rules. Raises on any error."""
    problems: list[tuple[str, str, str]] = []
    rows: list[dict | None] = []
    by_table: dict[str, list[dict]] = {}
    for i, change in enumerate(changes, start=1):
        if change.values is None:
            rows.append(None)
            continue
        model = TABLE_MODELS[change.table]
        values = {k: v for k, v in change.values.items() if k not in _META_COLUMNS}
        try:
            row = model.model_validate(values).model_dump(mode="python")
        except ValidationError as exc:
            for e in exc.errors():
                problems.append((f"{change.table} row {i} ({change.key})", ".".join(map(str, e["loc"])) or "row", e["msg"]))
            rows.append(None)
            continue
        if row[TABLE_KEYS[change.table]] != change.key:
            problems.append((f"{change.table} row {i} ({change.key})", TABLE_KEYS[change.table],
                             "the key cannot be changed; delete the row and add a new one"))
        rows.append(row)
        by_table.setdefault(change.table, []).append(row)
    if problems:
        raise ChangeValidationError(problems)
    ctx = _rule_context(cur, usd_per_eur)
    # Rows added in the same change set count as known (a new GPU model with its offers, an offer with its prices).
    for change, row in zip(changes, rows, strict=True):
        if row is not None and change.table == "gpu_models":
            ctx.gpu_models.add(row["gpu_model"])
        if row is not None and change.table == "offers":
            ctx.offer_gpu_model[row["offer_id"]] = row["gpu_model"]
    findings = [f for table, table_rows in by_table.items() for f in check_rows(table, table_rows, ctx)]
    errors = [f for f in findings if f.level == "error"]
    if errors:
        raise ChangeValidationError([(f.row, f.column, f.reason) for f in errors])
    return rows, [f for f in findings if f.level == "warning"]


def _duplicate_keys(changes: list[RowChange]) -> list[tuple[str, str, str]]:
    seen: dict[tuple[str, str], int] = {}
    problems = []
    for i, c in enumerate(changes, start=1):
        first = seen.setdefault((c.table, c.key), i)
        if first != i:
            problems.append((f"{c.table} row {i} ({c.key})", TABLE_KEYS[c.table],
                             f"the same row is already changed by row {first} of this change set"))
    return problems


@contextmanager
def _registered(cur, name: str, data):
    """Make ``data`` (an Arrow table) visible to SQL as ``name`` for the duration of the block."""
    cur.register(name, data)
    try:
        yield name
    finally:
        cur.unregister(name)


def _rollback(cur) -> None:
    """Roll back if a transaction is still open. When COMMIT itself failed there is none left, and the
    error worth reporting is the original one, never "cannot rollback" (issue #15, item 9)."""
    try:
        cur.execute("ROLLBACK")
    except duckdb.Error:
        pass


def _column_types(cur, table: str) -> dict[str, str]:
    return dict(cur.execute(
        "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? AND database_name = current_database()",
        [table]).fetchall())


_ARROW_TYPES = {"VARCHAR": "string", "DOUBLE": "float64", "INTEGER": "int64", "BIGINT": "int64", "BOOLEAN": "bool_",
                "DATE": "date32"}


def _arrow(records: list[dict], columns: list[str], types: dict[str, str]):
    """Rows as an Arrow table with the catalog column types (no type guessing from the first rows)."""
    import pyarrow as pa

    return pa.table({c: pa.array([r.get(c) for r in records], type=getattr(pa, _ARROW_TYPES[types[c]])())
                     for c in columns})


def _fetch_rows(cur, table: str, keys: list[str]) -> dict[str, dict]:
    """Current rows of ``table`` with these keys (one query, however many keys)."""
    if not keys:
        return {}
    import pyarrow as pa

    key_col = TABLE_KEYS[table]
    wanted = pa.table({"k": pa.array(sorted(set(keys)), type=pa.string())})
    with _registered(cur, "_wanted_keys", wanted):
        cur.execute(f"SELECT t.* FROM {table} t JOIN _wanted_keys w ON t.{key_col} = w.k")
        names = [d[0] for d in cur.description]
        fetched = cur.fetchall()
    return {r[names.index(key_col)]: dict(zip(names, r, strict=True)) for r in fetched}


def _stored(row: dict, table: str) -> dict:
    """A validated row as the store writes it (lists joined, as_of_date derived)."""
    values = _db_values(row)
    if "as_of_date" in _TABLE_COLUMNS[table]:
        values["as_of_date"] = as_of_lower_bound(values["as_of"])
    return values


def _changed_columns(current: dict, new: dict, table: str) -> list[str]:
    """Columns whose stored value differs: an UPDATE writes only these (issue #16, item 1)."""
    key_col = TABLE_KEYS[table]
    return [c for c in _TABLE_COLUMNS[table]
            if c != key_col and c in new and _jsonable(current.get(c)) != _jsonable(new.get(c))]


def _reference_problems(cur, touched_children: set[str], deleted_parents: dict[str, set[str]]) -> list[tuple[str, str, str]]:
    """Rows that point at a row that does not exist, checked inside the write's transaction before COMMIT.

    Schema 2 has no SQL foreign keys (see schema.sql); these checks keep the same guarantee for every
    relation a change set could break: children it wrote, and parents it deleted.
    """
    problems = []
    for child, col, parent in REFERENCES:
        if child not in touched_children and parent not in deleted_parents:
            continue
        pkey, ckey = TABLE_KEYS[parent], TABLE_KEYS[child]
        for child_key, value in cur.execute(
            f"""SELECT c.{ckey}, c.{col} FROM {child} c LEFT JOIN {parent} p ON c.{col} = p.{pkey}
                WHERE c.{col} IS NOT NULL AND p.{pkey} IS NULL ORDER BY 1 LIMIT 20""").fetchall():
            if value in deleted_parents.get(parent, set()):
                problems.append((f"{parent}:{value}", pkey,
                                 f"cannot delete it: {child} '{child_key}' still refers to it (foreign-key constraint "
                                 f"{child}.{col}); delete or re-point those rows in the same change set"))
            else:
                problems.append((f"{child}:{child_key}", col,
                                 f"{parent} '{value}' does not exist (foreign-key constraint {child}.{col})"))
    return problems


def _apply(self: CatalogStore, change_set: ChangeSet, editor: Editor, usd_per_eur: float,
           expected_data_version: int | None = None, progress=None) -> ApplyResult:
    """Validate, then write the change set set-wise (one statement per table and action, not per row).

    Deletes run children first, inserts and updates parents first; an update writes only the columns
    that changed. Every version is checked against the catalog inside the transaction; any conflict,
    reference problem or database error rolls everything back and is reported as it is.
    """
    if editor.role != Role.EDITOR:
        raise CatalogPermissionError(
            f"{editor.name} is signed in as a {editor.role.value}: only editors can change the catalog. Nothing was saved."
        )
    report = progress or (lambda fraction, text: None)
    with _WRITE_LOCK:
        cur = self.cursor()
        if expected_data_version is not None:
            now = int(self.meta().get("data_version", "0"))
            if now != expected_data_version:
                last = cur.execute("SELECT change_set_id, editor, message FROM change_sets "
                                   "ORDER BY change_set_id DESC LIMIT 1").fetchone()
                raise StaleChangeSetError(
                    f"Nothing was saved: the catalog changed after this preview was made (now change set #{last[0]} "
                    f"by {last[1]}: {last[2][:80]!r}). Preview the file again and apply the new preview.")
        duplicates = _duplicate_keys(change_set.changes)
        if duplicates:
            raise ChangeValidationError(duplicates)
        report(0.05, "validating rows")
        rows, warnings = _validate_change_set(cur, change_set.changes, usd_per_eur)
        report(0.35, "checking row versions")
        cur.execute("BEGIN TRANSACTION")
        try:
            change_set_id = cur.execute("SELECT coalesce(max(change_set_id), 0) + 1 FROM change_sets").fetchone()[0]
            cur.execute("INSERT INTO change_sets VALUES (?, now(), ?, ?, ?)",
                        [change_set_id, editor.name, change_set.kind, change_set.message])
            order = {t: i for i, t in enumerate(_TABLE_ORDER)}
            # Deletes children first, then inserts/updates parents first.
            indexed = sorted(range(len(change_set.changes)), key=lambda i: (
                change_set.changes[i].action != "delete",
                -order[change_set.changes[i].table] if change_set.changes[i].action == "delete"
                else order[change_set.changes[i].table], i))
            by_table: dict[str, list[int]] = {}
            for i in indexed:
                by_table.setdefault(change_set.changes[i].table, []).append(i)
            current = {t: _fetch_rows(cur, t, [change_set.changes[i].key for i in idx]) for t, idx in by_table.items()}
            conflicts: list[dict] = []
            for i in indexed:
                change, row = change_set.changes[i], rows[i]
                now_row = current[change.table].get(change.key)
                if change.action == "insert" and now_row is not None:
                    conflicts.append({"table": change.table, "key": change.key, "expected_version": None,
                                      "current_version": now_row["row_version"], "theirs": _content(now_row),
                                      "yours": _content(row)})
                elif change.action in ("update", "delete") and (
                        now_row is None or now_row["row_version"] != change.expected_version):
                    conflicts.append({"table": change.table, "key": change.key,
                                      "expected_version": change.expected_version,
                                      "current_version": None if now_row is None else now_row["row_version"],
                                      "theirs": _content(now_row), "yours": _content(row)})
            if conflicts:
                raise ConflictError(conflicts)
            written: list[int] = []  # change indexes that touched a row, in log order
            touched_children: set[str] = set()
            deleted_parents: dict[str, set[str]] = {}
            phases = [("delete", t) for t in reversed(_TABLE_ORDER)] + [
                (a, t) for t in _TABLE_ORDER for a in ("insert", "update")]
            for n, (action, table) in enumerate(phases):
                idx = [i for i in by_table.get(table, []) if change_set.changes[i].action == action]
                if not idx:
                    continue
                report(0.4 + 0.45 * n / len(phases), f"{action} {len(idx)} {table} row(s)")
                key_col, cols = TABLE_KEYS[table], _TABLE_COLUMNS[table]
                types = _column_types(cur, table)
                if action == "delete":
                    gone = [change_set.changes[i].key for i in idx]
                    with _registered(cur, "_doomed", _arrow([{"k": k} for k in gone], ["k"], {"k": "VARCHAR"})):
                        cur.execute(f"DELETE FROM {table} WHERE {key_col} IN (SELECT k FROM _doomed)")
                    deleted_parents.setdefault(table, set()).update(gone)
                    written += idx
                elif action == "insert":
                    records = [{**_stored(rows[i], table), "updated_by": editor.name} for i in idx]
                    names = ", ".join([*cols, "updated_by"])
                    with _registered(cur, "_fresh", _arrow(records, [*cols, "updated_by"], types)):
                        cur.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM _fresh")
                    touched_children.add(table)
                    written += idx
                else:
                    groups: dict[tuple[str, ...], list[dict]] = {}
                    for i in idx:
                        new = _stored(rows[i], table)
                        changed = tuple(_changed_columns(current[table][change_set.changes[i].key], new, table))
                        if changed:
                            groups.setdefault(changed, []).append(new)
                            written.append(i)
                    for changed, records in groups.items():
                        sets = ", ".join(f"{c} = _patch.{c}" for c in changed)
                        with _registered(cur, "_patch", _arrow(records, [key_col, *changed], types)):
                            cur.execute(f"UPDATE {table} SET {sets}, row_version = {table}.row_version + 1, "
                                        f"updated_by = ? FROM _patch WHERE {table}.{key_col} = _patch.{key_col}",
                                        [editor.name])
                    touched_children.add(table)
            report(0.88, "checking references")
            problems = _reference_problems(cur, touched_children, deleted_parents)
            if problems:
                raise ChangeValidationError(problems)
            report(0.9, "writing the change log")
            log_order = sorted(written, key=indexed.index)
            after_rows = {t: _fetch_rows(cur, t, [change_set.changes[i].key for i in log_order
                                                  if change_set.changes[i].table == t]) for t in by_table}
            log = []
            for seq, i in enumerate(log_order, start=1):
                change = change_set.changes[i]
                before = current[change.table].get(change.key)
                after = after_rows[change.table].get(change.key)
                log.append({"change_set_id": change_set_id, "seq": seq, "table_name": change.table,
                            "row_key": change.key, "action": change.action,
                            "before_json": None if before is None else json.dumps(_content(before)),
                            "after_json": None if after is None else json.dumps(_content(after))})
            if log:
                entries = _arrow(log, list(log[0]), {"change_set_id": "BIGINT", "seq": "INTEGER", "table_name": "VARCHAR",
                                                     "row_key": "VARCHAR", "action": "VARCHAR", "before_json": "VARCHAR",
                                                     "after_json": "VARCHAR"})
                with _registered(cur, "_entries", entries):
                    cur.execute("INSERT INTO change_log SELECT * FROM _entries")
            _sync_provider_columns(cur, change_set.changes, rows, change_set_id, len(log), editor.name)
            cur.execute("UPDATE catalog_meta SET value = CAST(CAST(value AS BIGINT) + 1 AS VARCHAR) WHERE key = 'data_version'")
            report(0.97, "committing")
            cur.execute("COMMIT")
        except duckdb.ConstraintException as exc:
            _rollback(cur)
            raise ChangeValidationError([("change set", "constraint", str(exc).split("\n")[0])]) from exc
        except CatalogError:
            _rollback(cur)
            raise
        except duckdb.Error as exc:
            _rollback(cur)
            raise CatalogError(f"Nothing was saved: the database refused the write ({type(exc).__name__}: "
                               f"{str(exc).splitlines()[0][:300]}).") from exc
        except BaseException:
            _rollback(cur)
            raise
    report(1.0, "saved")
    return ApplyResult(change_set_id=change_set_id, rows=len(written), warnings=warnings)


#: provider_facts fields that the providers table carries as a column (filters and scoring read the column).
_FACT_COLUMNS = ("legal_seat_country", "certifications")


def _sync_provider_columns(cur, changes: list[RowChange], rows: list[dict | None], change_set_id: int, seq: int,
                           editor: str) -> None:
    """Keep ``providers.legal_seat_country`` / ``certifications`` equal to their sourced facts.

    Runs inside the change set's transaction after its rows are written: every provider whose seat or
    certification fact was inserted, changed or deleted gets the fact's value (nothing on record when
    the fact is gone), with a row version bump and a change-log entry of its own.
    """
    touched: set[str] = set()
    for change, row in zip(changes, rows, strict=True):
        if change.table != "provider_facts":
            continue
        provider, _, fact_field = change.key.partition(":")
        if fact_field in _FACT_COLUMNS:
            touched.add(row["provider_id"] if row is not None else provider)
    for provider_id in sorted(touched):
        current = _get_row(cur, "providers", provider_id)
        if current is None:
            continue
        facts = dict(cur.execute(
            "SELECT field, value FROM provider_facts WHERE provider_id = ? AND list_contains(?, field)",
            [provider_id, list(_FACT_COLUMNS)]).fetchall())
        seat = facts.get("legal_seat_country")
        certs = ";".join(certification_tokens(facts.get("certifications")))
        if current["legal_seat_country"] == seat and current["certifications"] == certs:
            continue
        cur.execute("UPDATE providers SET legal_seat_country = ?, certifications = ?, row_version = row_version + 1, "
                    "updated_by = ? WHERE provider_id = ?", [seat, certs, editor, provider_id])
        seq += 1
        after = _get_row(cur, "providers", provider_id)
        cur.execute("INSERT INTO change_log VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [change_set_id, seq, "providers", provider_id, "update", json.dumps(_content(current)),
                     json.dumps(_content(after))])


def _restore_changes(cur, to_change_set_id: int, table: str | None, key: str | None) -> list[RowChange]:
    """Row changes that bring rows back to their state right after change set ``to_change_set_id``.

    The apply step orders them (children deleted before parents, parents inserted before children), so a
    whole import (offers and their prices) is undone in one change set.
    """
    entries = cur.execute(
        """SELECT table_name, row_key, before_json FROM change_log
           WHERE change_set_id > ? AND (CAST(? AS VARCHAR) IS NULL OR table_name = ?)
             AND (CAST(? AS VARCHAR) IS NULL OR row_key = ?)
           ORDER BY change_set_id, seq""",
        [to_change_set_id, table, table, key, key],
    ).fetchall()
    first_state: dict[tuple[str, str], str | None] = {}
    for t, k, before in entries:
        first_state.setdefault((t, k), before)
    current: dict[str, dict[str, dict]] = {}
    for t in {t for t, _ in first_state}:
        current[t] = _fetch_rows(cur, t, [k for tt, k in first_state if tt == t])
    changes = []
    for (t, k), before in first_state.items():
        target = None if before is None else json.loads(before)
        now = current[t].get(k)
        if target is None and now is not None:
            changes.append(RowChange(table=t, action="delete", key=k, expected_version=now["row_version"]))
        elif target is not None and now is None:
            changes.append(RowChange(table=t, action="insert", key=k, values=target))
        elif target is not None and _content(now) != target:
            changes.append(RowChange(table=t, action="update", key=k, values=target, expected_version=now["row_version"]))
    return changes


class _Writes:
    """Write verbs and the audit trail of :class:`CatalogStore`."""

    @_store_write
    def apply_changes(self, change_set: ChangeSet, editor: Editor, *, usd_per_eur: float = 1.0,
                      expected_data_version: int | None = None, progress=None) -> ApplyResult:
        """Validate and write a change set as one transaction, with a change-log entry per row.

        All or nothing: a validation error, a hardware-truth error, a broken reference or a version
        conflict on any row leaves the catalog unchanged. ``usd_per_eur`` only feeds the
        price-plausibility warnings. ``expected_data_version`` (a frozen import preview) refuses the
        write when anything was committed since the preview. ``progress(fraction, text)`` is called
        between steps (the editor page draws a progress bar from it).
        """
        return _apply(self, change_set, editor, usd_per_eur, expected_data_version, progress)

    @_store_write
    def rename_key(self, table: str, old_key: str, new_key: str, editor: Editor, *, message: str) -> ApplyResult:
        """Change a row's key (an offer id, a GPU spec id, a GPU model name) and re-point every row that
        refers to it, as one validated, logged change set (the explicit operation for key changes;
        ordinary edits cannot change a key)."""
        renamable = {"offers", "gpu_specs", "gpu_models"}
        if table not in renamable:
            raise CatalogError(f"Keys of {table} cannot be renamed here (only {', '.join(sorted(renamable))}).")
        if editor.role != Role.EDITOR:
            raise CatalogPermissionError(f"{editor.name} is not an editor: nothing was renamed.")
        cur = self.cursor()
        row = _get_row(cur, table, old_key)
        if row is None:
            raise CatalogError(f"No {table} row {old_key!r}: nothing was renamed.")
        key_col = TABLE_KEYS[table]
        values = {**_content(row), key_col: new_key}
        changes = [RowChange(table=table, action="delete", key=old_key, expected_version=row["row_version"]),
                   RowChange(table=table, action="insert", key=new_key, values=values)]
        for child, col, parent in REFERENCES:
            if parent != table:
                continue
            ckey = TABLE_KEYS[child]
            for child_row in _fetch_rows(cur, child, [r[0] for r in cur.execute(
                    f"SELECT {ckey} FROM {child} WHERE {col} = ?", [old_key]).fetchall()]).values():
                changes.append(RowChange(table=child, action="update", key=child_row[ckey],
                                         values={**_content(child_row), col: new_key},
                                         expected_version=child_row["row_version"]))
        return _apply(self, ChangeSet(changes=changes, message=message), editor, 1.0)

    @_store_write
    def restore(self, to_change_set_id: int, editor: Editor, *, table: str | None = None, key: str | None = None,
                message: str | None = None) -> ApplyResult | None:
        """Bring the whole catalog (or one table, or one row) back to its state after a change set.

        The restore is itself a logged change set; the log keeps everything. Returns None when there
        is nothing to change.
        """
        if editor.role != Role.EDITOR:
            raise CatalogPermissionError(f"{editor.name} is not an editor: nothing was restored.")
        with _WRITE_LOCK:
            changes = _restore_changes(self.cursor(), to_change_set_id, table, key)
        if not changes:
            return None
        scope = "the catalog" if table is None else (f"{table}" if key is None else f"{table}:{key}")
        msg = message or f"restore {scope} to change set {to_change_set_id}"
        return _apply(self, ChangeSet(changes=changes, message=msg, kind="restore"), editor, 1.0)

    def change_sets(self, *, include_private: bool = False) -> pd.DataFrame:
        """Every change set, newest first.

        Private values leave only with ``include_private`` (signed-in editors): otherwise editors are not named
        (the seed build keeps its name), ``rows`` counts public rows only, and a change set that touched a
        private price shows no message (it may describe the quote).
        """
        return self.cursor().execute(
            f"""SELECT s.change_set_id, s.created_at,
                       CASE WHEN $all OR s.editor = 'seed' THEN s.editor ELSE 'an editor' END AS editor, s.kind,
                       CASE WHEN $all OR NOT coalesce(bool_or({_PRIVATE_LOG_ENTRY}), false) THEN s.message
                            ELSE {_PRIVATE_MESSAGE!r} END AS message,
                       count(l.seq) FILTER (WHERE $all OR NOT {_PRIVATE_LOG_ENTRY}) AS rows
                FROM change_sets s LEFT JOIN change_log l USING (change_set_id)
                GROUP BY s.change_set_id, s.created_at, s.editor, s.kind, s.message
                ORDER BY s.change_set_id DESC""",
            {"all": include_private},
        ).df()

    def change_log(self, change_set_id: int, *, include_private: bool = False) -> pd.DataFrame:
        """The rows one change set wrote, before and after; entries of private prices only with
        ``include_private`` (signed-in editors)."""
        return self.cursor().execute(
            f"SELECT seq, table_name, row_key, action, before_json, after_json FROM change_log l "
            f"WHERE change_set_id = $id AND ($all OR NOT {_PRIVATE_LOG_ENTRY}) ORDER BY seq",
            {"id": change_set_id, "all": include_private},
        ).df()

    def row(self, table: str, key: str) -> dict | None:
        """One row with its ``row_version`` (what an editor starts from)."""
        if table not in TABLE_KEYS:
            raise CatalogError(f"unknown table {table!r}")
        return _get_row(self.cursor(), table, key)

    def editable_rows(self, table: str, *, current_only: bool = True, include_private: bool = False) -> pd.DataFrame:
        """A table's content plus ``row_version`` (prices: current rows unless asked).

        ``include_private`` (signed-in editors only) adds private negotiated prices and the ``updated_by``
        column (who last wrote each row); without it neither leaves the store.
        """
        if table not in TABLE_KEYS:
            raise CatalogError(f"unknown table {table!r}")
        names = [c for c in _TABLE_COLUMNS[table] if c not in _META_COLUMNS] + ["row_version"]
        names += ["updated_by"] if include_private else []
        if not self._has_table(table):  # an older read-only catalog without a table added since
            return pd.DataFrame(columns=names)
        cols = ", ".join(names)
        conditions = []
        if table == "prices" and current_only:
            conditions.append("valid_to IS NULL")
        if table == "prices" and not include_private:
            conditions.append("NOT is_private")
        where = ("WHERE " + " AND ".join(conditions)) if conditions else ""
        return self.cursor().execute(f"SELECT {cols} FROM {table} {where} ORDER BY {TABLE_KEYS[table]}").df()

    def stale_rows(self, today: dt.date | None = None, *, include_private: bool = False) -> pd.DataFrame:
        """Rows observed more than STALE_AFTER_DAYS ago: the "needs re-verification" list, oldest first
        (private negotiated prices only with ``include_private``: signed-in editors)."""
        today = today or dt.date.today()
        parts = [
            """SELECT 'providers' AS table_name, provider_id AS row_key, name AS what, as_of, as_of_date AS observed,
                      source_url FROM providers WHERE as_of_date < $sb""",
            """SELECT 'offers', offer_id, provider_id || ' · ' || gpu_model || ' · ' || region, as_of, as_of_date,
                      source_url FROM offers WHERE as_of_date < $sb""",
            """SELECT 'prices', price_id, price_type || ' ' || amount_per_gpu_hour || ' ' || currency, retrieved_at,
                      valid_from, source_url FROM prices WHERE valid_to IS NULL AND valid_from < $sb
                      AND ($all OR NOT is_private)""",
        ]
        if self._has_table("provider_facts"):
            parts.append("""SELECT 'provider_facts', fact_id, value, as_of, as_of_date, source_url
                              FROM provider_facts WHERE as_of_date < $sb""")
        sql = " UNION ALL ".join(parts) + " ORDER BY observed, table_name, row_key"
        return self.cursor().execute(sql, {"sb": today - dt.timedelta(days=STALE_AFTER_DAYS),
                                           "all": include_private}).df()

    def provider_facts(self, provider_ids: list[str] | None = None) -> pd.DataFrame:
        """The sourced legal-seat and certification facts (empty on an old read-only catalog without the table)."""
        cols = ["fact_id", "provider_id", "field", "value", "source_url", "as_of", "verification_status", "notes"]
        if not self._has_table("provider_facts"):
            return pd.DataFrame(columns=cols)
        sql = f"SELECT {', '.join(cols)} FROM provider_facts"
        params: list = []
        if provider_ids is not None:
            sql += " WHERE list_contains(?, provider_id)"
            params.append(list(provider_ids))
        return self.cursor().execute(sql + " ORDER BY provider_id, field", params).df()

    def certification_scopes(self, provider_ids: list[str] | None = None) -> pd.DataFrame:
        """What each held certification covers (services, countries, GPU compute), with source and date."""
        cols = [c for c in _TABLE_COLUMNS["certification_scopes"] if c != "as_of_date"]
        if not self._has_table("certification_scopes"):
            return pd.DataFrame(columns=cols)
        sql = f"SELECT {', '.join(cols)} FROM certification_scopes"
        params: list = []
        if provider_ids is not None:
            sql += " WHERE list_contains(?, provider_id)"
            params.append(list(provider_ids))
        return self.cursor().execute(sql + " ORDER BY provider_id, certification", params).df()

    # -- workshop: workspaces, scenarios, group votes (not catalog data: no change log) ----------------

    @_store_write
    def create_workspace(self, client: str, *, created_by: str | None = None) -> str:
        """Open a new client workspace and return its link token (shown once; only its hash is stored)."""
        client = (client or "").strip()
        if not client:
            raise CatalogError("A workspace needs the client's name.")
        if len(client) > MAX_WORKSHOP_TEXT:
            raise CatalogError(f"The client name is longer than {MAX_WORKSHOP_TEXT} characters.")
        token = secrets.token_urlsafe(WORKSPACE_TOKEN_BYTES)
        with _WRITE_LOCK:
            self.cursor().execute("INSERT INTO workspaces VALUES (?, ?, now(), ?)",
                                  [workspace_id(token), client, created_by])
        return token

    def workspace(self, token: str | None) -> dict | None:
        """The workspace a link token opens ({"client", "created_at"}), or None for an unknown token."""
        if not token or not _TOKEN_RE.fullmatch(token) or not self._has_table("workspaces"):
            return None
        row = self.cursor().execute("SELECT client, created_at FROM workspaces WHERE workspace_id = ?",
                                    [workspace_id(token)]).fetchone()
        return None if row is None else {"client": row[0], "created_at": row[1]}

    def _workspace_id(self, token: str | None) -> str:
        if self.workspace(token) is None:
            raise CatalogError("This workspace link is not valid (unknown or mistyped). Open the link the "
                               "consultant gave you, or start a new workspace.")
        return workspace_id(token)

    @_store_write
    def save_scenario(self, name: str, scenario_json: str, scenario_version: int, *, workspace: str,
                      client: str | None = None, author: str | None = None) -> int:
        """Store a named scenario in the workspace whose link token is ``workspace`` (any user who holds the
        link may; scenarios are not catalog data). Returns its id."""
        if not (name or "").strip():
            raise CatalogError("A scenario needs a name.")
        if len(name.strip()) > MAX_WORKSHOP_TEXT or len(client or "") > MAX_WORKSHOP_TEXT:
            raise CatalogError(f"Names are limited to {MAX_WORKSHOP_TEXT} characters.")
        if len(scenario_json) > MAX_SCENARIO_JSON_CHARS:
            raise CatalogError(f"The scenario is larger than {MAX_SCENARIO_JSON_CHARS // 1000:,} kB; nothing was saved.")
        ws = self._workspace_id(workspace)
        with _WRITE_LOCK:
            cur = self.cursor()
            if cur.execute("SELECT count(*) FROM scenarios WHERE workspace_id = ?", [ws]).fetchone()[0] >= MAX_SCENARIOS_PER_WORKSPACE:
                raise CatalogError(f"This workspace already holds {MAX_SCENARIOS_PER_WORKSPACE} scenarios; ask an "
                                   "editor to delete old ones first.")
            new_id = cur.execute("SELECT coalesce(max(scenario_id), 0) + 1 FROM scenarios").fetchone()[0]
            cur.execute("INSERT INTO scenarios (scenario_id, name, client, author, created_at, scenario_version, "
                        "scenario_json, workspace_id) VALUES (?, ?, ?, ?, now(), ?, ?, ?)",
                        [new_id, name.strip(), client, author, scenario_version, scenario_json, ws])
        return new_id

    def list_scenarios(self, workspace: str | None) -> pd.DataFrame:
        """The scenarios of one workspace (newest first); an unknown or missing token lists nothing."""
        cols = ["scenario_id", "name", "client", "author", "created_at", "scenario_version"]
        if self.workspace(workspace) is None:
            return pd.DataFrame(columns=cols)
        return self.cursor().execute(
            f"SELECT {', '.join(cols)} FROM scenarios WHERE workspace_id = ? ORDER BY scenario_id DESC",
            [workspace_id(workspace)]).df()

    def scenario_json(self, scenario_id: int, workspace: str | None) -> str:
        row = None
        if self.workspace(workspace) is not None:
            row = self.cursor().execute("SELECT scenario_json FROM scenarios WHERE scenario_id = ? AND workspace_id = ?",
                                        [int(scenario_id), workspace_id(workspace)]).fetchone()
        if row is None:
            raise CatalogError(f"No saved scenario #{scenario_id} in this workspace.")
        return row[0]

    @_store_write
    def delete_scenario(self, scenario_id: int, workspace: str | None, editor: Editor) -> None:
        """Delete one saved scenario of a workspace: editors only (the role is checked here again)."""
        if editor is None or editor.role != Role.EDITOR:
            raise CatalogPermissionError("Only an editor can delete a saved scenario; nothing was deleted.")
        ws = self._workspace_id(workspace)
        with _WRITE_LOCK:
            cur = self.cursor()
            if cur.execute("SELECT count(*) FROM scenarios WHERE scenario_id = ? AND workspace_id = ?",
                           [int(scenario_id), ws]).fetchone()[0] == 0:
                raise CatalogError(f"No saved scenario #{scenario_id} in this workspace; nothing was deleted.")
            cur.execute("DELETE FROM scenarios WHERE scenario_id = ? AND workspace_id = ?", [int(scenario_id), ws])

    @_store_write
    def create_group_session(self, workspace: str) -> str:
        """Start a group-weighting session in a workspace; returns its join code (unguessable)."""
        ws = self._workspace_id(workspace)
        code = secrets.token_urlsafe(GROUP_CODE_BYTES)
        with _WRITE_LOCK:
            self.cursor().execute("INSERT INTO group_sessions VALUES (?, ?, now())", [code, ws])
        return code

    def group_session_exists(self, session_code: str | None) -> bool:
        if not session_code or not _TOKEN_RE.fullmatch(session_code) or not self._has_table("group_sessions"):
            return False
        return self.cursor().execute("SELECT count(*) FROM group_sessions WHERE session_code = ?",
                                     [session_code]).fetchone()[0] > 0

    @_store_write
    def submit_vote(self, session_code: str, participant: str, weight_points: dict[str, float], *, voter: str) -> None:
        """Store one participant's weight points in a group session, bound to the browser session that cast it
        (``voter`` is that session's secret; only its hash is stored). The same voter may change its points or
        its name; a name another voter holds is refused, as is a session past :data:`MAX_PARTICIPANTS`."""
        participant = (participant or "").strip()
        if not participant:
            raise CatalogError("Enter your name before submitting.")
        if len(participant) > MAX_PARTICIPANT_NAME:
            raise CatalogError(f"Names are limited to {MAX_PARTICIPANT_NAME} characters.")
        if not voter or len(voter) < 16:
            raise CatalogError("This browser session has no voter id; reload the join link.")
        if not all(isinstance(v, int | float) and math.isfinite(v) and 0 <= v <= 100 for v in weight_points.values()) \
                or len(weight_points) > 64:
            raise CatalogError("Weight points must be numbers from 0 to 100.")
        if not self.group_session_exists(session_code):
            raise CatalogError("This join link is not valid (unknown session). Ask the consultant for the link again.")
        vid = workspace_id(voter)
        with _WRITE_LOCK:
            cur = self.cursor()
            holder = cur.execute("SELECT voter_id FROM workshop_votes WHERE session_code = ? AND participant = ?",
                                 [session_code, participant]).fetchone()
            if holder is not None and holder[0] != vid:
                raise CatalogError(f"Someone else has already voted as {participant!r} in this session. Add your "
                                   "initial or pick another name.")
            mine = cur.execute("SELECT count(*) FROM workshop_votes WHERE session_code = ? AND voter_id = ?",
                               [session_code, vid]).fetchone()[0]
            others = cur.execute("SELECT count(*) FROM workshop_votes WHERE session_code = ? AND voter_id IS DISTINCT FROM ?",
                                 [session_code, vid]).fetchone()[0]
            if not mine and others >= MAX_PARTICIPANTS:
                raise CatalogError(f"This session already has {MAX_PARTICIPANTS} participants; it takes no more.")
            cur.execute("BEGIN TRANSACTION")
            try:
                cur.execute("DELETE FROM workshop_votes WHERE session_code = ? AND voter_id = ?", [session_code, vid])
                cur.execute("INSERT INTO workshop_votes (session_code, participant, weight_points_json, updated_at, "
                            "voter_id) VALUES (?, ?, ?, now(), ?)",
                            [session_code, participant, json.dumps(weight_points, sort_keys=True), vid])
                cur.execute("COMMIT")
            except Exception:
                cur.execute("ROLLBACK")
                raise

    def votes(self, session_code: str) -> dict[str, dict[str, float]]:
        rows = self.cursor().execute(
            "SELECT participant, weight_points_json FROM workshop_votes WHERE session_code = ? ORDER BY participant "
            "LIMIT ?", [session_code, MAX_PARTICIPANTS]).fetchall()
        return {name: json.loads(points) for name, points in rows}

    def content_checksum(self) -> str:
        """md5 over every editable table's content (meta columns excluded): equal content, equal sum."""
        cur = self.cursor()
        parts = []
        for table in _TABLE_ORDER:
            cols = ", ".join(c for c in _TABLE_COLUMNS[table] if c not in _META_COLUMNS)
            key = TABLE_KEYS[table]
            parts.append(cur.execute(
                f"SELECT md5(coalesce(string_agg(CAST(row({cols}) AS VARCHAR), '|' ORDER BY {key}), '')) FROM {table}"
            ).fetchone()[0])
        return "-".join(parts)


class CatalogStore(_Writes):
    """An open catalog. Thread-safe for reads: every call takes its own cursor."""

    def __init__(self, path: str | os.PathLike, *, read_only: bool | None = None):
        self.path = Path(path)
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
        values for the providers it knows). Tables new since (``region_countries``, ``certification_scopes``)
        start from the seed.
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
                present = [t for t in _TABLE_ORDER if self._has_table(t)]
                old_columns = {t: [c for c, _ in _column_types(con, t).items()] for t in present}
                for t in present:
                    con.execute(f"CREATE TEMP TABLE _old_{t} AS SELECT * FROM {t}")
                for t in reversed(present):
                    con.execute(f"DROP TABLE {t}")
                con.execute(SCHEMA_SQL.read_text())
                for t in present:
                    cols = [c for c in [*_TABLE_COLUMNS[t], "row_version", "updated_by"] if c in old_columns[t]]
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
                for new_table in ("region_countries", "certification_scopes"):
                    if new_table in present:
                        continue
                    seed = load_seed()
                    known = {r[0] for r in con.execute("SELECT provider_id FROM providers").fetchall()}
                    rows = [r for r in getattr(seed, new_table) if r.provider_id in known]
                    frame = _frame(rows, new_table)  # noqa: F841 (DuckDB scan)
                    names = ", ".join(_TABLE_COLUMNS[new_table])
                    con.execute(f"INSERT INTO {new_table} ({names}) SELECT {names} FROM frame")
                con.execute("UPDATE catalog_meta SET value = ? WHERE key = 'schema_version'", [str(SCHEMA_VERSION)])
                con.execute("INSERT OR REPLACE INTO catalog_meta VALUES (?, ?)",
                            [f"migrated_from_v{found}", dt.datetime.now(dt.UTC).isoformat(timespec="seconds")])
                con.execute("COMMIT")
            except Exception as exc:
                _rollback(con)
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
                                                               "certification_scopes", "group_sessions")):
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

    def meta(self) -> dict[str, str]:
        return dict(self.cursor().execute("SELECT key, value FROM catalog_meta").fetchall())

    @property
    def data_version(self) -> int:
        """Grows with every committed write; read caches key on it."""
        return int(self.meta().get("data_version", "0"))

    def table(self, table: str, *, include_private: bool = False) -> pd.DataFrame:
        """A whole table as a DataFrame (table name checked against the schema's list); private negotiated
        prices only with ``include_private`` (signed-in editors)."""
        if table not in _TABLE_COLUMNS:
            raise CatalogError(f"unknown table {table!r}")
        cols = ", ".join(_TABLE_COLUMNS[table])
        key = _TABLE_COLUMNS[table][0]
        where = "WHERE NOT is_private" if table == "prices" and not include_private else ""
        return self.cursor().execute(f"SELECT {cols} FROM {table} {where} ORDER BY {key}").df()

    def list_providers(self) -> pd.DataFrame:
        return self.table("providers")

    def list_gpu_specs(self) -> pd.DataFrame:
        return self.table("gpu_specs")

    def list_prices(self, offer_ids: list[str] | None = None, *, current_only: bool = True,
                    include_private: bool = False) -> pd.DataFrame:
        """Price rows (of ``offer_ids``; current ones unless asked); private negotiated prices only with
        ``include_private`` (signed-in editors)."""
        cols = ", ".join(_TABLE_COLUMNS["prices"])
        return self.cursor().execute(
            f"""SELECT {cols} FROM prices
                WHERE (CAST($ids AS VARCHAR[]) IS NULL OR list_contains(CAST($ids AS VARCHAR[]), offer_id))
                  AND (NOT $current_only OR valid_to IS NULL)
                  AND ($all OR NOT is_private)
                ORDER BY offer_id, price_type, valid_from""",
            {"ids": offer_ids, "current_only": current_only, "all": include_private},
        ).df()

    def list_offers(
        self,
        filters: OfferFilter | None = None,
        *,
        usd_per_eur: float,
        today: dt.date | None = None,
        include_private: bool = False,
    ) -> pd.DataFrame:
        """Offers joined with their provider, GPU spec and current prices (one column per price type,
        converted to EUR at ``usd_per_eur``), narrowed by ``filters``.

        Columns ``*_eur_per_gpu_hour`` are the cheapest current price of that type; NaN when the
        catalog has none. ``is_stale`` marks rows observed more than 180 days before ``today``.
        Private (negotiated) prices count only with ``include_private`` (editors) and until they expire.
        """
        f = filters or OfferFilter()
        today = today or dt.date.today()
        params = {
            "usd_per_eur": float(usd_per_eur),
            "include_private": include_private,
            "today": today,
            "stale_before": today - dt.timedelta(days=STALE_AFTER_DAYS),
            "verified_after": today - dt.timedelta(days=VERIFIED_FRESH_DAYS),
            "eu": sorted(EU_EEA_COUNTRIES),
            "not_stated": NOT_STATED,
            "gpu_models": list(f.gpu_models) if f.gpu_models is not None else None,
            "form_factors": list(f.form_factors) if f.form_factors is not None else None,
            "intra_nodes": list(f.intra_nodes) if f.intra_nodes is not None else None,
            "inter_nodes": list(f.inter_nodes) if f.inter_nodes is not None else None,
            "memory_types": list(f.memory_types) if f.memory_types is not None else None,
            "eu_only": f.eu_datacenter_only,
            "jurisdictions": list(f.jurisdictions) if f.jurisdictions is not None else None,
            "price_types": list(f.price_types) if f.price_types is not None else None,
            "max_price": f.max_price_eur_per_gpu_hour,
            "provider_ids": list(f.provider_ids) if f.provider_ids is not None else None,
        }
        sql = """
        WITH cur AS (
            SELECT offer_id, price_type, term_months, currency, retrieved_at,
                   CASE currency WHEN 'EUR' THEN amount_per_gpu_hour
                                 ELSE amount_per_gpu_hour / $usd_per_eur END AS amount_eur
            FROM prices WHERE valid_to IS NULL
              AND (NOT is_private OR ($include_private AND expires_on >= $today))
        ), piv AS (
            SELECT offer_id,
                   min(amount_eur) FILTER (WHERE price_type = 'on-demand') AS on_demand_eur_per_gpu_hour,
                   min(amount_eur) FILTER (WHERE price_type = 'spot') AS spot_eur_per_gpu_hour,
                   min(amount_eur) FILTER (WHERE price_type = 'reserved') AS reserved_eur_per_gpu_hour,
                   min(amount_eur) FILTER (WHERE price_type = 'quote') AS quote_eur_per_gpu_hour,
                   arg_min(term_months, amount_eur) FILTER (WHERE price_type = 'reserved') AS reserved_term_months,
                   min(amount_eur) FILTER (WHERE price_type = 'reserved' AND term_months = 12)
                       AS reserved_1y_eur_per_gpu_hour,
                   min(amount_eur) FILTER (WHERE price_type = 'reserved' AND term_months = 36)
                       AS reserved_3y_eur_per_gpu_hour,
                   min(amount_eur) FILTER (WHERE CAST($price_types AS VARCHAR[]) IS NULL
                                           OR list_contains(CAST($price_types AS VARCHAR[]), price_type))
                       AS best_selected_eur_per_gpu_hour,
                   list(DISTINCT price_type ORDER BY price_type) AS price_types,
                   string_agg(DISTINCT currency, '/' ORDER BY currency) AS native_currency,
                   max(retrieved_at) AS price_retrieved_at
            FROM cur GROUP BY offer_id
        )
        SELECT o.offer_id, o.provider_id, p.name AS provider_name, o.gpu_model, o.gpu_spec_id, o.form_factor,
               o.gpus_per_node, coalesce(o.memory_gb, s.memory_gb) AS memory_gb,
               coalesce(o.memory_type, s.memory_type) AS memory_type,
               o.intra_node, o.inter_node, o.inter_node_bandwidth_gbps_per_gpu, o.mig_supported,
               o.region, o.datacenter_country,
               list_contains(CAST($eu AS VARCHAR[]), o.datacenter_country) AS is_eu_datacenter,
               p.parent_jurisdiction, p.eu_data_residency, p.hq_country, p.legal_seat_country, p.certifications,
               p.uptime_sla_pct, p.performance_sla, p.support_model, p.min_commitment, p.burst_capacity,
               p.parent_company,
               (SELECT string_agg(c.certification, ';' ORDER BY c.certification) FROM certification_scopes c
                 WHERE c.provider_id = o.provider_id AND c.covers_gpu_compute = 'yes'
                   AND (coalesce(c.scope_countries, '') = ''
                        OR list_contains(string_split(c.scope_countries, ';'), o.datacenter_country)))
                   AS certifications_in_scope,
               s.memory_bandwidth_tbps, s.bf16_dense_tflops, s.fp8_dense_tflops, s.tdp_watts,
               s.nvlink_bandwidth_gb_per_s_bidirectional, s.mig_max_instances,
               piv.on_demand_eur_per_gpu_hour, piv.spot_eur_per_gpu_hour, piv.reserved_eur_per_gpu_hour,
               piv.quote_eur_per_gpu_hour,
               piv.reserved_term_months, piv.reserved_1y_eur_per_gpu_hour, piv.reserved_3y_eur_per_gpu_hour,
               piv.best_selected_eur_per_gpu_hour, piv.price_types,
               piv.native_currency, piv.price_retrieved_at,
               o.source_url, o.as_of, o.as_of_date, o.verification_status,
               o.as_of_date < $stale_before AS is_stale, o.notes,
               CASE WHEN o.verification_status <> 'claimed' AND o.as_of_date < $verified_after
                    THEN o.verification_status || ' on ' || o.as_of || ', not re-checked'
                    ELSE o.verification_status END AS verification_label,
               (o.verification_status <> 'claimed' AND o.as_of_date >= $verified_after) AS verification_current,
               o.instance_type, o.last_seen
        FROM offers o
        JOIN providers p USING (provider_id)
        LEFT JOIN gpu_specs s ON s.gpu_spec_id = o.gpu_spec_id
        LEFT JOIN piv USING (offer_id)
        WHERE (CAST($gpu_models AS VARCHAR[]) IS NULL OR list_contains(CAST($gpu_models AS VARCHAR[]), o.gpu_model))
          AND (CAST($form_factors AS VARCHAR[]) IS NULL
               OR list_contains(CAST($form_factors AS VARCHAR[]), coalesce(o.form_factor, $not_stated)))
          AND (CAST($intra_nodes AS VARCHAR[]) IS NULL
               OR list_contains(CAST($intra_nodes AS VARCHAR[]), coalesce(o.intra_node, $not_stated)))
          AND (CAST($inter_nodes AS VARCHAR[]) IS NULL
               OR list_contains(CAST($inter_nodes AS VARCHAR[]), coalesce(o.inter_node, $not_stated)))
          AND (CAST($memory_types AS VARCHAR[]) IS NULL
               OR list_contains(CAST($memory_types AS VARCHAR[]),
                                coalesce(o.memory_type, s.memory_type, $not_stated)))
          AND (NOT $eu_only OR coalesce(list_contains(CAST($eu AS VARCHAR[]), o.datacenter_country), false))
          AND (CAST($jurisdictions AS VARCHAR[]) IS NULL
               OR list_contains(CAST($jurisdictions AS VARCHAR[]), p.parent_jurisdiction))
          AND (CAST($price_types AS VARCHAR[]) IS NULL
               OR coalesce(list_has_any(piv.price_types, CAST($price_types AS VARCHAR[])), false))
          AND (CAST($max_price AS DOUBLE) IS NULL OR piv.best_selected_eur_per_gpu_hour <= CAST($max_price AS DOUBLE))
          AND (CAST($provider_ids AS VARCHAR[]) IS NULL
               OR list_contains(CAST($provider_ids AS VARCHAR[]), o.provider_id))
        ORDER BY piv.best_selected_eur_per_gpu_hour NULLS LAST, o.offer_id
        """
        return self.cursor().execute(sql, params).df()

    def filter_options(self) -> dict[str, list[str]]:
        """Distinct values for the filter widgets (categorical columns), sorted."""
        cur = self.cursor()

        def distinct(sql: str) -> list[str]:
            return [r[0] for r in cur.execute(sql).fetchall()]

        return {
            "gpu_models": distinct("SELECT DISTINCT gpu_model FROM offers ORDER BY 1"),
            "providers": distinct("SELECT provider_id FROM providers ORDER BY 1"),
            "jurisdictions": distinct("SELECT DISTINCT parent_jurisdiction FROM providers ORDER BY 1"),
        }

    def summary(self, today: dt.date | None = None) -> dict[str, int | str]:
        """Catalog size and freshness for the Home page (public prices only, as every statistic below)."""
        today = today or dt.date.today()
        stale_before = today - dt.timedelta(days=STALE_AFTER_DAYS)
        cur = self.cursor()
        q = """SELECT
            (SELECT count(*) FROM providers) AS providers,
            (SELECT count(*) FROM offers) AS offers,
            (SELECT count(*) FROM prices WHERE valid_to IS NULL AND NOT is_private) AS current_prices,
            (SELECT count(*) FROM gpu_specs) AS gpu_specs,
            (SELECT count(*) FROM providers WHERE as_of_date < $sb) AS stale_providers,
            (SELECT count(*) FROM offers WHERE as_of_date < $sb) AS stale_offers,
            (SELECT count(*) FROM prices WHERE valid_to IS NULL AND valid_from < $sb AND NOT is_private) AS stale_prices,
            (SELECT max(valid_from) FROM prices WHERE NOT is_private) AS newest_price,
            (SELECT min(valid_from) FROM prices WHERE valid_to IS NULL AND NOT is_private) AS oldest_current_price"""
        row = cur.execute(q, {"sb": stale_before}).fetchone()
        names = [d[0] for d in cur.description]
        return dict(zip(names, row, strict=True))

    def provider_coverage(self) -> pd.DataFrame:
        """Per provider: offers, and how many lack the fields decisions rest on; certifications stated."""
        return self.cursor().execute(
            """WITH public_prices AS (SELECT * FROM prices WHERE NOT is_private)
               SELECT p.provider_id, count(o.offer_id) AS offers,
                      count(o.offer_id) FILTER (WHERE o.inter_node IS NULL) AS missing_fabric,
                      count(o.offer_id) FILTER (WHERE o.form_factor IS NULL) AS missing_form_factor,
                      count(o.offer_id) FILTER (WHERE o.datacenter_country IS NULL) AS missing_country,
                      count(o.offer_id) FILTER (WHERE o.offer_id NOT IN (SELECT offer_id FROM public_prices
                            WHERE valid_to IS NULL AND price_type = 'reserved')) AS missing_reserved,
                      count(o.offer_id) FILTER (WHERE o.offer_id IN (SELECT offer_id FROM public_prices
                            WHERE valid_to IS NULL AND price_type = 'reserved' AND term_months IN (12, 36))) AS with_1y_3y_commit,
                      count(o.offer_id) FILTER (WHERE o.offer_id IN (SELECT offer_id FROM public_prices
                            WHERE valid_to IS NULL AND currency = 'EUR')) AS eur_listed,
                      count(o.offer_id) FILTER (WHERE o.verification_status <> 'claimed') AS verified,
                      p.certifications <> '' AS has_certifications, p.legal_seat_country IS NOT NULL AS has_legal_seat
               FROM providers p LEFT JOIN offers o USING (provider_id)
               GROUP BY ALL ORDER BY offers DESC, p.provider_id"""
        ).df()

    def headline_coverage(self) -> pd.DataFrame:
        """The facts this product differentiates on, as "have / of" counts (the data report's first table)."""
        q = """
        WITH cur AS (SELECT * FROM prices WHERE valid_to IS NULL AND NOT is_private),
        multi AS (SELECT * FROM offers WHERE gpus_per_node >= 8 OR intra_node = 'NVLink-NVSwitch')
        SELECT 'multi-node-capable offers (8-GPU/NVSwitch nodes) stating their inter-node fabric' AS fact,
               (SELECT count(*) FROM multi WHERE inter_node IS NOT NULL) AS have, (SELECT count(*) FROM multi) AS "of"
        UNION ALL SELECT '... and their per-GPU fabric bandwidth',
               (SELECT count(*) FROM multi WHERE inter_node_bandwidth_gbps_per_gpu IS NOT NULL), (SELECT count(*) FROM multi)
        UNION ALL SELECT 'offers with a committed price (any term)',
               (SELECT count(DISTINCT offer_id) FROM cur WHERE price_type = 'reserved'), (SELECT count(*) FROM offers)
        UNION ALL SELECT 'offers with a 1-year or 3-year committed price',
               (SELECT count(DISTINCT offer_id) FROM cur WHERE price_type = 'reserved' AND term_months IN (12, 36)),
               (SELECT count(*) FROM offers)
        UNION ALL SELECT 'committed prices stating their upfront share',
               (SELECT count(*) FROM cur WHERE price_type = 'reserved' AND upfront_pct IS NOT NULL),
               (SELECT count(*) FROM cur WHERE price_type = 'reserved')
        UNION ALL SELECT 'providers with a 1-year or 3-year committed price',
               (SELECT count(DISTINCT o.provider_id) FROM cur JOIN offers o USING (offer_id)
                 WHERE price_type = 'reserved' AND term_months IN (12, 36)), (SELECT count(*) FROM providers)
        UNION ALL SELECT 'offers listed in EUR',
               (SELECT count(DISTINCT offer_id) FROM cur WHERE currency = 'EUR'), (SELECT count(*) FROM offers)
        UNION ALL SELECT 'providers with EUR list prices',
               (SELECT count(DISTINCT o.provider_id) FROM cur JOIN offers o USING (offer_id) WHERE currency = 'EUR'),
               (SELECT count(*) FROM providers)
        UNION ALL SELECT 'providers with certifications on record',
               (SELECT count(*) FROM providers WHERE certifications <> ''), (SELECT count(*) FROM providers)
        UNION ALL SELECT 'providers with a legal seat on record',
               (SELECT count(*) FROM providers WHERE legal_seat_country IS NOT NULL), (SELECT count(*) FROM providers)
        UNION ALL SELECT 'offers read from the provider''s own page (verified)',
               (SELECT count(*) FROM offers WHERE verification_status <> 'claimed'), (SELECT count(*) FROM offers)
        """
        return self.cursor().execute(q).df()

    def price_age_histogram(self, today: dt.date | None = None) -> pd.DataFrame:
        """Current prices by age band (days since ``valid_from``)."""
        today = today or dt.date.today()
        return self.cursor().execute(
            """SELECT CASE WHEN age <= 30 THEN '0-30 d' WHEN age <= 90 THEN '31-90 d' WHEN age <= 180 THEN '91-180 d'
                           WHEN age <= 365 THEN '181-365 d' ELSE '> 1 year' END AS age_band,
                      count(*) AS prices, min(age) AS youngest_days, max(age) AS oldest_days
               FROM (SELECT date_diff('day', valid_from, $today) AS age FROM prices
                     WHERE valid_to IS NULL AND NOT is_private)
               GROUP BY 1 ORDER BY min(age)""",
            {"today": today},
        ).df()

    def offer_field_coverage(self) -> pd.DataFrame:
        """For each offer field that decisions rest on: how many offers lack it."""
        q = """SELECT
            count(*) AS offers,
            count(*) FILTER (WHERE form_factor IS NULL) AS form_factor,
            count(*) FILTER (WHERE gpu_spec_id IS NULL) AS gpu_spec,
            count(*) FILTER (WHERE gpus_per_node IS NULL) AS gpus_per_node,
            count(*) FILTER (WHERE intra_node IS NULL) AS intra_node,
            count(*) FILTER (WHERE inter_node IS NULL) AS inter_node,
            count(*) FILTER (WHERE inter_node_bandwidth_gbps_per_gpu IS NULL) AS inter_node_bandwidth,
            count(*) FILTER (WHERE datacenter_country IS NULL) AS datacenter_country,
            count(*) FILTER (WHERE offer_id NOT IN (SELECT offer_id FROM prices WHERE valid_to IS NULL
                                                    AND NOT is_private)) AS hourly_price,
            count(*) FILTER (WHERE offer_id NOT IN (SELECT offer_id FROM prices WHERE valid_to IS NULL
                                                    AND price_type = 'reserved' AND NOT is_private)) AS reserved_price
            FROM offers"""
        cur = self.cursor()
        row = cur.execute(q).fetchone()
        names = [d[0] for d in cur.description]
        total = row[0]
        data = [
            {"field": n.replace("_", " "), "offers_missing": v, "missing_pct": 100.0 * v / total if total else 0.0}
            for n, v in zip(names[1:], row[1:], strict=True)
        ]
        return pd.DataFrame(data)
