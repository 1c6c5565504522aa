"""The cross lesson's own charts (ui/lesson_charts/cross.py): the alignment picture's lines are as thick as the
weights (the hand-computed 3 × 4 weights of the default setup, written here from e⁴), one line per (target, source)
pair, each from its target's tick on the top axis to its source's tick on the bottom one; the top axis has n_q
labels and the bottom one n_k (checked separately: nothing assumes a square); tokens are escaped; the shares chart
marks the slider's length."""
from __future__ import annotations

import math

import numpy as np
import pytest

import lessons.cross as L
from ui.lesson_charts.cross import LINE_MAX_PX, alignment_positions, alignment_spec, shares_spec

E4 = math.exp(4.0)
HI, LO = E4 / (E4 + 2), 1 / (E4 + 2)
HAND = np.array([[LO, HI, LO, 0.0], [HI, LO, LO, 0.0], [LO, LO, HI, 0.0]])
TARGETS, SOURCES = ["the", "dog", "walks"], ["犬", "が", "歩く", "[PAD]"]


def _lines(spec):
    return [d for d in spec["data"] if d.get("mode") == "lines"]


def _spec(W=HAND, targets=TARGETS, sources=SOURCES, chosen=1):
    return alignment_spec(W, targets, sources, chosen=chosen, title="T", target_title="Target",
                          source_title="Source")


def test_the_lesson_gives_the_hand_weights():
    np.testing.assert_allclose(L.compute(L.default_state()).steps.weights, HAND, atol=1e-12)


def test_line_widths_are_the_weights():
    lines = _lines(_spec())
    assert len(lines) == 3 * 4
    got = np.zeros((3, 4))
    for d in lines:
        got[d["meta"]["row"], d["meta"]["col"]] = d["line"]["width"] / LINE_MAX_PX
    np.testing.assert_allclose(got, HAND, atol=1e-12)
    dog_cat = next(d for d in lines if d["meta"] == {"row": 1, "col": 0})
    assert dog_cat["line"]["width"] == pytest.approx(0.9646631559 * LINE_MAX_PX)
    assert next(d for d in lines if d["meta"] == {"row": 0, "col": 3})["line"]["width"] == 0.0  # the PAD key


def test_each_line_joins_its_target_tick_to_its_source_tick():
    spec = _spec()
    top, bottom = spec["layout"]["xaxis2"], spec["layout"]["xaxis"]
    assert top["tickvals"] == pytest.approx([1 / 6, 3 / 6, 5 / 6])  # 3 targets
    assert bottom["tickvals"] == pytest.approx([1 / 8, 3 / 8, 5 / 8, 7 / 8])  # 4 sources
    assert top["ticktext"] == TARGETS and bottom["ticktext"] == SOURCES
    for d in _lines(spec):
        i, j = d["meta"]["row"], d["meta"]["col"]
        assert d["x"] == pytest.approx([top["tickvals"][i], bottom["tickvals"][j]]) and d["y"] == [1.0, 0.0]


def test_the_chosen_row_is_drawn_last_in_the_query_colour():
    lines = _lines(_spec(chosen=2))
    assert [d["meta"]["row"] for d in lines[-4:]] == [2, 2, 2, 2]
    assert len({d["line"]["color"] for d in lines[-4:]}) == 1 != len({d["line"]["color"] for d in lines})


def test_rows_and_columns_are_checked_separately():
    W = np.full((2, 5), 0.2)
    spec = _spec(W, ["a", "b"], list("vwxyz"), chosen=0)
    assert len(spec["layout"]["xaxis2"]["ticktext"]) == 2 and len(spec["layout"]["xaxis"]["ticktext"]) == 5
    with pytest.raises(ValueError):
        _spec(W, ["a", "b", "c"], list("vwxyz"))  # 3 labels for 2 rows
    with pytest.raises(ValueError):
        _spec(W, ["a", "b"], list("vwxy"))


def test_tokens_are_escaped_in_ticks_and_hover():
    spec = _spec(np.array([[1.0]]), ["<b>x</b>"], ["&lt;"], chosen=0)
    assert spec["layout"]["xaxis2"]["ticktext"] == ["&lt;b&gt;x&lt;/b&gt;"]
    assert "&amp;lt;" in _lines(spec)[0]["text"][0] and "<b>" not in _lines(spec)[0]["text"][0]


def test_positions_are_slot_centres():
    assert alignment_positions(2) == [0.25, 0.75]


def test_shares_chart_marks_the_current_length():
    spec = shares_spec([3, 4, 5], [1 / 3, 1 / 4, 1 / 5], [0.9, 0.8, 0.7], 4, names=("a", "b"), marker="n = 4",
                       title="T", x_title="x", y_title="y")
    assert spec["layout"]["shapes"][0]["x0"] == 4 and spec["layout"]["annotations"][0]["text"] == "n = 4"
    assert [d["y"] for d in spec["data"]] == [[1 / 3, 1 / 4, 1 / 5], [0.9, 0.8, 0.7]]
