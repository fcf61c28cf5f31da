"""Tests for engine.placement: commitment rule vs brute force, E5 (critical fractile, Epoch discounts),
Weinman, the portfolio MILP vs exhaustive enumeration, residency/jurisdiction properties, infeasibility
messages, baselines, venues from the catalog."""

from __future__ import annotations

import datetime as dt
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from engine.adapters import venues_from_offers
from engine.placement import (
    COMMITMENT_REQUIRED,
    EPOCH_COMMITMENT_DISCOUNT_FRACTION,
    PlacementAssumptions,
    PlacementInfeasibleError,
    Venues,
    Workload,
    baseline_all_on_demand,
    baseline_dedicated_for_peak,
    commitment_cost_eur,
    committed_utilisation_fraction,
    demand_profile_gpus,
    feasibility_problems,
    optimal_commitment_gpus,
    overflow_gpu_hours,
    place_portfolio,
    sensitivity_to_on_demand_price,
    spot_effective_eur_per_gpu_hour,
)
from engine.tco import HOURS_PER_MONTH

PROPERTY = settings(max_examples=60, deadline=None)
SPOT_OVERHEAD = PlacementAssumptions().spot_overhead_fraction()


def brute_force_k(demand, r, o, ties="fewer"):
    """Sweep every k = 0..ceil(max D) (Azure's documented method) and return the min-cost k."""
    d = np.asarray(demand, dtype=float)
    ks = np.arange(int(np.ceil(d.max())) + 1)
    cost = np.array([r * k * d.size + o * np.maximum(d - k, 0).sum() for k in ks])
    best = cost.min()
    near = np.flatnonzero(cost <= best + 1e-9 * max(1.0, abs(best)))
    return int(near[0] if ties == "fewer" else near[-1]), cost


# --------------------------------------------------------------------------------------------------
# Commitment kernel
# --------------------------------------------------------------------------------------------------


class TestOptimalCommitment:
    def test_hand_computed_staircase(self):
        # GPU k of demand 0..4 is busy (5-k)/5 of the hours; r/o = 0.5 commits GPUs busy 80 % and 60 %.
        assert int(optimal_commitment_gpus([0, 1, 2, 3, 4], 1.0, 2.0)) == 2
        # r/o = 0.7: only GPU 1 (80 %) clears it.
        assert int(optimal_commitment_gpus([0, 1, 2, 3, 4], 1.4, 2.0)) == 1
        # r/o = 0.1: every GPU (the fourth is busy 20 %).
        assert int(optimal_commitment_gpus([0, 1, 2, 3, 4], 0.2, 2.0)) == 4

    def test_constant_demand_commits_everything_when_reserved_is_cheaper(self):
        assert int(optimal_commitment_gpus([5] * 10, 0.99, 1.0)) == 5
        assert int(optimal_commitment_gpus([5] * 10, 1.0, 1.0)) == 0  # exact tie: fewer
        assert int(optimal_commitment_gpus([5] * 10, 1.0, 1.0, ties="more")) == 5

    def test_zero_demand_and_zero_rate_edges(self):
        assert int(optimal_commitment_gpus([0, 0, 0], 0.5, 1.0)) == 0
        assert int(optimal_commitment_gpus([0, 0, 7], 0.0, 1.0)) == 7  # free commitment: cover the peak
        assert int(optimal_commitment_gpus([3, 3], 2.0, 1.0)) == 0  # r > o never commits
        assert int(optimal_commitment_gpus([3, 3], np.nan, 1.0)) == 0

    def test_fractional_demand_hand_computed(self):
        # D = [0.5, 1.5, 2.5]: GPU 1 covers 0.5 + 1 + 1 = 2.5 h, GPU 2 covers 0.5 + 1 = 1.5 h, GPU 3 0.5 h.
        np.testing.assert_allclose(overflow_gpu_hours([0.5, 1.5, 2.5]), [4.5, 2.0, 0.5, 0.0])
        # r H / o = 0.4 x 3 = 1.2 GPU-h: GPUs 1 and 2 clear it, GPU 3 does not.
        assert int(optimal_commitment_gpus([0.5, 1.5, 2.5], 0.4, 1.0)) == 2
        assert brute_force_k([0.5, 1.5, 2.5], 0.4, 1.0)[0] == 2

    def test_batch_and_broadcasting(self):
        rng = np.random.default_rng(3)
        d = rng.integers(0, 9, size=(5, 100)).astype(float)
        r = np.array([0.3, 0.5, 0.6, 0.8, 0.95])
        out = optimal_commitment_gpus(d, r, 1.0)
        assert out.shape == (5,) and out.dtype == np.int64
        assert out.tolist() == [brute_force_k(d[i], r[i], 1.0)[0] for i in range(5)]
        # one series against a grid of rates
        grid = optimal_commitment_gpus(d[0], r[:, None], np.ones((1, 2)))
        assert grid.shape == (5, 2)
        assert np.ndim(optimal_commitment_gpus(d[0], 0.5, 1.0)) == 0

    def test_commitment_cost_matches_definition(self):
        d = np.array([0, 1, 2, 3, 4.0])
        np.testing.assert_allclose(commitment_cost_eur(d, [0, 2, 4], 1.0, 2.0), [20.0, 16.0, 20.0])
        np.testing.assert_allclose(committed_utilisation_fraction(d, 4), 10 / 20)

    @PROPERTY
    @given(
        demand=st.lists(st.integers(0, 12), min_size=1, max_size=60),
        r=st.floats(0.01, 10.0),
        o=st.floats(0.01, 10.0),
        ties=st.sampled_from(["fewer", "more"]),
    )
    def test_rule_equals_brute_force(self, demand, r, o, ties):
        """Brute force in exact rational arithmetic (floats are exact rationals), so ties and near-ties are
        decided exactly: the rule must pick the same end of the argmin set."""
        k = int(optimal_commitment_gpus(demand, r, o, ties=ties))
        rr, oo, h = Fraction(r), Fraction(o), len(demand)
        cost = [rr * j * h + oo * sum(max(x - j, 0) for x in demand) for j in range(max(demand) + 1)]
        best = min(cost)
        argmins = [j for j, c in enumerate(cost) if c == best]
        assert k == (argmins[0] if ties == "fewer" else argmins[-1])
        _, float_cost = brute_force_k(demand, r, o, ties)
        assert float(commitment_cost_eur(demand, k, r, o)) == pytest.approx(float_cost.min(), rel=1e-12)

    @PROPERTY
    @given(
        demand=st.lists(st.integers(0, 8), min_size=1, max_size=40),
        num=st.integers(1, 40),
        den=st.integers(1, 40),
    )
    def test_rule_equals_brute_force_at_rational_ratios(self, demand, num, den):
        """Rational r/o makes exact ties common; both tie ends must match the sweep."""
        r, o = float(num), float(den)
        for ties in ("fewer", "more"):
            assert int(optimal_commitment_gpus(demand, r, o, ties=ties)) == brute_force_k(demand, r, o, ties)[0]


