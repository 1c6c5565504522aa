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


# ---- the other order: the edit committed first, the resize after (issue 20, seen in CI at a load of ~10) ----------
class _Grid:
    """The X grid of the Q·K·V lesson drawn by ui.widgets._grid with a fake Streamlit: what it names as dropped."""

    def __init__(self, monkeypatch, state):
        self.ss: dict = {}
        self.state, self.dropped = state, []
        fake = types.SimpleNamespace(session_state=self.ss, data_editor=lambda *a, **k: None,
                                     caption=lambda *a, **k: None)
        monkeypatch.setattr(W, "st", fake)
        monkeypatch.setattr(W, "t", lambda key, **kw: key)

    def draw(self):
        M = self.state.mats["X"]
        cols = [str(j + 1) for j in range(M.shape[1])]
        W._grid("g", M, list(self.state.tokens), cols, show=str, read=parse_cell_text, column=lambda c: None,
                commit=self.commit, on_dropped=lambda cells, shape: self.dropped.append((cells, shape)))

    def commit(self, M):
        self.state = qkv.with_matrix(self.state, "X", M)

    def type(self, edits):
        """Cells typed and committed (the grid's on_change) on the matrix as drawn."""
        ver = self.ss["g:ver"]
        self.ss[f"g:ed{ver}"] = {"edited_rows": edits}
        cols = list(self.ss["g:keys"][0])
        W._on_edit("g", f"g:ed{ver}", cols, parse_cell_text, self.commit, None, lambda: self.state.mats["X"],
                   lambda cells, shape: self.dropped.append((cells, shape)))


def test_an_edit_committed_before_a_smaller_d_model_is_named_when_the_grid_restarts(monkeypatch):
    g = _Grid(monkeypatch, qkv.default_state("dog"))  # X (3, 4)
    g.draw()
    g.type({0: {"4": "3"}, 1: {"1": "2"}})
    assert g.state.mats["X"][0, 3] == 3.0 and g.dropped == []  # accepted on the old shape
    g.state = qkv.with_sizes(g.state, d_model=1)  # then the slider's change
    g.draw()
    assert g.dropped == [([(0, 3, "3")], (3, 1))]  # column 4 is gone; row 2 column 1 (typed 2) still there
    assert g.state.mats["X"][1, 0] == 2.0
    g.draw()
    assert len(g.dropped) == 1  # said once: the grid restarted without the old edits


def test_a_row_that_moves_with_its_token_is_not_named_one_that_left_is(monkeypatch):
    g = _Grid(monkeypatch, qkv.default_state("dog"))  # 犬 が 歩く
    g.draw()
    g.type({2: {"1": "5"}, 1: {"2": "6"}})  # 歩く's column 1, が's column 2
    g.state = qkv.with_text(g.state, "歩く犬")  # 歩く now row 0; が left
    g.draw()
    assert g.state.mats["X"][0, 0] == 5.0  # the lesson carried 歩く's typed value along …
    assert g.dropped == [([(1, 1, "6")], (2, 4))]  # … so only が's is named


def test_a_grid_whose_shape_does_not_change_names_nothing(monkeypatch):
    g = _Grid(monkeypatch, qkv.default_state("dog"))
    g.draw()
    g.type({0: {"4": "3"}})
    g.state = qkv.with_seed(g.state, 5)  # other numbers, the same shape
    g.draw()
    assert g.dropped == []
