"""Numbers on screen: the one module that writes a number for a person to read — in sentences, tables and formulas
(:func:`num`, :func:`prob`, :func:`percent`), in chart cells and value labels (:func:`cell`, :func:`chart_num`), on
colour bars (:func:`tick`) and in the grid editor (:func:`editable`). Pure functions, no Streamlit.

The one rule:

- **A number shown as 0 is exactly 0** (and a weight shown as 1 or 100% is exactly 1). A nonzero value too small for
  the digits in use is written as its bound with those digits: "<0.001" when positive, ">−0.001" when negative
  ("<0.01" / ">−0.01" in a chart cell with 2 decimals); a weight just short of 1 is ">0.999" (">99.9%"). Never "−0".
- **One minus sign**, U+2212 "−" (KaTeX draws it exactly as it draws "-").
- **Never "e" notation.** A large number is a mantissa times a power of ten, "1.235×10⁶", a notation a high-school
  student reads, from a threshold named for where it is written: :data:`CELL_LARGE` in a chart, :data:`TEXT_LARGE` in
  text (each with its reason below).
- Text drops trailing zeros (up to 3 decimals: "0.5", "2"); a chart cell keeps its decimals ("0.50", exactly 0 is
  "0.00") so that the cells of a column line up. Percentages have 1 decimal.
- The grid editor, where a person edits the number itself, writes 6 significant digits (``editable``).

A page writes a few hundred numbers per rerun (a 16-token table alone ~200): the text and cell writers are cached.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from attention_core.attention import softmax_exact as _softmax_exact

MINUS = "\u2212"

CELL_LARGE = 1e4
"""From this size on a chart writes a number as a mantissa over "×10ⁿ" (two lines in a heatmap cell). Reason: with
2 decimals a 5-digit number ("12345.67", 8 characters) no longer fits the cell of a 16-token heatmap at 14 px, while
"1.23" over "×10⁴" does."""

TEXT_LARGE = 1e6
"""From this size on text (sentences, tables, formulas) writes "1.235×10⁶". Reason: text has room, and a student
reads up to six whole digits at a glance ("999999" is still a number one can say); past that the digits are counted,
not read. Only extreme typed values reach it."""

CELL_STYLES = ((None, CELL_LARGE), (3, CELL_LARGE), (2, CELL_LARGE), (2, 1e3))
"""How a heatmap may write its numbers, the (sig, large) arguments of :func:`cell`, in order of preference: 2 decimals,
else at most 3 significant digits, else 2, else 2 with "×10ⁿ" from 1000 on (the chart takes the first that fits)."""

GRID_DIGITS = 6
"""Significant digits the grid editor shows: as precise as a person types, so an edit starts from the value."""
GRID_DECIMALS = 12
"""The grid editor's last decimal: a nonzero value smaller than that is written as its bound."""

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_BOUND_TEX = {"<": "{<}", ">": "{>}"}  # braces: KaTeX sets the sign as a symbol, not a relation with spaces around


def _unit(decimals: int) -> str:
    """The smallest nonzero number ``decimals`` decimals write: "0.001" for 3, "1" for 0."""
    return f"{10.0 ** -decimals:.{max(decimals, 0)}f}"


def _rounded(v: float, decimals: int, trim: bool, tex: bool = False) -> str:
    """``v`` (finite) with ``decimals`` decimals by the rule: "0" / "0.00" only for exactly 0, the bound "<0.001" /
    ">−0.001" for a nonzero value that rounds to 0, trailing zeros dropped when ``trim``, "−" for negatives."""
    s = f"{v:.{decimals}f}"
    if float(s) == 0:
        if v == 0:
            return "0" if trim else f"{0:.{decimals}f}"
        lt, gt = ("{<}", "{>}{" + MINUS + "}") if tex else ("<", ">" + MINUS)
        return (lt if v > 0 else gt) + _unit(decimals)
    if trim and "." in s:
        s = s.rstrip("0").rstrip(".")
    return s.replace("-", MINUS)


def _power(v: float, digits: int, trim: bool) -> tuple[str, str]:
    """``v`` as (mantissa with ``digits`` decimals, exponent): 9.9996e6 is ("1", "7"), not ("10", "6")."""
    e = math.floor(math.log10(abs(v)))
    m = round(v / 10.0**e, digits)
    if abs(m) >= 10:
        m, e = m / 10, e + 1
    s = f"{m:.{digits}f}"
    if trim and "." in s:
        s = s.rstrip("0").rstrip(".")
    return s.replace("-", MINUS), str(e)


