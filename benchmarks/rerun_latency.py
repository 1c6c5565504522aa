"""Server-side rerun latency of the Q·K·V page after a slider move, next to a minimal page (one slider, one 3×3
plotly heatmap: benchmarks/minimal_app.py) measured in the same run.

What is timed: ``AppTest.run()`` after moving one slider. AppTest executes the script in-process exactly as the
server does (callbacks, the page, building every figure, marshalling it into its protobuf element); it does not
send bytes over a socket. Three numbers per rerun:
  * run    — wall time of ``AppTest.run()`` (what the issue asks for; includes AppTest's own parsing of the
             element tree, which the real server does not do);
  * script — wall time of the script thread only (the server-side work proper);
  * cpu    — CPU time of that thread: the steadiest of the three when other processes share the machine.
The ratio columns divide by the minimal page's median of the same kind. As on a server, each script is compiled
once (AppTest would recompile it on every run; --recompile shows that).

Honesty checks after every rerun (the script stops with an error otherwise): no exception element, the expected
number of plotly charts in the tree, the slider move really reached the lesson state, and a chart downstream of
the move has a different spec than in the previous rerun (so nothing stale was served).

Cases are run round-robin (one rerun of each case per round) so drift in machine load hits all of them alike;
the first rounds are warm-up and not counted.

Usage:  PYTHONPATH=. .venv/bin/python benchmarks/rerun_latency.py [--rounds 40] [--warmup 3] [--profile]
--profile also records 20 16-token reruns (cell slider) with pyinstrument into benchmarks/profiles/.
"""
from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from tests import apptest_fragments as fragments

ROOT = Path(__file__).resolve().parent.parent
PROFILES = Path(__file__).resolve().parent / "profiles"
TEXT16 = "私 は 毎朝 犬 と 公園 を 歩いて から 駅 まで 走り 電車 に 乗り ます"
QKV_CHARTS = 13  # xw mode: X, W_Q, W_K, W_V, Q, K, V, scores, scaled, weights, out + bars + vector mix

# ---- timing of the script thread (AppTest runs the script in its own thread) -------------------------------------
_last: dict = {}
_profiler: dict = {}


def _timed_thread(runner, run) -> None:
    prof = _profiler.pop("p", None)
    t0, c0 = time.perf_counter(), time.thread_time()
    if prof is not None:
        prof.start()
    try:
        run()
    finally:
        if prof is not None:
            prof.stop()
        _last["script_ms"] = (time.perf_counter() - t0) * 1e3
        _last["cpu_ms"] = (time.thread_time() - c0) * 1e3
        msgs = runner.forward_msgs()
        _last["kb"] = sum(m.ByteSize() for m in msgs) / 1024
        _last["n_deltas"] = sum(1 for m in msgs if m.HasField("delta"))


fragments.install(_timed_thread)

# ---- cases -----------------------------------------------------------------------------------------------------
@dataclass
class Case:
    name: str
    at: AppTest
    move: Callable[[AppTest, int], object]  # set a widget for rerun k; returns the value the state must hold
    reached: Callable[[AppTest], object]  # the value the lesson state holds after the rerun
    n_charts: int
    changed: str  # key of a chart whose spec must differ from the previous rerun
    frame: bool = True  # the app.py frame (sidebar language radio) must be on the page
    widget: str = ""  # key of the widget moved: when it sits in an st.fragment, only that fragment reruns
    fragment: bool = False  # filled in: whether the reruns were fragment reruns
    run_ms: list = field(default_factory=list)
    script_ms: list = field(default_factory=list)
    cpu_ms: list = field(default_factory=list)
    kb: list = field(default_factory=list)
    prev_spec: str | bytes | None = None
    fragments: dict = field(default_factory=dict)  # this app's widget id → fragment id, from its own runs

    def __post_init__(self):
        self.fragments.update(fragments.widget_fragments(fragments.last.get("msgs", [])))


def _app(path: Path) -> AppTest:
    at = AppTest.from_file(str(path), default_timeout=60)
    at.run()
    return at


def _qkv(tokens16: bool) -> AppTest:
    at = _app(ROOT / "app.py")
    at.switch_page("lesson_pages/qkv.py").run()
    if tokens16:
        at.text_input(key="qkv.text").input(TEXT16).run()
        for key in ("qkv.dm", "qkv.dk", "qkv.dv"):
            at.slider(key=key).set_value(16).run()
        s = at.session_state["qkv:state"]
        assert (s.n, s.d_model, s.d_k, s.d_v) == (16, 16, 16, 16), (s.n, s.d_model, s.d_k, s.d_v)
    else:
        assert at.session_state["qkv:state"].n == 3
    return at


def _slider_move(key: str, values: tuple) -> Callable[[AppTest, int], object]:
    def move(at: AppTest, k: int):
        v = values[k % 2]
        at.slider(key=key).set_value(v)
        return v
    return move


def _state(attr: Callable) -> Callable[[AppTest], object]:
    return lambda at: attr(at.session_state["qkv:state"])


