"""Tests for engine.workload: published validation cases (domain-model.md s10), hand-computed cases,
exclusions, the catalog boundary helper, and hypothesis properties."""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import network
from engine.money import to_eur
from engine.workload import (
    DEFAULT_ASSUMPTIONS,
    EXCLUSION_REASONS,
    GRID_INTENSITY_G_PER_KWH_BY_COUNTRY,
    MIG_BALANCED_LAYOUT,
    MIG_PROFILES,
    MODEL_PRESETS,
    Bound,
    EngineAssumptions,
    ExclusionReason,
    InferenceService,
    OfferArrays,
    TrainingJob,
    grid_intensity_g_per_kwh,
    mig_layout_fits,
    mig_max_instances,
    offer_arrays_from_frame,
    offer_arrays_from_records,
    price_inference,
    price_training,
    reference_price_training_loop,
    training_flop,
)

SEED = Path(__file__).resolve().parents[2] / "catalog" / "seed"

H100 = {
    "price_eur_per_gpu_hour": 2.5, "bf16_dense_tflops": 989.5, "fp8_dense_tflops": 1979.0, "memory_gb": 80.0,
    "memory_bandwidth_tbps": 3.35, "tdp_watts": 700.0, "gpus_per_node": 8, "intra_node": "NVLink-NVSwitch",
    "nvlink_gbps_bidirectional": 900.0, "inter_node": "InfiniBand-NDR", "inter_node_gbps_per_gpu": 400.0,
    "mig_max_instances": 7, "grid_intensity_g_per_kwh": 300.0,
}
# A100-80GB SXM as in gpu_specs.csv; fabric of the Llama 2 clusters: 200 Gb/s per GPU (arXiv 2307.09288 s2.2.1).
A100 = {
    "price_eur_per_gpu_hour": 1.5, "bf16_dense_tflops": 312.0, "fp8_dense_tflops": None, "memory_gb": 80.0,
    "memory_bandwidth_tbps": 2.039, "tdp_watts": 400.0, "gpus_per_node": 8, "intra_node": "NVLink-NVSwitch",
    "nvlink_gbps_bidirectional": 600.0, "inter_node": "InfiniBand-HDR", "inter_node_gbps_per_gpu": 200.0,
    "mig_max_instances": 7, "grid_intensity_g_per_kwh": 300.0,
}


def offers(*records: dict, **kwargs) -> OfferArrays:
    return offer_arrays_from_records(list(records), **kwargs)


def rel_err(engine: float, published: float) -> float:
    return (engine - published) / published


# --------------------------------------------------------------------------------------------------
# Published validation cases (domain-model.md section 10)
# --------------------------------------------------------------------------------------------------


