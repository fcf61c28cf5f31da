"""Group weighting in a workshop: participants set weights on their own devices; the consultant's screen
shows the group's weights (geometric mean), the spread of opinion and each participant's winner."""

from __future__ import annotations

import secrets

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from catalog.cells import neutralise_frame
from catalog.errors import CatalogError
from catalog.store import MAX_PARTICIPANT_NAME, CatalogStore
from engine.group import aggregate
from engine.scoring import CRITERIA, CRITERION_NAMES
from ui.charts import style
from ui.format import plain
from ui.labels import criterion_label
from ui.scenario import get_scenario, update_scenario
from ui.scoring_inputs import weight_key
from ui.scoring_ranking import score

JOIN_PARAM = "join"


def _top(points: dict[str, float]) -> str:
    scenario = get_scenario()
    scored = score(scenario.scoring.model_copy(update={"weight_points": points}), scenario.display.usd_per_eur)
    if not len(scored.result.order):
        return "no offer passes the constraints"
    top = scored.offers.iloc[int(scored.result.order[0])]
    return f"{top['provider_name']} · {top['gpu_model']} · {top['region']}"


VOTER_PARAM = "voter"
VOTER_KEY = "_voter"


#: Streamlit's XSRF cookie: one random token per browser (every tab sends it), re-masked on each page load.
_BROWSER_COOKIE = "_streamlit_xsrf"


def _browser_voter() -> str | None:
    """A voter id shared by every tab of this browser (issue #28.8), derived from the token inside Streamlit's
    XSRF cookie (never the token itself); None where the cookie is absent (XSRF protection off, AppTest)."""
    import hashlib

    try:
        raw = st.context.cookies.get(_BROWSER_COOKIE)
    except Exception:
        return None
    if not isinstance(raw, str) or not raw:
        return None
    try:
        from streamlit.web.server.starlette.starlette_app_utils import decode_xsrf_token_string

        token, _ = decode_xsrf_token_string(raw)
    except Exception:  # another Streamlit server or cookie format: the whole cookie value, as it was sent
        token = raw.encode()
    if not token:
        return None
    return "browser-" + hashlib.sha256(b"gpu-advisor group vote|" + bytes(token)).hexdigest()[:40]


def _voter() -> str:
    """The voter id of this participant: one per browser (every tab of a browser shares it, so voting again from
    another tab replaces the vote), else this session's secret, kept in the URL (``?voter=``) so that a reload
    can still change the vote; nobody else can."""
    browser = _browser_voter()
    if browser:
        return browser
    token = st.query_params.get(VOTER_PARAM) or st.session_state.get(VOTER_KEY)
    if not token or not (16 <= len(token) <= 64) or not token.replace("-", "").replace("_", "").isalnum():
        token = secrets.token_urlsafe(16)
    st.session_state[VOTER_KEY] = token
    if st.query_params.get(VOTER_PARAM) != token:
        st.query_params[VOTER_PARAM] = token
    return token


def participant_form(store: CatalogStore, code: str) -> None:
    if not store.group_session_exists(code):
        st.title("Group weighting")
        st.error("This join link is not valid: no group session has this code. Ask the consultant for the link "
                 "again (copy the whole link).", icon=":material/link_off:")
        return
    voter = _voter()
    st.subheader("Group weighting")
    st.markdown("Set how much each criterion matters **to you** (0 = not at all, 100 = most), then submit. "
                "One vote per browser: submitting again, also from another tab, replaces your answer.")
    name = st.text_input("Your name", key="gw_name", max_chars=MAX_PARTICIPANT_NAME)
    defaults = get_scenario().scoring.points()
    cols = st.columns(3)
    points = {}
    for i, c in enumerate(CRITERIA):
        points[c.name] = float(cols[i % 3].slider(c.label, 0, 100, int(round(defaults[c.name])), key=f"gw_{c.name}"))
    if st.button("Submit my weights", type="primary", key="gw_submit", disabled=not (name or "").strip()):
        try:
            store.submit_vote(code, name, points, voter=voter)
            st.success(f"Thanks {plain(name.strip())}: your weights are in. The consultant's screen updates by itself.")
        except CatalogError as exc:
            st.error(plain(str(exc)))


