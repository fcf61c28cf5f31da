"""Multi-criteria ranking of GPU offers: decision matrix, weighted sum, TOPSIS and rank stability.

The pipeline, in the order it runs (:func:`rank_alternatives` runs it end to end):

1. **Decision matrix** (:func:`engine.adapters.build_decision_matrix`, the catalog boundary): one row per
   offer, one column per :data:`CRITERIA` entry, in the criterion's unit. Categories (fabric, memory
   type, support, ...) become numbers through the documented mappings below. A value the catalog does
   not state is NaN and stays visible in :attr:`DecisionMatrix.missing`; it is never read as zero.
2. **Hard constraints** (:func:`apply_constraints`): EU data centre, EU parent jurisdiction, EU legal
   seat, required certifications, InfiniBand, SXM, maximum price, GPU class, memory per GPU (see
   :mod:`engine.scope` for the workload-fit rule) and flagged price outliers (:mod:`engine.outliers`).
   They filter *before* ranking and every excluded offer comes back with its reasons. A constrained field that is not stated excludes the offer ("not stated"): a constraint is
   never passed on missing data.
3. **Missing-data rule** (:class:`MissingRule`): ``worst`` (default) scores a missing value as the worst
   value observed for that criterion among the remaining offers, so missing data never ranks above any
   observed value; where only one value is observed (so the worst is also the best), the criterion is
   scored as stated (best) against not stated (worst) instead. ``exclude`` drops offers missing any
   criterion that carries weight, with a reason.
   A weighted criterion that still does not separate the ranked offers (all equal, or stated by none) is
   **inert**: its weight is reported and set to zero, the others rescaled, so a score is made only of
   criteria that tell the offers apart (the ranking is the same; the score and its parts are honest).
4. **Scores** with a pure kernel: :func:`weighted_sum_scores` (min-max normalisation, then the
   weighted sum) or :func:`topsis_scores` (vector normalisation, closeness to the ideal). Both take one
   weight vector, shape (n_criteria,), or a stack of them, shape (n_samples, n_criteria), and then
   score every sample in one call. :func:`rank` turns scores into ranks.
5. **Stability** of the #1: :func:`weight_stability_intervals` (exact for the weighted sum: the interval
   of each weight, others rescaled proportionally, in which #1 stays #1), :func:`critical_weight_changes`
   (Triantaphyllou & Sanchez 1997, Theorem 1, with the "infeasible" case) and :func:`monte_carlo_weights`
   (Dirichlet weights centred on the chosen ones: probability of first place and rank distribution).

Conventions (see :mod:`engine`)
-------------------------------
* Every criterion has an :class:`Objective`: ``MIN`` (cheaper, older data, longer commitment are worse)
  or ``MAX`` (more bandwidth, longer SLA are better). Kernels take the raw matrix and the objectives and
  do no validation; :class:`Weights` and :class:`Constraints` (pydantic) check inputs first.
* Weights are non-negative and normalised to sum 1. A criterion with weight 0 has no effect.
* Normalisation is set-dependent (the min, max and vector norm come from the offers being ranked), so
  adding or removing an offer can reorder the others (rank reversal, Aires & Ferreira 2019);
  :class:`ScoringResult` names the offers whose removal would change the #1.
* Ties share the better rank (competition ranking 1, 1, 3). Ties are exact float ties.
* A column whose values are all equal normalises to 1.0 for everyone under min-max (as pymcdm does) and
  adds nothing to any TOPSIS distance; an all-missing column is reported as not separating the offers.

References
----------
.. [1] E. Triantaphyllou and A. Sanchez, "A sensitivity analysis approach for some deterministic
       multi-criteria decision-making methods," Decision Sciences, vol. 28, no. 1, pp. 151-194, 1997.
       http://www.csc.lsu.edu/trianta/Journal_PAPERS1/SENSIT1.htm
.. [2] C. L. Hwang and K. Yoon, Multiple Attribute Decision Making: Methods and Applications.
       Springer, 1981, doi:10.1007/978-3-642-48318-9.
.. [3] G.-H. Tzeng and J.-J. Huang, Multiple Attribute Decision Making: Methods and Applications.
       CRC Press, 2011 (TOPSIS worked example reproduced in the tests).
.. [4] J. Aires and J. Ferreira, "A new approach to avoid rank reversal cases in the TOPSIS method,"
       Computers & Industrial Engineering, vol. 132, pp. 84-97, 2019.
.. [5] A. Shekhovtsov, "pymcdm - the universal library for solving multi-criteria decision-making
       problems," SoftwareX, vol. 22, 101368, 2023 (peer library used in the cross-check tests).
"""

