"""The Editor page's logic: column configuration from the models, and data-editor edits → change sets."""

from __future__ import annotations

import datetime as dt
import enum
import json
import types
import typing

import pandas as pd
import streamlit as st

from catalog.cells import clean_value
from catalog.models import TABLE_KEYS, TABLE_MODELS, RowChange
from ui.labels import TABLE_LABELS

#: The tables the editor edits, in tab order (their labels: ui.labels.TABLE_LABELS).
EDITABLE_TABLES = tuple(TABLE_LABELS)
META = ["row_version", "updated_by"]
#: Price fields whose change makes a *new* price row (history is kept: the old row is closed).
PRICE_FIELDS = {"amount_per_gpu_hour", "currency", "price_type", "term_months", "upfront_pct"}


def _base_type(annotation):
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _base_type(args[0]) if args else annotation
    if origin is typing.Annotated:
        return _base_type(typing.get_args(annotation)[0])
    return annotation


def column_config(table: str) -> dict:
    """Streamlit column configuration derived from the table's pydantic model."""
    model = TABLE_MODELS[table]
    config: dict = {}
    for name, info in model.model_fields.items():
        base = _base_type(info.annotation)
        required = info.is_required()
        label = name.replace("_", " ")
        bounds = {}
        for meta in info.metadata:
            for attr, key in (("ge", "min_value"), ("gt", "min_value"), ("le", "max_value"), ("lt", "max_value")):
                if getattr(meta, attr, None) is not None:
                    bounds[key] = getattr(meta, attr)
        if isinstance(base, type) and issubclass(base, enum.Enum):
            config[name] = st.column_config.SelectboxColumn(label, options=[e.value for e in base], required=required)
        elif base in (int, float):
            config[name] = st.column_config.NumberColumn(label, required=required, format="%d" if base is int else None,
                                                         **bounds)
        elif base is bool:
            config[name] = st.column_config.CheckboxColumn(label)
        elif base is dt.date:
            config[name] = st.column_config.DateColumn(label, required=required)
        elif name.endswith("source_url"):
            config[name] = st.column_config.LinkColumn(label, required=required, validate=r"^https?://\S+$")
        else:
            config[name] = st.column_config.TextColumn(label, required=required)
    key = TABLE_KEYS[table]
    config[key] = st.column_config.TextColumn(key.replace("_", " "), required=True, pinned=True)
    config["row_version"] = st.column_config.NumberColumn("version", disabled=True)
    config["updated_by"] = st.column_config.TextColumn("updated by", disabled=True)
    return config


def editable_frame(df: pd.DataFrame, table: str) -> pd.DataFrame:
    cols = [c for c in TABLE_MODELS[table].model_fields if c in df.columns] + [c for c in META if c in df.columns]
    return df[cols].reset_index(drop=True)


def _row_values(row: pd.Series, table: str) -> dict:
    fields = TABLE_MODELS[table].model_fields
    return {k: clean_value(v) for k, v in row.items() if k in fields}


def _new_price_id(values: dict, today: dt.date, taken: set[str]) -> str:
    base = f"{values['offer_id']}:{values['price_type']}:{values.get('term_months') or ''}:{today.isoformat()}"
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}:{n}"
    taken.add(candidate)
    return candidate


class MissingProvenanceError(ValueError):
    """A price was changed without naming where and when the new price was read."""


def changes_from_editor(table: str, original: pd.DataFrame, state: dict, today: dt.date | None = None,
                        taken_ids: set[str] | None = None) -> list[RowChange]:
    """Turn ``st.data_editor`` state (edited_rows / added_rows / deleted_rows) into row changes.

    A changed price amount, currency, type, term or upfront share never overwrites the old price: the old
    row is closed (``valid_to`` = today) and a new row is added from today.
    """
    today = today or dt.date.today()
    key_col = TABLE_KEYS[table]
    changes: list[RowChange] = []
    taken = set(original[key_col]) if key_col in original else set()
    taken |= taken_ids or set()  # closed price rows keep their ids: a new price must not reuse one
    for idx, edits in (state.get("edited_rows") or {}).items():
        row = original.iloc[int(idx)]
        values = _row_values(row, table)
        values.update({k: clean_value(v) for k, v in edits.items() if k not in META})
        version = int(row["row_version"])
        if table == "prices" and PRICE_FIELDS & set(edits):
            if not {"source_url", "retrieved_at"} <= set(edits):
                # The old row's source and date would vouch for a price they never stated (#15, item 8).
                raise MissingProvenanceError(
                    f"Price {row[key_col]}: a new amount needs its own source — change source url and retrieved at "
                    "in the same row (where and when you read the new price).")
            closed = _row_values(row, table) | {"valid_to": today}
            changes.append(RowChange(table=table, action="update", key=row[key_col], values=closed, expected_version=version))
            values["valid_from"], values["valid_to"] = today, None
            values["last_seen"], values["last_seen_source_url"] = None, None
            values[key_col] = _new_price_id(values, today, taken)
            changes.append(RowChange(table=table, action="insert", key=values[key_col], values=values))
        else:
            changes.append(RowChange(table=table, action="update", key=row[key_col], values=values, expected_version=version))
    for added in state.get("added_rows") or []:
        values = {k: clean_value(v) for k, v in added.items() if k not in META}
        if table == "prices" and not values.get(key_col) and values.get("offer_id") and values.get("price_type"):
            values.setdefault("valid_from", today)
            values[key_col] = _new_price_id(values, values["valid_from"] if isinstance(values["valid_from"], dt.date) else today, taken)
        changes.append(RowChange(table=table, action="insert", key=str(values.get(key_col) or "(new row)"), values=values))
    for idx in state.get("deleted_rows") or []:
        row = original.iloc[int(idx)]
        changes.append(RowChange(table=table, action="delete", key=row[key_col], expected_version=int(row["row_version"])))
    return changes


def diff_table(log: pd.DataFrame) -> pd.DataFrame:
    """One line per changed field: table, key, action, field, before, after."""
    lines = []
    for r in log.itertuples():
        before = json.loads(r.before_json) if isinstance(r.before_json, str) else {}  # NaN/None: no row before
        after = json.loads(r.after_json) if isinstance(r.after_json, str) else {}
        fields = sorted(set(before) | set(after))
        changed = [f for f in fields if before.get(f) != after.get(f)] if r.action == "update" else ["(row)"]
        for f in changed:
            lines.append({
                "table": r.table_name, "key": r.row_key, "action": r.action, "field": f,
                "before": "—" if r.action == "insert" else (str(before.get(f)) if f != "(row)" else "existed"),
                "after": "—" if r.action == "delete" else (str(after.get(f)) if f != "(row)" else "added"),
            })
    return pd.DataFrame(lines, columns=["table", "key", "action", "field", "before", "after"])
