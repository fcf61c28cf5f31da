"""Plotly charts of the TCO page (shared style from ui.charts). Every chart shows the same horizon as the
verdict: totals over the horizon, per useful GPU-hour of that horizon, or the net cost to date within it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from engine.money import from_eur
from engine.tco import LAYERS, Pair, TcoResult, TornadoResult
from ui.charts import fs, presenting, style
from ui.figspec import Fig, trace
from ui.format import SYMBOL
from ui.labels import TCO_LAYER_NAMES, TCO_OPTION_NAMES, label
from ui.scenario import DisplaySettings

OPTION_COLOURS = {"on_demand": "#2563eb", "reserved": "#10b981", "owned": "#7c3aed"}
LAYER_COLOURS = {
    "hardware": "#4f46e5", "networking": "#0ea5e9", "capital_cost": "#a855f7", "power_and_cooling": "#f59e0b",
    "facility": "#f97316", "staff": "#ec4899", "maintenance": "#84cc16", "residual_credit": "#9ca3af",
}


def _conv(values, display: DisplaySettings):
    return from_eur(np.asarray(values, dtype=float), display.currency, display.usd_per_eur)


def _span(result: TcoResult) -> str:
    months = result.inputs.horizon_months
    return f"{months // 12} years" if months % 12 == 0 and months >= 24 else f"{months} months"


def _available(result: TcoResult) -> list[str]:
    return [o for o in ("on_demand", "reserved", "owned") if o in result.available_options]


def cost_vs_utilisation(sweep: pd.DataFrame, result: TcoResult, display: DisplaySettings) -> go.Figure:
    sym = SYMBOL[display.currency]
    fig = Fig()
    for option in _available(result):
        fig.add_trace(trace("scatter",
            x=sweep["utilisation"], y=_conv(sweep[option], display), name=TCO_OPTION_NAMES[option], mode="lines",
            line=dict(color=OPTION_COLOURS[option], width=3),
            hovertemplate=f"{TCO_OPTION_NAMES[option]}<br>%{{x:.0%}} utilisation: {sym}%{{y:.2f}} per useful GPU-hour<extra></extra>",
        ))
    be = result.break_even_utilisation_fraction
    marks = [(Pair.ON_DEMAND_VS_OWNED.value, "owning wins above", "owned"),
             (Pair.ON_DEMAND_VS_RESERVED.value, "reserved wins above", "reserved")]
    for key, text, option in marks:
        u = be.get(key, math.nan)
        if option in result.available_options and math.isfinite(u) and 0.05 <= u <= 1:
            y = float(np.interp(u, sweep["utilisation"], sweep["on_demand"]))
            fig.add_trace(trace("scatter",
                x=[u], y=_conv([y], display), mode="markers+text",
                marker=dict(size=14, color=OPTION_COLOURS[option], line=dict(width=2, color="white")),
                text=[f"{text} {u:.0%}"], textposition="top right" if u < 0.6 else "top left", showlegend=False,
                cliponaxis=False, hovertemplate=f"break-even {u:.1%}<extra></extra>",
            ))
    u_now = result.inputs.utilisation_fraction
    fig.add_vline(x=u_now, line_dash="dot", line_color="#374151",
                  annotation_text=f"you: {u_now:.0%}", annotation_position="bottom left")
    top = float(np.nanmax(_conv(sweep[["on_demand"]].to_numpy(), display))) * 2.2
    fig.update_yaxes(title=f"{sym} per useful GPU-hour", range=[0, top], tickprefix=sym)
    fig.update_xaxes(title="Sustained utilisation", tickformat=".0%", range=[0.05, 1.0])
    return style(fig, height=440, title=f"Cost per useful GPU-hour over {_span(result)}, by utilisation").figure()


def totals(result: TcoResult, display: DisplaySettings) -> go.Figure:
    """Each option's total over the horizon; owning split into its layers (resale value as a credit)."""
    sym = SYMBOL[display.currency]
    fig = Fig()
    for layer in LAYERS:
        value = float(_conv(result.owned_breakdown_eur[layer], display))
        if value == 0.0:
            continue
        fig.add_trace(trace("bar",
            y=["Own"], x=[value], name=TCO_LAYER_NAMES[layer], orientation="h", marker_color=LAYER_COLOURS[layer],
            hovertemplate=f"{TCO_LAYER_NAMES[layer]}: {sym}%{{x:,.0f}}<extra></extra>",
        ))
    for option in ("reserved", "on_demand"):
        if option not in result.available_options:
            continue
        value = float(_conv(result.total_cost_eur[option], display))
        fig.add_trace(trace("bar", y=[TCO_OPTION_NAMES[option]], x=[value], orientation="h", showlegend=False,
                             marker_color=OPTION_COLOURS[option], text=[f"{sym}{value:,.0f}"], textposition="inside",
                             hovertemplate=f"{TCO_OPTION_NAMES[option]}: {sym}%{{x:,.0f}}<extra></extra>"))
    own_total = float(_conv(result.total_cost_eur["owned"], display))
    fig.add_trace(trace("scatter", y=["Own"], x=[own_total], mode="markers", marker=dict(symbol="line-ns", size=26,
                             line=dict(width=3, color="#111827")), showlegend=False,
                             hovertemplate=f"Own, net of resale: {sym}%{{x:,.0f}}<extra></extra>"))
    gross = float(_conv(sum(v for v in result.owned_breakdown_eur.values() if v > 0), display))
    fig.add_trace(trace("scatter", y=["Own"], x=[gross], mode="text", text=[f"  net {sym}{own_total:,.0f}" + ("" if presenting() else " (black line)")],
                             textposition="middle right", showlegend=False, cliponaxis=False, hoverinfo="skip"))
    # Room right of the longest bar for the "net" label, left of zero for the resale credit.
    low = min(0.0, float(_conv(result.owned_breakdown_eur["residual_credit"], display)))
    high = max(float(_conv(result.total_cost_eur[o], display)) for o in result.available_options)
    high = max(high, float(_conv(sum(v for v in result.owned_breakdown_eur.values() if v > 0), display)))
    fig.update_xaxes(title=f"Total over {_span(result)}, {result.inputs.cluster_gpus} GPUs ({sym})", tickprefix=sym,
                     range=[low * 1.05, max(high * 1.15, gross * (2.3 if presenting() else 1.75))])
    fig = style(fig, height=470, title=f"What each option costs over {_span(result)}")
    fig.update_layout(barmode="relative")
    if not presenting():  # on a projector style() puts the legend at the foot of the figure
        fig.update_layout(legend=dict(orientation="h", y=-0.28, yanchor="top", x=0, font=dict(size=12), yref="paper",
                                      entrywidth=0.5, entrywidthmode="fraction"), margin=dict(b=120))
    return fig.figure()


