"""`make load`: 20 real browser sessions against one `streamlit run` while an editor saves prices.

Usage: python bench/load_test.py [--viewers 20] [--edits 5] [--deadline-s 1200] [--rounds 1] [--max-rounds 1]
       [--pages home providers ...] [--artifacts DIR] [--profile FILE] [-v]
       [--cluster N [--ws-viewers M] [--kill-replica-after-s S]]

``--ws-viewers M`` adds M viewer sessions without a browser (bench/ws_viewer.py: Streamlit's own websocket
protocol, the same tour, inputs and final check, results read from the script runs' messages): one Chromium tab
per session costs more CPU than the server's work for it, so 40 tabs on 2 cores measure the browser, not the
app. ``--cluster N`` runs N replicas behind nginx on PostgreSQL (bench/load_cluster.py); with
``--kill-replica-after-s S`` the replica serving most browserless sessions (and no browser tab) is SIGKILLed
S seconds after the viewers start, once half of those sessions have changed their scenario; each of its
sessions must reconnect through nginx to another replica and show its own scenario again (its ``?s=``).

Bounded in count and time: it stops by itself at the deadline, whatever happens.

1. Builds a fresh catalog from the seed in a temporary directory, plans the edits (:func:`plan_edits`) and
   starts the app with `streamlit run` on 127.0.0.1 with no sign-in configured and local editing switched on
   ("local mode", as `make run LOCAL_EDITING=1`: on loopback the Editor page is editable), through
   bench/timed_server.py, which times every session's script runs inside the server (the app is unchanged).
2. Opens one Debian Chromium with one browser context per viewer (plus one for the editor) and drives them all
   at once from one asyncio loop (Playwright's async API); viewer i arrives ``i * --ramp-s`` seconds after the
   first. Each viewer keeps one Streamlit session: it loads Home, then opens every page the sidebar lists by
   clicking its link, and on Providers, TCO, Workload and Scoring changes one input with a visible result
   (EU data centre toggle → offer count; utilisation slider → headline and break-even chart; GPUs field →
   verdict; price-weight slider → verdict and contribution chart).
3. Meanwhile one editor session saves ``--edits`` price changes through the Editor page's data grid. The rows
   are chosen by a stable key, not by grid position (the first public on-demand price of each of the first
   offers by id); the editor finds each row by its price id in the id-sorted grid (predicted position, then a
   walk), checks the amount cell holds the old amount, types a new amount (below every seed price) and a
   message, and the page must answer "Saved change set #n".
4. When all are done, every viewer goes back to Providers *in its own session*, clears its filters (back to the
   client brief's defaults, which the edited offers pass) and sets a max-price filter that only the newly saved
   prices pass: it must see exactly the edited offers.
5. Stops the server, opens the catalog file read-only (DuckDB allows one writer process) and checks that no
   edit was lost: one change set per acknowledged save and nothing else, each edited offer's current price is
   the saved amount, and the old price row is closed, not overwritten.

Timing, in the browser: "load" runs from the click on the sidebar link (Home: from page.goto) to the page's
title and first chart drawn; "change" from the last input event to the updated result on screen. Both include
the browser's rendering: the 20 tabs run on the same machine as the server. In the server, for every session
while the viewers run: from the websocket "rerun_script" message to the "script_finished" message queued, split
into page loads (page switches) and input changes (widget changes, the server's input -> result), p50/p95 per
page; the target is p95 <= 1 s for input -> result. Chromium runs at nice 10 (``--browser-nice``)
so that the server under test is not starved by its own clients; the table also shows the CPU seconds each
side used and the latency of GET /_stcore/health (the server's event loop, without any browser). Server
memory is the resident set size of the `streamlit run` process, sampled every 0.5 s.

Prints the tables and PASS (zero errors, zero lost edits, every viewer saw the committed prices) or FAIL; exit
code 0 on PASS, 1 on FAIL. Any exception or timeout of a step, a script run that ends in an error and a
Traceback in the server log count as errors and are listed. The latency targets are reported, not enforced.
With ``--profile FILE`` py-spy samples the server while the viewers run (bench/profile_summary.py FILE).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime as dt
import json
import math
import os
import platform
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from catalog.store import CatalogStore, OfferFilter, build_catalog  # noqa: E402
from engine.money import DEFAULT_USD_PER_EUR  # noqa: E402
from tests.e2e.conftest import CHROMIUM, free_port  # noqa: E402

BROWSER_ARGS = ["--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-quic",
                # 20 tabs in one headless browser: keep every tab's timers and rendering running at full rate.
                "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                "--disable-backgrounding-occluded-windows"]
VIEWPORT = {"width": 1024, "height": 640}
#: Pages by URL path ("" = home): the h1 title and the keyed element whose chart means "the page has its
#: result". A page the sidebar lists that is not here is still toured, with a generic wait (a new h1, no stale
#: or placeholder elements left).
PAGES = {
    "": ("GPU Cloud Advisor", ".st-key-home_freshness .main-svg"),
    "providers": ("Providers & offers", ".st-key-prov_landscape .main-svg"),
    "tco": ("Rent or own", ".st-key-tco_break_even_chart .main-svg"),
    "workload": ("Workload cost", ".st-key-wl_scatter .main-svg"),
    "scoring": ("Provider scoring", ".st-key-sc_contributions .main-svg"),
    "placement": ("Hybrid placement", ".st-key-pl_demand .main-svg"),
    "workshop": ("Workshop", ".st-key-ws_save"),
    "editor": ("Catalog editor", '.st-key-ed_prices [data-testid="stDataFrame"]'),
}
NAV = '[data-testid="stSidebarNav"]'
#: Element containers of the current script run (Streamlit keeps the previous run's copy, data-stale="true",
#: until the new one arrives: a result is read from the live ones only).
LIVE = '[data-testid="stElementContainer"][data-stale="false"]'
OFFER_COUNT = re.compile(r"^(\d+) offers? from (\d+) providers?\b")  # "1 offer from 1 provider" (#27.17)
#: The headlines the inputs change on TCO, Workload and Scoring (read by both kinds of viewer).
TCO_HEADLINE = re.compile(r"^Over \d+ (years|months) at \d+% utilisation, ")
WORKLOAD_VERDICT = re.compile(r"^Cheapest:.+ per job")
SCORING_VERDICT = re.compile(r"^#1 .+ wins with a weighted-sum score")
#: The max-price filter of the final check (EUR per GPU-hour): above every saved test price, below every seed
#: price (checked against the catalog before the run starts).
FILTER_EUR = 0.3


@dataclass(frozen=True)
class PlannedEdit:
    price_id: str
    offer_id: str
    old_amount: float
    amount: float
    grid_row: int = 0  # where the id-sorted Prices grid shows the row when this save starts (earlier saves done)
    new_price_id: str = ""  # the id the save gives the new price row
    #: A new amount needs its own provenance (the Editor refuses it otherwise): where and when it was read.
    old_source_url: str = ""
    source_url: str = ""
    old_retrieved_at: str = ""
    retrieved_at: str = ""

    def cells(self) -> list[tuple[str, object, object]]:
        """The grid cells this save types: (column, old value, new value), left to right."""
        return [("amount_per_gpu_hour", self.old_amount, self.amount),
                ("source_url", self.old_source_url, self.source_url),
                ("retrieved_at", self.old_retrieved_at, self.retrieved_at)]

    def edited_row(self) -> dict:
        """The row's edits as ``st.data_editor`` reports them (edited_rows[i])."""
        return {name: new for name, _, new in self.cells()}


