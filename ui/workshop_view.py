"""Widgets of the Workshop page (thin page in app_pages/workshop.py).

Everything stored lives in a client **workspace**, opened by a link with an unguessable token (``?ws=``):
saved scenarios and group sessions are listed only inside their workspace; an editor may delete a saved
scenario. Names typed by users are shown as plain text (:func:`ui.format.plain`).
"""

from __future__ import annotations

import hashlib
from typing import cast

import pandas as pd
import streamlit as st

from catalog.cells import neutralise_frame
from catalog.errors import CatalogError
from catalog.store import CatalogStore
from ui import labels
from ui.auth import current_editor, is_editor
from ui.format import plain
from ui.private_prices import for_viewer
from ui.quotes import WORKSPACE_KEY, catalog_key, for_sharing
from ui.rate_limit import RateLimiter
from ui.scenario import Scenario
from ui.workshop import (
    LINK_PARAM,
    MAX_SCENARIO_BYTES,
    SCENARIO_NAME_KEY,
    WORKSPACE_PARAM,
    ScenarioFormatError,
    apply_scenario,
    encode_link,
    flatten,
    from_json,
    key_results,
    to_json,
)


def _base_url() -> str:
    return (st.context.url or "").split("?")[0] if hasattr(st.context, "url") else ""


def share_url(scenario: Scenario) -> str:
    return f"{_base_url()}?{LINK_PARAM}={encode_link(scenario)}"


# --------------------------------------------------------------------------------------------------
# Workspace
# --------------------------------------------------------------------------------------------------


#: What one anonymous client may create per hour and server process (issue #28.11); editors are not limited.
WORKSPACES_PER_CLIENT_PER_HOUR, WORKSPACES_PER_HOUR = 5, 100
SAVES_PER_CLIENT_PER_HOUR, SAVES_PER_HOUR = 60, 600


@st.cache_resource
def _limits() -> dict[str, RateLimiter]:
    return {"workspace": RateLimiter(WORKSPACES_PER_CLIENT_PER_HOUR, WORKSPACES_PER_HOUR, 3600.0),
            "save": RateLimiter(SAVES_PER_CLIENT_PER_HOUR, SAVES_PER_HOUR, 3600.0)}


def _within_limit(kind: str) -> bool:
    """Editors are not limited; anyone else counts against their address's and everyone's hourly allowance."""
    if current_editor() is not None:
        return True
    address = getattr(st.context, "ip_address", None)
    if _limits()[kind].allow(address if isinstance(address, str) else None):
        return True
    what = "workspaces started" if kind == "workspace" else "scenarios saved"
    st.error(f"Too many {what} from your address in the last hour: try again later, or sign in as an editor. "
             "Nothing was created.", icon=":material/hourglass:")
    return False


def current_workspace(store: CatalogStore) -> tuple[str | None, dict | None]:
    """The open workspace's token and record; an unknown token is dropped with a message."""
    token = st.session_state.get(WORKSPACE_KEY)
    if not token:
        return None, None
    record = store.workspace(token)
    if record is None:
        st.session_state.pop(WORKSPACE_KEY, None)
        st.error("This workspace link is not valid (unknown or mistyped). Ask for the link again, or start a new "
                 "workspace below.", icon=":material/link_off:")
        return None, None
    return token, record


def workspace_bar(store: CatalogStore) -> tuple[str | None, dict | None]:
    """Which client workspace is open, its link, and how to open or leave one."""
    token, record = current_workspace(store)
    if record is None:
        with st.container(border=True, key="ws_open"):
            st.markdown("**Client workspace.** Saved scenarios and group sessions live in a workspace per client. "
                        "Only people with its link see what is in it.")
            c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
            client = c1.text_input("Client", key="ws_new_client", max_chars=120, placeholder="e.g. ACME Bank")
            if c2.button("Start a workspace", key="ws_create", type="primary", disabled=not (client or "").strip()) \
                    and _within_limit("workspace"):
                who = current_editor()
                try:
                    token = store.create_workspace(client, created_by=who.name if who else None)
                except CatalogError as exc:
                    st.error(str(exc))
                else:
                    st.session_state[WORKSPACE_KEY] = token
                    st.session_state.setdefault(_OWN_KEY, set()).add(token)  # started here: saving needs no question
                    st.rerun()
            st.caption("Have a workspace link? Open it: it brings you back here with the workspace open.")
        return None, None
    c1, c2 = st.columns([5, 1], vertical_alignment="center")
    c1.markdown(f"Workspace **{plain(record['client'])}**, started {_started(record)} · keep this link private: "
                "whoever has it sees and adds scenarios of this client.")
    if c2.button("Leave", key="ws_leave", help="Close this workspace in this browser (the link still opens it)."):
        st.session_state.pop(WORKSPACE_KEY, None)
        st.rerun()
    c1.code(f"{_base_url()}?{WORKSPACE_PARAM}={token}", language=None)
    return token, record


