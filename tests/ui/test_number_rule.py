"""The one rule for numbers on screen (ui/numbers.py, issue 19 item 9), case by case, with expected texts written by
hand, and the places it was broken before (the scaling page's z vector, the weights heatmap, the home page's row).

A number shown as 0 is exactly 0 (a weight shown as 1 / 100% exactly 1); a nonzero value too small for the digits in
use is its bound ("<0.001", ">−0.001"; "<0.01" in a 2-decimal cell); never "−0"; one minus sign U+2212; large numbers
as ×10ⁿ from CELL_LARGE (charts) and TEXT_LARGE (text)."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention_core import scaling as scaling_math
from ui import figures as F
from ui import numbers, text
from ui.i18n import table

ROOT = Path(__file__).resolve().parents[2]
MINUS = "\u2212"
JA = table("ja")


# ---- text -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("v, decimals, want", [
    (3.1e-5, 3, "<0.001"),  # the scaling page's z with the division off (below)
    (-3.1e-5, 3, ">" + MINUS + "0.001"),
    (-4e-3, 2, ">" + MINUS + "0.01"),
    (4e-3, 2, "<0.01"),
    (0.005, 2, "0.01"), (-0.006, 2, MINUS + "0.01"),  # rounds to a nonzero number: written as such
    (0.0, 3, "0"), (-0.0, 3, "0"), (-0.0, 2, "0"),  # never "−0"
    (-1e-300, 3, ">" + MINUS + "0.001"),
    (999999.999, 3, "999999.999"),  # under TEXT_LARGE: six whole digits
    (999999.9996, 3, "1×10⁶"),  # rounds to 1000000.000: from TEXT_LARGE on, never a 7-digit number
    (1e6, 3, "1×10⁶"), (-1e6, 3, MINUS + "1×10⁶"), (1234567.0, 3, "1.235×10⁶"),
    (float("inf"), 3, "∞"), (float("-inf"), 3, MINUS + "∞"), (float("nan"), 3, "NaN"),
])
def test_text_by_hand(v, decimals, want):
    assert numbers.num(v, decimals) == want


def test_text_in_latex():
    assert numbers.num(3.1e-5, tex=True) == "{<}0.001"
    assert numbers.num(-4e-3, 2, tex=True) == "{>}{" + MINUS + "}0.01"
    assert numbers.num(float("inf"), tex=True) == r"\infty" and numbers.num(float("-inf"), tex=True) == r"-\infty"
    assert numbers.num(1e6, tex=True) == r"1\times 10^{6}"


def test_a_bound_is_a_factor_in_brackets():
    assert numbers.factor(numbers.num(-0.4)) == "(" + MINUS + "0.4)"
    assert numbers.factor(numbers.num(3.1e-5)) == "(<0.001)"
    assert numbers.factor(numbers.num(-3.1e-5, tex=True)) == "({>}{" + MINUS + "}0.001)"
    assert numbers.factor(numbers.prob(1e-9, tex=True)) == "({<}0.001)"
    assert numbers.factor("2.5") == "2.5"


def test_weights_in_text():
    assert numbers.prob(0.0) == "0" and numbers.prob(1.0) == "1"
    assert numbers.prob(0.9996) == ">0.999" and numbers.prob(4e-4) == "<0.001"
    assert numbers.percent(0.9996) == ">99.9%" and numbers.percent(4e-4) == "<0.1%" and numbers.percent(1.0) == "100%"


# ---- chart cells, labels, ticks -----------------------------------------------------------------------------------
@pytest.mark.parametrize("v, weight, want", [
    (0.004, True, "<0.01"),  # a weight of 0.004 is not 0 (was "0.00")
    (0.004, False, "<0.01"), (-0.004, False, ">" + MINUS + "0.01"),
    (0.0, True, "0.00"), (-0.0, False, "0.00"),  # exactly 0: the cell keeps its 2 decimals
    (0.996, True, ">0.99"),  # a weight that rounds to 1 without being 1 (was "1.00")
    (1.0, True, "1.00"), (0.996, False, "1.00"),  # only weights have the upper bound
    (9999.99, False, "9999.99"), (9999.996, False, "1.00<br>×10⁴"), (1e4, False, "1.00<br>×10⁴"),
    (-12345.6, False, MINUS + "1.23<br>×10⁴"),
    (float("-inf"), False, MINUS + "∞"), (float("inf"), False, "∞"),
])
def test_cell_by_hand(v, weight, want):
    assert numbers.cell(v, weight=weight) == want


def test_a_weights_heatmap_writes_no_zero_for_a_weight_that_is_not_zero():
    # one row of weights with a small share (0.004) and one that is exactly 0 (a masked key)
    spec = F.heatmap_spec(np.array([[0.004, 0.996, 0.0]]), ["q"], ["a", "b", "c"], weights=True)
    assert spec["data"][-1]["text"] == [["<0.01", ">0.99", "0.00"]]


def test_the_qkv_weights_heatmap_writes_no_zero_and_no_one_that_is_not_exact():
    """/qkv, 「犬が歩く」 with X[犬] = [5, 0, 0, 1] at d_k 7 (a link shared before the envelope): 犬's scores are so far
    apart that its weights are stored as [1.0, 2.3e−27, 3.2e−27]. None of them is exactly 0 or 1, so the cells read
    ">0.99", "<0.01", "<0.01" (they read "1.00", "0.00", "0.00"), as the table's ">99.9%" / "<0.1%" do."""
    from ui import plot_component

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for k, v in {"v": "1", "p": "dog", "dm": "4", "dk": "7", "dv": "4", "s": "0", "m": "xw", "q": "0",
                 "X": "3x4:5,0,0,1,0,0,1,0,0,1,0,1"}.items():
        at.query_params[k] = v
    at.switch_page("lesson_pages/qkv.py").run()
    assert not at.exception, [e.value for e in at.exception]
    cells = plot_component.charts(at)["qkv.fig.weights"]["figure"]["data"][-1]["text"]
    assert cells[0] == [">0.99", "<0.01", "<0.01"], cells
    assert all("0.00" not in row and "1.00" not in row for row in cells), cells