@dataclass
class LoadConfig:
    viewers: int = 20
    edits: int = 5
    #: The run stops by itself after this. 20 minutes: on the shared 2-core machine, with other jobs at a load
    #: average of 45, the 20 tabs (Chromium at nice 10) needed about 10 minutes for their tours alone.
    deadline_s: float = 1200.0
    rounds: int = 1          # tours of all pages every viewer makes at least
    max_rounds: int = 1      # ...and at most, touring on while the editor is still saving
    pages: tuple[str, ...] | None = None  # URL paths to tour ("" = home); None: every page in the sidebar
    edit_gap_s: float = 3.0  # pause before each save, so saves spread over the viewers' tours
    ramp_s: float = 2.0      # viewer i starts i * ramp_s after the first
    #: One page step (a load or a change). 300 s: with other jobs at a load average of 41-48, one of 20 first
    #: loads of Home took over 180 s in the niced browser (the server had answered it in under 5 s).
    step_timeout_s: float = 300.0
    verbose: bool = False
    artifacts: Path | None = None  # screenshots of failed steps go here
    #: py-spy samples of the server while the viewers run (raw "stack count" lines; bench/profile_summary.py
    #: reads them); None: no profiler.
    profile: Path | None = None
    probe: bool = True  # the browserless websocket session timing each page idle, before the viewers (ServerProbe)
    hard_exit: bool = False  # as a script: if even the deadline hangs, exit the process (not inside pytest)
    #: Chromium runs at this nice level, the server at the default: on a small machine the 20 tabs would
    #: otherwise take most of the CPU from the server whose response times are being measured.
    browser_nice: int = 10
    #: Replicas behind nginx on a shared PostgreSQL catalog (bench/load_cluster.py); 0: one `streamlit run` on a
    #: DuckDB file, as before.
    cluster: int = 0
    #: Viewer sessions without a browser (bench/ws_viewer.py), in addition to the ``viewers`` Chromium tabs.
    ws_viewers: int = 0
    #: Mean pause of a browserless viewer before each click (uniform, 0.5-1.5 times this): a participant reads
    #: the result first. A browser tab pauses by itself while it draws; a protocol client without a pause
    #: clicks as fast as the server answers, which no room of people does.
    think_s: float = 3.0
    #: --cluster: SIGKILL one replica this long after the viewers start, or later, once half the browserless
    #: sessions have changed their scenario (the replica serving most of them, not the editor's); its sessions
    #: must reconnect to another with their scenario. 0: no kill.
    kill_replica_after_s: float = 0.0


@dataclass
class Report:
    config: LoadConfig
    nav_pages: list[str] = field(default_factory=list)  # URL paths in sidebar order, found on the first visit
    pages: list[str] = field(default_factory=list)  # ...of those, the ones toured
    loads: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    interactions: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    saves: list[float] = field(default_factory=list)
    final_checks: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    edits_planned: list[PlannedEdit] = field(default_factory=list)
    edits_acknowledged: list[int] = field(default_factory=list)  # indexes into edits_planned
    edits_verified: int = 0
    editor_retries: int = 0
    lost_edits: int = 0
    viewers_saw_prices: int = 0
    saves_during_tours: int = 0
    tours_done: int = 0
    wall_s: float = 0.0
    server_cpu_s: float = 0.0
    browser_cpu_s: float = 0.0
    health_s: list[float] = field(default_factory=list)
    server_idle: dict[str, float] = field(default_factory=dict)  # ServerProbe, before the viewers come
    #: Measured inside the server (bench/timed_server.py) for every session while the viewers ran: websocket
    #: "rerun_script" received -> "script_finished" queued, per page; "load" = page switch, "input" = widget.
    server_loads: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    server_inputs: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    #: ...and the CPU time of the script thread over those runs (what a run costs, without waiting).
    server_load_cpu: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    server_input_cpu: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    server_run_errors: int = 0
    load_average: list[float] = field(default_factory=list)  # 1-minute load average of the machine, sampled
    server_pid: int = 0
    server_pids: list[int] = field(default_factory=list)  # --cluster: every replica
    console_errors: int = 0
    console_samples: list[str] = field(default_factory=list)
    #: --cluster: server-side input -> result times and CPU seconds per replica (1-based order of the replicas).
    replica_inputs: list[list[float]] = field(default_factory=list)
    replica_loads: list[list[float]] = field(default_factory=list)
    replica_cpu_s: list[float] = field(default_factory=list)
    #: --ws-viewers: the browserless sessions' times (send -> script_finished received), per page.
    ws_loads: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    ws_inputs: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    #: --kill-replica-after-s: which replica was killed (1-based), when, and the sessions it served.
    killed_replica: int = 0
    killed_at_s: float = 0.0
    killed_sessions: int = 0
    ws_reconnects: list[float] = field(default_factory=list)  # seconds from the drop to a finished run again
    ws_scenarios_kept: list[bool] = field(default_factory=list)  # after each reconnect: own scenario shown

    @property
    def passed(self) -> bool:
        return (not self.errors and self.lost_edits == 0 and len(self.edits_acknowledged) == self.config.edits
                and self.edits_verified == self.config.edits
                and self.viewers_saw_prices == self.config.viewers + self.config.ws_viewers
                and all(self.ws_scenarios_kept)
                and (not self.config.kill_replica_after_s
                     or (len(self.ws_reconnects) >= self.killed_sessions > 0 and self.ws_scenarios_kept)))


def _pct(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    s = sorted(values)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)]


