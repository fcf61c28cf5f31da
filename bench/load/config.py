"""`make load`: what a run is told (:class:`LoadConfig`), what it records (:class:`Report`), the edits it plans
(:class:`PlannedEdit`), and the pages, texts and filter it looks for (bench/load_test.py)."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

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
