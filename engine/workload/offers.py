"""Per-offer inputs of the workload kernels (:class:`OfferArrays`, one array per field) and how catalog rows
become them.

Part of :mod:`engine.workload`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from engine import network
from engine.network import InterNodeKind, IntraNodeKind
from engine.workload.data import GRID_INTENSITY_G_PER_KWH_BY_COUNTRY


@dataclass(frozen=True)
class OfferArrays:
    """Per-offer inputs, each a float (or int code) array of shape ``(n_offers,)``; NaN = unknown.

    Build it once per catalog read (:func:`offer_arrays_from_records`). The engine reads these
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
        return self._shape_pairs  # type: ignore[attr-defined, no-any-return]

    @property
    def masks(self) -> OfferMasks:
        """Missing-value and fabric masks of this catalog (computed at construction)."""
        return self._masks  # type: ignore[attr-defined, no-any-return]

    def columns(self) -> dict[str, np.ndarray]:
        """The field arrays by name (for copies: ``OfferArrays(**{**o.columns(), "memory_gb": ...})``)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__ if name != "currency"}

    def take(self, index: npt.ArrayLike | slice) -> OfferArrays:
        """The offers at ``index`` (a slice, integer or boolean array), as new arrays."""
        return OfferArrays(**{name: np.asarray(arr[index]) for name, arr in self.columns().items()},
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


_ALIASES: dict[str, tuple[str, ...]] = {
    "price": ("price_eur_per_gpu_hour", "best_selected_eur_per_gpu_hour", "on_demand_eur_per_gpu_hour"),
    "bf16": ("bf16_dense_tflops", "bf16_tflops"),
    "fp8": ("fp8_dense_tflops", "fp8_tflops"),
    "memory": ("memory_gb",),
    "bandwidth": ("memory_bandwidth_tbps",),
    "tdp": ("tdp_watts",),
    "gpn": ("gpus_per_node",),
    "intra": ("intra_node",),
    "inter": ("inter_node",),
    "inter_bw": ("inter_node_gbps_per_gpu", "inter_node_bandwidth_gbps_per_gpu", "inter_bandwidth_gbps_per_gpu",
                 "inter_bandwidth_gbit_per_s_per_gpu", "inter_node_gbit_per_s_per_gpu"),
    "nvlink": ("nvlink_gbps_bidirectional", "nvlink_bandwidth_gb_per_s_bidirectional"),
    "mig": ("mig_max_instances",),
    "grid": ("grid_intensity_g_per_kwh",),
    "country": ("datacenter_country", "country_code", "country"),
}


def _to_float(values: Iterable[object]) -> np.ndarray:
    out = []
    for v in values:
        try:
            out.append(float(v) if v is not None and v != "" else math.nan)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            out.append(math.nan)
    return np.array(out, dtype=float)


def _column(columns: Mapping[str, Sequence[object]], key: str) -> Sequence[object] | None:
    for alias in _ALIASES[key]:
        if alias in columns:
            return columns[alias]
    return None


def _offer_arrays_from_columns(
    columns: Mapping[str, Sequence[object]],
    n: int,
    *,
    usd_per_eur: float | None = None,
    grid_intensity_by_country: Mapping[str, float] | None = None,
    use_nvls: bool = False,
    currency: str = "EUR",
) -> OfferArrays:
    nan = np.full(n, np.nan)

    def num(key: str) -> np.ndarray:
        col = _column(columns, key)
        return nan.copy() if col is None else _to_float(col)

    own = f"price_{currency.lower()}_per_gpu_hour"
    price_col = _column(columns, "price") if currency == "EUR" else columns.get(own)
    if price_col is not None:
        price = _to_float(price_col)
    elif "price_per_gpu_hour" in columns and "currency" in columns:
        # mixed currencies: rows in `currency` are taken as they are; EUR/USD rows are converted when a rate is
        # given; any other row has no price in `currency` (NaN, flagged as missing)
        amount = _to_float(columns["price_per_gpu_hour"])
        row_currency = np.asarray(columns["currency"], dtype=object)
        price = np.where(row_currency == currency, amount, np.nan)
        if usd_per_eur is not None and currency in ("EUR", "USD"):
            from engine.money import to_eur

            other = "USD" if currency == "EUR" else "EUR"
            is_other = row_currency == other
            eur = to_eur(amount, np.where(is_other, other, currency).astype(object), usd_per_eur)
            converted = eur if currency == "EUR" else eur * usd_per_eur
            price = np.where(is_other, converted, price)
    elif "price_per_gpu_hour" in columns:
        price = _to_float(columns["price_per_gpu_hour"])  # no currency column: taken to be in `currency`
    else:
        price = nan.copy()

    intra_col = _column(columns, "intra")
    inter_col = _column(columns, "inter")
    intra_kind = network.kind_codes(list(intra_col) if intra_col is not None else [None] * n,
                                    network.INTRA_NODE_KIND_BY_NAME)
    inter_kind = network.kind_codes(list(inter_col) if inter_col is not None else [None] * n,
                                    network.INTER_NODE_KIND_BY_NAME)

    grid = num("grid")
    country_col = _column(columns, "country")
    if country_col is not None:
        table = {**GRID_INTENSITY_G_PER_KWH_BY_COUNTRY, **(grid_intensity_by_country or {})}
        from_country = np.array([table.get(c, math.nan) if isinstance(c, str) else math.nan for c in country_col])
        grid = np.where(np.isnan(grid), from_country, grid)

    return OfferArrays(
        price_per_gpu_hour=price,
        bf16_tflops=num("bf16"),
        fp8_tflops=num("fp8"),
        memory_gb=num("memory"),
        memory_bandwidth_tbps=num("bandwidth"),
        tdp_watts=num("tdp"),
        gpus_per_node=num("gpn"),
        intra_node_kind=intra_kind,
        intra_bandwidth_gb_per_s=network.intra_node_busbw_gb_per_s(intra_kind, num("nvlink"), use_nvls),
        inter_node_kind=inter_kind,
        inter_bandwidth_gbit_per_s_per_gpu=num("inter_bw"),
        grid_intensity_g_per_kwh=grid,
        mig_max_instances=num("mig"),
        currency=currency,
    )


def offer_arrays_from_records(
    records: Sequence[Mapping[str, object]],
    *,
    usd_per_eur: float | None = None,
    grid_intensity_by_country: Mapping[str, float] | None = None,
    use_nvls: bool = False,
    currency: str = "EUR",
) -> OfferArrays:
    """Build :class:`OfferArrays` from offer rows already joined with their GPU spec.

    Columns read (first alias found; a missing column gives NaN / "not stated"):
    price in ``currency`` — for EUR ``price_eur_per_gpu_hour`` | ``best_selected_eur_per_gpu_hour`` |
    ``on_demand_eur_per_gpu_hour``, for another currency ``price_<cur>_per_gpu_hour`` — or ``price_per_gpu_hour`` +
    a per-row ``currency`` (rows in another currency converted EUR<->USD with :func:`engine.money.to_eur` when
    ``usd_per_eur`` is given, otherwise NaN); ``bf16_dense_tflops``;
    ``fp8_dense_tflops`` (empty = no FP8); ``memory_gb``; ``memory_bandwidth_tbps``; ``tdp_watts``;
    ``gpus_per_node``; ``intra_node``; ``inter_node``; ``inter_node_gbps_per_gpu`` |
    ``inter_node_bandwidth_gbps_per_gpu``; ``nvlink_gbps_bidirectional`` |
    ``nvlink_bandwidth_gb_per_s_bidirectional`` (GB/s); ``mig_max_instances``;
    ``grid_intensity_g_per_kwh``, else ``datacenter_country`` | ``country_code`` looked up in
    :data:`GRID_INTENSITY_G_PER_KWH_BY_COUNTRY` updated with ``grid_intensity_by_country``.

    Examples
    --------
    >>> o = offer_arrays_from_records([
    ...     {"price_eur_per_gpu_hour": 2.5, "bf16_dense_tflops": 989.5, "fp8_dense_tflops": 1979,
    ...      "memory_gb": 80, "memory_bandwidth_tbps": 3.35, "tdp_watts": 700, "gpus_per_node": 8,
    ...      "intra_node": "NVLink-NVSwitch", "inter_node": "InfiniBand-NDR", "inter_node_gbps_per_gpu": 400,
    ...      "nvlink_gbps_bidirectional": 900, "mig_max_instances": 7, "datacenter_country": "FI"},
    ...     {"price_eur_per_gpu_hour": "", "bf16_dense_tflops": 312, "fp8_dense_tflops": "", "memory_gb": 80,
    ...      "gpus_per_node": "", "intra_node": "", "inter_node": ""},
    ... ])
    >>> o.intra_bandwidth_gb_per_s.round(1).tolist(), o.grid_intensity_g_per_kwh.tolist()
    ([370.0, nan], [145.541, nan])
    """
    n = len(records)
    keys: set[str] = set()
    for r in records:
        keys.update(r.keys())
    columns = {k: [r.get(k) for r in records] for k in keys}
    return _offer_arrays_from_columns(columns, n, usd_per_eur=usd_per_eur,
                                      grid_intensity_by_country=grid_intensity_by_country, use_nvls=use_nvls,
                                      currency=currency)


def offer_arrays_from_frame(frame: Any, **kwargs: Any) -> OfferArrays:
    """:func:`offer_arrays_from_records` for a pandas DataFrame (pandas is used only here, by duck typing)."""
    columns = {str(c): frame[c].tolist() for c in frame.columns}
    return _offer_arrays_from_columns(columns, len(frame), **kwargs)


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