class TestPublishedValidationCases:
    @pytest.mark.parametrize(
        ("preset", "published_gpu_hours"),
        [("llama-2-7b", 184_320), ("llama-2-13b", 368_640), ("llama-2-70b", 1_720_320)],
    )
    def test_t1_llama2_model_card_gpu_hours_on_a100_at_mfu_040_within_10pct(self, preset, published_gpu_hours):
        """T1: Llama 2 model card GPU-hours (A100-80GB, 2.0T tokens, 4M-token batch) at the default MFU 0.40.

        The GPU count is not published; at 2,048 GPUs the gradient all-reduce is hidden behind the
        backward pass (scaling efficiency 1), so the GPU-hours do not depend on that choice.
        """
        job = TrainingJob.from_preset(preset, n_gpus=2048)
        assert job.training_tokens == 2.0e12 and job.global_batch_tokens == 4e6
        r = price_training(job, offers(A100))
        assert not r.excluded[0]
        assert r.scaling_efficiency_fraction[0] == pytest.approx(1.0)
        assert abs(rel_err(r.gpu_hours[0], published_gpu_hours)) <= 0.10

    def test_t1_llama2_gpu_hours_match_the_derived_engine_figures_exactly(self):
        """domain-model T1 'Engine at MFU 0.40 gives 186,966 / 347,222 / 1,869,658' (derived)."""
        got = [price_training(TrainingJob.from_preset(p, n_gpus=2048), offers(A100)).gpu_hours[0]
               for p in ("llama-2-7b", "llama-2-13b", "llama-2-70b")]
        np.testing.assert_allclose(got, [186_966, 347_222, 1_869_658], rtol=1e-5)

    @pytest.mark.parametrize(
        ("preset", "published_t_co2"), [("llama-2-13b", 62.44), ("llama-2-70b", 291.42)]
    )
    def test_t1_llama2_model_card_emissions_within_10pct(self, preset, published_t_co2):
        """T1 emissions at 400 W, PUE folded into the intensity: 423.4 gCO2e/kWh is derived from the
        7B row (31.22 t / (184,320 GPU-h x 0.4 kW)); the 13B and 70B rows are then checks."""
        intensity = 31.22e6 / (184_320 * 0.4)
        a = EngineAssumptions(pue_ratio=1.0, gpu_power_fraction_of_tdp=1.0)
        r = price_training(TrainingJob.from_preset(preset, n_gpus=2048),
                           offers({**A100, "grid_intensity_g_per_kwh": intensity}), a)
        assert abs(rel_err(r.emissions_kg[0] / 1000.0, published_t_co2)) <= 0.10

    def test_t4_gpt3_175b_training_flop_within_1pct(self):
        """T4: GPT-3 175B, N = 174.6e9 (Table D.1), D = 300e9 -> 3.14e23 FLOP = 3.64e3 PF-days (arXiv 2005.14165)."""
        job = TrainingJob.from_preset("gpt-3-175b", n_gpus=1024)
        flop = price_training(job, offers(H100)).training_flop
        assert flop == pytest.approx(float(training_flop(174.6e9, 300e9)))
        assert abs(rel_err(flop, 3.14e23)) <= 0.01
        assert abs(rel_err(flop / (1e15 * 86_400), 3.64e3)) <= 0.01

    def test_t5_chinchilla_70b_flop_within_3pct(self):
        """T5: Chinchilla 70B, D = 1.4e12 -> 5.76e23 FLOP (arXiv 2203.15556 s4); 6ND = 5.88e23 (+2.1 %)."""
        assert abs(rel_err(float(training_flop(70e9, 1.4e12)), 5.76e23)) <= 0.03

    def test_n1_8xh100_nvls_allreduce_8gib_within_5pct(self):
        """N1: 8x H100 SXM one node, 8,589,934,592 B all-reduce, NCCL 2.24.3 NVLS: 31,335.8 us,
        busbw 479.72 GB/s (vpbenchmarking; NVIDIA/nccl-tests#212)."""
        busbw = float(network.nvlink_busbw_gb_per_s(900.0, use_nvls=True))
        assert busbw == pytest.approx(480.0)
        t = network.hierarchical_allreduce_time_s(8_589_934_592, 8, 1, busbw, np.nan)
        assert abs(rel_err(float(t.total_s), 31_335.8e-6)) <= 0.05
        assert float(network.busbw_from_time(8_589_934_592, 8, 31_335.8e-6)) == pytest.approx(479.72, abs=0.01)

    def test_n1_ring_only_busbw_370_gives_40_6_ms(self):
        """N1 derived: ring-only busbw 370 GB/s (NVLS off) -> 40.6 ms."""
        t = network.allreduce_time_s(8_589_934_592, 8, network.nvlink_busbw_gb_per_s(900.0))
        assert abs(rel_err(float(t), 40.6e-3)) <= 0.05

    def test_n3_hdr_200g_nic_gives_24_gbps_busbw(self):
        """N3: one HDR 200 Gb/s NIC -> ~24 GB/s inter-node busbw (96 % of 25 GB/s); A800 NVLink 400 GB/s
        bidirectional -> ~160 GB/s intra-node (NVIDIA/nccl#412)."""
        assert float(network.nic_busbw_gb_per_s(200.0)) == pytest.approx(24.0)
        assert abs(rel_err(float(network.nvlink_busbw_gb_per_s(400.0)), 160.0)) <= 0.05

    @pytest.mark.parametrize(
        ("spec", "fp8_ready", "weight_bytes", "ceiling_tok_s", "measured_tok_s"),
        [(H100, True, 1.0, 558.0, 185.0), (A100, False, 2.0, 170.0, 111.0)],
        ids=["h100-fp8", "a100-fp16"],
    )
    def test_i3_gptj_bs1_decode_never_exceeds_bandwidth_ceiling(
        self, spec, fp8_ready, weight_bytes, ceiling_tok_s, measured_tok_s
    ):
        """I3: TRT-LLM GPT-J 6B, TP 1, BS 1, 128/128 tokens: ceiling = BW / weight bytes (558 / 170 tok/s);
        the engine's BS-1 decode estimate must not exceed it (TRT-LLM blog H100vsA100)."""
        service = InferenceService(n_params=6e9, n_layers=28, n_kv_heads=16, head_dim=256,
                                   weight_bytes_per_param=weight_bytes, prompt_tokens=128, output_tokens=128,
                                   batch_size=1, is_fp8_ready=fp8_ready)
        r = price_inference(service, offers(spec))
        ceiling = spec["memory_bandwidth_tbps"] * 1e12 / (6e9 * weight_bytes)
        assert ceiling == pytest.approx(ceiling_tok_s, rel=0.01)
        decode_tok_s = 1.0 / r.time_per_output_token_s[0]
        assert decode_tok_s <= ceiling
        assert r.tokens_per_s_per_gpu[0] <= ceiling
        assert r.bound[0] == Bound.MEMORY
        assert r.uses_fp8[0] == fp8_ready
        assert measured_tok_s <= ceiling  # the published measurement sits under the same bound

    def test_e7_mig_packing_h100_80gb_matches_mig_parted_exactly(self):
        """E7: max instances 1g.10gb 7, 1g.20gb 4, 2g.20gb 3, 3g.40gb 2, 4g.40gb 1, 7g.80gb 1; balanced
        2x1g.10gb + 2g.20gb + 3g.40gb (NVIDIA/mig-parted config-default.yaml)."""
        expected = {"1g.10gb": 7, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2, "4g.40gb": 1, "7g.80gb": 1}
        assert {p.name: mig_max_instances(p.name) for p in MIG_PROFILES} == expected
        assert mig_layout_fits(MIG_BALANCED_LAYOUT)
        assert not mig_layout_fits([*MIG_BALANCED_LAYOUT, "1g.10gb"])
        assert mig_layout_fits(["4g.40gb", "3g.40gb"])
        assert not mig_layout_fits(["3g.40gb", "3g.40gb", "1g.10gb"])


