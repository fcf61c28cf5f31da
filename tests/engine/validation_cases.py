"""The published cases of docs/validation.md as code: inputs, published value, tolerance, engine value.

Inputs are exactly those recorded in docs/validation.md (committed before any default of the engine was set;
unstated inputs follow the rules written there). ``python -m tests.engine.validation_cases`` prints the table rows
with the engine values, for docs/validation.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine import network, power
from engine.adapters import offer_arrays_from_records
from engine.workload import InferenceService, OfferArrays, TrainingJob, price_inference, price_training

H100 = {"price_eur_per_gpu_hour": 2.5, "bf16_dense_tflops": 989.5, "fp8_dense_tflops": 1979.0, "memory_gb": 80.0,
        "memory_type": "HBM3", "memory_bandwidth_tbps": 3.35, "tdp_watts": 700.0, "gpus_per_node": 8, "intra_node": "NVLink-NVSwitch",
        "nvlink_gbps_bidirectional": 900.0, "inter_node": "InfiniBand-NDR", "inter_node_gbps_per_gpu": 400.0,
        "grid_intensity_g_per_kwh": 300.0}
H100_ROCE = {**H100, "inter_node": "RoCEv2"}
A100 = {"price_eur_per_gpu_hour": 1.5, "bf16_dense_tflops": 312.0, "fp8_dense_tflops": None, "memory_gb": 80.0,
        "memory_type": "HBM2e", "memory_bandwidth_tbps": 2.039, "tdp_watts": 400.0, "gpus_per_node": 8, "intra_node": "NVLink-NVSwitch",
        "nvlink_gbps_bidirectional": 600.0, "inter_node": "InfiniBand-HDR", "inter_node_gbps_per_gpu": 200.0,
        "grid_intensity_g_per_kwh": 300.0}
H200 = {**H100, "memory_gb": 141.0, "memory_type": "HBM3e", "memory_bandwidth_tbps": 4.8}
#: AWS p4d (V31): 4 x 100 Gb/s EFA per 8-GPU node = 50 Gb/s per GPU (rule in docs/validation.md round 2).
A100_EFA = {**A100, "inter_node": "Ethernet", "inter_node_gbps_per_gpu": 50.0}
#: Jean Zay (BLOOM): 4 x 100 Gb/s Omni-Path per 8-GPU node = 50 Gb/s per GPU.
A100_JEAN_ZAY = {**A100, "inter_node": "Ethernet", "inter_node_gbps_per_gpu": 50.0}

#: Tolerances fixed in docs/validation.md before the engine was built.
TOL_THROUGHPUT = 0.20
TOL_RATIO = 0.10
TOL_GPU_HOURS = 0.25
TOL_ENERGY = 0.25
TOL_BUSBW = 0.15
TOL_SERVING = 0.30


def offer(spec: dict) -> OfferArrays:
    return offer_arrays_from_records([spec])


@dataclass(frozen=True)
class Case:
    """One published figure and how the engine computes it."""

    id: str
    kind: str  # "calibration" or "validation"
    what: str
    unit: str
    published: float
    tolerance: float  # relative
    engine: Callable[[], float]

    def relative_error(self, engine_value: float) -> float:
        return engine_value / self.published - 1.0

    def within(self, engine_value: float) -> bool:
        return abs(self.relative_error(engine_value)) <= self.tolerance


# ------------------------------------------------------------------------------------------------
# Training throughput (V1-V8)
# ------------------------------------------------------------------------------------------------


def mlperf_gpt3_tokens_per_s_per_gpu(n_gpus: int, gbs_sequences: int) -> float:
    """MLPerf v3.1 NVIDIA GPT-3 175B: TP 4, PP 8, v 12, micro-batch 1, FP8, TP overlap, seq 2048."""
    job = TrainingJob.from_preset(
        "gpt-3-175b", n_gpus=n_gpus, global_batch_tokens=gbs_sequences * 2048.0, sequence_length_tokens=2048,
        tensor_parallel_degree=4, pipeline_parallel_degree=8, virtual_pipeline_stages=12, is_fp8_ready=True,
        is_tp_comm_overlapped=True, software_stack="megatron")
    r = price_training(job, offer(H100))
    return gbs_sequences * 2048.0 / (float(r.step_time_s[0]) * n_gpus)


def llama3_405b_mfu(n_gpus: int, cp: int, dp: int, seq: int) -> float:
    """Llama 3 405B Table 4 row: TP 8, PP 16, v 8 (rule), 16M tokens per step, FP32 gradients, RoCE 400 Gb/s."""
    job = TrainingJob.from_preset(
        "llama-3-405b", n_gpus=n_gpus, global_batch_tokens=2048 * 8192.0, sequence_length_tokens=seq,
        tensor_parallel_degree=8, context_parallel_degree=cp, pipeline_parallel_degree=16, data_parallel_degree=dp,
        virtual_pipeline_stages=8, gradient_bytes_per_param=4.0)
    return float(price_training(job, offer(H100_ROCE)).mfu_fraction[0])


def megatron_strong_scaling_ratio() -> float:
    """Megatron-LM README: GPT-3 175B, 96 -> 4,608 H100, 1,152 x 2048 tokens, TP 4, PP 8, v 12, BF16, overlap."""
    def mfu(n: int) -> float:
        job = TrainingJob.from_preset(
            "gpt-3-175b", n_gpus=n, global_batch_tokens=1152 * 2048.0, sequence_length_tokens=2048,
            tensor_parallel_degree=4, pipeline_parallel_degree=8, virtual_pipeline_stages=12,
            is_tp_comm_overlapped=True, software_stack="megatron")
        return float(price_training(job, offer(H100)).mfu_fraction[0])
    return mfu(4608) / mfu(96)


# ------------------------------------------------------------------------------------------------
# Training GPU-hours (V9-V11) and energy (V12)
# ------------------------------------------------------------------------------------------------


def llama31_gpu_hours(preset: str, n_gpus: int) -> float:
    """Llama 3.1 8B / 70B: 15T tokens, 16M tokens per step at seq 8192, engine-chosen layout, H100 400 Gb/s."""
    job = TrainingJob.from_preset(preset, n_gpus=n_gpus, training_tokens=15e12, global_batch_tokens=2048 * 8192.0,
                                  sequence_length_tokens=8192)
    return float(price_training(job, offer(H100)).gpu_hours[0])


def bloom_gpu_hours() -> float:
    """BLOOM 176B on 384 A100-80GB: TP 4, PP 12, DP 8, 2048 x 2048 tokens per step, full recomputation, v 1."""
    job = TrainingJob(
        model_name="bloom-176b", n_params=176e9, training_tokens=366e9, n_gpus=384, global_batch_tokens=2048 * 2048.0,
        sequence_length_tokens=2048, n_layers=70, d_model=14336, tensor_parallel_degree=4, pipeline_parallel_degree=12,
        data_parallel_degree=8, recompute="full", virtual_pipeline_stages=1)
    return float(price_training(job, offer(A100_JEAN_ZAY)).gpu_hours[0])


def bloom_it_energy_kwh() -> float:
    """BLOOM's 1,082,990 A100-hours at 400 W through the shared power model, IT energy (PUE 1)."""
    model = power.PowerModel(pue_ratio=1.0)
    return float(power.job_energy(1_082_990.0, 400.0, 57.0, model=model).facility_kwh)


