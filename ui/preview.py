"""Heatmap numbers that follow a mouse drag at the screen's pace (issue 18), written once for every lesson.

A slider's own run costs the browser ~150–280 ms of main thread (Streamlit redraws the whole fragment: style, layout,
React; benchmarks/profiles/README.md, 2026-12-05), so numbers that wait for a run per thumb position change 4–6 times
a second. Here the server computes, once, the numbers of the slider's nearby values, and the browser shows them as
the thumb passes them, on its own animation frames:

* When the pointer goes down on a slider, the relay (ui/drag.py) sends the thumb's value asking for frames. The run
  it causes draws the page as usual; every keyed heatmap drawn in the run's scope is recorded (:func:`record`, from
  ui.charts.show_heatmap: its matrix and every other argument of its drawing).
* At the end of that scope (a live fragment, or the whole page: :func:`scope`), :func:`frames` applies the slider's
  own pure transition (``Page.moved`` with what ``ui.bind.control`` or ``ui.widgets.cell_slider`` apply) for the
  values within a few steps of the thumb's, asks the lesson for the matrices its heatmaps would show
  (``Lesson.preview``) and builds each heatmap exactly as the page would (the same cached builder with the recorded
  arguments): its cells' numbers, texts and hover texts. A value is offered only when every recorded heatmap has a
  matrix in the declaration and would keep its frame (layout, colour range, number style): then a patch of the
  cells is all the difference, and the screen shows exactly what the page would draw. The frames go to the browser
  as the data of a hidden element at the end of the scope (``drag.mount_frames``).
* plot.js writes a frame's cells into the drawn charts (patch.js) whenever the thumb is on one of its values; the
  relay sends no value while it is, and the thumb's value at the release is applied by the server as before: its run
  is the truth, and it redraws anything that differs.

tests/contract/test_preview.py checks every lesson's declaration against the drawn heatmaps, and every frame
against the page drawn at that value; tests/e2e/test_drag_preview_browser.py drags in Chromium.
"""
from __future__ import annotations

import base64
import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from lessons.cells import Refusal

REQUEST = "_preview_request"  # the relay key → {"css": the slider's class, "v": the thumb's value, "s": its number}
LAST = "_preview_last"  # the keyed heatmaps of the last scope that ended: {key: Drawn} (for the tests)
BUILT = "_preview_built"  # the last frames built (for the tests)
MAX_CELLS = 80_000  # cells sent for one drag (all frames, all charts): ~1 MB at 16 tokens (±14 steps), ~20 kB at 3
MIN_STEPS, MAX_STEPS = 5, 20  # frames each side of the thumb's value


@dataclass(frozen=True)
class Drawn:
    """One keyed heatmap as drawn: its matrix, which weights are exact (or None), the builder's other arguments
    (ui.charts._heatmap_ready_cached after the matrix) and the figure they made."""
    A: np.ndarray
    E: np.ndarray | None
    template: object
    args: tuple
    ready: dict


_SCOPES: contextvars.ContextVar[tuple[dict, ...]] = contextvars.ContextVar("preview_scopes", default=())


@contextmanager
def scope() -> Iterator[dict]:
    """The keyed heatmaps drawn inside (also inside a nested scope: a live fragment in a whole-page run) are recorded
    into the dict yielded."""
    drawn: dict[str, Drawn] = {}
    token = _SCOPES.set((*_SCOPES.get(), drawn))
    try:
        yield drawn
    finally:
        _SCOPES.reset(token)


def record(key: str | None, A: np.ndarray, E: np.ndarray | None, template, args: tuple, ready: dict) -> None:
    """A keyed heatmap drawn (ui.charts.show_heatmap): recorded in every open scope. A keyless one is recorded under
    None: no frame can reach it, so its scope offers none."""
    for drawn in _SCOPES.get():
        drawn[key] = Drawn(A, E, template, args, ready)


