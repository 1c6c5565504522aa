"""The readability rules of issue 9 checked on the figure specs alone (no browser): type sizes, numbers that fit their
cells at the width a chart is laid out for, colour ranges that hold, the scaling charts' labels.

Widths of text are the builders' own estimates (ui.figures.text_px); that they hold in a real browser is checked by
tests/e2e/test_screens_browser.py on the rendered SVG. Here the estimates are checked against widths measured once in
Chromium with the chart font (Noto Sans CJK JP), and every layout rule against them.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lessons
from lessons import masks, qkv
from lessons.ranges import nice_ceiling, of_arrays
from ui import figures as F
from ui import numbers
from ui.lesson_charts import scaling as SC

MINUS = "\u2212"
TOKENS16 = "猫 が 魚 を 食べる 犬 は 公園 で 走る 鳥 が 空 を 飛ぶ 魚".split()
LONG33 = "とても長いトークン" * 3 + "abcdef"
WIDE = (-19.34, 100.0, 12345.6, -0.04, 9.99)  # the widest numbers a lesson writes in a cell


# ------------------------------------------------------------------------------------------------ cell numbers
@pytest.mark.parametrize("v, sig, want", [
    (19.34, None, "19.34"), (19.34, 3, "19.3"), (19.34, 2, "19"), (-19.34, 3, MINUS + "19.3"), (0.96, 2, "0.96"),
    (0.96, 3, "0.96"), (100.0, 3, "100"), (999.9, 3, "1000"), (-0.004, 3, ">" + MINUS + "0.01"), (0.004, None, "<0.01"),
    (0.0, 2, "0.00"),
    (1.234, 2, "1.2"), (12345.6, None, "1.23<br>×10⁴"), (-9.996e6, None, MINUS + "1.00<br>×10⁷"),
    (4.1e15, 2, "4.1<br>×10¹⁵"), (float("-inf"), None, MINUS + "∞"), (float("inf"), 3, "∞"),
])
def test_cell_text_by_hand(v, sig, want):
    assert numbers.cell(v, sig) == want


def test_the_last_style_writes_thousands_over_a_power_of_ten():
    assert numbers.cell(-7000.0, *numbers.CELL_STYLES[-1]) == MINUS + "7.0<br>×10³"
    assert numbers.cell(999.0, *numbers.CELL_STYLES[-1]) == "999"  # the whole part is never cut


@settings(max_examples=400, deadline=None)
@given(st.floats(min_value=-1e17, max_value=1e17, allow_nan=False), st.sampled_from(numbers.CELL_STYLES))
def test_cell_text_is_the_number_rounded(v, style):
    """Shortened is never wrong: the text reads back as v rounded at its last digit."""
    s = numbers.cell(v, *style).replace(MINUS, "-")
    assert s not in ("-0", "-0.0", "-0.00")
    if s in ("<0.01", ">-0.01"):  # not 0, too small for the cell's 2 decimals: its bound (ui.numbers)
        assert v != 0 and abs(v) < 0.005 and (v > 0) == (s[0] == "<")
        return
    assert float(s.split("<br>")[0]) != 0 or v == 0  # "0.00" only for exactly 0
    if "<br>" in s:
        mantissa, power = s.split("<br>×10")
        e = int(power.translate(str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")))
        digits = len(mantissa.split(".")[1]) if "." in mantissa else 0
        assert abs(float(mantissa) * 10.0**e - v) <= 0.5 * 10.0 ** (e - digits) * (1 + 1e-9)
        # from the size at which the rounded number reaches it: a number rounded to a whole one (999.5 → 1000 with
        # 2 significant digits past 100) reaches it half a unit early (hypothesis found 999.5 against a 0.005 bound)
        assert abs(v) >= style[1] - 0.5
    else:
        digits = len(s.split(".")[1]) if "." in s else 0
        assert abs(float(s) - v) <= 0.5 * 10.0**-digits + 1e-9  # so the whole part is never cut


# ------------------------------------------------------------------------------------------------ text widths
@pytest.mark.parametrize("text, size, measured", [
    ("−19.34", 14, 42.75), ("100.00", 14, 42.7), ("猫", 14, 14.0), ("×10¹⁵", 14, 40.9), ("食べる", 15, 45.0),
])
def test_width_estimates_cover_chromium(text, size, measured):
    """Widths measured in Chromium (Noto Sans CJK JP, getComputedTextLength): the estimate is a little wider."""
    assert measured <= F.text_px(text, size) <= measured * 1.12


def test_a_line_break_makes_two_lines_and_tags_take_no_room():
    assert F.text_lines("1.23<br>×10⁴") == ["1.23", "×10⁴"]
    assert F.text_px("<b>ab</b>", 10) == F.text_px("ab", 10)
    assert F.text_px("&lt;b&gt;", 10) == pytest.approx(10 * (0.555 + 0.618 + 0.555) * F.TEXT_SAFETY)  # shown "<b>"


# ------------------------------------------------------------------------------------------------ heatmap layout
def _cell_box(spec):
    """(cell width, cell height) of a heatmap spec at its layout width, from its margins and height."""
    lay, trace = spec["layout"], spec["data"][-1]
    r, c = len(trace["y"]), len(trace["x"])
    m = lay["margin"]
    return (spec["_width"] - m["l"] - m["r"]) / c, (lay["height"] - m["t"] - m["b"]) / r


def _spec(M, rows, cols, width, **kw):
    spec = F.heatmap_spec(M, rows, cols, title="スコア QKᵀ", row_title="クエリ", col_title="キー", width_px=width,
                          range_note="±{base} → ±{new}", rounded_note="rounded", **kw)
    spec["_width"] = spec["layout"].get("width", width)  # a chart wider than its column: its own width
    return spec


def _fits(spec):
    """Every cell text's estimated box lies inside its cell; returns the cell font."""
    trace = spec["data"][-1]
    font = trace["textfont"]["size"]
    w, h = _cell_box(spec)
    for text in (x for row in trace["text"] for x in row if x):
        assert F.text_px(text, font) + 2 * F.CELL_PAD + F.CELL_GAP <= w + 1e-9, (text, font, w)
        assert F.text_height_px(text, font) + 2 * F.CELL_PAD + F.CELL_GAP <= h + 1e-9, (text, font, h)
    return font


