"""Tests for engine.scoring: hand-computed and published rankings, T&S sensitivity (M3), the exact
stability intervals against a brute-force weight grid, the Monte Carlo against brute force, hypothesis
properties, the catalog boundary, presets, and the pymcdm cross-check."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine import scoring
from engine.adapters import build_decision_matrix
from engine.scoring import (
    CRITERIA,
    CRITERION_NAMES,
    PRESETS,
    Constraints,
    Method,
    MissingRule,
    Objective,
    Weights,
    apply_constraints,
    apply_missing_rule,
    contributions,
    critical_weight_changes,
    monte_carlo_weights,
    normalise_min_max,
    rank,
    rank_alternatives,
    topsis_scores,
    weight_stability_intervals,
    weighted_sum_scores,
)

PROPERTY = settings(max_examples=80, deadline=None)
MAX, MIN = Objective.MAX, Objective.MIN
TODAY = dt.date(2026, 12, 2)

# The 3 x 3 example used by the hand-computed tests.
#   criterion 0: price, MIN        column [2, 1, 2]
#   criterion 1: bandwidth, MAX    column [4, 0, 3]
#   criterion 2: a score, MAX      column [1, 2, 2]
X3 = np.array([[2.0, 4.0, 1.0], [1.0, 0.0, 2.0], [2.0, 3.0, 2.0]])
OBJ3 = np.array([MIN, MAX, MAX])
W3 = np.array([0.5, 0.25, 0.25])


# ---------------------------------------------------------------------------------------------------
# Hand-computed and published rankings
# ---------------------------------------------------------------------------------------------------


class TestWeightedSum:
    def test_wsm_hand_computed_3x3(self):
        # Min-max, benefit-oriented:
        #   price (MIN): (max - x)/(max - min) = (2 - x)/1       -> [0, 1, 0]
        #   bandwidth (MAX): (x - 0)/(4 - 0)                      -> [1, 0, 0.75]
        #   score (MAX): (x - 1)/(2 - 1)                          -> [0, 1, 1]
        # P = 0.5 a0 + 0.25 a1 + 0.25 a2:
        #   A0 = 0 + 0.25 + 0 = 0.25; A1 = 0.5 + 0 + 0.25 = 0.75; A2 = 0 + 0.1875 + 0.25 = 0.4375
        np.testing.assert_allclose(normalise_min_max(X3, OBJ3), [[0, 1, 0], [1, 0, 1], [0, 0.75, 1]])
        scores = weighted_sum_scores(X3, OBJ3, W3)
        np.testing.assert_allclose(scores, [0.25, 0.75, 0.4375])
        assert rank(scores).tolist() == [3, 1, 2]

    def test_contributions_sum_to_the_score(self):
        c = contributions(X3, OBJ3, W3)
        np.testing.assert_allclose(c.sum(axis=1), weighted_sum_scores(X3, OBJ3, W3))
        np.testing.assert_allclose(c[1], [0.5, 0.0, 0.25])  # A1 wins on price and the score

    def test_constant_column_scores_one_for_everyone_like_pymcdm(self):
        a = normalise_min_max([[1.0, 5.0], [2.0, 5.0]], [MAX, MIN])
        np.testing.assert_allclose(a[:, 1], [1.0, 1.0])

    def test_weight_samples_score_in_one_call(self):
        w = np.array([[0.5, 0.25, 0.25], [0.1, 0.8, 0.1]])
        s = weighted_sum_scores(X3, OBJ3, w)
        assert s.shape == (2, 3)
        for i in range(2):
            np.testing.assert_allclose(s[i], weighted_sum_scores(X3, OBJ3, w[i]))


class TestTopsis:
    def test_topsis_hand_computed_3x3(self):
        # Vector normalisation: norms sqrt(4+1+4) = 3, sqrt(16+0+9) = 5, sqrt(1+4+4) = 3
        #   r0 = [2/3, 1/3, 2/3], r1 = [0.8, 0, 0.6], r2 = [1/3, 2/3, 2/3]
        # Weighted v = w r: v0 = [1/3, 1/6, 1/3], v1 = [0.2, 0, 0.15], v2 = [1/12, 1/6, 1/6]
        # Ideal (price MIN): A+ = [1/6, 0.2, 1/6]; anti-ideal A- = [1/3, 0, 1/12]
        #   A0: S+ = sqrt((1/6)^2 + 0 + (1/12)^2) = sqrt(5)/12 = 0.186339; S- = sqrt(0 + 0.2^2 + 0) = 0.2
        #       C = 0.2 / 0.386339 = 0.517680
        #   A1: S+ = 0.2; S- = sqrt(5)/12 = 0.186339; C = 0.482320
        #   A2: S+ = sqrt((1/6)^2 + 0.05^2) = 0.174005; S- = sqrt(0.15^2 + (1/12)^2) = 0.171594
        #       C = 0.171594 / 0.345599 = 0.496512
        s5 = np.sqrt(5.0) / 12.0
        c0 = 0.2 / (0.2 + s5)
        sp2 = np.sqrt((1 / 6) ** 2 + 0.05**2)
        sm2 = np.sqrt(0.15**2 + (1 / 12) ** 2)
        expected = [c0, 1.0 - c0, sm2 / (sp2 + sm2)]
        scores = topsis_scores(X3, OBJ3, W3)
        np.testing.assert_allclose(scores, expected, rtol=1e-12)
        np.testing.assert_allclose(scores, [0.517680, 0.482320, 0.496512], atol=5e-6)
        # TOPSIS and the weighted sum disagree here: A0 is first for TOPSIS, last for the weighted sum.
        assert rank(scores).tolist() == [1, 3, 2]

    def test_topsis_matches_tzeng_huang_2011_example(self):
        """Tzeng & Huang (2011), Multiple Attribute Decision Making, CRC Press: TOPSIS worked example
        (as reproduced in scikit-criteria's ``test_TOPSIS_tzeng2011multiple``)."""
        x = [[5, 8, 4], [7, 6, 8], [8, 8, 6], [7, 4, 6]]
        scores = topsis_scores(x, [MAX, MAX, MAX], [0.3, 0.4, 0.3])
        np.testing.assert_allclose(scores, [0.5037, 0.6581, 0.7482, 0.3340], atol=1e-4)
        assert rank(scores).tolist() == [3, 2, 1, 4]

    def test_identical_alternatives_give_closeness_one_half(self):
        np.testing.assert_allclose(topsis_scores([[1.0, 2.0], [1.0, 2.0]], [MAX, MIN], [0.5, 0.5]), [0.5, 0.5])

    def test_weight_samples_score_in_one_call(self):
        w = np.array([[0.5, 0.25, 0.25], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]])
        for norm in ("vector", "min_max"):
            s = topsis_scores(X3, OBJ3, w, norm)
            assert s.shape == (3, 3)
            for i in range(3):
                np.testing.assert_allclose(s[i], topsis_scores(X3, OBJ3, w[i], norm))

    def test_raising_a_weight_can_lower_the_best_on_it_under_topsis(self):
        """The weight-monotonicity property holds for the weighted sum only (proof in the property test
        below). Counterexample for TOPSIS: A2 is best on criterion 0, yet raising w_0 from 1/3 to 0.6
        moves it from first to second."""
        x = [[8.0, 5.0, 4.0], [2.0, 9.0, 1.0], [9.0, 1.0, 8.0]]
        before = rank(topsis_scores(x, [MAX] * 3, [1 / 3] * 3))
        after = rank(topsis_scores(x, [MAX] * 3, [0.6, 0.2, 0.2]))
        assert (before[2], after[2]) == (1, 2)