def _not_finite(v: float, tex: bool = False) -> str:
    if math.isnan(v):
        return "NaN"
    if tex:
        return ("-" if v < 0 else "") + r"\infty"
    return (MINUS if v < 0 else "") + "∞"


# ---- text: sentences, tables, formulas ---------------------------------------------------------------------------
def num(v: float, decimals: int = 3, *, tex: bool = False) -> str:
    """A number in text: up to ``decimals`` decimals, trailing zeros dropped, "−" for negatives; a nonzero value
    that rounds to 0 as "<0.001" / ">−0.001" (``tex``: ``{<}0.001`` / ``{>}{−}0.001``); from :data:`TEXT_LARGE` on
    "1.235×10⁶" (``tex``: ``1.235\\times 10^{6}``); ±∞ (a masked score) "∞" / "−∞" (``tex``: ``-\\infty``); NaN
    "NaN". Everything else is the same text in LaTeX (KaTeX reads "−")."""
    return _num(float(v) + 0.0, decimals, tex)  # + 0.0: −0.0 is 0.0 (one cache entry, never "−0")


@lru_cache(maxsize=8192)  # a page writes the same few hundred numbers on every rerun (a 16-token table: ~200)
def _num(v: float, decimals: int, tex: bool) -> str:
    if not math.isfinite(v):
        return _not_finite(v, tex)
    if abs(round(v, decimals)) < TEXT_LARGE:
        return _rounded(v, decimals, True, tex)
    m, e = _power(v, 3, True)
    return m + (r"\times 10^{" + e + "}" if tex else "×10" + e.translate(_SUPERSCRIPT))


def prob(v: float, decimals: int = 3, *, tex: bool = False, exact: bool = True) -> str:
    """A number in [0, 1] (a weight, a share, e^(s − s_max)) in text: like :func:`num`, and "1" only when exactly 1;
    one that rounds to 1 without being it is ">0.999" (for 3 ``decimals``; ``tex``: ``{>}0.999``, ready to multiply
    in brackets). ``exact=False``: the value is known not to be exactly 0 or 1 (e^(−800) is stored as 0.0,
    1 − 10⁻³⁰ as 1.0; see :func:`softmax_exact`), so 0.0 and 1.0 are written "<0.001" and ">0.999" too.

    Raises:
        ValueError: outside [0, 1], or NaN."""
    v = float(v) + 0.0
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"prob takes a number in [0, 1], got {v!r}")
    lt, gt = ("{<}", "{>}") if tex else ("<", ">")
    if v in (0.0, 1.0):
        return str(int(v)) if exact else (lt + _unit(decimals) if v == 0 else gt + _fixed_below_one(decimals))
    s = _rounded(v, decimals, True, tex)
    if s == "1":
        return gt + _fixed_below_one(decimals)
    return s


def _fixed_below_one(decimals: int) -> str:
    """The largest number below 1 that ``decimals`` decimals write: "0.999" for 3."""
    return f"{1 - 10.0 ** -decimals:.{decimals}f}"


def percent(w: float, decimals: int = 1, *, exact: bool = True) -> str:
    """A weight in [0, 1] as a percentage with ``decimals`` decimals ("12.5%"), in text and on charts alike: "0%"
    and "100%" only when exactly 0 or 1; one that rounds to either without being it is "<0.1%" / ">99.9%";
    ``exact`` as in :func:`prob`.

    Raises:
        ValueError: outside [0, 1], or NaN."""
    w = float(w) + 0.0
    if not 0.0 <= w <= 1.0:
        raise ValueError(f"percent takes a number in [0, 1], got {w!r}")
    if w in (0.0, 1.0) and exact:
        return f"{int(100 * w)}%"
    s = f"{100 * w:.{decimals}f}"
    if float(s) == 0:
        return f"<{_unit(decimals)}%"
    if float(s) == 100:
        return f">{100 - 10.0 ** -decimals:.{decimals}f}%"
    return s + "%"


def chart_percent(w: float, exact: bool = True) -> str:
    """A chart's weight label: :func:`percent` of ``w`` clipped to [0, 1] (float error may pass 1 by 1e-16);
    ``exact`` as in :func:`prob`."""
    return percent(min(max(float(w), 0.0), 1.0), exact=exact)


def fixed(v: float, decimals: int) -> str:
    """A number with exactly ``decimals`` decimals and "−" for negatives, so a column of them lines up ("2.686846",
    "−23.021597", "0.000000"; −0.0 is "0.000000")."""
    s = f"{float(v) + 0.0:.{int(decimals)}f}"
    return MINUS + s[1:] if s.startswith("-") and float(s) != 0 else s.lstrip("-")


def integer(n: int) -> str:
    """A count in text, with thousands separated: 20000 → "20,000"."""
    return f"{int(n):,}"


