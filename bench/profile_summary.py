"""Summarise py-spy raw samples of the app server (``make load`` with ``--profile``): where the script threads
spend their time, by the app's own functions (inclusive) and by the library leaf they end in.

Usage: python bench/profile_summary.py PROFILE.raw [--top 40]

Only samples inside a script run are counted (a stack through Streamlit's script runner); the share printed is
of those samples. py-spy samples every thread, running or waiting on the GIL, so a share is wall time of the
script threads, not CPU time: a run waiting for the GIL counts where it waits.
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
from pathlib import Path

APP = re.compile(r"\((?:app_pages|ui|engine|catalog)/[^)]*\)")
ROOT = Path(__file__).resolve().parents[1]
#: A page script's own frame; py-spy shortens paths on sys.path, so app_pages/ may be missing.
PAGE = re.compile(r"^<module> \((?:.*/)?(?:app_pages/)?(" + "|".join(p.stem for p in (ROOT / "app_pages").glob("*.py"))
                  + r")\.py:\d+\)$")


def summarise(path: str, top: int = 40) -> str:
    inclusive: collections.Counter[str] = collections.Counter()
    app_frames: collections.Counter[str] = collections.Counter()
    leaves: collections.Counter[str] = collections.Counter()
    pages: collections.Counter[str] = collections.Counter()
    total = idle = 0
    for line in open(path, encoding="utf-8", errors="replace"):
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not count.isdigit():
            continue
        n, frames = int(count), stack.split(";")
        if not any("script_runner.py" in f for f in frames):
            idle += n
            continue
        total += n
        for f in set(frames):
            inclusive[f] += n
        own = [f for f in frames if APP.search(f)]
        for f in {re.sub(r":\d+\)", ")", f) for f in own}:
            app_frames[f] += n
        page = next((m.group(1) for f in frames if (m := PAGE.search(f))), "(app.py, outside a page)")
        pages[page] += n
        leaves[re.sub(r":\d+\)", ")", frames[-1])] += n
    if not total:
        return "no samples inside a script run"
    out = [f"{total} samples inside script runs ({idle} elsewhere: event loop, idle threads)", "", "by page:"]
    out += [f"  {n:7d} {100 * n / total:5.1f}%  {p}" for p, n in pages.most_common()]
    out += ["", "app functions (inclusive):"]
    out += [f"  {n:7d} {100 * n / total:5.1f}%  {f[:140]}" for f, n in app_frames.most_common(top)]
    out += ["", "leaf functions (where the time is spent):"]
    out += [f"  {n:7d} {100 * n / total:5.1f}%  {f[:140]}" for f, n in leaves.most_common(top)]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("profile")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args(argv)
    print(summarise(args.profile, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
