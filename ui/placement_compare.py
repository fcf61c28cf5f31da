"""Private or public core, compared (issue #29): the Placement page's four strategies for the same portfolio,
all on demand; own cluster + burst; managed dedicated + burst; reserved public + burst, each with its cost over
the horizon, residency, lead time and what it assumes, the recommendation, and the monthly ramp as a chart.

The own cluster's cost per GPU-hour comes from the Rent-or-own inputs of the scenario (one formula path:
:class:`engine.placement.OwnCluster` calls :func:`engine.tco.horizon_cost_eur_per_gpu`). Managed dedicated
venues are offer rows with ``is_dedicated`` True (workspace quotes merged into the offer frame).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from engine.placement import (
    MAX_HORIZON_MONTHS,
    OWN_VENUE_ID,
    OwnCluster,
    PlacementInfeasibleError,
    PlacementTooLargeError,
    StrategyComparison,
    Workload,
    compare_strategies,
    monthly_ramp,
)
from engine.tco import TcoInputs
from ui.charts import style
from ui.field_widgets import Bound, prefill, read_back
from ui.format import SYMBOL, money, plain, to_display_currency
from ui.placement_charts import WORKLOAD_COLOURS
from ui.placement_venues import build_venues, venue_frame, with_priced_offers, workload_page_priced
from ui.placement_view import portfolio, venue_labels
from ui.quotes import catalog_key
from ui.scenario import DisplaySettings, OwnClusterSettings, PlacementSection, get_scenario, update_scenario

#: The horizon and own-cluster widgets: PlacementSection.horizon_months and the OwnClusterSettings fields, keys
#: derived from the fields (ui.field_widgets); the two optional sizes show None as 0.
HORIZON = Bound("pl", "horizon_months", stored=int)
OWN_FIELDS = (Bound("pl_own_cluster", "include", stored=bool),
              Bound("pl_own_cluster", "lead_time_days", shown=float, stored=float),
              Bound("pl_own_cluster", "fixed_gpus", shown=lambda n: int(n or 0), stored=lambda n: int(n) or None),
              Bound("pl_own_cluster", "max_gpus", shown=lambda n: float(n or 0), stored=lambda n: float(n) or None),
              Bound("pl_own_cluster", "country", stored=lambda text: str(text).strip()[:60]),
              *(Bound("pl_own_cluster", f, stored=bool) for f in ("is_eu_datacenter", "is_eu_client")),
              Bound("pl_own_cluster", "gpu_model", stored=str))
OWN = {b.field: b.key for b in OWN_FIELDS}
SUBMIT_KEY, RAMP_KEY = "_plc_submit", "_plc_ramp"  # hold no field
BURST_COLOUR = "#9ca3af"


def own_cluster(settings: OwnClusterSettings, tco: TcoInputs) -> OwnCluster | None:
    """The engine's own-cluster venue from the page settings and the Rent-or-own inputs (None when left out)."""
    if not settings.include:
        return None
    return OwnCluster(tco=tco, lead_time_days=settings.lead_time_days, fixed_gpus=settings.fixed_gpus,
                      max_gpus=settings.max_gpus, reference_gpus=tco.cluster_gpus, country=settings.country,
                      is_eu_datacenter=settings.is_eu_datacenter, is_eu_client=settings.is_eu_client,
                      gpu_model=settings.gpu_model)