# --------------------------------------------------------------------------------------------------
# Hand-computed cases
# --------------------------------------------------------------------------------------------------


class TestTrainingHandComputed:
    def test_single_gpu_time_is_six_n_d_over_peak_times_mfu(self):
        job = TrainingJob(n_params=1e9, training_tokens=1e11, n_gpus=1)
        r = price_training(job, offers(H100))
        expected_h = 6e9 * 1e11 / (989.5e12 * 0.40) / 3600
        assert r.time_hours[0] == pytest.approx(expected_h)
        assert r.gpu_hours[0] == pytest.approx(expected_h)
        assert r.cost_eur[0] == pytest.approx(expected_h * 2.5)
        assert r.energy_kwh[0] == pytest.approx(expected_h * 0.7 * 1.58)
        assert r.emissions_kg[0] == pytest.approx(expected_h * 0.7 * 1.58 * 0.300)
        assert r.communication_share_fraction[0] == 0.0
        assert r.bound[0] == Bound.COMPUTE

    def test_two_node_step_without_overlap_matches_hand_computation(self):
        """16 H100 (2 nodes of 8), 1B params, 1M-token steps, 12.5 Gb/s per GPU, no overlap."""
        a = EngineAssumptions(overlap_fraction=0.0)
        job = TrainingJob(n_params=1e9, training_tokens=1e9, n_gpus=16, global_batch_tokens=1e6)
        r = price_training(job, offers({**H100, "inter_node_gbps_per_gpu": 12.5}), a)
        t_c = 6e9 * 1e6 / (16 * 989.5e12 * 0.40)
        buckets = math.ceil(2e9 / (25 * 2**20))
        t_intra = 2 * 7 / 8 * 2e9 / 370e9 + buckets * 33e-6
        t_inter = 2 * 1 / 2 * (2e9 / 8) / (12.5 / 8 * 0.96 * 1e9) + buckets * 38e-6
        t_step = t_c + t_intra + t_inter
        assert r.n_nodes[0] == 2
        assert r.compute_time_per_step_s[0] == pytest.approx(t_c)
        assert r.communication_time_per_step_s[0] == pytest.approx(t_intra + t_inter)
        assert r.step_time_s[0] == pytest.approx(t_step)
        assert r.scaling_efficiency_fraction[0] == pytest.approx(t_c / t_step)
        assert r.time_hours[0] == pytest.approx(1e9 / 1e6 * t_step / 3600)
        assert r.time_hours[0] > r.perfect_scaling_time_hours[0]

    def test_full_overlap_hides_communication_up_to_the_backward_pass(self):
        job = TrainingJob(n_params=1e9, training_tokens=1e9, n_gpus=16, global_batch_tokens=1e6)
        slow = price_training(job, offers({**H100, "inter_node_gbps_per_gpu": 0.1}))
        t_c = slow.compute_time_per_step_s[0]
        exposed = slow.communication_time_per_step_s[0] - 4 / 6 * t_c
        assert exposed > 0
        assert slow.step_time_s[0] == pytest.approx(t_c + exposed)
        assert slow.bound[0] == Bound.COMMUNICATION
        fast = price_training(job, offers(H100))
        assert fast.scaling_efficiency_fraction[0] == 1.0
        assert 0 < fast.communication_share_fraction[0] < 1

    def test_fp8_peak_used_only_when_supported_and_stack_ready(self):
        job = TrainingJob(n_params=1e9, training_tokens=1e11, n_gpus=1, is_fp8_ready=True)
        r = price_training(job, offers(H100, A100))
        assert r.uses_fp8.tolist() == [True, False]
        assert r.time_hours[0] == pytest.approx(6e20 / (1979e12 * 0.30) / 3600)
        assert r.time_hours[1] == pytest.approx(6e20 / (312e12 * 0.40) / 3600)

    def test_missing_price_gives_nan_cost_but_is_not_excluded(self):
        r = price_training(TrainingJob(n_params=1e9, training_tokens=1e10, n_gpus=1),
                           offers({**H100, "price_eur_per_gpu_hour": None}))
        assert not r.excluded[0] and np.isnan(r.cost_eur[0]) and r.time_hours[0] > 0

    def test_missing_grid_intensity_gives_nan_emissions_only(self):
        r = price_training(TrainingJob(n_params=1e9, training_tokens=1e10, n_gpus=1),
                           offers({**H100, "grid_intensity_g_per_kwh": None}))
        assert np.isnan(r.emissions_kg[0]) and r.energy_kwh[0] > 0 and not r.excluded[0]

    def test_results_broadcast_over_offers_and_carry_sourced_assumptions(self):
        r = price_training(TrainingJob.from_preset("llama-3-8b", n_gpus=64), offers(H100, A100, H100))
        assert r.time_hours.shape == r.cost_eur.shape == r.exclusion_code.shape == (3,)
        names = {a.name for a in r.assumptions}
        assert {"mfu_bf16_fraction", "overlap_fraction", "pue_ratio", "missing_fabric"} <= names
        assert all(a.source for a in r.assumptions)


