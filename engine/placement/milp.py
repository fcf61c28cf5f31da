"""The portfolio MILP: commitment options per (workload, venue), model build and solve with
:func:`scipy.optimize.milp` (HiGHS). The formulation is in :mod:`engine.placement`'s docstring.

Part of :mod:`engine.placement`; the references [n] are in its docstring.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from engine.placement.budget import check_level_columns
from engine.placement.commitment import commit_count
from engine.placement.eligibility import PlacementInfeasibleError, Prepared
from engine.tco import HOURS_PER_MONTH

if TYPE_CHECKING:  # scipy is imported where a model is built and solved: pages without placement never load it
    from scipy import sparse


@dataclass(frozen=True)
class CommitOptions:
    """Candidate (workload, committed venue) pairs after pruning, each an array of shape ``(m,)``."""

    w: np.ndarray
    v: np.ndarray
    lb: np.ndarray  # smallest k if chosen
    ub: np.ndarray  # largest useful k if chosen
    rate: np.ndarray  # commitment rate [EUR/GPU-h]
    free_k: np.ndarray  # fractile optimum k* of the pair, ignoring capacity (for the reason text)


def _prune_dominated(idx: np.ndarray, rate: np.ndarray, m: np.ndarray, cap: np.ndarray,
                     avail: np.ndarray | None = None) -> np.ndarray:
    """Keep options not dominated by an unlimited venue that is no dearer, asks no larger minimum and is
    usable for at least as much of the horizon (a kept pair's commitment pays, so longer use is better)."""
    if idx.size <= 1:
        return np.ones(idx.size, dtype=bool)
    a = np.ones(idx.size) if avail is None else avail
    r, mm, c, aa = rate[:, None], m[:, None], cap[:, None], a[:, None]  # option being tested: rows
    r2, m2, c2, a2 = rate[None, :], m[None, :], cap[None, :], a[None, :]  # candidate dominators: columns
    order = idx[:, None] > idx[None, :]
    better = (np.isinf(c2) & (r2 <= r) & (m2 <= mm) & (a2 >= aa)
              & ((r2 < r) | (m2 < mm) | (a2 > aa) | np.isfinite(c) | order))
    np.fill_diagonal(better, False)
    return ~better.any(axis=1)


def commit_options(p: Prepared, mode: str) -> CommitOptions:
    """Pairs worth a binary. ``mode="optimised"``: commit up to the fractile optimum (or the venue
    minimum); ``"peak"``: commit exactly the peak (or the minimum if larger), no burst."""
    v = p.venues
    rate_v = v.commit_rate_eur_per_gpu_hour
    ws, vs, lbs, ubs, rates, frees = [], [], [], [], [], []
    for i in range(len(p.workloads)):
        k_peak = int(p.peak_gpus[i])
        cand = np.flatnonzero(p.elig.commit[i])
        must_commit = mode == "peak" or p.elig.burst_venue[i] < 0
        if must_commit:  # holds its peak every hour: only a venue usable from the first month can
            cand = cand[p.avail[cand] >= 1]
        if k_peak == 0 or cand.size == 0:
            continue
        m = np.ceil(v.min_commit_gpus[cand])  # whole GPUs: keeps the fixed-y LP integral (see solve_milp)
        cap = np.floor(v.capacity_gpus[cand])
        r = rate_v[cand]
        if must_commit:
            free = np.full(cand.size, k_peak)
            lb = np.maximum(m, k_peak)
            ub = lb.copy()
        else:
            free = commit_count(p.covered[i][None, :], np.asarray([k_peak]), p.hours, r,
                                np.full(cand.size, p.elig.burst_rate[i]), "fewer")
            free = np.asarray(free, dtype=float).reshape(-1)
            lb = m.copy()
            ub = np.minimum(np.maximum(free, m), cap)
            useful = free > 0
            lb, ub = np.where(useful, lb, 1.0), np.where(useful, ub, 0.0)  # useless: lb > ub, dropped
        keep = (lb <= ub) & (lb <= cap)
        keep &= _prune_dominated(cand, r, m, cap, p.avail[cand]) if keep.any() else keep
        cand, lb, ub, r, free = cand[keep], lb[keep], ub[keep], r[keep], np.asarray(free)[keep]
        ws.append(np.full(cand.size, i))
        vs.append(cand)
        lbs.append(lb)
        ubs.append(ub)
        rates.append(r)
        frees.append(free)
    cat = (lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dtype=dt))  # noqa: E731
    return CommitOptions(cat(ws, np.int64), cat(vs, np.int64), cat(lbs, float), cat(ubs, float), cat(rates, float),
                         cat(frees, float))


