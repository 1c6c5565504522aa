"""Charts that follow a drag (ui/preview.py, issue 18), checked for every registered lesson through its declarations.

``Lesson.preview(state)`` names the matrix each keyed heatmap of the page shows. Oracle: the page itself, run by
AppTest: (1) in the lesson's fixed states and the settings of its lesson plan, every keyed heatmap the page draws is
declared, with the same matrix (and the same exact weights) as drawn, and no heatmap is drawn without a key; (2) the
frames a drag asks for (built from the declaration, and from the ``follow`` of each figure drawn with one, for the
slider's nearby values) hold, for each value they offer, exactly what the page opened at that value draws: a heatmap's
cells (numbers, texts, hover texts) in the same chart frame, a figure's traces and layout.
"""
from __future__ import annotations

import base64
import json

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
        drawn = {k: d for k, d in drawn_heatmaps(at).items() if isinstance(d, preview.Drawn)}
        assert None not in drawn, "a heatmap drawn without a key: no drag can reach it"
        if not drawn:
            continue
        assert lesson.preview is not None, f"{lesson.key} draws heatmaps {sorted(drawn)} but declares no preview"
        shown_state = at.session_state[f"{lesson.key}:state"]
        declared = lesson.preview(shown_state)
        for key, d in drawn.items():
            assert key in declared, f"{lesson.key}: heatmap {key} is not in Lesson.preview"
            M, E, _ = preview._matrix(declared[key])
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
    own = [w.value for w in at.warning]  # the page's own (a state's warning: /scaling's "almost one book")
    out = {}
    sliders = at.session_state[drag.SLIDERS] if drag.SLIDERS in at.session_state else {}
    for c, bound in sorted(sliders.items()):
        if (css is not None and c != css) or bound.transition is None:
            continue
        center = float(bound.options.index(at.session_state[bound.key])) if bound.options is not None \
            else float(at.session_state[bound.key])
        at.session_state[preview.REQUEST] = {drag.DRAG_KEY: {"css": c, "k": [c], "v": center, "s": 1}}
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        out[c] = (bound, at.session_state[preview.BUILT] if preview.BUILT in at.session_state else None,
                  at.session_state[f"{lesson.key}:state"], center)
        at.session_state[preview.BUILT] = None
    at.run()
    assert [w.value for w in at.warning] == own, ("building a drag's frames queued a notice about a move nobody "
                                                  f"made: {[w.value for w in at.warning]}")
    return out


def _check_heatmap(chart, k, truth, start, where):
    """Frame ``k`` of heatmap ``chart``: the cells of the page drawn at its value (``truth``, a preview.Drawn), and
    the page's own frame of that chart (layout, colour range, number style) that of the chart drawn at the start;
    or, a whole figure, the page's figure at that value."""
    if chart["figures"][k] is not None:
        _check_figure(chart, k, truth, start, where)
        return
    assert preview._frame(truth.ready) == preview._frame(start.ready), f"{where}: the chart's frame changed"
    assert len(truth.ready["data"]) == 1, f"{where}: cells alone sent for a chart of several traces"
    Z, text, hover = preview._cells(truth.ready)
    got = np.frombuffer(base64.b64decode(chart["z"][k]), dtype="<f8")  # bit for bit the fresh draw's
    assert same(got.reshape(Z.shape), Z), f"{where}: numbers differ"
    flat = [x for row in text for x in row]
    assert chart["text"][k] == flat, f"{where}: texts differ"
    want = None if hover is None else [x for row in hover for x in row]
    assert (chart["hover"][k] or chart["text"][k]) == (want if want is not None else flat), f"{where}: hovers differ"


def _check_figure(chart, k, truth, start, where):
    """Frame ``k`` of a followed figure: the traces and layout of the page drawn at its value (``truth``, a
    preview.Followed), its size, margins and title place those of the chart drawn at the start."""
    frame = chart["figures"][k] or preview._sent(start.ready)  # (None: the figure drawn at the start)
    assert json.dumps(frame["data"], sort_keys=True) == json.dumps(truth.ready["data"], sort_keys=True), \
        f"{where}: traces differ"
    layout = {key: v for key, v in truth.ready["layout"].items() if key != "template"}
    assert json.dumps(frame["layout"], sort_keys=True) == json.dumps(layout, sort_keys=True), f"{where}: layout"
    assert preview._place(truth.ready["layout"]) == preview._place(start.ready["layout"]), f"{where}: moved"


@LESSONS
@pytest.mark.parametrize("which", ["default", "widest"])
def test_each_frame_holds_what_the_page_draws_at_its_value(lesson, which):
    """For each slider of the default state (and of the widest, where the lesson declares one: other charts, e.g.
    /multihead's colour maps of many heads): the two frames farthest from the thumb on either side, against the page
    opened at their values; at least one slider offers frames where the page has a chart to follow."""
    if which == "widest" and lesson.widest is None:
        pytest.skip(f"{lesson.key} declares no widest state")
    start = lesson.default_state() if which == "default" else lesson.widest()
    start_page = open_page(lesson, state=start)
    followed = drawn_heatmaps(start_page)
    checked, keeps = 0, []
    for css, (bound, frames, state, center) in _frames_of(lesson, start).items():
        keeps += [css] if _keeps_shapes(lesson, state, bound, center) else []
        if not frames:
            continue
        values = frames["values"]
        assert values == sorted(values) and len(values) >= 2
        for k in sorted({0, len(values) - 1}):
            shown = values[k]
            value = bound.options[int(shown)] if bound.options is not None else (
                int(round(shown)) if bound.integer else shown)
            truth = open_page(lesson, state=_moved(lesson, state, bound, value))
            assert not truth.exception
            drawn = drawn_heatmaps(truth)
            for chart in frames["charts"]:
                where = f"{css} at {value}: {chart['key']}"
                check = _check_figure if chart["kind"] == "figure" else _check_heatmap
                check(chart, k, drawn[chart["key"]], followed[chart["key"]], where)
            checked += 1
    if followed and keeps:
        assert checked, (f"{lesson.key}: no slider of its default page offers frames to follow a drag, though "
                         f"{keeps} move to a value that keeps every declared matrix's shape")


def _keeps_shapes(lesson, state, bound, center: float) -> bool:
    """Whether the slider's next value (either way) leaves the shapes of the lesson's declared matrices as they are
    (a lesson without heatmaps: always)."""
    if lesson.preview is None:
        return True
    shapes = lambda s: {k: preview._matrix(v)[0].shape for k, v in lesson.preview(s).items()}  # noqa: E731
    before = shapes(state)
    for shown, value in preview.window(bound.options, bound.lo, bound.hi, bound.step, bound.integer, center, 1):
        if shown != center and shapes(_moved(lesson, state, bound, value)) == before:
            return True
    return False
