"""The client brief: set once (Home), applied to every page's inputs, and shown on each page with what that
page does differently.

Applying the brief writes its values into the page sections of the scenario (and resets the pages' widgets
so they redraw from it). A page may then be changed on its own; :func:`draw_banner` lists every difference
from the brief on that page, with a button that applies the brief to that page again. The brief is part of
the scenario, so it is saved, shared and compared with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st
from pydantic import ValidationError

from ui import brief_scope, offer_scope, workload_inputs
from ui.format import plain
from ui.scenario import (
    GPU_CLASSES,
    UTILISATION_RANGE,
    ClientBrief,
    Scenario,
    get_scenario,
    update_scenario,
    widget_key,
)

#: The TCO inputs the brief sets (same names in ClientBrief and TcoInputs; widget keys from ui.scenario.widget_key).
_TCO_FIELDS = ("cluster_gpus", "horizon_months", "utilisation_fraction")
#: Widget keys of the Providers page that the brief sets.
_PROVIDER_KEYS = ("prov_gpu", "prov_eu", "prov_jur", "prov_seat", "prov_certs")


@dataclass(frozen=True)
class Difference:
    """One input of a page that differs from the brief."""

    label: str
    page_value: str
    brief_value: str


def summary(brief: ClientBrief) -> str:
    """One line of Markdown: what the client asked for (the certification names as typed, through :func:`plain`)."""
    parts = [brief.gpu_class]
    if brief.model_params_billion:
        parts.append(f"{brief.model_params_billion:g}B model")
    parts += [f"{brief.cluster_gpus} GPUs", f"{brief.horizon_months} months", f"{brief.utilisation_fraction:.0%} utilisation"]
    if brief.eu_resident_only:
        parts.append("EU data centre")
    if brief.eu_jurisdiction_only:
        parts.append("EU parent")
    if brief.eu_legal_seat_only:
        parts.append("EU legal seat")
    if brief.required_certifications:
        parts.append(" + ".join(plain(c) for c in brief.required_certifications))
    return " · ".join(parts)


# --------------------------------------------------------------------------------------------------
# Applying the brief to the scenario's page sections
# --------------------------------------------------------------------------------------------------


def _apply_tco(scenario: Scenario, brief: ClientBrief) -> Scenario:
    inputs = scenario.tco.inputs.model_copy(update={name: getattr(brief, name) for name in _TCO_FIELDS})
    return scenario.model_copy(update={"tco": scenario.tco.model_copy(update={"inputs": inputs})})


def _apply_scope(page: str):
    """The brief's GPU class (and, on Scoring, its model as a fit) and its residency, through ui.offer_scope."""

    def apply(scenario: Scenario, brief: ClientBrief) -> Scenario:
        current, _residency = offer_scope.page_scope(scenario, page)
        return offer_scope.with_page_scope(scenario, page, offer_scope.scope_from_brief(brief, page, current),
                                           offer_scope.residency_from_brief(brief))
    return apply


def _apply_workload(scenario: Scenario, brief: ClientBrief) -> Scenario:
    scenario = _apply_scope("workload")(scenario, brief)
    job = scenario.workload.training
    if job.n_gpus != brief.cluster_gpus:
        # A manual parallel layout was for the old GPU count: the engine chooses one per offer again.
        job = job.model_copy(update={"n_gpus": brief.cluster_gpus, "tensor_parallel_degree": None,
                                     "pipeline_parallel_degree": None, "data_parallel_degree": None,
                                     "context_parallel_degree": 1})
        job = type(job).model_validate(job.model_dump())
    # Serving keeps its GPUs busy the brief's share of paid time (issue #27.3: it stayed at 100 %).
    service = scenario.workload.inference.model_copy(update={"target_utilisation_fraction": brief.utilisation_fraction})
    return scenario.model_copy(update={"workload": scenario.workload.model_copy(update={"training": job,
                                                                                      "inference": service})})


