"""Inputs of the Workload cost page: its widgets, initialised from the scenario, read back into a validated
:class:`~ui.scenario.WorkloadSection` (with the page's words for an invalid input).

One table, :data:`INPUTS`, holds per input the section field (``"training.n_params"``), its display scale and
conversion; the widgets' keys derive from the field paths (:func:`ui.scenario.widget_key`), and the prefill
(:func:`widget_values`) and the read-back (:func:`section_from_widgets`) loop over it (issue #32.5).

Pricing the section is :mod:`ui.workload_pricing`; shaping the result for display is :mod:`ui.workload_view`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal, Protocol

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
from ui.scenario import WorkloadSection, get_scenario, update_scenario, widget_key
from ui.workload_pricing import PRICE_COLUMN

SECTION = "wl"  # the scenario section the inputs hold (ui.scenario.WIDGET_FIELDS)
CUSTOM = "custom"  # the preset selectbox's entry for a model of no preset
#: Widget keys of inputs that are no field of the section: the layout radio (auto: TP / PP / CP searched per
#: offer; manual: the typed degrees) and the "published tokens" button.
LAYOUT_KEY = "_wl_t_layout"
PUBLISHED_TOKENS_KEY = "_wl_t_published"
#: Prefix of the offer-scope widgets' keys (ui.offer_scope; its residency toggles under SCOPE_KEY + "_res").
SCOPE_KEY = widget_key(SECTION, "scope")

Mode = Literal["training", "inference"]


class WidgetState(Protocol):
    """The widgets' values by key: ``st.session_state``, or a dict of them."""

    def __getitem__(self, key: str, /) -> Any: ...


def _scaled(value: Any, scale: Fraction) -> float:
    """``value x scale`` in one float operation (``x 1e9``, ``/ 100``), as the page always converted."""
    return float(value) * scale.numerator if scale.denominator == 1 else float(value) / scale.denominator


@dataclass(frozen=True)
class WidgetField:
    """One input of the page: the :class:`~ui.scenario.WorkloadSection` field its widget holds, and how.

    The widget's key derives from the field's path (:func:`ui.scenario.widget_key`, KeyError for a misspelt one).
    The widget shows ``field / scale`` (``None`` as ``none_shown_as``); reading back, the widget's value is cast
    and multiplied by ``scale``. A row is read back only in its page mode and while ``when`` holds; otherwise the
    field keeps the scenario's value (the other mode's job or service) or, in its own mode, the model default.
    """

    path: str  # "tokens_per_day", or "training.n_params" in the section's nested job or service
    cast: Callable[[Any], Any] | None = None  # type of the widget's value when read back; None: as it is
    scale: Fraction | int = 1  # field units per widget unit: 10**9 shows billions, Fraction(1, 100) percent
    none_shown_as: object = None  # the widget's value while the field is None
    when: Callable[[WidgetState], bool] | None = None  # read back only when this holds (else the default)
    mode: Mode | None = None  # read back only in this mode; default: the path's job or service, else always
    shown: Callable[[WorkloadSection], object] | None = None  # the widget's value, when not the field / scale
    read: Callable[[WidgetState], object] | None = None  # the field's value, when not widget x scale
    key: str = field(init=False)

    def __post_init__(self) -> None:
        scale = Fraction(self.scale)
        if scale.numerator != 1 and scale.denominator != 1:
            raise ValueError(f"{self.path}: a scale is an integer or 1 / an integer (got {scale})")
        object.__setattr__(self, "key", widget_key(SECTION, self.path))
        head = self.path.partition(".")[0]
        if self.mode is None and head in ("training", "inference"):
            object.__setattr__(self, "mode", head)

    def value_of(self, section: WorkloadSection) -> object:
        """The field's value in ``section``."""
        value: object = section
        for part in self.path.split("."):
            value = getattr(value, part)
        return value

    def to_widget(self, section: WorkloadSection) -> object:
        """The widget's value showing ``section``."""
        if self.shown is not None:
            return self.shown(section)
        value = self.value_of(section)
        if value is None:
            return self.none_shown_as
        return value if self.scale == 1 else _scaled(value, 1 / Fraction(self.scale))

    def from_widget(self, values: WidgetState) -> Any:
        """The field's value that the widgets' ``values`` (session state) describe."""
        if self.read is not None:
            return self.read(values)
        value = values[self.key]
        if self.cast is not None:
            value = self.cast(value)
        return value if self.scale == 1 else _scaled(value, Fraction(self.scale))


