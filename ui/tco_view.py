"""TCO page logic: grouped input widgets bound to the scenario, catalog presets (on-demand offer, that
offer's own committed prices or the user's quote, GPU power), the verdict and the sweeps.

Every figure on the page comes from :func:`engine.tco.evaluate_tco`, i.e. from the totals over the chosen
horizon; the verdict names the option with the lowest total and says how the resale value and any reserved
term that runs past the horizon were treated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd
import streamlit as st
from pydantic import ValidationError

from catalog.counts import is_stale_age
from catalog.store import STALE_AFTER_DAYS
from engine.assumptions import is_missing
from engine.power import rated_it_power_kw_per_gpu
from engine.tco import (
    Pair,
    TcoInputs,
    TcoResult,
    compare_options_per_useful_gpu_hour,
    default_monte_carlo_ranges,
    monte_carlo,
    tornado,
)
from ui import offer_scope, tco_words
from ui.brief_scope import offers_meeting_brief
from ui.format import assumption_table, money
from ui.labels import TCO_INPUT_LABELS, TCO_OPTION_VERBS
from ui.quotes import catalog_key
from ui.scenario import (
    UTILISATION_RANGE,
    ClientBrief,
    DisplaySettings,
    TcoSection,
    get_scenario,
    update_scenario,
    widget_key,
)

# (field, step, format) per group; the labels (with their unit) are ui.labels.TCO_INPUT_LABELS. Inputs are in EUR
# (engine units).
GROUPS: list[tuple[str, list[tuple[str, float, str]]]] = [
    ("Renting", [
        ("price_on_demand_eur_per_gpu_hour", 0.05, "%.4f"),
        ("rental_price_decline_fraction_per_year", 0.01, "%.2f"),
    ]),
    ("Hardware and capital", [
        ("server_capex_eur_per_gpu", 500.0, "%.0f"),
        ("networking_capex_eur_per_gpu", 100.0, "%.0f"),
        ("storage_capex_eur_per_gpu", 100.0, "%.0f"),
        ("installation_capex_eur_per_gpu", 100.0, "%.0f"),
        ("depreciation_years", 0.5, "%.1f"),
        ("cost_of_capital_fraction_per_year", 0.01, "%.3f"),
        ("residual_value_fraction", 0.01, "%.3f"),
    ]),
    ("Power and facility", [
        ("power_at_load_kw_per_gpu", 0.05, "%.3f"),
        ("average_draw_fraction_of_rated", 0.01, "%.2f"),
        ("idle_power_fraction", 0.05, "%.2f"),
        ("pue", 0.01, "%.2f"),
        ("electricity_eur_per_kwh", 0.01, "%.4f"),
        ("colocation_eur_per_kw_month", 5.0, "%.2f"),
    ]),
    ("Staff and maintenance", [
        ("staff_fte", 0.05, "%.2f"),
        ("labour_cost_eur_per_hour", 1.0, "%.2f"),
        ("working_hours_per_fte_year", 10.0, "%.0f"),
        ("maintenance_fraction_of_capex_per_year", 0.005, "%.3f"),
    ]),
]
INT_FIELDS = {"cluster_gpus", "horizon_months", "reserved_term_months"}
#: Choice of the committed-price picker meaning "no committed price" and "the user's own quote".
NO_COMMITMENT = "none"
YOUR_QUOTE = "quote"


#: Inputs that are not widgets: the reserved price and term follow the committed-price choice.
RESERVED_FIELDS = ("price_reserved_eur_per_gpu_hour", "reserved_term_months")


def init_widgets(section: TcoSection) -> None:
    """Seed the page's widget state from the scenario (once per session; widgets keep it afterwards)."""
    for name in TcoInputs.model_fields:
        if name not in RESERVED_FIELDS:
            st.session_state.setdefault(widget_key("tco", name), getattr(section.inputs, name))
    st.session_state.setdefault("tco_on_demand_offer", section.on_demand_offer_id)
    st.session_state.setdefault("tco_committed", section.reserved_price_id or section.reserved_origin or NO_COMMITMENT)


