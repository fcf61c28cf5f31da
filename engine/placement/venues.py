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

_TEXT_FIELDS = ("venue_id", "provider", "gpu_model", "jurisdiction", "min_commitment", "reserved_estimate_source",
                "tenancy")
_BOOL_FIELDS = ("has_infiniband", "has_nvlink", "is_eu_datacenter", "is_location_known", "reserved_is_estimated",
                "is_committable", "is_marketplace_host")
#: Days in an average month [d] = 730 h / 24 (:data:`engine.tco.HOURS_PER_MONTH`).
DAYS_PER_MONTH = 730.0 / 24.0
#: ``tenancy`` values: dedicated (single-tenant, managed) hardware, shared/virtualised, the client's own cluster,
#: or not stated by any source.
TENANCIES = ("dedicated", "shared", "owned", "not stated")


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
    lead_time_days : numpy.ndarray
        Days from signing until the venue's committed capacity is usable [d]; NaN = not stated (taken as 0:
        usable from the first month, and the plan says so). Before it has passed the venue holds no
        committed GPUs (:meth:`usable_from_month`).
    tenancy : numpy.ndarray of str
        One of :data:`TENANCIES` (default ``"not stated"``).
    is_committable : numpy.ndarray of bool
        A commitment may be placed here (default True); False for an offer whose price is stale or whose
        fabric/specs are not stated, unless the user opted in (:func:`engine.adapters.venues_from_offers`).
    is_marketplace_host : numpy.ndarray of bool
        Sold by third-party hosts at host-set prices (a marketplace or community cloud; default False): no uptime
        SLA, and the machine behind a listing can be gone once someone else rents it or its host leaves. Only
        workloads that tolerate interruptions, or development work, are placed there
        (:mod:`engine.placement.eligibility`) unless the user opts in. Seed guide (docs/gpu-cloud-computing-guide.txt, l. 33): "For production AI workloads, that
        distinction [uptime vs performance SLA] changes the risk profile of the entire deployment"; l. 43:
        "Development and prototyping typically use lower-cost GPU tiers".
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
    lead_time_days: np.ndarray = np.nan  # type: ignore[assignment]
    tenancy: np.ndarray = "not stated"  # type: ignore[assignment]
    is_committable: np.ndarray = True  # type: ignore[assignment]
    is_marketplace_host: np.ndarray = False  # type: ignore[assignment]

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
        if np.any(self.lead_time_days < 0) or np.any(np.isinf(self.lead_time_days)):
            raise ValueError("lead_time_days must be finite and >= 0 (NaN = not stated)")
        if not set(self.tenancy.tolist()) <= set(TENANCIES):
            raise ValueError(f"tenancy must be one of {TENANCIES}")

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
            "min_commit_gpus": 0.0, "reserved_estimate_source": "", "lead_time_days": nan,
            "tenancy": "not stated", "is_committable": True, "is_marketplace_host": False,
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

    def usable_from_month(self, horizon_months: int) -> np.ndarray:
        """First month (0-based) in which the venue's committed capacity is usable, int ``(n_venues,)``.

        ``ceil(lead_time_days / DAYS_PER_MONTH)``; a lead time not stated counts as 0; capped at
        ``horizon_months`` (never usable within the horizon).

        Examples
        --------
        >>> v = Venues.from_records([{"venue_id": "a"}, {"venue_id": "b", "lead_time_days": 91},
        ...                          {"venue_id": "c", "lead_time_days": 5000}])
        >>> v.usable_from_month(36).tolist()
        [0, 3, 36]
        """
        days = np.nan_to_num(self.lead_time_days, nan=0.0)
        months = np.ceil(np.round(days / DAYS_PER_MONTH, 9)).astype(np.int64)
        return np.minimum(months, int(horizon_months))

    def available_fraction(self, horizon_months: int) -> np.ndarray:
        """Share of the horizon in which committed capacity is usable, ``(M - start) / M`` [-], ``(n_venues,)``."""
        m = int(horizon_months)
        return (m - self.usable_from_month(m)) / m

    def subset(self, mask: np.ndarray) -> Venues:
        """The venues where ``mask`` (bool ``(n_venues,)``) is True, in order."""
        keep = np.asarray(mask, dtype=bool)
        return replace(self, **{f.name: getattr(self, f.name)[keep] for f in fields(self)})

    def without_commitments(self) -> Venues:
        """Copy in which no venue sells committed capacity (pay-as-you-go rates only; venues that require
        a commitment keep no price): the burst side of a strategy."""
        return replace(self, reserved_eur_per_gpu_hour=np.full(self.n_venues, np.nan),
                       on_demand_eur_per_gpu_hour=np.where(self.requires_commitment, np.nan,
                                                           self.on_demand_eur_per_gpu_hour),
                       reserved_is_estimated=np.zeros(self.n_venues, dtype=bool),
                       is_committable=np.zeros(self.n_venues, dtype=bool))

    @classmethod
    def concat(cls, parts: Iterable[Venues]) -> Venues:
        """The venues of several sets, in order (ids must stay unique)."""
        ps = list(parts)
        return cls(**{f.name: np.concatenate([getattr(p, f.name) for p in ps]) for f in fields(cls)})

    def with_on_demand_factor(self, factor: float) -> Venues:
        """Copy with every on-demand rate multiplied by ``factor`` (spot and reserved unchanged)."""
        return replace(self, on_demand_eur_per_gpu_hour=self.on_demand_eur_per_gpu_hour * float(factor))


