"""Tests for engine.tco: hand-computed cases, published figures, properties, validation, uncertainty."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from engine.tco import (
    HOURS_PER_MONTH,
    LAYERS,
    Option,
    Pair,
    TcoInputs,
    break_even_month,
    break_even_utilisation,
    capital_recovery_factor,
    compare_options_per_useful_gpu_hour,
    cost_per_useful_gpu_hour_eur,
    cumulative_cost_eur,
    default_monte_carlo_ranges,
    evaluate_tco,
    mean_on_demand_price_eur_per_gpu_hour,
    monte_carlo,
    monthly_cost_eur,
    owned_cost_breakdown_eur_per_gpu_hour,
    owned_cost_coefficients_eur_per_gpu_hour,
    tornado,
    validate_arrays,
)

PROPERTY = settings(max_examples=100, deadline=None)

# A scenario with round numbers, used by the hand-computed tests. At u = 0.5 every option costs the same.
#   hardware     8,760 EUR x CRF(0 %, 1 yr) = 8,760 EUR/yr / 8,760 h            = 1.000 EUR/GPU-h
#   maintenance  10 % x 8,760 EUR / 8,760 h                                     = 0.100
#   facility     73 EUR/kW-month x 1 kW x 12 / 8,760 h                          = 0.100
#   staff        1 FTE x 43.8 EUR/h x 2,000 h / (8,760 h x 10 GPUs)             = 1.000
#   power(u)     1 kW x (0.5 + 0.5 u) x PUE 1.5 x 0.2 EUR/kWh  -> at u = 0.5     = 0.225
#   total at u = 0.5                                                            = 2.425 EUR per GPU-hour
#   per useful hour: 2.425 / 0.5                                                = 4.850
SIMPLE = dict(
    utilisation_fraction=0.5,
    cluster_gpus=10,
    horizon_months=24,
    price_on_demand_eur_per_gpu_hour=4.85,
    reserved_discount_fraction=0.5,
    reserved_term_months=12,
    rental_price_decline_fraction_per_year=0.0,
    server_capex_eur_per_gpu=8760.0,
    networking_capex_eur_per_gpu=0.0,
    storage_capex_eur_per_gpu=0.0,
    installation_capex_eur_per_gpu=0.0,
    depreciation_years=1.0,
    cost_of_capital_fraction_per_year=0.0,
    residual_value_fraction=0.0,
    power_at_load_kw_per_gpu=1.0,
    idle_power_fraction=0.5,
    pue=1.5,
    electricity_eur_per_kwh=0.2,
    colocation_eur_per_kw_month=73.0,
    maintenance_fraction_of_capex_per_year=0.1,
    staff_fte=1.0,
    labour_cost_eur_per_hour=43.8,
    working_hours_per_fte_year=2000.0,
)


def simple(**changes: float) -> dict[str, np.ndarray]:
    return TcoInputs(**{**SIMPLE, **changes}).as_arrays()


# ------------------------------------------------------------------------------------------------
# Hand-computed cases
# ------------------------------------------------------------------------------------------------


class TestCapitalRecoveryFactor:
    def test_zero_rate_is_straight_line(self):
        # i = 0: CRF = 1 / L = 1 / 5 = 0.2
        np.testing.assert_allclose(capital_recovery_factor(0.0, 5), 0.2)

    def test_eight_percent_five_years(self):
        # 1.08^5 = 1.4693280768; CRF = 0.08 x 1.4693280768 / (1.4693280768 - 1) = 0.1175462461 / 0.4693280768
        np.testing.assert_allclose(capital_recovery_factor(0.08, 5), 0.2504564546, rtol=1e-9)

    def test_matches_compound_interest_table_a_over_p_10pct_5yr(self):
        # Standard compound-interest tables: (A/P, 10 %, 5) = 0.26380
        np.testing.assert_allclose(capital_recovery_factor(0.10, 5), 0.26380, atol=5e-6)

    def test_broadcasts_and_mixes_zero_and_nonzero_rates(self):
        out = capital_recovery_factor([[0.0], [0.08]], [1.0, 5.0])
        assert out.shape == (2, 2)
        np.testing.assert_allclose(out, [[1.0, 0.2], [1.08, 0.2504564546]], rtol=1e-9)

    def test_tiny_rate_tends_to_straight_line(self):
        # CRF(i) = 1/L + i/2 + O(i^2): i = 1e-12, L = 4 -> 0.25 + 5e-13
        np.testing.assert_allclose(capital_recovery_factor(1e-12, 4), 0.25, rtol=1e-9)


class TestOwnedCost:
    def test_breakdown_simple_case_by_hand(self):
        layers = owned_cost_breakdown_eur_per_gpu_hour(**simple()).as_dict()
        expected = dict(
            hardware=1.0, networking=0.0, power_and_cooling=0.225, facility=0.1, staff=1.0, maintenance=0.1,
            residual_credit=0.0,
        )
        for name in LAYERS:
            np.testing.assert_allclose(layers[name], expected[name], atol=1e-12, err_msg=name)

    def test_total_and_per_useful_hour_by_hand(self):
        breakdown = owned_cost_breakdown_eur_per_gpu_hour(**simple())
        np.testing.assert_allclose(breakdown.total, 2.425)  # 1 + 0.225 + 0.1 + 1 + 0.1
        np.testing.assert_allclose(breakdown.per_useful_hour(0.5).total, 4.85)  # 2.425 / 0.5
        np.testing.assert_allclose(cost_per_useful_gpu_hour_eur("owned", **simple()), 4.85)

    def test_residual_value_is_spread_as_salvage_annuity(self):
        # i = 0, L = 2 yr, resale 50 % of 8,760 EUR = 4,380 EUR:
        #   hardware 8,760 / 2 / 8,760 = 0.5; credit -4,380 x (CRF - i) / 8,760 = -4,380 x 0.5 / 8,760 = -0.25
        #   net (C - R) / L / 8,760 = (8,760 - 4,380) / 2 / 8,760 = 0.25 EUR/GPU-h
        layers = owned_cost_breakdown_eur_per_gpu_hour(**simple(depreciation_years=2.0, residual_value_fraction=0.5))
        np.testing.assert_allclose(layers.hardware, 0.5)
        np.testing.assert_allclose(layers.residual_credit, -0.25)

    def test_residual_with_interest_matches_textbook_annuity(self):
        # (C - R) CRF + R i, with C = 10,000, R = 2,000, i = 8 %, L = 5: 8,000 x 0.2504564546 + 160 = 2,163.65 EUR/yr
        params = simple(
            server_capex_eur_per_gpu=10_000.0, depreciation_years=5.0, cost_of_capital_fraction_per_year=0.08,
            residual_value_fraction=0.2,
        )
        layers = owned_cost_breakdown_eur_per_gpu_hour(**params)
        np.testing.assert_allclose((layers.hardware + layers.residual_credit) * 8760, 2163.6516, rtol=1e-7)

    def test_coefficients_by_hand(self):
        # F = 1 + 0.1 + 0.1 + 1 + idle power 1 kW x 0.5 x 1.5 x 0.2 = 2.35; V = 1 kW x 0.5 x 1.5 x 0.2 = 0.15
        fixed, variable = owned_cost_coefficients_eur_per_gpu_hour(**simple())
        np.testing.assert_allclose([fixed, variable], [2.35, 0.15])

    def test_breakdown_total_equals_coefficients(self):
        params = TcoInputs().as_arrays()
        u = np.linspace(0.1, 1.0, 7)
        fixed, variable = owned_cost_coefficients_eur_per_gpu_hour(**params)
        total = owned_cost_breakdown_eur_per_gpu_hour(**dict(params, utilisation_fraction=u)).total
        np.testing.assert_allclose(total, fixed + variable * u, rtol=1e-12)

    def test_defaults_give_owned_cost_per_gpu_hour(self):
        # Default H100 server (EUR 30,016.33 equipment per GPU, 8 %, 5 yr, PUE 1.56, EUR 0.1744/kWh) at u = 0.7
        np.testing.assert_allclose(owned_cost_breakdown_eur_per_gpu_hour(**TcoInputs().as_arrays()).total, 1.578, atol=5e-4)


class TestCostPerUsefulHourAndBreakEven:
    def test_three_options_by_hand(self):
        params = simple()
        np.testing.assert_allclose(cost_per_useful_gpu_hour_eur(Option.ON_DEMAND, **params), 4.85)
        # reserved: 4.85 x (1 - 0.5) / 0.5 = 4.85
        np.testing.assert_allclose(cost_per_useful_gpu_hour_eur(Option.RESERVED, **params), 4.85)

    def test_break_even_on_demand_vs_owned_by_hand(self):
        # u* = F / (p - V) = 2.35 / (4.85 - 0.15) = 0.5
        np.testing.assert_allclose(break_even_utilisation(Pair.ON_DEMAND_VS_OWNED, **simple()), 0.5)

    def test_break_even_reserved_vs_owned_by_hand(self):
        # u* = (p (1 - d) - F) / V = (2.425 - 2.35) / 0.15 = 0.5
        np.testing.assert_allclose(break_even_utilisation("reserved_vs_owned", **simple()), 0.5)
        # owning is cheaper below u*: at u = 0.25, owned (2.35 + 0.0375)/0.25 = 9.55 < reserved 2.425/0.25 = 9.7
        low_u = simple(utilisation_fraction=0.25)
        assert cost_per_useful_gpu_hour_eur("owned", **low_u) < cost_per_useful_gpu_hour_eur("reserved", **low_u)

    @pytest.mark.parametrize(
        ("discount", "expected"),
        [(0.41, 0.59), (0.64, 0.36), (0.37, 0.63), (0.56, 0.44), (0.25, 0.75), (0.49, 0.51)],
    )
    def test_on_demand_vs_reserved_is_critical_fractile_domain_model_e5(self, discount, expected):
        """domain-model E5: Epoch DEFAULT_CUD discounts (AWS, GCP, Azure 1/3 yr) give r = 1 - discount."""
        out = break_even_utilisation("on_demand_vs_reserved", **simple(reserved_discount_fraction=discount))
        np.testing.assert_allclose(out, expected)

    def test_break_even_infinite_when_rent_below_marginal_energy(self):
        # p = 0.1 <= V = 0.15: owning never beats renting
        assert break_even_utilisation("on_demand_vs_owned", **simple(price_on_demand_eur_per_gpu_hour=0.1)) == np.inf

    def test_break_even_with_zero_rental_price(self):
        params = simple(price_on_demand_eur_per_gpu_hour=0.0)
        assert np.isnan(break_even_utilisation("on_demand_vs_reserved", **params))
        assert break_even_utilisation("on_demand_vs_owned", **params) == np.inf

    def test_reserved_vs_owned_without_variable_cost_is_signed_infinity(self):
        params = simple(idle_power_fraction=1.0)  # power no longer depends on u: V = 0
        assert break_even_utilisation("reserved_vs_owned", **params) == -np.inf  # F = 2.5 > 2.425: reserve

    def test_eu_native_rental_price_gives_break_even_in_published_range_technolynx_2026(self):
        """Plausibility: defaults + OVHcloud H100 EUR 2.80/GPU-h give 1.4081 / (2.80 - 0.2428) = 0.551,
        inside the 50-60 % H100 owning break-even claimed by TechnoLynx 2026 (vendor source, domain-model 5)."""
        params = dict(TcoInputs().as_arrays(), price_on_demand_eur_per_gpu_hour=2.80)
        out = break_even_utilisation("on_demand_vs_owned", **params)
        np.testing.assert_allclose(out, 0.5506, atol=5e-4)
        assert 0.50 <= out <= 0.60

    def test_compare_matches_single_option_functions(self):
        params = dict(TcoInputs().as_arrays(), utilisation_fraction=np.linspace(0.1, 1.0, 5))
        out = compare_options_per_useful_gpu_hour(**params)
        for option in Option:
            np.testing.assert_allclose(out[option.value], cost_per_useful_gpu_hour_eur(option, **params), rtol=1e-12)
        for pair in Pair:
            expected = np.broadcast_to(break_even_utilisation(pair, **params), (5,))
            np.testing.assert_allclose(out[pair.value], expected, rtol=1e-12)

    def test_unknown_or_missing_keyword_is_a_type_error(self):
        with pytest.raises(TypeError, match="unknown keyword"):
            cost_per_useful_gpu_hour_eur("owned", **simple(), price_eur=1.0)
        with pytest.raises(TypeError, match="missing keyword"):
            break_even_utilisation("on_demand_vs_owned", price_on_demand_eur_per_gpu_hour=3.0)


class TestCashView:
    def test_monthly_on_demand_and_reserved_by_hand(self):
        params = simple()
        # on demand: 10 GPUs x 0.5 x 730 h x 4.85 EUR = 17,702.5 EUR/month
        np.testing.assert_allclose(monthly_cost_eur("on_demand", **params), np.full(24, 17_702.5))
        # reserved: 10 GPUs x 730 h x 4.85 x (1 - 0.5) = 17,702.5 EUR/month, every hour paid
        np.testing.assert_allclose(monthly_cost_eur("reserved", **params), np.full(24, 17_702.5))

    def test_monthly_owned_by_hand(self):
        monthly = monthly_cost_eur("owned", **simple(residual_value_fraction=0.5))
        # opex per GPU-h = power 0.225 + facility 0.1 + staff 1.0 + maintenance 0.1 = 1.425; x 730 h x 10 GPUs
        opex = 1.425 * 730 * 10  # 10,402.5 EUR/month
        np.testing.assert_allclose(monthly[0], 87_600 + opex)  # capex 10 x 8,760 EUR in month 0
        np.testing.assert_allclose(monthly[1:11], opex)
        np.testing.assert_allclose(monthly[11], opex - 43_800)  # end of the 1-year life: resale 50 % x 87,600
        np.testing.assert_allclose(monthly[12], 87_600 + opex)  # replacement at the same price
        np.testing.assert_allclose(monthly[23], opex - 43_800)

    def test_rental_price_decline_month_by_month(self):
        params = simple(rental_price_decline_fraction_per_year=0.19)
        on_demand = monthly_cost_eur("on_demand", **params)
        # price(m) = 4.85 x 0.81^(m/12): m = 6 -> x 0.9, m = 12 -> x 0.81
        np.testing.assert_allclose(on_demand[[0, 6, 12]], [17_702.5, 15_932.25, 14_339.025])
        reserved = monthly_cost_eur("reserved", **params)
        # reserved price fixed for each 12-month term, renewed at the then-current price
        np.testing.assert_allclose(reserved[:12], 17_702.5)
        np.testing.assert_allclose(reserved[12:], 14_339.025)

    def test_cumulative_is_running_sum(self):
        params = TcoInputs().as_arrays()
        for option in Option:
            np.testing.assert_allclose(
                cumulative_cost_eur(option, **params), np.cumsum(monthly_cost_eur(option, **params)), rtol=1e-12
            )

    def test_break_even_month_by_hand(self):
        # capex 10 GPUs x 10,000 EUR = 100,000; opex 10 x 730 x (0.225 + 0.1 + 1.0) = 9,672.5/month;
        # on demand 17,702.5/month -> saving 8,030/month; 100,000 / 8,030 = 12.45 -> month 13
        #   k = 12: 100,000 + 12 x 9,672.5 = 216,070 > 212,430 = 12 x 17,702.5
        #   k = 13: 100,000 + 13 x 9,672.5 = 225,742.5 <= 230,132.5 = 13 x 17,702.5
        params = simple(server_capex_eur_per_gpu=10_000.0, depreciation_years=5.0, maintenance_fraction_of_capex_per_year=0.0)
        assert break_even_month("owned", "on_demand", **params) == 13.0

    def test_break_even_month_nan_when_never(self):
        params = simple(price_on_demand_eur_per_gpu_hour=1.0)
        assert np.isnan(break_even_month("owned", "on_demand", **params))

    def test_mean_price_over_horizon_closed_form(self):
        # q = 0.8^(1/12); mean over 24 months = (1 - 0.8^2) / (24 (1 - q)) = 0.36 / 0.442035... = 0.814418
        months = np.arange(24)
        expected = 4.0 * np.mean(0.8 ** (months / 12))
        np.testing.assert_allclose(mean_on_demand_price_eur_per_gpu_hour(4.0, 0.2, 24), expected, rtol=1e-12)
        np.testing.assert_allclose(mean_on_demand_price_eur_per_gpu_hour([4.0, 4.0], [0.0, 0.2], 24), [4.0, expected])

    def test_price_decline_delays_or_removes_break_even_month(self):
        """Renting at tomorrow's prices: a purchase pays back later, or not at all, as rental prices fall."""
        decline = np.linspace(0.0, 0.6, 13)
        months = break_even_month(**dict(TcoInputs().as_arrays(), rental_price_decline_fraction_per_year=decline))
        finite = months[~np.isnan(months)]
        assert np.all(np.diff(finite) >= 0)
        assert np.all(np.isnan(months[len(finite):]))  # once it disappears it stays away
        assert months[0] == 19.0

    def test_horizon_must_be_scalar_integer(self):
        with pytest.raises(ValueError, match="horizon_months"):
            monthly_cost_eur("owned", **dict(simple(), horizon_months=np.array(2.5)))