def _ms(values: list[float]) -> list[str]:
    if not values:
        return ["—"] * 3
    return [f"{1000 * _pct(values, 50):,.0f}", f"{1000 * _pct(values, 95):,.0f}", f"{1000 * max(values):,.0f}"]


def _rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of a process so far."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _client_pids(root: int, exclude: int | tuple[int, ...]) -> list[int]:
    """Live processes under ``root`` (the Playwright driver and Chromium), except ``exclude`` and its children."""
    excluded = {exclude} if isinstance(exclude, int) else set(exclude)
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    parent[int(entry)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found = []
    for pid in parent:
        p, seen = pid, set()
        while p in parent and p not in (root, 0, 1) and p not in excluded and p not in seen:
            seen.add(p)
            p = parent[p]
        if p == root and pid != root:
            found.append(pid)
    return found


def _descendants_cpu_s(root: int, exclude: int | tuple[int, ...]) -> float:
    return sum(_cpu_s(pid) or 0.0 for pid in _client_pids(root, exclude))


def _renice_browser(root: int, exclude: int | tuple[int, ...], nice: int) -> None:
    """Lower the priority of every Chromium thread under ``root`` to ``nice`` (Linux nice is per thread)."""
    for pid in _client_pids(root, exclude):
        try:
            with open(f"/proc/{pid}/comm") as fh:
                if not fh.read().startswith("chromium"):
                    continue
            for tid in os.listdir(f"/proc/{pid}/task"):
                if os.getpriority(os.PRIO_PROCESS, int(tid)) < nice:
                    os.setpriority(os.PRIO_PROCESS, int(tid), nice)
        except OSError:
            continue


class RssSampler(threading.Thread):
    """Samples the server's RSS and CPU time every ``every_s``; with ``browser_nice``, also keeps every Chromium
    thread of this run at that nice level (new renderers and threads appear all the time)."""

    def __init__(self, pid: int, out: list[float], every_s: float = 0.5, browser_nice: int = 0,
                 load_average: list[float] | None = None, exclude: tuple[int, ...] = ()):
        super().__init__(daemon=True)
        self.pid, self.out, self.every_s, self.stop_event = pid, out, every_s, threading.Event()
        self.exclude = exclude or (pid,)  # the server processes (every replica with --cluster)
        self.load_average = load_average if load_average is not None else []
        self.browser_nice = browser_nice
        self.cpu_s = 0.0

    def run(self) -> None:
        while not self.stop_event.is_set():
            value = _rss_mb(self.pid)
            if value is not None:
                self.out.append(value)
                self.cpu_s = _cpu_s(self.pid) or self.cpu_s
                self.load_average.append(os.getloadavg()[0])
            if self.browser_nice:
                _renice_browser(os.getpid(), self.exclude, self.browser_nice)
            self.stop_event.wait(self.every_s)


class HealthProbe(threading.Thread):
    """GET /_stcore/health every ``every_s``: how quickly the server's event loop answers at all, apart from
    any browser (the probe runs in this process, at normal priority)."""

    def __init__(self, url: str, every_s: float = 0.5, timeout_s: float = 10.0):
        super().__init__(daemon=True)
        self.url, self.every_s, self.timeout_s, self.stop_event = url, every_s, timeout_s, threading.Event()
        self.latencies: list[float] = []
        self.failures: list[str] = []

    def run(self) -> None:
        while not self.stop_event.is_set():
            t0 = time.perf_counter()
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=self.timeout_s) as resp:
                    resp.read()
                self.latencies.append(time.perf_counter() - t0)
            except OSError as exc:
                self.failures.append(f"{type(exc).__name__}: {exc}"[:160])
            self.stop_event.wait(self.every_s)


class ServerProbe(threading.Thread):
    """One more session, without a browser, on Streamlit's own websocket protocol: before the viewers come it
    runs every toured page twice (a "rerun_script" BackMsg naming the page, no widget changes; warm-up, then
    the idle baseline) and times each run until the server's "script_finished" message. Under load the
    server itself times every session's runs (bench/timed_server.py)."""

    def __init__(self, url: str, report: Report, timeout_s: float = 120.0):
        super().__init__(daemon=True)
        self.ws_url = url.replace("http://", "ws://") + "/_stcore/stream"
        self.report, self.timeout_s = report, timeout_s
        self.ready, self.stop_event = threading.Event(), threading.Event()

    def _run_page(self, ws, page_hash: str) -> tuple[float, dict[str, str]]:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        msg = BackMsg()
        msg.rerun_script.query_string = ""
        msg.rerun_script.page_script_hash = page_hash
        msg.rerun_script.widget_states.SetInParent()
        t0 = time.perf_counter()
        ws.send(msg.SerializeToString())
        hashes: dict[str, str] = {}
        while True:
            fwd = ForwardMsg()
            fwd.ParseFromString(ws.recv(timeout=self.timeout_s))
            kind = fwd.WhichOneof("type")
            if kind == "navigation":
                hashes = {p.url_pathname: p.page_script_hash for p in fwd.navigation.app_pages}
            elif kind == "script_finished":
                if fwd.script_finished != fwd.FINISHED_SUCCESSFULLY:
                    raise RuntimeError(f"script finished with status {fwd.script_finished}")
                return time.perf_counter() - t0, hashes

    def run(self) -> None:
        from websockets.sync.client import connect

        wanted = self.report.config.pages
        try:
            with connect(self.ws_url, subprotocols=["streamlit"], max_size=None, open_timeout=30) as ws:
                _, hashes = self._run_page(ws, "")
                order = [p for p in hashes if wanted is None or p in wanted]
                for baseline in (False, True):
                    for name in order:
                        seconds, _ = self._run_page(ws, hashes[name])
                        if baseline:
                            self.report.server_idle[name] = seconds
        except Exception as exc:
            if not self.stop_event.is_set():
                self.report.errors.append(f"server probe: {type(exc).__name__}: {exc}"[:240])
        finally:
            self.ready.set()


# -- planning: which rows the editor changes, and to what ----------------------------------------------------

def _grid_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """The Prices grid as the Editor page shows it: current rows in price-id order, the page's columns."""
    from ui.editor_view import editable_frame

    return editable_frame(rows.sort_values("price_id", kind="stable"), "prices")


