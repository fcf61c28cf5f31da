"""Workspace quotes on the pages (issue #29.7): one path into the offer frame, one toggle, and the privacy rule.

A quote lives in its client workspace (:mod:`catalog.storage.quotes`). While a workspace is open and "Include my
quotes" (sidebar) is on, Rent or own, Workload, Scoring and Placement see each current quote as one more row of
the offer frame (:func:`with_quotes`), next to the catalog's rows and labelled "Quote from X, dated" wherever an
offer is named (its ``provider_name`` is that label, so every picker, table, reason and export row shows it). Nothing of
a quote enters the public catalog, a share link, the address bar or a scenario's JSON file (:func:`for_sharing`);
another workspace or a visitor without the link never reads it, and every cached result keys on :func:`quotes_key`
(through :func:`catalog_key`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from catalog.quotes import StoredQuote
from domain.geography import EU_EEA_COUNTRY_CODES
from engine.money import DEFAULT_USD_PER_EUR

TOGGLE_KEY = "_include_quotes"
#: Session key of the open client workspace's link token (the Workshop opens it; its quotes are read with it).
WORKSPACE_KEY = "_workspace"
QUOTE_PREFIX = "quote:"
#: Columns of the offer frame the placement venues read (contract with issue #29's venues part).
CONTRACT_COLUMNS = ("capacity_gpus", "lead_time_days", "is_dedicated", "price_origin", "quote_label")
#: Offer columns that describe the provider (copied onto a quote's row from any catalog row of that provider).
_PROVIDER_COLUMNS = ("provider_id", "provider_name", "parent_jurisdiction", "eu_data_residency", "hq_country",
                     "legal_seat_country", "certifications", "uptime_sla_pct", "performance_sla", "support_model",
                     "min_commitment", "burst_capacity", "parent_company")
#: GPU spec columns (copied from a catalog row of the same GPU model and form factor).
_SPEC_COLUMNS = ("gpu_spec_id", "form_factor", "memory_gb", "memory_type", "memory_bandwidth_tbps", "bf16_dense_tflops",
                 "fp8_dense_tflops", "tdp_watts", "nvlink_bandwidth_gb_per_s_bidirectional", "mig_max_instances",
                 "intra_node", "mig_supported")
_PRICE_COLUMNS = ("on_demand_eur_per_gpu_hour", "spot_eur_per_gpu_hour", "reserved_eur_per_gpu_hour",
                  "quote_eur_per_gpu_hour", "reserved_term_months", "reserved_1y_eur_per_gpu_hour",
                  "reserved_3y_eur_per_gpu_hour", "best_selected_eur_per_gpu_hour")


def quote_offer_id(quote_id: int) -> str:
    return f"{QUOTE_PREFIX}{int(quote_id)}"


def is_quote_id(offer_id: object) -> bool:
    return isinstance(offer_id, str) and offer_id.startswith(QUOTE_PREFIX)


def _template(frame: pd.DataFrame, stored: StoredQuote) -> dict:
    """The catalog row a quote starts from: its catalog offer, else a row of the same provider (provider facts)
    and of the same GPU model and form factor (spec sheet); empty where the catalog has none."""
    q = stored.quote
    if q.offer_id and "offer_id" in frame and (frame["offer_id"] == q.offer_id).any():
        return frame.loc[frame["offer_id"] == q.offer_id].iloc[0].to_dict()
    row: dict = {}
    if q.provider_id and "provider_id" in frame:
        same = frame[frame["provider_id"] == q.provider_id]
        if len(same):
            row.update({c: same.iloc[0][c] for c in _PROVIDER_COLUMNS if c in same})
    if "gpu_model" in frame:
        gpu = frame[frame["gpu_model"] == q.gpu_model]
        if q.form_factor and "form_factor" in gpu:
            gpu = gpu[gpu["form_factor"] == q.form_factor]
        if len(gpu):
            row.update({c: gpu.iloc[0][c] for c in _SPEC_COLUMNS if c in gpu})
    return row


def quote_row(frame: pd.DataFrame, stored: StoredQuote, usd_per_eur: float, today: dt.date) -> dict[str, Any]:
    """One offer-frame row for a quote: the catalog's facts where the quote states nothing, the quote's price as
    the offer's on-demand price (no term) or committed price (with its term), the contract columns."""
    q = stored.quote
    row: dict[str, Any] = {c: None for c in frame.columns}
    row.update({c: np.nan for c in _PRICE_COLUMNS})
    row.update(_template(frame, stored))
    price_eur = q.price_per_gpu_hour if q.currency == "EUR" else q.price_per_gpu_hour / usd_per_eur
    country = q.datacenter_country or row.get("datacenter_country")
    label = q.label
    row.update({
        "offer_id": quote_offer_id(stored.quote_id), "provider_name": label,
        "provider_id": q.provider_id or row.get("provider_id") or f"quote-{stored.quote_id}",
        "gpu_model": q.gpu_model or row.get("gpu_model"), "gpus_per_node": q.gpus_per_node or row.get("gpus_per_node"),
        "inter_node": q.inter_node or row.get("inter_node"), "datacenter_country": country,
        "is_eu_datacenter": bool(country in EU_EEA_COUNTRY_CODES) if country else None,
        "region": country or "country not stated",
        "best_selected_eur_per_gpu_hour": price_eur, "price_types": ["reserved" if q.term_months else "on-demand"],
        "native_currency": q.currency, "price_retrieved_at": q.quote_date.isoformat(),
        "on_demand_is_private": False, "has_private_price": False,
        "source_url": None, "as_of": q.quote_date.isoformat(), "as_of_date": q.quote_date,
        "verification_status": "claimed", "verification_label": label, "verification_current": False,
        "is_stale": False, "notes": q.note, "instance_type": None, "last_seen": None,
        "price_origin": "quote", "quote_label": label, "quote_valid_until": q.valid_until,
        "capacity_gpus": float(q.capacity_gpus) if q.capacity_gpus else np.nan,
        "lead_time_days": float(q.lead_time_days) if q.lead_time_days is not None else np.nan,
        # the quote's own statement; else the catalog offer it is on (same hardware) with that offer's source
        "is_dedicated": q.is_dedicated if q.is_dedicated is not None else row.get("is_dedicated"),
    })
    if q.is_dedicated is not None:  # the catalog offer's source does not vouch for what the quote states
        row.update(dedicated_source_url=None, dedicated_as_of=None)
    for column, value in (("uptime_sla_pct", q.uptime_sla_pct), ("performance_sla", q.performance_sla),
                          ("support_model", q.support_model), ("min_commitment", q.min_commitment)):
        if value is not None and value != "unknown":
            row[column] = value
    if q.term_months:
        row.update(reserved_eur_per_gpu_hour=price_eur, reserved_term_months=float(q.term_months))
        if q.term_months in (12, 36):
            row[f"reserved_{q.term_months // 12}y_eur_per_gpu_hour"] = price_eur
    else:
        row["on_demand_eur_per_gpu_hour"] = price_eur
    for column in frame.columns:  # a quote is judged by the consultant, not flagged as a catalog price outlier
        if column.endswith("_is_outlier") or column == "price_outlier":
            row[column] = False
    return row


