"""Results of a placement: per-workload rows, the plan, their costs recomputed from the demand, and the
plain-language reason of each choice.

Part of :mod:`engine.placement`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from engine.assumptions import Assumption
from engine.placement.commitment import committed_utilisation_fraction
from engine.placement.defaults import EPOCH_SOURCE, PlacementAssumptions
from engine.placement.eligibility import Prepared, eligibility_summary
from engine.placement.milp import CommitOptions
from engine.tco import HOURS_PER_MONTH


@dataclass(frozen=True)
class WorkloadPlacement:
    """Where one workload runs, what it costs and why.

    Attributes
    ----------
    workload, kind : str
    committed_venue_id, committed_provider : str or None
        Venue holding the committed GPUs (None when nothing is committed).
    committed_gpus : int
        GPUs paid every hour [GPU].
    committed_rate_eur_per_gpu_hour : float
        NaN when nothing is committed.
    committed_rate_is_estimated : bool
        The rate is on demand x (1 - Epoch discount), not a published reserved price.
    burst_venue_id, burst_provider : str or None
        Venue for the GPU-hours above the commitment: the cheapest eligible pay-as-you-go option, named
        even when the commitment covers every hour (then ``burst_gpu_hours_per_month`` is 0); None when
        the workload has no eligible burst venue or the strategy uses none.
    burst_price_type : str or None
        ``"on_demand"`` or ``"spot"``.
    burst_rate_eur_per_gpu_hour : float
        Effective rate [EUR/GPU-h] (spot includes the checkpoint overhead); NaN when no burst venue.
    burst_gpu_hours_per_month : float
        [GPU-h/month].
    committed_cost_eur_per_month, burst_cost_eur_per_month, cost_eur_per_month : float
        [EUR/month]; NaN when the strategy cannot price this workload.
    committed_utilisation_fraction : float
        Share of committed GPU-hours used [-]; NaN when nothing is committed.
    mean_demand_gpus, peak_demand_gpus : float
        Of the profile [GPU].
    eligible_venues : int
        Venues this workload may use at all.
    reason : str
        Plain-language explanation of the choice.
    committed_from_month : int
        First month (0-based) the committed GPUs are usable, after the venue's lead time; before it the
        workload bursts entirely (0 when nothing is committed or the venue is ready at once).
    """

    workload: str
    kind: str
    committed_venue_id: str | None
    committed_provider: str | None
    committed_gpus: int
    committed_rate_eur_per_gpu_hour: float
    committed_rate_is_estimated: bool
    burst_venue_id: str | None
    burst_provider: str | None
    burst_price_type: str | None
    burst_rate_eur_per_gpu_hour: float
    burst_gpu_hours_per_month: float
    committed_cost_eur_per_month: float
    burst_cost_eur_per_month: float
    cost_eur_per_month: float
    committed_utilisation_fraction: float
    mean_demand_gpus: float
    peak_demand_gpus: float
    eligible_venues: int
    reason: str
    committed_from_month: int = 0


@dataclass(frozen=True)
class PlacementPlan:
    """A placement of the whole portfolio under one strategy.

    Attributes
    ----------
    strategy : str
        ``"optimised"``, ``"all_on_demand"`` or ``"dedicated_for_peak"``.
    placements : tuple of WorkloadPlacement
        In workload order.
    total_cost_eur_per_month : float
        Sum over priced workloads [EUR/month].
    unpriced_workloads : tuple of str
        Workloads this strategy cannot serve (baselines only; their cost is NaN and not in the total).
    venue_committed_gpus : dict of str to int
        Committed GPUs per venue that holds any [GPU].
    venue_capacity_gpus : dict of str to float
        Capacity of those venues [GPU] (``inf`` = unlimited).
    horizon_hours : int
        Length of the demand profiles [h].
    solver_status : str
    mip_gap_fraction : float
        Relative MIP gap reported by HiGHS [-] (0 without a solve).
    solve_seconds : float
        Wall time of the MILP solve [s].
    assumptions : tuple of Assumption
        Every assumption behind the numbers (name, value, unit, source).
    horizon_months : int
        Plan horizon [month]; lead times are counted in it and monthly costs are averages over it.
    """

    strategy: str
    placements: tuple[WorkloadPlacement, ...]
    total_cost_eur_per_month: float
    unpriced_workloads: tuple[str, ...]
    venue_committed_gpus: dict[str, int]
    venue_capacity_gpus: dict[str, float]
    horizon_hours: int
    solver_status: str
    mip_gap_fraction: float
    solve_seconds: float
    assumptions: tuple[Assumption, ...] = field(default_factory=tuple)
    horizon_months: int = 12

    @property
    def total_committed_gpus(self) -> int:
        """Committed GPUs over all workloads [GPU]."""
        return int(sum(pl.committed_gpus for pl in self.placements))

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per workload (the :class:`WorkloadPlacement` fields), for a table."""
        return [{f.name: getattr(pl, f.name) for f in fields(pl)} for pl in self.placements]

    def savings_against(self, baseline: PlacementPlan) -> tuple[float, float]:
        """``(EUR/month saved, fraction saved)`` of this plan against ``baseline`` (positive = cheaper)."""
        saved = baseline.total_cost_eur_per_month - self.total_cost_eur_per_month
        base = baseline.total_cost_eur_per_month
        return float(saved), float(saved / base) if base > 0 else float("nan")