def _key(path: str) -> str:
    """The widget key of the input holding ``path`` (KeyError for a path the page has no input for)."""
    return INPUT[path].key


def _manual_layout(values: WidgetState) -> bool:
    return values[LAYOUT_KEY] == "manual"


def _spare_gpus(s: WorkloadSection) -> int:
    return (s.training.n_gpus_reserved or s.training.n_gpus) - s.training.n_gpus


#: The page's inputs, one row per WorkloadSection field a widget holds: prefill, widget keys and read-back all
#: loop over it, so a new input is one field, one row and one widget.
INPUTS: tuple[WidgetField, ...] = (
    WidgetField("mode"),
    WidgetField("preset", shown=lambda s: s.preset if s.preset in MODEL_PRESETS else CUSTOM),
    WidgetField("missing_fabric"),
    WidgetField("price_type"),
    WidgetField("pue_ratio", float),
    WidgetField("failures_per_million_gpu_hours", float, mode="training"),
    WidgetField("restart_s", float, scale=60, mode="training"),  # minutes
    WidgetField("training.n_params", float, scale=10**9),  # billions
    WidgetField("training.training_tokens", float, scale=10**9),
    WidgetField("training.n_gpus", int),
    WidgetField("training.is_fp8_ready", bool),
    WidgetField("training.is_global_batch_default", bool),
    # typed only while the default rule is off; else the rule's batch (TrainingJob's validator)
    WidgetField("training.global_batch_tokens", scale=10**6,
                when=lambda v: not v[_key("training.is_global_batch_default")]),
    WidgetField("training.sequence_length_tokens", int),
    WidgetField("training.job_kind"),
    WidgetField("training.software_stack"),
    WidgetField("training.tensor_parallel_degree", int, none_shown_as=8, when=_manual_layout),
    WidgetField("training.pipeline_parallel_degree", int, none_shown_as=1, when=_manual_layout),
    WidgetField("training.context_parallel_degree", int, when=_manual_layout),
    WidgetField("training.virtual_pipeline_stages", int, none_shown_as=0,  # 0: searched (None)
                when=lambda v: bool(int(v[_key("training.virtual_pipeline_stages")]))),
    WidgetField("training.recompute"),
    WidgetField("training.is_tp_comm_overlapped", bool),
    WidgetField("training.gradient_bytes_per_param"),
    WidgetField("training.is_state_sharded", bool),
    # shown as the spare GPUs on top of the job's (0: none, n_gpus_reserved None)
    WidgetField("training.n_gpus_reserved", shown=_spare_gpus,
                when=lambda v: bool(v[_key("training.n_gpus_reserved")]),
                read=lambda v: int(v[_key("training.n_gpus")]) + int(v[_key("training.n_gpus_reserved")])),
    WidgetField("inference.n_params", float, scale=10**9),  # billions
    WidgetField("inference.n_layers", int),
    WidgetField("inference.n_kv_heads", int),
    WidgetField("inference.head_dim", int),
    WidgetField("inference.weight_bytes_per_param"),
    WidgetField("inference.is_fp8_ready", bool),
    WidgetField("inference.serving_stack"),
    WidgetField("inference.kv_cache_bytes_per_element", float),
    WidgetField("inference.prompt_tokens", int),
    WidgetField("inference.output_tokens", int),
    WidgetField("inference.batch_size", int),
    WidgetField("inference.target_utilisation_fraction", scale=Fraction(1, 100)),  # percent
    WidgetField("tokens_per_day", scale=10**6, mode="inference"),  # millions
    WidgetField("latency_target_s", mode="inference"),
    WidgetField("batch_auto", bool, mode="inference"),
)
INPUT: dict[str, WidgetField] = {row.path: row for row in INPUTS}


def widget_values(section: WorkloadSection) -> dict[str, object]:
    """Every input widget's value showing ``section`` (session-state key -> value)."""
    values = {row.key: row.to_widget(section) for row in INPUTS}
    values[LAYOUT_KEY] = "auto" if section.training.tensor_parallel_degree is None else "manual"
    return values


