"""Multi-criteria ranking of GPU offers: decision matrix, weighted sum, TOPSIS and rank stability.

The pipeline, in the order it runs (:func:`rank_alternatives` runs it end to end):

1. **Decision matrix** (:func:`build_decision_matrix`, the only place that touches pandas): one row per
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

from __future__ import annotations

import datetime as dt
import enum
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, model_validator

if TYPE_CHECKING:  # pandas is imported lazily, only by the boundary builder
    import pandas as pd

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
    "build_decision_matrix",
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
]

HOURS_PER_YEAR = 8760.0


# ---------------------------------------------------------------------------------------------------
# Enumerations
# ---------------------------------------------------------------------------------------------------


class Objective(enum.IntEnum):
    """Direction of a criterion. The values match pymcdm's criterion types (-1 cost, +1 profit)."""

    MIN = -1  #: lower is better (price, age of the data, commitment, allowed downtime)
    MAX = 1  #: higher is better (bandwidth, scores)


class Method(enum.StrEnum):
    """Aggregation method."""

    WSM = "weighted_sum"  #: weighted sum of min-max normalised criteria (Triantaphyllou & Sanchez [1])
    TOPSIS = "topsis"  #: closeness to the ideal point (Hwang & Yoon [2])


class MissingRule(enum.StrEnum):
    """How a missing value is handled (the rule is reported in every result)."""

    #: A missing value scores as the worst value observed for that criterion among the offers being
    #: ranked: it ties with the worst observed offer and never ranks above any observed value.
    WORST = "worst"
    #: Offers missing any criterion that carries weight are dropped, each with a reason.
    EXCLUDE = "exclude"


class PriceBasis(enum.StrEnum):
    """Which catalog price is the effective price [EUR/GPU-h]."""

    ON_DEMAND = "on_demand"  #: ``on_demand_eur_per_gpu_hour``
    RESERVED = "reserved"  #: ``reserved_eur_per_gpu_hour`` (needs a commitment; cheapest of any term)
    RESERVED_1Y = "reserved_1y"  #: ``reserved_1y_eur_per_gpu_hour`` (a 12-month commitment)
    RESERVED_3Y = "reserved_3y"  #: ``reserved_3y_eur_per_gpu_hour`` (a 36-month commitment)
    SPOT = "spot"  #: ``spot_eur_per_gpu_hour`` (can be pre-empted)
    CHEAPEST = "cheapest"  #: lowest of on-demand, reserved and spot that the catalog states


class TopsisNormalisation(enum.StrEnum):
    """Column normalisation inside TOPSIS."""

    VECTOR = "vector"  #: r = x / sqrt(sum x^2) (Hwang & Yoon [2]; domain-model section 8)
    MIN_MAX = "min_max"  #: benefit-oriented min-max (pymcdm's default for TOPSIS)


#: EU member states plus the EEA countries (IS, LI, NO), ISO 3166-1 alpha-2: where a legal seat counts as
#: "in the EU/EEA". Source: https://european-union.europa.eu/principles-countries-history/eu-countries_en
#: and the EEA Agreement (https://www.efta.int/eea), as of 2026.
EU_EEA_COUNTRY_CODES = frozenset(
    "AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE IS LI NO".split()
)

#: Dirichlet concentration c of the weight Monte Carlo [-]: weights are drawn with alpha = c * w, so
#: the mean is w and the standard deviation of one weight is sqrt(w (1 - w) / (c + 1)); c = 20 gives
#: about +/- 0.09 around w = 0.2. A judgement (no published default): the page lets the user change it.
DEFAULT_CONCENTRATION = 20.0
#: Ranks tracked by the Monte Carlo rank distribution [-]: ranks 1..10 plus "worse than 10".
#: ``rank_depth=None`` tracks every rank (an n x n matrix, fine for a catalog of a few hundred offers).
DEFAULT_RANK_DEPTH = 10

# ---------------------------------------------------------------------------------------------------
# Category -> number mappings. Each one is shown to the user with its reason.
# ---------------------------------------------------------------------------------------------------

#: Category values that mean "the catalog does not state it": they become NaN (missing), never 0.
NOT_STATED = frozenset({"unknown", ""})

#: Intra-node interconnect [-], as the all-reduce bus bandwidth relative to NVLink/NVSwitch.
#: ``NVLink-NVSwitch`` 1.0: NCCL ring bus bandwidth ~370 GB/s on 8x H100 (S. Jeaugey, NVIDIA/nccl-tests#212,
#: domain-model section 3). ``PCIe`` 28/370 = 0.076: 28 GB/s all-reduce bus bandwidth measured on 8 GPUs
#: over PCIe Gen5 (NVIDIA/nccl#1639, as used in :mod:`engine.network`). ``NVLink-bridge`` 0.25: a
#: documented judgement -- bridged pairs talk at NVLink rates but a ring over more than two GPUs crosses
#: PCIe, so it sits nearer PCIe than NVSwitch.
INTRA_NODE_SCORE: dict[str, float] = {
    "NVLink-NVSwitch": 1.0,
    "NVLink-bridge": 0.25,
    "PCIe": 28.0 / 370.0,
}

