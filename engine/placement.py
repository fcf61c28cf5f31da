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
  capacity is unlimited; an unknown minimum commitment (catalog ``"unknown"``) is taken as none.
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

from __future__ import annotations

import enum
import math
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Annotated, Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, model_validator
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from engine.tco import HOURS_PER_MONTH, HOURS_PER_YEAR

__all__ = [
    "HOURS_PER_WEEK",
    "MAX_SERIES_HOURS",
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
    "demand_profile_gpus",
    "demand_profiles_gpus",
    "overflow_gpu_hours",
    "optimal_commitment_gpus",
    "commitment_cost_eur",
    "committed_utilisation_fraction",
    "spot_effective_eur_per_gpu_hour",
    "venues_from_offers",
    "feasibility_problems",
    "place_portfolio",
    "baseline_all_on_demand",
    "baseline_dedicated_for_peak",
    "sensitivity_to_on_demand_price",
]

#: Hours in a week [h]; the shortest uploaded demand series.
HOURS_PER_WEEK = 168
#: Longest uploaded demand series: a leap year [h].
MAX_SERIES_HOURS = 8784

#: Commitment discount vs on demand by catalog ``provider_id`` and term in years [-]:
#: Epoch AI ``constants.py`` ``DEFAULT_CUD`` (AWS 41 % / 64 %, Google Cloud 37 % / 56 %, Azure 25 % / 49 %,
#: Lambda 34 % / 56 %). Reserved rate = on-demand rate x (1 - discount); r/o = 1 - discount.
EPOCH_COMMITMENT_DISCOUNT_FRACTION: dict[str, dict[int, float]] = {
    "aws": {1: 0.41, 3: 0.64},
    "gcp": {1: 0.37, 3: 0.56},
    "azure": {1: 0.25, 3: 0.49},
    "lambda": {1: 0.34, 3: 0.56},
}
_EPOCH_SOURCE = "Epoch AI training-cost-trends constants.py DEFAULT_CUD (github.com/epoch-research/training-cost-trends)"

#: ``min_commitment`` values (catalog enum) that forbid pay-as-you-go use of a venue.
COMMITMENT_REQUIRED = frozenset({"monthly", "annual", "multi-year"})


class Assumption(NamedTuple):
    """One parameter behind a plan: name, value, unit and where the value comes from."""

    name: str
    value: object
    unit: str
    source: str


def _assumed(default: Any, unit: str, source: str, **bounds: Any) -> Any:
    return Field(default, description=source, json_schema_extra={"unit": unit}, **bounds)


class PlacementAssumptions(BaseModel):
    """Defaults of the placement engine that are not catalog facts, each with its unit and source.

    The spot overhead follows the domain model (section 6): effective spot rate
    ``c_spot (1 + (tau/2 + t_restart)/M + delta/tau)`` with Young's interval ``tau = sqrt(2 delta M)``.

    Examples
    --------
    >>> a = PlacementAssumptions()
    >>> round(a.spot_overhead_fraction(), 4)  # tau = 2 h: 1/24 x (1 h + 10 min) + 5 min / 2 h
    0.0903
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    spot_mean_time_between_interruptions_hours: float = _assumed(
        24.0, "h", "assumption (user input): one spot interruption per day; no published per-offer preemption "
        "rate is in the catalog (AWS documents a two-minute notice, GCP 30 s; domain-model section 6)", gt=0)
    checkpoint_write_hours: float = _assumed(
        5.0 / 60.0, "h", "assumption (user input): 5 min to write a checkpoint (delta in Young 1974)", ge=0)
    restart_hours: float = _assumed(
        10.0 / 60.0, "h", "assumption (user input): 10 min to get a new spot instance and reload", ge=0)

    def spot_overhead_fraction(self) -> float:
        """Extra cost of a useful spot GPU-hour at Young's checkpoint interval [-]."""
        return float(spot_effective_eur_per_gpu_hour(
            1.0, self.spot_mean_time_between_interruptions_hours, self.checkpoint_write_hours,
            self.restart_hours) - 1.0)

    def table(self) -> tuple[Assumption, ...]:
        """The fields as :class:`Assumption` rows, plus the derived spot overhead."""
        rows = []
        for name, info in type(self).model_fields.items():
            extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
            rows.append(Assumption(name, getattr(self, name), str(extra.get("unit", "-")), info.description or ""))
        rows.append(Assumption("spot_overhead_fraction", round(self.spot_overhead_fraction(), 4), "-",
                               "derived: Young (1974) optimum checkpoint interval, domain-model section 6"))
        return tuple(rows)


DEFAULT_ASSUMPTIONS = PlacementAssumptions()


# --------------------------------------------------------------------------------------------------
# Workloads and demand profiles
# --------------------------------------------------------------------------------------------------


class WorkloadKind(enum.StrEnum):
    """What the GPUs do (informational: it labels the plan, it does not change the arithmetic)."""

    TRAINING = "training"
    INFERENCE = "inference"
    DEVELOPMENT = "development"


