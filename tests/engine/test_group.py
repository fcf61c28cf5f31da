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


points_with_vetoes = arrays(float, st.tuples(st.integers(1, 6), st.integers(2, 8)),
                            elements=st.one_of(st.just(0.0), st.floats(1, 100)))


@settings(max_examples=120, deadline=None)
@given(points_with_vetoes)
def test_group_weights_sum_to_one_keep_vetoes_and_ratios_lie_between_the_participants(p):
    """True for any points, vetoes (zeros) included. Each group weight itself need not lie between the
    participants' weights (under a veto the others' share grows past everyone's: [[50, 50, 0], [40, 40, 20]]
    gives 0.5 > 0.4 and 0.5 = max; the normalisation can do the same without a veto), but the group's ratio of
    two criteria is the geometric mean of the participants' ratios (Aczél & Saaty's reciprocity), so it lies
    between the smallest and the largest of them."""
    g = aggregate(p)
    w = normalise_rows(p)
    active = w[w.sum(axis=1) > 0]
    assert (g.weights_fraction >= 0).all()
    if len(active) == 0:
        assert (g.weights_fraction == 0).all()
        return
    vetoed_by_someone = (active == 0).any(axis=0)
    # A zero from any active participant is a veto; every other criterion keeps a positive weight.
    assert ((g.weights_fraction == 0) == vetoed_by_someone).all()
    if vetoed_by_someone.all():
        assert (g.weights_fraction == 0).all()
        return
    np.testing.assert_allclose(g.weights_fraction.sum(), 1.0)
    kept = np.flatnonzero(~vetoed_by_someone)
    for j in kept:
        for k in kept:
            ratios = active[:, j] / active[:, k]
            group_ratio = g.weights_fraction[j] / g.weights_fraction[k]
            np.testing.assert_allclose(group_ratio, np.exp(np.log(ratios).mean()), rtol=1e-9)
            assert ratios.min() * (1 - 1e-9) <= group_ratio <= ratios.max() * (1 + 1e-9)
    # unanimity: if everyone agrees, the group says the same
    same = aggregate(np.repeat(active[:1], 3, axis=0))
    np.testing.assert_allclose(same.weights_fraction, active[0], rtol=1e-9)


def test_group_weights_can_lie_outside_the_participants_range():
    """Why the property test above is about ratios, by hand. A veto: [[50, 50, 0], [40, 40, 20]] gives
    (0.5, 0.5, 0), above the 0.4 of the participant who cast no veto. Without a veto, the normalisation:
    (0.98, 0.01, 0.01) and (0.01, 0.98, 0.01) have geometric means (0.099, 0.099, 0.01), sum 0.208, so the
    third criterion gets 0.01 / 0.208 = 0.048 although both participants gave it 0.01."""
    g = aggregate([[50, 50, 0], [40, 40, 20]])
    np.testing.assert_allclose(g.weights_fraction, [0.5, 0.5, 0.0])
    assert g.weights_fraction[0] > g.individual_fraction[1, 0] == 0.4
    g = aggregate([[98, 1, 1], [1, 98, 1]])
    gm = np.sqrt([0.98 * 0.01, 0.01 * 0.98, 0.01 * 0.01])
    np.testing.assert_allclose(g.weights_fraction, gm / gm.sum())
    assert g.weights_fraction[2] > g.max_fraction[2] == 0.01


@settings(max_examples=60, deadline=None)
@given(points, st.floats(0.1, 10))
def test_order_of_participants_and_scale_of_points_do_not_matter(p, factor):
    g = aggregate(p)
    np.testing.assert_allclose(aggregate(p[::-1]).weights_fraction, g.weights_fraction, rtol=1e-9)
    np.testing.assert_allclose(aggregate(p * factor).weights_fraction, g.weights_fraction, rtol=1e-9)
