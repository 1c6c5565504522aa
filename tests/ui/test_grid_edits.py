"""The grid editor's edit handling (ui.widgets): typed text → matrix, refusals named by cell, display text."""
from __future__ import annotations

import numpy as np
import pytest

from lessons.cells import parse_cell_text
from ui.numbers import editable
from ui.widgets import _apply_edits

COLS = ["1", "2", "3"]
BASE = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


def test_typed_text_lands_in_its_cell_and_the_rest_is_untouched():
    out, refused = _apply_edits(BASE, {0: {"2": "0.5"}, "1": {"1": "－７", "3": "１．２５"}}, COLS, parse_cell_text)
    want = BASE.copy()
    want[0, 1], want[1, 0], want[1, 2] = 0.5, -7.0, 1.25
    np.testing.assert_array_equal(out, want)
    assert refused == []
    np.testing.assert_array_equal(BASE, [[1, 2, 3], [4, 5, 6]])  # the base itself is never changed


@pytest.mark.parametrize("value, code", [(None, "empty"), ("", "empty"), ("1e308", "too_big"), ("nan", "not_finite"),
                                         ("abc", "not_number")])
def test_a_refused_cell_keeps_its_old_value_and_is_named(value, code):
    out, refused = _apply_edits(BASE, {1: {"3": value}, 0: {"1": "9"}}, COLS, parse_cell_text)
    assert out[1, 2] == 6.0 and out[0, 0] == 9.0  # the good edit in the same batch still lands
    assert [(i, j, e.code) for i, j, e in refused] == [(1, 2, code)]


def test_edits_outside_the_matrix_are_ignored():
    out, refused = _apply_edits(BASE, {5: {"1": "1"}, 0: {"9": "1"}, -1: {"1": "1"}}, COLS, parse_cell_text)
    np.testing.assert_array_equal(out, BASE)
    assert refused == []


# The grid's text by the one number rule (ui.numbers.editable): 6 significant digits, "−" (U+2212), never "e"
# notation (1e-07 was shown before), never "−0"; parse_cell_text reads each text back as its value.
@pytest.mark.parametrize("v, text", [(0.5, "0.5"), (3.0, "3"), (-1.25, "\u22121.25"), (1e-7, "0.0000001"),
                                     (1000.0, "1000"), (0.123456789, "0.123457"), (0.0, "0"), (-0.0, "0"),
                                     (-1000.0, "\u22121000"), (2.5e-13, "<0.000000000001")])
def test_grid_text(v, text):
    assert editable(v) == text
    if not text.startswith("<"):
        assert parse_cell_text(text) == float(f"{v:.6g}")


def test_a_refused_edit_keeps_the_cells_last_accepted_value_not_the_grids_base(monkeypatch):
    """Found by a new user: empty → refused (the grid restarts on base B), " 2 " → accepted, "1,5" → refused.
    The grid's third edit replaced its second in edited_rows, so B + edits would bring back B's 1, undoing the
    accepted 2. The cell must keep 2, and only the refusal is announced."""
    import types

    import ui.widgets as W

    base = BASE.copy()  # the grid's base after its restart: cell (0, 0) holds 1
    current = base.copy()
    current[0, 0] = 2.0  # the accepted " 2 "
    state = {"g:base": base, "g:current": current, "g:ed1": {"edited_rows": {0: {"1": "1,5"}}}}
    monkeypatch.setattr(W, "st", types.SimpleNamespace(session_state=state))
    committed, notes = [], []
    W._on_edit("g", "g:ed1", COLS, parse_cell_text, committed.append, lambda i, j, e: notes.append((i, j, e.code)))
    assert len(committed) == 1
    np.testing.assert_array_equal(committed[0], current)  # 2 kept, nothing else changed
    assert notes == [(0, 0, "not_number")]


def test_mask_edits_toggle_only_the_clicked_cells():
    base = np.array([[True, False], [True, True]])
    out, refused = _apply_edits(base, {0: {"2": True}, 1: {"1": False}}, ["1", "2"], bool)
    assert out.tolist() == [[True, True], [False, True]] and refused == []
    assert base.tolist() == [[True, False], [True, True]]
