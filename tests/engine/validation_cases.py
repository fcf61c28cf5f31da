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
        "memory_bandwidth_tbps": 3.35, "tdp_watts": 700.0, "gpus_per_node": 8, "intra_node": "NVLink-NVSwitch",
        "nvlink_gbps_bidirectional": 900.0, "inter_node": "InfiniBand-NDR", "inter_node_gbps_per_gpu": 400.0,
        "grid_intensity_g_per_kwh": 300.0}
H100_ROCE = {**H100, "inter_node": "RoCEv2"}
A100 = {"price_eur_per_gpu_hour": 1.5, "bf16_dense_tflops": 312.0, "fp8_dense_tflops": None, "memory_gb": 80.0,
        "memory_bandwidth_tbps": 2.039, "tdp_watts": 400.0, "gpus_per_node": 8, "intra_node": "NVLink-NVSwitch",
        "nvlink_gbps_bidirectional": 600.0, "inter_node": "InfiniBand-HDR", "inter_node_gbps_per_gpu": 200.0,
        "grid_intensity_g_per_kwh": 300.0}
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
        is_tp_comm_overlapped=True)
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
            is_tp_comm_overlapped=True)
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
        data_parallel_degree=8, recompute="full")
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
        kv_cache_bytes_per_element=1.0, is_fp8_ready=True, tensor_parallel_degree=tp)
    r = price_inference(svc, offer(H100))
    return float(r.tokens_per_s_per_gpu[0]) * tp


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


def results() -> list[tuple[Case, float]]:
    """(case, engine value) for every case."""
    return [(c, c.engine()) for c in CASES]


def _fmt(x: float) -> str:
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.3f}"


def markdown_rows() -> str:
    """One row per case: id, what, published, engine, error, tolerance, within."""
    lines = ["| Id | Case | Unit | Published | Engine | Error | Tol | Within |", "|---|---|---|---|---|---|---|---|"]
    n_in = 0
    out = results()
    for c, value in out:
        ok = c.within(value)
        n_in += ok
        lines.append(f"| {c.id} | {c.what} | {c.unit} | {_fmt(c.published)} | {_fmt(value)} | "
                     f"{c.relative_error(value):+.1%} | ±{c.tolerance:.0%} | {'yes' if ok else '**no**'} |")
    lines.append(f"\n{n_in} of {len(out)} validation cases within tolerance.")
    return "\n".join(lines)


if __name__ == "__main__":
    np.seterr(all="ignore")
    print(markdown_rows())
    del math