def brief_offer_ids(offers: pd.DataFrame, brief: ClientBrief, usd_per_eur: float) -> set[str]:
    """The ids of the rows of ``offers`` (:func:`ui.quotes.offers_with_quotes` at ``usd_per_eur``) meeting the brief
    (:func:`ui.brief_scope.offers_meeting_brief`), cached on the catalog and the brief (#31)."""
    return set(_brief_offer_ids(offers, catalog_key(usd_per_eur), brief.model_dump_json()))


@st.cache_data(ttl=600, max_entries=64, show_spinner=False)
def _brief_offer_ids(_offers: pd.DataFrame, key: tuple, brief_json: str) -> tuple[str, ...]:
    return tuple(offers_meeting_brief(_offers, ClientBrief.model_validate_json(brief_json))["offer_id"])


@st.cache_data(ttl=600, max_entries=64, show_spinner=False)
def _cached_offer_labels(_offers: pd.DataFrame, key: tuple, offer_ids: tuple[str, ...],
                         display_json: str) -> dict[str, str]:
    """:func:`offer_labels` of the rows ``offer_ids`` (in frame order) of the catalog's offers ``_offers`` (``key``)."""
    return offer_labels(_offers[_offers["offer_id"].isin(offer_ids)], DisplaySettings.model_validate_json(display_json))


def offer_labels(offers: pd.DataFrame, display: DisplaySettings) -> dict[str, str]:
    """Picker labels: provider · GPU form · GPUs per node · region (the shared :func:`ui.offer_scope.picker_labels`,
    so offers that differ only by node size or region stay distinguishable), the on-demand price, and the flags of
    that price (outlier with the same rule as every page, stale by its retrieval date)."""
    flagged = offer_scope.with_outlier_flag(offers, offer_scope.price_columns_of("on-demand"))
    flagged = flagged.assign(price_outlier=flagged["price_is_outlier"])
    names = offer_scope.picker_labels(flagged, flags=False)
    out = {}
    for (_, row), name in zip(flagged.iterrows(), names, strict=True):
        label = f"{name} · {money(row.on_demand_eur_per_gpu_hour, display)}/GPU-h"
        marks = offer_scope.flags_text(row)
        out[row.offer_id] = f"{label} {marks}" if marks else label
    return out


def committed_prices(prices: pd.DataFrame, usd_per_eur: float) -> pd.DataFrame:
    """The offer's own public committed prices that state their term, in EUR per GPU-hour.

    ``prices`` are current price rows of one offer (native currency). Rows without a term, private quotes and
    on-demand/spot rows are dropped: a committed price is only usable with its term.
    """
    if prices.empty:
        return prices.assign(amount_eur_per_gpu_hour=pd.Series(dtype=float))
    keep = prices[(prices.price_type == "reserved") & prices.term_months.notna() & ~prices.is_private.astype(bool)]
    eur = np.where(keep.currency == "EUR", keep.amount_per_gpu_hour, keep.amount_per_gpu_hour / usd_per_eur)
    return keep.assign(amount_eur_per_gpu_hour=eur.astype(float)).sort_values(["term_months", "amount_eur_per_gpu_hour"])


def committed_label(row, display: DisplaySettings) -> str:
    term = int(row.term_months)
    years = f"{term // 12}-year" if term % 12 == 0 else f"{term}-month"
    upfront = "" if is_missing(row.upfront_pct) else f", {row.upfront_pct:.0f} % upfront"
    quote = getattr(row, "quote_label", None)
    if isinstance(quote, str) and quote:  # a workspace quote (issue #29.7), named as such
        return f"{quote}: {years} term{upfront}, {money(row.amount_eur_per_gpu_hour, display)}/GPU-h"
    return (f"{years} term{upfront}: {money(row.amount_eur_per_gpu_hour, display)}/GPU-h "
            f"(this offer's own price, {row.retrieved_at})")


