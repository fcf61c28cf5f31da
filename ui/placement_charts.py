"""Plotly builders of the Hybrid placement page, in the shared style of :mod:`ui.charts`.

Builders take engine results (EUR) and convert money to the display currency for the axes. One colour per
workload in the demand chart (committed GPUs solid, burst hatched); the baselines keep the app's on-demand
blue across the savings and sensitivity charts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from engine.placement import PlacementPlan
from ui.charts import PRICE_COLOURS, fs, presenting, style
from ui.figspec import Fig, trace
from ui.format import SYMBOL, to_display_currency
from ui.scenario import DisplaySettings

WORKLOAD_COLOURS = ["#4f46e5", "#0891b2", "#db2777", "#16a34a", "#f59e0b", "#7c3aed", "#ea580c", "#64748b"]
PLAN, ON_DEMAND, DEDICATED = "#10b981", PRICE_COLOURS["on-demand"], "#6b7280"
WEEK_START = pd.Timestamp("2024-01-01")  # a Monday: hour 0 of a demand profile is Monday 00:00


def _rgba(hex_colour: str, alpha: float) -> str:
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def demand_week(plan: PlacementPlan, demand_gpus: np.ndarray) -> go.Figure:
    """Stacked area of one week's hourly demand per workload, split at its commitment: the committed GPUs
    that are in use (solid) and the GPU-hours bursting above them (hatched); the dashed line is the committed
    capacity paid every hour, so the gap below it is idle commitment."""
    hours = pd.date_range(WEEK_START, periods=demand_gpus.shape[1], freq="h")
    k = np.array([pl.committed_gpus for pl in plan.placements], dtype=float)
    fig = Fig()
    parts = [("committed", np.minimum(demand_gpus, k[:, None]), 0.85, ""),
             ("burst", np.maximum(demand_gpus - k[:, None], 0.0), 0.35, "/")]
    for part, values, alpha, pattern in parts:
        for i, pl in enumerate(plan.placements):
            if not values[i].any():
                continue
            colour = WORKLOAD_COLOURS[i % len(WORKLOAD_COLOURS)]
            fig.add_trace(trace("scatter",
                x=hours, y=values[i], name=f"{pl.workload} · {part}", stackgroup="demand", mode="lines",
                line=dict(width=0.5, color=colour), fillcolor=_rgba(colour, alpha), legendgroup=pl.workload,
                fillpattern=dict(shape=pattern, fgcolor=colour, solidity=0.25) if pattern else None,
                hovertemplate=f"{pl.workload}, {part}: %{{y:.1f}} GPUs<extra>%{{x|%a %H:%M}}</extra>",
            ))
    if k.sum():
        fig.add_trace(trace("scatter", x=hours, y=np.full(len(hours), k.sum()), name="committed capacity (paid every hour)",
                                 mode="lines", line=dict(color="#1f2933", dash="dash", width=2),
                                 hovertemplate="committed: %{y:.0f} GPUs<extra></extra>"))
    fig.update_xaxes(tickformat="%a %H:%M", dtick=12 * 3600 * 1000, title=None)
    fig.update_yaxes(title="GPUs in use", rangemode="tozero")
    fig.update_layout(hovermode="x unified", legend=dict(font=dict(size=fs(13)), traceorder="normal"))
    return style(fig, height=500, title="Demand in a typical week: committed GPUs and burst").figure()


def savings(plan: PlacementPlan, on_demand: PlacementPlan | None, dedicated: PlacementPlan | None,
            display: DisplaySettings) -> go.Figure:
    """Monthly cost of the plan against both baselines, each bar labelled with what the plan saves."""
    sym = SYMBOL[display.currency]
    bars = [("Optimised plan", plan, PLAN)]
    bars += [(name, p, colour) for name, p, colour in [("All on demand", on_demand, ON_DEMAND),
                                                        ("Dedicated for peak", dedicated, DEDICATED)] if p is not None]
    costs = to_display_currency([p.total_cost_eur_per_month for _, p, _ in bars], display)
    big = presenting()  # projector: the label on two lines, so that its larger type stays inside the figure
    text = [f"{sym}{costs[0]:,.0f}"]
    for (_, p, _), c in zip(bars[1:], costs[1:], strict=True):
        _, pct = plan.savings_against(p)
        text.append(f"{sym}{c:,.0f}{'<br>' if big else ' · '}plan saves {pct:.0%}")
    fig = Fig(trace("bar",
        x=costs, y=[b[0] for b in bars], orientation="h", marker_color=[b[2] for b in bars], text=text,
        textposition="outside", cliponaxis=False, hovertemplate=f"%{{y}}: {sym}%{{x:,.0f}} a month<extra></extra>"))
    fig.update_xaxes(title=f"{sym} per month", tickprefix=sym, rangemode="tozero",
                     range=[0, costs.max() * (1.7 if big else 1.45)])
    fig.update_yaxes(autorange="reversed", title=None)
    return style(fig, height=330, title="Monthly cost against both baselines").figure()


def sensitivity(frame: pd.DataFrame, display: DisplaySettings) -> go.Figure:
    """Plan and baseline cost per month as every on-demand price is scaled (spot and reserved fixed)."""
    sym = SYMBOL[display.currency]
    x = frame["factor"].to_numpy() * 100
    fig = Fig()
    for col, name, colour, dash in [("dedicated", "Dedicated for peak", DEDICATED, "dot"),
                                    ("all_on_demand", "All on demand", ON_DEMAND, "dash"),
                                    ("plan", "Optimised plan", PLAN, "solid")]:
        fig.add_trace(trace("scatter",
            x=x, y=to_display_currency(frame[col], display), name=name, mode="lines+markers",
            line=dict(color=colour, dash=dash, width=3 if col == "plan" else 2),
            customdata=frame["committed_gpus"], hovertemplate=(
                f"{name} at %{{x:.0f}} % of on-demand prices: {sym}%{{y:,.0f}} a month"
                + (" · %{customdata} GPUs committed" if col == "plan" else "") + "<extra></extra>")))
    fig.add_vline(x=100, line_dash="dot", line_color="#9ca3af", annotation_text="catalog prices",
                  annotation_position="top left")
    fig.update_xaxes(title="On-demand prices, % of today's catalog", ticksuffix=" %")
    fig.update_yaxes(title=f"{sym} per month", tickprefix=sym, rangemode="tozero")
    return style(fig, height=330, title="If on-demand prices move").figure()
