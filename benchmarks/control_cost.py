"""Server CPU of one control change, for every control of every registered lesson, at its extremes (issue 20,
defect 8: no single change may cost more than 100 ms of server CPU, or one student slows the class).

What is measured: the CPU time of the script thread for one rerun after one widget change (AppTest runs the page in
process as the server does: callbacks, the lesson's math, every figure built and marshalled). A widget inside an
st.fragment reruns only its fragment, as the browser asks. Each change is measured as if its new value had never
been seen: every st.cache_data entry is cleared and the page is run once as it stands (not timed), so the caches hold
just what the current state needs; the change then pays for every cached computation its new value misses (a new
seed, d_k or sentence), as the first student to ask for that value does.

The controls are found on each page (sliders, select sliders, number inputs, switches, check boxes, radios, select
boxes and text fields whose key starts with the lesson's key), so a new lesson is measured with no new code. Each is
moved to each of its ends (for a number field, which has no ends of its own: a new value and 1e300; for a text
field: its longest allowed text; for radios and select boxes: every option) and back, and that is repeated
``--rounds`` times. The baseline is the one-slider, one-heatmap page (benchmarks/minimal_app.py) measured in the
same run, the same way. Cell sliders are measured for the
picked cell only (every cell slider runs the same code).

Usage:  PYTHONPATH=. .venv/bin/python benchmarks/control_cost.py [--rounds 3] [--limit-ms 100] [--lesson KEY]
Exit status 1 when a control's median is over the limit (so it can gate a change by hand; it is not run by CI).
"""
from __future__ import annotations

import argparse
import gc
import logging
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import streamlit as st
from streamlit.testing.v1 import AppTest

import lessons
from tests import apptest_fragments as fragments

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("slider", "select_slider", "number_input", "toggle", "checkbox", "radio", "selectbox", "text_input")
LONG_TEXT = "私は昨日友達と公園で犬と一緒に長い時間歩いてから駅まで走って電車に乗りました。"

_cpu: dict = {}


def _timed(runner, run) -> None:
    c0 = time.thread_time()
    try:
        run()
    finally:
        _cpu["ms"] = (time.thread_time() - c0) * 1e3


fragments.install(_timed)
fragments.share_script_cache()  # the server compiles each script once per process; AppTest would in every run


@dataclass
class Control:
    lesson: str
    kind: str
    key: str
    cpu_ms: dict = field(default_factory=dict)  # target label → [ms, ...]

    def worst_median(self) -> tuple[str, float]:
        label, ms = max(((k, float(np.median(v))) for k, v in self.cpu_ms.items()), key=lambda kv: kv[1])
        return label, ms


