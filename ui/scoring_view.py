"""Words and tables of the Provider scoring page (kept here so the page stays thin): the verdict in plain
language, the constraint funnel (which constraint removed how many offers, and why), the ranked table with missing
values shown as "not stated", the excluded offers with their reasons, and the assumptions. Prices stay in EUR until
the last step (:mod:`ui.format`). The inputs are :mod:`ui.scoring_inputs`, the ranking :mod:`ui.scoring_ranking`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from catalog.store import STALE_AFTER_DAYS
from engine.scoring import (
    Criterion,
    MonteCarloResult,
    Objective,
    ScoringResult,
    rank,
)
from ui import offer_scope
from ui.format import assumption_table, money, plain
from ui.labels import SCORING_BASIS_LABELS, SCORING_CONSTRAINT_LABELS, criterion_label
from ui.scenario import DisplaySettings
from ui.scoring_inputs import MISSING_EXPLAIN
from ui.scoring_ranking import Scored

#: Criterion -> catalog column whose text is shown in the table (categories read better than their scores).
FACT_COLUMN = {
    "intra_node_score": "intra_node", "inter_node_fabric_score": "inter_node", "memory_type_score": "memory_type",
    "performance_sla_score": "performance_sla", "support_score": "support_model",
    "jurisdiction_score": "parent_jurisdiction", "min_commitment_months": "min_commitment",
    "burst_capacity_score": "burst_capacity", "verification_score": "verification_status",
}
NOT_STATED = "not stated"


# --------------------------------------------------------------------------------------------------
# Words
# --------------------------------------------------------------------------------------------------


def funnel_text(scored: Scored, display: DisplaySettings) -> str:
    """Markdown list: each active constraint, how many offers it removed and why, in the order applied."""
    cons = scored.result.constraints
    lines = []
    for step in scored.funnel:
        label = SCORING_CONSTRAINT_LABELS[step.constraint]
        if step.constraint == "max_price_eur_per_gpu_hour":
            label += f" {money(cons.max_price_eur_per_gpu_hour, display)}"
        elif step.constraint == "gpu_models":
            label += f": {' or '.join(plain(m) for m in cons.gpu_models)}"
        elif step.constraint == "min_memory_gb_per_gpu":
            label += f" at least {cons.min_memory_gb_per_gpu:.0f} GB"
        why = " · ".join(f"{n} {plain(r)}" for r, n in step.reasons)  # reasons name values from the link
        lines.append(f"- **{label}**: removes {step.n_removed} of {step.n_before}" + (f" ({why})" if why else "")
                     + f" → {step.n_before - step.n_removed} left")
    n_missing = sum(e.stage == "missing data" for e in scored.result.excluded)
    if n_missing:
        lines.append(f"- **Missing-data rule** (leave the offer out): removes {n_missing} that do not state a weighted "
                     "criterion")
    return "\n".join(lines)


def nothing_ranked(scored: Scored, display: DisplaySettings) -> str:
    return (f"**No offer is left to rank.** The catalog has {scored.n_offers} offers; the hard constraints are applied "
            f"in this order:\n\n{funnel_text(scored, display)}\n\nA fact the catalog does not state fails the "
            "constraint: a constraint is never passed on missing data. Switch a constraint off above to see the "
            "offers it blocks; every excluded offer is listed below with its reasons.")


def verdict(scored: Scored, mc: MonteCarloResult, display: DisplaySettings) -> str:
    """The answer in plain language: who wins, why, and how stable that is."""
    r = scored.result
    order = r.order
    top = int(order[0])
    w = r.weights
    a = r.normalised * w  # weighted-sum contributions (the additive view, also for TOPSIS)
    name = f"**#1 {r.labels[top]}**"
    method = "weighted-sum score" if r.method.value == "weighted_sum" else "TOPSIS closeness"
    text = f"{name} wins with a {method} of **{r.scores[top]:.3f}**"
    if len(order) > 1:
        second = int(order[1])
        diff = a[top] - a[second]
        leads = [j for j in np.argsort(-diff) if diff[j] > 1e-9][:2]
        behind = [j for j in np.argsort(diff) if diff[j] < -1e-9][:1]
        tie = " (a tie)" if r.scores[top] == r.scores[second] else ""
        text += f" against {r.scores[second]:.3f} for #2 {r.labels[second]}{tie}"
        if leads:
            text += " because it is better on " + " and ".join(
                f"**{r.criteria[j].label}** (+{diff[j]:.3f})" for j in leads)
        if behind:
            j = behind[0]
            text += f"; #2 is better on {r.criteria[j].label} ({diff[j]:+.3f})"
    else:
        text += ": it is the only offer left after the constraints"
    text += ". "
    iv = r.stability
    if iv is not None and len(order) > 1:
        weighted = np.flatnonzero(w > 0)
        price = next(j for j, c in enumerate(r.criteria) if c.name == "price_eur_per_gpu_hour")
        margin = np.minimum(w - iv.lower, iv.upper - w)[weighted] / w[weighted]
        picks = [price] if w[price] > 0 else []
        fragile = int(weighted[int(np.argmin(margin))])
        if fragile not in picks:
            picks.append(fragile)
        of = " of the weight that counts" if r.uninformative else ""
        parts = [f"the weight of {r.criteria[j].label} is between **{max(iv.lower[j], 0.0) + 0.0:.0%} and {iv.upper[j]:.0%}** "
                 f"(now {w[j]:.0%}{of})" for j in picks]
        text += "It stays first while " + ", and while ".join(parts) + " (the other weights keep their proportions). "
    text += (f"It is first in **{mc.p_first[top]:.0%} of {mc.n_samples:,} weight draws** around these weights "
             f"(concentration {mc.concentration:g}).")
    row = scored.offers.iloc[top]
    age = offer_scope.price_age_days(row)
    if offer_scope.counts.is_stale_age(age):  # the one stale-price rule (catalog.counts)
        text += (f"\n\n⚠ **The #1's price is stale**: retrieved {offer_scope.price_date(row):%Y-%m-%d}, {age} days "
                 f"ago (more than {STALE_AFTER_DAYS}). Check it at the source before relying on it.")
    if offer_scope.is_true(row.get("price_outlier")):
        text += (f"\n\n⚠ **The #1's price is flagged as an outlier** ({row['price_outlier_reason']}); it is ranked "
                 "because you chose to use price outliers.")
    return text


def notes(scored: Scored) -> list[str]:
    """Caveats the ranking depends on: criteria that do not separate the offers, set dependence."""
    r = scored.result
    out = []
    if r.uninformative:
        out.append(f"**Inert: {r.inert_share:.0%} of your weight.** {len(r.uninformative)} weighted criteria separate "
                   f"none of the ranked offers (all equal, or stated by none of them): "
                   f"{', '.join(criterion_label(n) for n in r.uninformative)}. Their weight is not counted: the "
                   "scores, the verdict's weight ranges and the charts use the other criteria, rescaled to 100 % "
                   "(*the weight that counts*; see *Assumptions and criterion mappings*).")
    if r.stated_vs_not:
        out.append(f"Only one value is stated among the ranked offers for "
                   f"{', '.join(criterion_label(n) for n in r.stated_vs_not)}: an offer stating it scores best on "
                   "that criterion, one that does not state it scores worst (never equal).")
    if r.set_dependent_on:
        names = [r.labels[r.ids.index(i)] for i in r.set_dependent_on[:3]]
        out.append(f"Normalisation depends on the offers ranked: removing {' or '.join(names)}"
                   f"{' (or others)' if len(r.set_dependent_on) > 3 else ''} alone would change the #1.")
    return out


# --------------------------------------------------------------------------------------------------
# Tables and chart data
# --------------------------------------------------------------------------------------------------


def _facts(c: Criterion, values: np.ndarray, missing: np.ndarray, rows: pd.DataFrame,
           display: DisplaySettings) -> list[str]:
    """The stated value of criterion ``c`` for each row, as text; "not stated" where the catalog is silent."""
    if c.name in FACT_COLUMN:
        texts = rows[FACT_COLUMN[c.name]].astype(str).tolist()
    elif c.name == "price_eur_per_gpu_hour":
        texts = [money(v, display) for v in values]
    elif c.name == "allowed_downtime_hours_per_year":
        texts = [f"{u:g} % ({v:,.1f} h/yr)" for u, v in zip(rows["uptime_sla_pct"], values, strict=True)]
    elif c.name == "eu_residency_score":
        texts = ["yes" if v else "no" for v in values]
    else:
        fmt = {"inter_node_bandwidth_gbps_per_gpu": "{:,.0f} Gb/s", "memory_bandwidth_tbps": "{:.2f} TB/s",
               "data_age_days": "{:,.0f} days"}.get(c.name, "{:g}")
        texts = [fmt.format(v) for v in values]
    return [NOT_STATED if m else t for t, m in zip(texts, missing, strict=True)]


def ranking_table(scored: Scored, display: DisplaySettings) -> tuple[pd.DataFrame, dict]:
    """Ranked offers, best first: score bar, offer, price and the stated value of every weighted criterion."""
    r = scored.result
    order = r.order
    rows = scored.offers.iloc[order]
    price_j = next(j for j, c in enumerate(r.criteria) if c.name == "price_eur_per_gpu_hour")
    asked = r.requested_weights if r.requested_weights is not None else r.weights
    weighted = [int(j) for j in np.argsort(-asked, kind="stable") if asked[j] > 0 and j != price_j]
    n_missing = (r.missing & (asked > 0)).sum(axis=1)[order]

    def head(j: int) -> str:
        return r.criteria[j].label + (" (inert)" if r.criteria[j].name in r.uninformative else "")

    data = {
        "Rank": r.ranks[order], "Score": r.scores[order], "Provider": rows["provider_name"].to_numpy(),
        "GPU": (rows["gpu_model"] + " " + rows["form_factor"].fillna("")).str.strip().to_numpy(),
        "GPUs": [offer_scope.gpus_text(v).replace("node size not stated", NOT_STATED) for v in rows["gpus_per_node"]],
        "Region": rows["region"].fillna(NOT_STATED).to_numpy(),
        **{"Price" if j == price_j else head(j):
           _facts(r.criteria[j], r.values[order, j], r.missing[order, j], rows, display) for j in [price_j, *weighted]},
        "Not stated": [f"{n} of {int((asked > 0).sum())}" for n in n_missing],
        "Flags": [offer_scope.flags_text(row) or "—" for row in offer_scope.row_records(rows)],
        "Source": rows["source_url"].to_numpy(),
    }
    is_wsm = r.method.value == "weighted_sum"
    basis = next(str(a.value) for a in r.assumptions if a.name == "price_basis")
    config = {
        "Rank": st.column_config.NumberColumn("Rank", format="%d", pinned=True),
        "Score": st.column_config.ProgressColumn(
            "Score", min_value=0.0, max_value=1.0, format="%.3f", pinned=True,
            help="Weighted sum of min-max normalised criteria (1 = best on every weighted criterion)" if is_wsm
            else "TOPSIS closeness to the ideal (1 = the ideal, 0 = the worst on every criterion)"),
        "Price": st.column_config.TextColumn(f"Price ({display.currency}/GPU-h)",
                                             help=f"Effective price per GPU-hour: {SCORING_BASIS_LABELS[basis].lower()}"),
        "Not stated": st.column_config.TextColumn(
            "Not stated", help="Weighted criteria the catalog does not state for this offer; "
            + MISSING_EXPLAIN[r.missing_rule.value].lower()),
        "GPUs": st.column_config.TextColumn("GPUs/node", help="GPUs per node (instance) of the offer"),
        "Flags": st.column_config.TextColumn("Flags", help="⚠ price outlier (used only when you include outliers) · "
                                             f"⚠ stale price: retrieved more than {STALE_AFTER_DAYS} days ago"),
        "Source": st.column_config.LinkColumn("Source", display_text="source ↗"),
    }
    return pd.DataFrame(data), config


def provider_table(scored: Scored, display: DisplaySettings) -> tuple[pd.DataFrame, dict]:
    """One row per provider: its best-scoring offer among those ranked, providers ranked by that score."""
    r = scored.result
    order = r.order
    # Only the columns this table reads (the offers frame has about 60: copying them all cost ~30 ms a rerun; #31).
    cols = [c for c in ("provider_name", "source_url", *offer_scope.ROW_COLUMNS) if c in scored.offers.columns]
    rows = scored.offers.iloc[order][list(dict.fromkeys(cols))]
    price_j = next(j for j, c in enumerate(r.criteria) if c.name == "price_eur_per_gpu_hour")
    best = rows.assign(_score=r.scores[order], _rank=r.ranks[order], _price=r.values[order, price_j],
                       _n=rows.groupby("provider_name")["provider_name"].transform("size").to_numpy())
    best = best[~best["provider_name"].duplicated()]  # rows are best first: the first of each provider is its best
    score = best["_score"].to_numpy()
    data = {
        "Rank": rank(score), "Score": score, "Provider": best["provider_name"].to_numpy(),
        "Best offer": [offer_scope.picker_label(row, flags=False).split(" · ", 1)[1] for row in offer_scope.row_records(best)],
        "Offer rank": best["_rank"].to_numpy(),
        "Price": [money(v, display, missing=NOT_STATED) for v in best["_price"]],
        "Offers ranked": best["_n"].to_numpy(),
        "Flags": [offer_scope.flags_text(row) or "—" for row in offer_scope.row_records(best)],
        "Source": best["source_url"].to_numpy(),
    }
    basis = next(str(a.value) for a in r.assumptions if a.name == "price_basis")
    config = {
        "Rank": st.column_config.NumberColumn("Rank", format="%d", pinned=True),
        "Score": st.column_config.ProgressColumn("Score", min_value=0.0, max_value=1.0, format="%.3f", pinned=True,
                                                 help="The score of the provider's best offer (same scale as the "
                                                      "offer ranking)"),
        "Best offer": st.column_config.TextColumn("Best offer", width="medium"),
        "Offer rank": st.column_config.NumberColumn("Offer rank", format="%d", help="Its rank among all offers"),
        "Price": st.column_config.TextColumn(f"Price ({display.currency}/GPU-h)",
                                             help=f"Effective price: {SCORING_BASIS_LABELS[basis].lower()}"),
        "Offers ranked": st.column_config.NumberColumn("Offers ranked", format="%d",
                                                       help="This provider's offers that passed the constraints"),
        "Source": st.column_config.LinkColumn("Source", display_text="source ↗"),
    }
    return pd.DataFrame(data), config


def excluded_table(scored: Scored) -> pd.DataFrame:
    """Every offer left out, closest to passing first (fewest reasons): what one more stated fact would admit."""
    rows = sorted(scored.result.excluded, key=lambda e: (len(e.reasons), e.reasons, e.label))
    return pd.DataFrame([{"Offer": e.label, "Removed by": e.stage, "Reasons": "; ".join(e.reasons)} for e in rows],
                        columns=["Offer", "Removed by", "Reasons"])


def criteria_frame(result: ScoringResult, points: dict[str, float]) -> pd.DataFrame:
    """Every criterion: weight, direction, catalog source and how a category becomes a number."""
    asked = result.requested_weights if result.requested_weights is not None else result.weights

    def status(j: int, c: Criterion) -> str:
        if asked[j] <= 0:
            return "no weight"
        if c.name in result.uninformative:
            return "inert: separates no ranked offer"
        if c.name in result.stated_vs_not:
            return "stated vs not stated (one value stated)"
        return "separates offers"

    return pd.DataFrame([{
        "Criterion": c.label, "Unit": c.unit, "Better": "lower" if c.objective is Objective.MIN else "higher",
        "Points": points.get(c.name, 0.0), "Share": float(asked[j]), "Share used": float(result.weights[j]),
        "Status": status(j, c), "Catalog field": c.source, "Mapping": c.mapping_doc,
    } for j, c in enumerate(result.criteria)])


def assumptions_frame(result: ScoringResult) -> pd.DataFrame:
    """The ranking's assumptions (the one table builder, :func:`ui.format.assumption_table`)."""
    return assumption_table(a.row() for a in result.assumptions)
