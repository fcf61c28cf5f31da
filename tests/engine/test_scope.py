"""Tests for engine.scope: the memory-per-GPU rule of a workload fit (hand-computed and against the Workload
engine's own "does not fit"), scope -> constraints, and the filter every page shares (a ranked offer always
fits the model, is of the class and never a flagged outlier unless opted in)."""

from __future__ import annotations

import datetime as dt
import doctest

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import scope as scope_module
from engine.adapters import (
    build_decision_matrix,
    is_marketplace,
    offer_arrays_from_records,
    price_outlier_columns,
)
from engine.scope import (
    BYTES_PER_PARAM,
    OfferScope,
    Residency,
    WorkloadFit,
    memory_need_gb_per_gpu,
    scope_constraints,
)
from engine.scoring import Constraints, apply_constraints, rank_alternatives
from engine.workload import ExclusionReason, TrainingJob, price_training

PROPERTY = settings(max_examples=60, deadline=None)
TODAY = dt.date(2026, 12, 2)


def test_doctests():
    assert doctest.testmod(scope_module).failed == 0


class TestMemoryRule:
    def test_training_70b_on_16_gpus_needs_70_gb(self):
        # 16 B per parameter (ZeRO section 3.1) x 70e9 / (16 GPUs x 0.9 usable) = 77.8e9 B = 77.8 GB
        assert memory_need_gb_per_gpu(70e9, "training", 16) == pytest.approx(70.0 / 0.9)
        assert BYTES_PER_PARAM["training"] == TrainingJob.model_fields["training_state_bytes_per_param"].default

    def test_serving_splits_over_at_most_one_8_gpu_node(self):
        # 70e9 x 2 B / (8 x 0.9) = 19.44 GB; 64 GPUs still split the weights over 8 only
        assert memory_need_gb_per_gpu(70e9, "serving-bf16", 8) == pytest.approx(140 / 7.2)
        assert memory_need_gb_per_gpu(70e9, "serving-bf16", 64) == pytest.approx(140 / 7.2)
        assert memory_need_gb_per_gpu(70e9, "serving-int4", 1) == pytest.approx(35 / 0.9)

    def test_fit_describes_itself_and_sets_the_floor(self):
        fit = WorkloadFit(model_params_b=70, use="training", n_gpus=16)
        assert "70B" in fit.describe() and "78 GB per GPU" in fit.describe()
        assert OfferScope(fit=fit).memory_floor_gb() == pytest.approx(70.0 / 0.9)
        assert OfferScope(fit=fit, min_memory_gb_per_gpu=90).memory_floor_gb() == 90
        assert OfferScope().memory_floor_gb() is None

    @PROPERTY
    @given(st.floats(0.5, 500.0), st.sampled_from([1, 2, 4, 8, 16, 32, 64]), st.floats(8.0, 300.0))
    def test_agrees_with_the_workload_engine_on_what_fits(self, params_b, n_gpus, memory_gb):
        """An offer the scope's fit leaves out is always 'does not fit in GPU memory' for the same job on the
        Workload engine (same 16 B and 0.9 usable; the engine adds activations, so the converse need not hold)."""
        fit = WorkloadFit(model_params_b=params_b, use="training", n_gpus=n_gpus)
        keep, _ = apply_constraints({"memory_gb": [memory_gb]}, scope_constraints(OfferScope(fit=fit)))
        job = TrainingJob(n_params=params_b * 1e9, training_tokens=1e9, n_gpus=n_gpus, is_state_sharded=True)
        offer = offer_arrays_from_records([{
            "price_eur_per_gpu_hour": 2.0, "bf16_dense_tflops": 989.5, "memory_gb": memory_gb,
            "memory_bandwidth_tbps": 3.35, "tdp_watts": 700, "gpus_per_node": 8, "intra_node": "NVLink-NVSwitch",
            "inter_node": "InfiniBand-NDR", "inter_node_gbps_per_gpu": 400, "datacenter_country": "FI"}])
        code = price_training(job, offer).exclusion_code[0]
        if not keep[0]:
            assert code == ExclusionReason.DOES_NOT_FIT
        assert keep[0] == (memory_gb * 0.9 >= 16 * params_b / n_gpus - 1e-9)  # the rule, by hand


