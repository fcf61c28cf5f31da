"""Import and export of catalog tables (no SQL here: the store applies the resulting change set).

Formats read:

* **our own export** — one CSV per table, or an Excel workbook with one sheet per table (sheet name =
  table name), columns = the table's model fields;
* **SkyPilot** ``vms.csv`` and **dstack gpuhunt** CSV are recognised here (:func:`detect_format`) and
  handed to :mod:`catalog.refresh`, which matches them to existing offers and keeps price history.

An import is first a *preview*: added / changed / removed rows and a validation report. Applying it is
one all-or-nothing change set through :meth:`catalog.store.CatalogStore.apply_changes`.
"""

from __future__ import annotations

import datetime as dt
import io
from dataclasses import dataclass, field

import pandas as pd
from pydantic import ValidationError

from catalog.cells import neutralise_frame, restore
from catalog.models import TABLE_KEYS, TABLE_MODELS, RowChange, as_of_lower_bound

MAX_IMPORT_BYTES = 20 * 1024 * 1024
SKYPILOT_COLUMNS = {"InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region"}
GPUHUNT_COLUMNS = {"instance_name", "location", "price", "gpu_count", "gpu_name"}
_META = {"row_version", "updated_by", "as_of_date"}
#: Price fields whose change makes a new price row (the old one is closed, history kept).
PRICE_FIELDS = ("amount_per_gpu_hour", "currency", "price_type", "term_months", "upfront_pct")


class ImportFormatError(ValueError):
    """The file cannot be read as any supported format; the message says why."""


@dataclass
class ImportPreview:
    table: str
    changes: list[RowChange] = field(default_factory=list)
    problems: list[tuple[str, str, str]] = field(default_factory=list)  # (row, column, reason)
    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems and bool(self.changes)


def read_table_file(data: bytes, filename: str) -> dict[str, pd.DataFrame]:
    """Frames by sheet (Excel) or one frame keyed ``""`` (CSV). Raises :class:`ImportFormatError`."""
    if len(data) == 0:
        raise ImportFormatError("The file is empty.")
    if len(data) > MAX_IMPORT_BYTES:
        raise ImportFormatError(f"The file is {len(data) / 1e6:.0f} MB; imports are limited to "
                                f"{MAX_IMPORT_BYTES / 1e6:.0f} MB. Split it by table or provider.")
    try:
        if filename.lower().endswith((".xlsx", ".xlsm")):
            sheets = pd.read_excel(io.BytesIO(data), sheet_name=None, dtype=object)
            return {name: df for name, df in sheets.items()}
        return {"": pd.read_csv(io.BytesIO(data), dtype=object, keep_default_na=False, na_values=[""])}
    except Exception as exc:  # parser errors of many kinds: report, never crash
        raise ImportFormatError(f"The file could not be read as {'Excel' if filename.lower().endswith('.xlsx') else 'CSV'}: "
                                f"{str(exc).splitlines()[0][:200]}") from exc


def detect_format(frame: pd.DataFrame) -> str:
    cols = set(frame.columns)
    if SKYPILOT_COLUMNS <= cols:
        return "skypilot"
    if GPUHUNT_COLUMNS <= cols:
        return "gpuhunt"
    for table, model in TABLE_MODELS.items():
        if TABLE_KEYS[table] in cols and cols - _META <= set(model.model_fields):
            return table
    return "unknown"


def _cell(value):
    if value is None:
        return None
    try:
        if pd.isna(value):  # NaN, NaT and pandas' NA alike
            return None
    except (TypeError, ValueError):  # list-like cells
        pass
    if isinstance(value, pd.Timestamp):
        return value.date()
    if isinstance(value, str) and value.strip() == "":
        return None
    return restore(value)  # an apostrophe our export put before "=", "+", "-", "@" (catalog.cells)


def _normalise(row: dict, table: str) -> dict:
    return TABLE_MODELS[table].model_validate(row).model_dump(mode="json")


