"""Widgets, data preparation and tables of the Workload cost page (kept here so the page stays thin).

The engine (:mod:`engine.workload`) prices one job on every catalog offer in one vectorised call. This
module turns the page's widgets into a validated :class:`~ui.scenario.WorkloadSection`, caches that call
per input, and shapes the result for display: the ranking, the verdict, the offers left out (and why),
the Pareto front of time versus cost, and the assumptions with their sources. Amounts stay in EUR here
and are converted to the display currency at the last step (:mod:`ui.format`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st
from pydantic import ValidationError

from catalog.store import STALE_AFTER_DAYS
from engine import power
from engine.adapters import offer_arrays_from_frame
from engine.network import InterNodeKind
from engine.scope import OfferScope, Residency, scope_constraints
from engine.workload import (
    DEFAULT_ASSUMPTIONS,
    EMISSIONS_NOT_COMPUTED,
    GRID_INTENSITY_SOURCE,
    MODEL_PRESETS,
    EngineAssumptions,
    OfferArrays,
    price_inference,
    price_training,
)
from engine.workload.inputs import default_global_batch_tokens
from engine.workload.layout import describe as describe_layout
from engine.workload.serving_stacks import SERVING_STACK_SPECS
from engine.workload.stacks import TRAINING_STACK_SPECS
from engine.workload.training import stack_utilisation
from ui import offer_scope
from ui.catalog import catalog_key
from ui.format import SYMBOL, eur_columns_to_display, money, money_column, plain
from ui.quotes import offers_with_quotes
from ui.scenario import DisplaySettings, WorkloadSection, get_scenario, update_scenario

CUSTOM = "custom"
SCOPE_KEY = "_wl_scope"
PRICE_COLUMN = {"on-demand": "on_demand_eur_per_gpu_hour", "spot": "spot_eur_per_gpu_hour",
                "reserved": "reserved_eur_per_gpu_hour", "reserved-1y": "reserved_1y_eur_per_gpu_hour",
                "reserved-3y": "reserved_3y_eur_per_gpu_hour", "cheapest": "best_selected_eur_per_gpu_hour"}
PRICE_LABEL = {"on-demand": "On-demand", "spot": "Spot (interruptible)", "reserved": "Reserved, any term",
               "reserved-1y": "1-year commitment", "reserved-3y": "3-year commitment",
               "cheapest": "Cheapest stated, any type"}
POLICY_LABEL = {"exclude": "Leave the offer out", "assume_default": "Assume stated defaults"}
WEIGHT_BYTES = {2.0: "BF16 / FP16 (2 B)", 1.0: "FP8 / INT8 (1 B)", 0.5: "INT4 (0.5 B)"}
KV_BYTES = {2.0: "BF16 / FP16 (2 B)", 1.0: "FP8 (1 B)"}
SERVING_STACK_LABEL = {k: v.label for k, v in SERVING_STACK_SPECS.items()}
GRAD_BYTES = {2.0: "BF16 (2 B)", 4.0: "FP32 (4 B)"}
LAYOUT_LABEL = {"auto": "Auto", "manual": "Manual"}
JOB_KIND_LABEL = {"pretraining": "Pre-training", "full_finetune": "Full fine-tune", "lora": "LoRA fine-tune",
                  "qlora": "QLoRA fine-tune (4-bit base)"}
STACK_LABEL = {k: v.label for k, v in TRAINING_STACK_SPECS.items()}
RECOMPUTE_LABEL = {"auto": "Auto (recompute only the layers needed to fit)", "selective": "Selective", "full": "Full",
                   "none": "None"}
BATCH_SIZES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
#: Engine field -> (label on the page, unit shown, widget value x scale = engine value).
_FIELDS = {
    "n_params": ("Model size", "billion parameters", 1e9), "training_tokens": ("Training tokens", "billion", 1e9),
    "n_gpus": ("GPUs", "", 1), "global_batch_tokens": ("Global batch", "million tokens", 1e6),
    "tensor_parallel_degree": ("Tensor-parallel degree", "", 1), "n_layers": ("Layers", "", 1),
    "pipeline_parallel_degree": ("Pipeline-parallel degree", "", 1),
    "context_parallel_degree": ("Context-parallel degree", "", 1),
    "virtual_pipeline_stages": ("Interleaved stages per GPU", "", 1),
    "sequence_length_tokens": ("Sequence length", "tokens", 1),
    "failures_per_million_gpu_hours": ("Failures", "per million GPU-hours", 1),
    "restart_s": ("Restart time", "min", 60), "pue_ratio": ("PUE", "", 1),
    "n_kv_heads": ("KV heads", "", 1), "head_dim": ("Head dimension", "", 1),
    "prompt_tokens": ("Prompt tokens", "", 1), "output_tokens": ("Output tokens", "", 1),
    "batch_size": ("Batch size", "", 1), "target_utilisation_fraction": ("Utilisation", "%", 0.01),
    "tokens_per_day": ("Tokens per day", "million", 1e6), "latency_target_s": ("Latency target", "s", 1),
}


# --------------------------------------------------------------------------------------------------
# Widgets <-> scenario
# --------------------------------------------------------------------------------------------------


def _widget_values(s: WorkloadSection) -> dict[str, object]:
    t, i = s.training, s.inference
    return {
        "_wl_mode": s.mode, "_wl_preset": s.preset if s.preset in MODEL_PRESETS else CUSTOM,
        "_wl_policy": s.missing_fabric, "_wl_price": s.price_type,
        "_wl_t_params_b": t.n_params / 1e9, "_wl_t_tokens_b": t.training_tokens / 1e9, "_wl_t_gpus": t.n_gpus,
        "_wl_t_fp8": t.is_fp8_ready, "_wl_t_batch_m": t.global_batch_tokens / 1e6,
        "_wl_t_batch_auto": t.is_global_batch_default,
        "_wl_t_layout": "auto" if t.tensor_parallel_degree is None else "manual",
        "_wl_t_tp": t.tensor_parallel_degree or 8, "_wl_t_pp": t.pipeline_parallel_degree or 1,
        "_wl_t_cp": t.context_parallel_degree, "_wl_t_v": t.virtual_pipeline_stages or 0, "_wl_t_recompute": t.recompute,
        "_wl_t_kind": t.job_kind, "_wl_t_stack": t.software_stack,
        "_wl_t_tp_overlap": t.is_tp_comm_overlapped, "_wl_t_seq": t.sequence_length_tokens,
        "_wl_t_spare": (t.n_gpus_reserved or t.n_gpus) - t.n_gpus,
        "_wl_t_fail": s.failures_per_million_gpu_hours, "_wl_t_restart_min": s.restart_s / 60.0,
        "_wl_pue": s.pue_ratio,
        "_wl_t_grad": t.gradient_bytes_per_param, "_wl_t_sharded": t.is_state_sharded,
        "_wl_i_params_b": i.n_params / 1e9, "_wl_i_layers": i.n_layers, "_wl_i_kv_heads": i.n_kv_heads,
        "_wl_i_head_dim": i.head_dim, "_wl_i_weights": i.weight_bytes_per_param, "_wl_i_fp8": i.is_fp8_ready,
        "_wl_i_stack": i.serving_stack, "_wl_i_kv": i.kv_cache_bytes_per_element,
        "_wl_i_prompt": i.prompt_tokens, "_wl_i_output": i.output_tokens, "_wl_i_batch": i.batch_size,
        "_wl_i_util_pct": i.target_utilisation_fraction * 100.0, "_wl_i_tokens_day_m": s.tokens_per_day / 1e6,
        "_wl_i_latency_s": s.latency_target_s,
    }


_PRESET_KEYS = ("_wl_t_params_b", "_wl_t_seq", "_wl_i_params_b", "_wl_i_layers", "_wl_i_kv_heads", "_wl_i_head_dim")


def _apply_preset() -> None:
    """Preset picked: copy its architecture into both modes' fields (and the scenario, for the hidden mode)."""
    name = st.session_state["_wl_preset"]
    if name == CUSTOM:
        return
    p = MODEL_PRESETS[name]
    s = get_scenario().workload
    section = s.model_copy(update={
        "preset": name,
        "training": s.training.model_copy(update={
            "model_name": name, "n_params": p.n_params, "sequence_length_tokens": p.max_context_tokens,
            "n_layers": p.n_layers, "d_model": p.d_model, "kv_dim": p.n_kv_heads * p.head_dim}),
        "inference": s.inference.model_copy(update={"model_name": name, "n_params": p.n_params, "n_layers": p.n_layers,
                                                    "n_kv_heads": p.n_kv_heads, "head_dim": p.head_dim}),
    })
    update_scenario(workload=section)
    values = _widget_values(section)
    for key in _PRESET_KEYS:
        st.session_state[key] = values[key]