_NonNegGpus = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class Workload(BaseModel):
    """One workload of the portfolio: demand profile, GPU class and placement rules.

    Give the demand either as ``mean_gpus`` + ``peak_gpus`` with a busy-hours pattern, or as an uploaded
    ``hourly_demand_gpus`` series of one week to one (leap) year; see :func:`demand_profile_gpus`.

    Examples
    --------
    >>> w = Workload(name="chat-api", kind="inference", mean_gpus=6, peak_gpus=12, busy_hours_per_day=12,
    ...              busy_days_per_week=5, may_leave_eu=False)
    >>> w.busy_fraction
    0.35714285714285715
    >>> try:
    ...     Workload(name="x", mean_gpus=2, peak_gpus=12, busy_hours_per_day=12)
    ... except ValueError as err:
    ...     print(err.errors()[0]["msg"])
    Value error, mean_gpus (2) is below peak_gpus x busy fraction (12 x 0.5 = 6): lower the peak or the busy hours
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    name: str = Field(min_length=1, description="Label shown in the plan.")
    kind: WorkloadKind = Field(WorkloadKind.TRAINING, description="training / inference / development.")
    # -- demand: pattern ---------------------------------------------------------------------------------
    mean_gpus: float | None = Field(None, ge=0, allow_inf_nan=False, description="Average GPUs in use [GPU].")
    peak_gpus: float | None = Field(None, gt=0, allow_inf_nan=False, description="GPUs in use in busy hours [GPU].")
    busy_hours_per_day: int = Field(24, ge=1, le=24, description="Length of the daily busy window [h].")
    busy_days_per_week: int = Field(7, ge=1, le=7, description="Busy days per week, Monday first [d].")
    first_busy_hour: int = Field(8, ge=0, le=23, description="Hour of day the busy window starts [h]; wraps.")
    # -- demand: uploaded series --------------------------------------------------------------------------
    hourly_demand_gpus: list[_NonNegGpus] | None = Field(
        None, min_length=HOURS_PER_WEEK, max_length=MAX_SERIES_HOURS,
        description="Uploaded hourly demand [GPU], one week to one year, starting Monday 00:00.")
    # -- GPU class -------------------------------------------------------------------------------------
    min_gpu_memory_gb: float = Field(0.0, ge=0, description="Minimum memory per GPU [GB].")
    needs_infiniband: bool = Field(False, description="Multi-node job needing an InfiniBand fabric.")
    needs_nvlink: bool = Field(False, description="Needs NVLink inside the node.")
    gpu_model: str | None = Field(None, description="Only this GPU model (catalog gpu_model, case-insensitive).")
    # -- rules -------------------------------------------------------------------------------------------
    may_leave_eu: bool = Field(True, description="False: data must stay in an EU data centre.")
    eu_jurisdiction_required: bool = Field(False, description="True: provider's parent must be EU-based.")
    spot_allowed: bool = Field(False, description="Tolerates interruptions (checkpointed): spot may burst.")
    latency_sensitive: bool = Field(
        False, description="Serves users in Europe interactively: needs a known EU data centre, never spot.")

    @model_validator(mode="after")
    def _check_demand(self) -> Workload:
        pattern = self.mean_gpus is not None or self.peak_gpus is not None
        if self.hourly_demand_gpus is not None:
            if pattern:
                raise ValueError("give either mean_gpus and peak_gpus or hourly_demand_gpus, not both")
            return self
        if self.mean_gpus is None or self.peak_gpus is None:
            raise ValueError("give mean_gpus and peak_gpus (with the busy-hours pattern) or hourly_demand_gpus")
        if self.mean_gpus > self.peak_gpus:
            raise ValueError(f"mean_gpus ({self.mean_gpus:g}) must not exceed peak_gpus ({self.peak_gpus:g})")
        f = self.busy_fraction
        if self.mean_gpus < self.peak_gpus * f * (1 - 1e-12):
            raise ValueError(
                f"mean_gpus ({self.mean_gpus:g}) is below peak_gpus x busy fraction "
                f"({self.peak_gpus:g} x {f:.3g} = {self.peak_gpus * f:.3g}): lower the peak or the busy hours")
        return self

    @property
    def busy_fraction(self) -> float:
        """Nominal share of busy hours, ``busy_hours_per_day x busy_days_per_week / 168`` [-]."""
        return self.busy_hours_per_day * self.busy_days_per_week / HOURS_PER_WEEK

    @property
    def is_sensitive(self) -> bool:
        """True when the data must stay in the EU or an EU-jurisdiction provider is required."""
        return (not self.may_leave_eu) or self.eu_jurisdiction_required


def demand_profile_gpus(workload: Workload, hours: int = int(HOURS_PER_YEAR)) -> np.ndarray:
    r"""Hourly demand of one workload over ``hours`` hours [GPU], shape ``(hours,)``.

    Parameters
    ----------
    workload : Workload
        The workload.
    hours : int
        Horizon ``H`` [h] (default 8,760, one year). Hour 0 is Monday 00:00.

    Returns
    -------
    numpy.ndarray
        Demand [GPU], float, >= 0.

    Notes
    -----
    *Uploaded series*: tiled (``numpy.resize``) to ``H`` hours; a longer series is cut at ``H``.

    *Busy-hours pattern*: hour ``h`` is busy when its hour of day is in the window
    ``[first_busy_hour, first_busy_hour + busy_hours_per_day)`` (wrapping past midnight) and its day of the
    week is one of the first ``busy_days_per_week`` (Monday first). Busy hours run at the peak ``P``; the
    other hours at the level ``L`` that makes the mean over the *realised* horizon equal ``m``:

    .. math::

        L = \frac{m H - P\, n_{busy}}{H - n_{busy}}

    (8,760 h is 52 weeks and a day, so the realised busy share can differ slightly from the nominal one;
    ``L`` is clipped at 0, and the profile is ``P`` everywhere when every hour is busy). ``L`` may be
    fractional: it is an hourly average.

    Examples
    --------
    >>> w = Workload(name="dev", mean_gpus=5, peak_gpus=8, busy_hours_per_day=12, busy_days_per_week=7)
    >>> d = demand_profile_gpus(w, hours=48)  # busy 08:00-20:00 at 8 GPUs, 2 GPUs otherwise
    >>> d[:10].tolist(), d[8:20].tolist() == [8.0] * 12, float(d.mean())
    ([2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 8.0, 8.0], True, 5.0)
    >>> demand_profile_gpus(Workload(name="up", hourly_demand_gpus=[1.0] * 167 + [5.0]), hours=170)[-4:].tolist()
    [1.0, 5.0, 1.0, 1.0]
    """
    hours = int(hours)
    if hours < 1:
        raise ValueError(f"hours must be >= 1, got {hours}")
    if workload.hourly_demand_gpus is not None:
        return np.resize(np.asarray(workload.hourly_demand_gpus, dtype=float), hours)
    h = np.arange(hours)
    busy = ((h - workload.first_busy_hour) % 24 < workload.busy_hours_per_day) & (
        (h // 24) % 7 < workload.busy_days_per_week
    )
    n_busy = int(busy.sum())
    peak = float(workload.peak_gpus)  # type: ignore[arg-type]  (validated: pattern given)
    if n_busy == hours:
        return np.full(hours, peak)
    base = max((float(workload.mean_gpus) * hours - peak * n_busy) / (hours - n_busy), 0.0)  # type: ignore[arg-type]
    return np.where(busy, peak, base)


def demand_profiles_gpus(workloads: Sequence[Workload], hours: int = int(HOURS_PER_YEAR)) -> np.ndarray:
    """Hourly demand of every workload [GPU], shape ``(n_workloads, hours)`` (see :func:`demand_profile_gpus`)."""
    if not workloads:
        return np.zeros((0, int(hours)))
    return np.stack([demand_profile_gpus(w, hours) for w in workloads])


# --------------------------------------------------------------------------------------------------
# Commitment kernel
# --------------------------------------------------------------------------------------------------


def _duration_curve(demand: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Overflow ``F(j)`` for ``j = 0..Kmax`` and the covered GPU-hours of GPU ``k = 1..Kmax``.

    ``demand`` has shape ``(B, H)``; returns ``F`` (B, Kmax+1), ``covered`` (B, Kmax) and ``K`` (B,) with
    ``K = ceil(max demand)`` per row. ``F(j) = S(j) - j N(j)`` with ``N(j)`` the hours above ``j`` and
    ``S(j)`` their summed demand, read from the sorted rows (one global ``searchsorted`` with row offsets).
    """
    b, h = demand.shape
    peak = demand.max(axis=1) if h else np.zeros(b)
    k_row = np.ceil(peak).astype(np.int64)
    k_max = int(k_row.max()) if b else 0
    ordered = np.sort(demand, axis=1)
    suffix = np.zeros((b, h + 1))
    suffix[:, :h] = np.cumsum(ordered[:, ::-1], axis=1)[:, ::-1]
    levels = np.arange(k_max + 1, dtype=float)
    offset = (np.arange(b, dtype=float) * (k_max + 2.0))[:, None]  # keeps rows apart: values <= k_max
    at_or_below = np.searchsorted((ordered + offset).ravel(), (levels[None, :] + offset).ravel(), side="right")
    at_or_below = at_or_below.reshape(b, k_max + 1) - (np.arange(b) * h)[:, None]
    overflow = np.take_along_axis(suffix, at_or_below, axis=1) - levels[None, :] * (h - at_or_below)
    overflow = np.maximum(overflow, 0.0)
    return overflow, overflow[:, :-1] - overflow[:, 1:], k_row


