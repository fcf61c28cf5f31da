"""Plotly builders of the Provider scoring page, in the shared style of :mod:`ui.charts`.

One colour per criterion across the contribution and stability charts. Builders take engine results and
labels prepared by :mod:`ui.scoring_ranking`; scores and weights are unitless.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from engine.scoring import CRITERIA, MonteCarloResult, ScoringResult
from ui.charts import MISSING, presenting, style
from ui.figspec import Fig, trace

#: 15 distinguishable colours, one per criterion in CRITERIA order (price first, in the app's blue).
CRITERION_COLOURS = dict(zip([c.name for c in CRITERIA], [
    "#2563eb", "#7c3aed", "#db2777", "#f472b6", "#0891b2", "#06b6d4", "#16a34a", "#84cc16", "#f59e0b",
    "#1e3a8a", "#4338ca", "#ea580c", "#facc15", "#64748b", "#a16207",
], strict=True))
RANK_COLOURS = ["#2563eb", "#f59e0b", "#10b981"]
TOP = "#2563eb"


def _weighted(result: ScoringResult) -> list[int]:
    """Weighted criteria, heaviest first."""
    return [int(j) for j in np.argsort(-result.weights, kind="stable") if result.weights[j] > 0]


def _wrap(text: str, width: int = 14) -> str:
    """Break ``text`` once, at the space nearest its middle, when it is longer than ``width`` characters."""
    if len(text) <= width or " " not in text:
        return text
    spaces = [i for i, ch in enumerate(text) if ch == " "]
    cut = min(spaces, key=lambda i: abs(i - len(text) / 2))
    return text[:cut] + "<br>" + text[cut + 1:]


def unique_labels(labels: list[str]) -> list[str]:
    """Labels made distinct: two offers may read the same (same provider, GPU and region; a tie even shares
    the rank), and plotly stacks bars with the same category into one. Repeats get " (2nd offer)", …"""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        n = seen[label]
        out.append(label if n == 1 else f"{label} ({n}{'nd' if n == 2 else 'rd' if n == 3 else 'th'} offer)")
    return out


def contributions(result: ScoringResult, positions: np.ndarray, labels: list[str]) -> go.Figure:
    """Stacked bars: each weighted criterion's part w_j a_ij of the weighted-sum score, for the offers at
    ``positions`` (best first). Criteria that do not separate the ranked offers add the same to everyone and
    are merged into one grey part. For TOPSIS the bars are the additive view of the same weights."""
    labels = unique_labels(list(labels))
    part = result.normalised[positions] * result.weights
    total = part.sum(axis=1)
    fig = Fig()
    flat = [j for j in _weighted(result) if result.criteria[j].name in result.uninformative]
    if flat:
        fig.add_trace(trace("bar",
            x=part[:, flat].sum(axis=1), y=labels, orientation="h", marker_color=MISSING,
            name=f"Same for every offer ({len(flat)} criteria)", marker_line=dict(width=1, color="white"),
            hovertemplate="%{y}<br>" + ", ".join(result.criteria[j].label for j in flat)
                          + ": %{x:.3f} (the same for every ranked offer)<extra></extra>",
        ))
    for j in _weighted(result):
        if j in flat:
            continue
        c = result.criteria[j]
        fig.add_trace(trace("bar",
            x=part[:, j], y=labels, orientation="h", name=c.label, marker_color=CRITERION_COLOURS[c.name],
            marker_line=dict(width=1, color="white"), customdata=np.full(len(labels), result.weights[j]),
            hovertemplate=f"%{{y}}<br>{c.label}: %{{x:.3f}} of %{{customdata:.3f}} possible<extra></extra>",
        ))
    prefix = "" if result.method.value == "weighted_sum" else "sum "  # TOPSIS: the bars are not its score
    fig.add_trace(trace("scatter", x=total, y=labels, mode="text", text=[f" {prefix}{t:.3f}" for t in total],
                             textposition="middle right", showlegend=False, hoverinfo="skip", cliponaxis=False,
                             textfont=dict(size=15, color="#1f2933")))
    fig.update_layout(barmode="stack", bargap=0.3)
    fig.update_xaxes(title="Part of the score (1 = best on every weighted criterion)", range=[0, 1.16],
                     tickvals=[0, 0.2, 0.4, 0.6, 0.8, 1.0])
    fig.update_yaxes(autorange="reversed", title=None)
    n_legend = len(fig.data) - 1
    fig = style(fig, height=200 + 58 * len(labels) + 24 * ((n_legend + 1) // 2),
                title="Why #1 wins: each criterion's part of the score")
    if not presenting():  # the projector keeps style()'s legend at the right
        fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.16, x=0, xanchor="left",
                                      font=dict(size=13), traceorder="normal"))
    return fig.figure()


def radar(result: ScoringResult, positions: np.ndarray, labels: list[str]) -> go.Figure:
    """The top offers over the weighted criteria that separate them (min-max normalised, 1 = best)."""
    axes = [j for j in _weighted(result) if result.criteria[j].name not in result.uninformative]
    if len(axes) < 3:
        axes = _weighted(result)
    # Axis names on two lines when long: at the left and right edges one long line was cut off.
    theta = [_wrap(result.criteria[j].label.split(" (")[0]) for j in axes]
    labels = unique_labels(list(labels))
    fig = Fig()
    for k, (i, label) in enumerate(zip(positions, labels, strict=True)):
        r = result.normalised[i, axes]
        fig.add_trace(trace("scatterpolar",
            r=[*r, r[0]], theta=[*theta, theta[0]], name=label, fill="toself", opacity=0.55,
            line=dict(color=RANK_COLOURS[k % 3], width=2.5), hovertemplate="%{theta}: %{r:.2f}<extra>" + label + "</extra>",
        ))
    fig.update_layout(polar=dict(radialaxis=dict(range=[0, 1], tickvals=[0.25, 0.5, 0.75, 1], tickfont=dict(size=11)),
                                 angularaxis=dict(tickfont=dict(size=13))))
    fig = style(fig, height=520, title="Top 3 on the criteria that separate them (1 = best)")
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.06, x=0, yref="paper"), margin=dict(l=100, r=100, b=10))
    if presenting():  # style()'s legend at the foot of the figure
        # the lower axis names (two lines at 18 px) hang below the circle: room for them above the legend (#27.15)
        fig.update_layout(height=680, legend=dict(yref="container", y=0, yanchor="bottom"), polar_domain_y=[0.12, 1])
    return fig.figure()


def stability_intervals(result: ScoringResult, rival_labels: dict[int, str]) -> go.Figure:
    """For each weighted criterion that separates the offers, the range of its weight (others rescaled in
    proportion) in which the #1 stays first; the diamond is the current weight. Criteria that do not separate
    the offers are left out: any weight of theirs keeps the #1 first."""
    iv = result.stability
    assert iv is not None, "drawn only for a ranking with stability intervals (ui.scoring_ranking)"
    js = [j for j in _weighted(result) if result.criteria[j].name not in result.uninformative][::-1]
    names = [result.criteria[j].label for j in js]
    lo, hi, w = iv.lower[js] * 100, iv.upper[js] * 100, iv.weights[js] * 100

    def who(rivals: np.ndarray) -> list[str]:
        return [rival_labels.get(int(p), "nobody") if p >= 0 else "nobody" for p in rivals]

    below, above = who(iv.lower_rival[js]), who(iv.upper_rival[js])
    lo, hi = np.clip(lo, 0, 100) + 0.0, np.clip(hi, 0, 100) + 0.0  # no "-0" from a bound at -1e-15
    fig = Fig()
    fig.add_trace(trace("bar",  # base: plotly sends an arbitrary-type property as a list, not a typed array
        x=hi - lo, base=lo.astype(object), y=names, orientation="h", name="#1 stays first",
        marker_color=[CRITERION_COLOURS[result.criteria[j].name] for j in js], opacity=0.45,
        customdata=np.stack([lo, hi, below, above], axis=-1),
        hovertemplate="%{y}: #1 stays first from %{customdata[0]:.0f} % to %{customdata[1]:.0f} %<br>"
                      "below: %{customdata[2]}<br>above: %{customdata[3]}<extra></extra>",
        text=[f"{a:.0f}–{b:.0f} %" for a, b in zip(lo, hi, strict=True)], textposition="outside", cliponaxis=False,
        textfont=dict(size=13),
    ))
    fig.add_trace(trace("scatter", x=w, y=names, mode="markers", name="current weight",
                             marker=dict(symbol="diamond", size=13, color="#111827", line=dict(width=1, color="white")),
                             hovertemplate="%{y}: weight now %{x:.0f} %<extra></extra>"))
    total = "% of the weight that counts" if result.uninformative else "% of the total"
    fig.update_xaxes(title=f"Weight of the criterion ({total})", range=[0, 122], ticksuffix=" %",
                     tickvals=[0, 20, 40, 60, 80, 100])
    fig.update_yaxes(title=None)
    return style(fig, height=150 + 40 * len(js), title="Weight range in which #1 stays first").figure()


def p_first(result: ScoringResult, mc: MonteCarloResult, labels: dict[int, str], top_n: int = 8) -> go.Figure:
    """Probability of first place over the weight draws, offers that were ever first (at most ``top_n``)."""
    order = [int(i) for i in np.argsort(-mc.p_first, kind="stable") if mc.p_first[i] > 0][:top_n]
    top = int(result.order[0])
    names = unique_labels([labels[i] for i in order])
    p = mc.p_first[order] * 100
    fig = Fig(trace("bar",
        x=p, y=names, orientation="h", marker_color=[TOP if i == top else MISSING for i in order],
        text=[f"{v:.0f} %" if v >= 0.5 else "<1 %" for v in p], textposition="outside", cliponaxis=False,
        hovertemplate="%{y}: first in %{x:.1f} % of draws<extra></extra>",
    ))
    fig.update_xaxes(title=f"First place in {mc.n_samples:,} weight draws (%)", range=[0, 112], ticksuffix=" %",
                     tickvals=[0, 20, 40, 60, 80, 100])
    fig.update_yaxes(autorange="reversed", title=None)
    return style(fig, height=150 + 40 * max(len(order), 2), title="Probability of first place").figure()
