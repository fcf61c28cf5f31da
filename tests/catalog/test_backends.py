"""The two backends hold the same catalog and behave the same; the PostgreSQL one is shared by replicas (#21).

The rest of ``tests/catalog`` runs every ``store`` test on both backends; these tests compare them directly
and check what only a shared database has: several store instances (replicas) on one catalog.
"""

from __future__ import annotations

import json
import threading

import duckdb
import pytest

from catalog.errors import CatalogUnavailableError, ConflictError
from catalog.models import ChangeSet, Editor, RowChange
from catalog.storage.postgres import PostgresCatalogStore, pg_schema_sql
from catalog.store import CatalogBackend, CatalogStore, OfferFilter, open_catalog

ALICE = Editor(name="alice@example.com", role="editor")
BOB = Editor(name="bob@example.com", role="editor")
PRICE_ID = "scaleway-h100-pcie-h100-1-80g-fr-par-2-eur:on-demand::2026-09-27"
OFFER_ID = "scaleway-h100-pcie-h100-1-80g-fr-par-2-eur"
OTHER_PRICE = "aws-h100-sxm-p5-48xlarge-us-east-1:on-demand::2026-10-10"


def edited(store, table, key, **changes):
    row = store.row(table, key)
    values = {k: v for k, v in row.items() if k not in ("as_of_date", "row_version", "updated_by")}
    values.update(changes)
    return RowChange(table=table, action="update", key=key, values=values, expected_version=row["row_version"])


@pytest.fixture
def duck(catalog_path):
    with CatalogStore(catalog_path) as s:
        yield s


@pytest.fixture
def pg(pg_url):
    with PostgresCatalogStore(pg_url) as s:
        yield s


def _duck_columns(store: CatalogStore) -> dict[str, list[tuple[str, bool]]]:
    rows = store.cursor().execute(
        "SELECT table_name, column_name, is_nullable FROM duckdb_columns() WHERE database_name = current_database() "
        "ORDER BY table_name, column_index").fetchall()
    out: dict[str, list[tuple[str, bool]]] = {}
    for table, column, nullable in rows:
        out.setdefault(table, []).append((column, bool(nullable)))
    return out


def _pg_columns(store: PostgresCatalogStore) -> dict[str, list[tuple[str, bool]]]:
    rows = store.cursor().execute(
        "SELECT table_name, column_name, is_nullable = 'YES' FROM information_schema.columns "
        "WHERE table_schema = 'public' ORDER BY table_name, ordinal_position").fetchall()
    out: dict[str, list[tuple[str, bool]]] = {}
    for table, column, nullable in rows:
        out.setdefault(table, []).append((column, bool(nullable)))
    return out


def test_both_schemas_have_the_same_tables_columns_and_nullability(duck, pg):
    assert _pg_columns(pg) == _duck_columns(duck)


def test_the_postgres_schema_keeps_every_check_constraint(pg):
    checks = pg_schema_sql().count("CHECK (")
    # NOT NULL shows up in pg_constraint only from PostgreSQL 18; CHECK constraints are contype 'c'.
    n = pg.cursor().execute("SELECT count(*) FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace "
                            "WHERE n.nspname = 'public' AND c.contype = 'c'").fetchone()[0]
    assert n == checks > 40


@pytest.mark.parametrize("amount", ["NaN", "Infinity", "-Infinity", "0"])
def test_the_translated_isfinite_check_refuses_non_finite_prices_at_the_database(pg, amount):
    import psycopg

    with pytest.raises(psycopg.errors.CheckViolation):
        pg.cursor().execute(
            "INSERT INTO prices (price_id, offer_id, price_type, amount_per_gpu_hour, currency, valid_from, source_url, "
            "retrieved_at, method, verification_status) VALUES ('x', ?, 'on-demand', CAST(? AS DOUBLE PRECISION), "
            "'EUR', DATE '2026-01-01', 'https://e.com', '2026', 'page', 'claimed')", [OFFER_ID, amount])


def test_both_backends_satisfy_the_storage_interface(duck, pg):
    assert isinstance(duck, CatalogBackend) and isinstance(pg, CatalogBackend)


def test_the_same_seed_and_the_same_change_set_give_the_same_catalog_and_log(duck, pg):
    assert pg.content_checksum() == duck.content_checksum()
    results = [s.apply_changes(ChangeSet(changes=[edited(s, "prices", PRICE_ID, amount_per_gpu_hour=2.61),
                                                  edited(s, "providers", "scaleway", notes="checked")],
                                         message="same edit"), ALICE) for s in (duck, pg)]
    assert results[0].change_set_id == results[1].change_set_id == 1 and results[0].rows == results[1].rows == 2
    assert pg.content_checksum() == duck.content_checksum()
    logs = [s.change_log(1, include_private=True) for s in (duck, pg)]
    assert [json.loads(j) for j in logs[0].after_json] == [json.loads(j) for j in logs[1].after_json]
    assert list(logs[0].before_json) == list(logs[1].before_json)  # same JSON text, column for column
    frames = [s.list_offers(OfferFilter(), usd_per_eur=1.1, include_private=True) for s in (duck, pg)]
    assert frames[0].equals(frames[1])
    assert duck.data_version == pg.data_version == 2


