"""Past one machine: two (or more) app processes behind nginx with deploy/nginx.conf, a class through the proxy.

Starts N replicas (``streamlit run app.py`` on 127.0.0.1, ports from 8761 on, one shared ``server.cookieSecret``
as replicas on several machines must have) and Debian's ``nginx`` in front of them on 127.0.0.1 (port 8790 or the
next free one up to 8799). nginx runs in the foreground (``-g 'daemon off;'``) with its own prefix, pid file,
logs and temporary files in a temporary directory, and the configuration rendered from deploy/nginx.conf; no
system file is read or written. Then benchmarks/load_class.py's client runs through nginx. No response names the
replica that served it (deploy/nginx.conf keeps replica addresses private); nginx's access log in the prefix does:
each line has the request's routing key (the session's ``attnlab_route`` cookie) and the upstream. So each session's
health, host-config and websocket lines are found by the cookie the client holds, and the script prints the
sessions per replica and whether every session stayed on one replica with all its connections, next to the usual
errors, p50/p95/max, CPU per move (both replicas; nginx apart) and RSS. Everything started here is stopped by its
own pid in ``finally``.

Usage:  .venv/bin/python benchmarks/replicas_load.py [--sessions 120] [--seconds 60] [--replicas 2] [--seed 1]
                                                      [--quiet-wait S] [--json out.json] [--keep]
Exit code 0 when the run had 0 errors and every session stayed on one replica (or, loudly, when there is no
nginx: `make bench` runs every script here), 1 otherwise.
Issue 10's target on the 2-core machine: 120 sessions, p95 <= 1 s, 0 errors, every session on one replica.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

try:
    from benchmarks import load_class as lc
except ImportError:  # run as a script without the repository root on sys.path
    import load_class as lc

ROOT = lc.ROOT
HOST = "127.0.0.1"
TEMPLATE = ROOT / "deploy" / "nginx.conf"
REPLICA_PORTS = range(8761, 8790)
PROXY_PORTS = range(8790, 8800)
ROUTE_COOKIE = "attnlab_route"
# deploy/nginx.conf's log_format attnlab
LOG_LINE = re.compile(r'(?P<client>\S+) \[(?P<time>[^\]]*)\] "(?P<request>[^"]*)" (?P<status>\d{3}) (?P<bytes>\d+) '
                      r'route=(?P<route>\S*) upstream="(?P<upstream>[^"]*)" rt=(?P<rt>[\d.]+)')


@dataclass(frozen=True)
class LogLine:
    """One request in nginx's access log."""
    method: str
    path: str  # with its query string
    status: int
    route: str  # the routing key: the attnlab_route cookie sent, or the one handed out with this response
    upstream: str  # the replica nginx used ($upstream_addr), "" when nginx answered itself (404, 413 ...)


def parse_access_log(text: str) -> list[LogLine]:
    """The lines of an access log in deploy/nginx.conf's `attnlab` format; ValueError on any other line."""
    out = []
    for line in text.splitlines():
        m = LOG_LINE.fullmatch(line)
        if m is None:
            raise ValueError(f"not an attnlab access-log line: {line[:300]}")
        method, _, rest = m["request"].partition(" ")
        upstream = m["upstream"]
        out.append(LogLine(method, rest.rsplit(" ", 1)[0], int(m["status"]), m["route"],
                           "" if upstream == "-" else upstream))
    return out


def nginx_binary() -> str | None:
    """ATTN_LAB_NGINX when set (only it), else `nginx` on PATH, else Debian's /usr/sbin/nginx (not on a non-root
    PATH); None when there is none."""
    wanted = os.environ.get("ATTN_LAB_NGINX")
    for candidate in [wanted] if wanted else [shutil.which("nginx"), "/usr/sbin/nginx"]:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def render_conf(prefix: Path, listen: str, replicas: list[tuple[str, int]], template: Path = TEMPLATE) -> str:
    """deploy/nginx.conf with its placeholders filled; ValueError if a placeholder is left over."""
    lines = " ".join(f"server {h}:{p} max_fails=1 fail_timeout=10s;" for h, p in replicas)
    text = (template.read_text().replace("@PREFIX@", str(prefix)).replace("@LISTEN@", listen)
            .replace("@REPLICAS@", lines))
    body = "\n".join(line.split("#", 1)[0] for line in text.splitlines())  # placeholders named in comments only
    if "@" in body:
        raise ValueError("placeholder left in the rendered nginx.conf")
    return text


