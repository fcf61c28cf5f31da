"""Inputs of the Provider scoring page: its widgets (weights, method, missing-data rule, hard constraints, the
like-for-like scope) bound to :class:`~ui.scenario.ScoringSection`.

Ranking the section is :mod:`ui.scoring_ranking`; shaping the result for display is :mod:`ui.scoring_view`.
"""

from __future__ import annotations

import streamlit as st

from catalog.coverage import certification_options
from engine.money import from_eur, to_eur
from engine.scope import OfferScope
from engine.scoring import (
    CRITERIA,
    CRITERION_NAMES,
    PRESETS,
    Constraints,
    Criterion,
    Objective,
)
from ui import offer_scope
from ui.field_widgets import Bound, State, overwrite, prefill, read_back
from ui.format import SYMBOL
from ui.labels import (
    SCORING_BASIS_LABELS,
    SCORING_CONSTRAINT_LABELS,
    SCORING_METHOD_LABELS,
    SCORING_MISSING_LABELS,
)
from ui.quotes import offers_with_quotes
from ui.scenario import DisplaySettings, ScoringSection, get_scenario, update_scenario, widget_key

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
TOGGLES = ("eu_resident_only", "eu_jurisdiction_only", "eu_legal_seat_only", "infiniband_only", "sxm_only")


def _nearest_concentration(value: float) -> float:
    return min(CONCENTRATIONS, key=lambda c: abs(c - value))


#: The widgets holding a ScoringSection field ("sc") or a field of its hard constraints ("sc_constraints"), with
#: how each shows it; their keys derive from the fields (ui.field_widgets). The maximum price is shown in the
#: display currency (:data:`MAX_PRICE_KEY`), the weights per criterion (:func:`weight_key`), the scope by
#: ui.offer_scope under :data:`SCOPE_KEY`.
SECTION_FIELDS = (Bound("sc", "preset"), Bound("sc", "method"), Bound("sc", "missing"), Bound("sc", "price_basis"),
                  Bound("sc", "concentration", shown=_nearest_concentration, stored=float))
CONSTRAINT_FIELDS = (*(Bound("sc_constraints", t, stored=bool) for t in TOGGLES),
                     Bound("sc_constraints", "required_certifications", shown=list, stored=tuple))
MAX_PRICE_KEY = widget_key("sc_constraints", "max_price_eur_per_gpu_hour")
_PRICE_CCY = MAX_PRICE_KEY + "_ccy"  # the currency the shown maximum price is in
#: Field name -> widget key (the field names of the two models' widgets differ).
KEYS = {b.field: b.key for b in (*SECTION_FIELDS, *CONSTRAINT_FIELDS)} | {"max_price_eur_per_gpu_hour": MAX_PRICE_KEY}
SCOPE_KEY = widget_key("sc", "scope")
RESET_KEY = "_sc_reset"  # the "Reset to the preset" button (holds no field)
TYPED_KEY = "_sc_weights_typed"  # "Type the weights": number inputs instead of sliders (a view choice, no field)


def weight_key(name: str) -> str:
    """Key of the weight slider of criterion ``name`` (an entry of ScoringSection.weight_points); KeyError for a
    name that is no criterion."""
    if name not in CRITERION_NAMES:
        raise KeyError(f"{name!r} is not a scoring criterion")
    return f"{widget_key('sc', 'weight_points')}_{name}"


def typed_weight_key(name: str) -> str:
    """Key of the number field of criterion ``name`` ("Type the weights"): a widget of another type needs a key of
    its own (Streamlit keeps a value per widget type), both filled from the same scenario field."""
    return f"{weight_key(name)}_typed"


def _switch_weight_widgets() -> None:
    """on_change of "Type the weights": the widgets shown next take the values of those shown so far."""
    ss = st.session_state
    to_typed = bool(ss.get(TYPED_KEY))
    for c in CRITERIA:
        old, new = (weight_key, typed_weight_key) if to_typed else (typed_weight_key, weight_key)
        if old(c.name) in ss:
            ss[new(c.name)] = ss[old(c.name)]


def _weight_keys(state: State) -> dict[str, str]:
    """Criterion -> key of the widget that holds its weight in this run (number fields or sliders)."""
    key = typed_weight_key if state.get(TYPED_KEY) else weight_key
    return {c.name: key(c.name) for c in CRITERIA}


# --------------------------------------------------------------------------------------------------
# Widgets <-> scenario
# --------------------------------------------------------------------------------------------------


def _max_price_shown(section: ScoringSection, display: DisplaySettings) -> float | None:
    cap = section.constraints.max_price_eur_per_gpu_hour
    return None if cap is None else round(float(from_eur(cap, display.currency, display.usd_per_eur)), 2)


