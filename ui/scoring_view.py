"""Widgets, data preparation and tables of the Provider scoring page (kept here so the page stays thin).

The engine (:mod:`engine.scoring`) ranks catalog offers on weighted criteria after the hard constraints and
the missing-data rule. This module binds the page's widgets to :class:`~ui.scenario.ScoringSection`, caches
the ranking and the weight Monte Carlo per input, and shapes the results for display: the verdict in plain
language, the constraint funnel (which constraint removed how many offers, and why), the ranked table with
missing values shown as "not stated", the excluded offers with their reasons, and the assumptions. Prices
stay in EUR until the last step (:mod:`ui.format`).
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from catalog.coverage import certification_options
from catalog.store import STALE_AFTER_DAYS
from engine.adapters import build_decision_matrix
from engine.money import from_eur, to_eur
from engine.scope import scope_constraints
from engine.scoring import (
    CRITERIA,
    PRESETS,
    Constraints,
    Criterion,
    MonteCarloResult,
    Objective,
    ScoringResult,
    Weights,
    apply_constraints,
    monte_carlo_weights,
    rank,
    rank_alternatives,
)
from ui import offer_scope
from ui import scoring_charts as charts
from ui.catalog import catalog_key
from ui.format import SYMBOL, money, plain
from ui.quotes import offers_with_quotes
from ui.scenario import DisplaySettings, ScoringSection, get_scenario, update_scenario

N_SAMPLES = 1_000
CONCENTRATIONS = (2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0)
METHOD_LABEL = {"weighted_sum": "Weighted sum", "topsis": "TOPSIS (closeness to the ideal)"}
MISSING_LABEL = {"worst": "Score as the worst observed value", "exclude": "Leave the offer out"}
MISSING_EXPLAIN = {
    "worst": "A value the catalog does not state scores as the worst value observed for that criterion, so it "
             "never ranks above a stated one.",
    "exclude": "Offers missing any criterion that carries weight are left out and listed below with the reason.",
}
BASIS_LABEL = {"on_demand": "On-demand", "reserved": "Reserved, any term", "reserved_1y": "1-year commitment",
               "reserved_3y": "3-year commitment", "spot": "Spot (interruptible)",
               "cheapest": "Cheapest stated, any type"}
CONSTRAINT_LABEL = {
    **offer_scope.RESIDENCY_LABEL,
    "infiniband_only": "InfiniBand between nodes only",
    "sxm_only": "SXM boards only",
    "max_price_eur_per_gpu_hour": "Maximum price",
    "gpu_models": "GPU class",
    "min_memory_gb_per_gpu": "Memory per GPU",
    "exclude_price_outliers": "Price outliers left out",
}
#: The criterion that prefers what a hard constraint requires (named when a brief switches the constraint off).
_PREFERS = {"eu_resident_only": "eu_residency_score", "eu_jurisdiction_only": "jurisdiction_score",
            "infiniband_only": "inter_node_fabric_score"}
CONSTRAINT_HELP = {
    **offer_scope.RESIDENCY_HELP,
    "infiniband_only": "InfiniBand (NDR or HDR) between nodes, as documented for the instance family. Most sources do "
                       "not state the fabric: those offers fail.",
    "sxm_only": "SXM boards (NVLink/NVSwitch-capable), not PCIe or OAM.",
}
_KEYS = {name: f"_sc_{short}" for name, short in [
    ("preset", "preset"), ("method", "method"), ("missing", "missing"), ("price_basis", "basis"),
    ("concentration", "conc"), ("eu_resident_only", "eu_dc"), ("eu_jurisdiction_only", "eu_jur"),
    ("infiniband_only", "ib"), ("sxm_only", "sxm"), ("eu_legal_seat_only", "eu_seat"), ("max_price", "max_price"),
    ("required_certifications", "certs")]}
_PRICE_CCY = "_sc_max_price_ccy"
SCOPE_KEY = "_sc_scope"
#: The like-for-like scope narrows first in the funnel: which offers can do the job, then the client's rules.
SCOPE_FIRST = ("gpu_models", "min_memory_gb_per_gpu", "exclude_price_outliers")
TOGGLES = ("eu_resident_only", "eu_jurisdiction_only", "eu_legal_seat_only", "infiniband_only", "sxm_only")
#: Criterion -> catalog column whose text is shown in the table (categories read better than their scores).
FACT_COLUMN = {
    "intra_node_score": "intra_node", "inter_node_fabric_score": "inter_node", "memory_type_score": "memory_type",
    "performance_sla_score": "performance_sla", "support_score": "support_model",
    "jurisdiction_score": "parent_jurisdiction", "min_commitment_months": "min_commitment",
    "burst_capacity_score": "burst_capacity", "verification_score": "verification_status",
}
NOT_STATED = "not stated"


def weight_key(name: str) -> str:
    return f"_sc_w_{name}"


def short_label(text: str, width: int = 46) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


# --------------------------------------------------------------------------------------------------
# Widgets <-> scenario
# --------------------------------------------------------------------------------------------------


def _max_price_shown(section: ScoringSection, display: DisplaySettings) -> float | None:
    cap = section.constraints.max_price_eur_per_gpu_hour
    return None if cap is None else round(float(from_eur(cap, display.currency, display.usd_per_eur)), 2)


def _init_widgets(section: ScoringSection, display: DisplaySettings) -> None:
    ss = st.session_state
    values = {"preset": section.preset, "method": section.method, "missing": section.missing,
              "price_basis": section.price_basis,
              "concentration": min(CONCENTRATIONS, key=lambda c: abs(c - section.concentration)),
              "required_certifications": list(section.constraints.required_certifications),
              **{t: getattr(section.constraints, t) for t in TOGGLES}}
    for name, value in values.items():
        ss.setdefault(_KEYS[name], value)
    for name, points in section.points().items():
        ss.setdefault(weight_key(name), int(round(points)))
    if ss.get(_PRICE_CCY) != display.currency or _KEYS["max_price"] not in ss:  # shown in the display currency
        ss[_KEYS["max_price"]] = _max_price_shown(section, display)
        ss[_PRICE_CCY] = display.currency


def apply_preset() -> None:
    """on_change of the preset picker (and the reset button): the preset's weights and constraints."""
    ss = st.session_state
    preset = PRESETS[ss[_KEYS["preset"]]]
    for c in CRITERIA:
        ss[weight_key(c.name)] = int(round(preset.weight_points.get(c.name, 0)))
    for t in TOGGLES:
        ss[_KEYS[t]] = getattr(preset.constraints, t)
    ss[_KEYS["required_certifications"]] = list(preset.constraints.required_certifications)
    section = get_scenario().scoring
    cap, display = preset.constraints.max_price_eur_per_gpu_hour, get_scenario().display
    ss[_KEYS["max_price"]] = None if cap is None else round(float(from_eur(cap, display.currency, display.usd_per_eur)), 2)
    update_scenario(scoring=section.model_copy(update={"preset": preset.name, "weight_points": {},
                                                       "constraints": preset.constraints}))


