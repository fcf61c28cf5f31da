"""engine.fast: every speed trick equals its plain version (written out here) on random inputs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import fast
from engine.scoring.kernels import _closeness, _topsis_squared_distances

SEEDS = range(5)


@pytest.mark.parametrize("seed", SEEDS)
def test_nan_as_tiny_gives_zero_for_zero_volume_and_the_plain_quotient_elsewhere(seed):
    rng = np.random.default_rng(seed)
    volume = np.where(rng.random(500) < 0.3, 0.0, rng.random(500) * 1e12)
    rate = rng.random(500) * 900.0 + 1e-6
    rate[(volume == 0) & (rng.random(500) < 0.5)] = np.nan  # a missing bandwidth no byte crosses
    with np.errstate(invalid="ignore"):
        plain = np.where(volume == 0, 0.0, volume / rate)
    np.testing.assert_array_equal(volume / fast.nan_as_tiny(rate), plain)
    assert not np.isnan(volume / fast.nan_as_tiny(rate)).any()


@pytest.mark.parametrize("seed", SEEDS)
def test_fill_missing_nonnegative_equals_where(seed):
    rng = np.random.default_rng(seed)
    values = rng.random(300) * 100.0
    values[rng.random(300) < 0.4] = np.nan
    values[:5] = 0.0
    missing = np.isnan(values)
    for default in (0.0, 8.0, 370.5):
        np.testing.assert_array_equal(fast.fill_missing_nonnegative(values, missing, default),
                                      np.where(missing, default, values))


def _first_reason_codes_plain(n, masks):
    code = np.zeros(n, dtype=int)
    for reason, mask in masks:
        mask = np.broadcast_to(np.asarray(mask, dtype=bool), (n,))
        code = np.where(mask & ((code == 0) | (reason < code)), reason, code)
    return code, code != 0, np.where(code != 0, np.nan, 0.0)


@pytest.mark.parametrize("seed", SEEDS)
def test_first_reason_codes_equal_the_plain_loop(seed):
    rng = np.random.default_rng(seed)
    n = 400
    codes = rng.permutation(np.arange(1, 9))  # any order: the lowest applicable code wins
    masks = [(int(c), rng.random(n) < 0.15) for c in codes]
    masks.append((9, bool(rng.random() < 0.5)))  # a whole-catalog condition (scalar)
    code, flagged, blank = fast.first_reason_codes(n, masks)
    plain_code, plain_flagged, plain_blank = _first_reason_codes_plain(n, masks)
    np.testing.assert_array_equal(code, plain_code)
    np.testing.assert_array_equal(flagged, plain_flagged)
    np.testing.assert_array_equal(blank, plain_blank)  # NaN where flagged, 0 elsewhere
    assert code.dtype == np.int8


@pytest.mark.parametrize("seed", SEEDS)
def test_flag_codes_equal_the_plain_sum(seed):
    rng = np.random.default_rng(seed)
    pairs = [(rng.random(200) < 0.3, 1), (rng.random(200) < 0.3, 2), (rng.random(200) < 0.3, 4)]
    keep = rng.random(200) < 0.7
    plain = sum(np.where(mask, flag, 0) for mask, flag in pairs) * keep
    np.testing.assert_array_equal(fast.flag_codes(pairs, keep), plain)


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
    _, first, inverse, mult = np.unique(rows, axis=0, return_index=True, return_inverse=True, return_counts=True)
    assert fast_groups == _groups(rows, first, inverse.reshape(-1), mult)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("normalisation", ["vector", "min_max"])
def test_topsis_closeness_into_buffers_equals_the_plain_closeness(seed, normalisation):
    rng = np.random.default_rng(seed)
    x = rng.random((40, 6)) * 10.0
    x[:5] = x[5]  # identical alternatives
    objectives = rng.choice([-1, 1], size=6)
    weights = rng.dirichlet(np.ones(6), size=50)
    d_plus, d_minus = _topsis_squared_distances(x, objectives, normalisation)
    out, spare = np.empty((50, 40)), np.empty((50, 40))
    got = fast.topsis_closeness_into(weights, np.ascontiguousarray(d_plus.T), np.ascontiguousarray(d_minus.T), out,
                                     spare)
    np.testing.assert_array_equal(got, _closeness(d_plus, d_minus, weights))


def test_topsis_closeness_into_gives_one_half_when_everyone_ties():
    d = np.zeros((3, 2))
    out = fast.topsis_closeness_into(np.array([[0.5, 0.5]]), d.T.copy(), d.T.copy(), np.empty((1, 3)),
                                     np.empty((1, 3)))
    np.testing.assert_array_equal(out, _closeness(d, d, np.array([[0.5, 0.5]])))
    assert (out == 0.5).all()


def _chain(a, b, c):
    return {"x": np.sqrt(a * b + 1.0) / (c + 2.0), "y": np.where(a > b, a - b, c) * 3.0}


@pytest.mark.parametrize("seed", SEEDS)
def test_evaluate_in_blocks_equals_one_call(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.random((7, 150)), rng.random((7, 150))
    c = np.asarray(0.25)  # a scalar input is passed whole to every block
    got = fast.evaluate_in_blocks(_chain, [a, b, c], block=64)  # 1,050 points: 17 blocks, the last partial
    plain = {k: np.broadcast_to(v, a.shape).copy() for k, v in _chain(a, b, c).items()}
    assert got.keys() == plain.keys()
    for key in plain:
        np.testing.assert_array_equal(got[key], plain[key])
    # inputs of different shapes (broadcast) take the one-call path: same answer
    got = fast.evaluate_in_blocks(_chain, [a[:, :1], b, c], block=64)
    np.testing.assert_array_equal(got["x"], np.broadcast_to(_chain(a[:, :1], b, c)["x"], a.shape))


@pytest.mark.parametrize("triangular", [True, False])
def test_block_sampler_equals_the_plain_formula_on_the_same_bits(triangular):
    low, mode, high = np.array([1.0, 0.0, -2.0]), np.array([1.5, 0.0, 3.0]), np.array([4.0, 2.0, 3.0])
    sampler = fast.BlockSampler(low, mode, high, triangular, 1000)
    got = sampler.draw(np.random.default_rng(7), 700).copy()
    bits = np.random.default_rng(7).integers(0, 2**64, size=(3, 700), dtype=np.uint64).view(np.uint32)
    u, v = bits[:, :700] * 2.0**-32, bits[:, 700:] * 2.0**-32
    lo, mo, hi = low[:, None], mode[:, None], high[:, None]
    plain = (lo + (hi - mo) * np.minimum(u, v) + (mo - lo) * np.maximum(u, v)) if triangular else lo + (hi - lo) * u
    np.testing.assert_allclose(got, plain, rtol=1e-15, atol=1e-15)
    assert (got >= lo).all() and (got <= hi).all()


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
