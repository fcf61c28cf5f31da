"""The Workload page's results for the exports, each mode in its own units (issue #27.1).

Training: cost per job, days, GPU-hours, MFU, layout. Inference: cost per million tokens at the set load and at
the client's volume (paid GPU-hours ÷ tokens served), tokens per second, latency, GPUs needed, daily cost.
A scenario that computed both modes (:func:`ui.scenario.workload_modes`) exports both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from engine.assumptions import is_missing
from engine.money import from_eur
from ui.format import display_in, money
from ui.labels import label
from ui.scenario import Scenario, WorkloadSection, workload_modes

if TYPE_CHECKING:  # imported where it is used (ui.workload_pricing imports the engine and the catalog)
    from ui.workload_pricing import Priced


def section_for(section: WorkloadSection, mode: str) -> WorkloadSection:
    return section.model_copy(update={"mode": mode})


def priced_modes(scenario: Scenario) -> dict[str, tuple[WorkloadSection, Priced]]:
    """mode -> (its section, its :class:`ui.workload_pricing.Priced`) for every mode computed in the scenario."""
    from ui.workload_pricing import price_workload

    out = {}
    for mode in workload_modes(scenario.workload):
        section = section_for(scenario.workload, mode)
        out[mode] = (section, price_workload(section, scenario.display.usd_per_eur))
    return out


def _best(priced) -> pd.Series | None:
    """The offer the page's headline names: the cheapest (inference: within the latency target, if any)."""
    ranked = priced.ranked
    return None if ranked.empty else ranked.iloc[0]


def key_results(scenario: Scenario) -> dict[str, object]:
    """The workload entries of :func:`ui.workshop.key_results` (engine units: EUR), for every computed mode."""
    out: dict[str, object] = {}
    for mode, (section, priced) in priced_modes(scenario).items():
        best = _best(priced)
        if mode == "training":
            out["workload_training_offer"] = None if best is None else str(best["label"])
            if best is not None:
                out["workload_cost_eur_per_job"] = float(best["cost_eur"])
                out["workload_time_days"] = float(best["time_hours"]) / 24.0
                out["workload_gpu_hours"] = float(best["gpu_hours"])
                out["workload_mfu_fraction"] = float(best["mfu_pct"]) / 100.0
                out["workload_layout"] = str(best["layout"]) or None
        else:
            out["workload_inference_offer"] = None if best is None else str(best["label"])
            if best is not None:
                out["workload_inference_load_fraction"] = section.inference.target_utilisation_fraction
                out["workload_cost_eur_per_million_tokens"] = float(best["cost_eur"])
                out["workload_tokens_per_day"] = section.tokens_per_day
                out["workload_cost_eur_per_million_tokens_at_volume"] = float(best["cost_eur_per_million_tokens_at_volume"])
                out["workload_tokens_per_s_per_gpu"] = float(best["tokens_per_s_per_gpu"])
                out["workload_request_latency_s"] = float(best["request_latency_s"])
                out["workload_concurrency"] = int(best["concurrency"])
                out["workload_meets_latency_target"] = bool(best["meets_latency_target"])
                out["workload_gpus_needed"] = int(best["gpus_needed"])
                out["workload_cost_eur_per_day"] = float(best["cost_eur_per_day"])
    return out