def _slider_label(c: Criterion, share: float, display: DisplaySettings) -> str:
    unit = f"{SYMBOL[display.currency]}/GPU-h" if c.name == "price_eur_per_gpu_hour" else c.unit
    name = c.label.replace(" (allowed downtime)", "") if c.unit != "-" else c.label
    return f"{name}{f', {unit}' if unit != '-' else ''} · {share:.0%}"


def _draw_weights(display: DisplaySettings) -> dict[str, float]:
    ss = st.session_state
    points = {c.name: float(ss[weight_key(c.name)]) for c in CRITERIA}
    total = sum(points.values())
    n_weighted = sum(v > 0 for v in points.values())
    with st.expander(f"Weights: {n_weighted} of {len(CRITERIA)} criteria count · 0–100 points each; the % after "
                     "each name is its share of the total", expanded=True, icon=":material/tune:"):
        cols = st.columns(3, gap="large")
        for i, c in enumerate(CRITERIA):
            better = "Lower" if c.objective is Objective.MIN else "Higher"
            unit = "a score from 0 to 1" if c.unit == "-" else c.unit
            cols[i % 3].slider(_slider_label(c, points[c.name] / total if total else 0.0, display), 0, 100, step=1,
                               key=weight_key(c.name),
                               help=f"{c.label}, {unit}. {better} is better. From the catalog's {c.source}. "
                                    f"{c.mapping_doc}")
    return points