#: Inter-node fabric [-]. ``InfiniBand-NDR`` 1.0 (400 Gb/s per port, domain-model section 4).
#: ``InfiniBand-HDR`` 200/400 = 0.5 (200 Gb/s per port, domain-model sections 3-4). ``RoCEv2`` 0.8 and
#: ``Ethernet`` 0.4 are documented judgements: the type does not fix the port rate; RoCEv2 is RDMA (Llama 3
#: trained on a 400 Gb/s RoCE fabric, arXiv 2407.21783 section 3.3) but without InfiniBand's in-network
#: reduction; plain Ethernet (TCP) has no RDMA. ``none`` 0.0: single node, no scale-out at all.
#: The per-GPU bandwidth, where stated, is scored separately (``inter_node_bandwidth_gbps_per_gpu``).
INTER_NODE_SCORE: dict[str, float] = {
    "InfiniBand-NDR": 1.0,
    "InfiniBand-HDR": 200.0 / 400.0,
    "RoCEv2": 0.8,
    "Ethernet": 0.4,
    "none": 0.0,
}

#: Memory technology [-], as the bandwidth of a typical GPU with that memory relative to HBM3e (H200,
#: 4.8 TB/s, domain-model section 4): HBM3 3.35 (H100 SXM, section 4), HBM2e 2.039 (A100 80GB SXM,
#: section 4), HBM2 1.555 (A100 40GB), GDDR7 1.792 (RTX PRO 6000 Blackwell), GDDR6 0.864 (L40S); the last
#: three from the catalog's ``gpu_specs`` seed. It overlaps with ``memory_bandwidth_tbps`` by design: it
#: still ranks offers whose GPU spec (and so bandwidth) is missing. Weigh one or the other.
MEMORY_TYPE_SCORE: dict[str, float] = {
    "HBM3e": 4.8 / 4.8,
    "HBM3": 3.35 / 4.8,
    "HBM2e": 2.039 / 4.8,
    "HBM2": 1.555 / 4.8,
    "GDDR7": 1.792 / 4.8,
    "GDDR6": 0.864 / 4.8,
}

#: Support depth [-], an ordinal scale in equal steps (documented judgement): ``self-serve`` (documentation
#: and community only) 0.0, ``ticket`` 0.5, ``dedicated-engineer`` 1.0. ``unknown`` is missing.
SUPPORT_SCORE: dict[str, float] = {
    "self-serve": 0.0,
    "ticket": 0.5,
    "dedicated-engineer": 1.0,
}

#: Parent jurisdiction [-] (documented judgement on exposure to non-EU access laws): ``EU`` 1.0; ``UK``
#: 0.5 (covered by an EU adequacy decision under the GDPR, Commission Implementing Decision (EU)
#: 2021/1772, but outside EU law); ``US`` 0.0 (the CLOUD Act, 18 U.S.C. 2713, reaches data that US
#: providers hold abroad); ``other`` 0.0 (not known to be covered: treated conservatively).
JURISDICTION_SCORE: dict[str, float] = {
    "EU": 1.0,
    "UK": 0.5,
    "US": 0.0,
    "other": 0.0,
}

#: Yes/no facts (performance SLA, burst capacity, EU data centre) [-]: ``yes`` 1.0, ``no`` 0.0;
#: ``unknown`` is missing.
YES_NO_SCORE: dict[str, float] = {"yes": 1.0, "no": 0.0}

#: Minimum commitment [months] (lower is better): ``none`` 0, ``monthly`` 1, ``annual`` 12,
#: ``multi-year`` 36 (the 3-year term of the commitment discounts in domain-model section 6; some
#: contracts run longer). ``unknown`` is missing.
MIN_COMMITMENT_MONTHS: dict[str, float] = {
    "none": 0.0,
    "monthly": 1.0,
    "annual": 12.0,
    "multi-year": 36.0,
}

#: How far a catalog row is trusted [-], ordinal in equal steps (documented judgement): ``claimed``
#: (read from a secondary copy) 0.0, ``verified`` (checked on the provider's own page) 0.5,
#: ``benchmarked`` (measured by us) 1.0.
VERIFICATION_SCORE: dict[str, float] = {
    "claimed": 0.0,
    "verified": 0.5,
    "benchmarked": 1.0,
}


@dataclass(frozen=True)
class Criterion:
    """One column of the decision matrix.

    Attributes
    ----------
    name : str
        Standard name with its unit (``price_eur_per_gpu_hour``); the key used by :class:`Weights`.
    label : str
        Short label for tables and charts.
    unit : str
        Unit of the matrix column (``"-"`` for 0-1 scores).
    objective : Objective
        ``MIN`` or ``MAX``.
    source : str
        Catalog column(s) the value is built from.
    mapping_doc : str
        How the catalog value becomes a number, with the reason or source.
    """

    name: str
    label: str
    unit: str
    objective: Objective
    source: str
    mapping_doc: str