class TestExclusions:
    def test_model_that_does_not_fit_is_excluded_with_reason(self):
        r = price_training(TrainingJob.from_preset("llama-2-70b", n_gpus=8), offers(H100))
        assert r.exclusion_code[0] == ExclusionReason.DOES_NOT_FIT
        assert "does not fit" in r.exclusion_text()[0]
        assert np.isnan(r.time_hours[0]) and np.isnan(r.cost_eur[0])
        assert r.bound[0] == Bound.UNDETERMINED and r.bound_text()[0] == ""

    def test_single_node_product_cannot_run_multi_node_job(self):
        r = price_training(TrainingJob(n_params=1e9, training_tokens=1e10, n_gpus=16),
                           offers({**H100, "inter_node": "none", "inter_node_gbps_per_gpu": None}),
                           missing_fabric="assume_default")
        assert r.exclusion_code[0] == ExclusionReason.NO_INTER_NODE_FABRIC

    def test_tensor_parallel_group_larger_than_node_is_excluded(self):
        job = TrainingJob(n_params=1e9, training_tokens=1e10, n_gpus=8, tensor_parallel_degree=8)
        r = price_training(job, offers({**H100, "gpus_per_node": 4}))
        assert r.exclusion_code[0] == ExclusionReason.NOT_ENOUGH_GPUS_PER_NODE

    @pytest.mark.parametrize(
        ("change", "reason"),
        [
            ({"gpus_per_node": None}, ExclusionReason.GPUS_PER_NODE_NOT_STATED),
            ({"intra_node": None}, ExclusionReason.INTRA_NODE_NOT_STATED),
            ({"inter_node": None}, ExclusionReason.INTER_NODE_NOT_STATED),
            ({"inter_node_gbps_per_gpu": None}, ExclusionReason.INTER_BANDWIDTH_NOT_STATED),
            ({"bf16_dense_tflops": None}, ExclusionReason.SPEC_MISSING),
        ],
    )
    def test_missing_catalog_value_excludes_under_exclude_policy_and_is_assumed_otherwise(self, change, reason):
        job = TrainingJob(n_params=1e9, training_tokens=1e10, n_gpus=16)
        o = offers({**H100, **change})
        r = price_training(job, o, missing_fabric="exclude")
        assert r.exclusion_code[0] == reason and r.excluded[0]
        assert EXCLUSION_REASONS[reason] == r.exclusion_text()[0]
        assumed = price_training(job, o, missing_fabric="assume_default")
        if reason == ExclusionReason.SPEC_MISSING:
            assert assumed.excluded[0]
        else:
            assert not assumed.excluded[0] and assumed.assumed_default[0] and assumed.time_hours[0] > 0
            assert assumed.missing_fabric_policy == "assume_default"

    def test_single_gpu_job_needs_no_fabric_information(self):
        bare = {**H100, "gpus_per_node": None, "intra_node": None, "inter_node": None, "inter_node_gbps_per_gpu": None}
        r = price_training(TrainingJob(n_params=1e9, training_tokens=1e10, n_gpus=1), offers(bare))
        assert not r.excluded[0] and not r.assumed_default[0]

    def test_unknown_policy_is_rejected(self):
        with pytest.raises(ValueError, match="missing_fabric"):
            price_training(TrainingJob(n_params=1e9, training_tokens=1e10, n_gpus=1), offers(H100), missing_fabric="x")


