"""Four ways to hold the base load, compared: all on demand; own cluster + burst; managed dedicated + burst;
reserved public + burst. Each is one :func:`place_portfolio` solve (or the all-on-demand baseline) on a
venue set that allows commitments only where the strategy says, with public pay-as-you-go offers for the
burst; the cheapest feasible one over the horizon is recommended, with its reasons.

Part of :mod:`engine.placement`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.placement.defaults import DEFAULT_HORIZON_MONTHS
from engine.placement.demand import Workload, demand_profiles_gpus
from engine.placement.eligibility import PlacementInfeasibleError
from engine.placement.own import OWN_LEAD_TIME_SOURCE, OwnCluster
from engine.placement.plan import PlacementPlan
from engine.placement.portfolio import baseline_all_on_demand, place_portfolio
from engine.placement.venues import Venues
from engine.tco import HOURS_PER_YEAR

#: Strategy keys and labels, in display order.
STRATEGIES = {
    "all_on_demand": "All on demand",
    "own_plus_burst": "Own cluster + burst",
    "dedicated_plus_burst": "Managed dedicated + burst",
    "reserved_plus_burst": "Reserved public + burst",
}


@dataclass(frozen=True)
class StrategyResult:
    """One strategy's plan and what it rests on.

    Attributes
    ----------
    key, label : str
        :data:`STRATEGIES` key and label.
    plan : PlacementPlan or None
        None when the strategy cannot be planned (``problems`` says why).
    problems : tuple of str
        Why it is not feasible (empty when it is).
    total_cost_eur : float
        Cost over the horizon [EUR] (monthly average x months); NaN when not feasible.
    committed_gpus : int
        Committed GPUs once every venue is ready [GPU].
    residency : str
        Where the data sits and under whose law (of the venues the plan uses).
    lead_time : str
        Longest lead time among the committed venues used, in words.
    assumptions : tuple of str
        What the figure assumes, in words.
    """

    key: str
    label: str
    plan: PlacementPlan | None
    problems: tuple[str, ...]
    total_cost_eur: float
    committed_gpus: int
    residency: str
    lead_time: str
    assumptions: tuple[str, ...]

    @property
    def feasible(self) -> bool:
        """A plan exists and prices every workload."""
        return self.plan is not None and not self.plan.unpriced_workloads and math.isfinite(self.total_cost_eur)


@dataclass(frozen=True)
class StrategyComparison:
    """The strategies in :data:`STRATEGIES` order, the recommended key (None when none is feasible) and why."""

    results: tuple[StrategyResult, ...]
    recommended: str | None
    reasons: tuple[str, ...]
    horizon_months: int

    def result(self, key: str) -> StrategyResult:
        """The result of one strategy."""
        return next(r for r in self.results if r.key == key)


def _commit_only(venues: Venues, mask: np.ndarray) -> Venues:
    """Venues where commitments are allowed only at ``mask``; every other venue keeps its pay-as-you-go rates."""
    keep = np.asarray(mask, dtype=bool)
    return Venues.concat([venues.subset(keep), venues.subset(~keep).without_commitments()])


def _residency(plan: PlacementPlan, venues: Venues) -> str:
    index = {vid: j for j, vid in enumerate(venues.venue_id.tolist())}
    used = set()
    for pl in plan.placements:
        if pl.committed_gpus and pl.committed_venue_id:
            used.add(pl.committed_venue_id)
        if pl.burst_gpu_hours_per_month > 0 and pl.burst_venue_id:
            used.add(pl.burst_venue_id)
    rows = [index[v] for v in sorted(used) if v in index]
    if not rows:
        return "nothing placed"
    eu = all(bool(venues.is_eu_datacenter[j]) for j in rows)
    juris = "/".join(sorted({str(venues.jurisdiction[j]) for j in rows}))
    owned = any(venues.tenancy[j] == "owned" for j in rows)
    where = "EU data centres only" if eu else "some outside the EU or not stated"
    return f"{where} · {juris} parent" + (" · own site" if owned else "")


def _lead(plan: PlacementPlan, venues: Venues) -> str:
    index = {vid: j for j, vid in enumerate(venues.venue_id.tolist())}
    days = [venues.lead_time_days[index[pl.committed_venue_id]] for pl in plan.placements
            if pl.committed_gpus and pl.committed_venue_id in index]
    if not days:
        return "none (pay as used)"
    if any(np.isnan(days)):
        return "not stated (taken as none)"
    start = max(pl.committed_from_month for pl in plan.placements if pl.committed_gpus)
    return f"{max(days):g} days (committed GPUs from month {start + 1})"


def _capacity_note(venues: Venues, mask: np.ndarray) -> list[str]:
    unknown = [str(v) for v, c in zip(venues.venue_id[mask], venues.capacity_gpus[mask], strict=True)
               if np.isinf(c)]
    if not unknown:
        return []
    return [f"capacity not stated for {len(unknown)} commitment venue(s), taken as unlimited: cap it in the settings"]


def compare_strategies(
    workloads: Sequence[Workload],
    venues: Venues,
    own: OwnCluster | None = None,
    *,
    horizon_months: int = DEFAULT_HORIZON_MONTHS,
    hours: int = int(HOURS_PER_YEAR),
    time_limit_s: float = 10.0,
    mip_rel_gap: float = 1e-4,
) -> StrategyComparison:
    """Plan the portfolio four ways (:data:`STRATEGIES`) and recommend the cheapest feasible one.

    ``venues`` are the catalog (and quote) venues; the own cluster, when given, is added as a venue
    (:meth:`OwnCluster.venue_record`). Commitments are allowed only on the strategy's venues: owned; dedicated
    (``tenancy == "dedicated"``); public (shared or not stated). Every strategy bursts on the same
    pay-as-you-go offers. Costs over the horizon are the plan's monthly average x ``horizon_months``.

    Examples
    --------
    >>> v = Venues.from_records([
    ...     {"venue_id": "od", "on_demand_eur_per_gpu_hour": 3.0, "is_eu_datacenter": True, "jurisdiction": "EU"},
    ...     {"venue_id": "ded", "reserved_eur_per_gpu_hour": 2.0, "is_eu_datacenter": True, "jurisdiction": "EU",
    ...      "tenancy": "dedicated", "capacity_gpus": 8, "lead_time_days": 30}])
    >>> w = Workload(name="base", mean_gpus=8, peak_gpus=8, may_leave_eu=False)
    >>> c = compare_strategies([w], v, horizon_months=12, hours=168)
    >>> c.recommended, round(c.result("dedicated_plus_burst").total_cost_eur)  # 1 month on demand, 11 dedicated
    ('dedicated_plus_burst', 146000)
    """
    m = int(horizon_months)
    d = demand_profiles_gpus(workloads, hours)
    base = venues.subset(venues.tenancy != "owned")
    results = []
    od_plan = baseline_all_on_demand(workloads, base.without_commitments(), hours=hours, demand=d, horizon_months=m)
    results.append(_result("all_on_demand", od_plan, (), base, m,
                           ("every workload on its cheapest eligible on-demand offer; no commitment, no spot",)))
    own_venues = None
    if own is not None:
        own_venues = Venues.concat([Venues.from_records([own.venue_record(m)]), base])
    cases = {
        "own_plus_burst": (own_venues, None if own_venues is None else own_venues.tenancy == "owned"),
        "dedicated_plus_burst": (base, base.tenancy == "dedicated"),
        "reserved_plus_burst": (base, np.isin(base.tenancy, ["shared", "not stated"])),
    }
    for key, (vs, mask) in cases.items():
        notes = _notes(key, own, vs, mask, m)
        if vs is None or mask is None or not np.any(mask & np.isfinite(vs.commit_rate_eur_per_gpu_hour)):
            why = {"own_plus_burst": "no own cluster described",
                   "dedicated_plus_burst": "no managed dedicated offer or quote with a committed price",
                   "reserved_plus_burst": "no public offer with a committed price"}[key]
            stated = 0 if vs is None or mask is None else int(np.sum(mask))
            if key == "dedicated_plus_burst" and stated:
                # dedicated (single-tenant) venues exist, e.g. bare-metal catalog offers, but none has a term price
                why += (f" ({stated} dedicated offer{'s' * (stated != 1)} stated, none with a committed price: "
                        "ask for a quote)")
            results.append(StrategyResult(key, STRATEGIES[key], None, (why,), math.nan, 0, "—", "—", tuple(notes)))
            continue
        strategy_venues = _commit_only(vs, mask)
        try:
            plan = place_portfolio(workloads, strategy_venues, time_limit_s=time_limit_s, mip_rel_gap=mip_rel_gap,
                                   hours=hours, demand=d, horizon_months=m)
        except PlacementInfeasibleError as exc:
            results.append(StrategyResult(key, STRATEGIES[key], None, exc.problems, math.nan, 0, "—", "—",
                                          tuple(notes)))
            continue
        if plan.total_committed_gpus == 0:
            notes.append("no commitment on these venues pays (or none is allowed): the plan is all pay-as-you-go")
        results.append(_result(key, plan, (), strategy_venues, m, tuple(notes)))
    return _recommend(tuple(results), m)


def _notes(key: str, own: OwnCluster | None, vs: Venues | None, mask: np.ndarray | None, m: int) -> list[str]:
    if key == "own_plus_burst":
        if own is None:
            return []
        t = own.tco
        size = f"size fixed at {own.fixed_gpus} GPUs" if own.fixed_gpus else (
            "size chosen by the plan" + ("" if own.max_gpus is None else f" (at most {own.max_gpus:g} GPUs)"))
        return [f"own cost {own.cost_eur_per_gpu_hour(m):.2f} EUR per GPU-hour of capacity, from the Rent-or-own "
                f"engine over the usable months: capex {t.server_capex_eur_per_gpu + t.networking_capex_eur_per_gpu + t.storage_capex_eur_per_gpu:,.0f} EUR/GPU, "
                f"{t.depreciation_years:g}-year depreciation, {t.cost_of_capital_fraction_per_year:.0%} cost of capital, "
                f"power at full load, colocation, {t.staff_fte:g} FTE staff over {own.size_gpus} GPUs, resale credited",
                size, f"lead time {own.lead_time_days:g} days ({OWN_LEAD_TIME_SOURCE})",
                f"site: {own.country or 'country not stated'}, " + ("EU" if own.is_eu_datacenter else "outside the EU")
                + ("; the client is the EU parent" if own.is_eu_client else "")]
    if vs is None or mask is None:
        return []
    notes = _capacity_note(vs, mask & np.isfinite(vs.commit_rate_eur_per_gpu_hour) & vs.is_committable)
    if key in ("reserved_plus_burst", "dedicated_plus_burst") and np.any(mask & vs.reserved_is_estimated):
        notes.append("some reserved rates are estimated from a discount, not published")
    blocked = int(np.sum(mask & np.isfinite(vs.commit_rate_eur_per_gpu_hour) & ~vs.is_committable))
    if blocked:
        notes.append(f"{blocked} offer(s) with a stale price or unstated fabric/specs are not committed to "
                     "(opt in under the venue settings)")
    hosts = int(np.sum(mask & vs.is_marketplace_host))
    if hosts:
        notes.append(f"{hosts} marketplace host listing(s) (one third-party machine each, no SLA) take only "
                     "interruption-tolerant or development work (opt in under the client-wide venue rules)")
    return notes


def _result(key: str, plan: PlacementPlan, problems: tuple[str, ...], venues: Venues, m: int,
            notes: tuple[str, ...]) -> StrategyResult:
    total = plan.total_cost_eur_per_month * m if not plan.unpriced_workloads else math.nan
    probs = problems or tuple(f"'{w}' has no eligible venue under this strategy" for w in plan.unpriced_workloads)
    return StrategyResult(key, STRATEGIES[key], plan, probs, total, plan.total_committed_gpus,
                          _residency(plan, venues), _lead(plan, venues), notes)


def _recommend(results: tuple[StrategyResult, ...], m: int) -> StrategyComparison:
    ok = sorted((r for r in results if r.feasible), key=lambda r: (r.total_cost_eur, list(STRATEGIES).index(r.key)))
    if not ok:
        return StrategyComparison(results, None, ("no strategy can place every workload",), m)
    best = ok[0]
    reasons = [f"{best.label} is the cheapest feasible way: {best.total_cost_eur:,.0f} EUR over {m} months"]
    if len(ok) > 1:
        nxt = ok[1]
        reasons.append(f"{nxt.total_cost_eur - best.total_cost_eur:,.0f} EUR "
                       f"({(nxt.total_cost_eur - best.total_cost_eur) / nxt.total_cost_eur:.0%}) less than the "
                       f"next, {nxt.label.lower()}")
    od = next(r for r in results if r.key == "all_on_demand")
    if best.key != "all_on_demand" and od.feasible and (len(ok) < 2 or ok[1].key != "all_on_demand"):
        reasons.append(f"saves {od.total_cost_eur - best.total_cost_eur:,.0f} EUR against all on demand")
    reasons.append(f"commits {best.committed_gpus} GPUs; lead time {best.lead_time}; {best.residency}")
    for r in results:
        if not r.feasible:
            reasons.append(f"{r.label} not possible: {'; '.join(r.problems) or 'not every workload priced'}")
    return StrategyComparison(results, best.key, tuple(reasons), m)
