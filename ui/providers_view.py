"""Widgets and table configuration of the Providers page (kept here so the page stays thin)."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from catalog.models import FormFactor, InterNode, IntraNode, Jurisdiction, MemoryType, PriceType
from catalog.store import NOT_STATED, STALE_AFTER_DAYS, OfferFilter
from engine.money import to_eur
from ui import offer_scope
from ui.format import SYMBOL, age_days, age_label, eur_columns_to_display, money_column
from ui.labels import RESIDENCY_LABELS, hardware_text
from ui.scenario import DisplaySettings, ProvidersSection, update_scenario

PRICE_COLUMNS = ["on_demand_eur_per_gpu_hour", "spot_eur_per_gpu_hour", "reserved_eur_per_gpu_hour",
                 "reserved_1y_eur_per_gpu_hour", "reserved_3y_eur_per_gpu_hour", "quote_eur_per_gpu_hour"]
_FILTER_KEYS = ["prov_gpu", "prov_form", "prov_mem", "prov_intra", "prov_inter", "prov_ptype", "prov_eu",
                "prov_jur", "prov_provider", "prov_maxprice", "prov_seat", "prov_certs"]


def _values(enum) -> list[str]:
    return [e.value for e in enum]


#: Each filter widget's "no filter" value. Clearing sets these rather than dropping the keys, so the client
#: brief (which seeds the filters on a first visit) is not applied again: clearing is a visible override.
_CLEARED = {"prov_gpu": [], "prov_form": [], "prov_mem": [], "prov_intra": [], "prov_inter": [], "prov_ptype": [],
            "prov_eu": False, "prov_jur": [], "prov_provider": [], "prov_maxprice": None, "prov_seat": False,
            "prov_certs": []}


def clear_filters() -> None:
    for key in _FILTER_KEYS:
        st.session_state[key] = _CLEARED[key]


def filter_widgets(options: dict[str, list[str]], display: DisplaySettings) -> OfferFilter:
    """Draw the filters and return them as an :class:`OfferFilter` (prices converted to EUR)."""
    sym = SYMBOL[display.currency]
    with st.container(border=True):
        c1, c2, c3, c4 = st.columns(4)
        gpu = c1.multiselect("GPU model", options["gpu_models"], key="prov_gpu", placeholder="any")
        form = c1.multiselect("Form factor", _values(FormFactor) + [NOT_STATED], key="prov_form", placeholder="any")
        mem = c1.multiselect("Memory type", _values(MemoryType) + [NOT_STATED], key="prov_mem", placeholder="any")
        intra = c2.multiselect("Intra-node link", _values(IntraNode) + [NOT_STATED], key="prov_intra", placeholder="any")
        inter = c2.multiselect("Inter-node fabric", _values(InterNode) + [NOT_STATED], key="prov_inter",
                               placeholder="any", help="As documented for the instance family; 'not stated' keeps offers whose source says nothing.")
        ptype = c2.multiselect("Price model", [PriceType.ON_DEMAND.value, PriceType.SPOT.value, PriceType.RESERVED.value],
                               key="prov_ptype", placeholder="any")
        eu = c3.toggle("EU/EEA data centre only", key="prov_eu",
                       help="Keeps offers whose data-centre country is stated and in the EU/EEA. Unknown locations are left out.")
        jur = c3.multiselect("Provider's parent jurisdiction", _values(Jurisdiction), key="prov_jur", placeholder="any",
                             help="Where the ultimate parent is incorporated: a US-parented provider's EU region is still under US law.")
        names = provider_names()
        provider = c4.multiselect("Provider", sorted(options["providers"], key=lambda p: str(names.get(p, p)).lower()),
                                  format_func=lambda p: names.get(p, p), key="prov_provider", placeholder="any")
        max_price = c4.number_input(f"Max price ({sym} per GPU-hour)", min_value=0.0, value=None, step=0.1,
                                    key="prov_maxprice", placeholder="no limit",
                                    help="Applies to the cheapest price among the selected price models.")
        c3.toggle(RESIDENCY_LABELS["eu_legal_seat_only"], key="prov_seat",
                  help=offer_scope.RESIDENCY_HELP["eu_legal_seat_only"])
        c4.multiselect("Certifications (within their scope)", sorted(set(options.get("certifications", []))
                                                                      | set(st.session_state.get("prov_certs", []))),
                       key="prov_certs", placeholder="none required",
                       help="The provider holds every one of these and its scope covers GPU compute in the offer's "
                            "data-centre country, as Scoring and the brief count it.")
        c3.button("Clear filters", on_click=clear_filters, key="prov_clear")
    max_eur = None if max_price is None else float(to_eur(max_price, display.currency, display.usd_per_eur))
    return OfferFilter(
        gpu_models=tuple(gpu) or None, form_factors=tuple(form) or None, memory_types=tuple(mem) or None,
        intra_nodes=tuple(intra) or None, inter_nodes=tuple(inter) or None, price_types=tuple(ptype) or None,
        eu_datacenter_only=eu, jurisdictions=tuple(jur) or None, provider_ids=tuple(provider) or None,
        max_price_eur_per_gpu_hour=max_eur,
    )


def seat_and_certification_filter(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``frame`` meeting the legal-seat and certification filters (issue #27.3: the brief's C5 was not
    applied here), through the one filter implementation (certificates counted within their scope)."""
    from engine.scoring import Constraints

    constraints = Constraints(eu_legal_seat_only=bool(st.session_state.get("prov_seat", False)),
                              required_certifications=tuple(st.session_state.get("prov_certs", [])))
    if frame.empty or not constraints.active():
        return frame
    keep, _ = offer_scope.filter_offers(frame, constraints, ())
    return frame[keep].reset_index(drop=True)


