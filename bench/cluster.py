"""``make cluster``: the app scaled out on one machine, on loopback (issue #21; README "Scaling out").

    PostgreSQL (catalog) ◀── replica 1..N (streamlit run app.py, GPU_ADVISOR_DATABASE_URL) ◀── nginx :8580

* PostgreSQL from the distribution's packages (``make postgresql``), data in ``CLUSTER_DIR/pgdata`` (kept across
  ``make cluster-stop``; ``--fresh`` starts from the seed again), seeded from ``catalog/seed`` when empty;
* N Streamlit replicas on 127.0.0.1:8601.. (stateless: the catalog and workshop data live in PostgreSQL);
* nginx on 127.0.0.1:8580 as load balancer: sticky sessions by a route cookie it sets on the first response
  (``hash $route consistent``; a Streamlit session is one websocket, so its page, assets and socket must reach
  the same replica; ``ip_hash`` would send every loopback client to one replica), websocket upgrade, and an
  ``X-Replica`` response header naming the replica (the check and the load test read it).

``python bench/cluster.py start|stop|status|check``; ``check`` opens the app through nginx in Chromium and
checks that the catalog shows and that sessions spread over the replicas.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pg_local import LocalPostgres, pg_bindir, start_local_postgres  # noqa: E402

CLUSTER_DIR = Path(os.environ.get("CLUSTER_DIR", "/var/tmp/gpu-advisor-cluster"))
STATE = CLUSTER_DIR / "state.json"
DB_NAME = "gpu_advisor"
ROUTE_COOKIE = "gpuadv_route"

NGINX_CONF = """
worker_processes 1;
{user}
pid {dir}/nginx.pid;
error_log {dir}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
    log_format combined_upstream '$remote_addr [$time_local] "$request" $status $upstream_addr route=$route';
    access_log {dir}/nginx-access.log combined_upstream;
    client_body_temp_path {dir}/nginx-tmp/body;
    proxy_temp_path {dir}/nginx-tmp/proxy;
    fastcgi_temp_path {dir}/nginx-tmp/fastcgi;
    uwsgi_temp_path {dir}/nginx-tmp/uwsgi;
    scgi_temp_path {dir}/nginx-tmp/scgi;

    # Sticky sessions: a client without the route cookie gets a random route (the request id), sent back as a
    # cookie; every later request (assets, the websocket) hashes on the same route to the same replica.
    map $cookie_{cookie} $route {{
        ""      $request_id;
        default $cookie_{cookie};
    }}
    map $cookie_{cookie} $set_route {{
        ""      "{cookie}=$request_id; Path=/; HttpOnly; SameSite=Lax";
        default "";
    }}
    map $http_upgrade $connection_upgrade {{
        default upgrade;
        ""      close;
    }}
    upstream streamlit_replicas {{
        hash $route consistent;
{servers}
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://streamlit_replicas;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $host;
            proxy_read_timeout 1d;
            # A tab starved of CPU may not read for minutes (40 tabs on 2 cores in make load): nginx's default
            # send_timeout of 60 s then cut static assets short (ERR_CONTENT_LENGTH_MISMATCH in the browser).
            send_timeout 10m;
            proxy_next_upstream error timeout;
            add_header Set-Cookie $set_route always;
            add_header X-Replica $upstream_addr always;
        }}
    }}
}}
"""


def load_state() -> dict:
    """The running cluster's state file (replicas, ports, pids), {} when none is running."""
    return json.loads(STATE.read_text()) if STATE.exists() else {}


def save_state(state: dict) -> None:
    """Write the cluster's state file (read by `make cluster-stop` / `cluster-check` and the fault runs)."""
    CLUSTER_DIR.mkdir(parents=True, exist_ok=True)
    STATE.write_text(json.dumps(state, indent=1))


