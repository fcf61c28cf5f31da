"""Plotly chart builders shared by the pages. One visual style: white background, large type that
reads on a projector, one colour per price type and per fabric across every chart."""

from __future__ import annotations

import re
from typing import cast

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from catalog.models import certification_tokens
from engine.assumptions import is_missing
from ui import labels
from ui.figspec import Fig, trace
from ui.format import SYMBOL
from ui.scenario import DisplaySettings

FONT = dict(family="Inter, 'Segoe UI', Helvetica, Arial, sans-serif", size=15, color="#1f2933")
PRICE_COLOURS = {"on-demand": "#2563eb", "spot": "#f59e0b", "reserved": "#10b981"}
EU_COLOURS = {True: "#1d4ed8", False: "#9ca3af"}
MISSING = "#d1d5db"


def _register_template() -> None:
    """One template for every chart, registered once: applying "plotly_white" per figure re-validated the
    whole template each time (about 20 ms per chart, measured)."""
    if "advisor" not in pio.templates:
        # The look of "plotly_white" with only the layout keys we use: a small template is cheap to apply.
        axis = dict(gridcolor="#EBF0F8", linecolor="#EBF0F8", zerolinecolor="#EBF0F8", ticks="", automargin=True,
                    title=dict(standoff=15))
        pio.templates["advisor"] = go.layout.Template(layout=dict(
            font=FONT, paper_bgcolor="white", plot_bgcolor="white", hoverlabel=dict(font_size=14),
            colorway=["#636efa", "#EF553B", "#00cc96", "#ab63fa", "#FFA15A", "#19d3f3", "#FF6692", "#B6E880"],
            xaxis=axis, yaxis=axis, polar=dict(bgcolor="white", angularaxis=dict(gridcolor="#EBF0F8"),
                                               radialaxis=dict(gridcolor="#EBF0F8")),
        ))
    pio.templates.default = "advisor"


_register_template()


#: Smallest chart text in presentation mode (issue #19: a projector needs at least 18 px).
PROJECTOR_MIN_FONT = 18


def presenting() -> bool:
    """True while this session is in presentation mode (the sidebar toggle)."""
    import streamlit as st
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    return get_script_run_ctx(suppress_warning=True) is not None and bool(st.session_state.get("_presentation"))


def fs(size: float) -> float:
    """A chart font size: as given, or at least :data:`PROJECTOR_MIN_FONT` in presentation mode."""
    return max(size, PROJECTOR_MIN_FONT) if presenting() else size


def wrap(text: str, width: int) -> str:
    """``text`` broken into lines of at most about ``width`` characters at spaces (plotly does not wrap)."""
    if not text or len(text) <= width:
        return text
    if "<br>" in text:  # wrap each given line on its own
        return "<br>".join(wrap(part, width) for part in text.split("<br>"))
    sup = re.fullmatch(r"<sup>(.*)</sup>", text)
    if sup:  # a subtitle line: wrap its words, each line its own <sup>
        return "<br>".join(f"<sup>{line}</sup>" for line in wrap(sup.group(1), int(width * 1.4)).split("<br>"))
    if "<" in text:  # other markup (<b>, <i>): leave it as the author wrote it
        return text
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return "<br>".join([*lines, line])


