"""Regression tests for the catalog write path (issue #16 items 1-2, issue #15 items 8-9).

Each test failed on the code before the fix (the report lists how): DuckDB ran an UPDATE of an offer or
GPU spec as delete + insert that the price rows' foreign key refused, refused a restore that deleted
prices and their offer in one transaction, stored infinite prices, overwrote price history on import,
and answered a failed COMMIT with a ROLLBACK error.
"""

import contextlib

import duckdb
import pytest

from catalog.errors import CatalogError, ChangeValidationError
from catalog.importer import preview_table_import
from catalog.models import ChangeSet, Editor, RowChange
from catalog.store import SCHEMA_VERSION, CatalogStore

ALICE = Editor(name="alice@example.com", role="editor")
OFFER = "aws-h100-sxm-p5-48xlarge-us-east-1"
PRICE_ID = "scaleway-h100-pcie-h100-1-80g-fr-par-2-eur:on-demand::2026-09-27"


def edited(store, table, key, **changes):
    row = store.row(table, key)
    values = {k: v for k, v in row.items() if k not in ("as_of_date", "row_version", "updated_by")}
    values.update(changes)
    return RowChange(table=table, action="update", key=key, values=values, expected_version=row["row_version"])


@pytest.mark.parametrize(("table", "key"), [("offers", OFFER), ("gpu_specs", "H100 SXM"), ("providers", "aws")])
def test_editing_notes_of_a_referenced_row_saves(store, table, key):
    """#16.1: editing only `notes` of an offer with prices (or a spec with offers) was refused."""
    result = store.apply_changes(ChangeSet(changes=[edited(store, table, key, notes="checked 2026-12-01")],
                                           message="note"), ALICE)
    row = store.row(table, key)
    assert row["notes"] == "checked 2026-12-01" and row["row_version"] == 2
    log = store.change_log(result.change_set_id)
    assert list(log.action) == ["update"]


def test_every_seed_offer_accepts_a_notes_edit(store):
    """#16.1 at scale: the issue counted 253 of 254 offers refusing a notes edit."""
    offers = store.editable_rows("offers")
    changes = [edited(store, "offers", k, notes=f"re-checked {i}") for i, k in enumerate(offers.offer_id)]
    result = store.apply_changes(ChangeSet(changes=changes, message="bulk notes"), ALICE)
    assert result.rows == len(offers) > 250
    assert (store.editable_rows("offers").row_version == 2).all()


def test_relinking_an_offer_to_another_spec_is_a_validated_update(store):
    # gpu_spec_id is a reference column: the update is allowed when the spec exists and fits the model...
    offer = "scaleway-h100-pcie-h100-1-80g-fr-par-2-eur"
    assert store.row("offers", offer)["gpu_spec_id"] == "H100 PCIe"
    store.apply_changes(ChangeSet(changes=[edited(store, "offers", offer, gpu_spec_id="H100 SXM", form_factor="SXM",
                                                          memory_type="HBM3")],
                                  message="relink"), ALICE)
    assert store.row("offers", offer)["gpu_spec_id"] == "H100 SXM"
    # ... and refused when it points nowhere.
    with pytest.raises(ChangeValidationError, match="unknown GPU spec"):
        store.apply_changes(ChangeSet(changes=[edited(store, "offers", offer, gpu_spec_id="H100 XYZ")], message="x"), ALICE)


def test_renaming_an_offer_key_repoints_its_prices_and_restores(store):
    """A key change is an explicit operation: the offer and every price that refers to it move together."""
    checksum = store.content_checksum()
    prices_before = set(store.list_prices([OFFER], current_only=False).price_id)
    result = store.rename_key("offers", OFFER, "aws-h100-sxm-p5-48xlarge-us-east-1-renamed", ALICE, message="rename")
    assert store.row("offers", OFFER) is None
    moved = store.list_prices(["aws-h100-sxm-p5-48xlarge-us-east-1-renamed"], current_only=False)
    assert set(moved.price_id) == prices_before and len(prices_before) > 0
    store.restore(result.change_set_id - 1, ALICE)
    assert store.content_checksum() == checksum