def apply_on_demand_preset(offers: pd.DataFrame) -> None:
    """on_change of the on-demand offer picker: fill the price (EUR) from the catalog row, and drop a committed
    price taken from the previous offer (it belongs to that offer, never to this one)."""
    offer_id = st.session_state.get("tco_on_demand_offer")
    row = offers.set_index("offer_id").loc[offer_id] if offer_id in set(offers.offer_id) else None
    if row is not None and not is_missing(row["on_demand_eur_per_gpu_hour"]):
        price = round(float(row["on_demand_eur_per_gpu_hour"]), 4)
        st.session_state[widget_key("tco", "price_on_demand_eur_per_gpu_hour")] = price
    if st.session_state.get("tco_committed") not in (NO_COMMITMENT, YOUR_QUOTE):
        st.session_state["tco_committed"] = NO_COMMITMENT


def apply_gpu_preset(specs: pd.DataFrame) -> None:
    spec_id = st.session_state.get("tco_gpu_spec")
    if spec_id in set(specs.gpu_spec_id):
        tdp = specs.set_index("gpu_spec_id").loc[str(spec_id), "tdp_watts"]
        if not is_missing(tdp):  # the shared power model: TDP x (1 + the server's non-GPU share) at full load
            watts = float(cast(float, tdp))  # one spec's TDP (gpu_spec_id is unique)
            kw = round(float(rated_it_power_kw_per_gpu(watts)), 4)
            st.session_state[widget_key("tco", "power_at_load_kw_per_gpu")] = kw
            update_scenario(tco=get_scenario().tco.model_copy(update={"gpu_spec_id": spec_id}))  # exports cite it


def draw_presets(offers: pd.DataFrame, specs: pd.DataFrame, display: DisplaySettings,
                 prices_of_offer, brief_offer_ids: set[str] | None = None) -> tuple[str | None, pd.DataFrame]:
    """Offer and GPU pickers; returns the chosen on-demand offer and that offer's committed prices.

    ``prices_of_offer(offer_id)`` returns the offer's current price rows (native currency); ``brief_offer_ids``
    (the offers meeting the client brief: GPU class, model fit, residency, certifications; ui.brief_scope)
    narrows the offer picker unless the user asks for every offer.
    """
    listed = offers["on_demand_eur_per_gpu_hour"].notna()  # a mask, not a copy of the ~60-column frame (#31)
    chosen = st.session_state.get("tco_on_demand_offer")
    if brief_offer_ids is not None and not st.session_state.get("tco_all_gpus", False):
        listed &= offers["offer_id"].isin(brief_offer_ids) | (offers["offer_id"] == chosen)
    labels = _cached_offer_labels(offers, catalog_key(display.usd_per_eur), tuple(offers.loc[listed, "offer_id"]),
                                  display.model_dump_json())
    c1, c2 = st.columns([3, 2])
    c1.selectbox("On-demand price from a catalog offer", list(labels), format_func=labels.__getitem__, index=None,
                 key="tco_on_demand_offer", placeholder="pick a catalog offer (or type the price below)",
                 on_change=apply_on_demand_preset, args=(offers,))
    c2.selectbox("Set power from a GPU", specs.gpu_spec_id.tolist(), index=None, key="tco_gpu_spec",
                 placeholder="pick a GPU spec", on_change=apply_gpu_preset, args=(specs,),
                 help="Full-load IT power per GPU = TDP × (1 + 0.821 server share), the shared power model "
                      "(DGX H100: 10.2 kW / 8 GPUs).")
    picked = offers.set_index("offer_id").loc[chosen] if chosen in set(offers.offer_id) else None
    if picked is not None:
        days = offer_scope.price_age_days(picked)
        if is_stale_age(days):
            c1.warning(f"This offer's price was retrieved {days} days ago ({offer_scope.price_date(picked):%Y-%m-%d}), "
                       f"more than {STALE_AFTER_DAYS} days (stale): check it with the provider before relying on the "
                       "totals below.", icon=":material/history:")
        flagged = offer_scope.with_outlier_flag(offers[offers.offer_id == chosen].reset_index(drop=True),
                                                offer_scope.price_columns_of("on-demand"))
        if bool(flagged["price_is_outlier"].iloc[0]):
            c1.warning(f"This on-demand price is a price outlier: {flagged['price_outlier_reason'].iloc[0]}. The totals "
                       "below use it because you picked it.", icon=":material/warning:")
    if brief_offer_ids is not None:
        c1.toggle("Offers outside the brief", key="tco_all_gpus",
                  help=f"The picker lists the {len(brief_offer_ids)} offers meeting the client brief (GPU class, model "
                       "fit, EU rules, certifications within their scope); switch on to pick any offer.")
    offer_id = st.session_state.get("tco_on_demand_offer")
    return offer_id, committed_prices(prices_of_offer(offer_id), display.usd_per_eur)


