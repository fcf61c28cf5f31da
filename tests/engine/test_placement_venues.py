"""Issue 29 (venues): own cluster and managed-dedicated venues, lead times, capacities, committability, the
monthly ramp and the four-strategy comparison. The MILP is checked against exhaustive enumeration (the oracle
style of test_placement.py) on small cases that mix own and dedicated venues with lead times and capacities."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.adapters import venues_from_offers
from engine.adapters_placement import uncommittable_reasons
from engine.placement import (
    COMMITMENT_REQUIRED,
    DEFAULT_OWN_LEAD_TIME_DAYS,
    OWN_VENUE_ID,
    OwnCluster,
    PlacementInfeasibleError,
    Venues,
    Workload,
    compare_strategies,
    demand_profile_gpus,
    monthly_ramp,
    place_portfolio,
)
from engine.tco import HOURS_PER_MONTH, TcoInputs, horizon_cost_eur_per_gpu
from tests.engine.test_placement import _burst_rates, _commit_rate, _random_case

HOURS = 168


# --------------------------------------------------------------------------------------------------
# Oracle: exhaustive enumeration with lead times (independent of the engine's availability code)
# --------------------------------------------------------------------------------------------------


def _start_month(rec: dict, months: int) -> int:
    days = rec.get("lead_time_days", math.nan)
    days = 0.0 if math.isnan(days) else days
    return min(math.ceil(round(days / (730 / 24), 9)), months)


def brute_force_with_lead(workloads, records, hours, months):
    """Per workload every (committed venue or none, k, burst) choice, costed month by month: before the venue's
    lead time every GPU-hour bursts; then every combination within venue capacity. Cost per month averaged
    over ``months``."""
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
        for b in bursts:
            keep((-1, 0), b * d.sum() * HOURS_PER_MONTH / hours)
        for c, rec in enumerate(records):
            r = _commit_rate(w, rec)
            if not math.isfinite(r) or peak == 0 or not rec.get("is_committable", True):
                continue
            start = _start_month(rec, months)
            if start >= months:
                continue
            m = int(rec.get("min_commit_gpus", 0))
            for k in range(max(1, m), max(peak, m) + 1):
                over = np.maximum(d - k, 0).sum()
                ready = r * k * HOURS_PER_MONTH
                if over == 0 and start == 0:
                    keep((c, k), ready)
                for b in bursts:
                    before = b * d.sum() * HOURS_PER_MONTH / hours
                    after = ready + b * over * HOURS_PER_MONTH / hours
                    keep((c, k), (start * before + (months - start) * after) / months)
        per_workload.append(list(choices.items()))
    if any(not opts for opts in per_workload):
        return None, None
    caps = np.array([rec.get("capacity_gpus", math.inf) for rec in records], dtype=float)
    best, best_combo = math.inf, None
    for combo in itertools.product(*per_workload):
        use = np.zeros(len(records))
        for (c, k), _ in combo:
            if c >= 0:
                use[c] += k
        if np.all(use <= caps):
            total = sum(cost for _, cost in combo)
            if total < best:
                best, best_combo = total, combo
    return (None, None) if best_combo is None else (best, best_combo)


def _case_with_private_side(seed: int):
    """The random cases of test_placement.py plus lead times, dedicated tenancy, uncommittable (stale) offers
    and, in most cases, the client's own cluster (TCO-priced, sized by the plan or fixed)."""
    workloads, records = _random_case(seed)
    rng = np.random.default_rng(1000 + seed)
    months = int(rng.choice([6, 12, 36]))
    for rec in records:
        if rng.random() < 0.5:
            rec["lead_time_days"] = float(rng.choice([20.0, 45.0, 91.0, 400.0]))
        rec["tenancy"] = str(rng.choice(["dedicated", "shared", "not stated"]))
        rec["is_committable"] = bool(rng.random() < 0.85)
    if rng.random() < 0.7:
        fixed = int(rng.choice([2, 4])) if rng.random() < 0.4 else None
        own = OwnCluster(lead_time_days=float(rng.choice([0.0, 30.0, 91.0])), fixed_gpus=fixed,
                         max_gpus=None if fixed or rng.random() < 0.5 else float(rng.integers(1, 6)),
                         memory_gb=80.0, is_eu_datacenter=True)
        records.append(own.venue_record(months))
    return workloads, records, months