#: Inputs a preset fills (its architecture), in both modes.
_PRESET_FIELDS = ("training.n_params", "training.sequence_length_tokens", "inference.n_params", "inference.n_layers",
                  "inference.n_kv_heads", "inference.head_dim")


def _apply_preset() -> None:
    """Preset picked: copy its architecture into both modes' fields (and the scenario, for the hidden mode)."""
    name = st.session_state[_key("preset")]
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
    for path in _PRESET_FIELDS:
        st.session_state[_key(path)] = INPUT[path].to_widget(section)


def _rule_batch_m() -> float:
    """The default rule's global batch for the job the widgets describe [million tokens]."""
    ss = st.session_state
    return default_global_batch_tokens(
        *(INPUT[path].from_widget(ss) for path in ("training.job_kind", "training.n_params", "training.training_tokens",
                                                   "training.sequence_length_tokens", "training.n_gpus"))) / 1e6


def _batch_rule_toggled() -> None:
    """Leaving the rule starts the typed batch from the rule's value (not from a stale one)."""
    if not st.session_state[_key("training.is_global_batch_default")]:
        st.session_state[_key("training.global_batch_tokens")] = round(_rule_batch_m(), 3)


def _use_published_tokens() -> None:
    p = MODEL_PRESETS.get(st.session_state[_key("preset")])
    if p is not None and p.training_tokens_reported:
        st.session_state[_key("training.training_tokens")] = p.training_tokens_reported / 1e9


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
                      key=_key("training.n_params"),
                      help="Dense parameters N; for a mixture of experts, the active ones per token.")
    c[1].number_input("Training tokens (billions)", min_value=0.001, step=10.0, format="%.1f",
                      key=_key("training.training_tokens"),
                      help="Tokens D seen in training; compute = 6 N D (Kaplan et al. 2020).")
    p = MODEL_PRESETS.get(preset)
    if p is not None and p.training_tokens_reported:
        c[1].button(f"Use the published {p.training_tokens_reported / 1e12:g}T tokens", key=PUBLISHED_TOKENS_KEY,
                    on_click=_use_published_tokens, type="tertiary")
    c[2].number_input("GPUs", min_value=1, step=8, key=_key("training.n_gpus"),
                      help="GPUs the job runs on, all rented from one offer.")
    c[3].toggle("FP8-ready software stack", key=_key("training.is_fp8_ready"),
                help="Train in FP8 (e.g. Transformer Engine). Only GPUs with an FP8 peak gain from it (H100, H200, "
                     "B200, MI300X ...); A100 and older keep their BF16 speed.")
    k = st.columns(4)
    k[0].selectbox("Job", list(JOB_KIND_LABELS), format_func=JOB_KIND_LABELS.__getitem__, key=_key("training.job_kind"),
                   help="Full training costs 6N FLOPs per token; LoRA/QLoRA on a frozen base about 4N (no weight "
                        "gradients of the base) and holds optimizer state for the adapters only; QLoRA keeps the "
                        "base in 4-bit NF4.")
    k[1].selectbox("Software stack", list(TRAINING_STACK_LABELS), format_func=TRAINING_STACK_LABELS.__getitem__,
                   key=_key("training.software_stack"),
                   help="How close the job gets to the hardware's peak, and which layouts it can run: "
                        + "; ".join(f"{v.label}: {v.calibrated_on}" for v in TRAINING_STACK_SPECS.values()))
    with st.expander("Parallelism, reliability and power"):
        a = st.columns(4)
        auto_batch = bool(st.session_state.get(_key("training.is_global_batch_default")))
        if auto_batch:
            a[0].metric("Global batch (million tokens)", f"{_rule_batch_m():.2f}",
                        help="The default rule, recomputed when the job kind, model, tokens, sequence length or GPUs "
                             "change: DeepSeek LLM's batch law for pre-training, 32 sequences for fine-tuning.")
        else:
            a[0].number_input("Global batch (million tokens)", min_value=0.001, max_value=1000.0, step=0.5,
                              format="%.2f", key=_key("training.global_batch_tokens"),
                              help="Tokens per optimizer step: one gradient reduction each. Llama 2 used 4M, Llama 3 "
                                   "16M.")
        a[0].toggle("Default batch rule", key=_key("training.is_global_batch_default"), on_change=_batch_rule_toggled,
                    help="On: the batch follows the rule (shown under Assumptions). Off: type your own.")
        a[1].number_input("Sequence length (tokens)", min_value=1, step=1024,
                          key=_key("training.sequence_length_tokens"),
                          help="Tokens per training sequence; sets the micro-batches per step and the attention FLOPs.")
        a[2].selectbox("Gradient reduction precision", list(GRAD_BYTES_LABELS), format_func=GRAD_BYTES_LABELS.__getitem__,
                       key=_key("training.gradient_bytes_per_param"),
                       help="Bytes per gradient element sent over the fabric. Llama 3 reduced in FP32.")
        a[3].toggle("Shard the training state (ZeRO-1 or ZeRO-3)", key=_key("training.is_state_sharded"),
                    help="On: the layout search picks, per offer, the optimizer state sharded over the data-parallel "
                         "ranks (ZeRO-1, Megatron's distributed optimizer) or everything sharded (ZeRO-3 / FSDP), "
                         "whichever is faster and fits. Off: every replica holds the whole state (16 B per parameter).")
        b = st.columns(4)
        layout = b[0].segmented_control(
            "Parallel layout", list(LAYOUT_LABELS), format_func=LAYOUT_LABELS.__getitem__, key=LAYOUT_KEY, required=True,
            help="Auto: per offer, the fastest layout that fits its memory (TP inside the node, PP, interleaving, "
                 "ZeRO-1 or ZeRO-3, recomputation), as a practitioner would tune it; the runner-up is shown with the "
                 "result. Manual: your degrees for every offer; TP x CP x PP x DP must equal the GPUs.")
        manual = layout == "manual"
        b[1].number_input("Tensor-parallel degree", min_value=1, step=1, key=_key("training.tensor_parallel_degree"),
                          disabled=not manual,
                          help="GPUs that split each layer, kept inside one node.")
        b[2].number_input("Pipeline-parallel degree", min_value=1, step=1, key=_key("training.pipeline_parallel_degree"),
                          disabled=not manual,
                          help="Stages the layers are cut into; idle bubble (p-1)/(v m + p - 1) per step.")
        b[3].number_input("Context-parallel degree", min_value=1, step=1, key=_key("training.context_parallel_degree"),
                          disabled=not manual,
                          help="GPUs that split each sequence (long-context training, Llama 3).")
        c = st.columns(4)
        c[0].number_input("Interleaved stages per GPU (0 = searched)", min_value=0, max_value=128, step=1,
                          key=_key("training.virtual_pipeline_stages"),
                          help="Virtual pipeline stages v (interleaved 1F1B): divides the bubble by v and lets stage "
                               "sends overlap compute. 0: the search chooses.")
        c[1].selectbox("Activation recomputation", list(RECOMPUTE_LABELS), format_func=RECOMPUTE_LABELS.__getitem__,
                       key=_key("training.recompute"),
                       help="Full recomputation saves memory and costs one more forward pass (HFU > MFU).")
        c[2].toggle("Overlap tensor-parallel communication", key=_key("training.is_tp_comm_overlapped"),
                    help=f"TP collectives overlapped with GEMMs: {DEFAULT_ASSUMPTIONS.tp_overlap_fraction:.0%} of them "
                         "hidden (assumption). Off: all on the critical path.")
        c[3].number_input("Spare GPUs reserved", min_value=0, step=8, key=_key("training.n_gpus_reserved"),
                          help="Paid and powered but idle (hot spares): cost and idle energy, no speed.")
        d = st.columns(4)
        d[0].number_input("Failures per million GPU-hours", min_value=0.0, step=5.0, format="%.1f",
                          key=_key("failures_per_million_gpu_hours"),
                          help="Job-stopping failures; default from Llama 3 (419 in 54 days on 16,384 H100). Goodput "
                               "= useful share of wall-clock time with Daly-optimal checkpoints.")
        d[1].number_input("Restart time (minutes)", min_value=0.0, step=5.0, format="%.0f", key=_key("restart_s"),
                          help="Detect, reschedule and reload a checkpoint after a failure (assumption: 10 min).")
        d[2].number_input("PUE", min_value=1.0, max_value=3.0, step=0.05, format="%.2f", key=_key("pue_ratio"),
                          help="Facility energy / IT energy. Energy counts the GPU at load, the server's non-GPU share "
                               "(CPU, memory, NICs, fans) and this PUE.")