@dataclass(frozen=True)
class _Solution:
    k: np.ndarray  # (W,) committed GPUs
    venue: np.ndarray  # (W,) committed venue index, -1 none
    status: str
    gap: float
    seconds: float
    objective_eur_per_month: float


@dataclass(frozen=True)
class _Model:
    """The MILP in scipy form; the last column is a constant fixed at 1 that carries the objective offset,
    so HiGHS's relative gap is relative to the whole monthly cost."""

    c: np.ndarray
    a: sparse.csr_array
    row_lo: np.ndarray
    row_hi: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    integrality: np.ndarray
    n_o: int
    n_z: int
    must: np.ndarray  # (W,) a committed venue is required


def _build(p: Prepared, opts: CommitOptions, mode: str, fallback_eur_per_month: np.ndarray | None) -> _Model:
    """Columns: per pair ``o`` a binary ``y_o`` and a continuous ``k_o``; for pairs at a venue of limited
    capacity whose workload bursts, one continuous ``z_oj <= y_o`` per GPU level between the pair's
    minimum ``lb_o`` and its fractile optimum ``ub_o``; one offset column fixed at 1.

    ``k_o = base_o y_o + sum_j z_oj`` with ``base_o = lb_o`` for those pairs and ``base_o = ub_o`` for all
    others: at an unlimited venue nothing competes for capacity, so a chosen pair commits exactly its
    optimum ``max(k*, lb)`` (the cost is convex in ``k``) and its whole cost sits on ``y_o``.

    ``fallback_eur_per_month`` (W,), finite where a workload may take no committed venue at that cost
    (the peak baseline's always-on on-demand fallback); elsewhere a workload that cannot burst must commit.
    """
    n_w = len(p.workloads)
    n_o = opts.w.size
    per_month = HOURS_PER_MONTH / p.hours
    cap = np.floor(p.venues.capacity_gpus)
    burst = (p.elig.burst_venue >= 0) & (mode == "optimised")
    o_rate = np.where(burst, p.elig.burst_rate, 0.0)
    free = burst[opts.w]
    leveled = free & np.isfinite(cap[opts.v]) & (opts.ub > opts.lb)
    base = np.where(leveled, opts.lb, opts.ub).astype(np.int64)
    levels = np.where(leveled, opts.ub - opts.lb, 0).astype(np.int64)
    z_start = np.concatenate([[0], np.cumsum(levels)])
    n_z = int(z_start[-1])
    check_level_columns(n_z)  # before the columns are built
    z_o = np.repeat(np.arange(n_o), levels)
    z_j = np.arange(n_z) - z_start[z_o] + base[z_o]  # GPU level (0-based) of each z column
    # covered GPU-hours per level, padded with zeros beyond the peak; prefix sums for the base block
    k_max = p.covered.shape[1]
    width = int(max(k_max, base.max(initial=0), (z_j.max() + 1) if n_z else 0))
    cov = np.zeros((n_w, width))
    cov[:, :k_max] = p.covered
    prefix = np.concatenate([np.zeros((n_w, 1)), np.cumsum(cov, axis=1)], axis=1)
    n_var = 2 * n_o + n_z + 1
    iy, ik, iz, ic = 0, n_o, 2 * n_o, 2 * n_o + n_z

    fallback = np.full(n_w, np.inf) if fallback_eur_per_month is None else np.asarray(fallback_eur_per_month)
    has_fallback = np.isfinite(fallback)
    c = np.zeros(n_var)
    # cost of a chosen pair at its base level, and of each further level, times the share of the horizon the
    # venue is usable (before its lead time has passed the workload bursts, paying the constant term)
    a_o = p.avail[opts.v]
    c[iy:iy + n_o] = a_o * (opts.rate * HOURS_PER_MONTH * base - o_rate[opts.w] * prefix[opts.w, base] * per_month)
    c[iz:iz + n_z] = a_o[z_o] * (opts.rate[z_o] * HOURS_PER_MONTH
                                 - o_rate[opts.w[z_o]] * cov[opts.w[z_o], z_j] * per_month)
    constant = float(np.sum(o_rate * p.overflow[:, 0]) * per_month)

    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    row_lo: list[np.ndarray] = []
    row_hi: list[np.ndarray] = []
    n_row = 0

    def add(r: np.ndarray, col: np.ndarray, x: np.ndarray, lo_: np.ndarray, hi_: np.ndarray, count: int) -> None:
        nonlocal n_row
        rows.append(r + n_row)
        cols.append(col)
        vals.append(x)
        row_lo.append(lo_)
        row_hi.append(hi_)
        n_row += count

    opt = np.arange(n_o)
    ones = np.ones(n_o)
    # (1) at most one committed venue per workload (exactly one when it can neither burst nor fall back)
    w_with = np.unique(opts.w)
    must_w = ~burst[w_with] & ~has_fallback[w_with]
    add(np.searchsorted(w_with, opts.w), iy + opt, ones, must_w.astype(float), np.ones(w_with.size), w_with.size)
    # a fallback is the cost of choosing no venue: constant + sum_o (commit cost - fallback) y_o
    fb_opt = has_fallback[opts.w]
    c[iy + opt[fb_opt]] -= fallback[opts.w[fb_opt]]
    constant += float(fallback[w_with][has_fallback[w_with]].sum())
    c[ic] = constant
    # (2) k_o - base_o y_o - sum_j z_oj = 0
    zr = np.arange(n_z)
    add(np.concatenate([opt, opt, z_o]), np.concatenate([ik + opt, iy + opt, iz + zr]),
        np.concatenate([ones, -base.astype(float), -np.ones(n_z)]), np.zeros(n_o), np.zeros(n_o), n_o)
    # (3) z_oj <= y_o
    if n_z:
        add(np.concatenate([zr, zr]), np.concatenate([iz + zr, iy + z_o]),
            np.concatenate([np.ones(n_z), -np.ones(n_z)]), np.full(n_z, -np.inf), np.zeros(n_z), n_z)
    # (4) venue capacity (whole GPUs)
    sel = np.isfinite(cap[opts.v])
    capped = np.unique(opts.v[sel])
    if capped.size:
        add(np.searchsorted(capped, opts.v[sel]), ik + opt[sel], np.ones(int(sel.sum())),
            np.full(capped.size, -np.inf), cap[capped], capped.size)
    from scipy import sparse  # here, not at import: only a solve needs scipy (issue #31, cold start)

    a = sparse.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n_row, n_var))
    must = np.zeros(n_w, dtype=bool)
    must[w_with[must_w]] = True
    lo = np.zeros(n_var)
    lo[ic] = 1.0
    hi = np.concatenate([ones, opts.ub, np.ones(n_z), [1.0]])
    integrality = np.zeros(n_var)
    integrality[iy:iy + n_o] = 1
    return _Model(c, a, np.concatenate(row_lo), np.concatenate(row_hi), lo, hi, integrality, n_o, n_z, must)


