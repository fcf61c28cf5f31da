"""Widgets of the Workshop page (thin page in app_pages/workshop.py)."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from catalog.errors import CatalogError
from catalog.store import CatalogStore
from ui.auth import current_editor
from ui.catalog import catalog_key
from ui.scenario import Scenario
from ui.workshop import (
    LINK_PARAM,
    ScenarioFormatError,
    apply_scenario,
    encode_link,
    from_json,
    key_results,
    to_json,
)


def share_url(scenario: Scenario) -> str:
    base = (st.context.url or "").split("?")[0] if hasattr(st.context, "url") else ""
    return f"{base}?{LINK_PARAM}={encode_link(scenario)}"


def save_load_share(store: CatalogStore, scenario: Scenario) -> None:
    left, right = st.columns(2)
    with left.container(border=True):
        st.markdown("**Save the current scenario**")
        name = st.text_input("Name", key="ws_name", placeholder="e.g. Baseline: all on-demand")
        client = st.text_input("Client", key="ws_client")
        who = current_editor()
        if st.button("Save scenario", key="ws_save", type="primary", disabled=not (name or "").strip()):
            try:
                sid = store.save_scenario(name, to_json(scenario), scenario.version, client=client or None,
                                          author=who.name if who else None)
                st.success(f"Saved as scenario #{sid}.")
            except CatalogError as exc:
                st.error(str(exc))
        st.download_button("Download as JSON", to_json(scenario), file_name="scenario.json", mime="application/json",
                           key="ws_download")
        st.markdown("**Share link** (opens this exact view for anyone with the app)")
        st.code(share_url(scenario), language=None, wrap_lines=True)
    with right.container(border=True):
        st.markdown("**Load a scenario**")
        saved = store.list_scenarios()
        if len(saved):
            labels = {int(r.scenario_id): f"#{r.scenario_id} · {r.name}" + (f" · {r.client}" if r.client else "")
                      for r in saved.itertuples()}
            chosen = st.selectbox("Saved scenarios", list(labels), format_func=labels.get, key="ws_pick")
            if st.button("Load", key="ws_load"):
                _load(from_json_safe(store.scenario_json(chosen)))
        else:
            st.caption("No saved scenarios yet.")
        upload = st.file_uploader("…or upload a scenario JSON", type=["json"], key="ws_upload")
        if upload is not None and st.button("Load the uploaded file", key="ws_load_upload"):
            _load(from_json_safe(upload.getvalue()))


def from_json_safe(text) -> Scenario | None:
    try:
        return from_json(text)
    except ScenarioFormatError as exc:
        st.error(str(exc))
        return None


def _load(scenario: Scenario | None) -> None:
    if scenario is None:
        return
    apply_scenario(scenario)
    st.rerun()


@st.cache_data(show_spinner=False, max_entries=32)
def _results(scenario_json: str, catalog: tuple) -> dict:
    # ``catalog`` (ui.catalog.catalog_key) keys the results on the catalog version and the viewer's role:
    # an editor's results (with private quotes) are never served to a viewer.
    return key_results(from_json(scenario_json))


def _fmt_results(table: pd.DataFrame) -> pd.DataFrame:
    """Utilisation rows as percentages, other numbers with two decimals, missing as a dash."""
    def fmt(label: str, value) -> str:
        if isinstance(value, float):
            if math.isnan(value):
                return "—"
            return f"{value:.0%}" if "utilisation" in label else f"{value:,.2f}"
        return str(value)

    return pd.DataFrame({col: [fmt(idx, v) for idx, v in table[col].items()] for col in table.columns}, index=table.index)


def flatten(scenario: Scenario) -> dict[str, object]:
    """Every input as a flat 'section.field' → value map (for the difference table)."""
    out: dict[str, object] = {}

    def walk(prefix: str, value) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else k, v)
        else:
            out[prefix] = value

    walk("", scenario.model_dump(mode="json"))
    return out


def compare(store: CatalogStore) -> None:
    saved = store.list_scenarios()
    if len(saved) < 2:
        st.info("Save at least two scenarios to compare them (the current one can be one of them).")
        return
    labels = {int(r.scenario_id): f"#{r.scenario_id} · {r.name}" for r in saved.itertuples()}
    picked = st.multiselect("Scenarios (2 or 3)", list(labels), default=list(labels)[:2], format_func=labels.get,
                            max_selections=3, key="ws_compare")
    if len(picked) < 2:
        return
    scenarios = {labels[i]: from_json(store.scenario_json(i)) for i in picked}
    with st.spinner("Computing each scenario…"):
        results = {name: _results(to_json(s), catalog_key(s.display.usd_per_eur)) for name, s in scenarios.items()}
    table = pd.DataFrame(results)
    st.markdown("**Key results**")
    st.dataframe(_fmt_results(table), width="stretch")
    flat = {name: flatten(s) for name, s in scenarios.items()}
    inputs = pd.DataFrame(flat)
    differs = inputs.astype(str).nunique(axis=1) > 1
    st.markdown(f"**Inputs that differ** ({int(differs.sum())} of {len(inputs)})")
    st.dataframe(inputs[differs].astype(str).style.apply(lambda row: ["background-color: #fef3c7"] * len(row), axis=1),
                 width="stretch")
    with st.expander("All inputs"):
        st.dataframe(inputs.astype(str), width="stretch")


def export(store: CatalogStore, scenario: Scenario) -> None:
    from ui.exports import excel_workbook, pdf_report

    st.markdown("The workbook has one sheet per page (inputs, results, assumptions, the catalog rows used with "
                "their sources and dates). The report adds the charts and the verdicts.")
    c1, c2 = st.columns(2)
    if c1.button("Build the Excel workbook", key="ws_build_xlsx"):
        with st.spinner("Building the workbook…"):
            st.session_state["ws_xlsx"] = excel_workbook(store, scenario)
    if "ws_xlsx" in st.session_state:
        c1.download_button("Download workbook", st.session_state["ws_xlsx"], file_name="gpu-cloud-advisor.xlsx",
                           key="ws_dl_xlsx")
    if c2.button("Build the PDF report", key="ws_build_pdf"):
        progress = c2.progress(0, text="Starting…")
        try:
            st.session_state["ws_pdf"] = pdf_report(store, scenario, progress=lambda f, t: progress.progress(f, text=t))
        except RuntimeError as exc:
            c2.error(str(exc))
    if "ws_pdf" in st.session_state:
        c2.download_button("Download report", st.session_state["ws_pdf"], file_name="gpu-cloud-advisor.pdf",
                           mime="application/pdf", key="ws_dl_pdf")
