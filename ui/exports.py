"""Client-ready exports of one scenario: an Excel workbook and a PDF report.

Both start with the same header (client, scenario, date, catalog version, currency) and use the label
registry of :mod:`ui.labels` for every name, unit and number. Every text cell of the workbook passes through
:func:`catalog.cells.neutralise_frame` (no formula injection); every text of the report is HTML-escaped.

The PDF is an HTML report (plotly charts drawn by the bundled plotly.js, no network) printed by headless
Debian Chromium, the path the stack recipes verified on this machine kind.
"""

from __future__ import annotations

import datetime as dt
import html
import io
import math
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import cast

import pandas as pd
import plotly.graph_objects as go

from catalog.cells import neutralise_frame
from catalog.store import CatalogStore
from engine.assumptions import is_missing
from engine.power import rated_it_power_kw_per_gpu
from engine.tco import TcoInputs, evaluate_tco
from ui import board_page, labels, tco_words, workload_export
from ui.format import SYMBOL, assumption_table
from ui.private_prices import LABEL as PRIVATE_LABEL
from ui.private_prices import note_column, private_offer_ids
from ui.scenario import Scenario, TcoSection
from ui.workshop import flatten, key_results, to_json

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--no-pdf-header-footer", "--virtual-time-budget=15000"]
USER_ENTERED = "entered by the user"


# --------------------------------------------------------------------------------------------------
# Header and sources
# --------------------------------------------------------------------------------------------------


def header(store: CatalogStore, scenario: Scenario, client: str = "", name: str = "",
           today: dt.date | None = None) -> list[tuple[str, str]]:
    """(item, value) lines heading both exports."""
    meta = store.meta()
    display = scenario.display
    # the DuckDB file's name; a PostgreSQL catalog is "the catalog database" (never its URL, host or name)
    where = store.path.name if isinstance(store, CatalogStore) else store.location
    private = [("Private prices", f"included by the editor: every figure resting on one is marked \u201c{PRIVATE_LABEL}\u201d "
                                  "(the catalog rows, the Rent-or-own price, the workload, scoring and placement rows)")
               ] if scenario.private_prices else []
    return [
        ("Client", client or "not named"),
        ("Scenario", name or "unnamed scenario"),
        ("Date", f"{today or dt.date.today():%Y-%m-%d}"),
        ("Catalog version", f"data version {meta.get('data_version', '?')}, built {str(meta.get('built_at', '?'))[:10]} "
                            f"({where})"),
        ("Currency", f"{display.currency}; USD prices converted at {display.usd_per_eur:.4f} USD per EUR"),
        *private,
    ]


def _offer_text(row: pd.Series, what: str) -> str:
    form = f" {row['form_factor']}" if isinstance(row.get("form_factor"), str) else ""
    return (f"catalog offer {row['provider_name']} {row['gpu_model']}{form} · {row['region']}: {what} "
            f"({row['source_url']}, as of {row['as_of']})")


def _close(a: float, b: float, rel: float = 2e-3) -> bool:
    return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=1e-4)


