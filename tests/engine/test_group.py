"""Group weighting: geometric-mean aggregation (Aczél & Saaty 1983) with hand cases and properties."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from engine.group import aggregate, normalise_rows


def test_two_participants_hand_computed():
    # w1 = (0.5, 0.5), w2 = (0.8, 0.2); gm = (sqrt(0.4), sqrt(0.1)) = (0.6325, 0.3162); normalised (2/3, 1/3)
    g = aggregate([[50, 50], [80, 20]])
    np.testing.assert_allclose(g.weights_fraction, [2 / 3, 1 / 3])
    np.testing.assert_allclose(g.min_fraction, [0.5, 0.2])
    np.testing.assert_allclose(g.max_fraction, [0.8, 0.5])
    # CV of (0.5, 0.8): std 0.15 / mean 0.65
    np.testing.assert_allclose(g.coefficient_of_variation[0], 0.15 / 0.65)


def test_a_zero_is_a_veto_and_is_flagged():
    g = aggregate([[50, 50, 0], [40, 40, 20]])
    assert g.weights_fraction[2] == 0 and g.vetoed.tolist() == [False, False, True]
    np.testing.assert_allclose(g.weights_fraction[:2], [0.5, 0.5])


def test_participants_without_any_weight_are_ignored():
    np.testing.assert_allclose(aggregate([[0, 0], [30, 10]]).weights_fraction, [0.75, 0.25])


points = arrays(float, st.tuples(st.integers(1, 6), st.integers(2, 8)), elements=st.floats(1, 100))


@settings(max_examples=80, deadline=None)
@given(points)
def test_group_weights_sum_to_one_and_lie_between_the_participants(p):
    g = aggregate(p)
    np.testing.assert_allclose(g.weights_fraction.sum(), 1.0)
    # unanimity: if everyone agrees, the group says the same
    same = aggregate(np.repeat(p[:1], 3, axis=0))
    np.testing.assert_allclose(same.weights_fraction, normalise_rows(p[:1])[0], rtol=1e-9)


@settings(max_examples=60, deadline=None)
@given(points, st.floats(0.1, 10))
def test_order_of_participants_and_scale_of_points_do_not_matter(p, factor):
    g = aggregate(p)
    np.testing.assert_allclose(aggregate(p[::-1]).weights_fraction, g.weights_fraction, rtol=1e-9)
    np.testing.assert_allclose(aggregate(p * factor).weights_fraction, g.weights_fraction, rtol=1e-9)
