"""Scoring kernels (pure numpy, no validation): min-max and vector normalisation, weighted sum [1],
TOPSIS [2], ranks and per-criterion contributions.

Part of :mod:`engine.scoring`; the references [n] are in its docstring.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engine.scoring.matrix import Objective, TopsisNormalisation


def normalise_min_max(matrix: npt.ArrayLike, objectives: npt.ArrayLike) -> np.ndarray:
    """Benefit-oriented min-max normalisation: 1 = best, 0 = worst in each column.

    .. math:: a_{ij} = \\frac{x_{ij} - \\min_i x_{ij}}{\\max_i x_{ij} - \\min_i x_{ij}} \\text{ (MAX)},
              \\quad \\frac{\\max_i x_{ij} - x_{ij}}{\\max_i x_{ij} - \\min_i x_{ij}} \\text{ (MIN)}

    A constant column gives 1.0 for everyone (pymcdm's convention). Shape (n, m) -> (n, m).

    >>> normalise_min_max([[1.0, 10.0], [3.0, 20.0]], [Objective.MIN, Objective.MAX]).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    x = np.asarray(matrix, dtype=float)
    obj = np.asarray(objectives)
    lo, hi = x.min(axis=0), x.max(axis=0)
    span = hi - lo
    a = np.where(obj == Objective.MAX, x - lo, hi - x) / np.where(span > 0, span, 1.0)
    return np.where(span > 0, a, 1.0)


def normalise_vector(matrix: npt.ArrayLike) -> np.ndarray:
    """Vector normalisation r = x / sqrt(sum_i x^2) per column (Hwang & Yoon [2]); a zero column stays 0.

    >>> normalise_vector([[3.0], [4.0]]).ravel().tolist()
    [0.6, 0.8]
    """
    x = np.asarray(matrix, dtype=float)
    norm = np.sqrt((x * x).sum(axis=0))
    return x / np.where(norm > 0, norm, 1.0)


def weighted_sum_scores(matrix: npt.ArrayLike, objectives: npt.ArrayLike, weights: npt.ArrayLike) -> np.ndarray:
    """Weighted sum of min-max normalised criteria (WSM; Triantaphyllou & Sanchez [1]).

    .. math:: P_i = \\sum_j w_j a_{ij}

    Parameters
    ----------
    matrix : array_like
        Shape (n_alternatives, n_criteria), criteria units, no NaN (apply the missing rule first).
    objectives : array_like of Objective
        Shape (n_criteria,).
    weights : array_like
        Shape (n_criteria,) or (n_samples, n_criteria); each row sums to 1 [-].

    Returns
    -------
    numpy.ndarray
        Scores in [0, 1], higher is better: shape (n_alternatives,) or (n_samples, n_alternatives).

    Examples
    --------
    >>> weighted_sum_scores([[1.0, 10.0], [3.0, 20.0]], [Objective.MIN, Objective.MAX], [0.75, 0.25]).tolist()
    [0.75, 0.25]
    """
    a = normalise_min_max(matrix, objectives)
    return np.asarray(weights, dtype=float) @ a.T


def topsis_squared_distances(
    matrix: npt.ArrayLike, objectives: npt.ArrayLike, normalisation: TopsisNormalisation | str
) -> tuple[np.ndarray, np.ndarray]:
    """Unweighted squared distances of each value to the ideal and anti-ideal, each shape (n, m)."""
    obj = np.asarray(objectives)
    if TopsisNormalisation(normalisation) is TopsisNormalisation.VECTOR:
        r = normalise_vector(matrix)
        r_max, r_min = r.max(axis=0), r.min(axis=0)
        ideal = np.where(obj == Objective.MAX, r_max, r_min)
        anti = np.where(obj == Objective.MAX, r_min, r_max)
    else:
        r = normalise_min_max(matrix, objectives)
        ideal, anti = r.max(axis=0), r.min(axis=0)
    return (r - ideal) ** 2, (r - anti) ** 2


def topsis_closeness(d_plus_sq: np.ndarray, d_minus_sq: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """TOPSIS closeness for weights (m,) or (s, m); S^2 = sum_j w_j^2 (r_ij - ideal_j)^2 as a matmul."""
    w2 = weights * weights
    s_plus = np.sqrt(w2 @ d_plus_sq.T)
    s_minus = np.sqrt(w2 @ d_minus_sq.T)
    den = s_plus + s_minus
    return np.divide(s_minus, den, out=np.full_like(den, 0.5), where=den > 0)


def topsis_scores(
    matrix: npt.ArrayLike,
    objectives: npt.ArrayLike,
    weights: npt.ArrayLike,
    normalisation: TopsisNormalisation | str = TopsisNormalisation.VECTOR,
) -> np.ndarray:
    """TOPSIS closeness to the ideal solution (Hwang & Yoon [2]; domain-model section 8).

    .. math:: r_{ij} = x_{ij}/\\sqrt{\\textstyle\\sum_i x_{ij}^2}, \\quad v_{ij} = w_j r_{ij}, \\quad
              S_i^{\\pm} = \\lVert v_i - A^{\\pm} \\rVert_2, \\quad C_i = S_i^- / (S_i^+ + S_i^-)

    ``A+`` (``A-``) is the best (worst) weighted value of each column given its objective. Because
    weights are non-negative, the best weighted value is the weight times the best normalised value,
    so every weight sample is two matrix products.

    Parameters
    ----------
    matrix : array_like
        Shape (n_alternatives, n_criteria), no NaN, non-negative for the vector normalisation.
    objectives : array_like of Objective
    weights : array_like
        Shape (n_criteria,) or (n_samples, n_criteria).
    normalisation : TopsisNormalisation, optional
        ``vector`` (default, Hwang & Yoon) or ``min_max``.

    Returns
    -------
    numpy.ndarray
        Closeness in [0, 1], higher is better; shape (n_alternatives,) or (n_samples, n_alternatives).
        0.5 when the ideal and anti-ideal coincide (every alternative equal on every weighted criterion).

    Examples
    --------
    Tzeng & Huang [3]: four alternatives, three benefit criteria, weights 0.3 / 0.4 / 0.3.

    >>> x = [[5, 8, 4], [7, 6, 8], [8, 8, 6], [7, 4, 6]]
    >>> np.round(topsis_scores(x, [Objective.MAX] * 3, [0.3, 0.4, 0.3]), 4).tolist()
    [0.5037, 0.6581, 0.7482, 0.334]
    """
    d_plus, d_minus = topsis_squared_distances(matrix, objectives, normalisation)
    return topsis_closeness(d_plus, d_minus, np.asarray(weights, dtype=float))


def rank(scores: npt.ArrayLike) -> np.ndarray:
    """Ranks from scores along the last axis: 1 = highest score; ties share the better rank (1, 1, 3).

    NaN scores rank last. Shape is kept: (n,) -> (n,), (s, n) -> (s, n).

    >>> rank([0.2, 0.9, 0.2, 0.5]).tolist()
    [3, 1, 3, 2]
    """
    s = np.asarray(scores, dtype=float)
    order = np.argsort(-s, axis=-1, kind="stable")
    s_sorted = np.take_along_axis(s, order, axis=-1)
    n = s.shape[-1]
    new_group = np.ones(s.shape, dtype=bool)
    new_group[..., 1:] = s_sorted[..., 1:] != s_sorted[..., :-1]
    group_start = np.maximum.accumulate(np.where(new_group, np.arange(n), 0), axis=-1)
    ranks = np.empty(s.shape, dtype=int)
    np.put_along_axis(ranks, order, group_start + 1, axis=-1)
    return ranks


def contributions(matrix: npt.ArrayLike, objectives: npt.ArrayLike, weights: npt.ArrayLike) -> np.ndarray:
    """Per-criterion contribution w_j a_ij to the weighted-sum score ("why #1 wins").

    Returns shape (n_alternatives, n_criteria); each row sums to :func:`weighted_sum_scores`.

    >>> contributions([[1.0, 10.0], [3.0, 20.0]], [Objective.MIN, Objective.MAX], [0.75, 0.25]).tolist()
    [[0.75, 0.0], [0.0, 0.25]]
    """
    return normalise_min_max(matrix, objectives) * np.asarray(weights, dtype=float)