def tco_input_sources(section: TcoSection, catalog: pd.DataFrame, specs: pd.DataFrame,
                      prices: pd.DataFrame | None = None, brief=None) -> dict[str, str]:
    """Where each TCO input value comes from: the catalog offer (its on-demand or committed price) or GPU spec it
    was filled from, the user's quote, the default's own source when the value is the default, else "entered
    by the user". Never another value's source: a price edited after picking an offer is the user's."""
    inputs = section.inputs
    rows = catalog.set_index("offer_id") if len(catalog) else catalog
    out: dict[str, str] = {}
    for a in inputs.assumptions():
        default = TcoInputs.model_fields[a.name].default
        if is_missing(a.value):
            out[a.name] = "not given"
        elif default is not None and _close(cast(float, a.value), default, 1e-9):
            out[a.name] = a.source
        else:
            out[a.name] = USER_ENTERED
    for name in ("cluster_gpus", "horizon_months", "utilisation_fraction"):  # set once in the client brief
        value = getattr(inputs, name)
        if brief is not None and out[name] == USER_ENTERED and _close(value, getattr(brief, name), 1e-9):
            out[name] = "client brief (set on the Home page)"
    od = section.on_demand_offer_id
    row = rows.loc[od] if od and od in rows.index else None
    if row is not None and not pd.isna(row["on_demand_eur_per_gpu_hour"]) and _close(
            row["on_demand_eur_per_gpu_hour"], inputs.price_on_demand_eur_per_gpu_hour):
        out["price_on_demand_eur_per_gpu_hour"] = _offer_text(row, "on-demand price")
        if section.on_demand_price_private:
            out["price_on_demand_eur_per_gpu_hour"] = f"{PRIVATE_LABEL}: " + _offer_text(row, "negotiated on-demand price")
    if section.reserved_origin == "quote":
        for name in ("price_reserved_eur_per_gpu_hour", "reserved_term_months"):
            out[name] = "your quote (" + USER_ENTERED + ")"
    elif section.reserved_origin == "offer" and row is not None and section.reserved_price_id:
        price = None
        if prices is not None and len(prices):
            match = prices[prices["price_id"] == section.reserved_price_id]
            price = match.iloc[0] if len(match) else None
        where = f" ({price['source_url']}, retrieved {price['retrieved_at']})" if price is not None else ""
        for name, what in (("price_reserved_eur_per_gpu_hour", "committed price"),
                           ("reserved_term_months", "term of the committed price")):
            out[name] = _offer_text(cast(pd.Series, row), f"{what} {section.reserved_price_id}").rsplit(" (", 1)[0] + (
                where or f" ({row['source_url']}, as of {row['as_of']})")
    sid = section.gpu_spec_id
    if sid and len(specs) and sid in set(specs["gpu_spec_id"]):
        spec = specs.set_index("gpu_spec_id").loc[sid]
        if not pd.isna(spec["tdp_watts"]) and _close(float(rated_it_power_kw_per_gpu(float(spec["tdp_watts"]))),
                                                     inputs.power_at_load_kw_per_gpu):
            out["power_at_load_kw_per_gpu"] = (f"GPU spec {sid}: TDP {spec['tdp_watts']:g} W with the server's share at "
                                               f"full load (engine.power shared power model) ({spec['source_url']})")
    return out


def tco_inputs_frame(scenario: Scenario, catalog: pd.DataFrame, specs: pd.DataFrame, *, as_text: bool) -> pd.DataFrame:
    """The TCO inputs: readable name, value (number in engine units, or text in the display currency), unit,
    source of that value."""
    d = scenario.display
    sources = tco_input_sources(scenario.tco, catalog, specs, _prices(scenario), getattr(scenario, "brief", None))
    rows = [(a.name, a.value, "fraction (0-1)" if labels.lookup(a.name).kind == "fraction" else labels.unit(a.name),
             sources[a.name]) for a in scenario.tco.inputs.assumptions()]
    return assumption_table(rows, as_text=as_text, text=lambda name, value: labels.fmt(name, value, d.currency,
                                                                                      d.usd_per_eur),
                            label=labels.label, columns=("Input", "Value", "Unit", "Source"))


#: How each key result is obtained (the "source" column of the key results).
RESULT_SOURCES = {
    "utilisation_fraction": "Rent or own input",
    "cluster_gpus": "Rent or own input",
    "tco": "engine.tco from the Rent-or-own inputs (sources in the TCO inputs table)",
    "workload": "engine.workload on the catalog offers (sources per offer in the Workload cost table)",
    "placement": "engine.placement (MILP, HiGHS) on the catalog offers and the portfolio",
    "scoring": "engine.scoring on the catalog offers and the chosen weights and constraints",
}


