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

1. Builds a fresh catalog from the seed in a temporary directory, plans the edits (:func:`bench.load.plan.plan_edits`) and
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
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.load.config import LoadConfig  # noqa: E402
from bench.load.report import format_report  # noqa: E402
from bench.load.run import run_load_test  # noqa: E402


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