def scoring_inputs(display: DisplaySettings) -> ScoringSection | None:
    """Draw the inputs (initialised from the scenario) and return the section they describe, or None after
    saying what is wrong. A valid section is written back to the scenario."""
    current = get_scenario().scoring
    _init_widgets(current, display)
    ss = st.session_state
    sym = SYMBOL[display.currency]
    catalog = offers_with_quotes(display.usd_per_eur)
    with st.container(border=True):
        st.markdown("**Which offers compete** (like for like: only offers that can do the job are ranked)")
        scope = offer_scope.scope_widgets(SCOPE_KEY, current.scope, sorted(catalog["gpu_model"].dropna().unique()))
    with st.container(border=True):
        a, b, c = st.columns([1.25, 1.15, 1.2])
        a.selectbox("Preset", list(PRESETS), key=_KEYS["preset"], on_change=apply_preset,
                    help="Sets the weights and the hard constraints. Both stay editable.")
        preset = PRESETS[ss[_KEYS["preset"]]]
        a.caption(preset.description)
        b.markdown("**Hard constraints** (filter before ranking)")
        for t in TOGGLES:
            b.toggle(CONSTRAINT_LABEL[t], key=_KEYS[t], help=CONSTRAINT_HELP[t])
        held = sorted(set(certification_options(catalog))
                      | set(ss[_KEYS["required_certifications"]]))
        b.multiselect(CONSTRAINT_LABEL["required_certifications"], held, key=_KEYS["required_certifications"],
                      placeholder="none required",
                      help="The provider must hold every one of these (e.g. BSI-C5, ISO27001) with a stated scope that "
                           "covers the offer's GPU service and data-centre country; a certificate held for other "
                           "products (OVHcloud SecNumCloud) or with an unstated scope does not count. A certificate "
                           "not on record fails: most providers publish none in the consulted sources.")
        b.number_input(f"Maximum price ({sym} per GPU-hour)", min_value=0.01, value=None, step=0.1, format="%.2f",
                       key=_KEYS["max_price"], placeholder="no limit",
                       help="Applies to the effective price (the price basis on the right). No price stated: fails.")
        c.radio("Method", list(METHOD_LABEL), format_func=METHOD_LABEL.get, key=_KEYS["method"], horizontal=True,
                help="Weighted sum: min-max normalised criteria times weights, added up. TOPSIS: distance to the "
                     "best and the worst value of every criterion (Hwang & Yoon 1981).")
        c.radio("When the catalog does not state a value", list(MISSING_LABEL), format_func=MISSING_LABEL.get,
                key=_KEYS["missing"])
        c.caption(MISSING_EXPLAIN[ss[_KEYS["missing"]]])
        c.selectbox("Price basis", list(BASIS_LABEL), format_func=BASIS_LABEL.get, key=_KEYS["price_basis"],
                    help="Which catalog price of each offer is its effective price.")
        points = _draw_weights(display)
        edited = {k: v for k, v in points.items() if v != preset.weight_points.get(k, 0)}
        changed = any(ss[_KEYS[t]] != getattr(preset.constraints, t) for t in TOGGLES) or (
            tuple(ss[_KEYS["required_certifications"]]) != preset.constraints.required_certifications)
        if edited or changed or ss[_KEYS["max_price"]]:
            off = preset.not_in_force(Constraints(**{t: bool(ss[_KEYS[t]]) for t in TOGGLES}))
            a.caption(f"Edited from the preset ({len(edited)} weights changed" + "".join(
                f"; its hard rule *{CONSTRAINT_LABEL[t]}* is off" + (" (still preferred by weight)" if points.get(
                    _PREFERS.get(t, ""), 0) > 0 else "") for t in off) + ").")
            a.button("Reset to the preset", key="_sc_reset", on_click=apply_preset, icon=":material/restart_alt:")
    if sum(points.values()) <= 0:
        st.error("**Give at least one criterion some weight** to rank the offers.", icon=":material/error:")
        return None
    shown_cap = ss[_KEYS["max_price"]]
    if shown_cap is None:
        cap = None
    elif shown_cap == _max_price_shown(current, display):  # unchanged: keep the stored EUR value exactly
        cap = current.constraints.max_price_eur_per_gpu_hour
    else:
        cap = float(to_eur(shown_cap, display.currency, display.usd_per_eur))
    section = ScoringSection(
        preset=preset.name, weight_points=points,
        constraints=Constraints(**{t: bool(ss[_KEYS[t]]) for t in TOGGLES}, max_price_eur_per_gpu_hour=cap,
                                required_certifications=tuple(ss[_KEYS["required_certifications"]])),
        method=ss[_KEYS["method"]], missing=ss[_KEYS["missing"]], price_basis=ss[_KEYS["price_basis"]],
        concentration=float(ss[_KEYS["concentration"]]), scope=scope,
    )
    if section != current:
        update_scenario(scoring=section)
    return section


