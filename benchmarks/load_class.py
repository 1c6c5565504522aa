"""A class at once: N browser-like sessions on one server process, each moving the Q·K·V page's d_model slider.

Starts the app (``streamlit run app.py`` on 127.0.0.1, a free port in 8620-8639), then talks to it the way the
browser's JavaScript does, at the protocol level (no browser):
  1. ``GET /_stcore/health`` (sets the ``_streamlit_xsrf`` cookie) and ``GET /_stcore/host-config``;
  2. a websocket to ``/_stcore/stream`` with that cookie, an ``Origin`` header and the subprotocols
     ``["streamlit", <the XSRF cookie's value>]`` (the frontend passes the token as the second subprotocol entry),
     permessage-deflate offered as browsers do;
  3. a ``BackMsg.rerun_script`` (``ClientState``) for ``/qkv`` (page name, empty page hash, context info), then
     for every slider move a ``rerun_script`` carrying every widget state the page shows (as the frontend's
     WidgetStateManager keeps them: each widget's value from the ForwardMsg deltas, a moved widget's new value),
     the page script hash (from the ``Navigation`` ForwardMsg) and the id of the ``st.fragment`` the slider sits in (the
     ``fragment_id`` of the delta that carried it), the current query string and the hashes of the cached
     ForwardMsgs (the frontend's message cache is emulated, ``ref_hash`` messages resolved from it).
A move is timed from sending its BackMsg to the ``script_finished`` ForwardMsg of the run it caused. A move counts
as done only if the run finished successfully, no ``exception`` element came with it, and the new d_model reached
the lesson state (the ``dm=`` of the query string the page publishes and the slider's returned value); anything
else (timeouts, closed sockets, exceptions, a move without effect) is an error.

Each result ends with a calibration: the CPU time of a fixed pure-Python workload run in this process after the
mode (``calibration_ms``), so that figures of different days can be compared (this machine's speed drifts).

Server figures come from /proc/<pid> of the streamlit process: CPU (utime+stime) over the moving phase divided by
the moves served, and VmRSS sampled twice a second. The machine's other load (every CPU on /proc/stat minus the
server and this client) is printed too: on a shared 2-core machine it tells whether a figure is to be trusted.

Modes (each on a fresh server; run only one load test at a time on a 2-core machine):
  default           --sessions N (40) for --seconds S (60), think time 1-3 s between moves (closed loop)
  --soak N          N d_model reruns back to back in one session (after a warm-up), RSS growth and CPU per move
  --idle N          RSS held per idle session: N sessions open /qkv and sit, RSS delta / N
  --no-post-gc      start the server with ``--runner.postScriptGC false`` (no gc.collect(2) after every run)
  --post-gc         start it with ``--runner.postScriptGC true`` (Streamlit's default); without either flag the
                    app's .streamlit/config.toml decides, and the printout says which value was in effect

Usage:  .venv/bin/python benchmarks/load_class.py [--sessions 40] [--seconds 60] [--soak 1000] [--idle 20]
                                                  [--no-post-gc | --post-gc] [--app-dir DIR] [--quiet-wait S]
                                                  [--port 8620] [--seed 1] [--json out.json]
A shared 2-core machine: pass e.g. --quiet-wait 1800 so a measurement starts only when nothing else is busy, and
read the "other processes" line of every result.
"""
from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
PORTS = range(8620, 8640)
PAGE = "qkv"
SLIDER_KEY = "qkv.dm"
DRAG_RELAY, LIVE_RELAY = "frame.drag", "al-drag."  # ui.drag.DRAG_KEY, ui.drag.LIVE_PREFIX
HOVER_RELAY, LIVE_CONTAINER = "frame.drag.hover", "al-live-"  # ui.drag.HOVER_KEY, ui.drag.LIVE_CONTAINER
CELL_SLIDER = ":v:"  # in the one-cell slider's key (ui.widgets.cell_slider_key)
INTERNAL_KEY = "$$STREAMLIT_INTERNAL_KEY"  # a component's trigger widget: <this>_<element id>__<event>
FRAMES = ".frames"  # the end of a frames element's key (ui.drag.FRAMES_SUFFIX)
CHART_COMPONENT = ".plot"  # the end of the chart component's name (ui.plot_component.NAME)
DIM_MIN, DIM_MAX = 1, 16  # attention_core.lessons.DIM_MIN/DIM_MAX (not imported: this script only speaks HTTP)
CLK = os.sysconf("SC_CLK_TCK")
MOVE_TIMEOUT = 30.0
LOAD_TIMEOUT = 120.0
FINISHED_OK = (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)


def user_key(element_id: str) -> str:
    """The key an element was given, from its id ($$ID-<hash>-<key>)."""
    parts = element_id.split("-", 2)
    return parts[2] if len(parts) == 3 else ""


def css_class(key: str) -> str:
    """ui.drag.css_class (not imported: this script only speaks HTTP): an element container's class for ``key``."""
    return "st-key-" + re.sub(r"[^a-zA-Z0-9_-]", "-", key)


# ---- the server process ------------------------------------------------------------------------------------------

