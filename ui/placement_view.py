"""Widgets, cached solve and tables of the Hybrid placement page (kept here so the page stays thin).

The engine (:mod:`engine.placement`) places a portfolio of workloads on catalog offers ("venues"): per
workload, how many GPUs to commit where, and where the rest bursts. This module holds the example
portfolios, binds the portfolio grid and the venue settings to :class:`~ui.scenario.PlacementSection`
(validating every edited row through the :class:`~engine.placement.Workload` model), caches the solve with
both baselines and the on-demand price sensitivity per portfolio, settings and catalog version, and shapes
the results for display. Money stays in EUR until the last step (:mod:`ui.format`).
"""

from __future__ import annotations

import math
from typing import NamedTuple, TypedDict

import numpy as np
import pandas as pd
import streamlit as st
from pydantic import ValidationError

from catalog.cells import clean_value
from engine.adapters import is_marketplace
from engine.assumptions import is_missing
from engine.money import from_eur
from engine.placement import (
    EPOCH_COMMITMENT_DISCOUNT_FRACTION,
    HOURS_PER_WEEK,
    MAX_WORKLOAD_GPUS,
    PlacementInfeasibleError,
    PlacementPlan,
    PlacementTooLargeError,
    Workload,
    WorkloadKind,
    baseline_all_on_demand,
    baseline_dedicated_for_peak,
    demand_profiles_gpus,
    place_portfolio,
    sensitivity_to_on_demand_price,
)
from engine.tco import HOURS_PER_MONTH
from ui import offer_scope
from ui.field_widgets import Bound, State, prefill, read_back
from ui.format import SYMBOL, assumption_table, money, plain
from ui.labels import PLACEMENT_GRID_LABELS as COLUMNS  # grid columns: Workload field -> header
from ui.labels.pages import PLACEMENT_TOGGLES
from ui.placement_examples import EXAMPLES
from ui.placement_venues import (
    build_venues,
    venue_facts,
    venue_frame,
    venue_rules,
    with_priced_offers,
    workload_page_priced,
)
from ui.quotes import catalog_key
from ui.scenario import (
    MAX_OTHER_DISCOUNT_PCT,
    MAX_VENUE_CAPACITY_GPUS,
    DisplaySettings,
    PlacementSection,
    get_scenario,
    update_scenario,
    widget_key,
)

TERMS = {"3 years": 3, "1 year": 1, "Published reserved prices only": None}
FACTORS = (0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4)  # on-demand price multipliers of the sensitivity
#: The venue settings' widgets, one per PlacementSection field, with how each shows it (keys derived from the
#: fields, ui.field_widgets): the term as its label, the assumed discount in percent (0 = none).
SETTINGS = (Bound("pl", "commitment_term_years", shown=lambda years: next(k for k, v in TERMS.items() if v == years),
                  stored=TERMS.__getitem__),
            Bound("pl", "other_provider_discount_fraction", shown=lambda fraction: round(100 * (fraction or 0.0)),
                  stored=lambda pct: pct / 100 if pct else None),
            *(Bound("pl", f, stored=bool) for f in ("commit_on_stale_or_unknown", "match_workload_page",
                                                     "marketplace_for_every_workload")))
K_TERM, K_DISCOUNT = SETTINGS[0].key, SETTINGS[1].key
#: The example picker (its on_change stores the example), the two grid editors (their edits; the frames they start
#: from under ``..._base``) and the scope and residency controls (ui.offer_scope, under these prefixes).
K_EXAMPLE, K_GRID, K_CAP, K_SCOPE, K_RESIDENCY = (
    widget_key("pl", f) for f in ("example", "workloads", "capacity_gpus", "scope", "residency"))
K_BASE, K_CAP_BASE = K_GRID + "_base", K_CAP + "_base"
K_RESET, K_SUBMIT = "_pl_reset", "_pl_submit"  # buttons (hold no field)


# --------------------------------------------------------------------------------------------------
# Portfolio grid <-> workloads
# --------------------------------------------------------------------------------------------------


def portfolio(section: PlacementSection) -> tuple[Workload, ...]:
    """The edited portfolio, or the chosen example's when none is stored."""
    return tuple(section.workloads) or EXAMPLES.get(section.example, next(iter(EXAMPLES.values()))).workloads


def portfolio_frame(workloads) -> pd.DataFrame:
    rows = [{f: (str(v) if f == "kind" else v) for f in COLUMNS for v in [getattr(w, f)]} for w in workloads]
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype({"mean_gpus": float, "peak_gpus": float,
                                                            "min_gpu_memory_gb": float})