def draw_committed_choice(offer_id: str | None, committed: pd.DataFrame, section: TcoSection,
                          display: DisplaySettings) -> tuple[str, float | None, int | None]:
    """The reserved option's price: the chosen offer's own committed price for a stated term, the user's quote,
    or none (then reserved takes no part in the verdict). Returns ``(choice, price_eur, term_months)``."""
    options = [NO_COMMITMENT, *committed.price_id.tolist(), YOUR_QUOTE]
    labels = {NO_COMMITMENT: "No committed price (compare on demand and owning only)",
              YOUR_QUOTE: "Your quote (type the price and term)"}
    labels.update({str(r.price_id): committed_label(r, display) for r in committed.itertuples()})
    if st.session_state.get("tco_committed") not in options:
        st.session_state["tco_committed"] = NO_COMMITMENT
    choice = st.radio("Committed (reserved) price", options, format_func=labels.__getitem__, key="tco_committed")
    if offer_id and committed.empty:
        st.caption("No committed price stated for this offer in the catalog: reserved is compared only with your quote.")
    elif not offer_id:
        st.caption("Pick the on-demand offer above to use its own committed prices.")
    if choice == YOUR_QUOTE:
        q1, q2 = st.columns(2)
        price = q1.number_input("Your quote (EUR per GPU-hour)", min_value=0.0, max_value=1000.0, step=0.05,
                                format="%.4f", value=section.quote_price_eur_per_gpu_hour, key="tco_quote_price")
        term = q2.number_input("Term of your quote (months)", min_value=1, max_value=120, step=1,
                               value=section.quote_term_months, key="tco_quote_term")
        return choice, price, (int(term) if term is not None else None)
    if choice in set(committed.price_id):
        row = committed.set_index("price_id").loc[choice]
        return choice, round(float(row.amount_eur_per_gpu_hour), 4), int(row.term_months)
    return choice, None, None