def _inference_fields() -> None:
    c = st.columns(4)
    c[0].number_input("Model size (billion parameters)", min_value=0.001, step=1.0, format="%.1f",
                      key=_key("inference.n_params"))
    c[1].selectbox("Weight precision", list(WEIGHT_BYTES_LABELS), format_func=WEIGHT_BYTES_LABELS.__getitem__,
                   key=_key("inference.weight_bytes_per_param"),
                   help="Bytes per weight held in GPU memory and read at every decode step.")
    c[2].number_input("Tokens per day (millions)", min_value=0.001, step=10.0, format="%.1f",
                      key=_key("tokens_per_day"),
                      help="Generated tokens the service must deliver per day: sets how many GPUs to rent.")
    c[3].number_input("Latency target per request (s)", min_value=0.01, step=0.5, format="%.2f",
                      key=_key("latency_target_s"),
                      help="Time to first token plus all output tokens. Offers above it are ranked after those that meet it.")
    d = st.columns(4)
    d[0].number_input("Prompt tokens per request", min_value=1, step=100, key=_key("inference.prompt_tokens"))
    d[1].number_input("Output tokens per request", min_value=1, step=50, key=_key("inference.output_tokens"))
    with d[2]:
        auto = st.toggle("Batch: cheapest within the latency target", key=_key("batch_auto"),
                         help="On (default): per offer, the concurrency cap an operator would set: the cheapest of 1 "
                              "to 256 sequences in flight (vLLM's default --max-num-seqs) whose requests meet the "
                              "latency target. Off: the batch size you type, on every offer.")
        st.number_input("Batch size (sequences in flight)", min_value=1, step=8, key=_key("inference.batch_size"),
                        disabled=auto,
                        help="Bigger batches raise throughput per GPU and lengthen each request.")
    d[3].toggle("FP8-ready serving stack", key=_key("inference.is_fp8_ready"),
                help="Compute in FP8 where the GPU has an FP8 peak.")
    e = st.columns(4)
    e[0].selectbox("Serving stack", list(SERVING_STACK_LABELS), format_func=SERVING_STACK_LABELS.__getitem__,
                   key=_key("inference.serving_stack"),
                   help="Sets the share of the memory bandwidth a decode step reaches and the fixed time per layer "
                        "and step that dominates at batch 1: "
                        + "; ".join(f"{v.label}: {v.calibrated_on}" for v in SERVING_STACK_SPECS.values()))
    e[1].selectbox("KV-cache precision", list(KV_BYTES_LABELS), format_func=KV_BYTES_LABELS.__getitem__,
                   key=_key("inference.kv_cache_bytes_per_element"),
                   help="FP8 KV cache (as FP8 checkpoints of TensorRT-LLM and vLLM use) halves the cache per token: "
                        "more sequences fit next to the weights.")
    with st.expander("Architecture and utilisation"):
        a = st.columns(4)
        a[0].number_input("Layers", min_value=1, step=1, key=_key("inference.n_layers"))
        a[1].number_input("KV heads", min_value=1, step=1, key=_key("inference.n_kv_heads"),
                          help="Grouped-query attention: fewer than the heads.")
        a[2].number_input("Head dimension", min_value=1, step=1, key=_key("inference.head_dim"))
        a[3].number_input("Utilisation (% of paid GPU time serving)", min_value=0.1, step=5.0, format="%.0f",
                          key=_key("inference.target_utilisation_fraction"),
                          help="100 % is an upper bound: real traffic has gaps.")


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