def _max_price_stored(shown: float | None, current: ScoringSection, display: DisplaySettings) -> float | None:
    """The maximum price [EUR/GPU-h] of the value shown in the display currency."""
    if shown is None:
        return None
    if shown == _max_price_shown(current, display):  # unchanged: keep the stored EUR value exactly
        return current.constraints.max_price_eur_per_gpu_hour
    return float(to_eur(shown, display.currency, display.usd_per_eur))


def prefill_widgets(section: ScoringSection, display: DisplaySettings,
                    state: State | None = None) -> None:
    """Give the page's widgets without state the section's values (the maximum price again after a currency
    change)."""
    ss = st.session_state if state is None else state
    prefill(SECTION_FIELDS, section, ss)
    prefill(CONSTRAINT_FIELDS, section.constraints, ss)
    for name, points in section.points().items():
        ss.setdefault(weight_key(name), int(round(points)))
        ss.setdefault(typed_weight_key(name), int(round(points)))
    if ss.get(_PRICE_CCY) != display.currency or MAX_PRICE_KEY not in ss:  # shown in the display currency
        ss[MAX_PRICE_KEY] = _max_price_shown(section, display)
        ss[_PRICE_CCY] = display.currency


def section_from_widgets(current: ScoringSection, display: DisplaySettings, scope: OfferScope,
                         state: State | None = None) -> ScoringSection:
    """The section the widgets describe (``current``: the stored one, whose maximum price is kept exactly when its
    shown value is unchanged; ``scope``: from ui.offer_scope). Raises ValidationError for an invalid one."""
    ss = st.session_state if state is None else state
    constraints = read_back(CONSTRAINT_FIELDS, ss)
    return ScoringSection(
        **read_back(SECTION_FIELDS, ss), weight_points={name: float(ss[key]) for name, key in _weight_keys(ss).items()},
        constraints=Constraints(**constraints,
                                max_price_eur_per_gpu_hour=_max_price_stored(ss[MAX_PRICE_KEY], current, display)),
        scope=scope)


def apply_preset() -> None:
    """on_change of the preset picker (and the reset button): the preset's weights and constraints."""
    ss = st.session_state
    preset = PRESETS[ss[KEYS["preset"]]]
    for c in CRITERIA:
        ss[weight_key(c.name)] = ss[typed_weight_key(c.name)] = int(round(preset.weight_points.get(c.name, 0)))
    overwrite(CONSTRAINT_FIELDS, preset.constraints, ss)
    section = get_scenario().scoring
    cap, display = preset.constraints.max_price_eur_per_gpu_hour, get_scenario().display
    ss[MAX_PRICE_KEY] = None if cap is None else round(float(from_eur(cap, display.currency, display.usd_per_eur)), 2)
    update_scenario(scoring=section.model_copy(update={"preset": preset.name, "weight_points": {},
                                                       "constraints": preset.constraints}))


def _slider_label(c: Criterion, share: float, display: DisplaySettings) -> str:
    unit = f"{SYMBOL[display.currency]}/GPU-h" if c.name == "price_eur_per_gpu_hour" else c.unit
    name = c.label.replace(" (allowed downtime)", "") if c.unit != "-" else c.label
    return f"{name}{f', {unit}' if unit != '-' else ''} · {share:.0%}"


def _draw_weights(display: DisplaySettings) -> dict[str, float]:
    ss = st.session_state
    typed = bool(ss.get(TYPED_KEY))
    keys = _weight_keys(ss)
    points = {name: float(ss[key]) for name, key in keys.items()}
    total = sum(points.values())
    n_weighted = sum(v > 0 for v in points.values())
    with st.expander(f"Weights: {n_weighted} of {len(CRITERIA)} criteria count · 0–100 points each; the % after "
                     "each name is its share of the total", expanded=True, icon=":material/tune:"):
        # Setting exact values by dragging took 11 drags for four weights in a workshop (issue #31): the same
        # weights as numbers, one edit each; both kinds are filled from the scenario, so switching keeps every value.
        st.toggle("Type the weights", key=TYPED_KEY, on_change=_switch_weight_widgets,
                  help="Number fields instead of sliders: type a value and press Enter.")
        cols = st.columns(3, gap="large")
        for i, c in enumerate(CRITERIA):
            better = "Lower" if c.objective is Objective.MIN else "Higher"
            unit = "a score from 0 to 1" if c.unit == "-" else c.unit
            draw = cols[i % 3].number_input if typed else cols[i % 3].slider
            draw(_slider_label(c, points[c.name] / total if total else 0.0, display), 0, 100, step=1,
                 key=keys[c.name],
                 help=f"{c.label}, {unit}. {better} is better. From the catalog's {c.source}. {c.mapping_doc}")
    return points


