"""Decision matrix of the scoring engine: the criteria (unit, objective, documented category -> number
mappings), validated weights and the offers x criteria matrix.

Part of :mod:`engine.scoring`; the pipeline and the references [n] are in its docstring.
"""

from __future__ import annotations

import datetime as dt
import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.assumptions import is_missing

if TYPE_CHECKING:  # pandas is imported lazily, only by the boundary builder
    pass



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


def bool_or_none(value: object) -> bool | None:
    """A catalog flag as True/False; missing or unreadable text (not yes/no/true/false/1/0) as None."""
    if is_missing(value):
        return None
    if isinstance(value, str):
        s = value.strip().lower()
        if s in ("true", "yes", "1"):
            return True
        if s in ("false", "no", "0"):
            return False
        return None
    return bool(value)


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