def providers_page_default_filter() -> OfferFilter:
    """The filter the Providers page starts with (and returns to on "Clear filters"): the default client
    brief's (ui.brief). The final check's offers must pass it."""
    from ui.brief import provider_filter_defaults
    from ui.scenario import ClientBrief

    defaults = provider_filter_defaults(ClientBrief())
    # the legal-seat and certification filters (#27.3) narrow nothing while the default brief leaves them off
    off = {k for k in ("prov_seat", "prov_certs") if not defaults.get(k)}
    unknown = set(defaults) - {"prov_gpu", "prov_eu", "prov_jur"} - off
    if unknown:
        raise SystemExit(f"the client brief sets Providers filters the load test does not know: {sorted(unknown)} "
                         "(bench/load_test.py, providers_page_default_filter)")
    return OfferFilter(gpu_models=tuple(defaults.get("prov_gpu") or ()) or None,
                       eu_datacenter_only=bool(defaults.get("prov_eu")),
                       jurisdictions=tuple(defaults.get("prov_jur") or ()) or None)


@dataclass(frozen=True)
class PricesSnapshot:
    """What the plan needs from the catalog, read once: the current price rows (the Editor's Prices grid),
    every price id ever used (closed rows keep theirs), each offer's provider, and the offers the Providers
    page lists under its default filter (the final check looks there)."""

    current: pd.DataFrame
    every_id: frozenset[str]
    provider_of: dict[str, str]
    on_providers_page: frozenset[str]

    @classmethod
    def read(cls, catalog: Path) -> PricesSnapshot:
        with CatalogStore(catalog, read_only=True) as store:
            current = store.editable_rows("prices")
            every_id = frozenset(store.editable_rows("prices", current_only=False)["price_id"])
            offers = store.table("offers")
            before = store.list_offers(OfferFilter(max_price_eur_per_gpu_hour=FILTER_EUR),
                                       usd_per_eur=DEFAULT_USD_PER_EUR)
            shown = store.list_offers(providers_page_default_filter(), usd_per_eur=DEFAULT_USD_PER_EUR)
        if len(before):
            raise SystemExit(f"the seed has offers at or below {FILTER_EUR} EUR/GPU-h: the final check would be "
                             "ambiguous")
        return cls(current, every_id, dict(zip(offers["offer_id"], offers["provider_id"], strict=True)),
                   frozenset(shown["offer_id"]))


def plan_edits(catalog: Path | PricesSnapshot, n: int, *, today: dt.date | None = None) -> tuple[list[PlannedEdit], int]:
    """Which Prices rows the editor changes, to what, and where the grid shows each row when its save starts.

    The rows are chosen by a stable key, not by their place in the grid: the current, public on-demand prices
    of offers the Providers page lists by default (the final check looks there), in price-id order, one per
    offer, first ``n`` offers (seed ids do not contain the run's date). Each gets
    one new amount below every seed price. A save closes the old row and adds a new one whose id contains the
    save's date (``offer:type:term:today``), so rows can move in the id-sorted grid; each edit's ``grid_row``
    is predicted by replaying the earlier saves through the page's own :func:`ui.editor_view.changes_from_editor`
    (the browser still checks the row's id before typing, and walks to it if the prediction is off).

    ``today`` is the save date (default: the real date; tests freeze it). Returns the plan and how many
    providers the edited offers belong to (the final check's expected headline).
    """
    from ui.editor_view import changes_from_editor

    today = today or dt.date.today()
    if not 1 <= n <= 9:
        raise SystemExit("--edits must be between 1 and 9")
    snap = catalog if isinstance(catalog, PricesSnapshot) else PricesSnapshot.read(catalog)
    rows, taken = snap.current, set(snap.every_id)
    valid_from = pd.to_datetime(rows["valid_from"]).dt.date
    candidates = rows[(rows["price_type"] == "on-demand") & ~rows["is_private"].astype(bool)
                      & (valid_from <= today) & rows["offer_id"].isin(snap.on_providers_page)]
    chosen = candidates.sort_values("price_id", kind="stable").drop_duplicates("offer_id").head(n)
    if len(chosen) < n:
        raise SystemExit(f"the catalog has {len(chosen)} offers with a current public on-demand price that the "
                         f"Providers page lists by default: fewer than the {n} edits asked for")
    grid = _grid_frame(rows)
    plan = []
    for i, row in enumerate(chosen.itertuples(index=False)):
        position = int(np.flatnonzero(grid["price_id"].to_numpy() == row.price_id)[0])
        edit = PlannedEdit(
            row.price_id, row.offer_id, float(row.amount_per_gpu_hour),
            amount=round(0.11 + 0.02 * i, 2),  # 0.11 .. 0.27 in the row's currency: at most 0.27 EUR <= FILTER_EUR
            grid_row=position, old_source_url=str(row.source_url), old_retrieved_at=str(row.retrieved_at),
            source_url=f"https://example.com/load-test/save-{i + 1}", retrieved_at=today.isoformat())
        try:
            changes = changes_from_editor("prices", grid, {"edited_rows": {position: edit.edited_row()}},
                                          today=today, taken_ids=taken)
        except ValueError as exc:
            raise SystemExit(f"the Editor page refuses the planned edit of {row.price_id}: {exc}") from exc
        inserted = [c for c in changes if c.action == "insert"]
        if len(changes) != 2 or len(inserted) != 1:
            raise SystemExit(f"the Editor page no longer turns a new amount into close + insert: {changes}")
        edit = dataclasses.replace(edit, new_price_id=str(inserted[0].key))
        plan.append(edit)
        # After the save the grid shows the new row instead of the old one, sorted by id again.
        taken.add(edit.new_price_id)
        grid = grid.copy()
        grid.loc[position, "price_id"] = edit.new_price_id
        for name, value in edit.edited_row().items():
            grid.loc[position, name] = value
        grid = grid.sort_values("price_id", kind="stable").reset_index(drop=True)
    return plan, len({snap.provider_of[e.offer_id] for e in plan})


def column_offset(column: str) -> int:
    """How many columns right of ``price_id`` (the first, pinned column) the Prices grid shows ``column``: the
    Editor page shows the model's fields in order (ui.editor_view.editable_frame)."""
    from catalog.models import TABLE_MODELS

    fields = list(TABLE_MODELS["prices"].model_fields)
    return fields.index(column) - fields.index("price_id")


# -- one viewer ------------------------------------------------------------------------------------------------

def _record_error(report: Report, who_where: str, exc: BaseException) -> None:
    """A failed step: counted with the first line of its message (printed whole with --verbose)."""
    first = (str(exc).strip().splitlines() or [""])[0][:160]
    report.errors.append(f"{who_where}: {type(exc).__name__}: {first}")
    if report.config.verbose:
        print(f"{who_where}: {exc}", flush=True)


