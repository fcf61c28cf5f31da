"""engine.fast: every speed trick equals its plain version (bench/fast_plain.py) on random inputs; the tricks that
were written plainly (issue #32) keep hand-computed tests of their new homes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import fast_plain
from engine import fast
from engine.workload.common import first_reason_codes, missing_input_code

SEEDS = range(5)


def _groups(rows, first, inverse, mult):
    """Row indices per group, as a set of frozensets, plus the multiplicity of each group."""
    groups = {}
    for i, g in enumerate(inverse):
        groups.setdefault(int(g), set()).add(i)
    assert [len(groups[g]) for g in sorted(groups)] == list(mult)
    np.testing.assert_array_equal(rows[first][inverse], rows)  # each row's representative is equal to it
    return {frozenset(v) for v in groups.values()}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("duplicates", [False, True])
def test_unique_rows_group_like_numpy_unique(seed, duplicates):
    rng = np.random.default_rng(seed)
    rows = rng.random((60, 5))
    if duplicates:
        rows[rng.integers(0, 60, 25)] = rows[rng.integers(0, 60, 25)]
        rows[:3] = 0.0
    fast_groups = _groups(rows, *fast.unique_rows(rows))
    assert fast_groups == _groups(rows, *fast_plain.unique_rows(rows))


def _chain(a, b, c):
    return {"x": np.sqrt(a * b + 1.0) / (c + 2.0), "y": np.where(a > b, a - b, c) * 3.0}


@pytest.mark.parametrize("seed", SEEDS)
def test_evaluate_in_blocks_equals_one_call(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.random((7, 150)), rng.random((7, 150))
    c = np.asarray(0.25)  # a scalar input is passed whole to every block
    got = fast.evaluate_in_blocks(_chain, [a, b, c], block=64)  # 1,050 points: 17 blocks, the last partial
    plain = fast_plain.evaluate_in_blocks(_chain, [a, b, c])
    assert got.keys() == plain.keys()
    for key in plain:
        np.testing.assert_array_equal(got[key], plain[key])
    # inputs of different shapes (broadcast) take the one-call path: same answer
    got = fast.evaluate_in_blocks(_chain, [a[:, :1], b, c], block=64)
    np.testing.assert_array_equal(got["x"], np.broadcast_to(_chain(a[:, :1], b, c)["x"], a.shape))


def _chain_into(out, scratch, a, b, c):
    (t,) = scratch
    np.sqrt(np.add(np.multiply(a, b, out=t), 1.0, out=t), out=t)
    np.divide(t, c + 2.0, out=out["x"])
    np.multiply(np.where(a > b, a - b, c), 3.0, out=out["y"])


@pytest.mark.parametrize("seed", SEEDS)
def test_evaluate_in_blocks_into_buffers_equals_one_call(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.random((7, 150)), rng.random((7, 150))
    c = np.asarray(0.25)
    kernel = fast.BlockKernel(_chain_into, ("x", "y"), 1)
    got = fast.evaluate_in_blocks(_chain, [a, b, c], block=64, into=kernel)  # 17 blocks, the last partial
    plain = fast_plain.evaluate_in_blocks(_chain, [a, b, c], into=kernel)
    for key in plain:
        np.testing.assert_array_equal(got[key], plain[key])


def test_exact_percentile_selection_matches_numpy_on_awkward_data():
    rng = np.random.default_rng(3)
    cases = [
        rng.normal(size=100_001),
        np.sort(rng.random(40_000)),  # sorted input: the strided sample is still representative
        rng.integers(0, 5, 50_000).astype(float),  # heavy ties
        rng.random(1_234),  # small: plain partition
    ]
    for values in cases:
        np.testing.assert_allclose(fast.percentiles_linear(values, (10, 50, 90)), np.percentile(values, [10, 50, 90]),
                                   rtol=1e-15)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=300), st.lists(st.floats(0, 100), min_size=1, max_size=5))
def test_percentiles_equal_numpy_on_any_small_array(values, q):
    arr = np.asarray(values)
    np.testing.assert_allclose(fast.percentiles_linear(arr, q), np.percentile(arr, q), rtol=1e-12, atol=1e-9)


def test_first_reason_codes_keep_the_lowest_applicable_code_by_hand():
    """Written plainly in engine/workload/common.py (issue #32): rows 0-4, codes given out of order."""
    masks = [(3, np.array([True, True, False, False, False])), (1, np.array([False, True, False, False, True])),
             (2, np.array([True, False, False, False, True])), (9, False)]
    code, flagged, blank = first_reason_codes(5, masks)
    assert code.tolist() == [2, 1, 0, 0, 1] and code.dtype == np.int8
    assert flagged.tolist() == [True, True, False, False, True]
    assert np.isnan(blank[[0, 1, 4]]).all() and (blank[[2, 3]] == 0).all()
    assert first_reason_codes(3, [(4, True)])[0].tolist() == [4, 4, 4]  # a whole-catalog condition


def test_missing_codes_sum_the_bits_of_what_is_missing_and_are_0_where_excluded():
    nan = np.nan
    price, tdp, grid = np.array([nan, 1, 1, nan]), np.array([nan, nan, 1, 1]), np.array([1, nan, 1, nan])
    code = missing_input_code(np.array([False, False, False, True]), price, tdp, grid)
    from engine.workload.results import MissingInput as M
    assert code.tolist() == [M.PRICE + M.TDP, M.TDP + M.GRID_INTENSITY, 0, 0] and code.dtype == np.int8