#: The criteria of the decision matrix, in column order.
CRITERIA: tuple[Criterion, ...] = (
    Criterion(
        "price_eur_per_gpu_hour", "Effective price", "EUR/GPU-h", Objective.MIN,
        "on_demand / reserved / spot _eur_per_gpu_hour (see PriceBasis)",
        "Catalog price already converted to EUR at the page's exchange rate; the price basis is a user choice.",
    ),
    Criterion(
        "intra_node_score", "Interconnect inside the node", "-", Objective.MAX, "intra_node",
        "NVLink-NVSwitch 1.0, NVLink-bridge 0.25 (judgement), PCIe 0.076 (28/370 GB/s all-reduce bus "
        "bandwidth, NVIDIA/nccl#1639 vs nccl-tests#212).",
    ),
    Criterion(
        "inter_node_fabric_score", "Fabric between nodes", "-", Objective.MAX, "inter_node",
        "InfiniBand-NDR 1.0, InfiniBand-HDR 0.5 (200/400 Gb/s per port), RoCEv2 0.8 and Ethernet 0.4 "
        "(judgement: RDMA vs TCP), none 0.0 (single node).",
    ),
    Criterion(
        "inter_node_bandwidth_gbps_per_gpu", "Bandwidth between nodes per GPU", "Gb/s", Objective.MAX,
        "inter_node_bandwidth_gbps_per_gpu",
        "As stated by the provider; an offer whose fabric is 'none' has 0 Gb/s.",
    ),
    Criterion(
        "memory_type_score", "Memory technology", "-", Objective.MAX, "memory_type",
        "Typical bandwidth of the memory type relative to HBM3e 4.8 TB/s: HBM3 0.70, HBM2e 0.42, GDDR7 0.37, "
        "HBM2 0.32, GDDR6 0.18 (domain-model section 4 and the catalog's gpu_specs).",
    ),
    Criterion(
        "memory_bandwidth_tbps", "Memory bandwidth", "TB/s", Objective.MAX, "memory_bandwidth_tbps",
        "GPU spec value (decode throughput is memory-bound, domain-model section 2).",
    ),
    Criterion(
        "allowed_downtime_hours_per_year", "Uptime SLA (allowed downtime)", "h/yr", Objective.MIN,
        "uptime_sla_pct",
        "(100 - uptime_sla_pct) / 100 x 8,760 h: 99.9 % allows 8.76 h/yr, 99.99 % 0.88 h/yr. Scored as "
        "downtime so that the vector normalisation of TOPSIS sees the 10x difference, not 99.9 vs 99.99.",
    ),
    Criterion(
        "performance_sla_score", "Performance SLA", "-", Objective.MAX, "performance_sla",
        "yes 1.0, no 0.0, unknown missing.",
    ),
    Criterion(
        "support_score", "Support depth", "-", Objective.MAX, "support_model",
        "self-serve 0.0, ticket 0.5, dedicated-engineer 1.0 (ordinal judgement), unknown missing.",
    ),
    Criterion(
        "eu_residency_score", "EU data centre", "-", Objective.MAX, "is_eu_datacenter",
        "Data-centre country in the EU/EEA 1.0, outside 0.0, country not stated missing.",
    ),
    Criterion(
        "jurisdiction_score", "Parent jurisdiction", "-", Objective.MAX, "parent_jurisdiction",
        "EU 1.0, UK 0.5 (GDPR adequacy decision 2021/1772), US 0.0 (CLOUD Act), other 0.0 (judgement).",
    ),
    Criterion(
        "min_commitment_months", "Minimum commitment", "months", Objective.MIN, "min_commitment",
        "none 0, monthly 1, annual 12, multi-year 36 months; unknown missing.",
    ),
    Criterion(
        "burst_capacity_score", "Burst capacity", "-", Objective.MAX, "burst_capacity",
        "yes 1.0, no 0.0, unknown missing.",
    ),
    Criterion(
        "verification_score", "Data verification", "-", Objective.MAX, "verification_status",
        "claimed 0.0, verified 0.5, benchmarked 1.0 (ordinal judgement).",
    ),
    Criterion(
        "data_age_days", "Age of the data", "days", Objective.MIN, "as_of, price_retrieved_at",
        "Days from the older of the offer's as_of date and its price's retrieval date (earliest day of a "
        "partial date) to the reference day.",
    ),
)
CRITERION_NAMES: tuple[str, ...] = tuple(c.name for c in CRITERIA)


class Assumption(NamedTuple):
    """One choice a result depends on: name, value, unit and where it comes from."""

    name: str
    value: object
    unit: str
    source: str


# ---------------------------------------------------------------------------------------------------
# Decision matrix (boundary: catalog rows -> numpy)
# ---------------------------------------------------------------------------------------------------

#: Keys of :attr:`DecisionMatrix.attributes`, the raw facts the hard constraints read.
CONSTRAINT_ATTRIBUTES = (
    "is_eu_datacenter", "parent_jurisdiction", "inter_node", "form_factor", "price_eur_per_gpu_hour",
    "legal_seat_country", "certifications", "gpu_model", "memory_gb", "price_is_outlier", "price_outlier_reason",
)