def _message(msg: str) -> str:
    msg = msg.removeprefix("Value error, ").replace("Field required", "required").replace(" x ", " × ")
    msg = msg.replace(" or hourly_demand_gpus", "")  # uploaded series are not edited in this grid
    for field, label in COLUMNS.items():
        msg = msg.replace(field, f"'{label}'")
    return msg


def rows_to_workloads(frame: pd.DataFrame) -> tuple[list[Workload], list[str]]:
    """Validate every grid row through :class:`Workload`; rows with no entry at all are ignored.

    Returns the workloads and one message per problem, naming the row (1 = first), the column and why.
    """
    workloads: list[Workload] = []
    errors: list[str] = []
    seen: dict[str, int] = {}  # workload name -> its row (1 = first)
    int_fields = {"busy_hours_per_day", "busy_days_per_week", "first_busy_hour"}
    for pos, row in enumerate(frame.to_dict("records"), start=1):
        values = {f: clean_value(row.get(f), strip_text=True) for f in COLUMNS}
        if all(values[f] is None for f in ("name", "mean_gpus", "peak_gpus")):
            continue
        data = {f: (int(v) if f in int_fields and float(v).is_integer() else v)
                for f, v in values.items() if v is not None}
        label = f"Row {pos}" + (f" ('{plain(values['name'])}')" if values["name"] else "")
        try:
            w = Workload(**data)
        except ValidationError as exc:
            for e in exc.errors():
                column = COLUMNS.get(str(e["loc"][0]), "Demand") if e["loc"] else "Demand"
                errors.append(f"**{label} · {column}**: {_message(e['msg'])}")
            continue
        if w.name in seen:
            errors.append(f"**{label} · Workload**: the name is already used in row {seen[w.name]}; names must be unique")
            continue
        seen[w.name] = pos
        workloads.append(w)
    if not workloads and not errors:
        errors.append("**The portfolio is empty**: add at least one workload (a row with a name, mean and peak GPUs)")
    return workloads, errors


def _load_example() -> None:
    """on_change of the example picker (and the reset button): the example's portfolio, edits dropped."""
    ss = st.session_state
    name = ss.get(K_EXAMPLE) if ss.get(K_EXAMPLE) in EXAMPLES else next(iter(EXAMPLES))
    section = get_scenario().placement  # an example names its own GPU models: the brief's GPU class is lifted
    update_scenario(placement=section.model_copy(update={"example": name, "workloads": [],
                                                         "scope": section.scope.model_copy(update={"gpu_models": ()})}))
    for key in (K_GRID, K_BASE):
        ss.pop(key, None)


def capacity_frame(capacity_gpus: dict[str, float]) -> pd.DataFrame:
    """The capacity grid's rows: offer_id, capacity_gpus."""
    return pd.DataFrame({"offer_id": list(capacity_gpus), "capacity_gpus": list(capacity_gpus.values())},
                        columns=["offer_id", "capacity_gpus"]).astype({"offer_id": object, "capacity_gpus": float})


def capacity_from_frame(frame: pd.DataFrame) -> dict[str, float]:
    """offer_id -> GPUs of the capacity grid's complete rows."""
    return {str(offer_id): float(gpus) for offer_id, gpus in zip(frame["offer_id"], frame["capacity_gpus"], strict=True)
            if isinstance(offer_id, str) and pd.notna(gpus)}


def prefill_widgets(section: PlacementSection, state: State | None = None) -> None:
    """Give the page's widgets without state the section's values (the grids: on a fresh visit)."""
    ss = st.session_state if state is None else state
    ss.setdefault(K_EXAMPLE, section.example if section.example in EXAMPLES else next(iter(EXAMPLES)))
    prefill(SETTINGS, section, ss)
    if K_GRID not in ss:  # a fresh visit: the grid starts from the stored portfolio
        ss[K_BASE] = portfolio_frame(portfolio(section))
    if K_CAP not in ss:
        ss[K_CAP_BASE] = capacity_frame(section.capacity_gpus)


class _GpuCountColumn(TypedDict):
    """The shared arguments of the grid's GPU-count columns (mean and peak GPUs)."""

    min_value: float
    max_value: float
    step: float
    format: str