# ------------------------------------------------------------------------------------------------
# Serving (V16-V21): TensorRT-LLM perf overview, FP8 weights and KV cache, max-throughput load
# ------------------------------------------------------------------------------------------------


def trtllm_tokens_per_s(preset: str, tp: int, isl: int, osl: int) -> float:
    """Total output tokens/s of one replica at full load (concurrency cap 2048, 90 % of memory)."""
    svc = InferenceService.from_preset(
        preset, prompt_tokens=isl, output_tokens=osl, batch_size=2048, weight_bytes_per_param=1.0,
        kv_cache_bytes_per_element=1.0, is_fp8_ready=True, tensor_parallel_degree=tp, serving_stack="tensorrt_llm")
    r = price_inference(svc, offer(H100))
    return float(r.tokens_per_s_per_gpu[0]) * tp


# ------------------------------------------------------------------------------------------------
# Round 2 (issue #26): fine-tuning and serving (V22-V37), calibration C10-C11
# ------------------------------------------------------------------------------------------------


def finetune_tokens_per_s_per_gpu(preset: str, spec: dict, n_gpus: int, kind: str, seq: int, gbs: int, stack: str,
                                  fp8: bool, tp: int | None = None, pp: int | None = None, cp: int = 1,
                                  dp: int | None = None, recompute: str = "auto", tp_overlap: bool = False,
                                  lora_rank: int = 16, v: int | None = None) -> float:
    """Tokens/s/GPU of one optimizer step (no failures) for a pinned or searched layout."""
    job = TrainingJob.from_preset(
        preset, n_gpus=n_gpus, training_tokens=gbs * seq * 1000.0, global_batch_tokens=float(gbs * seq),
        sequence_length_tokens=seq, job_kind=kind, software_stack=stack, is_fp8_ready=fp8,
        tensor_parallel_degree=tp, pipeline_parallel_degree=pp, context_parallel_degree=cp, data_parallel_degree=dp,
        recompute=recompute, is_tp_comm_overlapped=tp_overlap, lora_rank=lora_rank, virtual_pipeline_stages=v)
    r = price_training(job, offer(spec))
    return gbs * seq / (float(r.step_time_s[0]) * n_gpus)