@dataclass(frozen=True)
class DecisionMatrix:
    """Offers x criteria in the criteria's units, NaN where the catalog states nothing.

    Attributes
    ----------
    values : numpy.ndarray
        Shape (n_alternatives, n_criteria), units of :attr:`criteria`; NaN = missing.
    criteria : tuple of Criterion
        Column definitions.
    ids, labels : tuple of str
        Alternative identifiers (``offer_id``) and display labels.
    attributes : dict of str to numpy.ndarray
        Raw facts for :func:`apply_constraints` (object arrays, ``None`` when not stated; the price is
        float with NaN), keys :data:`CONSTRAINT_ATTRIBUTES`.
    price_basis : PriceBasis
    reference_date : datetime.date
        Day the data age is measured to.
    """

    values: np.ndarray
    criteria: tuple[Criterion, ...]
    ids: tuple[str, ...]
    labels: tuple[str, ...]
    attributes: Mapping[str, np.ndarray] = field(default_factory=dict)
    price_basis: PriceBasis = PriceBasis.ON_DEMAND
    reference_date: dt.date | None = None

    @property
    def missing(self) -> np.ndarray:
        """Boolean mask, shape (n_alternatives, n_criteria): True where the value is missing."""
        return np.isnan(self.values)

    @property
    def objectives(self) -> np.ndarray:
        """Objective of each criterion as an int array of -1 (MIN) / +1 (MAX), shape (n_criteria,)."""
        return np.array([int(c.objective) for c in self.criteria], dtype=int)

    @property
    def criterion_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.criteria)

    def take(self, index: npt.ArrayLike) -> DecisionMatrix:
        """The alternatives at ``index`` (integer positions or a boolean mask), in that order."""
        idx = np.arange(len(self.ids))[np.asarray(index)]
        return DecisionMatrix(
            values=self.values[idx],
            criteria=self.criteria,
            ids=tuple(self.ids[i] for i in idx),
            labels=tuple(self.labels[i] for i in idx),
            attributes={k: np.asarray(v)[idx] for k, v in self.attributes.items()},
            price_basis=self.price_basis,
            reference_date=self.reference_date,
        )


