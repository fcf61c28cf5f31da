"""The catalog's counts as every page states them (issue #27.17): one definition each.

Offers, providers with offers and stale prices are :mod:`catalog.counts`; offers in scope are the offers meeting the
client brief, :func:`ui.brief_scope.meets_brief`. Home shows them as metrics, every page's brief banner in one line
(:func:`banner_line`), and a page that counts a subset (Providers' filtered offers, the Editor's rows to re-verify)
names the subset next to its number.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pandas as pd

from catalog.counts import OfferCounts, offer_counts, providers_with_offers, stale_price_mask
from ui import brief_scope
from ui.scenario import ClientBrief


@dataclass(frozen=True)
class CatalogCounts:
    """The whole catalog's counts and those of the offers meeting the brief."""

    catalog: OfferCounts
    in_scope: OfferCounts  # the offers meeting the client brief


def catalog_counts(frame: pd.DataFrame, brief: ClientBrief, today: dt.date | None = None) -> CatalogCounts:
    """Counts of the catalog's offers ``frame`` (ui.catalog.offers(None, ...)) and of those meeting ``brief``."""
    if not len(frame):
        return CatalogCounts(offer_counts(frame, today), offer_counts(frame, today))
    keep = brief_scope.meets_brief(frame, brief)
    stale = stale_price_mask(frame, today)  # row by row: the meeting rows' flags are these (one pass, #31)
    meeting = frame.loc[keep, ["provider_id"]]
    return CatalogCounts(OfferCounts(len(frame), providers_with_offers(frame), int(stale.sum())),
                         OfferCounts(len(meeting), providers_with_offers(meeting), int(stale[keep].sum())))


def banner_line(counts: CatalogCounts) -> str:
    """'**Catalog:** 258 offers from 23 providers · 73 with a stale price (…) · **meeting the brief:** 12 offers …'."""
    return f"**Catalog:** {counts.catalog.text()}  \n**Meeting the brief:** {counts.in_scope.text(why=False)}"


def subset_line(subset: pd.DataFrame, what: str, brief: ClientBrief, today: dt.date | None = None) -> str:
    """A subset's counts by the same definitions, named by ``what``: '**40 offers** from 9 providers under these
    filters · 5 with a stale price (…) · meeting the brief: 12'."""
    c = offer_counts(subset, today)
    meeting = int(brief_scope.meets_brief(subset, brief).sum()) if len(subset) else 0
    head, _, rest = c.text().partition(" from ")
    providers, _, stale = rest.partition(" · ")
    return f"**{head}** from {providers} {what} · {stale} · meeting the brief: {meeting}"
