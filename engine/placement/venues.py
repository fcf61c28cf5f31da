"""Venues: the catalog offers GPUs can be placed on, one array per field.

Part of :mod:`engine.placement`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from engine.placement.defaults import COMMITMENT_REQUIRED

_TEXT_FIELDS = ("venue_id", "provider", "gpu_model", "jurisdiction", "min_commitment", "reserved_estimate_source")
_BOOL_FIELDS = ("has_infiniband", "has_nvlink", "is_eu_datacenter", "is_location_known", "reserved_is_estimated")


@dataclass(frozen=True)
class Venues:
    """Where GPUs can be placed: one catalog offer per venue, every field an array of shape ``(n_venues,)``.

    Attributes
    ----------
    venue_id, provider, gpu_model : numpy.ndarray of str
        Offer id (unique), provider name, GPU model.
    memory_gb : numpy.ndarray
        Memory per GPU [GB]; NaN = unknown (fails any memory requirement).
    has_infiniband, has_nvlink : numpy.ndarray of bool
        InfiniBand scale-out fabric / NVLink inside the node (unknown = False).
    is_eu_datacenter, is_location_known : numpy.ndarray of bool
        Data centre known to be in the EU; location stated at all. Unknown location is *not* EU.
    jurisdiction : numpy.ndarray of str
        Provider parent's jurisdiction: ``EU`` / ``US`` / ``UK`` / ``other``.
    on_demand_eur_per_gpu_hour, spot_eur_per_gpu_hour, reserved_eur_per_gpu_hour : numpy.ndarray
        Rates [EUR/GPU-h]; NaN = not offered.
    reserved_term_months : numpy.ndarray
        Term of the reserved rate [month]; NaN = not stated.
    reserved_is_estimated : numpy.ndarray of bool
        The reserved rate is on demand x (1 - Epoch discount), not a published price.
    capacity_gpus : numpy.ndarray
        Most GPUs the portfolio may commit here [GPU]; ``inf`` = unlimited / unknown.
    min_commitment : numpy.ndarray of str
        Catalog term ``none`` / ``monthly`` / ``annual`` / ``multi-year`` / ``unknown``; a required term
        (:data:`COMMITMENT_REQUIRED`) rules the venue out as a burst venue.
    min_commit_gpus : numpy.ndarray
        Smallest commitment a workload may hold here [GPU] (0 = none).
    reserved_estimate_source : numpy.ndarray of str
        Where an estimated reserved rate's discount comes from: ``"Epoch AI discount"``, ``"your assumed
        discount"``; ``""`` when the rate is not estimated.
    """

    venue_id: np.ndarray
    provider: np.ndarray
    gpu_model: np.ndarray
    memory_gb: np.ndarray
    has_infiniband: np.ndarray
    has_nvlink: np.ndarray
    is_eu_datacenter: np.ndarray
    is_location_known: np.ndarray
    jurisdiction: np.ndarray
    on_demand_eur_per_gpu_hour: np.ndarray
    spot_eur_per_gpu_hour: np.ndarray
    reserved_eur_per_gpu_hour: np.ndarray
    reserved_term_months: np.ndarray
    reserved_is_estimated: np.ndarray
    capacity_gpus: np.ndarray
    min_commitment: np.ndarray
    min_commit_gpus: np.ndarray
    reserved_estimate_source: np.ndarray = ""  # type: ignore[assignment]  # broadcast to (n_venues,)

    def __post_init__(self) -> None:
        n = len(np.atleast_1d(self.venue_id))
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _TEXT_FIELDS and isinstance(value, str):  # one text for every venue
                arr = np.full(n, value, dtype=object)
            elif f.name in _TEXT_FIELDS:
                arr = np.asarray(["" if v is None else str(v) for v in np.atleast_1d(value)], dtype=object)
            elif f.name in _BOOL_FIELDS:
                arr = np.asarray(value, dtype=bool)
            else:
                arr = np.asarray(value, dtype=float)
            if arr.ndim == 0:
                arr = np.full(n, arr.item(), dtype=arr.dtype)
            if arr.shape != (n,):
                raise ValueError(f"Venues.{f.name} has shape {arr.shape}, expected ({n},)")
            object.__setattr__(self, f.name, arr)
        if len(set(self.venue_id.tolist())) != n:
            raise ValueError("Venues.venue_id must be unique")
        if np.any(self.capacity_gpus < 0) or np.any(self.min_commit_gpus < 0):
            raise ValueError("capacity_gpus and min_commit_gpus must be >= 0")

    @classmethod
    def from_records(cls, records: Iterable[Mapping[str, Any]]) -> Venues:
        """Build from dicts keyed by the field names; missing keys take neutral defaults.

        Defaults: ``provider`` = venue id, unknown memory (NaN), no fabric flags, not EU (location unknown
        unless ``is_eu_datacenter`` is given), jurisdiction ``other``, no prices, unlimited capacity,
        ``min_commitment="none"``, ``min_commit_gpus=0``.

        Examples
        --------
        >>> v = Venues.from_records([{"venue_id": "a", "on_demand_eur_per_gpu_hour": 2.0},
        ...                          {"venue_id": "b", "reserved_eur_per_gpu_hour": 1.0, "capacity_gpus": 8}])
        >>> v.n_venues, v.commit_rate_eur_per_gpu_hour.tolist(), v.capacity_gpus.tolist()
        (2, [nan, 1.0], [inf, 8.0])
        """
        rows = list(records)
        nan = float("nan")
        defaults: dict[str, Any] = {
            "gpu_model": "", "memory_gb": nan, "has_infiniband": False, "has_nvlink": False,
            "is_eu_datacenter": False, "jurisdiction": "other", "on_demand_eur_per_gpu_hour": nan,
            "spot_eur_per_gpu_hour": nan, "reserved_eur_per_gpu_hour": nan, "reserved_term_months": nan,
            "reserved_is_estimated": False, "capacity_gpus": math.inf, "min_commitment": "none",
            "min_commit_gpus": 0.0, "reserved_estimate_source": "",
        }
        cols: dict[str, list[Any]] = {f.name: [] for f in fields(cls)}
        for row in rows:
            unknown = set(row) - set(cols)
            if unknown:
                raise ValueError(f"unknown venue field(s) {sorted(unknown)}")
            for name in cols:
                if name == "venue_id":
                    cols[name].append(row["venue_id"])
                elif name == "provider":
                    cols[name].append(row.get("provider", row["venue_id"]))
                elif name == "is_location_known":
                    cols[name].append(row.get("is_location_known", row.get("is_eu_datacenter") is not None))
                else:
                    value = row.get(name, defaults[name])
                    cols[name].append(defaults[name] if value is None else value)
        kwargs: dict[str, Any] = {k: np.asarray(v, dtype=object) if k in _TEXT_FIELDS else v for k, v in cols.items()}
        return cls(**kwargs)

    @property
    def n_venues(self) -> int:
        """Number of venues."""
        return int(self.venue_id.size)

    @property
    def requires_commitment(self) -> np.ndarray:
        """The venue cannot be used pay-as-you-go (minimum term monthly or longer), bool ``(n_venues,)``."""
        return np.isin(self.min_commitment, list(COMMITMENT_REQUIRED))

    @property
    def commit_rate_eur_per_gpu_hour(self) -> np.ndarray:
        """Rate of a committed GPU [EUR/GPU-h]: the reserved rate; for a venue that requires a commitment
        and lists only an hourly price, that price; else NaN (the venue sells no commitment)."""
        return np.where(np.isfinite(self.reserved_eur_per_gpu_hour), self.reserved_eur_per_gpu_hour,
                        np.where(self.requires_commitment, self.on_demand_eur_per_gpu_hour, np.nan))

    def with_on_demand_factor(self, factor: float) -> Venues:
        """Copy with every on-demand rate multiplied by ``factor`` (spot and reserved unchanged)."""
        return replace(self, on_demand_eur_per_gpu_hour=self.on_demand_eur_per_gpu_hour * float(factor))


