"""LLM serving with continuous batching: step times, KV-cache capacity, throughput and latency under load.

One model replica spans ``tp`` GPUs (tensor parallelism). With continuous (in-flight) batching the server keeps up
to ``b`` sequences in flight and re-forms the batch every decode step; a new request's prompt is prefilled in
chunks between decode steps instead of a whole batch being prefilled at once (Triton/TensorRT-LLM batcher docs;
vLLM). All functions broadcast over offers. Formulas (docs/domain-model.md section 11.6):

* **Decode step** with ``b`` sequences (roofline, Williams et al. 2009):
  ``t_step(b) = max(bytes(b) / (tp BW MBU), b f_dec / (tp F MFU)) + t_TP(b) + L delta``, where ``delta`` is the
  serving stack's fixed time per layer and step (kernel launches and the gaps between small kernels, scheduling;
  it dominates at batch 1, :mod:`engine.workload.serving_stacks`), and
  ``bytes(b) = W_read(b) + b KV_seq`` — the weights read once per step plus each sequence's KV cache — and
  ``f_dec = 2 N_active + 4 L d ctx`` FLOPs per token (attention over ``ctx = P + O/2`` cached tokens).
* **MoE**: FLOPs use the *active* parameters, memory holds the *total*; a step reads the experts its ``b``
  tokens route to: ``W_read(b) = W_total (1 - (1 - a)^b)``, ``a = N_active / N_total`` (``W_active`` at ``b = 1``,
  all weights for large ``b``; uniform routing assumed).
* **Tensor parallelism** per step: 2 all-reduces per layer of ``b d`` activations (Megatron TP):
  ``t_TP = 2 L (alpha + 2 (tp-1)/tp b d x bytes / B_intra)`` for ``tp > 1``; the same per prefilled token chunk.
* **MBU depends on precision/kernel**: the memory-bandwidth utilisation is an input per weight precision
  (FP8/INT8 weights reached 33 % where FP16 reached 65 % in the same TensorRT-LLM measurement, C6) — halving the
  bytes does not halve the time.
* **KV-cache capacity**: ``b_max = (tp M u - W_total) / (r KV_seq)`` with paged KV (``KV_seq = kv_tok (P + O/2)``
  on average); the concurrency is ``min(b_cap, b_max)``.
* **KV heads replicated when TP exceeds them**: the KV heads are split over the replica's ``tp`` GPUs, and when
  ``tp`` is larger than the model's KV heads ``h_kv`` each GPU still holds one, so every head is stored (and read
  every step) on ``r = max(1, tp / h_kv)`` GPUs: vLLM ``ModelConfig.get_num_kv_heads`` returns
  ``max(1, h_kv // tp)`` KV heads per GPU, "We will replicate the KV heads in the case where the number of KV heads
  is smaller than the tensor parallel size so each GPU has at least one KV head" [6]. ``bytes(b)`` above reads
  ``r b KV_seq``. (Qwen3-235B-A22B has 4 KV heads: at TP 8 its KV cache takes twice the memory.)
* **Throughput** at concurrency ``b``: each request needs its prefill ``t_pf`` of exclusive GPU time and ``O``
  decode steps shared with ``b - 1`` others: ``X(b) = 1 / (t_pf + O t_step(b) / b)`` requests/s.
* **Under load** (request rate ``λ`` per replica): the concurrency solves ``b = λ O TPOT(b)`` with
  ``TPOT(b) = t_step(b) / (1 - λ t_pf)`` (prefill chunks stretch decode steps; Little's law). Iterated from
  ``b = 0`` (the least fixed point); unstable when it exceeds the cap.
* **Latency percentiles** (approximation): time to first token = own prefill (it emits the first token) + a
  queueing wait from the M/M/1 waiting time (mean ``ρ s / (1 - ρ)``, tail ``P(W > t) = ρ exp(-(1-ρ) t / s)``)
  with ``ρ = λ / X(b_cap)`` and ``s = t_pf + t_step`` (Kleinrock, Queueing Systems Vol. 1, 1975); request
  latency = TTFT + O TPOT.
  Not validated against a published latency distribution (docs/validation.md).

References
----------
.. [1] S. Williams, A. Waterman, D. Patterson, "Roofline", CACM 52(4), 2009.
.. [2] Databricks/MosaicML, "LLM inference performance engineering: best practices" (MBU, TTFT, TPOT).
.. [3] W. Kwon et al., "Efficient Memory Management for LLM Serving with PagedAttention", SOSP 2023 (paged KV).
.. [4] Triton Inference Server, dynamic/in-flight batching,
       https://github.com/triton-inference-server/server/blob/main/docs/user_guide/batcher.md
.. [5] L. Kleinrock, Queueing Systems, Vol. 1, Wiley 1975 (M/M/1 waiting time).
.. [6] vLLM ``vllm/config.py`` ``ModelConfig.get_num_kv_heads``,
       https://github.com/vllm-project/vllm/blob/c0c2335ce027486d254c31f665ce00d7db427d22/vllm/config.py
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

#: Fixed-point iterations for the concurrency under load (monotone from 0; 60 reach 1e-9 relative on every case
#: the tests sweep).
_ITERATIONS = 60


class ReplicaSpec(NamedTuple):
    """What one replica is, per offer (arrays) or scalar."""

    tp: np.ndarray  # GPUs per replica
    flops: np.ndarray  # FLOP/s per GPU at the decode/prefill efficiency
    bytes_per_s: np.ndarray  # B/s per GPU at the MBU
    intra_busbw_gb_per_s: np.ndarray  # TP all-reduce bus bandwidth [GB/s]
    allreduce_latency_s: float
    step_overhead_s: float = 0.0  # fixed time per decode step (kernel launches, scheduling), not hidden [s]


class Workload(NamedTuple):
    """What each request and the model need (scalars)."""

    weight_bytes_total: float
    active_fraction: float  # N_active / N_total
    kv_bytes_per_seq: float  # average over a request's life (paged)
    decode_flop_per_token: float
    prefill_flop_per_request: float
    prompt_tokens: float
    output_tokens: float
    n_layers: float
    d_model: float
    activation_bytes: float  # bytes per activation element in TP all-reduces
    kv_heads: float = float("inf")  # the model's KV heads (inf: never fewer than the TP degree)


def kv_replication(tp: npt.ArrayLike, w: Workload) -> np.ndarray:
    """GPUs of a replica that hold each KV head, ``max(1, tp / h_kv)`` [-] (module docstring, [6]).

    Examples
    --------
    >>> w = Workload(0, 1, 0, 0, 0, 0, 0, 94, 4096, 2, kv_heads=4)  # Qwen3-235B-A22B: 4 KV heads
    >>> kv_replication([1, 4, 8], w).tolist()
    [1.0, 1.0, 2.0]
    """
    return np.maximum(1.0, np.asarray(tp, dtype=float) / w.kv_heads)


def weights_read_bytes(batch: npt.ArrayLike, weight_bytes_total: float, active_fraction: float) -> np.ndarray:
    """Weight bytes one decode step reads for ``batch`` sequences, ``W (1 - (1 - a)^b)`` [B].

    Examples
    --------
    >>> weights_read_bytes([1, 8, 1000], 470e9, 22 / 235).round(-9).tolist()  # Qwen3-235B-A22B FP8 (2 B/param: x2)
    [44000000000.0, 256000000000.0, 470000000000.0]
    """
    b = np.asarray(batch, dtype=float)
    if active_fraction >= 1.0:
        return np.full(b.shape, weight_bytes_total)
    return weight_bytes_total * -np.expm1(b * np.log1p(-active_fraction))


def tp_allreduce_s(tokens: npt.ArrayLike, w: Workload, r: ReplicaSpec) -> np.ndarray:
    """Tensor-parallel all-reduces for ``tokens`` tokens processed together: ``2 L (alpha + 2(tp-1)/tp x bytes / B)``."""
    tp = np.asarray(r.tp, dtype=float)
    factor = 2.0 * (tp - 1.0) / tp
    with np.errstate(divide="ignore", invalid="ignore"):
        per_call = r.allreduce_latency_s + factor * np.asarray(tokens, dtype=float) * (w.d_model * w.activation_bytes) / (
            np.asarray(r.intra_busbw_gb_per_s, dtype=float) * 1e9)
    return np.where(tp > 1, 2.0 * w.n_layers * per_call, 0.0)


def decode_step_s(batch: npt.ArrayLike, w: Workload, r: ReplicaSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decode step time and its memory and compute terms for ``batch`` sequences [s]."""
    b = np.asarray(batch, dtype=float)
    t_mem = (weights_read_bytes(b, w.weight_bytes_total, w.active_fraction)
             + b * w.kv_bytes_per_seq * kv_replication(r.tp, w)) / (r.tp * r.bytes_per_s)
    t_cmp = b * w.decode_flop_per_token / (r.tp * r.flops)
    return np.maximum(t_mem, t_cmp) + tp_allreduce_s(b, w, r) + r.step_overhead_s, t_mem, t_cmp