class TestRank:
    def test_ties_share_the_better_rank(self):
        assert rank([0.5, 0.9, 0.5, 0.1]).tolist() == [2, 1, 2, 4]

    def test_ranks_each_row_of_a_sample_matrix(self):
        assert rank([[0.1, 0.2], [0.3, 0.0]]).tolist() == [[2, 1], [1, 2]]


# ---------------------------------------------------------------------------------------------------
# Sensitivity: exact intervals, T&S Theorem 1 (M3), brute force
# ---------------------------------------------------------------------------------------------------


def _top_holds(a: np.ndarray, w: np.ndarray, k: int, t: float, top: int) -> bool:
    """Brute force: with w_k = t and the others rescaled proportionally, is ``top`` still (tied) first?"""
    wt = w * (1 - t) / (1 - w[k]) if w[k] < 1 else np.full_like(w, (1 - t) / (len(w) - 1))
    wt[k] = t
    p = a @ wt
    return bool(p[top] >= p.max() - 1e-12)


class TestStabilityIntervals:
    def test_hand_computed_interval_of_the_price_weight(self):
        # Normalised matrix of X3 (see the WSM test). For k = 0 (w = 0.5) the others keep their 1:1 ratio:
        #   P0(t) = 0.5 (1 - t); P1(t) = t + 0.5 (1 - t); P2(t) = 0.875 (1 - t)
        # A1 >= A2  <=>  0.5 + 0.5 t >= 0.875 - 0.875 t  <=>  t >= 0.375 / 1.375 = 3/11
        # A1 >= A0  <=>  t >= 0: so the price weight may move in [3/11, 1]; A2 takes over below 3/11.
        a = normalise_min_max(X3, OBJ3)
        iv = weight_stability_intervals(a, W3)
        assert iv.top == 1
        assert iv.lower[0] == pytest.approx(3 / 11)
        assert iv.upper[0] == 1.0
        assert iv.lower_rival[0] == 2 and iv.upper_rival[0] == -1
        assert iv.lower_change_pct[0] == pytest.approx((3 / 11 - 0.5) / 0.5 * 100)

    @pytest.mark.parametrize("seed", range(6))
    def test_interval_matches_a_brute_force_weight_grid(self, seed):
        rng = np.random.default_rng(seed)
        a = normalise_min_max(rng.random((7, 4)), rng.choice([MIN, MAX], 4))
        w = rng.dirichlet(np.ones(4))
        iv = weight_stability_intervals(a, w)
        grid = np.linspace(0.0, 1.0, 2001)
        for k in range(4):
            holds = np.array([_top_holds(a, w, k, t, iv.top) for t in grid])
            inside = (grid > iv.lower[k] + 1e-9) & (grid < iv.upper[k] - 1e-9)
            outside = (grid < iv.lower[k] - 1e-9) | (grid > iv.upper[k] + 1e-9)
            assert holds[inside].all()
            assert not holds[outside].any()
            assert iv.lower[k] <= w[k] <= iv.upper[k]

    def test_a_weight_of_one_lets_the_others_share_equally(self):
        a = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]])
        iv = weight_stability_intervals(a, [1.0, 0.0, 0.0])
        # P0(t) = t, P1(t) = (1 - t)(1 + 1)/2 = 1 - t: A0 stays first for t >= 0.5
        assert iv.top == 0 and iv.lower[0] == pytest.approx(0.5) and iv.upper[0] == 1.0


