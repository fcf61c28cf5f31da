"""The Placement page's venues: catalog (and quote) rows as engine venues under the page's settings, and the
Workload page's job as a venue restriction (issue #29.5: the plan uses only offers the Workload engine can price).

Kept apart from :mod:`ui.placement_view` so both the plan and the four-strategy comparison
(:mod:`ui.placement_compare`) build their venues through one path.
"""

from __future__ import annotations

import pandas as pd

from engine.adapters import is_marketplace, venues_from_offers
from engine.placement import Workload, WorkloadKind
from ui.scenario import PlacementSection, get_scenario


def build_venues(frame: pd.DataFrame, s: PlacementSection):
    """The venue rows as engine venues under the page's settings (capacity caps, commitment term, assumed
    discount, the stale/unstated opt-in); marketplace hosts sell no commitment, so their missing reserved rate
    is never estimated from a discount."""
    market = frame.loc[is_marketplace(frame), "offer_id"].tolist()
    return venues_from_offers(frame, capacity_gpus=s.capacity_gpus, commitment_term_years=s.commitment_term_years,
                              other_provider_discount_fraction=s.other_provider_discount_fraction,
                              no_estimate_offer_ids=market, commit_on_stale_or_unknown=s.commit_on_stale_or_unknown)


def workload_page_priced(section: PlacementSection, usd_per_eur: float) -> tuple[str, tuple[str, ...]] | None:
    """(the Workload page's mode, the offer ids its engine can price for its job), or None when not matched."""
    if not section.match_workload_page:
        return None
    from ui.workload_view import price_workload  # lazy: the Workload page's module is large

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