def prefill_s(w: Workload, r: ReplicaSpec) -> np.ndarray:
    """Prefill of one prompt (compute-bound, chunked between decode steps) incl. its TP all-reduces [s]."""
    return w.prefill_flop_per_request / (r.tp * r.flops) + tp_allreduce_s(w.prompt_tokens, w, r)


def kv_capacity_sequences(memory_gb: npt.ArrayLike, tp: npt.ArrayLike, usable_fraction: float, w: Workload
                          ) -> np.ndarray:
    """Sequences whose KV cache fits next to the weights, ``(tp M u - W) / (r KV_seq)`` (floored, may be < 1) [-]
    (``r``: :func:`kv_replication`).

    Examples
    --------
    Llama 3.1 8B FP8 (8 GB) with FP8 KV cache (64 KiB/token), 128 + 128 tokens, one H100 at 90 %:

    >>> w = Workload(8e9, 1.0, 65536 * 192, 0, 0, 128, 128, 32, 4096, 2)
    >>> int(kv_capacity_sequences(80.0, 1, 0.9, w))
    5086
    """
    free = np.asarray(memory_gb, dtype=float) * 1e9 * usable_fraction * np.asarray(tp, dtype=float) - w.weight_bytes_total
    return np.floor(free / (w.kv_bytes_per_seq * kv_replication(tp, w)))


