"""Work budget of one placement request: how large a portfolio the engine agrees to plan.

The engine's memory and time grow with the number of workloads times the largest peak (the duration curves
hold one column per GPU level) and, at venues of limited capacity, with one LP column per GPU level per
(workload, venue) pair. Both are checked *before* anything of that size is built, so an input from a share
link or an API call cannot make one request allocate gigabytes or run for minutes: it gets
:class:`PlacementTooLargeError` with a message for the user instead.

Part of :mod:`engine.placement`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from engine.placement.defaults import (
    MAX_DEMAND_CELLS,
    MAX_LEVEL_COLUMNS,
    MAX_PORTFOLIO_CELLS,
    MAX_WORKLOAD_GPUS,
)
from engine.placement.demand import Workload


class PlacementTooLargeError(ValueError):
    """The portfolio is larger than one request may plan (:func:`check_portfolio_size`); nothing was built."""


def _largest_peak_gpus(workloads: Sequence[Workload], demand: np.ndarray | None) -> float:
    if demand is not None:
        if demand.size and not np.isfinite(demand).all():
            raise PlacementTooLargeError("This portfolio is too large to plan: its demand is not a finite number.")
        return float(demand.max(initial=0.0))
    peaks = [max(w.hourly_demand_gpus, default=0.0) if w.hourly_demand_gpus is not None else (w.peak_gpus or 0.0)
             for w in workloads]
    return float(max(peaks, default=0.0))


def check_portfolio_size(workloads: Sequence[Workload], hours: int, demand: np.ndarray | None = None) -> None:
    """Refuse a portfolio whose demand profiles or duration curves exceed the budget.

    ``workloads x hours`` must stay within :data:`MAX_DEMAND_CELLS`, every workload within
    :data:`MAX_WORKLOAD_GPUS`, and ``workloads x largest peak`` within :data:`MAX_PORTFOLIO_CELLS`. Cheap: reads
    the workloads' fields (or the given ``demand`` array), allocates nothing of the portfolio's size.

    Examples
    --------
    >>> check_portfolio_size([Workload(name="w", mean_gpus=20, peak_gpus=20)], 8760)
    >>> huge = Workload.model_construct(name="w", mean_gpus=3e6, peak_gpus=3e6)
    >>> try:
    ...     check_portfolio_size([huge], 8760)
    ... except PlacementTooLargeError as err:
    ...     print(str(err)[:70])
    This portfolio is too large to plan in one request: a workload peaks a
    """
    n = len(workloads)
    if n * int(hours) > MAX_DEMAND_CELLS:
        raise PlacementTooLargeError(
            f"This portfolio is too large to plan in one request: {n:,} workloads × {int(hours):,} hours of demand; "
            f"the limit is {MAX_DEMAND_CELLS:,} workload-hours.")
    peak = _largest_peak_gpus(workloads, demand)
    if not math.isfinite(peak) or peak > MAX_WORKLOAD_GPUS:
        raise PlacementTooLargeError(
            f"This portfolio is too large to plan in one request: a workload peaks at {peak:,.0f} GPUs; the limit is "
            f"{MAX_WORKLOAD_GPUS:,} GPUs per workload.")
    cells = n * math.ceil(peak)
    if cells > MAX_PORTFOLIO_CELLS:
        raise PlacementTooLargeError(portfolio_cells_message(n, math.ceil(peak)))


def portfolio_cells_message(n_workloads: int, largest_peak_gpus: int) -> str:
    """Why ``n_workloads`` workloads with this largest peak are over :data:`MAX_PORTFOLIO_CELLS`."""
    return (f"This portfolio is too large to plan in one request: {n_workloads:,} workloads × a largest peak of "
            f"{largest_peak_gpus:,} GPUs = {n_workloads * largest_peak_gpus:,}; the limit is {MAX_PORTFOLIO_CELLS:,} "
            f"(for example {MAX_PORTFOLIO_CELLS // MAX_WORKLOAD_GPUS} workloads of up to {MAX_WORKLOAD_GPUS:,} GPUs, "
            f"or 100 of up to {MAX_PORTFOLIO_CELLS // 100:,}). Split the portfolio or lower the largest peak.")


def check_level_columns(n_columns: int) -> None:
    """Refuse a MILP with more than :data:`MAX_LEVEL_COLUMNS` capacity-level columns (checked before building)."""
    if n_columns > MAX_LEVEL_COLUMNS:
        raise PlacementTooLargeError(
            f"This portfolio is too large to plan in one request: the venue capacities give {n_columns:,} "
            f"commitment levels to weigh (one per GPU between a workload's minimum and its best commitment, at "
            f"every capacity-limited venue it may use); the limit is {MAX_LEVEL_COLUMNS:,}. Remove the venue "
            "capacities that do not bind, or lower the peaks.")
