"""Change sets, restore and key renames: validated, all-or-nothing, logged (the catalog's write path).

Written once for every backend: the set-wise statements that differ between DuckDB and PostgreSQL are the
hooks of :class:`catalog.storage.common.StoreBase` (``_fetch_written``, ``_delete_keys``, ``_insert_records``,
``_update_records``, ``_insert_log``); validation reads the DuckDB view of the catalog (``_read_cursor``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from catalog.errors import (
    CatalogError,
    CatalogPermissionError,
    ChangeValidationError,
    ConflictError,
    StaleChangeSetError,
)
from catalog.models import (
    REFERENCES,
    TABLE_KEYS,
    TABLE_MODELS,
    TABLE_ORDER,
    ChangeSet,
    Editor,
    Role,
    RowChange,
    certification_tokens,
)
from catalog.rules import Finding, RuleContext, check_rows
from catalog.storage.common import (
    META_COLUMNS,
    TABLE_COLUMNS,
    ApplyResult,
    StoreBase,
    jsonable,
    row_content,
    store_write,
    stored_row,
)
from catalog.storage.ducksql import fetch_rows

Progress = Callable[[float, str], None]


def get_row(cur, table: str, key: str) -> dict | None:
    """The current row of ``table`` with this key, as a dict (None when there is none)."""
    key_col = TABLE_KEYS[table]
    cur.execute(f"SELECT * FROM {table} WHERE {key_col} = ?", [key])
    row = cur.fetchone()
    if row is None:
        return None
    return dict(zip([d[0] for d in cur.description], row, strict=True))


def db_rule_context(cur, usd_per_eur: float) -> RuleContext:
    """The hardware-truth rules' context read from the open transaction (specs, models, aliases, current prices)."""
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
        values = {k: v for k, v in change.values.items() if k not in META_COLUMNS}
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
    ctx = db_rule_context(cur, usd_per_eur)
    # Rows added in the same change set count as known (a new GPU model with its offers, an offer with its prices).
    for change, added in zip(changes, rows, strict=True):
        if added is not None and change.table == "gpu_models":
            ctx.gpu_models.add(added["gpu_model"])
        if added is not None and change.table == "offers":
            ctx.offer_gpu_model[added["offer_id"]] = added["gpu_model"]
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


def rollback_if_open(cur: Any, db_errors: tuple[type[BaseException], ...]) -> None:
    """Roll back if a transaction is still open. When COMMIT itself failed there is none left, and the
    error worth reporting is the original one, never "cannot rollback" (issue #15, item 9)."""
    try:
        cur.execute("ROLLBACK")
    except db_errors:
        pass



def _changed_columns(current: dict, new: dict, table: str) -> list[str]:
    """Columns whose stored value differs: an UPDATE writes only these (issue #16, item 1)."""
    key_col = TABLE_KEYS[table]
    return [c for c in TABLE_COLUMNS[table]
            if c != key_col and c in new and jsonable(current.get(c)) != jsonable(new.get(c))]


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


