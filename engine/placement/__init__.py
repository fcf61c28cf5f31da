r"""Workload placement: how many GPUs to commit, where, and where the rest bursts.

A *portfolio* of workloads (:class:`Workload`: training, inference or development, each with an hourly
demand in GPUs, a GPU class and data-sensitivity rules) is placed on *venues* (:class:`Venues`: catalog
offers with on-demand, spot and reserved prices). Each workload gets

* at most **one committed venue**, where it holds ``k`` GPUs for every hour of the horizon at the venue's
  commitment rate ``r`` (reserved / dedicated capacity), and
* **one burst venue**, where every GPU-hour above ``k`` is paid as used, at the on-demand rate or, when
  the workload tolerates interruptions, at the spot rate plus a checkpoint/restart overhead
  (:func:`spot_effective_eur_per_gpu_hour`).

Three layers:

* **commitment kernel** -- :func:`optimal_commitment_gpus` gives the exactly optimal ``k`` for one demand
  series (or a batch) and one rate pair by the critical-fractile (newsvendor) rule, and
  :func:`commitment_cost_eur` prices any ``k``;
* **portfolio MILP** -- :func:`place_portfolio` chooses venues and ``k`` for every workload together,
  subject to residency, jurisdiction, GPU class, spot eligibility, minimum-commitment terms and venue
  capacity, with :func:`scipy.optimize.milp` (HiGHS); a portfolio that cannot be placed raises
  :class:`PlacementInfeasibleError` whose message names the workload and the constraint;
* **baselines** -- :func:`baseline_all_on_demand` and :func:`baseline_dedicated_for_peak` under the same
  feasibility rules, and :func:`sensitivity_to_on_demand_price`.

Formulation (why the MILP is small)
-----------------------------------
Burst capacity is not limited and the burst venue enters the cost only through its rate, so for *any*
commitment decision the cheapest eligible burst option is optimal; it is fixed per workload before the
solve (the tests check this against enumeration of every burst venue). The overflow cost
:math:`F_w(k) = \sum_h (D_{w,h} - k)^+` is convex and piecewise linear in ``k`` with unit breakpoints,
so for a (workload, committed venue) pair ``o`` the monthly cost of ``k`` GPUs is the cost at a base level
plus one term per further GPU level ``j``, worth :math:`r\,730 - o_w N_{w,j}\,730/H`, where
:math:`N_{w,j} = F_w(j) - F_w(j+1)` are the GPU-hours the ``(j+1)``-th committed GPU covers (the sorted
duration curve). Each level is a continuous :math:`0 \le z_{oj} \le y_o`; because :math:`N_{w,j}` does not
increase with ``j`` the LP fills them in order, so the cost is exact without big-M terms. Binaries remain
only for "which committed venue" (one per workload-venue pair). Levels are needed only at venues of
limited capacity: at an unlimited venue a chosen pair commits exactly its fractile optimum, and its
whole cost sits on the binary. Pairs are pruned before the solve when provably useless (a venue whose
break-even ``r/o`` is not beaten even by the first GPU, or one dominated by an unlimited venue that is
no dearer and asks no larger minimum). With the venue choices fixed the level constraints are totally
unimodular, so committed GPU counts come out whole without declaring them integer. For 50 workloads x
8,760 h x 30 venues the model has a few hundred binaries and is solved in well under a second
(``bench/bench_placement.py``).

Conventions (see :mod:`engine`)
-------------------------------
* Costs are positive EUR; rates in EUR per GPU-hour; reported costs are EUR per month of 730 h
  (:data:`engine.tco.HOURS_PER_MONTH`), i.e. the cost over the demand horizon scaled by 730 / H.
* Demand is in GPUs per hour and may be fractional (an hourly average); committed GPUs are integers.
  One GPU of demand is one GPU of any eligible model: no performance normalisation between models.
* A commitment is paid for every hour of the horizon; a term longer than the demand profile assumes the
  profile repeats. Hour 0 of a profile is Monday 00:00.
* Unknown facts count against sensitive work: an unknown data-centre location is *not* EU; an unknown
  capacity is unlimited (the plan says so); an unknown minimum commitment (catalog ``"unknown"``) is taken as none.
* Lead times and the plan horizon (``horizon_months``): a venue is usable from month
  ``ceil(lead_time_days / 30.42)``; a pair's commitment and the burst it saves count only for the usable share
  of the horizon, and before it the workload bursts (:mod:`engine.placement.ramp` gives the monthly ramp). A
  venue marked not committable (stale price or unstated fabric/specs, unless the user opted in) takes no
  commitment. The client's own cluster is a venue priced by the Rent-or-own engine (:mod:`engine.placement.own`);
  :func:`compare_strategies` plans all on demand, own + burst, managed dedicated + burst and reserved public + burst.
* Work budget: one request plans at most :data:`MAX_WORKLOAD_GPUS` GPUs per workload,
  :data:`MAX_PORTFOLIO_CELLS` workloads x largest peak and :data:`MAX_LEVEL_COLUMNS` capacity-level columns;
  a larger portfolio raises :class:`PlacementTooLargeError` before anything of its size is built
  (:mod:`engine.placement.budget`).
* Ties go to *fewer* committed GPUs: when the ``k``-th GPU exactly breaks even, it is not committed
  (same cost, less lock-in); ``ties="more"`` gives the other end of the tie.

References
----------
.. [1] Newsvendor / critical-fractile rule; "newsvendor-type solution" for base reserved capacity,
       Production and Operations Management, doi:10.1177/10591478241251614.
.. [2] J. Weinman, "Mathematical Proof of the Inevitability of Cloud Computing", 2009,
       https://joeweinman.com/Resources/Joe_Weinman_Inevitability_Of_Cloud.pdf
.. [3] Epoch AI, training-cost-trends, ``constants.py`` ``DEFAULT_CUD``,
       https://github.com/epoch-research/training-cost-trends
.. [4] J. W. Young, "A first order approximation to the optimum checkpoint interval", Commun. ACM 17(9),
       1974, doi:10.1145/361147.361115; J. T. Daly, FGCS 22(3), 2006, doi:10.1016/j.future.2004.11.016.
.. [5] Microsoft Learn, "Choose a commitment amount" (simulate every commitment on the hourly history),
       https://learn.microsoft.com/azure/cost-management-billing/savings-plan/choose-commitment-amount
.. [6] SciPy ``scipy.optimize.milp`` (HiGHS), https://docs.scipy.org/doc/scipy/reference/generated/scipy.optimize.milp.html
"""