def _e5_trace() -> np.ndarray:
    """A supplied one-year inference trace: diurnal and weekly cycle plus noise, integer GPUs."""
    rng = np.random.default_rng(20240)
    h = np.arange(8760)
    base = 20 + 12 * np.sin(2 * np.pi * (h % 24 - 9) / 24) - 6 * ((h // 24) % 7 >= 5)
    return np.clip(np.round(base + rng.normal(0, 3, h.size)), 0, None)


@pytest.mark.parametrize(("provider", "years"), [(p, y) for p in ("aws", "gcp", "azure") for y in (1, 3)])
def test_e5_critical_fractile_with_epoch_discounts(provider, years):
    """domain-model E5: r = 1 - Epoch DEFAULT_CUD discount (0.59/0.36, 0.63/0.44, 0.75/0.51); the engine
    reserves R* with P(D > R*) = r on the grid, and R* equals a brute-force sweep exactly."""
    r = 1.0 - EPOCH_COMMITMENT_DISCOUNT_FRACTION[provider][years]
    assert round(r, 2) == {("aws", 1): 0.59, ("aws", 3): 0.36, ("gcp", 1): 0.63, ("gcp", 3): 0.44,
                           ("azure", 1): 0.75, ("azure", 3): 0.51}[(provider, years)]
    d = _e5_trace()
    k = int(optimal_commitment_gpus(d, r, 1.0))
    assert k == brute_force_k(d, r, 1.0)[0]
    # Discrete critical fractile: P(D >= R*) > r >= P(D > R*).
    assert np.mean(d >= k) > r >= np.mean(d > k)


def test_weinman_2009_utility_premium_two():
    """Weinman (2009), U = 2 (r/o = 0.5): pure pay-per-use beats owning for the peak when peak-to-average
    >= 2, and some pay-per-use helps whenever the time at peak is below 1/U = 50 %."""
    r, o = 1.0, 2.0
    spiky = np.array([10.0] * 4 + [2.0] * 16)  # peak 10, mean 3.6: ratio 2.8; 20 % at peak
    hours = spiky.size
    assert spiky.max() / spiky.mean() >= 2
    assert commitment_cost_eur(spiky, 0, r, o) < commitment_cost_eur(spiky, 10, r, o)
    assert int(optimal_commitment_gpus(spiky, r, o)) < spiky.max()
    # time at peak 60 % > 1/U: committing the whole peak is optimal
    flat = np.array([10.0] * 12 + [2.0] * 8)
    assert int(optimal_commitment_gpus(flat, r, o)) == 10
    assert hours == 20


class TestSpot:
    def test_young_interval_overhead(self):
        # M = 24 h, delta = 5 min -> tau = sqrt(2 x 1/12 x 24) = 2 h; overhead (1 + 1/6)/24 + (1/12)/2
        expected = 1 + (1 + 1 / 6) / 24 + (1 / 12) / 2
        np.testing.assert_allclose(spot_effective_eur_per_gpu_hour(1.0, 24, 1 / 12, 1 / 6), expected)
        np.testing.assert_allclose(SPOT_OVERHEAD, expected - 1)

    def test_edges(self):
        np.testing.assert_allclose(spot_effective_eur_per_gpu_hour(2.0, np.inf, 0.1, 0.5), 2.0)
        np.testing.assert_allclose(spot_effective_eur_per_gpu_hour(2.0, 10.0, 0.0, 0.5), 2.1)
        np.testing.assert_allclose(spot_effective_eur_per_gpu_hour(1.0, 10.0, 0.1, 0.0, 1.0), 1.0 + 0.05 + 0.1)


# --------------------------------------------------------------------------------------------------
# Workloads
# --------------------------------------------------------------------------------------------------


class TestWorkload:
    def test_profile_keeps_mean_and_peak(self):
        w = Workload(name="w", mean_gpus=7.3, peak_gpus=16, busy_hours_per_day=10, busy_days_per_week=5)
        d = demand_profile_gpus(w)
        assert d.shape == (8760,)
        np.testing.assert_allclose(d.mean(), 7.3)
        assert d.max() == 16
        # Monday 08:00-18:00 busy, Saturday not
        assert d[8] == 16 and d[17] == 16 and d[18] < 16 and d[5 * 24 + 12] < 16

    def test_window_wraps_past_midnight(self):
        w = Workload(name="w", mean_gpus=4, peak_gpus=8, busy_hours_per_day=12, first_busy_hour=20)
        d = demand_profile_gpus(w, hours=48)
        assert d[20] == 8 and d[23] == 8 and d[24] == 8 and d[31] == 8 and d[32] == 0

    def test_uploaded_series_is_tiled(self):
        series = list(np.arange(168) % 5)
        d = demand_profile_gpus(Workload(name="u", hourly_demand_gpus=series), hours=400)
        assert d.shape == (400,) and d[168] == 0 and d[169] == 1 and d[399] == series[399 - 336]

    def test_validation_messages(self):
        with pytest.raises(ValidationError, match="not both"):
            Workload(name="x", mean_gpus=1, peak_gpus=2, hourly_demand_gpus=[1.0] * 168)
        with pytest.raises(ValidationError, match="give mean_gpus and peak_gpus"):
            Workload(name="x")
        with pytest.raises(ValidationError, match="must not exceed"):
            Workload(name="x", mean_gpus=3, peak_gpus=2)
        with pytest.raises(ValidationError, match="below peak_gpus x busy fraction"):
            Workload(name="x", mean_gpus=1, peak_gpus=8, busy_hours_per_day=12)
        with pytest.raises(ValidationError):
            Workload(name="x", hourly_demand_gpus=[1.0] * 100)  # shorter than a week
        with pytest.raises(ValidationError):
            Workload(name="x", hourly_demand_gpus=[-1.0] * 168)


# --------------------------------------------------------------------------------------------------
# Exhaustive enumeration of the portfolio problem (independent of the engine's eligibility code)
# --------------------------------------------------------------------------------------------------


def _eligible(w: Workload, rec: dict) -> bool:
    if ((not w.may_leave_eu) or w.latency_sensitive) and not rec.get("is_eu_datacenter", False):
        return False
    if w.eu_jurisdiction_required and rec.get("jurisdiction") != "EU":
        return False
    if w.min_gpu_memory_gb > 0 and not rec.get("memory_gb", math.nan) >= w.min_gpu_memory_gb:
        return False
    if w.needs_infiniband and not rec.get("has_infiniband", False):
        return False
    return True


def _burst_rates(w: Workload, rec: dict) -> list[float]:
    if not _eligible(w, rec) or rec.get("min_commitment", "none") in COMMITMENT_REQUIRED:
        return []
    out = []
    od = rec.get("on_demand_eur_per_gpu_hour", math.nan)
    if math.isfinite(od):
        out.append(od)
    spot = rec.get("spot_eur_per_gpu_hour", math.nan)
    if math.isfinite(spot) and w.spot_allowed and not w.latency_sensitive:
        out.append(spot * (1 + SPOT_OVERHEAD))
    return out


def _commit_rate(w: Workload, rec: dict) -> float:
    if not _eligible(w, rec):
        return math.nan
    res = rec.get("reserved_eur_per_gpu_hour", math.nan)
    if math.isfinite(res):
        return res
    if rec.get("min_commitment", "none") in COMMITMENT_REQUIRED:
        return rec.get("on_demand_eur_per_gpu_hour", math.nan)
    return math.nan


def brute_force_portfolio(workloads, records, hours):
    """Enumerate, per workload, every (committed venue or none, k, burst venue/price type) choice; then
    every combination across workloads, keeping those within venue capacity. Returns the min cost per
    month and the combination, or (None, None) when nothing is feasible."""
    n_v = len(records)
    per_workload = []
    for w in workloads:
        d = demand_profile_gpus(w, hours)
        peak = int(np.ceil(d.max()))
        bursts = [b for rec in records for b in _burst_rates(w, rec)]
        choices: dict[tuple[int, int], float] = {}

        def keep(key, cost, choices=choices):
            choices[key] = min(cost, choices.get(key, math.inf))

        if peak == 0:
            keep((-1, 0), 0.0)
        for b in bursts:  # nothing committed, everything bursts on venue b
            keep((-1, 0), b * d.sum())
        for c, rec in enumerate(records):
            r = _commit_rate(w, rec)
            if not math.isfinite(r) or peak == 0:
                continue
            m = int(rec.get("min_commit_gpus", 0))
            for k in range(max(1, m), max(peak, m) + 1):
                over = np.maximum(d - k, 0).sum()
                if over == 0:
                    keep((c, k), r * k * hours)
                for b in bursts:
                    keep((c, k), r * k * hours + b * over)
        per_workload.append([(key, cost * HOURS_PER_MONTH / hours) for key, cost in choices.items()])
    if any(not opts for opts in per_workload):
        return None, None
    caps = np.array([rec.get("capacity_gpus", math.inf) for rec in records], dtype=float)
    best, best_combo = math.inf, None
    for combo in itertools.product(*per_workload):
        use = np.zeros(n_v)
        for (c, k), _ in combo:
            if c >= 0:
                use[c] += k
        if np.all(use <= caps):
            total = sum(cost for _, cost in combo)
            if total < best:
                best, best_combo = total, combo
    return (None, None) if best_combo is None else (best, best_combo)


def _random_case(seed: int):
    rng = np.random.default_rng(seed)
    n_v = int(rng.integers(3, 5))
    records = []
    for j in range(n_v):
        rec = {
            "venue_id": f"v{j}",
            "is_eu_datacenter": bool(rng.random() < 0.7),
            "jurisdiction": str(rng.choice(["EU", "EU", "US", "UK"])),
            "memory_gb": float(rng.choice([48.0, 80.0])),
            "has_infiniband": bool(rng.random() < 0.5),
            "on_demand_eur_per_gpu_hour": float(rng.uniform(1.0, 3.0)) if rng.random() < 0.8 else math.nan,
            "spot_eur_per_gpu_hour": float(rng.uniform(0.4, 1.5)) if rng.random() < 0.35 else math.nan,
            "reserved_eur_per_gpu_hour": float(rng.uniform(0.5, 1.8)) if rng.random() < 0.7 else math.nan,
            "capacity_gpus": float(rng.integers(1, 7)) if rng.random() < 0.7 else math.inf,
            "min_commitment": "monthly" if rng.random() < 0.25 else str(rng.choice(["none", "unknown"])),
            "min_commit_gpus": float(rng.choice([0, 0, 2, 3])),
        }
        records.append(rec)
    workloads = []
    for i in range(int(rng.integers(2, 4))):
        if rng.random() < 0.3:  # busy-hours pattern with a fractional off-peak level
            peak, busy = int(rng.integers(1, 6)), int(rng.integers(6, 21))
            mean = peak * busy / 24 + float(rng.uniform(0, 0.5)) * peak * (1 - busy / 24)
            demand = {"mean_gpus": mean, "peak_gpus": float(peak), "busy_hours_per_day": busy}
        else:
            series = rng.integers(0, int(rng.integers(2, 6)), size=168).astype(float)
            series[rng.integers(0, 168, size=40)] += rng.integers(0, 3)
            demand = {"hourly_demand_gpus": series.tolist()}
        workloads.append(Workload(
            name=f"w{i}", **demand,
            may_leave_eu=bool(rng.random() < 0.75), eu_jurisdiction_required=bool(rng.random() < 0.15),
            spot_allowed=bool(rng.random() < 0.5), latency_sensitive=bool(rng.random() < 0.1),
            min_gpu_memory_gb=float(rng.choice([0.0, 0.0, 0.0, 80.0])), needs_infiniband=bool(rng.random() < 0.1),
        ))
    return workloads, records


@pytest.mark.parametrize("seed", range(60))
def test_milp_equals_exhaustive_enumeration(seed):
    workloads, records = _random_case(seed)
    venues = Venues.from_records(records)
    best, combo = brute_force_portfolio(workloads, records, 168)
    if best is None:
        with pytest.raises(PlacementInfeasibleError):
            place_portfolio(workloads, venues, hours=168, mip_rel_gap=1e-9)
        return
    plan = place_portfolio(workloads, venues, hours=168, mip_rel_gap=1e-9)
    assert plan.total_cost_eur_per_month == pytest.approx(best, rel=1e-9, abs=1e-6)
    # the plan itself respects capacity and minimum commitments
    for vid, used in plan.venue_committed_gpus.items():
        assert used <= plan.venue_capacity_gpus[vid]
    by_id = {rec["venue_id"]: rec for rec in records}
    for pl in plan.placements:
        if pl.committed_venue_id is not None:
            assert pl.committed_gpus >= by_id[pl.committed_venue_id]["min_commit_gpus"]
        if pl.burst_venue_id is not None and pl.burst_gpu_hours_per_month > 0:
            assert by_id[pl.burst_venue_id]["min_commitment"] not in COMMITMENT_REQUIRED


def test_enumeration_cases_exercise_capacity_and_commitment():
    """Guard that the random cases are not trivial: some commit, some hit a capacity, some are infeasible."""
    committed = capped = infeasible = fractional = 0
    for seed in range(60):
        workloads, records = _random_case(seed)
        fractional += any(w.hourly_demand_gpus is None and w.mean_gpus % 1 for w in workloads)
        best, combo = brute_force_portfolio(workloads, records, 168)
        if best is None:
            infeasible += 1
            continue
        committed += any(c >= 0 for (c, _), _ in combo)
        caps = {}
        for (c, k), _ in combo:
            if c >= 0:
                caps[c] = caps.get(c, 0) + k
        capped += any(used == records[c]["capacity_gpus"] for c, used in caps.items())
    print(f"enumeration cases: {committed} commit, {capped} fill a venue, {infeasible} infeasible, "
          f"{fractional} with fractional demand")
    assert committed >= 20 and capped >= 6 and infeasible >= 3 and fractional >= 10


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_plan_costs_are_recomputed_from_demand(seed):
    """Seeds 0-3 are feasible cases (seed 10 is the first infeasible one): a PlacementInfeasibleError here is
    a failure, not a skip."""
    workloads, records = _random_case(seed)
    plan = place_portfolio(workloads, Venues.from_records(records), hours=168)
    assert len(plan.placements) == len(workloads) >= 2
    for w, pl in zip(workloads, plan.placements, strict=True):
        d = demand_profile_gpus(w, 168)
        r = 0.0 if pl.committed_gpus == 0 else pl.committed_rate_eur_per_gpu_hour
        o = 0.0 if pl.burst_venue_id is None else pl.burst_rate_eur_per_gpu_hour
        expected = float(commitment_cost_eur(d, pl.committed_gpus, r, o)) * HOURS_PER_MONTH / 168
        assert pl.cost_eur_per_month == pytest.approx(expected)


# --------------------------------------------------------------------------------------------------
# Residency and jurisdiction (property)
# --------------------------------------------------------------------------------------------------

venue_strategy = st.fixed_dictionaries({
    "is_eu_datacenter": st.booleans(),
    "jurisdiction": st.sampled_from(["EU", "US", "UK", "other"]),
    "on_demand_eur_per_gpu_hour": st.one_of(st.just(math.nan), st.floats(0.5, 5.0)),
    "spot_eur_per_gpu_hour": st.one_of(st.just(math.nan), st.floats(0.1, 2.0)),
    "reserved_eur_per_gpu_hour": st.one_of(st.just(math.nan), st.floats(0.2, 4.0)),
    "capacity_gpus": st.one_of(st.just(math.inf), st.integers(1, 20).map(float)),
    "min_commitment": st.sampled_from(["none", "unknown", "monthly"]),
})
workload_strategy = st.fixed_dictionaries({
    "mean_gpus": st.integers(1, 6).map(float),
    "extra_peak": st.integers(0, 6),
    "busy_hours_per_day": st.integers(1, 24),
    "may_leave_eu": st.booleans(),
    "eu_jurisdiction_required": st.booleans(),
    "spot_allowed": st.booleans(),
    "latency_sensitive": st.booleans(),
})


@settings(max_examples=40, deadline=None)
@given(venues=st.lists(venue_strategy, min_size=1, max_size=8), specs=st.lists(workload_strategy, min_size=1,
                                                                                 max_size=4))
def test_sensitive_workloads_never_leave_eu_or_eu_jurisdiction(venues, specs):
    records = [{"venue_id": f"v{j}", **rec} for j, rec in enumerate(venues)]
    workloads = []
    for i, s in enumerate(specs):
        peak = s["mean_gpus"] + s["extra_peak"]
        frac = s["busy_hours_per_day"] / 24
        assume(s["mean_gpus"] >= peak * frac)
        workloads.append(Workload(name=f"w{i}", mean_gpus=s["mean_gpus"], peak_gpus=peak,
                                  busy_hours_per_day=s["busy_hours_per_day"], may_leave_eu=s["may_leave_eu"],
                                  eu_jurisdiction_required=s["eu_jurisdiction_required"],
                                  spot_allowed=s["spot_allowed"], latency_sensitive=s["latency_sensitive"]))
    try:
        plan = place_portfolio(workloads, Venues.from_records(records), hours=168)
    except PlacementInfeasibleError as err:
        assert err.problems and all("Workload '" in p or "capacity" in p for p in err.problems)
        return
    by_id = {rec["venue_id"]: rec for rec in records}
    for w, pl in zip(workloads, plan.placements, strict=True):
        used = [pl.committed_venue_id, pl.burst_venue_id if pl.burst_gpu_hours_per_month > 0 else None]
        for vid in filter(None, used):
            rec = by_id[vid]
            if not w.may_leave_eu or w.latency_sensitive:
                assert rec["is_eu_datacenter"], (w.name, vid)
            if w.eu_jurisdiction_required:
                assert rec["jurisdiction"] == "EU", (w.name, vid)
        if pl.burst_price_type == "spot":
            assert w.spot_allowed and not w.latency_sensitive


# --------------------------------------------------------------------------------------------------
# Infeasibility messages
# --------------------------------------------------------------------------------------------------


def _catalog_like_venues() -> Venues:
    recs = []
    for j in range(12):  # US hyperscaler-like: IB, 80 GB, not EU
        recs.append({"venue_id": f"us{j}", "jurisdiction": "US", "is_eu_datacenter": False, "memory_gb": 80,
                     "has_infiniband": True, "on_demand_eur_per_gpu_hour": 3.0})
    for j in range(3):  # EU neoclouds with small GPUs, no IB
        recs.append({"venue_id": f"eu{j}", "jurisdiction": "EU", "is_eu_datacenter": True, "memory_gb": 48,
                     "on_demand_eur_per_gpu_hour": 1.0})
    return Venues.from_records(recs)


def test_infeasible_portfolio_gives_readable_explanation():
    fraud = Workload(name="fraud-model", mean_gpus=4, peak_gpus=8, busy_hours_per_day=12, min_gpu_memory_gb=80, needs_infiniband=True,
                     may_leave_eu=False, eu_jurisdiction_required=True)
    ok = Workload(name="ok", mean_gpus=1, peak_gpus=1)
    with pytest.raises(PlacementInfeasibleError) as info:
        place_portfolio([ok, fraud], _catalog_like_venues(), hours=168)
    msg = str(info.value)
    assert msg.startswith("Workload 'fraud-model': no venue satisfies EU data centre + EU-jurisdiction provider "
                          "+ ≥80 GB memory + InfiniBand")
    assert "12 fail the EU data centre check" in msg and "3 fail ≥80 GB memory" in msg
    assert "3 fail InfiniBand" in msg and "out of 15 venues" in msg
    assert "'ok'" not in msg
    assert feasibility_problems([ok, fraud], _catalog_like_venues(), 168) == info.value.problems


def test_infeasible_when_requirements_met_but_no_usable_price():
    v = Venues.from_records([{"venue_id": "eu", "is_eu_datacenter": True, "spot_eur_per_gpu_hour": 0.5}])
    w = Workload(name="batch", mean_gpus=1, peak_gpus=1, may_leave_eu=False)
    with pytest.raises(PlacementInfeasibleError, match=r"'batch': 1 venue meets EU data centre but none has an "
                                                       r"on-demand, spot or commitment price.*spot not allowed"):
        place_portfolio([w], v, hours=168)


def test_capacity_infeasibility_names_workloads_and_venues():
    # Only committed capacity (monthly terms) is eligible: both workloads must commit their peak.
    v = Venues.from_records([
        {"venue_id": "dedicated-a", "reserved_eur_per_gpu_hour": 1.0, "capacity_gpus": 8, "min_commitment": "monthly"},
        {"venue_id": "dedicated-b", "reserved_eur_per_gpu_hour": 1.2, "capacity_gpus": 4, "min_commitment": "annual"},
    ])
    a = Workload(name="a", mean_gpus=6, peak_gpus=6)
    b = Workload(name="b", mean_gpus=5, peak_gpus=5)
    with pytest.raises(PlacementInfeasibleError) as info:
        place_portfolio([a, b], v, hours=168)
    msg = str(info.value)
    assert "Venue capacity binds" in msg and "'a' (6 GPUs)" in msg and "'b' (5 GPUs)" in msg
    assert "dedicated-a (8 GPUs)" in msg and "dedicated-b (4 GPUs)" in msg
    # A single peak larger than any venue is caught before solving.
    big = Workload(name="big", mean_gpus=10, peak_gpus=10)
    with pytest.raises(PlacementInfeasibleError, match="'big': no eligible pay-as-you-go venue, so its peak of 10"):
        place_portfolio([big], v, hours=168)
    # 6 + 4 GPUs fit: one workload per venue
    plan = place_portfolio([a, Workload(name="c", mean_gpus=4, peak_gpus=4)], v, hours=168)
    assert {pl.committed_venue_id for pl in plan.placements} == {"dedicated-a", "dedicated-b"}


# --------------------------------------------------------------------------------------------------
# Plans, baselines, reasons, sensitivity
# --------------------------------------------------------------------------------------------------


def _three_venues() -> Venues:
    return Venues.from_records([
        {"venue_id": "eu-od", "on_demand_eur_per_gpu_hour": 2.0, "spot_eur_per_gpu_hour": 0.8,
         "is_eu_datacenter": True, "jurisdiction": "EU", "memory_gb": 80},
        {"venue_id": "eu-res", "reserved_eur_per_gpu_hour": 1.2, "is_eu_datacenter": True, "jurisdiction": "EU",
         "memory_gb": 80, "capacity_gpus": 8},
        {"venue_id": "us-od", "on_demand_eur_per_gpu_hour": 1.5, "reserved_eur_per_gpu_hour": 0.9,
         "is_eu_datacenter": False, "jurisdiction": "US", "memory_gb": 80},
    ])


def test_reason_string_states_break_even_and_capacity():
    w = Workload(name="chat", kind="inference", mean_gpus=9, peak_gpus=12, busy_hours_per_day=16, may_leave_eu=False)
    pl = place_portfolio([w], _three_venues(), hours=168).placements[0]
    assert pl.committed_venue_id == "eu-res" and pl.committed_gpus == 8 and pl.burst_venue_id == "eu-od"
    assert pl.reason.startswith("sensitive → EU data centres only")
    assert "67 % of hours need ≥ 8 GPUs, above the 60 % break-even r/o (1.20/2.00)" in pl.reason
    assert "capacity of eu-res (8 GPUs, shared) holds it below the 12" in pl.reason
    np.testing.assert_allclose(pl.committed_utilisation_fraction, (8 * 112 + 3 * 56) / (8 * 168))


def test_spot_bursts_only_when_allowed_and_includes_overhead():
    base = {"mean_gpus": 2.0, "peak_gpus": 4.0, "busy_hours_per_day": 12}
    v = _three_venues()
    no_spot = place_portfolio([Workload(name="a", may_leave_eu=False, **base)], v, hours=168).placements[0]
    spot = place_portfolio([Workload(name="a", may_leave_eu=False, spot_allowed=True, **base)], v,
                           hours=168).placements[0]
    assert no_spot.burst_price_type == "on_demand" and no_spot.burst_rate_eur_per_gpu_hour == 2.0
    assert spot.burst_price_type == "spot"
    np.testing.assert_allclose(spot.burst_rate_eur_per_gpu_hour, 0.8 * (1 + SPOT_OVERHEAD))
    assert spot.cost_eur_per_month < no_spot.cost_eur_per_month


def test_baselines_and_savings():
    w1 = Workload(name="chat", mean_gpus=9, peak_gpus=12, busy_hours_per_day=16, may_leave_eu=False)
    w2 = Workload(name="batch", mean_gpus=3, peak_gpus=8, busy_hours_per_day=6)
    v = _three_venues()
    plan = place_portfolio([w1, w2], v, hours=168)
    od = baseline_all_on_demand([w1, w2], v, hours=168)
    peak = baseline_dedicated_for_peak([w1, w2], v, hours=168)
    # all on demand: chat 9 GPUs avg at 2.0 (EU only), batch 3 avg at 1.5 (us-od)
    np.testing.assert_allclose(od.total_cost_eur_per_month, (9 * 2.0 + 3 * 1.5) * HOURS_PER_MONTH)
    # dedicated for peak: eu-res holds 8 < 12, so chat has no commitment venue -> 12 on-demand GPUs kept on
    chat, batch = peak.placements
    assert chat.committed_venue_id == "eu-od" and chat.committed_gpus == 12
    assert batch.committed_venue_id == "us-od" and batch.committed_gpus == 8
    np.testing.assert_allclose(peak.total_cost_eur_per_month, (12 * 2.0 + 8 * 0.9) * HOURS_PER_MONTH)
    assert plan.total_cost_eur_per_month <= od.total_cost_eur_per_month + 1e-9
    assert plan.total_cost_eur_per_month <= peak.total_cost_eur_per_month + 1e-9
    saved, frac = plan.savings_against(od)
    assert saved > 0 and 0 < frac < 1
    assert plan.assumptions and all(len(a.row()) == 4 and a.source for a in plan.assumptions)
    assert {"tie_rule", "unknown_location", "spot_overhead_fraction"} <= {a.name for a in plan.assumptions}


def test_baseline_on_demand_lists_unpriced_workloads():
    v = Venues.from_records([{"venue_id": "r", "reserved_eur_per_gpu_hour": 1.0}])
    plan = baseline_all_on_demand([Workload(name="w", mean_gpus=1, peak_gpus=1)], v, hours=168)
    assert plan.unpriced_workloads == ("w",) and math.isnan(plan.placements[0].cost_eur_per_month)
    assert "no eligible on-demand venue" in plan.placements[0].reason


def test_minimum_commitment_above_peak_is_priced_exactly():
    # Constant 3 GPUs, the only commitment venue asks 8 GPUs at 0.5 vs on demand 2.0: 8 x 0.5 = 4 < 3 x 2 = 6.
    v = Venues.from_records([
        {"venue_id": "od", "on_demand_eur_per_gpu_hour": 2.0},
        {"venue_id": "big", "reserved_eur_per_gpu_hour": 0.5, "min_commit_gpus": 8},
    ])
    pl = place_portfolio([Workload(name="w", mean_gpus=3, peak_gpus=3)], v, hours=168).placements[0]
    assert (pl.committed_venue_id, pl.committed_gpus) == ("big", 8)
    np.testing.assert_allclose(pl.cost_eur_per_month, 4.0 * HOURS_PER_MONTH)
    assert "minimum commitment is 8" in pl.reason


def test_sensitivity_is_monotone_in_on_demand_price():
    w = [Workload(name="a", mean_gpus=3, peak_gpus=4, busy_hours_per_day=16),
         Workload(name="b", mean_gpus=2, peak_gpus=6, busy_hours_per_day=8, spot_allowed=True)]
    v = _three_venues()
    s = sensitivity_to_on_demand_price(w, v, [0.5, 1.0, 2.0], hours=168)
    assert np.all(np.diff(s.total_cost_eur_per_month) >= -1e-9)
    assert np.all(s.total_cost_eur_per_month <= s.all_on_demand_cost_eur_per_month + 1e-9)
    assert s.committed_gpus[0] <= s.committed_gpus[-1]


def test_zero_demand_workload_costs_nothing():
    w = Workload(name="idle", hourly_demand_gpus=[0.0] * 168)
    plan = place_portfolio([w], _three_venues(), hours=168)
    assert plan.total_cost_eur_per_month == 0 and plan.placements[0].committed_gpus == 0


# --------------------------------------------------------------------------------------------------
# Venues from the catalog
# --------------------------------------------------------------------------------------------------


def test_venues_from_catalog_offers(store):
    df = store.list_offers(usd_per_eur=1.0411, today=dt.date(2026, 12, 2))
    v = venues_from_offers(df)
    assert v.n_venues == len(df)
    row = df.reset_index(drop=True)
    eu_na = row["is_eu_datacenter"].isna().to_numpy()
    assert not v.is_eu_datacenter[eu_na].any() and not v.is_location_known[eu_na].any()
    ib = row["inter_node"].fillna("").str.startswith("InfiniBand").to_numpy()
    assert (v.has_infiniband == ib).all()
    assert not v.reserved_is_estimated.any()
    # Epoch estimate for a hyperscaler without a published reserved rate
    est = venues_from_offers(df, commitment_term_years=3)
    aws = np.flatnonzero((row["provider_id"] == "aws").to_numpy() & row["reserved_eur_per_gpu_hour"].isna().to_numpy()
                         & row["on_demand_eur_per_gpu_hour"].notna().to_numpy())
    assert aws.size
    np.testing.assert_allclose(est.reserved_eur_per_gpu_hour[aws], v.on_demand_eur_per_gpu_hour[aws] * 0.36)
    assert est.reserved_is_estimated[aws].all() and (est.reserved_term_months[aws] == 36).all()
    # the catalog portfolio solves end to end
    w = [Workload(name="chat", kind="inference", mean_gpus=10, peak_gpus=16, busy_hours_per_day=14,
                  min_gpu_memory_gb=80, may_leave_eu=False),
         Workload(name="train", mean_gpus=30, peak_gpus=32, busy_hours_per_day=20, spot_allowed=True)]
    plan = place_portfolio(w, est)
    assert plan.total_cost_eur_per_month > 0 and not plan.unpriced_workloads


def test_venues_validation():
    with pytest.raises(ValueError, match="unique"):
        Venues.from_records([{"venue_id": "a"}, {"venue_id": "a"}])
    with pytest.raises(ValueError, match="unknown venue field"):
        Venues.from_records([{"venue_id": "a", "price": 1.0}])


# --------------------------------------------------------------------------------------------------
# Issue 14 item 7: whose discount an estimated rate uses; no estimated commitment on marketplace rows
# --------------------------------------------------------------------------------------------------


def _two_provider_frame():
    import pandas as pd

    return pd.DataFrame([
        {"offer_id": "aws-h100", "provider_id": "aws", "provider_name": "AWS", "gpu_model": "H100",
         "on_demand_eur_per_gpu_hour": 10.0, "region": "eu-central-1", "is_eu_datacenter": True},
        {"offer_id": "neo-h100", "provider_id": "neocloud", "provider_name": "Neo", "gpu_model": "H100",
         "on_demand_eur_per_gpu_hour": 2.0, "region": "fr-par-2", "is_eu_datacenter": True},
        {"offer_id": "market-h100", "provider_id": "runpod", "provider_name": "RunPod", "gpu_model": "H100",
         "on_demand_eur_per_gpu_hour": 1.5, "region": "Community Cloud (global)", "is_eu_datacenter": None},
    ])


def test_estimated_rates_name_their_discount_and_skip_marketplace_rows():
    v = venues_from_offers(_two_provider_frame(), commitment_term_years=3, other_provider_discount_fraction=0.3,
                           no_estimate_offer_ids=["market-h100"])
    assert v.reserved_estimate_source.tolist() == ["Epoch AI discount", "your assumed discount", ""]
    np.testing.assert_allclose(v.reserved_eur_per_gpu_hour[:2], [10.0 * (1 - 0.64), 2.0 * 0.7])
    assert np.isnan(v.reserved_eur_per_gpu_hour[2]) and not v.reserved_is_estimated[2]


def test_the_reason_names_the_users_assumed_discount_not_epoch():
    v = venues_from_offers(_two_provider_frame().iloc[:2], commitment_term_years=3,
                           other_provider_discount_fraction=0.3, commit_on_stale_or_unknown=True)  # specs unstated
    plan = place_portfolio([Workload(name="steady", mean_gpus=8, peak_gpus=8, gpu_model="H100")], v, hours=168)
    pl = plan.placements[0]
    assert (pl.committed_venue_id, pl.committed_rate_is_estimated) == ("neo-h100", True)
    assert "your assumed discount" in pl.reason and "Epoch" not in pl.reason
    names = {a.name: a for a in plan.assumptions}
    assert names["assumed_reserved_rates"].value == 1 and "user input" in names["assumed_reserved_rates"].source


def test_a_marketplace_row_gets_no_estimated_commitment():
    frame = _two_provider_frame().iloc[[2]]
    v = venues_from_offers(frame, commitment_term_years=3, other_provider_discount_fraction=0.3,
                           no_estimate_offer_ids=["market-h100"])
    plan = place_portfolio([Workload(name="steady", mean_gpus=8, peak_gpus=8)], v, hours=168)
    assert plan.placements[0].committed_gpus == 0  # bursts on demand: no commitment is sold there


# --------------------------------------------------------------------------------------------------
# Marketplace hosts (one third-party machine, no SLA): interruption-tolerant or development work only
# --------------------------------------------------------------------------------------------------


def _host_and_provider() -> Venues:
    return Venues.from_records([
        {"venue_id": "host", "on_demand_eur_per_gpu_hour": 1.0, "is_marketplace_host": True, "is_eu_datacenter": True},
        {"venue_id": "cloud", "on_demand_eur_per_gpu_hour": 3.0, "is_eu_datacenter": True},
    ])


@pytest.mark.parametrize(("update", "expected"), [
    ({}, "cloud"),  # production work: never on one host without an SLA, however cheap
    ({"latency_sensitive": True, "spot_allowed": True}, "cloud"),  # serving users: spot_allowed does not count
    ({"spot_allowed": True}, "host"),  # tolerates interruptions
    ({"kind": "development"}, "host"),  # the cheap development tier
])
def test_marketplace_host_takes_only_tolerant_or_development_work(update, expected):
    w = Workload(name="w", mean_gpus=2, peak_gpus=2, **update)
    plan = place_portfolio([w], _host_and_provider(), hours=168)
    assert plan.placements[0].burst_venue_id == expected
    # Without the flag (the user's opt-in: the caller passes no host ids) the cheaper host wins for every workload.
    flat = _host_and_provider()
    flat = Venues.from_records([{"venue_id": v, "on_demand_eur_per_gpu_hour": r, "is_eu_datacenter": True}
                                for v, r in zip(flat.venue_id, flat.on_demand_eur_per_gpu_hour, strict=True)])
    assert place_portfolio([w], flat, hours=168).placements[0].burst_venue_id == "host"


def test_only_marketplace_hosts_is_infeasible_for_production_with_the_reason():
    v = Venues.from_records([{"venue_id": "host", "on_demand_eur_per_gpu_hour": 1.0, "is_marketplace_host": True}])
    with pytest.raises(PlacementInfeasibleError, match=r"no venue satisfies a provider's own capacity "
                                                       r"\(not a marketplace host\) \(1 fail"):
        place_portfolio([Workload(name="api", mean_gpus=1, peak_gpus=1)], v, hours=168)


def test_venues_from_offers_flags_only_the_named_marketplace_hosts():
    import pandas as pd

    frame = pd.DataFrame({"offer_id": ["a", "b"], "provider_id": ["vastai", "x"], "on_demand_eur_per_gpu_hour": [1.0, 2.0]})
    assert venues_from_offers(frame, marketplace_host_offer_ids=["a"]).is_marketplace_host.tolist() == [True, False]
    assert venues_from_offers(frame).is_marketplace_host.tolist() == [False, False]
