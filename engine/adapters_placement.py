"""The catalog -> engine boundary for placement: offer rows (catalog offers and workspace quotes, one frame)
become :class:`engine.placement.Venues`. Split from :mod:`engine.adapters` (which re-exports
:func:`venues_from_offers`); frames are read by duck typing, pandas is never imported here.

Optional offer-frame columns read here (absent = not stated): ``capacity_gpus`` (float, NaN = not stated),
``lead_time_days`` (float, NaN = not stated), ``is_dedicated`` (True / False / None = not stated),
``is_stale`` (the catalog's staleness flag of the offer's price), ``price_origin`` (``"catalog"`` /
``"quote"``).

Import rule (``tests/test_import_graph.py``): no other engine module imports this one; ``engine.adapters``,
``ui``, pages and tests do.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any, Literal, cast

import numpy as np

from engine.assumptions import is_missing
from engine.placement.defaults import EPOCH_COMMITMENT_DISCOUNT_FRACTION
from engine.placement.venues import Venues

__all__ = ["venues_from_offers", "uncommittable_reasons", "is_commitment_basis", "MULTI_YEAR_PRICE_COLUMNS",
           "NOT_COMMITTABLE_NOTE"]


def _col(offers: Any, name: str, default: Any = None) -> list[Any]:
    if name not in offers.columns:
        return [default] * len(offers)
    return [default if is_missing(v) else v for v in offers[name].tolist()]


def _num(offers: Any, name: str) -> np.ndarray:
    return np.asarray([np.nan if v is None else float(v) for v in _col(offers, name)], dtype=float)


#: Price columns of a multi-year (or any-term) commitment: a basis made only of these is a commitment.
MULTI_YEAR_PRICE_COLUMNS = ("reserved_eur_per_gpu_hour", "reserved_3y_eur_per_gpu_hour")
#: Why such a price is left out, appended to the row's reasons (the opt-in is the price-outlier one).
NOT_COMMITTABLE_NOTE = "no multi-year commitment on an offer with a {why} (opt in with 'Use price outliers')"


def uncommittable_reasons(offers: Any) -> list[str]:
    """Per offer row, why a commitment there is not offered by default (``""`` = none): the price the commitment
    would be made at is stale (older than the catalog's staleness limit, judged per price type:
    :func:`_commitment_price_is_stale`) or the fabric between nodes or the memory is not stated. Quote rows are
    judged the same way. ``offers``: a frame or a list of dicts.

    Examples
    --------
    >>> uncommittable_reasons([{"is_stale": False, "inter_node": "InfiniBand-NDR", "memory_gb": 80.0},
    ...                        {"is_stale": True, "inter_node": "Ethernet", "memory_gb": 80.0},
    ...                        {"is_stale": False, "inter_node": None, "memory_gb": 80.0}])
    ['', 'stale price', 'fabric not stated']
    >>> uncommittable_reasons([{"is_stale": True, "reserved_eur_per_gpu_hour": 2.0, "reserved_is_stale": False,
    ...                         "inter_node": "InfiniBand-NDR", "memory_gb": 80.0}])  # the reserved price is fresh
    ['']
    """
    to_dict = getattr(offers, "to_dict", None)
    records = list(to_dict("records")) if callable(to_dict) else list(offers)
    out = []
    for r in records:
        stale, fabric, memory = _commitment_price_is_stale(r), r.get("inter_node"), r.get("memory_gb")
        checks = (("stale price", not is_missing(stale) and bool(stale)),
                  ("fabric not stated", is_missing(fabric) or str(fabric).strip().lower() in ("", "unknown",
                                                                                             "not stated")),
                  ("memory not stated", is_missing(memory)))
        out.append(", ".join(w for w, bad in checks if bad))
    return out


def _commitment_price_is_stale(row: Mapping[str, Any]) -> Any:
    """Staleness per price type (issue #29.4): a commitment is judged on the price it is made at. With a reserved
    price, that price's own retrieval (``reserved_is_stale``); without one, the on-demand price the commitment is
    priced from (a venue that requires a term, or a rate estimated from a discount: ``on_demand_is_stale``); where a
    frame has neither column (a quote row), the offer's own ``is_stale``."""
    reserved = row.get("reserved_eur_per_gpu_hour")
    has_reserved = not is_missing(reserved) and math.isfinite(float(cast(float, reserved)))  # a number when stated
    for key in (("reserved_is_stale",) if has_reserved else ()) + ("on_demand_is_stale",):
        if key in row and not is_missing(row[key]):
            return row[key]
    return row.get("is_stale")


def is_commitment_basis(price_columns: Any) -> bool:
    """Whether a page's price basis is made only of multi-year (or any-term) committed prices."""
    cols = tuple(price_columns)
    return bool(cols) and all(c in MULTI_YEAR_PRICE_COLUMNS for c in cols)


def venues_from_offers(
    offers: Any,
    *,
    capacity_gpus: Mapping[str, float] | None = None,
    min_commit_gpus: Mapping[str, float] | None = None,
    commitment_term_years: Literal[1, 3] | None = None,
    other_provider_discount_fraction: float | None = None,
    no_estimate_offer_ids: Collection[str] = (),
    commit_on_stale_or_unknown: bool = False,
    marketplace_host_offer_ids: Collection[str] = (),
) -> Venues:
    """Build :class:`Venues` from the offers frame (``CatalogStore.list_offers``, with any quote rows).

    Parameters
    ----------
    offers : pandas.DataFrame
        Columns used: ``offer_id``, ``provider_id``, ``provider_name``, ``gpu_model``, ``memory_gb``,
        ``intra_node``, ``inter_node``, ``is_eu_datacenter`` (bool/NA), ``parent_jurisdiction``,
        ``min_commitment``, ``on_demand_eur_per_gpu_hour``, ``spot_eur_per_gpu_hour``,
        ``reserved_eur_per_gpu_hour``, ``reserved_term_months`` (prices already in EUR); optional
        ``capacity_gpus``, ``lead_time_days``, ``is_dedicated``, ``is_stale`` (module docstring).
    capacity_gpus : mapping of offer_id to float, optional
        The user's cap on GPUs the portfolio may commit per venue [GPU]; it lowers a stated capacity, never
        raises it. Offers with neither are unlimited (capacity not stated).
    min_commit_gpus : mapping of offer_id to float, optional
        Smallest commitment per workload [GPU]; others 0.
    commitment_term_years : {1, 3}, optional
        When given, a missing reserved rate of AWS, Google Cloud, Azure or Lambda is estimated as on demand
        x (1 - Epoch DEFAULT_CUD discount) for that term (:data:`EPOCH_COMMITMENT_DISCOUNT_FRACTION`) and
        flagged ``reserved_is_estimated``.
    other_provider_discount_fraction : float, optional
        With ``commitment_term_years``, the discount assumed for every other provider [-] (user
        assumption; default: no estimate for them).
    no_estimate_offer_ids : collection of str, optional
        Offers whose missing reserved rate is never estimated: marketplace (community) rows, whose hosts
        set hourly prices and sell no commitment (:func:`engine.scope.is_marketplace`).
    commit_on_stale_or_unknown : bool
        Default False (fail closed): offers with a reason in :func:`uncommittable_reasons` take no commitment
        (``is_committable`` False). True only when the user opts in, as for price outliers.
    marketplace_host_offer_ids : collection of str, optional
        Offers sold by third-party hosts on a marketplace (``is_marketplace_host``): used only by
        interruption-tolerant or development workloads (:class:`engine.placement.Venues`). The caller leaves it
        empty when the user opts in to marketplace hosts for every workload.

    Returns
    -------
    Venues
        One venue per offer row, in frame order. ``InfiniBand*`` fabrics set ``has_infiniband``;
        ``NVLink*`` intra-node links set ``has_nvlink``; an NA ``is_eu_datacenter`` is not EU;
        ``is_dedicated`` True / False / missing gives tenancy ``dedicated`` / ``shared`` / ``not stated``.
    """
    capacity_gpus = capacity_gpus or {}
    min_commit_gpus = min_commit_gpus or {}
    ids = [str(v) for v in _col(offers, "offer_id")]
    provider_ids = [str(v or "").lower() for v in _col(offers, "provider_id", "")]
    eu_raw = _col(offers, "is_eu_datacenter")
    on_demand = _num(offers, "on_demand_eur_per_gpu_hour")
    reserved = _num(offers, "reserved_eur_per_gpu_hour")
    term = _num(offers, "reserved_term_months")
    estimated = np.zeros(len(ids), dtype=bool)
    if commitment_term_years is not None:
        disc = np.asarray([
            EPOCH_COMMITMENT_DISCOUNT_FRACTION.get(p, {}).get(
                commitment_term_years,
                np.nan if other_provider_discount_fraction is None else other_provider_discount_fraction)
            for p in provider_ids], dtype=float)
        no_estimate = np.isin(np.asarray(ids, dtype=object), list(no_estimate_offer_ids))
        estimated = ~np.isfinite(reserved) & np.isfinite(on_demand) & np.isfinite(disc) & ~no_estimate
        reserved = np.where(estimated, on_demand * (1.0 - disc), reserved)
        term = np.where(estimated, 12.0 * commitment_term_years, term)
        by_epoch = np.asarray([p in EPOCH_COMMITMENT_DISCOUNT_FRACTION for p in provider_ids], dtype=bool)
        source = np.where(estimated, np.where(by_epoch, "Epoch AI discount", "your assumed discount"), "")
    else:
        source = np.full(len(ids), "")
    stated = np.nan_to_num(_num(offers, "capacity_gpus"), nan=math.inf)
    cap = np.minimum(stated, [float(capacity_gpus.get(i, math.inf)) for i in ids])
    dedicated = _col(offers, "is_dedicated")
    tenancy = ["not stated" if v is None else "dedicated" if bool(v) else "shared" for v in dedicated]
    committable = np.ones(len(ids), dtype=bool) if commit_on_stale_or_unknown else np.asarray(
        [r == "" for r in uncommittable_reasons(offers)], dtype=bool)
    return Venues(
        venue_id=np.asarray(ids, dtype=object),
        provider=np.asarray([str(v) for v in _col(offers, "provider_name", "")], dtype=object),
        gpu_model=np.asarray([str(v) for v in _col(offers, "gpu_model", "")], dtype=object),
        memory_gb=_num(offers, "memory_gb"),
        has_infiniband=np.asarray([str(v or "").lower().startswith("infiniband") for v in _col(offers, "inter_node")]),
        has_nvlink=np.asarray([str(v or "").lower().startswith("nvlink") for v in _col(offers, "intra_node")]),
        is_eu_datacenter=np.asarray([v is not None and bool(v) for v in eu_raw]),
        is_location_known=np.asarray([v is not None for v in eu_raw]),
        jurisdiction=np.asarray([str(v or "other") for v in _col(offers, "parent_jurisdiction")], dtype=object),
        on_demand_eur_per_gpu_hour=on_demand,
        spot_eur_per_gpu_hour=_num(offers, "spot_eur_per_gpu_hour"),
        reserved_eur_per_gpu_hour=reserved,
        reserved_term_months=term,
        reserved_is_estimated=estimated,
        capacity_gpus=cap,
        min_commitment=np.asarray([str(v or "unknown") for v in _col(offers, "min_commitment")], dtype=object),
        min_commit_gpus=np.asarray([float(min_commit_gpus.get(i, 0.0)) for i in ids]),
        reserved_estimate_source=np.asarray(source, dtype=object),
        lead_time_days=_num(offers, "lead_time_days"),
        tenancy=np.asarray(tenancy, dtype=object),
        is_committable=committable,
        is_marketplace_host=np.isin(np.asarray(ids, dtype=object), list(marketplace_host_offer_ids)),
    )