def scoring_inputs(display: DisplaySettings) -> ScoringSection | None:
    """Draw the inputs (initialised from the scenario) and return the section they describe, or None after
    saying what is wrong. A valid section is written back to the scenario."""
    current = get_scenario().scoring
    prefill_widgets(current, display)
    ss = st.session_state
    sym = SYMBOL[display.currency]
    catalog = offers_with_quotes(display.usd_per_eur)
    with st.container(border=True):
        st.markdown("**Which offers compete** (like for like: only offers that can do the job are ranked)")
        scope = offer_scope.scope_widgets(SCOPE_KEY, current.scope, sorted(catalog["gpu_model"].dropna().unique()))
    with st.container(border=True):
        a, b, c = st.columns([1.25, 1.15, 1.2])
        a.selectbox("Preset", list(PRESETS), key=KEYS["preset"], on_change=apply_preset,
                    help="Sets the weights and the hard constraints. Both stay editable.")
        preset = PRESETS[ss[KEYS["preset"]]]
        a.caption(preset.description)
        b.markdown("**Hard constraints** (filter before ranking)")
        for t in TOGGLES:
            b.toggle(SCORING_CONSTRAINT_LABELS[t], key=KEYS[t], help=CONSTRAINT_HELP[t])
        held = sorted(set(certification_options(catalog))
                      | set(ss[KEYS["required_certifications"]]))
        b.multiselect(SCORING_CONSTRAINT_LABELS["required_certifications"], held, key=KEYS["required_certifications"],
                      placeholder="none required",
                      help="The provider must hold every one of these (e.g. BSI-C5, ISO27001) with a stated scope that "
                           "covers the offer's GPU service and data-centre country; a certificate held for other "
                           "products (OVHcloud SecNumCloud) or with an unstated scope does not count. A certificate "
                           "not on record fails: most providers publish none in the consulted sources.")
        b.number_input(f"Maximum price ({sym} per GPU-hour)", min_value=0.01, value=None, step=0.1, format="%.2f",
                       key=MAX_PRICE_KEY, placeholder="no limit",
                       help="Applies to the effective price (the price basis on the right). No price stated: fails.")
        c.radio("Method", list(SCORING_METHOD_LABELS), format_func=SCORING_METHOD_LABELS.__getitem__, key=KEYS["method"], horizontal=True,
                help="Weighted sum: min-max normalised criteria times weights, added up. TOPSIS: distance to the "
                     "best and the worst value of every criterion (Hwang & Yoon 1981).")
        c.radio("When the catalog does not state a value", list(SCORING_MISSING_LABELS), format_func=SCORING_MISSING_LABELS.__getitem__,
                key=KEYS["missing"])
        c.caption(MISSING_EXPLAIN[ss[KEYS["missing"]]])
        c.selectbox("Price basis", list(SCORING_BASIS_LABELS), format_func=SCORING_BASIS_LABELS.__getitem__, key=KEYS["price_basis"],
                    help="Which catalog price of each offer is its effective price.")
        points = _draw_weights(display)
        edited = {k: v for k, v in points.items() if v != preset.weight_points.get(k, 0)}
        changed = any(ss[KEYS[t]] != getattr(preset.constraints, t) for t in TOGGLES) or (
            tuple(ss[KEYS["required_certifications"]]) != preset.constraints.required_certifications)
        if edited or changed or ss[MAX_PRICE_KEY]:
            off = preset.not_in_force(Constraints(**{t: bool(ss[KEYS[t]]) for t in TOGGLES}))
            a.caption(f"Edited from the preset ({len(edited)} weights changed" + "".join(
                f"; its hard rule *{SCORING_CONSTRAINT_LABELS[t]}* is off" + (" (still preferred by weight)" if points.get(
                    _PREFERS.get(t, ""), 0) > 0 else "") for t in off) + ").")
            a.button("Reset to the preset", key=RESET_KEY, on_click=apply_preset, icon=":material/restart_alt:")
    if sum(points.values()) <= 0:
        st.error("**Give at least one criterion some weight** to rank the offers.", icon=":material/error:")
        return None
    section = section_from_widgets(current, display, scope)
    if section != current:
        update_scenario(scoring=section)
    return section


def draw_concentration() -> float:
    """The weight-uncertainty slider of the stability section; returns the Dirichlet concentration [-]."""
    st.select_slider(
        "Weight uncertainty (Dirichlet concentration: lower = weights vary more)", CONCENTRATIONS,
        key=KEYS["concentration"], format_func=lambda v: f"{v:g}",
        help="Weights are drawn around yours with alpha = c × w: the spread of one weight w is "
             "√(w(1−w)/(c+1)); at c = 20 a 20 % weight varies by about ±9 points.")
    return float(st.session_state[KEYS["concentration"]])
