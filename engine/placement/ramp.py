r"""A plan month by month: committed GPUs per venue, burst GPU-hours and cost, with lead times as a ramp.

Part of :mod:`engine.placement`. The demand profile repeats every month (its monthly average), so a month
differs from another only by which committed venues are usable yet. For a workload committing ``k`` GPUs on
a venue usable from month ``s`` (share ``a = (M - s)/M`` of the horizon):

.. math::

    \text{cost}_m = \begin{cases} o\,\bar D\,730 & m < s \\ r\,k\,730 + o\,F(k)\,\tfrac{730}{H} & m \ge s \end{cases}

where the plan's averages give :math:`r\,k\,730 = C_{commit}/a` and :math:`F(k)\,730/H = (B - (1-a)\,\bar D\,730)/a`
(:math:`B` the plan's average burst GPU-hours per month). The mean of ``cost_m`` over the horizon is the
plan's monthly cost.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.placement.plan import PlacementPlan
from engine.tco import HOURS_PER_MONTH


@dataclass(frozen=True)
class MonthlyRamp:
    """One plan month by month; arrays of shape ``(horizon_months,)``.

    Attributes
    ----------
    month : numpy.ndarray
        1-based month numbers.
    committed_gpus : dict of str to numpy.ndarray
        Committed GPUs in use per venue id and month [GPU] (0 before the venue's lead time has passed).
    burst_gpu_hours : numpy.ndarray
        GPU-hours paid as used per month [GPU-h].
    cost_eur : numpy.ndarray
        Cost per month [EUR]; its mean is the plan's ``total_cost_eur_per_month``.
    """

    month: np.ndarray
    committed_gpus: dict[str, np.ndarray]
    burst_gpu_hours: np.ndarray
    cost_eur: np.ndarray


def monthly_ramp(plan: PlacementPlan) -> MonthlyRamp:
    """The plan month by month (module docstring); unpriced workloads are left out.

    Examples
    --------
    >>> from engine.placement.demand import Workload
    >>> from engine.placement.portfolio import place_portfolio
    >>> from engine.placement.venues import Venues
    >>> v = Venues.from_records([{"venue_id": "od", "on_demand_eur_per_gpu_hour": 2.0},
    ...                          {"venue_id": "own", "reserved_eur_per_gpu_hour": 1.0, "lead_time_days": 60}])
    >>> plan = place_portfolio([Workload(name="base", mean_gpus=4, peak_gpus=4)], v, hours=168, horizon_months=6)
    >>> ramp = monthly_ramp(plan)
    >>> ramp.committed_gpus["own"].tolist(), ramp.cost_eur.tolist()  # 2 months on demand, then owned
    ([0.0, 0.0, 4.0, 4.0, 4.0, 4.0], [5840.0, 5840.0, 2920.0, 2920.0, 2920.0, 2920.0])
    """
    n = int(plan.horizon_months)
    month = np.arange(n)
    committed: dict[str, np.ndarray] = {}
    burst = np.zeros(n)
    cost = np.zeros(n)
    for pl in plan.placements:
        if math.isnan(pl.cost_eur_per_month):
            continue
        demand_hours = pl.mean_demand_gpus * HOURS_PER_MONTH
        start = pl.committed_from_month if pl.committed_gpus and pl.committed_venue_id is not None else 0
        a = (n - start) / n
        ready = month >= start
        commit_cost = pl.committed_cost_eur_per_month / a if a > 0 else 0.0
        after = (pl.burst_gpu_hours_per_month - (1.0 - a) * demand_hours) / a if a > 0 else demand_hours
        after = max(after, 0.0)
        o = pl.burst_rate_eur_per_gpu_hour if pl.burst_gpu_hours_per_month > 0 else 0.0
        burst += np.where(ready, after, demand_hours)
        cost += np.where(ready, commit_cost + o * after, o * demand_hours)
        if pl.committed_gpus and pl.committed_venue_id is not None:
            gpus = committed.setdefault(pl.committed_venue_id, np.zeros(n))
            gpus += np.where(ready, float(pl.committed_gpus), 0.0)
    return MonthlyRamp(month + 1, committed, burst, cost)
