"""Plotly builders of the Workload cost page, in the shared style of :mod:`ui.charts`.

Builders take frames already prepared by :mod:`ui.workload_view` (amounts in the display currency).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ui.charts import EU_COLOURS, MISSING, PRICE_COLOURS, fs, presenting, style
from ui.figspec import Fig, trace
from ui.format import SYMBOL
from ui.scenario import DisplaySettings

FRONT = PRICE_COLOURS["on-demand"]
OTHER = EU_COLOURS[False]
SELECTED = "#111827"
PART_COLOURS = ["#4f46e5", "#a5b4fc", PRICE_COLOURS["spot"]]
#: Compute, pipeline bubble, exposed communication, failures (the scaling-loss breakdown of a training job).
LOSS_COLOURS = ["#4f46e5", "#a5b4fc", PRICE_COLOURS["spot"], "#9ca3af"]
LATENCY = "#dc2626"


def _short(v: float) -> str:
    return f"{v / 1e6:g}M" if v >= 1e6 else f"{v / 1e3:g}k" if v >= 1e3 else f"{v:g}"


def _axis(values: pd.Series, prefix: str = "") -> dict:
    """Linear axis, or a log axis with 1-2-5 ticks when the values span more than 30x."""
    v = values[values > 0]
    if len(v) < 2 or v.max() / v.min() <= 30:
        return dict(type="linear", tickprefix=prefix)
    decades = 10.0 ** np.arange(np.floor(np.log10(v.min())), np.ceil(np.log10(v.max())) + 1)
    ticks = [t for t in np.outer(decades, [1, 2, 5]).ravel() if v.min() / 1.5 <= t <= v.max() * 1.5]
    return dict(type="log", tickvals=ticks, ticktext=[prefix + _short(t) for t in ticks])


def _right_part(x: pd.Series, every_x: pd.Series) -> list[bool]:
    """For each x: does it lie in the right 40 % of the axis that ``every_x`` spans (log scale where
    :func:`_axis` draws one)?"""
    v = every_x[every_x > 0]
    if len(v) < 2 or v.max() <= v.min():
        return [False] * len(x)
    log = _axis(every_x)["type"] == "log"
    f = (lambda a: np.log10(a)) if log else (lambda a: a)
    lo, hi = f(v.min()), f(v.max())
    return [bool((f(max(float(value), float(v.min()))) - lo) / (hi - lo) > 0.6) for value in x]


def time_cost_scatter(points: pd.DataFrame, x_title: str, y_title: str, display: DisplaySettings,
                      selected: str | None = None) -> go.Figure:
    """Every ranked offer by time (x) and cost (y); the Pareto front (nothing both cheaper and faster) joined
    by a line and labelled; hollow markers are offers priced with stated defaults."""
    sym = SYMBOL[display.currency]
    fig = Fig()
    hover = f"%{{text}}<br>{x_title}: %{{x:,.2f}}<br>{y_title}: {sym}%{{y:,.2f}}<br>%{{customdata}}<extra></extra>"
    others = points[~points["is_front"]]
    for assumed, name in [(False, "other offers"), (True, "fabric assumed")]:
        part = others[others["assumed_default"] == assumed]
        if len(part):
            fig.add_trace(trace("scatter",
                x=part["x"], y=part["y"], mode="markers", name=name, text=part["label"],
                customdata=np.where(part["assumed_default"], "priced with stated defaults: " + part["defaults_used"], ""),
                marker=dict(size=10, color="white" if assumed else OTHER, opacity=0.85,
                            line=dict(width=1.5 if assumed else 0.5, color=OTHER if assumed else "white")),
                hovertemplate=hover,
            ))
    front = points[points["is_front"]].sort_values("x")
    names = front["provider_name"].str.split(" (", regex=False).str[0] + " " + front["gpu"]
    # A label in the right part of the plot goes left of its marker, so the plot's edge never cuts it.
    to_left = _right_part(front["x"], points["x"])
    fig.add_trace(trace("scatter",
        x=front["x"], y=front["y"], mode="lines+markers+text", name="Pareto front (nothing cheaper and faster)",
        text=[f"{n}\u2003" if left else f"\u2003{n}" for n, left in zip(names, to_left, strict=True)],
        textposition=[("top " if i % 2 == 0 else "bottom ") + ("left" if left else "right")
                      for i, left in enumerate(to_left)], textfont=dict(size=13),
        customdata=np.where(front["assumed_default"], "priced with stated defaults: " + front["defaults_used"], ""),
        line=dict(color=FRONT, width=2, shape="hv"),
        marker=dict(size=13, color=np.where(front["assumed_default"], "white", FRONT), line=dict(width=2, color=FRONT)),
        hovertemplate=hover,
    ))
    chosen = points[points["offer_id"] == selected]
    if len(chosen):
        fig.add_trace(trace("scatter",
            x=chosen["x"], y=chosen["y"], mode="markers", name="broken down at right", hoverinfo="skip",
            marker=dict(size=22, color="rgba(0,0,0,0)", line=dict(width=2.5, color=SELECTED)),
        ))
    fig.update_xaxes(title=x_title, **_axis(points["x"]))
    fig.update_yaxes(title=y_title, **_axis(points["y"], sym))
    fig = style(fig, height=540, title="Time versus cost, every priced offer")
    fig.update_layout(margin=dict(r=40, t=50, b=10), legend=dict(y=-0.16, yanchor="top", yref="paper"))  # legend below: the column is narrow
    return fig.figure()


def training_breakdown(parts: pd.DataFrame, display: DisplaySettings) -> go.Figure:
    """Share of wall-clock time (and of the bill) per part of the job — compute, pipeline bubble, exposed
    communication, failures — one bar per part."""
    sym = SYMBOL[display.currency]
    total = float(parts["cost"].sum())
    fig = Fig(trace("bar",
        x=parts["cost"], y=parts["short"], orientation="h", marker_color=LOSS_COLOURS[: len(parts)],
        text=[f"{sym}{c:,.0f} · {s:.0%}" for c, s in zip(parts["cost"], parts["share"], strict=True)],
        textposition="outside", cliponaxis=False, customdata=parts["part"],
        hovertemplate=f"%{{customdata}}<br>{sym}%{{x:,.0f}}<extra></extra>",
    ))
    fig.update_yaxes(autorange="reversed", title=None)
    fig.update_xaxes(title=f"Part of the cost per job ({sym})", tickprefix=sym,
                     range=[0, 1.35 * total if total > 0 else 1])
    return style(fig, height=320, title="Where the money goes: scaling loss on this offer").figure()


def batching_tradeoff(sweep: pd.DataFrame, current_batch: int, latency_target_s: float) -> go.Figure:
    """Throughput per GPU (bars, marked ×n when a replica spans n GPUs) and request latency
    (line) against the batch size, for one offer."""
    fits = sweep.dropna(subset=["tokens_per_s_per_gpu"])
    x = fits["batch_size"].astype(str)
    fig = Fig.subplots(specs=[[{"secondary_y": True}]])
    marks = [f"×{tp:.0f}" if tp > 1 else "" for tp in fits["tensor_parallel_degree"]]
    big = presenting()  # projector: ×n under the batch size (in a short bar its larger type ran over the axis, #27.15)
    fig.add_trace(trace("bar",
        x=x, y=fits["tokens_per_s_per_gpu"], name="tokens/s per GPU",
        marker_color=[PART_COLOURS[0] if b == current_batch else PART_COLOURS[1] for b in fits["batch_size"]],
        customdata=fits["tensor_parallel_degree"], textposition="inside", insidetextanchor="end", textangle=0,
        textfont=dict(size=13, color="white"), constraintext="none", text=None if big else marks,
        hovertemplate="batch %{x}: %{y:,.0f} tokens/s per GPU (%{customdata:.0f} GPUs per replica)<extra></extra>",
    ), secondary_y=False)
    fig.add_trace(trace("scatter",
        x=x, y=fits["request_latency_s"], name="latency per request (s)", mode="lines+markers",
        line=dict(color=LATENCY, width=2.5), marker=dict(size=8),
        hovertemplate="batch %{x}: %{y:.2f} s per request<extra></extra>",
    ), secondary_y=True)
    fig.add_trace(trace("scatter",
        x=[x.iloc[0], x.iloc[-1]] if len(x) else [], y=[latency_target_s] * 2 if len(x) else [],
        name=f"latency target {latency_target_s:g} s", mode="lines", line=dict(color=LATENCY, dash="dash", width=1.5),
        hoverinfo="skip",
    ), secondary_y=True)
    missing = sweep[sweep["tokens_per_s_per_gpu"].isna()]
    if len(missing):
        fig.add_annotation(text=f"batch ≥ {missing['batch_size'].min()}: {missing['reason'].iloc[0]}",
                           xref="paper", yref="paper", x=1, y=-0.28, showarrow=False, xanchor="right",
                           font=dict(size=13, color="#6b7280"))
    fig.update_xaxes(title="Batch size (sequences in flight); dark bar = the batch priced above", type="category")
    if big:
        fig.update_xaxes(tickvals=list(x), ticktext=[f"{b}<br>{m}" for b, m in zip(x, marks, strict=True)],
                         title="Batch size (×n: GPUs per replica); dark bar = the batch priced above")
    fig.update_yaxes(title="Tokens/s per GPU", rangemode="tozero", secondary_y=False)
    top = max(float(fits["request_latency_s"].max()) if len(fits) else 0.0, latency_target_s)
    fig.update_yaxes(title="Latency (s)", range=[0, 1.5 * top], secondary_y=True, showgrid=False, color=LATENCY,
                     tickmode="auto", nticks=6)  # headroom: the line stays clear of the bar labels
    fig = style(fig, height=420, title="Batching trade-off")
    fig.update_layout(margin=dict(b=60 if len(missing) else 10), bargap=0.25)
    if not len(fits):
        fig.add_annotation(text="The model does not fit on this offer at any batch size", showarrow=False,
                           font=dict(color=MISSING, size=fs(16)))
    return fig.figure()