def _grid_config(gpu_models: list[str]) -> dict:
    cc = st.column_config
    n = _GpuCountColumn(min_value=0.0, max_value=float(MAX_WORKLOAD_GPUS), step=0.5, format="%g")
    config = {
        "name": cc.TextColumn(COLUMNS["name"], required=True, max_chars=60, width=165),
        "kind": cc.SelectboxColumn(COLUMNS["kind"], options=[k.value for k in WorkloadKind], default="training",
                                   required=True, help="Labels the plan; does not change the arithmetic."),
        "gpu_model": cc.SelectboxColumn(COLUMNS["gpu_model"], options=gpu_models,
                                        help="Only this GPU model; empty = any model (1 GPU counts as 1 GPU: no "
                                             "performance normalisation between models)."),
        "min_gpu_memory_gb": cc.NumberColumn(COLUMNS["min_gpu_memory_gb"], min_value=0.0, max_value=1_000.0,
                                             step=1.0, default=0.0, format="%g"),
        "mean_gpus": cc.NumberColumn(COLUMNS["mean_gpus"], help="Average GPUs in use over the week.", **n),
        "peak_gpus": cc.NumberColumn(COLUMNS["peak_gpus"], help="GPUs in use in the busy hours.", **n),
        "busy_hours_per_day": cc.NumberColumn(COLUMNS["busy_hours_per_day"], min_value=1, max_value=24, step=1,
                                              default=24, help="Length of the daily busy window at the peak."),
        "busy_days_per_week": cc.NumberColumn(COLUMNS["busy_days_per_week"], min_value=1, max_value=7, step=1,
                                              default=7, help="Busy days per week, Monday first."),
        "first_busy_hour": cc.NumberColumn(COLUMNS["first_busy_hour"], min_value=0, max_value=23, step=1, default=8,
                                           help="Hour of day the busy window starts (wraps past midnight)."),
        "may_leave_eu": cc.CheckboxColumn(COLUMNS["may_leave_eu"], default=True,
                                          help="Off: the data must stay in a data centre in the EU/EEA."),
        "eu_jurisdiction_required": cc.CheckboxColumn(COLUMNS["eu_jurisdiction_required"], default=False,
                                                      help="On: the provider's parent company must be EU-based."),
        "latency_sensitive": cc.CheckboxColumn(COLUMNS["latency_sensitive"], default=False,
                                               help="Serves users in Europe interactively: known EU data centre, "
                                                    "never spot."),
        "spot_allowed": cc.CheckboxColumn(COLUMNS["spot_allowed"], default=False,
                                          help="Checkpointed: tolerates interruptions, so bursts may use spot."),
        "needs_infiniband": cc.CheckboxColumn(COLUMNS["needs_infiniband"], default=False,
                                              help="Multi-node job that needs an InfiniBand fabric."),
        "needs_nvlink": cc.CheckboxColumn(COLUMNS["needs_nvlink"], default=False, help="Needs NVLink inside the node."),
    }
    widths = {"name": 160, "kind": 105, "gpu_model": 130, "mean_gpus": 100, "peak_gpus": 100}
    for field, column in config.items():  # demand and rules first; the rarely changed columns scroll
        column["width"] = widths.get(field, 112)
    return {f: config[f] for f in COLUMNS}


def reserved_note(catalog: pd.DataFrame) -> str:
    published = catalog[catalog["reserved_eur_per_gpu_hour"].notna()]
    who = ", ".join(sorted(published["provider_name"].unique()))
    epoch = ", ".join(f"{p} {d[1]:.0%}/{d[3]:.0%}" for p, d in EPOCH_COMMITMENT_DISCOUNT_FRACTION.items())
    return (f"The catalog has a published reserved price for only {len(published)} of {len(catalog)} offers "
            f"({who or 'none'}). With a 1- or 3-year term, a missing reserved price of AWS, Google Cloud, Azure or "
            f"Lambda is **estimated** as on demand × (1 − Epoch AI discount; 1 y/3 y: {epoch}); the plan marks those "
            "rates as estimated. Other providers get a rate only from the discount you assume below, marked as yours. "
            "Marketplace (community) offers get none: their hosts sell no commitment.")


