"""The Placement page's venues: catalog (and quote) rows as engine venues under the page's settings, and the
Workload page's job as a venue restriction (issue #29.5: the plan uses only offers the Workload engine can price).

Kept apart from :mod:`ui.placement_view` so both the plan and the four-strategy comparison
(:mod:`ui.placement_compare`) build their venues through one path.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from engine.adapters import is_marketplace, is_single_host_listing, venues_from_offers
from engine.assumptions import is_missing
from engine.outliers import flag_column
from engine.placement import Workload, WorkloadKind
from engine.scope import OfferScope, scope_constraints
from ui import offer_scope
from ui.labels import hardware_text
from ui.scenario import PlacementSection, get_scenario

#: Prices a venue uses; a flagged outlier among them is dropped unless the user opts in.
VENUE_PRICE_COLUMNS = ("on_demand_eur_per_gpu_hour", "spot_eur_per_gpu_hour", "reserved_eur_per_gpu_hour")


def venue_rules(section: PlacementSection):
    """The client-wide venue rules as constraints: residency, certifications and the brief's GPU class."""
    return scope_constraints(None, section.residency).model_copy(update={"gpu_models": section.scope.gpu_models})


def single_host_note(catalog: pd.DataFrame) -> str:
    """How many single-host marketplace listings the plan leaves out, and why (the Placement caption)."""
    n = int(is_single_host_listing(catalog).sum())
    return (f"{n} single-host marketplace listing{'s' * (n != 1)} (one machine on one day, gone once rented) "
            "are price observations, not venues" if n else "no single-host marketplace listings")


def venue_frame(catalog: pd.DataFrame, scope: OfferScope, residency) -> tuple[pd.DataFrame, int, int]:
    """The catalog rows that may be venues under the client-wide rules (the one filter of engine.scoring), with
    flagged outlier prices blanked unless the user opts in; single-host marketplace listings are never venues
    (:func:`engine.adapters.is_single_host_listing`). Returns (rows, offers left out, prices dropped)."""
    keep, _ = offer_scope.filter_offers(catalog, venue_rules(PlacementSection(scope=scope, residency=residency)), ())
    keep = np.asarray(keep, dtype=bool) & ~is_single_host_listing(catalog)  # a price observation, not capacity
    frame = catalog[keep].copy()
    dropped = 0
    if not scope.include_price_outliers:
        for col in VENUE_PRICE_COLUMNS:
            flags = frame.get(flag_column(col), pd.Series(False, index=frame.index)).fillna(False).astype(bool)
            dropped += int((flags & frame[col].notna()).sum())
            frame.loc[flags, col] = np.nan
    return frame, int((~keep).sum()), dropped


def build_venues(frame: pd.DataFrame, s: PlacementSection):
    """The venue rows as engine venues under the page's settings (capacity caps, commitment term, assumed
    discount, the stale/unstated opt-in); marketplace hosts sell no commitment, so their missing reserved rate
    is never estimated from a discount, and they take only interruption-tolerant or development workloads unless
    the user opted in (``marketplace_for_every_workload``)."""
    market = frame.loc[is_marketplace(frame), "offer_id"].tolist()
    return venues_from_offers(frame, capacity_gpus=s.capacity_gpus, commitment_term_years=s.commitment_term_years,
                              other_provider_discount_fraction=s.other_provider_discount_fraction,
                              no_estimate_offer_ids=market, commit_on_stale_or_unknown=s.commit_on_stale_or_unknown,
                              marketplace_host_offer_ids=() if s.marketplace_for_every_workload else market)


def workload_page_priced(section: PlacementSection, usd_per_eur: float) -> tuple[str, tuple[str, ...]] | None:
    """(the Workload page's mode, the offer ids its engine can price for its job), or None when not matched."""
    if not section.match_workload_page:
        return None
    from ui.workload_pricing import price_workload  # lazy: the Workload page's module is large

    wl = get_scenario().workload
    offers_ = price_workload(wl, usd_per_eur).offers
    return wl.mode, tuple(sorted(offers_.loc[~offers_["engine_excluded"].astype(bool), "offer_id"]))


def with_priced_offers(workloads, priced: tuple[str, tuple[str, ...]] | None) -> tuple[Workload, ...]:
    """Workloads of the Workload page's kind restricted to the offers its engine prices (others unchanged)."""
    if priced is None:
        return tuple(workloads)
    mode, ids = priced
    kind = WorkloadKind.TRAINING if mode == "training" else WorkloadKind.INFERENCE
    allowed = frozenset(ids)
    return tuple(w.model_copy(update={"allowed_venue_ids": allowed}) if w.kind == kind else w for w in workloads)


def venue_facts(catalog: pd.DataFrame, offer_id: str | None, caps: dict[str, float]) -> str:
    """'hardware: dedicated (bare metal) · 16 GPUs · 45 days lead time' for a committed venue; 'not stated' for what
    nobody states (the hardware as the catalog offer's source or the quote states it, :func:`ui.labels.hardware_text`)."""
    if offer_id is None or offer_id not in set(catalog["offer_id"]):
        return "—"
    row = catalog.set_index("offer_id").loc[offer_id]
    assert isinstance(row, pd.Series)  # offer_id is unique in the offer frame: one row, not a frame
    tenancy = f"hardware: {hardware_text(row.get('is_dedicated'))}"
    stated_value = row.get("capacity_gpus")
    stated = None if stated_value is None or is_missing(stated_value) else float(stated_value)
    given = [v for v in (stated, caps.get(offer_id)) if v is not None]
    cap = min(given) if given else None
    capacity = "capacity not stated (unlimited assumed)" if cap is None else f"{cap:g} GPUs" + (
        " (your cap)" if offer_id in caps and (stated is None or caps[offer_id] < stated) else "")
    lead = row.get("lead_time_days")
    lead_text = "lead time not stated" if lead is None or is_missing(lead) else f"{float(lead):g} days lead time"
    return f"{tenancy} · {capacity} · {lead_text}"
