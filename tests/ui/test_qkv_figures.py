"""ui/figures.py builders, as plain functions (AppTest has no plotly accessor): cases K09–K11. Each spec is read
as a validated go.Figure (attribute access; validation changes nothing: tests/ui/test_figure_specs.py).

- K10: row 0 is the top row (y axis reversed), cells placed by position 0..n-1, labels only as tick text;
- K09: duplicate tokens give 5 ticks, never merged;
- K11: weights on a sequential scale fixed to 0..1; everything else diverging, centred on 0, symmetric;
- tokens are escaped before plotly sees them; cell texts are the formatted values (checked by hand).
"""
from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ui import figures as F
from ui import numbers

ROOT = Path(__file__).resolve().parents[2]
MINUS = "\u2212"
K09 = ["犬", "が", "犬", "を", "見る"]


def heatmap(*args, **kwargs) -> go.Figure:
    return go.Figure(F.heatmap_spec(*args, **kwargs))


def bars(*args, **kwargs) -> go.Figure:
    return go.Figure(F.bars_spec(*args, **kwargs))


def vector_mix(*args, **kwargs) -> go.Figure:
    return go.Figure(F.vector_mix_spec(*args, **kwargs))


def luminance(color: str) -> float:
    """Relative luminance (WCAG) of '#rrggbb' or 'rgb(r,g,b)'."""
    if color.startswith("#"):
        rgb = [int(color[k:k + 2], 16) for k in (1, 3, 5)]
    else:
        rgb = [int(float(x)) for x in re.findall(r"[\d.]+", color)[:3]]

    def lin(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


# -------------------------------------------------------------------------------------------- orientation
def test_row_zero_on_top_and_cells_by_position():
    M = np.arange(6, dtype=float).reshape(2, 3)
    fig = heatmap(M, ["r0", "r1"], ["c0", "c1", "c2"])
    h = fig.data[0]
    assert fig.layout.yaxis.autorange == "reversed"
    assert list(h.x) == [0, 1, 2]
    assert list(h.y) == [0, 1]
    np.testing.assert_array_equal(np.asarray(h.z, dtype=float), M)  # z[0] is row 0, not flipped
    assert list(fig.layout.xaxis.tickvals) == [0, 1, 2]
    assert list(fig.layout.xaxis.ticktext) == ["c0", "c1", "c2"]
    assert list(fig.layout.yaxis.tickvals) == [0, 1]
    assert list(fig.layout.yaxis.ticktext) == ["r0", "r1"]


def test_axis_titles_are_passed_through():
    fig = heatmap(np.eye(2), ["a", "b"], ["a", "b"], row_title="query", col_title="key", title="T")
    assert fig.layout.yaxis.title.text == "query"
    assert fig.layout.xaxis.title.text == "key"
    assert "T" in fig.layout.title.text


def test_k09_duplicates_are_not_merged():
    W = np.full((5, 5), 0.2)
    fig = heatmap(W, K09, K09, weights=True)
    h = fig.data[0]
    assert list(h.x) == [0, 1, 2, 3, 4] and list(h.y) == [0, 1, 2, 3, 4]
    assert list(fig.layout.xaxis.ticktext) == K09
    assert list(fig.layout.yaxis.ticktext) == K09
    assert len(fig.layout.xaxis.tickvals) == 5 and len(fig.layout.yaxis.tickvals) == 5
    assert np.asarray(h.z).shape == (5, 5)
    # hover data names each cell by its own row/column label, numbered by position as the labels repeat ("which 犬?")
    assert h.customdata[2][0][0] == "3: 犬" and h.customdata[0][0][0] == "1: 犬" and h.customdata[3][4][1] == "5: 見る"


def test_hover_names_number_repeated_labels_only():
    assert F.hover_names(["犬", "が", "歩く"]) == ["犬", "が", "歩く"]
    assert F.hover_names(["the", "cat", "the"]) == ["1: the", "2: cat", "3: the"]
    assert F.hover_names(["<b>", "<b>"]) == ["1: &lt;b&gt;", "2: &lt;b&gt;"]  # still escaped
    bars = F.bars_spec([0.5, 0.5], ["the", "the"])
    assert bars["data"][0]["customdata"] == ["1: the", "2: the"]


def test_bars_k09_duplicates_by_position():
    fig = bars([0.1, 0.2, 0.3, 0.2, 0.2], K09)
    b = fig.data[0]
    assert list(b.x) == [0, 1, 2, 3, 4]
    assert list(fig.layout.xaxis.ticktext) == K09


# ---------------------------------------------------------------------------------------------- colours
def test_weights_scale_is_sequential_and_fixed():
    fig = heatmap(np.array([[0.2, 0.3], [0.4, 0.5]]), ["a", "b"], ["a", "b"], weights=True)
    h = fig.data[0]
    assert h.zmin == 0 and h.zmax == 1
    assert h.zmid is None
    lum = [luminance(c) for _, c in h.colorscale]
    assert all(b > a for a, b in zip(lum, lum[1:])), "sequential: lightness grows monotonically"


def test_weights_scale_does_not_follow_the_data():
    a = heatmap(np.array([[0.01, 0.02]]), ["q"], ["a", "b"], weights=True).data[0]
    assert (a.zmin, a.zmax) == (0, 1)


def test_diverging_scale_centred_and_symmetric():
    M = np.array([[1.0, -3.0], [2.0, 0.5]])
    h = heatmap(M, ["a", "b"], ["a", "b"]).data[0]
    assert h.zmid == 0
    assert h.zmax == 3.0 and h.zmin == -3.0  # ±max|M| = ±3
    stops = [c for _, c in h.colorscale]
    lum = [luminance(c) for c in stops]
    mid = lum[len(lum) // 2]
    assert mid == max(lum), "white-ish in the middle"
    assert lum[0] < mid and lum[-1] < mid


def test_diverging_scale_all_positive_still_symmetric():
    h = heatmap(np.array([[1.0, 4.0]]), ["a"], ["a", "b"]).data[0]
    assert (h.zmin, h.zmax, h.zmid) == (-4.0, 4.0, 0)


def test_diverging_with_explicit_zmax_and_all_zero():
    h = heatmap(np.array([[1.0, 4.0]]), ["a"], ["a", "b"], zmax=10).data[0]
    assert (h.zmin, h.zmax) == (-10, 10)
    h = heatmap(np.zeros((2, 2)), ["a", "b"], ["a", "b"]).data[0]
    assert h.zmin == -h.zmax and h.zmax > 0


# ------------------------------------------------------------------------------------------- escaping
def test_token_html_is_escaped():
    fig = heatmap(np.eye(2), ["<b>x</b>", "a&b"], ["<i>", "y"])
    assert list(fig.layout.yaxis.ticktext) == ["&lt;b&gt;x&lt;/b&gt;", "a&amp;b"]
    assert list(fig.layout.xaxis.ticktext) == ["&lt;i&gt;", "y"]
    assert "<b>x</b>" not in str(fig.data[0].customdata)
    fig = bars([0.5, 0.5], ["<b>x</b>", "y"])
    assert list(fig.layout.xaxis.ticktext)[0] == "&lt;b&gt;x&lt;/b&gt;"


# ----------------------------------------------------------------------------------------- cell texts
def test_cell_texts_are_formatted_values():
    M = np.array([[0.12345, -2.5], [1234.5, -0.001]])
    fig = heatmap(M, ["a", "b"], ["c", "d"])
    # by hand: 2 decimals, a real minus sign, no negative zero; −0.001 is not 0 but rounds to it: its bound
    assert [list(r) for r in fig.data[0].text] == [["0.12", MINUS + "2.50"], ["1234.50", ">" + MINUS + "0.01"]]
    assert fig.data[0].texttemplate == "%{text}"


def test_dog_weights_cell_texts():
    # 犬's weights in the 「犬が歩く」 lesson, by hand: [0.956202, 0.017082, 0.026716]
    fig = heatmap(np.array([[0.956202, 0.017082, 0.026716]]), ["犬"], ["犬", "が", "歩く"], weights=True)
    assert list(fig.data[0].text[0]) == ["0.96", "0.02", "0.03"]


def test_minus_infinity_cell():
    M = np.array([[1.0, -np.inf], [0.5, 2.0]])
    grey, h = heatmap(M, ["a", "b"], ["a", "b"]).data  # masked cells: a grey trace under the numbers
    assert grey.text[0][1] == MINUS + "∞" and h.text[0][1] == ""
    assert [[v == 1.0 for v in row] for row in np.nan_to_num(np.asarray(grey.z, dtype=float))] == [[False, True],
                                                                                                   [False, False]]
    assert grey.showscale is False and grey.colorscale[0][1] == grey.colorscale[-1][1] == F.MASKED_GREY
    z = np.asarray(h.z, dtype=float)
    assert math.isnan(z[0, 1])  # blank cell, no colour
    assert z[1, 1] == 2.0
    assert (h.zmin, h.zmax) == (-2.0, 2.0)  # the range ignores -inf


def test_highlight_row_frame():
    fig = heatmap(np.eye(3), ["a", "b", "c"], ["a", "b", "c"], highlight_rows=1)
    (shape,) = fig.layout.shapes
    assert (shape.y0, shape.y1) == (0.5, 1.5)
    assert (shape.x0, shape.x1) == (-0.5, 2.5)
    assert heatmap(np.eye(3), ["a", "b", "c"], ["a", "b", "c"], highlight_rows=7).layout.shapes == ()


def test_several_rows_framed_each_once():
    fig = heatmap(np.eye(4), list("abcd"), list("abcd"), highlight_rows=np.array([3, 0, 3, 9]))
    assert sorted((s.y0, s.y1) for s in fig.layout.shapes) == [(-0.5, 0.5), (2.5, 3.5)]  # row 9 is not there
    assert heatmap(np.eye(4), list("abcd"), list("abcd"), highlight_rows=[]).layout.shapes == ()


def test_bars_percent_texts():
    fig = bars([0.956202, 0.017082, 0.026716], ["犬", "が", "歩く"], percent=True)
    assert list(fig.data[0].text) == ["95.6%", "1.7%", "2.7%"]
    assert fig.layout.yaxis.tickformat == ".0%"
    fig = bars([0.25, 0.25, 0.25, 0.25], list("abcd"), percent=True)
    assert list(fig.data[0].text) == ["25.0%"] * 4


def test_bars_plain_texts():
    fig = bars([1.5, -0.004, -2.0], ["a", "b", "c"])
    assert list(fig.data[0].text) == ["1.50", ">" + MINUS + "0.01", MINUS + "2.00"]  # −0.004: not 0, its bound


def test_vector_mix_groups():
    V = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    w = np.array([0.5, 0.25, 0.25])
    out = w @ V  # [0.75, 0.5]
    fig = vector_mix(V, w, out, ["犬", "<b>", "犬"], out_label="z", dim_title="dim")
    assert len(fig.data) == 4
    np.testing.assert_allclose(fig.data[0].y, [0.5, 0.0])
    np.testing.assert_allclose(fig.data[3].y, [0.75, 0.5])
    assert list(fig.data[3].text) == ["0.75", "0.50"]
    assert fig.data[0].name.startswith("50.0%") and "&lt;b&gt;" in fig.data[1].name


# ----------------------------------------------------------------------- a chart's value labels (ui.numbers.chart_num)
@pytest.mark.parametrize("v, want", [
    (0.0, "0.00"), (-0.0, "0.00"), (-0.004, ">" + MINUS + "0.01"), (-0.0049, ">" + MINUS + "0.01"),
    (0.004, "<0.01"), (0.005001, "0.01"), (-0.006, MINUS + "0.01"), (1.0, "1.00"), (-1.0, MINUS + "1.00"),
    (2 / 3, "0.67"), (9999.99, "9999.99"), (9999.996, "1.00×10⁴"), (12345.6, "1.23×10⁴"),
    (-12345.6, MINUS + "1.23×10⁴"), (float("-inf"), MINUS + "∞"), (float("inf"), "∞"), (float("nan"), "NaN"),
])
def test_chart_num_by_hand(v, want):
    assert numbers.chart_num(v) == want


SUPER = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_chart_num_never_negative_zero_and_close(v):
    s = numbers.chart_num(v)
    assert s not in ("-0.00", MINUS + "0.00") and "e" not in s
    assert not re.fullmatch(r"[-\u2212]0\.0+", s)
    if s in ("<0.01", ">" + MINUS + "0.01"):  # a nonzero value too small for 2 decimals
        assert v != 0 and abs(v) < 0.005 and (v > 0) == (s[0] == "<")
        return
    assert s != "0.00" or v == 0
    if abs(v) > 1e300:  # "1.80×10³⁰⁸" is the right text for 1.795e308, though it reads back as inf
        return
    mantissa, _, power = s.replace(MINUS, "-").partition("×10")
    back = float(mantissa) * 10.0 ** int(power.translate(SUPER) or 0)
    if abs(v) < 1e4:
        assert abs(back - v) <= 0.005 + 1e-9
    else:
        assert abs(back - v) <= 0.005 * abs(v) + 1e-9


def test_figures_module_does_not_import_streamlit():
    code = "import sys; import ui.figures; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