@pytest.mark.parametrize("seed", range(50))
def test_milp_with_lead_times_own_and_dedicated_equals_enumeration(seed):
    workloads, records, months = _case_with_private_side(seed)
    venues = Venues.from_records(records)
    best, _ = brute_force_with_lead(workloads, records, HOURS, months)
    if best is None:
        with pytest.raises(PlacementInfeasibleError):
            place_portfolio(workloads, venues, hours=HOURS, mip_rel_gap=1e-9, horizon_months=months)
        return
    plan = place_portfolio(workloads, venues, hours=HOURS, mip_rel_gap=1e-9, horizon_months=months)
    assert plan.total_cost_eur_per_month == pytest.approx(best, rel=1e-9, abs=1e-6)
    by_id = {rec["venue_id"]: rec for rec in records}
    for pl in plan.placements:
        if pl.committed_gpus:
            rec = by_id[pl.committed_venue_id]
            assert rec.get("is_committable", True)
            assert pl.committed_from_month == _start_month(rec, months)
        if pl.burst_venue_id is not None and pl.burst_gpu_hours_per_month > 0:
            assert by_id[pl.burst_venue_id]["min_commitment"] not in COMMITMENT_REQUIRED


def test_enumeration_cases_exercise_lead_times_and_the_own_cluster():
    """Guard that the oracle cases are not trivial: some commit after a lead time, some on the own cluster."""
    late = own = 0
    for seed in range(50):
        workloads, records, months = _case_with_private_side(seed)
        best, combo = brute_force_with_lead(workloads, records, HOURS, months)
        if best is None:
            continue
        for (c, _k), _ in combo:
            if c >= 0:
                late += _start_month(records[c], months) > 0
                own += records[c]["venue_id"] == OWN_VENUE_ID
    assert late >= 5 and own >= 5, (late, own)


# --------------------------------------------------------------------------------------------------
# Properties: never before the lead time, never above capacity (month by month)
# --------------------------------------------------------------------------------------------------


@st.composite
def _portfolios(draw):
    n_v = draw(st.integers(2, 4))
    records = [{"venue_id": "od", "on_demand_eur_per_gpu_hour": draw(st.floats(1.5, 4.0))}]
    for j in range(n_v):
        records.append({
            "venue_id": f"c{j}", "reserved_eur_per_gpu_hour": draw(st.floats(0.3, 2.0)),
            "capacity_gpus": draw(st.sampled_from([math.inf, 1.0, 3.0, 6.0])),
            "lead_time_days": draw(st.sampled_from([math.nan, 0.0, 31.0, 100.0, 250.0, 2000.0])),
            "min_commit_gpus": draw(st.sampled_from([0.0, 0.0, 2.0])),
            "tenancy": draw(st.sampled_from(["dedicated", "shared", "owned", "not stated"])),
        })
    workloads = []
    for i in range(draw(st.integers(1, 3))):
        busy = draw(st.integers(1, 24))
        off_peak_share = draw(st.floats(0.0, 1.0))  # off-peak level as a share of the peak of 6 GPUs
        mean = 6.0 * (busy / 24 + off_peak_share * (1 - busy / 24))
        workloads.append(Workload(name=f"w{i}", mean_gpus=mean, peak_gpus=6.0, busy_hours_per_day=busy))
    return workloads, records, draw(st.sampled_from([3, 12, 36]))


@settings(max_examples=60, deadline=None)
@given(_portfolios())
def test_a_plan_never_uses_a_venue_before_its_lead_time_nor_above_its_capacity(case):
    workloads, records, months = case
    venues = Venues.from_records(records)
    plan = place_portfolio(workloads, venues, hours=HOURS, horizon_months=months)
    ramp = monthly_ramp(plan)
    start = dict(zip(venues.venue_id.tolist(), venues.usable_from_month(months).tolist(), strict=True))
    cap = dict(zip(venues.venue_id.tolist(), venues.capacity_gpus.tolist(), strict=True))
    for vid, gpus in ramp.committed_gpus.items():
        assert not gpus[: start[vid]].any(), f"{vid} used before month {start[vid] + 1}"
        assert gpus.max() <= cap[vid]
    assert ramp.cost_eur.mean() == pytest.approx(plan.total_cost_eur_per_month, rel=1e-9, abs=1e-6)
    demand = sum(pl.mean_demand_gpus for pl in plan.placements) * HOURS_PER_MONTH
    committed_hours = sum(ramp.committed_gpus.values(), np.zeros(months)) * HOURS_PER_MONTH
    assert np.all(ramp.burst_gpu_hours + committed_hours >= demand - 1e-6)  # demand is always served