def portfolio_inputs(catalog: pd.DataFrame) -> tuple[PlacementSection, list[str]]:
    """Draw the example picker and the form (portfolio grid + venue settings); write a valid edit back to
    the scenario. Returns the section to plan (the last valid one) and the problems of the current edit."""
    section = get_scenario().placement
    prefill_widgets(section)
    ss = st.session_state
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    left.selectbox("Start from an example portfolio", list(EXAMPLES), key=K_EXAMPLE, on_change=_load_example,
                   format_func=lambda k: EXAMPLES[k].label)
    right.button("Back to the example", key=K_RESET, on_click=_load_example, icon=":material/restart_alt:",
                 width="stretch", disabled=not section.workloads)
    st.caption(f"{EXAMPLES[ss[K_EXAMPLE]].story} *Sizes are illustrative examples, not data.* One row per "
               "workload: busy hours run at the peak, the other hours at the level that makes the mean; the busy-hours "
               "pattern, minimum memory and NVLink are further right. Edit, then **Update the plan**.")
    with st.form("pl_form", border=False):
        edited = st.data_editor(ss[K_BASE], key=K_GRID, num_rows="dynamic", hide_index=True, width="stretch",
                                column_config=_grid_config(sorted(catalog["gpu_model"].dropna().unique())))
        with st.container(border=True):
            st.markdown("**Client-wide venue rules** (on top of each workload's own; the same filters as Scoring and "
                        "Workload cost)")
            residency = offer_scope.residency_widgets(
                K_RESIDENCY, section.residency,
                offer_scope.certification_options(catalog, section.residency.required_certifications))
            a_, b_ = st.columns(2)
            include_outliers = offer_scope.outlier_toggle(K_SCOPE, section.scope.include_price_outliers, a_)
            for box, opt in zip((b_, a_, b_), SETTINGS[2:], strict=True):  # the three opt-ins
                box.toggle(PLACEMENT_TOGGLES[opt.field][0], key=opt.key, help=PLACEMENT_TOGGLES[opt.field][1])
        with st.expander("Venue settings: commitment term, assumed discounts, capacity", icon=":material/tune:"):
            st.markdown(reserved_note(catalog))
            a, b = st.columns(2)
            a.radio("Commitment term", list(TERMS), key=K_TERM, horizontal=True,
                    help="Term of the reserved capacity; picks the Epoch discount used for missing reserved prices.")
            b.number_input("Assumed commitment discount for other providers (%)", 0, MAX_OTHER_DISCOUNT_PCT, step=5, key=K_DISCOUNT,
                           help="Your assumption, e.g. a negotiated discount: reserved = on demand × (1 − discount) "
                                "for providers Epoch does not cover. 0 = none assumed (no commitment there).")
            st.markdown("**Capacity per venue** (optional): the most GPUs the portfolio may commit at an offer; "
                        "others are unlimited.")
            labels = venue_labels(catalog)
            cap = st.data_editor(ss[K_CAP_BASE], key=K_CAP, num_rows="dynamic", hide_index=True, width="stretch",
                                 column_config={
                                     "offer_id": st.column_config.SelectboxColumn(
                                         "Venue (catalog offer)", options=catalog["offer_id"].tolist(), required=True,
                                         width="large", format_func=lambda offer_id: labels[str(offer_id)]),
                                     "capacity_gpus": st.column_config.NumberColumn(
                                         "Most GPUs to commit", min_value=0, max_value=MAX_VENUE_CAPACITY_GPUS, step=1, required=True)})
        st.form_submit_button("Update the plan", type="primary", icon=":material/refresh:", key=K_SUBMIT)
    workloads, problems = rows_to_workloads(edited)
    capacity = capacity_from_frame(cap)
    if problems:
        return section, problems
    example = EXAMPLES.get(section.example)
    stored = [] if example and tuple(workloads) == example.workloads else workloads
    try:
        new = PlacementSection(example=section.example, workloads=stored, **read_back(SETTINGS, ss),
                               capacity_gpus=capacity,
                               scope=section.scope.model_copy(update={"include_price_outliers": include_outliers}),
                               residency=residency, horizon_months=section.horizon_months,
                               own_cluster=section.own_cluster)
    except ValidationError as exc:
        return section, [f"**Settings**: {_message(e['msg'])}" for e in exc.errors()]
    if new != section:
        update_scenario(placement=new)
    return new, []


# --------------------------------------------------------------------------------------------------
# Solve (cached per portfolio, settings and catalog version)
# --------------------------------------------------------------------------------------------------


class Solved(NamedTuple):
    workloads: tuple[Workload, ...]
    plan: PlacementPlan | None
    problems: tuple[str, ...]  # why the portfolio cannot be placed (empty when planned)
    all_on_demand: PlacementPlan | None
    dedicated: PlacementPlan | None
    dedicated_problem: str | None
    week_demand_gpus: np.ndarray  # (n_workloads, 168), the first week of the year's profile
    factors: np.ndarray
    sensitivity: pd.DataFrame  # factor, plan, all_on_demand, dedicated [EUR/month], committed_gpus
    n_estimated_venues: int
    venues: pd.DataFrame = pd.DataFrame()  # catalog rows used as venues (client-wide rules applied), prices in EUR
    n_outside_rules: int = 0  # catalog offers the client-wide rules leave out
    n_outlier_prices: int = 0  # flagged prices not used
    estimate_source: dict = {}  # offer_id -> "Epoch AI discount" / "your assumed discount" for estimated rates
    too_large: bool = False  # over the engine's work budget (problems says why): nothing was solved