# ------------------------------------------------------------------------------------------------
# Properties (hypothesis)
# ------------------------------------------------------------------------------------------------


def finite(low: float, high: float) -> st.SearchStrategy[float]:
    return st.floats(low, high, allow_nan=False, allow_infinity=False)


scenarios = st.fixed_dictionaries(
    {
        "utilisation_fraction": finite(0.01, 1.0),
        "cluster_gpus": st.integers(1, 4096),
        "horizon_months": st.integers(1, 84),
        "price_on_demand_eur_per_gpu_hour": finite(0.0, 20.0),
        "reserved_discount_fraction": finite(0.0, 0.9),
        "reserved_term_months": st.integers(1, 60),
        "rental_price_decline_fraction_per_year": finite(0.0, 0.6),
        "server_capex_eur_per_gpu": finite(0.0, 60_000.0),
        "networking_capex_eur_per_gpu": finite(0.0, 15_000.0),
        "storage_capex_eur_per_gpu": finite(0.0, 5_000.0),
        "installation_capex_eur_per_gpu": finite(0.0, 5_000.0),
        "depreciation_years": finite(0.5, 10.0),
        "cost_of_capital_fraction_per_year": st.one_of(st.just(0.0), finite(0.0, 0.3)),
        "residual_value_fraction": finite(0.0, 1.0),
        "power_at_load_kw_per_gpu": finite(0.0, 3.0),
        "idle_power_fraction": finite(0.0, 1.0),
        "pue": finite(1.0, 2.5),
        "electricity_eur_per_kwh": finite(0.0, 0.5),
        "colocation_eur_per_kw_month": finite(0.0, 500.0),
        "maintenance_fraction_of_capex_per_year": finite(0.0, 0.3),
        "staff_fte": finite(0.0, 10.0),
        "labour_cost_eur_per_hour": finite(0.0, 100.0),
        "working_hours_per_fte_year": finite(500.0, 2500.0),
    }
)