def provider_names() -> dict[str, str]:
    """provider_id -> the provider's name, as the tables show it (the filter shows names, not ids)."""
    from ui.catalog import table

    providers = table("providers")
    return dict(zip(providers["provider_id"], providers["name"], strict=True))


#: Price model of the filter -> the column of the offers table that shows it.
_SORT_COLUMN = {PriceType.ON_DEMAND.value: ("on_demand_eur_per_gpu_hour", "on-demand price"),
                PriceType.SPOT.value: ("spot_eur_per_gpu_hour", "spot price"),
                PriceType.RESERVED.value: ("reserved_eur_per_gpu_hour", "reserved price")}


def sort_offers(df: pd.DataFrame, price_types: tuple[str, ...] | None) -> tuple[pd.DataFrame, str]:
    """The offers sorted by the price the table shows first (issue #27.6): the on-demand price, or, when the
    price-model filter leaves out on demand, the first price model it keeps. Offers without that price follow,
    by their cheapest price of the selected models. Returns the sorted frame and "sorted by ..." in words."""
    kept = [t for t in (PriceType.ON_DEMAND.value, PriceType.SPOT.value, PriceType.RESERVED.value)
            if not price_types or t in price_types]
    column, name = _SORT_COLUMN[kept[0] if kept else PriceType.ON_DEMAND.value]
    fallback = "best_selected_eur_per_gpu_hour" if "best_selected_eur_per_gpu_hour" in df.columns else column
    out = df.sort_values([column, fallback, "offer_id"], na_position="last", kind="stable")
    return out.reset_index(drop=True), f"sorted by {name}, cheapest first; offers without one last"


#: The columns of the offers table, in order.
OFFER_TABLE_COLUMNS = (
    "provider_name", "gpu_model", "form_factor", "gpus_per_node", "memory_gb", "memory_type", "intra_node",
    "inter_node", "inter_node_bandwidth_gbps_per_gpu", "hardware_tenancy", "on_demand_eur_per_gpu_hour", "spot_eur_per_gpu_hour",
    "reserved_eur_per_gpu_hour", "reserved_term_months", "reserved_1y_eur_per_gpu_hour",
    "reserved_3y_eur_per_gpu_hour", "quote_eur_per_gpu_hour", "native_currency", "region", "datacenter_country",
    "is_eu_datacenter", "parent_jurisdiction", "legal_seat_country", "certifications", "uptime_sla_pct",
    "verification_status", "as_of", "age", "flags", "price_outlier_reason", "source_url",
)