def _join_url(code: str) -> str:
    base = (st.context.url or "").split("?")[0].rsplit("/", 1)[0]
    return f"{base}/workshop?{JOIN_PARAM}={code}"


def consultant_view(store: CatalogStore, workspace: str | None) -> None:
    if workspace is None:
        st.info("Open a client workspace (above) to run a group session: each participant opens the join link on "
                "their own device and sets the scoring weights; this screen shows the group's weights.")
        return
    section = get_scenario().scoring
    code = section.group_code
    c1, c2 = st.columns([3, 1])
    if c2.button("Start a new group session", key="gw_start"):
        try:
            code = store.create_group_session(workspace)
        except CatalogError as exc:
            st.error(str(exc))
            return
        update_scenario(scoring=section.model_copy(update={"group_code": code, "group_votes": {}}))
    if code and not store.group_session_in_workspace(code, workspace):
        # A group code from a link that was started in another workspace (or never): show nothing of it (#28.8).
        st.error("This scenario's group session was not started in this workspace, so its participants and "
                 "weights are not shown. Start a new group session here.", icon=":material/block:")
        return
    if not code:
        c1.info("Start a group session: each participant opens the join link on their own device and sets the "
                "scoring weights; this screen shows the group's weights and how far opinions differ.")
        return
    c1.markdown("### Join link")
    c1.code(_join_url(code), language=None)
    live_panel(store, code, workspace)


@st.fragment(run_every=5)
def live_panel(store: CatalogStore, code: str, workspace: str) -> None:
    votes = store.votes(code, workspace)
    if not votes:
        st.caption("Waiting for participants… (refreshes every 5 s)")
        return
    names = list(votes)
    matrix = np.array([[votes[n].get(c, 0.0) for c in CRITERION_NAMES] for n in names])
    group = aggregate(matrix)
    st.markdown(f"**{len(names)} participant(s)**: {plain(', '.join(names))}")
    st.plotly_chart(group_chart(group), width="stretch", key="gw_chart")
    if group.vetoed.any():
        st.caption("Geometric mean: a criterion someone weighted 0 gets 0 group weight ("
                   + ", ".join(criterion_label(c) for c, v in zip(CRITERION_NAMES, group.vetoed, strict=True) if v) + ").")
    group_points = {c: round(float(w) * 100, 1) for c, w in zip(CRITERION_NAMES, group.weights_fraction, strict=True)}
    winners = [{"who": "Group (geometric mean)", "#1 offer": _top(group_points)}]
    winners += [{"who": n, "#1 offer": _top({k: float(v) for k, v in votes[n].items()})} for n in names]
    st.markdown("**Who would win under each participant's weights**")
    st.dataframe(neutralise_frame(pd.DataFrame(winners)), hide_index=True, width="stretch")  # names: #28.12
    if st.button("Use the group's weights on the Scoring page", key="gw_use"):
        section = get_scenario().scoring
        update_scenario(scoring=section.model_copy(update={"weight_points": group_points, "group_votes": votes}))
        for name in CRITERION_NAMES:
            st.session_state.pop(weight_key(name), None)  # the Scoring page redraws its sliders from the scenario
        st.success("The Scoring page now uses the group's weights; the votes are saved with the scenario.")


def group_chart(group) -> go.Figure:
    order = np.argsort(group.weights_fraction)
    labels = [criterion_label(CRITERION_NAMES[i]) for i in order]
    fig = go.Figure()
    fig.add_trace(go.Bar(
        x=group.weights_fraction[order] * 100, y=labels, orientation="h", name="group weight", marker_color="#4f46e5",
        error_x=dict(type="data", symmetric=False, array=(group.max_fraction[order] - group.weights_fraction[order]) * 100,
                     arrayminus=np.clip(group.weights_fraction[order] - group.min_fraction[order], 0, None) * 100,
                     color="#9ca3af"),
        hovertemplate="%{y}: %{x:.1f}% (whiskers: lowest to highest participant)<extra></extra>"))
    fig.update_xaxes(title="Weight (%) — bar: group, whiskers: range across participants", ticksuffix="%")
    return style(fig, height=120 + 28 * len(labels), title="The group's weights and the spread of opinion")