def overflow_gpu_hours(demand: npt.ArrayLike, max_gpus: int | None = None) -> np.ndarray:
    r"""Duration-curve overflow :math:`F(j) = \sum_h (D_h - j)^+` for every integer level ``j`` [GPU-h].

    Parameters
    ----------
    demand : array_like
        Hourly demand [GPU], shape ``(..., H)``, >= 0.
    max_gpus : int, optional
        Last level (default ``ceil(max demand)`` over the batch; ``F`` is 0 from there on).

    Returns
    -------
    numpy.ndarray
        ``F`` [GPU-h], shape ``(..., max_gpus + 1)``; ``F(j) - F(j+1)`` is the GPU-hours the ``(j+1)``-th
        committed GPU would be busy.

    Examples
    --------
    >>> overflow_gpu_hours([0, 1, 3, 2]).tolist()
    [6.0, 3.0, 1.0, 0.0]
    """
    d = np.asarray(demand, dtype=float)
    batch = d.shape[:-1]
    f, _, _ = _duration_curve(d.reshape(-1, d.shape[-1]))
    n = f.shape[1] - 1 if max_gpus is None else int(max_gpus)
    if n + 1 > f.shape[1]:
        f = np.pad(f, ((0, 0), (0, n + 1 - f.shape[1])))
    return f[:, : n + 1].reshape(*batch, n + 1)


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Error-free product: ``a * b = p + e`` exactly, ``p`` the rounded product (Dekker 1971)."""
    def split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        c = 134217729.0 * x  # 2**27 + 1
        hi = c - (c - x)
        return hi, x - hi

    with np.errstate(invalid="ignore", over="ignore"):
        p = a * b
        ah, al = split(a)
        bh, bl = split(b)
        e = al * bl - (((p - ah * bh) - al * bh) - ah * bl)
    return p, e


def _commit_count(covered: np.ndarray, k_row: np.ndarray, hours: int, reserved: np.ndarray,
                  on_demand: np.ndarray, ties: str) -> np.ndarray:
    """Number of GPUs ``k`` whose covered hours beat (or, ``ties="more"``, reach) ``r H / o``.

    ``covered x o`` is compared with ``r x H`` exactly (error-free products), so exact ties between the
    float inputs are recognised as ties and the rule matches a brute force in rational arithmetic.
    """
    lhs, lhs_err = _two_product(covered, np.asarray(on_demand, dtype=float)[..., None])
    rhs, rhs_err = _two_product(np.asarray(reserved, dtype=float)[..., None], np.asarray(float(hours)))
    with np.errstate(invalid="ignore"):
        greater = (lhs > rhs) | ((lhs == rhs) & (lhs_err > rhs_err))
        equal = (lhs == rhs) & (lhs_err == rhs_err)
    hit = greater if ties == "fewer" else greater | equal
    valid = np.arange(1, covered.shape[-1] + 1) <= k_row[..., None]
    return np.sum(hit & valid, axis=-1)


def optimal_commitment_gpus(
    demand: npt.ArrayLike,
    reserved_eur_per_gpu_hour: npt.ArrayLike,
    on_demand_eur_per_gpu_hour: npt.ArrayLike,
    *,
    ties: Literal["fewer", "more"] = "fewer",
) -> np.ndarray:
    r"""Cost-minimising number of committed GPUs for an hourly demand series (critical-fractile rule).

    Commit GPU ``k`` (``k = 1, 2, ...``) while it would be busy for more than the break-even fraction
    ``r/o`` of the hours; for integer demand "busy" means "demand >= k", so the rule reads: commit ``k``
    GPUs while the fraction of hours with demand >= ``k`` exceeds ``r/o``.

    Parameters
    ----------
    demand : array_like
        Hourly demand :math:`D_h` [GPU], shape ``(H,)`` or ``(..., H)``; >= 0, may be fractional.
    reserved_eur_per_gpu_hour : array_like
        Commitment rate ``r`` [EUR/GPU-h], paid for every committed GPU every hour; broadcast against
        ``demand.shape[:-1]``.
    on_demand_eur_per_gpu_hour : array_like
        Pay-as-you-go rate ``o`` [EUR/GPU-h] for the GPU-hours above the commitment; broadcast likewise.
    ties : {"fewer", "more"}
        On an exact tie (GPU ``k`` busy exactly ``r/o`` of the hours, same cost either way) commit the
        fewer GPUs (default: less lock-in) or the more.

    Returns
    -------
    numpy.ndarray
        ``k*`` [GPU], int64, shape ``broadcast(demand.shape[:-1], r.shape, o.shape)``; 0-d for one series.
        Between 0 and ``ceil(max D)``. ``r >= o`` gives 0; ``r = 0 < o`` commits up to ``ceil(max D)``
        (the top GPU may be busy only part of an hour); NaN rates give 0.

    Notes
    -----
    Cost over the horizon of ``H`` hours with ``k`` committed GPUs:

    .. math::

        C(k) = r\,k\,H + o \sum_h (D_h - k)^+ = r\,k\,H + o\,F(k).

    Proof sketch. Going from ``k - 1`` to ``k`` GPUs costs :math:`rH` more in commitment and saves
    :math:`o\,c_k` of burst, where :math:`c_k = F(k-1) - F(k) = \sum_h \min((D_h - k + 1)^+, 1)` is the
    GPU-hours the ``k``-th GPU covers (for integer demand, the number of hours with :math:`D_h \ge k`). So
    :math:`C(k) - C(k-1) = rH - o\,c_k`. Since :math:`c_k` does not increase with ``k``, ``C`` is convex
    on the integers and its minimisers are exactly the ``k`` where the increments change sign:
    :math:`k^* = \#\{k \ge 1 : c_k / H > r / o\}` (smallest minimiser; ``>=`` gives the largest).
    In probability terms :math:`P(D \ge k^*) > r/o \ge P(D \ge k^* + 1) = P(D > k^*)`: the newsvendor
    critical fractile :math:`P(D > R^*) = r/o` of [1] on the discrete grid, and Weinman's result [2] that
    some pay-per-use pays whenever the time at peak is below :math:`1/U = r/o`. This is the same answer as
    an exhaustive sweep of every ``k`` on the hourly history [5], at the cost of one sort.

    References
    ----------
    .. [1] Newsvendor rule for base reserved capacity, doi:10.1177/10591478241251614.
    .. [2] J. Weinman, "Mathematical Proof of the Inevitability of Cloud Computing", 2009.
    .. [5] Microsoft Learn, "Choose a commitment amount".

    Examples
    --------
    Demand 0, 1, 2, 3, 4 GPUs for one hour each. At ``r/o = 0.5``: GPU 1 is busy 4/5 of the hours, GPU 2
    3/5, GPU 3 2/5, so commit 2:

    >>> int(optimal_commitment_gpus([0, 1, 2, 3, 4], 1.0, 2.0))
    2

    At ``r/o = 1.5/2.5 = 0.6`` GPU 2 (busy 3/5 of the hours) breaks exactly even, so the tie rule decides
    (ties are judged exactly on the given floats: 1.2/2.0 is not a tie, as 1.2 is stored as 1.19999...):

    >>> d = [0, 1, 2, 3, 4]
    >>> int(optimal_commitment_gpus(d, 1.5, 2.5)), int(optimal_commitment_gpus(d, 1.5, 2.5, ties="more"))
    (1, 2)
    >>> int(optimal_commitment_gpus(d, 1.2, 2.0))
    2
    >>> optimal_commitment_gpus([[2, 2, 2, 2], [0, 0, 0, 8]], [1.0, 1.0], 2.0).tolist()  # batch of 2 series
    [2, 0]
    >>> int(optimal_commitment_gpus([3, 5], 2.0, 2.0))  # r = o: never worth committing
    0
    """
    d = np.asarray(demand, dtype=float)
    if d.ndim == 0 or d.shape[-1] == 0:
        raise ValueError("demand must have an hour axis with at least one hour")
    batch = d.shape[:-1]
    _, covered, k_row = _duration_curve(d.reshape(-1, d.shape[-1]))
    covered = covered.reshape(*batch, covered.shape[-1])
    k_row = k_row.reshape(batch)
    r = np.asarray(reserved_eur_per_gpu_hour, dtype=float)
    o = np.asarray(on_demand_eur_per_gpu_hour, dtype=float)
    return _commit_count(covered, k_row, d.shape[-1], r, o, ties).astype(np.int64)


def commitment_cost_eur(
    demand: npt.ArrayLike,
    committed_gpus: npt.ArrayLike,
    reserved_eur_per_gpu_hour: npt.ArrayLike,
    on_demand_eur_per_gpu_hour: npt.ArrayLike,
) -> np.ndarray:
    r"""Cost over the demand horizon of committing ``k`` GPUs and paying the rest as used [EUR].

    Parameters
    ----------
    demand : array_like
        Hourly demand [GPU], shape ``(..., H)``.
    committed_gpus : array_like
        ``k`` [GPU], >= 0; broadcast against ``demand.shape[:-1]`` (pass ``demand`` of shape ``(H,)`` and
        ``k`` of shape ``(m,)`` to price ``m`` levels).
    reserved_eur_per_gpu_hour, on_demand_eur_per_gpu_hour : array_like
        ``r`` and ``o`` [EUR/GPU-h], broadcast likewise.

    Returns
    -------
    numpy.ndarray
        :math:`C = r\,k\,H + o \sum_h (D_h - k)^+` [EUR], shape ``broadcast(demand.shape[:-1], k, r, o)``.

    Examples
    --------
    >>> commitment_cost_eur([0, 1, 2, 3, 4], [0, 1, 2, 3, 4], 1.0, 2.0).tolist()
    [20.0, 17.0, 16.0, 17.0, 20.0]
    """
    d = np.asarray(demand, dtype=float)
    k = np.asarray(committed_gpus, dtype=float)
    over = np.maximum(d - k[..., None], 0.0).sum(axis=-1)
    return (np.asarray(reserved_eur_per_gpu_hour, dtype=float) * k * d.shape[-1]
            + np.asarray(on_demand_eur_per_gpu_hour, dtype=float) * over)


def committed_utilisation_fraction(demand: npt.ArrayLike, committed_gpus: npt.ArrayLike) -> np.ndarray:
    r"""Share of committed GPU-hours actually used, :math:`\sum_h \min(D_h, k) / (k H)` [-]; NaN for ``k = 0``.

    Examples
    --------
    >>> committed_utilisation_fraction([0, 1, 2, 3, 4], [2, 0]).tolist()
    [0.7, nan]
    """
    d = np.asarray(demand, dtype=float)
    k = np.asarray(committed_gpus, dtype=float)
    used = np.minimum(d, k[..., None]).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(k > 0, used / (k * d.shape[-1]), np.nan)


def spot_effective_eur_per_gpu_hour(
    spot_eur_per_gpu_hour: npt.ArrayLike,
    mean_time_between_interruptions_hours: npt.ArrayLike,
    checkpoint_write_hours: npt.ArrayLike,
    restart_hours: npt.ArrayLike,
    checkpoint_interval_hours: npt.ArrayLike | None = None,
) -> np.ndarray:
    r"""Spot price per *useful* GPU-hour with checkpointing and restarts [EUR/GPU-h].

    Parameters
    ----------
    spot_eur_per_gpu_hour : array_like
        Spot list rate ``c`` [EUR/GPU-h].
    mean_time_between_interruptions_hours : array_like
        ``M`` [h], > 0 (``inf`` = never interrupted).
    checkpoint_write_hours : array_like
        Time to write one checkpoint, :math:`\delta` [h], >= 0.
    restart_hours : array_like
        Time to restart after an interruption, :math:`t_r` [h], >= 0.
    checkpoint_interval_hours : array_like, optional
        :math:`\tau` [h]; default Young's optimum :math:`\sqrt{2 \delta M}`.

    Returns
    -------
    numpy.ndarray
        :math:`c\,(1 + (\tau/2 + t_r)/M + \delta/\tau)` [EUR/GPU-h], broadcast shape. With
        :math:`\delta = 0` the checkpoint term is 0 (and :math:`\tau \to 0` loses no work); with
        :math:`M = \infty` the interruption term is 0.

    Notes
    -----
    Each interruption loses on average half an interval of work plus the restart; each interval spends
    :math:`\delta` writing a checkpoint (domain-model section 6; Young [4], Daly for higher order).

    Examples
    --------
    >>> round(float(spot_effective_eur_per_gpu_hour(1.0, 24.0, 1 / 12, 1 / 6)), 4)  # tau = 2 h
    1.0903
    >>> spot_effective_eur_per_gpu_hour(2.0, [np.inf, 10.0], 0.0, 0.5).tolist()
    [2.0, 2.1]
    """
    c = np.asarray(spot_eur_per_gpu_hour, dtype=float)
    m = np.asarray(mean_time_between_interruptions_hours, dtype=float)
    delta = np.asarray(checkpoint_write_hours, dtype=float)
    t_r = np.asarray(restart_hours, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = np.sqrt(2.0 * delta * m) if checkpoint_interval_hours is None else np.asarray(
            checkpoint_interval_hours, dtype=float)
        lost = np.where(np.isinf(m), 0.0, (np.where(delta == 0, 0.0, tau) / 2.0 + t_r) / m)
        writing = np.where(delta == 0, 0.0, delta / tau)
    return c * (1.0 + lost + writing)


# --------------------------------------------------------------------------------------------------
# Venues
# --------------------------------------------------------------------------------------------------

_TEXT_FIELDS = ("venue_id", "provider", "gpu_model", "jurisdiction", "min_commitment", "reserved_estimate_source")
_BOOL_FIELDS = ("has_infiniband", "has_nvlink", "is_eu_datacenter", "is_location_known", "reserved_is_estimated")


@dataclass(frozen=True)
class Venues:
    """Where GPUs can be placed: one catalog offer per venue, every field an array of shape ``(n_venues,)``.

    Attributes
    ----------
    venue_id, provider, gpu_model : numpy.ndarray of str
        Offer id (unique), provider name, GPU model.
    memory_gb : numpy.ndarray
        Memory per GPU [GB]; NaN = unknown (fails any memory requirement).
    has_infiniband, has_nvlink : numpy.ndarray of bool
        InfiniBand scale-out fabric / NVLink inside the node (unknown = False).
    is_eu_datacenter, is_location_known : numpy.ndarray of bool
        Data centre known to be in the EU; location stated at all. Unknown location is *not* EU.
    jurisdiction : numpy.ndarray of str
        Provider parent's jurisdiction: ``EU`` / ``US`` / ``UK`` / ``other``.
    on_demand_eur_per_gpu_hour, spot_eur_per_gpu_hour, reserved_eur_per_gpu_hour : numpy.ndarray
        Rates [EUR/GPU-h]; NaN = not offered.
    reserved_term_months : numpy.ndarray
        Term of the reserved rate [month]; NaN = not stated.
    reserved_is_estimated : numpy.ndarray of bool
        The reserved rate is on demand x (1 - Epoch discount), not a published price.
    capacity_gpus : numpy.ndarray
        Most GPUs the portfolio may commit here [GPU]; ``inf`` = unlimited / unknown.
    min_commitment : numpy.ndarray of str
        Catalog term ``none`` / ``monthly`` / ``annual`` / ``multi-year`` / ``unknown``; a required term
        (:data:`COMMITMENT_REQUIRED`) rules the venue out as a burst venue.
    min_commit_gpus : numpy.ndarray
        Smallest commitment a workload may hold here [GPU] (0 = none).
    reserved_estimate_source : numpy.ndarray of str
        Where an estimated reserved rate's discount comes from: ``"Epoch AI discount"``, ``"your assumed
        discount"``; ``""`` when the rate is not estimated.
    """

    venue_id: np.ndarray
    provider: np.ndarray
    gpu_model: np.ndarray
    memory_gb: np.ndarray
    has_infiniband: np.ndarray
    has_nvlink: np.ndarray
    is_eu_datacenter: np.ndarray
    is_location_known: np.ndarray
    jurisdiction: np.ndarray
    on_demand_eur_per_gpu_hour: np.ndarray
    spot_eur_per_gpu_hour: np.ndarray
    reserved_eur_per_gpu_hour: np.ndarray
    reserved_term_months: np.ndarray
    reserved_is_estimated: np.ndarray
    capacity_gpus: np.ndarray
    min_commitment: np.ndarray
    min_commit_gpus: np.ndarray
    reserved_estimate_source: np.ndarray = ""  # type: ignore[assignment]  # broadcast to (n_venues,)

    def __post_init__(self) -> None:
        n = len(np.atleast_1d(self.venue_id))
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _TEXT_FIELDS and isinstance(value, str):  # one text for every venue
                arr = np.full(n, value, dtype=object)
            elif f.name in _TEXT_FIELDS:
                arr = np.asarray(["" if v is None else str(v) for v in np.atleast_1d(value)], dtype=object)
            elif f.name in _BOOL_FIELDS:
                arr = np.asarray(value, dtype=bool)
            else:
                arr = np.asarray(value, dtype=float)
            if arr.ndim == 0:
                arr = np.full(n, arr.item(), dtype=arr.dtype)
            if arr.shape != (n,):
                raise ValueError(f"Venues.{f.name} has shape {arr.shape}, expected ({n},)")
            object.__setattr__(self, f.name, arr)
        if len(set(self.venue_id.tolist())) != n:
            raise ValueError("Venues.venue_id must be unique")
        if np.any(self.capacity_gpus < 0) or np.any(self.min_commit_gpus < 0):
            raise ValueError("capacity_gpus and min_commit_gpus must be >= 0")

    @classmethod
    def from_records(cls, records: Iterable[Mapping[str, Any]]) -> Venues:
        """Build from dicts keyed by the field names; missing keys take neutral defaults.

        Defaults: ``provider`` = venue id, unknown memory (NaN), no fabric flags, not EU (location unknown
        unless ``is_eu_datacenter`` is given), jurisdiction ``other``, no prices, unlimited capacity,
        ``min_commitment="none"``, ``min_commit_gpus=0``.

        Examples
        --------
        >>> v = Venues.from_records([{"venue_id": "a", "on_demand_eur_per_gpu_hour": 2.0},
        ...                          {"venue_id": "b", "reserved_eur_per_gpu_hour": 1.0, "capacity_gpus": 8}])
        >>> v.n_venues, v.commit_rate_eur_per_gpu_hour.tolist(), v.capacity_gpus.tolist()
        (2, [nan, 1.0], [inf, 8.0])
        """
        rows = list(records)
        nan = float("nan")
        defaults: dict[str, Any] = {
            "gpu_model": "", "memory_gb": nan, "has_infiniband": False, "has_nvlink": False,
            "is_eu_datacenter": False, "jurisdiction": "other", "on_demand_eur_per_gpu_hour": nan,
            "spot_eur_per_gpu_hour": nan, "reserved_eur_per_gpu_hour": nan, "reserved_term_months": nan,
            "reserved_is_estimated": False, "capacity_gpus": math.inf, "min_commitment": "none",
            "min_commit_gpus": 0.0, "reserved_estimate_source": "",
        }
        cols: dict[str, list[Any]] = {f.name: [] for f in fields(cls)}
        for row in rows:
            unknown = set(row) - set(cols)
            if unknown:
                raise ValueError(f"unknown venue field(s) {sorted(unknown)}")
            for name in cols:
                if name == "venue_id":
                    cols[name].append(row["venue_id"])
                elif name == "provider":
                    cols[name].append(row.get("provider", row["venue_id"]))
                elif name == "is_location_known":
                    cols[name].append(row.get("is_location_known", row.get("is_eu_datacenter") is not None))
                else:
                    value = row.get(name, defaults[name])
                    cols[name].append(defaults[name] if value is None else value)
        return cls(**{k: np.asarray(v, dtype=object) if k in _TEXT_FIELDS else v for k, v in cols.items()})

    @property
    def n_venues(self) -> int:
        """Number of venues."""
        return int(self.venue_id.size)

    @property
    def requires_commitment(self) -> np.ndarray:
        """The venue cannot be used pay-as-you-go (minimum term monthly or longer), bool ``(n_venues,)``."""
        return np.isin(self.min_commitment, list(COMMITMENT_REQUIRED))

    @property
    def commit_rate_eur_per_gpu_hour(self) -> np.ndarray:
        """Rate of a committed GPU [EUR/GPU-h]: the reserved rate; for a venue that requires a commitment
        and lists only an hourly price, that price; else NaN (the venue sells no commitment)."""
        return np.where(np.isfinite(self.reserved_eur_per_gpu_hour), self.reserved_eur_per_gpu_hour,
                        np.where(self.requires_commitment, self.on_demand_eur_per_gpu_hour, np.nan))

    def with_on_demand_factor(self, factor: float) -> Venues:
        """Copy with every on-demand rate multiplied by ``factor`` (spot and reserved unchanged)."""
        return replace(self, on_demand_eur_per_gpu_hour=self.on_demand_eur_per_gpu_hour * float(factor))


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN, pandas NA
    except TypeError:  # pandas.NA in a boolean context
        return True


def venues_from_offers(
    offers: Any,
    *,
    capacity_gpus: Mapping[str, float] | None = None,
    min_commit_gpus: Mapping[str, float] | None = None,
    commitment_term_years: Literal[1, 3] | None = None,
    other_provider_discount_fraction: float | None = None,
    no_estimate_offer_ids: Collection[str] = (),
) -> Venues:
    """Build :class:`Venues` from the catalog offers frame (``CatalogStore.list_offers``); pandas only here.

    Parameters
    ----------
    offers : pandas.DataFrame
        Columns used: ``offer_id``, ``provider_id``, ``provider_name``, ``gpu_model``, ``memory_gb``,
        ``intra_node``, ``inter_node``, ``is_eu_datacenter`` (bool/NA), ``parent_jurisdiction``,
        ``min_commitment``, ``on_demand_eur_per_gpu_hour``, ``spot_eur_per_gpu_hour``,
        ``reserved_eur_per_gpu_hour``, ``reserved_term_months`` (prices already in EUR).
    capacity_gpus : mapping of offer_id to float, optional
        GPUs the portfolio may commit per venue [GPU]; others are unlimited.
    min_commit_gpus : mapping of offer_id to float, optional
        Smallest commitment per workload [GPU]; others 0.
    commitment_term_years : {1, 3}, optional
        When given, a missing reserved rate of AWS, Google Cloud, Azure or Lambda is estimated as on demand
        x (1 - Epoch DEFAULT_CUD discount) for that term (:data:`EPOCH_COMMITMENT_DISCOUNT_FRACTION`) and
        flagged ``reserved_is_estimated``.
    other_provider_discount_fraction : float, optional
        With ``commitment_term_years``, the discount assumed for every other provider [-] (user
        assumption; default: no estimate for them).
    no_estimate_offer_ids : collection of str, optional
        Offers whose missing reserved rate is never estimated: marketplace (community) rows, whose hosts
        set hourly prices and sell no commitment (:func:`engine.scope.is_marketplace`).

    Returns
    -------
    Venues
        One venue per offer row, in frame order. ``InfiniBand*`` fabrics set ``has_infiniband``;
        ``NVLink*`` intra-node links set ``has_nvlink``; an NA ``is_eu_datacenter`` is not EU.
    """
    capacity_gpus = capacity_gpus or {}
    min_commit_gpus = min_commit_gpus or {}

    def col(name: str, default: Any = None) -> list[Any]:
        if name not in offers.columns:
            return [default] * len(offers)
        return [default if _is_missing(v) else v for v in offers[name].tolist()]

    def num(name: str) -> np.ndarray:
        return np.asarray([np.nan if v is None else float(v) for v in col(name)], dtype=float)

    ids = [str(v) for v in col("offer_id")]
    provider_ids = [str(v or "").lower() for v in col("provider_id", "")]
    eu_raw = col("is_eu_datacenter")
    on_demand = num("on_demand_eur_per_gpu_hour")
    reserved = num("reserved_eur_per_gpu_hour")
    term = num("reserved_term_months")
    estimated = np.zeros(len(ids), dtype=bool)
    if commitment_term_years is not None:
        disc = np.asarray([
            EPOCH_COMMITMENT_DISCOUNT_FRACTION.get(p, {}).get(
                commitment_term_years,
                np.nan if other_provider_discount_fraction is None else other_provider_discount_fraction)
            for p in provider_ids], dtype=float)
        no_estimate = np.isin(np.asarray(ids, dtype=object), list(no_estimate_offer_ids))
        estimated = ~np.isfinite(reserved) & np.isfinite(on_demand) & np.isfinite(disc) & ~no_estimate
        reserved = np.where(estimated, on_demand * (1.0 - disc), reserved)
        term = np.where(estimated, 12.0 * commitment_term_years, term)
        by_epoch = np.asarray([p in EPOCH_COMMITMENT_DISCOUNT_FRACTION for p in provider_ids], dtype=bool)
        source = np.where(estimated, np.where(by_epoch, "Epoch AI discount", "your assumed discount"), "")
    else:
        source = np.full(len(ids), "")
    return Venues(
        venue_id=np.asarray(ids, dtype=object),
        provider=np.asarray([str(v) for v in col("provider_name", "")], dtype=object),
        gpu_model=np.asarray([str(v) for v in col("gpu_model", "")], dtype=object),
        memory_gb=num("memory_gb"),
        has_infiniband=np.asarray([str(v or "").lower().startswith("infiniband") for v in col("inter_node")]),
        has_nvlink=np.asarray([str(v or "").lower().startswith("nvlink") for v in col("intra_node")]),
        is_eu_datacenter=np.asarray([v is not None and bool(v) for v in eu_raw]),
        is_location_known=np.asarray([v is not None for v in eu_raw]),
        jurisdiction=np.asarray([str(v or "other") for v in col("parent_jurisdiction")], dtype=object),
        on_demand_eur_per_gpu_hour=on_demand,
        spot_eur_per_gpu_hour=num("spot_eur_per_gpu_hour"),
        reserved_eur_per_gpu_hour=reserved,
        reserved_term_months=term,
        reserved_is_estimated=estimated,
        capacity_gpus=np.asarray([float(capacity_gpus.get(i, math.inf)) for i in ids]),
        min_commitment=np.asarray([str(v or "unknown") for v in col("min_commitment")], dtype=object),
        min_commit_gpus=np.asarray([float(min_commit_gpus.get(i, 0.0)) for i in ids]),
        reserved_estimate_source=np.asarray(source, dtype=object),
    )


# --------------------------------------------------------------------------------------------------
# Eligibility and infeasibility
# --------------------------------------------------------------------------------------------------


class PlacementInfeasibleError(ValueError):
    """The portfolio cannot be placed; ``problems`` holds one plain-language sentence per cause."""

    def __init__(self, problems: Sequence[str]):
        self.problems = tuple(problems)
        super().__init__("; ".join(self.problems) if self.problems else "portfolio cannot be placed")


@dataclass(frozen=True)
class _Eligibility:
    """Per (workload, venue) eligibility, arrays of shape ``(n_workloads, n_venues)`` unless noted."""

    checks: tuple[tuple[str, np.ndarray, np.ndarray], ...]  # (key, applies (W,), passes (W, V))
    meets: np.ndarray  # every requirement check passes
    on_demand: np.ndarray  # may burst on demand here
    spot: np.ndarray  # may burst on spot here
    commit: np.ndarray  # may commit here
    burst_rate: np.ndarray  # (W,) cheapest burst rate [EUR/GPU-h], inf = none
    burst_venue: np.ndarray  # (W,) venue index, -1 = none
    burst_is_spot: np.ndarray  # (W,) bool
    spot_rate: np.ndarray  # (V,) effective spot rate


def _requirement_label(w: Workload, key: str) -> str:
    return {
        "eu_datacenter": "EU data centre",
        "eu_jurisdiction": "EU-jurisdiction provider",
        "memory": f"≥{w.min_gpu_memory_gb:g} GB memory",
        "infiniband": "InfiniBand",
        "nvlink": "NVLink",
        "gpu_model": f"GPU model {w.gpu_model}",
    }[key]


def _eligibility(workloads: Sequence[Workload], venues: Venues, spot_overhead_fraction: float) -> _Eligibility:
    n_v = venues.n_venues
    stay_eu = np.asarray([(not w.may_leave_eu) or w.latency_sensitive for w in workloads], dtype=bool)
    eu_juris = np.asarray([w.eu_jurisdiction_required for w in workloads], dtype=bool)
    mem = np.asarray([w.min_gpu_memory_gb for w in workloads], dtype=float)
    ib = np.asarray([w.needs_infiniband for w in workloads], dtype=bool)
    nvl = np.asarray([w.needs_nvlink for w in workloads], dtype=bool)
    model = np.asarray([(w.gpu_model or "").strip().lower() for w in workloads], dtype=object)
    venue_model = np.asarray([m.strip().lower() for m in venues.gpu_model], dtype=object)
    with np.errstate(invalid="ignore"):
        mem_ok = venues.memory_gb[None, :] >= mem[:, None]
    checks = (
        ("eu_datacenter", stay_eu, ~stay_eu[:, None] | venues.is_eu_datacenter[None, :]),
        ("eu_jurisdiction", eu_juris, ~eu_juris[:, None] | (venues.jurisdiction == "EU")[None, :]),
        ("memory", mem > 0, (mem[:, None] <= 0) | mem_ok),
        ("infiniband", ib, ~ib[:, None] | venues.has_infiniband[None, :]),
        ("nvlink", nvl, ~nvl[:, None] | venues.has_nvlink[None, :]),
        ("gpu_model", model != "", (model[:, None] == "") | (model[:, None] == venue_model[None, :])),
    )
    meets = np.ones((len(workloads), n_v), dtype=bool)
    for _, _, passes in checks:
        meets &= passes
    spot_ok = np.asarray([w.spot_allowed and not w.latency_sensitive for w in workloads], dtype=bool)
    payg = ~venues.requires_commitment
    on_demand = meets & (payg & np.isfinite(venues.on_demand_eur_per_gpu_hour))[None, :]
    spot = meets & spot_ok[:, None] & (payg & np.isfinite(venues.spot_eur_per_gpu_hour))[None, :]
    commit = meets & np.isfinite(venues.commit_rate_eur_per_gpu_hour)[None, :]
    spot_rate = venues.spot_eur_per_gpu_hour * (1.0 + spot_overhead_fraction)
    od_rates = np.where(on_demand, venues.on_demand_eur_per_gpu_hour[None, :], np.inf)
    spot_rates = np.where(spot, spot_rate[None, :], np.inf)
    # Cheapest burst option; on a tie on demand wins (no interruptions), then the lower venue index.
    best_od = np.argmin(od_rates, axis=1) if n_v else np.zeros(len(workloads), dtype=int)
    best_spot = np.argmin(spot_rates, axis=1) if n_v else np.zeros(len(workloads), dtype=int)
    rows = np.arange(len(workloads))
    od_min = od_rates[rows, best_od] if n_v else np.full(len(workloads), np.inf)
    spot_min = spot_rates[rows, best_spot] if n_v else np.full(len(workloads), np.inf)
    is_spot = spot_min < od_min
    burst_rate = np.where(is_spot, spot_min, od_min)
    burst_venue = np.where(np.isfinite(burst_rate), np.where(is_spot, best_spot, best_od), -1)
    return _Eligibility(checks, meets, on_demand, spot, commit, burst_rate, burst_venue, is_spot, spot_rate)


def _requirement_problem(w: Workload, i: int, elig: _Eligibility, n_v: int) -> str:
    applied = [(key, passes[i]) for key, applies, passes in elig.checks if applies[i]]
    labels = [_requirement_label(w, key) for key, _ in applied]
    n_meet = int(elig.meets[i].sum())
    if n_meet == 0 and applied:
        fails = []
        for key, passes in applied:
            n_fail = int((~passes).sum())
            if n_fail:
                label = _requirement_label(w, key)
                fails.append(f"{n_fail} fail the {label} check" if not fails else f"{n_fail} fail {label}")
        return (f"Workload '{w.name}': no venue satisfies {' + '.join(labels)} "
                f"({', '.join(fails)}, out of {n_v} venues)")
    spot_note = "" if (w.spot_allowed and not w.latency_sensitive) else " (spot not allowed)"
    meet = "1 venue meets" if n_meet == 1 else f"{n_meet} venues meet"
    what = f"{meet} {' + '.join(labels)}" if labels else f"none of the {n_v} venues"
    if labels:
        return (f"Workload '{w.name}': {what} but none has an on-demand, spot or commitment price this "
                f"workload may use{spot_note}")
    return f"Workload '{w.name}': {what} has an on-demand, spot or commitment price this workload may use{spot_note}"


def _eligibility_summary(w: Workload, i: int, elig: _Eligibility, n_v: int) -> str:
    parts = []
    if not w.may_leave_eu:
        parts.append("sensitive → EU data centres only")
    if w.eu_jurisdiction_required:
        parts.append("EU-jurisdiction provider required")
    if w.latency_sensitive:
        parts.append("latency-sensitive → known EU data centre, no spot")
    cls = [_requirement_label(w, k) for k, applies, _ in elig.checks
           if applies[i] and k not in ("eu_datacenter", "eu_jurisdiction")]
    if cls:
        parts.append("needs " + " + ".join(cls))
    if w.spot_allowed and not w.latency_sensitive:
        parts.append("spot allowed")
    usable = int((elig.on_demand[i] | elig.spot[i] | elig.commit[i]).sum())
    parts.append(f"{usable} of {n_v} venues eligible")
    return "; ".join(parts)


@dataclass(frozen=True)
class _Prepared:
    workloads: list[Workload]
    venues: Venues
    hours: int
    demand: np.ndarray  # (W, H)
    overflow: np.ndarray  # (W, Kmax+1) F(j)
    covered: np.ndarray  # (W, Kmax)
    peak_gpus: np.ndarray  # (W,) ceil(max demand)
    elig: _Eligibility


def _prepare(workloads: Sequence[Workload], venues: Venues, hours: int, assumptions: PlacementAssumptions,
             demand: np.ndarray | None = None) -> _Prepared:
    names = [w.name for w in workloads]
    if len(set(names)) != len(names):
        raise ValueError("workload names must be unique")
    d = demand_profiles_gpus(workloads, hours) if demand is None else demand
    f, covered, k_row = _duration_curve(d) if len(workloads) else (
        np.zeros((0, 1)), np.zeros((0, 0)), np.zeros(0, dtype=np.int64))
    elig = _eligibility(workloads, venues, assumptions.spot_overhead_fraction())
    return _Prepared(list(workloads), venues, int(hours), d, f, covered, k_row, elig)


def _pre_check(p: _Prepared) -> list[str]:
    """Problems found before solving: no usable venue, or a must-commit peak that fits no single venue."""
    problems = []
    v = p.venues
    for i, w in enumerate(p.workloads):
        if p.peak_gpus[i] == 0:
            continue
        e = p.elig
        if not (e.on_demand[i].any() or e.spot[i].any() or e.commit[i].any()):
            problems.append(_requirement_problem(w, i, e, v.n_venues))
            continue
        if e.burst_venue[i] < 0:
            need = np.maximum(p.peak_gpus[i], np.ceil(v.min_commit_gpus))
            fits = e.commit[i] & (np.floor(v.capacity_gpus) >= need)
            if not fits.any():
                idx = np.flatnonzero(e.commit[i])
                listing = ", ".join(f"{v.venue_id[j]}: {v.capacity_gpus[j]:g}" for j in idx[:5])
                problems.append(
                    f"Workload '{w.name}': no eligible pay-as-you-go venue, so its peak of {p.peak_gpus[i]} GPUs "
                    f"must be committed in one venue, but the eligible commitment venues hold at most "
                    f"{v.capacity_gpus[idx].max():g} GPUs ({listing})")
    return problems


def feasibility_problems(workloads: Sequence[Workload], venues: Venues, hours: int = int(HOURS_PER_YEAR),
                         assumptions: PlacementAssumptions | None = None) -> tuple[str, ...]:
    """Plain-language reasons why :func:`place_portfolio` would fail before solving (empty = none found).

    Each names the workload and the constraint, e.g. ``"Workload 'fraud-model': no venue satisfies EU data
    centre + EU-jurisdiction provider + ≥80 GB memory + InfiniBand (12 fail the EU data centre check, 3 fail
    ≥80 GB memory, out of 30 venues)"``. Joint capacity shortages are found only by the solve.
    """
    p = _prepare(workloads, venues, hours, assumptions or DEFAULT_ASSUMPTIONS)
    return tuple(_pre_check(p))


# --------------------------------------------------------------------------------------------------
# MILP
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Options:
    """Candidate (workload, committed venue) pairs after pruning, each an array of shape ``(m,)``."""

    w: np.ndarray
    v: np.ndarray
    lb: np.ndarray  # smallest k if chosen
    ub: np.ndarray  # largest useful k if chosen
    rate: np.ndarray  # commitment rate [EUR/GPU-h]
    free_k: np.ndarray  # fractile optimum k* of the pair, ignoring capacity (for the reason text)


def _prune_dominated(idx: np.ndarray, rate: np.ndarray, m: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """Keep options not dominated by an unlimited venue that is no dearer and asks no larger minimum."""
    if idx.size <= 1:
        return np.ones(idx.size, dtype=bool)
    r, mm, c = rate[:, None], m[:, None], cap[:, None]  # option being tested: rows
    r2, m2, c2 = rate[None, :], m[None, :], cap[None, :]  # candidate dominators: columns
    order = idx[:, None] > idx[None, :]
    better = (np.isinf(c2) & (r2 <= r) & (m2 <= mm)
              & ((r2 < r) | (m2 < mm) | np.isfinite(c) | order))
    np.fill_diagonal(better, False)
    return ~better.any(axis=1)


def _commit_options(p: _Prepared, mode: str) -> _Options:
    """Pairs worth a binary. ``mode="optimised"``: commit up to the fractile optimum (or the venue
    minimum); ``"peak"``: commit exactly the peak (or the minimum if larger), no burst."""
    v = p.venues
    rate_v = v.commit_rate_eur_per_gpu_hour
    ws, vs, lbs, ubs, rates, frees = [], [], [], [], [], []
    for i in range(len(p.workloads)):
        k_peak = int(p.peak_gpus[i])
        cand = np.flatnonzero(p.elig.commit[i])
        if k_peak == 0 or cand.size == 0:
            continue
        m = np.ceil(v.min_commit_gpus[cand])  # whole GPUs: keeps the fixed-y LP integral (see _solve)
        cap = np.floor(v.capacity_gpus[cand])
        r = rate_v[cand]
        must_commit = mode == "peak" or p.elig.burst_venue[i] < 0
        if must_commit:
            free = np.full(cand.size, k_peak)
            lb = np.maximum(m, k_peak)
            ub = lb.copy()
        else:
            free = _commit_count(p.covered[i][None, :], np.asarray([k_peak]), p.hours, r,
                                 np.full(cand.size, p.elig.burst_rate[i]), "fewer")
            free = np.asarray(free, dtype=float).reshape(-1)
            lb = m.copy()
            ub = np.minimum(np.maximum(free, m), cap)
            useful = free > 0
            lb, ub = np.where(useful, lb, 1.0), np.where(useful, ub, 0.0)  # useless: lb > ub, dropped
        keep = (lb <= ub) & (lb <= cap)
        keep &= _prune_dominated(cand, r, m, cap) if keep.any() else keep
        cand, lb, ub, r, free = cand[keep], lb[keep], ub[keep], r[keep], np.asarray(free)[keep]
        ws.append(np.full(cand.size, i))
        vs.append(cand)
        lbs.append(lb)
        ubs.append(ub)
        rates.append(r)
        frees.append(free)
    cat = (lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dtype=dt))  # noqa: E731
    return _Options(cat(ws, np.int64), cat(vs, np.int64), cat(lbs, float), cat(ubs, float), cat(rates, float),
                    cat(frees, float))


@dataclass(frozen=True)
class _Solution:
    k: np.ndarray  # (W,) committed GPUs
    venue: np.ndarray  # (W,) committed venue index, -1 none
    status: str
    gap: float
    seconds: float
    objective_eur_per_month: float


@dataclass(frozen=True)
class _Model:
    """The MILP in scipy form; the last column is a constant fixed at 1 that carries the objective offset,
    so HiGHS's relative gap is relative to the whole monthly cost."""

    c: np.ndarray
    a: sparse.csr_array
    row_lo: np.ndarray
    row_hi: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    integrality: np.ndarray
    n_o: int
    n_z: int
    must: np.ndarray  # (W,) a committed venue is required