def _columns(mode: str, section: WorkloadSection, currency: str) -> list[tuple[str, str, str]]:
    """(column of Priced.offers, header with its unit, kind: money/number/int/pct/text/bool/days)."""
    if mode == "training":
        return [("label", "Offer", "text"), ("cost_eur", f"Cost per job ({currency})", "money0"),
                ("time_hours", "Time (days)", "days"), ("gpu_hours", "GPU-hours", "int"),
                ("mfu_pct", "MFU (%)", "pct"), ("layout", "Layout", "text"),
                ("price_eur_per_gpu_hour", f"Price ({currency}/GPU-h)", "money"), ("source_url", "Source", "text")]
    u = section.inference.target_utilisation_fraction
    load = "full load" if u >= 1 else f"{u:.0%} load"
    return [("label", "Offer", "text"),
            ("cost_eur", f"Cost per million tokens at {load} ({currency})", "money"),
            ("cost_eur_per_million_tokens_at_volume",
             f"Cost per million tokens at your volume, {section.tokens_per_day / 1e6:,.0f}M tokens/day ({currency})",
             "money"),
            ("tokens_per_s_per_gpu", "Tokens/s per GPU", "int"), ("request_latency_s", "Latency per request (s)", "number"),
            ("meets_latency_target", f"Within the {section.latency_target_s:g} s target", "bool"),
            ("concurrency", "Sequences in flight per replica", "int"),
            ("gpus_needed", "GPUs needed", "int"), ("cost_eur_per_day", f"Cost per day ({currency})", "money0"),
            ("price_eur_per_gpu_hour", f"Price ({currency}/GPU-h)", "money"), ("source_url", "Source", "text")]


def _value(value, kind: str, currency: str, usd_per_eur: float, as_text: bool):
    missing = is_missing(value)
    if kind == "text":
        return "" if missing else str(value)
    if missing:
        return "not stated" if as_text else None
    if kind == "bool":
        return ("yes" if value else "no") if as_text else bool(value)
    value = float(value)
    if kind.startswith("money"):
        if as_text:
            return money(value, display_in(currency, usd_per_eur), 0 if kind == "money0" else 2)
        return float(from_eur(value, currency, usd_per_eur))
    if kind == "days":
        value = value / 24.0
    if not as_text:
        return int(round(value)) if kind == "int" else value
    return {"int": f"{value:,.0f}", "pct": f"{value:.0f}%", "days": f"{value:,.1f}"}.get(kind, f"{value:,.2f}")


def private_offers(scenario: Scenario) -> set[str]:
    """Offers priced on a private price in this scenario (empty unless an editor included private prices)."""
    if not scenario.private_prices:
        return set()
    from ui.catalog import offers
    from ui.private_prices import private_offer_ids

    return private_offer_ids(offers(None, scenario.display.usd_per_eur))


def results_frame(mode: str, section: WorkloadSection, priced, currency: str, usd_per_eur: float, *,
                  as_text: bool, ranked_only: bool = False, limit: int | None = None,
                  private: set[str] | None = None) -> pd.DataFrame:
    """The offers of one mode in that mode's units, ranked first; with ``ranked_only=False`` the offers left
    out follow with the reason. Money in ``currency``; numbers stay numbers unless ``as_text``. Rows of offers in
    ``private`` (priced on a private price) carry a "Price note" (ui.private_prices.LABEL)."""
    rows = priced.ranked if ranked_only else priced.offers
    if limit is not None:
        rows = rows.head(limit)
    cols = _columns(mode, section, currency)
    out = pd.DataFrame({header: [_value(v, kind, currency, usd_per_eur, as_text) for v in rows[col]]
                        for col, header, kind in cols})
    if not ranked_only:
        # "Priced: no" next to a computed cost misread in a board pack: the flag is whether the offer is ranked
        out.insert(1, label("is_ranked"), np.where(rows["is_ranked"].to_numpy(), "yes", "no"))
        out["Why left out"] = [("" if ok else str(r)) for ok, r in zip(rows["is_ranked"], rows["reason"], strict=True)]
    if private:
        from ui.private_prices import note_column

        out["Price note"] = note_column(rows["offer_id"], private)
    return out


def sheets(scenario: Scenario) -> dict[str, pd.DataFrame]:
    """Workbook sheets: per computed mode, its results (every offer, in its units) and its assumptions."""
    from ui import labels

    d = scenario.display
    out: dict[str, pd.DataFrame] = {}
    private = private_offers(scenario)
    for mode, (section, priced) in priced_modes(scenario).items():
        out[f"Workload results, {mode}"] = results_frame(mode, section, priced, d.currency, d.usd_per_eur,
                                                         as_text=False, private=private)
        out[f"Workload assumptions, {mode}"] = labels.readable_columns(labels.readable_names(priced.assumptions))
    return out