@PROPERTY
@given(scenario=scenarios, u1=finite(0.01, 1.0), u2=finite(0.01, 1.0))
def test_owned_and_reserved_cost_per_useful_hour_never_rise_with_utilisation(scenario, u1, u2):
    low, high = sorted((u1, u2))
    params = TcoInputs(**scenario).as_arrays()
    for option in (Option.OWNED, Option.RESERVED):
        at_low = cost_per_useful_gpu_hour_eur(option, **dict(params, utilisation_fraction=low))
        at_high = cost_per_useful_gpu_hour_eur(option, **dict(params, utilisation_fraction=high))
        assert at_high <= at_low * (1 + 1e-12) + 1e-12
        assert at_high >= 0.0


@PROPERTY
@given(scenario=scenarios, p1=finite(0.0, 20.0), p2=finite(0.0, 20.0))
def test_break_even_utilisation_falls_as_rental_price_rises(scenario, p1, p2):
    low, high = sorted((p1, p2))
    params = TcoInputs(**scenario).as_arrays()
    at_low = break_even_utilisation("on_demand_vs_owned", **dict(params, price_on_demand_eur_per_gpu_hour=low))
    at_high = break_even_utilisation("on_demand_vs_owned", **dict(params, price_on_demand_eur_per_gpu_hour=high))
    assert at_high <= at_low * (1 + 1e-12) or at_low == np.inf
    assert at_high >= 0.0