def test_exactly_zero_weights_stay_zero():
    """A masked key's weight is exactly 0, and the one key left gets exactly 1 (the causal mask's first row)."""
    scores = np.array([[0.5, -np.inf], [40.0, -40.0]])
    W = np.array([[1.0, 0.0], [1.0, 0.0]])  # the second row: stored 1.0 and 0.0, neither exact (e^−80 ≠ 0)
    spec = F.heatmap_spec(W, ["a", "b"], ["a", "b"], weights=True, exact=numbers.softmax_exact(scores))
    assert spec["data"][-1]["text"] == [["1.00", "0.00"], [">0.99", "<0.01"]]


def test_ticks_never_use_e_notation():
    assert numbers.tick(1e-5) == "1×10⁻⁵" and numbers.tick(-2.5e4) == MINUS + "2.5×10⁴"
    assert numbers.tick(0.5) == "0.5" and numbers.tick(-2.0) == MINUS + "2" and numbers.tick(-0.0) == "0"


def test_fixed_decimals_line_up_with_a_true_minus():
    assert numbers.fixed(2.6868459, 6) == "2.686846" and numbers.fixed(-23.0215974, 6) == MINUS + "23.021597"
    assert numbers.fixed(5.6e-17, 6) == "0.000000" and numbers.fixed(-1e-9, 6) == "0.000000"  # never "−0.000000"
    assert numbers.fixed(-64, 0) == MINUS + "64" and numbers.fixed(0.6, 2) == "0.60"


def test_the_two_thresholds_have_names_of_their_own():
    assert numbers.CELL_LARGE == 1e4 and numbers.TEXT_LARGE == 1e6
    assert not hasattr(numbers, "LARGE") and not hasattr(F, "LARGE")


def test_only_ui_numbers_writes_numbers():
    """No second copy of the rule: superscript digits, "e" formats and their own minus sign live in ui/numbers.py."""
    sources = sorted([*(ROOT / "ui").glob("*.py"), *(ROOT / "lesson_pages").glob("*.py")])
    for path in sources:
        if path.name == "numbers.py":
            continue
        src = path.read_text(encoding="utf-8")
        assert "maketrans(\"0123456789-\"" not in src, path
        shown = "\n".join(line for line in src.splitlines() if "float(f" not in line)  # (rounding, not text)
        assert not re.search(r":\.\d*[eg]\}", shown), path  # f"{v:.6g}", f"{v:.2e}"
        assert not re.search(r"def (fmt_num|cell_text|pct|percent|num|prob)\(", src), path


# ---- the places it was broken ------------------------------------------------------------------------------------
def test_scaling_z_with_the_division_off_writes_no_zero():
    """/scaling, default books, ÷√d_k off: softmax([8, 2, −4]) gives the third book e^−12 / (1 + e^−6 + e^−12)
    ≈ 6.1e−6, and z₃ = 5 × 6.1e−6 ≈ 3.1e−5: not 0, so "<0.001" (it read [..., 0])."""
    values = np.array([[5.0, 1.0, 0.0], [1.0, 5.0, 0.0], [0.0, 0.0, 5.0]])
    mix = scaling_math.book_mix([8.0, 2.0, -4.0], 64, values, scale=False)
    assert 3.0e-5 < mix.output[2] < 3.2e-5
    vec = text.tex_vector(mix.output)
    assert vec.endswith("{<}0.001\\,]"), vec


def test_scaling_page_with_the_division_off():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page("lesson_pages/scaling.py").run()
    at.toggle(key="scaling.scale").set_value(False).run()
    assert not at.exception
    z = [m.value for m in at.markdown if m.value.startswith("$\\displaystyle z = ")]
    assert len(z) == 1 and z[0].endswith("{<}0.001\\,]$"), z


def test_home_page_says_the_rows_are_rounded():
    """The home page's 犬 row reads 0.96 + 0.02 + 0.03 = 1.01 under "each row sums to 1": it says why, in the same
    words as the Q·K·V page (the shared num.row_sums)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    assert JA["home.picture_caption"] + JA["num.row_sums"] in [c.value for c in at.caption]
    assert "0.99" in JA["num.row_sums"] and "1.01" in JA["num.row_sums"]


def test_bar_labels_and_legend_say_a_stored_one_that_is_not_exact():
    """The same weights as the heatmap above, on the query's bars and in the mix's legend: ">99.9%" / "<0.1%", as
    the table writes them (the bars read "100%" for a weight of 1 − 10⁻²⁷)."""
    w, scores = np.array([1.0, 2.3e-27, 0.0]), np.array([61.2, -0.2, -np.inf])
    exact = numbers.softmax_exact(scores)
    spec = F.bars_spec(w, ["犬", "が", "歩く"], percent=True, exact=exact)
    assert spec["data"][0]["text"] == [">99.9%", "<0.1%", "0%"]
    mix = F.vector_mix_spec(np.eye(3), w, w, ["犬", "が", "歩く"], out_label="z", dim_title="d", exact=exact)
    assert [d["name"].split(" ")[0] for d in mix["data"][:3]] == [">99.9%", "<0.1%", "0%"]
    assert F.bars_spec(w, ["a", "b", "c"], percent=True)["data"][0]["text"] == ["100%", "<0.1%", "0%"]  # no exact=