def draw_inputs(reserved: tuple[float | None, int | None]) -> tuple[TcoInputs | None, dict[str, str]]:
    """The usage inputs and the grouped cost inputs; ``reserved`` is the committed price and term from
    :func:`draw_committed_choice`. Returns validated inputs (or None) and error messages per field."""
    slots: dict[str, st.delta_generator.DeltaGenerator] = {}
    top = st.columns([3, 1, 1])
    top[0].slider("Sustained utilisation (share of hours doing useful work)", *UTILISATION_RANGE, step=0.01,
                  key=widget_key("tco", "utilisation_fraction"), format="%.2f")
    slots["utilisation_fraction"] = top[0].empty()
    top[1].number_input("GPUs in the cluster", min_value=1, step=8, key=widget_key("tco", "cluster_gpus"))
    slots["cluster_gpus"] = top[1].empty()
    top[2].number_input("Horizon (months)", min_value=1, max_value=240, step=6, key=widget_key("tco", "horizon_months"),
                        help="Every total, per-hour figure, break-even and chart on this page covers this period.")
    slots["horizon_months"] = top[2].empty()
    cols = st.columns(len(GROUPS))
    for col, (title, fields) in zip(cols, GROUPS, strict=True):
        with col.expander(title, expanded=False):
            for name, step, fmt in fields:
                st.number_input(TCO_INPUT_LABELS[name], step=step, format=fmt, key=widget_key("tco", name),
                                help=TcoInputs.model_fields[name].description)
                slots[name] = st.empty()
    values = {}
    for name in TcoInputs.model_fields:
        if name in RESERVED_FIELDS:
            continue
        v = st.session_state.get(widget_key("tco", name))
        values[name] = int(v) if name in INT_FIELDS and v is not None and float(v).is_integer() else v
    values["price_reserved_eur_per_gpu_hour"], values["reserved_term_months"] = reserved
    try:
        inputs = TcoInputs(**values)
    except ValidationError as exc:
        errors = {}
        for e in exc.errors():
            name = str(e["loc"][0]) if e["loc"] else "inputs"
            errors[name] = e["msg"]
            target = slots.get(name)
            label = name.replace("_", " ") if name != "inputs" else "committed price"
            (target or st).error(f"{label}: {e['msg'].removeprefix('Value error, ')}", icon=":material/error:")
        return None, errors
    return inputs, {}


def on_demand_price_is_private(offers: pd.DataFrame, offer_id: str | None, price: float) -> bool:
    """Is ``price`` the picked offer's private negotiated on-demand price? (Only an editor who included private
    prices gets them in ``offers``: ui.private_prices.)"""
    if not offer_id or "on_demand_is_private" not in offers.columns or offer_id not in set(offers.offer_id):
        return False
    row = offers.set_index("offer_id").loc[offer_id]
    return bool(row["on_demand_is_private"]) and math.isclose(float(cast(float, row["on_demand_eur_per_gpu_hour"])), price,
                                                               rel_tol=0, abs_tol=1e-4)


def store_section(inputs: TcoInputs, offer_id: str | None, choice: str, on_demand_private: bool = False) -> TcoSection:
    """Write the page's state back to the scenario (inputs plus where the prices came from, and whether the
    on-demand price is a private one: never silently, issue #28.2)."""
    origin = None if choice == NO_COMMITMENT else ("quote" if choice == YOUR_QUOTE else "offer")
    update: dict[str, object] = {"inputs": inputs, "on_demand_offer_id": offer_id, "reserved_origin": origin,
              "reserved_price_id": choice if origin == "offer" else None,
              "on_demand_price_private": on_demand_private}
    if origin == "quote":
        update.update(quote_price_eur_per_gpu_hour=inputs.price_reserved_eur_per_gpu_hour,
                      quote_term_months=inputs.reserved_term_months)
    section = get_scenario().tco.model_copy(update=update)
    update_scenario(tco=section)
    return section


@dataclass
class Verdict:
    headline: str
    detail: str
    notes: list[str]


def upfront_capex_eur(result: TcoResult) -> float:
    """Cash needed at month 0 to buy the first generation of hardware (server, storage, networking, installation)."""
    return (result.owned_breakdown_eur["hardware"] + result.owned_breakdown_eur["networking"]) / result.purchases


def span_text(months: int) -> str:
    return f"{months // 12} years" if months % 12 == 0 and months >= 24 else f"{months} months"