def _build(p: _Prepared, opts: _Options, mode: str, fallback_eur_per_month: np.ndarray | None) -> _Model:
    """Columns: per pair ``o`` a binary ``y_o`` and a continuous ``k_o``; for pairs at a venue of limited
    capacity whose workload bursts, one continuous ``z_oj <= y_o`` per GPU level between the pair's
    minimum ``lb_o`` and its fractile optimum ``ub_o``; one offset column fixed at 1.

    ``k_o = base_o y_o + sum_j z_oj`` with ``base_o = lb_o`` for those pairs and ``base_o = ub_o`` for all
    others: at an unlimited venue nothing competes for capacity, so a chosen pair commits exactly its
    optimum ``max(k*, lb)`` (the cost is convex in ``k``) and its whole cost sits on ``y_o``.

    ``fallback_eur_per_month`` (W,), finite where a workload may take no committed venue at that cost
    (the peak baseline's always-on on-demand fallback); elsewhere a workload that cannot burst must commit.
    """
    n_w = len(p.workloads)
    n_o = opts.w.size
    per_month = HOURS_PER_MONTH / p.hours
    cap = np.floor(p.venues.capacity_gpus)
    burst = (p.elig.burst_venue >= 0) & (mode == "optimised")
    o_rate = np.where(burst, p.elig.burst_rate, 0.0)
    free = burst[opts.w]
    leveled = free & np.isfinite(cap[opts.v]) & (opts.ub > opts.lb)
    base = np.where(leveled, opts.lb, opts.ub).astype(np.int64)
    levels = np.where(leveled, opts.ub - opts.lb, 0).astype(np.int64)
    z_start = np.concatenate([[0], np.cumsum(levels)])
    n_z = int(z_start[-1])
    z_o = np.repeat(np.arange(n_o), levels)
    z_j = np.arange(n_z) - z_start[z_o] + base[z_o]  # GPU level (0-based) of each z column
    # covered GPU-hours per level, padded with zeros beyond the peak; prefix sums for the base block
    k_max = p.covered.shape[1]
    width = int(max(k_max, base.max(initial=0), (z_j.max() + 1) if n_z else 0))
    cov = np.zeros((n_w, width))
    cov[:, :k_max] = p.covered
    prefix = np.concatenate([np.zeros((n_w, 1)), np.cumsum(cov, axis=1)], axis=1)
    n_var = 2 * n_o + n_z + 1
    iy, ik, iz, ic = 0, n_o, 2 * n_o, 2 * n_o + n_z

    fallback = np.full(n_w, np.inf) if fallback_eur_per_month is None else np.asarray(fallback_eur_per_month)
    has_fallback = np.isfinite(fallback)
    c = np.zeros(n_var)
    # cost of a chosen pair at its base level, and of each further level
    c[iy:iy + n_o] = opts.rate * HOURS_PER_MONTH * base - o_rate[opts.w] * prefix[opts.w, base] * per_month
    c[iz:iz + n_z] = opts.rate[z_o] * HOURS_PER_MONTH - o_rate[opts.w[z_o]] * cov[opts.w[z_o], z_j] * per_month
    constant = float(np.sum(o_rate * p.overflow[:, 0]) * per_month)

    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    row_lo: list[np.ndarray] = []
    row_hi: list[np.ndarray] = []
    n_row = 0

    def add(r: np.ndarray, col: np.ndarray, x: np.ndarray, lo_: np.ndarray, hi_: np.ndarray, count: int) -> None:
        nonlocal n_row
        rows.append(r + n_row)
        cols.append(col)
        vals.append(x)
        row_lo.append(lo_)
        row_hi.append(hi_)
        n_row += count

    opt = np.arange(n_o)
    ones = np.ones(n_o)
    # (1) at most one committed venue per workload (exactly one when it can neither burst nor fall back)
    w_with = np.unique(opts.w)
    must_w = ~burst[w_with] & ~has_fallback[w_with]
    add(np.searchsorted(w_with, opts.w), iy + opt, ones, must_w.astype(float), np.ones(w_with.size), w_with.size)
    # a fallback is the cost of choosing no venue: constant + sum_o (commit cost - fallback) y_o
    fb_opt = has_fallback[opts.w]
    c[iy + opt[fb_opt]] -= fallback[opts.w[fb_opt]]
    constant += float(fallback[w_with][has_fallback[w_with]].sum())
    c[ic] = constant
    # (2) k_o - base_o y_o - sum_j z_oj = 0
    zr = np.arange(n_z)
    add(np.concatenate([opt, opt, z_o]), np.concatenate([ik + opt, iy + opt, iz + zr]),
        np.concatenate([ones, -base.astype(float), -np.ones(n_z)]), np.zeros(n_o), np.zeros(n_o), n_o)
    # (3) z_oj <= y_o
    if n_z:
        add(np.concatenate([zr, zr]), np.concatenate([iz + zr, iy + z_o]),
            np.concatenate([np.ones(n_z), -np.ones(n_z)]), np.full(n_z, -np.inf), np.zeros(n_z), n_z)
    # (4) venue capacity (whole GPUs)
    sel = np.isfinite(cap[opts.v])
    capped = np.unique(opts.v[sel])
    if capped.size:
        add(np.searchsorted(capped, opts.v[sel]), ik + opt[sel], np.ones(int(sel.sum())),
            np.full(capped.size, -np.inf), cap[capped], capped.size)
    a = sparse.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n_row, n_var))
    must = np.zeros(n_w, dtype=bool)
    must[w_with[must_w]] = True
    lo = np.zeros(n_var)
    lo[ic] = 1.0
    hi = np.concatenate([ones, opts.ub, np.ones(n_z), [1.0]])
    integrality = np.zeros(n_var)
    integrality[iy:iy + n_o] = 1
    return _Model(c, a, np.concatenate(row_lo), np.concatenate(row_hi), lo, hi, integrality, n_o, n_z, must)