from engine.assumptions import Assumption
from engine.placement.budget import (
    PlacementTooLargeError,
    check_level_columns,
    check_portfolio_size,
)
from engine.placement.commitment import (
    commitment_cost_eur,
    committed_utilisation_fraction,
    optimal_commitment_gpus,
    overflow_gpu_hours,
    spot_effective_eur_per_gpu_hour,
)
from engine.placement.compare import (
    STRATEGIES,
    StrategyComparison,
    StrategyResult,
    compare_strategies,
)
from engine.placement.defaults import (
    COMMITMENT_REQUIRED,
    DEFAULT_ASSUMPTIONS,
    DEFAULT_HORIZON_MONTHS,
    EPOCH_COMMITMENT_DISCOUNT_FRACTION,
    HOURS_PER_WEEK,
    MAX_DEMAND_CELLS,
    MAX_HORIZON_MONTHS,
    MAX_LEVEL_COLUMNS,
    MAX_PORTFOLIO_CELLS,
    MAX_SERIES_HOURS,
    MAX_WORKLOAD_GPUS,
    PlacementAssumptions,
)
from engine.placement.demand import (
    Workload,
    WorkloadKind,
    demand_profile_gpus,
    demand_profiles_gpus,
)
from engine.placement.eligibility import (
    PlacementInfeasibleError,
    feasibility_problems,
)
from engine.placement.own import (
    DEFAULT_OWN_LEAD_TIME_DAYS,
    OWN_LEAD_TIME_SOURCE,
    OWN_VENUE_ID,
    OwnCluster,
)
from engine.placement.plan import (
    PlacementPlan,
    WorkloadPlacement,
)
from engine.placement.portfolio import (
    PriceSensitivity,
    baseline_all_on_demand,
    baseline_dedicated_for_peak,
    place_portfolio,
    sensitivity_to_on_demand_price,
)
from engine.placement.ramp import (
    MonthlyRamp,
    monthly_ramp,
)
from engine.placement.venues import (
    DAYS_PER_MONTH,
    TENANCIES,
    Venues,
)

__all__ = [
    "HOURS_PER_WEEK",
    "MAX_SERIES_HOURS",
    "MAX_WORKLOAD_GPUS",
    "MAX_PORTFOLIO_CELLS",
    "MAX_DEMAND_CELLS",
    "MAX_LEVEL_COLUMNS",
    "EPOCH_COMMITMENT_DISCOUNT_FRACTION",
    "COMMITMENT_REQUIRED",
    "DEFAULT_ASSUMPTIONS",
    "Assumption",
    "PlacementAssumptions",
    "WorkloadKind",
    "Workload",
    "Venues",
    "WorkloadPlacement",
    "PlacementPlan",
    "PriceSensitivity",
    "PlacementInfeasibleError",
    "PlacementTooLargeError",
    "check_portfolio_size",
    "check_level_columns",
    "demand_profile_gpus",
    "demand_profiles_gpus",
    "overflow_gpu_hours",
    "optimal_commitment_gpus",
    "commitment_cost_eur",
    "committed_utilisation_fraction",
    "spot_effective_eur_per_gpu_hour",
    "feasibility_problems",
    "place_portfolio",
    "baseline_all_on_demand",
    "baseline_dedicated_for_peak",
    "sensitivity_to_on_demand_price",
    "DEFAULT_HORIZON_MONTHS",
    "MAX_HORIZON_MONTHS",
    "DAYS_PER_MONTH",
    "TENANCIES",
    "DEFAULT_OWN_LEAD_TIME_DAYS",
    "OWN_LEAD_TIME_SOURCE",
    "OWN_VENUE_ID",
    "OwnCluster",
    "MonthlyRamp",
    "monthly_ramp",
    "STRATEGIES",
    "StrategyResult",
    "StrategyComparison",
    "compare_strategies",
]
