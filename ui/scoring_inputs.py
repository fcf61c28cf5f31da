"""Inputs of the Provider scoring page: its widgets (weights, method, missing-data rule, hard constraints, the
like-for-like scope) bound to :class:`~ui.scenario.ScoringSection`.

Ranking the section is :mod:`ui.scoring_ranking`; shaping the result for display is :mod:`ui.scoring_view`.
"""

from __future__ import annotations

import streamlit as st

from catalog.coverage import certification_options
from engine.money import from_eur, to_eur
from engine.scoring import (
    CRITERIA,
    PRESETS,
    Constraints,
    Criterion,
    Objective,
)
from ui import offer_scope
from ui.format import SYMBOL
from ui.labels import (
    SCORING_BASIS_LABELS,
    SCORING_CONSTRAINT_LABELS,
    SCORING_METHOD_LABELS,
    SCORING_MISSING_LABELS,
)
from ui.quotes import offers_with_quotes
from ui.scenario import DisplaySettings, ScoringSection, get_scenario, update_scenario

CONCENTRATIONS = (2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0)
MISSING_EXPLAIN = {
    "worst": "A value the catalog does not state scores as the worst value observed for that criterion, so it "
             "never ranks above a stated one.",
    "exclude": "Offers missing any criterion that carries weight are left out and listed below with the reason.",
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
TOGGLES = ("eu_resident_only", "eu_jurisdiction_only", "eu_legal_seat_only", "infiniband_only", "sxm_only")


def weight_key(name: str) -> str:
    return f"_sc_w_{name}"


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
            b.toggle(SCORING_CONSTRAINT_LABELS[t], key=_KEYS[t], help=CONSTRAINT_HELP[t])
        held = sorted(set(certification_options(catalog))
                      | set(ss[_KEYS["required_certifications"]]))
        b.multiselect(SCORING_CONSTRAINT_LABELS["required_certifications"], held, key=_KEYS["required_certifications"],
                      placeholder="none required",
                      help="The provider must hold every one of these (e.g. BSI-C5, ISO27001) with a stated scope that "
                           "covers the offer's GPU service and data-centre country; a certificate held for other "
                           "products (OVHcloud SecNumCloud) or with an unstated scope does not count. A certificate "
                           "not on record fails: most providers publish none in the consulted sources.")
        b.number_input(f"Maximum price ({sym} per GPU-hour)", min_value=0.01, value=None, step=0.1, format="%.2f",
                       key=_KEYS["max_price"], placeholder="no limit",
                       help="Applies to the effective price (the price basis on the right). No price stated: fails.")
        c.radio("Method", list(SCORING_METHOD_LABELS), format_func=SCORING_METHOD_LABELS.__getitem__, key=_KEYS["method"], horizontal=True,
                help="Weighted sum: min-max normalised criteria times weights, added up. TOPSIS: distance to the "
                     "best and the worst value of every criterion (Hwang & Yoon 1981).")
        c.radio("When the catalog does not state a value", list(SCORING_MISSING_LABELS), format_func=SCORING_MISSING_LABELS.__getitem__,
                key=_KEYS["missing"])
        c.caption(MISSING_EXPLAIN[ss[_KEYS["missing"]]])
        c.selectbox("Price basis", list(SCORING_BASIS_LABELS), format_func=SCORING_BASIS_LABELS.__getitem__, key=_KEYS["price_basis"],
                    help="Which catalog price of each offer is its effective price.")
        points = _draw_weights(display)
        edited = {k: v for k, v in points.items() if v != preset.weight_points.get(k, 0)}
        changed = any(ss[_KEYS[t]] != getattr(preset.constraints, t) for t in TOGGLES) or (
            tuple(ss[_KEYS["required_certifications"]]) != preset.constraints.required_certifications)
        if edited or changed or ss[_KEYS["max_price"]]:
            off = preset.not_in_force(Constraints(**{t: bool(ss[_KEYS[t]]) for t in TOGGLES}))
            a.caption(f"Edited from the preset ({len(edited)} weights changed" + "".join(
                f"; its hard rule *{SCORING_CONSTRAINT_LABELS[t]}* is off" + (" (still preferred by weight)" if points.get(
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