def _apply_placement(scenario: Scenario, brief: ClientBrief) -> Scenario:
    """The brief as the portfolio (one workload, :func:`ui.brief_scope.brief_workload`), its GPU class and
    residency as the client-wide venue rules (issue #27.3: the page kept its built-in example)."""
    scenario = _apply_scope("placement")(scenario, brief)
    section = scenario.placement
    scope = section.scope.model_copy(update={"gpu_models": brief.gpu_models})
    return scenario.model_copy(update={"placement": section.model_copy(update={
        "scope": scope, "workloads": [brief_scope.brief_workload(brief)]})})


#: Page -> function applying the brief to that page's section.
APPLY = {"tco": _apply_tco, "scoring": _apply_scope("scoring"), "workload": _apply_workload,
         "placement": _apply_placement, "providers": lambda scenario, brief: scenario}
#: Scenario sections the brief writes.
SECTIONS = ("brief", "tco", "scoring", "workload", "placement")


def apply_brief(scenario: Scenario, brief: ClientBrief, pages: tuple[str, ...] | None = None) -> Scenario:
    """``scenario`` with ``brief`` stored and applied to ``pages`` (default: every page)."""
    out = scenario.model_copy(update={"brief": brief})
    for page in pages or tuple(APPLY):
        out = APPLY[page](out, brief)
    return out


def _reset_widgets(pages: tuple[str, ...]) -> None:
    """Drop the widget state the brief drives, so each page redraws from the scenario (or the brief)."""
    keys: list[str] = []
    if "tco" in pages:
        keys += [widget_key("tco", name) for name in _TCO_FIELDS]
    if "providers" in pages:
        keys += list(_PROVIDER_KEYS)
    for key in keys:
        st.session_state.pop(key, None)
    for page in ("scoring", "workload", "placement"):
        if page in pages:
            offer_scope.forget_widgets(page)
    if "workload" in pages:
        for key in (widget_key("wl", "training.n_gpus"), workload_inputs.LAYOUT_KEY,
                    widget_key("wl", "inference.target_utilisation_fraction")):
            st.session_state.pop(key, None)
    if "placement" in pages:  # the portfolio grid redraws from the brief's workload
        from ui.placement_view import K_BASE, K_GRID  # lazy: the Placement page's module is large

        for key in (K_GRID, K_BASE):
            st.session_state.pop(key, None)


def use_brief(brief: ClientBrief | None = None, pages: tuple[str, ...] | None = None) -> None:
    """Store ``brief`` (default: the scenario's) and apply it to ``pages`` (default: all), widgets included."""
    scenario = get_scenario()
    chosen = pages or tuple(APPLY)
    updated = apply_brief(scenario, brief or scenario.brief, chosen)
    update_scenario(**{name: getattr(updated, name) for name in SECTIONS})
    _reset_widgets(chosen)


# --------------------------------------------------------------------------------------------------
# Differences per page
# --------------------------------------------------------------------------------------------------


def tco_differences(scenario: Scenario) -> list[Difference]:
    brief, inputs = scenario.brief, scenario.tco.inputs
    out = []
    if inputs.cluster_gpus != brief.cluster_gpus:
        out.append(Difference("GPUs", str(inputs.cluster_gpus), str(brief.cluster_gpus)))
    if inputs.horizon_months != brief.horizon_months:
        out.append(Difference("horizon", f"{inputs.horizon_months} months", f"{brief.horizon_months} months"))
    if abs(inputs.utilisation_fraction - brief.utilisation_fraction) > 1e-9:
        out.append(Difference("utilisation", f"{inputs.utilisation_fraction:.0%}", f"{brief.utilisation_fraction:.0%}"))
    return out


def _yes(flag: bool) -> str:
    return "required" if flag else "not required"