def results_rows(results: dict[str, object], scenario: Scenario) -> list[dict]:
    d = scenario.display
    out = []
    for key, value in results.items():
        source = RESULT_SOURCES.get(key) or RESULT_SOURCES.get(key.split("_", 1)[0], "")
        if key == "tco_payback_month" and isinstance(value, int | float) and not is_missing(value):
            # the assumption it rests on, next to it (issue #27.10)
            source = f"{source}; {tco_words.stop_early_assumption(evaluate_tco(scenario.tco.inputs))}"
        out.append({"Result": labels.label(key), "Value": labels.fmt(key, value, d.currency, d.usd_per_eur),
                    "Unit": labels.unit(key, d.currency), "Source": source,
                    "_number": value if isinstance(value, int | float) and not isinstance(value, bool) else None})
    return out


# --------------------------------------------------------------------------------------------------
# Workbook
# --------------------------------------------------------------------------------------------------


def _prices(scenario: Scenario) -> pd.DataFrame | None:
    """The current price row behind the TCO page's committed price (for its source and date)."""
    if scenario.tco.reserved_origin != "offer" or not scenario.tco.on_demand_offer_id:
        return None
    from ui.catalog import get_store

    return get_store().list_prices([scenario.tco.on_demand_offer_id])


def _catalog(scenario: Scenario) -> tuple[pd.DataFrame, pd.DataFrame]:
    from ui.catalog import table
    from ui.quotes import offers_with_quotes

    # the workspace's quotes when the session includes them (issue #29.7): their rows are named "Quote from X, date"
    return offers_with_quotes(scenario.display.usd_per_eur), table("gpu_specs")


def _inputs_rows(section, prefix: str) -> pd.DataFrame:
    flat = {k: v for k, v in flatten(Scenario(**{prefix: section})).items() if k.startswith(prefix + ".")}
    return pd.DataFrame([{"Input": labels.path_label(k), "Value": labels.fmt(k.rsplit(".", 1)[-1], v)}
                         for k, v in flat.items()])


def _scoring_frames(scenario: Scenario) -> dict[str, pd.DataFrame]:
    from ui.scoring_ranking import monte_carlo, score

    scored = score(scenario.scoring, scenario.display.usd_per_eur)
    r = scored.result
    if not len(r.order):
        return {"Scoring": pd.DataFrame({"Result": ["no offer passes the constraints"]})}
    mc = monte_carlo(r, scenario.scoring.concentration)
    rows = scored.offers
    ranking = pd.DataFrame({
        "Rank": r.ranks[r.order], "Offer": [r.labels[i] for i in r.order], "Score (0-1)": r.scores[r.order],
        "First place in weight draws (%)": mc.p_first[r.order] * 100,
        "Source": rows.iloc[r.order]["source_url"].to_numpy(),
    })
    private = private_offer_ids(rows)
    if private:
        ranking["Price note"] = note_column(rows.iloc[r.order].index, private)
    weighted = [j for j in range(len(r.criteria)) if r.weights[j] > 0]
    stability = pd.DataFrame({
        "Criterion": [r.criteria[j].label for j in weighted],
        "Weight (%)": [r.weights[j] * 100 for j in weighted],
        "#1 stays first from (%)": [r.stability.lower[j] * 100 if r.stability is not None else None for j in weighted],
        "to (%)": [r.stability.upper[j] * 100 if r.stability is not None else None for j in weighted],
    })
    return {"Scoring ranking": ranking, "Scoring stability": stability}


def _placement_frames(scenario: Scenario, catalog: pd.DataFrame) -> dict[str, pd.DataFrame]:
    from ui.placement_view import assumptions_frame, plan_table, solve

    d = scenario.display
    solved = solve(scenario.placement, catalog, d.usd_per_eur)
    if solved.plan is None:
        return {"Placement": pd.DataFrame({"Problem": list(solved.problems)})}
    frame, config = plan_table(solved, catalog, d)
    private = private_offer_ids(catalog)
    if private:
        frame["Price note"] = [PRIVATE_LABEL if {c, b} & private else "" for c, b in
                               zip(frame["committed_offer_id"], frame["burst_offer_id"], strict=True)]
    frame = frame.drop(columns=[c for c, v in config.items() if v is None], errors="ignore")
    sym = SYMBOL[d.currency]
    frame = frame.rename(columns={"Commit rate": f"Commit rate ({sym}/GPU-h)", "Monthly cost": f"Monthly cost ({sym})",
                                  "Committed use": "Committed use (0-1)"})
    return {"Placement plan": frame, "Placement assumptions": labels.readable_columns(labels.readable_names(
        assumptions_frame(solved, scenario.placement, d)))}