from domain.geography import EU_EEA_COUNTRY_CODES
from engine.assumptions import Assumption
from engine.scoring.constraints import (
    Constraints,
    apply_constraints,
)
from engine.scoring.kernels import (
    contributions,
    normalise_min_max,
    normalise_vector,
    rank,
    topsis_scores,
    weighted_sum_scores,
)
from engine.scoring.matrix import (
    CONSTRAINT_ATTRIBUTES,
    CRITERIA,
    CRITERION_NAMES,
    INTER_NODE_SCORE,
    INTRA_NODE_SCORE,
    JURISDICTION_SCORE,
    MEMORY_TYPE_SCORE,
    MIN_COMMITMENT_MONTHS,
    NOT_STATED,
    SUPPORT_SCORE,
    VERIFICATION_SCORE,
    YES_NO_SCORE,
    Criterion,
    DecisionMatrix,
    Method,
    MissingRule,
    Objective,
    PriceBasis,
    TopsisNormalisation,
    Weights,
)
from engine.scoring.missing import (
    MissingOutcome,
    apply_missing_rule,
)
from engine.scoring.presets import (
    PRESETS,
    Preset,
)
from engine.scoring.ranking import (
    SET_DEPENDENCE_MAX_ALTERNATIVES,
    Exclusion,
    ScoringResult,
    rank_alternatives,
)
from engine.scoring.sensitivity import (
    DEFAULT_CONCENTRATION,
    DEFAULT_RANK_DEPTH,
    CriticalChanges,
    MonteCarloResult,
    StabilityIntervals,
    critical_weight_changes,
    monte_carlo_weights,
    sample_weights,
    weight_stability_intervals,
)
from engine.units import HOURS_PER_YEAR

__all__ = [
    "Objective",
    "Method",
    "MissingRule",
    "PriceBasis",
    "TopsisNormalisation",
    "Criterion",
    "CRITERIA",
    "CRITERION_NAMES",
    "INTRA_NODE_SCORE",
    "INTER_NODE_SCORE",
    "MEMORY_TYPE_SCORE",
    "SUPPORT_SCORE",
    "JURISDICTION_SCORE",
    "YES_NO_SCORE",
    "MIN_COMMITMENT_MONTHS",
    "VERIFICATION_SCORE",
    "NOT_STATED",
    "DEFAULT_CONCENTRATION",
    "DEFAULT_RANK_DEPTH",
    "CONSTRAINT_ATTRIBUTES",
    "SET_DEPENDENCE_MAX_ALTERNATIVES",
    "Assumption",
    "DecisionMatrix",
    "Weights",
    "Constraints",
    "apply_constraints",
    "MissingOutcome",
    "apply_missing_rule",
    "normalise_min_max",
    "normalise_vector",
    "weighted_sum_scores",
    "topsis_scores",
    "rank",
    "contributions",
    "StabilityIntervals",
    "weight_stability_intervals",
    "CriticalChanges",
    "critical_weight_changes",
    "sample_weights",
    "MonteCarloResult",
    "monte_carlo_weights",
    "Exclusion",
    "ScoringResult",
    "rank_alternatives",
    "Preset",
    "PRESETS",
    "EU_EEA_COUNTRY_CODES",
    "HOURS_PER_YEAR",
]