@PROPERTY
@given(
    scenario=scenarios,
    pair=st.sampled_from([("owned", "on_demand"), ("owned", "reserved"), ("reserved", "on_demand")]),
)
def test_cumulative_curves_cross_at_reported_break_even_month(scenario, pair):
    option, versus = pair
    params = TcoInputs(**scenario).as_arrays()
    month = break_even_month(option, versus, **params)
    a = cumulative_cost_eur(option, **params)
    b = cumulative_cost_eur(versus, **params)
    if np.isnan(month):
        assert np.all(a > b)
    else:
        k = int(month)
        assert a[k - 1] <= b[k - 1]
        assert k == 1 or a[k - 2] > b[k - 2]


@PROPERTY
@given(batch=st.lists(scenarios, min_size=1, max_size=6))
def test_array_and_scalar_inputs_give_identical_results(batch):
    horizon = batch[0]["horizon_months"]
    rows = [TcoInputs(**dict(s, horizon_months=horizon)).as_arrays() for s in batch]
    stacked = {name: np.stack([row[name] for row in rows]) for name in rows[0] if name != "horizon_months"}
    stacked["horizon_months"] = rows[0]["horizon_months"]
    as_array = compare_options_per_useful_gpu_hour(**stacked)
    monthly = {option: monthly_cost_eur(option, **stacked) for option in Option}
    breakdown = owned_cost_breakdown_eur_per_gpu_hour(**stacked).as_dict()
    for k, row in enumerate(rows):
        as_scalar = compare_options_per_useful_gpu_hour(**row)
        for key, values in as_array.items():
            assert as_scalar[key].shape == ()
            np.testing.assert_allclose(values[k], as_scalar[key], rtol=1e-12, err_msg=key)
        for option in Option:
            np.testing.assert_allclose(monthly[option][k], monthly_cost_eur(option, **row), rtol=1e-12)
        scalar_breakdown = owned_cost_breakdown_eur_per_gpu_hour(**row).as_dict()
        for name in LAYERS:
            np.testing.assert_allclose(breakdown[name][k], scalar_breakdown[name], rtol=1e-12, atol=1e-15)