def run_sync(coro):
    """asyncio.run(coro), or the same in a thread of its own when this thread already runs an event loop (a test
    process where Playwright's sync API runs one: asyncio.run() is refused there)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()

def free_port(wanted: int | None, ports: range = PORTS) -> int:
    """`wanted` if it is free (any port 1024-65535), else the first free port of `ports` on 127.0.0.1."""
    for port in ([wanted] if wanted else ports):
        if not 1024 <= port <= 65535:
            sys.exit(f"port {port} is outside 1024-65535")
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds: TIME_WAIT is no obstacle
            try:
                s.bind((HOST, port))
                return port
            except OSError:
                continue
    sys.exit(f"port {wanted} is not free" if wanted else f"no free port in {ports.start}-{ports.stop - 1}")


def proc_cpu_s(pid: int, main_thread: bool = False) -> float:
    """utime + stime of process `pid` (all its threads), seconds; main_thread: of its main thread only."""
    path = f"/proc/{pid}/task/{pid}/stat" if main_thread else f"/proc/{pid}/stat"
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK


def proc_mem_mb(pid: int, what: str = "VmRSS") -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(what + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(what)


class Target:
    """What the sessions talk to and what is measured: `host:port` takes the sessions; `warm` lists the servers
    (host, port) to warm up directly (several replicas behind a proxy: each of them); `pids()` are the server
    processes whose CPU and RSS are summed (none known: NaN)."""

    host = HOST
    port = 0
    post_gc: bool | None = None
    forced = False
    warm: list[tuple[str, int]] = []

    def pids(self) -> list[int]:
        return []

    def proxy_pids(self) -> list[int]:
        """Other processes of the setup (a reverse proxy): their CPU is shown apart, not as 'other processes'."""
        return []

    def proxy_cpu_s(self) -> float:
        return sum(proc_cpu_s(p) for p in self.proxy_pids())

    def cpu_s(self, main_thread: bool = False) -> float:
        """utime + stime of the server processes (all their threads), seconds; main_thread: of their main threads
        only, the ones running the event loop (HTTP, websockets, sending ForwardMsgs) - the rest is mostly script
        runs."""
        pids = self.pids()
        return sum(proc_cpu_s(p, main_thread) for p in pids) if pids else float("nan")

    def mem_mb(self, what: str = "VmRSS") -> float:
        pids = self.pids()
        return sum(proc_mem_mb(p, what) for p in pids) if pids else float("nan")

    def log_text(self) -> str:
        return ""


class Remote(Target):
    """Servers already running (e.g. replicas behind nginx): sessions go to `host:port`; `server_pids` and
    `warm` as in Target; `logs` are read for problems at the end."""

    def __init__(self, host: str, port: int, server_pids: list[int] = (), warm: list[tuple[str, int]] | None = None,
                 logs: list[Path] = (), post_gc: bool | None = None, proxy_pids: list[int] = ()):
        self.host, self.port, self._pids, self._proxy = host, port, list(server_pids), list(proxy_pids)
        self.warm = [(host, port)] if warm is None else list(warm)
        self.logs, self.post_gc = list(logs), post_gc

    def pids(self) -> list[int]:
        return self._pids

    def proxy_pids(self) -> list[int]:
        return self._proxy

    def log_text(self) -> str:
        return "\n".join(Path(p).read_text(errors="replace") for p in self.logs if Path(p).exists())


def streamlit_cmd(port: int, address: str = HOST, post_gc: bool | None = None) -> list[str]:
    """The server command line: this checkout's .venv, `streamlit run app.py` headless on address:port."""
    cmd = [str(ROOT / ".venv/bin/python"), "-m", "streamlit", "run", "app.py", "--server.port", str(port),
           "--server.headless", "true", "--server.address", address]
    if post_gc is not None:
        cmd += ["--runner.postScriptGC", "true" if post_gc else "false"]
    return cmd


def wait_healthy(proc: subprocess.Popen, host: str, port: int, log: str = "", limit_s: float = 60) -> None:
    """Until GET /_stcore/health on host:port answers 200; RuntimeError if `proc` exits or limit_s passes."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = Path(log).read_text(errors="replace")[-2000:] if log else ""
            raise RuntimeError(f"server on port {port} exited with {proc.returncode}:\n{tail}")
        try:
            status, _, _ = run_sync(http_get(host, port, "/_stcore/health"))
            if status == 200:
                return
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"server on port {port} not healthy after {limit_s:.0f} s")


class Server(Target):
    """``streamlit run app.py`` on 127.0.0.1; /proc readings of its process; stopped by its own pid only."""

    def __init__(self, port: int, post_gc: bool | None, app_dir: Path = ROOT):
        """post_gc None: whatever the app's .streamlit/config.toml says (Streamlit's default: on)."""
        self.port = port
        self.warm = [(HOST, port)]
        self.app_dir = app_dir
        self.forced = post_gc is not None
        self.post_gc = configured_post_gc(app_dir) if post_gc is None else post_gc
        self.log = tempfile.NamedTemporaryFile(prefix="load_class_server_", suffix=".log", delete=False)
        self.proc: subprocess.Popen | None = None

    def pids(self) -> list[int]:
        return [self.proc.pid] if self.proc is not None else []

    def start(self) -> None:
        cmd = streamlit_cmd(self.port, HOST, self.post_gc if self.forced else None)
        self.proc = subprocess.Popen(cmd, cwd=self.app_dir, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        wait_healthy(self.proc, HOST, self.port, self.log.name)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)

    def log_text(self) -> str:
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace")


def configured_post_gc(app_dir: Path) -> bool:
    path = app_dir / ".streamlit" / "config.toml"
    if not path.exists():
        return True
    with open(path, "rb") as f:
        return bool(tomllib.load(f).get("runner", {}).get("postScriptGC", True))


def machine_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v) - idle, sum(v)


def wait_quiet(limit_s: float, threshold: float = 0.15, window: float = 5.0, windows: int = 3) -> float:
    """Wait (at most limit_s) until the rest of the machine used less than `threshold` cores in `windows`
    consecutive windows of `window` seconds; returns the last reading. A load test next to a browser test measures
    the browser test too."""
    deadline = time.monotonic() + limit_s
    quiet = 0
    last_note = 0.0
    while True:
        b0, own0 = machine_jiffies()[0], own_cpu_s()
        time.sleep(window)
        busy = max(0.0, (machine_jiffies()[0] - b0) / CLK - (own_cpu_s() - own0)) / window
        quiet = quiet + 1 if busy < threshold else 0
        if quiet >= windows or time.monotonic() >= deadline:
            return busy
        if busy >= threshold and time.monotonic() - last_note > 60:
            print(f"  (machine busy with {busy:.2f} cores of other work: waiting)", flush=True)
            last_note = time.monotonic()


def own_cpu_s() -> float:
    t = os.times()
    return t.user + t.system


# ---- HTTP and the browser-like session ---------------------------------------------------------------------------
async def http_get(host: str, port: int, path: str, cookie: str = "") -> tuple[int, dict[str, list[str]], bytes]:
    """GET http://host:port/path; (status, headers by lower-case name -> every value in order, body)."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        head = f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n"
        if cookie:
            head += f"Cookie: {cookie}\r\n"
        writer.write((head + "\r\n").encode())
        await writer.drain()
        raw = await reader.read()
    finally:
        writer.close()
    header, _, body = raw.partition(b"\r\n\r\n")
    lines = header.decode("latin-1").split("\r\n")
    headers: dict[str, list[str]] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.setdefault(name.strip().lower(), []).append(value.strip())
    return int(lines[0].split()[1]), headers, body