def inputs(catalog: pd.DataFrame, section: PlacementSection) -> PlacementSection:
    """The horizon and own-cluster form; a valid submit is written to the scenario. Returns the section to use."""
    own = section.own_cluster
    ss = st.session_state
    prefill([HORIZON], section, ss)
    prefill(OWN_FIELDS, own, ss)
    models = sorted(set(catalog["gpu_model"].dropna()) | {own.gpu_model})
    with st.form("plc_form", border=True):
        a, b, c = st.columns(3)
        a.number_input("Horizon (months)", 1, MAX_HORIZON_MONTHS, step=1, key=HORIZON.key,
                       help="Lead times count in it: before a venue is ready the plan bursts.")
        b.toggle("Include our own cluster", key=OWN["include"],
                 help="Priced by the Rent-or-own page's inputs (capex, depreciation, cost of capital, power, "
                      "colocation, staff, resale).")
        c.selectbox("Own cluster GPU model", models, key=OWN["gpu_model"])
        a, b, c = st.columns(3)
        a.number_input("Own cluster lead time (days)", 0.0, 3650.0, step=7.0, format="%.0f", key=OWN["lead_time_days"],
                       help="Default two quarters: the seed guide says lead times for dedicated GPU clusters 'can "
                            "stretch to quarters rather than weeks'.")
        b.number_input("Own cluster size (GPUs, 0 = the plan chooses)", 0, 100_000, step=8, key=OWN["fixed_gpus"])
        c.number_input("Most GPUs to buy when the plan chooses (0 = no cap)", 0.0, 100_000.0, step=8.0,
                       format="%.0f", key=OWN["max_gpus"])
        a, b, c = st.columns(3)
        a.text_input("Own site country", max_chars=60, key=OWN["country"], placeholder="e.g. DE")
        b.checkbox("Own site is in the EU/EEA", key=OWN["is_eu_datacenter"])
        c.checkbox("We are an EU organisation (EU parent)", key=OWN["is_eu_client"])
        st.form_submit_button("Compare", icon=":material/compare_arrows:", key=SUBMIT_KEY)
    settings = OwnClusterSettings(**read_back(OWN_FIELDS, ss))
    new = section.model_copy(update={"own_cluster": settings, **read_back([HORIZON], ss)})
    if new != section:
        update_scenario(placement=new)
    return new


@st.cache_data(ttl=600, max_entries=32, show_spinner="Comparing the four strategies…")
def _compare(_catalog: pd.DataFrame, key: tuple, workloads_json: str, settings_json: str, tco_json: str,
             priced: tuple[str, tuple[str, ...]] | None = None) -> StrategyComparison | str:
    workloads: tuple[Workload, ...] = with_priced_offers(
        PlacementSection.model_validate_json(workloads_json).workloads, priced)
    s = PlacementSection.model_validate_json(settings_json)
    frame, _, _ = venue_frame(_catalog, s.scope, s.residency)
    try:
        return compare_strategies(workloads, build_venues(frame, s),
                                  own_cluster(s.own_cluster, TcoInputs.model_validate_json(tco_json)),
                                  horizon_months=s.horizon_months)
    except (PlacementTooLargeError, PlacementInfeasibleError) as exc:
        return str(exc)


def compare(section: PlacementSection, catalog: pd.DataFrame, usd_per_eur: float) -> StrategyComparison | str:
    """The four strategies for the page's portfolio (cached per portfolio, settings, TCO inputs and catalog)."""
    workloads = PlacementSection(workloads=list(portfolio(section))).model_dump_json(include={"workloads"})
    settings = section.model_dump_json(exclude={"workloads", "example"})
    return _compare(catalog, catalog_key(usd_per_eur), workloads, settings,
                    get_scenario().tco.inputs.model_dump_json(), workload_page_priced(section, usd_per_eur))


def table(c: StrategyComparison, display: DisplaySettings) -> pd.DataFrame:
    """One row per strategy: cost over the horizon and per month, committed GPUs, residency, lead time, assumptions."""
    rows = []
    for r in c.results:
        cost = r.total_cost_eur
        rows.append({
            "Strategy": ("★ " if r.key == c.recommended else "") + r.label,
            f"Cost over {c.horizon_months} months": money(cost, display, 0) if math.isfinite(cost) else "not possible",
            "Per month": money(cost / c.horizon_months, display, 0) if math.isfinite(cost) else "—",
            "Committed GPUs": str(r.committed_gpus) if r.plan is not None else "—",
            "Residency": r.residency, "Lead time": r.lead_time,
            "Assumes": "; ".join(r.assumptions) or "—",
            "Why not": "; ".join(r.problems) if not r.feasible else "",
        })
    return pd.DataFrame(rows)


def recommendation(c: StrategyComparison) -> str:
    """The recommendation and its reasons, as plain text (venue ids and quote labels may be user text)."""
    if c.recommended is None:
        return "**No strategy can place every workload.** " + plain("; ".join(c.reasons))
    head, *rest = c.reasons
    return f"**Recommended: {plain(head)}.**\n\n" + "\n".join(f"- {plain(r)}" for r in rest)


