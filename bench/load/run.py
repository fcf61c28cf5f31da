"""`make load`: one run: build the catalog, start the server (or the cluster), drive every session from one
asyncio loop, stop everything, read the server's timings and verify that no saved edit was lost."""

from __future__ import annotations

import asyncio
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import defaultdict
from pathlib import Path

from bench.load.config import BROWSER_ARGS, VIEWPORT, LoadConfig, Report
from bench.load.editor import editor_session
from bench.load.plan import plan_edits
from bench.load.probes import (
    HealthProbe,
    RssSampler,
    ServerProbe,
    client_pids,
    descendants_cpu_s,
    process_cpu_s,
)
from bench.load.steps import on_console
from bench.load.viewers import Viewer, WsViewer
from catalog.store import CatalogStore, build_catalog
from tests.e2e.conftest import CHROMIUM, free_port

ROOT = Path(__file__).resolve().parents[2]


async def drive(url: str, report: Report, n_providers: int, cluster=None) -> None:
    from playwright.async_api import async_playwright, expect

    cfg = report.config
    timeout_ms = cfg.step_timeout_s * 1000
    expect.set_options(timeout=timeout_ms)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        try:
            viewers = []
            for i in range(cfg.viewers):
                context = await browser.new_context(viewport=VIEWPORT)
                context.set_default_timeout(timeout_ms)
                page = await context.new_page()
                page.on("pageerror", lambda exc, n=i + 1: report.errors.append(f"viewer {n} page error: {exc}"[:240]))
                page.on("console", lambda msg: on_console(report, msg))
                viewers.append(Viewer(i + 1, page, url, report, timeout_ms))
            ws_viewers = [WsViewer(cfg.viewers + i + 1, url, report, cfg.step_timeout_s) for i in range(cfg.ws_viewers)]
            ed_context = await browser.new_context(viewport=VIEWPORT)
            ed_context.set_default_timeout(timeout_ms)
            ed_page = await ed_context.new_page()
            ed_page.on("pageerror", lambda exc: report.errors.append(f"editor page error: {exc}"[:240]))

            editor_done, tours_running = asyncio.Event(), asyncio.Event()
            tours_running.set()

            async def run_viewer(v: Viewer | WsViewer) -> None:
                await asyncio.sleep((v.n - 1) * cfg.ramp_s)
                done = 0
                while done < cfg.rounds or (not editor_done.is_set() and done < cfg.max_rounds):
                    await v.tour(done)
                    done += 1
                report.tours_done += done

            async def run_editor() -> None:
                try:
                    await asyncio.sleep((cfg.viewers + cfg.ws_viewers) * cfg.ramp_s / 2)  # saves start while viewers arrive
                    await editor_session(ed_page, url, report, timeout_ms, cfg.edit_gap_s, tours_running)
                finally:
                    editor_done.set()

            async def run_viewers() -> None:
                await asyncio.gather(*(run_viewer(v) for v in [*viewers, *ws_viewers]))
                tours_running.clear()

            async def kill_a_replica() -> None:
                # Mid-load, and once half the browserless sessions have a scenario of their own to get back.
                await asyncio.sleep(cfg.kill_replica_after_s)
                while 2 * sum(v.utilisation is not None for v in ws_viewers) < len(ws_viewers):
                    await asyncio.sleep(0.5)
                await kill_busiest_replica(cluster, report, ws_viewers,
                                           [ed_context, *(v.page.context for v in viewers)], url, started)

            started = time.monotonic()
            jobs = [run_editor(), run_viewers()]
            if cfg.kill_replica_after_s and cluster is not None:
                killer = asyncio.ensure_future(kill_a_replica())
            await asyncio.gather(*jobs)
            if cfg.kill_replica_after_s and cluster is not None:
                if not killer.done():
                    killer.cancel()
                    report.errors.append(f"the replica kill at {cfg.kill_replica_after_s:.0f} s came after the tours ended")
                elif killer.exception() is not None:
                    report.errors.append(f"replica kill: {killer.exception()!r}"[:240])
            results = await asyncio.gather(*(v.sees_committed_prices(len(report.edits_planned), n_providers)
                                             for v in [*viewers, *ws_viewers]))
            report.viewers_saw_prices = sum(results)
        finally:
            report.browser_cpu_s = descendants_cpu_s(os.getpid(), tuple(report.server_pids or [report.server_pid]))
            try:
                await asyncio.wait_for(browser.close(), 30)
            except Exception:  # the browser is going away either way
                pass


