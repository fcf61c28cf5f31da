"""Workshop mode: scenarios as JSON, as flat input maps and as share links, loading them into the session,
key results per scenario (for comparison and exports)."""

from __future__ import annotations

import base64
import itertools
import json
import math
import re
import zlib

import streamlit as st
from pydantic import ValidationError

from ui.quotes import WORKSPACE_KEY, for_sharing
from ui.scenario import SCENARIO_KEY, SCENARIO_VERSION, Scenario, migrate_document

LINK_PARAM = "s"
WORKSPACE_PARAM = "ws"
JOIN_PARAM = "join"
#: A session key of the workshop that outlives loading a scenario (as ui.quotes.WORKSPACE_KEY, the open workspace).
SCENARIO_NAME_KEY = "_scenario_name"  # name of the scenario last saved or loaded (report header)
#: Session keys that survive loading a scenario (everything else is widget state that pages rebuild
#: from the scenario).
_KEEP = {SCENARIO_KEY, "_auth_local_user", "_applied_link", "_presentation", WORKSPACE_KEY, SCENARIO_NAME_KEY,
         "_voter", "_ws_own", "_include_quotes"}


#: Limits on what a share link or an uploaded file may carry (issue #15): the decompressed scenario, the link
#: text itself, and how deep the JSON may nest (a scenario nests 4 levels; 32 leaves room for later sections).
MAX_SCENARIO_BYTES = 1_000_000
MAX_LINK_CHARS = 200_000
MAX_JSON_DEPTH = 32


class ScenarioFormatError(ValueError):
    """A scenario file or link cannot be used; the message says why. Nothing was changed."""


def to_json(scenario: Scenario) -> str:
    return scenario.model_dump_json(indent=2)


def flatten(scenario: Scenario) -> dict[str, object]:
    """Every input as a flat 'section.field' → value map (for the difference table); workloads by name."""
    out: dict[str, object] = {}

    def walk(prefix: str, value) -> None:
        if isinstance(value, dict) and value:
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else k, v)
        elif isinstance(value, list) and value and all(isinstance(v, dict) and "name" in v for v in value):
            for item in value:
                walk(f"{prefix}[{item['name']}]", {k: v for k, v in item.items() if k != "name"})
        else:
            out[prefix] = value

    walk("", scenario.model_dump(mode="json", exclude={"version"}))
    return out


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a number this app accepts (only finite numbers)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]} is too large (only finite numbers are accepted)")
    return value


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _depth(text: str) -> int:
    """Deepest nesting of brackets outside strings (found before the recursive parser sees the text)."""
    steps = [1 if ch in "[{" else -1 for ch in re.findall(r"[\[\]{}]", _STRING.sub("", text))]
    return max(itertools.accumulate(steps), default=0)


def parse_json(text: str | bytes) -> object:
    """``json.loads`` with the limits of a scenario: at most :data:`MAX_SCENARIO_BYTES`, UTF-8, nesting at most
    :data:`MAX_JSON_DEPTH`, finite numbers only (no NaN, Infinity or 1e999), integers of at most 30 digits.
    Every failure is a :class:`ScenarioFormatError` with a message for the user."""
    if len(text) > MAX_SCENARIO_BYTES:
        raise ScenarioFormatError(f"This scenario is larger than {MAX_SCENARIO_BYTES // 1000:,} kB; scenarios are "
                                  "far smaller. Nothing was loaded.")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ScenarioFormatError("This is not a scenario file (the text is not UTF-8).") from exc
    if _depth(text) > MAX_JSON_DEPTH:
        raise ScenarioFormatError(f"This is not a scenario file (the JSON nests deeper than {MAX_JSON_DEPTH} levels).")

    def integer(digits: str) -> int:
        if len(digits.lstrip("-")) > 30:
            raise ValueError(f"an integer of {len(digits)} digits is too large")
        return int(digits)

    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float, parse_int=integer)
    except json.JSONDecodeError as exc:
        raise ScenarioFormatError(f"This is not a scenario file (not JSON: {exc.msg}, line {exc.lineno}).") from exc
    except (ValueError, RecursionError) as exc:
        raise ScenarioFormatError(f"This is not a scenario file ({str(exc)[:120]}).") from exc


