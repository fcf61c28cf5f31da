"""The two catalog backends side by side (issue #21: "analytics-heavy reads can stay in DuckDB over a snapshot —
measure it"). Same seed, same machine, same run; outputs asserted equal before anything is timed.

    python bench/bench_backends.py [--repeat 20]

Times (median of ``--repeat``): the catalog version check every rerun makes (PostgreSQL: one indexed row); the
read snapshot a PostgreSQL replica rebuilds after a save; the offer query (the Providers page's main read) on
the DuckDB file and on a replica's snapshot; and one saved price edit (validate, write, log) on each backend.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pg_local import start_local_postgres  # noqa: E402
from catalog.models import ChangeSet, Editor, RowChange  # noqa: E402
from catalog.storage.postgres import PostgresCatalogStore, build_postgres_catalog  # noqa: E402
from catalog.store import CatalogStore, OfferFilter, build_catalog  # noqa: E402

EDITOR = Editor(name="bench", role="editor")
PRICE_ID = "scaleway-h100-pcie-h100-1-80g-fr-par-2-eur:on-demand::2026-09-27"


def _median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


def _edit(store, i: int) -> None:
    row = store.row("prices", PRICE_ID)
    values = {k: v for k, v in row.items() if k not in ("as_of_date", "row_version", "updated_by")}
    values["notes"] = f"bench {i}"
    store.apply_changes(ChangeSet(changes=[RowChange(table="prices", action="update", key=PRICE_ID, values=values,
                                                     expected_version=row["row_version"])], message="bench"), EDITOR)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=20)
    n = ap.parse_args().repeat
    server = start_local_postgres(fsync=True)
    try:
        url = build_postgres_catalog(server.create_database("bench"))
        with tempfile.TemporaryDirectory() as tmp:
            path = build_catalog(Path(tmp) / "catalog.duckdb")
            with CatalogStore(path) as duck, PostgresCatalogStore(url) as pg:
                offers = [s.list_offers(OfferFilter(), usd_per_eur=1.1) for s in (duck, pg)]
                assert offers[0].equals(offers[1]) and duck.content_checksum() == pg.content_checksum()
                rows = [
                    ("catalog version check (every rerun)", _median_ms(lambda: duck.data_version, n),
                     _median_ms(lambda: pg.data_version, n)),
                    ("read snapshot rebuild (after a save)", float("nan"), _median_ms(pg._take_snapshot, n)),
                    ("offer query (Providers, whole catalog)",
                     _median_ms(lambda: duck.list_offers(OfferFilter(), usd_per_eur=1.1), n),
                     _median_ms(lambda: pg.list_offers(OfferFilter(), usd_per_eur=1.1), n)),
                ]
                counter = iter(range(10 * n))
                rows.append(("one price edit saved (validate, write, log)",
                             _median_ms(lambda: _edit(duck, next(counter)), n),
                             _median_ms(lambda: _edit(pg, next(counter)), n)))
                assert duck.row("prices", PRICE_ID)["notes"].startswith("bench")
                print(f"catalog backends, median of {n} (ms); {len(offers[0])} offers, identical on both")
                print(f"{'':<46}{'DuckDB file':>12}{'PostgreSQL':>12}")
                for label, d, p in rows:
                    print(f"{label:<46}{'—' if d != d else f'{d:.1f}':>12}{p:>12.1f}")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
