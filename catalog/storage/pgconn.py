"""Connections to the shared PostgreSQL catalog (issue #21; the pool, issue #32.8): the URL as operators' logs may
show it (:func:`redact`), one-off connections (:func:`connect`), the store's :class:`psycopg_pool.ConnectionPool`
(:func:`open_pool`) and the DB-API cursor over it that speaks the store's ``?`` SQL (:class:`PgCursor`).

Pages and messages never show the URL or any part of it (:data:`DATABASE_LABEL`); the password never reaches a
log either.
"""

from __future__ import annotations

import collections
import logging
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pandas as pd

from catalog.errors import CatalogError, CatalogUnavailableError

#: What pages, messages and exports call a PostgreSQL catalog: never its URL, host, user or database name.
DATABASE_LABEL = "the catalog database"


def redact(url: str) -> str:
    """The URL without user, password, query parameters (``?password=…``, ``sslkey=…``) and fragment: scheme, host,
    port and database name only, for operators' logs and cache keys, never for pages (:data:`DATABASE_LABEL`).

    >>> redact("postgresql://advisor:pw@db.internal:5433/catalog?password=x&sslmode=require#f")
    'postgresql://db.internal:5433/catalog'
    """
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # a malformed port or netloc: show nothing of it
        return "postgresql://(unreadable address)"
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    return urlunsplit((parts.scheme, host + port, parts.path, "", ""))


def unavailable(url: str, exc: Exception, then: str) -> CatalogUnavailableError:
    """The error a page shows (no connection detail); the cause goes to the operators' log, redacted."""
    logging.getLogger("gpu_cloud_advisor").warning("catalog database %s unavailable: %s", redact(url),
                                                   str(exc).strip().splitlines()[0][:300] if str(exc).strip() else exc)
    return CatalogUnavailableError(f"The catalog database is unavailable. {then}")


def connect(url: str, *, autocommit: bool = True) -> Any:
    """One connection outside the pool (building, opening: it fails at once when nothing listens)."""
    import psycopg

    try:
        return psycopg.connect(url, autocommit=autocommit, connect_timeout=CONNECT_TIMEOUT_S)
    except psycopg.OperationalError as exc:
        raise unavailable(url, exc, "Retrying on the next action.") from exc
    except psycopg.Error as exc:  # e.g. an invalid URL: its text would echo parts of it
        logging.getLogger("gpu_cloud_advisor").error("catalog database %s cannot be opened: %s", redact(url), exc)
        raise CatalogError("The catalog database address is not valid; the server log says why.") from exc


#: Seconds a new connection may take (libpq's ``connect_timeout``).
CONNECT_TIMEOUT_S = 5
#: Connections of one store's pool: one process serves one replica; its sessions run short statements and at
#: most one writer at a time (the process lock), so a few connections serve it, and each replica holds at most
#: POOL_MAX_SIZE of the database's ``max_connections``.
POOL_MIN_SIZE = 1
POOL_MAX_SIZE = 4
#: Seconds a statement waits for a working connection before the page says the database is unavailable.
POOL_WAIT_S = 5.0
#: A connection above POOL_MIN_SIZE left unused this long is closed (psycopg_pool's ``max_idle``).
POOL_MAX_IDLE_S = 120.0
#: Seconds the pool retries (with backoff) to replace a lost connection before it gives up and calls
#: ``reconnect_failed`` (a log line); the next statement then starts a new attempt at once, so after a long
#: outage a replica does not wait out a long backoff.
POOL_RECONNECT_S = 10.0


def open_pool(url: str) -> Any:
    """The store's connection pool: autocommit connections, checked on checkout, at most POOL_MAX_SIZE."""
    from psycopg_pool import ConnectionPool

    def reconnect_failed(pool: Any) -> None:
        logging.getLogger("gpu_cloud_advisor").warning(
            "catalog database %s: no new connection for %.0f s; the next statement tries again", redact(url),
            POOL_RECONNECT_S)

    return ConnectionPool(url, kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S},
                          min_size=POOL_MIN_SIZE, max_size=POOL_MAX_SIZE, open=True, name="catalog-database",
                          check=ConnectionPool.check_connection, timeout=POOL_WAIT_S, max_idle=POOL_MAX_IDLE_S,
                          reconnect_timeout=POOL_RECONNECT_S, reconnect_failed=reconnect_failed, num_workers=2)


def checkout(pool: Any, url: str) -> Any:
    """A working connection from ``pool`` (give it back with ``pool.putconn``); none within POOL_WAIT_S: the
    database is unavailable."""
    from psycopg_pool import PoolTimeout

    try:
        return pool.getconn()
    except PoolTimeout as exc:
        raise unavailable(url, exc, "Retrying on the next action.") from exc