def cumulative(result: TcoResult, display: DisplaySettings) -> go.Figure:
    sym = SYMBOL[display.currency]
    fig = Fig()
    for option in _available(result):
        fig.add_trace(trace("scatter",
            x=result.months, y=_conv(result.cumulative_cost_eur[option], display), name=TCO_OPTION_NAMES[option],
            mode="lines", line=dict(color=OPTION_COLOURS[option], width=3, shape="hv" if option == "reserved" else "linear"),
            hovertemplate=f"{TCO_OPTION_NAMES[option]}<br>stop after month %{{x}}: {sym}%{{y:,.0f}}<extra></extra>",
        ))
        end = float(_conv(result.total_cost_eur[option], display))
        fig.add_trace(trace("scatter", x=[result.months[-1]], y=[end], mode="markers", showlegend=False, hoverinfo="skip",
                                 marker=dict(size=11, color=OPTION_COLOURS[option], line=dict(width=2, color="white"))))
    fig.add_annotation(x=result.months[-1], y=float(_conv(result.total_cost_eur[result.cheapest_option], display)),
                       text=f"horizon end: {TCO_OPTION_NAMES[result.cheapest_option].lower()} lowest", showarrow=True,
                       arrowhead=2, ax=-150 if presenting() else -70, ay=-40, font=dict(size=fs(13)))
    fig.update_xaxes(title="Stop after month", range=[0, result.months[-1] + 1])
    fig.update_yaxes(title=f"Net cost to date, {result.inputs.cluster_gpus} GPUs ({sym})", tickprefix=sym, rangemode="tozero")
    fig = style(fig, height=470, title="Net cost to date<br><sup>if you stop after a month: hardware resold at its value "
                "then, a started reserved term paid in full</sup>")
    fig.update_layout(margin=dict(t=120), title=dict(y=0.97))
    return fig.figure()


