"""Plotly figures built as plain dicts, then handed to plotly once without its property validation (issue #31).

plotly's graph objects validate and re-parse every property on every ``add_trace``, ``update_layout``,
``update_xaxes`` and ``add_vline``: about 20 ms of CPU for one ordinary chart on the reference machine, the top
leaf of a loaded server's profile. The chart builders (``ui/*charts.py``) describe their figures with the few
calls below instead, on dicts, with plotly's names and its ``marker_color`` shorthand; :meth:`Fig.figure` makes
the ``go.Figure`` in one step with validation off (the data is ours). ``tests/app/test_figspec.py`` checks that
every page's figures pass plotly's validation unchanged and that these calls build what plotly's own calls
build; ``bench/figure_equivalence.py`` compares every builder's JSON with another checkout's on the pages'
real inputs.
"""

from __future__ import annotations

import copy
import re
from functools import lru_cache

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from plotly import shapeannotation
from plotly.basedatatypes import BaseFigure

#: Property names that contain an underscore (``error_x``, ``plot_bgcolor``): not split into a path.
_UNDERSCORE = dict(BaseFigure._valid_underscore_properties)


@lru_cache(maxsize=2048)
def _path(key: str) -> tuple[str, ...]:
    """``marker_line_color`` -> ("marker", "line", "color"), as plotly reads its magic-underscore names."""
    for under, hyphen in _UNDERSCORE.items():
        key = key.replace(under, hyphen)
    return tuple(part.replace("-", "_") for part in key.split("_"))


def _value(key: str, value):
    """A value as plotly's validators store it: pandas data as numpy arrays, a title given as text as
    ``{"text": ...}``, nested dicts with their own shorthand names expanded."""
    if isinstance(value, (pd.Series, pd.Index)):
        return value.to_numpy()
    if isinstance(value, dict):
        return props(value)
    if key == "title" and isinstance(value, str):
        return {"text": value}
    if isinstance(value, tuple):
        return list(value)
    return value


#: Properties that plotly resets to an empty object (not removes) when an update sets them to None.
_EMPTY_ON_NONE = {"title"}


def _merge(target: dict, path: tuple[str, ...], value, unset: bool = False) -> None:
    for key in path[:-1]:
        nested = target.get(key)
        if not isinstance(nested, dict):
            nested = target[key] = {}
        target = nested
    key = path[-1]
    if value is None:  # plotly: None unsets a property (an update leaves a title as an empty object)
        if unset and key in _EMPTY_ON_NONE:
            target[key] = {}
        else:
            target.pop(key, None)
    elif isinstance(value, dict) and isinstance(target.get(key), dict):
        for k, v in value.items():
            _merge(target[key], (k,), v, unset)
    else:
        target[key] = value


def props(kw: dict) -> dict:
    """Keyword properties as a nested dict (shorthand names expanded, ``None`` left out)."""
    out: dict = {}
    for key, value in kw.items():
        if value is not None:
            path = _path(key)
            _merge(out, path, _value(path[-1], value))
    return out


def update(target: dict, kw: dict) -> dict:
    """``target`` updated in place the way plotly's ``update`` does: nested dicts merged, lists replaced."""
    for key, value in kw.items():
        path = _path(key)
        _merge(target, path, _value(path[-1], value), unset=True)
    return target


def trace(kind: str, **kw) -> dict:
    """One trace: ``trace("bar", x=..., marker_color=...)`` is ``go.Bar(x=..., marker_color=...)`` as a dict."""
    return {"type": kind, **props(kw)}


@lru_cache(maxsize=16)
def _subplots(spec: str) -> tuple[dict, dict, set[str]]:
    """make_subplots' layout (axes, domains, subplot titles), its (row, col, secondary) -> trace axes, and its
    secondary y axes; built once per distinct call (``spec`` is its keyword arguments, repr'd)."""
    from plotly.subplots import make_subplots

    fig = make_subplots(**eval(spec, {"__builtins__": {}}))  # noqa: S307 (our own repr of literals)
    layout = fig.to_plotly_json()["layout"]
    layout.pop("template", None)
    refs: dict[tuple[int, int, bool], dict] = {}
    secondary: set[str] = set()
    for r, row in enumerate(fig._grid_ref, start=1):
        for c, cell in enumerate(row, start=1):
            for s, ref in enumerate(cell or ()):
                refs[(r, c, bool(s))] = dict(ref.trace_kwargs)
                if s:
                    secondary.update(k for k in ref.layout_keys if k.startswith("yaxis"))
    return layout, refs, secondary