def make_cases() -> list[Case]:
    from ui.widgets import cell_slider_key

    cell = cell_slider_key("qkv.cell", "X", 0, 0)  # the one-cell slider on X[0, 0], the picker's default
    x00 = _state(lambda s: float(s.mats["X"][0, 0]))
    dk = _state(lambda s: s.d_k)
    return [
        Case("minimal (1 slider, 3×3 heatmap)", _app(ROOT / "benchmarks" / "minimal_app.py"),
             _slider_move("v", (1.0, 0.5)), lambda at: at.slider(key="v").value, 1, "fig", frame=False),
        Case("qkv 3 tokens, cell slider", _qkv(False), _slider_move(cell, (1.5, 0.5)), x00, QKV_CHARTS,
             "qkv.fig.scores", widget=cell),
        Case("qkv 3 tokens, d_k slider", _qkv(False), _slider_move("qkv.dk", (4, 5)), dk, QKV_CHARTS,
             "qkv.fig.scaled", widget="qkv.dk"),
        Case("qkv 16 tokens d=16, cell slider", _qkv(True), _slider_move(cell, (1.5, 0.5)), x00,
             QKV_CHARTS, "qkv.fig.scores", widget=cell),
        Case("qkv 16 tokens d=16, d_k slider", _qkv(True), _slider_move("qkv.dk", (15, 16)), dk, QKV_CHARTS,
             "qkv.fig.scaled", widget="qkv.dk"),
    ]


def _charts(at) -> list[tuple[str | None, str | bytes]]:
    """Every plotly chart in the tree as (key, what it was sent): st.plotly_chart's spec (the minimal page) and the
    in-place charts the lessons draw through ui.charts (ui.plot_component, a custom component, alone or in a row:
    each chart's figure as sent)."""
    import json

    from ui import plot_component

    out = [(c.key, c.proto.spec) for c in at.get("plotly_chart")]
    out += [(key, json.dumps(chart["figure"], sort_keys=True)) for key, chart in plot_component.charts(at).items()]
    return out


def step(case: Case, k: int, record: bool) -> None:
    want = case.move(case.at, k)
    case.fragment = bool(case.widget) and fragments.as_fragment_rerun(case.at.slider(key=case.widget).id,
                                                                       case.fragments)
    _last.clear()
    t0 = time.perf_counter()
    case.at.run()
    run_ms = (time.perf_counter() - t0) * 1e3
    at = case.at
    if len(at.exception):
        raise SystemExit(f"{case.name}: exception in rerun {k}: {at.exception[0].value}")
    # A fragment rerun sends only the fragment's elements (AppTest's tree then holds just those): every chart of
    # the page must be among them, and the frame must not have run.
    charts = _charts(at)
    if len(charts) != case.n_charts:
        raise SystemExit(f"{case.name}: {len(charts)} plotly charts in rerun {k}, expected {case.n_charts}")
    has_frame = any(r.key == "lang" for r in at.sidebar.radio)
    if case.frame and not case.fragment and not has_frame:
        raise SystemExit(f"{case.name}: the app.py frame did not run (no language radio in the sidebar)")
    if case.fragment and has_frame:
        raise SystemExit(f"{case.name}: a fragment rerun redrew the frame (the whole app ran)")
    got = case.reached(at)
    if got != want:
        raise SystemExit(f"{case.name}: the move did not reach the state (set {want!r}, state holds {got!r})")
    spec = next((sent for key, sent in charts if key == case.changed), None)
    if spec is None:
        raise SystemExit(f"{case.name}: no chart with key {case.changed!r}")
    if spec == case.prev_spec:
        raise SystemExit(f"{case.name}: chart {case.changed!r} did not change after the move (stale figure?)")
    case.prev_spec = spec
    if "script_ms" not in _last:
        raise SystemExit(f"{case.name}: the script thread was not timed")
    if record:
        case.run_ms.append(run_ms)
        case.script_ms.append(_last["script_ms"])
        case.cpu_ms.append(_last["cpu_ms"])
        case.kb.append(_last["kb"])


def _library(path: str) -> str | None:
    """Which body of code a file belongs to, for the profile's summary (None: built-in, ask the caller)."""
    if path.startswith("<built-in>"):
        return None
    for name, marks in (("plotly", ("/plotly/", "/_plotly_utils/")), ("streamlit", ("/streamlit/",)),
                        ("pandas + pyarrow", ("/pandas/", "/pyarrow/")), ("numpy", ("/numpy/",))):
        if any(m in path for m in marks):
            return name
    if "site-packages" in path:
        return "other libraries"
    if str(ROOT) in path or not path.startswith("/"):
        return "this app (ui/, lesson_pages/, attention_core/, app.py)"
    return "Python stdlib (copy, json, …)"


