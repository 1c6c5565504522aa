"""Heatmaps that follow a drag (ui/preview.py, issue 18), checked for every registered lesson through its declaration.

``Lesson.preview(state)`` names the matrix each keyed heatmap of the page shows. Oracle: the page itself, run by
AppTest: (1) in the lesson's fixed states and the settings of its lesson plan, every keyed heatmap the page draws is
declared, with the same matrix (and the same exact weights) as drawn, and no heatmap is drawn without a key; (2) the
frames a drag asks for (built from the declaration for the slider's nearby values) hold, for each value they offer,
exactly the cells (numbers, texts, hover texts) of the page opened at that value.
"""
from __future__ import annotations

import numpy as np
import pytest
from lesson_strategies import fixed_states
from test_pages import open_page

import lessons
from ui import drag, preview

LESSONS = pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)


def states(lesson) -> list:
    return fixed_states(lesson) + [q.state() for q in lesson.plan]


def drawn_heatmaps(at) -> dict:
    return at.session_state[preview.LAST]


def same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


@LESSONS
def test_the_declaration_names_every_drawn_heatmap_with_its_matrix(lesson):
    for state in states(lesson):
        at = open_page(lesson, state=state)
        assert not at.exception, [e.value for e in at.exception]
        drawn = drawn_heatmaps(at)
        assert None not in drawn, "a heatmap drawn without a key: no drag can reach it"
        if not drawn:
            continue
        assert lesson.preview is not None, f"{lesson.key} draws heatmaps {sorted(drawn)} but declares no preview"
        shown_state = at.session_state[f"{lesson.key}:state"]
        declared = lesson.preview(shown_state)
        for key, d in drawn.items():
            assert key in declared, f"{lesson.key}: heatmap {key} is not in Lesson.preview"
            M, E = preview._matrix(declared[key])
            assert same(M, d.A), f"{lesson.key}: {key}: declared {M} but drawn {d.A}"
            assert (E is None) == (d.E is None), f"{lesson.key}: {key}: exact weights declared or drawn, not both"
            if E is not None:
                assert same(E, d.E), f"{lesson.key}: {key}: exact weights differ"


def _moved(lesson, state, bound, value):
    new = bound.transition(state, value)
    if lesson.cell_matrices is not None and getattr(new, "cell", None) is not None:
        new = lesson.with_picked_cell(new, *lesson.picked_cell(new))
    return new


def _frames_of(lesson, state, css: str | None = None):
    """Open the page at ``state`` asking for the frames of a drag of each of its sliders (of ``css`` only):
    {css: (bound, frames or None)}."""
    at = open_page(lesson, state=state)
    out = {}
    for c, bound in sorted(at.session_state[drag.SLIDERS].items()):
        if (css is not None and c != css) or bound.transition is None:
            continue
        center = float(bound.options.index(at.session_state[bound.key])) if bound.options is not None \
            else float(at.session_state[bound.key])
        at.session_state[preview.REQUEST] = {drag.DRAG_KEY: {"css": c, "k": [c], "v": center, "s": 1}}
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        out[c] = (bound, at.session_state[preview.BUILT] if preview.BUILT in at.session_state else None,
                  at.session_state[f"{lesson.key}:state"])
        at.session_state[preview.BUILT] = None
    return out


@LESSONS
def test_each_frame_holds_the_cells_the_page_draws_at_its_value(lesson):
    """For each slider of the default state: the two frames farthest from the thumb on either side, against the
    page opened at their values."""
    checked = 0
    for css, (bound, frames, state) in _frames_of(lesson, lesson.default_state()).items():
        if not frames:
            continue
        values = frames["values"]
        for k in sorted({0, len(values) - 1}):
            shown = values[k]
            value = bound.options[int(shown)] if bound.options is not None else (
                int(round(shown)) if bound.integer else shown)
            truth = open_page(lesson, state=_moved(lesson, state, bound, value))
            assert not truth.exception
            drawn = drawn_heatmaps(truth)
            for chart in frames["charts"]:
                Z, text, hover = preview._cells(drawn[chart["key"]].ready)
                got = np.frombuffer(__import__("base64").b64decode(chart["z"][k]), dtype=np.float32)
                assert same(got.reshape(Z.shape), Z), f"{css} at {value}: {chart['key']} numbers differ"
                flat = [x for row in text for x in row]
                assert chart["text"][k] == flat, f"{css} at {value}: {chart['key']} texts differ"
                want = None if hover is None else [x for row in hover for x in row]
                assert (chart["hover"][k] or chart["text"][k]) == (want if want is not None else flat)
            checked += 1
    if lesson.preview is not None and any(lesson.preview(lesson.default_state())):
        assert checked, f"{lesson.key}: no slider of its default page offers frames to follow a drag"