def _import_offer_with_prices(store):
    offer = {**{k: v for k, v in store.row("offers", OFFER).items() if k not in ("as_of_date", "row_version", "updated_by")},
             "offer_id": "imported-h100", "notes": "imported"}
    price = {"price_id": "imported-h100:on-demand", "offer_id": "imported-h100", "price_type": "on-demand",
             "amount_per_gpu_hour": 3.1, "currency": "USD", "valid_from": "2026-11-01",
             "source_url": "https://example.com/vms.csv", "retrieved_at": "2026-11-01", "method": "page"}
    closed = edited(store, "prices", PRICE_ID, valid_to="2026-11-01")
    return store.apply_changes(ChangeSet(changes=[
        RowChange(table="offers", action="insert", key="imported-h100", values=offer),
        RowChange(table="prices", action="insert", key=price["price_id"], values=price), closed],
        message="import", kind="import"), ALICE)


def test_restore_to_before_an_import_removes_its_offers_and_prices(store):
    """#16.2: deleting prices and their offer in one restore was refused by DuckDB."""
    original = store.content_checksum()
    _import_offer_with_prices(store)
    assert store.content_checksum() != original
    result = store.restore(0, ALICE)
    assert store.content_checksum() == original
    assert store.row("offers", "imported-h100") is None and store.row("prices", PRICE_ID)["valid_to"] is None
    assert sorted(store.change_log(result.change_set_id).action) == ["delete", "delete", "update"]


def test_deleting_an_offer_that_still_has_prices_is_refused(store):
    checksum = store.content_checksum()
    row = store.row("offers", OFFER)
    with pytest.raises(ChangeValidationError, match="still refers to it"):
        store.apply_changes(ChangeSet(changes=[RowChange(table="offers", action="delete", key=OFFER,
                                                         expected_version=row["row_version"])], message="x"), ALICE)
    assert store.content_checksum() == checksum


@pytest.mark.parametrize("amount", [float("inf"), "inf", "1e309", float("nan"), 0, -1.5])
def test_non_finite_zero_and_negative_prices_are_refused(store, amount):
    """#15.8: inf / 1e309 were stored; 0 means "not offered" and is not a price."""
    checksum = store.content_checksum()
    with pytest.raises(ChangeValidationError, match="amount_per_gpu_hour"):
        store.apply_changes(ChangeSet(changes=[edited(store, "prices", PRICE_ID, amount_per_gpu_hour=amount)],
                                      message="x"), ALICE)
    assert store.content_checksum() == checksum


def test_non_finite_spec_values_are_refused(store):
    with pytest.raises(ChangeValidationError, match="tdp_watts"):
        store.apply_changes(ChangeSet(changes=[edited(store, "gpu_specs", "H100 SXM", tdp_watts="1e309")],
                                      message="x"), ALICE)


def test_an_import_that_changes_an_amount_keeps_the_old_price_as_history(store):
    """#15.8: an amount changed under an existing price id was overwritten in place."""
    prices = store.editable_rows("prices")
    frame = prices.astype(object)
    i = frame.index[frame.price_id == PRICE_ID][0]
    frame.loc[i, ["amount_per_gpu_hour", "source_url", "retrieved_at"]] = [2.5, "https://example.com/new", "2026-12-01"]
    preview = preview_table_import(frame, "prices", prices)
    assert preview.problems == []
    store.apply_changes(ChangeSet(changes=preview.changes, message="import", kind="import"), ALICE)
    history = store.list_prices(["scaleway-h100-pcie-h100-1-80g-fr-par-2-eur"], current_only=False)
    old = history.set_index("price_id").loc[PRICE_ID]
    assert old.amount_per_gpu_hour == 2.87 and str(old.valid_to)[:10] == "2026-12-01"
    new = history[history.valid_to.isna()].iloc[0]
    assert new.amount_per_gpu_hour == 2.5 and new.source_url == "https://example.com/new"
    assert str(new.valid_from)[:10] == "2026-12-01"


def test_an_import_that_changes_an_amount_without_a_new_source_is_refused(store):
    prices = store.editable_rows("prices")
    frame = prices.astype(object)
    frame.loc[frame.price_id == PRICE_ID, "amount_per_gpu_hour"] = 2.5
    preview = preview_table_import(frame, "prices", prices)
    assert not preview.ok
    (where, column, reason), = preview.problems
    assert PRICE_ID in where and "its own source" in reason