def _run(m: _Model, lo: np.ndarray, hi: np.ndarray, integer: bool, time_limit_s: float, mip_rel_gap: float):
    return milp(m.c, constraints=LinearConstraint(m.a, m.row_lo, m.row_hi),
                integrality=m.integrality if integer else None, bounds=Bounds(lo, hi),
                options={"time_limit": float(time_limit_s), "mip_rel_gap": float(mip_rel_gap), "disp": False})


def _solve(p: _Prepared, opts: _Options, mode: str, time_limit_s: float, mip_rel_gap: float,
           fallback_eur_per_month: np.ndarray | None = None) -> _Solution:
    """Solve the placement MILP (:func:`_build`) with HiGHS to ``mip_rel_gap`` of the monthly cost.

    Only the venue choices ``y`` are declared integer. For fixed ``y`` the level columns ``z`` each sit in
    one venue-capacity row (``k_o`` is a sum of them), with bounds 0..1 and whole-number capacities: that
    matrix is totally unimodular, so the LP has a whole-number optimal vertex and ``k`` need not be
    integer. The plan's ``k`` is read from a basic solution of the LP with ``y`` fixed.
    """
    n_w = len(p.workloads)
    if opts.w.size == 0:
        return _Solution(np.zeros(n_w, dtype=np.int64), np.full(n_w, -1), "optimal (nothing to decide)", 0.0,
                         0.0, 0.0)
    m = _build(p, opts, mode, fallback_eur_per_month)
    start = time.perf_counter()
    res = _run(m, m.lo, m.hi, True, time_limit_s, mip_rel_gap)
    if res.x is None:
        if res.status == 2:
            raise PlacementInfeasibleError(_capacity_problems(p, opts, mode, m.must))
        raise PlacementInfeasibleError([f"the solver stopped without a plan ({res.message}); raise time_limit_s"])
    y = np.round(res.x[:m.n_o])
    x = res.x
    if m.n_z:  # k from a vertex of the LP with y fixed (whole numbers by total unimodularity)
        lo, hi = m.lo.copy(), m.hi.copy()
        lo[:m.n_o] = hi[:m.n_o] = y
        fixed = _run(m, lo, hi, False, max(float(time_limit_s) - (time.perf_counter() - start), 1.0), 0.0)
        if fixed.x is not None:
            x = fixed.x
    seconds = time.perf_counter() - start
    k_lp = x[m.n_o:2 * m.n_o]
    if np.any(np.abs(k_lp - np.round(k_lp)) > 1e-6):  # cannot happen at a vertex; never round silently
        raise PlacementInfeasibleError(["the solver returned a fractional commitment; please report this case"])
    chosen = (y > 0.5) & (np.round(k_lp) > 0)
    k = np.zeros(n_w, dtype=np.int64)
    venue = np.full(n_w, -1)
    k[opts.w[chosen]] = np.round(k_lp[chosen]).astype(np.int64)
    venue[opts.w[chosen]] = opts.v[chosen]
    status = "optimal" if res.status == 0 else f"time limit reached, best plan found ({res.message})"
    gap = float(getattr(res, "mip_gap", 0.0) or 0.0)
    return _Solution(k, venue, status, gap, seconds, float(m.c @ x))


