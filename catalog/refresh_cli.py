"""``make refresh`` / ``python -m catalog.cli refresh``: print the refresh preview, apply it on request.

Whoever can write the catalog file can change it, so the command line writes as an editor named after
the operating-system user (``cli:<user>``); every change set is logged with that name and can be restored.
"""

from __future__ import annotations

import datetime as dt
import getpass
import sys
from pathlib import Path

import pandas as pd

from catalog.errors import CatalogError
from catalog.models import Editor


def _print_preview(preview, label: str) -> None:
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 20)
    counts = ", ".join(f"{k}: {v}" for k, v in preview.counts.items())
    print(f"\n== {label}: {preview.rows_read} data lines ({preview.fmt}) -> {counts}")
    if preview.unknown_gpus:
        print("unknown GPU names: " + ", ".join(f"{n} ({c} rows)" for n, c in sorted(preview.unknown_gpus.items())))
    if preview.problems:
        print(f"{len(preview.problems)} problem(s); nothing can be applied until they are fixed:")
        for where, column, reason in preview.problems[:50]:
            print(f"  {where} · {column}: {reason}")
        if len(preview.problems) > 50:
            print(f"  ... and {len(preview.problems) - 50} more")
    if preview.skipped:
        reasons = pd.Series([r for _, _, r in preview.skipped]).str.replace(r" in [a-z0-9-]+ \(", " (", regex=True)
        print(f"{len(preview.skipped)} skipped row(s), by reason:")
        print(reasons.value_counts().head(15).to_string())
    moved = preview.diff[preview.diff.status.isin(["new", "changed"])] if len(preview.diff) else preview.diff
    if len(moved):
        cols = ["status", "offer_id", "gpus_per_node", "on-demand_old", "on-demand_new", "on-demand_move_pct",
                "spot_old", "spot_new", "datacenter_country"]
        print(moved[cols].head(60).to_string(index=False))
    if len(preview.disappeared):
        print(f"{len(preview.disappeared)} offer(s) of this provider are not in the file (left as they are)")


def run_refresh(path: Path, args) -> int:
    from catalog.refresh import (
        GPUHUNT_PROVIDER_IDS,
        LiveFetchError,
        RefreshInputError,
        apply_refresh,
        fetch_gpuhunt,
        plan_refresh,
    )
    from catalog.store import CatalogStore

    editor = Editor(name=f"cli:{getpass.getuser()}", role="editor")
    try:
        if args.source == "gpuhunt":
            names = [p.strip() for p in args.providers.split(",") if p.strip()]
            if not names:
                print("error: name the providers: make refresh SOURCE=gpuhunt PROVIDERS=aws,gcp", file=sys.stderr)
                return 2
            sources = {n: (data, url, GPUHUNT_PROVIDER_IDS.get(n, n), f"gpuhunt-{n}.csv")
                       for n, (data, url) in fetch_gpuhunt(names).items()}
            as_of = args.as_of or dt.date.today().isoformat()
        else:
            file = Path(args.source)
            if not file.is_file():
                print(f"error: no file {file}", file=sys.stderr)
                return 2
            if not (args.provider and args.source_url and args.as_of):
                print("error: a file needs PROVIDER=, URL= (where it comes from) and AS_OF= (its date): "
                      "provenance is never made up", file=sys.stderr)
                return 2
            sources = {file.name: (file.read_bytes(), args.source_url, args.provider, file.name)}
            as_of = args.as_of
        status = 0
        with CatalogStore(path) as store:
            for label, (data, url, provider, filename) in sources.items():
                preview = plan_refresh(store, data, filename, provider_id=provider, source_url=url, as_of=as_of,
                                       skip_unknown_gpus=args.skip_unknown_gpus)
                _print_preview(preview, f"{label} -> {provider}")
                if preview.problems:
                    status = 1
                    continue
                if not preview.changes:
                    print("nothing to apply")
                    continue
                if not args.apply:
                    print(f"preview only: {len(preview.changes)} row change(s); add APPLY=1 (--apply) to write them")
                    continue
                result = apply_refresh(store, preview, editor,
                                       args.message or f"{provider} prices from {filename} ({as_of})")
                print(f"applied as change set #{result.change_set_id}: {result.rows} row change(s)")
        return status
    except (LiveFetchError, RefreshInputError, CatalogError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
