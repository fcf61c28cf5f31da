"""Per-offer reference (pure Python) of :func:`engine.workload.price_training`: the same formulas one offer at a
time, slow on purpose. The baseline of ``bench/bench_workload.py`` and the oracle of the kernel's tests
(``tests/engine/test_workload.py``); not used by the app.
"""

from __future__ import annotations

import math

from engine import parallelism
from engine.network import InterNodeKind, IntraNodeKind
from engine.workload.common import _check_policy
from engine.workload.inputs import DEFAULT_ASSUMPTIONS, EngineAssumptions, MissingFabricPolicy, TrainingJob
from engine.workload.offers import OfferArrays


def reference_price_training_loop(
    job: TrainingJob,
    offers: OfferArrays,
    assumptions: EngineAssumptions = DEFAULT_ASSUMPTIONS,
    missing_fabric: MissingFabricPolicy = "exclude",
) -> dict[str, list[float]]:
    """:func:`engine.workload.price_training` written as a per-offer Python loop with :mod:`math` (slow on purpose).

    Returns ``time_hours``, ``cost``, ``energy_kwh``, ``emissions_kg``, ``scaling_efficiency_fraction``,
    ``goodput_fraction`` and ``exclusion_code`` lists; used to check the vectorised kernel and as the baseline of
    ``bench/bench_workload.py``. The layout choice calls :func:`engine.parallelism.choose_layout` per offer.
    """
    assume = _check_policy(missing_fabric)
    a = assumptions
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
    flop_tok = 6.0 * N + 6.0 * n_layers * h * s
    attn_fwd = 2.0 * n_layers * h * s
    fwd = 2.0 * N + attn_fwd
    r_sel = 1.0 if job.recompute == "none" else (3.0 * fwd + attn_fwd) / (3.0 * fwd)
    s_b = a.backward_share_of_compute_fraction
    pm = a.power_model()
    reserved = float(job.n_gpus_reserved or job.n_gpus)
    nan = math.nan
    keys = ("time_hours", "cost", "energy_kwh", "emissions_kg", "scaling_efficiency_fraction", "goodput_fraction",
            "exclusion_code")
    out: dict[str, list[float]] = {k: [] for k in keys}
    cols = [getattr(offers, f).tolist() for f in (
        "price_per_gpu_hour", "bf16_tflops", "fp8_tflops", "memory_gb", "tdp_watts", "gpus_per_node",
        "intra_node_kind", "intra_bandwidth_gb_per_s", "inter_node_kind", "inter_bandwidth_gbit_per_s_per_gpu",
        "grid_intensity_g_per_kwh")]
    for price, bf16, fp8, mem, tdp, gpn, ikind, ibw, ekind, ebw, grid in zip(*cols, strict=True):
        fp8_used = job.is_fp8_ready and fp8 > 0
        f = (fp8 * a.mfu_fp8_fraction if fp8_used else bf16 * a.mfu_bf16_fraction) * 1e12
        gpn_missing = math.isnan(gpn)
        if gpn_missing and assume:
            gpn = float(a.assumed_gpus_per_node)
        choice = parallelism.choose_layout(
            job.n_gpus, mem * 1e9 * a.training_memory_usable_fraction if not math.isnan(mem) else -1.0,
            gpn if not math.isnan(gpn) else -1.0, N, job.training_state_bytes_per_param, job.is_state_sharded,
            s, b, h, n_layers, batch_seq, job.context_parallel_degree, job.tensor_parallel_degree,
            job.pipeline_parallel_degree, job.data_parallel_degree, job.recompute)
        if choice is not None:
            tp, pp, full = float(choice[0]), float(choice[1]), choice[2]
        elif job.tensor_parallel_degree is not None and job.pipeline_parallel_degree is not None:
            tp, pp, full = float(job.tensor_parallel_degree), float(job.pipeline_parallel_degree), False
        else:
            tp, pp, full = 1.0, 1.0, False
        dp = n / (tp * cp * pp)
        in_node = n if math.isnan(gpn) else min(gpn, n)
        nodes = math.ceil(n / in_node)
        intra_missing = math.isnan(ibw)
        if assume and intra_missing:
            ibw = a.assumed_intra_busbw_gb_per_s
        e_none = ekind == InterNodeKind.NONE
        e_kind_missing = ekind == InterNodeKind.UNKNOWN
        e_bw_missing = math.isnan(ebw)
        if assume and e_bw_missing:
            ebw = a.assumed_inter_link_gbit_per_s_per_gpu
        # exclusions
        multi_node = nodes > 1
        needs_inter = multi_node and not e_none
        code = 0
        if math.isnan(bf16) or math.isnan(mem):
            code = 1
        elif choice is None:
            code = 2
        elif gpn < tp:
            code = 3
        elif not assume and gpn_missing and n > 1:
            code = 4
        elif not assume and in_node > 1 and intra_missing:
            code = 5
        elif n > 1 and multi_node and e_none:
            code = 6
        elif not assume and n > 1 and needs_inter and e_kind_missing:
            code = 7
        elif not assume and n > 1 and needs_inter and e_bw_missing:
            code = 8
        out["exclusion_code"].append(code)
        if code:
            for k in keys[:-1]:
                out[k].append(nan)
            continue

        def intra_for(ranks: float, bw: float = ibw, kind: int = ikind) -> float:
            return a.pcie_busbw_gb_per_s if kind == IntraNodeKind.NVLINK_BRIDGE and ranks > 2 else bw

        nic = ebw * a.nic_efficiency_fraction / 8.0 / a.oversubscription_ratio
        r = 4.0 / 3.0
        if not full:
            r = r_sel
        t_comp = flop_tok * batch / n * r / f
        m = batch_seq / (dp * b)
        t_mb = t_comp / m
        t_bubble = t_comp * (pp - 1.0) / (v * m)
        redo = 1.5 if full else 1.0
        if tp > 1:
            t_tp = (2.0 * (tp - 1.0) / tp * 4.0 * (s / cp) * b * h * 2.0 * (n_layers / pp) * m * redo
                    / (intra_for(tp) * 1e9) + 8.0 * (n_layers / pp) * m * redo * a.intra_node_latency_s)
        else:
            t_tp = 0.0
        e_tp = t_tp * (1.0 - (a.tp_overlap_fraction if job.is_tp_comm_overlapped else 0.0))
        ranks_in_node = in_node / tp
        if cp > 1:
            g_cp = min(max(ranks_in_node, 1.0), cp)
            bw_cp = (min(intra_for(g_cp) if g_cp > 1 else math.inf, g_cp * nic) if cp / g_cp > 1
                     else intra_for(g_cp))
            t_cp = (2.0 * (cp - 1.0) / cp * s * b * 2.0 * kvd * 2.0 * (n_layers / pp) * m / (bw_cp * 1e9)
                    + 2.0 * (n_layers / pp) * m * a.intra_node_latency_s)
        else:
            t_cp = 0.0
        e_cp = t_cp * (1.0 - a.cp_overlap_fraction)
        if pp > 1:
            link = intra_for(2.0) if in_node >= 2.0 * tp * cp * dp else nic
            t_pp = 2.0 * m * v * (s / cp) * b * h * 2.0 / tp / (link * 1e9)
        else:
            t_pp = 0.0
        e_pp = t_pp * (1.0 - (a.pp_overlap_fraction if v > 1 else 0.0))
        k = dp * cp
        r_node = min(max(ranks_in_node, 1.0), k)
        m_dp = k / r_node
        grad = N / (tp * pp) * job.gradient_bytes_per_param
        buckets = math.ceil(grad / a.gradient_bucket_bytes)
        if m_dp > 1:
            bw_dp = min(intra_for(r_node) if r_node > 1 else math.inf, r_node * nic)
        else:
            bw_dp = intra_for(r_node)
        lat = 0.0
        if k > 1:
            lat = a.intra_node_latency_s + 2.0 * math.ceil(math.log2(max(m_dp, 1.0))) * a.inter_node_hop_latency_s
        t_dp = (2.0 * (k - 1.0) / k * grad / (bw_dp * 1e9) if k > 1 else 0.0) + buckets * lat
        window = t_mb * ((s_b + r - 1.0) + (1.0 - s_b) * float(job.is_state_sharded)) / r
        e_dp = max((1.0 - a.overlap_fraction) * t_dp, t_dp - window)
        t_step = t_comp + t_bubble + e_tp + e_cp + e_pp + e_dp
        shard = tp * pp * (dp * cp if job.is_state_sharded else 1.0)
        delta = job.training_state_bytes_per_param * N / shard / (a.checkpoint_write_gb_per_s_per_gpu * 1e9)
        lam = a.failures_per_gpu_hour * n
        if lam > 0:
            mtbf = 3600.0 / lam
            if job.checkpoint_interval_s is not None:
                tau = job.checkpoint_interval_s
            elif delta < 2.0 * mtbf:
                x = delta / (2.0 * mtbf)
                tau = math.sqrt(2.0 * delta * mtbf) * (1.0 + math.sqrt(x) / 3.0 + x / 9.0) - delta
            else:
                tau = mtbf
            if tau > 0:
                g = min(tau / (mtbf * math.exp(a.restart_s / mtbf) * math.expm1((tau + delta) / mtbf)), 1.0)
            else:
                g = math.exp(-a.restart_s / mtbf)
        else:
            g = 1.0
        hours = steps * t_step / 3600.0 / g
        gpu_hours = n * hours
        full_kw = tdp * (pm.gpu_power_fraction_of_tdp + pm.server_non_gpu_fraction_of_tdp) / 1000.0 * pm.pue_ratio
        energy = gpu_hours * full_kw + (reserved - n) * hours * full_kw * pm.idle_power_fraction
        emissions = energy * grid / 1000.0
        if pm.embodied_kg_co2e_per_gpu is not None:
            emissions += (gpu_hours + (reserved - n) * hours) * pm.embodied_kg_co2e_per_gpu / pm.service_life_hours
        out["time_hours"].append(hours)
        out["cost"].append(gpu_hours * price)
        out["energy_kwh"].append(energy)
        out["emissions_kg"].append(emissions)
        out["scaling_efficiency_fraction"].append(t_comp / t_step)
        out["goodput_fraction"].append(g)
    return out