def _rule_batch_m() -> float:
    """The default rule's global batch for the job the widgets describe [million tokens]."""
    ss = st.session_state
    return default_global_batch_tokens(ss["_wl_t_kind"], float(ss["_wl_t_params_b"]) * 1e9,
                                       float(ss["_wl_t_tokens_b"]) * 1e9, int(ss["_wl_t_seq"]),
                                       int(ss["_wl_t_gpus"])) / 1e6


def _batch_rule_toggled() -> None:
    """Leaving the rule starts the typed batch from the rule's value (not from a stale one)."""
    if not st.session_state["_wl_t_batch_auto"]:
        st.session_state["_wl_t_batch_m"] = round(_rule_batch_m(), 3)


def _use_published_tokens() -> None:
    p = MODEL_PRESETS.get(st.session_state["_wl_preset"])
    if p is not None and p.training_tokens_reported:
        st.session_state["_wl_t_tokens_b"] = p.training_tokens_reported / 1e9


def _preset_label(name: str) -> str:
    if name == CUSTOM:
        return "Custom (edit the fields)"
    p = MODEL_PRESETS[name]
    return f"{name} ({p.n_params / 1e9:,.0f}B)" if p.n_params < 1e11 else f"{name} ({p.n_params / 1e9:,.1f}B)"


def _model_name(preset: str, n_params: float) -> str:
    p = MODEL_PRESETS.get(preset)
    return preset if p is not None and abs(p.n_params - n_params) < 1.0 else CUSTOM