def _matrix(n, m, seed=0):
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(n, m)).round(2)
    M.flat[: len(WIDE)] = WIDE[: n * m]
    return M


@pytest.mark.parametrize("n", [3, 8, 16])
@pytest.mark.parametrize("long", [None, LONG33, "長" * 300])
def test_every_cell_number_fits_at_full_width(n, long):
    toks = (TOKENS16 * 2)[:n]
    if long:
        toks[-1] = long
    for M in (_matrix(n, n), np.full((n, n), -19.34), np.full((n, n), 100.0), _matrix(n, n) * 1e4):
        spec = _spec(M, toks, toks, F.REF_COLUMN_PX)
        assert _fits(spec) >= 14
        assert all(len(F.text_lines(x)[0]) <= F.TICK_CHARS for x in spec["layout"]["yaxis"]["ticktext"])


def test_cell_fonts_before_and_after():
    """The cell type size at 3, 8 and 16 tokens of ordinary numbers (it was 18, 15 and 10 px)."""
    sizes = {n: _fits(_spec(np.full((n, n), -1.23), TOKENS16[:n], TOKENS16[:n], F.REF_COLUMN_PX))
             for n in (3, 8, 16)}
    assert sizes[3] == 18 and sizes[8] == 18 and sizes[16] >= 14


def test_numbers_are_shortened_only_when_they_cannot_fit_and_it_is_said():
    toks = TOKENS16
    small = _spec(np.full((16, 16), 0.5), toks, toks, F.REF_COLUMN_PX, zmax=1.0)
    assert small["data"][-1]["text"][0][0] == "0.50" and "subtitle" not in small["layout"]["title"]
    wide = _spec(np.full((16, 16), -19.34), toks, toks, 402, zmax=50.0)
    assert wide["data"][-1]["text"][0][0] != numbers.cell(-19.34)  # shortened in a half column ...
    assert "rounded" in wide["layout"]["title"]["subtitle"]["text"]  # ... and said
    assert "%{customdata[2]}" in wide["data"][-1]["hovertemplate"]  # the hover keeps 2 decimals
    assert wide["data"][-1]["customdata"][0][0][2] == numbers.cell(-19.34)