# --------------------------------------------------------------------------------------------------
# Save, load, share
# --------------------------------------------------------------------------------------------------


#: Workspaces this browser session started or confirmed; saving into any other one asks first (issue #28.7).
_OWN_KEY = "_ws_own"


def _started(record: dict) -> str:
    created = record.get("created_at")
    return f"{created:%Y-%m-%d %H:%M} UTC" if hasattr(created, "strftime") else "at an unknown time"


def _may_save_into(workspace: str, record: dict) -> bool:
    """Whether this session may save into ``workspace`` without asking: it started it, or its user confirmed it
    after seeing whose it is. A workspace link from someone else would otherwise capture what the user saves
    (workspace fixation): its owner sees every scenario saved there."""
    own = st.session_state.setdefault(_OWN_KEY, set())
    if workspace in own:
        return True
    with st.container(border=True, key="ws_not_yours"):
        st.warning(f"You did not start this workspace: it is **{plain(record['client'])}**, started "
                   f"{_started(record)}. Whoever gave you its link sees every scenario saved in it.",
                   icon=":material/warning:")
        c1, c2 = st.columns(2)
        if c1.button("Save into this workspace", key="ws_confirm",
                     help="You know this workspace: scenarios you save are seen by everyone with its link."):
            own.add(workspace)
            st.rerun()
        if c2.button("Start my own workspace", key="ws_start_own", type="primary"):
            st.session_state.pop(WORKSPACE_KEY, None)
            st.rerun()
    return False


def _labels(saved: pd.DataFrame) -> dict[int, str]:
    """Labels numbered within the workspace (1 = oldest): stored ids are random and say nothing (#28.11)."""
    n = len(saved)
    return {int(cast(int, r.scenario_id)): f"#{n - i} · {r.name!s}" + (f" · {r.client!s}" if r.client else "")
            for i, r in enumerate(saved.itertuples())}