# --------------------------------------------------------------------------------------------------
# Own cluster: one formula path with Rent or own
# --------------------------------------------------------------------------------------------------


def test_own_cluster_rate_is_the_rent_or_own_owned_total_over_the_usable_hours():
    tco = TcoInputs(cluster_gpus=16)
    own = OwnCluster(tco=tco, lead_time_days=91, fixed_gpus=16)
    months = 36 - 3  # 91 days = 3 months of lead time
    params = dict(tco.as_arrays(), horizon_months=np.asarray(months), utilisation_fraction=np.asarray(1.0))
    expected = float(horizon_cost_eur_per_gpu("owned", **params)) / (HOURS_PER_MONTH * months)
    assert own.cost_eur_per_gpu_hour(36) == pytest.approx(expected, rel=1e-12)
    rec = own.venue_record(36)
    assert (rec["capacity_gpus"], rec["min_commit_gpus"], rec["tenancy"]) == (16.0, 16.0, "owned")
    assert rec["jurisdiction"] == "EU" and rec["min_commitment"] in COMMITMENT_REQUIRED  # never a burst venue
    dearer = OwnCluster(tco=tco.model_copy(update={"server_capex_eur_per_gpu": 40_000.0}), fixed_gpus=16)
    assert dearer.cost_eur_per_gpu_hour(36) > OwnCluster(tco=tco, fixed_gpus=16).cost_eur_per_gpu_hour(36)


def test_own_cluster_default_lead_time_is_two_quarters_and_outlasting_the_horizon_rules_it_out():
    assert DEFAULT_OWN_LEAD_TIME_DAYS == 182.0 and OwnCluster().usable_from_month(36) == 6
    assert math.isnan(OwnCluster(lead_time_days=400).cost_eur_per_gpu_hour(12))
    od = {"venue_id": "od", "on_demand_eur_per_gpu_hour": 4.0, "is_eu_datacenter": True}
    v = Venues.from_records([od, OwnCluster(lead_time_days=400).venue_record(12)])
    plan = place_portfolio([Workload(name="base", mean_gpus=8, peak_gpus=8)], v, hours=HOURS, horizon_months=12)
    assert plan.total_committed_gpus == 0


def test_the_plan_bursts_until_the_own_cluster_is_ready_then_owns_the_base():
    od = {"venue_id": "od", "on_demand_eur_per_gpu_hour": 4.0, "is_eu_datacenter": True, "jurisdiction": "EU"}
    own = OwnCluster(lead_time_days=91)
    v = Venues.from_records([od, own.venue_record(36)])
    w = Workload(name="base+burst", mean_gpus=12, peak_gpus=24, busy_hours_per_day=6, may_leave_eu=False)
    plan = place_portfolio([w], v, hours=HOURS, horizon_months=36)
    pl = plan.placements[0]
    assert pl.committed_venue_id == OWN_VENUE_ID and pl.committed_gpus >= 8 and pl.committed_from_month == 3
    assert "usable from month 4 of 36" in pl.reason
    ramp = monthly_ramp(plan)
    assert ramp.committed_gpus[OWN_VENUE_ID][:3].tolist() == [0, 0, 0]
    assert ramp.cost_eur[0] == pytest.approx(12 * HOURS_PER_MONTH * 4.0)  # all on demand before it is ready
    assert ramp.cost_eur[5] < ramp.cost_eur[0]


def test_a_cheaper_venue_that_is_ready_later_loses_to_a_dearer_one_ready_now():
    """Six months of on-demand bursting before the cheap venue is ready cost more than its lower rate saves."""
    records = [{"venue_id": "od", "on_demand_eur_per_gpu_hour": 3.0},
               {"venue_id": "late", "reserved_eur_per_gpu_hour": 1.0, "lead_time_days": 182},
               {"venue_id": "now", "reserved_eur_per_gpu_hour": 1.5}]
    w = Workload(name="steady", mean_gpus=4, peak_gpus=4)
    plan = place_portfolio([w], Venues.from_records(records), hours=HOURS, horizon_months=12)
    assert plan.placements[0].committed_venue_id == "now"
    assert plan.total_cost_eur_per_month == pytest.approx(1.5 * 4 * HOURS_PER_MONTH)
    assert brute_force_with_lead([w], records, HOURS, 12)[0] == pytest.approx(plan.total_cost_eur_per_month)
    longer = place_portfolio([w], Venues.from_records(records), hours=HOURS, horizon_months=60)
    assert longer.placements[0].committed_venue_id == "late"  # over five years the wait pays


