"""The PostgreSQL backend's connections come from a psycopg_pool pool (issue #32.8), with the behaviour the hand-made
reconnect had: a statement outside a transaction that finds its connection dead is retried once on a new
connection (the writer's on one that holds the writer lock again); inside a transaction nothing is retried; errors
and logs never show the URL's password; a replica holds a bounded number of connections."""

from __future__ import annotations

import logging
import threading

import psycopg
import pytest

from catalog.errors import CatalogUnavailableError
from catalog.storage.pgconn import POOL_MAX_SIZE
from catalog.storage.postgres import WRITER_LOCK_KEY, PostgresCatalogStore

SECRET = "pool-s3cr3t-9127"


def _dbname(url: str) -> str:
    return url.rsplit("/", 1)[-1].split("?")[0]


def _admin(pg_server, sql: str, params: list | None = None) -> list[tuple]:
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        return conn.execute(sql, params).fetchall()


def _terminate(pg_server, url: str, pid: int | None = None) -> int:
    """End the test database's server connections (all, or one), as a PostgreSQL restart ends them."""
    rows = _admin(pg_server, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
                             "AND pid <> pg_backend_pid() AND (%s::int IS NULL OR pid = %s::int)",
                  [_dbname(url), pid, pid])
    return sum(1 for (ended,) in rows if ended)


def _connections(pg_server, url: str) -> int:
    return _admin(pg_server, "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                  [_dbname(url)])[0][0]


def _writer_lock_holders(pg_server, url: str) -> list[int]:
    """Server processes holding the writer lock (a bigint advisory lock: objid holds its low 32 bits)."""
    rows = _admin(pg_server, "SELECT l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.database "
                             "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND l.classid = 0 "
                             "AND l.objid = %s AND d.datname = %s", [WRITER_LOCK_KEY, _dbname(url)])
    return sorted(r[0] for r in rows)


@pytest.fixture
def pg(pg_url):
    with PostgresCatalogStore(pg_url) as store:
        yield store


def test_connections_ended_between_statements_are_replaced_without_an_error(pg_server, pg_url, pg):
    version = pg.data_version
    pg.list_offers(usd_per_eur=1.1)  # a snapshot taken on a pooled connection too
    assert _terminate(pg_server, pg_url) >= 1
    assert pg.data_version == version  # the dead connection was replaced before the statement ran on it
    ws = pg.create_workspace("ACME")  # the writer's connection too
    assert pg.workspace(ws)["client"] == "ACME"
    assert pg.data_version == version


def test_a_write_statement_outside_a_transaction_is_retried_once_holding_the_writer_lock_again(pg_server, pg_url,
                                                                                                 pg):
    with pg._write_cursor() as cur:
        first = cur.execute("SELECT pg_backend_pid()").fetchone()[0]
        assert _writer_lock_holders(pg_server, pg_url) == [first]
        assert _terminate(pg_server, pg_url, first) == 1
        second = cur.execute("SELECT pg_backend_pid()").fetchone()[0]  # retried on a new connection
        assert second != first
        assert _writer_lock_holders(pg_server, pg_url) == [second]  # which took the writer lock again
    assert _writer_lock_holders(pg_server, pg_url) == []  # released with the cursor


def test_nothing_is_retried_inside_a_transaction(pg_server, pg_url, pg):
    with pg._write_cursor() as cur:
        cur.execute("BEGIN TRANSACTION")
        cur.execute("INSERT INTO workspaces VALUES ('lost-row', 'ACME', now(), NULL)")
        pid = cur.execute("SELECT pg_backend_pid()").fetchone()[0]
        assert _terminate(pg_server, pg_url, pid) == 1
        with pytest.raises(CatalogUnavailableError, match="Nothing was saved"):
            cur.execute("SELECT 1")
        with pytest.raises(CatalogUnavailableError, match="Nothing was saved"):
            cur.execute("COMMIT")  # the transaction is lost, not replayed on another connection
    assert pg.cursor().execute("SELECT count(*) FROM workspaces WHERE workspace_id = 'lost-row'").fetchone()[0] == 0
    assert _writer_lock_holders(pg_server, pg_url) == []
    assert pg.workspace(pg.create_workspace("after")) is not None  # the store goes on


def test_an_outage_names_no_password_in_errors_or_logs_and_the_store_recovers(pg_server, pg_url, caplog):
    host = pg_url.split("@", 1)[1]
    url = f"postgresql://postgres:{SECRET}@{host}?password={SECRET}"
    store = PostgresCatalogStore(url)
    try:
        version = store.data_version
        with caplog.at_level(logging.DEBUG):
            pg_server.stop()
            try:
                with pytest.raises(CatalogUnavailableError) as caught:
                    store.data_version  # noqa: B018
                with pytest.raises(CatalogUnavailableError):
                    store.create_workspace("during the outage")
            finally:
                pg_server.start()
            assert store.data_version == version  # a new connection, no restart of the store
        assert SECRET not in str(caught.value) and "the catalog database" in str(caught.value).lower()
        logged = [r.getMessage() + (caplog.handler.formatter or logging.Formatter()).formatException(r.exc_info)
                  if r.exc_info else r.getMessage() for r in caplog.records]
        assert any("unavailable" in m for m in logged), logged  # the outage was logged ...
        assert not [m for m in logged if SECRET in m]  # ... without the password
    finally:
        store.close()


def test_a_replica_holds_at_most_the_pool_size_in_connections(pg_server, pg_url, pg):
    threads, start, errors = [], threading.Barrier(4 * POOL_MAX_SIZE), []

    def read() -> None:
        start.wait()
        try:
            for _ in range(5):
                pg.data_version  # noqa: B018
                pg.list_scenarios(None)
        except Exception as exc:  # noqa: BLE001 (collected and asserted below)
            errors.append(exc)

    for _ in range(4 * POOL_MAX_SIZE):
        threads.append(threading.Thread(target=read))
        threads[-1].start()
    for t in threads:
        t.join()
    assert errors == []
    assert 1 <= _connections(pg_server, pg_url) <= POOL_MAX_SIZE  # the pool's connections stay open, bounded