def section_from_widgets(values: WidgetState, current: WorkloadSection, scope: OfferScope | None = None,
                         residency: Residency | None = None) -> WorkloadSection:
    """The section the widgets' ``values`` (session state) describe (raises ValidationError on an invalid input).

    The inputs of the page's mode (:data:`INPUTS`) are read; the other mode's job or service and its settings stay
    as in ``current``. The job or service of the mode is built afresh (fields without an input take the model's
    default; the architecture follows the preset when the model size is the preset's). Built from plain dicts, so
    that a section kept in the session from before a module reload (Streamlit re-imports edited modules while the
    server runs) still validates against the current classes.
    """
    mode = values[_key("mode")] or current.mode
    data: dict[str, Any] = {
        "training": {} if mode == "training" else current.training.model_dump(),
        "inference": {} if mode == "inference" else current.inference.model_dump(),
    }
    for row in INPUTS:
        head, _, name = row.path.rpartition(".")
        into = data[head] if head else data
        if row.mode not in (None, mode):
            if not head:
                into[name] = row.value_of(current)
        elif row.when is None or row.when(values):
            into[name] = row.from_widget(values)
    data["mode"] = mode
    preset = data["preset"]
    if mode == "training":
        job = data["training"]
        job["model_name"] = model = _model_name(preset, job["n_params"])
        p = MODEL_PRESETS.get(model)
        job.update(n_layers=p.n_layers if p else None, d_model=p.d_model if p else None,
                   kv_dim=p.n_kv_heads * p.head_dim if p else None)
    else:
        svc = data["inference"]
        svc["model_name"] = model = _model_name(preset, svc["n_params"])
        p = MODEL_PRESETS.get(model)
        # Not widgets: a mixture of experts' total parameters (all experts sit in memory) and the hidden size.
        svc.update(n_params_total=p.n_params_total if p else None, d_model=p.d_model if p else None)
    computed = current.computed_modes if mode == current.mode else tuple(sorted({*current.computed_modes, current.mode}))
    return WorkloadSection.model_validate(dict(
        data, computed_modes=computed,
        scope=(scope or current.scope).model_dump(), residency=(residency or current.residency).model_dump()))


