"""Rank stability of the #1: exact weight intervals of the weighted sum, Triantaphyllou & Sanchez
Theorem 1 [1] and a Dirichlet Monte Carlo of the weights.

Part of :mod:`engine.scoring`; the references [n] are in its docstring.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.fast import unique_rows
from engine.scoring.kernels import normalise_min_max, topsis_closeness, topsis_squared_distances
from engine.scoring.matrix import Method, TopsisNormalisation

#: Dirichlet concentration c of the weight Monte Carlo [-]: weights are drawn with alpha = c * w, so
#: the mean is w and the standard deviation of one weight is sqrt(w (1 - w) / (c + 1)); c = 20 gives
#: about +/- 0.09 around w = 0.2. A judgement (no published default): the page lets the user change it.
DEFAULT_CONCENTRATION = 20.0
#: Ranks tracked by the Monte Carlo rank distribution [-]: ranks 1..10 plus "worse than 10".
#: ``rank_depth=None`` tracks every rank (an n x n matrix, fine for a catalog of a few hundred offers).
DEFAULT_RANK_DEPTH = 10


# ---------------------------------------------------------------------------------------------------
# Rank stability: exact intervals (WSM), T&S Theorem 1, Monte Carlo
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StabilityIntervals:
    """For each criterion k, the interval of w_k (others rescaled proportionally) keeping #1 first.

    Attributes
    ----------
    top : int
        Position of the current #1 (the first one if several tie).
    weights : numpy.ndarray
        Current weights, shape (n_criteria,).
    lower, upper : numpy.ndarray
        Interval ends [-], shape (n_criteria,); ``lower <= weights <= upper``. At an end the #1 ties
        with ``lower_rival`` / ``upper_rival``; 0 and 1 mean no change of that weight unseats it.
    lower_rival, upper_rival : numpy.ndarray of int
        Position of the alternative that takes first place past each end, -1 if none.
    """

    top: int
    weights: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    lower_rival: np.ndarray
    upper_rival: np.ndarray

    @property
    def lower_change_pct(self) -> np.ndarray:
        """Relative change of w_k down to ``lower`` [%] (-100 = the weight may go to 0); NaN if w_k = 0."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.weights > 0, (self.lower - self.weights) / self.weights * 100.0, np.nan)

    @property
    def upper_change_pct(self) -> np.ndarray:
        """Relative change of w_k up to ``upper`` [%]; inf if w_k = 0 and it may grow."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return (self.upper - self.weights) / self.weights * 100.0


def weight_stability_intervals(matrix_normalised: npt.ArrayLike, weights: npt.ArrayLike) -> StabilityIntervals:
    """Exact interval of each weight within which the weighted-sum #1 stays first.

    Parameters
    ----------
    matrix_normalised : array_like
        Benefit-oriented normalised matrix a (e.g. :func:`normalise_min_max`), shape (n, m).
    weights : array_like
        Shape (m,), sum 1.

    Returns
    -------
    StabilityIntervals

    Notes
    -----
    Set w_k = t and rescale the others to w_j (1 - t) / (1 - w_k), which keeps their proportions and the
    sum 1. This is exactly Triantaphyllou & Sanchez's change of W_k followed by re-normalisation [1].
    Every score is then linear in t:

    .. math:: P_i(t) = t\\, a_{ik} + (1 - t) B_{ik}, \\qquad B_{ik} = \\frac{P_i - w_k a_{ik}}{1 - w_k}

    so the gap to the top T, D_i(t) = c_i + t d_i with c_i = B_Tk - B_ik and d_i = (a_Tk - a_ik) - c_i,
    is linear too. Each rival gives a lower bound -c_i/d_i (d_i > 0) or an upper bound (d_i < 0); the
    interval is their intersection with [0, 1]. If w_k = 1 the other weights have no proportions to
    keep and share 1 - t equally.

    Examples
    --------
    >>> a = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 0.75, 1.0]])
    >>> iv = weight_stability_intervals(a, [0.5, 0.25, 0.25])
    >>> iv.top, round(float(iv.lower[0]), 6), float(iv.upper[0]), int(iv.lower_rival[0])
    (1, 0.272727, 1.0, 2)
    """
    a = np.asarray(matrix_normalised, dtype=float)
    w = np.asarray(weights, dtype=float)
    n, m = a.shape
    p = a @ w
    top = int(np.argmax(p))
    rest = 1.0 - w
    if m > 1:
        equal_split = (a.sum(axis=1, keepdims=True) - a) / (m - 1)
    else:
        equal_split = a
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.where(rest > 0, (p[:, None] - a * w) / np.where(rest > 0, rest, 1.0), equal_split)
        c = b[top] - b
        d = (a[top] - a) - c
        bound = -c / d
    lower_b = np.where(d > 0, bound, -np.inf)
    upper_b = np.where(d < 0, bound, np.inf)
    lower_b[top] = -np.inf
    upper_b[top] = np.inf
    lo_arg = np.argmax(lower_b, axis=0)
    hi_arg = np.argmin(upper_b, axis=0)
    lo_raw = lower_b[lo_arg, np.arange(m)]
    hi_raw = upper_b[hi_arg, np.arange(m)]
    lower = np.minimum(np.clip(lo_raw, 0.0, 1.0), w)
    upper = np.maximum(np.clip(hi_raw, 0.0, 1.0), w)
    lower_rival = np.where(lo_raw > 0.0, lo_arg, -1)
    upper_rival = np.where(hi_raw < 1.0, hi_arg, -1)
    return StabilityIntervals(top, w, lower, upper, lower_rival, upper_rival)


@dataclass(frozen=True)
class CriticalChanges:
    """Triantaphyllou & Sanchez (1997) Theorem 1 for the #1 against every rival, per criterion.

    Arrays have shape (n_alternatives, n_criteria): row j = rival, column k = criterion; the #1's own
    row is infeasible.

    Attributes
    ----------
    top : int
    delta : numpy.ndarray
        Threshold of the absolute change delta of W_k (W_k* = W_k - delta, then re-normalised) that
        reverses #1 and rival j: the pair reverses for delta < threshold when a_jk > a_top,k (a
        negative threshold: raise W_k) and for delta > threshold when a_jk < a_top,k. NaN where a_jk =
        a_top,k.
    percent : numpy.ndarray
        delta' = delta x 100 / W_k [%]; NaN where infeasible (never 0 % for "impossible").
    feasible : numpy.ndarray of bool
        False when no change of W_k can reverse the pair: a_jk = a_top,k, or the threshold exceeds W_k
        (W_k would have to go negative).
    sensitivity : numpy.ndarray
        1 / |delta'| where feasible, 0 where infeasible (T&S's convention).
    percent_top : float
        Smallest |delta'| over all rivals and criteria ("Percent-Top"); NaN if nothing is feasible.
    critical : tuple of int or None
        (rival, criterion) of ``percent_top``.
    """

    top: int
    delta: np.ndarray
    percent: np.ndarray
    feasible: np.ndarray
    sensitivity: np.ndarray
    percent_top: float
    critical: tuple[int, int] | None


def critical_weight_changes(matrix_normalised: npt.ArrayLike, weights: npt.ArrayLike) -> CriticalChanges:
    """Critical weight changes for the weighted-sum #1 (Triantaphyllou & Sanchez [1], Theorem 1).

    .. math:: \\delta_{k,T,j} = \\frac{P_j - P_T}{a_{jk} - a_{Tk}}, \\qquad
              \\delta'_{k,T,j} = \\delta_{k,T,j} \\times \\frac{100}{W_k}

    feasible only if a_jk > a_Tk (raise W_k) or the threshold is <= W_k (domain-model section 10, M3).

    Examples
    --------
    The #1 leads on criteria 0 and 1, the rival on criterion 2. No cut of W_0 can reverse them (it
    would need 0.8 > W_0 = 0.45): infeasible, reported as NaN with sensitivity 0, not as 0 %.

    >>> cc = critical_weight_changes([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]], [0.45, 0.45, 0.10])
    >>> bool(cc.feasible[1, 0]), float(cc.percent[1, 0]), float(cc.sensitivity[1, 0])
    (False, nan, 0.0)
    >>> round(float(cc.delta[1, 2]), 6), round(float(cc.percent[1, 2]), 1)  # raise W_2 by 0.8
    (-0.8, -800.0)
    """
    a = np.asarray(matrix_normalised, dtype=float)
    w = np.asarray(weights, dtype=float)
    p = a @ w
    top = int(np.argmax(p))
    dp = (p - p[top])[:, None]
    da = a - a[top]
    with np.errstate(divide="ignore", invalid="ignore"):
        delta = np.where(da != 0, dp / np.where(da != 0, da, 1.0), np.nan)
        feasible = (da > 0) | ((da < 0) & (delta <= w))
        feasible[top] = False
        pct = np.where(w > 0, delta * 100.0 / np.where(w > 0, w, 1.0), np.copysign(np.inf, delta))
        percent = np.where(feasible, pct, np.nan)
        sensitivity = np.where(feasible, 1.0 / np.abs(percent), 0.0)
    if feasible.any():
        masked = np.where(feasible, np.abs(percent), np.inf)
        j, k = np.unravel_index(int(np.argmin(masked)), masked.shape)
        return CriticalChanges(top, delta, percent, feasible, sensitivity, float(masked[j, k]), (int(j), int(k)))
    return CriticalChanges(top, delta, percent, feasible, sensitivity, math.nan, None)


def sample_weights(
    weights: npt.ArrayLike, concentration: float, n_samples: int, rng: np.random.Generator | int | None = None
) -> np.ndarray:
    """Dirichlet weight samples centred on ``weights``: alpha = concentration x w.

    Criteria with weight 0 stay at 0 in every sample (they were switched off, not made uncertain).

    Returns shape (n_samples, n_criteria); each row sums to 1.

    >>> s = sample_weights([0.5, 0.5, 0.0], 20.0, 4, rng=1)
    >>> s.shape, bool(np.allclose(s.sum(axis=1), 1.0)), bool((s[:, 2] == 0).all())
    ((4, 3), True, True)
    """
    w = np.asarray(weights, dtype=float)
    rng = np.random.default_rng(rng)
    out = np.zeros((n_samples, w.size))
    pos = np.flatnonzero(w > 0)
    if pos.size == 1:
        out[:, pos[0]] = 1.0
    elif pos.size > 1:
        out[:, pos] = rng.dirichlet(concentration * w[pos] / w[pos].sum(), size=n_samples)
    return out


@dataclass(frozen=True)
class MonteCarloResult:
    """Rank statistics over Dirichlet weight samples.

    Attributes
    ----------
    method : Method
    concentration : float
    n_samples, seed, rank_depth : int
    weight_samples : numpy.ndarray
        Shape (n_samples, n_criteria).
    rank_probability : numpy.ndarray
        Shape (n_alternatives, rank_depth): probability of each rank 1..rank_depth.
    p_first : numpy.ndarray
        Shape (n_alternatives,): probability of ranking first (ties share first place, so with
        identical alternatives the column can sum to more than 1).
    p_beyond_depth : numpy.ndarray
        Shape (n_alternatives,): probability of ranking worse than ``rank_depth``.
    """

    method: Method
    concentration: float
    n_samples: int
    seed: int | None
    rank_depth: int
    weight_samples: np.ndarray
    rank_probability: np.ndarray
    p_first: np.ndarray
    p_beyond_depth: np.ndarray

    def rank_percentiles(self, q: Sequence[float] = (5.0, 50.0, 95.0)) -> np.ndarray:
        """Rank at each percentile q [%] per alternative, shape (n_alternatives, len(q)); inf when the
        percentile lies beyond ``rank_depth``."""
        cum = np.cumsum(self.rank_probability, axis=1)
        out = np.full((cum.shape[0], len(q)), np.inf)
        for i, qq in enumerate(q):
            reached = cum >= qq / 100.0 - 1e-12
            hit = reached.any(axis=1)
            out[hit, i] = np.argmax(reached[hit], axis=1) + 1
        return out

    @property
    def expected_rank(self) -> np.ndarray | None:
        """Mean rank, shape (n_alternatives,), when every rank is tracked; else None."""
        if self.rank_depth < self.rank_probability.shape[0]:
            return None
        return self.rank_probability @ np.arange(1, self.rank_depth + 1)


#: Target elements per block of sample x alternative scores in the Monte Carlo (512 kB of float64):
#: blocks this size stay in cache, which is faster than scoring every sample at once.
_BLOCK_ELEMENTS = 2**16


def monte_carlo_weights(
    matrix: npt.ArrayLike,
    objectives: npt.ArrayLike,
    weights: npt.ArrayLike,
    *,
    concentration: float = DEFAULT_CONCENTRATION,
    n_samples: int = 1000,
    seed: int | None = 0,
    method: Method | str = Method.WSM,
    rank_depth: int | None = DEFAULT_RANK_DEPTH,
    topsis_normalisation: TopsisNormalisation | str = TopsisNormalisation.VECTOR,
) -> MonteCarloResult:
    """Probability of first place and rank distribution under uncertain weights.

    Parameters
    ----------
    matrix : array_like
        Filled matrix, shape (n_alternatives, n_criteria), no NaN.
    objectives : array_like of Objective
    weights : array_like
        Chosen weights, shape (n_criteria,), sum 1: the centre of the Dirichlet.
    concentration : float, optional
        Dirichlet concentration c > 0 [-]; larger = samples closer to ``weights``
        (see :data:`DEFAULT_CONCENTRATION`).
    n_samples : int, optional
    seed : int or None, optional
        Random seed (results are reproducible for a given seed).
    method : Method, optional
    rank_depth : int or None, optional
        Ranks tracked (1..rank_depth); None tracks all ranks (an n x n matrix).
    topsis_normalisation : TopsisNormalisation, optional

    Returns
    -------
    MonteCarloResult

    Notes
    -----
    All samples are scored by the same kernels as one (block, n) matrix product per block. Identical
    alternatives are scored once (so they tie exactly) and weighted by their multiplicity in the ranks.
    Only the alternatives that can reach the top ``rank_depth`` of a sample are ranked in it: a sample's
    threshold is the ``rank_depth``-th best score among a candidate set (the best alternatives under the
    chosen weights), and nobody below it can rank within the depth, which keeps the result exact.

    Examples
    --------
    >>> x = np.array([[1.0, 0.0], [0.0, 1.0], [0.4, 0.4]])
    >>> from engine.scoring import Objective
    >>> mc = monte_carlo_weights(x, [Objective.MAX] * 2, [0.5, 0.5], n_samples=2000, seed=3)
    >>> bool(abs(mc.p_first[0] - 0.5) < 0.05), float(mc.p_first[2])  # the middle one never wins
    (True, 0.0)
    """
    x = np.asarray(matrix, dtype=float)
    w = np.asarray(weights, dtype=float)
    method = Method(method)
    if np.isnan(x).any():
        raise ValueError("matrix has NaN: apply the missing-data rule first")
    if not concentration > 0:
        raise ValueError("concentration must be > 0")
    if n_samples < 1:
        raise ValueError("n_samples must be >= 1")
    n = x.shape[0]
    depth = n if rank_depth is None else int(min(max(rank_depth, 1), n))
    samples = sample_weights(w, concentration, n_samples, rng=seed)

    if method is Method.WSM:
        basis = normalise_min_max(x, objectives)
        first_idx, inverse, mult = unique_rows(basis)
        a_t = np.ascontiguousarray(basis[first_idx].T)
        n_u = first_idx.size

        def score(block: np.ndarray, out: np.ndarray, spare: np.ndarray) -> np.ndarray:  # spare: TOPSIS only
            return np.matmul(block, a_t, out=out)
    else:
        d_plus, d_minus = topsis_squared_distances(x, objectives, topsis_normalisation)
        first_idx, inverse, mult = unique_rows(np.hstack([d_plus, d_minus]))
        dp_u, dm_u = d_plus[first_idx], d_minus[first_idx]
        n_u = first_idx.size

        def score(block: np.ndarray, out: np.ndarray, spare: np.ndarray) -> np.ndarray:
            return topsis_closeness(dp_u, dm_u, block)

    # Candidates: the best alternatives under the chosen weights; their depth-th best score in each
    # sample is a threshold below which nobody can rank within the depth.
    n_cand = min(n_u, max(4 * depth, 32))
    base = score(w[None, :], np.empty((1, n_u)), np.empty((1, n_u)))[0]
    cand = np.argpartition(-base, n_cand - 1)[:n_cand] if n_cand < n_u else np.arange(n_u)
    use_threshold = depth < n_u

    block = max(1, min(n_samples, _BLOCK_ELEMENTS // max(n_u, 1)))
    buf, spare, above = np.empty((block, n_u)), np.empty((block, n_u)), np.empty((block, n_u), dtype=bool)
    rows_l, cols_l, vals_l = [], [], []
    for start in range(0, n_samples, block):
        b = min(block, n_samples - start)
        s = score(samples[start : start + b], buf[:b], spare[:b])
        if use_threshold:
            t = np.partition(s[:, cand], n_cand - depth, axis=1)[:, n_cand - depth]
            r, c = np.nonzero(np.greater_equal(s, t[:, None], out=above[:b]))
        else:
            r, c = np.divmod(np.arange(s.size), n_u)
        rows_l.append(r + start)
        cols_l.append(c)
        vals_l.append(s[r, c])
    rows = np.concatenate(rows_l)
    cols = np.concatenate(cols_l)
    vals = np.concatenate(vals_l)

    # Competition rank of each extracted (sample, alternative), counting multiplicities.
    order = np.lexsort((-vals, rows))
    rows, cols, vals = rows[order], cols[order], vals[order]
    k = rows.size
    pos = np.arange(k)
    new_row = np.ones(k, dtype=bool)
    new_row[1:] = rows[1:] != rows[:-1]
    new_tie = new_row.copy()
    new_tie[1:] |= vals[1:] != vals[:-1]
    m_sorted = mult[cols]
    before = np.cumsum(m_sorted) - m_sorted  # multiplicity strictly before each position
    row_start = np.maximum.accumulate(np.where(new_row, pos, 0))
    tie_start = np.maximum.accumulate(np.where(new_tie, pos, 0))
    ranks = 1 + before[tie_start] - before[row_start]
    inside = ranks <= depth
    counts_u = np.bincount(cols[inside] * depth + (ranks[inside] - 1), minlength=n_u * depth).reshape(n_u, depth)
    prob = counts_u[inverse] / float(n_samples)
    return MonteCarloResult(
        method=method,
        concentration=float(concentration),
        n_samples=int(n_samples),
        seed=seed,
        rank_depth=depth,
        weight_samples=samples,
        rank_probability=prob,
        p_first=prob[:, 0].copy(),
        p_beyond_depth=np.clip(1.0 - prob.sum(axis=1), 0.0, 1.0),
    )