def free_ports(ports: range, n: int) -> list[int]:
    found: list[int] = []
    for port in ports:
        if len(found) == n:
            break
        if port_free(port):
            found.append(port)
    if len(found) < n:
        raise RuntimeError(f"only {len(found)} of {n} free ports in {ports.start}-{ports.stop - 1}")
    return found


def port_free(port: int) -> bool:
    import socket

    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn and nginx bind: TIME_WAIT is no obstacle
        try:
            s.bind((HOST, port))
            return True
        except OSError:
            return False


def children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def stop(proc: subprocess.Popen | None, sig: int = signal.SIGTERM, wait_s: float = 10) -> None:
    """Stop one process this script started, by its own pid (and nothing else)."""
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(wait_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


@dataclass
class Setup:
    """What `replicas()` started: nginx on `proxy_port` in front of `replica_ports`."""
    prefix: Path
    proxy_port: int
    replica_ports: list[int]
    app_dir: Path = ROOT
    replicas: list[subprocess.Popen] = field(default_factory=list)
    nginx: subprocess.Popen | None = None
    logs: list[Path] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.proxy_port}"

    def upstream_names(self) -> set[str]:
        """How nginx's access log names each replica ($upstream_addr is host:port)."""
        return {f"{HOST}:{p}" for p in self.replica_ports}

    def access_log(self) -> list[LogLine]:
        path = self.prefix / "access.log"
        return parse_access_log(path.read_text()) if path.exists() else []

    def replicas_of(self, route_keys: list[str], streams: int = 1, wait_s: float = 5.0) -> list[list[str]]:
        """Per routing key, the replica of every request nginx passed on with that key, in log order ([] for "").
        nginx logs a websocket when it closes: waits up to wait_s until every key has `streams` websocket lines."""
        deadline = time.monotonic() + wait_s
        while True:
            log = self.access_log()
            ws = [line.route for line in log if line.path == "/_stcore/stream"]
            if all(ws.count(k) >= streams for k in route_keys if k) or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        by_route: dict[str, list[str]] = {}
        for line in log:
            if line.upstream:
                by_route.setdefault(line.route, []).append(line.upstream)
        return [by_route.get(k, []) if k else [] for k in route_keys]

    def target(self) -> lc.Remote:
        """The load client's view: sessions through nginx, each replica warmed up directly, their CPU and RSS
        summed, nginx's (master and workers) CPU apart."""
        nginx = [self.nginx.pid, *children(self.nginx.pid)] if self.nginx else []
        return lc.Remote(HOST, self.proxy_port, [p.pid for p in self.replicas],
                         warm=[(HOST, p) for p in self.replica_ports], logs=self.logs, proxy_pids=nginx,
                         post_gc=lc.configured_post_gc(self.app_dir))


