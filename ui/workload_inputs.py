"""Inputs of the Workload cost page: its widgets, initialised from the scenario, read back into a validated
:class:`~ui.scenario.WorkloadSection` (with the page's words for an invalid input).

Pricing the section is :mod:`ui.workload_pricing`; shaping the result for display is :mod:`ui.workload_view`.
"""

from __future__ import annotations

import streamlit as st
from pydantic import ValidationError

from engine.scope import OfferScope, Residency
from engine.workload import (
    DEFAULT_ASSUMPTIONS,
    MODEL_PRESETS,
)
from engine.workload.inputs import default_global_batch_tokens
from engine.workload.serving_stacks import SERVING_STACK_SPECS
from engine.workload.stacks import TRAINING_STACK_SPECS
from ui import offer_scope
from ui.labels import (
    FABRIC_POLICY_LABELS,
    GRAD_BYTES_LABELS,
    JOB_KIND_LABELS,
    KV_BYTES_LABELS,
    LAYOUT_LABELS,
    RECOMPUTE_LABELS,
    SERVING_STACK_LABELS,
    TRAINING_STACK_LABELS,
    WEIGHT_BYTES_LABELS,
    WORKLOAD_INPUTS,
    WORKLOAD_PRICE_LABELS,
)
from ui.quotes import offers_with_quotes
from ui.scenario import WorkloadSection, get_scenario, update_scenario
from ui.workload_pricing import PRICE_COLUMN