def with_quotes(frame: pd.DataFrame, quotes: list[StoredQuote], include: bool, *,
                usd_per_eur: float = DEFAULT_USD_PER_EUR, today: dt.date | None = None) -> pd.DataFrame:
    """``frame`` (ui.catalog.offers_frame) plus one row per current quote when ``include``; expired quotes (valid
    until before ``today``) are left out. The contract columns (``capacity_gpus``, ``lead_time_days``,
    ``is_dedicated``, ``price_origin``, ``quote_label``) are present either way: NaN/None/"catalog"/"" on catalog
    rows. ``frame`` itself is not changed."""
    today = today or dt.date.today()
    out = frame.copy()
    for column, empty in (("capacity_gpus", np.nan), ("lead_time_days", np.nan), ("is_dedicated", None),
                          ("price_origin", "catalog"), ("quote_label", ""), ("quote_valid_until", None)):
        if column not in out:
            out[column] = pd.Series([empty] * len(out), index=out.index, dtype=float if empty is not None
                                    and not isinstance(empty, str) else object)
    current = [s for s in quotes if not s.quote.is_expired(today)] if include else []
    if not current:
        return out
    rows = pd.DataFrame([quote_row(out, s, usd_per_eur, today) for s in current], columns=out.columns)
    merged = pd.concat([out, rows.astype({c: out[c].dtype for c in out.columns if out[c].dtype.kind in "fiu"
                                          and rows[c].notna().all()}, errors="ignore")], ignore_index=True)
    for column in ("capacity_gpus", "lead_time_days", *_PRICE_COLUMNS):
        if column in merged:
            merged[column] = pd.to_numeric(merged[column], errors="coerce")
    return merged