def test_a_failed_commit_reports_the_real_error_not_rollback(store, monkeypatch):
    """#15.9: when COMMIT failed the user saw 'cannot rollback - no transaction is active'."""
    checksum = store.content_checksum()
    real_write_cursor = store._write_cursor
    db_error = store._db_errors[0]  # duckdb.Error / psycopg.Error

    class FailingCommit:
        def __init__(self, cur):
            self._cur = cur

        def execute(self, sql, *args):
            if sql == "COMMIT":
                self._cur.execute("ROLLBACK")  # the transaction ends, as when a commit fails for real
                raise db_error("IO Error: could not write the WAL (disk full)")
            return self._cur.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(self._cur, name)

    @contextlib.contextmanager
    def failing_write_cursor():
        with real_write_cursor() as cur:
            yield FailingCommit(cur)

    monkeypatch.setattr(store, "_write_cursor", failing_write_cursor)
    with pytest.raises(CatalogError, match="disk full") as info:
        store.apply_changes(ChangeSet(changes=[edited(store, "prices", PRICE_ID, notes="x")], message="x"), ALICE)
    assert "rollback" not in str(info.value).lower()
    monkeypatch.undo()
    assert store.content_checksum() == checksum


def test_a_version_1_catalog_is_upgraded_in_place_with_a_backup(tmp_path, catalog_path):
    """An existing schema-1 file (SQL foreign keys, no region table) opens and keeps every row."""
    import shutil
    from pathlib import Path

    v1_sql = (Path(__file__).parent / "data" / "schema_v1.sql").read_text()
    # Schema 1 had no instance_type: the upgraded file keeps every row it had and leaves that column empty
    # (the seed's instance types arrived later), so compare with a fresh catalog whose instance types are cleared.
    fresh_copy = tmp_path / "fresh.duckdb"
    shutil.copyfile(catalog_path, fresh_copy)
    with duckdb.connect(str(fresh_copy)) as con:
        con.execute("UPDATE offers SET instance_type = NULL")
    with CatalogStore(fresh_copy) as fresh:
        expected = fresh.content_checksum()
        region_rows = len(fresh.table("region_countries"))
    old = tmp_path / "v1.duckdb"
    con = duckdb.connect(str(old))
    con.execute(v1_sql)
    con.execute(f"ATTACH '{catalog_path}' AS src (READ_ONLY)")
    for table in ("catalog_meta", "gpu_models", "gpu_aliases", "gpu_specs", "providers", "provider_facts", "offers",
                  "prices", "change_sets", "change_log"):
        cols = [r[0] for r in con.execute("SELECT column_name FROM duckdb_columns() WHERE database_name = 'v1' "
                                          "AND table_name = ?", [table]).fetchall()]
        names = ", ".join(cols)
        con.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM src.{table}")
    con.execute("UPDATE catalog_meta SET value = '1' WHERE key = 'schema_version'")
    con.close()
    with pytest.raises(CatalogError, match="read-only, so it cannot be upgraded"):
        CatalogStore(old, read_only=True)
    with CatalogStore(old) as upgraded:
        assert upgraded.meta()["schema_version"] == str(SCHEMA_VERSION)
        assert len(upgraded.table("region_countries")) == region_rows > 50
        assert upgraded.content_checksum() == expected
        # and the upgraded file takes the edit that schema 1 refused
        upgraded.apply_changes(ChangeSet(changes=[edited(upgraded, "offers", OFFER, notes="ok")], message="x"), ALICE)
    assert (tmp_path / "v1.duckdb.v1.bak").exists()


def test_a_version_2_catalog_is_upgraded_with_parent_companies_and_certification_scopes(tmp_path, catalog_path):
    """#18: a schema-2 file (no parent_company columns, no certification_scopes) opens, keeps every row and
    gets the seed's sourced parent companies and certification scopes (else every EU provider fails the
    ownership rules after an upgrade)."""
    from pathlib import Path

    v2_sql = (Path(__file__).parent / "data" / "schema_v2.sql").read_text()
    with CatalogStore(catalog_path) as fresh:
        expected = fresh.content_checksum()
        scopes = len(fresh.certification_scopes())
        parents = fresh.table("providers").set_index("provider_id")["parent_company"].to_dict()
    old = tmp_path / "v2.duckdb"
    con = duckdb.connect(str(old))
    con.execute(v2_sql)
    con.execute(f"ATTACH '{catalog_path}' AS src (READ_ONLY)")
    for table in ("catalog_meta", "gpu_models", "gpu_aliases", "gpu_specs", "providers", "provider_facts", "offers",
                  "prices", "region_countries", "change_sets", "change_log"):
        cols = [r[0] for r in con.execute("SELECT column_name FROM duckdb_columns() WHERE database_name = 'v2' "
                                          "AND table_name = ?", [table]).fetchall()]
        names = ", ".join(cols)
        con.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM src.{table}")
    con.execute("UPDATE catalog_meta SET value = '2' WHERE key = 'schema_version'")
    con.close()
    with CatalogStore(old) as upgraded:
        assert upgraded.meta()["schema_version"] == str(SCHEMA_VERSION) == "4"
        assert len(upgraded.certification_scopes()) == scopes > 40
        assert upgraded.table("providers").set_index("provider_id")["parent_company"].to_dict() == parents
        assert parents["nebius"] and parents["taiga-cloud"]
        assert upgraded.content_checksum() == expected
    assert (tmp_path / "v2.duckdb.v2.bak").exists()