def style(fig: Fig | go.Figure, *, height: int = 420, title: str | None = None) -> Fig | go.Figure:
    """The app's look on a figure: size, title, margins, legend; larger type on a projector. Takes and returns
    a :class:`ui.figspec.Fig` (the chart builders); a ``go.Figure`` is restyled and returned as one."""
    if isinstance(fig, go.Figure):  # a builder still on plotly's objects
        spec = fig.to_plotly_json()
        styled = style(Fig(*spec["data"]).update_layout(**spec["layout"]), height=height, title=title)
        return styled.figure()
    big = presenting()
    # On a projector a long title is wrapped onto two lines (a half-width column holds about 36 characters at
    # 24 px); it is placed from the top of the figure ("container") so that both lines stay inside it.
    lines = 1
    if big and title:
        title = wrap(title, 36)
        lines = title.count("<br>") + 1
    # Projector: room for the legend at the foot (about one 26 px line per entry in a half-width column).
    entries = sum(1 for t in fig.data if t.get("showlegend") is not False and t.get("name")) if big else 0
    fig.update_layout(
        height=int(height * 1.15) + 30 * (lines - 1) + 26 * entries if big else height,
        # plotly centres extra title lines on the anchor: pad by half a line each so the first stays inside
        title=dict(text=title, x=0, xanchor="left", y=1, yref="container", yanchor="top", pad=dict(t=12 + 16 * (lines - 1)),
                   font=dict(size=24)) if big and title else
        dict(text=title, x=0, xanchor="left", y=0.99, yanchor="top", font=dict(size=19)) if title else None,
        margin=dict(l=10, r=10, t=(60 + 46 * lines if big else 90) if title else 30, b=10),
        # Projector: the legend at the foot of the figure (plotly grows the bottom margin to hold it), where larger
        # type can run over neither the title nor the plot; otherwise one line above the plot.
        legend=dict(orientation="h", yref="container", yanchor="bottom", y=0, xanchor="left", x=0) if big else
        dict(orientation="h", yanchor="bottom", y=1.01, xanchor="left", x=0),
    )
    if big:
        layout = fig.layout
        for axis in ("xaxis", "yaxis"):
            axis_title = layout.get(axis, {}).get("title", {})
            if axis_title.get("text"):
                axis_title["text"] = wrap(axis_title["text"], 26)
        # Explicit sizes: Streamlit's chart theme sets its own (smaller) tick and legend fonts otherwise.
        fig.update_layout(font_size=20, hoverlabel_font_size=18, legend_font_size=PROJECTOR_MIN_FONT)
        fig.update_xaxes(tickfont_size=PROJECTOR_MIN_FONT, title_font_size=20)
        fig.update_yaxes(tickfont_size=PROJECTOR_MIN_FONT, title_font_size=20)
        for annotation in layout.get("annotations", []):
            if annotation.get("font", {}).get("size") is None or annotation["font"]["size"] < PROJECTOR_MIN_FONT:
                annotation.setdefault("font", {})["size"] = PROJECTOR_MIN_FONT
        for axis in ("radialaxis", "angularaxis"):
            font = layout.get("polar", {}).get(axis, {}).get("tickfont", {})
            if font.get("size") is not None and font["size"] < PROJECTOR_MIN_FONT:
                font["size"] = PROJECTOR_MIN_FONT
        for t in fig.data:
            font = t.get("textfont", {})
            if font.get("size") is not None and font["size"] < PROJECTOR_MIN_FONT:
                font["size"] = PROJECTOR_MIN_FONT
    return fig


def offer_label(df: pd.DataFrame) -> pd.Series:
    form = df["form_factor"].fillna("")
    return df["provider_name"] + " · " + df["gpu_model"] + " " + form + " · " + df["region"].str.slice(0, 22)


def price_landscape(df: pd.DataFrame, display: DisplaySettings) -> go.Figure:
    """On-demand price per GPU-hour of every offer, by GPU model; EU data centres highlighted."""
    sym = SYMBOL[display.currency]
    # The five columns drawn, before any row is filtered: taking rows of the whole offers frame (60-odd Arrow
    # columns) was this chart's largest cost in a loaded server's profile (issue #31).
    data = df[["on_demand_eur_per_gpu_hour", "gpu_model", "is_eu_datacenter", "provider_name", "region"]]
    data = data.dropna(subset=["on_demand_eur_per_gpu_hour"])
    order = data.groupby("gpu_model")["on_demand_eur_per_gpu_hour"].median().sort_values().index.tolist()
    fig = Fig()
    for is_eu, name in [(False, "outside EU / not stated"), (True, "EU/EEA data centre")]:
        part = data[data["is_eu_datacenter"].fillna(False).astype(bool) == is_eu]
        fig.add_trace(trace("box",
            x=part["on_demand_eur_per_gpu_hour"], y=part["gpu_model"], name=name, orientation="h",
            boxpoints="all", jitter=0.4, pointpos=0, fillcolor="rgba(0,0,0,0)", line=dict(width=0),
            marker=dict(color=EU_COLOURS[is_eu], size=9, opacity=0.8, line=dict(width=0.5, color="white")),
            customdata=np.stack([part["provider_name"], part["region"]], axis=-1) if len(part) else None,
            hovertemplate=f"%{{customdata[0]}} · %{{customdata[1]}}<br>{sym}%{{x:.2f}} per GPU-hour<extra></extra>",
        ))
    fig.update_yaxes(categoryorder="array", categoryarray=order[::-1], title=None)
    fig.update_xaxes(title=f"On-demand price, {sym} per GPU-hour", rangemode="tozero", tickprefix=sym)
    return style(fig, height=max(320, 34 * len(order) + 120), title="What one GPU-hour costs, offer by offer").figure()


