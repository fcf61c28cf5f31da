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
    #: All-reduce bus bandwidth with NVLink SHARP inside the node [GB/s]; NaN where the node has none (only
    #: NVSwitch systems of NVLink 4 or later, see :func:`engine.adapters.offer_arrays_from_records`).
    intra_nvls_bandwidth_gb_per_s: np.ndarray | float = math.nan

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
        # Offers that share every column a training step time depends on (memory, node shape, peak FLOP/s,
        # interconnects) share their fastest layout: the layout search runs once per group (a catalog of 100,000
        # offers has a few hundred to a few thousand groups), see engine.workload.layout.
        object.__setattr__(self, "_layout_groups", group_rows([getattr(self, f) for f in LAYOUT_COLUMNS]))

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
    def layout_groups(self) -> tuple[np.ndarray, np.ndarray]:
        """(index of one offer per group, each offer's group) over :data:`LAYOUT_COLUMNS`."""
        return self._layout_groups  # type: ignore[attr-defined]

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


#: The columns a training step time depends on (besides the job): offers equal on all of them share a layout.
LAYOUT_COLUMNS = ("memory_gb", "gpus_per_node", "bf16_tflops", "fp8_tflops", "intra_node_kind",
                  "intra_bandwidth_gb_per_s", "intra_nvls_bandwidth_gb_per_s", "inter_node_kind",
                  "inter_bandwidth_gbit_per_s_per_gpu")


def group_rows(columns: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(first index of each distinct row, each row's group) of equal-length columns; NaN equals NaN.

    Each column is coded by its distinct values, the codes are combined into one integer per row (mixed radix) and
    the integers grouped: a handful of 1-D sorts instead of a lexicographic sort of rows.

    Examples
    --------
    >>> first, inverse = group_rows([np.array([1.0, 2.0, 1.0, np.nan, np.nan]), np.array([0, 0, 0, 1, 1])])
    >>> first.tolist(), inverse.tolist()
    ([0, 1, 3], [0, 1, 0, 2, 2])
    """
    n = int(np.size(columns[0])) if columns else 0
    if n == 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    key = np.zeros(n, dtype=np.int64)
    radix = 1
    for col in columns:
        arr = np.asarray(col, dtype=float)
        _, codes = np.unique(np.where(np.isnan(arr), np.inf, arr), return_inverse=True)
        size = int(codes.max()) + 1
        if radix * size >= 2**62:  # too many distinct combinations for one integer: regroup what we have so far
            _, key = np.unique(key, return_inverse=True)
            radix = int(key.max()) + 1
        key = key * size + codes.reshape(-1)
        radix *= size
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first.astype(np.intp), inverse.reshape(-1).astype(np.intp)


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
