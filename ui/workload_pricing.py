"""Pricing of the Workload cost page: one vectorised engine call (:mod:`engine.workload`) prices the section on
every catalog offer (and the workspace's quotes), cached per input; the result keeps every offer, the ones left out
with their reason, and the assumptions with their sources. Amounts stay in EUR here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
import streamlit as st

from engine import power
from engine.adapters import offer_arrays_from_frame
from engine.network import InterNodeKind
from engine.scope import scope_constraints
from engine.scoring import Constraints
from engine.workload import (
    DEFAULT_ASSUMPTIONS,
    GRID_INTENSITY_SOURCE,
    EngineAssumptions,
    InferenceResult,
    OfferArrays,
    TrainingResult,
    price_inference,
    price_inference_within_latency,
    price_training,
)
from engine.workload.layout import describe as describe_layout
from engine.workload.training import stack_utilisation
from ui import offer_scope
from ui.format import assumption_table
from ui.quotes import catalog_key, offers_with_quotes
from ui.scenario import WorkloadSection

#: Price type (the page's choice) -> the offer frame's column of that price [EUR per GPU-hour].
PRICE_COLUMN = {"on-demand": "on_demand_eur_per_gpu_hour", "spot": "spot_eur_per_gpu_hour",
                "reserved": "reserved_eur_per_gpu_hour", "reserved-1y": "reserved_1y_eur_per_gpu_hour",
                "reserved-3y": "reserved_3y_eur_per_gpu_hour", "cheapest": "best_selected_eur_per_gpu_hour"}
#: Batch sizes of the inference batching sweep (one offer).
BATCH_SIZES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


@dataclass(frozen=True)
class Priced:
    """One row per catalog offer (``ranked`` first, cheapest first) and the assumptions used."""

    mode: str
    offers: pd.DataFrame
    assumptions: pd.DataFrame

    @cached_property
    def _split(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(ranked rows, left-out rows), selected once: a page reads them dozens of times per rerun (#31)."""
        return self.offers[self.offers["is_ranked"]], self.offers[~self.offers["is_ranked"]]

    @property
    def ranked(self) -> pd.DataFrame:
        return self._split[0].copy(deep=False)  # copy-on-write: a caller's change stays in its copy

    @property
    def left_out(self) -> pd.DataFrame:
        return self._split[1].copy(deep=False)


def _arrays(frame: pd.DataFrame, price_type: str) -> OfferArrays:
    return offer_arrays_from_frame(frame.assign(price_eur_per_gpu_hour=frame[PRICE_COLUMN[price_type]].astype(float)))


def _defaults_used(frame: pd.DataFrame, o: OfferArrays, assumed: np.ndarray, need_intra: np.ndarray,
                   need_inter: np.ndarray, multi_gpu: np.ndarray) -> list[str]:
    """Which missing catalog values were replaced by a stated default, per offer ('' when none)."""
    a = DEFAULT_ASSUMPTIONS
    parts = [
        (np.isnan(o.gpus_per_node) & multi_gpu, f"GPUs per node = {a.assumed_gpus_per_node}"),
        (np.isnan(o.intra_bandwidth_gb_per_s) & need_intra, f"intra-node {a.assumed_intra_busbw_gb_per_s:g} GB/s (PCIe)"),
        (((o.inter_node_kind == InterNodeKind.UNKNOWN) | np.isnan(o.inter_bandwidth_gbit_per_s_per_gpu)) & need_inter,
         f"inter-node {a.assumed_inter_link_gbit_per_s_per_gpu:g} Gbit/s per GPU"),
    ]
    return ["; ".join(text for mask, text in parts if mask[i]) if assumed[i] else "" for i in range(len(frame))]


@st.cache_data(ttl=600, max_entries=16, show_spinner=False)
def _offer_arrays(_frame: pd.DataFrame, catalog_key: tuple, price_type: str) -> OfferArrays:
    """:func:`_arrays` of the catalog's offers (``catalog_key``), the same for every workload (#31)."""
    return _arrays(_frame, price_type)