def _training_fields(preset: str) -> None:
    c = st.columns(4)
    c[0].number_input("Model size (billion parameters)", min_value=0.001, step=1.0, format="%.1f",
                      key="_wl_t_params_b", help="Dense parameters N; for a mixture of experts, the active ones per token.")
    c[1].number_input("Training tokens (billions)", min_value=0.001, step=10.0, format="%.1f", key="_wl_t_tokens_b",
                      help="Tokens D seen in training; compute = 6 N D (Kaplan et al. 2020).")
    p = MODEL_PRESETS.get(preset)
    if p is not None and p.training_tokens_reported:
        c[1].button(f"Use the published {p.training_tokens_reported / 1e12:g}T tokens", key="_wl_t_published",
                    on_click=_use_published_tokens, type="tertiary")
    c[2].number_input("GPUs", min_value=1, step=8, key="_wl_t_gpus", help="GPUs the job runs on, all rented from one offer.")
    c[3].toggle("FP8-ready software stack", key="_wl_t_fp8",
                help="Train in FP8 (e.g. Transformer Engine). Only GPUs with an FP8 peak gain from it (H100, H200, "
                     "B200, MI300X ...); A100 and older keep their BF16 speed.")
    k = st.columns(4)
    k[0].selectbox("Job", list(JOB_KIND_LABEL), format_func=JOB_KIND_LABEL.get, key="_wl_t_kind",
                   help="Full training costs 6N FLOPs per token; LoRA/QLoRA on a frozen base about 4N (no weight "
                        "gradients of the base) and holds optimizer state for the adapters only; QLoRA keeps the "
                        "base in 4-bit NF4.")
    k[1].selectbox("Software stack", list(STACK_LABEL), format_func=STACK_LABEL.get, key="_wl_t_stack",
                   help="How close the job gets to the hardware's peak, and which layouts it can run: "
                        + "; ".join(f"{v.label}: {v.calibrated_on}" for v in TRAINING_STACK_SPECS.values()))
    with st.expander("Parallelism, reliability and power"):
        a = st.columns(4)
        auto_batch = bool(st.session_state.get("_wl_t_batch_auto"))
        if auto_batch:
            a[0].metric("Global batch (million tokens)", f"{_rule_batch_m():.2f}",
                        help="The default rule, recomputed when the job kind, model, tokens, sequence length or GPUs "
                             "change: DeepSeek LLM's batch law for pre-training, 32 sequences for fine-tuning.")
        else:
            a[0].number_input("Global batch (million tokens)", min_value=0.001, max_value=1000.0, step=0.5,
                              format="%.2f", key="_wl_t_batch_m",
                              help="Tokens per optimizer step: one gradient reduction each. Llama 2 used 4M, Llama 3 "
                                   "16M.")
        a[0].toggle("Default batch rule", key="_wl_t_batch_auto", on_change=_batch_rule_toggled,
                    help="On: the batch follows the rule (shown under Assumptions). Off: type your own.")
        a[1].number_input("Sequence length (tokens)", min_value=1, step=1024, key="_wl_t_seq",
                          help="Tokens per training sequence; sets the micro-batches per step and the attention FLOPs.")
        a[2].selectbox("Gradient reduction precision", list(GRAD_BYTES), format_func=GRAD_BYTES.get, key="_wl_t_grad",
                       help="Bytes per gradient element sent over the fabric. Llama 3 reduced in FP32.")
        a[3].toggle("Shard the training state (ZeRO-1 or ZeRO-3)", key="_wl_t_sharded",
                    help="On: the layout search picks, per offer, the optimizer state sharded over the data-parallel "
                         "ranks (ZeRO-1, Megatron's distributed optimizer) or everything sharded (ZeRO-3 / FSDP), "
                         "whichever is faster and fits. Off: every replica holds the whole state (16 B per parameter).")
        b = st.columns(4)
        layout = b[0].segmented_control(
            "Parallel layout", list(LAYOUT_LABEL), format_func=LAYOUT_LABEL.get, key="_wl_t_layout", required=True,
            help="Auto: per offer, the fastest layout that fits its memory (TP inside the node, PP, interleaving, "
                 "ZeRO-1 or ZeRO-3, recomputation), as a practitioner would tune it; the runner-up is shown with the "
                 "result. Manual: your degrees for every offer; TP x CP x PP x DP must equal the GPUs.")
        manual = layout == "manual"
        b[1].number_input("Tensor-parallel degree", min_value=1, step=1, key="_wl_t_tp", disabled=not manual,
                          help="GPUs that split each layer, kept inside one node.")
        b[2].number_input("Pipeline-parallel degree", min_value=1, step=1, key="_wl_t_pp", disabled=not manual,
                          help="Stages the layers are cut into; idle bubble (p-1)/(v m + p - 1) per step.")
        b[3].number_input("Context-parallel degree", min_value=1, step=1, key="_wl_t_cp", disabled=not manual,
                          help="GPUs that split each sequence (long-context training, Llama 3).")
        c = st.columns(4)
        c[0].number_input("Interleaved stages per GPU (0 = searched)", min_value=0, max_value=128, step=1,
                          key="_wl_t_v", help="Virtual pipeline stages v (interleaved 1F1B): divides the bubble by v "
                                              "and lets stage sends overlap compute. 0: the search chooses.")
        c[1].selectbox("Activation recomputation", list(RECOMPUTE_LABEL), format_func=RECOMPUTE_LABEL.get,
                       key="_wl_t_recompute", help="Full recomputation saves memory and costs one more forward pass (HFU > MFU).")
        c[2].toggle("Overlap tensor-parallel communication", key="_wl_t_tp_overlap",
                    help=f"TP collectives overlapped with GEMMs: {DEFAULT_ASSUMPTIONS.tp_overlap_fraction:.0%} of them "
                         "hidden (assumption). Off: all on the critical path.")
        c[3].number_input("Spare GPUs reserved", min_value=0, step=8, key="_wl_t_spare",
                          help="Paid and powered but idle (hot spares): cost and idle energy, no speed.")
        d = st.columns(4)
        d[0].number_input("Failures per million GPU-hours", min_value=0.0, step=5.0, format="%.1f", key="_wl_t_fail",
                          help="Job-stopping failures; default from Llama 3 (419 in 54 days on 16,384 H100). Goodput "
                               "= useful share of wall-clock time with Daly-optimal checkpoints.")
        d[1].number_input("Restart time (minutes)", min_value=0.0, step=5.0, format="%.0f", key="_wl_t_restart_min",
                          help="Detect, reschedule and reload a checkpoint after a failure (assumption: 10 min).")
        d[2].number_input("PUE", min_value=1.0, max_value=3.0, step=0.05, format="%.2f", key="_wl_pue",
                          help="Facility energy / IT energy. Energy counts the GPU at load, the server's non-GPU share "
                               "(CPU, memory, NICs, fans) and this PUE.")


def _inference_fields() -> None:
    c = st.columns(4)
    c[0].number_input("Model size (billion parameters)", min_value=0.001, step=1.0, format="%.1f", key="_wl_i_params_b")
    c[1].selectbox("Weight precision", list(WEIGHT_BYTES), format_func=WEIGHT_BYTES.get, key="_wl_i_weights",
                   help="Bytes per weight held in GPU memory and read at every decode step.")
    c[2].number_input("Tokens per day (millions)", min_value=0.001, step=10.0, format="%.1f", key="_wl_i_tokens_day_m",
                      help="Generated tokens the service must deliver per day: sets how many GPUs to rent.")
    c[3].number_input("Latency target per request (s)", min_value=0.01, step=0.5, format="%.2f", key="_wl_i_latency_s",
                      help="Time to first token plus all output tokens. Offers above it are ranked after those that meet it.")
    d = st.columns(4)
    d[0].number_input("Prompt tokens per request", min_value=1, step=100, key="_wl_i_prompt")
    d[1].number_input("Output tokens per request", min_value=1, step=50, key="_wl_i_output")
    d[2].number_input("Batch size (sequences in flight)", min_value=1, step=8, key="_wl_i_batch",
                      help="Bigger batches raise throughput per GPU and lengthen each request.")
    d[3].toggle("FP8-ready serving stack", key="_wl_i_fp8", help="Compute in FP8 where the GPU has an FP8 peak.")
    e = st.columns(4)
    e[0].selectbox("Serving stack", list(SERVING_STACK_LABEL), format_func=SERVING_STACK_LABEL.get, key="_wl_i_stack",
                   help="Sets the share of the memory bandwidth a decode step reaches and the fixed time per layer "
                        "and step that dominates at batch 1: "
                        + "; ".join(f"{v.label}: {v.calibrated_on}" for v in SERVING_STACK_SPECS.values()))
    e[1].selectbox("KV-cache precision", list(KV_BYTES), format_func=KV_BYTES.get, key="_wl_i_kv",
                   help="FP8 KV cache (as FP8 checkpoints of TensorRT-LLM and vLLM use) halves the cache per token: "
                        "more sequences fit next to the weights.")
    with st.expander("Architecture and utilisation"):
        a = st.columns(4)
        a[0].number_input("Layers", min_value=1, step=1, key="_wl_i_layers")
        a[1].number_input("KV heads", min_value=1, step=1, key="_wl_i_kv_heads", help="Grouped-query attention: fewer than the heads.")
        a[2].number_input("Head dimension", min_value=1, step=1, key="_wl_i_head_dim")
        a[3].number_input("Utilisation (% of paid GPU time serving)", min_value=0.1, step=5.0, format="%.0f",
                          key="_wl_i_util_pct", help="100 % is an upper bound: real traffic has gaps.")