@settings(max_examples=300, deadline=None)
@given(r=st.integers(1, 16), c=st.integers(1, 16), scale=st.floats(1e-3, 1e6), width=st.floats(100, 1000),
       masked=st.floats(0, 0.5), seed=st.integers(0, 2**16), row_title=st.booleans())
def test_a_style_passed_over_could_not_have_fitted(r, c, scale, width, masked, seed, row_title):
    """grid_plan skips a number style whose texts, by a few of them (em_floor), cannot fit in any way: the layout is
    the one the full search over every style finds (the search without em_floor is the reference)."""
    rng = np.random.default_rng(seed)
    values = (rng.normal(size=(r, c)) * scale).tolist()
    values = [[-math.inf if rng.random() < masked else v for v in row] for row in values]
    rows = [str(x) for x in rng.choice(TOKENS16 + [LONG33], size=r)]
    cols = [str(j + 1) for j in range(c)]
    shown = [v for row in values for v in row if v != -math.inf]
    probe = [max(shown, key=abs), min(shown)] if shown else []
    calls = []

    def texts_for(style):
        calls.append(style)
        return [["" if v == -math.inf else numbers.cell(v, *style) for v in row] for row in values]

    def em_floor(style):
        return max((F.text_px(numbers.cell(v, *style), 1.0) for v in probe), default=0.0)

    kw = dict(width_px=width, row_title=row_title, col_title=True, colorbar_ticks=["−1", "0", "1"])
    full = F.grid_plan(texts_for, r, c, rows, cols, **kw)
    searched = len(calls)
    pruned = F.grid_plan(texts_for, r, c, rows, cols, em_floor=em_floor, **kw)
    assert pruned == full
    assert len(calls) - searched <= searched  # never more texts written than the full search


def test_a_narrow_chart_writes_only_the_styles_it_can_use():
    """16 numbers across 200 px fit in no style: only the last (the fallback) has its texts written."""
    values = [[-19.34 + k for k in range(16)] for _ in range(16)]
    calls = []

    def texts_for(style):
        calls.append(style)
        return [[numbers.cell(v, *style) for v in row] for row in values]

    plan = F.grid_plan(texts_for, 16, 16, TOKENS16, [str(j) for j in range(16)], width_px=200, row_title=True,
                       col_title=True, em_floor=lambda style: F.text_px(numbers.cell(-19.34, *style), 1.0))
    assert calls == [numbers.CELL_STYLES[-1]] and not plan.fits


@pytest.mark.parametrize("n, width", [(3, 263), (5, 402), (8, 402), (8, 484), (16, 820)])
def test_need_says_where_two_decimals_fit(n, width):
    """grid_need (what pages use to put charts side by side) agrees with the layout: at the width it asks for, the
    numbers keep 2 decimals at 14 px or more."""
    toks = TOKENS16[:n]
    M = np.full((n, n), -19.34)
    texts = [[numbers.cell(v) for v in row] for row in M.tolist()]
    need = F.grid_need(texts, toks, toks, colorbar_top=20.0)
    spec = _spec(M, toks, toks, max(need, 1), zmax=20.0)
    assert spec["data"][-1]["text"][0][0] == numbers.cell(-19.34)
    assert _fits(spec) >= 14
    if need > width:
        assert _spec(M, toks, toks, width, zmax=20.0)["data"][-1]["text"][0][0] != numbers.cell(-19.34)


def test_masks_fit_their_cells():
    m = np.tril(np.ones((16, 16), dtype=bool))
    for yes, no in (("○", "×"), ("0", "−∞"), ("✓", "✗")):
        spec = F.mask_spec(m, TOKENS16, TOKENS16, title="m", row_title="q", col_title="k", yes=yes, no=no,
                           width_px=F.REF_COLUMN_PX)
        spec["_width"] = F.REF_COLUMN_PX
        assert _fits(spec) >= 14


def test_small_text_is_twelve_px_or_more():
    spec = _spec(_matrix(16, 16), TOKENS16, TOKENS16, 402, zmax=5.0)
    trace, lay = spec["data"][-1], spec["layout"]
    assert trace["colorbar"]["tickfont"]["size"] >= 12
    assert lay["xaxis"]["tickfont"]["size"] >= 12 and lay["yaxis"]["tickfont"]["size"] >= 12


