"""A throwaway PostgreSQL server on loopback from the distribution's binaries (tests, ``make cluster``).

``initdb`` refuses to run as root, so as root the server runs as the ``postgres`` system user (created by the
Debian package) in a data directory that user owns. Authentication is ``trust`` on 127.0.0.1 only: the
server is a local test and cluster fixture, never exposed.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


def pg_bindir() -> Path | None:
    """The newest PostgreSQL server binaries installed (Debian: /usr/lib/postgresql/<major>/bin), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_server_user(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    return ["runuser", "-u", "postgres", "--", *cmd]


@dataclass
class LocalPostgres:
    datadir: Path
    port: int
    bindir: Path
    fsync: bool = True

    @property
    def admin_url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def url(self, dbname: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def stop(self) -> None:
        subprocess.run(_as_server_user([str(self.bindir / "pg_ctl"), "-D", str(self.datadir), "-m", "fast", "-w",
                                        "stop"]), capture_output=True, check=False, cwd="/")

    def is_running(self) -> bool:
        return subprocess.run(_as_server_user([str(self.bindir / "pg_ctl"), "-D", str(self.datadir), "status"]),
                              capture_output=True, check=False, cwd="/").returncode == 0

    def start(self) -> None:
        log = self.datadir / "server.log"
        opts = f"-p {self.port} -k {self.datadir} -c listen_addresses=127.0.0.1"
        if not self.fsync:  # throwaway test servers: durability across an OS crash is not needed
            opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        subprocess.run(_as_server_user([str(self.bindir / "pg_ctl"), "-D", str(self.datadir), "-l", str(log),
                                        "-o", opts, "-w", "-t", "60", "start"]),
                       capture_output=True, check=True, cwd="/")

    def create_database(self, name: str, template: str | None = None) -> str:
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            stmt = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
            if template:
                stmt = sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name), sql.Identifier(template))
            conn.execute(stmt)
        return self.url(name)


def start_local_postgres(datadir: Path | None = None, port: int | None = None, *, fsync: bool = False) -> LocalPostgres:
    """initdb (when the directory is new) and start a server; raises RuntimeError when no binaries exist."""
    bindir = pg_bindir()
    if bindir is None:
        raise RuntimeError("PostgreSQL server binaries not found (Debian: apt-get install postgresql)")
    if datadir is None:
        datadir = Path(tempfile.mkdtemp(prefix="gpu-advisor-pg-"))
    datadir.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(datadir, "postgres", "postgres")
    if not (datadir / "PG_VERSION").exists():
        subprocess.run(_as_server_user([str(bindir / "initdb"), "-D", str(datadir), "-U", "postgres", "-A", "trust",
                                        "-E", "UTF8", "--locale=C.UTF-8"]), capture_output=True, check=True, cwd="/")
    server = LocalPostgres(datadir=datadir, port=port or free_port(), bindir=bindir, fsync=fsync)
    server.start()
    for _ in range(50):
        try:
            import psycopg

            psycopg.connect(server.admin_url, connect_timeout=2).close()
            break
        except Exception:  # noqa: BLE001 (waiting for the server to accept connections)
            time.sleep(0.1)
    return server