def _pct(x: float) -> str:
    return f"{100.0 * x:.0f} %"


def gpus_text(k: float) -> str:
    """'1 GPU', '8 GPUs'."""
    return f"{k:g} GPU" if k == 1 else f"{k:g} GPUs"


def _busy_phrase(d_is_integer: bool, k: int, share: float) -> str:
    if d_is_integer:
        return f"{_pct(share)} of hours need ≥ {gpus_text(k)}"
    return f"GPU {k} would be busy {_pct(share)} of the hours"


def build_plan(p: Prepared, strategy: str, k: np.ndarray, commit_venue: np.ndarray, burst_venue: np.ndarray,
               burst_is_spot: np.ndarray, burst_rate: np.ndarray, reasons: Sequence[str], status: str, gap: float,
               seconds: float, extra_assumptions: Sequence[Assumption]) -> PlacementPlan:
    """The plan of a solved (or fixed) choice: per workload its committed GPUs and venue, its burst venue and
    rate, costs per month and the reasons, with the assumptions used."""
    v = p.venues
    hours = p.hours
    per_month = HOURS_PER_MONTH / hours
    rate_v = v.commit_rate_eur_per_gpu_hour
    avail = p.avail
    start = p.start_month if p.start_month is not None else np.zeros(v.n_venues, dtype=np.int64)
    placements = []
    unpriced = []
    for i, w in enumerate(p.workloads):
        d = p.demand[i]
        ki = int(k[i])
        cv = int(commit_venue[i])
        bv = int(burst_venue[i])
        a = float(avail[cv]) if cv >= 0 else 1.0  # before the lead time has passed, everything bursts
        over = a * float(np.maximum(d - ki, 0.0).sum()) + (1.0 - a) * float(d.sum())
        r = float(rate_v[cv]) if cv >= 0 else float("nan")
        o = float(burst_rate[i]) if bv >= 0 else float("nan")
        c_cost = a * r * ki * HOURS_PER_MONTH if cv >= 0 else 0.0
        b_hours = over * per_month
        b_cost = o * b_hours if b_hours > 0 else 0.0
        priced = not (np.isnan(c_cost) or np.isnan(b_cost)) and not (b_hours > 0 and bv < 0)
        total = c_cost + b_cost if priced else float("nan")
        if not priced:
            unpriced.append(w.name)
        util = float(committed_utilisation_fraction(d, ki)) if ki > 0 else float("nan")
        placements.append(WorkloadPlacement(
            workload=w.name, kind=str(w.kind),
            committed_venue_id=str(v.venue_id[cv]) if cv >= 0 else None,
            committed_provider=str(v.provider[cv]) if cv >= 0 else None,
            committed_gpus=ki, committed_rate_eur_per_gpu_hour=r,
            committed_rate_is_estimated=bool(v.reserved_is_estimated[cv]) if cv >= 0 else False,
            burst_venue_id=str(v.venue_id[bv]) if bv >= 0 else None,
            burst_provider=str(v.provider[bv]) if bv >= 0 else None,
            burst_price_type=("spot" if burst_is_spot[i] else "on_demand") if bv >= 0 else None,
            burst_rate_eur_per_gpu_hour=o, burst_gpu_hours_per_month=b_hours,
            committed_cost_eur_per_month=c_cost if priced else float("nan"),
            burst_cost_eur_per_month=b_cost if priced else float("nan"),
            cost_eur_per_month=total, committed_utilisation_fraction=util,
            mean_demand_gpus=float(d.mean()), peak_demand_gpus=float(d.max()),
            eligible_venues=int((p.elig.on_demand[i] | p.elig.spot[i] | p.elig.commit[i]).sum()),
            reason=reasons[i], committed_from_month=int(start[cv]) if cv >= 0 and ki > 0 else 0,
        ))
    used: dict[str, int] = {}
    for pl in placements:
        if pl.committed_venue_id is not None:
            used[pl.committed_venue_id] = used.get(pl.committed_venue_id, 0) + pl.committed_gpus
    index = {vid: j for j, vid in enumerate(v.venue_id.tolist())}
    caps = {vid: float(v.capacity_gpus[index[vid]]) for vid in used}
    total_cost = float(sum(pl.cost_eur_per_month for pl in placements if not math.isnan(pl.cost_eur_per_month)))
    return PlacementPlan(strategy, tuple(placements), total_cost, tuple(unpriced), used, caps, hours, status,
                         gap, seconds, tuple(extra_assumptions), p.horizon_months)