def _run(m: _Model, lo: np.ndarray, hi: np.ndarray, integer: bool, time_limit_s: float, mip_rel_gap: float):
    from scipy.optimize import Bounds, LinearConstraint, milp

    return milp(m.c, constraints=LinearConstraint(m.a, m.row_lo, m.row_hi),
                integrality=m.integrality if integer else None, bounds=Bounds(lo, hi),
                options={"time_limit": float(time_limit_s), "mip_rel_gap": float(mip_rel_gap), "disp": False})


def solve_milp(p: Prepared, opts: CommitOptions, mode: str, time_limit_s: float, mip_rel_gap: float,
               fallback_eur_per_month: np.ndarray | None = None) -> _Solution:
    """Solve the placement MILP (:func:`_build`) with HiGHS to ``mip_rel_gap`` of the monthly cost.

    Only the venue choices ``y`` are declared integer. For fixed ``y`` the level columns ``z`` each sit in
    one venue-capacity row (``k_o`` is a sum of them), with bounds 0..1 and whole-number capacities: that
    matrix is totally unimodular, so the LP has a whole-number optimal vertex and ``k`` need not be
    integer. The plan's ``k`` is read from a basic solution of the LP with ``y`` fixed.
    """
    n_w = len(p.workloads)
    if opts.w.size == 0:
        return _Solution(np.zeros(n_w, dtype=np.int64), np.full(n_w, -1), "optimal (nothing to decide)", 0.0,
                         0.0, 0.0)
    m = _build(p, opts, mode, fallback_eur_per_month)
    start = time.perf_counter()
    res = _run(m, m.lo, m.hi, True, time_limit_s, mip_rel_gap)
    if res.x is None:
        if res.status == 2:
            raise PlacementInfeasibleError(_capacity_problems(p, opts, mode, m.must))
        raise PlacementInfeasibleError([f"the solver stopped without a plan ({res.message}); raise time_limit_s"])
    y = np.round(res.x[:m.n_o])
    x = res.x
    if m.n_z:  # k from a vertex of the LP with y fixed (whole numbers by total unimodularity)
        lo, hi = m.lo.copy(), m.hi.copy()
        lo[:m.n_o] = hi[:m.n_o] = y
        fixed = _run(m, lo, hi, False, max(float(time_limit_s) - (time.perf_counter() - start), 1.0), 0.0)
        if fixed.x is not None:
            x = fixed.x
    seconds = time.perf_counter() - start
    k_lp = x[m.n_o:2 * m.n_o]
    if np.any(np.abs(k_lp - np.round(k_lp)) > 1e-6):  # cannot happen at a vertex; never round silently
        raise PlacementInfeasibleError(["the solver returned a fractional commitment; please report this case"])
    chosen = (y > 0.5) & (np.round(k_lp) > 0)
    k = np.zeros(n_w, dtype=np.int64)
    venue = np.full(n_w, -1)
    k[opts.w[chosen]] = np.round(k_lp[chosen]).astype(np.int64)
    venue[opts.w[chosen]] = opts.v[chosen]
    status = "optimal" if res.status == 0 else f"time limit reached, best plan found ({res.message})"
    gap = float(getattr(res, "mip_gap", 0.0) or 0.0)
    return _Solution(k, venue, status, gap, seconds, float(m.c @ x))