class Viewer:
    def __init__(self, n: int, page, url: str, report: Report, timeout_ms: float):
        self.n, self.page, self.url, self.report, self.timeout = n, page, url, report, timeout_ms

    def err(self, where: str, exc: BaseException) -> None:
        _record_error(self.report, f"viewer {self.n} {where}", exc)

    async def visible(self, locator) -> None:
        from playwright.async_api import expect

        await expect(locator).to_be_visible(timeout=self.timeout)

    async def snap(self, what: str) -> None:
        await snapshot(self.page, self.report, f"viewer{self.n}-{what}")

    async def discover(self) -> None:
        """The pages the sidebar lists, as URL paths in their order (once per run, by the first viewer)."""
        if self.report.pages:
            return
        hrefs = await self.page.locator(f"{NAV} a").evaluate_all("links => links.map(a => a.href)")
        if self.report.pages:  # another viewer got there first
            return
        self.report.nav_pages[:] = [h.rstrip("/").rsplit("/", 1)[-1] if h.rstrip("/") != self.url else "" for h in hrefs]
        wanted = self.report.config.pages
        self.report.pages[:] = [p for p in self.report.nav_pages if wanted is None or p in wanted]
        if self.report.config.verbose:
            print("pages:", self.report.pages, flush=True)

    async def open(self, name: str, first: bool, record: bool = True) -> None:
        from playwright.async_api import expect

        page = self.page
        previous = (await page.locator("h1").first.inner_text()) if not first and await page.locator("h1").count() else None
        t0 = time.perf_counter()
        if first:
            await page.goto(f"{self.url}/{name}", timeout=self.timeout)
        else:
            await page.locator(f"{NAV} a").nth(self.report.nav_pages.index(name)).click()
        if name in PAGES:
            title, key = PAGES[name]
            await self.visible(page.get_by_role("heading", level=1, name=title))
            await self.visible(page.locator(key).first)
        else:  # a page this script does not know: its own h1, then nothing stale or still a placeholder
            await expect(page).to_have_url(re.compile(rf"/{re.escape(name)}$"), timeout=self.timeout)
            h1 = page.locator("h1").first
            await self.visible(h1)
            if previous:
                await expect(h1).not_to_have_text(previous, timeout=self.timeout)
            await expect(page.locator('[data-stale="true"], [data-testid="stSkeleton"]')).to_have_count(
                0, timeout=self.timeout)
        if record:
            self.report.loads[name].append(time.perf_counter() - t0)

    async def interact(self, name: str) -> None:
        from playwright.async_api import expect

        page, timeout = self.page, self.timeout
        if name in ("providers", "tco", "workload", "scoring"):
            # The page's run has finished (its chart shows before the run ends): the change is a run of its own,
            # timed as an input by the server too, not merged into the page load (bench/timed_server.py).
            await _idle(page, timeout)
        if name == "providers":
            headline = page.locator(LIVE).filter(has_text=OFFER_COUNT).first
            await self.visible(headline)
            before = int(OFFER_COUNT.match(await headline.inner_text()).group(1))
            # The EU data centre toggle: on (the client brief's default) or off, flipping it changes the count.
            await page.locator(".st-key-prov_eu label").first.click()
            t0 = time.perf_counter()
            await expect(headline).not_to_have_text(re.compile(rf"^{before} offers"), timeout=timeout)
        elif name == "tco":
            headline = page.locator(LIVE).filter(has_text=TCO_HEADLINE).first
            await self.visible(headline)
            pct = int(re.search(r" at (\d+)% utilisation", await headline.inner_text()).group(1))
            target, key = (pct - 5, "ArrowLeft") if pct > 20 else (pct + 5, "ArrowRight")
            slider = page.locator(".st-key-_tco_utilisation_fraction").get_by_role("slider")
            await slider.focus()
            for _ in range(5):
                await page.keyboard.press(key)
            t0 = time.perf_counter()
            await self.visible(page.locator(LIVE).filter(
                has_text=re.compile(rf"^Over \d+ (years|months) at {target}% utilisation, ")).first)
            await self.visible(page.locator(f"{LIVE}.st-key-tco_break_even_chart").filter(has_text=f"you: {target}%").first)
        elif name == "workload":
            verdict = page.locator(LIVE).filter(has_text=WORKLOAD_VERDICT).first
            await self.visible(verdict)
            before = await verdict.inner_text()
            gpus = page.locator(".st-key-_wl_t_gpus input")
            new = "256" if await gpus.input_value() == "128" else "128"
            await gpus.fill(new)
            await gpus.press("Enter")
            t0 = time.perf_counter()
            await expect(verdict).not_to_have_text(before, timeout=timeout)
        elif name == "scoring":
            verdict = page.locator(LIVE).filter(has_text=SCORING_VERDICT).first
            chart = page.locator(f"{LIVE}.st-key-sc_contributions").first
            await self.visible(verdict)
            before, chart_before = await verdict.inner_text(), await chart.inner_text()
            slider = page.locator(".st-key-_sc_w_price_eur_per_gpu_hour").get_by_role("slider")
            value = float(await slider.input_value())
            key = "ArrowRight" if value <= 90 else "ArrowLeft"
            await slider.focus()
            for _ in range(5):
                await page.keyboard.press(key)
            t0 = time.perf_counter()
            await expect(verdict).not_to_have_text(before, timeout=timeout)
            await expect(chart).not_to_have_text(chart_before, timeout=timeout)
        else:
            return
        self.report.interactions[name].append(time.perf_counter() - t0)

    async def tour(self, round_no: int) -> None:
        if round_no == 0:
            try:
                await self.open("", first=True)
                await self.discover()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.err("first load", exc)
                await self.snap("first-load")
                return
        for name in self.report.pages:
            if round_no == 0 and name == "":
                continue  # home: just loaded
            if self.report.config.verbose:
                cpu = _descendants_cpu_s(os.getpid(), self.report.server_pid)
                print(f"{time.strftime('%H:%M:%S')} viewer {self.n} round {round_no + 1} {name or 'home'} "
                      f"(browser CPU so far {cpu:.1f} s)", flush=True)
            try:
                await self.open(name, False)
                await self.interact(name)
                if await self.page.locator('[data-testid="stException"]').count():
                    text = await self.page.locator('[data-testid="stException"]').first.inner_text()
                    raise RuntimeError(f"exception shown on the page: {text[:160]}")
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a failed step is counted, then the tour goes on from a fresh load
                self.err(f"round {round_no + 1} {name or 'home'}", exc)
                await self.snap(f"round{round_no + 1}-{name or 'home'}")
                try:
                    await self.page.goto(self.url, timeout=self.timeout)
                except Exception as exc2:
                    self.err(f"round {round_no + 1} reload after error", exc2)

    async def sees_committed_prices(self, n_offers: int, n_providers: int) -> bool:
        """In this viewer's own long-lived session: Providers, max price FILTER_EUR → only the edited offers."""
        from playwright.async_api import expect

        page = self.page
        try:
            t0 = time.perf_counter()
            await self.open("providers", first=False, record=False)
            # Back to the page's default filters (the client brief's), which the edited offers pass.
            await page.locator(".st-key-prov_clear button").click()
            await _idle(page, self.timeout)
            box = page.locator(".st-key-prov_maxprice input").first
            await self.visible(box)
            await box.fill(str(FILTER_EUR))
            await box.press("Enter")
            await expect(page.locator(LIVE).filter(has_text=OFFER_COUNT).first).to_have_text(
                re.compile(rf"^{n_offers} offers? from {n_providers} providers?\b"), timeout=self.timeout)
            self.report.final_checks.append(time.perf_counter() - t0)
            return True
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.err("final check (committed prices)", exc)
            await self.snap("final-check")
            return False


