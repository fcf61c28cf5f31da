"""Hard constraints of the scoring engine: validated :class:`Constraints` and :func:`apply_constraints`,
which filters before ranking and gives every excluded offer its reasons (a fact not stated never passes).

Part of :mod:`engine.scoring`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from domain.geography import EU_EEA_COUNTRY_CODES
from engine.assumptions import is_missing
from engine.scoring.matrix import NOT_STATED, DecisionMatrix, bool_or_none


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
        n = int(attrs.shape[0])
    elif any(first[a] in attrs for a in active):
        n = len(column(next(first[a] for a in active if first[a] in attrs)))
    else:
        n = len(next(iter(attrs.values()), []))
    why: list[list[str]] = [[] for _ in range(n)]
    if constraints.eu_resident_only:
        for i, v in enumerate(column("is_eu_datacenter")):
            flag = bool_or_none(v)
            if flag is None:
                why[i].append("EU data centre: not stated")
            elif not flag:
                why[i].append("EU data centre: no (outside the EU/EEA)")
    if constraints.eu_jurisdiction_only:
        for i, v in enumerate(column("parent_jurisdiction")):
            if is_missing(v) or str(v).strip() in NOT_STATED:
                why[i].append("parent jurisdiction: not stated")
            elif str(v).strip() != "EU":
                why[i].append(f"parent jurisdiction: {v}, not EU")
    if constraints.infiniband_only:
        for i, v in enumerate(column("inter_node")):
            if is_missing(v) or str(v).strip() in NOT_STATED:
                why[i].append("inter-node fabric: not stated")
            elif not str(v).startswith("InfiniBand"):
                why[i].append(f"inter-node fabric: {v}, not InfiniBand")
    if constraints.sxm_only:
        for i, v in enumerate(column("form_factor")):
            if is_missing(v) or str(v).strip() in NOT_STATED:
                why[i].append("form factor: not stated")
            elif str(v).strip() != "SXM":
                why[i].append(f"form factor: {v}, not SXM")
    if constraints.max_price_eur_per_gpu_hour is not None:
        cap = constraints.max_price_eur_per_gpu_hour
        for i, v in enumerate(column(price_key)):
            if is_missing(v):
                why[i].append("price: not stated")
            elif not float(v) <= cap:  # type: ignore[arg-type]
                why[i].append(f"price {float(v):.2f} EUR/GPU-h above the maximum {cap:.2f}")  # type: ignore[arg-type]
    if constraints.eu_legal_seat_only:
        for i, v in enumerate(column("legal_seat_country")):
            if is_missing(v) or str(v).strip() in NOT_STATED:
                why[i].append("legal seat: not stated")
            elif str(v).strip() not in EU_EEA_COUNTRY_CODES:
                why[i].append(f"legal seat: {v}, outside the EU/EEA")
    if constraints.required_certifications:
        for i, v in enumerate(column("certifications")):
            held = set() if is_missing(v) else {t.strip() for t in str(v).split(";") if t.strip()}
            lacking = [c for c in constraints.required_certifications if c not in held]
            if lacking and not held:
                why[i].append("certifications: none on record")
            elif lacking:
                why[i].append("certifications: " + ", ".join(lacking) + " not on record")
    if constraints.gpu_models:
        for i, v in enumerate(column("gpu_model")):
            if is_missing(v) or str(v).strip() in NOT_STATED:
                why[i].append("GPU model: not stated")
            elif str(v).strip() not in constraints.gpu_models:
                why[i].append(f"GPU class: {v}, not {' or '.join(constraints.gpu_models)}")
    if constraints.min_memory_gb_per_gpu is not None:
        floor = constraints.min_memory_gb_per_gpu
        for i, v in enumerate(column("memory_gb")):
            if is_missing(v):
                why[i].append("memory per GPU: not stated")
            elif not float(v) >= floor - 1e-9:  # type: ignore[arg-type]
                why[i].append(f"memory {float(v):g} GB per GPU, below the {floor:.0f} GB needed")  # type: ignore[arg-type]
    if constraints.exclude_price_outliers and outlier_key in attrs:
        texts = column(outlier_reason_key) if outlier_reason_key in attrs else [None] * n
        for i, v in enumerate(column(outlier_key)):
            if bool_or_none(v):
                why[i].append(str(texts[i]) if not is_missing(texts[i]) and texts[i] else "price outlier")
    keep = np.array([not w for w in why], dtype=bool)
    return keep, {i: tuple(w) for i, w in enumerate(why) if w}