def test_blocked_evaluation_of_large_arrays_matches_point_by_point():
    rng = np.random.default_rng(7)
    n = 70_000  # more than two blocks
    base = TcoInputs().as_arrays()
    arrays = dict(
        base,
        utilisation_fraction=rng.uniform(0.05, 1.0, n),
        price_on_demand_eur_per_gpu_hour=rng.uniform(0.5, 8.0, n),
        cost_of_capital_fraction_per_year=np.where(rng.random(n) < 0.1, 0.0, rng.uniform(0.0, 0.2, n)),
        server_capex_eur_per_gpu=rng.uniform(10_000, 40_000, n),
    )
    out = compare_options_per_useful_gpu_hour(**arrays)
    for k in rng.choice(n, 25, replace=False):
        point = {name: (value[k] if value.ndim else value) for name, value in arrays.items()}
        single = compare_options_per_useful_gpu_hour(**point)
        for key in out:
            np.testing.assert_allclose(out[key][k], single[key], rtol=1e-12, err_msg=key)


def test_bench_loop_formula_matches_the_engine():
    """The benchmark's plain-Python loop must compute the same numbers as the vectorised kernel."""
    from bench.bench_tco import SCALAR_ARGS, random_scenarios, scalar_compare

    arrays = random_scenarios(200, seed=3)
    out = compare_options_per_useful_gpu_hour(**arrays)
    keys = ["on_demand", "reserved", "owned", *(pair.value for pair in Pair)]
    for k in range(200):
        loop = scalar_compare(*(float(arrays[name][k]) for name in SCALAR_ARGS))
        np.testing.assert_allclose(loop, [out[key][k] for key in keys], rtol=1e-10)


