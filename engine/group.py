"""Group weighting: combine several participants' criterion weights into one set.

Aggregation is the normalised **geometric mean** of the individual weights, the rule for aggregating
individual judgements in group decisions shown by Aczél & Saaty to be the one that keeps reciprocity
and unanimity [1]_ and recommended for group AHP by Forman & Peniwati [2]_. A consequence worth telling
the room: a criterion that any participant weights at zero gets zero group weight (a veto); the page
says so next to the result.

The spread of opinion per criterion is reported as the min, max and the coefficient of variation
(standard deviation ÷ mean) of the participants' normalised weights.

References
----------
.. [1] J. Aczél and T. L. Saaty, "Procedures for synthesizing ratio judgements," Journal of Mathematical
   Psychology 27(1), 93-102, 1983. doi:10.1016/0022-2496(83)90028-7
.. [2] E. Forman and K. Peniwati, "Aggregating individual judgments and priorities with the analytic
   hierarchy process," European Journal of Operational Research 108(1), 165-169, 1998.
   doi:10.1016/S0377-2217(97)00244-0
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class GroupWeights:
    weights_fraction: np.ndarray  # (n_criteria,), sums to 1 (all zero if nobody weights anything)
    individual_fraction: np.ndarray  # (n_participants, n_criteria), each row sums to 1
    min_fraction: np.ndarray
    max_fraction: np.ndarray
    coefficient_of_variation: np.ndarray  # NaN where the mean is 0
    vetoed: np.ndarray  # bool (n_criteria,): someone gave 0 while others did not


def normalise_rows(points: npt.ArrayLike) -> np.ndarray:
    """Each participant's points (>= 0) as fractions summing to 1; a row of zeros stays zeros.

    >>> normalise_rows([[1, 1, 2], [0, 0, 0]]).tolist()
    [[0.25, 0.25, 0.5], [0.0, 0.0, 0.0]]
    """
    p = np.asarray(points, dtype=float)
    if np.any(p < 0) or not np.all(np.isfinite(p)):
        raise ValueError("weight points must be finite and >= 0")
    total = p.sum(axis=-1, keepdims=True)
    return np.divide(p, total, out=np.zeros_like(p), where=total > 0)


def aggregate(points: npt.ArrayLike) -> GroupWeights:
    """Geometric-mean aggregation of participants' weight points, shape (n_participants, n_criteria).

    .. math:: \\bar w_j = \\frac{\\left(\\prod_i w_{ij}\\right)^{1/n}}{\\sum_k \\left(\\prod_i w_{ik}\\right)^{1/n}}

    Participants who weighted nothing (all zeros) are left out of the aggregate.

    Examples
    --------
    >>> g = aggregate([[50, 50], [80, 20]])   # gm(0.5,0.8)=0.632, gm(0.5,0.2)=0.316 -> 2/3, 1/3
    >>> np.round(g.weights_fraction, 4).tolist()
    [0.6667, 0.3333]
    """
    w = normalise_rows(np.atleast_2d(points))
    active = w.sum(axis=1) > 0
    w_active = w[active]
    if w_active.shape[0] == 0:
        zeros = np.zeros(w.shape[1])
        return GroupWeights(zeros, w, zeros, zeros, np.full(w.shape[1], np.nan), np.zeros(w.shape[1], bool))
    with np.errstate(divide="ignore"):
        log_mean = np.log(w_active).mean(axis=0)
    gm = np.exp(log_mean)  # exp(-inf) = 0 where anyone gave 0
    total = gm.sum()
    weights = gm / total if total > 0 else gm
    mean = w_active.mean(axis=0)
    std = w_active.std(axis=0)
    cv = np.divide(std, mean, out=np.full_like(mean, np.nan), where=mean > 0)
    vetoed = (w_active == 0).any(axis=0) & (w_active > 0).any(axis=0)
    return GroupWeights(weights, w, w_active.min(axis=0), w_active.max(axis=0), cv, vetoed)