def hf_fsdp_70b_gpu_hours() -> float:
    """V31: Llama 2 70B full fine-tune, 16 A100 (50 Gb/s per GPU), HF Trainer + FSDP, 500 steps of 16 x 2048."""
    job = TrainingJob.from_preset(
        "llama-2-70b", n_gpus=16, training_tokens=500 * 16 * 2048.0, global_batch_tokens=16 * 2048.0,
        sequence_length_tokens=2048, job_kind="full_finetune", software_stack="hf_trainer", recompute="full")
    return float(price_training(job, offer(A100_EFA)).gpu_hours[0])


def serving_at_concurrency_one(preset: str, tp: int, isl: int, osl: int, what: str) -> float:
    """V33-V34: one request at a time, FP8 weights and KV cache; TPOT or TTFT [ms]."""
    svc = InferenceService.from_preset(
        preset, prompt_tokens=isl, output_tokens=osl, batch_size=1, weight_bytes_per_param=1.0,
        kv_cache_bytes_per_element=1.0, is_fp8_ready=True, tensor_parallel_degree=tp, serving_stack="tensorrt_llm")
    r = price_inference(svc, offer(H100))
    value = r.time_per_output_token_s if what == "tpot" else r.time_to_first_token_s
    return float(value[0]) * 1e3


def trtllm_tokens_per_s_on(spec: dict, preset: str, tp: int, isl: int, osl: int) -> float:
    """V35-V37: as :func:`trtllm_tokens_per_s` on another GPU."""
    svc = InferenceService.from_preset(
        preset, prompt_tokens=isl, output_tokens=osl, batch_size=2048, weight_bytes_per_param=1.0,
        kv_cache_bytes_per_element=1.0, is_fp8_ready=True, tensor_parallel_degree=tp, serving_stack="tensorrt_llm")
    return float(price_inference(svc, offer(spec)).tokens_per_s_per_gpu[0]) * tp


def nemo_pretrain_rows() -> tuple[float, float]:
    """C10: NeMo 24.07 Llama 2 7B (8 GPUs, TP1 PP1) and 70B (64 GPUs, TP4 PP4 VP20), FP8, GBS 128 x 4096."""
    small = finetune_tokens_per_s_per_gpu("llama-2-7b", H100, 8, "pretraining", 4096, 128, "megatron", True, 1, 1)
    large = finetune_tokens_per_s_per_gpu("llama-2-70b", H100, 64, "pretraining", 4096, 128, "megatron", True, 4, 4,
                                          v=20)
    return small, large


def torchtitan_a100_row() -> float:
    """C11: torchtitan Llama 3 8B, 64 A100-80GB, FSDP, BF16, local batch 1 x 8192, selective AC."""
    return finetune_tokens_per_s_per_gpu("llama-3-8b", A100, 64, "pretraining", 8192, 64, "pytorch_fsdp", False,
                                         recompute="selective")