def excel_workbook(store: CatalogStore, scenario: Scenario, client: str = "", scenario_name: str = "") -> bytes:
    """One sheet per page: inputs (with the source of each value), results, assumptions; plus the catalog rows
    used, with sources and dates. Names through :mod:`ui.labels`; text cells neutralised against formulas."""
    tco = evaluate_tco(scenario.tco.inputs)
    results = key_results(scenario)
    catalog, specs = _catalog(scenario)
    names = {"on_demand": "Rent on demand", "reserved": "Rent reserved", "owned": "Own"}
    head = header(store, scenario, client, scenario_name)
    summary = pd.DataFrame(
        [{"Result": k, "Value": v, "Source": ""} for k, v in head]
        + [{k: r[k] for k in ("Result", "Value", "Source")} for r in results_rows(results, scenario)])
    sheets: dict[str, pd.DataFrame] = {
        "Summary": summary,
        "TCO inputs": tco_inputs_frame(scenario, catalog, specs, as_text=False),
        "TCO results": pd.DataFrame({
            "Stop after month": tco.months,
            **{f"Net cost to date, {names.get(k, k)} (EUR)": v for k, v in tco.cumulative_cost_eur.items()
               if k in tco.available_options},
        }),
        "TCO totals": pd.DataFrame(
            [{"Item": f"{names.get(k, k)}: total over {scenario.tco.inputs.horizon_months} months", "Value": tco.total_cost_eur[k],
              "Unit": "EUR"} for k in tco.available_options]
            + [{"Item": f"{names.get(k, k)}: cost per useful GPU-hour", "Value": tco.cost_per_useful_gpu_hour_eur[k],
                "Unit": "EUR/GPU-h"} for k in tco.available_options]
            # a break-even outside (0, 1) does not exist: stated in words, never as 4.626 (issue #27.2)
            + [{"Item": f"Break-even utilisation, {b.label.lower()}",
                "Value": b.value if b.value is not None else b.words,
                "Unit": "fraction (0-1)" if b.value is not None else "", "In words": b.words}
               for b in tco_words.break_evens(tco)]
            + [{"Item": f"Own, {k.replace('_', ' ')} over the horizon", "Value": v, "Unit": "EUR"}
               for k, v in tco.owned_breakdown_eur.items()]),
        "Workload inputs": _inputs_rows(scenario.workload, "workload"),
        **workload_export.sheets(scenario),  # each computed mode in its own units (issue #27.1)
        **_scoring_frames(scenario),
        **_placement_frames(scenario, catalog),
        "Scenario JSON": pd.DataFrame({"Scenario (JSON)": to_json(scenario).splitlines()}),
    }
    sheets["Catalog rows used"] = labels.readable_columns(catalog[[
        "offer_id", "provider_name", "gpu_model", "form_factor", "region", "on_demand_eur_per_gpu_hour",
        "spot_eur_per_gpu_hour", "reserved_eur_per_gpu_hour", "native_currency", "source_url", "as_of",
        "verification_status"]])
    private = private_offer_ids(catalog)
    if private:  # an editor included private prices (ui.private_prices): each row priced on one says so
        sheets["Catalog rows used"]["Price note"] = note_column(catalog["offer_id"], private)
    buf = io.BytesIO()
    with pd.ExcelWriter(buf, engine="openpyxl") as writer:
        for name, frame in sheets.items():
            if name != "Scenario JSON":  # field names inside notes and sources read as their labels
                frame = frame.copy()
                for col in frame.columns:
                    if frame[col].dtype == object or pd.api.types.is_string_dtype(frame[col]):
                        frame[col] = frame[col].map(lambda v: labels.in_words(v) if isinstance(v, str) else v)
            out = neutralise_frame(frame)
            for col in out.columns:
                if str(out[col].dtype).startswith("datetime64") and getattr(out[col].dt, "tz", None) is not None:
                    out[col] = out[col].dt.tz_localize(None)
            out.to_excel(writer, sheet_name=name[:31], index=False)
    return buf.getvalue()