def draw_concentration() -> float:
    """The weight-uncertainty slider of the stability section; returns the Dirichlet concentration [-]."""
    st.select_slider(
        "Weight uncertainty (Dirichlet concentration: lower = weights vary more)", CONCENTRATIONS,
        key=_KEYS["concentration"], format_func=lambda v: f"{v:g}",
        help="Weights are drawn around yours with alpha = c × w: the spread of one weight w is "
             "√(w(1−w)/(c+1)); at c = 20 a 20 % weight varies by about ±9 points.")
    return float(st.session_state[_KEYS["concentration"]])


# --------------------------------------------------------------------------------------------------
# Ranking (cached per catalog version, exchange rate, day and input)
# --------------------------------------------------------------------------------------------------


class FunnelStep(NamedTuple):
    """One hard constraint, applied after the ones before it."""

    constraint: str
    n_before: int
    n_removed: int
    reasons: tuple[tuple[str, int], ...]  # (reason, offers) among the offers this step removed


class Scored(NamedTuple):
    key: tuple  # catalog key and section: identifies the ranking in the figure cache
    result: ScoringResult
    offers: pd.DataFrame  # catalog rows of the ranked offers, in the result's order (index offer_id)
    n_offers: int
    funnel: tuple[FunnelStep, ...]


def _reason_kind(reason: str) -> str:
    """'EU data centre: no (outside the EU/EEA)' -> 'outside the EU/EEA'; prices -> 'above the maximum'."""
    if reason.startswith("price ") and "above" in reason:
        return "above the maximum"
    if reason.startswith("memory ") and "below" in reason:
        return "too little memory"
    if reason.startswith("price outlier"):
        return "price outlier"
    if reason.startswith("GPU class: "):  # 'GPU class: L4, not H100 or H200' -> 'L4' (the class is in the label)
        return reason.removeprefix("GPU class: ").split(", not ")[0]
    detail = reason.split(": ", 1)[1] if ": " in reason else reason
    return detail[4:-1] if detail.startswith("no (") and detail.endswith(")") else detail


def effective_constraints(section: ScoringSection) -> Constraints:
    """The section's hard constraints narrowed by its like-for-like scope (GPU class, memory, outliers)."""
    return scope_constraints(section.scope, None, section.constraints)


@st.cache_data(ttl=600, max_entries=64, show_spinner=False)
def _rank(_frame: pd.DataFrame, catalog_key: tuple, section_json: str) -> Scored:
    s = ScoringSection.model_validate_json(section_json)
    constraints = effective_constraints(s)
    labelled = _frame.assign(offer_label=offer_scope.picker_labels(_frame, flags=False))
    matrix = build_decision_matrix(labelled, price_basis=s.price_basis, reference_date=catalog_key[-1],
                                   label_columns=("offer_label",))
    result = rank_alternatives(matrix, Weights(values=s.points()), method=s.method, constraints=constraints,
                               missing=s.missing)
    funnel, keep = [], np.ones(len(matrix.ids), dtype=bool)
    active = constraints.active()
    for name in [n for n in SCOPE_FIRST if n in active] + [n for n in active if n not in SCOPE_FIRST]:
        passed, why = apply_constraints(matrix, Constraints(**{name: getattr(constraints, name)}))
        removed = keep & ~passed
        kinds = Counter(_reason_kind(why[i][0]) for i in np.flatnonzero(removed))
        funnel.append(FunnelStep(name, int(keep.sum()), int(removed.sum()), tuple(kinds.most_common())))
        keep &= passed
    rows = _frame.set_index("offer_id").loc[list(result.ids)]
    return Scored((*catalog_key, section_json), result, rows, len(matrix.ids), tuple(funnel))


def score(section: ScoringSection, usd_per_eur: float) -> Scored:
    frame = offers_with_quotes(usd_per_eur)  # the catalog plus the workspace's quotes (issue #29.7)
    return _rank(frame, catalog_key(usd_per_eur), section.model_dump_json())