CUSTOM = "custom"
SCOPE_KEY = "_wl_scope"




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
        "_wl_i_latency_s": s.latency_target_s, "_wl_i_batch_auto": s.batch_auto,
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
    k[0].selectbox("Job", list(JOB_KIND_LABELS), format_func=JOB_KIND_LABELS.__getitem__, key="_wl_t_kind",
                   help="Full training costs 6N FLOPs per token; LoRA/QLoRA on a frozen base about 4N (no weight "
                        "gradients of the base) and holds optimizer state for the adapters only; QLoRA keeps the "
                        "base in 4-bit NF4.")
    k[1].selectbox("Software stack", list(TRAINING_STACK_LABELS), format_func=TRAINING_STACK_LABELS.__getitem__, key="_wl_t_stack",
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
        a[2].selectbox("Gradient reduction precision", list(GRAD_BYTES_LABELS), format_func=GRAD_BYTES_LABELS.__getitem__, key="_wl_t_grad",
                       help="Bytes per gradient element sent over the fabric. Llama 3 reduced in FP32.")
        a[3].toggle("Shard the training state (ZeRO-1 or ZeRO-3)", key="_wl_t_sharded",
                    help="On: the layout search picks, per offer, the optimizer state sharded over the data-parallel "
                         "ranks (ZeRO-1, Megatron's distributed optimizer) or everything sharded (ZeRO-3 / FSDP), "
                         "whichever is faster and fits. Off: every replica holds the whole state (16 B per parameter).")
        b = st.columns(4)
        layout = b[0].segmented_control(
            "Parallel layout", list(LAYOUT_LABELS), format_func=LAYOUT_LABELS.__getitem__, key="_wl_t_layout", required=True,
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
        c[1].selectbox("Activation recomputation", list(RECOMPUTE_LABELS), format_func=RECOMPUTE_LABELS.__getitem__,
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
    c[1].selectbox("Weight precision", list(WEIGHT_BYTES_LABELS), format_func=WEIGHT_BYTES_LABELS.__getitem__, key="_wl_i_weights",
                   help="Bytes per weight held in GPU memory and read at every decode step.")
    c[2].number_input("Tokens per day (millions)", min_value=0.001, step=10.0, format="%.1f", key="_wl_i_tokens_day_m",
                      help="Generated tokens the service must deliver per day: sets how many GPUs to rent.")
    c[3].number_input("Latency target per request (s)", min_value=0.01, step=0.5, format="%.2f", key="_wl_i_latency_s",
                      help="Time to first token plus all output tokens. Offers above it are ranked after those that meet it.")
    d = st.columns(4)
    d[0].number_input("Prompt tokens per request", min_value=1, step=100, key="_wl_i_prompt")
    d[1].number_input("Output tokens per request", min_value=1, step=50, key="_wl_i_output")
    with d[2]:
        auto = st.toggle("Batch: cheapest within the latency target", key="_wl_i_batch_auto",
                         help="On (default): per offer, the concurrency cap an operator would set: the cheapest of 1 "
                              "to 256 sequences in flight (vLLM's default --max-num-seqs) whose requests meet the "
                              "latency target. Off: the batch size you type, on every offer.")
        st.number_input("Batch size (sequences in flight)", min_value=1, step=8, key="_wl_i_batch", disabled=auto,
                        help="Bigger batches raise throughput per GPU and lengthen each request.")
    d[3].toggle("FP8-ready serving stack", key="_wl_i_fp8", help="Compute in FP8 where the GPU has an FP8 peak.")
    e = st.columns(4)
    e[0].selectbox("Serving stack", list(SERVING_STACK_LABELS), format_func=SERVING_STACK_LABELS.__getitem__, key="_wl_i_stack",
                   help="Sets the share of the memory bandwidth a decode step reaches and the fixed time per layer "
                        "and step that dominates at batch 1: "
                        + "; ".join(f"{v.label}: {v.calibrated_on}" for v in SERVING_STACK_SPECS.values()))
    e[1].selectbox("KV-cache precision", list(KV_BYTES_LABELS), format_func=KV_BYTES_LABELS.__getitem__, key="_wl_i_kv",
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
        label, unit, scale = WORKLOAD_INPUTS.get(field, (field.replace("_", " ") or "Input", "", 1))
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
    tokens_per_day, latency_target_s, batch_auto = current.tokens_per_day, current.latency_target_s, current.batch_auto
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
        batch_auto = bool(ss.get("_wl_i_batch_auto", current.batch_auto))
    computed = current.computed_modes if mode == current.mode else tuple(sorted({*current.computed_modes, current.mode}))
    return WorkloadSection.model_validate(dict(
        mode=mode, computed_modes=computed, preset=preset, training=training, inference=inference, missing_fabric=ss["_wl_policy"],
        price_type=ss["_wl_price"], tokens_per_day=tokens_per_day, latency_target_s=latency_target_s,
        batch_auto=batch_auto, **reliability,
        scope=(scope or current.scope).model_dump(), residency=(residency or current.residency).model_dump(),
    ))


def workload_inputs() -> WorkloadSection | None:
    """Draw the inputs (initialised from the scenario) and return the valid section, or None after showing
    what is wrong next to the inputs. A valid section is written back to the scenario."""
    current = get_scenario().workload
    for key, value in _widget_values(current).items():
        st.session_state.setdefault(key, value)
    with st.container(border=True):
        # The two segmented controls get wide columns of their own: they do not wrap, and at presentation size a
        # quarter of the page cut "Inference" and "Assume defaults" off.
        mode_col, policy_col = st.columns([1.1, 1.6])
        mode = mode_col.segmented_control("Workload", ["training", "inference"], key="_wl_mode", required=True,
                                          format_func=str.capitalize)
        preset_col, price_col = st.columns(2)
        preset_col.selectbox("Model preset", [*MODEL_PRESETS, CUSTOM], key="_wl_preset",
                             format_func=_preset_label, on_change=_apply_preset,
                             help="Fills the model size (and, for inference, the layers and "
                             "KV heads) from the published architecture. Every field stays editable.")
        price_col.selectbox("Price", list(PRICE_COLUMN), format_func=WORKLOAD_PRICE_LABELS.__getitem__,
                            key="_wl_price", help="Which current catalog price of each offer a GPU-hour costs. "
                            "Offers without that price type are listed under 'Left out'.")
        policy_col.segmented_control(
            "When the catalog lacks fabric data", list(FABRIC_POLICY_LABELS), format_func=FABRIC_POLICY_LABELS.__getitem__, key="_wl_policy",
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