@dataclass
class Run:
    """What one rerun sent back."""
    status: int = -1
    seconds: float = 0.0
    n_msgs: int = 0
    n_bytes: int = 0
    exceptions: int = 0
    fragment_ids: tuple[str, ...] = ()
    frames: bool = False  # a frames element (ui.drag.mount_frames) or the hover relay came with frames in it
    charts: int = 0  # chart elements (ui/plot_component) drawn


class MessageCache:
    """The frontend's ForwardMsg cache (ForwardMsgCache in the JS): cacheable messages by hash, aged per finished
    run, their hashes sent with every rerun so the server may send ``ref_hash`` instead of the message."""

    def __init__(self):
        self.msgs: dict[str, list] = {}  # hash -> [encoded, run count when last used, fragment id]
        self.runs = 0

    def resolve(self, msg: ForwardMsg, raw: bytes) -> ForwardMsg:
        if msg.WhichOneof("type") == "ref_hash":
            entry = self.msgs[msg.ref_hash]  # KeyError: the server referred to a message we do not have
            entry[1] = self.runs
            return ForwardMsg.FromString(entry[0])
        if msg.metadata.cacheable and msg.hash:
            if msg.hash in self.msgs:
                self.msgs[msg.hash][1] = self.runs
            else:
                self.msgs[msg.hash] = [raw, self.runs, msg.delta.fragment_id if msg.HasField("delta") else ""]
        return msg

    def run_finished(self, max_age: int, fragment_ids: tuple[str, ...]) -> None:
        self.runs += 1
        for h, (_, used, frag) in list(self.msgs.items()):
            if fragment_ids and (not frag or frag not in fragment_ids):
                continue
            if self.runs - used > max_age:
                del self.msgs[h]