@st.cache_data(ttl=600, max_entries=32, show_spinner=False)
def _monte_carlo(filled: np.ndarray, objectives: np.ndarray, weights: np.ndarray, concentration: float,
                 method: str) -> MonteCarloResult:
    return monte_carlo_weights(filled, objectives, weights, concentration=concentration, n_samples=N_SAMPLES, seed=0,
                               method=method)


def monte_carlo(result: ScoringResult, concentration: float) -> MonteCarloResult:
    """Probability of each rank over 1,000 Dirichlet weight draws around the chosen weights (seed 0)."""
    return _monte_carlo(result.filled, result.objectives, result.weights, concentration, result.method.value)


class Figures(NamedTuple):
    contributions: go.Figure
    radar: go.Figure
    intervals: go.Figure | None  # weighted sum, two or more offers and a weighted criterion that separates them
    p_first: go.Figure


@st.cache_resource(ttl=600, max_entries=64, show_spinner=False)
def _ranking_figures(_scored: Scored, key: tuple) -> tuple[go.Figure, go.Figure, go.Figure | None]:
    # cache_resource: the figures are handed out as they are (st.plotly_chart copies, never mutates, a figure),
    # which saves rebuilding and re-validating them on every rerun with the same inputs.
    r = _scored.result
    top5, top3 = r.order[:5], r.order[:3]
    separating = any(w > 0 and c.name not in r.uninformative for w, c in zip(r.weights, r.criteria, strict=True))
    intervals = (charts.stability_intervals(r, _rank_labels(r)) if r.stability is not None and len(r.ids) > 1
                 and separating else None)
    return (charts.contributions(r, top5, chart_labels(r, top5, 40)), charts.radar(r, top3, chart_labels(r, top3, 34)),
            intervals)


@st.cache_resource(ttl=600, max_entries=64, show_spinner=False)
def _p_first_figure(_scored: Scored, _mc: MonteCarloResult, key: tuple) -> go.Figure:
    return charts.p_first(_scored.result, _mc, _rank_labels(_scored.result))


def figures(scored: Scored, mc: MonteCarloResult) -> Figures:
    """The page's four charts, cached per ranking (and concentration for the Monte Carlo chart)."""
    big = charts.presenting()  # presentation mode draws larger chart text: a figure of its own
    return Figures(*_ranking_figures(scored, (*scored.key, big)),
                   _p_first_figure(scored, mc, (*scored.key, mc.concentration, big)))


def _rank_labels(result: ScoringResult) -> dict[int, str]:
    return dict(zip(result.order.tolist(), chart_labels(result, result.order, 44), strict=True))


# --------------------------------------------------------------------------------------------------
# Words
# --------------------------------------------------------------------------------------------------


def _criterion_label(name: str) -> str:
    return next(c.label for c in CRITERIA if c.name == name)


def funnel_text(scored: Scored, display: DisplaySettings) -> str:
    """Markdown list: each active constraint, how many offers it removed and why, in the order applied."""
    cons = scored.result.constraints
    lines = []
    for step in scored.funnel:
        label = CONSTRAINT_LABEL[step.constraint]
        if step.constraint == "max_price_eur_per_gpu_hour":
            label += f" {money(cons.max_price_eur_per_gpu_hour, display)}"
        elif step.constraint == "gpu_models":
            label += f": {' or '.join(plain(m) for m in cons.gpu_models)}"
        elif step.constraint == "min_memory_gb_per_gpu":
            label += f" at least {cons.min_memory_gb_per_gpu:.0f} GB"
        why = " · ".join(f"{n} {plain(r)}" for r, n in step.reasons)  # reasons name values from the link
        lines.append(f"- **{label}**: removes {step.n_removed} of {step.n_before}" + (f" ({why})" if why else "")
                     + f" → {step.n_before - step.n_removed} left")
    n_missing = sum(e.stage == "missing data" for e in scored.result.excluded)
    if n_missing:
        lines.append(f"- **Missing-data rule** (leave the offer out): removes {n_missing} that do not state a weighted "
                     "criterion")
    return "\n".join(lines)


def nothing_ranked(scored: Scored, display: DisplaySettings) -> str:
    return (f"**No offer is left to rank.** The catalog has {scored.n_offers} offers; the hard constraints are applied "
            f"in this order:\n\n{funnel_text(scored, display)}\n\nA fact the catalog does not state fails the "
            "constraint: a constraint is never passed on missing data. Switch a constraint off above to see the "
            "offers it blocks; every excluded offer is listed below with its reasons.")