def verdict(result: TcoResult, display: DisplaySettings, reserved_origin: str | None = None) -> Verdict:
    """The answer in words, from the horizon totals only (the cheapest option is the lowest total)."""
    inputs = result.inputs
    totals = result.total_cost_eur
    best, second = result.cheapest_option, result.runner_up_option
    span = span_text(inputs.horizon_months)
    head = (f"Over {span} at {inputs.utilisation_fraction:.0%} utilisation, {TCO_OPTION_VERBS[best]} is the cheapest way "
            f"to run {inputs.cluster_gpus} GPUs: {money(totals[best], display, 0)}")
    if second is not None:
        saving = totals[second] - totals[best]
        share = saving / totals[second] if totals[second] > 0 else 0.0
        head += f", {money(saving, display, 0)} ({share:.0%}) less than {TCO_OPTION_VERBS[second]}."
    else:
        head += "."
    be = result.break_even_utilisation_fraction[Pair.ON_DEMAND_VS_OWNED.value]
    if math.isfinite(be) and 0 < be < 1:
        detail = f"Over this horizon owning beats renting on demand above **{be:.0%}** utilisation."
    elif be <= 0:
        detail = "Over this horizon owning beats renting on demand at every utilisation."
    else:
        detail = "Over this horizon owning never beats renting on demand, even at 100 % utilisation."
    detail += (f" Per useful GPU-hour: on demand {money(result.cost_per_useful_gpu_hour_eur['on_demand'], display)}, "
               f"owning {money(result.cost_per_useful_gpu_hour_eur['owned'], display)}")
    if "reserved" in result.available_options:
        detail += f", reserved {money(result.cost_per_useful_gpu_hour_eur['reserved'], display)}"
    detail += " (each = its total ÷ the useful GPU-hours of the horizon)."
    notes = [resale_note(result)]
    notes.append(reserved_note(result, reserved_origin))
    if "reserved" in result.available_options:  # every break-even in words where it lies outside (0, 1)
        notes.append(tco_words.break_even_note(result))
    if inputs.rental_price_decline_fraction_per_year > 0:
        notes.append(f"Rental prices fall {inputs.rental_price_decline_fraction_per_year:.0%} a year: on demand averages "
                     f"{money(result.mean_on_demand_price_over_horizon_eur_per_gpu_hour, display)}/GPU-h over the horizon.")
    return Verdict(head, detail, notes)


def resale_note(result: TcoResult) -> str:
    inputs = result.inputs
    age = result.hardware_age_at_horizon_end_months
    life = round(inputs.depreciation_years * 12)
    text = (f"Owning: {result.purchases} purchase{'s' if result.purchases > 1 else ''} within the horizon; at its end the "
            f"hardware is {age:.0f} of {life} months old and is credited at **{result.resale_value_at_horizon_end_fraction:.0%}** "
            f"of its equipment price")
    if inputs.horizon_months != life:
        text += (f" (the horizon differs from the {inputs.depreciation_years:g}-year depreciation life, so the resale value "
                 f"is read off a straight line from 100 % at purchase to {inputs.residual_value_fraction:.0%} at end of life)")
    return text + ". Rule: resale value follows a straight line to the end-of-life share (IAS 16 straight-line method)."


def reserved_note(result: TcoResult, origin: str | None) -> str:
    inputs = result.inputs
    if not inputs.has_reserved_price:
        return ("Reserved: **no committed price stated** for this offer, so renting reserved is not compared. "
                "Pick one of the offer's own committed prices or type your quote.")
    source = {"quote": "your quote", "workspace-quote": "a quote recorded in this workspace"}.get(
        origin or "", "the offer's own committed price")
    term = inputs.reserved_term_months
    assert term is not None, "a committed price comes with its term (TcoInputs)"
    text = f"Reserved: {source}, {term}-month term"
    paid = result.reserved_paid_months
    if paid > inputs.horizon_months:
        text += (f"; the horizon of {inputs.horizon_months} months ends inside a term, so {paid:.0f} months are paid "
                 f"({paid - inputs.horizon_months:.0f} beyond the horizon, included in its total)")
    elif inputs.horizon_months % term == 0:
        text += f"; {inputs.horizon_months // term} term(s) fit the horizon exactly"
    return text + "."


def utilisation_sweep(inputs: TcoInputs, n: int = 96) -> pd.DataFrame:
    """Cost per useful GPU-hour of each option over utilisation, same horizon: one vectorised engine call."""
    u = np.linspace(0.05, 1.0, n)
    params = inputs.as_arrays()
    params["utilisation_fraction"] = u
    out = compare_options_per_useful_gpu_hour(**params)
    return pd.DataFrame({"utilisation": u, "on_demand": out["on_demand"], "reserved": out["reserved"], "owned": out["owned"]})


