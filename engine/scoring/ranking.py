"""End to end: hard constraints -> missing-data rule -> scores -> stability, with the assumptions
(:func:`rank_alternatives`, :class:`ScoringResult`).

Part of :mod:`engine.scoring`; the references [n] are in its docstring.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from engine.assumptions import Assumption
from engine.scoring.constraints import Constraints, apply_constraints
from engine.scoring.kernels import normalise_min_max, rank, topsis_scores, weighted_sum_scores
from engine.scoring.matrix import Criterion, DecisionMatrix, Method, MissingRule, TopsisNormalisation, Weights
from engine.scoring.missing import apply_missing_rule
from engine.scoring.sensitivity import (
    CriticalChanges,
    StabilityIntervals,
    critical_weight_changes,
    weight_stability_intervals,
)

# ---------------------------------------------------------------------------------------------------
# End to end: constraints -> missing rule -> scores -> stability, with assumptions
# ---------------------------------------------------------------------------------------------------


class Exclusion(NamedTuple):
    """An alternative left out of the ranking, the step that left it out and why."""

    id: str
    label: str
    stage: str  # "constraint" or "missing data"
    reasons: tuple[str, ...]


#: Above this many ranked alternatives the set-dependence check (remove each one, re-rank) is skipped.
SET_DEPENDENCE_MAX_ALTERNATIVES = 2000


@dataclass(frozen=True)
class ScoringResult:
    """A ranking with everything needed to explain it.

    Attributes
    ----------
    method : Method
    missing_rule : MissingRule
    criteria : tuple of Criterion
    weights : numpy.ndarray
        The weights scored with, shape (n_criteria,), sum 1: the requested ones with every inert
        criterion (``uninformative``) set to zero and the rest rescaled. When every weighted criterion is
        inert, the requested weights (every offer ties).
    constraints : Constraints
    ids, labels : tuple of str
        Ranked alternatives, in input order (not sorted).
    values : numpy.ndarray
        Their catalog values, shape (n, n_criteria), NaN where missing (show these to the user).
    missing : numpy.ndarray of bool
        Shape (n, n_criteria).
    filled : numpy.ndarray
        The matrix that was scored: missing values replaced by the rule; shape (n, n_criteria).
    fill_values : numpy.ndarray
        Shape (n_criteria,): value used for missing entries, NaN where none was needed.
    scores : numpy.ndarray
        Shape (n,), higher is better (WSM score or TOPSIS closeness).
    ranks : numpy.ndarray of int
        Shape (n,), 1 = best.
    normalised : numpy.ndarray
        Min-max normalised benefit matrix of ``filled`` (1 = best), shape (n, n_criteria).
    contributions : numpy.ndarray or None
        WSM contribution of each criterion, shape (n, n_criteria); None for TOPSIS, whose closeness does
        not split into additive parts.
    stability : StabilityIntervals or None
        Exact weight intervals keeping #1 first (WSM only; use :func:`monte_carlo_weights` for TOPSIS).
    critical : CriticalChanges or None
        T&S Theorem 1 for the #1 (WSM only).
    excluded : tuple of Exclusion
    set_dependent_on : tuple of str or None
        Ids whose removal alone would change the #1 (normalisation is set-dependent), with the
        missing-value fills held fixed; None if not checked (fewer than 3 or more than
        :data:`SET_DEPENDENCE_MAX_ALTERNATIVES` alternatives).
    uninformative : tuple of str
        Weighted criteria that do not separate the ranked alternatives (all equal or all missing): inert,
        their weight is not counted in ``weights``.
    assumptions : tuple of Assumption
    requested_weights : numpy.ndarray or None
        The user's weights, normalised, before inert criteria were set to zero, shape (n_criteria,).
    stated_vs_not : tuple of str
        Criteria scored as stated against not stated (only one distinct value observed; see
        :func:`apply_missing_rule`).
    """

    method: Method
    missing_rule: MissingRule
    criteria: tuple[Criterion, ...]
    weights: np.ndarray
    constraints: Constraints
    ids: tuple[str, ...]
    labels: tuple[str, ...]
    values: np.ndarray
    missing: np.ndarray
    filled: np.ndarray
    fill_values: np.ndarray
    scores: np.ndarray
    ranks: np.ndarray
    normalised: np.ndarray
    contributions: np.ndarray | None
    stability: StabilityIntervals | None
    critical: CriticalChanges | None
    excluded: tuple[Exclusion, ...]
    set_dependent_on: tuple[str, ...] | None
    uninformative: tuple[str, ...]
    assumptions: tuple[Assumption, ...]
    requested_weights: np.ndarray | None = None
    stated_vs_not: tuple[str, ...] = ()

    @property
    def inert_share(self) -> float:
        """Share of the requested weight on inert criteria [-] (0 when none)."""
        if self.requested_weights is None or not self.uninformative:
            return 0.0
        return float(sum(self.requested_weights[[c.name for c in self.criteria].index(n)]
                         for n in self.uninformative))

    @property
    def order(self) -> np.ndarray:
        """Positions sorted best first (ties keep input order)."""
        return np.argsort(-self.scores, kind="stable")

    @property
    def top(self) -> str | None:
        """Id of the #1, None if nothing was ranked."""
        return self.ids[int(self.order[0])] if self.ids else None

    @property
    def objectives(self) -> np.ndarray:
        return np.array([int(c.objective) for c in self.criteria], dtype=int)


