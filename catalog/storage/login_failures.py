"""Failed password sign-ins counted in the shared database (issue #32.8): every replica of a cluster sees the same
counts, so three replicas do not give an attacker three times the attempts.

One transaction per attempt, under a transaction advisory lock (:data:`LOGIN_LOCK_KEY`, apart from the writer
lock, so a long catalog save never delays a sign-in): rows older than the window are deleted, the name's and the
client's recent failures counted, and, under both limits, the attempt recorded as a failure *before* the password
is checked (the caller forgets it when the password was right). Parallel attempts on any replica therefore see
each other, as the in-process lock does for one process. Times are the database's clock (one clock for all
replicas). Parameterised SQL only; keys are stored as SHA-256 (:func:`failure_key`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

#: Key of the transaction advisory lock that orders attempts across replicas ("GPLF" in ASCII).
LOGIN_LOCK_KEY = 0x47504C46


def failure_key(value: str) -> str:
    """What the table stores for a user name or client address: its SHA-256 (hex), never the text."""
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def count_failure(conn: Any, attempt_id: str, name: str, client: str, *, max_name_failures: int,
                  max_client_failures: int, window_s: float) -> str | None:
    """Record one attempt as failed unless a limit is reached: "locked" (this name), "client-locked" (this client;
    nothing recorded), or None (recorded under ``attempt_id``). ``conn`` is an autocommit psycopg connection."""
    keys = {"name": failure_key(name), "client": failure_key(client)}
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [LOGIN_LOCK_KEY])
        now = conn.execute("SELECT clock_timestamp()").fetchone()[0]
        conn.execute("DELETE FROM login_failures WHERE failed_at <= %s", [now - dt.timedelta(seconds=window_s)])
        counts = dict(conn.execute(
            "SELECT key_kind, count(*) FROM login_failures WHERE (key_kind = 'name' AND key = %s) "
            "OR (key_kind = 'client' AND key = %s) GROUP BY key_kind", [keys["name"], keys["client"]]).fetchall())
        if counts.get("name", 0) >= max_name_failures:
            return "locked"
        if counts.get("client", 0) >= max_client_failures:
            return "client-locked"
        conn.execute("INSERT INTO login_failures (attempt_id, key_kind, key, failed_at) VALUES (%s, 'name', %s, %s), "
                     "(%s, 'client', %s, %s)", [attempt_id, keys["name"], now, attempt_id, keys["client"], now])
    return None


def forget_failure(conn: Any, attempt_id: str) -> None:
    """The attempt succeeded: it no longer counts against its name or client."""
    conn.execute("DELETE FROM login_failures WHERE attempt_id = %s", [attempt_id])
