"""Inputs of the workload engine: the training job, the inference service and every sourced default
(:class:`EngineAssumptions`).

Part of :mod:`engine.workload`; the references [n] are in its docstring.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine import goodput as goodput_model
from engine import network, power
from engine.assumptions import Assumption, assumed, assumptions_of
from engine.parallelism import RecomputeMode
from engine.workload.data import MODEL_PRESETS, estimated_shape
from engine.workload.serving_stacks import ServingStack
from engine.workload.stacks import TrainingStack

JobKind = Literal["pretraining", "full_finetune", "lora", "qlora"]
JOB_KINDS: tuple[str, ...] = ("pretraining", "full_finetune", "lora", "qlora")
#: Bytes per frozen base weight: BF16 for LoRA; NF4 with double quantisation for QLoRA, 4.127 bits per parameter
#: (Dettmers et al., arXiv:2305.14314 s3: "reduces the memory footprint from 4.5 to 4.127 bits per parameter" with
#: the 0.127-bit quantisation constants).
BASE_WEIGHT_BYTES = {"lora": 2.0, "qlora": 4.127 / 8.0}
#: Sequences per step of a fine-tuning job when the user gives no batch: NeMo 24.07's SFT and LoRA recipes (global
#: batch 32, packed sequences; github.com/NVIDIA/NeMo docs/source/performance/performance_summary.md at commit
#: 8e3d65dcfe3504689bfc5b6e67d502780aacad41).
FINETUNE_BATCH_SEQUENCES = 32


#: Upper bound of a job's global batch [tokens] (the validated field's bound).
MAX_GLOBAL_BATCH_TOKENS = 1e9


def default_global_batch_tokens(kind: str, n_params: float, training_tokens: float, seq: int, n_gpus: int) -> float:
    """Global batch of a job whose user gives none [tokens], rounded to whole sequences.

    * pre-training: the compute-optimal batch of DeepSeek LLM's scaling law ``B = 0.2920 C^0.3271`` with
      ``C = 6 N D`` FLOPs (DeepSeek-AI, arXiv:2401.02954 s3.1, fitted on their runs; it gives the 9.4M / 18.9M
      tokens their 7B / 67B models used);
    * fine-tuning (full, LoRA, QLoRA): 32 sequences (NeMo 24.07 SFT and LoRA recipes);

    and never fewer than ``n_gpus / 64`` sequences, so a layout with TP 8 x PP 8 still gives every data-parallel
    replica a micro-batch; never more than the field's bound, :data:`MAX_GLOBAL_BATCH_TOKENS`.

    Examples
    --------
    >>> round(default_global_batch_tokens("pretraining", 70e9, 2e12, 4096, 1024) / 1e6, 1)  # 70B on 2T tokens
    19.5
    >>> default_global_batch_tokens("lora", 70e9, 20e9, 4096, 8)  # 32 x 4096
    131072.0
    """
    if kind == "pretraining":
        sequences = max(1.0, round(0.2920 * (6.0 * n_params * training_tokens) ** 0.3271 / seq))
    else:
        sequences = float(FINETUNE_BATCH_SEQUENCES)
    sequences = max(sequences, math.ceil(n_gpus / 64))
    return float(max(1, min(sequences, math.floor(MAX_GLOBAL_BATCH_TOKENS / seq)))) * seq

MissingFabricPolicy = Literal["exclude", "assume_default"]
MISSING_FABRIC_POLICIES: tuple[str, ...] = ("exclude", "assume_default")


class TrainingJob(BaseModel):
    """A transformer pre-training (or fine-tuning) run and how it is parallelised.

    Parallel degrees: ``tensor_parallel_degree x context_parallel_degree x pipeline_parallel_degree x
    data_parallel_degree`` must equal ``n_gpus`` (a clear error otherwise). Leave TP / PP / DP at ``None`` to let the
    engine choose, per offer, the smallest TP x PP that fits in that GPU's memory (:mod:`engine.parallelism`).

    Examples
    --------
    >>> job = TrainingJob.from_preset("llama-2-7b", n_gpus=256)  # batch from the DeepSeek rule: 2,247 x 4096 tokens
    >>> job.training_tokens, job.global_batch_tokens, job.global_batch_sequences
    (2000000000000.0, 9203712.0, 2247.0)
    >>> TrainingJob.from_preset("llama-2-70b", n_gpus=64, tensor_parallel_degree=8, pipeline_parallel_degree=4,
    ...                         data_parallel_degree=2).data_parallel_degree
    2
    >>> TrainingJob.from_preset("llama-2-70b", n_gpus=64, tensor_parallel_degree=8, pipeline_parallel_degree=4,
    ...                         data_parallel_degree=2, context_parallel_degree=2)
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for TrainingJob
      Value error, tensor (8) x context (2) x pipeline (4) x data (2) parallel degrees = 128, but n_gpus = 64; ...
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    model_name: str = "custom"
    n_params: float = Field(gt=0, le=1e14, description="parameters N (MoE: active per token) [-]")
    training_tokens: float = Field(gt=0, le=1e16, description="tokens D [-]")
    n_gpus: int = Field(ge=1, le=1_000_000, description="GPUs used [-]")
    global_batch_tokens: float = Field(  # type: ignore[assignment]
        default=None, gt=0, le=1e9, validate_default=False,
        description="tokens per optimizer step [-]; None = the default rule (default_global_batch_tokens)",
    )
    is_global_batch_default: bool = Field(default=False, description="the batch came from the default rule")
    job_kind: JobKind = Field(
        default="pretraining", description="pre-training, full fine-tuning, or LoRA / QLoRA adapters on a frozen base")
    lora_rank: int = Field(default=16, ge=1, le=4096,
                           description="LoRA rank r (adapters on every linear layer); MLPerf Llama 2 70B LoRA uses 16")
    software_stack: TrainingStack = Field(default="generic", description="training software (utilisation, layouts)")
    sequence_length_tokens: int = Field(
        default=4096, ge=1, le=10_000_000, description="training sequence length [-]; default 4096 = Llama 2")
    micro_batch_sequences: int = Field(default=1, ge=1, le=4096, description="sequences per micro-batch [-]")
    n_layers: int | None = Field(default=None, ge=1, le=10_000, description="None = estimated from N (h/L = 128)")
    d_model: int | None = Field(default=None, ge=1, le=1_000_000, description="hidden size; None = estimated")
    kv_dim: int | None = Field(default=None, ge=1, le=1_000_000,
                               description="KV heads x head dimension (context-parallel traffic); None = d_model")
    is_fp8_ready: bool = Field(default=False, description="the software stack trains in FP8 (Transformer Engine)")
    tensor_parallel_degree: int | None = Field(default=None, ge=1, le=64,
                                               description="TP group, kept inside one node; None = chosen per offer")
    pipeline_parallel_degree: int | None = Field(default=None, ge=1, le=1024, description="None = chosen per offer")
    context_parallel_degree: int = Field(default=1, ge=1, le=1024, description="CP group (sequence split) [-]")
    data_parallel_degree: int | None = Field(default=None, ge=1, le=1_000_000,
                                             description="None = n_gpus / (TP x CP x PP)")
    virtual_pipeline_stages: int | None = Field(
        default=None, ge=1, le=128,
        description="interleaved 1F1B chunks per GPU v (Narayanan et al. s2.2.2); 1 = plain; None = searched")
    recompute: RecomputeMode = Field(
        default="auto", description="activation recomputation: auto = selective if it fits, else full")
    is_tp_comm_overlapped: bool = Field(default=False, description="TP collectives overlapped with GEMMs (--tp-comm-overlap)")
    gradient_bytes_per_param: float = Field(
        default=2.0, gt=0, le=8,
        description="bytes per gradient element reduced [B]; 2 = BF16 (Transformer Math 101); Llama 3 reduced in FP32 (4)",
    )
    training_state_bytes_per_param: float = Field(
        default=16.0, gt=0, le=64,
        description="weights + grads + AdamW state [B/param]; 16 (Transformer Math 101), activations separate",
    )
    is_state_sharded: bool = Field(
        default=True, description="ZeRO-3/FSDP: training state divided over all GPUs (else over TP x PP only)"
    )
    n_gpus_reserved: int | None = Field(
        default=None, ge=1, le=1_000_000,
        description="GPUs paid and powered for the job (>= n_gpus; the rest idle, e.g. hot spares); None = n_gpus")
    checkpoint_interval_s: float | None = Field(
        default=None, gt=0, le=1e7, description="seconds of work between checkpoints; None = Daly's optimum")

    @model_validator(mode="before")
    @classmethod
    def _default_batch(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("global_batch_tokens") is None:
            try:
                n = float(data["n_params"])
                d = float(data["training_tokens"])
                seq = int(data.get("sequence_length_tokens", 4096))
                gpus = int(data["n_gpus"])
                kind = str(data.get("job_kind", "pretraining"))
            except (KeyError, TypeError, ValueError):
                return data  # the field validators report what is wrong
            if not all(map(math.isfinite, (n, d))) or n <= 0 or d <= 0 or seq < 1 or gpus < 1:
                return data
            data = {**data, "global_batch_tokens": default_global_batch_tokens(kind, n, d, seq, gpus),
                    "is_global_batch_default": True}
        return data

    @model_validator(mode="after")
    def _degrees_multiply_to_gpus(self) -> TrainingJob:
        tp, pp, dp, cp = (self.tensor_parallel_degree, self.pipeline_parallel_degree, self.data_parallel_degree,
                          self.context_parallel_degree)
        given = [x for x in (tp, pp, dp) if x is not None]
        product = cp * math.prod(given)
        if None not in (tp, pp, dp):
            if product != self.n_gpus:
                raise ValueError(
                    f"tensor ({tp}) x context ({cp}) x pipeline ({pp}) x data ({dp}) parallel degrees = {product}, "
                    f"but n_gpus = {self.n_gpus}; their product must equal the GPUs")
        elif self.n_gpus % product:
            raise ValueError(f"the parallel degrees given (product {product}) must divide n_gpus = {self.n_gpus}")
        if tp is not None and pp is not None and dp is None and self.n_gpus % (tp * cp * pp):
            raise ValueError("n_gpus must be a multiple of TP x CP x PP")
        n_layers = self.layers_and_width[0]
        if pp is not None and pp > n_layers:
            raise ValueError(f"pipeline_parallel_degree ({pp}) exceeds the layers ({n_layers})")
        if self.n_gpus_reserved is not None and self.n_gpus_reserved < self.n_gpus:
            raise ValueError("n_gpus_reserved must be at least n_gpus")
        if self.sequence_length_tokens % cp:
            raise ValueError("sequence_length_tokens must be a multiple of context_parallel_degree")
        dp_fixed = self.fixed_data_parallel_degree
        if dp_fixed is not None and self.global_batch_sequences < dp_fixed * self.micro_batch_sequences:
            raise ValueError(
                f"the global batch ({self.global_batch_sequences:g} sequences) is smaller than data-parallel degree "
                f"({dp_fixed}) x micro-batch ({self.micro_batch_sequences}): every replica needs a micro-batch")
        return self

    @property
    def global_batch_sequences(self) -> float:
        """Sequences per optimizer step, ``global_batch_tokens / sequence_length_tokens`` [-]."""
        return self.global_batch_tokens / self.sequence_length_tokens

    @property
    def layers_and_width(self) -> tuple[int, int]:
        """(n_layers, d_model), estimated from N where not given (:func:`estimated_shape`)."""
        est_l, est_h = estimated_shape(self.n_params)
        return self.n_layers or est_l, self.d_model or est_h

    @property
    def fixed_data_parallel_degree(self) -> int | None:
        """DP when the layout is fixed by the job (given, or derived from TP, CP, PP), else None."""
        if self.data_parallel_degree is not None:
            return self.data_parallel_degree
        if self.tensor_parallel_degree is not None and self.pipeline_parallel_degree is not None:
            return self.n_gpus // (self.tensor_parallel_degree * self.context_parallel_degree
                                   * self.pipeline_parallel_degree)
        return None

    @classmethod
    def from_preset(cls, preset: str, *, n_gpus: int, training_tokens: float | None = None, **kwargs: Any) -> TrainingJob:
        """Job for a :data:`MODEL_PRESETS` model; ``training_tokens`` defaults to the published count, the sequence
        length to the model's context, the architecture to the preset's."""
        p = MODEL_PRESETS[preset]
        tokens = training_tokens if training_tokens is not None else p.training_tokens_reported
        kwargs.setdefault("sequence_length_tokens", p.max_context_tokens)
        kwargs.setdefault("n_layers", p.n_layers)
        kwargs.setdefault("d_model", p.d_model)
        kwargs.setdefault("kv_dim", p.n_kv_heads * p.head_dim)
        return cls(model_name=p.name, n_params=p.n_params, training_tokens=tokens, n_gpus=n_gpus, **kwargs)


