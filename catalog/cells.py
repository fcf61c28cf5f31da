"""Spreadsheet-safe text: the one helper every export uses against formula injection (issue #15).

A cell whose text starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read by Excel,
LibreOffice and Google Sheets as a formula (OWASP "CSV injection"); openpyxl even writes such a string as a
live formula. :func:`neutralise` prefixes those texts with an apostrophe, which spreadsheets show as text.
It is reversible: :func:`restore` (used by the catalog import) removes exactly the apostrophe it added, so a
catalog exported and imported again is unchanged. Numbers, dates and empty cells are left alone.
"""

from __future__ import annotations

import re

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