def preview_table_import(frame: pd.DataFrame, table: str, current: pd.DataFrame, *,
                         complete: bool = False) -> ImportPreview:
    """Compare a file's rows with the catalog's ``current`` rows of ``table`` (with ``row_version``).

    ``complete=True`` means the file is the whole table: catalog rows missing from it are removed.
    """
    preview = ImportPreview(table=table)
    model, key = TABLE_MODELS[table], TABLE_KEYS[table]
    fields = set(model.model_fields)
    missing = sorted(c for c in fields if model.model_fields[c].is_required() and c not in frame.columns)
    unknown = sorted(set(frame.columns) - fields - _META)
    if missing:
        preview.problems.append(("file", ", ".join(missing), "required column(s) missing"))
    if unknown:
        preview.problems.append(("file", ", ".join(unknown), f"not a column of {table}"))
    if preview.problems:
        return preview
    current_by_key = {r[key]: r for r in current.to_dict("records")}
    seen: set[str] = set()
    for i, raw in enumerate(frame.to_dict("records"), start=2):
        values = {k: _cell(v) for k, v in raw.items() if k in fields}
        row_key = str(values.get(key) or "")
        where = f"line {i} ({row_key or 'no key'})"
        if not row_key:
            preview.problems.append((where, key, "the key is empty"))
            continue
        if row_key in seen:
            preview.problems.append((where, key, "duplicate key in the file"))
            continue
        seen.add(row_key)
        try:
            new = _normalise(values, table)
        except ValidationError as exc:
            for e in exc.errors():
                preview.problems.append((where, ".".join(map(str, e["loc"])) or "row", e["msg"]))
            continue
        except (TypeError, ValueError) as exc:
            preview.problems.append((where, "row", f"cannot read the row: {exc}"))
            continue
        existing = current_by_key.get(row_key)
        if existing is None:
            preview.changes.append(RowChange(table=table, action="insert", key=row_key, values=new))
            preview.added += 1
            continue
        old = _normalise({k: _cell(v) for k, v in existing.items() if k in fields}, table)
        if old == new:
            preview.unchanged += 1
        elif table == "prices" and any(old.get(f) != new.get(f) for f in PRICE_FIELDS):
            # A new amount is a new price: close the old row, add one with its own source and date (#15.8).
            if new["source_url"] == old["source_url"] and new["retrieved_at"] == old["retrieved_at"]:
                preview.problems.append((where, "amount_per_gpu_hour",
                                         "the price changed but source_url and retrieved_at are the old price's: "
                                         "a new price needs its own source and date"))
                continue
            since = as_of_lower_bound(new["retrieved_at"]).isoformat()
            if since <= old["valid_from"]:
                preview.problems.append((where, "retrieved_at", f"the new price must be retrieved after the old one "
                                                                f"took effect ({old['valid_from']})"))
                continue
            preview.changes.append(RowChange(table=table, action="update", key=row_key,
                                             values={**old, "valid_to": since},
                                             expected_version=int(existing["row_version"])))
            new_id = _free_id(f"{new['offer_id']}:{new['price_type']}:{new.get('term_months') or ''}:{since}",
                              set(current_by_key) | seen)
            seen.add(new_id)
            preview.changes.append(RowChange(table=table, action="insert", key=new_id,
                                             values={**new, "price_id": new_id, "valid_from": since,
                                                     "valid_to": None, "last_seen": None,
                                                     "last_seen_source_url": None}))
            preview.changed += 1
        else:
            preview.changes.append(RowChange(table=table, action="update", key=row_key, values=new,
                                             expected_version=int(existing["row_version"])))
            preview.changed += 1
    if complete:
        for row_key, existing in current_by_key.items():
            if row_key not in seen:
                preview.changes.append(RowChange(table=table, action="delete", key=row_key,
                                                 expected_version=int(existing["row_version"])))
                preview.removed += 1
    return preview


def _free_id(base: str, taken: set[str]) -> str:
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}:{n}"
    return candidate


def export_csv(frame: pd.DataFrame) -> bytes:
    # CRLF rows (RFC 4180): the csv writer then quotes a cell holding a bare CR, which would otherwise split the row.
    return neutralise_frame(frame).to_csv(index=False, lineterminator="\r\n").encode("utf-8")


def export_excel(frames: dict[str, pd.DataFrame]) -> bytes:
    buf = io.BytesIO()
    with pd.ExcelWriter(buf, engine="openpyxl") as writer:
        for name, frame in frames.items():
            out = neutralise_frame(frame)
            for col in out.columns:
                if out[col].dtype == object:
                    out[col] = out[col].map(lambda v: v.isoformat() if isinstance(v, dt.date) else v)
            out.to_excel(writer, sheet_name=name[:31], index=False)
    return buf.getvalue()