def _cells(ready: dict) -> tuple[np.ndarray, list, list | None]:
    """A ready heatmap's cells: z (float32, NaN where blank), texts, and the hover's value texts (the third part of
    each cell's customdata), None when the hover has no such part."""
    trace = ready["data"][0]
    z = trace["z"]
    if isinstance(z, dict):
        flat = np.frombuffer(base64.b64decode(z["bdata"]), dtype=np.dtype(z["dtype"]).newbyteorder("<"))
        Z = flat.reshape(tuple(int(x) for x in str(z.get("shape", len(flat))).split(",")))
    else:
        Z = np.array([[np.nan if v is None else v for v in row] for row in z], dtype=np.float64)
    custom = trace.get("customdata")
    hover = None
    if isinstance(custom, list) and custom and all(isinstance(c, list) and len(c) == 3 for row in custom for c in row):
        hover = [[c[2] for c in row] for row in custom]
    return Z.astype(np.float32), trace.get("text"), hover


def _frame(ready: dict) -> tuple:
    """What must not change for a patch: the layout and the trace without its cells."""
    trace = {k: v for k, v in ready["data"][0].items() if k not in ("z", "text", "customdata")}
    return ready["layout"], trace, len(ready["data"])


def _matrix(entry) -> tuple[np.ndarray, np.ndarray | None]:
    if isinstance(entry, tuple):
        M, E = entry
        return np.ascontiguousarray(M, dtype=np.float64), np.ascontiguousarray(E, dtype=bool)
    return np.ascontiguousarray(entry, dtype=np.float64), None


def window(values: list[float] | None, lo: float | None, hi: float | None, step: float | None, integer: bool,
           center: float, n: int) -> list[tuple[float, object]]:
    """The slider's values within ``n`` steps of ``center``, as (what the browser's range input reads, the slider's
    value): an option's index and the option for a select_slider (``values``: its options), else the numbers
    ``center + k·step`` inside ``lo``..``hi`` (12 significant digits: the browser's float steps)."""
    if values is not None:
        k = int(center)
        return [(float(i), values[i]) for i in range(max(0, k - n), min(len(values), k + n + 1))]
    step = step or (1.0 if integer else 0.01)
    out = []
    for k in range(-n, n + 1):
        v = float(f"{center + k * step:.12g}")
        if (lo is not None and v < lo - 1e-9) or (hi is not None and v > hi + 1e-9):
            continue
        out.append((v, int(round(v)) if integer else v))
    return out


def frames(page, bound, center: float, drawn: dict[str, Drawn]) -> dict | None:
    """The frames of a drag of slider ``bound`` (ui.drag._Bound) from the thumb's value ``center``: {"values":
    [the browser's value of each frame], "charts": [{"key", "shape", "z": [base64 float32 per frame], "text":
    [flat texts per frame], "hover": [flat hover texts, or None where they are the texts, per frame]}]}, or None
    when the page has nothing to follow the drag (no declaration, no heatmap, a keyless one, or no frame)."""
    from . import charts

    lesson = page.lesson
    if lesson.preview is None or bound.transition is None or not drawn or None in drawn:
        return None
    cells = sum(d.A.size for d in drawn.values())
    n = max(MIN_STEPS, min(MAX_STEPS, MAX_CELLS // max(2 * cells, 1)))
    keys = sorted(drawn)
    base = {k: _frame(drawn[k].ready) for k in keys}
    values, out = [], {k: {"key": k, "shape": list(drawn[k].A.shape), "z": [], "text": [], "hover": []} for k in keys}
    for shown, value in window(bound.options, bound.lo, bound.hi, bound.step, bound.integer, center, n):
        try:
            state = page.moved(page.state, bound.transition, value)
            mats = lesson.preview(state)
        except Refusal:
            continue
        frame = {}
        for k in keys:
            if k not in mats:
                return None  # a heatmap the declaration leaves out: nothing can follow the drag
            M, E = _matrix(mats[k])
            d = drawn[k]
            if M.shape != d.A.shape or (E is None) != (d.E is None):
                break
            ready = charts.ready_heatmap(d.template, M, E, d.args)
            if _frame(ready) != base[k]:
                break
            frame[k] = _cells(ready)
        else:
            values.append(shown)
            for k, (Z, text, hover) in frame.items():
                out[k]["z"].append(base64.b64encode(Z.tobytes()).decode("ascii"))
                flat = [x for row in text for x in row]
                out[k]["text"].append(flat)
                hov = None if hover is None else [x for row in hover for x in row]
                out[k]["hover"].append(None if hov == flat else hov)
    if len(values) < 2:
        return None
    return {"values": values, "charts": list(out.values())}