@st.cache_data(ttl=600, max_entries=64, show_spinner="Placing the portfolio…")
def _solve(_catalog: pd.DataFrame, catalog_key: tuple, workloads_json: str, settings_json: str,
           priced: tuple[str, tuple[str, ...]] | None = None) -> Solved:
    workloads = with_priced_offers(PlacementSection.model_validate_json(workloads_json).workloads, priced)
    try:
        return _solve_all(_catalog, workloads, PlacementSection.model_validate_json(settings_json))
    except PlacementTooLargeError as exc:  # the engine's work budget, checked before it builds anything
        return Solved(workloads, None, (str(exc),), None, None, None, np.zeros((len(workloads), HOURS_PER_WEEK)),
                      np.asarray(FACTORS), pd.DataFrame(), 0, too_large=True)


def _solve_all(_catalog: pd.DataFrame, workloads: tuple[Workload, ...], s: PlacementSection) -> Solved:
    frame, n_out, n_outliers = venue_frame(_catalog, s.scope, s.residency)
    # Marketplace hosts sell no commitment: their missing reserved rate is never estimated from a discount.
    venues = build_venues(frame, s)
    week = demand_profiles_gpus(workloads)[:, :HOURS_PER_WEEK]
    n_est = int(venues.reserved_is_estimated.sum())
    source = {v: src for v, src in zip(venues.venue_id.tolist(), venues.reserved_estimate_source.tolist(),
                                       strict=True) if src}
    empty = pd.DataFrame(columns=["factor", "plan", "all_on_demand", "dedicated", "committed_gpus"])
    try:
        plan = place_portfolio(workloads, venues, horizon_months=s.horizon_months)
    except PlacementInfeasibleError as exc:
        return Solved(workloads, None, exc.problems, None, None, None, week, np.asarray(FACTORS), empty, n_est, frame,
                      n_out, n_outliers, source)
    on_demand = baseline_all_on_demand(workloads, venues, horizon_months=s.horizon_months)
    dedicated, dedicated_problem = None, None
    try:
        dedicated = baseline_dedicated_for_peak(workloads, venues, horizon_months=s.horizon_months)
    except PlacementInfeasibleError as exc:
        dedicated_problem = "; ".join(exc.problems)
    sens = sensitivity_to_on_demand_price(workloads, venues, FACTORS, horizon_months=s.horizon_months)
    peak = []
    for f in FACTORS:
        try:
            peak.append(baseline_dedicated_for_peak(workloads, venues.with_on_demand_factor(f),
                                                    horizon_months=s.horizon_months).total_cost_eur_per_month)
        except PlacementInfeasibleError:
            peak.append(math.nan)
    sens_frame = pd.DataFrame({"factor": sens.factors, "plan": sens.total_cost_eur_per_month,
                               "all_on_demand": sens.all_on_demand_cost_eur_per_month, "dedicated": peak,
                               "committed_gpus": sens.committed_gpus})
    return Solved(workloads, plan, (), on_demand, dedicated, dedicated_problem, week, sens.factors, sens_frame, n_est,
                  frame, n_out, n_outliers, source)


def solve(section: PlacementSection, catalog: pd.DataFrame, usd_per_eur: float) -> Solved:
    key = catalog_key(usd_per_eur)  # carries the viewer's role: ``catalog`` holds private quotes for editors only
    workloads = PlacementSection(workloads=list(portfolio(section))).model_dump_json(include={"workloads"})
    settings = section.model_dump_json(exclude={"workloads", "example", "own_cluster"})
    return _solve(catalog, key, workloads, settings, workload_page_priced(section, usd_per_eur))


# --------------------------------------------------------------------------------------------------
# Words and tables
# --------------------------------------------------------------------------------------------------


#: The last catalog frame's venue labels: [frame, labels] (the frame is held, so its id cannot be reused).
_LAST_LABELS: list = [None, {}]


def venue_labels(catalog: pd.DataFrame) -> dict[str, str]:
    """offer_id -> 'provider · GPU · n GPUs · region' (node sizes and regions read differently). The page asks
    for the labels of the same catalog frame five times a rerun: the last frame's labels are kept (by identity:
    the frame object is held, so its id cannot be reused by another; issue #31)."""
    frame, labels = _LAST_LABELS
    if frame is catalog:
        return labels
    labels = dict(zip(catalog["offer_id"], offer_scope.picker_labels(catalog, flags=False), strict=True))
    _LAST_LABELS[:] = [catalog, labels]  # one slice assignment: another session never sees a mixed pair
    return labels