def fit_spec(specs: dict, stack: str, field: str, evaluate: Callable[[], tuple[float, ...]],
             published: tuple[float, ...], lo: float, hi: float) -> float:
    """The value of ``field`` of ``specs[stack]`` (a stack's NamedTuple) at which the engine reproduces the published
    rows: each row by bisection on the engine itself (the engine value must grow with the field), then the geometric
    mean of the per-row fits. Calibration only: returns the fit and restores the spec."""
    original = specs[stack]
    fits = []
    for i, target in enumerate(published):
        a, b = lo, hi
        for _ in range(50):
            mid = 0.5 * (a + b)
            specs[stack] = original._replace(**{field: mid})
            try:
                value = evaluate()[i]
            finally:
                specs[stack] = original
            a, b = (mid, b) if value < target else (a, mid)
        fits.append(0.5 * (a + b))
    return math.exp(sum(map(math.log, fits)) / len(fits))


def fit_stack_utilisation(stack: str, field: str, evaluate: Callable[[], tuple[float, ...]],
                          published: tuple[float, ...]) -> float:
    """C10, C11: a training stack's utilisation (:func:`fit_spec` on ``TRAINING_STACK_SPECS``, between 0.05 and 1)."""
    from engine.workload import stacks

    return fit_spec(stacks.TRAINING_STACK_SPECS, stack, field, evaluate, published, 0.05, 1.0)


def trtllm_h200_rows() -> tuple[float, float]:
    """C12: TensorRT-LLM perf-overview, Llama 3.1 8B FP8, H200 TP1, 1000/1000 and 2048/2048 (max throughput)."""
    return (trtllm_tokens_per_s_on(H200, "llama-3-8b", 1, 1000, 1000),
            trtllm_tokens_per_s_on(H200, "llama-3-8b", 1, 2048, 2048))


def vllm_ci_latency_ms() -> float:
    """C13: vLLM CI latency test, Llama 3.1 8B BF16, TP1, H200, batch 8, 32 in / 128 out: request latency [ms]."""
    svc = InferenceService.from_preset("llama-3-8b", prompt_tokens=32, output_tokens=128, batch_size=8,
                                       serving_stack="vllm")
    return float(price_inference(svc, offer(H200)).request_latency_s[0]) * 1e3


def fit_serving_stack(stack: str, field: str, evaluate: Callable[[], tuple[float, ...]],
                      published: tuple[float, ...], lo: float, hi: float) -> float:
    """C12, C13: a serving stack's bandwidth utilisation or fixed time per layer (:func:`fit_spec` on
    ``SERVING_STACK_SPECS``)."""
    from engine.workload import serving_stacks

    return fit_spec(serving_stacks.SERVING_STACK_SPECS, stack, field, evaluate, published, lo, hi)


# ------------------------------------------------------------------------------------------------
# The table
# ------------------------------------------------------------------------------------------------

V, C = "validation", "calibration"
_NVL3 = float(network.nvlink_busbw_gb_per_s(600.0))
_NVL4 = float(network.nvlink_busbw_gb_per_s(900.0))