@st.cache_data(show_spinner=False, max_entries=64)
def cached_tornado(inputs: TcoInputs, pct: float):
    return tornado(inputs, pct=pct)


@st.cache_data(show_spinner=False, max_entries=32)
def cached_monte_carlo(inputs: TcoInputs, ranges: tuple, n_draws: int):
    """Monte Carlo at the chosen utilisation plus p10/p50/p90 bands over a utilisation grid (same horizon)."""
    rng_map = {name: (low, mode, high) for name, low, mode, high in ranges}
    at_u = monte_carlo(inputs, ranges=rng_map, n_draws=n_draws, seed=0)
    # The bands set the utilisation at every grid point: cached without the chosen one, so moving the utilisation
    # slider redraws only the Monte Carlo at that utilisation (#31).
    return at_u, cached_monte_carlo_bands(inputs.model_copy(update={"utilisation_fraction": 1.0}), ranges, n_draws)


@st.cache_data(show_spinner=False, max_entries=32)
def cached_monte_carlo_bands(inputs: TcoInputs, ranges: tuple, n_draws: int) -> pd.DataFrame:
    """p10/p50/p90 of each option over a utilisation grid (``inputs.utilisation_fraction`` is not used)."""
    rng_map = {name: (low, mode, high) for name, low, mode, high in ranges}
    grid = np.linspace(0.1, 1.0, 19)
    bands = []
    for u in grid:
        r = monte_carlo(inputs.model_copy(update={"utilisation_fraction": float(u)}), ranges=rng_map,
                        n_draws=max(2_000, n_draws // 10), seed=1)
        for option, pct in r.percentiles_eur_per_useful_gpu_hour.items():
            bands.append({"utilisation": u, "option": option, **pct})
    return pd.DataFrame(bands)


def ranges_frame(inputs: TcoInputs) -> pd.DataFrame:
    rows = [{"input": k, "low": v[0], "most likely": v[1], "high": v[2]} for k, v in default_monte_carlo_ranges(inputs).items()]
    return pd.DataFrame(rows)


_DEFAULTS = TcoInputs()


def assumptions_frame(inputs: TcoInputs, section: TcoSection | None = None, *, as_text: bool = True) -> pd.DataFrame:
    """Every input with its value, unit and source; catalog-filled and typed values name their real origin.

    ``as_text`` formats the values for display ("not given" for a missing one); otherwise they stay numbers
    (None when missing) for spreadsheets."""
    rows = []
    for a in inputs.assumptions():
        source = a.source
        if section is not None:
            if a.name == "price_on_demand_eur_per_gpu_hour" and section.on_demand_offer_id:
                source = f"catalog offer {section.on_demand_offer_id} (or your edit of its price)"
            elif a.name in ("price_reserved_eur_per_gpu_hour", "reserved_term_months"):
                price_id = section.reserved_price_id or ""
                offer = ("workspace " + price_id.replace(":", " #")  # issue #29.7
                         if price_id.startswith("quote:") else
                         f"committed price {section.reserved_price_id} of offer {section.on_demand_offer_id}")
                source = {"offer": offer,
                          "quote": "your quote (entered by the user)"}.get(section.reserved_origin or "", "not given")
            elif is_missing(a.value):
                source = "not given"
            elif not math.isclose(cast(float, a.value), float(getattr(_DEFAULTS, a.name)), rel_tol=1e-9, abs_tol=1e-12):
                source = "entered by the user"
        rows.append((a.name, a.value, a.unit, source))
    return assumption_table(rows, number_format=",.6g", whole_numbers=True, missing="not given", as_text=as_text,
                            label=lambda name: TCO_INPUT_LABELS.get(name, name), columns=("input", "value", "unit", "source"))