def _messages(exc: ValidationError) -> list[str]:
    """Pydantic errors in the page's words and units."""
    out = []
    for e in exc.errors():
        field = str(e["loc"][-1]) if e["loc"] else ""
        label, unit, scale = _FIELDS.get(field, (field.replace("_", " ") or "Input", "", 1))
        ctx = e.get("ctx") or {}
        bound = next(((op, ctx[k]) for k, op in (("le", "at most"), ("lt", "below"), ("ge", "at least"), ("gt", "above"))
                      if k in ctx), None)
        if "product must equal the GPUs" in e["msg"] or "must divide n_gpus" in e["msg"] or "multiple of TP" in e["msg"]:
            out.append("**GPUs** must be a multiple of the **tensor-parallel x context-parallel x pipeline-parallel "
                       "degrees** (every data-parallel replica is a whole group of GPUs).")
        elif "smaller than data-parallel degree" in e["msg"]:
            out.append("**Global batch** is too small: every data-parallel replica needs at least one sequence per "
                       "step. Raise the batch or the model-parallel degrees.")
        elif bound is not None:
            limit = float(bound[1]) / scale
            shown = f"{limit:,.0f}" if limit == round(limit) and abs(limit) < 1e15 else f"{limit:,.6g}"
            out.append(f"**{label}** must be {bound[0]} {shown} {unit}".rstrip() + ".")
        else:
            out.append(f"**{label}**: {e['msg'].removeprefix('Value error, ')}")
    return out


def _read(current: WorkloadSection, mode: str, scope: OfferScope | None = None,
          residency: Residency | None = None) -> WorkloadSection:
    """The section the widgets describe (raises ValidationError on an invalid input).

    Built from plain dicts, so that a section kept in the session from before a module reload (Streamlit
    re-imports edited modules while the server runs) still validates against the current classes.
    """
    ss = st.session_state
    preset = ss["_wl_preset"]
    training, inference = current.training.model_dump(), current.inference.model_dump()
    tokens_per_day, latency_target_s = current.tokens_per_day, current.latency_target_s
    reliability = dict(failures_per_million_gpu_hours=current.failures_per_million_gpu_hours,
                       restart_s=current.restart_s, pue_ratio=float(ss["_wl_pue"]))
    if mode == "training":
        n_params = float(ss["_wl_t_params_b"]) * 1e9
        name = _model_name(preset, n_params)
        p = MODEL_PRESETS.get(name)
        manual = ss["_wl_t_layout"] == "manual"
        n_gpus = int(ss["_wl_t_gpus"])
        training = dict(
            model_name=name, n_params=n_params, training_tokens=ss["_wl_t_tokens_b"] * 1e9,
            n_gpus=n_gpus, is_fp8_ready=bool(ss["_wl_t_fp8"]),
            global_batch_tokens=None if ss.get("_wl_t_batch_auto") else ss["_wl_t_batch_m"] * 1e6,
            sequence_length_tokens=int(ss["_wl_t_seq"]),
            n_layers=p.n_layers if p else None, d_model=p.d_model if p else None,
            kv_dim=p.n_kv_heads * p.head_dim if p else None,
            tensor_parallel_degree=int(ss["_wl_t_tp"]) if manual else None,
            pipeline_parallel_degree=int(ss["_wl_t_pp"]) if manual else None,
            context_parallel_degree=int(ss["_wl_t_cp"]) if manual else 1,
            virtual_pipeline_stages=int(ss["_wl_t_v"]) or None, recompute=ss["_wl_t_recompute"],
            job_kind=ss["_wl_t_kind"], software_stack=ss["_wl_t_stack"],
            is_tp_comm_overlapped=bool(ss["_wl_t_tp_overlap"]),
            n_gpus_reserved=n_gpus + int(ss["_wl_t_spare"]) if ss["_wl_t_spare"] else None,
            gradient_bytes_per_param=ss["_wl_t_grad"], is_state_sharded=bool(ss["_wl_t_sharded"]),
        )
        reliability.update(failures_per_million_gpu_hours=float(ss["_wl_t_fail"]),
                           restart_s=float(ss["_wl_t_restart_min"]) * 60.0)
    else:
        n_params = float(ss["_wl_i_params_b"]) * 1e9
        inference = dict(
            model_name=_model_name(preset, n_params), n_params=n_params, n_layers=int(ss["_wl_i_layers"]),
            n_kv_heads=int(ss["_wl_i_kv_heads"]), head_dim=int(ss["_wl_i_head_dim"]),
            weight_bytes_per_param=ss["_wl_i_weights"], prompt_tokens=int(ss["_wl_i_prompt"]),
            output_tokens=int(ss["_wl_i_output"]), batch_size=int(ss["_wl_i_batch"]), is_fp8_ready=bool(ss["_wl_i_fp8"]),
            serving_stack=ss["_wl_i_stack"], kv_cache_bytes_per_element=float(ss["_wl_i_kv"]),
            target_utilisation_fraction=ss["_wl_i_util_pct"] / 100.0,
        )
        tokens_per_day, latency_target_s = ss["_wl_i_tokens_day_m"] * 1e6, ss["_wl_i_latency_s"]
    computed = current.computed_modes if mode == current.mode else tuple(sorted({*current.computed_modes, current.mode}))
    return WorkloadSection.model_validate(dict(
        mode=mode, computed_modes=computed, preset=preset, training=training, inference=inference, missing_fabric=ss["_wl_policy"],
        price_type=ss["_wl_price"], tokens_per_day=tokens_per_day, latency_target_s=latency_target_s, **reliability,
        scope=(scope or current.scope).model_dump(), residency=(residency or current.residency).model_dump(),
    ))