def _by_library(session) -> str:
    """Self time of the profiled reruns by library: each sample is charged to the innermost frame that is not a
    built-in (a C function counts for the Python code that called it)."""
    totals: dict[str, float] = {}
    for stack, t in session.frame_records:
        lib = "other"
        for frame in reversed(stack):
            parts = frame.split("\x00")
            found = _library(parts[1]) if len(parts) > 1 else None
            if found:
                lib = found
                break
        totals[lib] = totals.get(lib, 0.0) + t
    total = sum(totals.values()) or 1.0
    return "\n".join(f"  {100 * v / total:5.1f}%  {k}" for k, v in sorted(totals.items(), key=lambda kv: -kv[1]))


def profile(case: Case, k: int, out: Path, reruns: int = 20) -> str:
    """Profile ``reruns`` reruns of a case into one pyinstrument session (times add up over the reruns, so the
    shares are steadier than one rerun's) and write it as text: call tree, then flat lists by total and self time."""
    from pyinstrument import Profiler

    prof = Profiler(interval=0.0005)
    for j in range(reruns):
        _profiler["p"] = prof
        step(case, k + j, record=False)
    # Each rerun runs in a new script thread; drop the thread marker so all reruns merge into one call tree.
    session = prof.last_session
    session.frame_records = [([f for f in stack if "\x00<thread>\x00" not in f], t)
                             for stack, t in session.frame_records]
    opts = dict(unicode=True, color=False, time="percent_of_total")
    tree = prof.output_text(**opts)
    flat = prof.output_text(flat=True, flat_time="total", **opts)
    flat_self = prof.output_text(flat=True, flat_time="self", **opts)
    head = (f"{case.name}: {reruns} reruns, {session.duration * 1e3 / reruns:.1f} ms each under the profiler\n"
            f"self time by library:\n{_by_library(session)}\n")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(f"{head}\n{tree}\n== flat, total time per function ==\n{flat}\n"
                   f"== flat, self time per function ==\n{flat_self}", encoding="utf-8")
    return head + tree


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=40, help="measured reruns per case (>= 30)")
    ap.add_argument("--warmup", type=int, default=3, help="reruns per case before measuring")
    ap.add_argument("--profile", action="store_true", help="also profile 16-token reruns with pyinstrument")
    ap.add_argument("--recompile", action="store_true",
                    help="let AppTest recompile the scripts on every run (its default; the server does not)")
    a = ap.parse_args()
    if not a.recompile:
        fragments.share_script_cache()  # as the server: each script compiled once (AppTest: every run)
    # AppTest evaluates widgets' format_func outside the script thread when it parses the tree; their
    # "missing ScriptRunContext" warnings are test-harness noise, not app behaviour.
    # (Streamlit resets log levels when AppTest patches its config, hence ``disabled``.)
    for name in ("streamlit.runtime.scriptrunner_utils.script_run_context",
                 "streamlit.runtime.state.session_state_proxy"):
        logging.getLogger(name).disabled = True

    t_start = time.perf_counter()
    cases = make_cases()
    for k in range(a.warmup + a.rounds):
        for case in cases:
            step(case, k, record=k >= a.warmup)

    base = {kind: float(np.median(getattr(cases[0], kind))) for kind in ("run_ms", "script_ms", "cpu_ms")}
    head = (f"{'case':34} {'n':>3} {'run med':>8} {'p95':>6} {'ratio':>6} │ {'script med':>10} {'p95':>6} "
            f"{'ratio':>6} │ {'cpu med':>7} {'ratio':>6} │ {'KB':>6}")
    print(head)
    print("─" * len(head))
    for c in cases:
        cells = []
        for kind, width in (("run_ms", 8), ("script_ms", 10)):
            v = np.asarray(getattr(c, kind))
            cells.append(f"{np.median(v):{width}.1f} {np.percentile(v, 95):6.1f} {np.median(v) / base[kind]:5.2f}×")
        cpu = np.median(c.cpu_ms)
        name = c.name + (" ᶠ" if c.fragment else "")
        print(f"{name:34} {len(c.run_ms):3d} {cells[0]} │ {cells[1]} │ {cpu:7.1f} {cpu / base['cpu_ms']:5.2f}× │"
              f" {np.median(c.kb):6.1f}")
    print("ms per rerun. run = AppTest.run() wall time; script = wall time of the script thread alone (the server-side"
          "\nwork); cpu = CPU time of that thread (insensitive to other processes on the machine); ratio = median / the"
          "\nminimal page's median of the same kind; KB = protobuf size of the messages one rerun sends."
          "\nᶠ = the widget sits in an st.fragment: only that fragment reran (the browser asks for exactly that).")
    print(f"python {sys.version.split()[0]}, {a.rounds} measured + {a.warmup} warm-up reruns per case, "
          f"scripts {'recompiled every run' if a.recompile else 'compiled once (as the server does)'}, "
          f"total {time.perf_counter() - t_start:.0f} s")

    if a.profile:
        out = PROFILES / "qkv16_cell.txt"
        text = profile(cases[3], a.warmup + a.rounds, out)
        print(f"\npyinstrument profile of 20 reruns, 16 tokens, cell slider → {out.relative_to(ROOT)}")
        print("\n".join(text.splitlines()[:70]))


if __name__ == "__main__":
    main()