# --------------------------------------------------------------------------------------------------
# PDF report
# --------------------------------------------------------------------------------------------------

_UNESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _md(text: str) -> str:
    """Markdown-ish page text (bold, backslash escapes, line breaks) as safe HTML."""
    text = html.escape(_UNESCAPE.sub(r"\1", text))
    text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
    text = re.sub(r":material/[a-z_]+:", "", text)
    return text.replace("\n\n", "<br>").replace("\n- ", "<br>• ").replace("\n", " ")


def _link(url: str) -> str:
    """A source URL as a short clickable text (host and the start of the path; the full URL is the target)."""
    short = re.sub(r"^https?://(www\.)?", "", url)
    short = short if len(short) <= 48 else short[:45] + "…"
    return f"<a href='{html.escape(url, quote=True)}'>{html.escape(short)}</a>"


def _table(frame: pd.DataFrame) -> str:
    def cell(v) -> str:
        if is_missing(v):
            return "—"
        if isinstance(v, float):
            return f"{v:,.2f}"
        if isinstance(v, str) and re.fullmatch(r"https?://\S+", v):
            return _link(v)
        return html.escape(labels.in_words(str(v)))

    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in row) + "</tr>"
                   for row in frame.itertuples(index=False))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _chart(fig: go.Figure, first: bool, height: int | None = None) -> str:
    fig = go.Figure(fig)  # a copy: page figures may be cached and shared
    fig.update_layout(width=700, height=height or min(int(fig.layout.height or 420), 560))
    return "<div class='chart'>" + fig.to_html(full_html=False, include_plotlyjs="inline" if first else False,
                                               config={"staticPlot": True}) + "</div>"


def _tco_section(scenario: Scenario, catalog: pd.DataFrame, specs: pd.DataFrame) -> tuple[list[str], list[go.Figure]]:
    from ui import tco_charts
    from ui.tco_view import cached_tornado, utilisation_sweep, verdict

    display, inputs = scenario.display, scenario.tco.inputs
    tco = evaluate_tco(inputs)
    v = verdict(tco, display, scenario.tco.reserved_origin)
    parts = ["<h2>Rent or own</h2>", f"<p><b>{_md(v.headline)}</b></p><p>{_md(v.detail)}</p>",
             *[f"<p>{_md(note)}</p>" for note in v.notes]]
    figures = [tco_charts.totals(tco, display), tco_charts.cumulative(tco, display),
               tco_charts.cost_vs_utilisation(utilisation_sweep(inputs), tco, display),
               tco_charts.tornado_chart(cached_tornado(inputs, scenario.tco.tornado_pct), labels.TCO_INPUT_LABELS)]
    return parts, figures


def _tco_inputs_html(scenario: Scenario, catalog: pd.DataFrame, specs: pd.DataFrame) -> str:
    return ("<h3>Rent-or-own inputs: value, unit and source of each</h3>"
            + _table(tco_inputs_frame(scenario, catalog, specs, as_text=True).drop(columns=["Unit"])))


def _workload_html(scenario: Scenario) -> str:
    """One section per workload mode computed in the scenario, each in its own units (issue #27.1)."""
    from ui.workload_view import verdict

    d = scenario.display
    parts = []
    private = workload_export.private_offers(scenario)
    for mode, (section, priced) in workload_export.priced_modes(scenario).items():
        title = "a training job" if mode == "training" else "serving (inference)"
        parts += [f"<h2>Workload cost: {title}</h2>", f"<p>{_md(verdict(priced, section, d))}</p>"]
        if len(priced.ranked):
            parts.append(_table(workload_export.results_frame(mode, section, priced, d.currency, d.usd_per_eur,
                                                              as_text=True, ranked_only=True, limit=10,
                                                              private=private)))
        parts.append(f"<h3>Workload assumptions ({mode})</h3>"
                     + _table(labels.readable_columns(labels.readable_names(priced.assumptions))))
    return "".join(parts)