def _apply(self: StoreBase, change_set: ChangeSet, editor: Editor, usd_per_eur: float,
           expected_data_version: int | None = None, progress: Progress | None = None) -> ApplyResult:
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
    with self._write_cursor() as cur:
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
        rows, warnings = _validate_change_set(self._read_cursor(), change_set.changes, usd_per_eur)
        report(0.35, "checking row versions")
        cur.execute("BEGIN TRANSACTION")
        try:
            change_set_id = cur.execute("SELECT coalesce(max(change_set_id), 0) + 1 FROM change_sets").fetchone()[0]
            cur.execute("INSERT INTO change_sets VALUES (?, now(), ?, ?, ?)",
                        [change_set_id, editor.name, change_set.kind, change_set.message])
            order = {t: i for i, t in enumerate(TABLE_ORDER)}
            # Deletes children first, then inserts/updates parents first.
            indexed = sorted(range(len(change_set.changes)), key=lambda i: (
                change_set.changes[i].action != "delete",
                -order[change_set.changes[i].table] if change_set.changes[i].action == "delete"
                else order[change_set.changes[i].table], i))
            by_table: dict[str, list[int]] = {}
            for i in indexed:
                by_table.setdefault(change_set.changes[i].table, []).append(i)
            current = {t: self._fetch_written(cur, t, [change_set.changes[i].key for i in idx])
                       for t, idx in by_table.items()}
            conflicts: list[dict] = []
            for i in indexed:
                change, row = change_set.changes[i], rows[i]
                now_row = current[change.table].get(change.key)
                if change.action == "insert" and now_row is not None:
                    conflicts.append({"table": change.table, "key": change.key, "expected_version": None,
                                      "current_version": now_row["row_version"], "theirs": row_content(now_row),
                                      "yours": row_content(row)})
                elif change.action in ("update", "delete") and (
                        now_row is None or now_row["row_version"] != change.expected_version):
                    conflicts.append({"table": change.table, "key": change.key,
                                      "expected_version": change.expected_version,
                                      "current_version": None if now_row is None else now_row["row_version"],
                                      "theirs": row_content(now_row), "yours": row_content(row)})
            if conflicts:
                raise ConflictError(conflicts)
            written: list[int] = []  # change indexes that touched a row, in log order
            touched_children: set[str] = set()
            deleted_parents: dict[str, set[str]] = {}
            phases = [("delete", t) for t in reversed(TABLE_ORDER)] + [
                (a, t) for t in TABLE_ORDER for a in ("insert", "update")]
            for n, (action, table) in enumerate(phases):
                idx = [i for i in by_table.get(table, []) if change_set.changes[i].action == action]
                if not idx:
                    continue
                report(0.4 + 0.45 * n / len(phases), f"{action} {len(idx)} {table} row(s)")
                cols = TABLE_COLUMNS[table]
                if action == "delete":
                    gone = [change_set.changes[i].key for i in idx]
                    self._delete_keys(cur, table, gone)
                    deleted_parents.setdefault(table, set()).update(gone)
                    written += idx
                elif action == "insert":
                    records = [{**stored_row(_row(rows, i), table), "updated_by": editor.name} for i in idx]
                    self._insert_records(cur, table, [*cols, "updated_by"], records)
                    touched_children.add(table)
                    written += idx
                else:
                    groups: dict[tuple[str, ...], list[dict]] = {}
                    for i in idx:
                        new = stored_row(_row(rows, i), table)
                        changed = tuple(_changed_columns(current[table][change_set.changes[i].key], new, table))
                        if changed:
                            groups.setdefault(changed, []).append(new)
                            written.append(i)
                    for changed, records in groups.items():
                        self._update_records(cur, table, changed, records, editor.name)
                    touched_children.add(table)
            report(0.88, "checking references")
            problems = _reference_problems(cur, touched_children, deleted_parents)
            if problems:
                raise ChangeValidationError(problems)
            report(0.9, "writing the change log")
            log_order = sorted(written, key=indexed.index)
            after_rows = {t: self._fetch_written(cur, t, [change_set.changes[i].key for i in log_order
                                                  if change_set.changes[i].table == t]) for t in by_table}
            log = []
            for seq, i in enumerate(log_order, start=1):
                change = change_set.changes[i]
                before = current[change.table].get(change.key)
                after = after_rows[change.table].get(change.key)
                log.append({"change_set_id": change_set_id, "seq": seq, "table_name": change.table,
                            "row_key": change.key, "action": change.action,
                            "before_json": None if before is None else json.dumps(row_content(before)),
                            "after_json": None if after is None else json.dumps(row_content(after))})
            if log:
                self._insert_log(cur, log)
            _sync_provider_columns(cur, change_set.changes, rows, change_set_id, len(log), editor.name)
            cur.execute("UPDATE catalog_meta SET value = CAST(CAST(value AS BIGINT) + 1 AS VARCHAR) WHERE key = 'data_version'")
            report(0.97, "committing")
            cur.execute("COMMIT")
        except self._constraint_errors as exc:
            rollback_if_open(cur, self._db_errors)
            raise ChangeValidationError([("change set", "constraint", str(exc).split("\n")[0])]) from exc
        except CatalogError:
            rollback_if_open(cur, self._db_errors)
            raise
        except self._db_errors as exc:
            rollback_if_open(cur, self._db_errors)
            raise CatalogError(f"Nothing was saved: the database refused the write ({type(exc).__name__}: "
                               f"{str(exc).splitlines()[0][:300]}).") from exc
        except BaseException:
            rollback_if_open(cur, self._db_errors)
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
        current = get_row(cur, "providers", provider_id)
        if current is None:
            continue
        facts = dict(cur.execute(
            "SELECT field, value FROM provider_facts WHERE provider_id = ? AND field IN (?, ?)",
            [provider_id, *_FACT_COLUMNS]).fetchall())
        seat = facts.get("legal_seat_country")
        certs = ";".join(certification_tokens(facts.get("certifications")))
        if current["legal_seat_country"] == seat and current["certifications"] == certs:
            continue
        cur.execute("UPDATE providers SET legal_seat_country = ?, certifications = ?, row_version = row_version + 1, "
                    "updated_by = ? WHERE provider_id = ?", [seat, certs, editor, provider_id])
        seq += 1
        after = get_row(cur, "providers", provider_id)
        cur.execute("INSERT INTO change_log VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [change_set_id, seq, "providers", provider_id, "update", json.dumps(row_content(current)),
                     json.dumps(row_content(after))])


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
        current[t] = fetch_rows(cur, t, [k for tt, k in first_state if tt == t])
    changes = []
    for (t, k), before in first_state.items():
        target = None if before is None else json.loads(before)
        now = current[t].get(k)
        if target is None and now is not None:
            changes.append(RowChange(table=t, action="delete", key=k, expected_version=now["row_version"]))
        elif target is not None and now is None:
            changes.append(RowChange(table=t, action="insert", key=k, values=target))
        elif target is not None and now is not None and row_content(now) != target:
            changes.append(RowChange(table=t, action="update", key=k, values=target, expected_version=now["row_version"]))
    return changes


