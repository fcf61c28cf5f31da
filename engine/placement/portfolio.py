"""Public entry points: the optimised placement, the two baselines and the sensitivity to on-demand prices.

Part of :mod:`engine.placement`; the formulation and the references [n] are in its docstring.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from engine.assumptions import Assumption
from engine.placement.commitment import committed_utilisation_fraction
from engine.placement.defaults import DEFAULT_ASSUMPTIONS, DEFAULT_HORIZON_MONTHS, PlacementAssumptions
from engine.placement.demand import Workload, demand_profiles_gpus
from engine.placement.eligibility import PlacementInfeasibleError, eligibility_summary, pre_check, prepare
from engine.placement.milp import commit_options, solve_milp
from engine.placement.plan import PlacementPlan, base_assumptions, build_plan, gpus_text, optimised_reason
from engine.placement.venues import Venues
from engine.tco import HOURS_PER_MONTH, HOURS_PER_YEAR


def place_portfolio(
    workloads: Sequence[Workload],
    venues: Venues,
    *,
    hours: int = int(HOURS_PER_YEAR),
    time_limit_s: float = 10.0,
    mip_rel_gap: float = 1e-4,
    assumptions: PlacementAssumptions | None = None,
    demand: npt.ArrayLike | None = None,
    horizon_months: int = DEFAULT_HORIZON_MONTHS,
) -> PlacementPlan:
    r"""Cheapest placement of a workload portfolio: committed GPUs per venue plus a burst venue, by MILP.

    Parameters
    ----------
    workloads : sequence of Workload
        The portfolio (unique names).
    venues : Venues
        Candidate venues (:func:`engine.adapters.venues_from_offers`).
    hours : int
        Demand horizon ``H`` [h] (default 8,760).
    time_limit_s : float
        HiGHS time limit [s]; on expiry the best plan found is returned and ``solver_status`` says so.
    mip_rel_gap : float
        HiGHS relative MIP gap [-] (both are ``scipy.optimize.milp`` options [6]; always pass both: a hard model
        without a time limit can run for minutes).
    horizon_months : int
        Plan horizon ``M`` [month] (default 12). A venue with lead time ``L`` days is usable from month
        ``s = ceil(L / 30.42)``; a pair's commitment cost and the burst it saves are paid for the share
        ``a = (M - s) / M`` of the horizon, and before month ``s`` the workload bursts (a ramp). A workload
        that cannot burst commits only where ``s = 0``.
    assumptions : PlacementAssumptions, optional
        Spot overhead inputs (default :class:`PlacementAssumptions`).
    demand : array_like, optional
        Precomputed profiles [GPU], shape ``(n_workloads, hours)``; default :func:`demand_profiles_gpus`.

    Returns
    -------
    PlacementPlan
        ``strategy="optimised"``; per workload the committed venue and GPUs, burst venue and GPU-hours,
        monthly cost [EUR/month], committed utilisation and a reason string.

    Raises
    ------
    PlacementInfeasibleError
        When a workload has no venue it may use (naming the failed requirements and how many venues fail
        each), when a workload that cannot burst has no venue large enough for its peak, or when the
        venue capacities cannot hold the workloads that must commit (naming them and the venues).

    Notes
    -----
    For workload ``w`` with demand :math:`D_{w,h}`, cheapest eligible burst rate :math:`o_w` (on demand, or
    spot x (1 + overhead) when allowed), and pairs ``o = (w, c)`` with eligible commitment venues ``c`` at
    rate :math:`r_c`, minimum :math:`m_c` and capacity :math:`\mathrm{cap}_c`:

    .. math::

        \min\; \sum_w o_w F_w(0) \tfrac{730}{H}
             + \sum_o \Big(r_c\,730\,b_o - o_w \tfrac{730}{H} \sum_{j<b_o} N_{wj}\Big) y_o
             + \sum_{o,j} \Big(r_c\,730 - o_w \tfrac{730}{H} N_{wj}\Big) z_{oj}

        \text{s.t.}\;\; \sum_{c} y_{wc} \le 1 \;(= 1 \text{ if } w \text{ cannot burst}),\quad
        k_o = b_o\,y_o + \sum_j z_{oj},\quad 0 \le z_{oj} \le y_o,\quad
        \sum_{w} k_{wc} \le \mathrm{cap}_c,

    :math:`y \in \{0,1\}`. The fractile optimum :math:`k^*_{o}` (:func:`optimal_commitment_gpus` at
    :math:`r_c/o_w`) bounds each pair: committing beyond :math:`u_o = \min(\max(k^*_o, m_c),
    \mathrm{cap}_c)` only raises cost and uses capacity. At a venue of limited capacity the base is
    :math:`b_o = m_c` with level columns up to :math:`u_o`; elsewhere :math:`b_o = u_o` and there are no
    level columns. A workload that cannot burst commits its peak (:math:`b_o = \max(\mathrm{peak}, m_c)`).
    Residency, jurisdiction, GPU class, spot eligibility and minimum-commitment terms (a venue with a
    required term never bursts) are applied before the solve by removing ineligible pairs, so no plan
    can violate them. Costs in the result are recomputed from the demand, not read from the solver.

    Examples
    --------
    >>> venues = Venues.from_records([
    ...     {"venue_id": "eu-od", "on_demand_eur_per_gpu_hour": 2.0, "is_eu_datacenter": True,
    ...      "jurisdiction": "EU", "memory_gb": 80},
    ...     {"venue_id": "eu-res", "reserved_eur_per_gpu_hour": 1.2, "is_eu_datacenter": True,
    ...      "jurisdiction": "EU", "memory_gb": 80, "capacity_gpus": 8},
    ...     {"venue_id": "us-od", "on_demand_eur_per_gpu_hour": 1.5, "is_eu_datacenter": False,
    ...      "jurisdiction": "US", "memory_gb": 80}])
    >>> w = Workload(name="chat", kind="inference", mean_gpus=9, peak_gpus=12, busy_hours_per_day=16,
    ...              may_leave_eu=False)  # 12 GPUs 16 h a day, 3 GPUs at night
    >>> plan = place_portfolio([w], venues, hours=168)
    >>> pl = plan.placements[0]  # 67 % of hours need 12 GPUs > 60 % break-even, but only 8 fit in eu-res
    >>> pl.committed_venue_id, pl.committed_gpus, pl.burst_venue_id, round(pl.cost_eur_per_month)
    ('eu-res', 8, 'eu-od', 10901)
    >>> pl.reason.split(";")[0]
    'sensitive → EU data centres only'
    """
    a = assumptions or DEFAULT_ASSUMPTIONS
    d = None if demand is None else np.asarray(demand, dtype=float)
    p = prepare(workloads, venues, hours, a, d, horizon_months)
    problems = pre_check(p)
    if problems:
        raise PlacementInfeasibleError(problems)
    opts = commit_options(p, "optimised")
    sol = solve_milp(p, opts, "optimised", time_limit_s, mip_rel_gap)
    reasons = [optimised_reason(p, i, int(sol.k[i]), int(sol.venue[i]), opts) for i in range(len(workloads))]
    rows = base_assumptions(p, a) + [
        Assumption("time_limit_s", time_limit_s, "s", "HiGHS time limit (scipy.optimize.milp option time_limit)"),
        Assumption("mip_rel_gap", mip_rel_gap, "-", "HiGHS relative MIP gap (scipy.optimize.milp option mip_rel_gap)"),
    ]
    return build_plan(p, "optimised", sol.k, sol.venue, p.elig.burst_venue, p.elig.burst_is_spot, p.elig.burst_rate,
                      reasons, sol.status, sol.gap, sol.seconds, rows)


def baseline_all_on_demand(
    workloads: Sequence[Workload],
    venues: Venues,
    *,
    hours: int = int(HOURS_PER_YEAR),
    assumptions: PlacementAssumptions | None = None,
    demand: npt.ArrayLike | None = None,
    horizon_months: int = DEFAULT_HORIZON_MONTHS,
) -> PlacementPlan:
    """Baseline: every workload entirely on the cheapest eligible public on-demand venue (no spot, no commitment).

    Same eligibility rules as :func:`place_portfolio`. A workload without an eligible on-demand venue is
    listed in ``unpriced_workloads`` with NaN cost (it is left out of the total).

    Examples
    --------
    >>> v = Venues.from_records([{"venue_id": "a", "on_demand_eur_per_gpu_hour": 2.0}])
    >>> w = Workload(name="w", mean_gpus=2, peak_gpus=2)
    >>> baseline_all_on_demand([w], v, hours=168).total_cost_eur_per_month  # 2 GPUs x 730 h x 2 EUR
    2920.0
    """
    a = assumptions or DEFAULT_ASSUMPTIONS
    p = prepare(workloads, venues, hours, a, None if demand is None else np.asarray(demand, dtype=float),
                horizon_months)
    od = np.where(p.elig.on_demand, venues.on_demand_eur_per_gpu_hour[None, :], np.inf)
    best = np.argmin(od, axis=1) if venues.n_venues else np.zeros(len(workloads), dtype=int)
    rate = od[np.arange(len(workloads)), best] if venues.n_venues else np.full(len(workloads), np.inf)
    bv = np.where(np.isfinite(rate), best, -1)
    reasons = []
    for i, w in enumerate(workloads):
        head = eligibility_summary(w, i, p.elig, venues.n_venues)
        if bv[i] >= 0:
            reasons.append(f"{head}; baseline: all on demand at {venues.venue_id[bv[i]]} ({rate[i]:.2f} EUR/GPU-h)")
        elif p.peak_gpus[i] == 0:
            reasons.append(f"{head}; no demand")
        else:
            reasons.append(f"{head}; baseline not possible: no eligible on-demand venue")
    n = len(workloads)
    return build_plan(p, "all_on_demand", np.zeros(n, dtype=np.int64), np.full(n, -1), bv, np.zeros(n, dtype=bool),
                      rate, reasons, "no solve needed", 0.0, 0.0, base_assumptions(p, a))


def baseline_dedicated_for_peak(
    workloads: Sequence[Workload],
    venues: Venues,
    *,
    hours: int = int(HOURS_PER_YEAR),
    time_limit_s: float = 10.0,
    mip_rel_gap: float = 1e-4,
    assumptions: PlacementAssumptions | None = None,
    demand: npt.ArrayLike | None = None,
    horizon_months: int = DEFAULT_HORIZON_MONTHS,
) -> PlacementPlan:
    """Baseline: every workload on dedicated capacity sized for its peak (``ceil(max D)`` GPUs every hour).

    Each workload holds peak-sized capacity around the clock, at the cheapest eligible price: its peak (or
    the venue minimum, if larger) committed on one eligible commitment venue within venue capacity, or,
    when no commitment venue has room or one would cost more, peak-sized on-demand instances kept on at
    its cheapest eligible on-demand venue (one small assignment MILP decides for all workloads together).
    A workload with neither is listed in ``unpriced_workloads``.

    Raises
    ------
    PlacementInfeasibleError
        When workloads without an on-demand fallback cannot all fit in the commitment venues' capacity
        (naming the workloads and the venues).

    Examples
    --------
    >>> v = Venues.from_records([{"venue_id": "a", "on_demand_eur_per_gpu_hour": 2.0},
    ...                          {"venue_id": "b", "reserved_eur_per_gpu_hour": 1.0}])
    >>> w = Workload(name="w", mean_gpus=2, peak_gpus=4, busy_hours_per_day=12)
    >>> plan = baseline_dedicated_for_peak([w], v, hours=168)
    >>> plan.placements[0].committed_gpus, plan.total_cost_eur_per_month  # 4 GPUs x 730 h x 1 EUR
    (4, 2920.0)
    """
    a = assumptions or DEFAULT_ASSUMPTIONS
    p = prepare(workloads, venues, hours, a, None if demand is None else np.asarray(demand, dtype=float),
                horizon_months)
    n = len(workloads)
    od = np.where(p.elig.on_demand, venues.on_demand_eur_per_gpu_hour[None, :], np.inf)
    best = np.argmin(od, axis=1) if venues.n_venues else np.zeros(n, dtype=int)
    od_rate = od[np.arange(n), best] if venues.n_venues else np.full(n, np.inf)
    opts = commit_options(p, "peak")
    sol = solve_milp(p, opts, "peak", time_limit_s, mip_rel_gap,
                     fallback_eur_per_month=od_rate * p.peak_gpus * HOURS_PER_MONTH)
    k = sol.k.copy()
    cv = sol.venue.copy()
    had_option = np.isin(np.arange(n), opts.w)
    reasons = []
    bv = np.full(n, -1)
    for i, w in enumerate(workloads):
        head = eligibility_summary(w, i, p.elig, venues.n_venues)
        if p.peak_gpus[i] == 0:
            reasons.append(f"{head}; no demand")
        elif cv[i] >= 0:
            reasons.append(f"{head}; baseline: {gpus_text(k[i])} (peak) committed on {venues.venue_id[cv[i]]} "
                           f"({venues.commit_rate_eur_per_gpu_hour[cv[i]]:.2f} EUR/GPU-h)")
        elif np.isfinite(od_rate[i]):
            why = ("commitment venues full or dearer than on demand" if had_option[i]
                   else "no eligible commitment venue large enough")
            reasons.append(f"{head}; baseline: {why} → {p.peak_gpus[i]} on-demand GPU(s) "
                           f"kept on at {venues.venue_id[best[i]]} ({od_rate[i]:.2f} EUR/GPU-h)")
        else:
            reasons.append(f"{head}; baseline not possible: no eligible commitment or on-demand venue")
    plan = build_plan(p, "dedicated_for_peak", k, cv, bv, np.zeros(n, dtype=bool), np.full(n, np.nan), reasons,
                      sol.status, sol.gap, sol.seconds, base_assumptions(p, a))
    # Peak-sized always-on on-demand fallback: priced here (it is not a commitment venue).
    fixed = []
    for i, pl in enumerate(plan.placements):
        if cv[i] < 0 and p.peak_gpus[i] > 0 and np.isfinite(od_rate[i]):
            gpus = int(p.peak_gpus[i])
            d = p.demand[i]
            cost = float(od_rate[i] * gpus * HOURS_PER_MONTH)
            pl = replace(pl, committed_venue_id=str(venues.venue_id[best[i]]),
                         committed_provider=str(venues.provider[best[i]]), committed_gpus=gpus,
                         committed_rate_eur_per_gpu_hour=float(od_rate[i]), burst_gpu_hours_per_month=0.0,
                         committed_cost_eur_per_month=cost, burst_cost_eur_per_month=0.0, cost_eur_per_month=cost,
                         committed_utilisation_fraction=float(committed_utilisation_fraction(d, gpus)))
        fixed.append(pl)
    unpriced = tuple(pl.workload for pl in fixed if math.isnan(pl.cost_eur_per_month))
    total = float(sum(pl.cost_eur_per_month for pl in fixed if not math.isnan(pl.cost_eur_per_month)))
    return replace(plan, placements=tuple(fixed), unpriced_workloads=unpriced, total_cost_eur_per_month=total)


@dataclass(frozen=True)
class PriceSensitivity:
    """Plan cost as every on-demand rate is scaled by ``factors`` (spot and reserved rates fixed).

    Attributes
    ----------
    factors : numpy.ndarray
        Multipliers of the on-demand rates [-], shape ``(n,)``.
    total_cost_eur_per_month : numpy.ndarray
        Optimised plan cost per factor [EUR/month].
    committed_gpus : numpy.ndarray
        Committed GPUs of the optimised plan per factor [GPU].
    all_on_demand_cost_eur_per_month : numpy.ndarray
        The all-on-demand baseline per factor [EUR/month].
    """

    factors: np.ndarray
    total_cost_eur_per_month: np.ndarray
    committed_gpus: np.ndarray
    all_on_demand_cost_eur_per_month: np.ndarray


def sensitivity_to_on_demand_price(
    workloads: Sequence[Workload],
    venues: Venues,
    factors: Sequence[float] = (0.8, 0.9, 1.0, 1.1, 1.2),
    *,
    hours: int = int(HOURS_PER_YEAR),
    time_limit_s: float = 10.0,
    mip_rel_gap: float = 1e-4,
    assumptions: PlacementAssumptions | None = None,
    horizon_months: int = DEFAULT_HORIZON_MONTHS,
) -> PriceSensitivity:
    """Re-solve :func:`place_portfolio` with every on-demand rate multiplied by each factor (keep it to a few).

    The demand profiles are built once. Only on-demand rates move: spot and published reserved rates stay
    (reserved rates estimated from an Epoch discount were fixed when the venues were built).

    Examples
    --------
    >>> v = Venues.from_records([{"venue_id": "od", "on_demand_eur_per_gpu_hour": 2.0},
    ...                          {"venue_id": "res", "reserved_eur_per_gpu_hour": 1.0}])
    >>> w = Workload(name="w", mean_gpus=3, peak_gpus=4, busy_hours_per_day=16)
    >>> s = sensitivity_to_on_demand_price([w], v, [0.4, 1.0], hours=168)
    >>> s.committed_gpus.tolist()  # at 0.80 EUR/GPU-h on demand nothing is worth committing
    [0, 4]
    """
    a = assumptions or DEFAULT_ASSUMPTIONS
    d = demand_profiles_gpus(workloads, hours)
    fs = np.asarray(factors, dtype=float)
    totals, committed, od = [], [], []
    for f in fs:
        scaled = venues.with_on_demand_factor(float(f))
        plan = place_portfolio(workloads, scaled, hours=hours, time_limit_s=time_limit_s,
                               mip_rel_gap=mip_rel_gap, assumptions=a, demand=d, horizon_months=horizon_months)
        totals.append(plan.total_cost_eur_per_month)
        committed.append(plan.total_committed_gpus)
        od.append(baseline_all_on_demand(workloads, scaled, hours=hours, assumptions=a, demand=d,
                                         horizon_months=horizon_months).total_cost_eur_per_month)
    return PriceSensitivity(fs, np.asarray(totals), np.asarray(committed, dtype=np.int64), np.asarray(od))