def wait_http(url: str, timeout: float = 90) -> None:
    """Wait until ``url`` answers 200 (exits with a message after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {url}")
        time.sleep(0.3)


def start_replica(i: int, port: int, url: str) -> int:
    log = (CLUSTER_DIR / f"replica-{i}.log").open("ab")
    env = {**os.environ, "GPU_ADVISOR_DATABASE_URL": url, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    return proc.pid


def start(replicas: int, port: int, pg_port: int, first_replica_port: int, fresh: bool) -> None:
    from catalog.store import open_catalog

    if load_state():
        stop()
    if shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists():
        raise SystemExit("nginx is not installed (make cluster installs it as root: apt-get install nginx)")
    if pg_bindir() is None:
        raise SystemExit("PostgreSQL is not installed (make cluster installs it as root: apt-get install postgresql)")
    pgdata = CLUSTER_DIR / "pgdata"
    if fresh and pgdata.exists():
        shutil.rmtree(pgdata)
    CLUSTER_DIR.mkdir(parents=True, exist_ok=True)
    os.chmod(CLUSTER_DIR, 0o755)
    server = start_local_postgres(pgdata, pg_port, fsync=True)
    state: dict = {"pg": {"datadir": str(pgdata), "port": pg_port, "bindir": str(server.bindir)}, "replicas": []}
    save_state(state)
    import psycopg

    with psycopg.connect(server.admin_url, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DB_NAME]).fetchone() is None:
            server.create_database(DB_NAME)
    url = server.url(DB_NAME)
    store = open_catalog(url)  # seeds an empty database from catalog/seed
    print(f"PostgreSQL   {url}  (catalog version {store.data_version}, {len(store.table('offers'))} offers)")
    store.close()
    for i in range(replicas):
        rport = first_replica_port + i
        state["replicas"].append({"port": rport, "pid": start_replica(i + 1, rport, url)})
        save_state(state)
    for r in state["replicas"]:
        wait_http(f"http://127.0.0.1:{r['port']}/_stcore/health")
        print(f"replica      http://127.0.0.1:{r['port']}  (pid {r['pid']})")
    conf, nginx = start_nginx(CLUSTER_DIR, [r["port"] for r in state["replicas"]], port)
    state["nginx"] = {"conf": str(conf), "port": port, "bin": nginx}
    state["url"] = f"http://127.0.0.1:{port}/"
    state["database_url"] = url
    save_state(state)
    wait_http(f"http://127.0.0.1:{port}/_stcore/health")
    print(f"nginx        {state['url']}  (sticky route cookie, websocket upgrade)")
    print("Stop with: make cluster-stop")


def start_nginx(workdir: Path, replica_ports: list[int], port: int) -> tuple[Path, str]:
    """Write ``workdir/nginx.conf`` (sticky route cookie, websocket upgrade, X-Replica) and start nginx."""
    tmp = workdir / "nginx-tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    user = ""
    if os.geteuid() == 0:  # workers run unprivileged; they only need the temp folder
        user = "user www-data;"
        os.chmod(workdir, 0o755)
        shutil.chown(tmp, "www-data")
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;" for p in replica_ports)
    conf = workdir / "nginx.conf"
    conf.write_text(NGINX_CONF.format(user=user, dir=workdir, cookie=ROUTE_COOKIE, servers=servers, port=port))
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    subprocess.run([nginx, "-t", "-q", "-c", str(conf), "-p", str(workdir)], check=True)
    subprocess.run([nginx, "-c", str(conf), "-p", str(workdir)], check=True)
    return conf, nginx


def stop_nginx(nginx: str, conf: Path | str, workdir: Path) -> None:
    subprocess.run([nginx, "-c", str(conf), "-p", str(workdir), "-s", "stop"], check=False, capture_output=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def stop() -> None:
    state = load_state()
    if not state:
        print("no cluster running")
        return
    if "nginx" in state:
        stop_nginx(state["nginx"]["bin"], state["nginx"]["conf"], CLUSTER_DIR)
    for r in state.get("replicas", []):
        if _alive(r["pid"]):
            os.killpg(r["pid"], signal.SIGTERM)
    for r in state.get("replicas", []):
        for _ in range(50):
            if not _alive(r["pid"]):
                break
            time.sleep(0.1)
        else:
            os.killpg(r["pid"], signal.SIGKILL)
    if "pg" in state:
        pg = state["pg"]
        LocalPostgres(Path(pg["datadir"]), pg["port"], Path(pg["bindir"])).stop()
    STATE.unlink(missing_ok=True)
    print("cluster stopped (PostgreSQL data kept in", CLUSTER_DIR / "pgdata", ")")


def status() -> dict:
    state = load_state()
    for r in state.get("replicas", []):
        r["alive"] = _alive(r["pid"])
    print(json.dumps(state, indent=1))
    return state


def replica_of(url: str, cookie: str | None = None) -> tuple[str, str | None]:
    """(replica address, route cookie) that nginx picks for a request carrying ``cookie`` (None: a new client)."""
    req = urllib.request.Request(url + "_stcore/health", headers={"Cookie": f"{ROUTE_COOKIE}={cookie}"} if cookie else {})
    with urllib.request.urlopen(req, timeout=5) as r:
        set_cookie = "; ".join(r.headers.get_all("Set-Cookie") or [])
        match = re.search(rf"{ROUTE_COOKIE}=([^;]+)", set_cookie)
        return r.headers["X-Replica"], (match.group(1) if match else cookie)


def check() -> None:
    """Open the app through nginx in Chromium: the home page shows the catalog; new clients spread over the
    replicas; a client stays on its replica (page, assets, websocket: from nginx's access log)."""
    from playwright.sync_api import sync_playwright

    state = load_state()
    if not state:
        raise SystemExit("no cluster running: make cluster")
    url = state["url"]
    seen = {replica_of(url)[0] for _ in range(30)}
    print(f"30 new clients reached {len(seen)} replica(s): {sorted(seen)}")
    assert len(seen) == len(state["replicas"]), "nginx did not spread new clients over every replica"
    _, route = replica_of(url)
    same = {replica_of(url, route)[0] for _ in range(10)}
    assert len(same) == 1, f"one route cookie reached several replicas: {same}"
    visits = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium")
        try:
            for n in range(3):
                context = browser.new_context()
                page = context.new_page()
                response = page.goto(url, wait_until="domcontentloaded")
                replica = response.headers.get("x-replica") if response else None
                page.get_by_text("GPU Cloud Advisor").first.wait_for(timeout=60_000)
                offers = page.locator('[data-testid="stMetric"]').filter(
                    has=page.get_by_text("Offers", exact=True)).first
                offers.wait_for(timeout=60_000)
                value = offers.locator('[data-testid="stMetricValue"]').inner_text()
                route = next((c["value"] for c in context.cookies() if c["name"] == ROUTE_COOKIE), None)
                print(f"browser {n + 1}: replica {replica}, route {route}, catalog shows {value} offers")
                assert int(value) > 0 and route
                visits.append((route, replica))
                page.screenshot(path=str(CLUSTER_DIR / f"check-{n + 1}.png"))
                context.close()
        finally:
            browser.close()
    time.sleep(1)  # nginx logs a websocket when it closes
    log = (CLUSTER_DIR / "nginx-access.log").read_text().splitlines()
    for route, replica in visits:
        stream = [ln for ln in log if f"route={route}" in ln and "/_stcore/stream" in ln]
        upstreams = {ln.split('" ')[1].split()[1] for ln in stream}
        assert upstreams == {replica}, f"route {route}: websocket reached {upstreams}, page came from {replica}"
        print(f"route {route}: page and websocket both on {replica}")
    print("cluster check passed")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=["start", "stop", "status", "check"])
    ap.add_argument("--replicas", type=int, default=3)
    ap.add_argument("--port", type=int, default=8580)
    ap.add_argument("--pg-port", type=int, default=55432)
    ap.add_argument("--first-replica-port", type=int, default=8601)
    ap.add_argument("--fresh", action="store_true", help="drop the cluster's PostgreSQL data and reseed")
    args = ap.parse_args()
    if args.command == "start":
        start(args.replicas, args.port, args.pg_port, args.first_replica_port, args.fresh)
    elif args.command == "stop":
        stop()
    elif args.command == "status":
        status()
    else:
        check()


if __name__ == "__main__":
    main()