class TestInference:
    def test_cost_and_energy_per_million_tokens_follow_throughput(self):
        s = InferenceService.from_preset("llama-3-8b", prompt_tokens=512, output_tokens=256, batch_size=8,
                                         target_utilisation_fraction=0.5)
        r = price_inference(s, offers(H100))
        tok_s = r.tokens_per_s_per_gpu[0]
        assert r.cost_eur_per_million_tokens[0] == pytest.approx(2.5 / (tok_s * 3600 * 0.5) * 1e6)
        assert r.energy_kwh_per_million_tokens[0] == pytest.approx(0.7 * 1.58 / (tok_s * 3600 * 0.5) * 1e6)
        assert r.tokens_per_joule[0] == pytest.approx(tok_s / 700.0)
        assert r.request_latency_s[0] == pytest.approx(
            r.time_to_first_token_s[0] + 256 * r.time_per_output_token_s[0])
        assert r.machine_balance_flop_per_byte[0] == pytest.approx(989.5 / 3.35)

    def test_decode_is_memory_bound_at_batch_1_and_compute_bound_at_large_batch(self):
        base = {"n_params": 7e9, "n_layers": 32, "n_kv_heads": 8, "head_dim": 128, "prompt_tokens": 16,
                "output_tokens": 16}
        small = price_inference(InferenceService(**base, batch_size=1), offers(H100))
        large = price_inference(InferenceService(**base, batch_size=2048), offers(H100))
        assert small.bound_text()[0] == "memory" and large.bound_text()[0] == "compute"
        assert small.arithmetic_intensity_flop_per_byte[0] < small.machine_balance_flop_per_byte[0]

    def test_tensor_parallel_degree_is_smallest_power_of_two_that_holds_the_model(self):
        s = InferenceService.from_preset("llama-2-70b", prompt_tokens=1024, output_tokens=256, batch_size=4)
        r = price_inference(s, offers(H100, {**H100, "memory_gb": 141.0}))
        assert r.tensor_parallel_degree.tolist() == [2.0, 2.0]
        big = InferenceService.from_preset("llama-3-405b", prompt_tokens=1024, output_tokens=256, batch_size=1)
        r = price_inference(big, offers(H100, {**H100, "memory_gb": 141.0}, {**H100, "gpus_per_node": 4}))
        assert r.tensor_parallel_degree[0] != r.tensor_parallel_degree[0]  # NaN: excluded
        assert r.exclusion_code.tolist() == [ExclusionReason.DOES_NOT_FIT, 0, ExclusionReason.DOES_NOT_FIT]
        assert r.tensor_parallel_degree[1] == 8

    def test_replica_wider_than_the_node_is_excluded(self):
        s = InferenceService.from_preset("llama-2-70b", prompt_tokens=128, output_tokens=128, batch_size=1)
        r = price_inference(s, offers({**H100, "gpus_per_node": 1}))
        assert r.exclusion_code[0] == ExclusionReason.NOT_ENOUGH_GPUS_PER_NODE

    def test_mig_slice_is_the_smallest_that_holds_the_model(self):
        s = InferenceService.from_preset("llama-2-7b", prompt_tokens=128, output_tokens=128, batch_size=1)
        r = price_inference(s, offers(H100, {**H100, "mig_max_instances": 0}))
        assert r.mig_profile_text().tolist() == ["1g.20gb", ""]  # 14 GB > one 9 GB slice, <= two
        assert r.mig_instances_per_gpu.tolist() == [4.0, 0.0]
        assert 0 < r.mig_tokens_per_s_per_gpu[0] and np.isnan(r.mig_tokens_per_s_per_gpu[1])
        assert r.mig_cost_eur_per_million_tokens[0] == pytest.approx(
            2.5 / (r.mig_tokens_per_s_per_gpu[0] * 3600) * 1e6)
        too_big = price_inference(InferenceService.from_preset("llama-2-70b", prompt_tokens=128, output_tokens=128,
                                                               batch_size=1), offers(H100))
        assert too_big.mig_profile_code[0] == -1

    def test_fp8_not_ready_uses_bf16_peak(self):
        base = {"n_params": 7e9, "n_layers": 32, "n_kv_heads": 8, "head_dim": 128, "prompt_tokens": 2048,
                "output_tokens": 16, "batch_size": 64}
        ready = price_inference(InferenceService(**base, is_fp8_ready=True), offers(H100))
        not_ready = price_inference(InferenceService(**base), offers(H100))
        assert ready.uses_fp8[0] and not not_ready.uses_fp8[0]
        assert ready.time_to_first_token_s[0] < not_ready.time_to_first_token_s[0]