def workload_inputs() -> WorkloadSection | None:
    """Draw the inputs (initialised from the scenario) and return the valid section, or None after showing
    what is wrong next to the inputs. A valid section is written back to the scenario."""
    current = get_scenario().workload
    for key, value in _widget_values(current).items():
        st.session_state.setdefault(key, value)
    with st.container(border=True):
        top = st.columns([1.1, 1.4, 1.3, 1.6])
        mode = top[0].segmented_control("Workload", ["training", "inference"], key="_wl_mode", required=True,
                                        format_func=str.capitalize)
        top[1].selectbox("Model preset", [*MODEL_PRESETS, CUSTOM], key="_wl_preset", format_func=_preset_label,
                         on_change=_apply_preset, help="Fills the model size (and, for inference, the layers and "
                         "KV heads) from the published architecture. Every field stays editable.")
        top[2].selectbox("Price", list(PRICE_COLUMN), format_func=PRICE_LABEL.get, key="_wl_price",
                         help="Which current catalog price of each offer a GPU-hour costs. Offers without that "
                              "price type are listed under 'Left out'.")
        top[3].segmented_control(
            "When the catalog lacks fabric data", list(POLICY_LABEL), format_func=POLICY_LABEL.get, key="_wl_policy",
            required=True, help="A multi-GPU job needs GPUs per node and the intra-node link; a multi-node job also "
            "needs the inter-node fabric and its bandwidth. Leave such offers out, or price them with the stated "
            f"defaults ({DEFAULT_ASSUMPTIONS.assumed_gpus_per_node} GPUs per node, "
            f"{DEFAULT_ASSUMPTIONS.assumed_intra_busbw_gb_per_s:g} GB/s PCIe inside the node, "
            f"{DEFAULT_ASSUMPTIONS.assumed_inter_link_gbit_per_s_per_gpu:g} Gbit/s per GPU between nodes) and flag them.")
        if mode == "training":
            _training_fields(st.session_state["_wl_preset"])
        else:
            _inference_fields()
    with st.container(border=True):
        st.markdown("**Which offers may run it** (the client's requirements; the same filters as Scoring and "
                    "Placement)")
        catalog = offers_with_quotes(get_scenario().display.usd_per_eur)
        residency = offer_scope.residency_widgets(
            SCOPE_KEY + "_res", current.residency,
            offer_scope.certification_options(catalog, current.residency.required_certifications))
        scope = offer_scope.scope_widgets(SCOPE_KEY, current.scope, sorted(catalog["gpu_model"].dropna().unique()),
                                          fit=False)
    with st.container():
        try:
            section = _read(current, mode or current.mode, scope, residency)
        except ValidationError as exc:
            st.error("**This input cannot be priced.**\n\n" + "\n".join(f"- {m}" for m in _messages(exc)),
                     icon=":material/error:")
            return None
    if section != current:
        update_scenario(workload=section)
    return section


# --------------------------------------------------------------------------------------------------
# Pricing (cached per input)
# --------------------------------------------------------------------------------------------------


class Priced(NamedTuple):
    """One row per catalog offer (``ranked`` first, cheapest first) and the assumptions used."""

    mode: str
    offers: pd.DataFrame
    assumptions: pd.DataFrame

    @property
    def ranked(self) -> pd.DataFrame:
        return self.offers[self.offers["is_ranked"]]

    @property
    def left_out(self) -> pd.DataFrame:
        return self.offers[~self.offers["is_ranked"]]


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


@st.cache_data(ttl=600, max_entries=64, show_spinner=False)
def _price(_frame: pd.DataFrame, catalog_key: tuple, section_json: str) -> Priced:
    s = WorkloadSection.model_validate_json(section_json)
    frame = _frame.reset_index(drop=True)
    o = _arrays(frame, s.price_type)
    a = assumptions_for(s)
    # The client's requirements (residency, GPU class, memory, price outliers): the one filter of engine.scoring.
    in_scope, scope_reason = offer_scope.filter_offers(frame, scope_constraints(s.scope, s.residency),
                                                       offer_scope.price_columns_of(s.price_type))
    out = pd.DataFrame({
        "offer_id": frame["offer_id"], "label": offer_scope.picker_labels(frame).to_numpy(),
        "provider_name": frame["provider_name"],
        "gpu": frame["gpu_spec_id"].fillna(frame["gpu_model"]), "form_factor": frame["form_factor"].fillna("not stated"),
        "gpus_per_node": [offer_scope.gpus_text(v) for v in frame["gpus_per_node"]],
        "region": frame["region"].fillna("not stated"), "source_url": frame["source_url"],
        "price_eur_per_gpu_hour": o.price_eur_per_gpu_hour,
        "flags": [offer_scope.flags_text(r) or "—" for r in frame.to_dict("records")],
        "price_is_stale": offer_scope.price_is_stale(frame),
        "price_date": [f"{d:%Y-%m-%d}" if d is not None else "not stated"
                       for d in map(offer_scope.price_date, frame.to_dict("records"))],
        "is_eu_datacenter": frame["is_eu_datacenter"],
    })
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
        r = price_inference(svc, o, a, missing_fabric=s.missing_fabric)
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
    assumptions = pd.DataFrame([(n, _fmt(v), u, src) for n, v, u, src in rows], columns=["name", "value", "unit", "source"])
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


def _fmt(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.6g}"
    return str(value)


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


# --------------------------------------------------------------------------------------------------
# Display
# --------------------------------------------------------------------------------------------------


