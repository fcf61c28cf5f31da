"""The fastest feasible parallel layout of a training job, searched for every offer at once.

Practitioners choose the layout that minimises the step time among those that fit in memory (Narayanan et al.
[1] s3: "the optimal setting depends on the model, the batch size and the hardware"), not the smallest model-
parallel size that fits. The search tries every combination the job leaves open and its software stack can run
(:mod:`engine.workload.stacks`):

* tensor parallelism ``TP`` in {1, 2, 4, 8} within one node (``TP <= GPUs per node``),
* pipeline parallelism ``PP`` in {1, 2, 4, ..., 128} with ``PP <= layers``,
* interleaved virtual stages ``v`` in {1, 2, 4, 8, layers per stage} (``v > 1`` only with ``PP > 1`` and at least
  ``PP`` micro-batches per step, Megatron-LM's interleaved 1F1B schedule [1] s2.2.2),
* the sharding of the training state: none, the optimizer state only (ZeRO-1, Megatron's distributed optimizer
  [4]) or everything (ZeRO-3 / FSDP [4]),
* activation recomputation: the smallest share ``k`` of each stage's layers that must be fully recomputed for the
  activations to fit (Megatron-LM ``--recompute-granularity full --recompute-method block --recompute-num-layers``;
  ``k = 0`` is selective recomputation, ``k = 1`` full), costing ``k`` extra forward passes,

with data parallelism ``DP = n / (TP CP PP)`` for the rest and the job's micro-batch size (not searched: the model
has no per-GEMM efficiency that would make a larger micro-batch faster, so it could only lose). Pinned degrees
(``TrainingJob``) are honoured. Offers are grouped by the columns the step time depends on (memory, node shape,
peak FLOP/s, interconnects: :attr:`OfferArrays.layout_groups`), so the search runs on (groups x candidates) arrays,
a few hundred by a few hundred for a catalog of 100,000 offers.

Step time per candidate (docs/domain-model.md section 11.1; collectives from :mod:`engine.network`, the validated
functions):

.. math::

    t_{step} = t_c\\,r(k)\\,\\big(1 + \\tfrac{p-1}{v m}\\big) + e_{TP} + e_{CP} + e_{PP} + e_{DP}

Memory per GPU (bytes): training state by sharding mode (ZeRO paper [3] Fig. 1: ``(2 + 2 + 12/DP) N`` for ZeRO-1,
``16 N / DP`` for ZeRO-3, divided by ``TP PP``), plus activations ``c s b h L / (TP CP)`` on the first pipeline
stage with ``c = 34`` (selective) or ``2`` (full recomputation) per layer (Korthikanti et al. [2] Table 2), times
``1 + (p-1)/(p v)`` with interleaving ([2] s4.2.3).

References
----------
.. [1] D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM",
   SC'21, arXiv:2104.04473.
.. [2] V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models", arXiv:2205.05198.
.. [3] S. Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
   arXiv:1910.02054 (Fig. 1 memory per stage; s7: ZeRO-3 moves 1.5x the data-parallel volume of an all-reduce).
.. [4] Megatron-LM distributed optimizer (github.com/NVIDIA/Megatron-LM docs/source/api-guide/dist_optimizer.md): gradients reduce-scattered,
   parameters all-gathered, "6 + 12/d" bytes per parameter with FP32 gradients; PyTorch FSDP (ZeRO-3).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from engine import network, parallelism
from engine.workload.stacks import SHARD_FULL, SHARD_NONE, SHARD_OPTIMIZER, TrainingStackSpec

_TP_CHOICES = (1, 2, 4, 8)
_PP_CHOICES = (1, 2, 4, 8, 16, 32, 64, 128)
_V_CHOICES = (1, 2, 4, 8)
#: Weight bytes all-gathered by the optimizer-sharded and fully sharded modes: BF16 parameters (ZeRO [3]).
PARAM_GATHER_BYTES = 2.0
#: Bytes of the weights and gradients a ZeRO-1 / distributed-optimizer rank keeps whole (BF16 + BF16, [3] Fig. 1).
UNSHARDED_WEIGHT_GRAD_BYTES = 4.0


class Candidates(NamedTuple):
    """Layouts to try, one entry per candidate (arrays of shape ``(c,)``)."""

    tp: np.ndarray
    pp: np.ndarray
    dp: np.ndarray
    v: np.ndarray
    shard: np.ndarray  # SHARD_* codes

    @property
    def size(self) -> int:
        return int(self.tp.size)


def candidates(n_gpus: int, n_layers: int, cp: int, batch_sequences: float, micro_batch: int,
               stack: TrainingStackSpec, is_state_sharded: bool, tp: int | None = None, pp: int | None = None,
               dp: int | None = None, v: int | None = None, max_tp: int = 8) -> Candidates:
    """Every layout the job and its stack leave open (node-independent checks only).

    Examples
    --------
    >>> from engine.workload.stacks import TRAINING_STACK_SPECS as S
    >>> c = candidates(8, 32, 1, 32, 1, S["megatron"], True)
    >>> sorted({(int(t), int(p)) for t, p in zip(c.tp, c.pp)})[:4]
    [(1, 1), (1, 2), (1, 4), (1, 8)]
    >>> c = candidates(8, 32, 1, 32, 1, S["hf_trainer"], True)  # no TP/PP in the HF Trainer: FSDP over 8 GPUs
    >>> [(int(t), int(p), int(d)) for t, p, d in zip(c.tp, c.pp, c.dp)]
    [(1, 1, 8)]
    """
    tps = [tp] if tp is not None else [t for t in _TP_CHOICES if t <= max_tp and (stack.has_tensor_parallel or t == 1)]
    pps = [pp] if pp is not None else [p for p in _PP_CHOICES if p <= n_layers and (stack.has_pipeline_parallel
                                                                                    or p == 1)]
    shards = stack.shard_modes if is_state_sharded else (SHARD_NONE,)
    rows = []
    for t in tps:
        for p in pps:
            if n_gpus % (t * cp * p):
                continue
            d = n_gpus // (t * cp * p)
            if (dp is not None and d != dp) or batch_sequences < d * micro_batch:
                continue
            m = batch_sequences / (d * micro_batch)
            per_stage = n_layers // p
            if v is not None:
                vs = [v]
            elif p == 1 or not stack.has_interleaving:
                vs = [1]
            else:
                vs = sorted({x for x in (*_V_CHOICES, per_stage) if 1 <= x <= per_stage and (x == 1 or m >= p)})
            rows += [(t, p, d, x, sh) for x in vs for sh in shards]
    if not rows:
        empty = np.zeros(0)
        return Candidates(empty, empty, empty, empty, np.zeros(0, dtype=np.int8))
    arr = np.array(rows, dtype=float)
    return Candidates(arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3], arr[:, 4].astype(np.int8))


class JobShape(NamedTuple):
    """Scalars of the job that the step-time model needs."""

    n: float
    n_params: float
    trainable_params: float  # N for full training, the adapters for LoRA
    base_weight_bytes: float  # bytes per frozen base weight (LoRA: 2 BF16, QLoRA 0.516 NF4); 0 for full training
    state_bytes: float  # training state per trainable parameter [B] (16: Transformer Math 101)
    grad_bytes: float
    n_layers: float
    d_model: float
    kv_dim: float
    seq: float
    micro_batch: float
    cp: float
    batch_tokens: float
    batch_sequences: float
    flop_per_token: float  # model FLOPs per trained token
    recompute_extra_sel: float  # extra hardware FLOPs per token with selective recomputation
    recompute_extra_full: float  # extra hardware FLOPs per token with full recomputation (a whole forward)
    recompute: str
    tp_overlap: float
    backward_share: float
    act_bytes: float


class StepModel(NamedTuple):
    """Step time, its parts and the layout, shape ``(groups, candidates)`` (or gathered ``(offers,)``)."""

    step_s: np.ndarray
    compute_s: np.ndarray
    bubble_s: np.ndarray
    comm_s: np.ndarray
    e_tp: np.ndarray
    e_cp: np.ndarray
    e_pp: np.ndarray
    e_dp: np.ndarray
    recompute_share: np.ndarray  # k: share of layers fully recomputed
    flop_factor: np.ndarray  # r = hardware / model FLOPs
    memory_bytes: np.ndarray
    micro_batches: np.ndarray
    dp_bytes: np.ndarray
    fits: np.ndarray  # bool: fits in memory with TP inside one node
    fits_memory: np.ndarray  # bool: fits in memory (TP per node not checked)
    tp: np.ndarray
    pp: np.ndarray
    dp: np.ndarray
    v: np.ndarray
    shard: np.ndarray


def state_bytes_per_gpu(j: JobShape, tp: np.ndarray, pp: np.ndarray, dp: np.ndarray, shard: np.ndarray) -> np.ndarray:
    """Training state held by one GPU [B]: trainable state by sharding mode plus the frozen base weights (LoRA).

    Examples
    --------
    >>> j = JobShape(64, 70e9, 70e9, 0.0, 16.0, 2.0, 80, 8192, 1024, 4096, 1, 1, 1e6, 244, 4.2e11, 0, 1.4e11,
    ...              "auto", 0.0, 2 / 3, 2.0)
    >>> [round(float(state_bytes_per_gpu(j, 8, 1, 8, s)) / 1e9, 2) for s in (0, 1, 2)]  # none, ZeRO-1, ZeRO-3
    [140.0, 48.12, 17.5]
    """
    tp, pp, dp, shard = (np.asarray(x, dtype=float) for x in (tp, pp, dp, shard))
    k = dp * j.cp
    per_stage = j.trainable_params / (tp * pp)
    whole = np.where(shard == SHARD_OPTIMIZER, UNSHARDED_WEIGHT_GRAD_BYTES, 0.0)
    sharded_part = np.where(shard == SHARD_NONE, j.state_bytes, (j.state_bytes - whole) / k)
    base = j.base_weight_bytes * j.n_params / (tp * pp) / np.where(shard == SHARD_FULL, k, 1.0)
    return per_stage * (whole + sharded_part) + base


def step_model(j: JobShape, c: Candidates, g: dict[str, np.ndarray], latency_s: float, hop_latency_s: float,
               nic_efficiency: float, oversubscription: float, overlap_fraction: float, pp_overlap: float,
               cp_overlap: float, bucket_bytes: float, pcie_busbw: float) -> StepModel:
    """Step time of every candidate on every group of offers, shape ``(groups, candidates)``.

    ``g`` holds per-group columns of shape ``(groups, 1)``: ``eff_flops`` (achieved FLOP/s per GPU),
    ``usable_bytes`` (memory for state + activations), ``gpn`` (GPUs per node, NaN unknown), ``in_node`` (GPUs of
    the job in one node), ``intra_ring`` and ``intra_allreduce`` (bus bandwidth for ring collectives and for the
    all-reduce, NVLS where the node has it) [GB/s], ``link_gbit`` (scale-out per GPU) and ``is_bridge``.
    """
    tp, pp, dp, v = (x[None, :] for x in (c.tp, c.pp, c.dp, c.v))
    shard = c.shard[None, :].astype(float)
    L, h, s, b, cp = j.n_layers, j.d_model, j.seq, j.micro_batch, j.cp
    m = j.batch_sequences / (dp * b)
    # Memory: state + activations on the first stage, with the smallest share k of fully recomputed layers.
    state = state_bytes_per_gpu(j, tp, pp, dp, shard)
    interleave = 1.0 + np.where(v > 1, (pp - 1.0) / (pp * v), 0.0)
    act_unit = s * b * h * L / (tp * cp) * interleave
    act_sel = parallelism.ACTIVATION_BYTES_SELECTIVE * act_unit
    act_full = parallelism.ACTIVATION_BYTES_FULL * act_unit
    avail = g["usable_bytes"] - state
    with np.errstate(divide="ignore", invalid="ignore"):
        if j.recompute == "full":
            k = np.ones_like(avail * act_sel)
        elif j.recompute in ("none", "selective"):
            k = np.zeros_like(avail * act_sel)
        else:
            need = np.clip((act_sel - avail) / (act_sel - act_full), 0.0, None)
            per_stage = np.maximum(np.floor(L / pp), 1.0)
            k = np.ceil(need * per_stage - 1e-9) / per_stage
            k = np.minimum(k, np.where(need > 1.0, 2.0, 1.0))  # 2 = cannot fit (flagged below)
        memory = state + act_sel - np.minimum(k, 1.0) * (act_sel - act_full)
        fits_memory = (k <= 1.0) & (memory <= g["usable_bytes"])
        fits = fits_memory & ~(tp > g["gpn_or_inf"])
        k = np.minimum(k, 1.0)
        extra = j.recompute_extra_sel + k * (j.recompute_extra_full - j.recompute_extra_sel)
        r = 1.0 + extra / j.flop_per_token
        t_comp = j.flop_per_token * j.batch_tokens / (j.n * g["eff_flops"]) * r
        t_bubble = t_comp * (pp - 1.0) / (v * m)
        t_mb = t_comp / m

        def intra(ranks: np.ndarray | float, bw: np.ndarray) -> np.ndarray:
            out = np.where(g["is_bridge"] & (np.asarray(ranks) > 2), pcie_busbw, bw)
            return np.where(np.isnan(out), 1e-300, out)

        nic = np.where(np.isnan(g["link_gbit"]), 1e-300,
                       network.nic_busbw_gb_per_s(g["link_gbit"], nic_efficiency) / oversubscription)
        in_node = g["in_node"]
        ranks_in_node = in_node / tp
        # TP (sequence parallel): per layer and micro-batch 2 all-gathers + 2 reduce-scatters forward and backward =
        # 4 all-reduce volumes; each pair of calls pays two latencies. Fully recomputed layers repeat the forward ones.
        tp_calls = 4.0 * (L / pp) * m * (1.0 + 0.5 * k)
        t_tp = tp_calls * network.allreduce_time_s((s / cp) * b * h * j.act_bytes, tp, intra(tp, g["intra_ring"]),
                                                   2.0 * latency_s)
        e_tp = t_tp * (1.0 - j.tp_overlap)
        # CP: all-gather of K and V forward, reduce-scatter of their gradients backward (one all-reduce volume).
        if cp > 1:
            g_cp = np.clip(ranks_in_node, 1.0, cp)
            t_cp_call = network.hierarchical_allreduce_time_s(
                s * b * 2.0 * j.kv_dim * j.act_bytes / tp, g_cp, cp / g_cp, intra(g_cp, g["intra_ring"]), g["link_gbit"],
                oversubscription, nic_efficiency, 2.0 * latency_s, 0.0).total_s
            t_cp = (L / pp) * m * np.where(np.isnan(t_cp_call), np.inf, t_cp_call)
        else:
            t_cp = np.zeros_like(t_comp)
        e_cp = t_cp * (1.0 - cp_overlap)
        # PP send/recv of activations (split over the TP ranks), NVLink when the next stage is in the node.
        same_node = in_node >= 2.0 * tp * cp * dp
        pp_link = np.where(same_node, intra(2.0, g["intra_ring"]), nic)
        t_pp = np.where(pp > 1, network.point_to_point_time_s(2.0 * m * v * (s / cp) * b * h * j.act_bytes / tp,
                                                             pp_link), 0.0)
        e_pp = t_pp * (1.0 - np.where(v > 1, pp_overlap, 0.0))
        # DP over the DP x CP ranks of one TP slot: all-reduce of the gradients (no sharding), reduce-scatter of the
        # gradients + all-gather of the parameters (ZeRO-1), + a second all-gather for the backward (ZeRO-3 / FSDP).
        kdp = dp * cp
        r_node = np.clip(ranks_in_node, 1.0, kdp)
        m_dp = kdp / r_node
        grads = j.trainable_params / (tp * pp) * j.grad_bytes
        params = j.trainable_params / (tp * pp) * PARAM_GATHER_BYTES
        frozen = j.base_weight_bytes * j.n_params / (tp * pp)
        dp_volume = np.where(shard == SHARD_NONE, 2.0 * grads,
                             grads + params + np.where(shard == SHARD_FULL, params + 2.0 * frozen, 0.0))
        bw_dp = np.where(shard == SHARD_NONE, intra(r_node, g["intra_allreduce"]), intra(r_node, g["intra_ring"]))
        buckets = np.ceil(dp_volume / (2.0 * bucket_bytes))
        t_dp = network.hierarchical_allreduce_time_s(
            dp_volume, r_node, m_dp, bw_dp, g["link_gbit"], oversubscription, nic_efficiency, latency_s,
            hop_latency_s, buckets, volume_factor=(kdp - 1.0) / kdp).total_s
        t_dp = np.where(np.isnan(t_dp), np.where(kdp > 1, np.inf, 0.0), t_dp)
        sharded = (shard != SHARD_NONE).astype(float)
        window = t_mb * ((j.backward_share + r - 1.0) + (1.0 - j.backward_share) * sharded) / r
        e_dp = np.maximum((1.0 - overlap_fraction) * t_dp, t_dp - window)
        step = t_comp + t_bubble + e_tp + e_cp + e_pp + e_dp
    shape = step.shape
    fields = (step, t_comp, t_bubble, t_tp + t_cp + t_pp + t_dp, e_tp, e_cp, e_pp, e_dp, k, r, memory, m,
              (kdp - 1.0) / kdp * dp_volume, fits, fits_memory, tp, pp, dp, v, shard)
    return StepModel(*(np.broadcast_to(x, shape) for x in fields))


def best_two(model: StepModel) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Index of the fastest feasible candidate per group, of the runner-up, and whether any fits.

    Ties go to the earlier candidate (smaller TP, then PP: :func:`candidates` order). The runner-up is the fastest
    feasible candidate with a different (TP, PP, v, sharding) layout; -1 when there is none.

    Examples
    --------
    >>> z = np.zeros((1, 3)); f = np.array([[True, True, False]])
    >>> m = StepModel(np.array([[2.0, 1.0, 0.5]]), *([z] * 12), f, f, *([z] * 5))
    >>> [x.tolist() for x in best_two(m)]
    [[1], [0], [True]]
    """
    n_c = model.step_s.shape[1]
    if n_c == 0:
        empty = np.zeros(model.step_s.shape[0], dtype=np.intp)
        return empty, empty - 1, np.zeros(model.step_s.shape[0], dtype=bool)
    t = np.where(model.fits, model.step_s, np.inf)
    t = np.where(np.isnan(t), np.inf, t)
    if n_c == 1:
        best = np.zeros(t.shape[0], dtype=np.intp)
        return best, best - 1, np.isfinite(t[:, 0])
    part = np.argpartition(t, 1, axis=1)[:, :2]
    vals = np.take_along_axis(t, part, axis=1)
    order = np.argsort(vals, axis=1, kind="stable")
    part = np.take_along_axis(part, order, axis=1)
    # stable tie-break on the candidate index among equal times
    best, second = part[:, 0], part[:, 1]
    rows = np.arange(t.shape[0])
    tie = t[rows, best] == t[rows, second]
    swap = tie & (second < best)
    best, second = np.where(swap, second, best), np.where(swap, best, second)
    any_fit = np.isfinite(t[rows, best])
    second = np.where(np.isfinite(t[rows, second]), second, -1)
    return best, second, any_fit