# --------------------------------------------------------------------------------------------------
# Boundary helpers, presets and the reference loop
# --------------------------------------------------------------------------------------------------


_SPEC_NAME = {
    ("H100", "SXM"): "H100 SXM", ("H100", "PCIe"): "H100 PCIe", ("A100-80GB", "SXM"): "A100 SXM 80GB",
    ("A100-80GB", "PCIe"): "A100 PCIe 80GB",
}
_SPEC_BY_MODEL = {
    "H100 NVL": "H100 NVL", "H200": "H200 SXM", "B200": "B200", "A100-40GB": "A100 SXM 40GB", "L40S": "L40S",
    "L4": "L4", "RTX 6000 Ada": "RTX 6000 Ada", "RTX 4000 Ada": "RTX 4000 Ada",
    "RTX PRO 6000 Blackwell": "RTX PRO 6000 Blackwell", "MI300X": "MI300X",
}


def seed_records() -> list[dict]:
    """offers.csv joined with gpu_specs.csv the way a caller would (test-local mapping)."""
    with open(SEED / "gpu_specs.csv", newline="", encoding="utf-8") as f:
        specs = {row["gpu_model"]: row for row in csv.DictReader(f)}
    with open(SEED / "offers.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    records = []
    for row in rows:
        name = _SPEC_NAME.get((row["gpu_model"], row["form_factor"])) or _SPEC_BY_MODEL.get(row["gpu_model"])
        spec = {k: v for k, v in specs.get(name, {}).items() if k not in ("gpu_model", "form_factor", "memory_gb")}
        country = re.search(r"\(([A-Z]{2})\)", row["region"])
        code = row.get("datacenter_country") or (country.group(1) if country else None)
        records.append({**spec, **row, "datacenter_country": code, "country_code": code})
    return records


class TestBoundary:
    def test_seed_catalog_prices_end_to_end(self):
        records = seed_records()
        o = offer_arrays_from_records(records, usd_per_eur=1.0411)
        assert o.n_offers == len(records) == sum(1 for _ in csv.DictReader((SEED / "offers.csv").open()))
        usd = [r for r in records if r["currency"] == "USD" and r["price_per_gpu_hour"]][0]
        i = records.index(usd)
        assert o.price_eur_per_gpu_hour[i] == pytest.approx(float(to_eur(float(usd["price_per_gpu_hour"]), "USD", 1.0411)))
        t = price_training(TrainingJob.from_preset("llama-2-70b", n_gpus=256), o)
        assert t.excluded.any() and (~t.excluded).any()
        assert all(t.exclusion_text()[t.excluded])
        assert np.all(t.time_hours[~t.excluded] > 0)
        inf = price_inference(InferenceService.from_preset("llama-3-8b", prompt_tokens=512, output_tokens=256,
                                                           batch_size=8), o)
        assert (~inf.excluded).sum() > 100
        assert np.isfinite(o.grid_intensity_g_per_kwh).sum() > 10

    def test_frame_and_records_give_the_same_arrays(self):
        pd = pytest.importorskip("pandas")
        records = [H100, {**A100, "datacenter_country": "SE", "grid_intensity_g_per_kwh": None}]
        a = offer_arrays_from_records(records)
        b = offer_arrays_from_frame(pd.DataFrame(records))
        for name in OfferArrays.__dataclass_fields__:
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        assert a.grid_intensity_g_per_kwh[1] == GRID_INTENSITY_G_PER_KWH_BY_COUNTRY["SE"]

    def test_grid_intensity_override_and_unknown_country(self):
        assert grid_intensity_g_per_kwh(["DE", "ZZ"], {"DE": 300.0})[0] == 300.0
        assert np.isnan(grid_intensity_g_per_kwh(["DE", "ZZ"])[1])

    def test_offer_arrays_reject_mismatched_shapes(self):
        with pytest.raises(ValueError, match="shape"):
            OfferArrays(np.ones(2), np.ones(3), *([np.ones(2)] * 11))

    def test_presets_have_consistent_heads(self):
        for p in MODEL_PRESETS.values():
            assert p.d_model % p.n_heads == 0 and p.n_heads % p.n_kv_heads == 0 and p.source
        assert MODEL_PRESETS["llama-2-70b"].head_dim == 128

    def test_every_default_names_a_source(self):
        assert all(row.source and row.unit for row in DEFAULT_ASSUMPTIONS.table())

    @pytest.mark.parametrize("policy", ["exclude", "assume_default"])
    def test_vectorised_kernel_matches_per_offer_reference_loop(self, policy):
        o = random_offers(np.random.default_rng(7), 400)
        for job in (TrainingJob.from_preset("llama-2-13b", n_gpus=64),
                    TrainingJob(n_params=1e9, training_tokens=1e10, n_gpus=8, tensor_parallel_degree=2,
                                is_fp8_ready=True)):
            vec = price_training(job, o, missing_fabric=policy)
            ref = reference_price_training_loop(job, o, missing_fabric=policy)
            np.testing.assert_array_equal(vec.exclusion_code, ref["exclusion_code"])
            for key in ("time_hours", "cost_eur", "emissions_kg"):
                np.testing.assert_allclose(getattr(vec, key), ref[key], rtol=1e-12, equal_nan=True)


def random_offers(rng: np.random.Generator, n: int) -> OfferArrays:
    """Messy synthetic catalog: every interconnect kind and some missing values."""
    return OfferArrays(
        price_eur_per_gpu_hour=rng.choice([0.8, 2.1, 3.9, np.nan], n),
        bf16_tflops=rng.choice([312.0, 989.5, 362.05, np.nan], n, p=[0.4, 0.4, 0.15, 0.05]),
        fp8_tflops=rng.choice([np.nan, 1979.0, 733.0], n),
        memory_gb=rng.choice([40.0, 80.0, 141.0, 48.0], n),
        memory_bandwidth_tbps=rng.choice([0.864, 2.039, 3.35, 4.8], n),
        tdp_watts=rng.choice([350.0, 400.0, 700.0], n),
        gpus_per_node=rng.choice([1.0, 2.0, 4.0, 8.0, np.nan], n),
        intra_node_kind=rng.integers(0, 4, n),
        intra_bandwidth_gb_per_s=rng.choice([370.0, 246.7, 28.0], n),
        inter_node_kind=rng.integers(0, 6, n),
        inter_bandwidth_gbps_per_gpu=rng.choice([12.5, 50.0, 200.0, 400.0, np.nan], n),
        grid_intensity_g_per_kwh=rng.choice([27.55, 365.477, np.nan], n),
        mig_max_instances=rng.choice([0.0, 7.0, np.nan], n),
    )


# --------------------------------------------------------------------------------------------------
# Hypothesis properties
# --------------------------------------------------------------------------------------------------

PROPERTY = settings(max_examples=60, deadline=None)
gbps = st.floats(min_value=1.0, max_value=3200.0)
busbw = st.floats(min_value=5.0, max_value=900.0)


@PROPERTY
@given(
    n_params=st.floats(min_value=1e7, max_value=4e9),
    n_gpus=st.integers(min_value=1, max_value=4096),
    gpn=st.sampled_from([1, 2, 4, 8]),
    link=gbps,
    overlap=st.floats(min_value=0.0, max_value=1.0),
)
def test_more_gpus_never_beat_the_perfect_scaling_bound(n_params, n_gpus, gpn, link, overlap):
    o = offers({**H100, "gpus_per_node": gpn, "inter_node_gbps_per_gpu": link})
    a = EngineAssumptions(overlap_fraction=overlap)
    one = price_training(TrainingJob(n_params=n_params, training_tokens=1e11, n_gpus=1), o, a)
    many = price_training(TrainingJob(n_params=n_params, training_tokens=1e11, n_gpus=n_gpus), o, a)
    assert not many.excluded[0]
    assert many.time_hours[0] >= one.time_hours[0] / n_gpus * (1 - 1e-12)
    assert many.gpu_hours[0] >= one.gpu_hours[0] * (1 - 1e-12)
    assert many.time_hours[0] >= many.perfect_scaling_time_hours[0] * (1 - 1e-12)
    assert 0 < many.scaling_efficiency_fraction[0] <= 1


@PROPERTY
@given(
    links=st.lists(gbps, min_size=2, max_size=2).map(sorted),
    intra=st.lists(busbw, min_size=2, max_size=2).map(sorted),
    n_gpus=st.sampled_from([2, 8, 16, 64, 1024]),
    gpn=st.sampled_from([1, 4, 8]),
    overlap=st.floats(min_value=0.0, max_value=1.0),
    oversub=st.floats(min_value=1.0, max_value=8.0),
)
def test_lower_network_bandwidth_never_raises_scaling_efficiency(links, intra, n_gpus, gpn, overlap, oversub):
    job = TrainingJob.from_preset("llama-2-7b", n_gpus=n_gpus)
    base = {**H100, "gpus_per_node": gpn}
    slow, fast = links
    o = OfferArrays(**{
        **{k: np.repeat(v, 3) for k, v in offers(base).columns().items()},
        "inter_bandwidth_gbps_per_gpu": np.array([slow, fast, fast]),
        "intra_bandwidth_gb_per_s": np.array([intra[1], intra[1], intra[0]]),
    })
    a = EngineAssumptions(overlap_fraction=overlap, oversubscription_ratio=oversub)
    e = price_training(job, o, a).scaling_efficiency_fraction
    assert e[0] <= e[1] + 1e-12  # slower network
    assert e[2] <= e[1] + 1e-12  # slower intra-node link


@PROPERTY
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), n_gpus=st.sampled_from([1, 8, 64]))
def test_fp8_gains_nothing_when_the_stack_is_not_fp8_ready(seed, n_gpus):
    o = random_offers(np.random.default_rng(seed), 32)
    without_fp8 = OfferArrays(**{**o.columns(), "fp8_tflops": np.full(32, np.nan)})
    job = TrainingJob(n_params=1e9, training_tokens=1e10, n_gpus=n_gpus, is_fp8_ready=False)
    a, b = price_training(job, o), price_training(job, without_fp8)
    np.testing.assert_array_equal(a.time_hours, b.time_hours)
    assert not a.uses_fp8.any()
    svc = InferenceService(n_params=1e9, n_layers=16, n_kv_heads=8, head_dim=128, prompt_tokens=256,
                           output_tokens=64, batch_size=32)
    np.testing.assert_array_equal(price_inference(svc, o).tokens_per_s_per_gpu,
                                  price_inference(svc, without_fp8).tokens_per_s_per_gpu)