class TestScopeConstraints:
    def test_scope_and_residency_narrow_a_base(self):
        base = Constraints(sxm_only=True)
        c = scope_constraints(OfferScope(gpu_models=("H100",), include_price_outliers=True),
                              Residency(eu_resident_only=True, required_certifications=("ISO27001",)), base)
        assert c.sxm_only and c.eu_resident_only and c.gpu_models == ("H100",)
        assert c.required_certifications == ("ISO27001",) and not c.exclude_price_outliers
        assert Residency.of(c) == Residency(eu_resident_only=True, required_certifications=("ISO27001",))

    def test_reasons_for_class_memory_and_outliers(self):
        data = {"gpu_model": ["H100", "L4", None, "H100"], "memory_gb": [80.0, 24.0, 80.0, np.nan],
                "price_is_outlier": [False, False, False, True],
                "price_outlier_reason": [None, None, None, "price outlier: far below"]}
        keep, why = apply_constraints(data, scope_constraints(OfferScope(gpu_models=("H100",),
                                                                         min_memory_gb_per_gpu=70)))
        assert keep.tolist() == [True, False, False, False]
        assert why[1] == ("GPU class: L4, not H100", "memory 24 GB per GPU, below the 70 GB needed")
        assert why[2] == ("GPU model: not stated",)
        assert why[3] == ("memory per GPU: not stated", "price outlier: far below")

    def test_marketplace_rows(self):
        frame = pd.DataFrame({"region": ["Community Cloud (global)", "Secure Cloud (global)", "marketplace (global)"]})
        assert is_marketplace(frame).tolist() == [True, False, True]


# ---------------------------------------------------------------------------------------------------
# The property the Scoring page rests on: a ranked offer is of the class, fits, and is no outlier
# ---------------------------------------------------------------------------------------------------

MODELS = {"H100": 80.0, "L4": 24.0, "L40S": 48.0, "MI300X": 192.0, "A100-40GB": 40.0}


@st.composite
def catalogs(draw):
    n = draw(st.integers(5, 30))
    rows = []
    for i in range(n):
        model = draw(st.sampled_from(list(MODELS)))
        rows.append({
            "offer_id": f"o{i}", "provider_id": f"p{draw(st.integers(0, 6))}", "provider_name": "P",
            "gpu_model": model, "region": "r",
            "memory_gb": draw(st.one_of(st.just(MODELS[model]), st.none())),
            "on_demand_eur_per_gpu_hour": draw(st.floats(0.05, 20.0)),
            "as_of": "2026-11-01", "verification_status": "claimed",
        })
    return pd.DataFrame(rows)


@PROPERTY
@given(catalogs(), st.floats(1.0, 200.0), st.sampled_from(["training", "serving-bf16", "serving-fp8"]),
       st.sampled_from([1, 8, 16, 64]), st.lists(st.sampled_from(list(MODELS)), max_size=3, unique=True),
       st.booleans())
def test_a_ranked_offer_always_fits_is_of_the_class_and_no_unwanted_outlier(frame, params_b, use, n_gpus, models,
                                                                            include_outliers):
    frame = pd.concat([frame, price_outlier_columns(frame)], axis=1)
    scope = OfferScope(gpu_models=tuple(models), fit=WorkloadFit(model_params_b=params_b, use=use, n_gpus=n_gpus),
                       include_price_outliers=include_outliers)
    need = scope.fit.need_gb_per_gpu()
    result = rank_alternatives(build_decision_matrix(frame, reference_date=TODAY), {"price_eur_per_gpu_hour": 1},
                               constraints=scope_constraints(scope))
    ranked = frame.set_index("offer_id").loc[list(result.ids)]
    assert (ranked["memory_gb"] >= need - 1e-9).all()
    if models:
        assert ranked["gpu_model"].isin(models).all()
    if not include_outliers:
        assert not ranked["on_demand_is_outlier"].any()
        if result.ids:  # the headline (#1) is never a flagged price
            assert not bool(frame.set_index("offer_id").at[result.top, "on_demand_is_outlier"])
    # every left-out offer says why
    assert len(result.ids) + len(result.excluded) == len(frame)
    assert all(e.reasons for e in result.excluded)