def constraint_differences(brief: ClientBrief, *, eu_resident_only: bool, eu_jurisdiction_only: bool,
                           eu_legal_seat_only: bool | None = None,
                           required_certifications: tuple[str, ...] | None = None) -> list[Difference]:
    """Residency and certification settings of a page against the brief (``None`` = the page has no such input)."""
    out = []
    if eu_resident_only != brief.eu_resident_only:
        out.append(Difference("EU data centre", _yes(eu_resident_only), _yes(brief.eu_resident_only)))
    if eu_jurisdiction_only != brief.eu_jurisdiction_only:
        out.append(Difference("EU parent", _yes(eu_jurisdiction_only), _yes(brief.eu_jurisdiction_only)))
    if eu_legal_seat_only is not None and eu_legal_seat_only != brief.eu_legal_seat_only:
        out.append(Difference("EU legal seat", _yes(eu_legal_seat_only), _yes(brief.eu_legal_seat_only)))
    if required_certifications is not None and set(required_certifications) != set(brief.required_certifications):
        out.append(Difference("certifications", ", ".join(required_certifications) or "none",
                              ", ".join(brief.required_certifications) or "none"))
    return out


def _gpu_class_text(models: tuple[str, ...]) -> str:
    named = {v: k for k, v in GPU_CLASSES.items()}
    return named.get(tuple(models), ", ".join(models) or "any GPU")


def scope_differences(scenario: Scenario, page: str) -> list[Difference]:
    """GPU class, model fit and residency of a scoped page (Scoring, Workload, Placement) against the brief."""
    brief = scenario.brief
    scope, residency = offer_scope.page_scope(scenario, page)
    wanted = offer_scope.scope_from_brief(brief, page, scope)
    out = []
    if set(scope.gpu_models) != set(wanted.gpu_models):
        out.append(Difference("GPU class", _gpu_class_text(scope.gpu_models), _gpu_class_text(wanted.gpu_models)))
    if page == "scoring" and scope.fit != wanted.fit:
        def fit_text(fit) -> str:
            return "none" if fit is None else f"{fit.model_params_b:g}B model on {fit.n_gpus} GPUs"
        out.append(Difference("model to fit", fit_text(scope.fit), fit_text(wanted.fit)))
    out += constraint_differences(brief, eu_resident_only=residency.eu_resident_only,
                                  eu_jurisdiction_only=residency.eu_jurisdiction_only,
                                  eu_legal_seat_only=residency.eu_legal_seat_only,
                                  required_certifications=tuple(residency.required_certifications))
    return out


def scoring_differences(scenario: Scenario) -> list[Difference]:
    return scope_differences(scenario, "scoring")


def workload_differences(scenario: Scenario) -> list[Difference]:
    out = []
    gpus = scenario.workload.training.n_gpus
    if scenario.workload.mode == "training" and gpus != scenario.brief.cluster_gpus:
        out.append(Difference("GPUs", str(gpus), str(scenario.brief.cluster_gpus)))
    busy = scenario.workload.inference.target_utilisation_fraction
    if scenario.workload.mode == "inference" and abs(busy - scenario.brief.utilisation_fraction) > 1e-9:
        out.append(Difference("utilisation", f"{busy:.0%}", f"{scenario.brief.utilisation_fraction:.0%}"))
    return out + scope_differences(scenario, "workload")


def placement_differences(scenario: Scenario) -> list[Difference]:
    """The portfolio (the brief's one workload, or an example / the user's own) and the venue rules."""
    brief, section = scenario.brief, scenario.placement
    out = []
    wanted = brief_scope.brief_workload(brief)
    if list(section.workloads) != [wanted]:
        page = (f"your own portfolio of {len(section.workloads)}" if section.workloads
                else f"the built-in example '{section.example}'")
        out.append(Difference("workloads", page, f"{wanted.peak_gpus:g} GPUs at {brief.utilisation_fraction:.0%}"))
    if set(section.scope.gpu_models) != set(brief.gpu_models):
        out.append(Difference("GPU class", _gpu_class_text(section.scope.gpu_models), _gpu_class_text(brief.gpu_models)))
    return out + scope_differences(scenario, "placement")