def verdict(scored: Scored, mc: MonteCarloResult, display: DisplaySettings) -> str:
    """The answer in plain language: who wins, why, and how stable that is."""
    r = scored.result
    order = r.order
    top = int(order[0])
    w = r.weights
    a = r.normalised * w  # weighted-sum contributions (the additive view, also for TOPSIS)
    name = f"**#1 {r.labels[top]}**"
    method = "weighted-sum score" if r.method.value == "weighted_sum" else "TOPSIS closeness"
    text = f"{name} wins with a {method} of **{r.scores[top]:.3f}**"
    if len(order) > 1:
        second = int(order[1])
        diff = a[top] - a[second]
        leads = [j for j in np.argsort(-diff) if diff[j] > 1e-9][:2]
        behind = [j for j in np.argsort(diff) if diff[j] < -1e-9][:1]
        tie = " (a tie)" if r.scores[top] == r.scores[second] else ""
        text += f" against {r.scores[second]:.3f} for #2 {r.labels[second]}{tie}"
        if leads:
            text += " because it is better on " + " and ".join(
                f"**{r.criteria[j].label}** (+{diff[j]:.3f})" for j in leads)
        if behind:
            j = behind[0]
            text += f"; #2 is better on {r.criteria[j].label} ({diff[j]:+.3f})"
    else:
        text += ": it is the only offer left after the constraints"
    text += ". "
    iv = r.stability
    if iv is not None and len(order) > 1:
        weighted = np.flatnonzero(w > 0)
        price = next(j for j, c in enumerate(r.criteria) if c.name == "price_eur_per_gpu_hour")
        margin = np.minimum(w - iv.lower, iv.upper - w)[weighted] / w[weighted]
        picks = [price] if w[price] > 0 else []
        fragile = int(weighted[int(np.argmin(margin))])
        if fragile not in picks:
            picks.append(fragile)
        of = " of the weight that counts" if r.uninformative else ""
        parts = [f"the weight of {r.criteria[j].label} is between **{max(iv.lower[j], 0.0) + 0.0:.0%} and {iv.upper[j]:.0%}** "
                 f"(now {w[j]:.0%}{of})" for j in picks]
        text += "It stays first while " + ", and while ".join(parts) + " (the other weights keep their proportions). "
    text += (f"It is first in **{mc.p_first[top]:.0%} of {mc.n_samples:,} weight draws** around these weights "
             f"(concentration {mc.concentration:g}).")
    row = scored.offers.iloc[top]
    age = offer_scope.price_age_days(row)
    if offer_scope.counts.is_stale_age(age):  # the one stale-price rule (catalog.counts)
        text += (f"\n\n⚠ **The #1's price is stale**: retrieved {offer_scope.price_date(row):%Y-%m-%d}, {age} days "
                 f"ago (more than {STALE_AFTER_DAYS}). Check it at the source before relying on it.")
    if offer_scope.is_true(row.get("price_outlier")):
        text += (f"\n\n⚠ **The #1's price is flagged as an outlier** ({row['price_outlier_reason']}); it is ranked "
                 "because you chose to use price outliers.")
    return text


def notes(scored: Scored) -> list[str]:
    """Caveats the ranking depends on: criteria that do not separate the offers, set dependence."""
    r = scored.result
    out = []
    if r.uninformative:
        out.append(f"**Inert: {r.inert_share:.0%} of your weight.** {len(r.uninformative)} weighted criteria separate "
                   f"none of the ranked offers (all equal, or stated by none of them): "
                   f"{', '.join(_criterion_label(n) for n in r.uninformative)}. Their weight is not counted: the "
                   "scores, the verdict's weight ranges and the charts use the other criteria, rescaled to 100 % "
                   "(*the weight that counts*; see *Assumptions and criterion mappings*).")
    if r.stated_vs_not:
        out.append(f"Only one value is stated among the ranked offers for "
                   f"{', '.join(_criterion_label(n) for n in r.stated_vs_not)}: an offer stating it scores best on "
                   "that criterion, one that does not state it scores worst (never equal).")
    if r.set_dependent_on:
        names = [r.labels[r.ids.index(i)] for i in r.set_dependent_on[:3]]
        out.append(f"Normalisation depends on the offers ranked: removing {' or '.join(names)}"
                   f"{' (or others)' if len(r.set_dependent_on) > 3 else ''} alone would change the #1.")
    return out