def base_assumptions(p: Prepared, a: PlacementAssumptions) -> list[Assumption]:
    """The assumptions every placement plan reports (horizon, hours per month, the placement defaults)."""
    rows = [
        Assumption("horizon_hours", p.hours, "h", "length of the demand profiles (uploaded series are tiled)"),
        Assumption("hours_per_month", HOURS_PER_MONTH, "h/month", "8,760 h / 12 (engine.tco.HOURS_PER_MONTH)"),
        Assumption("tie_rule", "fewer GPUs", "-", "on an exact break-even the GPU is not committed (same cost, "
                   "less lock-in); critical-fractile rule, domain-model section 6"),
        Assumption("gpu_equivalence", "1 GPU = 1 GPU", "-", "demand is in GPUs of any eligible model; no "
                   "performance normalisation between models (assumption)"),
        Assumption("unknown_location", "not EU", "-", "an offer without a stated data-centre country never "
                   "hosts data that must stay in the EU (conservative)"),
        Assumption("unknown_capacity", "unlimited", "GPU", "no capacity in the catalog; give capacity_gpus"),
        Assumption("horizon_months", p.horizon_months, "month", "plan horizon: a venue's committed GPUs are usable "
                   "from the first month after its lead time (lead time not stated = 0); before it the workload "
                   "bursts; monthly costs are averages over the horizon"),
        Assumption("unknown_min_commitment", "none", "-", "catalog min_commitment 'unknown' (nothing stated) "
                   "is taken as no minimum term"),
        Assumption("burst_capacity", "unlimited", "GPU", "pay-as-you-go capacity is not limited (assumption)"),
        Assumption("commitment_billing", "every hour of the horizon", "-", "a term longer than the profile "
                   "assumes the profile repeats"),
    ]
    rows += list(a.table())
    src = p.venues.reserved_estimate_source
    epoch, user = int(np.sum(src == "Epoch AI discount")), int(np.sum(src == "your assumed discount"))
    if epoch:
        rows.append(Assumption("estimated_reserved_rates", epoch, "venues",
                               f"reserved = on demand x (1 - discount), {EPOCH_SOURCE}"))
    if user:
        rows.append(Assumption("assumed_reserved_rates", user, "venues",
                               "reserved = on demand x (1 - your assumed discount): user input, not a source"))
    return rows