class InferenceService(BaseModel):
    """An LLM served with continuous batching, up to ``batch_size`` sequences in flight per model replica.

    Examples
    --------
    >>> s = InferenceService.from_preset("llama-3-8b", prompt_tokens=512, output_tokens=256, batch_size=16)
    >>> s.kv_cache_bytes_per_token  # 2 x 32 layers x 8 KV heads x 128 x 2 B
    131072.0
    >>> InferenceService.from_preset("qwen3-235b-a22b", prompt_tokens=1, output_tokens=1, batch_size=1).active_fraction
    0.09361702127659574
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    model_name: str = "custom"
    n_params: float = Field(gt=0, le=1e14, description="parameters active per token (dense: all) [-]")
    n_params_total: float | None = Field(default=None, gt=0, le=1e14,
                                         description="MoE: all parameters held in memory; None = dense (= n_params)")
    n_layers: int = Field(ge=1, le=1000)
    n_kv_heads: int = Field(ge=1, le=1024)
    head_dim: int = Field(ge=1, le=4096)
    d_model: int | None = Field(default=None, ge=1, le=1_000_000, description="hidden size; None = estimated from N")
    weight_bytes_per_param: float = Field(default=2.0, gt=0, le=4, description="2 = BF16/FP16, 1 = FP8/INT8 [B]")
    kv_cache_bytes_per_element: float = Field(default=2.0, gt=0, le=4, description="[B]")
    prompt_tokens: int = Field(ge=1, le=10_000_000, description="input tokens per request [-]")
    output_tokens: int = Field(ge=1, le=10_000_000, description="generated tokens per request [-]")
    batch_size: int = Field(ge=1, le=65_536, description="most sequences in flight per replica (max_num_seqs) [-]")
    is_fp8_ready: bool = Field(default=False, description="the serving stack computes in FP8")
    serving_stack: ServingStack = Field(
        default="vllm", description="serving software: memory-bandwidth utilisation and fixed time per layer and step")
    tensor_parallel_degree: int | None = Field(
        default=None, ge=1, le=64, description="GPUs per replica; None = smallest power of two that holds the batch"
    )
    request_rate_per_s: float | None = Field(
        default=None, gt=0, le=1e7,
        description="requests per second to serve (all replicas); None = price the full-load throughput")
    target_utilisation_fraction: float = Field(
        default=1.0, gt=0, le=1,
        description="share of paid GPU time serving at the modelled throughput; 1.0 = upper bound (user assumption)",
    )
    output_tokens_total: float = Field(
        default=1e6, gt=0, description="generated tokens to price (default one million) [-]"
    )

    @model_validator(mode="after")
    def _total_at_least_active(self) -> InferenceService:
        if self.n_params_total is not None and self.n_params_total < self.n_params:
            raise ValueError("n_params_total (all experts) must be at least n_params (active per token)")
        return self

    @property
    def kv_cache_bytes_per_token(self) -> float:
        """2 x layers x KV heads x head_dim x bytes (std; domain-model s2) [B/token]."""
        return 2.0 * self.n_layers * self.n_kv_heads * self.head_dim * self.kv_cache_bytes_per_element

    @property
    def params_in_memory(self) -> float:
        """Parameters held in GPU memory (MoE: all experts) [-]."""
        return self.n_params_total or self.n_params

    @property
    def active_fraction(self) -> float:
        """Parameters used per token / parameters held [-] (1 for a dense model)."""
        return self.n_params / self.params_in_memory

    @property
    def width(self) -> int:
        """d_model, estimated from the (active) parameters when not given."""
        return self.d_model or estimated_shape(self.n_params)[1]

    @classmethod
    def from_preset(cls, preset: str, **kwargs: Any) -> InferenceService:
        """Service for a :data:`MODEL_PRESETS` model."""
        p = MODEL_PRESETS[preset]
        return cls(model_name=p.name, n_params=p.n_params, n_params_total=p.n_params_total, n_layers=p.n_layers,
                   n_kv_heads=p.n_kv_heads, head_dim=p.head_dim, d_model=p.d_model, **kwargs)


#: Sources of the shared power model's parameters (engine.power), shown for the same defaults here.
_PM_SOURCE = {a.name: a.source for a in power.table()}


class EngineAssumptions(BaseModel):
    """Every default the workload engine uses, each with its unit and source (pages may override).

    Calibration: which published figure each default was fitted on is listed in docs/validation.md; those figures
    are never used to validate it.

    Examples
    --------
    >>> a = EngineAssumptions()
    >>> a.mfu_bf16_fraction, a.nic_efficiency_fraction, a.pue_ratio
    (0.49, 0.96, 1.56)
    >>> EngineAssumptions(pue_ratio=1.1).power_model().pue_ratio
    1.1
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    mfu_bf16_fraction: float = assumed(
        0.49, "-", "utilisation of the BF16 peak while computing (bubbles, exposed communication and failures are "
        "modelled separately); calibration C1: fitted (mean log error 0) on the Llama 2 model card GPU-hours of "
        "7B/13B/70B on 2,048 A100-80GB (docs/validation.md); for comparison, end-to-end MFU: Epoch AI median 0.375 "
        "over 33 runs (epoch-research/training-cost-trends constants.py)", gt=0, le=1)
    mfu_fp8_fraction: float = assumed(
        0.30, "-", "utilisation of the FP8 peak while computing; calibration C2: llm-foundry H100 FP8 14.4-30.3 % "
        "(mosaicml/llm-foundry benchmarking README); NeMo 29.5-39.5 % (SemiAnalysis 2025-08-20)", gt=0, le=1)
    overlap_fraction: float = assumed(
        0.90, "-", "share of the DP gradient reduce-scatter/all-gather that can hide behind the backward (and, "
        "sharded, forward) pass of the last micro-batch; 'efficient overlap can almost entirely eliminate this "
        "increase' (Korthikanti et al., arXiv 2205.05198) read as 90 % (assumption)", ge=0, le=1)
    tp_overlap_fraction: float = assumed(
        0.50, "-", "share of TP collectives hidden when the job enables TP comm overlap (Transformer Engine "
        "userbuffers, --tp-comm-overlap); assumption, no published fraction; without it TP is on the critical "
        "path (Narayanan et al. s3.2)", ge=0, le=1)
    pp_overlap_fraction: float = assumed(
        1.0, "-", "share of pipeline send/recv hidden with interleaved schedules: 'pipeline-parallel communication "
        "(enabled by default)' overlap (Megatron-LM README); NeMo: overlap_p2p_comm valid only when v > 1; with v = 1 "
        "nothing is hidden", ge=0, le=1)
    cp_overlap_fraction: float = assumed(
        0.0, "-", "share of context-parallel K/V all-gathers hidden: Llama 3 all-gathers K and V before attention, "
        "'exposed in the critical path' (arXiv 2407.21783 s3.3.2)", ge=0, le=1)
    backward_share_of_compute_fraction: float = assumed(
        4.0 / 6.0, "-", "backward = 4ND of 6ND (Kaplan et al., arXiv 2001.08361; Transformer Math 101)", gt=0, le=1)
    training_memory_usable_fraction: float = assumed(
        0.90, "-", "GPU memory usable for training state and activations (CUDA context, NCCL buffers, allocator "
        "fragmentation); assumption, same as vLLM's default --gpu-memory-utilization 0.9", gt=0, le=1)
    oversubscription_ratio: float = assumed(
        1.0, "-", "R of an R:1 fabric; 1 = full bisection as in the Llama 3 3,072-GPU pods (arXiv 2407.21783 s3.3.1)",
        ge=1, le=64)
    use_nvls: bool = assumed(
        True, "-", "NVLink SHARP for data-parallel all-reduces inside NVSwitch nodes of NVLink 4 or later (480 GB/s "
        "busbw on 8x H100, nccl-tests#212, C3); NCCL enables it by default where supported (NCCL_NVLS_ENABLE); "
        "reduce-scatter, all-gather and tensor-parallel traffic use the ring (370 GB/s)")
    nic_efficiency_fraction: float = assumed(
        network.NIC_EFFICIENCY_FRACTION, "-", "24 GB/s busbw from a 200 Gb/s NIC (NVIDIA/nccl#412, calibration C4)",
        gt=0, le=1)
    pcie_busbw_gb_per_s: float = assumed(
        network.PCIE_ALLREDUCE_BUSBW_GB_PER_S, "GB/s",
        "8 GPUs on PCIe Gen5, all-reduce busbw 28 GB/s (NVIDIA/nccl#1639)", gt=0)
    intra_node_latency_s: float = assumed(
        network.INTRA_NODE_LATENCY_S, "s", "8-byte all-reduce, 8x H100 one node: 33 us (vpbenchmarking, C5)", ge=0)
    inter_node_hop_latency_s: float = assumed(
        network.INTER_NODE_HOP_LATENCY_S, "s", "per tree level across nodes: 38 us on 4 nodes = 33 us + 2 log2(4) x "
        "1.25 us (vpbenchmarking, C5)", ge=0)
    gradient_bucket_bytes: float = assumed(
        float(network.DDP_BUCKET_BYTES), "B", "PyTorch DDP bucket_cap_mb = 25 (pytorch/pytorch#118421)", gt=0)
    failures_per_gpu_hour: float = assumed(
        goodput_model.FAILURES_PER_GPU_HOUR, "1/GPU-h", "419 unexpected interruptions in 54 days on 16,384 H100 "
        "(Llama 3, arXiv 2407.21783 s3.3.4; calibration C7)", ge=0, le=1)
    checkpoint_write_gb_per_s_per_gpu: float = assumed(
        round(goodput_model.CHECKPOINT_WRITE_GB_PER_S_PER_GPU, 4), "GB/s", "13.8 TB checkpoint at ~273 GB/s from "
        "3,072 GPUs (Narayanan et al. arXiv 2104.04473 s5.10; C9)", gt=0)
    restart_s: float = assumed(
        goodput_model.RESTART_S, "s", "detect a failure, reschedule, reload the checkpoint: assumption (no published "
        "restart time for LLM jobs found)", ge=0)
    gpu_power_fraction_of_tdp: float = assumed(
        power.DEFAULT_POWER_MODEL.gpu_power_fraction_of_tdp, "-", _PM_SOURCE["gpu_power_fraction_of_tdp"],
        gt=0, le=1.5)
    server_non_gpu_fraction_of_tdp: float = assumed(
        power.DEFAULT_POWER_MODEL.server_non_gpu_fraction_of_tdp, "-",
        _PM_SOURCE["server_non_gpu_fraction_of_tdp"], ge=0, le=5)
    idle_power_fraction: float = assumed(
        power.DEFAULT_POWER_MODEL.idle_power_fraction, "-", _PM_SOURCE["idle_power_fraction"], ge=0, le=1)
    pue_ratio: float = assumed(power.DEFAULT_POWER_MODEL.pue_ratio, "-", _PM_SOURCE["pue_ratio"], ge=1, le=3)
    embodied_kg_co2e_per_gpu: float | None = assumed(
        None, "kgCO2e/GPU", _PM_SOURCE["embodied_kg_co2e_per_gpu"], ge=0)
    inference_mfu_fraction: float = assumed(
        0.40, "-", "prefill/decode compute efficiency; C6 (TRT-LLM GPT-J, A100 FP16, BS 1, 128 tokens): 12.5 ms "
        "first token implies 0.39 (derived); same as the training default", gt=0, le=1)
    inference_mbu_fraction: float = assumed(
        0.65, "-", "memory-bandwidth utilisation with 16-bit weights; C6: A100 FP16 GPT-J BS 1 measured 111 of 170 "
        "tok/s ceiling = 0.65 (derived)", gt=0, le=1)
    inference_mbu_fp8_fraction: float = assumed(
        0.33, "-", "memory-bandwidth utilisation with 8-bit (or smaller) weights: C6, H100 FP8 GPT-J BS 1 reached 185 "
        "of a 558 tok/s ceiling = 0.33 (derived): FP8 is not automatically faster per byte", gt=0, le=1)
    inference_memory_usable_fraction: float = assumed(
        0.90, "-", "vLLM default --gpu-memory-utilization 0.9; TensorRT-LLM kv_cache_free_gpu_mem_fraction 0.9",
        gt=0, le=1)
    inference_max_load_fraction: float = assumed(
        0.80, "-", "replicas are sized so each runs at most this share of its full-load request rate (queueing "
        "delay grows as 1/(1 - load)); assumption", gt=0, le=1)
    max_tensor_parallel_degree: int = assumed(
        8, "-", "tensor parallelism kept inside one 8-GPU NVLink node (DGX/HGX H100: 8 GPUs)", ge=1, le=64)
    assumed_gpus_per_node: int = assumed(
        8, "-", "used only with missing_fabric='assume_default': DGX/HGX H100 and A100 nodes hold 8 GPUs", ge=1)
    assumed_inter_link_gbit_per_s_per_gpu: float = assumed(
        200.0, "Gbit/s", "used only with missing_fabric='assume_default': 200 Gb/s per GPU as in the Llama 2 "
        "clusters ('200 Gbps end-points', arXiv 2307.09288 s2.2.1) and the HDR NIC of C4", gt=0)
    assumed_intra_busbw_gb_per_s: float = assumed(
        network.PCIE_ALLREDUCE_BUSBW_GB_PER_S, "GB/s",
        "used only with missing_fabric='assume_default': PCIe value (conservative, NVIDIA/nccl#1639)", gt=0)

    def table(self) -> tuple[Assumption, ...]:
        """All parameters as :class:`Assumption` rows, in declaration order."""
        return assumptions_of(self)

    def power_model(self) -> power.PowerModel:
        """The shared :class:`engine.power.PowerModel` with these values."""
        return power.PowerModel(
            gpu_power_fraction_of_tdp=self.gpu_power_fraction_of_tdp,
            server_non_gpu_fraction_of_tdp=self.server_non_gpu_fraction_of_tdp,
            idle_power_fraction=self.idle_power_fraction, pue_ratio=self.pue_ratio,
            embodied_kg_co2e_per_gpu=self.embodied_kg_co2e_per_gpu)


DEFAULT_ASSUMPTIONS = EngineAssumptions()