def _score(method: Method, x: np.ndarray, obj: np.ndarray, w: np.ndarray, norm: TopsisNormalisation) -> np.ndarray:
    if method is Method.WSM:
        return weighted_sum_scores(x, obj, w)
    return topsis_scores(x, obj, w, norm)


def rank_alternatives(
    matrix: DecisionMatrix,
    weights: Weights | Mapping[str, float],
    *,
    method: Method | str = Method.WSM,
    constraints: Constraints | None = None,
    missing: MissingRule | str = MissingRule.WORST,
    topsis_normalisation: TopsisNormalisation | str = TopsisNormalisation.VECTOR,
) -> ScoringResult:
    """Filter by the hard constraints, apply the missing-data rule, score, rank and explain.

    Parameters
    ----------
    matrix : DecisionMatrix
        From :func:`engine.adapters.build_decision_matrix`.
    weights : Weights or mapping of str to float
        Criterion name -> weight (validated and normalised by :class:`Weights`).
    method : Method, optional
        ``weighted_sum`` (default) or ``topsis``.
    constraints : Constraints, optional
        Hard constraints; none by default.
    missing : MissingRule, optional
        ``worst`` (default) or ``exclude``.
    topsis_normalisation : TopsisNormalisation, optional

    Returns
    -------
    ScoringResult
        Empty arrays (and every alternative in ``excluded``) when nothing passes.

    Examples
    --------
    >>> import datetime as dt
    >>> from engine.adapters import build_decision_matrix
    >>> rows = [
    ...     {"offer_id": "eu", "parent_jurisdiction": "EU", "on_demand_eur_per_gpu_hour": 3.0},
    ...     {"offer_id": "us", "parent_jurisdiction": "US", "on_demand_eur_per_gpu_hour": 2.0},
    ...     {"offer_id": "x", "parent_jurisdiction": "EU"},
    ... ]
    >>> dm = build_decision_matrix(rows, reference_date=dt.date(2026, 1, 1))
    >>> res = rank_alternatives(dm, {"price_eur_per_gpu_hour": 1.0},
    ...                         constraints=Constraints(eu_jurisdiction_only=True), missing="exclude")
    >>> res.ids, [(e.id, e.reasons) for e in res.excluded]
    (('eu',), [('us', ('parent jurisdiction: US, not EU',)), ('x', ('missing: Effective price',))])
    """
    method = Method(method)
    rule = MissingRule(missing)
    norm = TopsisNormalisation(topsis_normalisation)
    constraints = constraints or Constraints()
    names = matrix.criterion_names
    labels_c = [c.label for c in matrix.criteria]
    if not isinstance(weights, Weights):
        weights = Weights(values=dict(weights), criteria=names)
    elif tuple(weights.criteria) != names:
        raise ValueError("weights were validated against other criteria than the matrix's")
    requested = weights.as_array()
    obj = matrix.objectives

    keep_c, why_c = apply_constraints(matrix, constraints)
    excluded = [Exclusion(matrix.ids[i], matrix.labels[i], "constraint", r) for i, r in why_c.items()]
    passed = matrix.take(keep_c)
    outcome = apply_missing_rule(passed.values, obj, requested, rule, labels_c)
    excluded += [Exclusion(passed.ids[i], passed.labels[i], "missing data", r) for i, r in outcome.reasons.items()]
    ranked = passed.take(outcome.keep)
    x = outcome.values
    n = x.shape[0]
    # Inert criteria (all equal or stated by none) separate nothing: their weight is reported, not counted.
    spread = (x.max(axis=0) - x.min(axis=0)) if n else np.zeros(len(names))
    inert = (requested > 0) & (outcome.all_missing | (spread == 0)) if n else np.zeros(len(names), dtype=bool)
    w = np.where(inert, 0.0, requested)
    w = w / w.sum() if w.sum() > 0 else requested

    if n:
        scores = _score(method, x, obj, w, norm)
        ranks = rank(scores)
        normalised = normalise_min_max(x, obj)
    else:
        scores, ranks, normalised = np.empty(0), np.empty(0, dtype=int), np.empty((0, len(names)))
    is_wsm = method is Method.WSM
    contrib = normalised * w if (is_wsm and n) else None
    stability = weight_stability_intervals(normalised, w) if (is_wsm and n) else None
    critical = critical_weight_changes(normalised, w) if (is_wsm and n) else None

    set_dependent: tuple[str, ...] | None = None
    if 2 < n <= SET_DEPENDENCE_MAX_ALTERNATIVES:
        top = int(np.argmax(scores))
        changed = []
        for i in range(n):
            if i == top:
                continue
            rest = np.delete(np.arange(n), i)
            new_scores = _score(method, x[rest], obj, w, norm)
            if rest[int(np.argmax(new_scores))] != top and new_scores.max() > new_scores[rest == top][0]:
                changed.append(ranked.ids[i])
        set_dependent = tuple(changed)

    uninformative = tuple(names[j] for j in np.flatnonzero(inert))
    stated_vs_not = tuple(names[j] for j in np.flatnonzero(outcome.stated_vs_not) if requested[j] > 0)
    excluded_t = tuple(excluded)

    assumptions = [
        Assumption("method", method.value, "", "Weighted sum of min-max normalised criteria [1]" if is_wsm
                   else f"TOPSIS, {norm.value} normalisation [2]"),
        Assumption("missing_rule", rule.value, "",
                   "worst: a missing value scores as the worst observed value of its criterion, so it never ranks "
                   "above an observed one" if rule is MissingRule.WORST else
                   "exclude: alternatives missing a weighted criterion are dropped and listed with the reason"),
        Assumption("price_basis", matrix.price_basis.value, "", "Which catalog price is the effective price"),
        Assumption("reference_date", str(matrix.reference_date), "", "Day the age of the data is measured to"),
        Assumption("constraints", ", ".join(constraints.active()) or "none", "",
                   "Hard constraints filter before ranking; a fact that is not stated fails the constraint"),
        Assumption("normalisation_is_set_dependent", True, "",
                   "Min, max and norms come from the ranked set: adding or removing an offer can reorder others "
                   "(rank reversal, Aires & Ferreira 2019)"),
    ]
    if uninformative:
        assumptions.append(Assumption(
            "inert_weight", float(requested[inert].sum()), "-",
            "weight of criteria that separate no ranked offer (" + ", ".join(uninformative) + "): not counted, "
            "the other weights rescaled to sum 1"))
    for j, c in enumerate(matrix.criteria):
        if requested[j] > 0:
            assumptions.append(Assumption(f"weight.{c.name}", float(w[j]), "-", c.mapping_doc))
            if not math.isnan(outcome.fill_values[j]) and not outcome.all_missing[j]:
                k = int(np.isnan(ranked.values[:, j]).sum())
                assumptions.append(Assumption(
                    f"missing_fill.{c.name}", float(outcome.fill_values[j]), "-" if outcome.stated_vs_not[j] else c.unit,
                    f"{k} of {n} missing; only one value is stated, so the criterion scores stated (best) against "
                    "not stated (worst)" if outcome.stated_vs_not[j] else
                    f"{k} of {n} missing, scored as the worst observed value",
                ))

    return ScoringResult(
        method=method,
        missing_rule=rule,
        criteria=matrix.criteria,
        weights=w,
        constraints=constraints,
        ids=ranked.ids,
        labels=ranked.labels,
        values=ranked.values,
        missing=ranked.missing,
        filled=x,
        fill_values=outcome.fill_values,
        scores=scores,
        ranks=ranks,
        normalised=normalised,
        contributions=contrib,
        stability=stability,
        critical=critical,
        excluded=excluded_t,
        set_dependent_on=set_dependent,
        uninformative=uninformative,
        assumptions=tuple(assumptions),
        requested_weights=requested,
        stated_vs_not=stated_vs_not,
    )