def from_json(text: str | bytes) -> Scenario:
    """Parse a scenario document, with a clear message for every way it can be wrong."""
    data = parse_json(text)
    if not isinstance(data, dict):
        raise ScenarioFormatError("This is not a scenario file (expected a JSON object).")
    version = data.get("version", 1)
    if not isinstance(version, int) or version > SCENARIO_VERSION:
        raise ScenarioFormatError(
            f"This scenario was written by a newer version of the app (scenario version {version}; this app reads "
            f"up to {SCENARIO_VERSION}). Open it with that version, or update this app.")
    try:
        return Scenario.model_validate(migrate(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"]))
        raise ScenarioFormatError(f"The scenario has an invalid value at {where}: {first['msg']} "
                                  f"({len(exc.errors())} problem(s) in all). Nothing was loaded.") from exc
    except (ValueError, TypeError, RecursionError) as exc:  # a validator that raised something else
        raise ScenarioFormatError(f"The scenario cannot be used: {str(exc)[:160]}. Nothing was loaded.") from exc


def migrate(data: dict) -> dict:
    """Bring an older scenario document up to :data:`SCENARIO_VERSION` (see :func:`ui.scenario.migrate_document`)."""
    return migrate_document(data)


def encode_link(scenario: Scenario) -> str:
    """Compact, URL-safe encoding: only non-default values, zlib-compressed, base64url, version prefix."""
    payload = for_sharing(scenario).model_dump_json(exclude_defaults=True).encode()  # no quote leaves its workspace
    packed = base64.urlsafe_b64encode(zlib.compress(payload, 9)).decode().rstrip("=")
    return f"v{SCENARIO_VERSION}.{packed}"


def decode_link(code: str) -> Scenario:
    """The scenario of a share link. The link text is capped at :data:`MAX_LINK_CHARS` and its decompressed
    payload at :data:`MAX_SCENARIO_BYTES` (decompression stops there: a small link cannot inflate to gigabytes)."""
    if len(code) > MAX_LINK_CHARS:
        raise ScenarioFormatError(f"This share link is {len(code):,} characters long; share links are far shorter. "
                                  "Nothing was loaded.")
    prefix, _, packed = code.partition(".")
    if not prefix.startswith("v") or not prefix[1:].isdigit() or len(prefix) > 6 or not packed:
        raise ScenarioFormatError("This share link is damaged (it does not start with a version such as 'v1.'). "
                                  "Ask for the link again.")
    version = int(prefix[1:])
    if version > SCENARIO_VERSION:
        raise ScenarioFormatError(f"This share link comes from a newer version of the app (v{version}). "
                                  "Open it there, or update this app.")
    try:
        inflater = zlib.decompressobj()
        payload = inflater.decompress(base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4)), MAX_SCENARIO_BYTES + 1)
    except (ValueError, zlib.error) as exc:
        raise ScenarioFormatError("This share link is damaged or cut short (it does not decode). "
                                  "Copy the whole link again.") from exc
    if len(payload) > MAX_SCENARIO_BYTES or inflater.unconsumed_tail:
        raise ScenarioFormatError(f"This share link unpacks to more than {MAX_SCENARIO_BYTES // 1000:,} kB; no "
                                  "scenario is that large. Nothing was loaded.")
    if not inflater.eof:
        raise ScenarioFormatError("This share link is damaged or cut short (it does not decode). "
                                  "Copy the whole link again.")
    data = parse_json(payload) if payload.strip().startswith(b"{") else None
    if not isinstance(data, dict):
        raise ScenarioFormatError("This share link is damaged (its content is not a scenario).")
    data.setdefault("version", version)
    return from_json(json.dumps(data))


def apply_scenario(scenario: Scenario) -> None:
    """Make ``scenario`` the session's scenario; widget state is dropped so every page redraws from it."""
    for key in list(st.session_state.keys()):
        if key not in _KEEP:
            del st.session_state[key]
    st.session_state[SCENARIO_KEY] = scenario


def apply_link_from_url() -> str | None:
    """Load the scenario of ``?s=...`` on a session's first run (a share link, a reload) and on the browser's
    back/forward buttons. Returns an error message. ``?ws=<token>`` reopens a workspace.

    On any other rerun the session is the source of truth and the URL only mirrors it (:func:`sync_url`): a rerun
    requested while the previous run was still writing the URL carries the older address, and loading it would
    throw away what the user had just typed."""
    first = "_applied_link" not in st.session_state
    if not (first or _history_navigation()) or st.query_params.get(JOIN_PARAM):
        return None
    ws = st.query_params.get(WORKSPACE_PARAM)
    if ws:  # checked against the store where it is used (Workshop page)
        st.session_state[WORKSPACE_KEY] = ws
    code = st.query_params.get(LINK_PARAM) or None
    previous = st.session_state.get("_applied_link")
    st.session_state["_applied_link"] = code
    if code == previous and not first:
        return None
    if code is None:
        if not first:  # back (or forward) to an address without ?s=: that entry showed the default scenario
            apply_scenario(Scenario())
        return None
    try:
        apply_scenario(decode_link(code))
    except ScenarioFormatError as exc:
        return str(exc)
    return None


