"""Figures built as dicts (ui.figspec, issue #31) draw what plotly's own calls draw, and every figure a page
sends passes plotly's validation unchanged (what skipping validation could otherwise hide: a misspelt
property). ``bench/figure_equivalence.py --base <checkout>`` compares every builder with another checkout's
on the pages' real inputs."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from plotly.subplots import make_subplots

import ui.charts  # noqa: F401 (registers the app's template, the default of both builds)
from tests.app.conftest import open_page
from ui.figspec import Fig, trace


def _spec(fig: go.Figure) -> dict:
    return json.loads(pio.to_json(fig.to_dict(), validate=False))


def _pruned(value):
    """Empty objects dropped (plotly sends ``"title": {}`` after ``title=None``, and drops it on re-validation)."""
    if isinstance(value, dict):
        return {k: p for k, v in value.items() if (p := _pruned(v)) != {}}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value


def test_traces_layout_and_axes_equal_plotlys_own_build():
    x = pd.Series([0.1, 0.5, 0.9])
    want = go.Figure()
    want.add_trace(go.Bar(x=x, y=["a", "b", "c"], orientation="h", marker_color="#2563eb",
                          marker_line=dict(width=1, color="white"), customdata=np.array([1.0, 2.0, 3.0]),
                          hovertemplate="%{y}<extra></extra>", name="bars"))
    want.add_trace(go.Scatter(x=x, y=x * 2, mode="lines", line=dict(color="#111827", dash="dot"), showlegend=False))
    want.add_vline(x=0.5, line_dash="dot", line_color="#374151", annotation_text="you: 50%",
                   annotation_position="bottom left")
    want.add_vline(x=0.7, line_color="#111827")
    want.add_annotation(text="note", x=1, xref="paper", y=1, yref="paper", showarrow=False, font=dict(size=13))
    want.update_xaxes(title="Utilisation", tickformat=".0%", range=[0.05, 1.0])
    want.update_yaxes(title=None, autorange="reversed")
    want.update_layout(height=400, title=None, legend=dict(orientation="h", y=1.01), font_size=20,
                       hoverlabel_font_size=18, margin=dict(l=10, t=90))
    want.update_layout(margin_t=120, legend=dict(yref="paper"))
    want.update_annotations(font_size=18)

    got = Fig()
    got.add_trace(trace("bar", x=x, y=["a", "b", "c"], orientation="h", marker_color="#2563eb",
                        marker_line=dict(width=1, color="white"), customdata=np.array([1.0, 2.0, 3.0]),
                        hovertemplate="%{y}<extra></extra>", name="bars"))
    got.add_trace(trace("scatter", x=x, y=x * 2, mode="lines", line=dict(color="#111827", dash="dot"), showlegend=False))
    got.add_vline(x=0.5, line_dash="dot", line_color="#374151", annotation_text="you: 50%",
                  annotation_position="bottom left")
    got.add_vline(x=0.7, line_color="#111827")
    got.add_annotation(text="note", x=1, xref="paper", y=1, yref="paper", showarrow=False, font=dict(size=13))
    got.update_xaxes(title="Utilisation", tickformat=".0%", range=[0.05, 1.0])
    got.update_yaxes(title=None, autorange="reversed")
    got.update_layout(height=400, title=None, legend=dict(orientation="h", y=1.01), font_size=20,
                      hoverlabel_font_size=18, margin=dict(l=10, t=90))
    got.update_layout(margin_t=120, legend=dict(yref="paper"))
    got.update_annotations(font_size=18)
    assert _spec(got.figure()) == _spec(want)


@pytest.mark.parametrize("kwargs", [dict(specs=[[{"secondary_y": True}]]),
                                    dict(rows=1, cols=3, subplot_titles=["a", "b", "c"], shared_yaxes=True,
                                         horizontal_spacing=0.04)])
def test_subplots_equal_make_subplots(kwargs):
    want, got = make_subplots(**kwargs), Fig.subplots(**kwargs)
    cells = [(1, c) for c in range(1, kwargs.get("cols", 1) + 1)]
    for fig, make in ((want, go.Bar), (got, lambda **kw: trace("bar", **kw))):
        for row, col in cells:
            fig.add_trace(make(x=["p", "q"], y=[row, col]), row=row, col=col)
        if "specs" in kwargs:
            fig.add_trace(make(x=["p", "q"], y=[3, 4]), row=1, col=1, secondary_y=True)
            fig.update_yaxes(title="right", range=[0, 5], secondary_y=True)
            fig.update_yaxes(title="left", secondary_y=False)
        fig.update_yaxes(autorange="reversed")
        fig.update_annotations(font_size=14)
    assert _spec(got.figure()) == _spec(want)


@pytest.mark.parametrize("page,present", [("app_pages/home.py", False), ("app_pages/tco.py", False),
                                          ("app_pages/tco.py", True), ("app_pages/workload.py", False),
                                          ("app_pages/scoring.py", True), ("app_pages/placement.py", False),
                                          ("app_pages/providers.py", True)])
def test_every_figure_a_page_sends_passes_plotlys_validation_unchanged(catalog_path, page, present):
    at = open_page("app_pages/home.py")
    at.session_state["_presentation"] = present
    at.run()
    if page != "app_pages/home.py":
        at.switch_page(page).run()
    assert not at.exception, at.exception
    specs = [json.loads(e.proto.spec) for e in at.get("plotly_chart")]
    assert specs, "the page drew no chart"
    for spec in specs:
        validated = go.Figure(spec)  # raises on a property plotly does not know or a value it refuses
        assert _pruned(_spec(validated)) == _pruned(spec)