def readable(text: str, labels: dict[str, str]) -> str:
    """Offer ids in an engine reason replaced by 'provider · GPU · region' (longest ids first)."""
    for vid in sorted((v for v in labels if v in text), key=len, reverse=True):
        text = text.replace(vid, labels[vid])
    return text


def _where(by_id: pd.DataFrame, ids: list[str | None]) -> str:
    """Data location of the venues ``ids`` (``by_id``: the catalog's residency columns indexed by offer id)."""
    rows = by_id.loc[[i for i in ids if i]]
    if rows.empty:
        return "—"
    eu_dc = rows["is_eu_datacenter"].fillna(False).astype(bool).all()
    juris = "/".join(sorted(rows["parent_jurisdiction"].fillna("not stated").unique()))
    return f"{'EU data centre' if eu_dc else 'outside EU or not stated'} · {juris} provider"


def plan_table(solved: Solved, catalog: pd.DataFrame, display: DisplaySettings) -> tuple[pd.DataFrame, dict]:
    labels = venue_labels(catalog)
    by_id = catalog[["offer_id", "is_eu_datacenter", "parent_jurisdiction"]].set_index("offer_id")
    plan = solved.plan
    assert plan is not None, "called only with a plan (the page and the exports show infeasible_message otherwise)"
    rows = []
    for pl in plan.placements:
        source = solved.estimate_source.get(pl.committed_venue_id, "")
        commit = ("—" if pl.committed_venue_id is None else labels.get(pl.committed_venue_id, "—")) + (
            "" if not pl.committed_rate_is_estimated else " (rate from your assumed discount)"
            if source == "your assumed discount" else " (rate estimated from the Epoch AI discount)")
        burst = "—" if pl.burst_venue_id is None else (
            f"{labels.get(pl.burst_venue_id, pl.burst_venue_id)} · {(pl.burst_price_type or '').replace('_', '-')}")
        rows.append({
            "Workload": pl.workload, "Committed GPUs": pl.committed_gpus, "Committed at": commit,
            "Venue facts": venue_facts(catalog, pl.committed_venue_id, get_scenario().placement.capacity_gpus),
            "Commit rate": pl.committed_rate_eur_per_gpu_hour, "Burst at": burst,
            "Burst GPU-h/month": pl.burst_gpu_hours_per_month, "Monthly cost": pl.cost_eur_per_month,
            "Committed use": pl.committed_utilisation_fraction,
            "Data location": _where(by_id, [pl.committed_venue_id, pl.burst_venue_id if pl.burst_gpu_hours_per_month
                                              > 0 or not pl.committed_gpus else None]),
            "Reason": readable(pl.reason, labels),
            "committed_offer_id": pl.committed_venue_id, "burst_offer_id": pl.burst_venue_id,
        })
    frame = pd.DataFrame(rows)
    for col in ("Commit rate", "Monthly cost"):
        frame[col] = [float(money_value(v, display)) for v in frame[col]]
    sym = SYMBOL[display.currency]
    nc = st.column_config.NumberColumn
    config = {
        "Workload": st.column_config.TextColumn("Workload", width=150),
        "Committed GPUs": nc("Committed GPUs", width=115, help="GPUs paid every hour of the term."),
        "Committed at": st.column_config.TextColumn("Committed at", width=175),
        "Venue facts": st.column_config.TextColumn("Venue facts", width=170, help="Of the committed venue: dedicated "
                                                   "(single-tenant) or shared, capacity and lead time; 'not stated' "
                                                   "where no source or quote says."),
        "Commit rate": nc(f"Commit rate ({sym}/GPU-h)", format=f"{sym}%.2f", width=145),
        "Burst at": st.column_config.TextColumn("Burst at", width=175),
        "Burst GPU-h/month": nc("Burst GPU-h/month", format="%,.0f", width=140,
                                help="GPU-hours above the commitment, paid as used."),
        "Monthly cost": nc(f"Monthly cost ({sym})", format=f"{sym}%,.0f", width=135),
        "Committed use": nc("Committed use", format="percent", width=125,
                            help="Share of the committed GPU-hours actually used."),
        "Data location": st.column_config.TextColumn("Data location", width=140,
                                                     help="Of the venues this workload uses."),
        "Reason": st.column_config.TextColumn("Reason (in full below)", width=600),
        "committed_offer_id": None, "burst_offer_id": None,
    }
    return frame, config