def _names(items: Sequence[str], limit: int = 8) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _capacity_problems(p: _Prepared, opts: _Options, mode: str, required: np.ndarray) -> list[str]:
    """Explain an infeasible solve: the workloads that must commit and can only do so in venues of
    limited capacity, and those venues (a workload with an unlimited option can never be blocked)."""
    v = p.venues
    cap = v.capacity_gpus
    blocked = [i for i in np.flatnonzero(required)
               if not np.any(np.isinf(cap[opts.v[opts.w == i]]))]
    if not blocked:
        return ["the solver found no plan within the venue capacities (no single workload or venue "
                "could be named); check capacity_gpus and min_commit_gpus"]
    venue_idx = sorted({int(j) for i in blocked for j in np.flatnonzero(p.elig.commit[i])})
    needs = [f"'{p.workloads[i].name}' ({p.peak_gpus[i]} GPUs)" for i in blocked]
    caps = [f"{v.venue_id[j]} ({cap[j]:g} GPUs)" for j in venue_idx]
    total = float(np.sum(cap[venue_idx]))
    why = ("have no eligible pay-as-you-go venue and" if mode != "peak"
           else "are sized for peak, have no eligible on-demand fallback and")
    return [f"Venue capacity binds: workloads {_names(needs)} {why} must each commit their peak in one venue; "
            f"their eligible venues {_names(caps)} hold {total:g} GPUs in total and cannot fit them all"]