# --------------------------------------------------------------------------------------------------
# Tables and chart data
# --------------------------------------------------------------------------------------------------


def _facts(c: Criterion, values: np.ndarray, missing: np.ndarray, rows: pd.DataFrame,
           display: DisplaySettings) -> list[str]:
    """The stated value of criterion ``c`` for each row, as text; "not stated" where the catalog is silent."""
    if c.name in FACT_COLUMN:
        texts = rows[FACT_COLUMN[c.name]].astype(str).tolist()
    elif c.name == "price_eur_per_gpu_hour":
        texts = [money(v, display) for v in values]
    elif c.name == "allowed_downtime_hours_per_year":
        texts = [f"{u:g} % ({v:,.1f} h/yr)" for u, v in zip(rows["uptime_sla_pct"], values, strict=True)]
    elif c.name == "eu_residency_score":
        texts = ["yes" if v else "no" for v in values]
    else:
        fmt = {"inter_node_bandwidth_gbps_per_gpu": "{:,.0f} Gb/s", "memory_bandwidth_tbps": "{:.2f} TB/s",
               "data_age_days": "{:,.0f} days"}.get(c.name, "{:g}")
        texts = [fmt.format(v) for v in values]
    return [NOT_STATED if m else t for t, m in zip(texts, missing, strict=True)]


def ranking_table(scored: Scored, display: DisplaySettings) -> tuple[pd.DataFrame, dict]:
    """Ranked offers, best first: score bar, offer, price and the stated value of every weighted criterion."""
    r = scored.result
    order = r.order
    rows = scored.offers.iloc[order]
    price_j = next(j for j, c in enumerate(r.criteria) if c.name == "price_eur_per_gpu_hour")
    asked = r.requested_weights if r.requested_weights is not None else r.weights
    weighted = [int(j) for j in np.argsort(-asked, kind="stable") if asked[j] > 0 and j != price_j]
    n_missing = (r.missing & (asked > 0)).sum(axis=1)[order]

    def head(j: int) -> str:
        return r.criteria[j].label + (" (inert)" if r.criteria[j].name in r.uninformative else "")

    data = {
        "Rank": r.ranks[order], "Score": r.scores[order], "Provider": rows["provider_name"].to_numpy(),
        "GPU": (rows["gpu_model"] + " " + rows["form_factor"].fillna("")).str.strip().to_numpy(),
        "GPUs": [offer_scope.gpus_text(v).replace("node size not stated", NOT_STATED) for v in rows["gpus_per_node"]],
        "Region": rows["region"].fillna(NOT_STATED).to_numpy(),
        **{"Price" if j == price_j else head(j):
           _facts(r.criteria[j], r.values[order, j], r.missing[order, j], rows, display) for j in [price_j, *weighted]},
        "Not stated": [f"{n} of {int((asked > 0).sum())}" for n in n_missing],
        "Flags": [offer_scope.flags_text(row) or "—" for row in rows.to_dict("records")],
        "Source": rows["source_url"].to_numpy(),
    }
    is_wsm = r.method.value == "weighted_sum"
    basis = next(str(a.value) for a in r.assumptions if a.name == "price_basis")
    config = {
        "Rank": st.column_config.NumberColumn("Rank", format="%d", pinned=True),
        "Score": st.column_config.ProgressColumn(
            "Score", min_value=0.0, max_value=1.0, format="%.3f", pinned=True,
            help="Weighted sum of min-max normalised criteria (1 = best on every weighted criterion)" if is_wsm
            else "TOPSIS closeness to the ideal (1 = the ideal, 0 = the worst on every criterion)"),
        "Price": st.column_config.TextColumn(f"Price ({display.currency}/GPU-h)",
                                             help=f"Effective price per GPU-hour: {BASIS_LABEL[basis].lower()}"),
        "Not stated": st.column_config.TextColumn(
            "Not stated", help="Weighted criteria the catalog does not state for this offer; "
            + MISSING_EXPLAIN[r.missing_rule.value].lower()),
        "GPUs": st.column_config.TextColumn("GPUs/node", help="GPUs per node (instance) of the offer"),
        "Flags": st.column_config.TextColumn("Flags", help="⚠ price outlier (used only when you include outliers) · "
                                             f"⚠ stale price: retrieved more than {STALE_AFTER_DAYS} days ago"),
        "Source": st.column_config.LinkColumn("Source", display_text="source ↗"),
    }
    return pd.DataFrame(data), config