@contextmanager
def replicas(n: int = 2, *, app_dir: Path = ROOT, nginx: str | None = None, keep: bool = False):
    """Start n replicas and nginx in front of them (loopback only); yield a Setup; stop them all.

    Raises RuntimeError when nginx is missing, a port range is full, or something does not come up healthy
    (with the tail of its log)."""
    nginx = nginx or nginx_binary()
    if nginx is None:
        raise RuntimeError("nginx not found (apt-get install nginx, or set ATTN_LAB_NGINX)")
    prefix = Path(tempfile.mkdtemp(prefix="attnlab_nginx_"))
    os.chmod(prefix, 0o755)  # nginx's workers (user nobody when started as root) create their temp dirs in it
    setup = Setup(prefix, free_ports(PROXY_PORTS, 1)[0], free_ports(REPLICA_PORTS, n), app_dir)
    env = {**os.environ, "STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(32), "PYTHONUNBUFFERED": "1"}
    try:
        for port in setup.replica_ports:
            log = prefix / f"replica-{port}.log"
            setup.logs.append(log)
            with open(log, "wb") as out:
                setup.replicas.append(subprocess.Popen(lc.streamlit_cmd(port, HOST), cwd=app_dir, env=env,
                                                       stdout=out, stderr=subprocess.STDOUT, start_new_session=True))
        conf = prefix / "nginx.conf"
        conf.write_text(render_conf(prefix, f"{HOST}:{setup.proxy_port}", [(HOST, p) for p in setup.replica_ports]))
        base = [nginx, "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "error.log")]
        check = subprocess.run([*base, "-t", "-q"], capture_output=True, text=True, timeout=30)
        if check.returncode != 0:
            raise RuntimeError(f"nginx -t refused the rendered config:\n{check.stderr}")
        nginx_log = prefix / "nginx.stderr"
        with open(nginx_log, "wb") as out:
            setup.nginx = subprocess.Popen([*base, "-g", "daemon off;"], stdout=out, stderr=subprocess.STDOUT,
                                           start_new_session=True)
        for proc, port, log in zip(setup.replicas, setup.replica_ports, setup.logs):
            lc.wait_healthy(proc, HOST, port, str(log))
        lc.wait_healthy(setup.nginx, HOST, setup.proxy_port, str(prefix / "error.log"), limit_s=20)
        yield setup
    finally:
        stop(setup.nginx, signal.SIGQUIT)  # graceful: workers finish, then the master exits
        for proc in setup.replicas:
            stop(proc)
        if not keep:
            shutil.rmtree(prefix, ignore_errors=True)


def class_through(setup: Setup, sessions: int, seconds: float, seed: int, **kw) -> dict:
    """benchmarks/load_class.py's load test through nginx; its "replicas" summary from nginx's access log (each
    session's connections found by the route cookie it holds). kw: load_test's settle_s, after_s."""
    r = lc.run_sync(lc.load_test(setup.target(), sessions, seconds, seed, route_cookie=ROUTE_COOKIE, **kw))
    r["replicas"] = lc.replica_summary(setup.replicas_of(r["route_keys"]))
    return r


def verdict(r: dict, names: set[str], p95_target_ms: float | None = None) -> list[str]:
    """What falls short in a load result through the replicas ([] = all good)."""
    problems = []
    rep = r["replicas"]
    if r["errors"] or r["initial_load_errors"]:
        problems.append(f"{r['errors']} move errors, {len(r['initial_load_errors'])} page-load errors")
    if not rep["all_sticky"]:
        problems.append(f"{len(rep['split_sessions'])} sessions split over replicas, {rep['unrecorded']} unrecorded")
    unknown = set(rep["sessions_per_replica"]) - names
    if unknown:
        problems.append(f"responses from unknown upstreams {sorted(unknown)}")
    idle = names - set(rep["sessions_per_replica"])
    if idle:
        problems.append(f"replicas without sessions: {sorted(idle)}")
    if p95_target_ms is not None and not r["latency"]["p95_ms"] <= p95_target_ms:
        problems.append(f"p95 {r['latency']['p95_ms']:.0f} ms > {p95_target_ms:.0f} ms")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=120)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--app-dir", type=Path, default=ROOT, help="run app.py of this tree (e.g. a `git archive` export)")
    ap.add_argument("--p95-target-ms", type=float, default=1000.0)
    ap.add_argument("--quiet-wait", type=float, default=0.0, metavar="S",
                    help="wait up to S seconds until other processes use < 0.15 cores before starting")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--keep", action="store_true", help="keep the temporary nginx prefix (config, logs)")
    args = ap.parse_args()
    if not 1 <= args.replicas <= 8 or args.sessions < 1 or not 0 < args.seconds <= 3600:
        sys.exit("bad arguments: 1 <= replicas <= 8, sessions >= 1, 0 < seconds <= 3600")
    if nginx_binary() is None:
        print("SKIPPED: nginx not found (apt-get install nginx, or set ATTN_LAB_NGINX). Nothing measured.")
        return 0
    before = lc.wait_quiet(args.quiet_wait) if args.quiet_wait else None
    t0 = time.monotonic()
    with replicas(args.replicas, app_dir=args.app_dir.resolve(), keep=args.keep) as setup:
        print(f"== {args.replicas} replicas on {HOST}:{','.join(map(str, setup.replica_ports))} behind nginx on"
              f" {setup.url} (prefix {setup.prefix}); load average {os.getloadavg()[0]:.2f}")
        r = class_through(setup, args.sessions, args.seconds, args.seed)
        r["post_gc_forced"] = False
        r["other_cores_before"] = before
        r["load_average_after"] = os.getloadavg()
        lc.print_result(r)
        problems = verdict(r, setup.upstream_names(), args.p95_target_ms)
    print(f"  load average (1/5/15 min) at the end: {' / '.join(f'{x:.2f}' for x in r['load_average_after'])};"
          f" {time.monotonic() - t0:.0f} s in all")
    print("  RESULT: " + ("all targets met" if not problems else "; ".join(problems)))
    if args.json:
        args.json.write_text(json.dumps(r, indent=1))
    hard = [p for p in problems if not p.startswith("p95")]
    return 1 if hard else 0


if __name__ == "__main__":
    sys.exit(main())
