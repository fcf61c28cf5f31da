"""One definition for each count the pages, the exports and the data report state about the catalog (issue #27.17).

* **Stale price** — an offer's price is stale when its newest current price was retrieved
  (``price_retrieved_at``; the offer's own ``as_of`` date when no retrieval date is stated) more than
  :data:`STALE_AFTER_DAYS` days before today (:func:`stale_price_mask`). Counted in offers, never in price rows:
  an offer with an on-demand and a reserved price is one offer.
* **Providers with offers** — distinct providers among the offers counted (:func:`providers_with_offers`); a
  provider on record without an offer is not one.
* **Offers in scope** (offers meeting the client brief) need the brief, which lives in the app's scenario: that
  definition is :func:`ui.brief_scope.meets_brief`, counted with these two by :mod:`ui.catalog_counts`.

Pure functions over the offers frame the store hands out (:meth:`catalog.store.CatalogStore.list_offers`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np
import pandas as pd

from catalog.cells import clean_value
from catalog.storage.common import STALE_AFTER_DAYS


def _date(value: object) -> pd.Timestamp | None:
    """The earliest day a catalog date means ('2026' -> 2026-01-01, '2026-10' -> 2026-10-01); None if missing."""
    if clean_value(value) is None:  # a gap: None, NaN, NaT, pd.NA
        return None
    try:
        return pd.Timestamp(str(value)[:10])
    except ValueError:
        return None


def price_date(row: pd.Series | dict) -> pd.Timestamp | None:
    """When the offer's current price was retrieved (``price_retrieved_at``), else when the offer was observed."""
    return _date(row.get("price_retrieved_at")) or _date(row.get("as_of_date")) or _date(row.get("as_of"))


def price_age_days(row: pd.Series | dict, today: dt.date | None = None) -> int | None:
    """Days since :func:`price_date` (None when no date is stated)."""
    when = price_date(row)
    return None if when is None else int((pd.Timestamp(today or dt.date.today()) - when).days)


def is_stale_age(days: int | None) -> bool:
    """The staleness rule on an age in days: older than STALE_AFTER_DAYS (an undated price is not counted stale)."""
    return days is not None and days > STALE_AFTER_DAYS


def _parse_dates(values: pd.Series) -> pd.Series:
    """:func:`_date` of every value, vectorised (NaT where missing or not a date)."""
    return pd.to_datetime(values.astype("string").str.slice(0, 10), format="ISO8601", errors="coerce")


def _date_column(offers: pd.DataFrame, name: str) -> pd.Series:
    """:func:`_parse_dates` of one column (all NaT when the frame has no such column)."""
    if name not in offers.columns:
        return pd.Series(pd.NaT, index=offers.index, dtype="datetime64[ns]")
    return _parse_dates(offers[name])


def _stale(when: pd.Series, today: dt.date | None) -> pd.Series:
    """:func:`is_stale_age` of each date, vectorised (NA where there is no date)."""
    days = (pd.Timestamp(today or dt.date.today()) - when).dt.days
    return (days > STALE_AFTER_DAYS).astype("boolean").mask(when.isna())


def stale_dates(dates: pd.Series, today: dt.date | None = None) -> pd.Series:
    """Per catalog date (``retrieved_at`` text), whether it is stale under :func:`is_stale_age`; NA where no date
    is given (no price of that type)."""
    return _stale(_parse_dates(dates), today)


def stale_price_mask(offers: pd.DataFrame, today: dt.date | None = None) -> np.ndarray:
    """Which offers' price is stale (bool array, one per row): the one definition of a stale price
    (:func:`price_date` and :func:`is_stale_age`, vectorised over the rows: this runs on every page's rerun)."""
    if offers.empty:
        return np.zeros(0, dtype=bool)
    when = _date_column(offers, "price_retrieved_at")
    for fallback in ("as_of_date", "as_of"):
        when = when.fillna(_date_column(offers, fallback))
    return _stale(when, today).fillna(False).to_numpy(dtype=bool)


def providers_with_offers(offers: pd.DataFrame) -> int:
    """How many distinct providers the offers come from."""
    return int(offers["provider_id"].nunique()) if len(offers) else 0


@dataclass(frozen=True)
class OfferCounts:
    """The counts of one set of offers, by the definitions above."""

    offers: int
    providers: int
    stale_prices: int  # offers whose price is stale

    def text(self, *, why: bool = True) -> str:
        """'258 offers from 23 providers · 73 with a stale price (retrieved more than 180 days ago)'; ``why=False``
        leaves out the parenthesis (a second line under one that states it)."""
        return (f"{self.offers} offer{'s' * (self.offers != 1)} from {self.providers} provider"
                f"{'s' * (self.providers != 1)} · {self.stale_prices} with a stale price"
                + (f" (retrieved more than {STALE_AFTER_DAYS} days ago)" if why else ""))


def offer_counts(offers: pd.DataFrame, today: dt.date | None = None) -> OfferCounts:
    """Offers, providers with offers and stale prices of ``offers``."""
    return OfferCounts(len(offers), providers_with_offers(offers), int(stale_price_mask(offers, today).sum()))


_TABLE_WORDS = {"providers": "provider", "offers": "offer", "prices": "price", "provider_facts": "provider fact"}


def stale_rows_text(stale_rows: pd.DataFrame, counts: OfferCounts) -> str:
    """The re-verification list's size by table, and how it relates to the stale-price count every page states:
    '**316 rows to re-verify** (observed more than 180 days ago): 12 provider, 93 offer, 140 price and 71 provider
    fact rows. Stale prices as every page counts them: 73 of 258 offers (…)'. ``stale_rows`` is
    :meth:`catalog.store.CatalogStore.stale_rows`."""
    by_table = stale_rows["table_name"].value_counts() if len(stale_rows) else pd.Series(dtype=int)
    parts = [f"{int(by_table[t])} {w}" for t, w in _TABLE_WORDS.items() if t in by_table.index]
    listed = (", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else "".join(parts)) + " rows"
    return (f"**{len(stale_rows)} rows to re-verify** (observed more than {STALE_AFTER_DAYS} days ago)"
            f"{': ' + listed if parts else ''}. Stale prices as every page counts them: {counts.stale_prices} of "
            f"{counts.offers} offers (their newest current price retrieved more than {STALE_AFTER_DAYS} days ago; a "
            "price row listed here can belong to an offer with a newer price of another type).")