class TestCriticalChanges:
    def test_m3_infeasible_weight_flip_is_reported_as_infeasible_not_zero(self):
        """Domain-model M3 (Triantaphyllou & Sanchez 1997, Theorem 1): when (P_j - P_i)/(a_jk - a_ik) > W_k
        no change of W_k reverses the pair; the engine reports "infeasible" (sensitivity 0), not 0 %."""
        a = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
        w = np.array([0.45, 0.45, 0.10])
        # P_top = 0.9, P_j = 0.1. Criterion 0: (0.1 - 0.9)/(0 - 1) = 0.8 > W_0 = 0.45 -> infeasible.
        cc = critical_weight_changes(a, w)
        assert cc.top == 0
        assert not cc.feasible[1, 0] and not cc.feasible[1, 1]
        assert np.isnan(cc.percent[1, 0]) and cc.sensitivity[1, 0] == 0.0
        # Criterion 2: (0.1 - 0.9)/(1 - 0) = -0.8 -> raise W_2 by 0.8 (delta' = -800 %), always feasible.
        assert cc.feasible[1, 2]
        assert cc.delta[1, 2] == pytest.approx(-0.8)
        assert cc.percent[1, 2] == pytest.approx(-800.0)
        assert cc.percent_top == pytest.approx(800.0) and cc.critical == (1, 2)
        # Same answer from the intervals: cutting W_0 to 0 never unseats the top; W_2 may rise to 0.5,
        # which is W_2* = 0.1 + 0.8 = 0.9 re-normalised: 0.9 / (1 + 0.8) = 0.5.
        iv = weight_stability_intervals(a, w)
        assert iv.lower[0] == 0.0 and iv.lower_rival[0] == -1
        assert iv.upper[2] == pytest.approx(0.5) and iv.upper_rival[2] == 1

    def test_relative_change_is_delta_over_weight_as_in_ts_1997(self):
        # T&S's own arithmetic: W1 0.30 -> 0.35 is a 16.67 % change (delta = -0.05).
        a = np.array([[1.0, 0.0], [0.0, 1.0]])
        w = np.array([0.35, 0.65])
        # top = A1 (0.65 vs 0.35); criterion 0: (0.35 - 0.65)/(1 - 0) = -0.30 -> raise W_0 by 0.30.
        cc = critical_weight_changes(a, w)
        assert cc.percent[0, 0] == pytest.approx(-0.30 * 100 / 0.35)
        # T&S's example through the engine: W = (0.30, 0.70); A1 = (0, 1) scores 0.70, A2 = (1, 0.5) scores
        # 0.30 + 0.35 = 0.65. Raising W1 by 0.05 (to 0.35) ties them: delta = (0.70 - 0.65)/(0 - 1) = -0.05,
        # a change of 0.05 / 0.30 = 16.67 % of W1.
        ts = critical_weight_changes(np.array([[0.0, 1.0], [1.0, 0.5]]), np.array([0.30, 0.70]))
        assert ts.top == 0 and ts.feasible[1, 0]
        assert ts.delta[1, 0] == pytest.approx(-0.05)
        assert ts.percent[1, 0] == pytest.approx(-16.67, abs=0.005)

    @pytest.mark.parametrize("seed", range(4))
    def test_ts_thresholds_map_onto_the_interval_ends(self, seed):
        # W_k* = W_k - delta re-normalised is t = (W_k - delta)/(1 - delta): the critical rival's threshold
        # lands on the interval end that rival sets.
        rng = np.random.default_rng(100 + seed)
        a = normalise_min_max(rng.random((6, 3)), [MAX, MIN, MAX])
        w = rng.dirichlet(np.ones(3))
        cc = critical_weight_changes(a, w)
        iv = weight_stability_intervals(a, w)
        for k in range(3):
            for rival, end in ((iv.lower_rival[k], iv.lower[k]), (iv.upper_rival[k], iv.upper[k])):
                if rival >= 0:
                    d = cc.delta[rival, k]
                    assert cc.feasible[rival, k]
                    assert (w[k] - d) / (1 - d) == pytest.approx(end)


# ---------------------------------------------------------------------------------------------------
# Monte Carlo
# ---------------------------------------------------------------------------------------------------


def _brute_force_rank_probability(x, obj, samples, method, depth):
    s = weighted_sum_scores(x, obj, samples) if method == Method.WSM else topsis_scores(x, obj, samples)
    r = rank(s)
    return np.stack([(r == k + 1).mean(axis=0) for k in range(depth)], axis=1)


class TestMonteCarlo:
    @pytest.mark.parametrize("method", list(Method))
    @pytest.mark.parametrize("depth", [None, 2])
    def test_matches_brute_force_ranking_of_every_sample(self, method, depth):
        rng = np.random.default_rng(7)
        x = rng.integers(1, 6, (40, 4)).astype(float)
        x[5] = x[9]  # a duplicate: both must tie and share the rank
        obj = np.array([MIN, MAX, MAX, MIN])
        w = np.array([0.4, 0.3, 0.2, 0.1])
        mc = monte_carlo_weights(x, obj, w, n_samples=300, seed=11, method=method, rank_depth=depth)
        d = 40 if depth is None else depth
        expected = _brute_force_rank_probability(x, obj, mc.weight_samples, method, d)
        np.testing.assert_allclose(mc.rank_probability, expected)
        np.testing.assert_allclose(mc.rank_probability[5], mc.rank_probability[9])

    @pytest.mark.parametrize("method", list(Method))
    def test_alternatives_equal_on_every_weighted_criterion_tie_and_share_the_better_rank(self, method):
        rng = np.random.default_rng(8)
        x = rng.integers(1, 6, (30, 4)).astype(float)
        x[7, :3] = x[3, :3]
        x[7, 3] = x[3, 3] + 1.0  # differs only on the criterion with weight 0: not a duplicate row
        obj = np.array([MIN, MAX, MAX, MAX])
        w = np.array([0.5, 0.3, 0.2, 0.0])
        mc = monte_carlo_weights(x, obj, w, n_samples=300, seed=2, method=method, rank_depth=None)
        expected = _brute_force_rank_probability(x, obj, mc.weight_samples, method, 30)
        np.testing.assert_allclose(mc.rank_probability, expected)
        np.testing.assert_allclose(mc.rank_probability[3], mc.rank_probability[7])

    def test_same_seed_same_result(self):
        rng = np.random.default_rng(1)
        x = rng.random((30, 3))
        a = monte_carlo_weights(x, [MAX] * 3, [0.2, 0.3, 0.5], n_samples=200, seed=5)
        b = monte_carlo_weights(x, [MAX] * 3, [0.2, 0.3, 0.5], n_samples=200, seed=5)
        np.testing.assert_array_equal(a.rank_probability, b.rank_probability)

    def test_probabilities_of_first_sum_to_one_without_duplicates(self):
        rng = np.random.default_rng(2)
        mc = monte_carlo_weights(rng.random((50, 4)), [MAX] * 4, [0.25] * 4, n_samples=500, method="topsis")
        assert mc.p_first.sum() == pytest.approx(1.0)
        np.testing.assert_allclose(mc.rank_probability.sum(axis=1) + mc.p_beyond_depth, 1.0)

    def test_high_concentration_keeps_the_chosen_winner(self):
        rng = np.random.default_rng(3)
        x = rng.random((20, 3))
        w = np.array([0.5, 0.3, 0.2])
        top = int(np.argmax(weighted_sum_scores(x, [MAX] * 3, w)))
        mc = monte_carlo_weights(x, [MAX] * 3, w, concentration=1e7, n_samples=100)
        assert mc.p_first[top] == 1.0

    def test_zero_weights_stay_zero_and_full_depth_gives_expected_rank(self):
        x = np.array([[1.0, 0.0, 5.0], [0.0, 1.0, 1.0], [0.5, 0.5, 0.0]])
        mc = monte_carlo_weights(x, [MAX] * 3, [0.5, 0.5, 0.0], n_samples=400, rank_depth=None)
        assert (mc.weight_samples[:, 2] == 0).all()
        assert mc.expected_rank is not None and mc.expected_rank.shape == (3,)
        pct = mc.rank_percentiles((50.0,))
        assert pct.shape == (3, 1) and np.isfinite(pct).all()

    def test_missing_values_are_refused(self):
        with pytest.raises(ValueError, match="missing-data rule"):
            monte_carlo_weights([[np.nan, 1.0], [1.0, 2.0]], [MAX, MAX], [0.5, 0.5])