def _scoring_html(scenario: Scenario) -> tuple[str, list[go.Figure]]:
    from ui.scoring_ranking import figures, monte_carlo, score
    from ui.scoring_view import ranking_table, verdict

    d = scenario.display
    scored = score(scenario.scoring, d.usd_per_eur)
    r = scored.result
    parts = ["<h2>Provider scoring</h2>"]
    if not len(r.order):
        return "".join(parts) + "<p>No offer passes the hard constraints.</p>", []
    mc = monte_carlo(r, scenario.scoring.concentration)
    parts.append(f"<p>{_md(verdict(scored, mc, d))}</p>")
    frame, _ = ranking_table(scored, d)
    frame = frame.head(10).rename(columns={"Price": f"Price ({d.currency}/GPU-h)", "Score": "Score (0-1)"})
    frame = frame[[c for c in frame.columns if c in ("Rank", "Score (0-1)", "Provider", "GPU", "Region",
                                                     f"Price ({d.currency}/GPU-h)", "Not stated", "Source")]]
    private = private_offer_ids(scored.offers)
    if private:
        frame = frame.assign(**{"Price note": note_column(scored.offers.iloc[r.order[:len(frame)]].index, private)})
    parts.append(_table(frame))
    figs = figures(scored, mc)
    charts = [f for f in (figs.contributions, figs.intervals, figs.p_first) if f is not None]
    weights = pd.DataFrame({"Criterion": [c.label for c in r.criteria], "Weight": [f"{w:.0%}" for w in r.weights],
                            "Better": ["lower" if c.objective.value == "min" else "higher" for c in r.criteria]})
    parts.append("<h3>Weights</h3>" + _table(weights[r.weights > 0]))
    return "".join(parts), charts


def _placement_html(scenario: Scenario, catalog: pd.DataFrame) -> tuple[str, list[go.Figure]]:
    from ui import placement_charts
    from ui.placement_view import infeasible_message, solve, summary

    d = scenario.display
    solved = solve(scenario.placement, catalog, d.usd_per_eur)
    parts = ["<h2>Hybrid placement</h2>"]
    if solved.plan is None:
        return "".join(parts) + f"<p>{_md(infeasible_message(solved.problems, solved.too_large))}</p>", []
    parts.append(f"<p>{_md(summary(solved, scenario.placement, d))}</p>")
    frames = _placement_frames(scenario, catalog)
    plan = frames["Placement plan"].drop(columns=["Reason"], errors="ignore")
    parts.append(_table(plan))
    parts.append("<h3>Placement assumptions</h3>" + _table(frames["Placement assumptions"]))
    charts = [placement_charts.savings(solved.plan, solved.all_on_demand, solved.dedicated, d),
              placement_charts.demand_week(solved.plan, solved.week_demand_gpus)]
    return "".join(parts), charts


