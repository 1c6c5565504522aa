"""A grid cell (the matrix editors) with every bad kind of text a person can type or paste into it.

AppTest does not apply data_editor edits, so the grid's own edit path is driven here as the editor's on_change runs
it (ui.widgets._apply_edits with lessons.cells.parse_cell_text, then the notice ui.widgets.matrix_editor sends),
for every matrix of every registered lesson's link schema (the grids edit those matrices), at the matrix's shape in
the lesson's default state. The browser half (the notice next to the grid, the old number back in the cell) is
tests/e2e/test_qkv_browser.py::test_refusal_notice_is_on_screen_where_the_grid_is_edited.

Expected results are written from what a person means (the rules of lessons/cells.py's docstring): a plain or
full-width decimal, a Japanese minus, surrounding spaces → that number; anything else → refused, the cell keeps its
number, and the words say which cell and why, quoting what was typed.
"""
from __future__ import annotations

import numpy as np
import pytest

import lessons
from lessons import link
from lessons.cells import CELL_LIMIT, parse_cell_text
from ui.i18n import LANGS, table

READ = {  # typed → the number it means
    " 2.5 ": 2.5, "-0": 0.0, "１．５": 1.5, "ー１": -1.0, "−3": -3.0, "1e3": 1000.0, ".5": 0.5, "3.": 3.0,
}
REFUSED = {  # typed → the reason's code
    None: "empty", "": "empty", "   ": "empty", "nan": "not_finite", "NaN": "not_finite", "inf": "not_finite",
    "-inf": "not_finite", "∞": "not_finite", "infinity": "not_finite", "1e308": "too_big", "-1e308": "too_big",
    "1001": "too_big", "1000.0000001": "too_big", "abc": "not_number", "1_0": "not_number", "0x10": "not_number",
    "1,5": "not_number",
    "1 2": "not_number", "<b>1</b>": "not_number", "$1$": "not_number", "**1**": "not_number", "🐕": "not_number",
    "9" * 1000: "not_finite", "1" + "0" * 400: "not_finite", "\u202e1": "invisible", "1\u200b": "invisible",
}


def grids():
    """(lesson, matrix field, shape) of every number matrix in every registered lesson's link."""
    out = []
    for lesson in lessons.REGISTRY:
        state = lesson.default_state()
        for m in lesson.link.matrices:
            if not isinstance(m, link.Mask):
                out.append((lesson, m, lesson.matrix_shape(state, m.key)))
    return out


GRIDS = pytest.mark.parametrize("lesson, field, shape", grids(), ids=lambda x: getattr(x, "key", str(x)))


@GRIDS
@pytest.mark.parametrize("typed, number", list(READ.items()), ids=list(READ))
def test_a_cell_takes_what_a_person_means_as_a_number(lesson, field, shape, typed, number):
    from ui.widgets import _apply_edits

    base = np.full(shape, 0.5)
    cols = [str(j) for j in range(shape[1])]
    out, refused = _apply_edits(base, {0: {cols[-1]: typed}}, cols, parse_cell_text)
    assert refused == []
    want = base.copy()
    want[0, -1] = number
    np.testing.assert_array_equal(out, want)
    assert not np.signbit(out).any() or number < 0  # −0 is stored as 0


@GRIDS
@pytest.mark.parametrize("typed, code", list(REFUSED.items()), ids=[repr(k)[:12] for k in REFUSED])
def test_a_bad_cell_is_refused_named_and_the_others_are_kept(lesson, field, shape, typed, code):
    from ui.widgets import _apply_edits

    base = np.arange(shape[0] * shape[1], dtype=float).reshape(shape) / 4
    cols = [str(j) for j in range(shape[1])]
    edits = {0: {cols[0]: typed}}
    edits.setdefault(shape[0] - 1, {})[cols[-1]] = "7"  # a good edit in the same batch still lands (a one-row
    # matrix: the same row's other cell; a 1 × 1 matrix has none, its one cell is the refused one)
    if shape == (1, 1):
        edits[0][cols[0]] = typed
    out, refused = _apply_edits(base, edits, cols, parse_cell_text)
    assert [(i, j, e.code) for i, j, e in refused] == [(0, 0, code)]
    assert out[0, 0] == base[0, 0] and out[-1, -1] == (7.0 if shape != (1, 1) else base[0, 0])
    assert np.isfinite(out).all() and np.abs(out).max() <= CELL_LIMIT
    e = refused[0][2]
    for lang in LANGS:  # the words of ui.widgets.matrix_editor's notice: which cell, why, what was typed
        tb = table(lang)
        reason = tb[f"reason.{e.code}"].format(**e.args_)
        text = tb["notice.cell_refused"].format(matrix=field.key, row=1, col=1, reason=reason)
        assert field.key in text and "{" not in text
        if "value" in e.args_:  # quoted as typed (at most 40 characters): 1000.0000001 is not "1000"
            assert e.args_["value"] == str(typed).strip()[:40]
