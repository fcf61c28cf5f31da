"""`make load`: the printed report (percentile tables of the browsers', the browserless sessions' and the
server's own times, CPU, memory, edits) and PASS or FAIL."""

from __future__ import annotations

import math
import os
import platform

from bench.load.config import PAGES, Report


def _pct(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    s = sorted(values)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)]


def _ms(values: list[float]) -> list[str]:
    if not values:
        return ["—"] * 3
    return [f"{1000 * _pct(values, 50):,.0f}", f"{1000 * _pct(values, 95):,.0f}", f"{1000 * max(values):,.0f}"]


def _row(label: str, values: list[float], width: int = 13) -> str:
    return f"{label:<{width}}{len(values):>5}" + "".join(f"{c:>9}" for c in _ms(values))


def format_report(r: Report) -> str:
    cfg = r.config
    n_pages = len(r.pages)
    where = (f"{cfg.cluster} replicas behind nginx on one PostgreSQL" if cfg.cluster
             else "one `streamlit run`")
    out = [f"GPU Cloud Advisor load test: {cfg.viewers} browser viewers + {cfg.ws_viewers} browserless viewers + "
           f"1 editor, one Chromium ({len(r.nav_pages)} pages in "
           f"the sidebar), {where} on 127.0.0.1; {os.cpu_count()} cores, {platform.machine()}, "
           f"Python {platform.python_version()}",
           f"wall time {r.wall_s:.0f} s (deadline {cfg.deadline_s:.0f} s); {r.tours_done} tours of {n_pages} pages; "
           f"viewers arrived over {(cfg.viewers + cfg.ws_viewers - 1) * cfg.ramp_s:.0f} s; Chromium at nice {cfg.browser_nice}", ""]
    out.append(f"{'':<13}{'page load (click → title + chart)':^32}   {'change (input → updated result)':^32}")
    head = f"{'page':<13}{'n':>5}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}   {'n':>5}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}"
    out += [head, "-" * len(head)]
    shown = [p for p in (r.nav_pages or list(PAGES)) if p in r.pages or r.loads.get(p)]
    for name in shown:
        acts = r.interactions.get(name) or []
        out.append(_row(name or "home", r.loads.get(name) or []) + "   "
                   + (_row("", acts, 0) if acts else ""))
    all_loads = [x for v in r.loads.values() for x in v]
    all_acts = [x for v in r.interactions.values() for x in v]
    out.append(_row("all pages", all_loads) + "   " + _row("", all_acts, 0))
    if cfg.ws_viewers:
        out += ["", f"browserless sessions ({cfg.ws_viewers}, Streamlit's websocket protocol, bench/ws_viewer.py; "
                f"{cfg.think_s:g} s mean pause before each click): rerun_script sent -> script_finished received",
                f"{'page':<13}{'n':>5}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}   {'n':>5}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}"]
        for name in [p for p in (r.nav_pages or list(PAGES)) if r.ws_loads.get(p) or r.ws_inputs.get(p)]:
            acts = r.ws_inputs.get(name) or []
            out.append(_row(name or "home", r.ws_loads.get(name) or []) + "   " + (_row("", acts, 0) if acts else ""))
    if cfg.kill_replica_after_s:
        kept = sum(r.ws_scenarios_kept)
        out += ["", (f"fault: replica {r.killed_replica} killed (SIGKILL) {r.killed_at_s:.0f} s after the viewers "
                     f"started, serving {r.killed_sessions} browserless sessions; reconnects {len(r.ws_reconnects)}, "
                     f"socket found closed -> first finished run on another replica min {min(r.ws_reconnects):.1f} s, "
                     f"p50 {_pct(r.ws_reconnects, 50):.1f} s, max {max(r.ws_reconnects):.1f} s; own scenario (from ?s=) shown after {kept} of "
                     f"{len(r.ws_scenarios_kept)} reconnects") if r.ws_reconnects and r.killed_replica else
                f"fault: no replica was killed or no session reconnected (killed replica {r.killed_replica or '—'})"]
    out += ["", "server side, measured inside the server for every session while the viewers ran (bench/timed_server.py):",
            "websocket rerun_script received -> script_finished queued; 'idle' = one page run before the viewers came",
            f"{'':<13}{'':>9}   {'page load (page switch)':^32}   {'input -> result (widget change)':^32}",
            f"{'page':<13}{'idle ms':>9}   {'n':>5}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}   "
            f"{'n':>5}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}"]
    names = [p for p in (r.nav_pages or list(PAGES)) if p in r.server_idle or r.server_loads.get(p) or r.server_inputs.get(p)]

    def cpu(values: list[float]) -> str:
        return f"{1000 * _pct(values, 50):>8,.0f}" if values else f"{'—':>8}"

    out[-2] += f"   {'CPU p50 ms':>10}"
    out[-1] += f"   {'load':>5}{'input':>7}"
    for name in names:
        idle = r.server_idle.get(name)
        out.append(f"{name or 'home':<13}{'—' if idle is None else f'{1000 * idle:,.0f}':>9}   "
                   + _row("", r.server_loads.get(name) or [], 0) + "   " + _row("", r.server_inputs.get(name) or [], 0)
                   + "   " + cpu(r.server_load_cpu.get(name) or [])[3:] + cpu(r.server_input_cpu.get(name) or [])[1:])
    server_inputs = [x for v in r.server_inputs.values() for x in v]
    out.append(f"{'all pages':<13}{'':>9}   " + _row("", [x for v in r.server_loads.values() for x in v], 0)
               + "   " + _row("", server_inputs, 0)
               + "   " + cpu([x for v in r.server_load_cpu.values() for x in v])[3:]
               + cpu([x for v in r.server_input_cpu.values() for x in v])[1:])
    if server_inputs:
        p95 = _pct(server_inputs, 95)
        out.append(f"server input -> result p95 {1000 * p95:,.0f} ms: {'meets' if p95 <= 1.0 else 'misses'} the "
                   f"<= 1,000 ms target; script runs that ended in an error: {r.server_run_errors}")
    for i, (inputs, loads) in enumerate(zip(r.replica_inputs, r.replica_loads, strict=True)):
        cpu_s = r.replica_cpu_s[i] if i < len(r.replica_cpu_s) else float("nan")
        out.append(f"replica {i + 1}: page loads {len(loads)}, inputs {len(inputs)}: input -> result p50 "
                   f"{1000 * _pct(inputs, 50) if inputs else float('nan'):,.0f} ms, p95 "
                   f"{1000 * _pct(inputs, 95) if inputs else float('nan'):,.0f} ms; CPU {cpu_s:.0f} s")
    if r.load_average:
        out.append(f"machine load average (1 min) during the run: median {_pct(r.load_average, 50):.1f}, max "
                   f"{max(r.load_average):.1f} on {os.cpu_count()} cores (this run's server and browsers included; "
                   "a wall time above the CPU time is waiting for the GIL or a core)")
    out += ["", f"{'other':<48}{'n':>5}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}"]
    out.append(_row('editor save (click → "Saved change set #n")', r.saves, 48))
    out.append(_row("final check (open Providers, filter → edits)", r.final_checks, 48))
    out.append(_row("server health (GET /_stcore/health)", r.health_s, 48))
    out.append("")
    if r.rss_mb:
        out.append(f"server memory (RSS): start {r.rss_mb[0]:.0f} MB, peak {max(r.rss_mb):.0f} MB, end {r.rss_mb[-1]:.0f} MB "
                   f"({len(r.rss_mb)} samples)")
    out.append(f"CPU: server {r.server_cpu_s:.0f} s ({r.server_cpu_s / max(r.wall_s, 1e-9):.0%} of one core), "
               f"browser and driver {r.browser_cpu_s:.0f} s ({r.browser_cpu_s / max(r.wall_s, 1e-9):.0%} of one core)")
    out.append(f"edits: {cfg.edits} planned, {len(r.edits_acknowledged)} saved, {r.saves_during_tours} of them while "
               f"viewers toured; {r.edits_verified} verified in the catalog, {r.lost_edits} lost "
               f"(grid clicks or keys retried: {r.editor_retries})")
    out.append(f"viewers seeing every committed price in their own session: {r.viewers_saw_prices} of "
               f"{cfg.viewers + cfg.ws_viewers}")
    out.append(f"browser console errors (not counted): {r.console_errors}")
    out += [f"  console: {c}" for c in r.console_samples]
    out.append(f"errors: {len(r.errors)}")
    for e in r.errors[:30]:
        out.append(f"  - {e}")
    if len(r.errors) > 30:
        out.append(f"  ... and {len(r.errors) - 30} more")
    out.append("PASS" if r.passed else "FAIL")
    return "\n".join(out)
