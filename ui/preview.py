"""Heatmap numbers that follow a mouse drag at the screen's pace, written once for every lesson.

A slider's own run costs the browser ~150–280 ms of main thread (Streamlit redraws the whole fragment: style, layout,
React; benchmarks/profiles/README.md, 2026-12-05), so numbers that wait for a run per thumb position change 4–6 times
a second. Here the server computes, once, the numbers of the slider's nearby values, and the browser shows them as
the thumb passes them, on its own animation frames:

* When a pointer comes over a slider (or presses it, or a value is relayed, or the drag ends), the relay
  (ui/drag.py) asks for frames around the thumb's value. The run it causes draws the page as usual; every keyed chart
  drawn in the run's scope is recorded (:func:`record` from ui.charts.show_heatmap: its matrix and how to draw it
  again; :func:`record_figure` from ui.charts.show_figure: its ``follow``, or None).
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
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from lessons.cells import Refusal

log = logging.getLogger(__name__)
REQUEST = "_preview_request"  # the relay key → {"css": the slider's class, "v": the thumb's value, "s": its number}
LAST = "_preview_last"  # the keyed heatmaps of the last scope that ended: {key: Drawn} (for the tests)
BUILT = "_preview_built"  # the last frames built (for the tests)
MAX_CELLS = 80_000  # cells sent for one drag (all frames, all charts): ~1 MB at 16 tokens (±14 steps), ~20 kB at 3
MIN_STEPS, MAX_STEPS = 5, 20  # frames each side of the thumb's value
BUDGET_S = 0.4  # the longest the server spends on one drag's frames
FIGURE_CELLS = 400  # a followed figure counts as this many cells (~5 kB a frame: traces and layout)
MAX_BYTES = 1_000_000  # the most one drag's frames may weigh (estimated as JSON): a classroom's network shares them
# (/positional's PE table at 40 × 40, drawn as colours with its waves: ~100 kB a frame, so ±5 values, not ±20)


@dataclass(frozen=True)
class Followed:
    """One keyed figure drawn with a way to draw it in another state (ui.charts.show_figure ``follow``: state → its
    spec) and the ready figure drawn."""
    follow: Callable
    ready: dict


@dataclass(frozen=True)
class Drawn:
    """One keyed heatmap as drawn: its matrix, which weights are exact (or None), the figure drawn, and ``make``:
    (matrix, exact, **the drawing's state-dependent arguments: title_args, highlight_rows, zmax) → the ready figure
    the same call of ui.charts.show_heatmap makes with them (every other argument as drawn)."""
    A: np.ndarray
    E: np.ndarray | None
    make: Callable
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


def record_figure(key: str, follow: Callable | None, ready: dict) -> None:
    """A keyed figure drawn (ui.charts.show_figure) with ``follow`` (state → its spec) or without (None: frames
    cannot show it; the frames then say they are not complete, and the relay goes on sending the thumb's value)."""
    for drawn in _SCOPES.get():
        drawn[key] = Followed(follow, ready)


def record(key: str | None, A: np.ndarray, E: np.ndarray | None, make: Callable, ready: dict) -> None:
    """A keyed heatmap drawn (ui.charts.show_heatmap): recorded in every open scope. A keyless one is recorded under
    None: no frame can reach it, so its scope offers none."""
    for drawn in _SCOPES.get():
        drawn[key] = Drawn(A, E, make, ready)


def _cells(ready: dict) -> tuple[np.ndarray, list, list | None]:
    """A ready heatmap's cells: z (float64, NaN where blank: the chart's own numbers, bit for bit), texts, and the
    hover's value texts (the third part of each cell's customdata), None when the hover has no such part."""
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
    return Z.astype(np.float64), trace.get("text"), hover


def _frame(ready: dict) -> tuple:
    """What must not change for a patch: the layout and the trace without its cells."""
    trace = {k: v for k, v in ready["data"][0].items() if k not in ("z", "text", "customdata")}
    return ready["layout"], trace, len(ready["data"])


ARGS = ("title_args", "highlight_rows", "zmax")  # what a preview entry may give besides the matrix


def _matrix(entry) -> tuple[np.ndarray, np.ndarray | None, dict]:
    """A ``Lesson.preview`` entry as (matrix, exact or None, the drawing's other state-dependent arguments): a matrix,
    a pair (weights, exact), or a dict {"M", "exact"?, and any of ARGS}."""
    extra = {}
    if isinstance(entry, dict):
        extra = {k: entry[k] for k in ARGS if k in entry}
        entry = (entry["M"], entry["exact"]) if entry.get("exact") is not None else entry["M"]
    if isinstance(entry, tuple):
        M, E = entry
        return np.ascontiguousarray(M, dtype=np.float64), np.ascontiguousarray(E, dtype=bool), extra
    return np.ascontiguousarray(entry, dtype=np.float64), None, extra


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


HOVER_SHARE_S = 0.5  # frames asked for by a pointer passing over a slider: at most this much building a second,
# every session of the process together (a class of 40 moving their mice must not take the CPU their runs need; a
# drag still gets its frames at the press, and without them the relay's runs follow it)
_spent: deque = deque()  # (when, seconds) of the builds of the last second, every session
_spent_lock = threading.Lock()


def _hover_allowed(now: float) -> bool:
    with _spent_lock:
        while _spent and now - _spent[0][0] > 1.0:
            _spent.popleft()
        return sum(s for _, s in _spent) < HOVER_SHARE_S


def frames(page, bound, center: float, drawn: dict[str, Drawn], *, hover: bool = False) -> dict | None:
    """:func:`build`; an error in it (a defect) is logged, and the drag goes on without frames. ``hover``: asked for
    by a pointer over the slider, not a drag: built only while the process's recent building is under
    HOVER_SHARE_S a second."""
    if hover and not _hover_allowed(time.monotonic()):
        return None
    started = time.perf_counter()
    try:
        return build(page, bound, center, drawn)
    except Exception:
        log.exception("lesson %s: the frames of a drag of %s raised", page.lesson.key, bound.key)
        return None
    finally:
        with _spent_lock:
            _spent.append((time.monotonic(), time.perf_counter() - started))


def _weight(frame: dict) -> int:
    """A frame's size as JSON (bytes, about: NumPy arrays written as lists)."""
    return len(json.dumps(frame, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))


def build(page, bound, center: float, drawn: dict) -> dict | None:
    """The frames of a drag of slider ``bound`` (ui.drag._Bound) from the thumb's value ``center``: {"values":
    [the browser's value of each frame, ascending], "charts": [...], "complete": whether every keyed chart of the
    scope is in them (a figure drawn without ``follow`` is not)}, or None when the page has nothing to follow
    the drag (no chart to follow, a keyless heatmap, a heatmap the lesson's declaration leaves out, or fewer than two
    values). A heatmap's chart: {"key", "kind": "heatmap", "shape", and per frame "z" (base64 float64,
    little-endian), "text" (flat), "hover" (flat, None where they are the texts) when only its cells change, else
    "figures" ({"data", "layout"})}; a figure's: {"key", "kind": "figure", "figures": per frame {"data", "layout"},
    or None where it is the figure drawn} (a figure the same in every frame is left out).

    Values are tried from the thumb's outwards, for at most BUDGET_S seconds (a slider whose values each need a new
    computation, e.g. a training run, gets fewer frames). A value is offered only when the lesson's colour ranges
    are the state's (the drawn heatmaps' ranges are the state's: ``Lesson.ranges``) and every chart would keep its
    frame: a heatmap its layout, trace and number style (only its cells differ), a figure its size, margins and
    title's place (the place a row of charts gave it: ui.charts.level_tops)."""
    from . import charts, runtime

    lesson = page.lesson
    heat = {k: d for k, d in drawn.items() if isinstance(d, Drawn)}
    figs = {k: d for k, d in drawn.items() if isinstance(d, Followed) and d.follow is not None}
    complete = not any(isinstance(d, Followed) and d.follow is None for d in drawn.values())
    if bound.transition is None or not (heat or figs) or None in drawn or (heat and lesson.preview is None):
        return None
    cells = sum(d.A.size for d in heat.values()) + FIGURE_CELLS * len(figs)
    n = max(MIN_STEPS, min(MAX_STEPS, MAX_CELLS // max(2 * cells, 1)))
    base = {k: _frame(d.ready) for k, d in heat.items()}
    ranges = lesson.ranges(page.state)
    found: dict[float, dict] = {}
    weight, as_drawn = 0, {k: _sent(d.ready) for k, d in figs.items()}
    started = time.perf_counter()
    options = window(bound.options, bound.lo, bound.hi, bound.step, bound.integer, center, n)
    for shown, value in sorted(options, key=lambda o: abs(o[0] - center)):
        if time.perf_counter() - started > BUDGET_S:
            break
        try:
            with runtime.quiet():  # a transition's notice is about a move nobody made
                state = page.moved(page.state, bound.transition, value)
            if lesson.ranges(state) != ranges:
                continue
            mats = lesson.preview(state) if heat else {}
        except Refusal:
            continue
        if any(k not in mats for k in heat):
            return None  # a heatmap the declaration leaves out: nothing can follow the drag
        frame = {k: _heatmap_frame(d, mats[k], base[k]) for k, d in heat.items()}
        frame.update({k: _figure_frame(charts, d, state) for k, d in figs.items()})
        if all(f is not None for f in frame.values()):
            weight += _weight({k: f for k, f in frame.items() if k not in as_drawn or f != as_drawn[k]})
            if weight > MAX_BYTES and len(found) >= 2:
                break  # (values come nearest first: the frames stay a window around the thumb)
            found[shown] = frame
    if len(found) < 2:
        return None
    values = sorted(found)
    out = []
    for k, d in sorted(heat.items()):
        chart = {"key": k, "kind": "heatmap", "shape": list(d.A.shape), "z": [], "text": [], "hover": [],
                 "figures": []}
        for v in values:
            f = found[v][k]
            chart["figures"].append(f.get("figure"))
            if "cells" not in f:
                chart["z"].append(None), chart["text"].append(None), chart["hover"].append(None)
                continue
            Z, text, hover = f["cells"]
            chart["z"].append(base64.b64encode(Z.astype("<f8").tobytes()).decode("ascii"))
            flat = [x for row in text for x in row]
            chart["text"].append(flat)
            hov = None if hover is None else [x for row in hover for x in row]
            chart["hover"].append(None if hov == flat else hov)
        out.append(chart)
    for k in sorted(figs):  # a figure as drawn in a frame is sent as None; one never changed, not at all
        figures = [None if found[v][k] == as_drawn[k] else found[v][k] for v in values]
        if any(f is not None for f in figures):
            out.append({"key": k, "kind": "figure", "figures": figures})
    return {"values": values, "charts": out, "complete": complete}


def _sent(ready: dict) -> dict:
    """A ready figure as a frame holds it: its traces, its layout without the template."""
    return {"data": ready["data"], "layout": {k: v for k, v in ready["layout"].items() if k != "template"}}


def _heatmap_frame(d: Drawn, entry, base: tuple):
    """A heatmap in a frame's state: its cells (z, texts, hovers) when only they differ from the drawn chart of one
    trace, else
    the whole figure (``{"data", "layout"}``, drawn by plotly in place) when its size, margins, title's place, trace
    count and colour bar's side stay, else None (the value is not offered)."""
    M, E, extra = _matrix(entry)
    if M.shape != d.A.shape or (E is None) != (d.E is None):
        return None
    ready = d.make(M, E, **extra)
    if _frame(ready) == base and len(ready["data"]) == 1:  # (masked cells are a second trace: a whole figure)
        return {"cells": _cells(ready)}
    return _whole(ready, d.ready)


def _whole(ready: dict, drawn: dict) -> dict | None:
    bar = lambda r: [(t.get("type"), (t.get("colorbar") or {}).get("orientation")) for t in r["data"]]  # noqa: E731
    if _place(ready["layout"]) != _place(drawn["layout"]) or bar(ready) != bar(drawn):
        return None
    return {"figure": _sent(ready)}


PLACE = ("margin", "height", "width")  # a figure's size and margins, kept in a frame
TITLE_PLACE = ("y", "yanchor", "yref", "pad")  # and its title's place


def _place(layout: dict) -> tuple:
    title = layout.get("title")
    return (tuple(repr(layout.get(k)) for k in PLACE),
            tuple(repr(title.get(k)) for k in TITLE_PLACE) if isinstance(title, dict) else None)


def _figure_frame(charts, d: Followed, state) -> dict | None:
    """A followed figure in ``state`` ({"data", "layout" without its template}), or None when its size, margins or
    title's place would differ from the drawn figure's."""
    spec = d.follow(state)
    if spec is None:  # the follow cannot draw that state (another number of keys): the value is not offered
        return None
    whole = _whole(charts.ready_figure(spec), d.ready)
    return None if whole is None else whole["figure"]
