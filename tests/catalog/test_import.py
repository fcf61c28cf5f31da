"""Import/export: previews, atomic apply, malformed files leave the catalog unchanged, crash safety."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catalog.errors import CatalogError
from catalog.importer import (
    ImportFormatError,
    detect_format,
    export_csv,
    export_excel,
    preview_table_import,
    read_table_file,
)
from catalog.models import ChangeSet, Editor
from catalog.store import CatalogStore

ALICE = Editor(name="alice", role="editor")


def exported(store, table) -> bytes:
    return export_csv(store.editable_rows(table))


def test_export_then_import_changes_nothing(store):
    frames = read_table_file(exported(store, "offers"), "offers.csv")
    assert detect_format(frames[""]) == "offers"
    preview = preview_table_import(frames[""], "offers", store.editable_rows("offers"))
    assert preview.problems == [] and preview.changes == []
    assert preview.unchanged == len(store.table("offers"))


def test_an_edited_export_imports_as_one_change_set(store):
    frame = store.editable_rows("providers")
    frame.loc[frame.provider_id == "scaleway", "uptime_sla_pct"] = 99.9
    preview = preview_table_import(read_table_file(export_csv(frame), "p.csv")[""], "providers", store.editable_rows("providers"))
    assert (preview.added, preview.changed, preview.removed) == (0, 1, 0)
    result = store.apply_changes(ChangeSet(changes=preview.changes, message="import", kind="import"), ALICE)
    assert store.row("providers", "scaleway")["uptime_sla_pct"] == 99.9
    assert store.change_sets().set_index("change_set_id").loc[result.change_set_id, "kind"] == "import"


def test_excel_round_trip(store):
    data = export_excel({"gpu_specs": store.editable_rows("gpu_specs"), "providers": store.editable_rows("providers")})
    frames = read_table_file(data, "catalog.xlsx")
    assert set(frames) == {"gpu_specs", "providers"}
    preview = preview_table_import(frames["gpu_specs"], "gpu_specs", store.editable_rows("gpu_specs"))
    assert preview.problems == [] and preview.unchanged == len(store.table("gpu_specs"))


def test_complete_file_removes_missing_rows_only_when_asked(store):
    frame = store.editable_rows("gpu_aliases").iloc[1:]
    current = store.editable_rows("gpu_aliases")
    assert preview_table_import(frame, "gpu_aliases", current).removed == 0
    assert preview_table_import(frame, "gpu_aliases", current, complete=True).removed == 1


def test_empty_and_oversized_files_are_refused():
    with pytest.raises(ImportFormatError, match="empty"):
        read_table_file(b"", "x.csv")
    with pytest.raises(ImportFormatError, match="limited to"):
        read_table_file(b"a" * (50 * 1024 * 1024), "x.csv")


MUTATIONS = ["wrong_type", "negative_price", "unknown_enum", "duplicate_key", "dangling_key", "missing_column", "garbage"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutation=st.sampled_from(MUTATIONS), row=st.integers(0, 50), noise=st.text(min_size=1, max_size=20))
def test_malformed_imports_report_and_change_nothing(store, mutation, row, noise):
    table = "prices"
    before = store.content_checksum()
    frame = store.editable_rows(table).astype(object)
    row = row % len(frame)
    if mutation == "wrong_type":
        frame.loc[row, "amount_per_gpu_hour"] = noise + "x"
    elif mutation == "negative_price":
        frame.loc[row, "amount_per_gpu_hour"] = -1 - len(noise)
    elif mutation == "unknown_enum":
        frame.loc[row, "price_type"] = "reserved-" + noise
    elif mutation == "duplicate_key":
        frame = pd.concat([frame, frame.iloc[[row]]])
        frame.iloc[-1, frame.columns.get_loc("amount_per_gpu_hour")] = 123.0
    elif mutation == "dangling_key":
        frame.loc[row, "offer_id"] = "no-such-offer-" + "".join(c for c in noise.lower() if c.isalnum())
        frame.loc[row, "price_id"] = "new-price"
    elif mutation == "missing_column":
        frame = frame.drop(columns=["currency"])
    data = noise.encode() * 3 if mutation == "garbage" else export_csv(frame)
    try:
        frames = read_table_file(data, "prices.csv")
        preview = preview_table_import(frames[""], table, store.editable_rows(table))
        assert not preview.ok or mutation == "dangling_key", preview
        if preview.ok:
            with pytest.raises(CatalogError):
                store.apply_changes(ChangeSet(changes=preview.changes, message="bad import", kind="import"), ALICE)
        else:
            assert preview.problems and all(len(p) == 3 for p in preview.problems)
    except ImportFormatError as exc:
        assert str(exc)
    assert store.content_checksum() == before


def test_killing_a_writer_mid_import_keeps_the_last_committed_state(catalog_path):
    with CatalogStore(catalog_path) as s:
        before = s.content_checksum()
    script = textwrap.dedent(f"""
        import sys
        from catalog.models import ChangeSet, Editor, RowChange
        from catalog.store import CatalogStore
        store = CatalogStore({str(catalog_path)!r})
        changes = [RowChange(table="gpu_aliases", action="insert", key=f"alias-{{i}}",
                             values={{"alias": f"alias-{{i}}", "gpu_model": "H100"}}) for i in range(20000)]
        print("importing", flush=True)
        store.apply_changes(ChangeSet(changes=changes, message="big import", kind="import"), Editor(name="x", role="editor"))
        print("done", flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                            cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert proc.stdout.readline().strip() == "importing"
    time.sleep(1.0)
    assert proc.poll() is None, "the import finished before it could be killed: make it larger"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with CatalogStore(catalog_path) as s:
        assert s.content_checksum() == before
        assert len(s.change_sets()) == 1


def test_a_committed_save_survives_a_sigkill_right_after_it(catalog_path):
    # The writer commits one change set and is then killed without closing the database: the reopened
    # catalog must hold that change (DuckDB's write-ahead log is replayed on open).
    script = textwrap.dedent(f"""
        import os, signal
        from catalog.models import ChangeSet, Editor, RowChange
        from catalog.store import CatalogStore
        store = CatalogStore({str(catalog_path)!r})
        store.apply_changes(ChangeSet(changes=[RowChange(table="gpu_aliases", action="insert", key="survivor",
                            values={{"alias": "survivor", "gpu_model": "H100"}})], message="committed"),
                            Editor(name="x", role="editor"))
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    proc = subprocess.run([sys.executable, "-c", script], cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert proc.returncode == -signal.SIGKILL
    with CatalogStore(catalog_path) as s:
        assert s.row("gpu_aliases", "survivor")["gpu_model"] == "H100"
        assert s.change_sets().iloc[0]["message"] == "committed"