def money_value(value_eur: float, display: DisplaySettings) -> float:
    return math.nan if is_missing(value_eur) else float(
        from_eur(value_eur, display.currency, display.usd_per_eur))


def savings(plan: PlacementPlan, baseline: PlacementPlan | None) -> tuple[float, float]:
    return (math.nan, math.nan) if baseline is None else plan.savings_against(baseline)


def cost_delta(saved_fraction: float) -> str | None:
    """A metric's delta for a saving: "-25% cost"; none when it rounds to 0 % or is undefined (never "-0%")."""
    if is_missing(saved_fraction) or round(saved_fraction * 100) == 0:
        return None
    return f"{-saved_fraction:+.0%} cost"


def summary(solved: Solved, section: PlacementSection, display: DisplaySettings) -> str:
    plan, n = solved.plan, len(solved.workloads)
    assert plan is not None, "called only with a plan (the page and the exports show infeasible_message otherwise)"
    used = {pl.committed_venue_id for pl in plan.placements if pl.committed_gpus}
    burst = sum(pl.burst_gpu_hours_per_month for pl in plan.placements)
    text = (f"**The plan commits {plan.total_committed_gpus} GPUs at {len(used)} venue{'s' * (len(used) != 1)} and "
            f"bursts {burst:,.0f} GPU-hours a month, for {money(plan.total_cost_eur_per_month, display, 0)} a month.**")
    od, od_pct = savings(plan, solved.all_on_demand)
    text += (f" That is {money(od, display, 0)} ({od_pct:.0%}) less than running every workload on demand"
             if od > 0.5 else " Running every workload on demand would cost the same")
    dp, dp_pct = savings(plan, solved.dedicated)
    text += (f" and {money(dp, display, 0)} ({dp_pct:.0%}) less than dedicated capacity sized for each peak."
             if not is_missing(dp) else f". The dedicated-for-peak baseline is not possible: {plain(solved.dedicated_problem)}.")
    sensitive = [w.name for w in solved.workloads if w.is_sensitive or w.latency_sensitive]
    if sensitive:
        text += f" {len(sensitive)} of {n} workloads are restricted to EU venues ({plain(', '.join(sensitive))})."
    idle = [pl.workload for pl in plan.placements if pl.committed_gpus == 0 and pl.peak_demand_gpus > 0]
    if idle:
        text += (f" {len(idle)} commit nothing ({plain(', '.join(idle))}): no eligible commitment beats paying as used "
                 "(see the reasons).")
    term = section.commitment_term_years
    by_source: dict[str, list[str]] = {}
    for pl in plan.placements:
        if pl.committed_rate_is_estimated and pl.committed_gpus:
            by_source.setdefault(solved.estimate_source.get(pl.committed_venue_id, "a discount"), []).append(pl.workload)
    if "Epoch AI discount" in by_source:
        text += (f" The commitments of {plain(', '.join(by_source['Epoch AI discount']))} use a reserved rate **estimated** "
                 f"for a {term}-year term from the Epoch AI discount, not a published price.")
    if "your assumed discount" in by_source:
        pct = f" of {section.other_provider_discount_fraction:.0%}" if section.other_provider_discount_fraction else ""
        text += (f" The commitments of {plain(', '.join(by_source['your assumed discount']))} use a reserved rate from "
                 f"**your assumed discount**{pct} for a {term}-year term: your input, not a published price or a "
                 "source's estimate.")
    return text


def rules_text(section: PlacementSection) -> str:
    """The client-wide venue rules in words ('none' when none narrows anything)."""
    text = offer_scope.scope_summary(section.scope, section.residency)
    return text.replace("price outliers left out", "").strip(" ·") or "none"