def test_a_save_in_one_replica_is_visible_in_the_other_on_its_next_read(pg_url):
    with PostgresCatalogStore(pg_url) as a, PostgresCatalogStore(pg_url) as b:
        before = b.list_offers(OfferFilter(provider_ids=("scaleway",)), usd_per_eur=1.1)  # b holds a snapshot
        version = b.data_version
        a.apply_changes(ChangeSet(changes=[edited(a, "prices", PRICE_ID, amount_per_gpu_hour=2.11)],
                                  message="cut"), ALICE)
        assert b.data_version == version + 1  # the number b's caches key on moved: no stale cache hit
        after = b.list_offers(OfferFilter(provider_ids=("scaleway",)), usd_per_eur=1.1)
        price = after.set_index("offer_id").loc[OFFER_ID, "on_demand_eur_per_gpu_hour"]
        assert price == pytest.approx(2.11)
        assert before.set_index("offer_id").loc[OFFER_ID, "on_demand_eur_per_gpu_hour"] == pytest.approx(2.87)
        assert b.row("prices", PRICE_ID)["row_version"] == 2


def test_two_replicas_editing_the_same_row_one_wins_one_conflicts(pg_url):
    with PostgresCatalogStore(pg_url) as a, PostgresCatalogStore(pg_url) as b:
        mine, theirs = (edited(s, "prices", PRICE_ID, amount_per_gpu_hour=p) for s, p in ((a, 2.5), (b, 2.4)))
        a.apply_changes(ChangeSet(changes=[mine], message="a"), ALICE)
        with pytest.raises(ConflictError):
            b.apply_changes(ChangeSet(changes=[theirs], message="b"), BOB)
        assert b.row("prices", PRICE_ID)["amount_per_gpu_hour"] == 2.5


def test_replicas_saving_at_once_are_serialised_and_lose_nothing(pg_url):
    """Four replicas save different rows at the same moment: every save lands, with its own change set."""
    keys = [PRICE_ID, OTHER_PRICE, "scaleway", "nebius"]
    stores = [PostgresCatalogStore(pg_url) for _ in keys]
    try:
        changes = [edited(s, "prices" if ":" in k else "providers", k, notes=f"replica {i}")
                   for i, (s, k) in enumerate(zip(stores, keys, strict=True))]
        start, results, errors = threading.Barrier(len(stores)), [], []

        def save(i):
            start.wait()
            try:
                results.append(stores[i].apply_changes(ChangeSet(changes=[changes[i]], message=f"r{i}"), ALICE))
            except Exception as exc:  # noqa: BLE001 (collected and asserted below)
                errors.append(exc)

        threads = [threading.Thread(target=save, args=(i,)) for i in range(len(stores))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert sorted(r.change_set_id for r in results) == [1, 2, 3, 4]
        assert stores[0].data_version == 5
        for i, k in enumerate(keys):
            assert stores[0].row("prices" if ":" in k else "providers", k)["notes"] == f"replica {i}"
    finally:
        for s in stores:
            s.close()


def test_the_store_recovers_after_postgres_restarts(pg_server, pg_url):
    store = open_catalog(pg_url)
    try:
        version = store.data_version
        pg_server.stop()
        with pytest.raises(CatalogUnavailableError, match="unavailable|went away"):
            store.data_version  # noqa: B018
        pg_server.start()
        assert store.data_version == version  # reconnected, no restart of the store
        store.apply_changes(ChangeSet(changes=[edited(store, "providers", "scaleway", notes="after restart")],
                                      message="x"), ALICE)
        assert store.row("providers", "scaleway")["notes"] == "after restart"
    finally:
        store.close()


def test_an_empty_database_is_seeded_once_by_the_first_opener(pg_server):
    url = pg_server.create_database("fresh_for_open")
    first, second = open_catalog(url), open_catalog(url)  # the second finds it built and never rebuilds
    try:
        assert first.content_checksum() == second.content_checksum()
        assert len(first.change_sets()) == 1
    finally:
        first.close()
        second.close()


def test_duckdb_is_still_the_default_without_a_database_url(catalog_path, monkeypatch):
    monkeypatch.delenv("GPU_ADVISOR_DATABASE_URL", raising=False)
    store = open_catalog()
    try:
        assert isinstance(store, CatalogStore) and store.location == str(catalog_path)
        assert isinstance(store.cursor(), duckdb.DuckDBPyConnection)
    finally:
        store.close()


def test_a_version_3_postgres_catalog_is_upgraded_with_the_seeds_dedicated_hardware(pg_url, duck):
    """#29: PG_MIGRATIONS[4] adds the dedicated-hardware columns to a version-3 database on its first writable
    open and fills the seed's sourced values, so it then holds what a fresh build holds (the DuckDB file's
    upgrade does the same); a read-only open refuses the old version instead."""
    import psycopg

    from catalog.errors import SchemaVersionError

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE offers DROP COLUMN is_dedicated_hardware, DROP COLUMN dedicated_source_url, "
                     "DROP COLUMN dedicated_as_of")
        conn.execute("UPDATE catalog_meta SET value = '3' WHERE key = 'schema_version'")
        before = int(conn.execute("SELECT value FROM catalog_meta WHERE key = 'data_version'").fetchone()[0])
    with pytest.raises(SchemaVersionError, match="version 3"):
        PostgresCatalogStore(pg_url, read_only=True)
    with PostgresCatalogStore(pg_url) as upgraded:
        assert upgraded.meta()["schema_version"] == "4" and upgraded.data_version == before + 1
        got = upgraded.list_offers(OfferFilter(), usd_per_eur=1.1).set_index("offer_id")
        assert bool(got.loc["oracle-h100-sxm-bm-gpu-h100-8-all-commercial-regions", "is_dedicated"])
        assert int(got["is_dedicated"].notna().sum()) >= 6
        assert upgraded.content_checksum() == duck.content_checksum()
    assert _pg_columns_of(pg_url) == _duck_columns(duck)["offers"]


def _pg_columns_of(url: str) -> list[tuple[str, bool]]:
    with PostgresCatalogStore(url, read_only=True) as s:
        return _pg_columns(s)["offers"]
