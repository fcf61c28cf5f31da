"""`make load`: what is measured beside the browsers: the server's memory and CPU (and the browsers' CPU and
priority) from /proc, the health endpoint's latency, and one browserless session timing every page idle."""

from __future__ import annotations

import os
import threading
import time
import urllib.request

from bench.load.config import Report


def _rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def process_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of a process so far."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def client_pids(root: int, exclude: int | tuple[int, ...]) -> list[int]:
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


def descendants_cpu_s(root: int, exclude: int | tuple[int, ...]) -> float:
    """CPU seconds used so far by the processes under ``root`` (the browser and its driver), ``exclude`` aside."""
    return sum(process_cpu_s(pid) or 0.0 for pid in client_pids(root, exclude))


def _renice_browser(root: int, exclude: int | tuple[int, ...], nice: int) -> None:
    """Lower the priority of every Chromium thread under ``root`` to ``nice`` (Linux nice is per thread)."""
    for pid in client_pids(root, exclude):
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
                self.cpu_s = process_cpu_s(self.pid) or self.cpu_s
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