# ------------------------------------------------------------------------------------------------
# Input validation
# ------------------------------------------------------------------------------------------------


class TestValidation:
    @pytest.mark.parametrize(
        ("field", "value"),
        [
            ("utilisation_fraction", 0.0),
            ("utilisation_fraction", 1.5),
            ("price_on_demand_eur_per_gpu_hour", -1.0),
            ("depreciation_years", 0.0),
            ("reserved_discount_fraction", 1.0),
            ("pue", 0.9),
        ],
    )
    def test_bad_value_is_rejected_with_the_field_name(self, field, value):
        with pytest.raises(ValidationError) as info:
            TcoInputs(**{field: value})
        assert info.value.errors()[0]["loc"] == (field,)

    def test_unknown_field_is_rejected(self):
        with pytest.raises(ValidationError, match="price_eur"):
            TcoInputs(price_eur=3.0)

    def test_inputs_are_frozen(self):
        with pytest.raises(ValidationError):
            TcoInputs().pue = 1.2

    def test_every_field_has_unit_source_and_description(self):
        for name, info in TcoInputs.model_fields.items():
            assert info.description, name
            assert info.json_schema_extra["unit"], name
            assert len(info.json_schema_extra["source"]) > 10, name

    def test_validate_arrays_names_the_field_and_bound(self):
        with pytest.raises(ValueError, match=r"depreciation_years must be > 0.0 \[yr\]; 1 of 3"):
            validate_arrays(depreciation_years=[5.0, 0.0, 3.0])
        with pytest.raises(ValueError, match="price_on_demand_eur_per_gpu_hour must be >= 0.0"):
            validate_arrays(price_on_demand_eur_per_gpu_hour=-0.5)

    def test_validate_arrays_rejects_nan_unknown_names_and_bad_shapes(self):
        with pytest.raises(ValueError, match="NaN"):
            validate_arrays(pue=[1.2, np.nan])
        with pytest.raises(ValueError, match="unknown input"):
            validate_arrays(pue_ratio=1.2)
        with pytest.raises(ValueError, match="scalar"):
            validate_arrays(horizon_months=[12, 24])
        with pytest.raises(ValueError, match="broadcast"):
            validate_arrays(pue=[1.2, 1.3], electricity_eur_per_kwh=[0.1, 0.2, 0.3])

    def test_validate_arrays_fills_from_base(self):
        base = TcoInputs(pue=1.2)
        out = validate_arrays(base, utilisation_fraction=[0.5, 1.0])
        assert float(out["pue"]) == 1.2
        assert out["utilisation_fraction"].shape == (2,)