def offer_table(df: pd.DataFrame, display: DisplaySettings, today: dt.date | None = None) -> tuple[pd.DataFrame, dict]:
    """The offers frame prepared for ``st.dataframe`` and its column configuration."""
    # Only the columns the table shows or reads: the offers frame has about 60, copied whole on every rerun (#31).
    used = [c for c in dict.fromkeys([*OFFER_TABLE_COLUMNS, *PRICE_COLUMNS, "as_of_date"]) if c in df.columns]
    out = eur_columns_to_display(df[used], PRICE_COLUMNS, display)
    out["age"] = age_label(age_days(out["as_of_date"], today), STALE_AFTER_DAYS)
    out["certifications"] = out["certifications"].map(lambda v: v.replace(";", ", ") if v else "none found")
    # dedicated (single-tenant physical server) / shared / not stated, as the offer's own source says (#29 item 2)
    out["hardware_tenancy"] = [hardware_text(v) for v in df["is_dedicated"]] if "is_dedicated" in df else NOT_STATED
    for col in ["form_factor", "memory_type", "intra_node", "inter_node", "datacenter_country", "native_currency",
                "legal_seat_country", "region", "parent_jurisdiction"]:
        out[col] = out[col].astype("object").where(out[col].notna(), "not stated")
    out["flags"] = [offer_scope.flags_text(r, today) or "—" for r in offer_scope.row_records(df)]
    reason = df["price_outlier_reason"] if "price_outlier_reason" in df else pd.Series(None, index=df.index)
    out["price_outlier_reason"] = reason.astype("object").where(reason.notna(), "—")
    columns = list(OFFER_TABLE_COLUMNS)
    if out["quote_eur_per_gpu_hour"].isna().all():  # private quotes exist only for signed-in editors
        columns.remove("quote_eur_per_gpu_hour")
    config = {
        "provider_name": st.column_config.TextColumn("Provider", pinned=True),
        "gpu_model": st.column_config.TextColumn("GPU", pinned=True),
        "form_factor": st.column_config.TextColumn("Form"),
        "gpus_per_node": st.column_config.NumberColumn("GPUs/node", format="%d"),
        "memory_gb": st.column_config.NumberColumn("Memory", format="%d GB"),
        "memory_type": st.column_config.TextColumn("Mem. type"),
        "intra_node": st.column_config.TextColumn("Intra-node"),
        "inter_node": st.column_config.TextColumn("Inter-node"),
        "inter_node_bandwidth_gbps_per_gpu": st.column_config.NumberColumn("Gb/s per GPU", format="%g"),
        "hardware_tenancy": st.column_config.TextColumn("Hardware", help="dedicated (bare metal): a single-tenant physical "
                                                "server, as the offer's source states · shared: virtualised or "
                                                "shared hardware, as stated · not stated: no source says"),
        "on_demand_eur_per_gpu_hour": money_column("On-demand", display, "Cheapest current on-demand price per GPU-hour"),
        "spot_eur_per_gpu_hour": money_column("Spot", display, "Interruptible; can change at any time"),
        "reserved_eur_per_gpu_hour": money_column("Reserved", display, "Commitment price: never an on-demand rate"),
        "reserved_term_months": st.column_config.NumberColumn("Term (mo)", format="%d", help="not stated: the source states no term"),
        "reserved_1y_eur_per_gpu_hour": money_column("1-yr commit", display, "Cheapest current 1-year commitment price"),
        "reserved_3y_eur_per_gpu_hour": money_column("3-yr commit", display, "Cheapest current 3-year commitment price"),
        "quote_eur_per_gpu_hour": money_column("Your quote", display, "Negotiated private quote (editors only, until it expires)"),
        "native_currency": st.column_config.TextColumn("Listed in"),
        "region": st.column_config.TextColumn("Region"),
        "datacenter_country": st.column_config.TextColumn("DC country"),
        "is_eu_datacenter": st.column_config.CheckboxColumn("EU DC"),
        "parent_jurisdiction": st.column_config.TextColumn("Parent"),
        "legal_seat_country": st.column_config.TextColumn("Legal seat", help="Country of the registered office, from the provider's legal notice"),
        "certifications": st.column_config.TextColumn("Certifications"),
        "uptime_sla_pct": st.column_config.NumberColumn("Uptime SLA", format="%.2f%%"),
        "verification_status": st.column_config.TextColumn("Trust", help="claimed: secondary source · verified: provider page · benchmarked: measured"),
        "as_of": st.column_config.TextColumn("As of"),
        "age": st.column_config.TextColumn("Row age", help=f"Days since this offer row was observed (As of); ⚠ after "
                                     f"{STALE_AFTER_DAYS} days: re-verify the row. The price's own age is under Flags"),
        "flags": st.column_config.TextColumn("Flags", help="⚠ price outlier: far from every other price of this GPU "
                                             "model (left out of rankings and cheapest answers unless you include "
                                             f"outliers there) · ⚠ stale price: retrieved more than {STALE_AFTER_DAYS} days ago"),
        "price_outlier_reason": st.column_config.TextColumn("Why flagged", width="medium",
                                                            help=offer_scope.OUTLIER_HELP),
        "source_url": st.column_config.LinkColumn("Source", display_text="source ↗"),
    }
    for col in [*PRICE_COLUMNS, "reserved_term_months", "uptime_sla_pct", "gpus_per_node"]:
        config[col]["width"] = 92  # wide enough for the "not stated" of an empty cell
    return out[columns], config