def workload_inputs() -> WorkloadSection | None:
    """Draw the inputs (initialised from the scenario) and return the valid section, or None after showing
    what is wrong next to the inputs. A valid section is written back to the scenario."""
    current = get_scenario().workload
    for key, value in widget_values(current).items():
        st.session_state.setdefault(key, value)
    with st.container(border=True):
        # The two segmented controls get wide columns of their own: they do not wrap, and at presentation size a
        # quarter of the page cut "Inference" and "Assume defaults" off.
        mode_col, policy_col = st.columns([1.1, 1.6])
        mode = mode_col.segmented_control("Workload", ["training", "inference"], key=_key("mode"), required=True,
                                          format_func=str.capitalize)
        preset_col, price_col = st.columns(2)
        preset_col.selectbox("Model preset", [*MODEL_PRESETS, CUSTOM], key=_key("preset"),
                             format_func=_preset_label, on_change=_apply_preset,
                             help="Fills the model size (and, for inference, the layers and "
                             "KV heads) from the published architecture. Every field stays editable.")
        price_col.selectbox("Price", list(PRICE_COLUMN), format_func=WORKLOAD_PRICE_LABELS.__getitem__,
                            key=_key("price_type"), help="Which current catalog price of each offer a GPU-hour costs. "
                            "Offers without that price type are listed under 'Left out'.")
        policy_col.segmented_control(
            "When the catalog lacks fabric data", list(FABRIC_POLICY_LABELS), format_func=FABRIC_POLICY_LABELS.__getitem__,
            key=_key("missing_fabric"),
            required=True, help="A multi-GPU job needs GPUs per node and the intra-node link; a multi-node job also "
            "needs the inter-node fabric and its bandwidth. Leave such offers out, or price them with the stated "
            f"defaults ({DEFAULT_ASSUMPTIONS.assumed_gpus_per_node} GPUs per node, "
            f"{DEFAULT_ASSUMPTIONS.assumed_intra_busbw_gb_per_s:g} GB/s PCIe inside the node, "
            f"{DEFAULT_ASSUMPTIONS.assumed_inter_link_gbit_per_s_per_gpu:g} Gbit/s per GPU between nodes) and flag them.")
        if mode == "training":
            _training_fields(st.session_state[_key("preset")])
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
            section = section_from_widgets(st.session_state, current, scope, residency)
        except ValidationError as exc:
            st.error("**This input cannot be priced.**\n\n" + "\n".join(f"- {m}" for m in _messages(exc)),
                     icon=":material/error:")
            return None
    if section != current:
        update_scenario(workload=section)
    return section