class WsViewer:
    """A viewer without a browser (``--ws-viewers``): the same tour, inputs and final check as :class:`Viewer`,
    in one Streamlit session kept over the websocket protocol (bench/ws_viewer.py), each result read from the
    run's messages instead of the screen. When its socket drops (a killed replica) it reconnects as the
    browser does (same route cookie, the address's ``?s=`` scenario), checks that its scenario came back (the
    TCO utilisation it last set) and goes on with the step that failed."""

    def __init__(self, n: int, url: str, report: Report, timeout_s: float):
        from bench.ws_viewer import ProtocolViewer

        self.n, self.report = n, report
        self.session = ProtocolViewer(url, timeout_s)
        self._random = random.Random(n)  # think times: the same sequence on every run
        #: The TCO utilisation (fraction) this session last saw applied: part of its scenario, so of its ``?s=``.
        self.utilisation: float | None = None

    def err(self, where: str, exc: BaseException) -> None:
        _record_error(self.report, f"ws viewer {self.n} {where}", exc)

    async def _step(self, make):
        """Run ``make()`` (a coroutine factory); if the socket dropped, reconnect, check the scenario, retry once."""
        from bench.ws_viewer import SessionDropped

        page = self.session.page
        try:
            return await make()
        except SessionDropped:
            await self.reconnected()
            if self.session.page != page:
                await self.session.goto(page)
            return await make()

    async def reconnected(self):
        """The socket dropped: reconnect (bench/ws_viewer.py), count it, check the scenario came back."""
        result = await self.session.reconnect(time.monotonic())
        self.report.ws_reconnects.append(self.session.reconnects[-1])
        await self.check_scenario()
        return result

    async def check_scenario(self) -> None:
        """After a reconnect: the new session shows this session's own scenario (from the URL), not the default."""
        want = self.utilisation
        if want is None:
            return
        result = await self.session.goto("tco")
        shown = result.text(TCO_HEADLINE)
        ok = shown is not None and f" at {round(100 * want)}% utilisation" in shown
        self.report.ws_scenarios_kept.append(ok)
        if not ok:
            raise RuntimeError(f"after the reconnect TCO shows {shown!r}, not this session's "
                               f"{round(100 * want)}% utilisation")

    async def think(self) -> None:
        """A user reads a result before the next click: uniform between half and 1.5 times ``think_s``."""
        mean = self.report.config.think_s
        if mean > 0:
            await asyncio.sleep(mean * self._random.uniform(0.5, 1.5))

    async def open(self, name: str) -> None:
        await self.think()
        result = await self._step(lambda: self.session.goto(name))
        self.report.ws_loads[name].append(result.seconds)

    async def interact(self, name: str) -> None:
        from bench.ws_viewer import widget_value

        s = self.session
        last = s.last
        if name in ("providers", "tco", "workload", "scoring"):
            await self.think()
        if name == "providers":
            before = _offer_count(last)
            after = await self._step(lambda: s.set("prov_eu", not widget_value(s.last.widget("prov_eu"))))
            if _offer_count(after) == before:
                raise RuntimeError(f"the EU toggle left the offer count at {before}")
        elif name == "tco":
            head = last.text(TCO_HEADLINE)
            pct = int(re.search(r" at (\d+)% utilisation", head or "").group(1))
            value = float(widget_value(last.widget("_tco_utilisation_fraction"))[0])
            target = round(value - 0.05 if pct > 20 else value + 0.05, 2)
            after = await self._step(lambda: s.set("_tco_utilisation_fraction", [target]))
            shown = after.text(TCO_HEADLINE) or ""
            if f" at {round(100 * target)}% utilisation" not in shown:
                raise RuntimeError(f"utilisation set to {target:.0%}, the headline says {shown[:80]!r}")
            self.utilisation = target
        elif name == "workload":
            before = last.text(WORKLOAD_VERDICT)
            new = 256 if widget_value(last.widget("_wl_t_gpus")) == 128 else 128
            after = await self._step(lambda: s.set("_wl_t_gpus", new))
            if after.text(WORKLOAD_VERDICT) in (None, before):
                raise RuntimeError(f"GPUs set to {new}, the verdict did not change: {before!r}"[:200])
        elif name == "scoring":
            before, chart = last.text(SCORING_VERDICT), last.chart("sc_contributions")
            value = float(widget_value(last.widget("_sc_w_price_eur_per_gpu_hour"))[0])
            new = value + 5 if value <= 90 else value - 5
            after = await self._step(lambda: s.set("_sc_w_price_eur_per_gpu_hour", [new]))
            if after.text(SCORING_VERDICT) in (None, before) or after.chart("sc_contributions") == chart:
                raise RuntimeError(f"price weight set to {new:.0f}, the verdict or chart did not change")
        else:
            return
        self.report.ws_inputs[name].append(s.last.seconds)

    async def tour(self, round_no: int) -> None:
        if round_no == 0:
            try:
                from bench.ws_viewer import SessionDropped

                try:
                    result = await self.session.open("")
                except SessionDropped:
                    result = await self.reconnected()
                self.report.ws_loads[""].append(result.seconds)
                if not self.report.pages:  # the first session to get here names the pages (as Viewer.discover)
                    self.report.nav_pages[:] = list(self.session.hashes)
                    wanted = self.report.config.pages
                    self.report.pages[:] = [p for p in self.report.nav_pages if wanted is None or p in wanted]
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.err("first load", exc)
                return
        for name in list(self.report.pages):
            if round_no == 0 and name == "":
                continue
            try:
                await self.open(name)
                await self.interact(name)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # counted; the tour goes on with the next page
                self.err(f"round {round_no + 1} {name or 'home'}", exc)

    async def sees_committed_prices(self, n_offers: int, n_providers: int) -> bool:
        """In this session: Providers, "Clear filters", max price FILTER_EUR → exactly the edited offers."""
        s = self.session
        try:
            t0 = time.perf_counter()
            await self._step(lambda: s.goto("providers"))
            await self._step(lambda: s.set("prov_clear", True))
            result = await self._step(lambda: s.set("prov_maxprice", FILTER_EUR))
            shown = result.text(OFFER_COUNT)
            if not shown or not re.match(rf"{n_offers} offers? from {n_providers} providers?\b", shown):
                raise RuntimeError(f"expected {n_offers} offers from {n_providers} providers, saw {shown!r}"[:200])
            self.report.final_checks.append(time.perf_counter() - t0)
            return True
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.err("final check (committed prices)", exc)
            return False
        finally:
            await s.close()