# ------------------------------------------------------------------------------------------------
# One scenario, Monte Carlo, tornado
# ------------------------------------------------------------------------------------------------


class TestEvaluate:
    def test_result_is_consistent(self):
        inputs = TcoInputs()
        result = evaluate_tco(inputs)
        owned = result.cost_per_useful_gpu_hour_eur["owned"]
        np.testing.assert_allclose(sum(result.owned_breakdown_eur_per_useful_gpu_hour.values()), owned, rtol=1e-12)
        assert result.cheapest_option == min(result.cost_per_useful_gpu_hour_eur, key=result.cost_per_useful_gpu_hour_eur.get)
        assert result.months.tolist() == list(range(1, 61))
        for option in Option:
            np.testing.assert_allclose(result.cumulative_cost_eur[option.value][-1], result.monthly_cost_eur[option.value].sum())
        assert result.break_even_month["owned_vs_on_demand"] == float(break_even_month(**inputs.as_arrays()))

    def test_assumptions_list_every_input_with_unit_and_source(self):
        result = evaluate_tco(TcoInputs(pue=1.25))
        names = [a.name for a in result.assumptions]
        assert names == list(TcoInputs.model_fields)
        pue = next(a for a in result.assumptions if a.name == "pue")
        assert (pue.value, pue.unit) == (1.25, "-")
        assert "Uptime" in pue.source

    def test_price_decline_lowers_mean_price_and_raises_break_even(self):
        result = evaluate_tco(TcoInputs(rental_price_decline_fraction_per_year=0.2))
        assert result.mean_on_demand_price_over_horizon_eur_per_gpu_hour < 4.32
        at_mean = result.break_even_utilisation_on_demand_vs_owned_at_mean_price_fraction
        assert at_mean > result.break_even_utilisation_fraction["on_demand_vs_owned"]

    def test_hours_per_month(self):
        assert HOURS_PER_MONTH == 730.0


class TestMonteCarlo:
    def test_reproducible_with_seed_and_ordered_percentiles(self):
        first = monte_carlo(n_draws=20_000, seed=11)
        second = monte_carlo(n_draws=20_000, seed=11)
        assert first.percentiles_eur_per_useful_gpu_hour == second.percentiles_eur_per_useful_gpu_hour
        np.testing.assert_array_equal(first.samples_eur_per_useful_gpu_hour["owned"], second.samples_eur_per_useful_gpu_hour["owned"])
        other = monte_carlo(n_draws=20_000, seed=12)
        assert other.percentiles_eur_per_useful_gpu_hour != first.percentiles_eur_per_useful_gpu_hour
        for option in Option:
            p = first.percentiles_eur_per_useful_gpu_hour[option.value]
            assert p["p10"] <= p["p50"] <= p["p90"]
        assert 0.0 <= first.probability_owned_beats_on_demand <= 1.0

    def test_percentiles_equal_numpy_percentile(self):
        result = monte_carlo(n_draws=50_000, seed=5)
        for option in Option:
            samples = result.samples_eur_per_useful_gpu_hour[option.value]
            p = result.percentiles_eur_per_useful_gpu_hour[option.value]
            np.testing.assert_allclose([p["p10"], p["p50"], p["p90"]], np.percentile(samples, [10, 50, 90]), rtol=1e-14)

    def test_probabilities_match_samples(self):
        result = monte_carlo(n_draws=30_000, seed=2, distribution="uniform")
        s = result.samples_eur_per_useful_gpu_hour
        assert result.probability_owned_beats_on_demand == np.mean(s["owned"] < s["on_demand"])
        assert result.probability_reserved_beats_on_demand == np.mean(s["reserved"] < s["on_demand"])

    def test_zero_width_ranges_reproduce_the_deterministic_result(self):
        base = TcoInputs()
        ranges = {"pue": (1.56, 1.56), "electricity_eur_per_kwh": (0.1744, 0.1744, 0.1744)}
        result = monte_carlo(base, ranges, n_draws=1_000, seed=0)
        expected = evaluate_tco(base).cost_per_useful_gpu_hour_eur
        for option in Option:
            np.testing.assert_allclose(result.samples_eur_per_useful_gpu_hour[option.value], expected[option.value])

    def test_draws_stay_in_range_and_follow_the_triangular_distribution(self):
        from scipy import stats

        from engine.tco import _BlockSampler

        sampler = _BlockSampler(np.array([1.0, 0.0]), np.array([1.5, 0.0]), np.array([4.0, 2.0]), True, 60_000)
        draws = sampler.draw(np.random.default_rng(1), 60_000)
        assert draws[0].min() >= 1.0 and draws[0].max() < 4.0
        assert stats.kstest(draws[0], stats.triang(c=0.5 / 3.0, loc=1.0, scale=3.0).cdf).pvalue > 1e-3
        assert stats.kstest(draws[1], stats.triang(c=0.0, loc=0.0, scale=2.0).cdf).pvalue > 1e-3  # mode at low

    def test_bad_ranges_are_rejected(self):
        with pytest.raises(ValueError, match="low <= mode <= high"):
            monte_carlo(ranges={"pue": (1.5, 1.2)}, n_draws=10)
        with pytest.raises(ValueError, match="pue must be >= 1.0"):
            monte_carlo(ranges={"pue": (0.8, 1.2)}, n_draws=10)
        with pytest.raises(ValueError, match="unknown input"):
            monte_carlo(ranges={"pue_ratio": (1.1, 1.2)}, n_draws=10)

    def test_default_ranges_contain_the_base_value_and_respect_bounds(self):
        base = TcoInputs()
        for name, (low, mode, high) in default_monte_carlo_ranges(base).items():
            assert low <= mode <= high, name
            assert mode == getattr(base, name)
            validate_arrays(**{name: [low, high]})