# ---------------------------------------------------------------------------------------------------
# Hypothesis properties
# ---------------------------------------------------------------------------------------------------


@st.composite
def decision_problems(draw, min_alternatives=2, max_alternatives=7):
    """A matrix of integers 1..20 (well-separated floats), objectives and weight points 0..10."""
    n = draw(st.integers(min_alternatives, max_alternatives))
    m = draw(st.integers(2, 5))
    x = np.array(draw(st.lists(st.lists(st.integers(1, 20), min_size=m, max_size=m), min_size=n, max_size=n)),
                 dtype=float)
    obj = np.array(draw(st.lists(st.sampled_from([MIN, MAX]), min_size=m, max_size=m)))
    points = np.array(draw(st.lists(st.integers(0, 10), min_size=m, max_size=m)), dtype=float)
    assume(points.sum() > 0)
    return x, obj, points / points.sum()


class TestProperties:
    @PROPERTY
    @given(decision_problems(), st.data())
    def test_raising_a_weight_never_lowers_the_best_on_that_criterion_wsm(self, problem, data):
        # D_i(t) = P_b(t) - P_i(t) is linear in t and D_i(1) = a_bk - a_ik >= 0, so once b is ahead of
        # (or tied with) i it stays so as t grows: b's rank can only improve.
        x, obj, w = problem
        k = data.draw(st.integers(0, len(w) - 1))
        assume(w[k] < 1.0)
        a = normalise_min_max(x, obj)
        b = int(np.argmax(a[:, k]))
        t = data.draw(st.floats(min_value=float(w[k]), max_value=1.0))
        w2 = w * (1 - t) / (1 - w[k])
        w2[k] = t
        s1, s2 = weighted_sum_scores(x, obj, w), weighted_sum_scores(x, obj, w2)
        ahead_before = int((s1 > s1[b] + 1e-9).sum())
        ahead_after = int((s2 > s2[b] + 1e-9).sum())
        assert ahead_after <= ahead_before

    @PROPERTY
    @given(decision_problems(min_alternatives=2), st.data(), st.sampled_from(list(Method)))
    def test_a_dominated_alternative_never_ranks_first(self, problem, data, method):
        x, obj, w = problem
        n, m = x.shape
        i, j = data.draw(st.permutations(range(n)))[:2]
        # i copies j, then gets worse on some criteria, strictly on at least one weighted criterion.
        worse = np.array(data.draw(st.lists(st.integers(0, 4), min_size=m, max_size=m)), dtype=float)
        k = data.draw(st.sampled_from(np.flatnonzero(w > 0).tolist()))
        worse[k] = max(worse[k], 1.0)
        x = x.copy()
        x[j] += 5.0  # keeps x[i] positive after worsening a MAX criterion
        x[i] = np.where(obj == MAX, x[j] - worse, x[j] + worse)
        scores = weighted_sum_scores(x, obj, w) if method is Method.WSM else topsis_scores(x, obj, w)
        assert scores[j] > scores[i]
        assert rank(scores)[i] > 1

    @PROPERTY
    @given(
        st.lists(
            st.tuples(
                st.sampled_from([True, False, None]),
                st.sampled_from(["EU", "US", "UK", "other", None, "unknown"]),
                st.sampled_from(["InfiniBand-NDR", "InfiniBand-HDR", "RoCEv2", "Ethernet", "none", None]),
                st.sampled_from(["SXM", "PCIe", "OAM", None]),
                st.one_of(st.none(), st.floats(0.1, 10.0)),
                st.sampled_from(["NL", "DE", "US", "GB", None]),
                st.sampled_from(["ISO27001;SOC2", "SOC2", "ISO27001", "BSI-C5;ISO27001", None]),
            ),
            min_size=1,
            max_size=25,
        ),
        st.builds(
            Constraints,
            eu_resident_only=st.booleans(),
            eu_jurisdiction_only=st.booleans(),
            infiniband_only=st.booleans(),
            sxm_only=st.booleans(),
            max_price_eur_per_gpu_hour=st.one_of(st.none(), st.floats(0.5, 8.0)),
            eu_legal_seat_only=st.booleans(),
            required_certifications=st.sampled_from([(), ("ISO27001",), ("ISO27001", "BSI-C5"), ("SOC2",)]),
        ),
    )
    def test_constraints_never_let_a_violating_alternative_through(self, rows, constraints):
        cols = list(zip(*rows, strict=True))
        attrs = {
            "is_eu_datacenter": cols[0], "parent_jurisdiction": cols[1], "inter_node": cols[2],
            "form_factor": cols[3], "price_eur_per_gpu_hour": [np.nan if p is None else p for p in cols[4]],
            "legal_seat_country": cols[5], "certifications": cols[6],
        }
        keep, why = apply_constraints(attrs, constraints)
        assert set(np.flatnonzero(~keep).tolist()) == set(why)
        for i in np.flatnonzero(keep):
            eu, jur, fabric, form, price, seat, certs = rows[i]
            if constraints.eu_legal_seat_only:
                assert seat in ("NL", "DE")
            held = set((certs or "").split(";"))
            assert all(c in held for c in constraints.required_certifications)
            if constraints.eu_resident_only:
                assert eu is True
            if constraints.eu_jurisdiction_only:
                assert jur == "EU"
            if constraints.infiniband_only:
                assert fabric in ("InfiniBand-NDR", "InfiniBand-HDR")
            if constraints.sxm_only:
                assert form == "SXM"
            if constraints.max_price_eur_per_gpu_hour is not None:
                assert price is not None and price <= constraints.max_price_eur_per_gpu_hour
        if not constraints.active():
            assert keep.all()

    @PROPERTY
    @given(decision_problems(), st.data())
    def test_missing_values_never_score_above_an_observed_value(self, problem, data):
        x, obj, w = problem
        holes = np.array(data.draw(st.lists(st.booleans(), min_size=x.size, max_size=x.size))).reshape(x.shape)
        xm = np.where(holes, np.nan, x)
        out = apply_missing_rule(xm, obj, w, MissingRule.WORST)
        a = normalise_min_max(out.values, obj)
        for j in range(x.shape[1]):
            observed = ~holes[:, j]
            if observed.any() and holes[:, j].any():
                assert a[holes[:, j], j].max() <= a[observed, j].min() + 1e-12
        assert not np.isnan(out.values).any()
        out_x = apply_missing_rule(xm, obj, w, MissingRule.EXCLUDE)
        assert not np.isnan(out_x.values[:, w > 0]).any()
        assert set(np.flatnonzero(~out_x.keep).tolist()) == set(out_x.reasons)

    @PROPERTY
    @given(decision_problems(), st.sampled_from(list(Method)))
    def test_scores_lie_in_unit_interval_and_ranks_are_a_competition_ranking(self, problem, method):
        x, obj, w = problem
        s = weighted_sum_scores(x, obj, w) if method is Method.WSM else topsis_scores(x, obj, w)
        assert s.shape == (x.shape[0],)
        assert ((s >= -1e-12) & (s <= 1 + 1e-12)).all()
        r = rank(s)
        assert r.min() == 1 and (r <= len(s)).all()