class Session:
    """One browser tab on /qkv, at the protocol level. Keeps every cookie it is given (Streamlit's XSRF cookie, a
    proxy's routing cookie) and sends them back. With `replica_header` (a proxy that names the replica in a response
    header), `replicas` records that header's value on each of its connections: health, host-config, websocket.
    deploy/nginx.conf sends no such header (replica addresses stay private): benchmarks/replicas_load.py reads
    nginx's access log instead, by the session's routing cookie."""

    def __init__(self, port: int, host: str = HOST, replica_header: str = ""):
        self.port = port
        self.host = host
        self.replica_header = replica_header.lower()
        self.cookies: dict[str, str] = {}
        self.replicas: list[str] = []
        self.session_id = ""  # the server's AppSession id (NewSession.initialize.session_id of the last full run)
        self.ws = None
        self.reader: asyncio.Task | None = None
        self.widgets: dict[str, WidgetState] = {}  # the frontend's widget states, by widget id
        self.widget_fragment: dict[str, str] = {}
        self.seen_this_run: set[str] = set()
        self.page_hash = ""
        self.query_string = ""
        self.max_age = 2
        self.cache = MessageCache()
        self.slider_id = ""
        self.slider_fragment = ""
        self.relays: dict[str, tuple[str, str]] = {}  # drag relay's key -> (element id, fragment id) (ui/drag.py)
        self.cell: tuple[str, float] | None = None  # the one-cell slider: (its user key, its value)
        self.hover_seq = 0
        self.pending: asyncio.Future | None = None
        self.run = Run()
        self.closed_reason = ""

    async def open(self, resume: bool = False) -> None:
        """Health, host-config, then the websocket. resume: ask the server for this session's AppSession again
        (the session id as the third subprotocol), as the frontend does when it reconnects."""
        for path in ("/_stcore/health", "/_stcore/host-config"):
            status, headers, _ = await http_get(self.host, self.port, path, self.cookie_header())
            if status != 200:
                raise RuntimeError(f"{path} {status}")
            self._took(headers)
        token = self.cookies.get("_streamlit_xsrf", "")  # 2|mask|token|time
        if not token:
            raise RuntimeError("no _streamlit_xsrf cookie")
        origin = f"http://{self.host}:{self.port}"
        protocols = ["streamlit", token] + ([self.session_id] if resume and self.session_id else [])
        self.ws = await connect(f"ws://{self.host}:{self.port}/_stcore/stream", subprotocols=protocols,
                                additional_headers={"Cookie": self.cookie_header(), "Origin": origin},
                                max_size=None, open_timeout=60, ping_interval=None)
        if self.ws.subprotocol != "streamlit":
            raise RuntimeError(f"subprotocol {self.ws.subprotocol!r}")
        if self.replica_header:
            self.replicas.append(self.ws.response.headers.get(self.replica_header, ""))
        self.reader = asyncio.create_task(self._read())

    def cookie_header(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.cookies.items())

    def _took(self, headers: dict[str, list[str]]) -> None:
        """Keep the response's cookies (as a browser's jar would, by name) and note the replica that served it."""
        for value in headers.get("set-cookie", []):
            name, _, val = value.split(";")[0].partition("=")
            self.cookies[name.strip()] = val.strip()
        if self.replica_header:
            self.replicas.append((headers.get(self.replica_header) or [""])[0])

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            await asyncio.gather(self.reader, return_exceptions=True)

    async def reconnect(self, port: int | None = None) -> Run:
        """Drop the websocket and open it again asking for the same AppSession, then rerun the page (full run) as
        the frontend does after a reconnect; `port`: reconnect to another address (e.g. straight to a replica).
        `session_id` afterwards tells whether the server resumed the session (same id) or started a new one."""
        await self.close()
        self.closed_reason = ""
        if port is not None:
            self.port = port
        await self.open(resume=True)
        return await self.rerun(timeout=LOAD_TIMEOUT)

    # -- what the browser sends
    async def rerun(self, *, fragment_id: str = "", timeout: float = MOVE_TIMEOUT) -> Run:
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = self.query_string
        cs.widget_states.widgets.extend(self.widgets.values())
        cs.page_script_hash = self.page_hash
        if not self.page_hash:
            cs.page_name = PAGE  # first load of /qkv: the frontend sends the URL's page name, no hash yet
        cs.fragment_id = fragment_id
        cs.cached_message_hashes.extend(self.cache.msgs)
        ci = cs.context_info
        ci.timezone, ci.timezone_offset, ci.locale = "Asia/Tokyo", -540, "ja-JP"
        ci.url = f"http://{self.host}:{self.port}/{PAGE}" + (f"?{self.query_string}" if self.query_string else "")
        ci.is_embedded, ci.color_scheme = False, "light"
        self.run = Run()
        self.seen_this_run = set()
        self.pending = asyncio.get_running_loop().create_future()
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        try:
            run = await asyncio.wait_for(self.pending, timeout)
        finally:
            self.pending = None
        run.seconds = time.perf_counter() - t0
        return run

    async def load(self) -> Run:
        run = await self.rerun(timeout=LOAD_TIMEOUT)
        if not self.slider_id:
            raise RuntimeError(f"no widget with key {SLIDER_KEY!r} on /{PAGE}")
        return run

    def slider_value(self) -> int:
        return round(self.widgets[self.slider_id].double_array_value.data[0])

    async def move(self, value: int) -> tuple[Run, str]:
        """Move the d_model slider as a person does: its new value in the widget states, rerun of its fragment.
        Returns the run and '' or what went wrong."""
        state = self.widgets[self.slider_id]
        del state.double_array_value.data[:]
        state.double_array_value.data.append(float(value))
        run = await self.rerun(fragment_id=self.slider_fragment)
        if run.status not in FINISHED_OK:
            return run, f"status {run.status}"
        if run.exceptions:
            return run, "exception element"
        if f"dm={value}" not in self.query_string.split("&") or self.slider_value() != value:
            return run, "move without effect"
        return run, ""

    async def hover(self) -> tuple[Run | None, str]:
        """A pointer coming over the one-cell slider, as ui/drag.py's relay sends it: a trigger of the page's hover
        relay (its own fragment: ui.drag.mount_hover) asking for the frames around the slider's value, with the
        slider's live fragment (``c``), nothing applied (``h``: 1). The server
        builds them while the process's hover budget allows (ui.preview.HOVER_SHARE_S). Returns the run (None when
        the page has no cell slider or relay) and '' or what went wrong."""
        if self.cell is None:
            return None, "no cell slider"
        relay = self.relays.get(HOVER_RELAY)
        if relay is None:
            return None, "no hover relay"
        key, value = self.cell
        # the slider's live fragment, as the browser names it: the CSS class of its container (ui.drag.mount_hover)
        fragment = self.widget_fragment.get(next((w for w in self.widgets if user_key(w) == key), ""), "")
        scope = next((k[len(LIVE_RELAY):] for k, (_, f) in self.relays.items() if k.startswith(LIVE_RELAY) and f
                      and f == fragment), None)
        self.hover_seq += 1
        msg = {"k": [css_class(key)], "v": value, "f": value, "s": self.hover_seq, "d": 0, "p": 1, "h": 1,
               "c": scope and css_class(LIVE_CONTAINER + scope)}
        trigger = WidgetState(id=f"{INTERNAL_KEY}_{relay[0]}__events")
        trigger.json_trigger_value = json.dumps([{"event": "drag", "value": msg}])
        self.widgets[trigger.id] = trigger
        try:
            run = await self.rerun(fragment_id=relay[1])
        finally:
            self.widgets.pop(trigger.id, None)  # a trigger holds its value for one run only
        if run.status not in FINISHED_OK:
            return run, f"status {run.status}"
        return run, "exception element" if run.exceptions else ""

    # -- what the browser receives
    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                self._on_message(raw)
        except ConnectionClosed as e:
            self.closed_reason = f"closed {e.rcvd.code if e.rcvd else ''}"
        except Exception as e:  # a bug here must fail the move, not hang it
            self.closed_reason = f"client error {e!r}"
        if not self.closed_reason:
            self.closed_reason = "closed"
        if self.pending is not None and not self.pending.done():
            self.pending.set_exception(ConnectionError(self.closed_reason))

    def _on_message(self, raw: bytes) -> None:
        msg = self.cache.resolve(ForwardMsg.FromString(raw), raw)
        self.run.n_msgs += 1
        self.run.n_bytes += len(raw)
        kind = msg.WhichOneof("type")
        if kind == "delta":
            self._on_delta(msg.delta)
        elif kind == "new_session":
            self.max_age = msg.new_session.config.max_cached_message_age
            self.session_id = msg.new_session.initialize.session_id or self.session_id
        elif kind == "navigation":  # st.navigation: the page that ran (NewSession's hash is app.py's, the frame)
            self.page_hash = msg.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query_string = msg.page_info_changed.query_string
        elif kind == "script_finished":
            status = msg.script_finished
            if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return  # st.rerun inside the run: the next run's finish ends this rerun
            frags = tuple(msg.metadata.run.fragment_ids)
            self._remove_inactive(frags)
            self.cache.run_finished(self.max_age, frags)
            self.run.status = status
            self.run.fragment_ids = frags
            if self.pending is not None and not self.pending.done():
                self.pending.set_result(self.run)

    def _on_delta(self, delta) -> None:
        which = delta.WhichOneof("type")
        if which == "new_element":
            el = delta.new_element
            kind = el.WhichOneof("type")
            if kind == "exception":
                self.run.exceptions += 1
                return
            sub = getattr(el, kind) if kind else None
            if kind == "bidi_component" and sub.id:
                key = user_key(sub.id)
                if key.startswith(DRAG_RELAY) or key.startswith(LIVE_RELAY):
                    self.run.frames |= '"frames"' in sub.json  # a frames element or the hover relay, with frames
                    if not key.endswith(FRAMES):
                        self.relays[key] = (sub.id, delta.fragment_id)
                elif sub.component_name.endswith(CHART_COMPONENT):
                    self.run.charts += 1
            elif sub is not None and getattr(sub, "id", ""):
                self._widget(kind, sub, delta.fragment_id)

    def _widget(self, kind: str, el, fragment_id: str) -> None:
        """Record a widget's value as the frontend does when it draws it: the value the server set, else the value
        the frontend already holds, else the widget's default. Buttons (triggers) hold no value between runs."""
        wid = el.id
        old = self.widgets.get(wid)
        new = WidgetState(id=wid)
        if kind == "slider":
            if el.set_value:
                values = list(el.value)
            else:
                values = list(old.double_array_value.data) if old else list(el.default)
            new.double_array_value.data.extend(values)
        elif kind in ("selectbox", "radio"):
            if el.set_value and el.HasField("raw_value"):
                new.string_value = el.raw_value
            elif old is not None:
                new.CopyFrom(old)
            elif el.HasField("default") and 0 <= el.default < len(el.options):
                new.string_value = el.options[el.default]
            else:
                return
        elif kind == "text_input":
            if el.set_value:
                new.string_value = el.value
            elif old is not None:
                new.CopyFrom(old)
            else:
                new.string_value = el.default
        else:
            return  # buttons (triggers), expanders never toggled (a browser sends no state for them) and the rest
        self.widgets[wid] = new
        self.widget_fragment[wid] = fragment_id
        self.seen_this_run.add(wid)
        if wid.endswith("-" + SLIDER_KEY):
            self.slider_id, self.slider_fragment = wid, fragment_id
        if kind == "slider" and CELL_SLIDER in user_key(wid):
            self.cell = (user_key(wid), values[0])

    def _remove_inactive(self, fragment_ids: tuple[str, ...]) -> None:
        """Drop the states of widgets the finished run no longer drew (all of them in a full run, those of the rerun
        fragments in a fragment run), as the frontend's removeInactiveWidgetState does."""
        for wid in list(self.widgets):
            if wid in self.seen_this_run:
                continue
            if not fragment_ids or self.widget_fragment.get(wid) in fragment_ids:
                del self.widgets[wid]
                del self.widget_fragment[wid]


