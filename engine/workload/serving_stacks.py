"""Serving stacks: what TensorRT-LLM, vLLM and SGLang reach on the same GPU (issue #26).

The serving model (:mod:`engine.serving`) needs two properties of the software that runs it:

* the **memory-bandwidth utilisation** ``eta`` of a decode step — the share of the GPU's peak HBM bandwidth the
  stack's GEMV/GEMM and attention kernels reach while streaming the weights and the KV cache. Bytes are bytes: a
  modern stack reads FP8 weights at the same rate as BF16 ones, so one value per stack serves every precision (the
  engine's older precision-dependent values came from TensorRT-LLM v0.5's batch-1 FP8 kernels of 2023, C6, and are
  kept only for the ``generic`` stack);
* the **fixed time per layer and decode step** ``delta`` — kernel launches, the gaps between small kernels and
  per-step scheduling, which do not shrink with the batch and dominate decode at batch 1.

Each stack's values are calibrated on published runs *of that stack* (calibration cases of docs/validation.md, never
a validation case): ``fit_serving_stack`` in ``tests/engine/validation_cases.py`` reproduces the fit.

References
----------
.. [1] TensorRT-LLM performance overview, github.com/NVIDIA/TensorRT-LLM ``docs/source/performance/perf-overview.md``
   at commit 00f37686aa854010d68bcbd0f4ab000221541ca6: H200 rows of Llama 3.1 8B FP8 (C12).
.. [2] vLLM performance CI, buildkite.com/vllm/performance-benchmark/builds/9515, "Latency tests": Llama 3.1 8B,
   TP 1, H200, input 32, output 128, batch 8, mean latency 833.42 ms (C13).
.. [3] SGLang v0.3.0 vs vLLM v0.6.0 (github.com/sgl-project/sglang ``benchmark/benchmark_vllm_060/README.md`` at
   commit 120affb9613cc3f5bcd055ec09c7621d3ced0ebc): offline throughput within 4 % of vLLM on the same GPUs (8B on
   A100: 4,281.51 vs 4,132.37 tokens/s; 70B on 4x H100: 3,856.01 vs 3,700.64).
"""

from __future__ import annotations

from typing import Literal, NamedTuple

ServingStack = Literal["generic", "tensorrt_llm", "vllm", "sglang"]
SERVING_STACKS: tuple[str, ...] = ("generic", "tensorrt_llm", "vllm", "sglang")


class ServingStackSpec(NamedTuple):
    """Bandwidth utilisation and fixed per-layer time of one serving stack.

    Examples
    --------
    >>> s = SERVING_STACK_SPECS["vllm"]
    >>> s.bandwidth_fraction, round(s.overhead_s_per_layer * 1e6)  # 32 layers: 1.4 ms per decode step
    (0.67, 44)
    """

    label: str
    bandwidth_fraction: float | None  # None = the engine's precision-dependent C6 defaults (generic)
    overhead_s_per_layer: float
    calibrated_on: str


#: C12: the memory-bandwidth utilisation at which the engine reproduces TensorRT-LLM's H200 Llama 3.1 8B FP8 rows
#: 1000/1000 (17,744 tokens/s) and 2048/2048 (12,194) at maximum throughput (geometric mean of the two fits: 0.669).
TENSORRT_LLM_BANDWIDTH_FRACTION = 0.67
#: TensorRT-LLM runs decode steps as CUDA graphs of fused kernels: the fixed per-layer time is taken as 0
#: (assumption; no published per-layer figure found), so its batch-1 latency is bandwidth and TP all-reduces only.
TENSORRT_LLM_OVERHEAD_S_PER_LAYER = 0.0
#: C13: vLLM's fixed time per layer and decode step at which the engine reproduces vLLM's CI latency test (8B, H200,
#: batch 8, 32 in / 128 out: 833.42 ms), with TensorRT-LLM's bandwidth utilisation (same HBM, comparable kernels:
#: assumption); fit 43.8 us.
VLLM_OVERHEAD_S_PER_LAYER = 44e-6

SERVING_STACK_SPECS: dict[str, ServingStackSpec] = {
    "generic": ServingStackSpec(
        "Generic (TensorRT-LLM v0.5 era)", None, 0.0,
        "C6: MBU 0.65 (16-bit) / 0.33 (8-bit weights), TensorRT-LLM v0.5 batch 1 (2023)"),
    "tensorrt_llm": ServingStackSpec(
        "TensorRT-LLM", TENSORRT_LLM_BANDWIDTH_FRACTION, TENSORRT_LLM_OVERHEAD_S_PER_LAYER,
        "C12: perf-overview H200 Llama 3.1 8B FP8 rows; per-layer time 0 (CUDA graphs, assumption)"),
    "vllm": ServingStackSpec(
        "vLLM", TENSORRT_LLM_BANDWIDTH_FRACTION, VLLM_OVERHEAD_S_PER_LAYER,
        "C13: vLLM CI latency test (8B, H200, batch 8); bandwidth as TensorRT-LLM (C12, assumption)"),
    "sglang": ServingStackSpec(
        "SGLang", TENSORRT_LLM_BANDWIDTH_FRACTION, VLLM_OVERHEAD_S_PER_LAYER,
        "as vLLM: SGLang v0.3.0 within 4 % of vLLM v0.6.0 offline (sglang benchmark_vllm_060 README)"),
}