def test_a_workload_that_cannot_burst_commits_only_where_capacity_is_ready_at_once():
    late = {"venue_id": "late", "reserved_eur_per_gpu_hour": 1.0, "lead_time_days": 60, "min_commitment": "annual"}
    now = {"venue_id": "now", "reserved_eur_per_gpu_hour": 2.0, "min_commitment": "annual"}
    w = Workload(name="steady", mean_gpus=4, peak_gpus=4)
    plan = place_portfolio([w], Venues.from_records([late, now]), hours=HOURS, horizon_months=12)
    assert plan.placements[0].committed_venue_id == "now"
    with pytest.raises(PlacementInfeasibleError, match="not ready in time"):
        place_portfolio([w], Venues.from_records([late]), hours=HOURS, horizon_months=12)


# --------------------------------------------------------------------------------------------------
# The offer frame: quote rows, dedicated, capacity, lead time, stale or unstated specs
# --------------------------------------------------------------------------------------------------


def _frame() -> pd.DataFrame:
    base = {"provider_id": "p", "gpu_model": "H100", "memory_gb": 80.0, "inter_node": "InfiniBand-NDR",
            "intra_node": "NVLink-NVSwitch", "is_eu_datacenter": True, "parent_jurisdiction": "EU",
            "min_commitment": "none", "is_stale": False}
    return pd.DataFrame([
        {**base, "offer_id": "od", "provider_name": "Cloud", "on_demand_eur_per_gpu_hour": 4.0},
        {**base, "offer_id": "old", "provider_name": "Old", "reserved_eur_per_gpu_hour": 1.0,
         "reserved_term_months": 36, "is_stale": True},
        {**base, "offer_id": "vague", "provider_name": "Vague", "reserved_eur_per_gpu_hour": 1.1,
         "reserved_term_months": 36, "inter_node": None},
        {**base, "offer_id": "quote:acme", "provider_name": "Acme", "reserved_eur_per_gpu_hour": 2.5,
         "reserved_term_months": 36, "capacity_gpus": 16.0, "lead_time_days": 45.0, "is_dedicated": True,
         "price_origin": "quote", "quote_label": "Quote from Acme, 2026-11-20"},
    ])


def test_quote_rows_carry_capacity_lead_time_and_dedicated_tenancy():
    v = venues_from_offers(_frame(), capacity_gpus={"quote:acme": 8})
    assert v.tenancy.tolist() == ["not stated", "not stated", "not stated", "dedicated"]
    assert v.capacity_gpus.tolist() == [math.inf, math.inf, math.inf, 8.0]  # the user's cap lowers a stated one
    assert v.usable_from_month(36).tolist() == [0, 0, 0, 2]
    assert venues_from_offers(_frame(), capacity_gpus={"quote:acme": 40}).capacity_gpus[3] == 16.0


def test_no_commitment_on_a_stale_or_unstated_offer_unless_the_user_opts_in():
    assert uncommittable_reasons(_frame()) == ["", "stale price", "fabric not stated", ""]
    w = Workload(name="base", mean_gpus=8, peak_gpus=8)
    plan = place_portfolio([w], venues_from_offers(_frame()), hours=HOURS, horizon_months=36)
    assert plan.placements[0].committed_venue_id == "quote:acme"  # 2.5, not the stale 1.0 or the vague 1.1
    opted = place_portfolio([w], venues_from_offers(_frame(), commit_on_stale_or_unknown=True), hours=HOURS,
                            horizon_months=36)
    assert opted.placements[0].committed_venue_id == "old"


# --------------------------------------------------------------------------------------------------
# The four strategies (issue 29, "done when")
# --------------------------------------------------------------------------------------------------