def save_load_share(store: CatalogStore, scenario: Scenario, workspace: str | None, record: dict | None) -> None:
    left, right = st.columns(2)
    with left.container(border=True):
        st.markdown("**Save the current scenario**")
        if workspace is None:
            st.caption("Start or open a client workspace (above) to save scenarios.")
        confirmed = workspace is not None and record is not None and _may_save_into(workspace, record)
        name = st.text_input("Name", key="ws_name", placeholder="e.g. Baseline: all on-demand", max_chars=120,
                             disabled=not confirmed)
        who = current_editor()
        if st.button("Save scenario", key="ws_save", type="primary", disabled=not confirmed or not (name or "").strip()) \
                and _within_limit("save"):
            assert workspace is not None and record is not None  # the button is enabled only then (confirmed)
            try:
                store.save_scenario(name, to_json(scenario), scenario.version, workspace=workspace,
                                    client=record["client"], author=who.name if who else None)
                st.session_state[SCENARIO_NAME_KEY] = name.strip()
                st.success(f"Saved as scenario #{len(store.list_scenarios(workspace))} of this workspace.")
            except CatalogError as exc:
                st.error(str(exc))
        st.download_button("Download as JSON", to_json(for_sharing(scenario)), file_name="scenario.json", mime="application/json",
                           key="ws_download")
        st.markdown("**Share link** (opens this exact view for anyone with the app; it carries no workspace)")
        st.code(share_url(scenario), language=None, wrap_lines=True)
    with right.container(border=True):
        st.markdown("**Load a scenario**")
        saved = store.list_scenarios(workspace)
        if len(saved):
            names = _labels(saved)
            chosen = st.selectbox("Saved scenarios in this workspace", list(names), format_func=names.__getitem__, key="ws_pick")
            c1, c2 = st.columns(2)
            if c1.button("Load", key="ws_load"):
                loaded = _from_store(store, chosen, workspace)
                if loaded is not None:
                    _load(loaded, str(saved.set_index("scenario_id").loc[chosen, "name"]))
            if is_editor():
                if c2.button("Delete", key="ws_delete", icon=":material/delete:",
                             help="Editors only: delete this saved scenario from the workspace."):
                    try:
                        editor = current_editor()
                        if editor is None:  # signed out since the button was drawn
                            raise CatalogError("You are no longer signed in: nothing was deleted.")
                        store.delete_scenario(chosen, workspace, editor)
                        st.session_state.pop("ws_pick", None)
                        st.rerun()
                    except CatalogError as exc:
                        st.error(str(exc))
        else:
            st.caption("No saved scenarios in this workspace yet." if workspace else "Open a workspace to list its "
                       "saved scenarios.")
        upload = st.file_uploader("…or upload a scenario JSON", type=["json"], key="ws_upload",
                                  max_upload_size=max(1, MAX_SCENARIO_BYTES // 1_000_000))  # MB; checked again below
        if upload is not None and st.button("Load the uploaded file", key="ws_load_upload"):
            if upload.size > MAX_SCENARIO_BYTES:
                st.error(f"This file is {upload.size / 1e6:.1f} MB; scenario files are far smaller (at most "
                         f"{MAX_SCENARIO_BYTES // 1000:,} kB). Nothing was loaded.")
            else:
                _load(from_json_safe(upload.getvalue()), upload.name.removesuffix(".json"))


def _from_store(store: CatalogStore, scenario_id: int, workspace: str | None) -> Scenario | None:
    try:
        return from_json(store.scenario_json(scenario_id, workspace))
    except (CatalogError, ScenarioFormatError) as exc:
        st.error(f"Scenario #{scenario_id} cannot be loaded: {plain(exc)}")
        return None


def from_json_safe(text) -> Scenario | None:
    try:
        return from_json(text)
    except ScenarioFormatError as exc:
        st.error(plain(str(exc)))
        return None


def _load(scenario: Scenario | None, name: str | None = None) -> None:
    if scenario is None:
        return
    apply_scenario(scenario)
    if name:
        st.session_state[SCENARIO_NAME_KEY] = name[:120]
    st.rerun()


# --------------------------------------------------------------------------------------------------
# Compare
# --------------------------------------------------------------------------------------------------


@st.cache_data(show_spinner=False, max_entries=32)
def _results(scenario_json: str, catalog: tuple) -> dict:
    # ``catalog`` (ui.quotes.catalog_key) keys the results on the catalog version and the viewer's role:
    # an editor's results (with private quotes) are never served to a viewer.
    return key_results(from_json(scenario_json))


def results_frame(results: dict[str, dict], currency: str, usd_per_eur: float) -> pd.DataFrame:
    """Key results of several scenarios as one table: a readable row per result, values with units."""
    keys = list(dict.fromkeys(k for r in results.values() for k in r))
    return pd.DataFrame({name: [labels.fmt(k, r.get(k), currency, usd_per_eur) if k in r else "—" for k in keys]
                         for name, r in results.items()}, index=[labels.label(k) for k in keys])


def inputs_frame(scenarios: dict[str, Scenario], currency: str, usd_per_eur: float) -> pd.DataFrame:
    flat = {name: flatten(s) for name, s in scenarios.items()}
    paths = list(dict.fromkeys(p for f in flat.values() for p in f))

    def cell(path: str, values: dict) -> str:
        if path not in values:
            return "—"
        field = path.rsplit(".", 1)[-1]
        if path.startswith(("scoring.weight_points.", "scoring.group_votes.")):
            return f"{values[path]:g} points"
        return labels.fmt(field, values[path], currency, usd_per_eur)

    frame = pd.DataFrame({name: [cell(p, f) for p in paths] for name, f in flat.items()},
                         index=[labels.path_label(p) for p in paths])
    return frame


def compare(store: CatalogStore, workspace: str | None, display) -> None:
    if workspace is None:
        st.info("Open a client workspace (above) to compare its saved scenarios.")
        return
    saved = store.list_scenarios(workspace)
    if len(saved) < 2:
        st.info("Save at least two scenarios in this workspace to compare them (the current one can be one of them).")
        return
    names = _labels(saved.assign(client=None))
    picked = st.multiselect("Scenarios (2 or 3)", list(names), default=list(names)[:2], format_func=names.__getitem__,
                            max_selections=3, key="ws_compare")
    if len(picked) < 2:
        return
    scenarios: dict[str, Scenario] = {}
    results: dict[str, dict] = {}
    failed: list[str] = []
    with st.spinner("Computing each scenario…"):
        for sid in picked:
            try:
                scenario = for_viewer(from_json(store.scenario_json(sid, workspace)))  # no private price (#28.2)
                results[names[sid]] = _results(to_json(scenario), catalog_key(scenario.display.usd_per_eur))
                scenarios[names[sid]] = scenario
            except Exception as exc:  # one bad scenario must not take the comparison down for everyone
                failed.append(f"{names[sid]}: {str(exc)[:200]}")
    for message in failed:
        st.error(f"Left out of the comparison, it cannot be computed. {plain(message)}", icon=":material/error:")
    if len(results) < 1:
        return
    st.markdown("**Key results**")
    # Scenario names (the columns) are the user's text: neutralised against spreadsheet formulas (#28.12).
    st.dataframe(neutralise_frame(results_frame(results, display.currency, display.usd_per_eur)), width="stretch")
    inputs = neutralise_frame(inputs_frame(scenarios, display.currency, display.usd_per_eur))
    differs = inputs.nunique(axis=1) > 1
    st.markdown(f"**Inputs that differ** ({int(differs.sum())} of {len(inputs)})")
    st.dataframe(inputs[differs].style.apply(lambda row: ["background-color: #fef3c7"] * len(row), axis=1),
                 width="stretch")
    with st.expander("All inputs"):
        st.dataframe(inputs, width="stretch")


# --------------------------------------------------------------------------------------------------
# Export
# --------------------------------------------------------------------------------------------------


def fingerprint(store: CatalogStore, scenario: Scenario, client: str, name: str) -> str:
    """What an export depends on: the scenario, the catalog version, the header. A different value means a
    file built earlier is outdated."""
    from ui.quotes import quotes_key

    text = "|".join([to_json(scenario), str(store.path), str(store.data_version), client, name, quotes_key()])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _download(slot, kind: str, label: str, file_name: str, mime: str, current: str) -> None:
    built = st.session_state.get(f"ws_{kind}")
    if built is None:
        return
    if built["key"] == current:
        slot.download_button(label, built["data"], file_name=file_name, mime=mime, key=f"ws_dl_{kind}",
                             on_click="ignore", type="primary")
        slot.caption("Built from the current scenario and catalog.")
    else:
        slot.download_button(f"{label} (outdated)", b"", file_name=file_name, key=f"ws_dl_{kind}", disabled=True)
        slot.warning("The scenario or the catalog changed after this file was built: build it again.",
                     icon=":material/update:")


def _prefill(key: str, value: str) -> None:
    """Fill a report-header field from the workspace (issue #27.12) whenever that value changes (a workspace opened,
    a scenario saved or loaded), unless the user has typed their own text into it."""
    last, value = st.session_state.get(f"_{key}_prefill"), value[:120]
    current = st.session_state.get(key)
    # Write only a change: assigning a widget's key on every run (even the same text) makes Streamlit push that value
    # to the browser, which overwrote what the user was typing in the other field before it reached the server.
    if current in (None, last or "") and current != value:
        st.session_state[key] = value
    st.session_state[f"_{key}_prefill"] = value


def export(store: CatalogStore, scenario: Scenario, record: dict | None) -> None:
    from ui.exports import excel_workbook, pdf_report

    st.markdown("The workbook has one sheet per page (inputs with their sources, results, assumptions, the catalog "
                "rows used with their sources and dates). The report adds the charts and the verdicts of every page.")
    h1, h2 = st.columns(2)
    _prefill("ws_x_client", (record or {}).get("client") or "")
    _prefill("ws_x_name", st.session_state.get(SCENARIO_NAME_KEY) or "")
    # prefilled from the open workspace's client and the scenario last saved or loaded (#27.12)
    client = h1.text_input("Client (report header)", key="ws_x_client", max_chars=120)
    name = h2.text_input("Scenario name (report header)", key="ws_x_name", max_chars=120, placeholder="e.g. Baseline")
    header = {"client": client.strip(), "scenario_name": name.strip()}
    current = fingerprint(store, scenario, header["client"], header["scenario_name"])
    c1, c2 = st.columns(2)
    if c1.button("Build the Excel workbook", key="ws_build_xlsx"):
        with st.spinner("Building the workbook…"):
            data = excel_workbook(store, scenario, **header)
        st.session_state["ws_xlsx"] = {"data": data, "key": current}
    _download(c1, "xlsx", "Download workbook", "gpu-cloud-advisor.xlsx",
              "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", current)
    if c2.button("Build the PDF report", key="ws_build_pdf"):
        progress = c2.progress(0, text="Starting…")
        try:
            data = pdf_report(store, scenario, progress=lambda f, t: progress.progress(f, text=t), **header)
            st.session_state["ws_pdf"] = {"data": data, "key": current}
        except RuntimeError as exc:
            c2.error(str(exc))
    _download(c2, "pdf", "Download report", "gpu-cloud-advisor.pdf", "application/pdf", current)
