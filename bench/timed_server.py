"""`streamlit run` with server-side timing of every script run, for `make load` (bench/load_test.py).

Usage: ``python bench/timed_server.py LOG.jsonl run app.py [streamlit options]``; the app itself is unchanged.

It wraps two methods of Streamlit's per-session ``AppSession`` before handing over to Streamlit's own command
line: ``handle_backmsg`` (a "rerun_script" message from the browser arrives on the server's event loop: a page
switch or an input change) and ``_enqueue_forward_msg`` (the server queues a message for the browser; here the
current page from the "navigation" message and the "script_finished" message). For each session one JSON line
is written per finished run::

    {"t": <unix time at the end>, "session": id, "page": url path ("" = home), "kind": "load" | "input",
     "seconds": <message received → script_finished queued>, "reruns": <requests merged into this run>}

"load" is a run on another page than the session's previous run (a page switch or the first visit), "input" a
run on the same page (a widget changed). When a request arrives while the session's script still runs,
Streamlit stops that run and starts again; the time is counted from the *first* waiting request, as the user
who changed the input waits from then until a run finishes. Runs that end in an error are written with
``"error": true``. This is the server's share of input → result, without the browser's network or rendering.
"""

from __future__ import annotations

import json
import sys
import threading
import time


def install(log_path: str) -> None:
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamlit.runtime.app_session import AppSession

    lock = threading.Lock()
    out = open(log_path, "a", buffering=1)  # noqa: SIM115 (open for the server's lifetime, line-buffered)
    pending: dict[str, dict] = {}   # session id -> {"t0", "reruns", "hash"}
    last_page: dict[str, str] = {}  # session id -> url path of its last finished run
    paths: dict[str, str] = {}      # page script hash -> url path

    handle_backmsg = AppSession.handle_backmsg
    enqueue = AppSession._enqueue_forward_msg

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
                              "seconds": round(now - entry["t0"], 5), "reruns": entry["reruns"]}
                    if msg.script_finished not in (ForwardMsg.FINISHED_SUCCESSFULLY,
                                                   ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY):
                        record["error"] = True
                    last_page[self.id] = page
                    out.write(json.dumps(record) + "\n")
        enqueue(self, msg)

    AppSession.handle_backmsg = timed_handle_backmsg
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