class Throughput(NamedTuple):
    """Full-load operating point of one replica."""

    concurrency: np.ndarray  # sequences in flight
    requests_per_s: np.ndarray  # per replica
    step_s: np.ndarray
    step_memory_s: np.ndarray
    step_compute_s: np.ndarray
    prefill_s: np.ndarray
    tpot_s: np.ndarray  # t_step + b t_pf / O
    ttft_s: np.ndarray  # own prefill, which emits the first token (no queue)


def full_load(batch_cap: npt.ArrayLike, w: Workload, r: ReplicaSpec) -> Throughput:
    """The replica at ``b = batch_cap`` sequences in flight (the offline / maximum-throughput point).

    Examples
    --------
    One sequence on a 1 TB/s, 100 TFLOP/s GPU, 10 GB of weights, no KV: 10 ms steps.

    >>> w = Workload(10e9, 1.0, 0.0, 2e10, 2e12, 100, 10, 10, 1000, 2)
    >>> r = ReplicaSpec(np.array(1.0), np.array(1e14), np.array(1e12), np.array(100.0), 0.0)
    >>> t = full_load(1, w, r)
    >>> round(float(t.step_s), 4), round(float(t.prefill_s), 4), round(float(t.requests_per_s), 3)
    (0.01, 0.02, 8.333)
    """
    b = np.asarray(batch_cap, dtype=float)
    t_step, t_mem, t_cmp = decode_step_s(b, w, r)
    t_pf = prefill_s(w, r)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = 1.0 / (t_pf + w.output_tokens * t_step / b)
        tpot = t_step + b * t_pf / w.output_tokens
    return Throughput(b, x, t_step, t_mem, t_cmp, t_pf, tpot, t_pf)


