"""Per-offer inputs of the workload kernels (:class:`OfferArrays`, one array per field) and how catalog rows
become them.

Part of :mod:`engine.workload`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from engine.network import InterNodeKind, IntraNodeKind
from engine.workload.data import GRID_INTENSITY_G_PER_KWH_BY_COUNTRY


@dataclass(frozen=True)
class OfferArrays:
    """Per-offer inputs, each a float (or int code) array of shape ``(n_offers,)``; NaN = unknown.

    Build it once per catalog read (:func:`engine.adapters.offer_arrays_from_records`). The engine reads these
    arrays only; it never converts currency or units: prices are in ``currency`` (ISO 4217 code, default EUR) and
    every money output of a result is in the same currency.
    """

    price_per_gpu_hour: np.ndarray  # in `currency`; NaN = not stated
    bf16_tflops: np.ndarray
    fp8_tflops: np.ndarray  # NaN = no FP8 support
    memory_gb: np.ndarray
    memory_bandwidth_tbps: np.ndarray
    tdp_watts: np.ndarray
    gpus_per_node: np.ndarray  # NaN = not stated
    intra_node_kind: np.ndarray  # IntraNodeKind codes
    intra_bandwidth_gb_per_s: np.ndarray  # all-reduce bus bandwidth inside the node
    inter_node_kind: np.ndarray  # InterNodeKind codes
    inter_bandwidth_gbit_per_s_per_gpu: np.ndarray  # Gbit/s (node NIC bandwidth / GPUs per node), NaN = not stated
    grid_intensity_g_per_kwh: np.ndarray  # gCO2e/kWh, NaN = unknown
    mig_max_instances: np.ndarray  # 0 or NaN = no MIG
    currency: str = "EUR"

    def __post_init__(self) -> None:
        if not (isinstance(self.currency, str) and len(self.currency) == 3 and self.currency.isalpha()
                and self.currency.isupper()):
            raise ValueError(f"currency must be an ISO 4217 code such as 'EUR' or 'USD', got {self.currency!r}")
        shape = np.shape(self.price_per_gpu_hour)
        for name in self.__dataclass_fields__:
            if name == "currency":
                continue
            is_code = name.endswith("_kind")
            arr = np.asarray(getattr(self, name), dtype=np.int8 if is_code else float)
            if arr.ndim == 0:
                arr = np.full(shape, arr.item(), dtype=arr.dtype)
            if arr.shape != shape:
                raise ValueError(f"OfferArrays.{name} has shape {arr.shape}, expected {shape}")
            object.__setattr__(self, name, arr)
        # One meaning for "not stated": an unknown interconnect has no bandwidth.
        unknown = self.intra_node_kind == IntraNodeKind.UNKNOWN
        if np.any(unknown & ~np.isnan(self.intra_bandwidth_gb_per_s)):
            object.__setattr__(self, "intra_bandwidth_gb_per_s",
                               np.where(unknown, np.nan, self.intra_bandwidth_gb_per_s))
        # Catalog-only masks, computed once per catalog instead of once per priced workload.
        spec_missing = np.isnan(self.bf16_tflops) | np.isnan(self.memory_gb)
        object.__setattr__(self, "_masks", OfferMasks(
            spec_missing_training=spec_missing,
            spec_missing_inference=spec_missing | np.isnan(self.memory_bandwidth_tbps),
            gpus_per_node_missing=np.isnan(self.gpus_per_node),
            intra_missing=np.isnan(self.intra_bandwidth_gb_per_s),
            has_nvlink_bridge=bool(np.any(self.intra_node_kind == IntraNodeKind.NVLINK_BRIDGE)),
            inter_none=self.inter_node_kind == InterNodeKind.NONE,
            inter_kind_missing=self.inter_node_kind == InterNodeKind.UNKNOWN,
            inter_bandwidth_missing=np.isnan(self.inter_bandwidth_gbit_per_s_per_gpu),
        ))
        # Distinct (memory, GPUs per node) pairs: the parallel layout depends on these only, so it is chosen once
        # per pair instead of once per offer (a catalog has a few dozen pairs for 100,000 offers).
        key = np.stack([np.nan_to_num(self.memory_gb, nan=-1.0), np.nan_to_num(self.gpus_per_node, nan=-1.0)])
        pairs, inverse = np.unique(key, axis=1, return_inverse=True) if key.shape[1] else (key, np.zeros(0, int))
        object.__setattr__(self, "_shape_pairs", (pairs, np.asarray(inverse).reshape(-1)))

    @property
    def n_offers(self) -> int:
        """Number of offers."""
        return int(np.size(self.price_per_gpu_hour))

    @property
    def price_eur_per_gpu_hour(self) -> np.ndarray:
        """The prices when they are in EUR (raises otherwise: the engine never converts currency)."""
        if self.currency != "EUR":
            raise ValueError(f"prices are in {self.currency}, not EUR; use price_per_gpu_hour")
        return self.price_per_gpu_hour

    @property
    def inter_bandwidth_gbps_per_gpu(self) -> np.ndarray:
        """Alias of :attr:`inter_bandwidth_gbit_per_s_per_gpu` [Gbit/s] (older name)."""
        return self.inter_bandwidth_gbit_per_s_per_gpu

    @property
    def shape_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Distinct (memory_gb, gpus_per_node) pairs (2 x k, NaN stored as -1) and each offer's pair index."""
        return self._shape_pairs  # type: ignore[attr-defined]

    @property
    def masks(self) -> OfferMasks:
        """Missing-value and fabric masks of this catalog (computed at construction)."""
        return self._masks  # type: ignore[attr-defined]

    def columns(self) -> dict[str, np.ndarray]:
        """The field arrays by name (for copies: ``OfferArrays(**{**o.columns(), "memory_gb": ...})``)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__ if name != "currency"}

    def take(self, index: npt.ArrayLike | slice) -> OfferArrays:
        """The offers at ``index`` (a slice, integer or boolean array), as new arrays."""
        idx = index if isinstance(index, slice) else np.asarray(index)
        return OfferArrays(**{name: np.asarray(arr[idx]) for name, arr in self.columns().items()},
                           currency=self.currency)


class OfferMasks(NamedTuple):
    """Per-offer boolean masks that depend on the catalog only (see :attr:`OfferArrays.masks`)."""

    spec_missing_training: np.ndarray
    spec_missing_inference: np.ndarray
    gpus_per_node_missing: np.ndarray
    intra_missing: np.ndarray
    has_nvlink_bridge: bool
    inter_none: np.ndarray
    inter_kind_missing: np.ndarray
    inter_bandwidth_missing: np.ndarray


def grid_intensity_g_per_kwh(
    country_codes: Sequence[object], overrides: Mapping[str, float] | None = None
) -> np.ndarray:
    """Grid intensity for ISO alpha-2 codes from the sourced table plus user ``overrides`` [gCO2e/kWh].

    Examples
    --------
    >>> grid_intensity_g_per_kwh(["FR", "SE", "XX", None], overrides={"SE": 40.0}).tolist()
    [67.39, 40.0, nan, nan]
    """
    table = {**GRID_INTENSITY_G_PER_KWH_BY_COUNTRY, **(overrides or {})}
    return np.array([table.get(c, math.nan) if isinstance(c, str) else math.nan for c in country_codes])