def provider_table(scored: Scored, display: DisplaySettings) -> tuple[pd.DataFrame, dict]:
    """One row per provider: its best-scoring offer among those ranked, providers ranked by that score."""
    r = scored.result
    order = r.order
    rows = scored.offers.iloc[order]
    price_j = next(j for j, c in enumerate(r.criteria) if c.name == "price_eur_per_gpu_hour")
    best = rows.assign(_score=r.scores[order], _rank=r.ranks[order], _price=r.values[order, price_j],
                       _n=rows.groupby("provider_name")["provider_name"].transform("size").to_numpy())
    best = best[~best["provider_name"].duplicated()]  # rows are best first: the first of each provider is its best
    score = best["_score"].to_numpy()
    data = {
        "Rank": rank(score), "Score": score, "Provider": best["provider_name"].to_numpy(),
        "Best offer": [offer_scope.picker_label(row, flags=False).split(" · ", 1)[1] for row in best.to_dict("records")],
        "Offer rank": best["_rank"].to_numpy(),
        "Price": [money(v, display) if v == v else NOT_STATED for v in best["_price"]],
        "Offers ranked": best["_n"].to_numpy(),
        "Flags": [offer_scope.flags_text(row) or "—" for row in best.to_dict("records")],
        "Source": best["source_url"].to_numpy(),
    }
    basis = next(str(a.value) for a in r.assumptions if a.name == "price_basis")
    config = {
        "Rank": st.column_config.NumberColumn("Rank", format="%d", pinned=True),
        "Score": st.column_config.ProgressColumn("Score", min_value=0.0, max_value=1.0, format="%.3f", pinned=True,
                                                 help="The score of the provider's best offer (same scale as the "
                                                      "offer ranking)"),
        "Best offer": st.column_config.TextColumn("Best offer", width="medium"),
        "Offer rank": st.column_config.NumberColumn("Offer rank", format="%d", help="Its rank among all offers"),
        "Price": st.column_config.TextColumn(f"Price ({display.currency}/GPU-h)",
                                             help=f"Effective price: {BASIS_LABEL[basis].lower()}"),
        "Offers ranked": st.column_config.NumberColumn("Offers ranked", format="%d",
                                                       help="This provider's offers that passed the constraints"),
        "Source": st.column_config.LinkColumn("Source", display_text="source ↗"),
    }
    return pd.DataFrame(data), config


def excluded_table(scored: Scored) -> pd.DataFrame:
    """Every offer left out, closest to passing first (fewest reasons): what one more stated fact would admit."""
    rows = sorted(scored.result.excluded, key=lambda e: (len(e.reasons), e.reasons, e.label))
    return pd.DataFrame([{"Offer": e.label, "Removed by": e.stage, "Reasons": "; ".join(e.reasons)} for e in rows],
                        columns=["Offer", "Removed by", "Reasons"])


def chart_labels(result: ScoringResult, positions: np.ndarray, width: int = 46) -> list[str]:
    return [f"#{result.ranks[i]} {short_label(result.labels[i], width)}" for i in positions]


def criteria_frame(result: ScoringResult, points: dict[str, float]) -> pd.DataFrame:
    """Every criterion: weight, direction, catalog source and how a category becomes a number."""
    asked = result.requested_weights if result.requested_weights is not None else result.weights

    def status(j: int, c: Criterion) -> str:
        if asked[j] <= 0:
            return "no weight"
        if c.name in result.uninformative:
            return "inert: separates no ranked offer"
        if c.name in result.stated_vs_not:
            return "stated vs not stated (one value stated)"
        return "separates offers"

    return pd.DataFrame([{
        "Criterion": c.label, "Unit": c.unit, "Better": "lower" if c.objective is Objective.MIN else "higher",
        "Points": points.get(c.name, 0.0), "Share": float(asked[j]), "Share used": float(result.weights[j]),
        "Status": status(j, c), "Catalog field": c.source, "Mapping": c.mapping_doc,
    } for j, c in enumerate(result.criteria)])


def assumptions_frame(result: ScoringResult) -> pd.DataFrame:
    def fmt(v: object) -> str:
        return f"{v:.4g}" if isinstance(v, float) else str(v)

    return pd.DataFrame([{"name": a.name, "value": fmt(a.value), "unit": a.unit, "source": a.source}
                         for a in result.assumptions])