def pareto_front(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """True where no other point is at least as low in both ``x`` and ``y`` and lower in one (both minimised).

    Points with a NaN are never on the front; identical points share their status. O(n log n).

    Examples
    --------
    >>> pareto_front(np.array([1.0, 2.0, 2.0, 3.0, 1.0]), np.array([5.0, 3.0, 4.0, 3.0, 5.0])).tolist()
    [True, True, False, False, True]
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    out = np.zeros(x.shape, dtype=bool)
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.any():
        pts, inverse = np.unique(np.column_stack([x[ok], y[ok]]), axis=0, return_inverse=True)  # sorted by x, then y
        best_before = np.minimum.accumulate(np.concatenate([[np.inf], pts[:-1, 1]]))
        out[ok] = (pts[:, 1] < best_before)[inverse.ravel()]
    return out


def _duration(hours: float) -> str:
    return f"{hours:,.1f} hours" if hours < 48 else f"{hours / 24:,.1f} days"


def _name(row: pd.Series) -> str:
    return f"{row['provider_name']} {row['gpu']} · {row['gpus_per_node']} · {row['region']}"


def _stale_note(rows: pd.DataFrame) -> str:
    """A warning when a headline rests on a stale price ('' when none does)."""
    stale = rows[rows["price_is_stale"].astype(bool)].drop_duplicates("offer_id")
    if stale.empty:
        return ""
    names = " and ".join(f"{_name(r)} (price of {r['price_date']})" for _, r in stale.iterrows())
    return (f"\n\n⚠ **Stale price:** {names}: retrieved more than {STALE_AFTER_DAYS} days ago; check the source "
            "before relying on it.")


def _outlier_note(rows: pd.DataFrame) -> str:
    """A warning when a headline rests on a flagged price outlier the user chose to use ('' when none does)."""
    flagged = rows[rows["flags"].str.contains("price outlier")].drop_duplicates("offer_id")
    if flagged.empty:
        return ""
    names = " and ".join(_name(r) for _, r in flagged.iterrows())
    return (f"\n\n⚠ **Price outlier used:** {names}: far below (or above) every other price of this GPU model "
            "(see its reason under Providers); it is used because you switched *Use price outliers* on.")


def _left_out_counts(priced: Priced) -> str:
    left = priced.left_out["reason"].astype(str)
    n_outlier = int(left.str.contains("price outlier").sum())
    n_scope = int(left.str.contains(_SCOPE_PATTERN).sum()) - n_outlier
    parts = [f"{n_scope} outside the client's requirements" if n_scope > 0 else "",
             f"{n_outlier} price outlier{'s' * (n_outlier != 1)} (not used unless you include outliers)" if n_outlier
             else ""]
    parts = [p for p in parts if p]
    return f" ({', '.join(parts)})" if parts else ""


#: Reasons engine.scoring.apply_constraints gives (the client's requirements and price outliers).
_SCOPE_PATTERN = r"^(?:EU data centre|parent jurisdiction|legal seat|certifications|GPU class|GPU model|memory|price outlier)"


def verdict(priced: Priced, section: WorkloadSection, display: DisplaySettings) -> str:
    """The answer in plain language, in the display currency."""
    ranked, n = priced.ranked, len(priced.offers)
    counts = (f"{len(ranked)} of {n} offers priced at their {section.price_type} price"
              f"{f' ({int(ranked.assumed_default.sum())} with stated defaults)' if ranked.assumed_default.any() else ''}; "
              f"{n - len(ranked)} left out{_left_out_counts(priced)}, each with its reason below. "
              f"Offers: {offer_scope.scope_summary(section.scope, section.residency)}.")
    if ranked.empty:
        top = priced.left_out["reason"].value_counts().head(2)
        return ("**No offer can run this workload as specified.** Most common reasons: "
                + "; ".join(f"{plain(r)} ({c} offers)" for r, c in top.items()) + f".\n\n{counts}")
    fastest_by = "time_hours" if priced.mode == "training" else "request_latency_s"
    cheap, fast = ranked.iloc[0], ranked.loc[ranked[fastest_by].idxmin()]
    if priced.mode == "training":
        text = f"**Cheapest:** {_name(cheap)} at **{money(cheap.cost_eur, display, 0)} per job**, {_duration(cheap.time_hours)}. "
        text += ("It is also the fastest." if fast.offer_id == cheap.offer_id else
                 f"**Fastest:** {_name(fast)}: **{_duration(fast.time_hours)}**, {money(fast.cost_eur, display, 0)} per job.")
        return f"{text}{_stale_note(pd.DataFrame([cheap, fast]))}{_outlier_note(pd.DataFrame([cheap, fast]))}\n\n{counts}"
    target = section.latency_target_s
    if cheap.meets_latency_target:
        text = (f"**Cheapest within the {target:g} s latency target:** {_name(cheap)} at **{money(cheap.cost_eur, display)} "
                f"per million tokens** ({cheap.request_latency_s:.1f} s per request, {cheap.tensor_parallel_degree:.0f} "
                f"GPU{'s' if cheap.tensor_parallel_degree > 1 else ''} per replica). {section.tokens_per_day / 1e6:,.0f}M tokens a day take "
                f"{cheap.gpus_needed:,.0f} GPUs: **{money(cheap.cost_eur_per_day, display, 0)} per day**, "
                f"**{money(cheap.cost_eur_per_million_tokens_at_volume, display)} per million tokens at your volume** "
                f"(paid GPU-hours ÷ tokens served; {money(cheap.cost_eur, display)} at {load_text(section)}). ")
    else:
        text = (f"**No offer meets the {target:g} s latency target at batch {section.inference.batch_size}:** lower the "
                f"batch size or raise the target. Cheapest anyway: {_name(cheap)} at {money(cheap.cost_eur, display)} "
                f"per million tokens. ")
    text += f"**Lowest latency:** {_name(fast)}, {fast.request_latency_s:.1f} s at {money(fast.cost_eur, display)} per million tokens."
    return f"{text}{_stale_note(pd.DataFrame([cheap, fast]))}{_outlier_note(pd.DataFrame([cheap, fast]))}\n\n{counts}"


def key_assumptions(section: WorkloadSection, display: DisplaySettings) -> str:
    a = assumptions_for(section)
    wall_kw = float(power.facility_power_kw_per_gpu(700.0, 1.0, a.power_model()))
    t = section.training
    spec = TRAINING_STACK_SPECS[t.software_stack]
    serving = SERVING_STACK_SPECS[section.inference.serving_stack]
    u_bf16, u_fp8 = stack_utilisation(t, a)
    layout = ("per offer, the fastest layout that fits its memory (searched)" if t.tensor_parallel_degree is None else
              f"TP {t.tensor_parallel_degree} · CP {t.context_parallel_degree} · PP {t.pipeline_parallel_degree} · "
              f"DP {t.fixed_data_parallel_degree}")
    v_text = "searched" if t.virtual_pipeline_stages is None else f"{t.virtual_pipeline_stages}"
    lines = ([f"{JOB_KIND_LABEL[t.job_kind]} on {spec.label}; layout: {layout}; interleaved stages per GPU: {v_text}",
              f"global batch {t.global_batch_tokens / 1e6:.2f}M tokens"
              + (" (default rule: DeepSeek LLM batch law for pre-training, 32 sequences for fine-tuning)"
                 if t.is_global_batch_default else ""),
              f"while computing, {u_bf16:.0%} of the BF16 peak ({u_fp8:.0%} of FP8) with {spec.label} "
              f"({spec.calibrated_on}); bubbles and exposed communication on top",
              f"DP gradient reduction hidden up to {a.overlap_fraction:.0%}, only behind the last micro-batch; "
              f"TP {'overlap ' + format(a.tp_overlap_fraction, '.0%') if t.is_tp_comm_overlapped else 'not overlapped'}",
              f"{section.failures_per_million_gpu_hours:g} failures per million GPU-hours, {section.restart_s / 60:g} min "
              "restarts, Daly-optimal checkpoints"]
             if section.mode == "training" else
             [(f"{serving.label}: memory bandwidth at {serving.bandwidth_fraction:.0%} of peak for every precision, "
               f"{serving.overhead_s_per_layer * 1e6:.0f} µs fixed per layer and decode step ({serving.calibrated_on}); "
               f"compute at {a.inference_mfu_fraction:.0%} of peak"
               if serving.bandwidth_fraction is not None else
               f"compute at {a.inference_mfu_fraction:.0%} of peak, memory bandwidth at {a.inference_mbu_fraction:.0%} "
               f"(16-bit weights) / {a.inference_mbu_fp8_fraction:.0%} (8-bit)"),
              f"KV cache in {section.inference.kv_cache_bytes_per_element:g} B per element",
              f"{a.inference_memory_usable_fraction:.0%} of GPU memory for weights + KV cache; tensor parallel up to "
              f"{a.max_tensor_parallel_degree} GPUs; continuous batching",
              f"GPUs busy {section.inference.target_utilisation_fraction:.0%} of paid time"])
    lines += [f"all-in power: GPU TDP + {a.server_non_gpu_fraction_of_tdp:.0%} server share, drawing on average "
              f"{power.AVERAGE_DRAW_FRACTION_OF_RATED:.0%} of that rating, x PUE {a.pue_ratio:g} "
              f"(an H100: {wall_kw:.2f} kW at the wall); grid intensity by country (2021)",
              f"missing fabric data: **{POLICY_LABEL[section.missing_fabric].lower()}**",
              f"{section.price_type} prices, {display.currency} at {display.usd_per_eur:.4f} USD/EUR"]
    return "**Assumptions**\n" + "\n".join(f"- {line}" for line in lines)


def _time_unit(hours: pd.Series) -> tuple[str, float]:
    return ("hours", 1.0) if hours.median() < 48 else ("days", 24.0)


def ranking_table(priced: Priced, section: WorkloadSection, display: DisplaySettings) -> tuple[pd.DataFrame, dict]:
    """The ranked offers for ``st.dataframe`` (costs in the display currency) and the column configuration."""
    sym = SYMBOL[display.currency]
    eur_cols = ["cost_eur", "price_eur_per_gpu_hour"] + (
        ["cost_eur_per_day", "cost_eur_per_million_tokens_at_volume"] if priced.mode == "inference" else [])
    out = eur_columns_to_display(priced.ranked, eur_cols, display)
    out["defaults_used"] = out["defaults_used"].replace("", "—")
    common = {
        "provider_name": st.column_config.TextColumn("Provider", pinned=True),
        "gpu": st.column_config.TextColumn("GPU", pinned=True),
        "form_factor": st.column_config.TextColumn("Form"),
        "gpus_per_node": st.column_config.TextColumn("GPUs/node"),
        "region": st.column_config.TextColumn("Region"),
    }
    tail = {
        "flags": st.column_config.TextColumn("Flags", help="⚠ price outlier (used only when you include outliers) · "
                                             f"⚠ stale price: retrieved more than {STALE_AFTER_DAYS} days ago"),
        "bound": st.column_config.TextColumn("Bound by", help="What limits the speed: compute, memory bandwidth or communication"),
        "price_eur_per_gpu_hour": money_column("Per GPU-hour", display, f"{section.price_type} price used"),
        "defaults_used": st.column_config.TextColumn("Stated defaults used", help="Catalog values this offer lacks, "
                                                     "replaced by the defaults listed under Assumptions"),
        "source_url": st.column_config.LinkColumn("Source", display_text="source ↗"),
        "offer_id": None,
    }
    if priced.mode == "training":
        unit, div = _time_unit(priced.ranked["time_hours"])
        out["time"] = out["time_hours"] / div
        middle = {
            "cost_eur": st.column_config.NumberColumn("Cost per job", format=f"{sym}%,.0f", help="GPU-hours x price per GPU-hour"),
            "time": st.column_config.NumberColumn(f"Time ({unit})", format="%.1f", help="Wall-clock time of the job"),
            "gpu_hours": st.column_config.NumberColumn("GPU-hours", format="%,.0f"),
            "layout": st.column_config.TextColumn("Layout", help="Tensor x context x pipeline x data parallel degrees, "
                                                  "interleaving, sharding and recomputation (auto: the fastest that "
                                                  "fits this GPU's memory)"),
            "runner_up": st.column_config.TextColumn("Runner-up layout", help="The second fastest layout that fits, how "
                                                     "much slower its step is and where its time goes"),
            "efficiency_pct": st.column_config.NumberColumn(
                "Scaling eff.", format="%.0f%%", help="Share of a step spent computing: the rest is pipeline bubble "
                "and communication that could not be hidden"),
            "goodput_pct": st.column_config.NumberColumn(
                "Goodput", format="%.1f%%", help="Share of wall-clock time that advances training: failures, "
                "checkpoints and restarts take the rest (Young/Daly)"),
            "mfu_pct": st.column_config.NumberColumn("MFU", format="%.0f%%",
                                                     help="Model FLOPs / (peak x step time), failures excluded"),
            "energy_kwh": st.column_config.NumberColumn("Energy (kWh)", format="%,.0f",
                                                        help="All-in: GPU at load + server's non-GPU share, x PUE"),
            "emissions_kg": st.column_config.NumberColumn("Emissions (kg CO2e)", format="%,.0f",
                                                          help=f"not stated: {EMISSIONS_NOT_COMPUTED} (data-centre country not stated)"),
            "uses_fp8": st.column_config.CheckboxColumn("FP8", help="Trained at the FP8 peak (FP8-ready and the GPU has one)"),
        }
    else:
        middle = {
            "cost_eur": money_column(f"Per M tokens, {load_text(section)}", display,
                                     "Cost per million generated tokens, GPUs busy as set above (utilisation)"),
            "cost_eur_per_million_tokens_at_volume": money_column(
                "Per M tokens, your volume", display, "Paid GPU-hours ÷ tokens served at your tokens per day"),
            "cost_eur_per_day": st.column_config.NumberColumn("Per day", format=f"{sym}%,.0f",
                                                              help="Whole replicas for the tokens per day, 24 h each"),
            "gpus_needed": st.column_config.NumberColumn("GPUs", format="%d", help="Whole replicas x GPUs per replica"),
            "request_latency_s": st.column_config.NumberColumn("Latency (s)", format="%.2f", help="First token + all output tokens"),
            "meets_latency_target": st.column_config.CheckboxColumn(f"≤ {section.latency_target_s:g} s"),
            "tokens_per_s_per_gpu": st.column_config.NumberColumn("Tokens/s per GPU", format="%,.0f"),
            "tensor_parallel_degree": st.column_config.NumberColumn("GPUs per replica", format="%d"),
            "gpu_hours": st.column_config.NumberColumn("GPU-h per M tokens", format="%.2f"),
            "energy_kwh": st.column_config.NumberColumn("kWh per M tokens", format="%.2f",
                                                        help="All-in: GPU + server's non-GPU share, x PUE"),
            "emissions_kg": st.column_config.NumberColumn("kg CO2e per M tokens", format="%.2f",
                                                          help=f"not stated: {EMISSIONS_NOT_COMPUTED}"),
        }
    config = {**common, **middle, **tail}
    return out[list(config)], config


def left_out_table(priced: Priced) -> tuple[pd.DataFrame, dict]:
    """Offers not ranked and offers ranked with stated defaults, with the reason."""
    left = priced.left_out.assign(status="left out")
    assumed = priced.ranked[priced.ranked["assumed_default"]].assign(status="priced with defaults",
                                                                      reason=lambda d: d["defaults_used"])
    out = pd.concat([left, assumed], ignore_index=True)
    config = {
        "status": st.column_config.TextColumn("Status"),
        "provider_name": st.column_config.TextColumn("Provider"),
        "gpu": st.column_config.TextColumn("GPU"),
        "gpus_per_node": st.column_config.TextColumn("GPUs/node"),
        "region": st.column_config.TextColumn("Region"),
        "reason": st.column_config.TextColumn("Why", width="large"),
        "source_url": st.column_config.LinkColumn("Source", display_text="source ↗"),
    }
    return out[list(config)], config


def offer_choices(priced: Priced) -> dict[str, str]:
    ranked = priced.ranked
    return dict(zip(ranked["offer_id"], ranked["label"], strict=True))


def scatter_frame(priced: Priced, display: DisplaySettings) -> pd.DataFrame:
    """Ranked offers with x = time (training, in the table's unit) or latency (inference), y = cost in the
    display currency, and whether each is on the Pareto front."""
    out = eur_columns_to_display(priced.ranked, ["cost_eur"], display)
    if priced.mode == "training":
        _, div = _time_unit(out["time_hours"])
        out["x"] = out["time_hours"] / div
    else:
        out["x"] = out["request_latency_s"]
    out["y"] = out["cost_eur"]
    out = out.dropna(subset=["x", "y"])
    return out.assign(is_front=pareto_front(out["x"].to_numpy(), out["y"].to_numpy()))


def axis_titles(priced: Priced, display: DisplaySettings) -> tuple[str, str]:
    sym = SYMBOL[display.currency]
    if priced.mode == "training":
        unit, _ = _time_unit(priced.ranked["time_hours"])
        return f"Wall-clock time ({unit})", f"Cost per job ({sym})"
    return "Latency per request (s)", f"Cost per million tokens ({sym})"


def breakdown_frame(row: pd.Series, display: DisplaySettings) -> pd.DataFrame:
    """Where the wall-clock time (and so the money) of the job goes on the selected offer: computing, pipeline
    bubble, communication that could not be hidden, and time lost to failures (the four shares sum to 1)."""
    u = row["utilisation_fraction"]
    shares = [
        ("Compute", f"Computing (at {u:.0%} of the peak while computing)", row["loss_compute"]),
        ("Pipeline bubble", "Pipeline stages idle while the pipeline fills and drains", row["loss_bubble"]),
        ("Exposed comm.", "Tensor/context/pipeline/data-parallel communication not hidden by compute",
         row["loss_communication"]),
        ("Failures", "Lost to failures: redone work, checkpoints and restarts", row["loss_failures"]),
    ]
    cost = float(eur_columns_to_display(pd.DataFrame({"c": [row["cost_eur"]]}), ["c"], display)["c"].iloc[0])
    return pd.DataFrame([(short, name, share, share * cost) for short, name, share in shares],
                        columns=["short", "part", "share", "cost"])


def breakdown_caption(row: pd.Series) -> str:
    step, comp = row["step_time_s"], row["compute_time_per_step_s"]
    exposed = {k: row[f"exposed_{k}_s"] for k in ("tp", "cp", "pp", "dp")}
    parts = ", ".join(f"{k.upper()} {v:.2f} s" for k, v in exposed.items() if v > 0.005) or "none"
    nodes = f"{row['n_nodes']:.0f} node{'s' if row['n_nodes'] > 1 else ''}"
    runner = row.get("runner_up") or "none fits"
    return (f"Layout {row['layout'] or 'n/a'} on {nodes} (the fastest that fits), {row['micro_batches']:.0f} "
            f"micro-batches per step. Runner-up: {runner}. "
            f"One optimizer step: {step:.2f} s = {comp:.2f} s compute + {row['bubble_time_per_step_s']:.2f} s pipeline "
            f"bubble + exposed communication ({parts}). Scaling efficiency {row['efficiency_pct']:.0f}%, MFU "
            f"{row['mfu_pct']:.0f}% (HFU {row['hfu_pct']:.0f}%). " + (
                f"The job fails every {row['mtbf_hours']:.1f} h on average; with checkpoints every "
                f"{row['checkpoint_interval_s'] / 60:.0f} min the goodput is {row['goodput_pct']:.1f}%. "
                if np.isfinite(row["mtbf_hours"]) else "No failures modelled (rate 0): goodput 100%. ")
            + f"Energy {row['energy_j_per_token']:.2f} J per trained token, all-in.")


def headline_metrics(priced: Priced, section: WorkloadSection, display: DisplaySettings) -> list[tuple[str, str, str]]:
    """(label, value, help) of the three headline numbers."""
    ranked, n = priced.ranked, len(priced.offers)
    count = ("Offers priced", f"{len(ranked)} of {n}", "The others are listed under 'Left out' with the reason")
    if ranked.empty:
        return [count]
    if priced.mode == "training":
        return [("Cheapest job", money(ranked["cost_eur"].min(), display, 0), "Cost of the whole job on the cheapest offer"),
                ("Fastest job", _duration(ranked["time_hours"].min()), "Wall-clock time on the fastest offer"), count]
    within = ranked[ranked["meets_latency_target"]]
    best = within if len(within) else ranked
    among = (f"the cheapest offer within the {section.latency_target_s:g} s latency target" if len(within)
             else "the cheapest offer (none meets the latency target)")
    return [(f"Per million tokens at {load_text(section)}", money(best["cost_eur"].iloc[0], display),
             f"On {among}, its GPUs busy {section.inference.target_utilisation_fraction:.0%} of paid time"),
            ("Per million tokens at your volume", money(best["cost_eur_per_million_tokens_at_volume"].iloc[0], display),
             f"Paid GPU-hours ÷ tokens served: {section.tokens_per_day / 1e6:,.0f}M tokens a day on "
             f"{best['gpus_needed'].iloc[0]:,.0f} GPUs (whole replicas, 24 h a day), on {among}"),
            ("Serving cost per day", money(best["cost_eur_per_day"].iloc[0], display, 0),
             f"{section.tokens_per_day / 1e6:,.0f}M tokens a day on the cheapest offer, whole replicas"),
            ("Lowest latency", f"{ranked['request_latency_s'].min():.2f} s", "Per request, first token plus all output tokens")]


def load_text(section: WorkloadSection) -> str:
    """'full load' at 100 % busy, else '60 % load'."""
    u = section.inference.target_utilisation_fraction
    return "full load" if u >= 1 else f"{u:.0%} load"


def inference_caption(row: pd.Series) -> str:
    return (f"On this offer one request takes {row['time_to_first_token_s']:.2f} s to the first token (prefill), then "
            f"{row['time_per_output_token_s'] * 1000:.1f} ms per output token; decode is bound by {row['bound'] or 'n/a'}. "
            "A bar marked ×n is a replica split over n GPUs (tensor parallel) because the weights and KV cache no "
            "longer fit in one; a missing bar does not fit at all.")