def ramp_chart(c: StrategyComparison, key: str, catalog: pd.DataFrame, display: DisplaySettings) -> go.Figure:
    """Stacked monthly bars of committed GPUs per venue (after each lead time) and the average GPUs bursting,
    with the strategy's monthly cost as a line on the second axis."""
    r = c.result(key)
    fig = go.Figure()
    if r.plan is None:
        return style(fig, height=380, title=f"{r.label}: not possible")
    ramp = monthly_ramp(r.plan)
    labels = {**venue_labels(catalog), OWN_VENUE_ID: "Own cluster"}
    for i, (vid, gpus) in enumerate(ramp.committed_gpus.items()):
        fig.add_trace(go.Bar(x=ramp.month, y=gpus, name=f"committed · {labels.get(vid, vid)}",
                             marker_color=WORKLOAD_COLOURS[i % len(WORKLOAD_COLOURS)],
                             hovertemplate="month %{x}: %{y:.0f} committed GPUs<extra></extra>"))
    fig.add_trace(go.Bar(x=ramp.month, y=ramp.burst_gpu_hours / 730.0, name="burst (average GPUs, paid as used)",
                         marker_color=BURST_COLOUR, hovertemplate="month %{x}: %{y:.1f} GPUs bursting on average"
                                                                  "<extra></extra>"))
    sym = SYMBOL[display.currency]
    fig.add_trace(go.Scatter(x=ramp.month, y=to_display_currency(ramp.cost_eur, display), name="cost per month", yaxis="y2",
                             mode="lines", line=dict(color="#1f2933", width=2),
                             hovertemplate=f"month %{{x}}: {sym}%{{y:,.0f}}<extra></extra>"))
    fig.update_layout(barmode="stack", yaxis=dict(title="GPUs", rangemode="tozero"),
                      yaxis2=dict(title=f"{sym} per month", overlaying="y", side="right", rangemode="tozero",
                                  tickprefix=sym, showgrid=False),
                      xaxis=dict(title="Month", dtick=max(1, c.horizon_months // 12)))
    return style(fig, height=420, title=f"{r.label}: month by month (the ramp while capacity becomes ready)")


def feasible_keys(c: StrategyComparison) -> list[str]:
    """Strategies with a plan, recommended first (the chart picker's options)."""
    keys = [r.key for r in c.results if r.plan is not None]
    return sorted(keys, key=lambda k: (k != c.recommended, keys.index(k)))


@st.cache_data(ttl=600, max_entries=32, show_spinner=False)
def _unknown_capacity(_catalog: pd.DataFrame, key: tuple, settings_json: str) -> int:
    """How many venues state no capacity (cached per catalog version and settings: it is the same every rerun)."""
    s = PlacementSection.model_validate_json(settings_json)
    return int(np.isinf(build_venues(venue_frame(_catalog, s.scope, s.residency)[0], s).capacity_gpus).sum())


def draw(section: PlacementSection, catalog: pd.DataFrame, display: DisplaySettings) -> None:
    """The whole section: inputs, table, recommendation and the ramp chart."""
    st.subheader("Private or public core: four ways compared")
    st.caption("The same portfolio planned four ways. Own cluster: priced by the Rent-or-own page's inputs over the "
               "months it is usable. Managed dedicated: offers or quotes marked dedicated (single-tenant). Reserved "
               "public: published (or estimated) committed prices. Every strategy bursts on the same pay-as-you-go "
               "offers, and before a venue's lead time has passed it bursts everything.")
    section = inputs(catalog, section)
    c = compare(section, catalog, display.usd_per_eur)
    if isinstance(c, str):
        st.error(f"**Nothing was compared.** {plain(c)}", icon=":material/block:")
        return
    st.dataframe(table(c, display), hide_index=True, width="stretch", key="plc_table", row_height=72,
                 column_config={"Assumes": st.column_config.TextColumn("Assumes", width="large"),
                                "Why not": st.column_config.TextColumn("Why not", width="medium")})
    st.markdown(recommendation(c))
    keys = feasible_keys(c)
    if keys:
        pick = st.radio("Ramp of", keys, horizontal=True, key=RAMP_KEY,
                        format_func=lambda k: c.result(k).label)
        st.plotly_chart(ramp_chart(c, pick or keys[0], catalog, display), width="stretch", key="plc_ramp")
    unknown = _unknown_capacity(catalog, catalog_key(display.usd_per_eur), section.model_dump_json())
    if unknown:
        st.caption(f":material/help: Capacity not stated for {unknown} offers: the plan takes them as "
                   "unlimited. Cap a venue under *Venue settings* above.")
