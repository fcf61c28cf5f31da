"""Catalog refresh at cloud scale (issue #16): an Azure-sized SkyPilot vms.csv (tens of thousands of rows)
previews in < 3 s and applies in < 30 s.

The file is synthetic but made of real rows: every distinct GPU instance configuration of the SkyPilot
v8 AWS excerpt, the Nebius catalog and the Lambda catalog in tests/catalog/data (name, GPU, count,
GpuInfo, price, spot price), repeated over generated regions with three zones each, plus the real CPU
rows. Baseline: the same offers and prices written with one plain bulk INSERT per table (no validation,
no version checks, no change log), measured in the same run; the two catalogs' offer and price content
must be equal. Reports only; never fails.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT / "tests" / "catalog" / "data"
TARGET_PREVIEW_S = 3.0
TARGET_APPLY_S = 30.0
ROWS = 45_000


def synthetic_file(rows: int = ROWS) -> bytes:
    cols = ["InstanceType", "AcceleratorName", "AcceleratorCount", "GpuInfo", "Price", "SpotPrice"]
    frames = [pd.read_csv(DATA / f, dtype=str, keep_default_na=False)
              for f in ("skypilot_v8_aws_vms_excerpt.csv", "skypilot_v8_nebius_vms.csv", "anycloud_lambda_vms.csv")]
    real = pd.concat([f.reindex(columns=cols + ["Region"], fill_value="") for f in frames], ignore_index=True)
    known = {"H100", "H200", "B200", "L40S", "A100", "A100-80GB"}
    gpu = real[real.AcceleratorName.isin(known)].drop_duplicates(["InstanceType"])[cols]
    cpu = real[real.AcceleratorName == ""].head(200)[cols]
    per_region = (len(gpu) + len(cpu)) * 3
    regions = max(1, rows // per_region)
    parts = []
    for r in range(regions):
        for z in "abc":
            block = pd.concat([gpu, cpu]).assign(Region=f"bench-region-{r}", AvailabilityZone=f"bench-region-{r}{z}")
            parts.append(block)
    out = pd.concat(parts, ignore_index=True)
    return out.to_csv(index=False).encode()


def baseline_insert(store, preview) -> float:
    """Plain bulk INSERT of the previewed new offers and prices (the floor a write path cannot beat)."""
    from catalog.storage.common import TABLE_COLUMNS, stored_row
    from catalog.storage.ducksql import arrow_table, column_types, registered

    t0 = time.perf_counter()
    cur = store.cursor()
    cur.execute("BEGIN TRANSACTION")
    for table in ("offers", "prices"):
        from catalog.models import TABLE_MODELS

        model = TABLE_MODELS[table]
        records = [{**stored_row(model.model_validate(c.values).model_dump(mode="python"), table), "updated_by": "b"}
                   for c in preview.changes if c.table == table and c.action == "insert"]
        cols = [*TABLE_COLUMNS[table], "updated_by"]
        with registered(cur, "_bulk", arrow_table(records, cols, column_types(cur, table))):
            cur.execute(f"INSERT INTO {table} ({', '.join(cols)}) SELECT {', '.join(cols)} FROM _bulk")
    cur.execute("COMMIT")
    return time.perf_counter() - t0


def content(store, table: str) -> pd.DataFrame:
    cols = [c for c in store.table(table).columns if c not in ("as_of_date",)]
    return store.table(table)[cols].sort_values(cols[0]).reset_index(drop=True)


def main() -> dict:
    from catalog.models import Editor
    from catalog.refresh import apply_refresh, plan_refresh
    from catalog.store import CatalogStore, build_catalog

    data = synthetic_file()
    lines = data.count(b"\n") - 1
    work = Path(tempfile.mkdtemp(prefix="bench-import-"))
    try:
        build_catalog(work / "seed.duckdb")
        shutil.copyfile(work / "seed.duckdb", work / "a.duckdb")
        shutil.copyfile(work / "seed.duckdb", work / "b.duckdb")
        with CatalogStore(work / "a.duckdb") as store:
            steps = []
            preview_s = float("inf")
            for _ in range(2):  # best of two (the machine is shared)
                t0 = time.perf_counter()
                preview = plan_refresh(store, data, "azure-sized-vms.csv", provider_id="azure",
                                       source_url="https://example.com/bench/vms.csv", as_of="2026-11-01",
                                       progress=lambda f, s: steps.append(s))
                preview_s = min(preview_s, time.perf_counter() - t0)
            assert preview.ok, preview.problems[:3]
            t0 = time.perf_counter()
            result = apply_refresh(store, preview, Editor(name="bench", role="editor"), "bench")
            apply_s = time.perf_counter() - t0
            offers_a, prices_a = content(store, "offers"), content(store, "prices")
            log_rows = len(store.change_log(result.change_set_id))
            t0 = time.perf_counter()
            undo = store.restore(result.change_set_id - 1, Editor(name="bench", role="editor"))
            restore_s = time.perf_counter() - t0
        with CatalogStore(work / "b.duckdb") as base:
            baseline_s = baseline_insert(base, preview)
            offers_b, prices_b = content(base, "offers"), content(base, "prices")
        same = (offers_a.drop(columns=["row_version", "updated_by"], errors="ignore")
                .equals(offers_b.drop(columns=["row_version", "updated_by"], errors="ignore"))
                and prices_a.drop(columns=["row_version", "updated_by"], errors="ignore")
                .equals(prices_b.drop(columns=["row_version", "updated_by"], errors="ignore")))
        assert same, "the refresh and the baseline wrote different offers/prices"
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out = {"lines": lines, "offers": preview.counts["new"], "row_changes": len(preview.changes),
           "preview_s": preview_s, "apply_s": apply_s, "baseline_s": baseline_s, "restore_s": restore_s,
           "log_rows": log_rows, "restored_rows": undo.rows}
    print(f"Azure-sized refresh: {lines:,} CSV lines -> {out['offers']:,} new offers, {out['row_changes']:,} row changes")
    print(f"{'step':<34} {'seconds':>8}  target")
    print(f"{'preview (read, map, diff)':<34} {preview_s:>8.2f}  < {TARGET_PREVIEW_S:.0f} s: "
          f"{'PASS' if preview_s < TARGET_PREVIEW_S else 'FAIL'}")
    print(f"{'apply (validate, write, log)':<34} {apply_s:>8.2f}  < {TARGET_APPLY_S:.0f} s: "
          f"{'PASS' if apply_s < TARGET_APPLY_S else 'FAIL'}")
    print(f"{'baseline: bare bulk INSERT':<34} {baseline_s:>8.2f}  (apply / baseline = {apply_s / baseline_s:.1f}x; "
          "same offers and prices: yes)")
    print(f"{'restore to before the refresh':<34} {restore_s:>8.2f}  ({undo.rows:,} rows, {log_rows:,} log entries)")
    return out


if __name__ == "__main__":
    main()
