"""PostgreSQL fixtures: one throwaway server per test session (``bench.pg_local``), a fresh seeded database
per test (copied from a seeded template database, so each test starts from the seed as the DuckDB tests do).

Where the server binaries are missing the PostgreSQL half of the store suite is skipped with the reason in
the summary, unless ``GPU_ADVISOR_REQUIRE_POSTGRES=1`` (set by ``.ci/run`` and ``make test`` after installing
PostgreSQL): then a missing server fails the run.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess

import pytest

REQUIRE_ENV = "GPU_ADVISOR_REQUIRE_POSTGRES"
_names = itertools.count(1)


@pytest.fixture(scope="session")
def pg_server():
    from bench.pg_local import start_local_postgres

    try:
        server = start_local_postgres(fsync=False)
    except (RuntimeError, OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        reason = f"PostgreSQL backend NOT TESTED: no local server could start ({exc} {detail.decode()[-300:]})"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    try:
        from catalog.storage.postgres import build_postgres_catalog

        build_postgres_catalog(server.create_database("seed_template"))
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.datadir, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server):
    """A database holding the seed catalog, dropped after the test."""
    import psycopg

    name = f"t{os.getpid()}_{next(_names)}"
    url = pg_server.create_database(name, template="seed_template")
    yield url
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