def _consultant_case():
    """8 GPUs base 24/7 in the EU under an EU-controlled provider, bursts to 24, 36 months."""
    w = Workload(name="platform", mean_gpus=8 + 16 * 10 * 5 / 168, peak_gpus=24, busy_hours_per_day=10,
                 busy_days_per_week=5, may_leave_eu=False, eu_jurisdiction_required=True, gpu_model="H100")
    frame = _frame()
    frame.loc[frame.offer_id == "vague", "inter_node"] = "InfiniBand-NDR"  # a stated, fresh public commitment
    frame.loc[frame.offer_id == "vague", "reserved_eur_per_gpu_hour"] = 3.2
    frame = frame[frame.offer_id != "old"]
    return [w], venues_from_offers(frame)


def test_four_strategies_compared_and_the_cheapest_feasible_recommended():
    workloads, venues = _consultant_case()
    c = compare_strategies(workloads, venues, OwnCluster(country="DE"), horizon_months=36, hours=HOURS)
    assert [r.key for r in c.results] == ["all_on_demand", "own_plus_burst", "dedicated_plus_burst",
                                          "reserved_plus_burst"]
    assert all(r.feasible for r in c.results)
    costs = {r.key: r.total_cost_eur for r in c.results}
    assert c.recommended == min(costs, key=costs.get)
    own = c.result("own_plus_burst")
    assert own.plan.placements[0].committed_venue_id == OWN_VENUE_ID and own.committed_gpus >= 8
    assert "182 days" in own.lead_time and "own site" in own.residency
    assert any("Rent-or-own engine" in a for a in own.assumptions)
    ded = c.result("dedicated_plus_burst")
    assert ded.plan.placements[0].committed_venue_id == "quote:acme" and "45 days" in ded.lead_time
    assert c.result("reserved_plus_burst").plan.placements[0].committed_venue_id == "vague"
    od = c.result("all_on_demand")
    assert od.total_cost_eur == pytest.approx(workloads[0].mean_gpus * HOURS_PER_MONTH * 4.0 * 36, rel=1e-3)
    assert c.reasons[0].startswith(c.result(c.recommended).label)


def test_a_strategy_without_venues_is_reported_not_silently_dropped():
    workloads, venues = _consultant_case()
    public = venues.subset(venues.tenancy != "dedicated")
    c = compare_strategies(workloads, public, None, horizon_months=36, hours=HOURS)
    assert not c.result("own_plus_burst").feasible and "no own cluster" in c.result("own_plus_burst").problems[0]
    assert "no managed dedicated offer" in c.result("dedicated_plus_burst").problems[0]
    assert c.recommended in ("all_on_demand", "reserved_plus_burst")
    assert any("Managed dedicated + burst not possible" in r for r in c.reasons)


# --------------------------------------------------------------------------------------------------
# Item 5: only venues the Workload engine can price for the workload
# --------------------------------------------------------------------------------------------------


def test_a_workload_restricted_to_priced_offers_never_uses_another():
    records = [{"venue_id": "cheap-unpriceable", "on_demand_eur_per_gpu_hour": 1.0},
               {"venue_id": "priced", "on_demand_eur_per_gpu_hour": 3.0}]
    free = Workload(name="serving", kind="inference", mean_gpus=2, peak_gpus=2)
    bound = free.model_copy(update={"allowed_venue_ids": frozenset({"priced"})})
    v = Venues.from_records(records)
    assert place_portfolio([free], v, hours=HOURS).placements[0].burst_venue_id == "cheap-unpriceable"
    assert place_portfolio([bound], v, hours=HOURS).placements[0].burst_venue_id == "priced"
    nowhere = free.model_copy(update={"allowed_venue_ids": frozenset()})
    with pytest.raises(PlacementInfeasibleError, match="priced by the Workload engine"):
        place_portfolio([nowhere], v, hours=HOURS)