async def kill_busiest_replica(cluster, report: Report, ws_viewers: list[WsViewer], browser_contexts: list,
                               url: str, started: float) -> None:
    """SIGKILL the replica that serves most browserless sessions among those serving no browser tab.

    Not the editor's: its unsaved grid edits live in its browser session; the check is that no *saved* edit
    is lost. Not a browser viewer's either: the tab itself comes back (bench/cluster_faults.py checks that),
    but a click made while it shows "Connecting" lands on a disabled widget and the scripted tab would wait
    for a result that never comes; the browserless sessions, which know when their socket dropped, are the
    ones whose reconnection and scenario are checked here."""
    from bench.cluster import ROUTE_COOKIE, replica_of

    with_browser = set()
    for context in browser_contexts:
        route = next((c["value"] for c in await context.cookies() if c["name"] == ROUTE_COOKIE), None)
        if route:
            with_browser.add((await asyncio.to_thread(replica_of, url + "/", route))[0])
    counts: dict[str, int] = defaultdict(int)
    for v in ws_viewers:
        if v.session.replica and v.session._ws is not None:
            counts[v.session.replica] += 1
    choices = [(n, addr) for addr, n in counts.items() if addr not in with_browser]
    if not choices:
        raise RuntimeError(f"no replica to kill: browserless sessions per replica {dict(counts)}, browser tabs on "
                           f"{sorted(with_browser)}")
    n, victim = max(choices)
    index = cluster.replica_of_port(victim) - 1
    cluster.kill_replica(index)
    report.killed_replica, report.killed_sessions = index + 1, n
    report.killed_at_s = time.monotonic() - started
    if report.config.verbose:
        print(f"killed replica {index + 1} ({victim}) serving {n} browserless sessions; browser tabs on "
              f"{sorted(with_browser)}", flush=True)


def verify_catalog(catalog: Path | str, report: Report) -> None:
    """After the server stopped: every acknowledged save is in the catalog, nothing else was written (``catalog``:
    the DuckDB file, or with --cluster the PostgreSQL URL)."""
    from catalog.storage.postgres import PostgresCatalogStore

    opened = PostgresCatalogStore(str(catalog), read_only=True) if str(catalog).startswith("postgresql://") \
        else CatalogStore(catalog, read_only=True)
    with opened as store:
        sets = store.change_sets()
        sets = sets[sets["change_set_id"] > 0]
        history = store.list_prices([e.offer_id for e in report.edits_planned], current_only=False)
    if len(sets) != len(report.edits_acknowledged):
        report.errors.append(f"catalog: {len(sets)} change sets written, {len(report.edits_acknowledged)} saves acknowledged")
    messages = set(sets["message"])
    for k in report.edits_acknowledged:
        e = report.edits_planned[k]
        price_id, offer_id, amount = e.price_id, e.offer_id, e.amount
        mine = history[history["offer_id"] == offer_id]
        current = mine[mine["valid_to"].isna() & (mine["price_type"] == "on-demand")]  # the plan edits on-demand rows
        old = mine[mine["price_id"] == price_id]
        ok = (any(m.startswith(f"load test: save {k + 1} of ") for m in messages)
              and len(current) == 1 and abs(float(current["amount_per_gpu_hour"].iloc[0]) - amount) < 1e-9
              and len(old) == 1 and old["valid_to"].notna().all())
        if ok:
            report.edits_verified += 1
        else:
            report.lost_edits += 1
            report.errors.append(f"lost edit: save {k + 1} ({price_id} -> {amount}) is not the current on-demand price "
                                 f"in the catalog (current: {current['amount_per_gpu_hour'].tolist()}, "
                                 f"old row closed: {old['valid_to'].notna().tolist()})")


def start_timed_server(catalog: Path, log_path: Path, timing_log: Path) -> tuple[subprocess.Popen, str]:
    """`streamlit run app.py` on a free loopback port, through bench/timed_server.py (server-side timing of
    every script run, written to ``timing_log``); no sign-in configured, local editing switched on (local mode,
    as `make run LOCAL_EDITING=1`)."""
    port = free_port()
    env = {**os.environ, "GPU_ADVISOR_CATALOG": str(catalog), "GPU_ADVISOR_LOCAL_EDITING": "1"}
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "timed_server.py"), str(timing_log), "run", str(ROOT / "app.py"),
             "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
             "--browser.gatherUsageStats", "false"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read() == b"ok":
                return proc, url
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"streamlit did not become healthy; log:\n{log_path.read_text()}")


def read_server_timings(timing_log: Path, report: Report, since: float) -> None:
    """The server's own timing of every session's script runs (bench/timed_server.py) from ``since`` (unix
    time the viewers started) on: per page, page loads and input changes."""
    if not timing_log.exists():
        report.errors.append("server timing log missing: bench/timed_server.py did not run")
        return
    for line in timing_log.read_text().splitlines():
        record = json.loads(line)
        if record["t"] < since:
            continue
        if record.get("error"):
            report.server_run_errors += 1
        target = report.server_inputs if record["kind"] == "input" else report.server_loads
        target[record["page"]].append(record["seconds"])
        cpu_target = report.server_input_cpu if record["kind"] == "input" else report.server_load_cpu
        if not math.isnan(record.get("cpu_seconds", math.nan)):
            cpu_target[record["page"]].append(record["cpu_seconds"])
    if report.server_run_errors:
        report.errors.append(f"server: {report.server_run_errors} script runs ended with a compile error")
    if any(report.interactions.values()) and not any(report.server_inputs.values()):
        report.errors.append("server timing recorded no input change although viewers changed inputs")


