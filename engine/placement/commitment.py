"""Commitment kernel: the exactly optimal number of committed GPUs for a demand series (critical-fractile
rule), the cost of any commitment, and the effective spot rate with checkpointing.

Part of :mod:`engine.placement`; the references [n] are in its docstring.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt


def duration_curve(demand: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    f, _, _ = duration_curve(d.reshape(-1, d.shape[-1]))
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


def commit_count(covered: np.ndarray, k_row: np.ndarray, hours: int, reserved: np.ndarray,
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
    _, covered, k_row = duration_curve(d.reshape(-1, d.shape[-1]))
    covered = covered.reshape(*batch, covered.shape[-1])
    k_row = k_row.reshape(batch)
    r = np.asarray(reserved_eur_per_gpu_hour, dtype=float)
    o = np.asarray(on_demand_eur_per_gpu_hour, dtype=float)
    return commit_count(covered, k_row, d.shape[-1], r, o, ties).astype(np.int64)


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
