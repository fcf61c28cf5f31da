"""`streamlit run` with server-side timing of every script run, for `make load` (bench/load_test.py).

Usage: ``python bench/timed_server.py LOG.jsonl run app.py [streamlit options]``; the app itself is unchanged.

It wraps two methods of Streamlit's per-session ``AppSession`` before handing over to Streamlit's own command
line: ``handle_backmsg`` (a "rerun_script" message from the browser arrives on the server's event loop: a page
switch or an input change) and ``_enqueue_forward_msg`` (the server queues a message for the browser; here the
current page from the "navigation" message and the "script_finished" message). For each session one JSON line
is written per finished run::

    {"t": <unix time at the end>, "session": id, "page": url path ("" = home), "kind": "load" | "input",
     "seconds": <message received → script_finished queued>, "reruns": <requests merged into this run>,
     "cpu_seconds": <CPU time of the script thread over the run(s), without waiting: what the run costs>}

"load" is a run on another page than the session's previous run (a page switch or the first visit), "input" a
run on the same page (a widget changed). When a request arrives while the session's script still runs,
Streamlit stops that run and starts again; the time is counted from the *first* waiting request, as the user
who changed the input waits from then until a run finishes. Runs that end in an error are written with
``"error": true``. This is the server's share of input → result, without the browser's network or rendering.
"seconds" minus "cpu_seconds" is time spent waiting: for the GIL (other sessions' runs), for a CPU (other
processes on the machine) or for I/O.
"""

from __future__ import annotations

import json
import sys
import threading
import time


def install(log_path: str) -> None:
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner

    lock = threading.Lock()
    out = open(log_path, "a", buffering=1)  # noqa: SIM115 (open for the server's lifetime, line-buffered)
    pending: dict[str, dict] = {}   # session id -> {"t0", "reruns", "hash"}
    last_page: dict[str, str] = {}  # session id -> url path of its last finished run
    paths: dict[str, str] = {}      # page script hash -> url path

    handle_backmsg = AppSession.handle_backmsg
    enqueue = AppSession._enqueue_forward_msg
    run_script = ScriptRunner._run_script
    on_script_finished = ScriptRunner._on_script_finished
    cpu: dict[str, float] = {}      # session id -> script-thread CPU seconds since its pending request

    def timed_run_script(self, rerun_data) -> None:
        self._timing_cpu0 = time.thread_time()
        run_script(self, rerun_data)

    def timed_on_script_finished(self, *args, **kwargs) -> None:
        # In the script thread, before the "script finished" event goes to the event loop: no race.
        now = time.thread_time()
        used = now - getattr(self, "_timing_cpu0", now)
        self._timing_cpu0 = now  # _run_script loops when a rerun was requested: the next run counts from here
        with lock:
            cpu[self._session_id] = cpu.get(self._session_id, 0.0) + used
        on_script_finished(self, *args, **kwargs)

    def timed_handle_backmsg(self, msg) -> None:
        if msg.WhichOneof("type") == "rerun_script":
            now = time.perf_counter()
            with lock:
                entry = pending.setdefault(self.id, {"t0": now, "reruns": 0, "hash": None})
                entry["reruns"] += 1
        handle_backmsg(self, msg)

    def timed_enqueue(self, msg) -> None:
        kind = msg.WhichOneof("type")
        if kind == "navigation":
            with lock:
                paths.update({p.page_script_hash: p.url_pathname for p in msg.navigation.app_pages})
                if self.id in pending:
                    pending[self.id]["hash"] = msg.navigation.page_script_hash
        elif kind == "script_finished" and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
            now = time.perf_counter()
            with lock:
                entry = pending.pop(self.id, None)
                if entry is not None:
                    page = paths.get(entry["hash"] or "", "?")
                    record = {"t": round(time.time(), 3), "session": self.id[:8], "page": page,
                              "kind": "input" if last_page.get(self.id) == page else "load",
                              "seconds": round(now - entry["t0"], 5), "reruns": entry["reruns"],
                              "cpu_seconds": round(cpu.pop(self.id, float("nan")), 5)}
                    if msg.script_finished not in (ForwardMsg.FINISHED_SUCCESSFULLY,
                                                   ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY):
                        record["error"] = True
                    last_page[self.id] = page
                    out.write(json.dumps(record) + "\n")
        enqueue(self, msg)

    AppSession.handle_backmsg = timed_handle_backmsg
    ScriptRunner._run_script = timed_run_script
    ScriptRunner._on_script_finished = timed_on_script_finished
    AppSession._enqueue_forward_msg = timed_enqueue


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    install(argv[0])
    from streamlit.web import cli

    sys.argv = ["streamlit", *argv[1:]]
    return cli.main(prog_name="streamlit")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