# ---------------------------------------------------------------------------------------------------
# Inputs: weights and constraints
# ---------------------------------------------------------------------------------------------------


class TestWeights:
    def test_normalised_to_sum_one_in_criterion_order(self):
        w = Weights(values={"data_age_days": 1, "price_eur_per_gpu_hour": 3})
        arr = w.as_array()
        assert arr.sum() == pytest.approx(1.0)
        assert arr[CRITERION_NAMES.index("price_eur_per_gpu_hour")] == pytest.approx(0.75)

    @pytest.mark.parametrize(
        "values, message",
        [
            ({"price_eur_per_gpu_hour": -1.0}, "finite and >= 0"),
            ({"price_eur_per_gpu_hour": float("nan")}, "finite and >= 0"),
            ({"price_eur_per_gpu_hour": 0.0}, "at least one weight"),
            ({"prize": 1.0}, "unknown criteria"),
        ],
    )
    def test_invalid_weights_are_rejected(self, values, message):
        with pytest.raises(ValueError, match=message):
            Weights(values=values)

    def test_negative_max_price_is_rejected(self):
        with pytest.raises(ValueError):
            Constraints(max_price_eur_per_gpu_hour=-1.0)


class TestConstraints:
    def test_not_stated_fact_excludes_with_reason(self):
        keep, why = apply_constraints(
            {"inter_node": ["InfiniBand-NDR", None, "Ethernet", "none"]}, Constraints(infiniband_only=True)
        )
        assert keep.tolist() == [True, False, False, False]
        assert why[1] == ("inter-node fabric: not stated",)
        assert why[2] == ("inter-node fabric: Ethernet, not InfiniBand",)

    def test_every_failed_constraint_is_listed(self):
        attrs = {
            "is_eu_datacenter": [None], "parent_jurisdiction": ["US"], "inter_node": [None],
            "form_factor": ["PCIe"], "price_eur_per_gpu_hour": [np.nan],
        }
        c = Constraints(eu_resident_only=True, eu_jurisdiction_only=True, infiniband_only=True, sxm_only=True,
                        max_price_eur_per_gpu_hour=2.0)
        _, why = apply_constraints(attrs, c)
        assert why[0] == (
            "EU data centre: not stated", "parent jurisdiction: US, not EU", "inter-node fabric: not stated",
            "form factor: PCIe, not SXM", "price: not stated",
        )

    def test_accepts_a_catalog_dataframe_with_a_price_column(self):
        pd = pytest.importorskip("pandas")
        df = pd.DataFrame({"form_factor": ["SXM", "PCIe", None], "price_eur_per_gpu_hour": [2.0, 1.0, np.nan]})
        keep, why = apply_constraints(df, Constraints(sxm_only=True, max_price_eur_per_gpu_hour=3.0))
        assert keep.tolist() == [True, False, False]
        assert why[2] == ("form factor: not stated", "price: not stated")
        assert apply_constraints(df, Constraints())[0].tolist() == [True, True, True]

    def test_legal_seat_and_certifications_exclude_with_reasons(self):
        attrs = {
            "legal_seat_country": ["NL", "US", None, "GB", "DE"],
            "certifications": ["ISO27001;SOC2", "ISO27001", None, "ISO27001;BSI-C5", "BSI-C5"],
        }
        keep, why = apply_constraints(attrs, Constraints(eu_legal_seat_only=True,
                                                         required_certifications=("ISO27001",)))
        assert keep.tolist() == [True, False, False, False, False]
        assert why[1] == ("legal seat: US, outside the EU/EEA",)
        assert why[2] == ("legal seat: not stated", "certifications: none on record")
        assert why[3] == ("legal seat: GB, outside the EU/EEA",)  # the UK left the EU
        assert why[4] == ("certifications: ISO27001 not on record",)
        both = Constraints(required_certifications=("ISO27001", "BSI-C5"))
        assert apply_constraints(attrs, both)[0].tolist() == [False, False, False, True, False]
        assert Constraints(required_certifications=()).active() == ()

    def test_one_eu_eea_list_for_the_catalog_and_the_engine(self):
        from catalog import rules
        from catalog.models import EU_EEA_COUNTRIES
        from domain.geography import EU_EEA_COUNTRY_CODES as ONE_LIST
        from engine.scoring import EU_EEA_COUNTRY_CODES

        assert EU_EEA_COUNTRY_CODES is EU_EEA_COUNTRIES is rules.EU_EEA is ONE_LIST  # one object, not copies
        assert len(ONE_LIST) == 27 + 3 and {"IS", "LI", "NO", "IE", "CY", "HR"} <= ONE_LIST
        assert not {"GB", "UK", "CH", "EU"} & ONE_LIST

    def test_missing_column_for_an_active_constraint_raises(self):
        with pytest.raises(KeyError, match="form_factor"):
            apply_constraints({"inter_node": ["none"]}, Constraints(sxm_only=True))