def tornado_chart(result: TornadoResult, labels: dict[str, str] | None = None) -> go.Figure:
    labels = labels or {}
    bars = [b for b in result.bars if math.isfinite(b.swing)][:10][::-1]
    base = result.base_break_even_utilisation_fraction
    names = [labels.get(b.name) or label(b.name) for b in bars]  # never a raw field name (ui.labels)
    fig = Fig()
    fig.add_trace(trace("bar", y=names, x=[b.break_even_at_low - base for b in bars], base=base, orientation="h",
                         name=f"input −{result.pct:.0%}", marker_color="#60a5fa",
                         customdata=[[b.low_value, b.break_even_at_low] for b in bars],
                         hovertemplate="%{y} = %{customdata[0]:.4g}: break-even %{customdata[1]:.1%}<extra></extra>"))
    fig.add_trace(trace("bar", y=names, x=[b.break_even_at_high - base for b in bars], base=base, orientation="h",
                         name=f"input +{result.pct:.0%}", marker_color="#f97316",
                         customdata=[[b.high_value, b.break_even_at_high] for b in bars],
                         hovertemplate="%{y} = %{customdata[0]:.4g}: break-even %{customdata[1]:.1%}<extra></extra>"))
    fig.add_vline(x=base, line_color="#111827")
    fig.update_layout(barmode="overlay")
    # On two lines: in a half-width column one line ran past the figure's right edge; on three with the projector's
    # larger text, where the long input names leave the plot narrower still.
    lines = (["Break-even utilisation,", "own vs rent on demand"] if presenting()
             else ["Break-even utilisation, own vs rent on demand"]) + [f"(black line: base {base:.0%})"]
    fig.update_xaxes(tickformat=".0%")
    if not presenting():
        fig.update_xaxes(title="<br>".join(lines))
        return style(fig, height=470, title="Which inputs move the break-even most").figure()
    # Projector: the long input names leave a narrow plot at the figure's right edge, and an axis title is centred
    # on the plot, so it ran past the edge. The same words right-aligned to the plot's edge, above the plot (the
    # legend takes the foot of the figure).
    fig = style(fig, height=470, title="Which inputs move the break-even most")
    fig.add_annotation(text="<br>".join(lines), xref="paper", x=1, xanchor="right", yref="paper", y=1, yshift=8,
                       yanchor="bottom", align="right", showarrow=False, font=dict(size=20))
    fig.update_layout(margin_t=fig.layout["margin"]["t"] + 85, height=fig.layout["height"] + 85)
    return fig.figure()


def monte_carlo_bands(bands: pd.DataFrame, u_now: float, display: DisplaySettings) -> go.Figure:
    sym = SYMBOL[display.currency]
    fig = Fig()
    fills = {"on_demand": "rgba(37,99,235,0.18)", "reserved": "rgba(16,185,129,0.18)", "owned": "rgba(124,58,237,0.22)"}
    for option in ("on_demand", "reserved", "owned"):
        part = bands[bands.option == option]
        if part.empty or part.p50.isna().all():
            continue
        fig.add_trace(trace("scatter", x=part.utilisation, y=_conv(part.p90, display), mode="lines", line=dict(width=0),
                                 showlegend=False, hoverinfo="skip"))
        fig.add_trace(trace("scatter", x=part.utilisation, y=_conv(part.p10, display), mode="lines", line=dict(width=0),
                                 fill="tonexty", fillcolor=fills[option], name=f"{TCO_OPTION_NAMES[option]} p10–p90",
                                 hoverinfo="skip"))
        fig.add_trace(trace("scatter", x=part.utilisation, y=_conv(part.p50, display), mode="lines",
                                 line=dict(color=OPTION_COLOURS[option], width=2), name=f"{TCO_OPTION_NAMES[option]} median",
                                 hovertemplate=f"%{{x:.0%}}: median {sym}%{{y:.2f}}<extra></extra>"))
    fig.add_vline(x=u_now, line_dash="dot", line_color="#374151")
    top = float(np.nanmax(_conv(bands[bands.option == "on_demand"].p90, display))) * 2.2
    fig.update_yaxes(title=f"{sym} per useful GPU-hour", range=[0, top], tickprefix=sym)
    fig.update_xaxes(title="Sustained utilisation", tickformat=".0%")
    return style(fig, height=420, title="How sure is the answer? p10–p90 over uncertain inputs").figure()
