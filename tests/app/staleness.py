"""Price staleness computed by hand for page tests: the price's retrieval date (else the offer's date) more than
STALE_AFTER_DAYS before today."""

from __future__ import annotations

import datetime as dt

import pandas as pd

from catalog.store import STALE_AFTER_DAYS


def price_day(row: pd.Series) -> dt.date:
    value = row.get("price_retrieved_at")
    if value is None or pd.isna(value) or not str(value).strip():
        value = row.get("as_of_date")
    text = str(value)[:10]
    parts = [int(p) for p in text.split("-")] + [1, 1]
    return dt.date(parts[0], parts[1], parts[2])


def stale_by_hand(frame: pd.DataFrame) -> pd.Series:
    today = dt.date.today()
    return frame.apply(lambda r: (today - price_day(r)).days > STALE_AFTER_DAYS, axis=1)