#: An OCI bare-metal GPU offer of the seed (stated dedicated, with its source).
OCI_BM_H100 = "oracle-h100-sxm-bm-gpu-h100-8-all-commercial-regions"


def test_a_version_3_catalog_is_upgraded_with_the_seeds_sourced_dedicated_hardware(tmp_path, catalog_path):
    """#29: a schema-3 file (no dedicated-hardware columns) opens, keeps every row and gets the seed's sourced
    is_dedicated_hardware values with their source and date; every other offer stays not stated (NULL)."""
    from pathlib import Path

    v3_sql = (Path(__file__).parent / "data" / "schema_v3.sql").read_text()
    with CatalogStore(catalog_path) as fresh:
        expected = fresh.content_checksum()
        cols = ["is_dedicated_hardware", "dedicated_source_url", "dedicated_as_of"]
        dedicated = fresh.table("offers").set_index("offer_id")[cols].astype(object)
    old = tmp_path / "v3.duckdb"
    con = duckdb.connect(str(old))
    con.execute(v3_sql)
    con.execute(f"ATTACH '{catalog_path}' AS src (READ_ONLY)")
    for table in ("catalog_meta", "gpu_models", "gpu_aliases", "gpu_specs", "providers", "provider_facts", "offers",
                  "prices", "region_countries", "certification_scopes", "change_sets", "change_log"):
        names = ", ".join(r[0] for r in con.execute("SELECT column_name FROM duckdb_columns() WHERE database_name = "
                                                    "'v3' AND table_name = ?", [table]).fetchall())
        con.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM src.{table}")
    con.execute("UPDATE catalog_meta SET value = '3' WHERE key = 'schema_version'")
    assert "is_dedicated_hardware" not in [r[0] for r in con.execute(
        "SELECT column_name FROM duckdb_columns() WHERE database_name = 'v3' AND table_name = 'offers'").fetchall()]
    con.close()
    with CatalogStore(old) as upgraded:
        assert upgraded.meta()["schema_version"] == str(SCHEMA_VERSION) == "4"
        got = upgraded.table("offers").set_index("offer_id")[cols].astype(object)
        assert bool(got.loc[OCI_BM_H100, "is_dedicated_hardware"]) and got.loc[OCI_BM_H100, "dedicated_as_of"] == "2025-02-13"
        assert got.where(got.notna(), None).equals(dedicated.where(dedicated.notna(), None))
        assert int(got["is_dedicated_hardware"].notna().sum()) >= 6
        assert upgraded.content_checksum() == expected
    assert (tmp_path / "v3.duckdb.v3.bak").exists()


def test_verification_older_than_90_days_is_shown_as_not_rechecked(store):
    """#16: `verified` expires: 90 days after its date a row reads "verified on DATE, not re-checked"."""
    import datetime as dt

    store.apply_changes(ChangeSet(changes=[edited(store, "offers", OFFER, verification_status="verified",
                                                  as_of="2026-10-10")], message="checked"), ALICE)
    def label(today):
        offers = store.list_offers(usd_per_eur=1.0, today=today).set_index("offer_id")
        return offers.loc[OFFER, "verification_label"], bool(offers.loc[OFFER, "verification_current"])

    assert label(dt.date(2026, 12, 1)) == ("verified", True)
    assert label(dt.date(2027, 1, 9)) == ("verified on 2026-10-10, not re-checked", False)
    claimed = store.list_offers(usd_per_eur=1.0, today=dt.date(2027, 1, 9)).query("verification_status == 'claimed'")
    assert (claimed.verification_label == "claimed").all() and not claimed.verification_current.any()