# ---------------------------------------------------------------------------------------------------
# Catalog boundary, end-to-end result, presets
# ---------------------------------------------------------------------------------------------------


def _rows():
    base = {"provider_name": "P", "gpu_model": "H100", "region": "r", "as_of": "2026-11-01",
            "price_retrieved_at": "2026-11-01", "verification_status": "claimed", "form_factor": "SXM"}
    return [
        {**base, "offer_id": "cheap-us", "on_demand_eur_per_gpu_hour": 2.0, "parent_jurisdiction": "US",
         "is_eu_datacenter": False, "inter_node": "InfiniBand-NDR", "uptime_sla_pct": 99.9},
        {**base, "offer_id": "eu-ib", "on_demand_eur_per_gpu_hour": 3.0, "parent_jurisdiction": "EU",
         "is_eu_datacenter": True, "inter_node": "InfiniBand-HDR", "uptime_sla_pct": 99.99},
        {**base, "offer_id": "eu-eth", "on_demand_eur_per_gpu_hour": 2.5, "parent_jurisdiction": "EU",
         "is_eu_datacenter": True, "inter_node": "Ethernet"},
        {**base, "offer_id": "eu-unknown-dc", "on_demand_eur_per_gpu_hour": 1.0, "parent_jurisdiction": "EU",
         "is_eu_datacenter": None, "inter_node": "InfiniBand-NDR", "uptime_sla_pct": 99.99},
    ]


class TestDecisionMatrix:
    def test_builds_units_and_keeps_missing_as_nan(self):
        dm = build_decision_matrix(_rows(), reference_date=TODAY)
        col = CRITERION_NAMES.index
        assert dm.values.shape == (4, len(CRITERIA))
        np.testing.assert_allclose(dm.values[:, col("price_eur_per_gpu_hour")], [2.0, 3.0, 2.5, 1.0])
        np.testing.assert_allclose(dm.values[:2, col("allowed_downtime_hours_per_year")], [8.76, 0.876])
        assert np.isnan(dm.values[2, col("allowed_downtime_hours_per_year")])  # no SLA stated: missing, not 0
        assert dm.missing[:, col("support_score")].all()  # support_model absent: missing
        np.testing.assert_allclose(dm.values[:, col("inter_node_fabric_score")], [1.0, 0.5, 0.4, 1.0])
        np.testing.assert_allclose(dm.values[:, col("data_age_days")], 31.0)
        assert dm.attributes["is_eu_datacenter"].tolist() == [False, True, True, None]

    def test_cheapest_price_basis_takes_the_lowest_stated_price(self):
        rows = [{"offer_id": "a", "on_demand_eur_per_gpu_hour": 3.0, "spot_eur_per_gpu_hour": 1.2},
                {"offer_id": "b"}]
        dm = build_decision_matrix(rows, price_basis="cheapest", reference_date=TODAY)
        price = dm.values[:, CRITERION_NAMES.index("price_eur_per_gpu_hour")]
        assert price[0] == 1.2 and np.isnan(price[1])

    def test_no_fabric_means_zero_inter_node_bandwidth_not_missing(self):
        dm = build_decision_matrix([{"offer_id": "a", "inter_node": "none"}], reference_date=TODAY)
        assert dm.values[0, CRITERION_NAMES.index("inter_node_bandwidth_gbps_per_gpu")] == 0.0

    def test_unmapped_category_raises(self):
        with pytest.raises(ValueError, match="no scoring mapping"):
            build_decision_matrix([{"offer_id": "a", "inter_node": "Omni-Path"}], reference_date=TODAY)

    def test_every_catalog_category_has_a_documented_number(self):
        from catalog import models

        pairs = [
            (models.IntraNode, scoring.INTRA_NODE_SCORE), (models.InterNode, scoring.INTER_NODE_SCORE),
            (models.MemoryType, scoring.MEMORY_TYPE_SCORE), (models.SupportModel, scoring.SUPPORT_SCORE),
            (models.Jurisdiction, scoring.JURISDICTION_SCORE), (models.TriState, scoring.YES_NO_SCORE),
            (models.MinCommitment, scoring.MIN_COMMITMENT_MONTHS), (models.Verification, scoring.VERIFICATION_SCORE),
        ]
        for enum_cls, mapping in pairs:
            assert {e.value for e in enum_cls} - scoring.NOT_STATED == set(mapping), enum_cls.__name__

    def test_builds_from_the_seed_catalog(self, store):
        df = store.list_offers(usd_per_eur=1.0411, today=TODAY)
        dm = build_decision_matrix(df, reference_date=TODAY)
        assert dm.values.shape == (len(df), len(CRITERIA))
        assert len(set(dm.ids)) == len(df)
        # 'unknown' categories are missing, never zero
        unknown_support = (df["support_model"] == "unknown").to_numpy()
        assert dm.missing[unknown_support, CRITERION_NAMES.index("support_score")].all()
        for preset in PRESETS.values():
            res = rank_alternatives(dm, preset.weights(), constraints=preset.constraints)
            assert len(res.ids) + len(res.excluded) == len(df)


