"""Workshop mode: scenarios as JSON and share links, loading them into the session, key results per
scenario (for comparison and exports)."""

from __future__ import annotations

import base64
import json
import math
import zlib

import streamlit as st
from pydantic import ValidationError

from ui.scenario import SCENARIO_KEY, SCENARIO_VERSION, Scenario, migrate_document

LINK_PARAM = "s"
#: Session keys that survive loading a scenario (everything else is widget state that pages rebuild
#: from the scenario).
_KEEP = {SCENARIO_KEY, "_auth_local_user", "_applied_link"}


class ScenarioFormatError(ValueError):
    """A scenario file or link cannot be used; the message says why. Nothing was changed."""


def to_json(scenario: Scenario) -> str:
    return scenario.model_dump_json(indent=2)


def from_json(text: str | bytes) -> Scenario:
    """Parse a scenario document, with a clear message for every way it can be wrong."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ScenarioFormatError(f"This is not a scenario file (not JSON: {exc.msg if hasattr(exc, 'msg') else exc}).") from exc
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


def migrate(data: dict) -> dict:
    """Bring an older scenario document up to :data:`SCENARIO_VERSION` (see :func:`ui.scenario.migrate_document`)."""
    return migrate_document(data)


def encode_link(scenario: Scenario) -> str:
    """Compact, URL-safe encoding: only non-default values, zlib-compressed, base64url, version prefix."""
    payload = scenario.model_dump_json(exclude_defaults=True).encode()
    packed = base64.urlsafe_b64encode(zlib.compress(payload, 9)).decode().rstrip("=")
    return f"v{SCENARIO_VERSION}.{packed}"


def decode_link(code: str) -> Scenario:
    prefix, _, packed = code.partition(".")
    if not prefix.startswith("v") or not prefix[1:].isdigit() or not packed:
        raise ScenarioFormatError("This share link is damaged (it does not start with a version such as 'v1.'). "
                                  "Ask for the link again.")
    version = int(prefix[1:])
    if version > SCENARIO_VERSION:
        raise ScenarioFormatError(f"This share link comes from a newer version of the app (v{version}). "
                                  "Open it there, or update this app.")
    try:
        payload = zlib.decompress(base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4)))
    except (ValueError, zlib.error) as exc:
        raise ScenarioFormatError("This share link is damaged or cut short (it does not decode). "
                                  "Copy the whole link again.") from exc
    data = json.loads(payload) if payload.strip().startswith(b"{") else None
    if data is None:
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
    """On a page load with ``?s=...``: load that scenario once per session. Returns an error message."""
    code = st.query_params.get(LINK_PARAM)
    if not code or st.session_state.get("_applied_link") == code:
        return None
    st.session_state["_applied_link"] = code
    try:
        apply_scenario(decode_link(code))
    except ScenarioFormatError as exc:
        return str(exc)
    return None


def key_results(scenario: Scenario) -> dict[str, object]:
    """The headline numbers of every page for one scenario (EUR), computed without drawing widgets."""
    from engine.tco import Pair, evaluate_tco
    from ui.catalog import offers
    from ui.placement_view import solve
    from ui.scoring_view import score
    from ui.workload_view import price_workload

    out: dict[str, object] = {}
    tco = evaluate_tco(scenario.tco.inputs)
    out["TCO: utilisation"] = scenario.tco.inputs.utilisation_fraction
    out["TCO: horizon, months"] = scenario.tco.inputs.horizon_months
    out["TCO: break-even utilisation, own vs on-demand"] = tco.break_even_utilisation_fraction[Pair.ON_DEMAND_VS_OWNED.value]
    for option in tco.available_options:
        out[f"TCO: {option.replace('_', '-')}, EUR total over the horizon"] = tco.total_cost_eur[option]
    out["TCO: own, EUR per useful GPU-hour"] = tco.cost_per_useful_gpu_hour_eur["owned"]
    out["TCO: on-demand, EUR per useful GPU-hour"] = tco.cost_per_useful_gpu_hour_eur["on_demand"]
    out["TCO: cheapest option"] = tco.cheapest_option
    priced = price_workload(scenario.workload, scenario.display.usd_per_eur)
    ranked = priced.ranked
    if len(ranked):
        best = ranked.iloc[0]
        out["Workload: cheapest offer"] = str(best["label"])
        if scenario.workload.mode == "training":
            out["Workload: cheapest cost, EUR per job"] = float(best["cost_eur"])
            out["Workload: time of that job, hours"] = float(best["time_hours"])
        else:
            out["Workload: cheapest cost, EUR per million tokens"] = float(best.get("cost_eur_per_million_tokens", math.nan))
    else:
        out["Workload: cheapest offer"] = "no offer priced"
    solved = solve(scenario.placement, offers(None, scenario.display.usd_per_eur), scenario.display.usd_per_eur)
    if solved.plan is not None:
        out["Placement: plan cost, EUR per month"] = float(solved.plan.total_cost_eur_per_month)
        if solved.all_on_demand is not None:
            out["Placement: all on demand, EUR per month"] = float(solved.all_on_demand.total_cost_eur_per_month)
    else:
        out["Placement: plan cost, EUR per month"] = "cannot be placed: " + "; ".join(solved.problems)[:200]
    scored = score(scenario.scoring, scenario.display.usd_per_eur)
    if len(scored.result.order):
        top = scored.offers.iloc[int(scored.result.order[0])]
        out["Scoring: top-ranked offer"] = f"{top['provider_name']} · {top['gpu_model']} · {top['region']}"
    else:
        out["Scoring: top-ranked offer"] = "no offer passes the constraints"
    return out