def _history_navigation() -> bool:
    """True on a rerun caused by the browser's back or forward button."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return bool(getattr(ctx, "is_history_navigation", False))


def sync_url() -> None:
    """Write the session's scenario into the URL (``?s=``, the compact share-link form; absent for the default
    scenario) and the open workspace (``?ws=``), so that a reload or the back button restores them. Called
    at the end of every full run of app.py; a participant's join page keeps its own URL."""
    if st.query_params.get(JOIN_PARAM):
        return
    scenario = st.session_state.get(SCENARIO_KEY)
    code = None if scenario is None or scenario == Scenario() else encode_link(scenario)
    if code is not None and len(code) > MAX_LINK_CHARS:
        code = None  # too large for a URL: the Workshop page offers the JSON file instead
    if st.query_params.get(LINK_PARAM) != code:
        if code is None:
            del st.query_params[LINK_PARAM]
        else:
            st.query_params[LINK_PARAM] = code
    st.session_state["_applied_link"] = code
    ws = st.session_state.get(WORKSPACE_KEY)
    if ws and st.query_params.get(WORKSPACE_PARAM) != ws:
        st.query_params[WORKSPACE_PARAM] = ws
    elif not ws and WORKSPACE_PARAM in st.query_params:
        del st.query_params[WORKSPACE_PARAM]


def key_results(scenario: Scenario) -> dict[str, object]:
    """The headline numbers of every page for one scenario, keyed by :mod:`ui.labels` names (engine units:
    EUR, fractions), computed without drawing widgets. Format them with :func:`ui.labels.fmt`."""
    from engine.tco import evaluate_tco
    from ui.placement_view import solve
    from ui.quotes import offers_with_quotes
    from ui.scoring_ranking import monte_carlo, score
    from ui.tco_words import key_break_even
    from ui.workload_export import key_results as workload_key_results

    out: dict[str, object] = {}
    tco = evaluate_tco(scenario.tco.inputs)
    cost = tco.cost_per_useful_gpu_hour_eur
    out["utilisation_fraction"] = scenario.tco.inputs.utilisation_fraction
    out["cluster_gpus"] = scenario.tco.inputs.cluster_gpus
    out["horizon_months"] = scenario.tco.inputs.horizon_months
    for option in tco.available_options:
        out[f"tco_total_{option}_eur"] = tco.total_cost_eur[option]
    for option in tco.available_options:
        out[f"tco_{option}_eur_per_useful_gpu_hour"] = cost[option]
    out["tco_break_even_utilisation_fraction"] = key_break_even(tco)  # words where there is none in (0, 1)
    out["tco_cheapest_option"] = tco.cheapest_option
    out["tco_payback_month"] = tco.break_even_month.get("owned_vs_on_demand", math.nan)
    out.update(workload_key_results(scenario))  # every computed mode, each in its own units
    solved = solve(scenario.placement, offers_with_quotes(scenario.display.usd_per_eur), scenario.display.usd_per_eur)
    if solved.plan is not None:
        out["placement_plan_eur_per_month"] = float(solved.plan.total_cost_eur_per_month)
        out["placement_committed_gpus"] = int(solved.plan.total_committed_gpus)
        if solved.all_on_demand is not None:
            out["placement_all_on_demand_eur_per_month"] = float(solved.all_on_demand.total_cost_eur_per_month)
    else:
        out["placement_plan_eur_per_month"] = None
    scored = score(scenario.scoring, scenario.display.usd_per_eur)
    if len(scored.result.order):
        top = int(scored.result.order[0])
        row = scored.offers.iloc[top]
        out["scoring_top_offer"] = f"{row['provider_name']} · {row['gpu_model']} · {row['region']}"
        mc = monte_carlo(scored.result, scenario.scoring.concentration)
        out["scoring_top_p_first_fraction"] = float(mc.p_first[top])
    else:
        out["scoring_top_offer"] = None
    return out