def _offer_count(result) -> int:
    shown = result.text(OFFER_COUNT)
    if shown is None:
        raise RuntimeError("the Providers page shows no offer count")
    return int(OFFER_COUNT.match(shown).group(1))


def _console(report: Report, msg) -> None:
    if msg.type != "error":
        return
    report.console_errors += 1
    text = msg.text[:200]
    if text not in report.console_samples and len(report.console_samples) < 5:
        report.console_samples.append(text)


async def snapshot(page, report: Report, name: str) -> None:
    if report.config.artifacts is None:
        return
    try:
        report.config.artifacts.mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(report.config.artifacts / f"{name}.png"), timeout=20_000)
    except Exception:  # a screenshot is a debugging aid only
        pass


# -- the editor ------------------------------------------------------------------------------------------------

async def _idle(page, timeout_ms: float) -> None:
    """Wait until the session's script run has finished (Streamlit's "Running..." icon is gone)."""
    from playwright.async_api import expect

    await expect(page.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0, timeout=timeout_ms)


async def _open_cell(page, overlay, timeout_ms: float) -> str | None:
    """Open the selected grid cell's editor (Enter), read its value and close it again (Escape); None if the
    editor did not open."""
    from playwright.async_api import expect

    await page.keyboard.press("Enter")
    try:
        await expect(overlay).to_be_visible(timeout=10_000)
    except AssertionError:
        return None
    value = await overlay.input_value()
    await page.keyboard.press("Escape")
    await expect(overlay).to_have_count(0, timeout=10_000)
    return value


ROW_PX = 35  # height of a header or data row of Streamlit's data grid


async def _scroll_grid_to_row(grid, row: int) -> None:
    """Scroll the grid's own scroller so that ``row`` is the first row shown (as far as it scrolls)."""
    await grid.evaluate("(el, top) => { for (const s of el.querySelectorAll('.dvn-scroller')) { s.scrollTop = top; "
                        "s.scrollLeft = 0; } }", row * ROW_PX)