class Fig:
    """A figure under construction: ``data`` (trace dicts) and ``layout`` (a dict), changed with the names of
    plotly's own methods; :meth:`figure` makes the ``go.Figure``."""

    def __init__(self, *traces: dict) -> None:
        self.data: list[dict] = list(traces)
        self.layout: dict = {}
        self._refs: dict = {}
        self._secondary: set[str] = set()

    @classmethod
    def subplots(cls, **kwargs) -> Fig:
        """``plotly.subplots.make_subplots(**kwargs)`` (literal arguments only)."""
        fig = cls()
        layout, fig._refs, fig._secondary = _subplots(repr(dict(sorted(kwargs.items()))))
        fig.layout = copy.deepcopy(layout)
        return fig

    def add_trace(self, tr: dict, row: int | None = None, col: int | None = None,
                  secondary_y: bool | None = None) -> Fig:
        if row is not None or secondary_y is not None:
            tr.update(self._refs[(row or 1, col or 1, bool(secondary_y))])
        self.data.append(tr)
        return self

    def update_layout(self, **kw) -> Fig:
        update(self.layout, kw)
        return self

    def _axes(self, prefix: str, secondary_y: bool | None) -> list[str]:
        keys = sorted((k for k in self.layout if re.fullmatch(prefix + r"\d*", k)),
                      key=lambda k: int(k[len(prefix):] or 1)) or [prefix]
        if secondary_y is not None:
            keys = [k for k in keys if (k in self._secondary) == secondary_y]
        return keys

    def update_xaxes(self, **kw) -> Fig:
        for key in self._axes("xaxis", None):
            update(self.layout.setdefault(key, {}), kw)
        return self

    def update_yaxes(self, secondary_y: bool | None = None, **kw) -> Fig:
        for key in self._axes("yaxis", secondary_y):
            update(self.layout.setdefault(key, {}), kw)
        return self

    def add_annotation(self, **kw) -> Fig:
        self.layout.setdefault("annotations", []).append(props(kw))
        return self

    def update_annotations(self, **kw) -> Fig:
        for annotation in self.layout.get("annotations", []):
            update(annotation, kw)
        return self

    def add_vline(self, x: float, **kw) -> Fig:
        """A vertical line across the plot at ``x`` (``line_*`` its look, ``annotation_*`` its label), as
        plotly's ``add_vline`` draws it on a figure without subplots."""
        shape_kw = {k: v for k, v in kw.items() if not k.startswith("annotation_")}
        label_kw = {k: v for k, v in kw.items() if k.startswith("annotation_")}
        args = dict(type="line", x0=x, x1=x, y0=0, y1=1)
        shape = props({**args, **shape_kw})
        shape.setdefault("xref", "x")
        shape["yref"] = shape.get("yref", "y") + " domain"
        self.layout.setdefault("shapes", []).append(shape)
        label = shapeannotation.axis_spanning_shape_annotation(None, "vline", args, label_kw)
        if label is not None:
            label = props(label)
            label.setdefault("xref", "x")
            label["yref"] = shape_kw.get("yref", "y") + " domain"
            self.layout.setdefault("annotations", []).append(label)
        return self

    def figure(self) -> go.Figure:
        """The plotly figure, built once without re-validating our own properties."""
        layout = self.layout if "template" in self.layout else {"template": _template(), **self.layout}
        return go.Figure(data=self.data, layout=layout, _validate=False)


def _template():
    return pio.templates[pio.templates.default] if pio.templates.default else None


__all__ = ["Fig", "props", "trace", "update"]
