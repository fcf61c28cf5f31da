"""Missing-data rule of the scoring engine (:class:`engine.scoring.MissingRule`): worst observed value, or
exclude; a missing value never ranks above an observed one.

Part of :mod:`engine.scoring`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from engine.scoring.matrix import MissingRule, Objective


@dataclass(frozen=True)
class MissingOutcome:
    """What the missing-data rule did.

    Attributes
    ----------
    values : numpy.ndarray
        Filled matrix of the kept alternatives, shape (n_kept, n_criteria), no NaN.
    keep : numpy.ndarray of bool
        Shape (n_alternatives,): alternatives that stay.
    reasons : dict of int to tuple of str
        Position -> reasons, for alternatives dropped by ``MissingRule.EXCLUDE``.
    fill_values : numpy.ndarray
        Shape (n_criteria,): the value that replaced a missing one, NaN where nothing was replaced.
    all_missing : numpy.ndarray of bool
        Shape (n_criteria,): no kept alternative states this criterion (it cannot separate them).
    stated_vs_not : numpy.ndarray of bool
        Shape (n_criteria,): only one distinct value is observed and some are missing, so the column
        was scored as stated (1 for a MAX criterion, 0 for MIN: the best) against not stated (the worst).
    """

    values: np.ndarray
    keep: np.ndarray
    reasons: dict[int, tuple[str, ...]]
    fill_values: np.ndarray
    all_missing: np.ndarray
    stated_vs_not: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))


def apply_missing_rule(
    values: npt.ArrayLike,
    objectives: npt.ArrayLike,
    weights: npt.ArrayLike,
    rule: MissingRule | str = MissingRule.WORST,
    labels: Sequence[str] | None = None,
) -> MissingOutcome:
    """Apply the missing-data rule to a matrix with NaN for missing values.

    Parameters
    ----------
    values : array_like
        Shape (n_alternatives, n_criteria), NaN = missing.
    objectives : array_like of Objective
        Shape (n_criteria,).
    weights : array_like
        Shape (n_criteria,); ``EXCLUDE`` only looks at criteria with weight > 0.
    rule : MissingRule
        ``WORST``: NaN -> worst observed value of the column (max for MIN, min for MAX), so a missing
        value ties with the worst observed one and never scores above any observed value. ``EXCLUDE``:
        drop every alternative missing a weighted criterion; zero-weight columns are then filled as
        ``WORST`` (they do not affect any score).
    labels : sequence of str, optional
        Criterion labels for the reasons.

    Returns
    -------
    MissingOutcome

    Notes
    -----
    A column with no observed value is filled with 0.0 for everyone: a constant column changes no
    ranking, and ``all_missing`` flags it so the page can say the criterion had no data.

    A column with exactly one distinct observed value and some missing ones would, filled with its worst
    observed value, score "not stated" equal to the best value. It is re-coded instead: the stated value
    becomes the best (1 for MAX, 0 for MIN) and a missing one the worst (0 for MAX, 1 for MIN), so
    min-max normalisation gives 1 to stated and 0 to not stated (``stated_vs_not`` flags it, and
    ``fill_values`` holds the worst code).

    Examples
    --------
    >>> out = apply_missing_rule([[1.0, 5.0], [np.nan, 3.0], [2.0, 4.0]], [Objective.MAX, Objective.MIN], [0.5, 0.5])
    >>> out.values.tolist(), out.fill_values.tolist()
    ([[1.0, 5.0], [1.0, 3.0], [2.0, 4.0]], [1.0, nan])
    >>> apply_missing_rule([[1.0, 5.0], [np.nan, 3.0]], [1, -1], [0.5, 0.5], "exclude", ["a", "b"]).reasons
    {1: ('missing: a',)}

    One value observed (99.9 % uptime as 8.76 h/yr of downtime, a MIN criterion): not stated scores worse.

    >>> out = apply_missing_rule([[8.76, 2.0], [np.nan, 1.0], [8.76, 3.0]], [-1, -1], [0.5, 0.5])
    >>> out.values[:, 0].tolist(), out.stated_vs_not.tolist()
    ([0.0, 1.0, 0.0], [True, False])
    """
    x = np.asarray(values, dtype=float)
    obj = np.asarray(objectives, dtype=int)
    w = np.asarray(weights, dtype=float)
    rule = MissingRule(rule)
    n, m = x.shape
    labels = list(labels) if labels is not None else [f"criterion {j}" for j in range(m)]
    nan = np.isnan(x)
    reasons: dict[int, tuple[str, ...]] = {}
    keep = np.ones(n, dtype=bool)
    if rule is MissingRule.EXCLUDE:
        weighted_nan = nan & (w > 0)
        keep = ~weighted_nan.any(axis=1)
        for i in np.flatnonzero(~keep):
            reasons[int(i)] = ("missing: " + ", ".join(labels[j] for j in np.flatnonzero(weighted_nan[i])),)
    kept = x[keep]
    kept_nan = np.isnan(kept)
    all_missing = kept_nan.all(axis=0) if len(kept) else np.ones(m, dtype=bool)
    safe = np.where(kept_nan, np.where(obj == Objective.MAX, np.inf, -np.inf), kept)
    worst = np.where(obj == Objective.MAX, safe.min(axis=0, initial=np.inf), safe.max(axis=0, initial=-np.inf))
    worst = np.where(all_missing, 0.0, worst)
    safe_best = np.where(kept_nan, np.where(obj == Objective.MAX, -np.inf, np.inf), kept)
    best = np.where(obj == Objective.MAX, safe_best.max(axis=0, initial=-np.inf),
                    safe_best.min(axis=0, initial=np.inf))
    # One distinct observed value and a gap: worst == best, so "not stated" would score as the best value.
    single = ~all_missing & kept_nan.any(axis=0) & (worst == best)
    stated_code, missing_code = np.where(obj == Objective.MAX, 1.0, 0.0), np.where(obj == Objective.MAX, 0.0, 1.0)
    kept = np.where(single & ~kept_nan, stated_code, kept)
    worst = np.where(single, missing_code, worst)
    filled = np.where(kept_nan, worst, kept)
    fill_values = np.where(kept_nan.any(axis=0), worst, np.nan)
    return MissingOutcome(filled, keep, reasons, fill_values, all_missing, single)