async def _select_row(page, grid, overlay, edit: PlannedEdit, start_row: int, timeout_ms: float,
                      seen: list[str], max_walk: int) -> bool:
    """Select the id cell of the row whose id is ``edit.price_id``: scroll the grid so that ``start_row`` (the
    predicted row) is on top, click the first row shown, read its id and walk the id-sorted grid with the
    arrow keys to the row. False if the grid did not take a click or key (retry)."""
    await _idle(page, timeout_ms)
    await grid.scroll_into_view_if_needed()
    await _scroll_grid_to_row(grid, start_row)
    await page.wait_for_timeout(300)  # the canvas redraws after the scroll
    box = await grid.bounding_box()
    await page.mouse.click(box["x"] + 40, box["y"] + ROW_PX + ROW_PX // 2)  # first row shown, id column
    current = await _open_cell(page, overlay, timeout_ms)
    walked = 0
    while current is not None and current != edit.price_id and walked < max_walk:
        seen.append(current)
        await page.keyboard.press("ArrowDown" if current < edit.price_id else "ArrowUp")
        previous, current = current, await _open_cell(page, overlay, timeout_ms)
        walked += 1
        if current is not None and current != edit.price_id \
                and (previous < edit.price_id) != (current < edit.price_id):
            raise RuntimeError(f"the Prices grid has no row {edit.price_id} between {min(previous, current)} "
                               f"and {max(previous, current)} (is it still sorted by price id?)")
    return current == edit.price_id


def _same(shown: str, expected: object) -> bool:
    if isinstance(expected, float):
        try:
            return abs(float(shown) - expected) <= 1e-9
        except ValueError:
            return False
    return shown == str(expected)


async def _type_into_grid(page, edit: PlannedEdit, report: Report, timeout_ms: float, max_walk: int = 40) -> None:
    """Type the edit's cells (amount, source URL, retrieved at) into the Prices grid row whose id is
    ``edit.price_id``.

    The row is located by its id, not by a screen position alone (:func:`_select_row`); before typing, each cell is
    checked to hold the row's old value (or, after a retry, already the new one). A click or key the grid did
    not take (it re-renders when a script run ends, after every committed cell) is retried, at most 4 times per
    cell, and counted."""
    from playwright.async_api import expect

    grid = page.locator('.st-key-ed_prices [data-testid="stDataFrame"]').first
    overlay = page.locator("input.gdg-input, textarea.gdg-input").first
    seen: list[str] = []
    for name, old, new in edit.cells():
        for attempt in range(5):
            if attempt:
                report.editor_retries += 1
                await page.keyboard.press("Escape")
                await page.wait_for_timeout(1000)
            if not await _select_row(page, grid, overlay, edit, edit.grid_row, timeout_ms, seen, max_walk):
                continue
            for _ in range(column_offset(name)):
                await page.keyboard.press("ArrowRight")
            await page.keyboard.press("Enter")
            try:
                await expect(overlay).to_be_visible(timeout=10_000)
                shown = await overlay.input_value()
            except AssertionError:
                continue
            if _same(shown, new):  # committed by an earlier attempt
                await page.keyboard.press("Escape")
                break
            if not _same(shown, old):
                await page.keyboard.press("Escape")
                continue
            await overlay.fill(str(new))
            await overlay.press("Enter")
            await expect(overlay).to_have_count(0, timeout=10_000)
            break
        else:
            raise RuntimeError(f"the Prices grid did not let the editor type {name} of row {edit.price_id} "
                               f"(predicted at row {edit.grid_row}) in 5 attempts; ids read on the way: "
                               f"{sorted(set(seen))[:6]}")


async def editor_session(page, url: str, report: Report, timeout_ms: float, gap_s: float,
                         tours_running: asyncio.Event) -> None:
    from playwright.async_api import expect

    for k, edit in enumerate(report.edits_planned, start=1):
        await asyncio.sleep(gap_s)
        try:
            await page.goto(f"{url}/editor", timeout=timeout_ms)
            await expect(page.get_by_text(re.compile(r"^Local mode"))).to_be_visible(timeout=timeout_ms)
            await expect(page.locator('.st-key-ed_prices [data-testid="stDataFrame"]').first).to_be_visible(
                timeout=timeout_ms)
            await _type_into_grid(page, edit, report, timeout_ms)
            await page.wait_for_timeout(1000)  # the grid hands its edit state to the widget asynchronously
            message = page.get_by_label("What changed and why (saved in the history)").first
            await message.fill(f"load test: save {k} of {len(report.edits_planned)}, {edit.price_id} -> {edit.amount}")
            await message.press("Enter")
            await page.wait_for_timeout(1000)
            t0 = time.perf_counter()
            await page.locator(".st-key-ed_save_prices button").click()
            outcome = page.locator('[data-testid="stAlertContainer"]').filter(
                has_text=re.compile(r"Saved change set #|Nothing was saved|Nothing to save|Say what changed|changed by someone"))
            await expect(outcome.first).to_be_visible(timeout=timeout_ms)
            text = (await outcome.first.inner_text()).strip()
            if not re.search(r"Saved change set #\d+: 2 row change\(s\)", text):
                raise RuntimeError(f"save {k}: {text[:200]}")
            report.saves.append(time.perf_counter() - t0)
            report.edits_acknowledged.append(k - 1)
            if tours_running.is_set():
                report.saves_during_tours += 1
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            first = (str(exc).strip().splitlines() or [""])[0][:200]
            report.errors.append(f"editor save {k}: {type(exc).__name__}: {first}")
            await snapshot(page, report, f"editor-save{k}")


# -- the run ---------------------------------------------------------------------------------------------------

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
                page.on("console", lambda msg: _console(report, msg))
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
            report.browser_cpu_s = _descendants_cpu_s(os.getpid(), tuple(report.server_pids or [report.server_pid]))
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


# -- the server under test -------------------------------------------------------------------------------------

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
            for pid in _client_pids(os.getpid(), proc.pid):
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
            report.server_cpu_s = _cpu_s(proc.pid) or sampler.cpu_s
            if cluster is not None:
                report.replica_cpu_s = [_cpu_s(p.pid) or 0.0 for p in cluster.procs]
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    d = LoadConfig()
    parser.add_argument("--viewers", type=int, default=d.viewers, help="concurrent viewer sessions")
    parser.add_argument("--edits", type=int, default=d.edits, help="price saves by the editor session (1-9)")
    parser.add_argument("--deadline-s", type=float, default=d.deadline_s, help="the run stops by itself after this")
    parser.add_argument("--rounds", type=int, default=d.rounds, help="page tours every viewer makes at least")
    parser.add_argument("--max-rounds", type=int, default=d.max_rounds,
                        help="at most this many, touring on while the editor is still saving")
    parser.add_argument("--ramp-s", type=float, default=d.ramp_s, help="viewer i starts i * ramp-s after the first")
    parser.add_argument("--pages", nargs="*", help="URL paths to tour ('' or home = Home); default: every page")
    parser.add_argument("--edit-gap-s", type=float, default=d.edit_gap_s, help="pause before each save")
    parser.add_argument("--step-timeout-s", type=float, default=d.step_timeout_s, help="timeout of one page step")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every step as it starts")
    parser.add_argument("--browser-nice", type=int, default=d.browser_nice,
                        help="nice level of Chromium (0: same priority as the server)")
    parser.add_argument("--no-probe", action="store_true", help="no browserless websocket session (server-side times)")
    parser.add_argument("--artifacts", type=Path, help="save a screenshot of every failed step in this folder")
    parser.add_argument("--cluster", type=int, default=0, metavar="N",
                        help="N replicas behind nginx on a throwaway PostgreSQL (bench/load_cluster.py); 0: one server")
    parser.add_argument("--ws-viewers", type=int, default=0, metavar="N",
                        help="N more viewer sessions without a browser, on Streamlit's websocket protocol")
    parser.add_argument("--think-s", type=float, default=d.think_s, metavar="S",
                        help="mean pause of a browserless viewer before each click (uniform 0.5-1.5 S; 0: none)")
    parser.add_argument("--kill-replica-after-s", type=float, default=0.0, metavar="S",
                        help="--cluster: SIGKILL the replica serving most browserless sessions S s after the start")
    parser.add_argument("--profile", type=Path, help="py-spy samples of the server while the viewers run (raw "
                        "format; summarise with bench/profile_summary.py)")
    args = parser.parse_args(argv)
    config = LoadConfig(viewers=args.viewers, edits=args.edits, deadline_s=args.deadline_s, rounds=args.rounds,
                        max_rounds=max(args.rounds, args.max_rounds), edit_gap_s=args.edit_gap_s, ramp_s=args.ramp_s,
                        step_timeout_s=args.step_timeout_s, verbose=args.verbose,
                        artifacts=args.artifacts, profile=args.profile,
                        browser_nice=args.browser_nice, hard_exit=True, probe=not args.no_probe, cluster=args.cluster,
                        ws_viewers=args.ws_viewers, kill_replica_after_s=args.kill_replica_after_s,
                        think_s=args.think_s,
                        pages=None if args.pages is None else tuple("" if p in ("home", "/") else p.strip("/")
                                                                    for p in args.pages))
    if config.kill_replica_after_s and config.cluster < 2:
        parser.error("--kill-replica-after-s needs --cluster 2 or more (a replica to kill and one to reconnect to)")
    if config.kill_replica_after_s and not config.ws_viewers:
        parser.error("--kill-replica-after-s needs --ws-viewers (the sessions whose reconnection is checked)")
    report = run_load_test(config)
    print(format_report(report), flush=True)
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
