"""engine.workload.accuracy: the error bands come from the validation table, out of sample (issue #36.6)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.workload import accuracy
from engine.workload.accuracy_runs import RUNS, ValidatedRun
from tests.engine import accuracy_table
from tests.engine import validation_cases as vc
from tests.engine.validation_regimes import META, NOT_A_COST_RESULT


def test_generated_runs_equal_the_validation_table():
    """A changed engine value, a new case or a changed calibration changes the band: regenerate with
    ``python -m tests.engine.accuracy_table``."""
    assert accuracy_table.OUT.read_text(encoding="utf-8") == accuracy_table.render()


def test_every_counted_case_has_a_regime():
    for case in vc.ALL_CASES:
        if case.kind == "validation" and not getattr(case, "pending", False):
            assert case.id in META or case.id in NOT_A_COST_RESULT, f"{case.id}: add it to validation_regimes.META"
        if case.id in META:
            assert META[case.id].regime in accuracy.REGIMES


def test_a_throughput_enters_inverted_and_a_time_as_it_is():
    # an engine 20 % too fast: throughput 1.2x published, time 1/1.2 of it; both understate the cost
    assert accuracy_table.cost_log_error("tokens/s/GPU", 1.2, 1.0) == pytest.approx(-math.log(1.2))
    assert accuracy_table.cost_log_error("GPU-h", 1 / 1.2, 1.0) == pytest.approx(-math.log(1.2))
    assert accuracy_table.cost_log_error("TTFT ms", 1.2, 1.0) == pytest.approx(math.log(1.2))


def _runs(errors, regime="lora", stack="megatron"):
    return tuple(ValidatedRun(f"X{i}", "validation", regime, stack, "H100", 8, 70.0, e) for i, e in enumerate(errors))


def test_band_by_hand():
    # |e| = 0.1, 0.2, 0.3, 0.4: median 0.25, 80th percentile 0.3 + 0.4 x 0.1 = 0.34, worst 0.4; median e = 0.05
    b = accuracy.summarise(_runs([0.1, -0.2, 0.3, -0.4]), "lora")
    assert b.typical_error_fraction == pytest.approx(math.expm1(0.25))
    assert b.four_in_five_error_fraction == pytest.approx(math.expm1(0.34))
    assert b.worst_error_fraction == pytest.approx(math.expm1(0.4))
    assert b.bias_fraction == pytest.approx(math.expm1(-0.05))
    assert b.n_runs == 4 and b.gpus == ("H100",)


def test_a_stack_with_too_few_runs_gets_the_regime_band():
    runs = _runs([0.1, 0.1, 0.1]) + _runs([0.9], stack="pytorch_fsdp")
    own = accuracy.error_band("lora", "megatron", runs=runs)
    assert own.stack == "megatron" and own.n_runs == 3
    fallback = accuracy.error_band("lora", "pytorch_fsdp", runs=runs)
    assert fallback.stack is None and fallback.n_runs == 4


def test_outside_the_validated_domain_is_said():
    b = accuracy.error_band("lora", None, "MI300X", 32, 405.0, runs=_runs([0.1, 0.2]))
    assert len(b.outside) == 3 and "MI300X" in b.outside[0]
    assert "outside" in b.sentence()
    assert not accuracy.error_band("lora", None, "H100", 8, 70.0, runs=_runs([0.1])).outside
    empty = accuracy.error_band("serve_latency", runs=_runs([0.1]))
    assert empty.n_runs == 0 and empty.is_outside and "unknown error" in empty.sentence()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-3, 3, allow_nan=False), min_size=1, max_size=30), st.floats(0.0, 3.0))
def test_band_properties(errors, extra):
    b = accuracy.summarise(_runs(errors), "lora")
    assert 0.0 <= b.typical_error_fraction <= b.four_in_five_error_fraction + 1e-12 <= b.worst_error_fraction + 2e-12
    assert b.worst_error_fraction == pytest.approx(math.expm1(max(abs(e) for e in errors)))
    shuffled = accuracy.summarise(_runs(list(reversed(errors))), "lora")
    assert shuffled.typical_error_fraction == pytest.approx(b.typical_error_fraction)
    wider = accuracy.summarise(_runs([*errors, max(abs(e) for e in errors) + extra]), "lora")
    assert wider.worst_error_fraction >= b.worst_error_fraction - 1e-12
    assert wider.typical_error_fraction >= b.typical_error_fraction - 1e-12  # a larger error never narrows the band


def test_the_project_bands_rest_on_out_of_sample_runs_only():
    assert {r.source for r in RUNS} <= {"validation", "leave-one-out calibration"}
    calibrated = {c.id for c in vc.ALL_CASES if c.kind == "calibration"}
    assert not calibrated & {r.case_id for r in RUNS}
    assert np.all(np.isfinite([r.log_error for r in RUNS]))
