"""Plotly charts of the TCO page (shared style from ui.charts)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from engine.money import from_eur
from engine.tco import LAYERS, Pair, TcoResult, TornadoResult
from ui.charts import style
from ui.format import SYMBOL
from ui.scenario import DisplaySettings

OPTION_COLOURS = {"on_demand": "#2563eb", "reserved": "#10b981", "owned": "#7c3aed"}
OPTION_NAMES = {"on_demand": "Rent on demand", "reserved": "Rent reserved", "owned": "Own"}
LAYER_COLOURS = {
    "hardware": "#4f46e5", "networking": "#0ea5e9", "power_and_cooling": "#f59e0b", "facility": "#f97316",
    "staff": "#ec4899", "maintenance": "#84cc16", "residual_credit": "#9ca3af",
}


def _conv(values, display: DisplaySettings):
    return from_eur(np.asarray(values, dtype=float), display.currency, display.usd_per_eur)


def cost_vs_utilisation(sweep: pd.DataFrame, result: TcoResult, display: DisplaySettings) -> go.Figure:
    sym = SYMBOL[display.currency]
    fig = go.Figure()
    for option in ("on_demand", "reserved", "owned"):
        fig.add_trace(go.Scatter(
            x=sweep["utilisation"], y=_conv(sweep[option], display), name=OPTION_NAMES[option], mode="lines",
            line=dict(color=OPTION_COLOURS[option], width=3),
            hovertemplate=f"{OPTION_NAMES[option]}<br>%{{x:.0%}} utilisation: {sym}%{{y:.2f}} per useful GPU-hour<extra></extra>",
        ))
    costs = result.cost_per_useful_gpu_hour_eur
    price = costs["on_demand"]
    be = result.break_even_utilisation_fraction
    marks = [(Pair.ON_DEMAND_VS_OWNED.value, "own beats on-demand", "owned", "top left"),
             (Pair.ON_DEMAND_VS_RESERVED.value, "reserved beats on-demand", "reserved", "bottom right")]
    for key, text, option, position in marks:
        u = be.get(key, math.nan)
        if math.isfinite(u) and 0.05 <= u <= 1:
            fig.add_trace(go.Scatter(
                x=[u], y=_conv([price], display), mode="markers+text", marker=dict(size=14, color=OPTION_COLOURS[option],
                                                                                  line=dict(width=2, color="white")),
                text=[f"{text} above {u:.0%}"], textposition=position, showlegend=False,
                hovertemplate=f"break-even {u:.1%}<extra></extra>",
            ))
    u_now = result.inputs.utilisation_fraction
    fig.add_vline(x=u_now, line_dash="dot", line_color="#374151",
                  annotation_text=f"you: {u_now:.0%}", annotation_position="top left")
    top = float(np.nanmax(_conv(sweep[["on_demand"]].to_numpy(), display))) * 2.2
    fig.update_yaxes(title=f"{sym} per useful GPU-hour", range=[0, top], tickprefix=sym)
    fig.update_xaxes(title="Sustained utilisation", tickformat=".0%", range=[0.05, 1.0])
    return style(fig, height=440, title="What a useful GPU-hour costs as utilisation changes")


def breakdown(result: TcoResult, display: DisplaySettings) -> go.Figure:
    sym = SYMBOL[display.currency]
    layers = result.owned_breakdown_eur_per_useful_gpu_hour
    fig = go.Figure()
    for layer in LAYERS:
        value = float(_conv(layers[layer], display))
        fig.add_trace(go.Bar(
            y=["Own"], x=[value], name=layer.replace("_", " "), orientation="h", marker_color=LAYER_COLOURS[layer],
            text=[f"{sym}{value:.2f}" if abs(value) >= 0.05 else ""], textposition="inside",
            hovertemplate=f"{layer.replace('_', ' ')}: {sym}%{{x:.3f}}<extra></extra>",
        ))
    for option in ("reserved", "on_demand"):
        value = float(_conv(result.cost_per_useful_gpu_hour_eur[option], display))
        fig.add_trace(go.Bar(y=[OPTION_NAMES[option]], x=[value], orientation="h", showlegend=False,
                             marker_color=OPTION_COLOURS[option], text=[f"{sym}{value:.2f}"], textposition="inside",
                             hovertemplate=f"{OPTION_NAMES[option]}: {sym}%{{x:.2f}}<extra></extra>"))
    fig.update_layout(barmode="relative")
    fig.update_xaxes(title=f"{sym} per useful GPU-hour at {result.inputs.utilisation_fraction:.0%} utilisation",
                     tickprefix=sym)
    return style(fig, height=360, title="Where the cost of owning comes from")


def cumulative(result: TcoResult, display: DisplaySettings) -> go.Figure:
    sym = SYMBOL[display.currency]
    fig = go.Figure()
    for option in ("on_demand", "reserved", "owned"):
        fig.add_trace(go.Scatter(
            x=result.months, y=_conv(result.cumulative_cost_eur[option], display), name=OPTION_NAMES[option],
            mode="lines", line=dict(color=OPTION_COLOURS[option], width=3, shape="hv"),
            hovertemplate=f"{OPTION_NAMES[option]}<br>month %{{x}}: {sym}%{{y:,.0f}}<extra></extra>",
        ))
    month = result.break_even_month.get("owned_vs_on_demand", math.nan)
    if month == month:
        y = float(_conv(result.cumulative_cost_eur["owned"][int(month) - 1], display))
        fig.add_trace(go.Scatter(x=[month], y=[y], mode="markers+text", marker=dict(size=14, color="#111827"),
                                 text=[f"owning pays back in month {int(month)}"], textposition="bottom right",
                                 showlegend=False, hoverinfo="skip"))
    fig.update_xaxes(title="Month")
    fig.update_yaxes(title=f"Cumulative cash, {result.inputs.cluster_gpus} GPUs ({sym})", tickprefix=sym, rangemode="tozero")
    return style(fig, height=420, title="Cumulative cost over the horizon")


def tornado_chart(result: TornadoResult) -> go.Figure:
    bars = list(result.bars)[:10][::-1]
    base = result.base_break_even_utilisation_fraction
    names = [b.name.replace("_", " ") for b in bars]
    fig = go.Figure()
    fig.add_trace(go.Bar(y=names, x=[b.break_even_at_low - base for b in bars], base=base, orientation="h",
                         name=f"input −{result.pct:.0%}", marker_color="#60a5fa",
                         customdata=[[b.low_value, b.break_even_at_low] for b in bars],
                         hovertemplate="%{y} = %{customdata[0]:.4g}: break-even %{customdata[1]:.1%}<extra></extra>"))
    fig.add_trace(go.Bar(y=names, x=[b.break_even_at_high - base for b in bars], base=base, orientation="h",
                         name=f"input +{result.pct:.0%}", marker_color="#f97316",
                         customdata=[[b.high_value, b.break_even_at_high] for b in bars],
                         hovertemplate="%{y} = %{customdata[0]:.4g}: break-even %{customdata[1]:.1%}<extra></extra>"))
    fig.add_vline(x=base, line_color="#111827", annotation_text=f"base {base:.0%}", annotation_position="bottom right")
    fig.update_layout(barmode="overlay")
    fig.update_xaxes(title="Break-even utilisation, own vs rent on demand", tickformat=".0%")
    return style(fig, height=440, title="Which inputs move the break-even most")


def monte_carlo_bands(bands: pd.DataFrame, u_now: float, display: DisplaySettings) -> go.Figure:
    sym = SYMBOL[display.currency]
    fig = go.Figure()
    fills = {"on_demand": "rgba(37,99,235,0.18)", "reserved": "rgba(16,185,129,0.18)", "owned": "rgba(124,58,237,0.22)"}
    for option in ("on_demand", "reserved", "owned"):
        part = bands[bands.option == option]
        fig.add_trace(go.Scatter(x=part.utilisation, y=_conv(part.p90, display), mode="lines", line=dict(width=0),
                                 showlegend=False, hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=part.utilisation, y=_conv(part.p10, display), mode="lines", line=dict(width=0),
                                 fill="tonexty", fillcolor=fills[option], name=f"{OPTION_NAMES[option]} p10–p90",
                                 hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=part.utilisation, y=_conv(part.p50, display), mode="lines",
                                 line=dict(color=OPTION_COLOURS[option], width=2), name=f"{OPTION_NAMES[option]} median",
                                 hovertemplate=f"%{{x:.0%}}: median {sym}%{{y:.2f}}<extra></extra>"))
    fig.add_vline(x=u_now, line_dash="dot", line_color="#374151")
    top = float(np.nanmax(_conv(bands[bands.option == "on_demand"].p90, display))) * 2.2
    fig.update_yaxes(title=f"{sym} per useful GPU-hour", range=[0, top], tickprefix=sym)
    fig.update_xaxes(title="Sustained utilisation", tickformat=".0%")
    return style(fig, height=420, title="How sure is the answer? p10–p90 over uncertain inputs")