def _targets(w, kind: str) -> list[tuple[str, object]]:
    """(label, value) pairs a control is moved to: its ends, then back to where it was."""
    now = w.value
    if kind == "slider":
        if isinstance(now, (tuple, list)):
            return []
        return [("min", type(now)(w.min)), ("max", type(now)(w.max)), ("back", now)]
    if kind == "number_input":  # the app's number fields have no min/max of their own: the lesson checks them
        return [("new value", (now or 0) + 1), ("huge", 1e300), ("back", now)]
    if kind == "select_slider":
        opts = list(w.options)
        return [("first", _option_value(opts[0], now)), ("last", _option_value(opts[-1], now)), ("back", now)]
    if kind in ("toggle", "checkbox"):
        return [("flip", not now), ("back", now)]
    if kind in ("radio", "selectbox"):
        return [(f"option {i + 1}", ("index", i)) for i in range(len(w.options))] + [("back", ("index", w.index))]
    if kind == "text_input":
        n = w.proto.max_chars or 200
        return [("longest", (LONG_TEXT * (n // len(LONG_TEXT) + 1))[:n]), ("back", now)]
    return []


def _option_value(label: str, like):
    """A select slider's option label as the value type it stands for (AppTest needs the value, not the label)."""
    for kind in (type(like), int, float):
        try:
            return kind(label)
        except (TypeError, ValueError):
            continue
    return label


def _find(at: AppTest, kind: str, key: str):
    for w in getattr(at, kind):
        if w.key == key:
            return w
    return None


def _set(at: AppTest, w, value) -> None:
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "index":
        # AppTest sets a radio or select box by its value, not by the label it shows: the widget's own
        # deserializer (kept in the session's widget metadata) gives the value behind option i.
        meta = at.session_state._state._state._new_widget_state.widget_metadata[w.id]
        value = meta.deserializer(w.options[value[1]])
    w.set_value(value)


def _move(at: AppTest, kind: str, key: str, value, known: dict) -> float | None:
    """Set one widget and rerun; the CPU ms of the script thread (None: the widget is not on the page).

    Before the change every st.cache_data entry is cleared and the page is run once as it stands (not timed): the
    caches then hold exactly what the current state needs, so the change pays for every value it makes new (a seed,
    a d_k, a sentence never seen before) and nothing else. That run is a full one, so AppTest's tree holds the whole
    page again after a fragment rerun (which leaves only the fragment's elements in it)."""
    st.cache_data.clear()
    at.run()
    w = _find(at, kind, key)
    if w is None:
        return None
    _set(at, w, value)
    fragments.as_fragment_rerun(w.id, known)
    _cpu.clear()
    at.run()
    if len(at.exception):
        raise SystemExit(f"{key}: exception after setting {value!r}: {at.exception[0].value}")
    known.update(fragments.widget_fragments(fragments.last.get("msgs", [])))
    return _cpu.get("ms")


def _controls(at: AppTest, prefix: str) -> list[tuple[str, str]]:
    out = []
    for kind in KINDS:
        for w in getattr(at, kind):
            key = str(w.key or "")
            if key.startswith(prefix) and (kind, key) not in out:
                out.append((kind, key))
    return out


def _open(page: str | None) -> AppTest:
    at = AppTest.from_file(str(ROOT / ("benchmarks/minimal_app.py" if page is None else "app.py")),
                           default_timeout=120)
    if page is not None:
        at.switch_page(page)
    return at.run()


def measure_lesson(lesson, rounds: int) -> list[Control]:
    """Every control of the lesson's page to each of its targets, ``rounds`` times after one warm-up round that is
    not counted (the process's first long sentence, first direct mode... pay one-time costs: imports, janome's
    first use)."""
    at = _open(lesson.page)
    known = fragments.widget_fragments(fragments.last.get("msgs", []))
    controls = [Control(lesson.key, kind, key) for kind, key in _controls(at, lesson.key + ".")]
    for r in range(rounds + 1):
        for c in controls:
            at.run()  # a full run: after a fragment rerun AppTest's tree holds only the fragment
            w = _find(at, c.kind, c.key)
            if w is None:
                continue
            for label, value in _targets(w, c.kind):
                ms = _move(at, c.kind, c.key, value, known)
                if ms is not None and r > 0:
                    c.cpu_ms.setdefault(label, []).append(ms)
    return [c for c in controls if c.cpu_ms]


def measure_baseline(rounds: int) -> float:
    at = _open(None)
    out = []
    for k in range(rounds * 4):
        st.cache_data.clear()
        at.run()
        at.slider(key="v").set_value((1.0, 0.5)[k % 2])
        _cpu.clear()
        at.run()
        out.append(_cpu["ms"])
    return float(np.median(out))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3, help="times each control goes to its ends and back")
    ap.add_argument("--limit-ms", type=float, default=100.0, help="the bound on one change's server CPU")
    ap.add_argument("--lesson", help="only this lesson's key")
    ap.add_argument("--no-gc", action="store_true",
                    help="turn Python's cyclic garbage collector off, to see which spikes are its collections")
    a = ap.parse_args()
    if a.no_gc:
        gc.disable()
    for name in ("streamlit.runtime.scriptrunner_utils.script_run_context",
                 "streamlit.runtime.state.session_state_proxy", "streamlit.runtime.caching.cache_data_api"):
        logging.getLogger(name).disabled = True
    t0 = time.perf_counter()
    base = measure_baseline(a.rounds)
    rows: list[Control] = []
    for lesson in lessons.REGISTRY:
        if a.lesson in (None, lesson.key):
            rows += measure_lesson(lesson, a.rounds)
    head = (f"{'lesson':8} {'control':34} {'kind':13} {'worst change':>14} {'cpu med':>8} {'max':>7} {'× base':>7}")
    print(head + "\n" + "─" * len(head))
    over = []
    every = [x for c in rows for v in c.cpu_ms.values() for x in v]
    for c in sorted(rows, key=lambda c: -c.worst_median()[1]):
        label, med = c.worst_median()
        top = max(max(v) for v in c.cpu_ms.values())
        flag = "  OVER" if med > a.limit_ms else ""
        print(f"{c.lesson:8} {c.key[:34]:34} {c.kind:13} {label:>14} {med:8.1f} {top:7.1f} {med / base:6.1f}×{flag}")
        if med > a.limit_ms:
            over.append(c)
    print(f"ms of server CPU (script thread) per change, each new value missing the caches; median over {a.rounds} "
          f"rounds of the change named (the costliest of that control's moves). Baseline: the one-slider page, "
          f"{base:.1f} ms. max = the largest single change of that control (a spike of about +100 ms is a"
          f"\ncollection of Python's cyclic garbage collector landing in that run: --no-gc shows them gone).\n"
          f"all {len(every)} changes: median {np.median(every):.1f} ms, p95 {np.percentile(every, 95):.1f} ms, "
          f"max {max(every):.1f} ms.\n{len(rows)} controls, {len(over)} over {a.limit_ms:.0f} ms; python "
          f"{sys.version.split()[0]}, total {time.perf_counter() - t0:.0f} s")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