def _is_missing(value: object) -> bool:
    """None, NaN, pandas NA and NaT are missing (checked without importing pandas)."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    if isinstance(value, float | np.floating):
        return bool(np.isnan(value))
    if isinstance(value, np.datetime64):
        return bool(np.isnat(value))
    return False


def _category_scores(values: Sequence[object], mapping: Mapping[str, float], column: str) -> np.ndarray:
    """Map category strings to numbers; missing or 'unknown' -> NaN; an unmapped category raises."""
    out = np.full(len(values), np.nan)
    unknown: set[str] = set()
    for i, v in enumerate(values):
        if _is_missing(v) or str(v).strip() in NOT_STATED:
            continue
        key = str(v).strip()
        if key in mapping:
            out[i] = mapping[key]
        else:
            unknown.add(key)
    if unknown:
        raise ValueError(f"{column}: no scoring mapping for {sorted(unknown)}; add it to engine.scoring")
    return out


def _float_column(values: Sequence[object]) -> np.ndarray:
    return np.array([np.nan if _is_missing(v) else float(v) for v in values], dtype=float)  # type: ignore[arg-type]


def _bool_or_none(value: object) -> bool | None:
    if _is_missing(value):
        return None
    if isinstance(value, str):
        s = value.strip().lower()
        if s in ("true", "yes", "1"):
            return True
        if s in ("false", "no", "0"):
            return False
        return None
    return bool(value)


def _date_lower_bound(value: object) -> dt.date | None:
    """Earliest day a date-like value can mean (``"2026"`` -> 2026-01-01, ``"2026-10"`` -> 2026-10-01)."""
    if _is_missing(value):
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, np.datetime64):
        return dt.date.fromisoformat(str(value.astype("datetime64[D]")))
    to_pydatetime = getattr(value, "to_pydatetime", None)  # pandas.Timestamp
    if callable(to_pydatetime):
        return to_pydatetime().date()
    text = str(value).strip()[:10]
    parts = text.split("-")
    try:
        nums = [int(p) for p in parts] + [1, 1]
        return dt.date(nums[0], nums[1], nums[2])
    except (ValueError, IndexError):
        return None


_PRICE_COLUMNS = {
    PriceBasis.ON_DEMAND: ("on_demand_eur_per_gpu_hour",),
    PriceBasis.RESERVED: ("reserved_eur_per_gpu_hour",),
    PriceBasis.RESERVED_1Y: ("reserved_1y_eur_per_gpu_hour",),
    PriceBasis.RESERVED_3Y: ("reserved_3y_eur_per_gpu_hour",),
    PriceBasis.SPOT: ("spot_eur_per_gpu_hour",),
    PriceBasis.CHEAPEST: ("on_demand_eur_per_gpu_hour", "reserved_eur_per_gpu_hour", "spot_eur_per_gpu_hour"),
}


def build_decision_matrix(
    offers: pd.DataFrame | Iterable[Mapping[str, Any]],
    *,
    price_basis: PriceBasis | str = PriceBasis.ON_DEMAND,
    reference_date: dt.date | None = None,
    id_column: str = "offer_id",
    label_columns: Sequence[str] = ("provider_name", "gpu_model", "region"),
) -> DecisionMatrix:
    """Build the decision matrix from catalog offers (``CatalogStore.list_offers()`` or its records).

    Parameters
    ----------
    offers : pandas.DataFrame or iterable of mappings
        One row per offer with the catalog's column names (prices already in EUR). Columns that are
        absent count as not stated.
    price_basis : PriceBasis, optional
        Which price is the effective price [EUR/GPU-h]. Default on-demand.
    reference_date : datetime.date, optional
        Day the data age is measured to; default today.
    id_column : str, optional
        Column with the alternative id.
    label_columns : sequence of str, optional
        Columns joined with " · " for the display label.

    Returns
    -------
    DecisionMatrix
        ``values`` shape (n_offers, len(CRITERIA)), NaN where the catalog is silent.

    Raises
    ------
    ValueError
        If a category has no mapping (a new catalog enum value must get a documented score first).

    Examples
    --------
    >>> dm = build_decision_matrix(
    ...     [{"offer_id": "a", "on_demand_eur_per_gpu_hour": 2.0, "inter_node": "InfiniBand-NDR",
    ...       "support_model": "unknown", "as_of": "2026-10"}],
    ...     reference_date=dt.date(2026, 10, 11))
    >>> dm.values[0, CRITERION_NAMES.index("inter_node_fabric_score")]
    np.float64(1.0)
    >>> bool(dm.missing[0, CRITERION_NAMES.index("support_score")])  # 'unknown' is missing, not 0
    True
    >>> dm.values[0, CRITERION_NAMES.index("data_age_days")]  # from 2026-10-01, the earliest day
    np.float64(10.0)
    """
    basis = PriceBasis(price_basis)
    today = reference_date or dt.date.today()
    if hasattr(offers, "to_dict"):
        records: list[Mapping[str, Any]] = offers.to_dict("records")  # type: ignore[union-attr]
    else:
        records = list(offers)
    n = len(records)

    def col(name: str) -> list[object]:
        return [r.get(name) for r in records]

    price = np.full(n, np.nan)
    for c in _PRICE_COLUMNS[basis]:
        price = np.fmin(price, _float_column(col(c)))
    # Flags of engine.outliers (columns <type>_is_outlier / <type>_outlier_reason), when the rows carry them:
    # a basis built from several price types is flagged when any of them is.
    outlier = np.zeros(n, dtype=bool)
    outlier_reason: list[str | None] = [None] * n
    for c in _PRICE_COLUMNS[basis]:
        flag_key, reason_key = c.removesuffix("_eur_per_gpu_hour") + "_is_outlier", c.removesuffix(
            "_eur_per_gpu_hour") + "_outlier_reason"
        for i, r in enumerate(records):
            if _bool_or_none(r.get(flag_key)):
                outlier[i] = True
                outlier_reason[i] = "; ".join(t for t in (outlier_reason[i], str(r.get(reason_key) or "")) if t)

    inter_node = col("inter_node")
    fabric_none = np.array([(not _is_missing(v)) and str(v) == "none" for v in inter_node], dtype=bool)
    inter_bw = _float_column(col("inter_node_bandwidth_gbps_per_gpu"))
    inter_bw = np.where(fabric_none & np.isnan(inter_bw), 0.0, inter_bw)

    uptime_pct = _float_column(col("uptime_sla_pct"))
    downtime_h = (100.0 - uptime_pct) / 100.0 * HOURS_PER_YEAR

    eu_dc = [_bool_or_none(v) for v in col("is_eu_datacenter")]
    eu_score = np.array([np.nan if v is None else float(v) for v in eu_dc], dtype=float)

    ages = np.full(n, np.nan)
    as_of_key = "as_of" if any("as_of" in r for r in records) else "as_of_date"
    for i, r in enumerate(records):
        dates = [d for d in (_date_lower_bound(r.get(as_of_key)), _date_lower_bound(r.get("price_retrieved_at"))) if d]
        if dates:
            ages[i] = float(max((today - min(dates)).days, 0))  # data dated after the reference day: 0

    columns = {
        "price_eur_per_gpu_hour": price,
        "intra_node_score": _category_scores(col("intra_node"), INTRA_NODE_SCORE, "intra_node"),
        "inter_node_fabric_score": _category_scores(inter_node, INTER_NODE_SCORE, "inter_node"),
        "inter_node_bandwidth_gbps_per_gpu": inter_bw,
        "memory_type_score": _category_scores(col("memory_type"), MEMORY_TYPE_SCORE, "memory_type"),
        "memory_bandwidth_tbps": _float_column(col("memory_bandwidth_tbps")),
        "allowed_downtime_hours_per_year": downtime_h,
        "performance_sla_score": _category_scores(col("performance_sla"), YES_NO_SCORE, "performance_sla"),
        "support_score": _category_scores(col("support_model"), SUPPORT_SCORE, "support_model"),
        "eu_residency_score": eu_score,
        "jurisdiction_score": _category_scores(col("parent_jurisdiction"), JURISDICTION_SCORE, "parent_jurisdiction"),
        "min_commitment_months": _category_scores(col("min_commitment"), MIN_COMMITMENT_MONTHS, "min_commitment"),
        "burst_capacity_score": _category_scores(col("burst_capacity"), YES_NO_SCORE, "burst_capacity"),
        "verification_score": _category_scores(col("verification_status"), VERIFICATION_SCORE, "verification_status"),
        "data_age_days": ages,
    }
    values = np.column_stack([columns[c.name] for c in CRITERIA]) if n else np.empty((0, len(CRITERIA)))

    def text_or_none(v: object) -> str | None:
        return None if _is_missing(v) or str(v).strip() in NOT_STATED else str(v).strip()

    ids = tuple(str(r.get(id_column, i)) for i, r in enumerate(records))
    labels = tuple(
        " · ".join(str(r[c]) for c in label_columns if not _is_missing(r.get(c))) or ids[i]
        for i, r in enumerate(records)
    )
    attributes = {
        "is_eu_datacenter": np.array(eu_dc, dtype=object),
        "parent_jurisdiction": np.array([text_or_none(v) for v in col("parent_jurisdiction")], dtype=object),
        "inter_node": np.array([text_or_none(v) for v in inter_node], dtype=object),
        "form_factor": np.array([text_or_none(v) for v in col("form_factor")], dtype=object),
        "price_eur_per_gpu_hour": price,
        "legal_seat_country": np.array([text_or_none(v) for v in col("legal_seat_country")], dtype=object),
        # A certificate counts for an offer only where its stated scope covers the GPU service and the offer's
        # data-centre country (catalog ``certifications_in_scope``, issue #18); plain rows fall back to the list.
        "certifications": np.array([text_or_none(v) for v in col(
            "certifications_in_scope" if any("certifications_in_scope" in r for r in records) else "certifications")],
            dtype=object),
        "gpu_model": np.array([text_or_none(v) for v in col("gpu_model")], dtype=object),
        "memory_gb": _float_column(col("memory_gb")),
        "price_is_outlier": outlier,
        "price_outlier_reason": np.array(outlier_reason, dtype=object),
    }
    return DecisionMatrix(values, CRITERIA, ids, labels, attributes, basis, today)


# ---------------------------------------------------------------------------------------------------
# Validated inputs
# ---------------------------------------------------------------------------------------------------


class Weights(BaseModel):
    """Criterion weights: non-negative, finite, at least one > 0, normalised to sum 1.

    Any scale works (points out of 100, 1-5 stars); criteria not named get weight 0.

    >>> w = Weights(values={"a": 3, "b": 1}, criteria=("a", "b", "c"))
    >>> w.as_array().tolist()
    [0.75, 0.25, 0.0]
    >>> try:
    ...     Weights(values={"z": 1}, criteria=("a",))
    ... except ValueError as err:  # pydantic.ValidationError is a ValueError
    ...     print("unknown criteria: ['z']" in str(err))
    True
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    values: dict[str, float] = Field(description="Criterion name -> weight on any non-negative scale")
    criteria: tuple[str, ...] = Field(default=CRITERION_NAMES, description="Known criterion names, in order")

    @model_validator(mode="after")
    def _check(self) -> Weights:
        unknown = sorted(set(self.values) - set(self.criteria))
        if unknown:
            raise ValueError(f"unknown criteria: {unknown} (known: {list(self.criteria)})")
        bad = {k: v for k, v in self.values.items() if not math.isfinite(v) or v < 0}
        if bad:
            raise ValueError(f"weights must be finite and >= 0: {bad}")
        if sum(self.values.values()) <= 0:
            raise ValueError("at least one weight must be > 0")
        return self

    def as_array(self) -> np.ndarray:
        """Weights in ``criteria`` order, normalised to sum 1, shape (n_criteria,)."""
        raw = np.array([float(self.values.get(c, 0.0)) for c in self.criteria])
        return raw / raw.sum()

    def normalised(self) -> dict[str, float]:
        """Criterion name -> normalised weight (all criteria, zeros included)."""
        return dict(zip(self.criteria, self.as_array().tolist(), strict=True))