def price_comparison(df: pd.DataFrame, display: DisplaySettings) -> go.Figure:
    sym = SYMBOL[display.currency]
    labels = offer_label(df)
    fig = Fig()
    for ptype, col in [("on-demand", "on_demand_eur_per_gpu_hour"), ("spot", "spot_eur_per_gpu_hour"),
                       ("reserved", "reserved_eur_per_gpu_hour")]:
        values = df[col].astype(float)
        if values.notna().any():
            fig.add_trace(trace("bar",
                x=values, y=labels, name=ptype, orientation="h", marker_color=PRICE_COLOURS[ptype],
                text=[f"{sym}{v:.2f}" if not is_missing(v) else "" for v in values], textposition="outside",
                hovertemplate=f"%{{y}}<br>{ptype}: {sym}%{{x:.2f}} per GPU-hour<extra></extra>",
            ))
    fig.update_layout(barmode="group")
    top = float(np.nanmax(df[["on_demand_eur_per_gpu_hour", "spot_eur_per_gpu_hour", "reserved_eur_per_gpu_hour"]]
                          .astype(float).to_numpy(), initial=0.0))
    # room right of the longest bar for its price label (on a projector it ran past the figure, issue #27.15)
    fig.update_xaxes(title=f"{sym} per GPU-hour", rangemode="tozero", tickprefix=sym,
                     range=[0, top * 1.3] if top > 0 else None)
    fig.update_yaxes(autorange="reversed")
    return style(fig, height=140 + 70 * len(df), title="Price per GPU-hour by price type").figure()


def capability_comparison(df: pd.DataFrame) -> go.Figure:
    metrics = [
        ("memory_bandwidth_tbps", "Memory bandwidth (TB/s)"),
        ("bf16_dense_tflops", "Dense BF16 (TFLOP/s)"),
        ("memory_gb", "Memory per GPU (GB)"),
        ("inter_node_bandwidth_gbps_per_gpu", "Inter-node per GPU (Gb/s)"),
    ]
    labels = offer_label(df).str.slice(0, 40)
    big = presenting()  # projector: each panel's title on up to three lines, so that it stays inside its quarter
    fig = Fig.subplots(rows=1, cols=4, subplot_titles=[wrap(m[1], 11) if big else m[1] for m in metrics],
                       shared_yaxes=True, horizontal_spacing=0.04)
    for i, (col, _) in enumerate(metrics, start=1):
        values = df[col].astype(float)
        fig.add_trace(trace("bar",
            x=values.fillna(0), y=labels, orientation="h", showlegend=False,
            marker_color=["#4f46e5" if not is_missing(v) else MISSING for v in values],
            text=[f"{v:,.4g}" if not is_missing(v) else "not stated" for v in values], textposition="auto",
            hovertemplate="%{y}<br>%{text}<extra></extra>",
        ), row=1, col=i)
    fig.update_yaxes(autorange="reversed")
    fig.update_annotations(font_size=fs(14))
    fig = style(fig, height=140 + 60 * len(df))
    return (fig.update_layout(margin_t=100) if big else fig).figure()


