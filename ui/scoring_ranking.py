"""Ranking of the Provider scoring page: the engine (:mod:`engine.scoring`) ranks catalog offers on weighted
criteria after the hard constraints and the missing-data rule; this module caches that ranking, the constraint funnel
and the weight Monte Carlo per input, and the figures built from them.
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from engine.adapters import build_decision_matrix
from engine.scope import scope_constraints
from engine.scoring import (
    Constraints,
    DecisionMatrix,
    MonteCarloResult,
    ScoringResult,
    Weights,
    apply_constraints,
    monte_carlo_weights,
    rank_alternatives,
)
from ui import offer_scope
from ui import scoring_charts as charts
from ui.quotes import catalog_key, offers_with_quotes
from ui.scenario import ScoringSection

N_SAMPLES = 1_000
#: The like-for-like scope narrows first in the funnel: which offers can do the job, then the client's rules.
SCOPE_FIRST = ("gpu_models", "min_memory_gb_per_gpu", "exclude_price_outliers")


def short_label(text: str, width: int = 46) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def chart_labels(result: ScoringResult, positions: np.ndarray, width: int = 46) -> list[str]:
    return [f"#{result.ranks[i]} {short_label(result.labels[i], width)}" for i in positions]


# --------------------------------------------------------------------------------------------------
# Ranking (cached per catalog version, exchange rate, day and input)
# --------------------------------------------------------------------------------------------------


class FunnelStep(NamedTuple):
    """One hard constraint, applied after the ones before it."""

    constraint: str
    n_before: int
    n_removed: int
    reasons: tuple[tuple[str, int], ...]  # (reason, offers) among the offers this step removed


class Scored(NamedTuple):
    key: tuple  # catalog key and section: identifies the ranking in the figure cache
    result: ScoringResult
    offers: pd.DataFrame  # catalog rows of the ranked offers, in the result's order (index offer_id)
    n_offers: int
    funnel: tuple[FunnelStep, ...]


def _reason_kind(reason: str) -> str:
    """'EU data centre: no (outside the EU/EEA)' -> 'outside the EU/EEA'; prices -> 'above the maximum'."""
    if reason.startswith("price ") and "above" in reason:
        return "above the maximum"
    if reason.startswith("memory ") and "below" in reason:
        return "too little memory"
    if reason.startswith("price outlier"):
        return "price outlier"
    if reason.startswith("GPU class: "):  # 'GPU class: L4, not H100 or H200' -> 'L4' (the class is in the label)
        return reason.removeprefix("GPU class: ").split(", not ")[0]
    detail = reason.split(": ", 1)[1] if ": " in reason else reason
    return detail[4:-1] if detail.startswith("no (") and detail.endswith(")") else detail


def effective_constraints(section: ScoringSection) -> Constraints:
    """The section's hard constraints narrowed by its like-for-like scope (GPU class, memory, outliers)."""
    return scope_constraints(section.scope, None, section.constraints)


@st.cache_data(ttl=600, max_entries=16, show_spinner=False)
def _matrix(_frame: pd.DataFrame, catalog_key: tuple, price_basis: str) -> DecisionMatrix:
    """The decision matrix of the catalog's offers (``catalog_key``, its day the data age's reference) on one price
    basis: the same for every weight, method and constraint (#31)."""
    labelled = _frame.assign(offer_label=offer_scope.picker_labels(_frame, flags=False))
    return build_decision_matrix(labelled, price_basis=price_basis, reference_date=catalog_key[-1],
                                 label_columns=("offer_label",))


@st.cache_data(ttl=600, max_entries=64, show_spinner=False)
def _rank(_frame: pd.DataFrame, catalog_key: tuple, section_json: str) -> Scored:
    s = ScoringSection.model_validate_json(section_json)
    constraints = effective_constraints(s)
    matrix = _matrix(_frame, catalog_key, s.price_basis)
    result = rank_alternatives(matrix, Weights(values=s.points()), method=s.method, constraints=constraints,
                               missing=s.missing)
    funnel = _funnel(matrix, catalog_key, s.price_basis, constraints)
    rows = _frame.set_index("offer_id").loc[list(result.ids)]
    return Scored((*catalog_key, section_json), result, rows, len(matrix.ids), funnel)