# ---- figures -----------------------------------------------------------------------------------------------------
def pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    k = (len(s) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def ms_summary(seconds: list[float]) -> dict:
    ms = [x * 1e3 for x in seconds]
    return {"n": len(ms), "p50_ms": pct(ms, 50), "p95_ms": pct(ms, 95), "p99_ms": pct(ms, 99),
            "max_ms": max(ms) if ms else float("nan"), "mean_ms": statistics.fmean(ms) if ms else float("nan")}


def fmt_ms(s: dict) -> str:
    return (f"p50 {s['p50_ms']:.0f} ms, p95 {s['p95_ms']:.0f} ms, p99 {s['p99_ms']:.0f} ms, max {s['max_ms']:.0f} ms"
            f" (n={s['n']})")


@dataclass
class Meter:
    """Server CPU, proxy CPU, machine CPU and this client's CPU over a window."""
    server: Target
    t0: float = field(init=False)
    cpu0: float = field(init=False)
    mach0: tuple[int, int] = field(init=False)
    own0: float = field(init=False)
    loop0: float = field(init=False)
    proxy0: float = field(init=False)

    def __post_init__(self):
        self.t0, self.cpu0, self.mach0, self.own0 = (time.monotonic(), self.server.cpu_s(), machine_jiffies(),
                                                     own_cpu_s())
        self.loop0 = self.server.cpu_s(main_thread=True)
        self.proxy0 = self.server.proxy_cpu_s()

    def read(self) -> dict:
        wall = time.monotonic() - self.t0
        server = self.server.cpu_s() - self.cpu0
        busy1, total1 = machine_jiffies()
        busy = (busy1 - self.mach0[0]) / CLK
        client = own_cpu_s() - self.own0
        loop = self.server.cpu_s(main_thread=True) - self.loop0
        proxy = self.server.proxy_cpu_s() - self.proxy0
        known = (0.0 if server != server else server) + client + proxy  # server NaN: not measured
        return {"wall_s": wall, "server_cpu_s": server, "server_loop_cpu_s": loop, "client_cpu_s": client,
                "proxy_cpu_s": proxy, "server_cores": server / wall, "client_cores": client / wall,
                "proxy_cores": proxy / wall, "other_cores": max(0.0, busy - known) / wall,
                "machine_busy_cores": busy / wall}


async def sample_rss(server: Target, into: list[float], stop: asyncio.Event, every: float = 0.5) -> None:
    while not stop.is_set():
        into.append(server.mem_mb())
        try:
            await asyncio.wait_for(stop.wait(), every)
        except TimeoutError:
            pass


def server_log_problems(server: Target) -> list[str]:
    return [line for line in server.log_text().splitlines()
            if any(w in line for w in ("Traceback", "Error", "Exception", "WARNING"))]


async def warm_up(host: str, port: int) -> None:
    """One session loads /qkv and moves d_model through every value once: imports, caches and first-run costs
    happen here, not in the measurement."""
    s = Session(port, host)
    await s.open()
    await s.load()
    for v in list(range(DIM_MIN, DIM_MAX + 1)) + [4]:
        if v != s.slider_value():
            _, err = await s.move(v)
            if err:
                raise RuntimeError(f"warm-up move failed: {err}")
    await s.close()


# ---- the modes ---------------------------------------------------------------------------------------------------
async def warm_all(server: Target) -> None:
    await asyncio.gather(*(warm_up(host, port) for host, port in server.warm))


async def load_test(server: Target, n: int, seconds: float, seed: int, replica_header: str = "",
                    settle_s: float = 3.0, after_s: float = 5.0, route_cookie: str = "", hover: bool = False) -> dict:
    """N sessions on server.host:server.port (see the module docstring). With `replica_header`, also which replica
    served each session's connections (the header's value on each), summarised in "replicas". With `route_cookie`,
    "route_keys" holds each session's value of that cookie ("" if it got none), in session order: a proxy's log
    then tells which replica served each session (benchmarks/replicas_load.py). settle_s: pause between the page
    loads and the first moves (RSS "connected"); after_s: pause after closing (RSS "after")."""
    rss_start = server.mem_mb()
    await warm_all(server)
    await asyncio.sleep(2)
    rss_before = server.mem_mb()
    rss_samples: list[float] = []
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample_rss(server, rss_samples, stop))

    sessions = [Session(server.port, server.host, replica_header) for _ in range(n)]
    meter_load = Meter(server)

    async def open_and_load(s: Session):
        await s.open()
        return await s.load()

    loads = await asyncio.gather(*(open_and_load(s) for s in sessions), return_exceptions=True)
    load_cpu = meter_load.read()
    load_errors = [repr(r) for r in loads if isinstance(r, BaseException)]
    live = [s for s, r in zip(sessions, loads) if not isinstance(r, BaseException)]
    await asyncio.sleep(settle_s)  # settle: what N connected idle sessions cost
    rss_connected = server.mem_mb()

    latencies: list[float] = []
    bytes_per_move: list[int] = []
    errors: dict[str, int] = {}
    hovers: list[Run] = []
    meter = Meter(server)
    deadline = time.monotonic() + seconds

    async def student(i: int, s: Session) -> None:
        rng = random.Random(seed * 1000 + i)
        while True:
            think = rng.uniform(1.0, 3.0)
            if time.monotonic() + think >= deadline:
                return  # the next move would come after the end: this student is done
            if hover:  # the pointer passes over the cell slider at some moment of the think time
                first = rng.uniform(0.0, think)
                await asyncio.sleep(first)
                try:
                    run, err = await s.hover()
                except (TimeoutError, ConnectionError) as e:
                    key = "hover " + type(e).__name__
                    errors[key] = errors.get(key, 0) + 1
                    return
                if err:
                    errors["hover: " + err] = errors.get("hover: " + err, 0) + 1
                elif run is not None:
                    hovers.append(run)
                think = max(0.0, think - first - (run.seconds if run is not None else 0.0))
            await asyncio.sleep(think)
            v = rng.choice([x for x in range(DIM_MIN, DIM_MAX + 1) if x != s.slider_value()])
            try:
                run, err = await s.move(v)
            except (TimeoutError, ConnectionError) as e:
                key = type(e).__name__ + (f" {e}" if str(e) else "")
                errors[key] = errors.get(key, 0) + 1
                return  # the session's state is unknown now: it stops
            if err:
                errors[err] = errors.get(err, 0) + 1
            else:
                latencies.append(run.seconds)
                bytes_per_move.append(run.n_bytes)

    await asyncio.gather(*(student(i, s) for i, s in enumerate(live)))
    window = meter.read()
    stop.set()
    await sampler
    await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)  # failed ones too
    await asyncio.sleep(after_s)
    rss_after = server.mem_mb()
    moves = len(latencies)
    n_err = sum(errors.values())
    return {
        "mode": "load", "sessions": n, "seconds": seconds, "post_gc": server.post_gc,
        "replicas": replica_summary([s.replicas for s in sessions]) if replica_header else None,
        "route_keys": [s.cookies.get(route_cookie, "") for s in sessions] if route_cookie else None,
        "initial_load": ms_summary([r.seconds for r in loads if isinstance(r, Run)]),
        "initial_load_errors": load_errors, "load_server_cpu_s": load_cpu["server_cpu_s"],
        "moves": moves, "errors": n_err, "error_kinds": errors,
        "offered_moves_per_s": len(live) / 2.0,  # mean think time 2 s (latency not counted)
        "served_moves_per_s": (moves + n_err) / window["wall_s"],
        "latency": ms_summary(latencies),
        "server_cpu_ms_per_move": window["server_cpu_s"] / max(moves, 1) * 1e3,
        "server_loop_cpu_ms_per_move": window["server_loop_cpu_s"] / max(moves, 1) * 1e3,
        "kb_per_move": statistics.fmean(bytes_per_move) / 1024 if bytes_per_move else float("nan"),
        "hover": {"n": len(hovers), "latency": ms_summary([h.seconds for h in hovers]),
                  "with_frames": sum(h.frames for h in hovers),
                  "charts": statistics.fmean(h.charts for h in hovers) if hovers else float("nan"),
                  "kb": statistics.fmean(h.n_bytes for h in hovers) / 1024 if hovers else float("nan"),
                  "server_cpu_ms_per_event": window["server_cpu_s"] / max(moves + len(hovers), 1) * 1e3}
        if hover else None,
        "window": window,
        "rss_mb": {"server_started": rss_start, "before": rss_before, "connected": rss_connected,
                   "during_max": max(rss_samples, default=float("nan")),
                   "during_mean": statistics.fmean(rss_samples) if rss_samples else float("nan"),
                   "during_last": rss_samples[-1], "after_close_5s": rss_after, "hwm": server.mem_mb("VmHWM")},
        "server_log_problems": server_log_problems(server)[:20],
    }


