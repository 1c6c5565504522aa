"""A grid edit still pending when a size slider moves (issue 20, defect 1): both arrive in one rerun, and Streamlit
may run the resize first. The grid's edits are placed on the matrix as the state holds it then: every edit that
still fits is kept at its row and column, the ones that no longer fit are named in a notice, nothing raises.

Driven through ui.widgets._on_edit (the grid's on_change) with the Q·K·V lesson's own commit (lessons.qkv.with_matrix);
expected matrices written from the rule above, by hand."""
from __future__ import annotations

import types

import numpy as np
import pytest

import ui.widgets as W
from lessons import qkv
from lessons.cells import parse_cell_text
from ui.i18n import LANGS, table

COLS4 = ["1", "2", "3", "4"]


def _edit(monkeypatch, base, edits, now):
    """The X grid drawn for ``base`` with ``edits`` typed; the state's X is ``now`` when the edit arrives."""
    state = {"g:base": base, "g:current": base.copy(), "g:ed0": {"edited_rows": edits}}
    monkeypatch.setattr(W, "st", types.SimpleNamespace(session_state=state))
    committed, refused, dropped = [], [], []
    holder = {"s": now}

    def commit(M):
        holder["s"] = qkv.with_matrix(holder["s"], "X", M)  # raises on a matrix of the old shape
        committed.append(M)

    W._on_edit("g", "g:ed0", COLS4, parse_cell_text, commit, lambda i, j, e: refused.append((i, j, e.code)),
               lambda: holder["s"].mats["X"], lambda cells, shape: dropped.append((cells, shape)))
    return holder["s"], committed, refused, dropped


def test_d_model_raised_while_a_cell_edit_was_pending_keeps_the_typed_value(monkeypatch):
    dog = qkv.default_state("dog")  # X (3, 4)
    grown = qkv.with_sizes(dog, d_model=11)  # the slider's change ran first
    state, committed, refused, dropped = _edit(monkeypatch, dog.mats["X"], {0: {"1": "3"}}, grown)
    want = grown.mats["X"].copy()
    want[0, 0] = 3.0
    np.testing.assert_array_equal(state.mats["X"], want)
    assert state.d_model == 11 and refused == [] and dropped == []


def test_d_model_lowered_keeps_what_fits_and_names_what_does_not(monkeypatch):
    dog = qkv.default_state("dog")
    shrunk = qkv.with_sizes(dog, d_model=2)
    state, _, _, dropped = _edit(monkeypatch, dog.mats["X"], {0: {"1": "3"}, 2: {"4": "7", "3": "－１"}}, shrunk)
    want = shrunk.mats["X"].copy()
    want[0, 0] = 3.0
    np.testing.assert_array_equal(state.mats["X"], want)
    assert dropped == [([(2, 3, "7"), (2, 2, "－１")], (3, 2))]


@pytest.mark.parametrize("lang", LANGS)
def test_the_dropped_cells_are_said_in_words(monkeypatch, lang):
    notes = []
    monkeypatch.setattr(W, "t", lambda key, **kw: table(lang)[key].format(**kw))
    W._dropped_notice(lambda code, args: notes.append((code, args)), "X", values=True)(
        [(2, 3, "7"), (2, 2, "－１")], (3, 2))
    (code, args), = notes
    text = table(lang)[f"notice.{code}"].format(**args)
    assert "X" in text and "3×2" in text and "7" in text and "－１" in text
    assert ("3 行 4 列" in text) if lang == "ja" else ("row 3, column 4" in text)
