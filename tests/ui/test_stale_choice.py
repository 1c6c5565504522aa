"""A selectbox whose options shrank under it sends back the text of an option that is gone (Streamlit 1.67 keeps a
selectbox's choice in the browser as the option's text): W_Q's last column picked, then d_k lowered, crashed the
Q·K·V page with "invalid literal for int() with base 10: '4: 4'" (a new-user trial). The cell picker must read such
a value as the row or column it named, clamped to what is left; a bound selectbox must take it as no new choice."""
from __future__ import annotations

from dataclasses import replace

from lessons import qkv
from ui.widgets import _index, chosen_option

LESSON = qkv.LESSON


def _dog(d_k: int):
    return qkv.with_sizes(qkv.default_state("dog"), d_k=d_k)  # X (3, 4), W_Q (4, d_k)


def test_a_stale_column_text_after_d_k_shrank_is_the_last_column_not_a_crash():
    """The picker's column box sends back "4: 4" (W_Q's column 4, gone after d_k 5 → 3): read as column 4, kept
    inside W_Q (ui.widgets.cell_picker reads it with _index, then Lesson.with_picked_cell)."""
    state = _dog(3)
    assert LESSON.picked_cell(LESSON.with_picked_cell(state, "W_Q", 0, _index("4: 4"))) == ("W_Q", 0, 2)
    assert LESSON.picked_cell(replace(_dog(5), cell=("W_Q", 0, 4))) == ("W_Q", 0, 4)
    assert LESSON.picked_cell(replace(state, cell=("W_Q", 0, 4))) == ("W_Q", 0, 2)  # chosen before d_k shrank


def test_a_stale_row_text_and_an_unknown_matrix_fall_back():
    state = _dog(5)
    assert LESSON.picked_cell(replace(state, cell=("W_Z", 0, 0))) == ("X", 0, 0)  # the first matrix
    assert LESSON.picked_cell(LESSON.with_picked_cell(state, "X", _index("9: 歩く"), 0)) == ("X", 2, 0)  # 3 rows
    assert chosen_option(["W_Q"], list(qkv.active_matrices("xw"))) is None  # not even a name: no new choice
    direct = qkv.with_mode(replace(state, cell=("W_K", 1, 2)), "direct")  # W_K is not offered in direct mode
    assert LESSON.picked_cell(direct) == ("Q", 1, 2)  # the first matrix offered, the same row and column


def test_index_reads_an_int_or_an_options_numbered_text():
    assert [_index(v) for v in (0, 3, "4: 4", "12: 歩く", " 2: が", None, "", "x", True, 2.5)] == \
        [0, 3, 3, 11, 1, 0, 0, 0, 0, 0]


def test_chosen_option_maps_texts_back_and_refuses_what_is_gone():
    fmt = lambda i: f"{i + 1}: {'abc'[i]}"  # noqa: E731
    options = [0, 1, 2]
    assert chosen_option(1, options, fmt) == 1
    assert chosen_option("2: b", options, fmt) == 1
    assert chosen_option("4: d", options, fmt) is None  # an option that is gone
    assert chosen_option(True, [0, 1], fmt) is None  # not the option 1
    assert chosen_option("xw", ["xw", "direct"]) == "xw"
    assert chosen_option("gone", ["xw", "direct"]) is None