def provider_filter_defaults(brief: ClientBrief) -> dict[str, object]:
    """The Providers page's filter widgets as the brief sets them."""
    return {"prov_gpu": list(brief.gpu_models), "prov_eu": brief.eu_resident_only,
            "prov_jur": ["EU"] if brief.eu_jurisdiction_only else [], "prov_seat": brief.eu_legal_seat_only,
            "prov_certs": list(brief.required_certifications)}


def init_provider_filters(brief: ClientBrief) -> None:
    """Seed the Providers filters from the brief on the page's first draw in this session."""
    for key, value in provider_filter_defaults(brief).items():
        st.session_state.setdefault(key, value)


def provider_differences(brief: ClientBrief) -> list[Difference]:
    gpus = st.session_state.get("prov_gpu", [])
    out = []
    if set(gpus) != set(brief.gpu_models):
        out.append(Difference("GPU models", ", ".join(gpus) or "any", ", ".join(brief.gpu_models) or "any"))
    out += constraint_differences(brief, eu_resident_only=bool(st.session_state.get("prov_eu", False)),
                                  eu_jurisdiction_only=st.session_state.get("prov_jur", []) == ["EU"],
                                  eu_legal_seat_only=bool(st.session_state.get("prov_seat", False)),
                                  required_certifications=tuple(st.session_state.get("prov_certs", [])))
    return out


# --------------------------------------------------------------------------------------------------
# Widgets
# --------------------------------------------------------------------------------------------------


@st.cache_data(ttl=600, max_entries=64, show_spinner=False)
def _banner_counts(_catalog, key: tuple, brief_json: str) -> tuple[str, str | None]:
    """The banner's counts line and its 'nothing meets the brief' message: the same for every rerun of every page
    until the catalog, the viewer's prices, the day or the brief change (``key`` holds the first three; #31)."""
    from ui import catalog_counts

    brief = ClientBrief.model_validate_json(brief_json)
    counts = catalog_counts.catalog_counts(_catalog, brief, key[-1])
    return catalog_counts.banner_line(counts), brief_scope.nothing_meets_message(_catalog, brief)


def draw_banner(page: str, differences: list[Difference]) -> None:
    """The brief in one line, this page's differences from it, the brief's items the page does not apply and why,
    a button to apply the brief here, and, when no catalog offer meets the brief, the nearest alternatives
    (:mod:`ui.brief_scope`, the same on every page)."""
    from ui.catalog import offers
    from ui.quotes import catalog_key

    scenario = get_scenario()
    brief = scenario.brief
    skipped = brief_scope.not_applied_text(brief_scope.not_applied(page, scenario))
    skipped = f"  \n**Not applied here:** {skipped}" if skipped else ""
    with st.container(border=True):
        if not differences:
            st.caption(f"**Client brief:** {summary(brief)} · this page follows it.{skipped}")
        else:
            changed = "; ".join(f"{d.label} {plain(d.page_value)} (brief: {plain(d.brief_value)})" for d in differences)
            left, right = st.columns([5, 1])
            left.caption(f"**Client brief:** {summary(brief)}  \n**This page differs:** {changed}{skipped}")
            right.button("Use the brief here", key=f"brief_apply_{page}", on_click=use_brief,
                         kwargs={"pages": (page,)})
        catalog = offers(None, scenario.display.usd_per_eur)
        line, message = _banner_counts(catalog, catalog_key(scenario.display.usd_per_eur), brief.model_dump_json())
        st.caption(line)
        if message:
            st.warning(message, icon=":material/search_off:")