def _names(items: Sequence[str], limit: int = 8) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _capacity_problems(p: Prepared, opts: CommitOptions, mode: str, required: np.ndarray) -> list[str]:
    """Explain an infeasible solve: the workloads that must commit and can only do so in venues of
    limited capacity, and those venues (a workload with an unlimited option can never be blocked)."""
    v = p.venues
    cap = v.capacity_gpus
    blocked = [i for i in np.flatnonzero(required)
               if not np.any(np.isinf(cap[opts.v[opts.w == i]]))]
    if not blocked:
        return ["the solver found no plan within the venue capacities (no single workload or venue "
                "could be named); check capacity_gpus and min_commit_gpus"]
    venue_idx = sorted({int(j) for i in blocked for j in np.flatnonzero(p.elig.commit[i])})
    needs = [f"'{p.workloads[i].name}' ({p.peak_gpus[i]} GPUs)" for i in blocked]
    caps = [f"{v.venue_id[j]} ({cap[j]:g} GPUs)" for j in venue_idx]
    total = float(np.sum(cap[venue_idx]))
    why = ("have no eligible pay-as-you-go venue and" if mode != "peak"
           else "are sized for peak, have no eligible on-demand fallback and")
    return [f"Venue capacity binds: workloads {_names(needs)} {why} must each commit their peak in one venue; "
            f"their eligible venues {_names(caps)} hold {total:g} GPUs in total and cannot fit them all"]