CASES: tuple[Case, ...] = (
    Case("V1", V, "MLPerf v3.1 GPT-3 175B, 512 H100", "tokens/s/GPU", 1109.0, TOL_THROUGHPUT,
         lambda: mlperf_gpt3_tokens_per_s_per_gpu(512, 3072)),
    Case("V2", V, "MLPerf v3.1 GPT-3 175B, 4,096 H100", "tokens/s/GPU", 622.5, TOL_THROUGHPUT,
         lambda: mlperf_gpt3_tokens_per_s_per_gpu(4096, 2048)),
    Case("V3", V, "MLPerf v3.1 GPT-3 175B, 10,752 H100", "tokens/s/GPU", 534.7, TOL_THROUGHPUT,
         lambda: mlperf_gpt3_tokens_per_s_per_gpu(10752, 2688)),
    Case("V4", V, "MLPerf v3.1 GPT-3 175B, per-GPU throughput 10,752 / 512 GPUs", "-", 0.482, TOL_RATIO,
         lambda: mlperf_gpt3_tokens_per_s_per_gpu(10752, 2688) / mlperf_gpt3_tokens_per_s_per_gpu(512, 3072)),
    Case("V5", V, "Llama 3 405B, 8,192 H100 (TP8 PP16 DP64)", "MFU", 0.43, TOL_THROUGHPUT,
         lambda: llama3_405b_mfu(8192, 1, 64, 8192)),
    Case("V6", V, "Llama 3 405B, 16,384 H100 (TP8 PP16 DP128)", "MFU", 0.41, TOL_THROUGHPUT,
         lambda: llama3_405b_mfu(16384, 1, 128, 8192)),
    Case("V7", V, "Llama 3 405B, 16,384 H100, 131K context (TP8 CP16 PP16 DP8)", "MFU", 0.38, TOL_THROUGHPUT,
         lambda: llama3_405b_mfu(16384, 16, 8, 131072)),
    Case("V8", V, "Megatron-LM GPT-3 175B strong scaling, MFU 4,608 / 96 H100", "-", 42.0 / 47.0, TOL_RATIO,
         megatron_strong_scaling_ratio),
    Case("V9", V, "Llama 3.1 8B GPU-hours (15T tokens, 2,048 H100 assumed)", "GPU-h", 1.46e6, TOL_GPU_HOURS,
         lambda: llama31_gpu_hours("llama-3-8b", 2048)),
    Case("V10", V, "Llama 3.1 70B GPU-hours (15T tokens, 4,096 H100 assumed)", "GPU-h", 7.0e6, TOL_GPU_HOURS,
         lambda: llama31_gpu_hours("llama-3-70b", 4096)),
    Case("V11", V, "BLOOM 176B GPU-hours (384 A100)", "GPU-h", 1_082_990.0, TOL_GPU_HOURS, bloom_gpu_hours),
    Case("V12", V, "BLOOM IT energy incl. non-GPU share (published GPU-hours as input)", "kWh", 689_842.0,
         TOL_ENERGY, bloom_it_energy_kwh),
    Case("V13", V, "nccl-tests#119: 3 x 8 A100, 4 x HDR per node", "busbw GB/s", 96.0, TOL_BUSBW,
         lambda: float(network.multinode_busbw_gb_per_s(_NVL3, 8, 3, 100.0))),
    Case("V14", V, "nccl-tests#283: 248 x 8 H200, 8 x 400G per node", "busbw GB/s", 350.0, TOL_BUSBW,
         lambda: float(network.multinode_busbw_gb_per_s(_NVL4, 8, 248, 400.0))),
    Case("V15", V, "nccl#837: 2 x 8 A100, 2 x 200G per node (tree on 2 nodes)", "busbw GB/s", 55.5, TOL_BUSBW,
         lambda: float(network.multinode_busbw_gb_per_s(_NVL3, 8, 2, 50.0))),
    Case("V16", V, "TRT-LLM Llama 3.1 8B FP8, H100 TP1, 128/128", "tokens/s", 28312.0, TOL_SERVING,
         lambda: trtllm_tokens_per_s("llama-3-8b", 1, 128, 128)),
    Case("V17", V, "TRT-LLM Llama 3.1 8B FP8, H100 TP1, 1000/1000", "tokens/s", 15220.0, TOL_SERVING,
         lambda: trtllm_tokens_per_s("llama-3-8b", 1, 1000, 1000)),
    Case("V18", V, "TRT-LLM Llama 3.1 8B FP8, H100 TP1, 2048/128", "tokens/s", 3450.0, TOL_SERVING,
         lambda: trtllm_tokens_per_s("llama-3-8b", 1, 2048, 128)),
    Case("V19", V, "TRT-LLM Llama 3.3 70B FP8, H100 TP2, 1000/1000", "tokens/s", 4205.0, TOL_SERVING,
         lambda: trtllm_tokens_per_s("llama-3-70b", 2, 1000, 1000)),
    Case("V20", V, "TRT-LLM Llama 3.1 405B FP8, H100 TP8, 1000/1000", "tokens/s", 2919.0, TOL_SERVING,
         lambda: trtllm_tokens_per_s("llama-3-405b", 8, 1000, 1000)),
    Case("V21", V, "TRT-LLM Qwen3-235B-A22B FP8 (MoE), H100 TP8, 1000/1000", "tokens/s", 14898.0, TOL_SERVING,
         lambda: trtllm_tokens_per_s("qwen3-235b-a22b", 8, 1000, 1000)),
)

