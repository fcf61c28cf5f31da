"""Cell values: spreadsheet-safe text, and a frame cell as a plain Python value for a catalog row.

Spreadsheet-safe text is the one helper every export uses against formula injection (issue #15).

A cell whose text starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read by Excel,
LibreOffice and Google Sheets as a formula (OWASP "CSV injection"); openpyxl even writes such a string as a
live formula. :func:`neutralise` prefixes those texts with an apostrophe, which spreadsheets show as text.
It is reversible: :func:`restore` (used by the catalog import) removes exactly the apostrophe it added, so a
catalog exported and imported again is unchanged. Numbers, dates and empty cells are left alone.

:func:`clean_value` is the one conversion of a DataFrame cell (an edited grid, a refresh file) into the value a
catalog row or a pydantic model takes: None for a gap, a date for a timestamp, a Python scalar for a numpy one
(the editor, the price refresh and the Placement grid use it; ``catalog`` may not import ``ui``, so it lives here).
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
#: Text that :func:`neutralise` prefixes: a trigger, possibly after apostrophes (so that text which already
#: starts with apostrophes round-trips too).
_RISKY = re.compile(r"^'*[=+\-@\t\r]")
_NEUTRALISED = re.compile(r"^'+[=+\-@\t\r]")


def neutralise(value: object) -> object:
    """``value`` made safe for a spreadsheet cell (an apostrophe before risky text); other values unchanged."""
    if isinstance(value, str) and _RISKY.match(value):
        return "'" + value
    return value


def restore(value: object) -> object:
    """Undo :func:`neutralise` (for imports of files this app exported)."""
    if isinstance(value, str) and _NEUTRALISED.match(value):
        return value[1:]
    return value


def neutralise_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with every text cell and the column names neutralised."""
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col]):
            out[col] = out[col].map(neutralise)
    out.columns = [neutralise(c) if isinstance(c, str) else c for c in out.columns]
    return out


def clean_value(value: object, *, strip_text: bool = False) -> Any:
    """A DataFrame cell as a plain Python value: None for a gap (None, NaN, NaT, ``pd.NA``), a ``datetime.date``
    for a pandas Timestamp, a Python scalar for a numpy one (``.item()``); other values unchanged. With
    ``strip_text``, text is stripped and blank text is a gap (typed grid cells). Typed ``Any``: the value is
    whatever the cell held, as the row's field takes it.

    >>> import numpy as np
    >>> [clean_value(v) for v in (None, float("nan"), pd.NaT, np.int64(3), pd.Timestamp("2025-01-02"), " a ")]
    [None, None, None, 3, datetime.date(2025, 1, 2), ' a ']
    >>> [clean_value(v, strip_text=True) for v in (" a ", "  ", np.bool_(True))]
    ['a', None, True]
    """
    if value is None:
        return None
    if strip_text and isinstance(value, str):
        return value.strip() or None
    try:
        if pd.isna(value):  # type: ignore[call-overload]  # scalars only; arrays raise below and stay values
            return None
    except (TypeError, ValueError):
        pass
    if isinstance(value, pd.Timestamp):
        return value.date()
    if hasattr(value, "item"):
        return value.item()
    return value