@PROPERTY
@given(
    memory_gb=st.floats(min_value=8.0, max_value=200.0),
    n_gpus=st.integers(min_value=1, max_value=64),
    state_bytes=st.floats(min_value=2.0, max_value=20.0),
)
def test_model_that_does_not_fit_is_excluded_with_a_reason(memory_gb, n_gpus, state_bytes):
    n_params = memory_gb * 1e9 * n_gpus / state_bytes * 1.01  # just over the memory of all GPUs
    job = TrainingJob(n_params=n_params, training_tokens=1e10, n_gpus=n_gpus,
                      training_state_bytes_per_param=state_bytes)
    r = price_training(job, offers({**H100, "memory_gb": memory_gb}))
    assert r.exclusion_code[0] == ExclusionReason.DOES_NOT_FIT
    assert r.exclusion_text()[0] == "does not fit in GPU memory"
    assert np.isnan(r.cost_eur[0])


@PROPERTY
@given(
    batches=st.lists(st.integers(min_value=1, max_value=512), min_size=2, max_size=2).map(sorted),
    prompt=st.integers(min_value=1, max_value=4096),
    output=st.integers(min_value=1, max_value=2048),
)
def test_bigger_batches_trade_latency_for_throughput(batches, prompt, output):
    small, large = (price_inference(InferenceService(n_params=7e9, n_layers=32, n_kv_heads=8, head_dim=128,
                                                     prompt_tokens=prompt, output_tokens=output, batch_size=b,
                                                     tensor_parallel_degree=8), offers(H100))
                    for b in batches)
    assert large.tokens_per_s_per_gpu[0] >= small.tokens_per_s_per_gpu[0] * (1 - 1e-12)
    assert large.request_latency_s[0] >= small.request_latency_s[0] * (1 - 1e-12)


@PROPERTY
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), policy=st.sampled_from(["exclude", "assume_default"]))
def test_priced_outputs_are_non_negative_and_excluded_ones_are_nan(seed, policy):
    o = random_offers(np.random.default_rng(seed), 64)
    r = price_training(TrainingJob.from_preset("llama-3-8b", n_gpus=32), o, missing_fabric=policy)
    ok = ~r.excluded
    for x in (r.time_hours, r.gpu_hours, r.energy_kwh, r.communication_share_fraction):
        assert np.all(x[ok] >= 0) and np.all(np.isnan(x[~ok]))
    assert np.all((r.scaling_efficiency_fraction[ok] > 0) & (r.scaling_efficiency_fraction[ok] <= 1))
    assert set(np.unique(r.bound[ok])) <= {Bound.COMPUTE, Bound.COMMUNICATION}