def test_scoring_and_workload_leave_out_a_multi_year_price_on_a_stale_or_unstated_offer():
    """Item 4 on Scoring (decision matrix) and Workload (outlier_in): on a committed-price basis such rows are
    flagged like price outliers (left out unless the user opts in); on demand they are not."""
    from engine.adapters import build_decision_matrix, outlier_in

    frame = _frame().assign(reserved_3y_eur_per_gpu_hour=[None, 1.0, 1.1, 2.5])
    m = build_decision_matrix(frame, price_basis="reserved_3y")
    assert m.attributes["price_is_outlier"].tolist() == [False, True, True, False]
    assert "stale price" in m.attributes["price_outlier_reason"][1]
    assert "Use price outliers" in m.attributes["price_outlier_reason"][2]
    assert not build_decision_matrix(frame, price_basis="on_demand").attributes["price_is_outlier"].any()
    flagged, why = outlier_in(frame, ["reserved_eur_per_gpu_hour"])
    assert flagged.tolist() == [False, True, True, False] and "fabric not stated" in why[2]
    assert not outlier_in(frame, ["on_demand_eur_per_gpu_hour", "reserved_eur_per_gpu_hour"])[0].any()


def test_the_saving_against_all_on_demand_is_said_once_when_on_demand_is_the_runner_up():
    """Seen in the Placement screenshot: "156,536 EUR (11 %) less than the next, all on demand" followed by "saves
    156,536 EUR against all on demand". One sentence when the runner-up is all on demand; both otherwise."""
    workloads, venues = _consultant_case()
    public = venues.subset(venues.tenancy != "dedicated").without_commitments()  # nothing to reserve: ties on demand
    c = compare_strategies(workloads, public, OwnCluster(country="DE"), horizon_months=36, hours=HOURS)
    assert c.recommended == "own_plus_burst"
    said = [r for r in c.reasons if "against all on demand" in r or "less than the next" in r]
    assert len(said) == 1 and said[0].endswith("less than the next, all on demand")
    c = compare_strategies(workloads, venues, OwnCluster(country="DE"), horizon_months=36, hours=HOURS)
    assert c.recommended == "own_plus_burst"  # runner-up: managed dedicated, so the saving vs on demand is its own
    assert [r for r in c.reasons if "less than the next" in r][0].endswith("managed dedicated + burst")
    assert sum("against all on demand" in r for r in c.reasons) == 1


def test_dedicated_catalog_offers_without_a_committed_price_are_named_in_the_reason():
    """#29 item 2: catalog offers stated dedicated (is_dedicated True, e.g. OCI bare metal) are dedicated venues;
    without a committed price the strategy stays impossible and says that dedicated offers exist without one.
    With an assumed discount their estimated term rate makes it possible, and the result says it is estimated."""
    frame = pd.DataFrame([
        {"offer_id": "bm", "provider_id": "oracle", "provider_name": "OCI", "gpu_model": "H100", "memory_gb": 80.0,
         "intra_node": "NVLink-NVSwitch", "inter_node": "RoCEv2", "is_eu_datacenter": True,
         "parent_jurisdiction": "US", "min_commitment": "none", "on_demand_eur_per_gpu_hour": 9.0,
         "spot_eur_per_gpu_hour": None, "reserved_eur_per_gpu_hour": None, "reserved_term_months": None,
         "is_dedicated": True},
        {"offer_id": "vm", "provider_id": "example", "provider_name": "Example", "gpu_model": "H100",
         "memory_gb": 80.0, "intra_node": "NVLink-NVSwitch", "inter_node": "RoCEv2", "is_eu_datacenter": True,
         "parent_jurisdiction": "US", "min_commitment": "none", "on_demand_eur_per_gpu_hour": 8.0,
         "spot_eur_per_gpu_hour": None, "reserved_eur_per_gpu_hour": 5.0, "reserved_term_months": 12.0,
         "is_dedicated": pd.NA}])
    venues = venues_from_offers(frame)
    assert venues.tenancy.tolist() == ["dedicated", "not stated"]
    w = Workload(name="base", mean_gpus=8, peak_gpus=8)
    c = compare_strategies([w], venues, None, horizon_months=12, hours=HOURS)
    why = c.result("dedicated_plus_burst").problems[0]
    assert "no managed dedicated offer" in why and "1 dedicated offer stated, none with a committed price" in why
    assert c.result("reserved_plus_burst").plan.placements[0].committed_venue_id == "vm"  # shared/not stated only
    est = venues_from_offers(frame, commitment_term_years=1, other_provider_discount_fraction=0.5)
    ded = compare_strategies([w], est, None, horizon_months=12, hours=HOURS).result("dedicated_plus_burst")
    assert ded.feasible and ded.plan.placements[0].committed_venue_id == "bm"
    assert any("estimated" in n for n in ded.assumptions)
