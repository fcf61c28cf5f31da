"""Which venues each workload may use (residency, jurisdiction, GPU class, spot, minimum terms), and the
plain-language reasons when a portfolio cannot be placed.

Part of :mod:`engine.placement`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.placement.budget import check_portfolio_size
from engine.placement.commitment import duration_curve
from engine.placement.defaults import DEFAULT_ASSUMPTIONS, MAX_HORIZON_MONTHS, PlacementAssumptions
from engine.placement.demand import Workload, WorkloadKind, demand_profiles_gpus
from engine.placement.venues import Venues
from engine.tco import HOURS_PER_YEAR


class PlacementInfeasibleError(ValueError):
    """The portfolio cannot be placed; ``problems`` holds one plain-language sentence per cause."""

    def __init__(self, problems: Sequence[str]):
        self.problems = tuple(problems)
        super().__init__("; ".join(self.problems) if self.problems else "portfolio cannot be placed")


@dataclass(frozen=True)
class _Eligibility:
    """Per (workload, venue) eligibility, arrays of shape ``(n_workloads, n_venues)`` unless noted."""

    checks: tuple[tuple[str, np.ndarray, np.ndarray], ...]  # (key, applies (W,), passes (W, V))
    meets: np.ndarray  # every requirement check passes
    on_demand: np.ndarray  # may burst on demand here
    spot: np.ndarray  # may burst on spot here
    commit: np.ndarray  # may commit here
    burst_rate: np.ndarray  # (W,) cheapest burst rate [EUR/GPU-h], inf = none
    burst_venue: np.ndarray  # (W,) venue index, -1 = none
    burst_is_spot: np.ndarray  # (W,) bool
    spot_rate: np.ndarray  # (V,) effective spot rate


def _requirement_label(w: Workload, key: str) -> str:
    return {
        "eu_datacenter": "EU data centre",
        "eu_jurisdiction": "EU-jurisdiction provider",
        "memory": f"≥{w.min_gpu_memory_gb:g} GB memory",
        "infiniband": "InfiniBand",
        "nvlink": "NVLink",
        "gpu_model": f"GPU model {w.gpu_model}",
        "priced": "priced by the Workload engine for its job",
        "not_marketplace": "a provider's own capacity (not a marketplace host)",
    }[key]


def _eligibility(workloads: Sequence[Workload], venues: Venues, spot_overhead_fraction: float,
                 available: np.ndarray | None = None) -> _Eligibility:
    n_v = venues.n_venues
    stay_eu = np.asarray([(not w.may_leave_eu) or w.latency_sensitive for w in workloads], dtype=bool)
    eu_juris = np.asarray([w.eu_jurisdiction_required for w in workloads], dtype=bool)
    mem = np.asarray([w.min_gpu_memory_gb for w in workloads], dtype=float)
    ib = np.asarray([w.needs_infiniband for w in workloads], dtype=bool)
    nvl = np.asarray([w.needs_nvlink for w in workloads], dtype=bool)
    model = np.asarray([(w.gpu_model or "").strip().lower() for w in workloads], dtype=object)
    venue_model = np.asarray([m.strip().lower() for m in venues.gpu_model], dtype=object)
    with np.errstate(invalid="ignore"):
        mem_ok = venues.memory_gb[None, :] >= mem[:, None]
    restricted = np.asarray([w.allowed_venue_ids is not None for w in workloads], dtype=bool)
    ids = venues.venue_id.tolist()
    tolerant = np.asarray([(w.spot_allowed and not w.latency_sensitive) or w.kind == WorkloadKind.DEVELOPMENT
                           for w in workloads], dtype=bool)
    priced = np.asarray([[v in w.allowed_venue_ids for v in ids] if w.allowed_venue_ids is not None
                         else [True] * len(ids) for w in workloads], dtype=bool).reshape(len(workloads), n_v)
    checks = (
        ("eu_datacenter", stay_eu, ~stay_eu[:, None] | venues.is_eu_datacenter[None, :]),
        ("eu_jurisdiction", eu_juris, ~eu_juris[:, None] | (venues.jurisdiction == "EU")[None, :]),
        ("memory", mem > 0, (mem[:, None] <= 0) | mem_ok),
        ("infiniband", ib, ~ib[:, None] | venues.has_infiniband[None, :]),
        ("nvlink", nvl, ~nvl[:, None] | venues.has_nvlink[None, :]),
        ("gpu_model", model != "", (model[:, None] == "") | (model[:, None] == venue_model[None, :])),
        ("priced", restricted, priced),
        # A marketplace host (one third-party machine, no SLA) only for work that tolerates interruptions or
        # development (venues.Venues.is_marketplace_host, sourced there).
        ("not_marketplace", ~tolerant & bool(venues.is_marketplace_host.any()),
         tolerant[:, None] | ~venues.is_marketplace_host[None, :]),
    )
    meets = np.ones((len(workloads), n_v), dtype=bool)
    for _, _, passes in checks:
        meets &= passes
    spot_ok = np.asarray([w.spot_allowed and not w.latency_sensitive for w in workloads], dtype=bool)
    payg = ~venues.requires_commitment
    on_demand = meets & (payg & np.isfinite(venues.on_demand_eur_per_gpu_hour))[None, :]
    spot = meets & spot_ok[:, None] & (payg & np.isfinite(venues.spot_eur_per_gpu_hour))[None, :]
    usable = np.ones(n_v, dtype=bool) if available is None else np.asarray(available) > 0
    commit = meets & (np.isfinite(venues.commit_rate_eur_per_gpu_hour) & venues.is_committable & usable)[None, :]
    spot_rate = venues.spot_eur_per_gpu_hour * (1.0 + spot_overhead_fraction)
    od_rates = np.where(on_demand, venues.on_demand_eur_per_gpu_hour[None, :], np.inf)
    spot_rates = np.where(spot, spot_rate[None, :], np.inf)
    # Cheapest burst option; on a tie on demand wins (no interruptions), then the lower venue index.
    best_od = np.argmin(od_rates, axis=1) if n_v else np.zeros(len(workloads), dtype=int)
    best_spot = np.argmin(spot_rates, axis=1) if n_v else np.zeros(len(workloads), dtype=int)
    rows = np.arange(len(workloads))
    od_min = od_rates[rows, best_od] if n_v else np.full(len(workloads), np.inf)
    spot_min = spot_rates[rows, best_spot] if n_v else np.full(len(workloads), np.inf)
    is_spot = spot_min < od_min
    burst_rate = np.where(is_spot, spot_min, od_min)
    burst_venue = np.where(np.isfinite(burst_rate), np.where(is_spot, best_spot, best_od), -1)
    return _Eligibility(checks, meets, on_demand, spot, commit, burst_rate, burst_venue, is_spot, spot_rate)


def _requirement_problem(w: Workload, i: int, elig: _Eligibility, n_v: int) -> str:
    applied = [(key, passes[i]) for key, applies, passes in elig.checks if applies[i]]
    labels = [_requirement_label(w, key) for key, _ in applied]
    n_meet = int(elig.meets[i].sum())
    if n_v == 0:  # the venue rules removed every offer before this workload's own checks (issue #27.9)
        return f"Workload '{w.name}': there is no venue to place it on (the venue list is empty)"
    if n_meet == 0 and applied:
        fails: list[str] = []
        for key, passes in applied:
            n_fail = int((~passes).sum())
            if n_fail:
                label = _requirement_label(w, key)
                fails.append(f"{n_fail} fail the {label} check" if not fails else f"{n_fail} fail {label}")
        return (f"Workload '{w.name}': no venue satisfies {' + '.join(labels)} "
                f"({', '.join(fails)}, out of {n_v} venues)")
    spot_note = "" if (w.spot_allowed and not w.latency_sensitive) else " (spot not allowed)"
    meet = "1 venue meets" if n_meet == 1 else f"{n_meet} venues meet"
    what = f"{meet} {' + '.join(labels)}" if labels else f"none of the {n_v} venues"
    if labels:
        return (f"Workload '{w.name}': {what} but none has an on-demand, spot or commitment price this "
                f"workload may use{spot_note}")
    return f"Workload '{w.name}': {what} has an on-demand, spot or commitment price this workload may use{spot_note}"


def eligibility_summary(w: Workload, i: int, elig: _Eligibility, n_v: int) -> str:
    parts = []
    if not w.may_leave_eu:
        parts.append("sensitive → EU data centres only")
    if w.eu_jurisdiction_required:
        parts.append("EU-jurisdiction provider required")
    if w.latency_sensitive:
        parts.append("latency-sensitive → known EU data centre, no spot")
    cls = [_requirement_label(w, k) for k, applies, _ in elig.checks
           if applies[i] and k not in ("eu_datacenter", "eu_jurisdiction")]
    if cls:
        parts.append("needs " + " + ".join(cls))
    if w.spot_allowed and not w.latency_sensitive:
        parts.append("spot allowed")
    usable = int((elig.on_demand[i] | elig.spot[i] | elig.commit[i]).sum())
    parts.append(f"{usable} of {n_v} venues eligible")
    return "; ".join(parts)


@dataclass(frozen=True)
class Prepared:
    workloads: list[Workload]
    venues: Venues
    hours: int
    demand: np.ndarray  # (W, H)
    overflow: np.ndarray  # (W, Kmax+1) F(j)
    covered: np.ndarray  # (W, Kmax)
    peak_gpus: np.ndarray  # (W,) ceil(max demand)
    elig: _Eligibility
    horizon_months: int = 12  # plan horizon [month]: lead times are counted in it
    available: np.ndarray | None = None  # (V,) share of the horizon a venue's committed capacity is usable
    start_month: np.ndarray | None = None  # (V,) first usable month

    @property
    def avail(self) -> np.ndarray:
        return np.ones(self.venues.n_venues) if self.available is None else self.available


def prepare(workloads: Sequence[Workload], venues: Venues, hours: int, assumptions: PlacementAssumptions,
            demand: np.ndarray | None = None, horizon_months: int = 12) -> Prepared:
    names = [w.name for w in workloads]
    if len(set(names)) != len(names):
        raise ValueError("workload names must be unique")
    check_portfolio_size(workloads, hours, demand)  # before anything of the portfolio's size is built
    d = demand_profiles_gpus(workloads, hours) if demand is None else demand
    f, covered, k_row = duration_curve(d) if len(workloads) else (
        np.zeros((0, 1)), np.zeros((0, 0)), np.zeros(0, dtype=np.int64))
    if not 1 <= int(horizon_months) <= MAX_HORIZON_MONTHS:
        raise ValueError(f"horizon_months must be 1 to {MAX_HORIZON_MONTHS}, got {horizon_months}")
    available = venues.available_fraction(int(horizon_months))
    elig = _eligibility(workloads, venues, assumptions.spot_overhead_fraction(), available)
    return Prepared(list(workloads), venues, int(hours), d, f, covered, k_row, elig, int(horizon_months), available,
                    venues.usable_from_month(int(horizon_months)))


def pre_check(p: Prepared) -> list[str]:
    """Problems found before solving: no usable venue, or a must-commit peak that fits no single venue."""
    problems = []
    v = p.venues
    for i, w in enumerate(p.workloads):
        if p.peak_gpus[i] == 0:
            continue
        e = p.elig
        if not (e.on_demand[i].any() or e.spot[i].any() or e.commit[i].any()):
            problems.append(_requirement_problem(w, i, e, v.n_venues))
            continue
        if e.burst_venue[i] < 0:
            need = np.maximum(p.peak_gpus[i], np.ceil(v.min_commit_gpus))
            fits = e.commit[i] & (np.floor(v.capacity_gpus) >= need) & (p.avail >= 1)
            if not fits.any():
                idx = np.flatnonzero(e.commit[i])
                listing = ", ".join(f"{v.venue_id[j]}: {v.capacity_gpus[j]:g}" for j in idx[:5])
                problems.append(
                    f"Workload '{w.name}': no eligible pay-as-you-go venue, so its peak of {p.peak_gpus[i]} GPUs "
                    f"must be committed in one venue usable from the first month, but the eligible commitment "
                    f"venues hold at most {v.capacity_gpus[idx].max():g} GPUs or are not ready in time ({listing})")
    return problems


def feasibility_problems(workloads: Sequence[Workload], venues: Venues, hours: int = int(HOURS_PER_YEAR),
                         assumptions: PlacementAssumptions | None = None,
                         horizon_months: int = 12) -> tuple[str, ...]:
    """Plain-language reasons why :func:`place_portfolio` would fail before solving (empty = none found).

    Each names the workload and the constraint, e.g. ``"Workload 'fraud-model': no venue satisfies EU data
    centre + EU-jurisdiction provider + ≥80 GB memory + InfiniBand (12 fail the EU data centre check, 3 fail
    ≥80 GB memory, out of 30 venues)"``. Joint capacity shortages are found only by the solve.
    """
    p = prepare(workloads, venues, hours, assumptions or DEFAULT_ASSUMPTIONS, horizon_months=horizon_months)
    return tuple(pre_check(p))
