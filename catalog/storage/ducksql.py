"""DuckDB cursor helpers shared by the embedded backend and the read snapshot of the PostgreSQL backend."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from catalog.models import TABLE_KEYS


@contextmanager
def registered(cur: Any, name: str, data: Any) -> Iterator[str]:
    """Make ``data`` (an Arrow table) visible to SQL as ``name`` for the duration of the block."""
    cur.register(name, data)
    try:
        yield name
    finally:
        cur.unregister(name)


def column_types(cur: Any, table: str) -> dict[str, str]:
    """Column -> DuckDB data type of ``table`` in the open database."""
    return dict(cur.execute(
        "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? AND database_name = current_database()",
        [table]).fetchall())


_ARROW_TYPES = {"VARCHAR": "string", "DOUBLE": "float64", "INTEGER": "int64", "BIGINT": "int64", "BOOLEAN": "bool_",
                "DATE": "date32"}


def arrow_table(records: list[dict], columns: list[str], types: dict[str, str]) -> Any:
    """Rows as an Arrow table with the catalog column types (no type guessing from the first rows)."""
    import pyarrow as pa

    return pa.table({c: pa.array([r.get(c) for r in records], type=getattr(pa, _ARROW_TYPES[types[c]])())
                     for c in columns})


def fetch_rows(cur: Any, table: str, keys: list[str]) -> dict[str, dict]:
    """Current rows of ``table`` with these keys (one query, however many keys)."""
    if not keys:
        return {}
    import pyarrow as pa

    key_col = TABLE_KEYS[table]
    wanted = pa.table({"k": pa.array(sorted(set(keys)), type=pa.string())})
    with registered(cur, "_wanted_keys", wanted):
        cur.execute(f"SELECT t.* FROM {table} t JOIN _wanted_keys w ON t.{key_col} = w.k")
        names = [d[0] for d in cur.description]
        fetched = cur.fetchall()
    return {r[names.index(key_col)]: dict(zip(names, r, strict=True)) for r in fetched}