def factor(text: str) -> str:
    """A number written by this module as a factor of a product: in brackets when it starts with a sign or is a
    bound, "2 × (−0.4)", "(<0.001) v" (text or LaTeX)."""
    return f"({text})" if text.startswith((MINUS, "-", "<", ">", "{<}", "{>}")) else text


def softmax_exact(scores) -> np.ndarray:
    """Which softmax weights of (scaled) scores are exactly 0 or 1 (:func:`attention_core.softmax_exact`): pass
    ``exact=`` this to :func:`prob` / :func:`percent` / :func:`cell`."""
    return _softmax_exact(scores)


# ---- charts: heatmap cells, value labels, colour-bar ticks -------------------------------------------------------
def cell(v: float, sig: int | None = None, large: float = CELL_LARGE, *, weight: bool = False,
         exact: bool = True) -> str:
    """A number written in a heatmap cell. ``sig`` None: 2 decimals; else shortened to at most ``sig`` significant
    digits and 2 decimals, the whole part never cut (19.34 → "19.3" for 3, "19" for 2). Decimals are kept ("0.50");
    exactly 0 is "0.00", a nonzero value that rounds to 0 "<0.01" / ">−0.01"; ``weight`` (a number in [0, 1]): one
    that rounds to 1 without being 1 is ">0.99"; ``exact=False``: a weight stored as 0.0 or 1.0 that is not exactly
    0 or 1 (:func:`softmax_exact`) is "<0.01" / ">0.99" too. From ``large`` (:data:`CELL_LARGE`) on: the mantissa
    (3 or ``sig`` digits) over "×10ⁿ" on a second line ("1.23<br>×10⁷"). ±∞ "∞" / "−∞"."""
    return _cell(float(v) + 0.0, sig, large, weight, exact)


@lru_cache(maxsize=16384)  # a 16×16 heatmap writes 256 cells, a page a dozen heatmaps, in up to 4 styles
def _cell(v: float, sig: int | None, large: float, weight: bool, exact: bool) -> str:
    if not math.isfinite(v):
        return _not_finite(v)
    if weight and not exact and v in (0.0, 1.0):
        return "<" + _unit(2) if v == 0 else ">" + _fixed_below_one(2)
    a = abs(v)
    decimals = 2 if sig is None or a == 0 else min(2, max(0, sig - 1 - math.floor(math.log10(a))))
    if round(a, decimals) >= large:
        m, e = _power(v, (3 if sig is None else sig) - 1, False)
        return m + "<br>×10" + e.translate(_SUPERSCRIPT)
    s = _rounded(v, decimals, False)
    if weight and v != 1.0 and s == f"{1:.{decimals}f}":
        return ">" + _fixed_below_one(decimals)
    return s


def chart_num(v: float) -> str:
    """A value label on a chart (over a bar): 2 decimals like a cell (:func:`cell`), the power of ten on the same
    line from :data:`CELL_LARGE` on ("1.23×10⁴")."""
    return cell(v).replace("<br>", "")


def tick(v: float) -> str:
    """A colour-bar tick (a round value): as few digits as it needs ("0", "0.5", "−2"), "2.5×10⁴" from
    :data:`CELL_LARGE` on and for ticks below 10⁻⁴ ("1×10⁻⁵", never "1e-05")."""
    v = float(v) + 0.0
    if v == 0:
        return "0"
    if abs(v) >= CELL_LARGE or abs(v) < 1e-4:
        e = math.floor(math.log10(abs(v)))
        return f"{v / 10.0**e:.3g}".replace("-", MINUS) + "×10" + str(e).translate(_SUPERSCRIPT)
    return f"{v:.4g}".replace("-", MINUS)


# ---- the grid editor ---------------------------------------------------------------------------------------------
def editable(v: float) -> str:
    """How the grid editor shows a matrix value, the text a person then edits: :data:`GRID_DIGITS` significant
    digits, trailing zeros dropped, never "e" notation, "−" for negatives (lessons.cells.parse_cell_text reads it
    back): 0.5, 3, −1.25, 0.0000001; "0" only for exactly 0, and a nonzero value past :data:`GRID_DECIMALS`
    decimals as its bound ("<0.000000000001")."""
    v = float(v) + 0.0
    if not math.isfinite(v):
        return _not_finite(v)
    if v == 0:
        return "0"
    text = np.format_float_positional(v, precision=GRID_DIGITS, unique=False, fractional=False, trim="-")
    if "." in text and len(text.split(".")[1]) > GRID_DECIMALS:
        return _rounded(v, GRID_DECIMALS, True)
    return text.replace("-", MINUS)