def _row(rows: list[dict | None], i: int) -> dict:
    row = rows[i]
    assert row is not None, "validated rows of inserts and updates are never None"
    return row


class ChangeVerbs(StoreBase):
    """Write verbs of the catalog: change sets, key renames, restores (history reads: :mod:`queries`)."""

    @store_write
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

    @store_write
    def rename_key(self, table: str, old_key: str, new_key: str, editor: Editor, *, message: str) -> ApplyResult:
        """Change a row's key (an offer id, a GPU spec id, a GPU model name) and re-point every row that
        refers to it, as one validated, logged change set (the explicit operation for key changes;
        ordinary edits cannot change a key)."""
        renamable = {"offers", "gpu_specs", "gpu_models"}
        if table not in renamable:
            raise CatalogError(f"Keys of {table} cannot be renamed here (only {', '.join(sorted(renamable))}).")
        if editor.role != Role.EDITOR:
            raise CatalogPermissionError(f"{editor.name} is not an editor: nothing was renamed.")
        cur = self._read_cursor()
        row = get_row(cur, table, old_key)
        if row is None:
            raise CatalogError(f"No {table} row {old_key!r}: nothing was renamed.")
        key_col = TABLE_KEYS[table]
        values = {**row_content(row), key_col: new_key}
        changes = [RowChange(table=table, action="delete", key=old_key, expected_version=row["row_version"]),
                   RowChange(table=table, action="insert", key=new_key, values=values)]
        for child, col, parent in REFERENCES:
            if parent != table:
                continue
            ckey = TABLE_KEYS[child]
            for child_row in fetch_rows(cur, child, [r[0] for r in cur.execute(
                    f"SELECT {ckey} FROM {child} WHERE {col} = ?", [old_key]).fetchall()]).values():
                changes.append(RowChange(table=child, action="update", key=child_row[ckey],
                                         values={**row_content(child_row), col: new_key},
                                         expected_version=child_row["row_version"]))
        return _apply(self, ChangeSet(changes=changes, message=message), editor, 1.0)

    @store_write
    def restore(self, to_change_set_id: int, editor: Editor, *, table: str | None = None, key: str | None = None,
                message: str | None = None) -> ApplyResult | None:
        """Bring the whole catalog (or one table, or one row) back to its state after a change set.

        The restore is itself a logged change set; the log keeps everything. Returns None when there
        is nothing to change.
        """
        if editor.role != Role.EDITOR:
            raise CatalogPermissionError(f"{editor.name} is not an editor: nothing was restored.")
        with self._write_cursor():
            changes = _restore_changes(self._read_cursor(), to_change_set_id, table, key)
        if not changes:
            return None
        scope = "the catalog" if table is None else (f"{table}" if key is None else f"{table}:{key}")
        msg = message or f"restore {scope} to change set {to_change_set_id}"
        return _apply(self, ChangeSet(changes=changes, message=msg, kind="restore"), editor, 1.0)