def spec_scatter(specs: pd.DataFrame) -> go.Figure:
    data = specs.dropna(subset=["bf16_dense_tflops", "memory_bandwidth_tbps"])
    x = data["memory_bandwidth_tbps"].astype(float)
    # Labels point away from the plot's right edge and alternate above/below so that neighbours do not overlap;
    # cliponaxis=False and padded axes keep them whole.
    right = x > x.max() * 0.8 if len(x) else x
    positions = [("bottom" if i % 2 else "top") + (" left" if r else " right") for i, r in enumerate(right)]
    fig = Fig(trace("scatter",
        x=data["memory_bandwidth_tbps"], y=data["bf16_dense_tflops"], mode="markers+text",
        text=data["gpu_spec_id"], textposition=positions, cliponaxis=False,
        marker=dict(size=np.sqrt(data["memory_gb"].astype(float)) * 3.2, color="#4f46e5", opacity=0.75,
                    line=dict(width=1, color="white")),
        customdata=np.stack([data["memory_gb"], data["memory_type"]], axis=-1),
        hovertemplate="%{text}<br>%{x} TB/s · %{y} TFLOP/s BF16<br>%{customdata[0]} GB %{customdata[1]}<extra></extra>",
    ))
    top_x = float(x.max()) if len(x) else 1.0
    top_y = float(data["bf16_dense_tflops"].astype(float).max()) if len(data) else 1.0
    fig.update_xaxes(title="Memory bandwidth (TB/s): decode speed", range=[0, top_x * 1.12])
    fig.update_yaxes(title="Dense BF16 TFLOP/s: training speed", range=[0, top_y * 1.15])
    return style(fig, height=460, title="GPUs by compute and memory bandwidth (bubble = memory size)").figure()


def freshness(offers: pd.DataFrame, stale_after_days: int) -> go.Figure:
    ages = offers["age_days"].dropna()
    fig = Fig(trace("histogram", x=ages, nbinsx=24, marker_color="#4f46e5", hovertemplate="%{x} days: %{y} offers<extra></extra>"))
    fig.add_vline(x=stale_after_days, line_dash="dash", line_color="#dc2626",
                  annotation_text=f"stale after {stale_after_days} days", annotation_position="top right")
    fig.update_xaxes(title="Age of the offer's observation (days)", rangemode="tozero")
    fig.update_yaxes(title="Offers")
    return style(fig, height=340, title="How old the catalog's observations are").figure()


def coverage(cov: pd.DataFrame) -> go.Figure:
    data = cov.sort_values("missing_pct")
    names = [labels.label(str(f).replace(" ", "_")) for f in data["field"]]  # the store names fields in words
    fig = Fig(trace("bar",
        x=data["missing_pct"], y=names, orientation="h",
        marker_color=["#dc2626" if p > 50 else "#f59e0b" if p > 20 else "#10b981" for p in data["missing_pct"]],
        text=[f"{n} missing" for n in data["offers_missing"]], textposition="auto",
        hovertemplate="%{y}: %{x:.0f}% of offers lack it<extra></extra>",
    ))
    fig.update_xaxes(title="Offers without this field (%)", range=[0, 100], ticksuffix="%")
    return style(fig, height=380, title="What the sources did not state").figure()


def certification_matrix(providers: pd.DataFrame) -> go.Figure:
    """Which provider states which certification (one square per stated certificate); EU parents in blue."""
    rows = [(p.name, token, p.parent_jurisdiction == "EU")
            for p in providers.itertuples() for token in certification_tokens(cast(str | None, p.certifications))]
    fig = Fig()
    if not rows:
        fig.add_annotation(text="No provider's certifications are on record", showarrow=False, font=dict(size=18))
        return style(fig, height=260).figure()
    data = pd.DataFrame(rows, columns=["provider", "certification", "eu_parent"])
    order = data["certification"].value_counts().index.tolist()
    by_count = data.groupby("provider").size().sort_values().index.tolist()
    for eu, group in data.groupby("eu_parent"):
        fig.add_trace(trace("scatter",
            x=group["certification"], y=group["provider"], mode="markers",
            marker=dict(symbol="square", size=22, color=EU_COLOURS[bool(eu)]),
            name="EU-headquartered parent" if eu else "parent outside the EU",
            hovertemplate="%{y}: %{x}<extra></extra>",
        ))
    fig.update_xaxes(categoryorder="array", categoryarray=order, side="top", tickangle=-40)
    fig.update_yaxes(categoryorder="array", categoryarray=by_count)
    style(fig, height=max(340, 230 + 34 * len(by_count)),
          title="Certifications each provider states it holds (empty = none found in a source)")
    # Certificate names sit above the grid, so the title needs room and the legend goes below.
    fig.update_layout(margin=dict(t=190, b=10), legend=dict(orientation="h", yanchor="top", y=-0.02, x=0, yref="paper"))
    return fig.figure()