class TestRankAlternatives:
    def test_constraints_are_reported_and_never_ranked(self):
        dm = build_decision_matrix(_rows(), reference_date=TODAY)
        c = Constraints(eu_resident_only=True, infiniband_only=True)
        res = rank_alternatives(dm, {"price_eur_per_gpu_hour": 1.0}, constraints=c)
        assert res.ids == ("eu-ib",)
        reasons = {e.id: e.reasons for e in res.excluded}
        assert reasons["eu-unknown-dc"] == ("EU data centre: not stated",)
        assert reasons["eu-eth"] == ("inter-node fabric: Ethernet, not InfiniBand",)
        assert reasons["cheap-us"] == ("EU data centre: no (outside the EU/EEA)",)
        assert any(a.name == "constraints" and "infiniband_only" in a.value for a in res.assumptions)

    def test_missing_rule_is_applied_and_reported(self):
        dm = build_decision_matrix(_rows(), reference_date=TODAY)
        w = {"price_eur_per_gpu_hour": 1.0, "allowed_downtime_hours_per_year": 1.0}
        worst = rank_alternatives(dm, w)
        assert worst.missing_rule is MissingRule.WORST
        j = CRITERION_NAMES.index("allowed_downtime_hours_per_year")
        assert worst.fill_values[j] == pytest.approx(8.76)  # worst observed, 99.9 %
        assert np.isnan(worst.values[worst.ids.index("eu-eth"), j])  # shown as missing
        excl = rank_alternatives(dm, w, missing="exclude")
        assert "eu-eth" not in excl.ids
        assert [e.stage for e in excl.excluded] == ["missing data"]

    def test_wsm_result_explains_and_topsis_result_has_no_additive_parts(self):
        dm = build_decision_matrix(_rows(), reference_date=TODAY)
        w = {"price_eur_per_gpu_hour": 2.0, "inter_node_fabric_score": 1.0, "allowed_downtime_hours_per_year": 1.0}
        wsm = rank_alternatives(dm, w)
        assert wsm.top == "eu-unknown-dc"
        np.testing.assert_allclose(wsm.contributions.sum(axis=1), wsm.scores)
        assert wsm.stability is not None and wsm.critical is not None
        topsis = rank_alternatives(dm, w, method="topsis")
        assert topsis.method is Method.TOPSIS and topsis.contributions is None and topsis.stability is None

    def test_nothing_passes_gives_an_empty_ranking_with_every_reason(self):
        dm = build_decision_matrix(_rows(), reference_date=TODAY)
        res = rank_alternatives(dm, {"price_eur_per_gpu_hour": 1.0}, constraints=Constraints(sxm_only=True,
                                max_price_eur_per_gpu_hour=0.5))
        assert res.ids == () and res.top is None and len(res.excluded) == 4
        assert res.uninformative == ()

    def test_set_dependence_names_offers_whose_removal_changes_the_top(self):
        # Weights: price 0.6, memory bandwidth 0.4.
        #   a0 price 1.0 bw 2.5; a1 price 1.3 bw 3.35; a2 price 9.0 bw 2.0
        # With a2: price (9 - x)/8 -> a0 1, a1 0.9625; bw (x - 2)/1.35 -> a0 0.370, a1 1
        #   a0 = 0.6 + 0.4 x 0.370 = 0.748; a1 = 0.6 x 0.9625 + 0.4 = 0.9775 -> a1 first
        # Without a2 the ranges shrink to a0..a1: a0 = 0.6, a1 = 0.4 -> a0 first (rank reversal).
        rows = [
            {"offer_id": "a0", "on_demand_eur_per_gpu_hour": 1.0, "memory_bandwidth_tbps": 2.5},
            {"offer_id": "a1", "on_demand_eur_per_gpu_hour": 1.3, "memory_bandwidth_tbps": 3.35},
            {"offer_id": "a2", "on_demand_eur_per_gpu_hour": 9.0, "memory_bandwidth_tbps": 2.0},
        ]
        dm = build_decision_matrix(rows, reference_date=TODAY)
        res = rank_alternatives(dm, {"price_eur_per_gpu_hour": 0.6, "memory_bandwidth_tbps": 0.4})
        assert res.top == "a1"
        assert res.set_dependent_on == ("a2",)


class TestPresets:
    def test_the_four_presets_exist_with_valid_weights(self):
        assert set(PRESETS) == {
            "Sovereign training cluster", "Cheapest inference", "Start-up burst capacity", "Regulated enterprise",
        }
        for p in PRESETS.values():
            assert p.weights().as_array().sum() == pytest.approx(1.0)

    def test_sovereign_preset_constrains_residency_jurisdiction_and_fabric(self):
        c = PRESETS["Sovereign training cluster"].constraints
        assert c.eu_resident_only and c.eu_jurisdiction_only and c.infiniband_only


# ---------------------------------------------------------------------------------------------------
# Cross-check with the peer library (dev-only dependency)
# ---------------------------------------------------------------------------------------------------


class TestPymcdmCrossCheck:
    @pytest.fixture(autouse=True)
    def _pymcdm(self):
        pytest.importorskip("pymcdm", reason="pymcdm (dev-only peer library) is not installed")

    @pytest.mark.parametrize("seed", range(5))
    def test_weighted_sum_matches_pymcdm_wsm_with_min_max(self, seed):
        from pymcdm.helpers import rankdata
        from pymcdm.methods import WSM
        from pymcdm.normalizations import minmax_normalization

        x, obj, w = _random_problem(seed)
        theirs = WSM(minmax_normalization)(x, w, obj)
        ours = weighted_sum_scores(x, obj, w)
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(rank(ours), rankdata(theirs, reverse=True))

    @pytest.mark.parametrize("seed", range(5))
    @pytest.mark.parametrize("norm", ["vector", "min_max"])
    def test_topsis_matches_pymcdm_topsis(self, seed, norm):
        from pymcdm.helpers import rankdata
        from pymcdm.methods import TOPSIS
        from pymcdm.normalizations import minmax_normalization, vector_normalization

        x, obj, w = _random_problem(seed)
        # pymcdm's vector normalisation of a cost column is 1 - r, which moves ideal and anti-ideal
        # with it: the distances, and so the closeness, equal classical TOPSIS.
        fn = vector_normalization if norm == "vector" else minmax_normalization
        theirs = TOPSIS(fn)(x, w, obj)
        ours = topsis_scores(x, obj, w, norm)
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
        np.testing.assert_array_equal(rank(ours), rankdata(theirs, reverse=True))

    def test_seed_catalog_preset_ranking_matches_pymcdm(self, store):
        from pymcdm.helpers import rankdata
        from pymcdm.methods import TOPSIS, WSM
        from pymcdm.normalizations import minmax_normalization, vector_normalization

        dm = build_decision_matrix(store.list_offers(usd_per_eur=1.0411, today=TODAY), reference_date=TODAY)
        weights = PRESETS["Cheapest inference"].weights()
        res = rank_alternatives(dm, weights)
        # pymcdm wants positive weights, and its vector normalisation non-zero columns.
        informative = (np.ptp(res.filled, axis=0) > 0) & (res.weights > 0)
        x, obj, w = res.filled[:, informative], res.objectives[informative], res.weights[informative]
        w = w / w.sum()
        wsm = WSM(minmax_normalization)(x, w, obj)
        np.testing.assert_allclose(weighted_sum_scores(x, obj, w), wsm, rtol=1e-12, atol=1e-12)
        _assert_same_order(res.scores, wsm)
        topsis = TOPSIS(vector_normalization)(x, w, obj)
        ours = topsis_scores(x, obj, w)
        np.testing.assert_allclose(ours, topsis, rtol=1e-10, atol=1e-12)
        _assert_same_order(ours, topsis)
        # rankdata gives tied alternatives their average rank; ours gives them the better one.
        assert (rank(ours) <= rankdata(topsis, reverse=True)).all()


