"""Client-ready exports of one scenario: an Excel workbook and a PDF report.

The PDF is an HTML report (plotly charts rendered by the bundled plotly.js, no network) printed by headless
Debian Chromium, the path the stack recipes verified on this machine kind.
"""

from __future__ import annotations

import datetime as dt
import html
import io
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from catalog.store import CatalogStore
from engine.tco import evaluate_tco
from ui import tco_charts
from ui.scenario import Scenario
from ui.tco_view import assumptions_frame, utilisation_sweep, verdict
from ui.workshop import key_results, to_json

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--no-pdf-header-footer", "--virtual-time-budget=15000"]


def _catalog_line(store: CatalogStore) -> str:
    meta = store.meta()
    return (f"Catalog {store.path.name}: data version {meta.get('data_version')}, built {meta.get('built_at')}; "
            f"exported {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC")


def _workload(scenario: Scenario):
    from ui.workload_view import price_workload

    return price_workload(scenario.workload, scenario.display.usd_per_eur)


def excel_workbook(store: CatalogStore, scenario: Scenario) -> bytes:
    """One sheet per page: inputs, results, assumptions; plus the catalog rows used, with sources and dates."""
    tco = evaluate_tco(scenario.tco.inputs)
    priced = _workload(scenario)
    results = key_results(scenario)
    sheets: dict[str, pd.DataFrame] = {
        "Summary": pd.DataFrame({"item": ["catalog", *results], "value": [_catalog_line(store), *results.values()]}),
        "TCO inputs": assumptions_frame(scenario.tco.inputs, scenario.tco, as_text=False),
        "TCO results": pd.DataFrame({
            "stop after month": tco.months,
            **{f"net cost to date, {k}, EUR": v for k, v in tco.cumulative_cost_eur.items() if k in tco.available_options},
        }),
        "TCO totals": pd.DataFrame([
            {"item": f"{k}: total over {scenario.tco.inputs.horizon_months} months, EUR", "value": tco.total_cost_eur[k]}
            for k in tco.available_options
        ] + [{"item": f"{k}: EUR per useful GPU-hour", "value": tco.cost_per_useful_gpu_hour_eur[k]}
             for k in tco.available_options]
          + [{"item": f"break-even utilisation {k}", "value": v} for k, v in tco.break_even_utilisation_fraction.items()
             if v == v]
          + [{"item": f"owned layer {k}, EUR over the horizon", "value": v} for k, v in tco.owned_breakdown_eur.items()]),
        "Workload inputs": pd.DataFrame(
            [{"input": k, "value": str(v)} for k, v in scenario.workload.model_dump(mode="json").items()]),
        "Workload results": priced.offers.drop(columns=[c for c in priced.offers.columns
                                                        if priced.offers[c].dtype == object
                                                        and priced.offers[c].map(lambda v: isinstance(v, list | dict)).any()]),
        "Workload assumptions": priced.assumptions,
        "Scenario JSON": pd.DataFrame({"scenario": to_json(scenario).splitlines()}),
    }
    offers = store.list_offers(usd_per_eur=scenario.display.usd_per_eur)
    sheets["Catalog rows used"] = offers[["offer_id", "provider_name", "gpu_model", "form_factor", "region",
                                          "on_demand_eur_per_gpu_hour", "spot_eur_per_gpu_hour",
                                          "reserved_eur_per_gpu_hour", "native_currency", "source_url", "as_of",
                                          "verification_status"]]
    buf = io.BytesIO()
    with pd.ExcelWriter(buf, engine="openpyxl") as writer:
        for name, frame in sheets.items():
            out = frame.copy()
            for col in out.columns:
                if str(out[col].dtype).startswith("datetime64") and getattr(out[col].dt, "tz", None) is not None:
                    out[col] = out[col].dt.tz_localize(None)
            out.to_excel(writer, sheet_name=name[:31], index=False)
    return buf.getvalue()


def report_html(store: CatalogStore, scenario: Scenario) -> str:
    display = scenario.display
    inputs = scenario.tco.inputs
    tco = evaluate_tco(inputs)
    v = verdict(tco, display, scenario.tco.reserved_origin)
    figures = [
        tco_charts.totals(tco, display),
        tco_charts.cumulative(tco, display),
        tco_charts.cost_vs_utilisation(utilisation_sweep(inputs), tco, display),
    ]
    priced = _workload(scenario)
    results = key_results(scenario)
    parts = [
        "<html><head><meta charset='utf-8'><title>GPU Cloud Advisor report</title><style>",
        "body{font-family:Inter,'Segoe UI',Helvetica,Arial,sans-serif;margin:28px;color:#1f2933}"
        "h1{font-size:26px} h2{font-size:20px;margin-top:28px} table{border-collapse:collapse;font-size:11px}"
        "td,th{border:1px solid #d1d5db;padding:3px 6px;text-align:left} .chart{page-break-inside:avoid}",
        "</style></head><body>",
        "<h1>GPU Cloud Advisor — scenario report</h1>",
        f"<p>{html.escape(_catalog_line(store))}. Currency {display.currency} at {display.usd_per_eur:.4f} USD/EUR.</p>",
        "<h2>Key results</h2><table>",
        *[f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(_fmt(val))}</td></tr>" for k, val in results.items()],
        "</table>",
        "<h2>Rent or own</h2>",
        f"<p><b>{html.escape(v.headline)}</b></p><p>{html.escape(v.detail.replace('**', ''))}</p>",
        *[f"<p>{html.escape(note.replace('**', ''))}</p>" for note in v.notes],
    ]
    for i, fig in enumerate(figures):
        fig.update_layout(width=900, height=420)
        parts.append("<div class='chart'>" + fig.to_html(full_html=False, include_plotlyjs="inline" if i == 0 else False,
                                                         config={"staticPlot": True}) + "</div>")
    parts.append("<h2>Workload cost</h2>")
    ranked = priced.ranked.head(15)
    cols = [c for c in ["provider_name", "gpu_model", "region", "cost_eur", "time_hours", "gpu_hours",
                        "cost_eur_per_million_tokens", "source_url"] if c in ranked.columns]
    parts.append(ranked[cols].to_html(index=False, float_format=lambda x: f"{x:,.2f}"))
    parts.append("<h2>Assumptions</h2>")
    parts.append(assumptions_frame(inputs, scenario.tco).to_html(index=False))
    parts.append(priced.assumptions.to_html(index=False))
    parts.append("</body></html>")
    return "".join(parts)


def _fmt(value) -> str:
    if isinstance(value, float):
        return "—" if value != value else f"{value:,.3f}"
    return str(value)


def pdf_report(store: CatalogStore, scenario: Scenario, progress: Callable[[float, str], None] | None = None) -> bytes:
    """Render :func:`report_html` to PDF with headless Chromium (about 2 s)."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise RuntimeError("The PDF report needs Debian's chromium (apt-get install chromium); the Excel workbook "
                           "works without it.")
    progress = progress or (lambda f, t: None)
    progress(0.1, "Computing every page…")
    page = report_html(store, scenario)
    progress(0.5, "Printing the report…")
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "report.html", Path(tmp) / "report.pdf"
        src.write_text(page, encoding="utf-8")
        cmd = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={tmp}/profile", f"--print-to-pdf={out}", src.as_uri()]
        done = subprocess.run(cmd, capture_output=True, timeout=120)
        if not out.exists():
            raise RuntimeError(f"Chromium could not print the report: {done.stderr.decode()[-300:]}")
        progress(1.0, "Done")
        return out.read_bytes()
