"""Workloads of a placement portfolio and their hourly demand profiles [GPU].

Part of :mod:`engine.placement`.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Annotated

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.placement.defaults import HOURS_PER_WEEK, MAX_SERIES_HOURS, MAX_WORKLOAD_GPUS
from engine.tco import HOURS_PER_YEAR


class WorkloadKind(enum.StrEnum):
    """What the GPUs do: it labels the plan; development work may also use marketplace hosts (eligibility)."""

    TRAINING = "training"
    INFERENCE = "inference"
    DEVELOPMENT = "development"


_NonNegGpus = Annotated[float, Field(ge=0, le=MAX_WORKLOAD_GPUS, allow_inf_nan=False)]


class Workload(BaseModel):
    """One workload of the portfolio: demand profile, GPU class and placement rules.

    Give the demand either as ``mean_gpus`` + ``peak_gpus`` with a busy-hours pattern, or as an uploaded
    ``hourly_demand_gpus`` series of one week to one (leap) year; see :func:`demand_profile_gpus`. No hour
    may need more than :data:`MAX_WORKLOAD_GPUS` (the work budget of a request, :mod:`engine.placement.budget`).

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
    mean_gpus: float | None = Field(None, ge=0, le=MAX_WORKLOAD_GPUS, allow_inf_nan=False,
                                    description="Average GPUs in use [GPU].")
    peak_gpus: float | None = Field(None, gt=0, le=MAX_WORKLOAD_GPUS, allow_inf_nan=False,
                                    description="GPUs in use in busy hours [GPU].")
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
    allowed_venue_ids: frozenset[str] | None = Field(
        None, max_length=1_000_000,
        description="Only these venues (e.g. the offers the Workload engine can price for this workload's job); "
                    "None = no such restriction.")

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
    if workload.peak_gpus is None or workload.mean_gpus is None:  # the validator requires a pattern or a series
        raise ValueError("give mean_gpus and peak_gpus (with the busy-hours pattern) or hourly_demand_gpus")
    peak = float(workload.peak_gpus)
    if n_busy == hours:
        return np.full(hours, peak)
    base = max((float(workload.mean_gpus) * hours - peak * n_busy) / (hours - n_busy), 0.0)
    return np.where(busy, peak, base)


def demand_profiles_gpus(workloads: Sequence[Workload], hours: int = int(HOURS_PER_YEAR)) -> np.ndarray:
    """Hourly demand of every workload [GPU], shape ``(n_workloads, hours)`` (see :func:`demand_profile_gpus`)."""
    if not workloads:
        return np.zeros((0, int(hours)))
    return np.stack([demand_profile_gpus(w, hours) for w in workloads])