def _pg_sql(sql: str, params: Any) -> str:
    """``?`` placeholders (the store's portable SQL) as psycopg's ``%s``; a literal ``%`` doubled (psycopg reads
    placeholders only when parameters are passed)."""
    return sql if params is None else sql.replace("%", "%%").replace("?", "%s")


_NOTHING_SAVED = "Nothing was saved by this action; retrying on the next one."


class PgCursor:
    """A DB-API cursor over the store's connection pool that speaks the store's ``?`` SQL (see :class:`StoreBase`).

    Without ``hold`` every statement takes a connection from the pool and gives it back with its rows read (the
    connections are autocommit). With ``hold`` (the writer) :meth:`attach` takes one connection and runs
    ``setup`` on it (the writer lock); it is kept for transactions until :meth:`release` rolls back what was left
    open, runs ``teardown`` and gives it back. A statement outside a transaction that finds its connection dead
    (PostgreSQL restarted since its last use) is retried once on a new connection (set up again); inside a
    transaction nothing is retried: the transaction is lost and the error says so.
    """

    def __init__(self, pool: Any, url: str, *, hold: bool = False, setup: tuple[tuple[str, list], ...] = (),
                 teardown: tuple[tuple[str, list], ...] = ()):
        self._pool = pool
        self._url = url
        self._hold = hold
        self._setup = setup
        self._teardown = teardown
        self._conn: Any = None
        self._description: list[tuple[str]] = []
        self._rows: collections.deque[tuple] = collections.deque()

    def attach(self) -> None:
        """Take a connection and set it up; a connection found dead by the setup is replaced once."""
        import psycopg

        for attempt in (1, 2):
            conn = checkout(self._pool, self._url)
            try:
                for sql, params in self._setup:
                    conn.execute(sql, params)
            except psycopg.OperationalError as exc:
                self._pool.putconn(conn)
                if attempt == 2 or not (conn.broken or conn.closed):
                    raise unavailable(self._url, exc, "Retrying on the next action.") from exc
                continue
            except BaseException:
                self._pool.putconn(conn)
                raise
            self._conn = conn
            return

    def release(self) -> None:
        """Give the connection back: a transaction left open by an error is rolled back and ``teardown`` run first;
        a connection where they failed is closed, never handed to another caller still holding a lock."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            if not (conn.closed or conn.broken):
                if conn.info.transaction_status != 0:  # not IDLE
                    conn.rollback()
                for sql, params in self._teardown:
                    conn.execute(sql, params)
        except BaseException:
            conn.close()
            raise
        finally:
            self._pool.putconn(conn)

    def execute(self, sql: str, params: Any = None) -> PgCursor:
        if self._hold:
            if self._conn is None:
                raise CatalogUnavailableError(f"The catalog database is unavailable. {_NOTHING_SAVED}")
            return self._run(sql, params)
        self.attach()
        try:
            return self._run(sql, params)
        finally:
            self.release()

    def _run(self, sql: str, params: Any) -> PgCursor:
        import psycopg

        query = _pg_sql(sql, params)
        idle = self._conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        try:
            self._read(self._conn.execute(query, params))
        except psycopg.OperationalError as exc:
            if not (self._conn.broken or self._conn.closed):
                raise
            if not idle or sql.lstrip().upper().startswith(("BEGIN", "COMMIT")):
                raise unavailable(self._url, exc, _NOTHING_SAVED) from exc
            self.release()
            try:
                self.attach()
                self._read(self._conn.execute(query, params))
            except (psycopg.OperationalError, CatalogUnavailableError):
                raise unavailable(self._url, exc, _NOTHING_SAVED) from exc
        return self

    def _read(self, cur: Any) -> None:
        """The statement's rows, read before its connection goes back to the pool."""
        self._description = [(c.name,) for c in cur.description or []]
        self._rows = collections.deque(cur.fetchall() if cur.description else ())

    def executemany(self, sql: str, rows: list[list[Any]]) -> None:
        if not self._hold:
            self.attach()
        try:
            if self._conn is None:
                raise CatalogUnavailableError(f"The catalog database is unavailable. {_NOTHING_SAVED}")
            with self._conn.cursor() as cur:
                cur.executemany(_pg_sql(sql, rows), rows)
        finally:
            if not self._hold:
                self.release()

    @property
    def description(self) -> list[tuple[str]]:
        return self._description

    def fetchone(self) -> tuple | None:
        return self._rows.popleft() if self._rows else None

    def fetchall(self) -> list[tuple]:
        rows, self._rows = list(self._rows), collections.deque()
        return rows

    def df(self) -> pd.DataFrame:
        names = [d[0] for d in self.description]
        return pd.DataFrame(self.fetchall(), columns=names)