# --------------------------------------------------------------------------------------------------
# The session: which quotes, the toggle, cache keys
# --------------------------------------------------------------------------------------------------


def _workspace_token() -> str | None:
    return st.session_state.get(WORKSPACE_KEY)


def workspace_quotes() -> list[StoredQuote]:
    """The open workspace's quotes (none without a valid workspace link)."""
    token = _workspace_token()
    if not token:
        return []
    from ui.catalog import get_store

    return get_store().list_quotes(token)


def included() -> bool:
    return bool(st.session_state.get(TOGGLE_KEY, True)) and bool(_workspace_token())


def session_quotes() -> list[StoredQuote]:
    """The quotes this session's pages use: the open workspace's current quotes, when "Include my quotes" is on."""
    return workspace_quotes() if included() else []


def quotes_key() -> str:
    """What the session's quotes add to every cache key (:func:`catalog_key`): '' without quotes, else a digest
    of them. Two workspaces, or a session with and one without quotes, never share a cached result."""
    quotes = [s for s in session_quotes() if not s.quote.is_expired()]
    if not quotes:
        return ""
    text = "|".join(f"{s.quote_id}:{s.quote.model_dump_json()}" for s in quotes)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def catalog_key(usd_per_eur: float) -> tuple:
    """The cache key of anything computed from :func:`offers_with_quotes`: catalog file and version, FX rate, whether
    the session's prices include private quotes, the workspace quotes it includes (:func:`quotes_key`), and the date
    (last: pages read the reference date from ``key[-1]``)."""
    from ui.catalog import data_version, get_store, uses_private_prices

    store = get_store()
    return (str(store.path), data_version(), usd_per_eur, uses_private_prices(), quotes_key(), dt.date.today())


def offers_with_quotes(usd_per_eur: float) -> pd.DataFrame:
    """The offer frame of Rent or own, Workload, Scoring and Placement: the catalog plus this session's quotes."""
    from ui.catalog import offers

    frame, quotes = offers(None, usd_per_eur), session_quotes()
    if any(not s.quote.is_expired() for s in quotes):
        return with_quotes(frame, quotes, included(), usd_per_eur=usd_per_eur)
    # No current quote: the catalog with the empty contract columns, one frame per catalog key (with_quotes copies
    # the whole frame; #31). Callers get a shallow copy: with pandas' copy-on-write their changes stay theirs.
    return _catalog_without_quotes(frame, catalog_key(usd_per_eur)).copy(deep=False)


@st.cache_resource(ttl=600, max_entries=64, show_spinner=False)
def _catalog_without_quotes(_frame: pd.DataFrame, key: tuple) -> pd.DataFrame:
    return with_quotes(_frame, [], False)


def draw_toggle() -> None:
    """Sidebar, only while a workspace with quotes is open: the one switch for every page."""
    token = _workspace_token()
    if not token:
        return
    try:
        quotes = workspace_quotes()
    except Exception:  # an invalid token is reported on the Workshop page; the sidebar stays quiet
        return
    if not quotes:
        return
    st.session_state.setdefault(TOGGLE_KEY, True)
    st.toggle("Include my quotes", key=TOGGLE_KEY,
              help="Use this workspace's quotes on Rent or own, Workload, Scoring and Placement, next to the catalog's "
                   "prices and labelled \u201cQuote from …, date\u201d. Share links and JSON files never carry them.")
    expired = sum(s.quote.is_expired() for s in quotes)
    st.caption(f"{len(quotes) - expired} current quote(s) in this workspace"
               + (f"; {expired} expired, left out" if expired else "") + ".")