@st.cache_data(ttl=600, max_entries=16, show_spinner=False)
def _row_texts(_frame: pd.DataFrame, catalog_key: tuple) -> pd.DataFrame:
    """The columns of the priced table that depend on the catalog's offers (``catalog_key``, with the day) only:
    picker label, node size, flags, stale mark, price date; the same for every workload (#31)."""
    records = _frame.to_dict("records")
    return pd.DataFrame({
        "label": offer_scope.picker_labels(_frame).to_numpy(),
        "gpus_per_node": [offer_scope.gpus_text(v) for v in _frame["gpus_per_node"]],
        "flags": [offer_scope.flags_text(r) or "—" for r in records],
        "price_is_stale": offer_scope.price_is_stale(_frame),
        "price_date": [f"{d:%Y-%m-%d}" if d is not None else "not stated" for d in map(offer_scope.price_date, records)],
    })


@st.cache_data(ttl=600, max_entries=64, show_spinner=False)
def _scope_filter(_frame: pd.DataFrame, catalog_key: tuple, constraints: Constraints,
                  price_type: str) -> tuple[np.ndarray, list[str]]:
    """:func:`ui.offer_scope.filter_offers` of the catalog's offers (``catalog_key``): the same for every job (#31)."""
    return offer_scope.filter_offers(_frame, constraints, offer_scope.price_columns_of(price_type))


