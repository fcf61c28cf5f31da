"""The cluster under test for ``make load LOAD_ARGS="--cluster 3"`` (bench/load_test.py; issue #21).

A throwaway PostgreSQL (``bench.pg_local``) seeded from catalog/seed, N replicas of the app each started
through bench/timed_server.py (server-side timing per replica, one log each) with ``GPU_ADVISOR_DATABASE_URL``
and local editing on, and nginx in front (``bench.cluster.start_nginx``: sticky route cookie, websocket
upgrade). Everything on loopback, in the load test's work folder, stopped by :meth:`LoadCluster.stop`.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class LoadCluster:
    def __init__(self, work: Path, replicas: int):
        self.work, self.n = work, replicas
        self.procs: list[subprocess.Popen] = []
        self.ports: list[int] = []
        self.timing_logs = [work / f"server-timing-{i + 1}.jsonl" for i in range(replicas)]
        self.logs = [work / f"streamlit-{i + 1}.log" for i in range(replicas)]
        self.pg = None
        self.database_url = ""
        self.nginx: tuple[Path, str] | None = None
        self.url = ""

    def start(self) -> str:
        from bench.cluster import start_nginx
        from bench.pg_local import free_port, start_local_postgres
        from catalog.storage.postgres import build_postgres_catalog

        self.pg = start_local_postgres(fsync=True)
        self.database_url = build_postgres_catalog(self.pg.create_database("gpu_advisor_load"))
        for i in range(self.n):
            port = free_port()
            env = {**os.environ, "GPU_ADVISOR_DATABASE_URL": self.database_url, "GPU_ADVISOR_LOCAL_EDITING": "1",
                   "PYTHONPATH": str(ROOT)}
            with self.logs[i].open("w") as log:
                self.procs.append(subprocess.Popen(
                    [sys.executable, str(ROOT / "bench" / "timed_server.py"), str(self.timing_logs[i]), "run",
                     str(ROOT / "app.py"), "--server.headless", "true", "--server.port", str(port),
                     "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
                    cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
            self.ports.append(port)
        for port in self.ports:
            self._wait(f"http://127.0.0.1:{port}/_stcore/health")
        lb_port = free_port()
        self.nginx = start_nginx(self.work, self.ports, lb_port)
        self.url = f"http://127.0.0.1:{lb_port}"
        self._wait(self.url + "/_stcore/health")
        return self.url

    @staticmethod
    def _wait(url: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if urllib.request.urlopen(url, timeout=1).read() == b"ok":
                    return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"{url} did not become healthy")

    def replica_of_port(self, address: str) -> int:
        """1-based replica number of an upstream address "127.0.0.1:PORT" (X-Replica, nginx log)."""
        return self.ports.index(int(address.rsplit(":", 1)[1])) + 1

    def kill_replica(self, i: int) -> None:
        """SIGKILL replica ``i`` (0-based): the fault of issue #21 ("kill one replica mid-load")."""
        os.killpg(self.procs[i].pid, signal.SIGKILL)

    def stop(self) -> None:
        """nginx and the replicas; the database stays up for the verification (:meth:`stop_database`)."""
        from bench.cluster import stop_nginx

        if self.nginx is not None:
            stop_nginx(self.nginx[1], self.nginx[0], self.work)
            keep = os.environ.get("LOAD_CLUSTER_LOGS")  # a folder to keep nginx's and the replicas' logs in
            if keep:
                Path(keep).mkdir(parents=True, exist_ok=True)
                for name in ("nginx-error.log", "nginx-access.log", *(p.name for p in self.logs)):
                    if (self.work / name).exists():
                        shutil.copy(self.work / name, Path(keep) / name)
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)

    def stop_database(self) -> None:
        """After the catalog was verified (the load test reads it once the replicas are gone)."""
        if self.pg is not None:
            self.pg.stop()
            shutil.rmtree(self.pg.datadir, ignore_errors=True)
            self.pg = None