def test_colour_bar_ticks_never_touch():
    for r in (1, 3, 16):
        spec = _spec(_matrix(r, 4), TOKENS16[:r], list("abcd"), 402, zmax=2.5)
        bar = spec["data"][-1]["colorbar"]
        vals = bar["tickvals"]
        assert len(vals) >= 2 and vals == sorted(vals)
        if bar.get("orientation") != "h":
            length = 0.9 * (spec["layout"]["height"] - spec["layout"]["margin"]["t"] - spec["layout"]["margin"]["b"])
            assert length / (len(vals) - 1) >= F.SMALL_FONT * F.LINE_EM


# ------------------------------------------------------------------------------------------------ colour ranges
@pytest.mark.parametrize("x, want", [(3.2, 5.0), (0.3, 0.5), (9.0, 10.0), (10.0, 10.0), (2.0, 2.0), (2.1, 2.5),
                                     (0.0, 1.0), (-3.0, 1.0), (float("nan"), 1.0), (1234.0, 2000.0)])
def test_nice_ceiling_by_hand(x, want):
    assert nice_ceiling(x) == want


@given(st.floats(min_value=1e-6, max_value=1e12))
def test_nice_ceiling_is_a_round_number_just_above(x):
    top = nice_ceiling(x)
    assert x <= top * (1 + 1e-12) and top <= 2 * x * (1 + 1e-12)
    mantissa = top / 10.0 ** math.floor(math.log10(top) + 1e-12)
    assert any(abs(mantissa - s) < 1e-9 for s in (1.0, 2.0, 2.5, 5.0))


def test_a_fixed_range_keeps_the_colour_of_unchanged_cells():
    a = np.array([[1.0, -0.5], [0.25, 2.0]])
    b = a.copy()
    b[0, 0] = -1.5  # one cell moved, within ±2
    sa, sb = (F.heatmap_spec(M, ["x", "y"], ["1", "2"], zmax=2.0) for M in (a, b))
    for key in ("zmin", "zmax", "zmid", "colorscale"):
        assert sa["data"][-1][key] == sb["data"][-1][key]  # so every other cell keeps its colour
    assert (sa["data"][-1]["zmin"], sa["data"][-1]["zmax"]) == (-2.0, 2.0)


def test_a_value_past_the_range_widens_it_and_says_so():
    spec = F.heatmap_spec(np.array([[1.0, 5.0]]), ["x"], ["1", "2"], zmax=2.0, range_note="±{base} → ±{new}")
    assert spec["data"][-1]["zmax"] == 5.0 and spec["data"][-1]["zmin"] == -5.0
    assert spec["layout"]["title"]["text"] == "±2 → ±5"  # no title: the note takes its place
    titled = F.heatmap_spec(np.array([[1.0, 5.0]]), ["x"], ["1", "2"], zmax=2.0, range_note="±{base} → ±{new}",
                            title="T")
    assert titled["layout"]["title"]["subtitle"]["text"] == "±2 → ±5"


@pytest.mark.parametrize("n, width", [(3, 300), (3, 263), (4, 263), (16, 402), (16, 820), (1, 300)])
def test_a_range_note_keeps_the_chart_height_and_the_numbers_fit(n, width):
    """A note under the title (a value past the lesson's range) takes its room from the cells: the chart is as tall
    as without it, so nothing under it moves; the numbers still fit their lower cells (at 16 rows in a smaller type,
    14 px or more). Only when the cells cannot give enough room (one row) does the chart grow, by what they could
    not give."""
    toks = TOKENS16[:n]
    inside = np.full((n, 4), 0.5)
    past = inside.copy()
    past[0, 0] = 3.0
    plain, noted = (_spec(M, toks, ["1", "2", "3", "4"], width, zmax=1.0) for M in (inside, past))
    assert "±" not in str(plain["layout"]["title"]) and "±1 → ±5" in noted["layout"]["title"]["subtitle"]["text"]
    assert noted["layout"]["margin"]["t"] > plain["layout"]["margin"]["t"]
    assert _fits(noted) >= 14
    if n > 1:
        assert noted["layout"]["height"] == plain["layout"]["height"]
    else:  # one row of 60 px gives what it can (a cell of 14 px numbers is 27 px): it grows by less than the note
        grown = noted["layout"]["height"] - plain["layout"]["height"]
        assert 0 <= grown < noted["layout"]["margin"]["t"] - plain["layout"]["margin"]["t"]


@pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
def test_every_lesson_has_ranges_for_its_default_state(lesson):
    """Finite, positive ranges; each named after an array the lesson shows or a name its page asks for (a range of
    a derived picture, e.g. the masked scores): a name neither is a typo that leaves a chart without its range."""
    found = lesson.ranges(lesson.default_state())
    assert found and all(math.isfinite(v) and v > 0 for v in found.values())
    page = (Path(__file__).resolve().parents[2] / lesson.page).read_text(encoding="utf-8")
    asked = set(re.findall(r"""ranges(?:\([^)]*\))?\.get\(\s*["']([^"']+)["']""", page))  # ranges.get / ranges(s).get
    assert set(found) <= set(lesson.arrays(lesson.default_state())) | asked, set(found) - asked


def test_qkv_ranges_hold_while_cells_are_edited():
    s = qkv.default_state()
    base = qkv.color_ranges(s)
    edited = qkv.with_cell(qkv.with_cell(s, "X", 0, 0, 5.0), "W_Q", 1, 2, -3.0)
    assert qkv.color_ranges(edited) == base  # the setup did not change
    assert base == {k: v for k, v in of_arrays(qkv.arrays(s)).items() if k in base and k not in ("output",
                                                                                                  "masked_scores")} | {
        "output": base["V"], "masked_scores": base["scaled_scores"]}
    assert qkv.color_ranges(qkv.with_text(s, "犬 が 走る 猫")) != {}  # a new setup has its own ranges


def test_masks_ranges_hold_while_the_custom_mask_is_edited():
    s = masks.MasksState()
    base = masks.color_ranges(s)
    assert masks.color_ranges(masks.with_custom_cell(s, 2, 0, False)) == base
    assert masks.color_ranges(masks.with_custom_start(s, "blocked")) == base
    out = masks.arrays(masks.with_custom_start(s, "none"))["custom_output"]
    assert np.max(np.abs(out)) <= base["custom_output"]  # an output is a weighted mean of V's rows


# ------------------------------------------------------------------------------------------------ bars
@pytest.mark.parametrize("n, width", [(3, 402), (8, 402), (16, 402), (16, 820)])
def test_bar_labels_are_twelve_px_and_never_touch(n, width):
    w = np.random.default_rng(n).dirichlet(np.ones(n))
    w[0] = 0.999 if n > 3 else w[0]
    spec = F.bars_spec(w, TOKENS16[:n], percent=True, y_range=(0, 1.12), title="w", width_px=width)
    trace = spec["data"][0]
    size, angle = trace["textfont"]["size"], trace["textangle"]
    assert size >= 12 and trace["constraintext"] == "none"  # plotly does not shrink them
    drawn = spec["layout"].get("width", width)  # a chart whose labels fit no narrower keeps its own width
    assert drawn >= width
    slot = (drawn - spec["layout"]["margin"]["l"] - spec["layout"]["margin"]["r"]) / n
    extent = max(F.text_px(t, size) for t in trace["text"]) if angle == 0 else size * F.LINE_EM
    assert extent + 2 <= slot
    assert F.upright_slot() <= slot  # the axis labels keep apart too


@pytest.mark.parametrize("n, width", [(3, 358), (16, 358), (16, 564), (16, 820), (8, 240)])
def test_a_grid_too_wide_for_its_column_keeps_the_width_its_numbers_need(n, width):
    """Issue 24 §4: 16 tokens on a phone (a 358 px column): every number still fits its cell at ≥ 14 px and the
    column labels keep apart; the chart takes the width that needs (``layout.width``, scrolled in its box), and no
    more than 4 px beyond it (a chart 4 px narrower would not fit)."""
    M = np.random.default_rng(n).normal(size=(n, n)) * 3
    spec = _spec(M, TOKENS16[:n], TOKENS16[:n], width)
    drawn = spec["layout"].get("width", width)
    assert _fits(spec)
    trace = spec["data"][-1]
    cell_w = (drawn - spec["layout"]["margin"]["l"] - spec["layout"]["margin"]["r"]) / n
    assert cell_w >= F.label_slot_need(TOKENS16[:n]) - 1e-9
    if "width" in spec["layout"]:
        assert drawn > width
        narrower = _spec(M, TOKENS16[:n], TOKENS16[:n], drawn - 5)
        assert narrower["layout"].get("width", 0) > drawn - 5  # it could not be laid out narrower
    assert trace["textfont"]["size"] >= 14