#: Round 3 (issue #36), training: fine-tuning and pre-training runs, registered (inputs, published figure and
#: tolerance) in a commit before the one that runs the engine on them (docs/validation.md, "Round 3").
CASES_ROUND_3_TRAINING: tuple[Case, ...] = (
)

#: Round 2 (issue #26), registered before the engine changed (docs/validation.md).
CASES_ROUND_2: tuple[Case, ...] = (
    Case("V22", V, "MLPerf v4.0 Llama 2 70B LoRA, 8 H100, TP4 DP2, FP8 (NeMo)", "tokens/s/GPU", 2207.0,
         TOL_THROUGHPUT, lambda: finetune_tokens_per_s_per_gpu(
             "llama-2-70b", H100, 8, "lora", 8192, 8, "megatron", True, 4, 1, 1, 2, tp_overlap=True)),
    Case("V23", V, "MLPerf v4.0 Llama 2 70B LoRA, 64 H100, TP4 CP2 DP8, FP8 (NeMo)", "tokens/s/GPU", 1605.0,
         TOL_THROUGHPUT, lambda: finetune_tokens_per_s_per_gpu(
             "llama-2-70b", H100, 64, "lora", 8192, 8, "megatron", True, 4, 1, 2, 8, tp_overlap=True)),
    Case("V24", V, "MLPerf v4.0 Llama 2 70B LoRA, 8 H200, TP2 DP4, FP8 (NeMo)", "tokens/s/GPU", 2536.0,
         TOL_THROUGHPUT, lambda: finetune_tokens_per_s_per_gpu(
             "llama-2-70b", H200, 8, "lora", 8192, 8, "megatron", True, 2, 1, 1, 4, tp_overlap=True)),
    Case("V25", V, "NeMo 24.07 Llama 2 70B LoRA, 8 H100, TP2 PP4, FP8 (same page as C10)", "tokens/s/GPU", 2621.0,
         TOL_THROUGHPUT, lambda: finetune_tokens_per_s_per_gpu(
             "llama-2-70b", H100, 8, "lora", 4096, 32, "megatron", True, 2, 4)),
    Case("V26", V, "NeMo 24.07 Llama 2 70B SFT, 16 H100, TP4 PP4, FP8 (same page as C10)", "tokens/s/GPU", 1816.0,
         TOL_THROUGHPUT, lambda: finetune_tokens_per_s_per_gpu(
             "llama-2-70b", H100, 16, "full_finetune", 4096, 32, "megatron", True, 4, 4)),
    Case("V27", V, "NeMo 24.07 Llama 2 7B SFT, 8 H100, TP1 PP1, FP8 (same page as C10)", "tokens/s/GPU", 16891.0,
         TOL_THROUGHPUT, lambda: finetune_tokens_per_s_per_gpu(
             "llama-2-7b", H100, 8, "full_finetune", 4096, 32, "megatron", True, 1, 1)),
    Case("V28", V, "NeMo 24.07 Llama 2 13B LoRA, 8 H100, TP1 PP1, FP8 (same page as C10)", "tokens/s/GPU", 14629.0,
         TOL_THROUGHPUT, lambda: finetune_tokens_per_s_per_gpu(
             "llama-2-13b", H100, 8, "lora", 4096, 32, "megatron", True, 1, 1)),
    Case("V29", V, "torchtitan Llama 3.1 8B, 8 H100, FSDP, BF16", "tokens/s/GPU", 5762.0, TOL_THROUGHPUT,
         lambda: finetune_tokens_per_s_per_gpu("llama-3-8b", H100, 8, "pretraining", 8192, 16, "pytorch_fsdp", False,
                                               recompute="selective")),
    Case("V30", V, "xtuner DeepSpeed ZeRO-3 Llama 3 8B full fine-tune, 8 A100, 8K", "tokens/s/GPU", 2771.2,
         TOL_THROUGHPUT, lambda: finetune_tokens_per_s_per_gpu("llama-3-8b", A100, 8, "full_finetune", 8192, 8,
                                                               "deepspeed", False)),
    Case("V31", V, "HF Trainer + FSDP Llama 2 70B full fine-tune, 16 A100, 500 steps", "GPU-h", 216.0,
         TOL_GPU_HOURS, hf_fsdp_70b_gpu_hours),
    Case("V32", V, "Answer.AI FSDP QLoRA Llama 2 70B, 4 H100, 2048", "tokens/s/GPU", 786.0, TOL_THROUGHPUT,
         lambda: finetune_tokens_per_s_per_gpu("llama-2-70b", H100, 4, "qlora", 2048, 32, "pytorch_fsdp", False)),
    Case("V33", V, "NIM Llama 3.3 70B FP8 TP2 2 H100, 500/2000, concurrency 1", "ITL ms", 18.91, TOL_SERVING,
         lambda: serving_at_concurrency_one("llama-3-70b", 2, 500, 2000, "tpot")),
    Case("V34", V, "NIM Llama 3.3 70B FP8 TP2 2 H100, 5000/500, concurrency 1", "TTFT ms", 406.77, TOL_SERVING,
         lambda: serving_at_concurrency_one("llama-3-70b", 2, 5000, 500, "ttft")),
    Case("V35", V, "TRT-LLM Llama 3.3 70B FP8, H200 TP1, 1000/1000", "tokens/s", 2909.0, TOL_SERVING,
         lambda: trtllm_tokens_per_s_on(H200, "llama-3-70b", 1, 1000, 1000)),
    Case("V36", V, "TRT-LLM Llama 3.1 8B FP8, H100 TP1, 500/2000", "tokens/s", 17660.0, TOL_SERVING,
         lambda: trtllm_tokens_per_s_on(H100, "llama-3-8b", 1, 500, 2000)),
    Case("V37", V, "TRT-LLM Llama 3.3 70B FP8, H100 TP2, 500/2000", "tokens/s", 5222.0, TOL_SERVING,
         lambda: trtllm_tokens_per_s_on(H100, "llama-3-70b", 2, 500, 2000)),
)