class Constraints(BaseModel):
    """Hard constraints, applied before ranking. A constrained field that is not stated excludes."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    eu_resident_only: bool = Field(False, description="Data centre in an EU/EEA country")
    eu_jurisdiction_only: bool = Field(False, description="Provider's ultimate parent under EU law")
    infiniband_only: bool = Field(False, description="InfiniBand (NDR or HDR) between nodes")
    sxm_only: bool = Field(False, description="SXM board (NVLink/NVSwitch-capable), not PCIe or OAM")
    max_price_eur_per_gpu_hour: float | None = Field(
        None, gt=0, description="Maximum effective price [EUR/GPU-h]"
    )
    eu_legal_seat_only: bool = Field(
        False, description="Provider's registered office in an EU/EEA country (from its legal notice)"
    )
    required_certifications: tuple[str, ...] = Field(
        (), description="Certificates the provider must state it holds, e.g. ('ISO27001', 'BSI-C5')"
    )
    gpu_models: tuple[str, ...] = Field((), description="GPU class: catalog gpu_model values; () = any")
    min_memory_gb_per_gpu: float | None = Field(None, gt=0, le=10_000, description="Memory per GPU [GB]")
    exclude_price_outliers: bool = Field(
        False, description="Leave out prices flagged by engine.outliers (far from the GPU model's median)"
    )

    def active(self) -> tuple[str, ...]:
        """Names of the constraints that are switched on."""
        return tuple(name for name, value in self.model_dump().items() if value not in (None, False, ()))


# ---------------------------------------------------------------------------------------------------
# Hard constraints
# ---------------------------------------------------------------------------------------------------


def apply_constraints(
    data: DecisionMatrix | Mapping[str, Any],
    constraints: Constraints,
    *,
    price_key: str = "price_eur_per_gpu_hour",
    outlier_key: str = "price_is_outlier",
    outlier_reason_key: str = "price_outlier_reason",
) -> tuple[np.ndarray, dict[int, tuple[str, ...]]]:
    """Which alternatives pass the hard constraints, and why the others do not.

    Parameters
    ----------
    data : DecisionMatrix or mapping of str to array_like
        A decision matrix (its ``attributes`` are read) or columns ``is_eu_datacenter`` (bool or None),
        ``parent_jurisdiction``, ``inter_node``, ``form_factor`` (str or None) and ``price_key``
        [EUR/GPU-h] -- e.g. a catalog DataFrame with a price column added. Only the columns an active
        constraint needs are read.
    constraints : Constraints
    price_key : str, optional
        Column holding the effective price [EUR/GPU-h].

    Returns
    -------
    keep : numpy.ndarray of bool, shape (n_alternatives,)
        True where every active constraint is met.
    reasons : dict of int to tuple of str
        For each excluded position, every constraint it fails; "not stated" when the fact is missing
        (a missing fact never passes a constraint).

    Examples
    --------
    >>> keep, why = apply_constraints(
    ...     {"parent_jurisdiction": ["EU", "US", None]}, Constraints(eu_jurisdiction_only=True))
    >>> keep.tolist(), why
    ([True, False, False], {1: ('parent jurisdiction: US, not EU',), 2: ('parent jurisdiction: not stated',)})
    """
    attrs = data.attributes if isinstance(data, DecisionMatrix) else data

    def column(key: str) -> list[object]:
        if key not in attrs:
            raise KeyError(f"constraint needs column {key!r}")
        return list(np.asarray(attrs[key], dtype=object))

    active = constraints.active()
    first = {
        "eu_resident_only": "is_eu_datacenter",
        "eu_jurisdiction_only": "parent_jurisdiction",
        "infiniband_only": "inter_node",
        "sxm_only": "form_factor",
        "max_price_eur_per_gpu_hour": price_key,
        "eu_legal_seat_only": "legal_seat_country",
        "required_certifications": "certifications",
        "gpu_models": "gpu_model",
        "min_memory_gb_per_gpu": "memory_gb",
        "exclude_price_outliers": outlier_key,
    }
    if isinstance(data, DecisionMatrix):
        n = len(data.ids)
    elif hasattr(attrs, "shape"):  # a DataFrame
        n = int(attrs.shape[0])  # type: ignore[union-attr]
    elif any(first[a] in attrs for a in active):
        n = len(column(next(first[a] for a in active if first[a] in attrs)))
    else:
        n = len(next(iter(attrs.values()), []))
    why: list[list[str]] = [[] for _ in range(n)]
    if constraints.eu_resident_only:
        for i, v in enumerate(column("is_eu_datacenter")):
            flag = _bool_or_none(v)
            if flag is None:
                why[i].append("EU data centre: not stated")
            elif not flag:
                why[i].append("EU data centre: no (outside the EU/EEA)")
    if constraints.eu_jurisdiction_only:
        for i, v in enumerate(column("parent_jurisdiction")):
            if _is_missing(v) or str(v).strip() in NOT_STATED:
                why[i].append("parent jurisdiction: not stated")
            elif str(v).strip() != "EU":
                why[i].append(f"parent jurisdiction: {v}, not EU")
    if constraints.infiniband_only:
        for i, v in enumerate(column("inter_node")):
            if _is_missing(v) or str(v).strip() in NOT_STATED:
                why[i].append("inter-node fabric: not stated")
            elif not str(v).startswith("InfiniBand"):
                why[i].append(f"inter-node fabric: {v}, not InfiniBand")
    if constraints.sxm_only:
        for i, v in enumerate(column("form_factor")):
            if _is_missing(v) or str(v).strip() in NOT_STATED:
                why[i].append("form factor: not stated")
            elif str(v).strip() != "SXM":
                why[i].append(f"form factor: {v}, not SXM")
    if constraints.max_price_eur_per_gpu_hour is not None:
        cap = constraints.max_price_eur_per_gpu_hour
        for i, v in enumerate(column(price_key)):
            if _is_missing(v):
                why[i].append("price: not stated")
            elif not float(v) <= cap:  # type: ignore[arg-type]
                why[i].append(f"price {float(v):.2f} EUR/GPU-h above the maximum {cap:.2f}")  # type: ignore[arg-type]
    if constraints.eu_legal_seat_only:
        for i, v in enumerate(column("legal_seat_country")):
            if _is_missing(v) or str(v).strip() in NOT_STATED:
                why[i].append("legal seat: not stated")
            elif str(v).strip() not in EU_EEA_COUNTRY_CODES:
                why[i].append(f"legal seat: {v}, outside the EU/EEA")
    if constraints.required_certifications:
        for i, v in enumerate(column("certifications")):
            held = set() if _is_missing(v) else {t.strip() for t in str(v).split(";") if t.strip()}
            lacking = [c for c in constraints.required_certifications if c not in held]
            if lacking and not held:
                why[i].append("certifications: none on record")
            elif lacking:
                why[i].append("certifications: " + ", ".join(lacking) + " not on record")
    if constraints.gpu_models:
        for i, v in enumerate(column("gpu_model")):
            if _is_missing(v) or str(v).strip() in NOT_STATED:
                why[i].append("GPU model: not stated")
            elif str(v).strip() not in constraints.gpu_models:
                why[i].append(f"GPU class: {v}, not {' or '.join(constraints.gpu_models)}")
    if constraints.min_memory_gb_per_gpu is not None:
        floor = constraints.min_memory_gb_per_gpu
        for i, v in enumerate(column("memory_gb")):
            if _is_missing(v):
                why[i].append("memory per GPU: not stated")
            elif not float(v) >= floor - 1e-9:  # type: ignore[arg-type]
                why[i].append(f"memory {float(v):g} GB per GPU, below the {floor:.0f} GB needed")  # type: ignore[arg-type]
    if constraints.exclude_price_outliers and outlier_key in attrs:
        texts = column(outlier_reason_key) if outlier_reason_key in attrs else [None] * n
        for i, v in enumerate(column(outlier_key)):
            if _bool_or_none(v):
                why[i].append(str(texts[i]) if not _is_missing(texts[i]) and texts[i] else "price outlier")
    keep = np.array([not w for w in why], dtype=bool)
    return keep, {i: tuple(w) for i, w in enumerate(why) if w}


# ---------------------------------------------------------------------------------------------------
# Missing data
# ---------------------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------------------
# Kernels (pure numpy, no validation)
# ---------------------------------------------------------------------------------------------------


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


def _topsis_squared_distances(
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


def _closeness(d_plus_sq: np.ndarray, d_minus_sq: np.ndarray, weights: np.ndarray) -> np.ndarray:
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
    d_plus, d_minus = _topsis_squared_distances(matrix, objectives, normalisation)
    return _closeness(d_plus, d_minus, np.asarray(weights, dtype=float))


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


def _dedupe(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unique rows: (first position of each, inverse map, multiplicity). Skips the sort-based
    ``np.unique`` when a fixed random projection already shows every row is distinct."""
    n = rows.shape[0]
    proj = np.random.default_rng(20261202).standard_normal(rows.shape[1])
    h = np.zeros(n)
    for j in range(rows.shape[1]):  # column by column: identical rows give identical h, bit for bit
        h += rows[:, j] * proj[j]
    h.sort()
    if n < 2 or not (h[1:] == h[:-1]).any():
        return np.arange(n), np.arange(n), np.ones(n, dtype=int)
    _, first, inverse, mult = np.unique(rows, axis=0, return_index=True, return_inverse=True, return_counts=True)
    return first, inverse.reshape(-1), mult


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
        first_idx, inverse, mult = _dedupe(basis)
        a_t = np.ascontiguousarray(basis[first_idx].T)
        n_u = first_idx.size

        def score(block: np.ndarray, out: np.ndarray, _spare: np.ndarray) -> np.ndarray:
            return np.matmul(block, a_t, out=out)
    else:
        d_plus, d_minus = _topsis_squared_distances(x, objectives, topsis_normalisation)
        first_idx, inverse, mult = _dedupe(np.hstack([d_plus, d_minus]))
        dp_t = np.ascontiguousarray(d_plus[first_idx].T)
        dm_t = np.ascontiguousarray(d_minus[first_idx].T)
        n_u = first_idx.size

        def score(block: np.ndarray, out: np.ndarray, spare: np.ndarray) -> np.ndarray:
            # Same arithmetic as _closeness, into preallocated buffers (fresh multi-MB arrays cost page
            # faults that dominate the run time).
            w2 = block * block
            s_plus = np.sqrt(np.matmul(w2, dp_t, out=spare), out=spare)
            s_minus = np.sqrt(np.matmul(w2, dm_t, out=out), out=out)
            den = np.add(s_plus, s_minus, out=spare)
            zero = den == 0
            np.divide(s_minus, np.where(zero, 1.0, den) if zero.any() else den, out=out)
            out[zero] = 0.5
            return out

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
        From :func:`build_decision_matrix`.
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