def replica_summary(connections: list[list[str]]) -> dict:
    """Sessions per replica, and whether every session's connections all went to one replica; `connections`:
    per session, the replica of each of its connections (a response header's value, or a proxy log's upstream).
    A connection whose replica is unknown counts as a replica named "" (so a missing record cannot pass as
    sticky)."""
    per: dict[str, int] = {}
    split = []
    unrecorded = 0
    for i, replicas in enumerate(connections):
        seen = set(replicas)
        if not seen:
            unrecorded += 1  # it failed before its first response (counted among the errors)
        elif len(seen) == 1:
            name = replicas[0]
            per[name] = per.get(name, 0) + 1
        else:
            split.append({"session": i, "connections": list(replicas)})
    return {"sessions_per_replica": dict(sorted(per.items())), "split_sessions": split, "unrecorded": unrecorded,
            "connections_per_session": sorted({len(replicas) for replicas in connections}),
            "all_sticky": not split and not unrecorded and "" not in per}


async def soak(server: Target, n: int) -> dict:
    await warm_all(server)
    s = Session(server.port, server.host)
    await s.open()
    await s.load()
    cycle = [v for v in range(DIM_MIN, DIM_MAX + 1)]
    i = 0

    async def moves(k: int, into: list[float]) -> int:
        nonlocal i
        errs = 0
        for _ in range(k):
            v = cycle[i % len(cycle)]
            i += 1
            if v == s.slider_value():
                v = cycle[i % len(cycle)]
                i += 1
            run, err = await s.move(v)
            if err:
                errs += 1
            else:
                into.append(run.seconds)
        return errs

    warm: list[float] = []
    errors = await moves(2 * len(cycle), warm)  # every d_model twice in this session before the measurement
    await asyncio.sleep(1)
    rss0 = server.mem_mb()
    lat: list[float] = []
    curve = [(0, rss0)]
    meter = Meter(server)
    step = max(1, n // 10)
    done = 0
    while done < n:
        k = min(step, n - done)
        errors += await moves(k, lat)
        done += k
        curve.append((done, server.mem_mb()))
    window = meter.read()
    await asyncio.sleep(1)
    rss_end = server.mem_mb()
    await s.close()
    await asyncio.sleep(5)
    half = [p for p in curve if p[0] >= n / 2]
    slope = _slope(half) * 1000 if len(half) >= 2 else float("nan")
    return {
        "mode": "soak", "reruns": n, "post_gc": server.post_gc, "errors": errors,
        "latency": ms_summary(lat), "server_cpu_ms_per_move": window["server_cpu_s"] / max(len(lat), 1) * 1e3,
        "server_loop_cpu_ms_per_move": window["server_loop_cpu_s"] / max(len(lat), 1) * 1e3,
        "window": window,
        "rss_mb": {"after_warmup": rss0, "end": rss_end, "growth": rss_end - rss0,
                   "slope_second_half_mb_per_1000": slope, "curve": curve, "after_close_5s": server.mem_mb(),
                   "hwm": server.mem_mb("VmHWM")},
        "server_log_problems": server_log_problems(server)[:20],
    }


def _slope(points: list[tuple[int, float]]) -> float:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else float("nan")


async def idle(server: Target, n: int) -> dict:
    await warm_all(server)
    keeper = Session(server.port, server.host)  # stays open: the baseline already holds one session's share
    await keeper.open()
    await keeper.load()
    await asyncio.sleep(3)
    rss0 = server.mem_mb()
    sessions = [Session(server.port, server.host) for _ in range(n)]
    for s in sessions:  # one after another: the figure is memory, not load time
        await s.open()
        await s.load()
    await asyncio.sleep(5)
    rss1 = server.mem_mb()
    await asyncio.gather(*(s.close() for s in sessions + [keeper]), return_exceptions=True)
    await asyncio.sleep(5)
    return {"mode": "idle", "sessions": n, "post_gc": server.post_gc, "rss_mb": {
        "before": rss0, "with_sessions": rss1, "per_session": (rss1 - rss0) / n, "after_close_5s": server.mem_mb()},
        "server_log_problems": server_log_problems(server)[:20]}


# ---- printing ----------------------------------------------------------------------------------------------------
def print_result(r: dict) -> None:
    how = "forced by flag" if r["post_gc_forced"] else "from the app's config.toml / Streamlit's default"
    gc_txt = f"postScriptGC {'on' if r['post_gc'] else 'off'} ({how})"
    if r["post_gc"] is None:
        gc_txt = "servers started elsewhere (their postScriptGC as they were started)"
    if r["mode"] == "load":
        w, m = r["window"], r["rss_mb"]
        print(f"== load: {r['sessions']} sessions, {r['seconds']:.0f} s, think 1-3 s, {gc_txt}")
        print(f"  initial page loads: {fmt_ms(r['initial_load'])}; errors {len(r['initial_load_errors'])}")
        print(f"  slider move -> script_finished: {fmt_ms(r['latency'])}")
        if r.get("hover"):
            h = r["hover"]
            print(f"  hovers over the cell slider (frames asked): {fmt_ms(h['latency'])}; {h['with_frames']} of "
                  f"{h['n']} brought frames; per hover {h['charts']:.1f} charts drawn, {h['kb']:.0f} KB sent; "
                  f"server CPU per move or hover {h['server_cpu_ms_per_event']:.1f} ms")
        print(f"  errors: {r['errors']} {r['error_kinds'] or ''}")
        print(f"  moves served {r['served_moves_per_s']:.1f}/s of ~{r['offered_moves_per_s']:.1f}/s asked;"
              f" {r['kb_per_move']:.0f} KB sent per move")
        print(f"  server CPU per move: {r['server_cpu_ms_per_move']:.1f} ms, of which the event-loop thread"
              f" {r['server_loop_cpu_ms_per_move']:.1f} ms ({w['server_cores']:.2f} cores busy)")
        proxy = f", proxy {w['proxy_cores']:.2f}" if w.get("proxy_cpu_s") else ""
        print(f"  machine: server {w['server_cores']:.2f}{proxy}, this client {w['client_cores']:.2f},"
              f" other processes {w['other_cores']:.2f} cores (of {os.cpu_count()})")
        print(f"  server RSS MB: started {m['server_started']:.0f}, before (after warm-up) {m['before']:.0f},"
              f" {r['sessions']} connected {m['connected']:.0f}, during max {m['during_max']:.0f} / mean"
              f" {m['during_mean']:.0f}, after close +5 s {m['after_close_5s']:.0f}, peak {m['hwm']:.0f}")
        rep = r.get("replicas")
        if rep is not None:
            per = ", ".join(f"{k or '(unknown)'}: {v}" for k, v in rep["sessions_per_replica"].items())
            print(f"  sessions per replica: {per}; connections per session {rep['connections_per_session']}")
            print(f"  every session on one replica (all its connections): {'yes' if rep['all_sticky'] else 'NO'}"
                  f" ({len(rep['split_sessions'])} split, {rep['unrecorded']} without a response)")
            for split in rep["split_sessions"][:5]:
                print(f"    session {split['session']}: {split['connections']}")
    elif r["mode"] == "soak":
        m, w = r["rss_mb"], r["window"]
        print(f"== soak: {r['reruns']} d_model reruns in one session, back to back, {gc_txt}")
        print(f"  latency: {fmt_ms(r['latency'])}; errors {r['errors']}")
        print(f"  server CPU per move: {r['server_cpu_ms_per_move']:.1f} ms, of which the event-loop thread"
              f" {r['server_loop_cpu_ms_per_move']:.1f} ms;"
              f" other processes {w['other_cores']:.2f} cores")
        print(f"  server RSS MB: after warm-up {m['after_warmup']:.1f}, end {m['end']:.1f},"
              f" growth {m['growth']:+.1f} MB; slope over the second half {m['slope_second_half_mb_per_1000']:+.1f}"
              f" MB/1000 reruns; peak {m['hwm']:.0f}")
        print("  RSS curve: " + ", ".join(f"{k}:{v:.0f}" for k, v in m["curve"]))
    else:
        m = r["rss_mb"]
        print(f"== idle: {r['sessions']} sessions open /qkv and sit, {gc_txt}")
        print(f"  server RSS MB: before {m['before']:.1f}, with {r['sessions']} more sessions"
              f" {m['with_sessions']:.1f} -> {m['per_session']:.2f} MB per idle session;"
              f" after close +5 s {m['after_close_5s']:.1f}")
    if r.get("calibration_ms"):
        cpu = r.get("server_cpu_ms_per_move")
        ratio = f"; server CPU per move / calibration {cpu / r['calibration_ms']:.2f}" if cpu else ""
        print(f"  machine speed: a fixed pure-Python workload took {r['calibration_ms']:.1f} ms of CPU after the run"
              f" (calibration_ms){ratio}")
    other = r.get("window", {}).get("other_cores")
    if other is not None and other > 0.2:
        print(f"  WARNING: other processes used {other:.2f} cores during the measurement: the figures are not clean")
    if r["server_log_problems"]:
        print("  server log:", *r["server_log_problems"][:5], sep="\n    ")


def calibration_ms(rounds: int = 7) -> float:
    """This machine's speed now: the median CPU time (ms) of a fixed pure-Python workload like the server's (building
    small nested lists and dicts, JSON-encoding them), run in this process while nothing else of the benchmark runs.
    The machine's speed drifts through the day (the same commit measured 29.6 and 68.9 ms of server CPU a move on two
    days, docs/load.md): a figure divided by the calibration of its own run can be compared across days."""
    def work() -> int:
        out = []
        for i in range(3000):
            cells = [[(i * j + k) % 7 / 3 for j in range(8)] for k in range(4)]
            out.append(json.dumps({"z": cells, "text": [f"{i}:{j}" for j in range(8)], "shape": [4, 8]}))
        return len(out)

    times = []
    for _ in range(rounds):
        t0 = time.process_time()
        work()
        times.append((time.process_time() - t0) * 1e3)
    return statistics.median(times)


def host_port(url: str) -> tuple[str, int]:
    """'http://127.0.0.1:8790' (or '127.0.0.1:8790') -> ('127.0.0.1', 8790)."""
    u = urllib.parse.urlsplit(url if "//" in url else "//" + url)
    if not u.hostname or not u.port or u.scheme not in ("", "http") or u.path not in ("", "/"):
        sys.exit(f"not an http://host:port address: {url!r}")
    return u.hostname, u.port


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=None, help="concurrent sessions (default 40 unless only "
                    "--soak/--idle is given)")
    ap.add_argument("--seconds", type=float, default=60.0, help="moving phase of the load test (default 60)")
    ap.add_argument("--soak", type=int, default=0, metavar="N", help="N reruns in one session, memory growth")
    ap.add_argument("--idle", type=int, default=0, metavar="N", help="RSS per idle session over N sessions")
    gc = ap.add_mutually_exclusive_group()
    gc.add_argument("--no-post-gc", dest="post_gc", action="store_false", default=None,
                    help="server with --runner.postScriptGC false (no gc.collect(2) after every run)")
    gc.add_argument("--post-gc", dest="post_gc", action="store_true", help="server with --runner.postScriptGC true")
    ap.add_argument("--port", type=int, default=None, help="the server's port (default: the first free one in"
                    " 8620-8639)")
    ap.add_argument("--url", default="", help="talk to a server already running at this http://host:port instead of"
                    " starting one (e.g. replicas behind nginx: benchmarks/replicas_load.py); every mode then runs on"
                    " it, not on a fresh server")
    ap.add_argument("--server-pid", type=int, action="append", default=[], metavar="PID", help="with --url: a server"
                    " process whose CPU and RSS are measured (repeat for several replicas; none: not measured)")
    ap.add_argument("--warm", action="append", default=[], metavar="URL", help="with --url: warm up this server"
                    " directly instead of --url (repeat for each replica)")
    ap.add_argument("--replica-header", default="", metavar="NAME", help="record this response header, for a"
                    " proxy that names the replica in one, on every connection of every session: sessions per"
                    " replica, stickiness (deploy/nginx.conf sends none: benchmarks/replicas_load.py reads its log)")
    ap.add_argument("--app-dir", type=Path, default=ROOT, help="run app.py of this tree (e.g. an export of a commit:"
                    " `git archive HEAD | tar -x -C DIR`) with this checkout's .venv; default: this checkout")
    ap.add_argument("--quiet-wait", type=float, default=0.0, metavar="S", help="before each mode wait up to S seconds"
                    " until other processes use < 0.15 cores (default 0: start at once, just report the load)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hover", action="store_true", help="load test: in each think time every student's pointer also "
                    "passes over the cell slider once (its frames asked for: ui/drag.py, ui.preview.HOVER_SHARE_S)")
    ap.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = ap.parse_args()
    if not (ROOT / ".venv/bin/python").exists():
        sys.exit("no .venv: run `make install-dev` first")
    sessions = args.sessions if args.sessions is not None else (0 if (args.soak or args.idle) else 40)
    if sessions < 0 or args.seconds <= 0 or args.seconds > 3600 or args.soak < 0 or args.idle < 0:
        sys.exit("bad arguments: sessions/soak/idle >= 0, 0 < seconds <= 3600")
    remote = None
    if args.url:
        if args.post_gc is not None or args.port or args.app_dir != ROOT:
            sys.exit("--url talks to a running server: --post-gc/--no-post-gc/--port/--app-dir do not apply")
        host, port = host_port(args.url)
        remote = Remote(host, port, args.server_pid, [host_port(u) for u in args.warm] or None)
    elif args.server_pid or args.warm:
        sys.exit("--server-pid and --warm need --url")
    modes = []
    if sessions:
        modes.append(("load", lambda srv: load_test(srv, sessions, args.seconds, args.seed, args.replica_header,
                                                    hover=args.hover)))
    if args.soak:
        modes.append(("soak", lambda srv: soak(srv, args.soak)))
    if args.idle:
        modes.append(("idle", lambda srv: idle(srv, args.idle)))
    results = []
    for _, run in modes:
        before = wait_quiet(args.quiet_wait) if args.quiet_wait else None
        if remote is not None:
            server = remote
            r = asyncio.run(run(server))
        else:
            server = Server(free_port(args.port), post_gc=args.post_gc, app_dir=args.app_dir.resolve())
            try:
                server.start()
                r = asyncio.run(run(server))
            finally:
                server.stop()
            r["server_log"] = server.log.name
            r["app_dir"] = str(args.app_dir.resolve())
        r["other_cores_before"] = before
        r["post_gc_forced"] = server.forced
        r["calibration_ms"] = calibration_ms()
        print_result(r)
        results.append(r)
        sys.stdout.flush()
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