#: Round 3 (issue #36), serving: load, concurrency, time to first token, MoE, registered the same way.
CASES_ROUND_3_SERVING: tuple[Case, ...] = (
)

#: Every counted table, in the order docs/validation.md reports them.
ROUNDS: dict[str, tuple[Case, ...]] = {
    "Round 1": CASES, "Round 2 (issue #26)": CASES_ROUND_2,
    "Round 3 training (issue #36)": CASES_ROUND_3_TRAINING, "Round 3 serving (issue #36)": CASES_ROUND_3_SERVING,
}
ALL_CASES: tuple[Case, ...] = tuple(c for cases in ROUNDS.values() for c in cases)


def results(cases: tuple[Case, ...] = CASES) -> list[tuple[Case, float]]:
    """(case, engine value) for every case."""
    return [(c, c.engine()) for c in cases]


def _fmt(x: float) -> str:
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.3f}"


def markdown_rows(cases: tuple[Case, ...] = CASES) -> str:
    """One row per case: id, what, published, engine, error, tolerance, within."""
    lines = ["| Id | Case | Unit | Published | Engine | Error | Tol | Within |", "|---|---|---|---|---|---|---|---|"]
    n_in = 0
    out = results(cases)
    for c, value in out:
        ok = c.within(value)
        n_in += ok
        lines.append(f"| {c.id} | {c.what} | {c.unit} | {_fmt(c.published)} | {_fmt(value)} | "
                     f"{c.relative_error(value):+.1%} | ±{c.tolerance:.0%} | {'yes' if ok else '**no**'} |")
    lines.append(f"\n{n_in} of {len(out)} validation cases within tolerance.")
    return "\n".join(lines)


if __name__ == "__main__":
    np.seterr(all="ignore")
    for name, cases in ROUNDS.items():
        if cases:
            print(f"\n{name}:\n")
            print(markdown_rows(cases))
    n_all = sum(c.within(v) for c, v in results(ALL_CASES))
    print(f"\nAll rounds: {n_all} of {len(ALL_CASES)} validation cases within tolerance.")
    del math