_FORM_KEYS = {"gpu_class": "_brief_gpu_class", "model": "_brief_model", "gpus": "_brief_gpus",
              "horizon": "_brief_horizon", "util": "_brief_util", "eu_dc": "_brief_eu_dc",
              "eu_parent": "_brief_eu_parent", "eu_seat": "_brief_eu_seat", "certs": "_brief_certs"}


def _apply_form() -> None:
    """on_click of the form's submit button: runs before the script, so every page and the sidebar show the new
    brief in the same rerun."""
    ss = st.session_state
    k = _FORM_KEYS
    try:
        new = ClientBrief(gpu_class=ss[k["gpu_class"]], model_params_billion=ss[k["model"]] or None,
                          cluster_gpus=int(ss[k["gpus"]]), horizon_months=int(ss[k["horizon"]]),
                          utilisation_fraction=float(ss[k["util"]]), eu_resident_only=bool(ss[k["eu_dc"]]),
                          eu_jurisdiction_only=bool(ss[k["eu_parent"]]), eu_legal_seat_only=bool(ss[k["eu_seat"]]),
                          required_certifications=tuple(ss[k["certs"]]))
    except ValidationError as exc:
        ss["_brief_outcome"] = ("error", "; ".join(e["msg"] for e in exc.errors()))
        return
    use_brief(new)
    ss["_brief_outcome"] = ("success", f"Brief applied to every page: {summary(new)}")


def draw_editor() -> None:
    """The brief's form (Home): on submit it becomes the scenario's brief and is applied to every page."""
    brief = get_scenario().brief
    k = _FORM_KEYS
    with st.form("brief_form", border=True):
        st.markdown("**Client brief** — set once, applied to every page (each page can still be changed on its own).")
        c1, c2, c3 = st.columns(3)
        c1.selectbox("GPU class", list(GPU_CLASSES), index=list(GPU_CLASSES).index(brief.gpu_class), key=k["gpu_class"])
        c1.number_input("Model to fit (billion parameters)", min_value=0.0, max_value=10_000.0,
                        value=float(brief.model_params_billion or 0.0), step=1.0, format="%g",
                        help="0 = no model size given.", key=k["model"])
        c2.number_input("GPUs in the cluster", min_value=1, max_value=100_000, value=brief.cluster_gpus, step=8,
                        key=k["gpus"])
        c2.number_input("Horizon (months)", min_value=1, max_value=240, value=brief.horizon_months, step=6,
                        key=k["horizon"])
        c2.slider("Sustained utilisation", *UTILISATION_RANGE, value=float(brief.utilisation_fraction), step=0.01,
                  key=k["util"])
        c3.toggle("EU/EEA data centre required", value=brief.eu_resident_only, key=k["eu_dc"])
        c3.toggle("EU parent company required", value=brief.eu_jurisdiction_only, key=k["eu_parent"])
        c3.toggle("EU/EEA legal seat required", value=brief.eu_legal_seat_only, key=k["eu_seat"])
        c3.multiselect("Required certifications", _certification_options(brief),
                       default=list(brief.required_certifications), placeholder="none", key=k["certs"])
        st.form_submit_button("Apply the brief to every page", type="primary", on_click=_apply_form)
    outcome = st.session_state.pop("_brief_outcome", None)
    if outcome:
        kind, text = outcome
        (st.success if kind == "success" else st.error)(text, icon=":material/check_circle:" if kind == "success"
                                                        else ":material/error:")


def _certification_options(brief: ClientBrief) -> list[str]:
    from catalog.coverage import certification_options  # held tokens + BSI-C5, SecNumCloud, ENS, HDS (#18)
    from ui.catalog import table

    tokens = certification_options(table("providers"))
    return sorted(set(tokens) | set(brief.required_certifications))


def draw_sidebar_summary() -> None:
    """The brief in the sidebar, with a link to edit it."""
    st.sidebar.caption(f"**Client brief:** {summary(get_scenario().brief)}")
    st.sidebar.page_link("app_pages/home.py", label="Edit the brief", icon=":material/edit:")