@st.cache_data(ttl=600, max_entries=64, show_spinner=False)
def _price(_frame: pd.DataFrame, catalog_key: tuple, section_json: str) -> Priced:
    s = WorkloadSection.model_validate_json(section_json)
    frame = _frame.reset_index(drop=True)
    o = _offer_arrays(frame, catalog_key, s.price_type)
    rows_text = _row_texts(frame, catalog_key)
    a = assumptions_for(s)
    # The client's requirements (residency, GPU class, memory, price outliers): the one filter of engine.scoring.
    in_scope, scope_reason = _scope_filter(frame, catalog_key, scope_constraints(s.scope, s.residency), s.price_type)
    out = pd.DataFrame({
        "offer_id": frame["offer_id"], "label": rows_text["label"].to_numpy(),
        "provider_name": frame["provider_name"],
        "gpu": frame["gpu_spec_id"].fillna(frame["gpu_model"]), "form_factor": frame["form_factor"].fillna("not stated"),
        "gpus_per_node": rows_text["gpus_per_node"].to_numpy(),
        "region": frame["region"].fillna("not stated"), "source_url": frame["source_url"],
        "price_eur_per_gpu_hour": o.price_eur_per_gpu_hour,
        "flags": rows_text["flags"].to_numpy(), "price_is_stale": rows_text["price_is_stale"].to_numpy(),
        "price_date": rows_text["price_date"].to_numpy(),
        "is_eu_datacenter": frame["is_eu_datacenter"],
    })
    r: TrainingResult | InferenceResult
    if s.mode == "training":
        job = s.training
        r = price_training(job, o, a, missing_fabric=s.missing_fabric)
        gpn = np.where(np.isnan(o.gpus_per_node), a.assumed_gpus_per_node, o.gpus_per_node)
        need_inter = (r.n_nodes > 1) & (o.inter_node_kind != InterNodeKind.NONE)
        defaults = _defaults_used(frame, o, r.assumed_default, np.minimum(gpn, job.n_gpus) > 1, need_inter,
                                  np.full(len(frame), job.n_gpus > 1))
        out = out.assign(
            cost_eur=r.cost_eur, time_hours=r.time_hours, n_nodes=r.n_nodes, step_time_s=r.step_time_s,
            compute_time_per_step_s=r.compute_time_per_step_s, bubble_time_per_step_s=r.bubble_time_per_step_s,
            communication_time_per_step_s=r.communication_time_per_step_s,
            exposed_tp_s=r.exposed_tp_s, exposed_cp_s=r.exposed_cp_s, exposed_pp_s=r.exposed_pp_s,
            exposed_dp_s=r.exposed_dp_s, layout=layout_text(r), micro_batches=r.micro_batches,
            runner_up=runner_up_text(r, r.step_time_s),
            full_recompute=r.full_recompute,
            efficiency_pct=r.scaling_efficiency_fraction * 100.0, goodput_pct=r.goodput_fraction * 100.0,
            mfu_pct=r.mfu_fraction * 100.0, hfu_pct=r.hfu_fraction * 100.0, mtbf_hours=r.mtbf_hours,
            checkpoint_interval_s=r.checkpoint_interval_s,
            loss_compute=r.loss_compute_fraction, loss_bubble=r.loss_bubble_fraction,
            loss_communication=r.loss_communication_fraction, loss_failures=r.loss_failures_fraction,
            energy_j_per_token=r.energy_j_per_token, gpu_only_energy_kwh=r.gpu_only_energy_kwh,
            utilisation_fraction=np.where(r.uses_fp8, *reversed(stack_utilisation(job, a))),
        )
        sort_by, ascending = ["cost_eur"], [True]
    else:
        svc = s.inference
        r = (price_inference_within_latency(svc, o, s.latency_target_s, a, missing_fabric=s.missing_fabric)
             if s.batch_auto else price_inference(svc, o, a, missing_fabric=s.missing_fabric))
        tp = r.tensor_parallel_degree
        replicas = np.ceil(s.tokens_per_day / (86400.0 * svc.target_utilisation_fraction * r.tokens_per_s_per_gpu * tp))
        defaults = _defaults_used(frame, o, r.assumed_default, tp > 1, np.zeros(len(frame), bool), tp > 1)
        out = out.assign(
            cost_eur=r.cost_eur_per_million_tokens, time_hours=r.time_hours, tensor_parallel_degree=tp,
            request_latency_s=r.request_latency_s, time_to_first_token_s=r.time_to_first_token_s,
            time_per_output_token_s=r.time_per_output_token_s, tokens_per_s_per_gpu=r.tokens_per_s_per_gpu,
            gpus_needed=replicas * tp, cost_eur_per_day=replicas * tp * 24.0 * o.price_eur_per_gpu_hour,
            # what the client pays per million tokens: paid GPU-hours (whole replicas, 24 h) / tokens served
            cost_eur_per_million_tokens_at_volume=replicas * tp * 24.0 * o.price_eur_per_gpu_hour / (s.tokens_per_day / 1e6),
            meets_latency_target=r.request_latency_s <= s.latency_target_s,
            concurrency=r.concurrency,  # sequences in flight per replica (the searched cap, or the typed batch)
        )
        sort_by, ascending = ["meets_latency_target", "cost_eur"], [False, True]
    reason = r.exclusion_text()
    no_price = ~r.excluded & np.isnan(o.price_eur_per_gpu_hour)
    reason = np.where(no_price, f"no {s.price_type} price in the catalog", reason)
    # The client's requirements come first: an offer outside them is left out for that reason.
    reason = np.where(~in_scope, np.asarray(scope_reason, dtype=object), reason)
    out = out.assign(
        gpu_hours=r.gpu_hours, energy_kwh=r.energy_kwh, emissions_kg=r.emissions_kg, bound=r.bound_text(),
        communication_share_pct=r.communication_share_fraction * 100.0, uses_fp8=r.uses_fp8,
        is_ranked=~r.excluded & ~no_price & in_scope, reason=reason, assumed_default=r.assumed_default,
        engine_excluded=r.excluded,  # the engine cannot price the job here (Placement uses it, issue #29.5)
        defaults_used=defaults,
    )
    out = out.sort_values(["is_ranked", *sort_by, "offer_id"], ascending=[False, *ascending, True], kind="stable")
    rows = [*(a.row() for a in r.assumptions),
            ("price_type", s.price_type, "-", "Workload page: current catalog price of this type per offer"),
            ("power_per_h100_at_the_wall", float(power.facility_power_kw_per_gpu(700.0, 1.0, a.power_model())), "kW",
             "engine.power: 700 W TDP + server non-GPU share, x PUE (the same model as the TCO page)"),
            ("offers_in_scope", offer_scope.scope_summary(s.scope, s.residency, markdown=False), "-",
             "Workload page (user input): the client's requirements, filtered as on Scoring (engine.scoring."
             "apply_constraints); price outliers: engine.outliers (Iglewicz & Hoaglin)"),
            ("grid_intensity_g_per_kwh", "by data-centre country", "gCO2e/kWh", GRID_INTENSITY_SOURCE)]
    if s.mode == "inference":
        rows += [("tokens_per_day", s.tokens_per_day, "-", "Workload page (user input): GPUs = whole replicas"),
                 ("latency_target_s", s.latency_target_s, "s", "Workload page (user input)")]
    assumptions = assumption_table(rows, number_format=",.6g", yes_no=True)
    return Priced(s.mode, out.reset_index(drop=True), assumptions)