# ---------------------------------------------------------------------------------------------------
# Presets
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Preset:
    """A named starting point: weights (points, normalised on use), hard constraints and why."""

    name: str
    description: str
    weight_points: Mapping[str, float]
    constraints: Constraints

    def weights(self) -> Weights:
        return Weights(values=dict(self.weight_points))


#: The four presets of the issue. Weights are points out of 100 (judgements, shown to the user and
#: editable); constraints encode what the scenario cannot compromise on.
PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            "Sovereign training cluster",
            "Multi-node training that must stay in EU data centres under EU-controlled providers, over "
            "InfiniBand; then interconnect and price.",
            {
                "price_eur_per_gpu_hour": 20, "intra_node_score": 15, "inter_node_fabric_score": 10,
                "inter_node_bandwidth_gbps_per_gpu": 15, "memory_bandwidth_tbps": 10,
                "allowed_downtime_hours_per_year": 5, "support_score": 5, "performance_sla_score": 5,
                "min_commitment_months": 5, "verification_score": 5, "data_age_days": 5,
            },
            Constraints(eu_resident_only=True, eu_jurisdiction_only=True, infiniband_only=True),
        ),
        Preset(
            "Cheapest inference",
            "Single-node inference where price dominates; memory bandwidth bounds decode speed "
            "(domain-model section 2); short commitments.",
            {
                "price_eur_per_gpu_hour": 55, "memory_bandwidth_tbps": 15, "allowed_downtime_hours_per_year": 10,
                "min_commitment_months": 10, "verification_score": 5, "data_age_days": 5,
            },
            Constraints(),
        ),
        Preset(
            "Start-up burst capacity",
            "Capacity on demand without long contracts: burst capacity, no minimum commitment, price.",
            {
                "burst_capacity_score": 25, "min_commitment_months": 25, "price_eur_per_gpu_hour": 25,
                "support_score": 5, "allowed_downtime_hours_per_year": 5, "verification_score": 5,
                "data_age_days": 10,
            },
            Constraints(),
        ),
        Preset(
            "Regulated enterprise",
            "EU data centres under EU-controlled providers; SLAs, support depth and trustworthy data "
            "before price.",
            {
                "allowed_downtime_hours_per_year": 20, "performance_sla_score": 10, "support_score": 20,
                "verification_score": 10, "data_age_days": 10, "price_eur_per_gpu_hour": 15,
                "min_commitment_months": 5, "memory_bandwidth_tbps": 5, "intra_node_score": 5,
            },
            Constraints(eu_resident_only=True, eu_jurisdiction_only=True),
        ),
    )
}
