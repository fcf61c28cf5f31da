"""Benchmark of the portfolio placement MILP: 50 workloads x 8,760-hour profiles x 30 venues.

Run from anywhere: ``python bench/bench_placement.py``. A synthetic but catalog-shaped case (fixed seed):

* 30 venues: EU neoclouds (some EU-jurisdiction, some with InfiniBand), EU regions of US hyperscalers,
  US regions, two managed dedicated offers that require a monthly term (tenancy ``dedicated``, lead times of
  30-120 days) and the client's own cluster (priced by the Rent-or-own engine, 182-day lead time, at most
  64 GPUs; issue #29), over a 36-month horizon; about half sell committed
  capacity, most of those with a finite capacity (16-96 GPUs) and some with a minimum of 8 GPUs; a few
  have spot prices;
* 50 workloads, each an uploaded 8,760-hour series (diurnal and weekly cycles, bursts, noise) with a peak
  of 2-64 GPUs; about a third must stay in the EU, some need an EU-jurisdiction provider, 80 GB and
  InfiniBand, some allow spot, some are latency-sensitive.

:func:`engine.placement.place_portfolio` is timed end to end (demand profiles, duration curves,
eligibility, pruning, the HiGHS solve and the plan with its reason strings), best of 3 with
``time.perf_counter``. Target on the 2-core reference machine: under 2 s. The two baselines are timed
once for context. A second, *contended* variant gives every venue that sells commitment a finite
capacity (unknown capacities become 40 GPUs), so the capacity coupling does most of the work; it is timed
the same way and reported against the same target. The script always exits 0: benchmarks report, they
do not fail.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from dataclasses import replace  # noqa: E402

from engine.placement import (  # noqa: E402  (import after the sys.path set-up)
    OwnCluster,
    Venues,
    Workload,
    baseline_all_on_demand,
    baseline_dedicated_for_peak,
    compare_strategies,
    place_portfolio,
)
from engine.units import HOURS_PER_YEAR  # noqa: E402

N_WORKLOADS = 50
N_VENUES = 30
HOURS = int(HOURS_PER_YEAR)
REPEATS = 3
TARGET_S = 2.0
SEED = 2026
HORIZON_MONTHS = 36


def synthetic_venues(rng: np.random.Generator) -> Venues:
    """30 catalog-shaped venues (see the module docstring)."""
    recs = []
    for j in range(N_VENUES):
        group = "eu-neo" if j < 10 else "eu-hyper" if j < 16 else "us" if j < 27 else "dedicated"
        on_demand = float(rng.uniform(1.8, 3.2) if group == "eu-neo" else rng.uniform(2.5, 6.0))
        rec = {
            "venue_id": f"{group}-{j:02d}",
            "provider": f"provider-{j % 17}",
            "gpu_model": str(rng.choice(["H100", "H200", "A100-80GB"])),
            "memory_gb": float(rng.choice([80.0, 141.0, 80.0])),
            "has_infiniband": bool(rng.random() < (0.5 if group != "eu-neo" else 0.3)),
            "has_nvlink": bool(rng.random() < 0.7),
            "is_eu_datacenter": group in ("eu-neo", "eu-hyper") or (group == "dedicated" and j % 2 == 0),
            "jurisdiction": "EU" if group == "eu-neo" and j % 3 != 0 else "US" if group != "eu-neo" else "UK",
            "on_demand_eur_per_gpu_hour": on_demand,
            "spot_eur_per_gpu_hour": on_demand * 0.4 if rng.random() < 0.25 else float("nan"),
        }
        if group == "dedicated" and j == N_VENUES - 1:  # the client's own cluster (issue #29)
            rec = OwnCluster(max_gpus=64.0).venue_record(HORIZON_MONTHS)
            rng.uniform(1.4, 2.0), rng.choice([32, 64, 96])  # keep the random stream of the other venues
        elif group == "dedicated":
            rec.update(min_commitment="monthly", on_demand_eur_per_gpu_hour=float(rng.uniform(1.4, 2.0)),
                       spot_eur_per_gpu_hour=float("nan"), capacity_gpus=float(rng.choice([32, 64, 96])),
                       min_commit_gpus=8.0, jurisdiction="EU" if j % 2 == 0 else "US", tenancy="dedicated",
                       lead_time_days=float(30 + 45 * (j - 27)))
        elif rng.random() < 0.55:
            rec.update(reserved_eur_per_gpu_hour=on_demand * float(rng.uniform(0.36, 0.75)),
                       reserved_term_months=float(rng.choice([12, 36])))
            if rng.random() < 0.7:
                rec["capacity_gpus"] = float(rng.choice([16, 32, 48, 64, 96]))
            if rng.random() < 0.3:
                rec["min_commit_gpus"] = 8.0
        recs.append(rec)
    return Venues.from_records(recs)


def synthetic_workloads(rng: np.random.Generator) -> list[Workload]:
    """50 workloads with uploaded 8,760-hour series (see the module docstring)."""
    h = np.arange(HOURS)
    out = []
    for i in range(N_WORKLOADS):
        peak = int(rng.integers(2, 65))
        kind = ["training", "inference", "development"][i % 3]
        if kind == "inference":
            shape = 0.55 + 0.45 * np.sin(2 * np.pi * (h % 24 - 8) / 24) - 0.2 * ((h // 24) % 7 >= 5)
        elif kind == "training":
            on = rng.random(HOURS // 24 + 1) < rng.uniform(0.4, 0.9)  # whole-day runs
            shape = np.where(np.repeat(on, 24)[:HOURS], 0.95, 0.15)
        else:
            shape = np.where(((h % 24) >= 9) & ((h % 24) < 18) & ((h // 24) % 7 < 5), 0.8, 0.05)
        series = np.clip(np.round(peak * shape + rng.normal(0, 0.08 * peak, HOURS)), 0, peak)
        bursts = rng.integers(0, HOURS, size=30)
        series[bursts] = peak
        sensitive = rng.random() < 0.35
        out.append(Workload(
            name=f"{kind}-{i:02d}", kind=kind, hourly_demand_gpus=series.tolist(),
            may_leave_eu=not sensitive, eu_jurisdiction_required=sensitive and rng.random() < 0.3,
            min_gpu_memory_gb=80.0 if rng.random() < 0.4 else 0.0,
            needs_infiniband=kind == "training" and rng.random() < 0.3,
            spot_allowed=kind != "inference" and rng.random() < 0.5,
            latency_sensitive=kind == "inference" and rng.random() < 0.3,
        ))
    return out


def contended(venues: Venues) -> Venues:
    """Every venue that sells commitment gets a finite capacity (unknown -> 40 GPUs)."""
    sells = np.isfinite(venues.commit_rate_eur_per_gpu_hour)
    cap = np.where(sells & np.isinf(venues.capacity_gpus), 40.0, venues.capacity_gpus)
    return replace(venues, capacity_gpus=cap)


def time_plan(workloads: list[Workload], venues: Venues):
    """Best of REPEATS wall times of place_portfolio, and the last plan."""
    times = []
    plan = None
    for _ in range(REPEATS):
        start = time.perf_counter()
        plan = place_portfolio(workloads, venues, hours=HOURS, time_limit_s=10.0, mip_rel_gap=1e-4,
                               horizon_months=HORIZON_MONTHS)
        times.append(time.perf_counter() - start)
    assert plan is not None
    return times, plan


def main() -> dict[str, object]:
    """Build the case, time place_portfolio (best of 3) and the baselines, print and return the numbers."""
    rng = np.random.default_rng(SEED)
    venues = synthetic_venues(rng)
    workloads = synthetic_workloads(rng)
    times, plan = time_plan(workloads, venues)
    best = min(times)
    c_times, c_plan = time_plan(workloads, contended(venues))
    c_best = min(c_times)
    start = time.perf_counter()
    on_demand = baseline_all_on_demand(workloads, venues, hours=HOURS)
    od_s = time.perf_counter() - start
    start = time.perf_counter()
    dedicated = baseline_dedicated_for_peak(workloads, venues, hours=HOURS)
    peak_s = time.perf_counter() - start
    start = time.perf_counter()
    comparison = compare_strategies(workloads, venues.subset(venues.tenancy != "owned"), OwnCluster(max_gpus=64.0),
                                    horizon_months=HORIZON_MONTHS, hours=HOURS)
    compare_s = time.perf_counter() - start
    n_committed = sum(pl.committed_gpus > 0 for pl in plan.placements)
    full = [vid for vid, used in plan.venue_committed_gpus.items() if used >= plan.venue_capacity_gpus[vid]]
    saved_od, frac_od = plan.savings_against(on_demand)
    saved_pk, frac_pk = plan.savings_against(dedicated)
    passed = best < TARGET_S
    c_full = sum(used >= c_plan.venue_capacity_gpus[vid] for vid, used in c_plan.venue_committed_gpus.items())
    print(f"Placement MILP benchmark ({N_WORKLOADS} workloads x {HOURS:,} h x {N_VENUES} venues; "
          f"best of {REPEATS}, time.perf_counter)")
    print(f"place_portfolio end to end: {best * 1e3:.0f} ms (runs: {', '.join(f'{t * 1e3:.0f}' for t in times)} ms; "
          f"HiGHS solve {plan.solve_seconds * 1e3:.0f} ms, status {plan.solver_status}, gap {plan.mip_gap_fraction:.1e})"
          f"  target < {TARGET_S:.0f} s: {'PASS' if passed else 'FAIL'}")
    print(f"plan: {plan.total_cost_eur_per_month:,.0f} EUR/month; {n_committed} workloads commit "
          f"{plan.total_committed_gpus} GPUs; venues at capacity: {len(full)}")
    print(f"contended variant (all {int(np.isfinite(contended(venues).capacity_gpus).sum())} commitment venues "
          f"capped): {c_best * 1e3:.0f} ms (HiGHS {c_plan.solve_seconds * 1e3:.0f} ms, gap "
          f"{c_plan.mip_gap_fraction:.1e}; {c_plan.total_committed_gpus} GPUs committed, {c_full} venues full)  "
          f"target < {TARGET_S:.0f} s: {'PASS' if c_best < TARGET_S else 'FAIL'}")
    print(f"baselines: all on demand {on_demand.total_cost_eur_per_month:,.0f} EUR/month ({od_s * 1e3:.0f} ms, "
          f"plan saves {frac_od:.1%}); dedicated for peak {dedicated.total_cost_eur_per_month:,.0f} EUR/month "
          f"({peak_s * 1e3:.0f} ms, plan saves {frac_pk:.1%})")
    own = plan.venue_committed_gpus.get("own:cluster", 0)
    print(f"own cluster in the plan: {own} GPUs; four strategies compared (4 solves) in {compare_s * 1e3:.0f} ms, "
          f"recommended: {comparison.recommended}")
    return {
        "compare_s": compare_s, "own_cluster_gpus": own,
        "n_workloads": N_WORKLOADS, "n_venues": N_VENUES, "hours": HOURS,
        "best_s": best, "times_s": times, "solve_s": plan.solve_seconds, "solver_status": plan.solver_status,
        "target_s": TARGET_S, "pass": passed,
        "total_cost_eur_per_month": plan.total_cost_eur_per_month,
        "all_on_demand_eur_per_month": on_demand.total_cost_eur_per_month,
        "dedicated_for_peak_eur_per_month": dedicated.total_cost_eur_per_month,
        "savings_vs_on_demand": (saved_od, frac_od), "savings_vs_dedicated": (saved_pk, frac_pk),
        "committed_gpus": plan.total_committed_gpus, "venues_at_capacity": len(full),
        "contended_best_s": c_best, "contended_times_s": c_times, "contended_pass": c_best < TARGET_S,
        "contended_total_cost_eur_per_month": c_plan.total_cost_eur_per_month,
    }


if __name__ == "__main__":
    main()
    sys.exit(0)