def optimised_reason(p: Prepared, i: int, k: int, cv: int, opts: CommitOptions) -> str:
    """Plain-language why: eligibility, then the break-even test of the last committed GPU and the next."""
    w = p.workloads[i]
    v = p.venues
    e = p.elig
    head = eligibility_summary(w, i, e, v.n_venues)
    peak = int(p.peak_gpus[i])
    if peak == 0:
        return f"{head}; no demand, nothing to place"
    d_int = bool(np.all(p.demand[i] == np.round(p.demand[i])))
    cov = p.covered[i, :peak] / p.hours  # share of hours GPU 1..peak would be busy
    rate_v = v.commit_rate_eur_per_gpu_hour
    bv = int(e.burst_venue[i])
    if bv < 0:
        return (f"{head}; no eligible pay-as-you-go venue → peak of {gpus_text(k)} committed on {v.venue_id[cv]} "
                f"({rate_v[cv]:.2f} EUR/GPU-h)")
    o = float(e.burst_rate[i])
    mode = "spot incl. checkpoint overhead" if e.burst_is_spot[i] else "on demand"
    burst = f"burst on {v.venue_id[bv]} ({mode}, {o:.2f} EUR/GPU-h)"
    commit_idx = np.flatnonzero(e.commit[i])
    if k == 0:
        if commit_idx.size == 0:
            return f"{head}; no eligible venue sells committed capacity → all {burst}"
        best = int(commit_idx[np.argmin(rate_v[commit_idx])])
        ratio = rate_v[best] / o
        if ratio >= 1.0:
            return (f"{head}; the cheapest commitment ({v.venue_id[best]}, {rate_v[best]:.2f} EUR/GPU-h) costs as "
                    f"much as or more than bursting, even for a GPU busy every hour → all {burst}")
        if cov[0] <= ratio:
            return (f"{head}; {_busy_phrase(d_int, 1, cov[0])}, not above the {_pct(ratio)} break-even r/o "
                    f"({rate_v[best]:.2f}/{o:.2f} at {v.venue_id[best]}) → all {burst}")
        return (f"{head}; committing would pay ({_busy_phrase(d_int, 1, cov[0])}, above the {_pct(ratio)} "
                f"break-even at {v.venue_id[best]}) but the venues' capacity is taken by other workloads or their "
                f"minimum commitment does not pay → all {burst}")
    r = float(rate_v[cv])
    ratio = r / o
    sel = np.flatnonzero((opts.w == i) & (opts.v == cv))
    free = int(opts.free_k[sel[0]]) if sel.size else k
    last = min(k, free, peak)  # the last GPU committed on its merits
    text = f"{head}; {_busy_phrase(d_int, last, cov[last - 1])}, above the {_pct(ratio)} break-even r/o ({r:.2f}/{o:.2f})"
    if last < peak:
        text += f", {_pct(cov[last])} for {last + 1}"
    text += f" → {gpus_text(k)} committed on {v.venue_id[cv]}"
    if p.start_month is not None and p.start_month[cv] > 0:
        text += (f", usable from month {int(p.start_month[cv]) + 1} of {p.horizon_months} after its "
                 f"{v.lead_time_days[cv]:g}-day lead time (all {burst} before)")
    if v.reserved_is_estimated[cv]:
        text += (" (reserved rate = on demand x (1 - your assumed discount), not a published price)"
                 if v.reserved_estimate_source[cv] == "your assumed discount"
                 else " (reserved rate estimated from the Epoch AI discount)")
    if k < free:
        text += (f"; the capacity of {v.venue_id[cv]} ({v.capacity_gpus[cv]:g} GPUs, shared) holds it below "
                 f"the {free} it would pay to commit")
    elif k > free:
        text += f" (the venue's minimum commitment is {v.min_commit_gpus[cv]:g} GPUs)"
    cheaper = commit_idx[rate_v[commit_idx] < r - 1e-12]
    if cheaper.size:
        alt = v.venue_id[cheaper[np.argmin(rate_v[cheaper])]]
        text += f"; cheaper commitment at {alt} is full or asks a larger minimum"
    if k < peak:
        text += f"; the rest {burst}"
    return text