def report_html(store: CatalogStore, scenario: Scenario, client: str = "", scenario_name: str = "",
                progress: Callable[[float, str], object] | None = None) -> str:
    progress = progress or (lambda f, t: None)
    catalog, specs = _catalog(scenario)
    progress(0.15, "Rent or own…")
    results = key_results(scenario)
    tco_parts, tco_figs = _tco_section(scenario, catalog, specs)
    progress(0.3, "Scoring…")
    scoring, scoring_figs = _scoring_html(scenario)
    progress(0.4, "Placement…")
    placement, placement_figs = _placement_html(scenario, catalog)
    head = header(store, scenario, client, scenario_name)
    first = [True]

    def chart(fig: go.Figure) -> str:
        out = _chart(fig, first[0])
        first[0] = False
        return out

    parts = [
        "<html><head><meta charset='utf-8'><title>GPU Cloud Advisor report</title><style>",
        "@page{size:A4;margin:14mm} body{font-family:Inter,'Segoe UI',Helvetica,Arial,sans-serif;margin:0;"
        "color:#1f2933;font-size:13px} h1{font-size:24px;margin:0 0 4px} h2{font-size:19px;margin-top:22px;"
        "border-bottom:2px solid #4f46e5;padding-bottom:3px;page-break-after:avoid} h3{font-size:14px;"
        "page-break-after:avoid} table{border-collapse:collapse;font-size:12px;width:100%;margin:6px 0}"
        "td,th{border:1px solid #d1d5db;padding:2px 5px;text-align:left;vertical-align:top;overflow-wrap:anywhere}"
        "th{background:#f3f4f6} a{color:#1d4ed8;text-decoration:none} .chart{page-break-inside:avoid;margin:8px 0} .head td{font-size:13px;border:none;"
        "padding:1px 8px 1px 0} .head th{font-size:13px;border:none;background:none;padding:1px 12px 1px 0}"
        ".board{font-size:10.5px;page-break-after:always} .board h2{margin-top:8px} .board h3{font-size:12px;"
        "margin:7px 0 2px} .board p{margin:2px 0} .board ul{margin:2px 0;padding-left:16px} .board table{font-size:9.5px} .board th{white-space:nowrap}",
        "</style></head><body>",
        f"<h1>GPU Cloud Advisor report{': ' + html.escape(client) if client else ''}</h1>",
        "<table class='head'>" + "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                                         for k, v in head) + "</table>",
        (f"<p class='private'><b>Includes private negotiated prices: {html.escape(PRIVATE_LABEL)}.</b> Every figure "
         "resting on one is marked in its row.</p>" if scenario.private_prices else ""),
        board_page.board_html(scenario, catalog, _md, _table),  # page 1: what a board reads (issue #27.13)
        "<h2>Key results</h2>",
        _table(pd.DataFrame(results_rows(results, scenario)).drop(columns=["_number", "Unit"])),
        *tco_parts,
        *[chart(f) for f in tco_figs],
        _tco_inputs_html(scenario, catalog, specs),
        _workload_html(scenario),
        scoring,
        *[chart(f) for f in scoring_figs],
        placement,
        *[chart(f) for f in placement_figs],
        "<h2>Sources</h2><p>Every catalog price and spec is listed with its source URL and date in the workbook "
        "(sheet “Catalog rows used”); the defaults of the cost models name their sources in the tables above.</p>",
        "</body></html>",
    ]
    return "".join(parts)


def pdf_report(store: CatalogStore, scenario: Scenario, progress: Callable[[float, str], object] | None = None,
               client: str = "", scenario_name: str = "") -> bytes:
    """Render :func:`report_html` to PDF with headless Chromium (a few seconds)."""
    progress = progress or (lambda f, t: None)
    _chromium()
    progress(0.05, "Computing every page…")
    page = report_html(store, scenario, client, scenario_name, progress)
    progress(0.5, "Printing the report…")
    data = html_to_pdf(page)
    progress(1.0, "Done")
    return data


def _chromium() -> str:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise RuntimeError("The PDF report needs Debian's chromium (apt-get install chromium); the Excel workbook "
                           "works without it.")
    return chromium


def html_to_pdf(page: str) -> bytes:
    """Print an HTML page to PDF with headless Chromium (the report's path; also the provider questionnaire)."""
    chromium = _chromium()
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "report.html", Path(tmp) / "report.pdf"
        src.write_text(page, encoding="utf-8")
        cmd = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={tmp}/profile", f"--print-to-pdf={out}", src.as_uri()]
        done = subprocess.run(cmd, capture_output=True, timeout=120)
        if not out.exists():
            raise RuntimeError(f"Chromium could not print the report: {done.stderr.decode()[-300:]}")
        return out.read_bytes()