def test_the_mix_legend_stays_under_the_axis_title():
    n, d = 16, 16
    V = np.random.default_rng(1).normal(size=(n, d))
    w = np.full(n, 1 / n)
    spec = F.vector_mix_spec(V, w, w @ V, TOKENS16, out_label="z", dim_title="次元", title="mix", width_px=820)
    lay = spec["layout"]
    plot_h = lay["height"] - lay["margin"]["t"] - lay["margin"]["b"]
    legend_top_px = -lay["legend"]["y"] * plot_h
    assert legend_top_px >= F.TICK_FONT * F.LINE_EM + 40  # below the tick labels and the axis title
    assert lay["margin"]["b"] > legend_top_px + 2 * 14  # and the margin holds its rows
    assert spec["data"][-1]["textfont"]["size"] >= 12


# ------------------------------------------------------------------------------------------------ scaling charts
def _texts(spec):
    lay = spec["layout"]
    out = [lay["title"]["text"]] + [a["text"] for a in lay.get("annotations", ())]
    out += [d.get("name", "") for d in spec["data"]]
    out += [ax["title"]["text"] for k, ax in lay.items() if k[:5] in ("xaxis", "yaxis") and "title" in ax]
    return out


def test_the_radical_is_drawn_in_a_latin_font_everywhere():
    spec = SC.temperature_chart_spec(np.geomspace(0.05, 20, 10), np.full((10, 3), 1 / 3), ["a", "b", "c"],
                                    current_T=1.0, marks=[(8.0, "T = √d_k")], x_title="T", y_title="w",
                                    limit_texts=("T → 0", "T → ∞"), title="÷√d_k")
    for text in _texts(spec):
        assert text.count("√") == text.count("√</span>")


def test_the_temperature_limits_are_named_in_the_legend_not_on_the_chart():
    spec = SC.temperature_chart_spec(np.geomspace(0.05, 20, 10), np.full((10, 3), 1 / 3), ["a", "b", "c"],
                                    current_T=1.0, x_title="T", y_title="w", limit_texts=("T → 0 :", "T → ∞ :"),
                                    width_px=402)
    assert not spec["layout"].get("annotations")
    names = [d["name"] for d in spec["data"] if isinstance(d["x"], list) and d["x"] == [None]]
    assert names[-2:] == ["T → 0 :", "T → ∞ :"]


def test_each_saturation_panel_labels_its_own_lines_out_of_the_curves_way():
    from attention_core import scaling as S

    cur = S.saturation_curves(S.SATURATION_DKS, 8, 50, 1)
    spec = SC.saturation_chart_spec(cur.d_ks, cur.max_raw, cur.max_scaled, cur.entropy_raw, cur.entropy_scaled,
                                   n_keys=8, current_dk=1, panel_titles=("max", "entropy"), legend=("a", "b"),
                                   x_title="d_k", ref_texts=("uniform {v}", "one-hot {v}", "d_k = {d_k}"))
    notes = {(a["xref"], a["text"]): a for a in spec["layout"]["annotations"] if "bgcolor" in a}
    assert set(notes) == {("x domain", "uniform 1/n"), ("x domain", "one-hot 1"), ("x2 domain", "uniform ln n"),
                          ("x2 domain", "one-hot 0")}
    # each label sits on the far side of its line from the curves (1/n <= largest weight <= 1, 0 <= entropy <= ln n)
    assert notes[("x domain", "uniform 1/n")]["yanchor"] == "top"
    assert notes[("x domain", "one-hot 1")]["yanchor"] == "bottom"
    assert notes[("x2 domain", "uniform ln n")]["yanchor"] == "bottom"
    assert notes[("x2 domain", "one-hot 0")]["yanchor"] == "top"
    vertical = [s for s in spec["layout"]["shapes"] if s["x0"] == s["x1"]]
    assert [(s["y0"], s["y1"]) for s in vertical] == [(1 / 8, 1.0), (0.0, float(np.log(8)))]  # between the lines


