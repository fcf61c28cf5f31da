"""Training kernel (:func:`price_training`) and the MFU / HFU helpers for measured runs.

Part of :mod:`engine.workload`; the model and the references [n] are in its docstring.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engine import goodput as goodput_model
from engine import network, parallelism, power
from engine.assumptions import Assumption
from engine.fast import fill_missing_nonnegative, first_reason_codes, nan_as_tiny
from engine.workload.common import (
    _check_policy,
    _context,
    _effective_tflops,
    _missing_code,
    _peak_tflops,
)
from engine.workload.inputs import DEFAULT_ASSUMPTIONS, EngineAssumptions, MissingFabricPolicy, TrainingJob
from engine.workload.offers import OfferArrays
from engine.workload.results import Bound, ExclusionReason, TrainingResult

# --------------------------------------------------------------------------------------------------
# Library helpers: MFU from a measurement, per-token figures
# --------------------------------------------------------------------------------------------------


def training_flop(n_params: npt.ArrayLike, training_tokens: npt.ArrayLike) -> np.ndarray:
    """Training compute C = 6 N D [FLOP] (Kaplan et al. 2020; Transformer Math 101).

    Examples
    --------
    >>> float(training_flop(174.6e9, 300e9))  # GPT-3 175B, T4 (published 3.14e23)
    3.1428e+23
    """
    return 6.0 * np.asarray(n_params, dtype=float) * np.asarray(training_tokens, dtype=float)


def mfu_from_tokens_per_s(
    tokens_per_s_per_gpu: npt.ArrayLike, n_params: float, peak_tflops: npt.ArrayLike,
    seq_tokens: float = 0.0, d_model: float = 0.0, n_layers: float = 0.0,
) -> np.ndarray:
    """Model FLOPs utilisation from a measured training throughput [-].

    ``MFU = tokens/s/GPU x (6N + 6 L h s) / peak`` (PaLM App. B with causal attention; leave the shape at 0 to
    count ``6N`` only, as the Llama 2 model card figures do).

    Examples
    --------
    MLPerf v3.1 GPT-3 175B on 512 H100 (V1): 1,109 tokens/s/GPU is 59 % of the FP8 peak (6N only):

    >>> round(float(mfu_from_tokens_per_s(1109.0, 175e9, 1979.0)), 3)
    0.588
    """
    flop = parallelism.model_flop_per_token(n_params, seq_tokens, d_model, n_layers)
    return np.asarray(tokens_per_s_per_gpu, dtype=float) * flop / (np.asarray(peak_tflops, dtype=float) * 1e12)


def mfu_from_step_time(
    step_time_s: npt.ArrayLike, tokens_per_step: float, n_gpus: float, n_params: float, peak_tflops: npt.ArrayLike,
    seq_tokens: float = 0.0, d_model: float = 0.0, n_layers: float = 0.0,
) -> np.ndarray:
    """MFU from a measured optimizer-step time: tokens/s/GPU = tokens_per_step / step / GPUs [-].

    Examples
    --------
    >>> round(float(mfu_from_step_time(11.08, 3072 * 2048, 512, 175e9, 1979.0)), 3)
    0.588
    """
    tps = tokens_per_step / (np.asarray(step_time_s, dtype=float) * n_gpus)
    return mfu_from_tokens_per_s(tps, n_params, peak_tflops, seq_tokens, d_model, n_layers)


def hfu_from_mfu(mfu: npt.ArrayLike, full_recompute: bool, seq_tokens: float, d_model: float, n_params: float,
                 n_layers: float) -> np.ndarray:
    """Hardware FLOPs utilisation: MFU x hardware/model FLOPs (recomputation counted) [-].

    Examples
    --------
    >>> round(float(hfu_from_mfu(0.40, True, 2048, 12288, 175e9, 96)), 4)  # full recomputation: x 4/3
    0.5333
    """
    return np.asarray(mfu, dtype=float) * parallelism.recompute_flop_factor(full_recompute, seq_tokens, d_model,
                                                                            n_params, n_layers)


# --------------------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------------------


def _training_layout(job: TrainingJob, o: OfferArrays, a: EngineAssumptions, assume: bool
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """TP, PP, full-recomputation flag and "fits" flag per offer, chosen once per distinct (memory, GPUs/node)."""
    n_layers, d_model = job.layers_and_width
    pairs, inverse = o.shape_pairs
    k = pairs.shape[1]
    tp_k = np.ones(k)
    pp_k = np.ones(k)
    full_k = np.zeros(k, dtype=bool)
    fits_k = np.zeros(k, dtype=bool)
    gpn_default = float(a.assumed_gpus_per_node) if assume else -1.0
    for i in range(k):
        mem, gpn = pairs[0, i], pairs[1, i]
        choice = parallelism.choose_layout(
            job.n_gpus, mem * 1e9 * a.training_memory_usable_fraction if mem >= 0 else -1.0,
            gpn if gpn >= 0 else gpn_default, job.n_params, job.training_state_bytes_per_param, job.is_state_sharded,
            job.sequence_length_tokens, job.micro_batch_sequences, d_model, n_layers, job.global_batch_sequences,
            job.context_parallel_degree, job.tensor_parallel_degree, job.pipeline_parallel_degree,
            job.data_parallel_degree, job.recompute)
        if choice is not None:
            tp_k[i], pp_k[i], full_k[i] = choice
            fits_k[i] = True
        elif job.tensor_parallel_degree is not None and job.pipeline_parallel_degree is not None:
            tp_k[i], pp_k[i] = job.tensor_parallel_degree, job.pipeline_parallel_degree  # fixed layout, reported
    return tp_k[inverse], pp_k[inverse], full_k[inverse], fits_k[inverse]


def price_training(
    job: TrainingJob,
    offers: OfferArrays,
    assumptions: EngineAssumptions = DEFAULT_ASSUMPTIONS,
    missing_fabric: MissingFabricPolicy = "exclude",
) -> TrainingResult:
    """Wall-clock time, GPU-hours, cost, energy, emissions and the scaling-loss breakdown of ``job`` on every offer.

    Parameters
    ----------
    job : TrainingJob
        The run: model, tokens, GPUs, batch, parallel layout (or None to choose per offer), precision readiness.
    offers : OfferArrays
        Per-offer inputs, shape ``(n_offers,)``.
    assumptions : EngineAssumptions, optional
        Sourced defaults (utilisation, overlap, fabric efficiency, failures, power, ...).
    missing_fabric : {"exclude", "assume_default"}
        What to do when the catalog does not state GPUs per node, the intra-node interconnect or
        the inter-node fabric/bandwidth a job needs: exclude the offer with a reason, or price it
        with ``assumptions.assumed_*`` (flagged in ``assumed_default``). An explicit ``none``
        fabric always excludes multi-node jobs.

    Returns
    -------
    TrainingResult
        Arrays of shape ``(n_offers,)``; ``time_hours`` [h], ``gpu_hours`` [GPU-h], ``cost`` [offer currency],
        ``energy_kwh`` [kWh], ``emissions_kg`` [kgCO2e], shares [-], the step breakdown [s], goodput, MFU/HFU.

    Notes
    -----
    .. math::

        t_{step} = t_c\\left(1 + \\frac{p-1}{v m}\\right) + e_{TP} + e_{CP} + e_{PP} + e_{DP},\\quad
        e_{DP} = \\max\\big((1-\\varphi) t_{DP},\\ t_{DP} - w\\big),\\quad
        T = \\frac{D}{B}\\,\\frac{t_{step}}{G}

    with ``w`` the backward (and, sharded, forward) time of the last micro-batch and ``G`` the goodput.

    Examples
    --------
    Llama 2 7B on 2,048 A100-80GB (C1, calibration: published 184,320 GPU-h; 976 sequences per step are too few
    for 2,048 data-parallel replicas, so the engine picks TP 4):

    >>> from engine.adapters import offer_arrays_from_records
    >>> a100 = offer_arrays_from_records([{"price_eur_per_gpu_hour": 2.0, "bf16_dense_tflops": 312,
    ...     "memory_gb": 80, "memory_bandwidth_tbps": 2.039, "tdp_watts": 400, "gpus_per_node": 8,
    ...     "intra_node": "NVLink-NVSwitch", "nvlink_gbps_bidirectional": 600,
    ...     "inter_node": "InfiniBand-HDR", "inter_node_gbps_per_gpu": 200}])
    >>> r = price_training(TrainingJob.from_preset("llama-2-7b", n_gpus=2048), a100)
    >>> round(float(r.gpu_hours[0]), -3), float(r.tensor_parallel_degree[0]), round(float(r.goodput_fraction[0]), 3)
    (193000.0, 4.0, 0.99)
    """
    assume = _check_policy(missing_fabric)
    a = assumptions
    o = offers
    n_off = o.n_offers
    n = float(job.n_gpus)
    N = job.n_params
    n_layers, h = (float(x) for x in job.layers_and_width)
    kvd = float(job.kv_dim or h)
    s = float(job.sequence_length_tokens)
    b = float(job.micro_batch_sequences)
    cp = float(job.context_parallel_degree)
    v = float(job.virtual_pipeline_stages)
    batch = job.global_batch_tokens
    batch_seq = job.global_batch_sequences
    steps = job.training_tokens / batch
    flop_tok = parallelism.model_flop_per_token(N, s, h, n_layers)
    attn_fwd = 2.0 * n_layers * h * s
    fwd = 2.0 * N + attn_fwd
    r_sel = 1.0 if job.recompute == "none" else (3.0 * fwd + attn_fwd) / (3.0 * fwd)
    r_full = 4.0 / 3.0
    s_b = a.backward_share_of_compute_fraction
    act_el = 2.0  # BF16 activations in TP / CP / PP traffic
    with np.errstate(divide="ignore", invalid="ignore"):
        tp, pp, full, fits = _training_layout(job, o, a, assume)
        dp = n / (tp * cp * pp)
        uses_fp8, eff_tflops = _effective_tflops(job.is_fp8_ready, o, a.mfu_bf16_fraction, a.mfu_fp8_fraction)
        _, peak_tflops = _peak_tflops(job.is_fp8_ready, o)
        r = r_sel + full * (r_full - r_sel)
        t_comp = (flop_tok * batch / (n * 1e12)) * r / eff_tflops
        m = batch_seq / (dp * b)
        t_mb = t_comp / m
        t_bubble = t_comp * (pp - 1.0) / (v * m)

        # Node shape, intra- and inter-node bandwidth, with the missing-value policy.
        mk = o.masks
        gpn_missing = mk.gpus_per_node_missing
        gpn = fill_missing_nonnegative(o.gpus_per_node, gpn_missing, a.assumed_gpus_per_node) if assume else o.gpus_per_node
        gpus_in_node = np.fmin(gpn, n)  # unknown node size: the job's own GPUs (excluded or assumed below)
        n_nodes = np.ceil(n / gpus_in_node)
        intra_missing = mk.intra_missing
        intra_bw = o.intra_bandwidth_gb_per_s
        if assume:
            intra_bw = fill_missing_nonnegative(intra_bw, intra_missing, a.assumed_intra_busbw_gb_per_s)
        inter_bw_missing = mk.inter_bandwidth_missing
        link = (fill_missing_nonnegative(o.inter_bandwidth_gbit_per_s_per_gpu, inter_bw_missing, a.assumed_inter_link_gbit_per_s_per_gpu)
                if assume else o.inter_bandwidth_gbit_per_s_per_gpu)
        # A NaN bandwidth that no byte crosses must not make the time NaN: nan_as_tiny (0 bytes / tiny = 0).
        nic = nan_as_tiny(link * (a.nic_efficiency_fraction / 8.0 / a.oversubscription_ratio))  # GB/s per GPU
        ranks_in_node = gpus_in_node / tp  # DP x CP ranks of one TP slot in a node

        def intra_for(ranks: np.ndarray | float) -> np.ndarray:
            bw = intra_bw
            if mk.has_nvlink_bridge:
                bw = network.effective_intra_busbw_gb_per_s(o.intra_node_kind, bw, ranks, a.pcie_busbw_gb_per_s)
            return nan_as_tiny(bw)

        # Tensor parallelism (sequence parallel): 4 all-reduce equivalents per layer and micro-batch, x1.5 with
        # full recomputation (the forward ones run twice).
        redo = 1.0 + 0.5 * full
        tp_volume = 2.0 * (tp - 1.0) / tp * (4.0 * (s / cp) * b * h * act_el) * (n_layers / pp) * m * redo
        t_tp = tp_volume / (intra_for(tp) * 1e9) + (tp > 1) * (8.0 * (n_layers / pp) * m * redo * a.intra_node_latency_s)
        e_tp = t_tp * (1.0 - (a.tp_overlap_fraction if job.is_tp_comm_overlapped else 0.0))

        # Context parallelism: all-gather of K and V forward, reduce-scatter of their gradients backward.
        if cp > 1:
            g_cp = np.clip(ranks_in_node, 1.0, cp)
            bw_cp = np.where(cp / g_cp > 1, np.minimum(np.where(g_cp > 1, intra_for(g_cp), np.inf), g_cp * nic),
                             intra_for(g_cp))
            cp_volume = 2.0 * (cp - 1.0) / cp * (s * b * 2.0 * kvd * act_el) * (n_layers / pp) * m
            t_cp = cp_volume / (bw_cp * 1e9) + 2.0 * (n_layers / pp) * m * a.intra_node_latency_s
        else:
            t_cp = np.zeros(n_off)
        e_cp = t_cp * (1.0 - a.cp_overlap_fraction)

        # Pipeline send/recv: NVLink when the next stage is in the same node, else the GPU's own NIC.
        same_node = gpus_in_node >= 2.0 * tp * cp * dp
        pp_link = same_node * intra_for(2.0) + ~same_node * nic
        t_pp = (pp > 1) * (2.0 * m * v * (s / cp) * b * h * act_el / tp) / (pp_link * 1e9)
        e_pp = t_pp * (1.0 - (a.pp_overlap_fraction if v > 1 else 0.0))

        # Data parallelism: gradients of the parameters this GPU holds, over the DP x CP ranks of its group.
        k = dp * cp
        r_node = np.clip(ranks_in_node, 1.0, k)
        m_dp = k / r_node
        grad_bytes = N / (tp * pp) * job.gradient_bytes_per_param
        buckets = np.ceil(grad_bytes / a.gradient_bucket_bytes)
        bw_intra_dp = intra_for(r_node)
        bw_dp = np.where(m_dp > 1, np.minimum(np.where(r_node > 1, bw_intra_dp, np.inf), r_node * nic), bw_intra_dp)
        latency = network.collective_latency_s(r_node, m_dp, a.intra_node_latency_s, a.inter_node_hop_latency_s)
        t_dp = 2.0 * (k - 1.0) / k * grad_bytes / (bw_dp * 1e9) + buckets * latency
        window = t_mb * ((s_b + r - 1.0) + (1.0 - s_b) * float(job.is_state_sharded)) / r
        e_dp = np.maximum((1.0 - a.overlap_fraction) * t_dp, t_dp - window)

        e_comm = e_tp + e_cp + e_pp + e_dp
        t_comm = t_tp + t_cp + t_pp + t_dp
        t_step = t_comp + t_bubble + e_comm

        # Goodput: checkpoints of this GPU's training state, failures of all GPUs (Young/Daly).
        shard = tp * pp * (dp * cp if job.is_state_sharded else 1.0)
        ckpt_s = job.training_state_bytes_per_param * N / shard / (a.checkpoint_write_gb_per_s_per_gpu * 1e9)
        gp = goodput_model.goodput(n, ckpt_s, a.failures_per_gpu_hour, a.restart_s, job.checkpoint_interval_s)

        # Exclusions (priority order = code order).
        multi_gpu = n > 1
        multi_node = n_nodes > 1
        inter_none = mk.inter_none
        needs_inter = multi_node & ~inter_none
        masks: list[tuple[ExclusionReason, np.ndarray | bool]] = [
            (ExclusionReason.SPEC_MISSING, mk.spec_missing_training),
            (ExclusionReason.DOES_NOT_FIT, ~fits),
            (ExclusionReason.NOT_ENOUGH_GPUS_PER_NODE, gpn < tp),
        ]
        if assume:
            assumed_default = (
                (gpn_missing & multi_gpu) | ((gpus_in_node > 1) & intra_missing)
                | (needs_inter & (mk.inter_kind_missing | inter_bw_missing)))
        else:
            if multi_gpu:
                masks.append((ExclusionReason.GPUS_PER_NODE_NOT_STATED, gpn_missing))
                masks.append((ExclusionReason.INTRA_NODE_NOT_STATED, (gpus_in_node > 1) & intra_missing))
            assumed_default = np.zeros(n_off, dtype=bool)
        if multi_gpu:
            masks.append((ExclusionReason.NO_INTER_NODE_FABRIC, multi_node & inter_none))
            if not assume:
                masks.append((ExclusionReason.INTER_NODE_NOT_STATED, needs_inter & mk.inter_kind_missing))
                masks.append((ExclusionReason.INTER_BANDWIDTH_NOT_STATED, needs_inter & inter_bw_missing))
        code, excluded, nan_x = first_reason_codes(n_off, masks)

        time_hours = steps * t_step / (3600.0 * gp.fraction) + nan_x
        gpu_hours = time_hours * n
        cost = gpu_hours * o.price_per_gpu_hour
        reserved = float(job.n_gpus_reserved or job.n_gpus)
        e = power.job_energy(gpu_hours, o.tdp_watts, o.grid_intensity_g_per_kwh, (reserved - n) * time_hours,
                             a.power_model())
        eff = t_comp / t_step + nan_x
        mfu = flop_tok * batch / (t_step * n * peak_tflops * 1e12) + nan_x
        g = gp.fraction + nan_x
        bound = (t_comm > t_comp).view(np.int8) * np.int8(Bound.COMMUNICATION)
        bound -= (bound + 1) * excluded.view(np.int8)  # excluded -> -1 (UNDETERMINED)
        tokens = job.training_tokens
        layers = (tp + nan_x, pp + nan_x, np.full(n_off, cp) + nan_x, dp + nan_x)
        return TrainingResult(
            time_hours=time_hours,
            gpu_hours=gpu_hours,
            cost=cost,
            currency=o.currency,
            energy_kwh=e.facility_kwh,
            emissions_kg=e.total_kg,
            bound=bound,
            communication_share_fraction=t_comm / t_step + nan_x,
            excluded=excluded,
            exclusion_code=code,
            missing_code=_missing_code(excluded, o.price_per_gpu_hour, o.tdp_watts, o.grid_intensity_g_per_kwh),
            assumed_default=assumed_default & ~excluded,
            uses_fp8=uses_fp8 & ~excluded,
            missing_fabric_policy=missing_fabric,
            assumptions=_context(missing_fabric, a, (
                Assumption("gradient_bytes_per_param", job.gradient_bytes_per_param, "B", "TrainingJob"),
                Assumption("n_layers, d_model", f"{n_layers:g}, {h:g}", "-",
                           "TrainingJob" if job.n_layers and job.d_model else "estimated from N (h/L = 128)"),
                Assumption("virtual_pipeline_stages", job.virtual_pipeline_stages, "-", "TrainingJob"),
            )),
            training_flop=float(6.0 * N * tokens),
            model_flop=float(flop_tok * tokens),
            tensor_parallel_degree=layers[0],
            pipeline_parallel_degree=layers[1],
            context_parallel_degree=layers[2],
            data_parallel_degree=layers[3],
            full_recompute=full & ~excluded,
            micro_batches=m + nan_x,
            scaling_efficiency_fraction=eff,
            exposed_communication_share_fraction=e_comm / t_step + nan_x,
            bubble_fraction=t_bubble / t_step + nan_x,
            step_time_s=t_step + nan_x,
            compute_time_per_step_s=t_comp + nan_x,
            bubble_time_per_step_s=t_bubble + nan_x,
            communication_time_per_step_s=t_comm + nan_x,
            exposed_tp_s=e_tp + nan_x,
            exposed_cp_s=e_cp + nan_x,
            exposed_pp_s=e_pp + nan_x,
            exposed_dp_s=e_dp + nan_x,
            data_parallel_bytes_per_gpu=2.0 * (k - 1.0) / k * grad_bytes + nan_x,
            n_nodes=n_nodes + nan_x,
            perfect_scaling_time_hours=steps * t_comp / 3600.0 + nan_x,
            mfu_fraction=mfu,
            hfu_fraction=mfu * r,
            goodput_fraction=g,
            mtbf_hours=gp.mtbf_hours + nan_x,
            checkpoint_interval_s=gp.checkpoint_interval_s + nan_x,
            loss_compute_fraction=g * eff,
            loss_bubble_fraction=g * t_bubble / t_step,
            loss_communication_fraction=g * e_comm / t_step,
            loss_failures_fraction=1.0 - g,
            tokens_per_s_per_gpu=tokens / (gpu_hours * 3600.0),
            cost_per_million_tokens=cost * (1e6 / tokens),
            energy_j_per_token=e.facility_kwh * (3.6e6 / tokens),
            gpu_only_energy_kwh=e.gpu_only_kwh,
            idle_energy_kwh=e.idle_kwh,
            embodied_kg=e.embodied_kg + nan_x,
        )