# --------------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------------


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


def _gpus(k: float) -> str:
    return f"{k:g} GPU" if k == 1 else f"{k:g} GPUs"


def _busy_phrase(d_is_integer: bool, k: int, share: float) -> str:
    if d_is_integer:
        return f"{_pct(share)} of hours need ≥ {_gpus(k)}"
    return f"GPU {k} would be busy {_pct(share)} of the hours"


def _plan(p: _Prepared, strategy: str, k: np.ndarray, commit_venue: np.ndarray, burst_venue: np.ndarray,
          burst_is_spot: np.ndarray, burst_rate: np.ndarray, reasons: Sequence[str], status: str, gap: float,
          seconds: float, extra_assumptions: Sequence[Assumption]) -> PlacementPlan:
    v = p.venues
    hours = p.hours
    per_month = HOURS_PER_MONTH / hours
    rate_v = v.commit_rate_eur_per_gpu_hour
    placements = []
    unpriced = []
    for i, w in enumerate(p.workloads):
        d = p.demand[i]
        ki = int(k[i])
        cv = int(commit_venue[i])
        bv = int(burst_venue[i])
        over = float(np.maximum(d - ki, 0.0).sum())
        r = float(rate_v[cv]) if cv >= 0 else float("nan")
        o = float(burst_rate[i]) if bv >= 0 else float("nan")
        c_cost = r * ki * HOURS_PER_MONTH if cv >= 0 else 0.0
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
            reason=reasons[i],
        ))
    used: dict[str, int] = {}
    for pl in placements:
        if pl.committed_venue_id is not None:
            used[pl.committed_venue_id] = used.get(pl.committed_venue_id, 0) + pl.committed_gpus
    index = {vid: j for j, vid in enumerate(v.venue_id.tolist())}
    caps = {vid: float(v.capacity_gpus[index[vid]]) for vid in used}
    total_cost = float(sum(pl.cost_eur_per_month for pl in placements if not math.isnan(pl.cost_eur_per_month)))
    return PlacementPlan(strategy, tuple(placements), total_cost, tuple(unpriced), used, caps, hours, status,
                         gap, seconds, tuple(extra_assumptions))