# --------------------------------------------------------------------------------------------------
# Privacy: what leaves the workspace
# --------------------------------------------------------------------------------------------------


def for_sharing(scenario):
    """``scenario`` without any value taken from a workspace quote (share link, address bar, JSON file): the Rent
    or own page's on-demand price and committed price picked from a quote go back to the defaults. A saved scenario
    in the workspace keeps them (it stays in the workspace)."""
    from engine.tco import TcoInputs

    tco = scenario.tco
    update: dict = {}
    inputs = tco.inputs
    if is_quote_id(tco.on_demand_offer_id):
        default = TcoInputs.model_fields["price_on_demand_eur_per_gpu_hour"].default
        inputs = inputs.model_copy(update={"price_on_demand_eur_per_gpu_hour": default})
        update["on_demand_offer_id"] = None
    if is_quote_id(tco.reserved_price_id):
        inputs = inputs.model_copy(update={"price_reserved_eur_per_gpu_hour": None, "reserved_term_months": None})
        update.update(reserved_origin=None, reserved_price_id=None)
    if not update:
        return scenario
    return scenario.model_copy(update={"tco": tco.model_copy(update={**update, "inputs": inputs})})


def quote_terms(frame: pd.DataFrame, offer_id: str) -> str:
    """What a quote used on a page assumes, in words: "Quote from Acme, 2026-11-20: capacity 64 GPUs, lead time 90
    days, dedicated hardware, valid until 2026-12-20." (unstated items say so)."""
    rows = frame[frame["offer_id"] == offer_id] if "offer_id" in frame else frame.iloc[0:0]
    if not len(rows):
        return ""
    r = rows.iloc[0]
    capacity = "not stated" if pd.isna(r.get("capacity_gpus")) else f"{r['capacity_gpus']:,.0f} GPUs"
    lead = "not stated" if pd.isna(r.get("lead_time_days")) else f"{r['lead_time_days']:,.0f} days"
    hardware: dict[object, str] = {True: "dedicated hardware", False: "shared hardware"}  # None/NaN: not stated
    dedicated = hardware.get(r.get("is_dedicated"), "hardware not stated")
    return (f"{r['quote_label']}: capacity {capacity}, lead time {lead}, {dedicated}, valid until "
            f"{r['quote_valid_until']}.")


def committed_quotes(frame: pd.DataFrame, offer_id: str | None) -> pd.DataFrame:
    """The committed prices of the session's quotes for the Rent-or-own page, in the shape of
    :func:`ui.tco_view.committed_prices` (``price_id`` is the quote's offer id) plus ``quote_label``: quotes of the
    chosen offer's GPU model (every quote while no offer is chosen)."""
    columns = ["price_id", "term_months", "upfront_pct", "amount_eur_per_gpu_hour", "retrieved_at", "quote_label"]
    if "price_origin" not in frame:
        return pd.DataFrame(columns=columns)
    used = ["offer_id", "gpu_model", "reserved_term_months", "reserved_eur_per_gpu_hour", "price_retrieved_at",
            "quote_label"]  # only these columns: row selections of the whole offers frame copy every column
    quotes = frame.loc[(frame["price_origin"] == "quote") & frame["reserved_eur_per_gpu_hour"].notna(), used]
    chosen = frame.loc[frame["offer_id"] == offer_id, "gpu_model"]
    if len(chosen) and not is_quote_id(offer_id):
        quotes = quotes[quotes["gpu_model"] == chosen.iloc[0]]
    elif is_quote_id(offer_id):
        quotes = quotes[quotes["offer_id"] == offer_id]
    return pd.DataFrame({"price_id": quotes["offer_id"], "term_months": quotes["reserved_term_months"],
                         "upfront_pct": np.nan, "amount_eur_per_gpu_hour": quotes["reserved_eur_per_gpu_hour"],
                         "retrieved_at": quotes["price_retrieved_at"], "quote_label": quotes["quote_label"]},
                        columns=columns).reset_index(drop=True)