class LoadPoint(NamedTuple):
    """One replica serving ``λ`` requests/s."""

    concurrency: np.ndarray
    tpot_s: np.ndarray
    ttft_mean_s: np.ndarray
    latency_mean_s: np.ndarray
    ttft_p50_s: np.ndarray
    ttft_p90_s: np.ndarray
    ttft_p99_s: np.ndarray
    latency_p50_s: np.ndarray
    latency_p90_s: np.ndarray
    latency_p99_s: np.ndarray
    stable: np.ndarray  # bool: the replica keeps up (queue does not grow without bound)


def mm1_wait_quantile_s(rho: npt.ArrayLike, service_s: npt.ArrayLike, q: float) -> np.ndarray:
    """q-quantile of the M/M/1 waiting time, ``max(0, s/(1-ρ) ln(ρ/(1-q)))`` [s] (Kleinrock).

    Examples
    --------
    >>> round(float(mm1_wait_quantile_s(0.8, 1.0, 0.99)), 2)  # 5 ln 80
    21.91
    >>> float(mm1_wait_quantile_s(0.3, 1.0, 0.5))  # P(wait > 0) = 0.3 < 0.5
    0.0
    """
    rho = np.asarray(rho, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.asarray(service_s, dtype=float) / (1.0 - rho) * np.log(rho / (1.0 - q))
    return np.where(rho < 1.0, np.maximum(t, 0.0), np.inf)


def at_rate(rate_per_s: npt.ArrayLike, batch_cap: npt.ArrayLike, w: Workload, r: ReplicaSpec) -> LoadPoint:
    """Concurrency, per-token time and latency percentiles of one replica at ``rate_per_s`` requests/s.

    Examples
    --------
    >>> w = Workload(10e9, 1.0, 0.0, 2e10, 2e12, 100, 10, 10, 1000, 2)
    >>> r = ReplicaSpec(np.array(1.0), np.array(1e14), np.array(1e12), np.array(100.0), 0.0)
    >>> p = at_rate(1.0, 64, w, r)  # light load: about one sequence in flight
    >>> round(float(p.concurrency), 3), round(float(p.tpot_s), 4), bool(p.stable)
    (0.102, 0.0102, True)
    """
    lam = np.asarray(rate_per_s, dtype=float)
    cap = np.asarray(batch_cap, dtype=float)
    t_pf = prefill_s(w, r)
    share = 1.0 - lam * t_pf  # GPU time left for decode steps
    with np.errstate(divide="ignore", invalid="ignore"):
        c = lam * w.output_tokens / share
        b = np.zeros(np.broadcast(lam, cap, t_pf).shape)
        for _ in range(_ITERATIONS):
            b = np.minimum(cap, c * decode_step_s(b, w, r)[0])
        t_step = decode_step_s(np.maximum(b, 1.0), w, r)[0]
        tpot = t_step / share
        stable = (share > 0) & (c * decode_step_s(cap, w, r)[0] <= cap)
        rho = lam / full_load(cap, w, r).requests_per_s
        service = t_pf + t_step
        mean_wait = np.where(rho < 1.0, rho * service / (1.0 - rho), np.inf)
        ttft = [t_pf + mean_wait] + [t_pf + mm1_wait_quantile_s(rho, service, q) for q in (0.5, 0.9, 0.99)]
    lat = [x + w.output_tokens * tpot for x in ttft]
    nan = np.where(stable, 0.0, np.nan)
    return LoadPoint(b + nan, tpot + nan, ttft[0] + nan, lat[0] + nan, ttft[1] + nan, ttft[2] + nan, ttft[3] + nan,
                     lat[1] + nan, lat[2] + nan, lat[3] + nan, stable)