def _assert_same_order(ours: np.ndarray, theirs: np.ndarray, tol: float = 1e-9) -> None:
    """Every pair that the peer library separates by more than ``tol`` is ordered the same way by us."""
    d_theirs = theirs[:, None] - theirs[None, :]
    d_ours = ours[:, None] - ours[None, :]
    separated = np.abs(d_theirs) > tol
    assert (np.sign(d_ours[separated]) == np.sign(d_theirs[separated])).all()


def _random_problem(seed: int):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(4, 30)), int(rng.integers(2, 8))
    x = rng.uniform(0.1, 100.0, (n, m))
    obj = rng.choice([-1, 1], m)
    w = rng.dirichlet(np.ones(m))
    return x, obj, w


# ---------------------------------------------------------------------------------------------------
# Issue 14 item 3: "not stated" never equals the best value; inert criteria are reported, not counted
# ---------------------------------------------------------------------------------------------------


class TestMissingAndInert:
    def test_one_observed_value_does_not_make_not_stated_the_best(self):
        # Uptime SLA stated (99.9 %) by one offer only; the other does not state it. Filling with the worst
        # observed value (the only one) would score both 1.0 on the criterion.
        rows = [{"offer_id": "stated", "on_demand_eur_per_gpu_hour": 2.0, "uptime_sla_pct": 99.9},
                {"offer_id": "silent", "on_demand_eur_per_gpu_hour": 2.0}]
        res = rank_alternatives(build_decision_matrix(rows, reference_date=TODAY),
                                {"allowed_downtime_hours_per_year": 1.0})
        j = CRITERION_NAMES.index("allowed_downtime_hours_per_year")
        scores = dict(zip(res.ids, res.scores, strict=True))
        assert scores["stated"] > scores["silent"]
        assert res.normalised[res.ids.index("silent"), j] == 0.0
        assert res.stated_vs_not == ("allowed_downtime_hours_per_year",)
        assert res.uninformative == ()
        assert np.isnan(res.values[res.ids.index("silent"), j])  # shown as not stated, not as a number

    @PROPERTY
    @given(st.integers(2, 12), st.integers(0, 2**31 - 1), st.sampled_from([MAX, MIN]))
    def test_not_stated_never_scores_at_or_above_the_best_stated(self, n, seed, objective):
        rng = np.random.default_rng(seed)
        col = rng.choice([np.nan, 3.0, 5.0], size=n)
        assume(np.isnan(col).any() and (~np.isnan(col)).any())
        out = apply_missing_rule(col[:, None], [objective], [1.0])
        a = normalise_min_max(out.values, [objective])[:, 0]
        assert a[np.isnan(col)].max() < a[~np.isnan(col)].max()
        assert a[np.isnan(col)].max() <= a[~np.isnan(col)].min()  # and never above any stated value

    def test_inert_weight_is_reported_and_not_counted(self):
        # Support (weight 0.5) is stated by no offer: it separates nothing. Price (0.5) separates.
        rows = [{"offer_id": "a", "on_demand_eur_per_gpu_hour": 1.0}, {"offer_id": "b", "on_demand_eur_per_gpu_hour": 3.0}]
        res = rank_alternatives(build_decision_matrix(rows, reference_date=TODAY),
                                {"price_eur_per_gpu_hour": 1.0, "support_score": 1.0})
        s = CRITERION_NAMES.index("support_score")
        assert res.uninformative == ("support_score",)
        assert res.inert_share == pytest.approx(0.5)
        assert res.weights[s] == 0.0 and res.weights.sum() == pytest.approx(1.0)
        assert res.requested_weights[s] == pytest.approx(0.5)
        assert dict(zip(res.ids, res.scores, strict=True)) == {"a": pytest.approx(1.0), "b": pytest.approx(0.0)}
        assert any(a.name == "inert_weight" and a.value == pytest.approx(0.5) for a in res.assumptions)

    @PROPERTY
    @given(st.integers(2, 15), st.integers(0, 2**31 - 1), st.sampled_from(["weighted_sum", "topsis"]))
    def test_inert_criteria_change_no_ranking(self, n, seed, method):
        """Adding weight on a criterion nobody states leaves the order (and the WSM scores) as without it."""
        rng = np.random.default_rng(seed)
        rows = [{"offer_id": f"o{i}", "on_demand_eur_per_gpu_hour": float(rng.uniform(0.5, 9)),
                 "memory_bandwidth_tbps": float(rng.uniform(0.3, 5))} for i in range(n)]
        dm = build_decision_matrix(rows, reference_date=TODAY)
        base = {"price_eur_per_gpu_hour": 2.0, "memory_bandwidth_tbps": 1.0}
        plain = rank_alternatives(dm, base, method=method)
        padded = rank_alternatives(dm, {**base, "support_score": 5.0, "burst_capacity_score": 1.0}, method=method)
        np.testing.assert_array_equal(plain.ranks, padded.ranks)
        np.testing.assert_allclose(plain.scores, padded.scores, atol=1e-12)
        assert set(padded.uninformative) == {"support_score", "burst_capacity_score"}
