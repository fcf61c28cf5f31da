"""TCO page logic: grouped input widgets bound to the scenario, catalog presets, verdict and sweeps."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st
from pydantic import ValidationError

from engine.tco import (
    HOURS_PER_YEAR,
    Pair,
    TcoInputs,
    compare_options_per_useful_gpu_hour,
    default_monte_carlo_ranges,
    evaluate_tco,
    monte_carlo,
    tornado,
)
from ui.format import money
from ui.scenario import DisplaySettings, TcoSection, update_scenario

#: Chip-to-server power ratio for an H100 node: (10.2 kW / 8) / 0.7 kW = 1.82, Epoch AI
#: training-cost-trends energy.py (domain-model.md section 4). Used to turn a GPU's TDP into power per
#: GPU at the wall, including its share of CPUs, NICs and fans.
SERVER_POWER_PER_TDP = 1.82

# (field, label, step, format) per group; labels carry the unit. Inputs are in EUR (engine units).
GROUPS: list[tuple[str, list[tuple[str, str, float, str]]]] = [
    ("Renting", [
        ("price_on_demand_eur_per_gpu_hour", "On-demand price (EUR per GPU-hour)", 0.05, "%.2f"),
        ("reserved_discount_fraction", "Reserved discount vs on-demand (0-1)", 0.01, "%.2f"),
        ("reserved_term_months", "Reserved minimum term (months)", 1, "%d"),
        ("rental_price_decline_fraction_per_year", "Rental price decline per year (0-1)", 0.01, "%.2f"),
    ]),
    ("Hardware and capital", [
        ("server_capex_eur_per_gpu", "Server share per GPU (EUR)", 500.0, "%.0f"),
        ("networking_capex_eur_per_gpu", "Networking share per GPU (EUR)", 100.0, "%.0f"),
        ("storage_capex_eur_per_gpu", "Storage share per GPU (EUR)", 100.0, "%.0f"),
        ("installation_capex_eur_per_gpu", "Installation per GPU (EUR)", 100.0, "%.0f"),
        ("depreciation_years", "Depreciation life (years)", 0.5, "%.1f"),
        ("cost_of_capital_fraction_per_year", "Cost of capital per year (0-1)", 0.01, "%.3f"),
        ("residual_value_fraction", "Resale value at end of life (share of capex)", 0.01, "%.3f"),
    ]),
    ("Power and facility", [
        ("power_at_load_kw_per_gpu", "Power per GPU at full load, at the wall (kW)", 0.05, "%.3f"),
        ("idle_power_fraction", "Idle power (share of full load)", 0.05, "%.2f"),
        ("pue", "PUE (facility overhead)", 0.01, "%.2f"),
        ("electricity_eur_per_kwh", "Electricity (EUR per kWh)", 0.01, "%.4f"),
        ("colocation_eur_per_kw_month", "Colocation (EUR per kW-month)", 5.0, "%.2f"),
    ]),
    ("Staff and maintenance", [
        ("staff_fte", "Operations staff (FTE)", 0.05, "%.2f"),
        ("labour_cost_eur_per_hour", "Labour cost (EUR per hour)", 1.0, "%.2f"),
        ("working_hours_per_fte_year", "Working hours per FTE and year", 10.0, "%.0f"),
        ("maintenance_fraction_of_capex_per_year", "Maintenance per year (share of capex)", 0.005, "%.3f"),
    ]),
]
INT_FIELDS = {"cluster_gpus", "horizon_months", "reserved_term_months"}


def _key(field: str) -> str:
    return f"_tco_{field}"


def _init_widgets(section: TcoSection) -> None:
    for name in TcoInputs.model_fields:
        st.session_state.setdefault(_key(name), getattr(section.inputs, name))


def apply_on_demand_preset(offers: pd.DataFrame) -> None:
    """on_change of the on-demand offer picker: fill the price (EUR) from the catalog row."""
    offer_id = st.session_state.get("tco_on_demand_offer")
    row = offers.set_index("offer_id").loc[offer_id] if offer_id in set(offers.offer_id) else None
    if row is not None and not math.isnan(row["on_demand_eur_per_gpu_hour"]):
        st.session_state[_key("price_on_demand_eur_per_gpu_hour")] = round(float(row["on_demand_eur_per_gpu_hour"]), 4)


def apply_reserved_preset(offers: pd.DataFrame) -> None:
    """on_change of the reserved offer picker: discount = 1 - reserved / on-demand price (see below)."""
    offer_id = st.session_state.get("tco_reserved_offer")
    if offer_id not in set(offers.offer_id):
        return
    row = offers.set_index("offer_id").loc[offer_id]
    # The same offer's own on-demand price when the catalog has one (a like-for-like discount), else the
    # on-demand price in use on the page.
    own = row["on_demand_eur_per_gpu_hour"]
    on_demand = float(own) if not pd.isna(own) else float(st.session_state[_key("price_on_demand_eur_per_gpu_hour")])
    if on_demand > 0 and not math.isnan(row["reserved_eur_per_gpu_hour"]):
        st.session_state[_key("reserved_discount_fraction")] = round(max(0.0, 1 - row["reserved_eur_per_gpu_hour"] / on_demand), 4)
        if not pd.isna(row["reserved_term_months"]):
            st.session_state[_key("reserved_term_months")] = int(row["reserved_term_months"])


def apply_gpu_preset(specs: pd.DataFrame) -> None:
    spec_id = st.session_state.get("tco_gpu_spec")
    if spec_id in set(specs.gpu_spec_id):
        tdp = specs.set_index("gpu_spec_id").loc[spec_id, "tdp_watts"]
        if not pd.isna(tdp):
            st.session_state[_key("power_at_load_kw_per_gpu")] = round(float(tdp) / 1000 * SERVER_POWER_PER_TDP, 4)


def offer_label(row) -> str:
    return f"{row.provider_name} · {row.gpu_model} {row.form_factor or ''} · {row.region}"


def draw_presets(offers: pd.DataFrame, specs: pd.DataFrame, display: DisplaySettings) -> None:
    on_demand = offers.dropna(subset=["on_demand_eur_per_gpu_hour"])
    reserved = offers.dropna(subset=["reserved_eur_per_gpu_hour"])
    labels = {r.offer_id: offer_label(r) + f" · {money(r.on_demand_eur_per_gpu_hour, display)}/GPU-h"
              for r in on_demand.itertuples()}
    c1, c2, c3 = st.columns(3)
    c1.selectbox("Fill the on-demand price from an offer", list(labels), format_func=labels.get, index=None,
                 key="tco_on_demand_offer", placeholder="pick a catalog offer", on_change=apply_on_demand_preset,
                 args=(offers,))
    rlabels = {r.offer_id: offer_label(r) + f" · {money(r.reserved_eur_per_gpu_hour, display)}/GPU-h · "
               + (f"{int(r.reserved_term_months)}-month term" if not pd.isna(r.reserved_term_months) else "term not stated")
               for r in reserved.itertuples()}
    c2.selectbox("Fill the reserved discount from an offer", list(rlabels), format_func=rlabels.get, index=None,
                 key="tco_reserved_offer", placeholder="pick a reserved price", on_change=apply_reserved_preset,
                 args=(offers,), help="Discount = 1 − reserved ÷ the same offer's on-demand price (or the on-demand price above "
                 "when the offer has none). Where the source states no term, the term field keeps its value.")
    c3.selectbox("Set power from a GPU", specs.gpu_spec_id.tolist(), index=None, key="tco_gpu_spec",
                 placeholder="pick a GPU spec", on_change=apply_gpu_preset, args=(specs,),
                 help=f"Power per GPU at the wall = TDP × {SERVER_POWER_PER_TDP} (Epoch AI chip-to-server ratio for H100).")


def draw_inputs(section: TcoSection) -> tuple[TcoInputs | None, dict[str, str]]:
    """All input widgets, grouped; returns validated inputs (or None) and error messages per field."""
    _init_widgets(section)
    slots: dict[str, st.delta_generator.DeltaGenerator] = {}
    top = st.columns([3, 1, 1])
    top[0].slider("Sustained utilisation (share of hours doing useful work)", 0.05, 1.0, step=0.01,
                  key=_key("utilisation_fraction"), format="%.2f")
    slots["utilisation_fraction"] = top[0].empty()
    top[1].number_input("GPUs in the cluster", step=8, key=_key("cluster_gpus"))
    slots["cluster_gpus"] = top[1].empty()
    top[2].number_input("Horizon (months)", step=6, key=_key("horizon_months"))
    slots["horizon_months"] = top[2].empty()
    cols = st.columns(len(GROUPS))
    for col, (title, fields) in zip(cols, GROUPS, strict=True):
        with col.expander(title, expanded=False):
            for name, label, step, fmt in fields:
                st.number_input(label, step=step, format=fmt, key=_key(name),
                                help=TcoInputs.model_fields[name].description)
                slots[name] = st.empty()
    values = {}
    for name in TcoInputs.model_fields:
        v = st.session_state[_key(name)]
        values[name] = int(v) if name in INT_FIELDS and v is not None and float(v).is_integer() else v
    try:
        inputs = TcoInputs(**values)
    except ValidationError as exc:
        errors = {}
        for e in exc.errors():
            name = str(e["loc"][0]) if e["loc"] else "inputs"
            errors[name] = e["msg"]
            target = slots.get(name)
            (target or st).error(f"{name.replace('_', ' ')}: {e['msg']}", icon=":material/error:")
        return None, errors
    update_scenario(tco=section.model_copy(update={"inputs": inputs}))
    return inputs, {}


@dataclass
class Verdict:
    headline: str
    detail: str


def verdict(inputs: TcoInputs, display: DisplaySettings) -> Verdict:
    result = evaluate_tco(inputs)
    cost = result.cost_per_useful_gpu_hour_eur
    u = inputs.utilisation_fraction
    useful_hours_per_year = u * HOURS_PER_YEAR * inputs.cluster_gpus
    be = result.break_even_utilisation_fraction[Pair.ON_DEMAND_VS_OWNED.value]
    diff_per_year = (cost["on_demand"] - cost["owned"]) * useful_hours_per_year
    if diff_per_year > 0:
        head = (f"At {u:.0%} utilisation, owning is cheaper than renting on demand by "
                f"{money(diff_per_year, display, 0)} per year for {inputs.cluster_gpus} GPUs.")
    else:
        head = (f"At {u:.0%} utilisation, renting on demand is cheaper than owning by "
                f"{money(-diff_per_year, display, 0)} per year for {inputs.cluster_gpus} GPUs.")
    if math.isfinite(be) and be <= 1:
        head += f" Owning wins above {be:.0%} utilisation."
    else:
        head += " Owning never wins at this rental price, even at 100 % utilisation."
    cheapest = {"on_demand": "renting on demand", "reserved": "renting reserved", "owned": "owning"}[result.cheapest_option]
    month = result.break_even_month.get("owned_vs_on_demand")
    pay = (f"the purchase pays for itself in month {int(month)}" if month == month
           else f"the purchase does not pay back within {inputs.horizon_months} months")
    mean_be = result.break_even_utilisation_on_demand_vs_owned_at_mean_price_fraction
    detail = (f"Cheapest per useful GPU-hour: **{cheapest}** ({money(cost[result.cheapest_option], display)}). "
              f"In cash terms {pay}.")
    if inputs.rental_price_decline_fraction_per_year > 0 and math.isfinite(mean_be):
        detail += (f" With rental prices falling {inputs.rental_price_decline_fraction_per_year:.0%} a year, owning "
                   f"needs {mean_be:.0%} utilisation against the average rental price over the horizon.")
    return Verdict(head, detail)


def utilisation_sweep(inputs: TcoInputs, n: int = 96) -> pd.DataFrame:
    """Cost per useful GPU-hour of each option over utilisation: one vectorised engine call."""
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
    """Monte Carlo at the chosen utilisation plus p10/p50/p90 bands over a utilisation grid."""
    rng_map = {name: (low, mode, high) for name, low, mode, high in ranges}
    at_u = monte_carlo(inputs, ranges=rng_map, n_draws=n_draws, seed=0)
    grid = np.linspace(0.1, 1.0, 19)
    bands = []
    for u in grid:
        r = monte_carlo(inputs.model_copy(update={"utilisation_fraction": float(u)}), ranges=rng_map,
                        n_draws=max(2_000, n_draws // 10), seed=1)
        for option, pct in r.percentiles_eur_per_useful_gpu_hour.items():
            bands.append({"utilisation": u, "option": option, **pct})
    return at_u, pd.DataFrame(bands)


def ranges_frame(inputs: TcoInputs) -> pd.DataFrame:
    rows = [{"input": k, "low": v[0], "most likely": v[1], "high": v[2]} for k, v in default_monte_carlo_ranges(inputs).items()]
    return pd.DataFrame(rows)


def assumptions_frame(inputs: TcoInputs) -> pd.DataFrame:
    return pd.DataFrame([{"input": a.name, "value": a.value, "unit": a.unit, "source": a.source}
                         for a in inputs.assumptions()])