def plan_warnings(solved: Solved, section: PlacementSection, catalog: pd.DataFrame) -> list[str]:
    """What the plan rests on that needs checking: stale prices, marketplace commitments, outlier prices."""
    plan = solved.plan
    assert plan is not None, "called only with a plan (the page and the exports show infeasible_message otherwise)"
    rows = catalog.set_index("offer_id")
    used: dict[str, list[str]] = {}
    for pl in plan.placements:
        for vid in (pl.committed_venue_id if pl.committed_gpus else None,
                    pl.burst_venue_id if pl.burst_gpu_hours_per_month > 0 else None):
            if vid is not None and vid in rows.index:
                used.setdefault(vid, []).append(pl.workload)
    out = []
    stale = rows.loc[list(used)]
    warning = offer_scope.stale_warning(stale.reset_index(), "this plan")
    if warning:
        out.append(warning)
    committed = [(pl, pl.committed_venue_id) for pl in plan.placements  # with the venue id, not None
                 if pl.committed_gpus and pl.committed_venue_id is not None and pl.committed_venue_id in rows.index]
    market = [(pl, vid) for pl, vid in committed if is_marketplace(rows.loc[[vid]].reset_index())[0]]
    if market:
        out.append("**Commitment on a marketplace offer:** " + ", ".join(
            f"{plain(pl.workload)} commits {pl.committed_gpus} GPUs on {venue_labels(catalog)[vid]}"
            for pl, vid in market) + ". Third-party hosts set hourly prices and can leave the marketplace: a multi-year "
            "commitment there is not something the catalog's source offers. Check before relying on it.")
    if section.scope.include_price_outliers and "price_outlier" in rows:
        flagged = [vid for vid in used if bool(rows.at[vid, "price_outlier"])]
        if flagged:
            out.append("**A flagged price outlier is used** (you chose to use outliers): " + "; ".join(
                f"{venue_labels(catalog)[v]}: {rows.at[v, 'price_outlier_reason']!s}" for v in flagged) + ".")
    return out


def sensitivity_note(solved: Solved, display: DisplaySettings) -> str:
    s = solved.sensitivity.set_index("factor")
    lo, hi = s.iloc[0], s.iloc[-1]
    base = s.loc[1.0]
    assert isinstance(base, pd.Series)  # FACTORS are distinct: factor 1.0 is one row
    return (f"If every on-demand price were {1 - s.index[0]:.0%} lower, the optimised plan would commit "
            f"{int(lo.committed_gpus)} GPUs (now {int(base.committed_gpus)}) and cost "
            f"{money(lo.plan, display, 0)} a month; {s.index[-1] - 1:.0%} higher: {int(hi.committed_gpus)} GPUs, "
            f"{money(hi.plan, display, 0)}. Spot and reserved rates stay as they are; a commitment protects against "
            "a rise and costs more than needed after a fall.")


def infeasible_message(problems: tuple[str, ...], too_large: bool = False, solved: Solved | None = None,
                       section: PlacementSection | None = None, catalog: pd.DataFrame | None = None) -> str:
    if too_large:
        return f"**Nothing was planned.** {plain(' '.join(problems))}"
    if solved is not None and section is not None and catalog is not None and solved.venues.empty:
        from ui.brief_scope import no_venue_message  # the client-wide rules removed every offer (issue #27.9)

        return no_venue_message(catalog, venue_rules(section))
    items = "\n".join(f"- {plain(p)}" for p in problems)  # they name workloads and GPU models from the link
    return (f"**This portfolio cannot be placed on the catalog's offers.**\n\n{items}\n\nRelax the named requirement "
            "in the grid (or raise a venue capacity in the settings) and update the plan.")


def assumptions_frame(solved: Solved, section: PlacementSection, display: DisplaySettings) -> pd.DataFrame:
    page = [
        ("example portfolios", ", ".join(EXAMPLES), "-", "illustrative sizes and patterns written for this page "
         "(assumption), not measured data"),
        ("commitment_term_years", section.commitment_term_years or "published prices only", "years", "user input"),
        ("other_provider_discount_fraction", section.other_provider_discount_fraction or "none", "-",
         "user input (assumption): commitment discount for providers Epoch does not cover"),
        ("capacity_gpus", len(section.capacity_gpus) and ", ".join(f"{k}: {v:g}" for k, v in
                                                                   section.capacity_gpus.items()) or "none given",
         "GPU", "user input; other venues unlimited"),
        ("sensitivity_factors", ", ".join(f"{f:g}" for f in FACTORS), "-", "every on-demand rate multiplied; spot and "
         "reserved rates fixed (engine.placement.sensitivity_to_on_demand_price)"),
        ("usd_per_eur", display.usd_per_eur, "USD/EUR", "sidebar exchange rate: USD catalog prices are converted to EUR"),
        ("hours_per_month", HOURS_PER_MONTH, "h/month", "monthly figures are the year's cost × 730 / 8,760"),
    ]
    epoch = [(f"epoch_discount_{p}", f"1 y {d[1]:.0%}, 3 y {d[3]:.0%}", "-",
              "Epoch AI training-cost-trends constants.py DEFAULT_CUD") for p, d in EPOCH_COMMITMENT_DISCOUNT_FRACTION.items()]
    engine = [] if solved.plan is None else [a.row() for a in solved.plan.assumptions]
    return assumption_table(page + epoch + engine)