def _base_assumptions(p: _Prepared, a: PlacementAssumptions) -> list[Assumption]:
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
                               f"reserved = on demand x (1 - discount), {_EPOCH_SOURCE}"))
    if user:
        rows.append(Assumption("assumed_reserved_rates", user, "venues",
                               "reserved = on demand x (1 - your assumed discount): user input, not a source"))
    return rows


def _optimised_reason(p: _Prepared, i: int, k: int, cv: int, opts: _Options) -> str:
    """Plain-language why: eligibility, then the break-even test of the last committed GPU and the next."""
    w = p.workloads[i]
    v = p.venues
    e = p.elig
    head = _eligibility_summary(w, i, e, v.n_venues)
    peak = int(p.peak_gpus[i])
    if peak == 0:
        return f"{head}; no demand, nothing to place"
    d_int = bool(np.all(p.demand[i] == np.round(p.demand[i])))
    cov = p.covered[i, :peak] / p.hours  # share of hours GPU 1..peak would be busy
    rate_v = v.commit_rate_eur_per_gpu_hour
    bv = int(e.burst_venue[i])
    if bv < 0:
        return (f"{head}; no eligible pay-as-you-go venue → peak of {_gpus(k)} committed on {v.venue_id[cv]} "
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
    text += f" → {_gpus(k)} committed on {v.venue_id[cv]}"
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


# --------------------------------------------------------------------------------------------------
# Public entry points
# --------------------------------------------------------------------------------------------------


def place_portfolio(
    workloads: Sequence[Workload],
    venues: Venues,
    *,
    hours: int = int(HOURS_PER_YEAR),
    time_limit_s: float = 10.0,
    mip_rel_gap: float = 1e-4,
    assumptions: PlacementAssumptions | None = None,
    demand: npt.ArrayLike | None = None,
) -> PlacementPlan:
    r"""Cheapest placement of a workload portfolio: committed GPUs per venue plus a burst venue, by MILP.

    Parameters
    ----------
    workloads : sequence of Workload
        The portfolio (unique names).
    venues : Venues
        Candidate venues (:func:`venues_from_offers`).
    hours : int
        Demand horizon ``H`` [h] (default 8,760).
    time_limit_s : float
        HiGHS time limit [s]; on expiry the best plan found is returned and ``solver_status`` says so.
    mip_rel_gap : float
        HiGHS relative MIP gap [-] (stack-recipes section 7: always pass both).
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
    p = _prepare(workloads, venues, hours, a, d)
    problems = _pre_check(p)
    if problems:
        raise PlacementInfeasibleError(problems)
    opts = _commit_options(p, "optimised")
    sol = _solve(p, opts, "optimised", time_limit_s, mip_rel_gap)
    reasons = [_optimised_reason(p, i, int(sol.k[i]), int(sol.venue[i]), opts) for i in range(len(workloads))]
    rows = _base_assumptions(p, a) + [
        Assumption("time_limit_s", time_limit_s, "s", "HiGHS time limit (stack-recipes section 7)"),
        Assumption("mip_rel_gap", mip_rel_gap, "-", "HiGHS relative MIP gap (stack-recipes section 7)"),
    ]
    return _plan(p, "optimised", sol.k, sol.venue, p.elig.burst_venue, p.elig.burst_is_spot, p.elig.burst_rate,
                 reasons, sol.status, sol.gap, sol.seconds, rows)


def baseline_all_on_demand(
    workloads: Sequence[Workload],
    venues: Venues,
    *,
    hours: int = int(HOURS_PER_YEAR),
    assumptions: PlacementAssumptions | None = None,
    demand: npt.ArrayLike | None = None,
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
    p = _prepare(workloads, venues, hours, a, None if demand is None else np.asarray(demand, dtype=float))
    od = np.where(p.elig.on_demand, venues.on_demand_eur_per_gpu_hour[None, :], np.inf)
    best = np.argmin(od, axis=1) if venues.n_venues else np.zeros(len(workloads), dtype=int)
    rate = od[np.arange(len(workloads)), best] if venues.n_venues else np.full(len(workloads), np.inf)
    bv = np.where(np.isfinite(rate), best, -1)
    reasons = []
    for i, w in enumerate(workloads):
        head = _eligibility_summary(w, i, p.elig, venues.n_venues)
        if bv[i] >= 0:
            reasons.append(f"{head}; baseline: all on demand at {venues.venue_id[bv[i]]} ({rate[i]:.2f} EUR/GPU-h)")
        elif p.peak_gpus[i] == 0:
            reasons.append(f"{head}; no demand")
        else:
            reasons.append(f"{head}; baseline not possible: no eligible on-demand venue")
    n = len(workloads)
    return _plan(p, "all_on_demand", np.zeros(n, dtype=np.int64), np.full(n, -1), bv, np.zeros(n, dtype=bool),
                 rate, reasons, "no solve needed", 0.0, 0.0, _base_assumptions(p, a))


def baseline_dedicated_for_peak(
    workloads: Sequence[Workload],
    venues: Venues,
    *,
    hours: int = int(HOURS_PER_YEAR),
    time_limit_s: float = 10.0,
    mip_rel_gap: float = 1e-4,
    assumptions: PlacementAssumptions | None = None,
    demand: npt.ArrayLike | None = None,
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
    p = _prepare(workloads, venues, hours, a, None if demand is None else np.asarray(demand, dtype=float))
    n = len(workloads)
    od = np.where(p.elig.on_demand, venues.on_demand_eur_per_gpu_hour[None, :], np.inf)
    best = np.argmin(od, axis=1) if venues.n_venues else np.zeros(n, dtype=int)
    od_rate = od[np.arange(n), best] if venues.n_venues else np.full(n, np.inf)
    opts = _commit_options(p, "peak")
    sol = _solve(p, opts, "peak", time_limit_s, mip_rel_gap,
                 fallback_eur_per_month=od_rate * p.peak_gpus * HOURS_PER_MONTH)
    k = sol.k.copy()
    cv = sol.venue.copy()
    had_option = np.isin(np.arange(n), opts.w)
    reasons = []
    bv = np.full(n, -1)
    for i, w in enumerate(workloads):
        head = _eligibility_summary(w, i, p.elig, venues.n_venues)
        if p.peak_gpus[i] == 0:
            reasons.append(f"{head}; no demand")
        elif cv[i] >= 0:
            reasons.append(f"{head}; baseline: {_gpus(k[i])} (peak) committed on {venues.venue_id[cv[i]]} "
                           f"({venues.commit_rate_eur_per_gpu_hour[cv[i]]:.2f} EUR/GPU-h)")
        elif np.isfinite(od_rate[i]):
            why = ("commitment venues full or dearer than on demand" if had_option[i]
                   else "no eligible commitment venue large enough")
            reasons.append(f"{head}; baseline: {why} → {p.peak_gpus[i]} on-demand GPU(s) "
                           f"kept on at {venues.venue_id[best[i]]} ({od_rate[i]:.2f} EUR/GPU-h)")
        else:
            reasons.append(f"{head}; baseline not possible: no eligible commitment or on-demand venue")
    plan = _plan(p, "dedicated_for_peak", k, cv, bv, np.zeros(n, dtype=bool), np.full(n, np.nan), reasons,
                 sol.status, sol.gap, sol.seconds, _base_assumptions(p, a))
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
                               mip_rel_gap=mip_rel_gap, assumptions=a, demand=d)
        totals.append(plan.total_cost_eur_per_month)
        committed.append(plan.total_committed_gpus)
        od.append(baseline_all_on_demand(workloads, scaled, hours=hours, assumptions=a,
                                         demand=d).total_cost_eur_per_month)
    return PriceSensitivity(fs, np.asarray(totals), np.asarray(committed, dtype=np.int64), np.asarray(od))