def assumptions_for(section: WorkloadSection) -> EngineAssumptions:
    """The engine defaults with the page's reliability and power inputs."""
    return DEFAULT_ASSUMPTIONS.model_copy(update={
        "failures_per_gpu_hour": section.failures_per_million_gpu_hours / 1e6, "restart_s": section.restart_s,
        "pue_ratio": section.pue_ratio})


def _choice_text(c, cp: np.ndarray) -> list[str]:
    return [describe_layout(*map(float, row)) for row in zip(
        c.tensor_parallel_degree, c.pipeline_parallel_degree, c.data_parallel_degree, cp, c.virtual_pipeline_stages,
        c.shard_code, c.recompute_share_fraction, strict=True)]


def layout_text(r) -> np.ndarray:
    """'TP 8 · PP 4 (v 5) · DP 2 · ZeRO-1' (CP shown when > 1) of the chosen layout per offer, '' where excluded."""
    return np.array(_choice_text(r.layout, r.context_parallel_degree), dtype=object)


def runner_up_text(r, best_step_s: np.ndarray) -> np.ndarray:
    """The second fastest layout and how much slower its step is, per offer ('' where none)."""
    texts = _choice_text(r.runner_up, r.context_parallel_degree)
    out = []
    for text, step, best, comp, bub, tp, pp, dp in zip(
            texts, r.runner_up.step_time_s, best_step_s, r.runner_up.compute_time_s, r.runner_up.bubble_time_s,
            r.runner_up.exposed_tp_s, r.runner_up.exposed_pp_s, r.runner_up.exposed_dp_s, strict=True):
        out.append("" if not text else
                   f"{text}: {step / best - 1.0:+.1%} step time ({comp:.2f} s compute + {bub:.2f} s bubble + "
                   f"{tp + pp + dp:.2f} s exposed communication)")
    return np.array(out, dtype=object)


def price_workload(section: WorkloadSection, usd_per_eur: float) -> Priced:
    """Price ``section`` on every catalog offer (cached per catalog version, exchange rate, day and input)."""
    frame = offers_with_quotes(usd_per_eur)  # the catalog plus the workspace's quotes (issue #29.7)
    return _price(frame, catalog_key(usd_per_eur), section.model_dump_json())


@st.cache_data(ttl=600, max_entries=64, show_spinner=False)
def _sweep(_frame: pd.DataFrame, catalog_key: tuple, section_json: str, offer_id: str) -> pd.DataFrame:
    s = WorkloadSection.model_validate_json(section_json)
    frame = _frame[_frame["offer_id"] == offer_id].reset_index(drop=True)
    o = _arrays(frame, s.price_type)
    rows = []
    for b in BATCH_SIZES:  # one offer, ten batch sizes: the engine takes one service per call
        r = price_inference(s.inference.model_copy(update={"batch_size": b}), o, assumptions_for(s),
                            missing_fabric=s.missing_fabric)
        rows.append((b, r.tokens_per_s_per_gpu[0], r.request_latency_s[0], r.cost_eur_per_million_tokens[0],
                     r.tensor_parallel_degree[0], r.exclusion_text()[0]))
    return pd.DataFrame(rows, columns=["batch_size", "tokens_per_s_per_gpu", "request_latency_s",
                                       "cost_eur_per_million_tokens", "tensor_parallel_degree", "reason"])


def batch_sweep(section: WorkloadSection, usd_per_eur: float, offer_id: str) -> pd.DataFrame:
    """Throughput, latency and cost of the inference service on one offer at batch sizes 1 to 512."""
    frame = offers_with_quotes(usd_per_eur)
    return _sweep(frame, catalog_key(usd_per_eur), section.model_dump_json(), offer_id)


