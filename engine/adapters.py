"""The catalog -> engine boundary: catalog rows (pandas frames from :mod:`catalog`, or lists of dicts) become the
arrays and models the engine's kernels take. The only engine module that reads frames (by duck typing; pandas is
imported lazily where a frame is built), so the kernels stay pure numpy.

* Scoring: :func:`build_decision_matrix` (:class:`engine.scoring.DecisionMatrix`).
* Placement: :func:`venues_from_offers` (:class:`engine.placement.Venues`), kept in :mod:`engine.adapters_placement`
  and re-exported here.
* Workload: :func:`offer_arrays_from_records`, :func:`offer_arrays_from_frame` (:class:`engine.workload.OfferArrays`).
* Price outliers: :func:`price_outlier_columns`, :func:`outlier_in` (flags of :func:`engine.outliers.flag_outliers`).
* Offer scope: :func:`is_marketplace`.

Import rule (``tests/test_import_graph.py``): no other engine module imports this one; ``ui``, pages and tests do.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from engine import network
from engine.adapters_placement import (  # venues_from_offers re-exported: one import path for callers
    NOT_COMMITTABLE_NOTE,
    is_commitment_basis,
    uncommittable_reasons,
    venues_from_offers,
)
from engine.assumptions import is_missing
from engine.outliers import PRICE_TYPES, flag_column, flag_outliers, outlier_reason_text, reason_column
from engine.scoring.matrix import (
    CRITERIA,
    INTER_NODE_SCORE,
    INTRA_NODE_SCORE,
    JURISDICTION_SCORE,
    MEMORY_TYPE_SCORE,
    MIN_COMMITMENT_MONTHS,
    NOT_STATED,
    SUPPORT_SCORE,
    VERIFICATION_SCORE,
    YES_NO_SCORE,
    DecisionMatrix,
    PriceBasis,
    bool_or_none,
)
from engine.units import DECIMAL_BYTES_PER_GB, HBM_BYTES_PER_GB, HOURS_PER_YEAR
from engine.workload.data import GRID_INTENSITY_G_PER_KWH_BY_COUNTRY
from engine.workload.offers import OfferArrays

if TYPE_CHECKING:  # pandas only in annotations here; frames are read by duck typing
    import pandas as pd

__all__ = [
    "build_decision_matrix",
    "venues_from_offers",
    "offer_arrays_from_records",
    "offer_arrays_from_frame",
    "price_outlier_columns",
    "outlier_in",
    "is_marketplace",
    "is_single_host_listing",
]


# ---------------------------------------------------------------------------------------------------
# Scoring: decision matrix
# ---------------------------------------------------------------------------------------------------


def _category_scores(values: Sequence[object], mapping: Mapping[str, float], column: str) -> np.ndarray:
    """Map category strings to numbers; missing or 'unknown' -> NaN; an unmapped category raises."""
    out = np.full(len(values), np.nan)
    unknown: set[str] = set()
    for i, v in enumerate(values):
        if is_missing(v) or str(v).strip() in NOT_STATED:
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
    return np.array([np.nan if is_missing(v) else float(v) for v in values], dtype=float)  # type: ignore[arg-type]


def _date_lower_bound(value: object) -> dt.date | None:
    """Earliest day a date-like value can mean (``"2026"`` -> 2026-01-01, ``"2026-10"`` -> 2026-10-01)."""
    if is_missing(value):
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
    >>> from engine.scoring import CRITERION_NAMES
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
    to_dict = getattr(offers, "to_dict", None)  # a pandas DataFrame (read by duck typing)
    records: list[Mapping[str, Any]] = (
        list(to_dict("records")) if callable(to_dict) else list(cast(Iterable[Mapping[str, Any]], offers)))
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
            if bool_or_none(r.get(flag_key)):
                outlier[i] = True
                outlier_reason[i] = "; ".join(t for t in (outlier_reason[i], str(r.get(reason_key) or "")) if t)
    _flag_uncommittable(records, _PRICE_COLUMNS[basis], outlier, outlier_reason)

    inter_node = col("inter_node")
    fabric_none = np.array([(not is_missing(v)) and str(v) == "none" for v in inter_node], dtype=bool)
    inter_bw = _float_column(col("inter_node_bandwidth_gbps_per_gpu"))
    inter_bw = np.where(fabric_none & np.isnan(inter_bw), 0.0, inter_bw)

    uptime_pct = _float_column(col("uptime_sla_pct"))
    downtime_h = (100.0 - uptime_pct) / 100.0 * HOURS_PER_YEAR

    eu_dc = [bool_or_none(v) for v in col("is_eu_datacenter")]
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
        return None if is_missing(v) or str(v).strip() in NOT_STATED else str(v).strip()

    ids = tuple(str(r.get(id_column, i)) for i, r in enumerate(records))
    labels = tuple(
        " · ".join(str(r[c]) for c in label_columns if not is_missing(r.get(c))) or ids[i]
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
# Workload: offer arrays
# ---------------------------------------------------------------------------------------------------


_ALIASES: dict[str, tuple[str, ...]] = {
    "price": ("price_eur_per_gpu_hour", "best_selected_eur_per_gpu_hour", "on_demand_eur_per_gpu_hour"),
    "bf16": ("bf16_dense_tflops", "bf16_tflops"),
    "fp8": ("fp8_dense_tflops", "fp8_tflops"),
    "memory": ("memory_gb",),
    "memory_type": ("memory_type",),
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


#: Decimal GB (1e9 bytes, the engine's unit) per "GB" of HBM as datasheets state it (binary: :mod:`engine.units`).
HBM_BYTES_PER_NOMINAL_GB = HBM_BYTES_PER_GB / DECIMAL_BYTES_PER_GB


def hbm_bytes_factor(memory_types: Sequence[object] | None, n: int) -> np.ndarray:
    """Decimal GB per datasheet GB of each offer: 2^30 / 1e9 for HBM (binary), 1 otherwise or when not stated.

    Examples
    --------
    >>> hbm_bytes_factor(["HBM3", "GDDR6", None], 3).round(4).tolist()
    [1.0737, 1.0, 1.0]
    """
    if memory_types is None:
        return np.ones(n)
    return np.array([HBM_BYTES_PER_NOMINAL_GB if isinstance(t, str) and t.upper().startswith("HBM") else 1.0
                     for t in memory_types])


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
        memory_gb=num("memory") * hbm_bytes_factor(_column(columns, "memory_type"), n),
        memory_bandwidth_tbps=num("bandwidth"),
        tdp_watts=num("tdp"),
        gpus_per_node=num("gpn"),
        intra_node_kind=intra_kind,
        intra_bandwidth_gb_per_s=network.intra_node_busbw_gb_per_s(intra_kind, num("nvlink"), use_nvls),
        intra_nvls_bandwidth_gb_per_s=network.nvls_busbw_gb_per_s(intra_kind, num("nvlink")), inter_node_kind=inter_kind,
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
    ``fp8_dense_tflops`` (empty = no FP8); ``memory_gb`` (with ``memory_type``: HBM sizes are binary, :func:`hbm_bytes_factor`); ``memory_bandwidth_tbps``; ``tdp_watts``;
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


# ---------------------------------------------------------------------------------------------------
# Price outliers: flag columns of a catalog frame
# ---------------------------------------------------------------------------------------------------


def price_outlier_columns(offers: pd.DataFrame, *, group_column: str = "gpu_model",
                          dedupe_column: str = "provider_id") -> pd.DataFrame:
    """The flags of every price type for the offers frame (prices in EUR per GPU-hour), same index.

    Columns: ``<type>_is_outlier`` (bool) and ``<type>_outlier_reason`` (text or None) for each column of
    :data:`PRICE_TYPES` present in ``offers``, then ``price_outlier`` (any price of the row flagged) and
    ``price_outlier_reason`` (the reasons joined with "; ", None when none).

    Judge the whole catalog, then narrow: a filter must not change which prices are outliers.
    """
    import pandas as pd

    out = pd.DataFrame(index=offers.index)
    groups = offers[group_column].tolist() if group_column in offers else [None] * len(offers)
    dedupe = offers[dedupe_column].tolist() if dedupe_column in offers else None
    any_flag = np.zeros(len(offers), dtype=bool)
    reasons: list[list[str]] = [[] for _ in range(len(offers))]
    for price_type, column in PRICE_TYPES.items():
        if column not in offers:
            continue
        prices = pd.to_numeric(offers[column], errors="coerce").to_numpy(dtype=float)
        r = flag_outliers(prices, groups, dedupe)
        texts = [
            outlier_reason_text(price_type, str(groups[i]), r.ratio_to_median[i], r.modified_z[i], int(r.group_size[i]))
            if r.is_outlier[i] else None
            for i in range(len(offers))
        ]
        out[flag_column(column)] = r.is_outlier
        out[reason_column(column)] = pd.Series(texts, index=offers.index, dtype=object)
        any_flag |= r.is_outlier
        for i in np.flatnonzero(r.is_outlier):
            reasons[i].append(str(texts[i]))
    out["price_outlier"] = any_flag
    out["price_outlier_reason"] = pd.Series(["; ".join(r) if r else None for r in reasons], index=offers.index,
                                            dtype=object)
    return out


def outlier_in(offers: pd.DataFrame, price_columns: Sequence[str]) -> tuple[np.ndarray, list[str | None]]:
    """Whether any of ``price_columns`` of each row is flagged, and the reason (None when not).

    Reads the columns :func:`price_outlier_columns` adds; a frame without them has no flags. Used for a
    price basis built from several types (e.g. "cheapest stated").
    """
    n = len(offers)
    flagged = np.zeros(n, dtype=bool)
    reasons: list[list[str]] = [[] for _ in range(n)]
    for column in price_columns:
        fc, rc = flag_column(column), reason_column(column)
        if fc not in offers:
            continue
        f = offers[fc].fillna(False).to_numpy(dtype=bool)
        flagged |= f
        texts = offers[rc].tolist()
        for i in np.flatnonzero(f):
            reasons[i].append(str(texts[i]))
    joined: list[str | None] = ["; ".join(r) if r else None for r in reasons]
    _flag_uncommittable(offers, price_columns, flagged, joined)
    return flagged, joined


def _flag_uncommittable(offers: Any, price_columns: Sequence[str], flagged: np.ndarray,
                        reasons: list[str | None]) -> None:
    """On a basis of committed prices only (Scoring, Workload: issue #29.4), a row with a stale price or unstated
    fabric/memory is flagged like a price outlier, so it is left out unless the user opts in to outliers."""
    if not is_commitment_basis(price_columns):
        return
    for i, why in enumerate(uncommittable_reasons(offers)):
        if why:
            flagged[i] = True
            reasons[i] = "; ".join(t for t in (reasons[i], NOT_COMMITTABLE_NOTE.format(why=why)) if t)


# ---------------------------------------------------------------------------------------------------
# Offer scope
# ---------------------------------------------------------------------------------------------------


_MARKETPLACE = re.compile(r"\b(community|marketplace)\b", re.IGNORECASE)


def is_marketplace(offers: pd.DataFrame) -> np.ndarray:
    """Offers sold by third-party hosts at host-set hourly prices (RunPod Community Cloud, Vast.ai's
    marketplace): the seed names the segment in ``region`` (the catalog has no field for it). No
    commitment (reserved capacity) can be bought on them.

    >>> import pandas as pd
    >>> is_marketplace(pd.DataFrame({"region": ["Community Cloud (global)", "marketplace (global)", "fr-par-2", None]})).tolist()
    [True, True, False, False]
    """
    return np.asarray([isinstance(r, str) and bool(_MARKETPLACE.search(r)) for r in offers["region"].tolist()],
                      dtype=bool)


_SINGLE_HOST = re.compile(r"\bmarketplace host\b", re.IGNORECASE)


def is_single_host_listing(offers: pd.DataFrame) -> np.ndarray:
    """Marketplace offers that are one host's listing on one day (the seed's Vast.ai "lowest listing" rows, region
    ``marketplace host in <country>``): a price observation, not capacity one can plan on; the listing is gone once
    someone rents that machine. The Placement page does not use them as venues (the marketplace median rows stay).

    >>> import pandas as pd
    >>> is_single_host_listing(pd.DataFrame({"region": ["marketplace host in France (FR)", "marketplace (global)", None]})).tolist()
    [True, False, False]
    """
    return np.asarray([isinstance(r, str) and bool(_SINGLE_HOST.search(r)) for r in offers["region"].tolist()],
                      dtype=bool)
