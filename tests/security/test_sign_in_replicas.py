"""Issue #32.8: the password lockout holds across replicas. On the PostgreSQL backend the failed attempts are kept in
the catalog database (``login_failures``), so two store objects on one database (two replicas) share the counts:
five failures split across them lock the name, parallel attempts on both never get past the limit, and the
rows expire after the lockout. On the DuckDB backend (one process) the count stays in memory (tests/security/
test_sign_in.py)."""

from __future__ import annotations

import hashlib
import threading

import psycopg
import pytest

from catalog.errors import CatalogUnavailableError
from catalog.storage.postgres import PostgresCatalogStore
from catalog.store import DATABASE_URL_ENV
from tests.security.conftest import HASH, PASSWORD, PASSWORD_SECRETS, new_session, sign_in
from ui import auth

USERS = {"alice": {"password_hash": HASH, "role": "editor"}}


@pytest.fixture
def replicas(pg_url):
    """Two stores on one database, as two replica processes hold them."""
    with PostgresCatalogStore(pg_url) as a, PostgresCatalogStore(pg_url) as b:
        yield a, b


def _rows(url: str, sql: str = "SELECT key_kind, key FROM login_failures", params: list | None = None) -> list:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(sql, params).fetchall()


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_five_failures_split_across_two_replicas_lock_the_name(replicas, pg_url, counted_checks):
    a, b = replicas
    for i in range(auth.MAX_FAILURES):
        store = (a, b)[i % 2]
        assert auth.attempt_sign_in("alice", f"wrong-{i}", USERS, client=f"10.0.0.{i}", store=store).outcome == "wrong"
    for store in (a, b):  # each replica saw only two or three of them, yet both refuse, even the right password
        assert auth.attempt_sign_in("alice", PASSWORD, USERS, client="10.0.0.99", store=store).outcome == "locked"
    assert len(counted_checks) == auth.MAX_FAILURES  # the refused attempts were never checked
    assert auth._attempts().by_name == {}  # nothing was counted in this process's memory
    rows = _rows(pg_url)
    assert sorted(k for k, _ in rows) == ["client"] * 5 + ["name"] * 5
    assert {key for kind, key in rows if kind == "name"} == {_sha("alice")}  # stored as a hash, never the text
    assert not [key for _, key in rows if "alice" in key or "10.0.0" in key]


def test_one_client_is_limited_across_names_and_replicas(replicas, counted_checks):
    a, b = replicas
    for i in range(auth.MAX_CLIENT_FAILURES):
        outcome = auth.attempt_sign_in(f"user{i}", "guess", USERS, client="203.0.113.7", store=(a, b)[i % 2]).outcome
        assert outcome == "wrong"
    for store in (a, b):
        assert auth.attempt_sign_in("alice", PASSWORD, USERS, client="203.0.113.7", store=store).outcome \
            == "client-locked"
    assert auth.attempt_sign_in("alice", PASSWORD, USERS, client="198.51.100.1", store=b).ok  # another client is not


def test_parallel_attempts_on_two_replicas_cannot_exceed_the_limit(replicas, counted_checks):
    a, b = replicas
    results, start = [], threading.Barrier(40)

    def attempt(i: int) -> None:
        start.wait()
        results.append(auth.attempt_sign_in("alice", f"guess-{i}", USERS, client=f"10.0.1.{i}", store=(a, b)[i % 2]))

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 40
    assert len(counted_checks) <= auth.MAX_FAILURES  # at most five guesses were checked, across both replicas
    assert sum(r.outcome == "locked" for r in results) >= 40 - auth.MAX_FAILURES
    assert not any(r.ok for r in results)
    assert auth.attempt_sign_in("alice", PASSWORD, USERS, client="10.0.1.99", store=a).outcome == "locked"


def test_a_successful_sign_in_does_not_count_as_a_failure(replicas, pg_url, counted_checks):
    a, b = replicas
    for i in range(auth.MAX_FAILURES - 1):
        assert auth.attempt_sign_in("alice", f"wrong-{i}", USERS, client="c", store=a).outcome == "wrong"
    for _ in range(3):
        assert auth.attempt_sign_in("alice", PASSWORD, USERS, client="c", store=b).ok
    assert len(_rows(pg_url, "SELECT 1 FROM login_failures WHERE key_kind = 'name'")) == auth.MAX_FAILURES - 1


def test_failures_expire_after_the_lockout_and_their_rows_are_deleted(replicas, pg_url, counted_checks):
    a, b = replicas
    for i in range(auth.MAX_FAILURES):
        auth.attempt_sign_in("alice", f"wrong-{i}", USERS, client="c", store=a)
    assert auth.attempt_sign_in("alice", PASSWORD, USERS, client="c", store=b).outcome == "locked"
    age = "UPDATE login_failures SET failed_at = failed_at - make_interval(secs => %s)"
    _rows(pg_url, age + " RETURNING 1", [auth.LOCKOUT_SECONDS - 5])  # older, but still inside the lockout
    assert auth.attempt_sign_in("alice", PASSWORD, USERS, client="c", store=b).outcome == "locked"
    _rows(pg_url, age + " RETURNING 1", [5])  # now exactly as old as the lockout
    assert auth.attempt_sign_in("alice", PASSWORD, USERS, client="c", store=b).ok
    assert _rows(pg_url) == []  # the expired rows were deleted by that attempt, its own forgotten


def test_a_database_built_before_the_table_gets_it_on_its_first_writable_open(pg_url, counted_checks):
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP TABLE login_failures")
    with PostgresCatalogStore(pg_url) as store:
        assert auth.attempt_sign_in("alice", "wrong", USERS, client="c", store=store).outcome == "wrong"
    assert len(_rows(pg_url)) == 2


def test_a_store_that_cannot_count_refuses_the_sign_in(counted_checks):
    """Fails closed: with the database unreachable no password is checked (it would be an uncounted guess)."""

    class Unreachable:
        def count_login_failure(self, *args, **kwargs):
            raise CatalogUnavailableError("The catalog database is unavailable.")

        def forget_login_failure(self, attempt_id):
            raise AssertionError("nothing to forget")

    result = auth.attempt_sign_in("alice", PASSWORD, USERS, client="c", store=Unreachable())
    assert result.outcome == "unavailable" and not result.ok and "cannot be reached" in result.message
    assert counted_checks == []


def test_the_editor_page_counts_failures_in_the_catalog_database(pg_url, monkeypatch):
    monkeypatch.setenv(DATABASE_URL_ENV, pg_url)
    at = new_session(PASSWORD_SECRETS)
    at.run()
    sign_in(at, "alice", "wrong password")
    assert any("wrong password" in e.value for e in at.error), [e.value for e in at.error]
    assert sorted(k for k, _ in _rows(pg_url)) == ["client", "name"]  # the page passed its store to the sign-in
    assert auth._attempts().by_name == {}
