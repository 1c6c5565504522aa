"""Browser latency of a slider move on the Q·K·V page, next to a minimal page measured in the same run (issue 8).

What is measured, in headless Chromium (Debian's /usr/bin/chromium, driven by Playwright; never downloaded):
  * move latency — from the key press on a slider to the moment the weights heatmap's DOM shows new numbers:
    exactly ONE copy of that chart shown (a page caught mid-rerun can hold two; a zero-size, hidden or transparent
    copy is not shown), fully drawn (heatmap image and every cell text), its cell texts different from those
    before the press. Both ends are taken with the
    page's own clock (performance.now()): a capture-phase keydown listener stamps the press, a MutationObserver
    stamps the DOM change (a requestAnimationFrame loop checks too). The chart is found by its title (contains
    "softmax(QK"; the minimal page's only chart has none), in the document and in any shadow root (attachShadow
    is hooked), so another rendering path is measured the same way.
  * flash — whether, in any animation frame between press and done, the weights chart was missing (no copy
    shown), half drawn or doubled (two copies shown), and for how long (sum of those frames' durations); a frame
    still showing the old numbers is not a flash;
  * remounted — whether the chart's plot element after the move is a new one (the old one is tagged at the press);
  * bytes/move — websocket payload the server sent for the move (Playwright's framereceived), summed from the
    press until the run is over (app idle, no frame for QUIET_S): the whole rerun's reply, not only what arrived
    before the weights changed;
  * server CPU/move — user + system CPU of the serving streamlit process over the same span (/proc, 10 ms ticks);
  * first paint — navigation → first complete weights heatmap of /qkv vs the minimal page's first heatmap, each in
    a fresh browser context, median of --first-paint loads. The very first load after the servers start (cold)
    is reported on its own line, not in the median.

Cases: the minimal page (benchmarks/minimal_app.py: one slider, one 3×3 heatmap with numbers); /qkv with the
default 3 tokens (犬 が 歩く), the one-cell slider (its label starts with the matrix name, "X …") and the d_k
slider; /qkv opened from a link with 16 tokens and d_model = d_k = d_v = 16, the same two sliders; /multihead (its
hand-set example, 4 tokens, d_model 8, 2 heads) with its one-cell slider, timed to head 1's weights; /training (its
default setup, trained once and cached) with its step slider, timed to the chosen example's weights at that step.
Each case has its own browser page (own session). Moves run round-robin, one move per case per round, each from an
idle app, so drift in machine load hits all cases alike.

Keys: --sweep presses of one arrow key, as many of the other back, and again (the first sweep towards the farther
end), so values stay in range. Not plain alternation (--sweep 1): Streamlit sends an element of ≥ 10 kB that the
browser got in one of its last 2 runs as a reference to the browser's cache (global.minCachedMessageSize,
maxCachedMessageAge), so flipping between two values counts the bytes of a revisit, not of a move to new numbers
(at 16 tokens ~17 kB instead of ~140 kB).

The app and the minimal page run as two `streamlit run` servers on free loopback ports in 8610–8619, stopped at
the end whatever happens; their logs stay in a temporary folder named at the start. With the defaults the run
takes about 5–8 minutes on a 2-core machine.

Usage:  .venv/bin/python benchmarks/browser_latency.py [--moves 30] [--first-paint 5] [--sweep 10] [--quick]
        [--app-dir DIR] [--baseline-dir DIR] [--json out.json]
--app-dir serves another copy of the app with this checkout's .venv, e.g. a commit exported with
`git archive <commit> | tar -x -C /tmp/before` (a before/after pair without touching the work tree).
--baseline-dir serves a second copy next to it and measures its /qkv cases in the same rounds ("(baseline)" rows):
the fairest before/after on a machine whose load drifts.

"all charts redrawn" is press → the last change inside any chart of the page (read once the app is at rest): what a
student waits for until every chart, not only the weights, shows the new numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlparse

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
MINIMAL_APP = Path(__file__).resolve().parent / "minimal_app.py"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic", "--disable-renderer-backgrounding",
                 "--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows"]
VIEWPORT = {"width": 1400, "height": 1000}
PORTS = range(8610, 8620)
HEAD1_TITLE = "ヘッド 1 の重み"  # the multi-head page's first head (Japanese, the default language)
WEIGHTS_TITLE = "softmax(QK"  # both languages: "Attention weights softmax(QKᵀ/√d_k)", "アテンションの重み softmax(…)"
APP_IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
QUIET_S = 0.4  # a run is over when the app is idle and no websocket frame came for this long
CELL_SLIDER = r"^X\W"  # "X, row 1, column 1" / "X の 1 行 1 列の値"
DK_SLIDER = r"^d_k(\W|$)"
TRAINING_STEP = r"^学習ステップ(?!数)"  # the training lab's step slider (Japanese, the default language)
TRAINING_TITLE = "のアテンションの重み"  # "ステップ k のアテンションの重み": the chosen example's weights at step k
LINK16 = "/qkv?" + urlencode({"v": 1, "p": "custom", "t": "a b c d e f g h i j k l m n o p", "dm": 16, "dk": 16,
                              "dv": 16, "s": 0, "m": "xw", "q": 0})

# Injected into every page before its own scripts. window.__bench.w is the current watch, from t0 (the key press;
# 0 = navigation start for first paint) to done: exactly one copy of the target chart is shown, fully drawn, with
# cell texts other than `before` (null: any). A MutationObserver looks at the DOM alone and reads layout only once
# a complete new copy exists (forced layouts in the middle of a rerun would slow the page being measured); the
# requestAnimationFrame loop reads layout every frame, to classify what that frame shows: "missing" (no copy
# shown), "doubled" (two shown) or "half" (one shown, not fully drawn). Shown: a layout box, not hidden, opacity
# above 0 (Streamlit keeps a replaced chart in the DOM for a while as a hidden, zero-size "stale" element).
PROBE_JS = r"""
(() => {
  const TITLE = __TITLE__;
  const WATCH = {childList: true, subtree: true, characterData: true};
  const roots = [document];
  const B = window.__bench = {w: null, mark: 0, observer: null};
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attach.call(this, init);
    roots.push(root);
    if (B.w && B.w.done === null) B.observer.observe(root, WATCH);
    return root;
  };

  function charts() {
    const out = [];
    for (const r of roots) for (const p of r.querySelectorAll('.js-plotly-plot')) {
      const title = p.querySelector('.gtitle');
      if (TITLE === null || (title && title.textContent.includes(TITLE))) out.push(p);
    }
    return out;
  }
  const texts = p => [...p.querySelectorAll('.heatmap-label text')].map(t => t.textContent);
  function complete(p, n) {
    const k = p.querySelectorAll('.heatmap-label text').length;
    return !!p.querySelector('.hm image') && k > 0 && (n === null || k === n);
  }
  function shown(p) {
    if (!p.checkVisibility({opacityProperty: true, visibilityProperty: true})) return false;
    const r = p.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }

  // the last change inside any chart since the press: when the whole page's charts are redrawn ("settled")
  new MutationObserver((records) => {
    if (B.w && B.w.t0 !== null && records.some(r => r.target.closest && r.target.closest('.js-plotly-plot')))
      B.w.settled = performance.now();
  }).observe(document, WATCH);

  function finish(w, now, el) {
    if (w.badSince !== null) w.flashMs += now - w.badSince;
    w.done = now;
    w.remounted = el.__benchMark !== w.mark;
    B.observer.disconnect();
  }

  function check(now, frame) {
    const w = B.w;
    if (!w || w.done !== null || w.t0 === null) return;
    const all = charts();
    const fresh = all.filter(p => complete(p, w.n) && texts(p).join('|') !== w.before);
    if (!frame && fresh.length === 0) return;  // nothing new yet: no layout read
    const seen = all.filter(shown);
    if (seen.length === 1 && fresh.includes(seen[0])) return finish(w, now, seen[0]);
    if (!frame) return;
    const bad = seen.length === 0 ? 'missing' : seen.length > 1 ? 'doubled' : complete(seen[0], w.n) ? null : 'half';
    if (bad) {
      w.kinds[bad] = true;
      if (w.badSince === null) w.badSince = now;
    } else if (w.badSince !== null) {
      w.flashMs += now - w.badSince;
      w.badSince = null;
    }
  }

  function watch(before, n, t0) {
    B.w = {before, n, t0, done: null, settled: null, kinds: {}, flashMs: 0, badSince: null, remounted: null,
           mark: B.mark};
    B.observer = B.observer || new MutationObserver(() => check(performance.now(), false));
    for (const r of roots) B.observer.observe(r, WATCH);
    const w = B.w;
    const tick = () => {
      if (B.w !== w || w.done !== null) return;
      check(performance.now(), true);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }

  B.state = () => {
    const all = charts();
    return `${all.length} target chart(s) in the DOM, ${all.filter(shown).length} shown, ` +
           `${all.filter(p => complete(p, null)).length} fully drawn`;
  };
  B.arm = () => {
    const seen = charts().filter(shown);
    if (seen.length !== 1 || !complete(seen[0], null)) throw new Error(`not at rest: ${B.state()}`);
    seen[0].__benchMark = ++B.mark;
    const before = texts(seen[0]);
    watch(before.join('|'), before.length, null);
  };
  B.result = () => {
    const w = B.w;
    return {t0: w.t0, done: w.done, settled: w.settled, kinds: Object.keys(w.kinds), flashMs: w.flashMs,
            remounted: w.remounted};
  };
  window.addEventListener('keydown', () => { if (B.w && B.w.t0 === null) B.w.t0 = performance.now(); }, true);
  watch(null, null, 0);  // first paint: navigation start → first complete chart
})();
"""


# ---- servers -------------------------------------------------------------------------------------------------------
def free_ports(n: int) -> list[int]:
    """The first n ports of PORTS nobody listens on (127.0.0.1)."""
    found = []
    for port in PORTS:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        found.append(port)
        if len(found) == n:
            return found
    raise SystemExit(f"need {n} free ports in {PORTS.start}-{PORTS.stop - 1}, found {found}")


def python() -> str:
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


@dataclass
class Server:
    script: str
    port: int
    proc: subprocess.Popen
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cpu_s(self) -> float:
        """User + system CPU seconds the server process has used so far."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def streamlit_server(script: str, port: int, log_dir: Path, cwd: Path):
    """`streamlit run script` in cwd (its .streamlit/config.toml applies) on 127.0.0.1:port until healthy;
    stopped when the block ends."""
    log = log_dir / f"{Path(script).stem}.log"
    cmd = [python(), "-m", "streamlit", "run", script, "--server.port", str(port), "--server.headless", "true",
           "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
    server = Server(script, port, proc, log)
    try:
        wait_healthy(server)
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def wait_healthy(server: Server, timeout_s: float = 60) -> None:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, never via a proxy
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise SystemExit(f"{server.script} exited ({server.proc.returncode}):\n{server.log.read_text()[-3000:]}")
        try:
            with opener.open(f"{server.url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.25)
    raise SystemExit(f"{server.script} not healthy after {timeout_s:g}s:\n{server.log.read_text()[-3000:]}")


# ---- one browser page per case --------------------------------------------------------------------------------------
@dataclass
class Case:
    name: str
    server: str  # "app" or "minimal"
    path: str
    slider: str  # regex on the slider's accessible name
    title: str | None  # substring of the target chart's title; None: the page's only chart
    page: object = None
    ws_bytes: list = field(default_factory=lambda: [0])
    key: str | None = None  # the arrow key of the current sweep
    keys_left: int = 0  # presses left in the current sweep
    ms: list = field(default_factory=list)
    settled_ms: list = field(default_factory=list)  # press → the last change in any chart (all charts redrawn)
    flash_ms: list = field(default_factory=list)  # one per move: 0.0 when no frame was bad
    kinds: list = field(default_factory=list)  # one per move: the kinds of bad frames seen ("missing", …)
    remounted: list = field(default_factory=list)
    bytes: list = field(default_factory=list)
    cpu_ms: list = field(default_factory=list)
    timeouts: int = 0


CASES = [
    ("minimal page", "minimal", "/", r"^value(\W|$)", None),
    ("/qkv 3 tokens, cell slider", "app", "/qkv", CELL_SLIDER, WEIGHTS_TITLE),
    ("/qkv 3 tokens, d_k slider", "app", "/qkv", DK_SLIDER, WEIGHTS_TITLE),
    ("/qkv 16 tokens (16/16/16), cell slider", "app", LINK16, CELL_SLIDER, WEIGHTS_TITLE),
    ("/qkv 16 tokens, d_k slider", "app", LINK16, DK_SLIDER, WEIGHTS_TITLE),
    ("/multihead 4 tokens, cell slider", "app", "/multihead", CELL_SLIDER, HEAD1_TITLE),
    ("/training step slider", "app", "/training", TRAINING_STEP, TRAINING_TITLE),
]


def _has_page(app_dir: Path, path: str) -> bool:
    """Whether the app in ``app_dir`` has the lesson page of ``path`` (a baseline older than a lesson has none)."""
    page = urlparse(path).path.strip("/")
    return not page or (app_dir / "lesson_pages" / f"{page}.py").exists()


def probe(title: str | None) -> str:
    return PROBE_JS.replace("__TITLE__", json.dumps(title))


def new_page(browser, title: str | None, ws_bytes: list | None = None):
    """A fresh context and page with the probe installed; websocket payload bytes are added to ws_bytes[0]."""
    page = browser.new_context(viewport=VIEWPORT).new_page()
    page.add_init_script(probe(title))
    if ws_bytes is not None:
        def count(payload):
            ws_bytes[0] += len(payload)
        page.on("websocket", lambda ws: ws.on("framereceived", count))
    return page


def wait_done(page, timeout_s: float) -> dict | None:
    """The probe's result once its watch is done; None after timeout_s."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function("() => window.__bench && window.__bench.w.done !== null", polling=50,
                               timeout=timeout_s * 1000)
    except PlaywrightTimeout:
        return None
    return page.evaluate("window.__bench.result()")


def wait_rest(case: Case, timeout_s: float = 30) -> None:
    """Until the app is idle and no websocket frame arrived for QUIET_S."""
    page = case.page
    deadline = time.monotonic() + timeout_s
    seen, since = case.ws_bytes[0], time.monotonic()
    while time.monotonic() < deadline:
        page.wait_for_timeout(50)
        if case.ws_bytes[0] != seen:
            seen, since = case.ws_bytes[0], time.monotonic()
        elif time.monotonic() - since >= QUIET_S and page.locator(APP_IDLE).count() == 1:
            return
    raise SystemExit(f"{case.name}: the app did not come to rest within {timeout_s:g}s")


def open_case(browser, case: Case, base: str) -> None:
    case.page = new_page(browser, case.title, case.ws_bytes)
    case.page.goto(base + case.path)
    if wait_done(case.page, 90) is None:
        raise SystemExit(f"{case.name}: no complete target chart within 90 s of opening {base + case.path}: "
                         f"{case.page.evaluate('window.__bench.state()')}")
    wait_rest(case)
    if case.page.evaluate("document.visibilityState") != "visible":
        raise SystemExit(f"{case.name}: the page is not visible (its frames would be throttled)")
    thumb(case)  # fails early when the slider is not there


def thumb(case: Case):
    """The slider's thumb (the <input type=range> react-aria renders), found anew: a rerun may remount it."""
    sliders = case.page.get_by_role("slider", name=re.compile(case.slider))
    if sliders.count() != 1:
        raise SystemExit(f"{case.name}: {sliders.count()} sliders whose name matches {case.slider!r}")
    return sliders


def next_key(case: Case, slider, sweep: int) -> str:
    """`sweep` presses of one arrow key, then as many of the other; the first sweep towards the farther end."""
    if case.keys_left == 0:
        if case.key is None:
            v = float(slider.input_value())
            lo, hi, step = (float(slider.get_attribute(a)) for a in ("min", "max", "step"))
            case.key = "ArrowRight" if hi - v >= v - lo else "ArrowLeft"
            room = round(max(hi - v, v - lo) / step)
            if room < sweep:
                raise SystemExit(f"{case.name}: the slider has room for {room} steps, --sweep is {sweep}")
        else:
            case.key = "ArrowLeft" if case.key == "ArrowRight" else "ArrowRight"
        case.keys_left = sweep
    case.keys_left -= 1
    return case.key


def move(case: Case, server: Server, timeout_s: float, sweep: int) -> None:
    """One key press on the case's slider, measured; the page is at rest again when this returns."""
    slider = thumb(case)
    slider.focus()
    key = next_key(case, slider, sweep)
    value = slider.input_value()
    bytes0, cpu0 = case.ws_bytes[0], server.cpu_s()
    case.page.evaluate("window.__bench.arm()")
    case.page.keyboard.press(key)
    res = wait_done(case.page, timeout_s)
    wait_rest(case)
    if res is None or res["t0"] is None:
        case.timeouts += 1
        print(f"  {case.name}: no new weights within {timeout_s:g}s ({key}, value {value} → "
              f"{thumb(case).input_value()})", file=sys.stderr)
        return
    case.ms.append(res["done"] - res["t0"])
    settled = case.page.evaluate("window.__bench.result().settled")  # read after the rest: the last redraw
    case.settled_ms.append(max(settled or res["done"], res["done"]) - res["t0"])
    case.flash_ms.append(res["flashMs"] if res["kinds"] else 0.0)
    case.kinds.append(sorted(res["kinds"]))
    case.remounted.append(bool(res["remounted"]))
    case.bytes.append(case.ws_bytes[0] - bytes0)
    case.cpu_ms.append((server.cpu_s() - cpu0) * 1e3)


# ---- first paint ----------------------------------------------------------------------------------------------------
def first_paint(browser, url: str, title: str | None, logs: Path) -> float:
    """ms from navigation start to the first complete target chart, in a fresh context."""
    page = new_page(browser, title)
    try:
        page.goto(url)
        res = wait_done(page, 90)
        if res is None:
            shot = logs / "first_paint_failed.png"
            page.screenshot(path=str(shot), full_page=True)
            raise SystemExit(f"no complete chart within 90 s of opening {url}: "
                             f"{page.evaluate('window.__bench.state()')}; screenshot {shot}")
        return res["done"]
    finally:
        page.context.close()


def first_paints(browser, servers: dict[str, Server], repeats: int, logs: Path) -> dict[str, list[float]]:
    """Alternating loads of /qkv and the minimal page; the first of each (cold server) is kept apart."""
    out = {name: [] for name in servers}
    for _ in range(repeats + 1):
        for name, server in servers.items():
            out[name].append(first_paint(browser, server.url + ("/" if name == "minimal" else "/qkv"),
                                         None if name == "minimal" else WEIGHTS_TITLE, logs))
    return out


# ---- report ---------------------------------------------------------------------------------------------------------
def p95(xs) -> float:
    return float(np.percentile(xs, 95))


def fmt_ms(ms: float) -> str:
    return f"{ms:.0f} ms"


def fmt_bytes(n: float) -> str:
    return f"{n / 1024:.1f} kB" if n >= 1024 else f"{n:.0f} B"


FLASH_KINDS = ("missing", "half", "doubled")


def flash_cells(case: Case) -> str:
    """'moves with a bad frame, median length | moves with each kind of bad frame'."""
    hit = [f for f, k in zip(case.flash_ms, case.kinds) if k]
    n = len(case.kinds)
    length = f", {statistics.median(hit):.0f} ms" if hit else ""
    kinds = " / ".join(str(sum(kind in k for k in case.kinds)) for kind in FLASH_KINDS)
    return f"{len(hit)}/{n}{length} | {kinds}"


def table(cases: list[Case], paints: dict[str, list[float]]) -> str:
    base = statistics.median(cases[0].ms)
    rows = ["| case | median | p95 | × minimal | all charts redrawn (median) | flash (moves, median length) "
            "| missing / half drawn / doubled | remounted | bytes/move | server CPU/move |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for c in cases:
        med = statistics.median(c.ms)
        rows.append(f"| {c.name} | {fmt_ms(med)} | {fmt_ms(p95(c.ms))} | {med / base:.1f} "
                    f"| {fmt_ms(statistics.median(c.settled_ms))} | {flash_cells(c)} "
                    f"| {sum(c.remounted)}/{len(c.remounted)} | {fmt_bytes(statistics.median(c.bytes))} "
                    f"| {fmt_ms(statistics.median(c.cpu_ms))} |")
    app, mini = (statistics.median(paints[k][1:]) for k in ("app", "minimal"))
    n = len(paints["app"]) - 1
    rows.append(f"| first paint (navigation → first weights heatmap with numbers), median of {n} "
                f"| {app / 1e3:.2f} s vs {mini / 1e3:.2f} s | | {app / mini:.1f} | | | | | | |")
    cold_app, cold_min = paints["app"][0], paints["minimal"][0]
    rows.append(f"| first paint, cold server (first load after start) | {cold_app / 1e3:.2f} s vs "
                f"{cold_min / 1e3:.2f} s | | {cold_app / cold_min:.1f} | | | | | | |")
    if "baseline" in paints:
        base_app = statistics.median(paints["baseline"][1:])
        rows.append(f"| first paint (baseline), median of {n} | {base_app / 1e3:.2f} s vs {mini / 1e3:.2f} s "
                    f"| | {base_app / mini:.1f} | | | | | | |")
    return "\n".join(rows)


def summary(cases: list[Case], paints: dict[str, list[float]]) -> dict:
    keys = ("ms", "settled_ms", "flash_ms", "kinds", "remounted", "bytes", "cpu_ms", "timeouts")
    return {"cases": {c.name: {k: getattr(c, k) for k in keys} for c in cases},
            "first_paint_ms": paints}


# ---- drag mode (--drag N): a mouse drag on the one-cell slider ------------------------------------------------------
# Recorded in the page from the first pointer move until the app is at rest after the release: every change of the
# thumb's value (the range input react-aria keeps, read every animation frame and on every DOM change) and of the
# weights heatmap's cell texts (the one shown copy; a DOM change is seen at once by a MutationObserver).
DRAG_PROBE_JS = r"""([title, input]) => {
  const D = window.__drag = {log: [], up: null, on: true};
  const chart = () => {
    for (const p of document.querySelectorAll('.js-plotly-plot')) {
      const t = p.querySelector('.gtitle');
      if (t && t.textContent.includes(title) && p.checkVisibility()) return p;
    }
    return null;
  };
  let lastV = null, lastW = null, lastX = null;
  const cell = () => {  // the edited cell's number: X's first cell (the cell slider's default cell)
    const t = document.querySelector('.st-key-qkv-fig-X .heatmap-label text');
    return t ? t.textContent : '';
  };
  const check = () => {
    if (!D.on) return;
    const p = chart();
    const v = input.value;
    const w = p ? [...p.querySelectorAll('.heatmap-label text')].map(t => t.textContent).join('|') : '';
    const x = cell();
    if (v !== lastV || w !== lastW || x !== lastX) {
      D.log.push([performance.now(), v, w, x]); lastV = v; lastW = w; lastX = x;
    }
  };
  D.mo = new MutationObserver(check);
  D.mo.observe(document, {childList: true, subtree: true, characterData: true, attributes: true});
  const tick = () => { if (D.on) { check(); requestAnimationFrame(tick); } };
  requestAnimationFrame(tick);
  window.addEventListener('pointerup', () => { if (D.up === null) D.up = performance.now(); }, {capture: true});
  D.stop = () => { D.on = false; D.mo.disconnect(); return {log: D.log, up: D.up}; };
}"""
DRAG_CASES = [c for c in CASES if c[0].startswith("/qkv") and c[3] == CELL_SLIDER]
DRAG_STEPS = 30  # slider steps (0.1 each) one drag covers
DRAG_MOVES = 45  # pointer moves per drag, DRAG_MOVE_MS apart (a 1.5 s drag, ~20 steps a second)
DRAG_MOVE_MS = 0
DWELL_MS = 400  # the pointer rests on the thumb this long before the press (both servers alike)


@dataclass
class DragCase:
    case: Case
    texts: dict = field(default_factory=dict)  # thumb value (text) -> the weights' cell texts at rest
    lag_ms: list = field(default_factory=list)  # per thumb value passed: until the weights show it (or a later one)
    release_ms: list = field(default_factory=list)  # per drag: release -> the released value's weights on screen
    rate: list = field(default_factory=list)  # per drag: weights updates a second while the pointer moved
    cell_lag_ms: list = field(default_factory=list)  # per thumb value passed: until the edited cell shows it
    cell_rate: list = field(default_factory=list)  # per drag: the edited cell's number changes a second
    thumb_rate: list = field(default_factory=list)  # per drag: the thumb's new values a second (the most there can be)
    ambiguous: int = 0  # thumb values whose weights read the same as another value's (2 decimals)


def weights_texts(page, title: str) -> str:
    return page.evaluate("""(title) => { for (const p of document.querySelectorAll('.js-plotly-plot')) {
        const t = p.querySelector('.gtitle');
        if (t && t.textContent.includes(title) && p.checkVisibility())
          return [...p.querySelectorAll('.heatmap-label text')].map(t => t.textContent).join('|'); } return null; }""",
                         title)


def learn_back(dc: DragCase, to: str) -> None:
    """Arrow presses from the thumb's value back to ``to``, noting the weights' texts of each value on the way (and of
    the value it starts from), read at rest; a value already known is passed without waiting."""
    case = dc.case
    for _ in range(4 * DRAG_STEPS):
        slider = thumb(case)
        v = slider.input_value()
        if v not in dc.texts:
            wait_rest(case)
            v = slider.input_value()
            dc.texts[v] = weights_texts(case.page, case.title)
        if float(v) == float(to):
            wait_rest(case)
            if thumb(case).input_value() == v:
                return
            continue
        slider.focus()
        case.page.keyboard.press("ArrowLeft" if float(v) > float(to) else "ArrowRight")
        case.page.wait_for_timeout(150)
    raise SystemExit(f"{case.name}: the thumb did not come back to {to}")


def cell_text(v: float) -> str:
    """A heatmap cell's number as the app writes it (ui.numbers.cell, 2 decimals)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from ui.numbers import cell
    return cell(v)


def drag_once(dc: DragCase) -> None:
    """One drag of the thumb by DRAG_STEPS steps towards the farther end (DRAG_MOVES pointer moves), measured; the
    thumb is brought back with arrow presses (which also learn each value's weights) afterwards."""
    case, page = dc.case, dc.case.page
    slider = thumb(case)
    slider.scroll_into_view_if_needed()
    start = slider.input_value()
    lo, hi, step = (float(slider.get_attribute(a)) for a in ("min", "max", "step"))
    v0 = float(start)
    sign = 1 if hi - v0 >= v0 - lo else -1
    knob = slider.locator("xpath=../..").bounding_box()  # the thumb (input → its hidden wrapper → the thumb)
    track = slider.locator("xpath=../../..").bounding_box()
    dx = sign * DRAG_STEPS * step / (hi - lo) * track["width"] / DRAG_MOVES
    x0, y0 = knob["x"] + knob["width"] / 2, knob["y"] + knob["height"] / 2
    before = weights_texts(page, case.title)
    page.evaluate(DRAG_PROBE_JS, [case.title, slider.element_handle()])
    page.mouse.move(x0, y0)
    page.wait_for_timeout(DWELL_MS)  # a hand comes to rest on the thumb before it presses
    page.mouse.down()
    for i in range(1, DRAG_MOVES + 1):
        page.mouse.move(x0 + dx * i, y0)
        page.wait_for_timeout(DRAG_MOVE_MS)
    page.mouse.up()
    # the weights change at the latest with the release's run (which a loaded machine may start only after a pause
    # longer than wait_rest's quiet time)
    page.wait_for_function("""([title, before]) => { for (const p of document.querySelectorAll('.js-plotly-plot')) {
        const t = p.querySelector('.gtitle');
        if (t && t.textContent.includes(title) && p.checkVisibility())
          return [...p.querySelectorAll('.heatmap-label text')].map(t => t.textContent).join('|') !== before; }
        return false; }""", arg=[case.title, before], polling=50, timeout=120_000)
    wait_rest(case)
    page.wait_for_timeout(300)
    rec = page.evaluate("window.__drag.stop()")
    end = thumb(case).input_value()
    learn_back(dc, start)
    log, up = rec["log"], rec["up"]
    # the thumb's values in drag order, when each was first shown; the weights' states, when each began
    order, when = [], {}
    for t, v, *_ in log:
        if v not in when and (up is None or t <= up):
            when[v] = t
            order.append(v)
    if end not in when:
        when[end], order = up, order + [end]
    index = {v: k for k, v in enumerate(order)}
    shown = [(t, max((index[v] for v in order if dc.texts.get(v) == w), default=-1)) for t, _, w, _ in log]
    # the edited cell (X's first) reads the thumb's value itself: no ambiguity, no learning needed
    for v in order[1:]:
        want = cell_text(float(v))
        caught = next((t for t, _, _, x in log if t >= when[v] and x == want), None)
        dc.cell_lag_ms.append((caught if caught is not None else log[-1][0]) - when[v])
    same = {v for v in order if sum(dc.texts.get(u) == dc.texts.get(v) for u in order) > 1}
    dc.ambiguous += len(same)
    for v in order[1:]:
        k, t_v = index[v], when[v]
        caught = next((t for t, j in shown if t >= t_v and j >= k), None)
        dc.lag_ms.append((caught if caught is not None else log[-1][0]) - t_v)
    final = dc.texts[end]
    settled = max((t for t, _, w, _ in log if w != final), default=up)  # the last moment the weights were not final
    later = [t for t, _, w, _ in log if w == final and t >= settled]
    dc.release_ms.append(max((later[0] if later else log[-1][0]) - up, 0.0))
    t_first = when[order[1]] if len(order) > 1 else up
    changes = sum(1 for (t, _, w, _), (_, _, w0, _) in zip(log[1:], log) if w != w0 and t_first <= t <= up and w in
                  dc.texts.values())
    dc.rate.append(changes / max((up - t_first) / 1e3, 1e-3))
    cells = sum(1 for (t, _, _, x), (_, _, _, x0) in zip(log[1:], log) if x != x0 and t_first <= t <= up)
    dc.cell_rate.append(cells / max((up - t_first) / 1e3, 1e-3))
    dc.thumb_rate.append((len([v for v in order[1:] if when[v] <= up]) - 1) / max((up - t_first) / 1e3, 1e-3))


def drag_table(dcs: list[DragCase]) -> str:
    rows = ["| case | drags | thumb → weights lag, median | p95 | weights updates/s during the drag (median) "
            "| thumb → edited cell lag, median | p95 | edited cell updates/s (median) | thumb values/s (median) "
            "| release → final weights, median | p95 | key press → weights, median |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for dc in dcs:
        keys = fmt_ms(statistics.median(dc.case.ms)) if dc.case.ms else "-"
        rows.append(f"| {dc.case.name} | {len(dc.rate)} | {fmt_ms(statistics.median(dc.lag_ms))} "
                    f"| {fmt_ms(p95(dc.lag_ms))} | {statistics.median(dc.rate):.1f} "
                    f"| {fmt_ms(statistics.median(dc.cell_lag_ms))} | {fmt_ms(p95(dc.cell_lag_ms))} "
                    f"| {statistics.median(dc.cell_rate):.1f} | {statistics.median(dc.thumb_rate):.1f} "
                    f"| {fmt_ms(statistics.median(dc.release_ms))} | {fmt_ms(p95(dc.release_ms))} | {keys} |")
    return "\n".join(rows)


def drag_main(args: argparse.Namespace) -> None:
    """--drag N: N drags per case, round-robin, then --moves key presses per case (the key-press latency beside)."""
    from playwright.sync_api import sync_playwright

    started = time.monotonic()
    chosen = [c for c in DRAG_CASES if args.drag_case in c[0]]
    specs = [(name, "app", *rest) for name, _, *rest in chosen]
    if args.baseline_dir:
        specs += [(f"{name} (baseline)", "baseline", *rest) for name, _, *rest in chosen]
    dcs = [DragCase(Case(*spec)) for spec in specs]
    with ExitStack() as stack:
        logs = Path(tempfile.mkdtemp(prefix="browser_latency-"))
        ports = free_ports(2 if args.baseline_dir else 1)
        servers = {"app": stack.enter_context(streamlit_server("app.py", ports[0], logs, args.app_dir.resolve()))}
        if args.baseline_dir:
            (logs / "baseline").mkdir()
            servers["baseline"] = stack.enter_context(
                streamlit_server("app.py", ports[1], logs / "baseline", args.baseline_dir.resolve()))
        pw = stack.enter_context(sync_playwright())
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        stack.callback(browser.close)
        print(f"Chromium {browser.version}; {args.drag} drags of {DRAG_STEPS} steps per case; server logs in {logs}",
              file=sys.stderr)
        for dc in dcs:
            open_case(browser, dc.case, servers[dc.case.server].url)
        for r in range(args.drag):
            for dc in dcs:
                drag_once(dc)
                print(f"    {dc.case.name}: lag median {statistics.median(dc.lag_ms):.0f} ms, "
                      f"{dc.rate[-1]:.1f} updates/s, release {dc.release_ms[-1]:.0f} ms", file=sys.stderr)
            print(f"  drag round {r + 1}/{args.drag} done ({time.monotonic() - started:.0f} s)", file=sys.stderr)
        for _ in range(args.moves):
            for dc in dcs:
                move(dc.case, servers[dc.case.server], args.timeout, args.sweep)
    print(drag_table(dcs))
    amb = [f"{dc.case.name}: {dc.ambiguous}" for dc in dcs if dc.ambiguous]
    if amb:
        print("\nthumb values whose weights read like another value's (counted as caught up early): " + "; ".join(amb))
    print(f"\n(load average {os.getloadavg()[0]:.2f}; whole run {time.monotonic() - started:.0f} s)")
    if args.json:
        args.json.write_text(json.dumps({dc.case.name: {"lag_ms": dc.lag_ms, "release_ms": dc.release_ms,
                                                        "rate": dc.rate, "cell_lag_ms": dc.cell_lag_ms,
                                                        "cell_rate": dc.cell_rate, "thumb_rate": dc.thumb_rate,
                                                        "key_ms": dc.case.ms}
                                         for dc in dcs},
                                        indent=1))


# ---- main -----------------------------------------------------------------------------------------------------------
def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=30, help="measured key presses per case (default 30)")
    ap.add_argument("--first-paint", type=int, default=5, help="warm loads per page for first paint (default 5)")
    ap.add_argument("--quick", action="store_true", help="smoke check: 5 moves, 1 warm load")
    ap.add_argument("--sweep", type=int, default=10, help="presses one way before turning back (default 10)")
    ap.add_argument("--timeout", type=float, default=15, help="seconds to wait for new numbers after a press")
    ap.add_argument("--app-dir", type=Path, default=ROOT,
                    help="folder whose app.py is served, e.g. an exported commit (default: this checkout)")
    ap.add_argument("--baseline-dir", type=Path,
                    help="also serve this folder's app (e.g. an exported commit) and measure its /qkv cases in the "
                         "same rounds, interleaved with this app's: a before/after pair under the same load")
    ap.add_argument("--json", type=Path, help="also write every sample to this file")
    ap.add_argument("--drag", type=int, default=0, metavar="N",
                    help="drag mode: N mouse drags per /qkv cell-slider case (then --moves key presses each), "
                         "no minimal page or first paint")
    ap.add_argument("--drag-case", default="", help="drag mode: only the cases whose name contains this")
    args = ap.parse_args()
    if args.quick:
        args.moves, args.first_paint = 5, 1
    return args


def main() -> None:
    args = parse_args()
    if not os.access(CHROMIUM, os.X_OK):
        print(f"SKIPPED: no Chromium at {CHROMIUM} (apt-get install chromium fonts-noto-cjk); nothing measured")
        return
    if args.drag:
        return drag_main(args)
    from playwright.sync_api import sync_playwright

    started = time.monotonic()
    cases = [Case(*spec) for spec in CASES]
    if args.baseline_dir:
        cases += [Case(f"{name} (baseline)", "baseline", path, *rest) for name, server, path, *rest in CASES
                  if server == "app" and _has_page(args.baseline_dir, path)]
    with ExitStack() as stack:
        logs = Path(tempfile.mkdtemp(prefix="browser_latency-"))  # kept: the servers' logs, for a failed run
        app_port, min_port, *more = free_ports(3 if args.baseline_dir else 2)
        app_dir = args.app_dir.resolve()
        servers = {"app": stack.enter_context(streamlit_server("app.py", app_port, logs, app_dir)),
                   "minimal": stack.enter_context(streamlit_server(str(MINIMAL_APP), min_port, logs, app_dir))}
        if args.baseline_dir:
            (logs / "baseline").mkdir()
            servers["baseline"] = stack.enter_context(
                streamlit_server("app.py", more[0], logs / "baseline", args.baseline_dir.resolve()))
        pw = stack.enter_context(sync_playwright())
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        stack.callback(browser.close)
        print(f"Chromium {browser.version}; {args.moves} moves per case in sweeps of {args.sweep}, first paint "
              f"median of {args.first_paint}; app {app_dir}; "
              f"server logs in {logs}", file=sys.stderr)
        paints = first_paints(browser, servers, args.first_paint, logs)
        for case in cases:
            open_case(browser, case, servers[case.server].url)
        for r in range(args.moves):
            for case in cases:
                move(case, servers[case.server], args.timeout, args.sweep)
            print(f"  round {r + 1}/{args.moves} done ({time.monotonic() - started:.0f} s)", file=sys.stderr)
    empty = [c.name for c in cases if not c.ms]
    if empty:
        raise SystemExit(f"no successful move in: {', '.join(empty)}")
    print(table(cases, paints))
    missed = [f"{c.name}: {c.timeouts}" for c in cases if c.timeouts]
    if missed:
        print(f"\nmoves without new numbers within {args.timeout:g}s (not counted): " + "; ".join(missed))
    print(f"\n(load average {os.getloadavg()[0]:.2f}; whole run {time.monotonic() - started:.0f} s)")
    if args.json:
        args.json.write_text(json.dumps(summary(cases, paints), indent=1))


if __name__ == "__main__":
    main()
