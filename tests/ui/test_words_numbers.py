"""How numbers are written on screen (issue 9): ui.numbers.num / prob / percent and the text helpers around them.

The rule (ui/numbers.py's docstring): decimals, never "e" notation; one minus sign, U+2212; "0" only for exactly 0
(a nonzero value that rounds to 0 is "<0.001" / ">−0.001"); a number in [0, 1] is "1" only when exactly so (">0.999"
when it only rounds to it); |v| >= 10^6 as "1.235×10⁶". Expected texts below are written by hand; the properties
parse the text back with a parser of their own and compare with the number, within half a unit of the last digit shown.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ui import draw, escape, numbers, text

MINUS = "\u2212"
SUPER = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def parse(text: str) -> tuple[float, float]:
    """The number a text shows and half a unit of its last digit: "−2.25" → (−2.25, 0.005),
    "1.235×10⁷" → (12350000, 5000). Written for these tests, independent of ui.numbers."""
    m = re.fullmatch(r"(\u2212?)(\d+)(?:\.(\d+))?(?:×10([⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+))?", text)
    assert m, f"not a plain decimal: {text!r}"
    sign, whole, frac, exp = m.groups()
    value = float(whole + "." + (frac or "0")) * (-1 if sign else 1)
    half = 0.5 * 10.0 ** -len(frac or "")
    if exp:
        scale = 10.0 ** int(exp.translate(SUPER))
        value, half = value * scale, half * scale
    return value, half


@pytest.mark.parametrize("v, text", [
    (0.0, "0"), (-0.0, "0"), (1.5, "1.5"), (-2.2, "−2.2"), (18.16, "18.16"), (-19.34, "−19.34"),
    (2.0 / 3.0, "0.667"), (-0.0001, ">−0.001"), (0.0001, "<0.001"), (0.30000000000000004, "0.3"), (1000.0, "1000"),
    (999999.0, "999999"),
    (12345678.9, "1.235×10⁷"), (-4e15, "−4×10¹⁵"), (9999999.6, "1×10⁷"), (1e6, "1×10⁶"),
    (float("inf"), "∞"), (float("-inf"), "−∞"),
])
def test_num_by_hand(v, text):
    assert numbers.num(v) == text


def test_num_in_latex():
    assert numbers.num(12345678.9, tex=True) == r"1.235\times 10^{7}"
    assert numbers.num(float("-inf"), tex=True) == r"-\infty"
    assert numbers.num(-2.5, tex=True) == "−2.5"  # KaTeX draws "−" as its minus (checked in the browser)
    assert numbers.num(2.0, decimals=0) == "2" and numbers.num(0.123456789, decimals=6) == "0.123457"


@pytest.mark.parametrize("v, three, pct", [
    (0.0, "0", "0%"), (1.0, "1", "100%"), (8.7e-05, "<0.001", "<0.1%"), (4.999e-4, "<0.001", "<0.1%"),
    (0.0006, "0.001", "0.1%"), (0.125, "0.125", "12.5%"), (0.5, "0.5", "50.0%"), (0.59, "0.59", "59.0%"),
    (0.9996, ">0.999", ">99.9%"), (0.9994, "0.999", "99.9%"), (5.2e-08, "<0.001", "<0.1%"),
])
def test_prob_and_percent_by_hand(v, three, pct):
    assert numbers.prob(v) == three
    assert numbers.percent(v) == pct


def test_stored_zero_or_one_that_is_not_exact():
    # e^(−800) is stored as 0.0 and 1 − 10⁻³⁰ as 1.0, but neither is exactly 0 or 1
    assert numbers.prob(0.0, exact=False) == "<0.001" and numbers.prob(1.0, exact=False) == ">0.999"
    assert numbers.percent(0.0, exact=False) == "<0.1%" and numbers.percent(1.0, exact=False) == ">99.9%"
    assert numbers.prob(8.7e-5, tex=True) == "{<}0.001"
    assert numbers.prob(0.000004, 6) == "0.000004" and numbers.prob(4e-13, 6) == "<0.000001"


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan")])
def test_prob_and_percent_refuse_what_is_not_in_0_1(bad):
    with pytest.raises(ValueError):
        numbers.prob(bad)
    with pytest.raises(ValueError):
        numbers.percent(bad)


def test_softmax_exact():
    inf = float("inf")
    assert numbers.softmax_exact([1.0, 2.0, 3.0]).tolist() == [False, False, False]
    assert numbers.softmax_exact([1.0, -inf, 3.0]).tolist() == [False, True, False]
    assert numbers.softmax_exact([1.0, -inf, -inf]).tolist() == [True, True, True]  # the one left gets exactly 1
    assert numbers.softmax_exact([-inf, -inf]).tolist() == [True, True]  # nothing to attend to: all exactly 0


FINITE = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)


@given(FINITE)
def test_num_reads_back_within_half_a_unit(v):
    text = numbers.num(v)
    assert "e" not in text and "-" not in text and " " not in text
    if text in ("<0.001", ">−0.001"):  # the bound of a value too small for 3 decimals, never "0" for it
        assert v != 0 and abs(v) < 0.0005 and (v > 0) == (text[0] == "<")
        return
    assert text != "0" or v == 0
    shown, half = parse(text)
    assert abs(shown - v) <= half * (1 + 1e-9) + 1e-12 * abs(v)


@given(st.floats(0.0, 1.0), st.booleans())
def test_prob_reads_back_and_is_0_or_1_only_when_exact(v, exact):
    text = numbers.prob(v, exact=exact)
    assert "e" not in text and "-" not in text
    if text == "<0.001":
        assert 0.0 <= v < 0.0005 and (v > 0 or not exact)
    elif text == ">0.999":
        assert 0.9995 <= v <= 1.0 and (v < 1 or not exact)
    else:
        shown, half = parse(text)
        assert abs(shown - v) <= half + 1e-15
        assert text not in ("0", "1") or (exact and v == shown)


@given(st.floats(0.0, 1.0), st.booleans())
def test_percent_reads_back_and_is_0_or_100_only_when_exact(v, exact):
    text = numbers.percent(v, exact=exact)
    assert text.endswith("%") and "e" not in text and "-" not in text and " " not in text
    body = text[:-1]
    if body == "<0.1":
        assert 0.0 <= v < 0.0005 and (v > 0 or not exact)
    elif body == ">99.9":
        assert 0.9995 <= v <= 1.0 and (v < 1 or not exact)
    else:
        shown, half = parse(body)
        assert abs(shown - 100 * v) <= half + 1e-12
        assert body not in ("0", "100") or (exact and v in (0.0, 1.0))


# ---- text that does not wrap, tables, formulas ----------------------------------------------------------------------
def test_keep_together():
    wj, nbsp = "\u2060", "\u00a0"
    assert text.keep_together("スコア") == f"ス{wj}コ{wj}ア"
    assert text.keep_together("e^(s − s_max)") == f"e^(s{nbsp}−{nbsp}s_max)"
    assert text.keep_together("5: 食べる") == f"5:{nbsp}食{wj}べ{wj}る"
    assert text.keep_together("−19.34") == "−19.34" and text.keep_together("Weight") == "Weight"


def test_table_headers_and_number_cells_never_break_the_wrap_column_may():
    md = text.markdown_table(["キー", "q·k（積の和）", "スコア"], [["1: 猫", "1×2 + 3×4", "−2.2"]], align="llr",
                             wrap={1})
    header, _, row = md.splitlines()
    assert "ス\u2060コ\u2060ア" in header and " " not in header.strip("| ").replace(" | ", "")
    cells = [c.strip() for c in row.strip("|").split(" | ")]
    assert cells[0] == "1\\:\u2060\u00a0猫" and cells[1] == "1×2 \\+ 3×4" and cells[2] == "−2\\.2"


def test_show_table_style_lets_no_html_through():
    md = text.markdown_table(["k"], [["<b>x</b>"]])
    assert "<b>" not in md and draw.STYLE.startswith("<style>") and draw.STYLE.endswith("</style>")


def test_tex_vector_breaks_only_when_long():
    assert text.tex_vector([1, -0.5]) == r"[\,1,\ −0.5\,]"
    long = text.tex_vector(np.arange(6.0))
    assert long.count(r"\allowbreak") == 5 and "bmatrix" not in long


def test_latex_text_leaves_no_dollar_and_formula_refuses_one():
    assert "$" not in escape.latex("$x$ & {y}_%")
    with pytest.raises(ValueError):
        text.formula("a $ b")


def test_join_sentences():
    assert text.join_sentences(["A b.", "C d."]) == "A b. C d."
    assert text.join_sentences(["あいう。", "えお。"]) == "あいう。えお。"
    assert text.join_sentences(["（例）", "x"]) == "（例）x"


def test_large_numbers_keep_four_significant_digits():
    for v in (1.2345e6, -9.87654e12, 3.0e300):
        shown, half = parse(numbers.num(v))
        assert math.isclose(shown, v, rel_tol=6e-4)