def test_the_toolbar_has_two_buttons_and_a_long_title_starts_below_it():
    short = F.bars_spec([0.5, 0.5], ["a", "b"], title="w", width_px=402)
    title = "「猫」の出力 = Σ 重み × バリュー（とても長い題名です）"
    long = F.bars_spec([0.5, 0.5], ["a", "b"], title=title, width_px=402)
    assert {"zoom2d", "pan2d"} <= set(short["layout"]["modebar"]["remove"])
    assert "pad" not in short["layout"]["title"]
    assert long["layout"]["title"]["pad"]["t"] >= 28 and long["layout"]["margin"]["t"] > short["layout"]["margin"]["t"]


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("width", [F.column_px(3), F.column_px(2), F.column_px(1)])
def test_the_notes_under_a_title_fit_the_chart(lang, width):
    """Plotly does not wrap a subtitle: the range note ran past the chart's edge and was cut mid-word (a new-user
    trial, 「…範囲外の値」). Each line of the notes now fits the chart's width."""
    from ui.i18n import table

    words = table(lang)
    spec = F.heatmap_spec(np.array([[6.5, 0.0, 1.0], [0.0, 1.0, 0.0]]), ["犬", "が"], ["1", "2", "3"], title="X",
                          zmax=2.0, width_px=width, range_note=words["fig.note.range_widened"],
                          rounded_note=words["fig.note.rounded"])
    text = spec["layout"]["title"]["subtitle"]["text"]
    lines = text.split("<br>")
    assert all(F.text_px(line, 14) <= width - 24 for line in lines), (width, lines)
    said = "".join(lines).replace(" ", "").replace("\u00a0", "")  # every word of the note is still there
    assert words["fig.note.range_widened"].format(base="2", new="10").replace(" ", "").replace("\u00a0", "") in said
    # no line starts with a particle or closing punctuation (it read 「…±2 / に広げました」: a new-user trial)
    assert not any(line.lstrip(" \u00a0").startswith(tuple("をにがはのでとへや、。）")) for line in lines), lines


@pytest.mark.parametrize("slot", [30.0, 45.0, 60.0])
def test_a_latin_word_is_never_broken_inside_on_an_axis(slot):
    """Axis labels may go onto two lines at spaces, or between characters of Japanese, but a Latin word stays whole
    ("Anim/als", "Cooki/ng" on the scaling page at 1280 px: a new-user trial); it is cut or turned upright instead."""
    labels = ["Animals", "Cooking", "Night sky guide", "東京スカイツリー"]
    texts, _, _ = F.fit_tick_labels(labels, slot, size=16, wrap=2)
    for text, word in zip(texts, ["Animals", "Cooking"]):
        assert "<br>" not in text and text.rstrip("…") == word[:len(text.rstrip("…"))], text
    assert all(len(line.split(" ")[0]) > 1 for line in texts[2].split("<br>")), texts[2]  # broken at a space


@pytest.mark.parametrize("n, width", [(3, 1180), (8, 1180), (16, 1180), (16, 924), (16, 358)])
def test_presentation_mode_writes_the_tokens_larger_and_keeps_them_apart(n, width):
    """Issue 24 §1 (a trial: the tokens stayed at 15 px beside 26-px numbers on a projector): in presentation mode a
    heatmap's axis labels are TICK_FONT_BIG (19 px) on both axes, the left margin holds the widest row label at that
    size, the column labels keep apart at that size (side by side, or upright), and every number still fits."""
    toks = TOKENS16[:n]
    M = np.random.default_rng(n).normal(size=(n, n)) * 3
    spec = _spec(M, toks, toks, width, big=True)
    layout = spec["layout"]
    assert layout["xaxis"]["tickfont"]["size"] == layout["yaxis"]["tickfont"]["size"] == F.TICK_FONT_BIG > F.TICK_FONT
    assert _fits(spec) >= 14
    cell_w = (spec["_width"] - layout["margin"]["l"] - layout["margin"]["r"]) / n
    assert cell_w >= F.label_slot_need(toks, F.TICK_FONT_BIG) - 1e-9
    assert layout["margin"]["l"] >= max(F.text_px(t, F.TICK_FONT_BIG) for t in toks)
    plain = _spec(M, toks, toks, width)
    assert plain["layout"]["xaxis"]["tickfont"]["size"] == F.TICK_FONT