def run_load_test(config: LoadConfig, *, workdir: Path | None = None) -> Report:
    """Build a catalog, start the server, drive the browsers, stop everything, verify; never raises for a
    failure of the app under test (that is in ``Report.errors``)."""
    report = Report(config)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="gpu-advisor-load-") as tmp:
        work = workdir or Path(tmp)
        catalog = work / "catalog.duckdb"
        build_catalog(catalog)
        report.edits_planned, n_providers = plan_edits(catalog, config.edits)
        log, timing_log = work / "streamlit.log", work / "server-timing.jsonl"
        cluster = None
        if config.cluster:
            from bench.load_cluster import LoadCluster

            cluster = LoadCluster(work, config.cluster)  # same seed as the file the edits were planned on
            try:
                url = cluster.start()
            except BaseException:
                cluster.stop()
                cluster.stop_database()
                raise
            proc, log = cluster.procs[0], cluster.logs[0]
            report.server_pids = [p.pid for p in cluster.procs]
        else:
            proc, url = start_timed_server(catalog, log, timing_log)
        report.server_pid = proc.pid
        sampler = RssSampler(proc.pid, report.rss_mb, browser_nice=config.browser_nice,
                             load_average=report.load_average, exclude=tuple(report.server_pids))
        health = HealthProbe(url)
        server_probe = ServerProbe(url, report)

        def hard_stop() -> None:  # last resort if the asyncio deadline itself hangs
            print(f"load test: hard deadline of {config.deadline_s + 120:.0f} s reached, killing the server and "
                  "the browser", flush=True)
            for pid in client_pids(os.getpid(), proc.pid):
                try:
                    with open(f"/proc/{pid}/comm") as fh:
                        if fh.read().startswith("chromium"):
                            os.kill(pid, 9)
                except OSError:
                    pass
            proc.kill()
            if config.hard_exit:
                os._exit(1)

        watchdog = threading.Timer(config.deadline_s + 120, hard_stop)
        watchdog.daemon = True
        watchdog.start()
        threads = (sampler, health, server_probe) if config.probe else (sampler, health)
        viewers_started, profiler = time.time(), None
        try:
            for thread in threads:
                thread.start()
            if config.probe:
                server_probe.ready.wait(timeout=min(240.0, config.deadline_s / 2))
            budget = max(10.0, config.deadline_s - (time.monotonic() - started) - 10)
            viewers_started = time.time()
            if config.profile:
                profiler = subprocess.Popen(
                    [str(Path(sys.executable).parent / "py-spy"), "record", "--pid", str(proc.pid), "--rate", "50",
                     "--format", "raw", "--nonblocking", "--output", str(config.profile)],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                asyncio.run(asyncio.wait_for(drive(url, report, n_providers, cluster), budget))
            except TimeoutError:
                report.errors.append(f"deadline: the run did not finish within {config.deadline_s:.0f} s and was stopped")
            except Exception as exc:
                report.errors.append(f"driver: {type(exc).__name__}: {exc}"[:300])
        finally:
            for thread in threads:
                thread.stop_event.set()
            report.server_cpu_s = process_cpu_s(proc.pid) or sampler.cpu_s
            if cluster is not None:
                report.replica_cpu_s = [process_cpu_s(p.pid) or 0.0 for p in cluster.procs]
                report.server_cpu_s = sum(report.replica_cpu_s)
            if config.profile and profiler is not None:
                profiler.send_signal(2)  # SIGINT: py-spy writes its samples and exits
                try:
                    profiler.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    profiler.kill()
            if cluster is not None:
                cluster.stop()
            else:
                proc.terminate()
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=10)
            for thread in threads:
                if thread.is_alive():
                    thread.join(12)
            watchdog.cancel()
        report.health_s = health.latencies
        report.errors += [f"health check failed: {f}" for f in health.failures]
        for server_log_path in (cluster.logs if cluster is not None else [log]):
            server_log = server_log_path.read_text(errors="replace")
            if "Traceback" in server_log:
                report.errors.append(f"server log {server_log_path.name} has a Traceback: "
                                     + server_log[server_log.index("Traceback"):][:300])
        if cluster is None:
            read_server_timings(timing_log, report, viewers_started)
            verify_catalog(catalog, report)
        else:
            for replica_log in cluster.timing_logs:
                one = Report(config)
                read_server_timings(replica_log, one, viewers_started)
                report.replica_inputs.append([x for v in one.server_inputs.values() for x in v])
                report.replica_loads.append([x for v in one.server_loads.values() for x in v])
                for name, values in one.server_inputs.items():
                    report.server_inputs[name] += values
                for name, values in one.server_loads.items():
                    report.server_loads[name] += values
                for name, values in one.server_input_cpu.items():
                    report.server_input_cpu[name] += values
                for name, values in one.server_load_cpu.items():
                    report.server_load_cpu[name] += values
                report.server_run_errors += one.server_run_errors
            if report.server_run_errors:
                report.errors.append(f"server: {report.server_run_errors} script runs ended with an error")
            try:
                verify_catalog(cluster.database_url, report)
            finally:
                cluster.stop_database()
    report.wall_s = time.monotonic() - started
    return report