@st.cache_data(ttl=600, max_entries=64, show_spinner=False)
def _funnel(_matrix: DecisionMatrix, catalog_key: tuple, price_basis: str,
            constraints: Constraints) -> tuple[FunnelStep, ...]:
    """Offers removed by each active constraint in turn (the matrix is the catalog's on ``price_basis``): the same
    for every weight and method (#31)."""
    funnel, keep = [], np.ones(len(_matrix.ids), dtype=bool)
    active = constraints.active()
    for name in [n for n in SCOPE_FIRST if n in active] + [n for n in active if n not in SCOPE_FIRST]:
        passed, why = apply_constraints(_matrix, Constraints(**{name: getattr(constraints, name)}))
        removed = keep & ~passed
        kinds = Counter(_reason_kind(why[int(i)][0]) for i in np.flatnonzero(removed))
        funnel.append(FunnelStep(name, int(keep.sum()), int(removed.sum()), tuple(kinds.most_common())))
        keep &= passed
    return tuple(funnel)


def score(section: ScoringSection, usd_per_eur: float) -> Scored:
    frame = offers_with_quotes(usd_per_eur)  # the catalog plus the workspace's quotes (issue #29.7)
    return _rank(frame, catalog_key(usd_per_eur), section.model_dump_json())


@st.cache_data(ttl=600, max_entries=32, show_spinner=False)
def _monte_carlo(filled: np.ndarray, objectives: np.ndarray, weights: np.ndarray, concentration: float,
                 method: str) -> MonteCarloResult:
    return monte_carlo_weights(filled, objectives, weights, concentration=concentration, n_samples=N_SAMPLES, seed=0,
                               method=method)


def monte_carlo(result: ScoringResult, concentration: float) -> MonteCarloResult:
    """Probability of each rank over 1,000 Dirichlet weight draws around the chosen weights (seed 0)."""
    return _monte_carlo(result.filled, result.objectives, result.weights, concentration, result.method.value)


class Figures(NamedTuple):
    contributions: go.Figure
    radar: go.Figure
    intervals: go.Figure | None  # weighted sum, two or more offers and a weighted criterion that separates them
    p_first: go.Figure


@st.cache_resource(ttl=600, max_entries=64, show_spinner=False)
def _ranking_figures(_scored: Scored, key: tuple) -> tuple[go.Figure, go.Figure, go.Figure | None]:
    # cache_resource: the figures are handed out as they are (st.plotly_chart copies, never mutates, a figure),
    # which saves rebuilding and re-validating them on every rerun with the same inputs.
    r = _scored.result
    top5, top3 = r.order[:5], r.order[:3]
    separating = any(w > 0 and c.name not in r.uninformative for w, c in zip(r.weights, r.criteria, strict=True))
    intervals = (charts.stability_intervals(r, _rank_labels(r)) if r.stability is not None and len(r.ids) > 1
                 and separating else None)
    return (charts.contributions(r, top5, chart_labels(r, top5, 40)), charts.radar(r, top3, chart_labels(r, top3, 34)),
            intervals)


@st.cache_resource(ttl=600, max_entries=64, show_spinner=False)
def _p_first_figure(_scored: Scored, _mc: MonteCarloResult, key: tuple) -> go.Figure:
    return charts.p_first(_scored.result, _mc, _rank_labels(_scored.result))


def figures(scored: Scored, mc: MonteCarloResult) -> Figures:
    """The page's four charts, cached per ranking (and concentration for the Monte Carlo chart)."""
    big = charts.presenting()  # presentation mode draws larger chart text: a figure of its own
    return Figures(*_ranking_figures(scored, (*scored.key, big)),
                   _p_first_figure(scored, mc, (*scored.key, mc.concentration, big)))


def _rank_labels(result: ScoringResult) -> dict[int, str]:
    return dict(zip(result.order.tolist(), chart_labels(result, result.order, 44), strict=True))
