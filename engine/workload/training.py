"""Training kernel (:func:`price_training`) and the MFU / HFU helpers for measured runs.

Part of :mod:`engine.workload`; the model and the references [n] are in its docstring.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engine import goodput as goodput_model
from engine import parallelism, power
from engine.assumptions import Assumption
from engine.network import IntraNodeKind
from engine.workload import layout
from engine.workload.common import (
    assumptions_with_policy,
    check_policy,
    effective_tflops,
    first_reason_codes,
    missing_input_code,
    peak_tflops_used,
)
from engine.workload.inputs import (
    BASE_WEIGHT_BYTES,
    DEFAULT_ASSUMPTIONS,
    EngineAssumptions,
    MissingFabricPolicy,
    TrainingJob,
)
from engine.workload.offers import OfferArrays
from engine.workload.results import Bound, ExclusionReason, LayoutChoice, TrainingResult
from engine.workload.stacks import TRAINING_STACK_SPECS

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


def job_shape(job: TrainingJob, a: EngineAssumptions) -> layout.JobShape:
    """The scalars of ``job`` the step-time model needs: FLOPs per token by job kind, trainable parameters, state.

    FLOPs per trained token (Kaplan et al. [1] s2.1: a matmul's backward pass costs twice its forward, once for the
    input gradients and once for the weight gradients): full training ``6N + 6Lhs``; LoRA / QLoRA on a frozen base
    ``4N + 6Lhs`` (no weight gradients for the base; the adapters' ``6 N_adapter`` is counted too; Hu et al.,
    arXiv:2106.09685 s4.2 report the saving as ~25 % of training throughput on GPT-3). Recomputation adds the
    attention forward ``2Lhs`` (selective) or a whole forward ``2N + 2Lhs`` (full) [8].

    Examples
    --------
    >>> j = job_shape(TrainingJob.from_preset("llama-2-70b", n_gpus=8, training_tokens=1e9, job_kind="lora"),
    ...               DEFAULT_ASSUMPTIONS)
    >>> round(j.flop_per_token / 70e9, 2), round(j.trainable_params / 1e6), j.base_weight_bytes
    (4.25, 181, 2.0)
    """
    n_layers, h = (float(x) for x in job.layers_and_width)
    kvd = float(job.kv_dim or h)
    s = float(job.sequence_length_tokens)
    N = job.n_params
    attn = 2.0 * n_layers * h * s
    adapters = job.job_kind in ("lora", "qlora")
    trainable = layout.lora_adapter_params(n_layers, h, kvd, job.lora_rank) if adapters else N
    weight_flop = (4.0 * N + 6.0 * trainable) if adapters else 6.0 * N
    flop_tok = weight_flop + 3.0 * attn
    extra_sel = 0.0 if job.recompute == "none" else attn
    return layout.JobShape(
        n=float(job.n_gpus), n_params=N, trainable_params=trainable,
        base_weight_bytes=BASE_WEIGHT_BYTES.get(job.job_kind, 0.0), state_bytes=job.training_state_bytes_per_param,
        grad_bytes=job.gradient_bytes_per_param, n_layers=n_layers, d_model=h, kv_dim=kvd, seq=s,
        micro_batch=float(job.micro_batch_sequences), cp=float(job.context_parallel_degree),
        batch_tokens=job.global_batch_tokens, batch_sequences=job.global_batch_sequences, flop_per_token=flop_tok,
        recompute_extra_sel=extra_sel, recompute_extra_full=2.0 * (trainable if not adapters else N) + attn,
        recompute=job.recompute,
        tp_overlap=a.tp_overlap_fraction if job.is_tp_comm_overlapped else 0.0,
        backward_share=a.backward_share_of_compute_fraction, act_bytes=2.0)


def stack_utilisation(job: TrainingJob, a: EngineAssumptions) -> tuple[float, float]:
    """(BF16, FP8) compute-phase utilisation of the job's software stack (:mod:`engine.workload.stacks`).

    Examples
    --------
    >>> stack_utilisation(TrainingJob(n_params=1e9, training_tokens=1e9, n_gpus=8), DEFAULT_ASSUMPTIONS)
    (0.49, 0.3)
    """
    spec = TRAINING_STACK_SPECS[job.software_stack]
    return (spec.mfu_bf16_fraction or a.mfu_bf16_fraction, spec.mfu_fp8_fraction or a.mfu_fp8_fraction)


def _group_columns(job: TrainingJob, rep: OfferArrays, a: EngineAssumptions, assume: bool,
                   mfu: tuple[float, float]) -> dict[str, np.ndarray]:
    """Per-group inputs of :func:`layout.step_model`, shape ``(groups, 1)``, with the missing-value policy."""
    n = float(job.n_gpus)
    mk = rep.masks
    gpn = np.where(mk.gpus_per_node_missing, a.assumed_gpus_per_node, rep.gpus_per_node) if assume \
        else rep.gpus_per_node
    intra = rep.intra_bandwidth_gb_per_s
    if assume:
        intra = np.where(mk.intra_missing, a.assumed_intra_busbw_gb_per_s, intra)
    nvls = rep.intra_nvls_bandwidth_gb_per_s
    allreduce = np.fmax(intra, nvls) if a.use_nvls else intra
    link = (np.where(mk.inter_bandwidth_missing, a.assumed_inter_link_gbit_per_s_per_gpu,
                     rep.inter_bandwidth_gbit_per_s_per_gpu)
            if assume else rep.inter_bandwidth_gbit_per_s_per_gpu)
    _, eff = effective_tflops(job.is_fp8_ready, rep, *mfu)
    usable = np.where(np.isnan(rep.memory_gb), -1.0, rep.memory_gb * 1e9 * a.training_memory_usable_fraction)
    cols = {
        "eff_flops": eff * 1e12, "usable_bytes": usable, "gpn": gpn,
        "gpn_or_inf": np.where(np.isnan(gpn), np.inf, gpn), "in_node": np.fmin(gpn, n),
        "intra_ring": intra, "intra_allreduce": allreduce, "link_gbit": link,
        "is_bridge": rep.intra_node_kind == IntraNodeKind.NVLINK_BRIDGE,
    }
    return {k: np.asarray(v)[:, None] for k, v in cols.items()}


def search_layouts(job: TrainingJob, offers: OfferArrays, assumptions: EngineAssumptions = DEFAULT_ASSUMPTIONS,
                   missing_fabric: MissingFabricPolicy = "exclude"
                   ) -> tuple[layout.StepModel, layout.StepModel, np.ndarray, np.ndarray]:
    """The fastest feasible layout and the runner-up per offer (:mod:`engine.workload.layout`).

    Returns (chosen, runner-up, any layout fits in memory with TP in one node, any fits in memory), every field
    of shape ``(n_offers,)``.
    """
    assume = check_policy(missing_fabric)
    a = assumptions
    j = job_shape(job, a)
    first, inverse = offers.layout_groups
    rep = offers.take(first)
    g = _group_columns(job, rep, a, assume, stack_utilisation(job, a))
    cands = layout.candidates(
        job.n_gpus, int(j.n_layers), job.context_parallel_degree, j.batch_sequences, job.micro_batch_sequences,
        TRAINING_STACK_SPECS[job.software_stack], job.is_state_sharded, job.tensor_parallel_degree,
        job.pipeline_parallel_degree, job.data_parallel_degree, job.virtual_pipeline_stages,
        a.max_tensor_parallel_degree)
    model = layout.step_model(
        j, cands, g, a.intra_node_latency_s, a.inter_node_hop_latency_s, a.nic_efficiency_fraction,
        a.oversubscription_ratio, a.overlap_fraction, a.pp_overlap_fraction, a.cp_overlap_fraction,
        a.gradient_bucket_bytes, a.pcie_busbw_gb_per_s)
    best, second, any_fit = layout.best_two(model)
    any_mem = model.fits_memory.any(axis=1) if cands.size else np.zeros(first.size, dtype=bool)
    chosen = layout.gathered(model, best)
    runner = layout.gathered(model, second)

    def expand(model: layout.StepModel) -> layout.StepModel:
        return layout.StepModel(*(np.asarray(x)[inverse] for x in model))

    return expand(chosen), expand(runner), np.asarray(any_fit)[inverse], np.asarray(any_mem)[inverse]


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
    >>> r = price_training(TrainingJob.from_preset("llama-2-7b", n_gpus=2048, global_batch_tokens=4e6), a100)
    >>> round(float(r.gpu_hours[0]), -3), float(r.tensor_parallel_degree[0]), round(float(r.goodput_fraction[0]), 3)
    (193000.0, 4.0, 0.99)
    """
    assume = check_policy(missing_fabric)
    a = assumptions
    o = offers
    n_off = o.n_offers
    n = float(job.n_gpus)
    N = job.n_params
    n_layers, h = (float(x) for x in job.layers_and_width)
    cp = float(job.context_parallel_degree)
    batch = job.global_batch_tokens
    steps = job.training_tokens / batch
    j = job_shape(job, a)
    flop_tok = j.flop_per_token
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        best, runner, any_fit, any_mem = search_layouts(job, o, a, missing_fabric)
        tp, pp, dp = best.tp, best.pp, best.dp
        uses_fp8, peak_tflops = peak_tflops_used(job.is_fp8_ready, o)
        t_comp, t_bubble, t_step = best.compute_s, best.bubble_s, best.step_s
        e_tp, e_cp, e_pp, e_dp = best.e_tp, best.e_cp, best.e_pp, best.e_dp
        r = best.flop_factor
        m = best.micro_batches

        mk = o.masks
        gpn_missing = mk.gpus_per_node_missing
        gpn = np.where(gpn_missing, a.assumed_gpus_per_node, o.gpus_per_node) if assume else o.gpus_per_node
        gpus_in_node = np.fmin(gpn, n)  # unknown node size: the job's own GPUs (excluded or assumed below)
        n_nodes = np.ceil(n / gpus_in_node)
        intra_missing = mk.intra_missing
        inter_bw_missing = mk.inter_bandwidth_missing

        # Goodput: checkpoints of the trainable state, written in parallel by all GPUs (each its shard; a frozen
        # base is not checkpointed), failures of all GPUs (Young/Daly).
        ckpt_s = np.full(n_off, j.state_bytes * j.trainable_params / n / (a.checkpoint_write_gb_per_s_per_gpu * 1e9))
        gp = goodput_model.goodput(n, ckpt_s, a.failures_per_gpu_hour, a.restart_s, job.checkpoint_interval_s)

        # Exclusions (priority order = code order).
        multi_gpu = n > 1
        multi_node = n_nodes > 1
        inter_none = mk.inter_none
        needs_inter = multi_node & ~inter_none
        masks: list[tuple[ExclusionReason, np.ndarray | bool]] = [
            (ExclusionReason.SPEC_MISSING, mk.spec_missing_training),
            (ExclusionReason.DOES_NOT_FIT, ~any_mem),
            (ExclusionReason.NOT_ENOUGH_GPUS_PER_NODE, ~any_fit),
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

        e_comm = e_tp + e_cp + e_pp + e_dp
        t_comm = best.comm_s
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
        spec = TRAINING_STACK_SPECS[job.software_stack]
        mfu_used = stack_utilisation(job, a)
        chosen = LayoutChoice.of(best, nan_x)
        runner_up = LayoutChoice.of(runner, nan_x)
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
            missing_code=missing_input_code(excluded, o.price_per_gpu_hour, o.tdp_watts, o.grid_intensity_g_per_kwh),
            assumed_default=assumed_default & ~excluded,
            uses_fp8=uses_fp8 & ~excluded,
            missing_fabric_policy=missing_fabric,
            assumptions=assumptions_with_policy(missing_fabric, a, (
                Assumption("gradient_bytes_per_param", job.gradient_bytes_per_param, "B", "TrainingJob"),
                Assumption("n_layers, d_model", f"{n_layers:g}, {h:g}", "-",
                           "TrainingJob" if job.n_layers and job.d_model else "estimated from N (h/L = 128)"),
                Assumption("virtual_pipeline_stages", "searched" if job.virtual_pipeline_stages is None
                           else job.virtual_pipeline_stages, "-", "TrainingJob"),
                Assumption("software_stack", spec.label, "-", spec.calibrated_on),
                Assumption("compute_utilisation (BF16, FP8)", f"{mfu_used[0]:.2f}, {mfu_used[1]:.2f}", "-",
                           f"{spec.label}: {spec.calibrated_on}"),
                Assumption("job_kind", job.job_kind, "-", "TrainingJob; FLOPs per token 6N (full) or 4N (LoRA/QLoRA: "
                           "no weight gradients of the frozen base; Kaplan et al. arXiv 2001.08361 s2.1)"),
                Assumption("global_batch_tokens", job.global_batch_tokens, "tokens",
                           "default rule: DeepSeek LLM batch law (pre-training) or 32 sequences (fine-tuning)"
                           if job.is_global_batch_default else "TrainingJob"),
            )),
            training_flop=float(6.0 * N * tokens),
            model_flop=float(flop_tok * tokens),
            tensor_parallel_degree=layers[0],
            pipeline_parallel_degree=layers[1],
            context_parallel_degree=layers[2],
            data_parallel_degree=layers[3],
            full_recompute=(best.recompute_share >= 1.0) & ~excluded,
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
            data_parallel_bytes_per_gpu=best.dp_bytes + nan_x,
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
            layout=chosen,
            runner_up=runner_up,
        )