def test_exact_percentile_selection_matches_numpy_on_awkward_data():
    from engine.tco import _percentiles_linear

    rng = np.random.default_rng(3)
    cases = [
        rng.normal(size=100_001),
        np.sort(rng.random(40_000)),  # sorted input: the strided sample is still representative
        rng.integers(0, 5, 50_000).astype(float),  # heavy ties
        rng.random(1_234),  # small: plain partition
    ]
    for values in cases:
        np.testing.assert_allclose(_percentiles_linear(values, (10, 50, 90)), np.percentile(values, [10, 50, 90]), rtol=1e-15)


class TestTornado:
    def test_bars_sorted_by_swing_and_base_matches(self):
        result = tornado(TcoInputs(), pct=0.2)
        swings = [bar.swing for bar in result.bars]
        assert swings == sorted(swings, reverse=True)
        np.testing.assert_allclose(
            result.base_break_even_utilisation_fraction,
            break_even_utilisation("on_demand_vs_owned", **TcoInputs().as_arrays()),
        )
        names = [bar.name for bar in result.bars]
        assert "installation_capex_eur_per_gpu" not in names  # base value 0: nothing to move
        assert "utilisation_fraction" not in names  # does not move the break-even

    def test_each_bar_equals_a_direct_evaluation(self):
        base = TcoInputs()
        for bar in tornado(base, pct=0.2).bars:
            for value, expected in ((bar.low_value, bar.break_even_at_low), (bar.high_value, bar.break_even_at_high)):
                direct = break_even_utilisation("on_demand_vs_owned", **dict(base.as_arrays(), **{bar.name: value}))
                np.testing.assert_allclose(direct, expected, rtol=1e-12, err_msg=bar.name)

    def test_rental_price_bar_direction(self):
        bar = next(b for b in tornado(TcoInputs()).bars if b.name == "price_on_demand_eur_per_gpu_hour")
        # higher rent -> owning pays off at lower utilisation
        assert bar.break_even_at_high < bar.break_even_at_low
        np.testing.assert_allclose([bar.low_value, bar.high_value], [4.32 * 0.8, 4.32 * 1.2])

    def test_moves_are_clipped_to_bounds(self):
        bar = next(b for b in tornado(TcoInputs(idle_power_fraction=0.9)).bars if b.name == "idle_power_fraction")
        assert bar.high_value == 1.0  # 0.9 x 1.2 = 1.08 clipped to the bound

    def test_bad_pct_is_rejected(self):
        with pytest.raises(ValueError, match="pct"):
            tornado(pct=1.5)


def test_kernels_accept_every_input_field():
    params = TcoInputs().as_arrays()
    assert math.isfinite(float(cost_per_useful_gpu_hour_eur("owned", **params)))
    assert monthly_cost_eur("reserved", **params).shape == (60,)