def lora_adapter_params(n_layers: float, d_model: float, kv_dim: float, rank: float) -> float:
    """Trainable LoRA parameters with adapters on every linear layer of a Llama-style block [-].

    Each adapted ``d_in x d_out`` matrix gains ``r (d_in + d_out)`` parameters (Hu et al., arXiv:2106.09685 s4);
    a block has Q, O (``h x h``), K, V (``h x kv``) and the SwiGLU gate, up, down (``h x f``) with ``f = 8h/3``
    (Touvron et al., arXiv:2302.13971 s2): ``r L (9h + 2kv + 3f)``.

    Examples
    --------
    >>> round(lora_adapter_params(80, 8192, 1024, 16) / 1e6, 1)  # Llama 2 70B, rank 16: ~0.3 % of 70B
    180.9
    """
    ffn = 8.0 * d_model / 3.0
    return rank * n_layers * (9.0 * d_model + 2.0 * kv_dim + 3.0 * ffn)


def gathered(model: StepModel, index: np.ndarray) -> StepModel:
    """Rows ``(group, index[group])`` of every field: the chosen candidate per group, shape ``(groups,)``.

    A negative index (no runner-up) gives NaN (layout fields too)."""
    rows = np.arange(model.step_s.shape[0])
    idx = np.maximum(index, 0)
    bad = index < 0
    out = []
    for name, arr in zip(model._fields, model, strict=True):
        val = np.asarray(arr)[rows, idx] if arr.shape[1] else np.full(rows.size, np.nan)
        if name in ("fits", "fits_memory"):
            out.append(val & ~bad)
        else:
            out.append(np.where(bad, np.nan, val.astype(float)))
    return StepModel(*out)


def describe(tp: float, pp: float, dp: float, cp: float, v: float, shard: float, k: float) -> str:
    """One line per layout, e.g. ``TP 4 · PP 4 (v 5) · DP 4 · ZeRO-1 · recompute 25 % of layers``."""
    if any(map(math.isnan, (tp, pp, dp))):
        return ""
    parts = [f"TP {tp:.0f}", f"PP {pp:.0f}" + (f" (v {v:.0f})" if v > 1 else "")]
    if cp > 1:
        parts.append(f"CP {cp:.0f}")
    parts.append(f"DP {dp:.0f}")
    parts.append(("no sharding", "ZeRO-1", "FSDP/ZeRO-3")[int(shard)])
    if k >= 1.0:
        parts.append("full recompute")
    elif k > 0:
        parts.append(f"recompute {k:.0%} of layers")
    return " · ".join(parts)