#: Key of the comparison's offer picker (Providers page, "Compare offers" tab).
COMPARE_KEY = "prov_compare"


def keep_comparison_picks() -> None:
    """on_change of the comparison picker: its picks live in the scenario (#27.12), so they are kept while
    another tab is open, saved, and carried by a share link."""
    picks = tuple(st.session_state.get(COMPARE_KEY) or ())
    update_scenario(providers=ProvidersSection(compare_offer_ids=picks))


def comparison_options(df: pd.DataFrame) -> dict[str, str]:
    """offer_id → human label with GPUs per node, region and flags, for the comparison picker."""
    return dict(zip(df["offer_id"], offer_scope.picker_labels(df), strict=True))


def comparison_candidates(shown: pd.DataFrame, catalog: pd.DataFrame, saved: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """The offers the comparison can pick from: those the filters show, plus the scenario's saved picks that the
    filters hide (a share link's comparison is restored whatever the filters; the page names them). Returns the
    candidates and the saved offers outside the filters, in their saved order (ids no longer in the catalog are
    dropped)."""
    outside = [o for o in saved if o not in set(shown["offer_id"]) and o in set(catalog["offer_id"])]
    if not outside:
        return shown, []
    extra = catalog.set_index("offer_id").loc[outside].reset_index()
    return pd.concat([shown, extra], ignore_index=True), outside


def suggested_comparison(df: pd.DataFrame) -> list[str] | None:
    """The two offers the comparison starts with: the first whose price is current and not a flagged outlier,
    then the others in the table's order (a stale or outlying price stays pickable; it is just not what the
    page puts in front of a client unasked). None when fewer than two offers are shown."""
    if len(df) < 2:
        return None
    sound = ~offer_scope.price_is_stale(df) & ~df["price_outlier"].astype(bool)
    return [*df.loc[sound, "offer_id"], *df.loc[~sound, "offer_id"]][:2]


def comparison_frame(chosen: pd.DataFrame, display: DisplaySettings, today: dt.date | None = None) -> pd.DataFrame:
    """The compared offers as text, one column per offer (named by its label), one row per field named through
    the label registry (:mod:`ui.labels`), each value in its display format with its unit (money in the display
    currency, rounded); a value no source states reads 'not stated' (issue #27.5)."""
    from ui import labels

    shown = offer_table(chosen, display, today)[0].drop(columns=["source_url"])
    rows = {}
    for col in shown.columns:
        # money from the EUR frame (fmt converts it once); the text columns as the offers table words them
        values = chosen[col] if col in PRICE_COLUMNS else shown[col]
        rows[labels.label(col)] = [labels.fmt(col, v, display.currency, display.usd_per_eur)
                                   for v in values]
    return pd.DataFrame(rows, index=list(offer_scope.picker_labels(chosen))).T.astype(str)


def spec_table(specs: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    columns = ["gpu_spec_id", "form_factor", "memory_gb", "memory_type", "memory_bandwidth_tbps", "bf16_dense_tflops",
               "fp8_dense_tflops", "tdp_watts", "nvlink_bandwidth_gb_per_s_bidirectional", "mig_max_instances",
               "verification_status", "source_url"]
    config = {
        "gpu_spec_id": st.column_config.TextColumn("GPU", pinned=True),
        "form_factor": "Form",
        "memory_gb": st.column_config.NumberColumn("Memory", format="%d GB"),
        "memory_type": "Type",
        "memory_bandwidth_tbps": st.column_config.NumberColumn("Bandwidth", format="%.2f TB/s"),
        "bf16_dense_tflops": st.column_config.NumberColumn("BF16 dense", format="%.0f TFLOP/s"),
        "fp8_dense_tflops": st.column_config.NumberColumn("FP8 dense", format="%.0f TFLOP/s", help="not stated: not supported, or not found"),
        "tdp_watts": st.column_config.NumberColumn("TDP", format="%d W"),
        "nvlink_bandwidth_gb_per_s_bidirectional": st.column_config.NumberColumn("NVLink", format="%d GB/s"),
        "mig_max_instances": st.column_config.NumberColumn("MIG", format="%d", help="0 = not supported; not stated = not found"),
        "verification_status": "Trust",
        "source_url": st.column_config.LinkColumn("Source", display_text="datasheet ↗"),
    }
    return specs[columns], config


#: Fields of ``provider_facts`` shown as columns of the sovereignty table.
_FACT_FIELDS = ["legal_entity", "legal_seat_address", "certifications_scope"]


def sovereignty_table(providers: pd.DataFrame, facts: pd.DataFrame, today: dt.date | None = None
                      ) -> tuple[pd.DataFrame, dict]:
    """One row per provider: jurisdiction, legal seat and certifications, each with its own source and date."""
    out = providers[["provider_id", "name", "hq_country", "parent_jurisdiction", "eu_data_residency",
                     "legal_seat_country", "certifications"]].copy()
    by_field = {f: g.set_index("provider_id") for f, g in facts.groupby("field")}

    def fact(field: str, column: str) -> pd.Series:
        table = by_field.get(field)
        if table is None:
            return pd.Series([None] * len(out), index=out.index, dtype="object")
        return out["provider_id"].map(table[column])

    for field in _FACT_FIELDS:
        out[field] = fact(field, "value")
    # The seat's evidence: the seat-country fact, else the legal-entity fact.
    out["seat_source_url"] = fact("legal_seat_country", "source_url").fillna(fact("legal_entity", "source_url"))
    out["seat_as_of"] = fact("legal_seat_country", "as_of").fillna(fact("legal_entity", "as_of"))
    out["seat_trust"] = fact("legal_seat_country", "verification_status").fillna(fact("legal_entity", "verification_status"))
    out["cert_source_url"] = fact("certifications", "source_url")
    out["cert_as_of"] = fact("certifications", "as_of")
    out["cert_trust"] = fact("certifications", "verification_status")
    out["certifications"] = out["certifications"].map(lambda v: v.replace(";", ", ") if v else None)
    for col in ["legal_entity", "legal_seat_country", "legal_seat_address", "certifications", "certifications_scope",
                "seat_as_of", "seat_trust", "cert_as_of", "cert_trust"]:
        out[col] = out[col].astype("object").where(out[col].notna() & (out[col].astype(str) != ""), "not found")
    out["eu_data_residency"] = out["eu_data_residency"].astype("object").where(out["eu_data_residency"].notna(),
                                                                               "not determined")
    out = out.sort_values(["parent_jurisdiction", "name"]).drop(columns="provider_id")
    config = {
        "name": st.column_config.TextColumn("Provider", pinned=True),
        "hq_country": st.column_config.TextColumn("HQ"),
        "parent_jurisdiction": st.column_config.TextColumn("Parent law", help="Legal home of the ultimate parent"),
        "eu_data_residency": st.column_config.TextColumn("EU residency", help="yes: EU/EEA provider with EU/EEA sites · "
                                                         "partial: EU sites, parent outside the EU"),
        "legal_entity": st.column_config.TextColumn("Contracting entity"),
        "legal_seat_country": st.column_config.TextColumn("Legal seat"),
        "legal_seat_address": st.column_config.TextColumn("Registered address"),
        "seat_source_url": st.column_config.LinkColumn("Seat source", display_text="source ↗"),
        "seat_as_of": st.column_config.TextColumn("Seat as of"),
        "seat_trust": st.column_config.TextColumn("Seat trust", help="verified: the provider's own legal notice · "
                                                  "claimed: a third-party copy"),
        "certifications": st.column_config.TextColumn("Certifications", help="Stated as held; 'in progress' is not counted"),
        "certifications_scope": st.column_config.TextColumn("Scope", help="Which services or sites the certificates cover"),
        "cert_source_url": st.column_config.LinkColumn("Cert. source", display_text="source ↗"),
        "cert_as_of": st.column_config.TextColumn("Cert. as of"),
        "cert_trust": st.column_config.TextColumn("Cert. trust"),
    }
    columns = ["name", "hq_country", "parent_jurisdiction", "eu_data_residency", "legal_entity", "legal_seat_country",
               "legal_seat_address", "seat_source_url", "seat_as_of", "seat_trust", "certifications",
               "certifications_scope", "cert_source_url", "cert_as_of", "cert_trust"]
    return out[columns], config
