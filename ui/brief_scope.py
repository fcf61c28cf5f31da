"""What the client brief asks of the catalog's offers, in one place for every page (issue #27.3, #27.4, #27.17).

* :func:`brief_constraints` turns the brief into one :class:`engine.scoring.Constraints`: GPU class, the brief's
  model as a full fine-tune sharded over its GPUs (engine.scope memory rule), EU/EEA data centre, EU parent,
  EU/EEA legal seat and every required certification *within its scope* (a certificate counts for an offer only
  where its scope covers GPU compute and the offer's data-centre country: catalog ``certifications_in_scope``).
* :func:`meets_brief` applies them with the one filter implementation (:func:`ui.offer_scope.filter_offers`);
  a single marketplace host's listing never meets a brief (a price observation, not an offer for its GPUs).
  "Offers meeting the brief" is this mask everywhere: banners, Providers, the Rent-or-own offer picker, the
  PDF's shortlist.
* :func:`nearest_alternatives`: when nothing meets the brief, how many offers and which providers would
  qualify with one item relaxed (each certification dropped, EU parent dropped, legal seat dropped, EU data
  centre dropped, GPU class widened to any GPU, model fit dropped).
* :func:`not_applied`: for each page, the brief's items the page does not apply and why (shown in its banner).
* :func:`brief_workload`: the brief as a Placement portfolio of one workload.
* :func:`removed_by`: for an empty venue list, which rule removed how many offers (Placement's error).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.adapters import is_single_host_listing
from engine.placement import MAX_WORKLOAD_GPUS, Workload
from engine.scope import OfferScope, Residency, WorkloadFit, scope_constraints
from engine.scoring import Constraints
from ui import offer_scope
from ui.format import plain
from ui.labels import BRIEF_RULE_LABELS
from ui.scenario import ClientBrief, Scenario

#: Every item of the brief, as the banners name them.
ITEMS = ("GPU class", "model fit", "GPUs", "horizon", "utilisation", "EU data centre", "EU parent", "EU legal seat",
         "certifications")


def brief_constraints(brief: ClientBrief) -> Constraints:
    """The brief as hard constraints (outlier prices are not a brief item: they are kept here)."""
    fit = (WorkloadFit(model_params_b=brief.model_params_billion, use="training", n_gpus=brief.cluster_gpus)
           if brief.model_params_billion else None)
    scope = OfferScope(gpu_models=brief.gpu_models, fit=fit, include_price_outliers=True)
    return scope_constraints(scope, offer_scope.residency_from_brief(brief))


def meets_brief(frame: pd.DataFrame, brief: ClientBrief) -> np.ndarray:
    """Which rows of a catalog offers frame meet every item of the brief that concerns an offer (bool mask)."""
    if frame.empty:
        return np.zeros(0, dtype=bool)
    keep, _ = offer_scope.filter_offers(frame, brief_constraints(brief), ())
    # One marketplace host's listing on one day is a price observation, not an offer the client can contract for
    # the brief's GPUs (engine.adapters.is_single_host_listing): it never meets a brief (nor is a Placement venue).
    single = is_single_host_listing(frame) if "region" in frame.columns else np.zeros(len(frame), dtype=bool)
    return np.asarray(keep, dtype=bool) & ~single


def offers_meeting_brief(frame: pd.DataFrame, brief: ClientBrief) -> pd.DataFrame:
    """The rows of ``frame`` meeting the brief (index kept)."""
    return frame[meets_brief(frame, brief)]


@dataclass(frozen=True)
class Alternative:
    """The brief with one item relaxed, and who would then qualify."""

    relaxed: str  # "without BSI-C5", "without the EU-parent rule", "any GPU class"
    n_offers: int
    providers: tuple[str, ...]  # provider names, alphabetical


def relaxations(brief: ClientBrief) -> list[tuple[str, ClientBrief]]:
    """Each way to relax the brief by one item (a required certification, an EU rule, the GPU class, the model
    fit), as (label, relaxed brief)."""
    out: list[tuple[str, ClientBrief]] = []
    certs = brief.required_certifications
    for cert in certs:
        out.append((f"without {cert}", brief.model_copy(update={
            "required_certifications": tuple(c for c in certs if c != cert)})))
    if brief.eu_jurisdiction_only:
        out.append(("without the EU-parent rule", brief.model_copy(update={"eu_jurisdiction_only": False})))
    if brief.eu_legal_seat_only:
        out.append(("without the EU legal-seat rule", brief.model_copy(update={"eu_legal_seat_only": False})))
    if brief.eu_resident_only:
        out.append(("without the EU data-centre rule", brief.model_copy(update={"eu_resident_only": False})))
    if brief.gpu_models:
        out.append(("any GPU class (model fit kept)", brief.model_copy(update={"gpu_class": "Any GPU"})))
    if brief.model_params_billion:
        out.append(("without the model-fit rule", brief.model_copy(update={"model_params_billion": None})))
    return out


def nearest_alternatives(frame: pd.DataFrame, brief: ClientBrief) -> list[Alternative]:
    """For each single item of the brief relaxed: how many offers and which providers would meet the rest."""
    out = []
    for label, relaxed in relaxations(brief):
        rows = offers_meeting_brief(frame, relaxed)
        out.append(Alternative(label, len(rows), tuple(sorted(set(rows["provider_name"].astype(str)), key=str.lower))))
    return out


def alternatives_markdown(alternatives: list[Alternative], *, markdown: bool = True) -> str:
    """One bullet per relaxed item: '- without BSI-C5: 12 offers from Nebius, Scaleway, Seeweb, Verda'."""
    text = plain if markdown else str
    lines = []
    for a in alternatives:
        who = f"{a.n_offers} offer{'s' * (a.n_offers != 1)} from {', '.join(text(p) for p in a.providers)}" \
            if a.n_offers else "still no offer"
        lines.append(f"- {text(a.relaxed)}: {who}")
    return "\n".join(lines)


def nothing_meets_message(frame: pd.DataFrame, brief: ClientBrief) -> str | None:
    """Markdown saying no offer meets the brief and what would, or None when some offer meets it."""
    if meets_brief(frame, brief).any():
        return None
    alternatives = nearest_alternatives(frame, brief)
    best = [a for a in alternatives if a.n_offers]
    lead = ("**No offer in the catalog meets the whole brief.** Nearest alternatives, one item relaxed at a time:"
            if best else "**No offer in the catalog meets the whole brief, and relaxing any one item does not help.**")
    return lead + ("\n\n" + alternatives_markdown(alternatives) if alternatives else "")


# --------------------------------------------------------------------------------------------------
# What each page does not apply, and why
# --------------------------------------------------------------------------------------------------


def not_applied(page: str, scenario: Scenario) -> list[tuple[str, str]]:
    """(item, why) for each brief item ``page`` does not apply; items a page applies are not listed."""
    brief = scenario.brief
    out: list[tuple[str, str]] = []
    if page == "providers":
        out.append(("GPUs, horizon, utilisation", "a price list has no cluster size, term or load (Rent or own "
                                                   "applies them)"))
        if brief.model_params_billion:
            out.append(("model fit", "the list shows every memory size (Scoring and Workload cost check the fit)"))
    elif page == "tco":
        out.append(("GPU class, model fit, EU data centre, EU parent, legal seat, certifications",
                    "applied to the offer picker only: owned hardware runs where you put it"))
    elif page == "workload":
        out.append(("horizon", "a job or a day of serving costs the same whatever the horizon"))
        if scenario.workload.mode == "training":
            out.append(("utilisation", "a training job keeps its GPUs busy while it runs"))
        else:
            out.append(("GPUs", "serving sizes its replicas from the tokens per day"))
        if brief.model_params_billion and abs(scenario.workload.training.n_params / 1e9
                                              - brief.model_params_billion) > 0.5:
            out.append(("model fit", "the page checks the memory of its own model "
                                     f"({scenario.workload.training.n_params / 1e9:g}B), not the brief's"))
    elif page == "scoring":
        out.append(("horizon, utilisation", "a ranking of offers has no term or load (Rent or own applies them)"))
    elif page == "placement":
        out.append(("horizon", "the plan covers one year of demand; commitments run 1 or 3 years"))
    return out


def not_applied_text(items: list[tuple[str, str]]) -> str:
    return "; ".join(f"{item} ({why})" for item, why in items)


# --------------------------------------------------------------------------------------------------
# Placement: the brief as a portfolio, and what removed the venues
# --------------------------------------------------------------------------------------------------

#: Name of the brief's workload in a Placement portfolio.
BRIEF_WORKLOAD = "client-brief"


def brief_workload(brief: ClientBrief) -> Workload:
    """The brief as one Placement workload: its GPUs at peak, busy ``utilisation x 24`` hours a day (rounded down,
    at least 1), mean = GPUs x utilisation; EU data centre and EU parent as the brief says; the model's memory
    need as the minimum memory per GPU. GPU class, legal seat and certifications are portfolio-wide rules. A brief
    larger than the per-workload bound of the placement (:data:`engine.placement.MAX_WORKLOAD_GPUS`, issue #28.1) is
    planned at that bound."""
    gpus = min(float(brief.cluster_gpus), float(MAX_WORKLOAD_GPUS))
    hours = max(1, min(24, int(brief.utilisation_fraction * 24)))
    mean = max(gpus * brief.utilisation_fraction, gpus * hours / 24)
    fit = brief_constraints(brief).min_memory_gb_per_gpu
    return Workload(name=BRIEF_WORKLOAD, kind="training", mean_gpus=round(mean, 2), peak_gpus=gpus,
                    busy_hours_per_day=hours, min_gpu_memory_gb=round(fit, 1) if fit else 0.0,
                    may_leave_eu=not brief.eu_resident_only, eu_jurisdiction_required=brief.eu_jurisdiction_only)


def removed_by(frame: pd.DataFrame, constraints: Constraints) -> list[tuple[str, int]]:
    """For each active rule of ``constraints``: how many of ``frame``'s offers it removes on its own."""
    out = []
    for name in constraints.active():
        if name == "exclude_price_outliers":
            continue
        only = Constraints().model_copy(update={name: getattr(constraints, name)})
        keep, _ = offer_scope.filter_offers(frame, only, ())
        out.append((BRIEF_RULE_LABELS.get(name, name.replace("_", " ")) + _value(constraints, name), int((~keep).sum())))
    return out




def _value(constraints: Constraints, name: str) -> str:
    if name == "required_certifications":
        return " " + " + ".join(constraints.required_certifications) + " (in scope)"
    if name == "gpu_models":
        return " " + " / ".join(constraints.gpu_models)
    if name == "min_memory_gb_per_gpu":
        return f" ≥ {constraints.min_memory_gb_per_gpu:.0f} GB"
    return ""


def no_venue_message(catalog: pd.DataFrame, constraints: Constraints) -> str:
    """Markdown naming the rules that leave no venue: each rule with the offers it removes on its own, the rules
    that remove every offer first ('certified BSI-C5 (in scope) removes all 258')."""
    counts = sorted(removed_by(catalog, constraints), key=lambda rc: -rc[1])
    n = len(catalog)
    parts = [f"{plain(rule)} removes {'all ' if k == n else ''}{k}" + ("" if k == n else f" of {n}") for rule, k in counts]
    return ("**The client-wide venue rules leave no catalog offer to place the workloads on.** On its own, "
            + "; ".join(parts) + ". Relax the rule that removes the most (in the venue rules below, or with "
            "'Use the brief here' after changing the brief on Home).")


def residency_of(scenario: Scenario, page: str) -> Residency:
    """The residency ``page`` uses (scoped pages), for banners and messages."""
    return offer_scope.page_scope(scenario, page)[1]
