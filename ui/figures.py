"""Figure builders every lesson shares: NumPy arrays + labels → plotly figure specs (plain dicts in plotly's validated
form: heatmap_spec, mask_spec, bars_spec, vector_mix_spec), and the text measuring and grid planning that lay them out
for the width they get. Pure functions (no Streamlit, no language tables): every text they show is passed in, so they
are testable on their own. Numbers in them are written by ui.numbers; ui.charts draws them. A chart only one lesson
draws lives next to that lesson's page (lesson_pages/<lesson>_charts.py), built from the pieces here.

Conventions (cases K09–K11): cells are placed by position, never by label (equal tokens never merge); row 0 is
the top row; attention weights use a sequential scale fixed to 0..1; everything else a diverging scale centred
on 0. Tokens are HTML-escaped before plotly sees them.
"""
from __future__ import annotations

import contextvars
import html
import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cache, lru_cache

import numpy as np
import plotly.graph_objects as go

from attention_core.tokens import display_labels
from lessons.ranges import nice_ceiling

from .escape import chart as escape  # user text inside plotly's pseudo-HTML (ui.escape: one function per context)
from .numbers import CELL_STYLES, cell, chart_num, chart_percent, tick

# One colour per role everywhere (Okabe–Ito palette, safe for colour-blind viewers).
ROLE_COLORS = {"X": "#444444", "W": "#7F7F7F", "Q": "#D55E00", "K": "#0072B2", "V": "#009E73",
               "out": "#CC79A7", "weights": "#E69F00", "mask": "#555555"}
MASKED_GREY = "#c8c8c8"  # a masked cell (−∞ score, or False in a mask): the same grey everywhere
OPEN_CELL = "#ffffff"  # an allowed cell of a mask
WEIGHTS_SCALE = "Viridis"  # sequential, brighter = stronger
DIVERGING_SCALE = "RdBu_r"  # blue < 0 < red, white at 0
SCHEMES = {"default": (WEIGHTS_SCALE, DIVERGING_SCALE), "cividis": ("Cividis", "PRGn"), "plasma": ("Plasma", "PiYG")}
"""The colour schemes a class can choose (ui/scheme.py): name → (weights' sequential scale, scores' diverging scale),
plotly's named scales. All are told apart with the common colour-vision deficiencies: viridis, cividis (made for
them) and plasma are perceptually uniform sequential scales; blue–red, purple–green and pink–green are ColorBrewer's
colour-blind-safe diverging schemes; the texts ``scheme.<name>_neg_word`` / ``_pos_word`` name the colours of
negative and positive scores. The numbers are written in the cells on every scale, in black or white, whichever
contrasts more with the cell (ui/plot_component/assets/patch.js: WCAG AA, at least 4.5:1)."""
FONT = "Noto Sans CJK JP, Noto Sans JP, Hiragino Sans, Yu Gothic, Meiryo, sans-serif"


def hover_names(labels) -> list[str]:
    """Row or column labels for hover texts, escaped: numbered by position ("5: the") when a label is repeated, so
    the pointer tells which of the four "the" a cell belongs to (the axis ticks are placed by position; a hover label
    has no position of its own). Labels that are all different are shown as they are."""
    texts = [str(x) for x in labels]
    if len(set(texts)) == len(texts):
        return [escape(x) for x in texts]
    return [f"{k + 1}: {escape(x)}" for k, x in enumerate(texts)]


TICK_CHARS = 12
"""Longest axis label: a longer token is cut with "…" on the axis (its full text is in the hover)."""


# ---- readable from the back of the room (a 1280×720 projector window) -------------------------------------------
# Plotly sizes a chart to its column, so a builder is told the width its chart gets at the reference window
# (``width_px``) and chooses its type sizes, margins and height so that every number written in a cell or above a bar
# fits, at a size readable from the back of a class room. Text widths are estimated from the advance widths of the
# chart font (Noto Sans CJK JP, measured in Chromium: tests/e2e/test_screens_browser.py checks the rendered charts).
REF_COLUMN_PX = 820
"""Width of the main column at the reference window (1280×720, sidebar open), measured in Chromium: the width charts
are laid out for until the browser has said how wide its main column is (ui.viewport)."""
LAYOUT_WIDTH: contextvars.ContextVar[float] = contextvars.ContextVar("layout_width", default=REF_COLUMN_PX)
"""The width (px) a chart built now is laid out for when its builder is given no ``width_px``: the page's main
column as the browser measured it (set for each run by ui.viewport), or a chart slot's (ui.charts.chart_columns)."""

COLUMN_GAP_PX = 16
"""Gap between two st.columns."""
CELL_FONTS = (18, 16, 14)
"""Type sizes a heatmap cell's number may take, largest first; never below 14 px."""
CELL_FONTS_BIG = (26, 24, 22, 20) + CELL_FONTS
"""The same in presentation mode (a projector seen from the back of a room: ui.present), where they fit."""
TICK_FONT = 15
"""Axis labels (tokens, indices)."""
TICK_FONT_BIG = 19
"""The same on a heatmap in presentation mode: the tokens read from the back of a room, as its numbers do."""
SMALL_FONT = 12
"""The smallest text of a chart: colour bar ticks, value axis ticks."""
BAR_FONTS = (16, 14, 12)
"""Type sizes a bar's value label may take, largest first; never below 12 px."""
TEXT_SAFETY = 1.05
"""Estimated widths are taken this much wider than measured (other fonts, rounding)."""
LINE_EM, NEXT_LINE_EM = 1.45, 1.3
"""Height of a line's text box, and of each further line, in em."""
MODEBAR_PX = 70
"""Width of the chart toolbar at the top right corner (two buttons: download, reset axes; see MODEBAR_REMOVE)."""
MODEBAR_REMOVE = ["zoom2d", "pan2d", "zoomIn2d", "zoomOut2d", "select2d", "lasso2d", "autoScale2d"]

# advance widths (em) of the printable ASCII characters in the chart font, from "!" (33) to "~" (126)
_ASCII_EM = dict(zip(
    (chr(c) for c in range(33, 127)),
    (0.323, 0.474, 0.555, 0.555, 0.921, 0.68, 0.278, 0.338, 0.338, 0.467, 0.555, 0.278, 0.347, 0.278, 0.392,
     *(0.555,) * 10, 0.278, 0.278, 0.555, 0.555, 0.555, 0.474, 0.946,
     0.608, 0.657, 0.638, 0.688, 0.589, 0.552, 0.689, 0.728, 0.293, 0.535, 0.646, 0.543, 0.812, 0.723, 0.742,
     0.633, 0.742, 0.635, 0.596, 0.599, 0.721, 0.575, 0.878, 0.573, 0.531, 0.603,
     0.338, 0.392, 0.338, 0.555, 0.559, 0.606,
     0.563, 0.618, 0.51, 0.62, 0.554, 0.325, 0.564, 0.607, 0.275, 0.275, 0.552, 0.284, 0.926, 0.61, 0.606, 0.62,
     0.62, 0.388, 0.468, 0.377, 0.607, 0.521, 0.802, 0.498, 0.521, 0.475, 0.338, 0.27, 0.338, 0.555)))
_OTHER_EM = {" ": 0.25, "\u2212": 0.555, "✓": 0.69, "✗": 0.84, "·": 0.57, "¹": 0.42, "²": 0.42, "³": 0.42,
             "⁰": 0.42, "⁴": 0.42, "⁵": 0.42, "⁶": 0.42, "⁷": 0.42, "⁸": 0.42, "⁹": 0.42, "⁻": 0.42, "\u00a0": 0.25}
_TAG = re.compile(r"<[^>]*>")
_BREAK = re.compile(r"<br\s*/?>", re.I)


def _char_em(ch: str) -> float:
    em = _ASCII_EM.get(ch) or _OTHER_EM.get(ch)
    if em is not None:
        return em
    kind = unicodedata.east_asian_width(ch)
    return 0.5 if kind == "H" else 0.65 if kind in ("N", "Na") and ord(ch) < 0x2000 else 1.0


def text_lines(text: str) -> list[str]:
    """The lines of a chart text as shown: split at <br>, other tags dropped, entities decoded."""
    return [html.unescape(_TAG.sub("", line)) for line in _BREAK.split(str(text))]


@lru_cache(maxsize=8192)
def _text_em(text: str) -> float:
    return max(sum(_char_em(ch) for ch in line) for line in text_lines(text)) * TEXT_SAFETY


def text_px(text: str, size: float) -> float:
    """Estimated width in px of a chart text (plotly pseudo-HTML; its widest line) at type size ``size``."""
    return _text_em(str(text)) * size


def text_height_px(text: str, size: float) -> float:
    """Height in px of a chart text's box (one line per <br>)."""
    return size * (LINE_EM + NEXT_LINE_EM * (len(text_lines(text)) - 1))


def layout_width() -> float:
    """The width (px) a chart is laid out for by default: :data:`LAYOUT_WIDTH`."""
    return LAYOUT_WIDTH.get()


def own_width(layout: dict, width: float, column: float) -> dict:
    """``layout`` with ``width`` as the chart's own width when it is wider than its ``column`` (its texts fit no
    narrower: :func:`fitted_plan`, :func:`wide_enough`, a least width): the chart component then scrolls it sideways in
    its own box and its caption says so (ui.charts). Returns ``layout``."""
    if width > column:
        layout["width"] = width
    return layout


def column_px(n: int = 1, share: float | None = None, of: float | None = None) -> int:
    """Width of one of ``n`` equal st.columns in a block ``of`` px wide (default :func:`layout_width`), or of a
    column taking ``share`` of the block when the columns are unequal."""
    inner = (layout_width() if of is None else of) - COLUMN_GAP_PX * (n - 1)
    return int(inner * (share if share is not None else 1 / n))


def _ticks(lo: float, hi: float, length_px: float, label_px) -> tuple[list[float], list[str]]:
    """Round tick values in [lo, hi] (0 included when lo < 0 < hi) as many as fit along ``length_px`` without two
    labels touching (``label_px(text)``: a label's extent along the bar), and their texts."""
    span = hi - lo
    for count in (8, 6, 5, 4, 3, 2, 1):
        raw = span / count
        k = math.floor(math.log10(raw))
        for step in (1, 2, 2.5, 5, 10):
            s = step * 10.0**k
            if s >= raw * (1 - 1e-9):
                break
        first = math.ceil(lo / s - 1e-9)
        vals = [float(f"{(first + i) * s:.12g}") for i in range(int(math.floor(hi / s + 1e-9)) - first + 1)]
        texts = [tick(v) for v in vals]
        if len(vals) < 2:
            continue
        gap = length_px * s / span
        if all(label_px(t) + 6 <= gap for t in texts):
            return vals, texts
    return [lo, hi], [tick(lo), tick(hi)]


def _radicals(text: str) -> str:
    """"√" in a Latin font: the CJK font draws it with a bar over what follows ("√‾d_k")."""
    return text.replace("√", '<span style="font-family:Liberation Sans, Arial, Helvetica, DejaVu Sans, sans-serif">'
                              "√</span>") if "√" in text else text


BELOW_TOOLBAR_PX = 38  # a title that starts below the toolbar (29 px high at the top; 34 touched it by 2 px)
TITLE_PAD_PX = 12  # a short title's top edge in a chart without notes (measured in Chromium: within 0.5 px)


def chart_title(text: str, size: int, width_px: float, color: str = "#222", subtitle: str = "") -> tuple[dict, int]:
    """A chart's title, left, clear of the toolbar at the top right: a title that would reach under it starts
    below it. Returns (the title dict, the top margin it needs)."""
    if not text and not subtitle:
        return {"font": {"color": color, "size": size}, "text": "", "x": 0, "xanchor": "left"}, 20
    if subtitle:  # plotly does not wrap a subtitle: each note broken onto lines that fit (a note was cut mid-word)
        subtitle = "<br>".join(_wrap_note(html.unescape(line), width_px - 24) for line in subtitle.split("<br>"))
    if not text:  # a note without a title takes the title's place
        return ({"font": {"color": "#444", "size": 14}, "text": _radicals(subtitle), "x": 0, "xanchor": "left"},
                int(text_height_px(subtitle, 14)) + 30)
    title = {"font": {"color": color, "size": size}, "text": _radicals(f"<b>{text}</b>"), "x": 0, "xanchor": "left"}
    top = 50
    if text_px(text, size * 1.1) + MODEBAR_PX + 12 > width_px:  # bold is wider (measured: up to 1.1×)
        title.update({"y": 1, "yanchor": "top", "yref": "container", "pad": {"t": BELOW_TOOLBAR_PX}})
        top = BELOW_TOOLBAR_PX + int(text_height_px(text, size)) + 16
    if subtitle:
        title["subtitle"] = {"font": {"size": 14, "color": "#444"}, "text": _radicals(subtitle)}
        top += int(text_height_px(subtitle, 14)) + 12
        if "pad" not in title:  # where plotly puts the title without a note (centred in the 50 px): it stays there,
            # level with its neighbours' titles, when a note comes (plotly centres title and note together)
            title.update({"y": 1, "yanchor": "top", "yref": "container", "pad": {"t": TITLE_PAD_PX}})
    return title, top


def title_pad(layout: dict) -> int:
    """How far below the chart's top edge its title starts, px: its pad when pinned (chart_title), else where plotly
    centres a one-line title in the 50 px margin (TITLE_PAD_PX)."""
    title = layout.get("title")
    pinned = isinstance(title, dict) and title.get("yref") == "container"
    return int(title.get("pad", {}).get("t", TITLE_PAD_PX)) if pinned else TITLE_PAD_PX


def plain_top(layout: dict) -> int:
    """The top margin a chart has without the notes under its title (a note's room comes from the cells: see
    _grid_layout, which records it in ``layout.meta``)."""
    meta = layout.get("meta")
    top = meta.get("top_without_notes") if isinstance(meta, dict) else None
    return int(top if top is not None else layout.get("margin", {}).get("t", 0))


def lowered(layout: dict, top: int, pad: int = TITLE_PAD_PX) -> dict:
    """``layout`` levelled with charts beside it whose plot areas start ``top`` px below their top edge (their
    :func:`plain_top`), their titles ``pad`` px (:func:`title_pad`): the chart grows by ``top`` − its own plain top
    (the same with or without a note, so a note that comes and goes moves nothing below the row), its plot area
    starts at ``top`` (or lower, under a note that needs more), and its title is pinned ``pad`` px from the top where
    its note leaves room. For charts side by side whose titles take different heights (one wraps, one starts below
    the toolbar): their plot areas and titles start level."""
    t, grow = int(layout.get("margin", {}).get("t", 0)), max(0, top - plain_top(layout))
    new_t = max(t, top)
    if grow == 0 and new_t == t:
        return layout
    title = layout.get("title")
    if isinstance(title, dict) and title.get("text"):
        if "yref" not in title:
            title = {**title, "y": 1, "yanchor": "top", "yref": "container", "pad": {"t": pad}}
        elif title_pad(layout) < pad <= title_pad(layout) + new_t - t:  # a title with a note, moved down if it fits
            title = {**title, "pad": {**title.get("pad", {}), "t": pad}}
    return {**layout, "margin": {**layout["margin"], "t": new_t}, "height": layout["height"] + grow, "title": title}


def finish(spec: dict) -> dict:
    """What every chart shares: the toolbar reduced to download and reset (it covers less), a zoom kept across
    redraws, √ drawn cleanly in the legend names, axis titles and notes."""
    layout = spec["layout"]
    layout["modebar"] = {"remove": list(MODEBAR_REMOVE)}
    # a zoom the person made (drag on the chart) outlives the next slider move; double-click still resets it
    layout["uirevision"] = "kept"  # (plotly keeps UI-made changes while uirevision stays the same)
    for trace in spec["data"]:
        if "name" in trace:
            trace["name"] = _radicals(trace["name"])
    for note in layout.get("annotations", ()):
        note["text"] = _radicals(note["text"])
    for key, axis in layout.items():
        if key.startswith(("xaxis", "yaxis")) and isinstance(axis.get("title"), dict) and axis["title"].get("text"):
            axis["title"]["text"] = _radicals(axis["title"]["text"])
    return spec


def _wrap(text: str, px: float, size: float, lines: int) -> str | None:
    """``text`` on at most ``lines`` lines of at most ``px`` each (broken at spaces when it has them, else between
    characters; the last line cut with "…"), joined with <br>; None when even that does not fit."""
    words = text.split(" ") if " " in text else list(text)
    sep = " " if " " in text else ""
    out, line = [], ""
    for word in words:
        trial = line + sep + word if line else word
        if text_px(trial, size) <= px or not line:
            line = trial
        else:
            out.append(line)
            line = word
    out.append(line)
    if len(out) > lines:
        last = out[lines - 1]
        while last and text_px(last + "…", size) > px:
            last = last[:-1]
        out = out[:lines - 1] + [last + "…"]
    if any(text_px(x, size) > px for x in out):
        return None
    return "<br>".join(escape(x) for x in out)


def _wrap_note(text: str, px: float, size: int = 14) -> str:
    """A note on lines of at most ``px`` (escaped, <br> between): broken at spaces, else between characters (a
    Japanese note has long runs without a space), on up to 4 lines."""
    return (_wrap(text, px, size, 4) or _wrap(text.replace(" ", "\u00a0"), px, size, 4)
            or escape(text))


def _spaced(widths, slot_px: float) -> bool:
    """Labels of these widths centred ``slot_px`` apart leave at least 4 px between neighbours."""
    return all((a + b) / 2 + 4 <= slot_px for a, b in zip(widths, widths[1:]))


def fit_tick_labels(labels, slot_px: float, size: int = TICK_FONT, max_chars: int = TICK_CHARS, wrap: int = 1):
    """Axis labels for a category axis whose categories are ``slot_px`` apart, so that no two touch: cut at
    ``max_chars`` with "…" and escaped; horizontal when they fit side by side (a label wider than its slot broken
    onto up to ``wrap`` lines), else turned upright (−90°). Returns (texts, angle, depth_px): the labels' extent
    below the axis."""
    texts = [escape(x) for x in display_labels([str(x) for x in labels], max_chars)]
    widths = [text_px(x, size) for x in texts]
    whole = [escape(str(x)) for x in labels]
    if texts == whole and _spaced(widths, slot_px):
        return texts, 0, size * LINE_EM
    if wrap > 1:  # whole labels on up to ``wrap`` lines rather than cut on one
        # broken at spaces, or between characters of Japanese; never inside a Latin word ("Anim/als")
        wrapped = [x if text_px(x, size) <= slot_px - 4
                   else _wrap(str(lab), slot_px - 4, size, wrap) if " " in str(lab) or not str(lab).isascii()
                   else None for x, lab in zip(whole, labels)]
        if all(w is not None for w in wrapped) and _spaced([text_px(w, size) for w in wrapped], slot_px):
            return wrapped, 0, max(text_height_px(w, size) for w in wrapped)
    if _spaced(widths, slot_px):
        return texts, 0, size * LINE_EM
    return texts, -90, max(widths, default=0.0)


def upright_slot(size: float = TICK_FONT) -> float:
    """The least distance (px) between two upright (−90°) axis labels at type size ``size`` that keeps them apart:
    their text box across (measured in Chromium: up to 21 px for 15 px Japanese labels) and 2 px."""
    return math.ceil(size * 1.4) + 2


def label_slot_need(labels, size: int = TICK_FONT, max_chars: int = TICK_CHARS) -> float:
    """The least distance (px) between categories at which :func:`fit_tick_labels` keeps ``labels`` apart: side by
    side (cut at ``max_chars``) when that is closer, else upright."""
    texts = [escape(x) for x in display_labels([str(x) for x in labels], max_chars)]
    widths = [text_px(x, size) for x in texts]
    side = max(((a + b) / 2 + 4 for a, b in zip(widths, widths[1:])), default=0.0)
    return min(side, upright_slot(size))


def wide_enough(width: float, fixed_px: float, labels, size: int = TICK_FONT) -> float:
    """``width``, or the narrowest chart width in which the category labels ``labels`` keep apart beside
    ``fixed_px`` of margins (16 tokens on a phone): a chart wider than its column scrolls sideways in its own box
    (ui/plot_component, ``layout.width``)."""
    return max(float(width), math.ceil(fixed_px + len(labels) * label_slot_need(labels, size)))


def fit_line(text: str, px: float, size: float) -> str:
    """``text`` (escaped here) cut with "…" so that it fits ``px`` at ``size``."""
    s = str(text)
    if text_px(escape(s), size) <= px:
        return escape(s)
    while s and text_px(escape(s) + "…", size) > px:
        s = s[:-1]
    return escape(s) + "…"


@dataclass(frozen=True)
class GridPlan:
    """How a heatmap (or mask grid) is laid out at its width: the cells' type size and texts, where the colour bar
    goes, the margins, a cell's size and the figure's height. ``fits``: every cell text fits inside its cell."""

    font: int
    style: tuple
    texts: list
    row_labels: list
    col_labels: list
    x_angle: int
    x_depth: float
    colorbar: str
    margin: dict
    cell_w: float
    cell_h: int
    height: int
    fits: bool
    cell_h_min: int = 0  # the lowest cell its numbers fit in (a title's notes may take the cells down to it)
    lines: int = 1  # lines of the tallest cell text
    tick: int = TICK_FONT  # the axis labels' type size


CELL_PAD = 2  # px between a cell's number and its edge (each side)
CELL_GAP = 2  # xgap / ygap: the white line between cells
_Y_TITLE_PX = 44  # the row axis title (14 px, standoff) left of the labels
X_TITLE_PX = 42  # the column axis title below the labels
_CBAR_V = 8 + 12 + 4 + 8  # a vertical colour bar right of the cells: gap, bar, gap to its labels, gap after
_CBAR_H = 12 + 6 + 20  # a horizontal colour bar under the column title: bar, gap, labels


def grid_plan(texts_for, n_rows: int, n_cols: int, row_labels, col_labels, *, width_px: float, row_title: bool,
              col_title: bool, colorbar_ticks=None, cell_px: int | None = None, em_floor=None,
              fonts: tuple[int, ...] = CELL_FONTS, tick: int = TICK_FONT, em_steady=None) -> GridPlan:
    """Lay out a grid of n_rows × n_cols cells in a chart ``width_px`` wide (the top margin, for the title and notes,
    is added by the caller: ``margin["t"]`` is 0 and ``height`` leaves it out).

    Args:
        texts_for: style (one of CELL_STYLES) → the cells' texts (n_rows lists of n_cols strings).
        row_labels, col_labels: the tokens / indices (cut and escaped here).
        row_title, col_title: whether the axes have titles.
        colorbar_ticks: the colour bar's tick texts, or None for no colour bar.
        cell_px: the cell height asked for (default from the number of rows).
        em_floor: style → a width (em) that the widest of that style's texts reaches at least (e.g. the widest of a
            few of them), or None. A style that could not fit even so, in the widest cell any way gives, is passed
            over without asking ``texts_for`` (which writes every cell): the result is the same, found faster.
        fonts: the cell type sizes to try, largest first (CELL_FONTS; CELL_FONTS_BIG in presentation mode).
        tick: the axis labels' type size (TICK_FONT; TICK_FONT_BIG in presentation mode).
        em_steady: style → the width (em) of the widest text any cell may come to show in that style (the widest
            number of the chart's colour range), or None. Within a style, a way in which that text would fit every
            cell is taken first: the layout then stays the same while the numbers move inside the range (a drag
            crossing 0 moves no colour bar: ui/preview.py's frames go on), and only when no such way exists is the
            way fitted to the texts shown. It never costs a style (precision) the texts shown would get.
    Tries, in order of preference: every number style of CELL_STYLES; row labels cut at 12, 8, 6, 4 then 3 characters;
    each cell type size of CELL_FONTS; the colour bar right of the cells, then under them. Takes the first way in
    which every cell's text fits inside its cell, else the tightest way (``fits`` False).
    """
    cbar_w = max((text_px(t, SMALL_FONT) for t in colorbar_ticks or ()), default=0.0)
    bars = ("v", "h") if colorbar_ticks else ("",)
    if cell_px:  # the cells' height asked for: only type sizes a one-line number fits in (the smallest anyway)
        fonts = tuple(f for f in fonts if _lowest_cell(f, 1) <= cell_px) or (min(fonts),)
    cuts = []  # the row labels cut at each length, with the left margin they need: the same for every style
    for cut in (TICK_CHARS, 8, 6, 4, 3):
        rows = [escape(x) for x in display_labels([str(x) for x in row_labels], cut)]
        cuts.append((rows, 22 + max((text_px(x, tick) for x in rows), default=0.0)
                     + (_Y_TITLE_PX if row_title else 0)))
    widest = max((width_px - left - 10) / max(n_cols, 1) for _, left in cuts)  # no colour bar at the side
    smallest = min(fonts)
    label_room = label_slot_need(col_labels, tick) if n_cols > 1 else 0.0  # the column labels keep apart too

    def ways():
        for k, style in enumerate(CELL_STYLES):
            if (em_floor is not None and k < len(CELL_STYLES) - 1  # the last style is the fallback: always tried
                    and em_floor(style) * smallest + 2 * CELL_PAD + CELL_GAP > widest):
                continue
            texts = texts_for(style)
            shown = {x for row in texts for x in row if x}  # a heatmap repeats its texts ("0.00", "○")
            em = max((text_px(x, 1.0) for x in shown), default=0.0)
            lines = max((x.count("<br>") + 1 for x in shown), default=1)
            for need in dict.fromkeys(((max(em, em_steady(style)),) if em_steady else ()) + (em,)):
                for rows, left in cuts:
                    for font in fonts:
                        for bar in bars:
                            right = 10 + (_CBAR_V + cbar_w if bar == "v" else 0)
                            cell_w = (width_px - left - right) / max(n_cols, 1)
                            yield style, texts, lines, rows, left, font, bar, right, cell_w, \
                                need * font + 2 * CELL_PAD + CELL_GAP <= cell_w and label_room <= cell_w

    for way in ways():
        if way[-1]:
            break
    style, texts, lines, rows, left, font, bar, right, cell_w, fits = way
    cols, x_angle, x_depth = fit_tick_labels(col_labels, cell_w, tick)
    lowest = _lowest_cell(font, lines)
    cell_h = max(cell_px or max(34, min(60, int(420 / max(n_rows, 1)))), lowest)
    bottom = math.ceil(18 + x_depth + (X_TITLE_PX if col_title else 8) + (_CBAR_H if bar == "h" else 0))
    margin = {"l": math.ceil(left), "r": math.ceil(right), "t": 0, "b": bottom}
    return GridPlan(font, style, texts, rows, cols, x_angle, x_depth, bar, margin, cell_w, cell_h,
                    int(n_rows * cell_h + bottom), fits, lowest, lines, tick)


def fitted_plan(plan_at, width: float) -> tuple[GridPlan, float]:
    """``plan_at(width)`` (a :func:`grid_plan`), or, when its numbers cannot fit a chart ``width`` px wide in any way
    (16 tokens on a phone), the plan for the narrowest width in which they fit, found to 4 px: (plan, width). A chart
    wider than its column keeps that width and scrolls sideways in its own box (ui/plot_component: ``layout.width``),
    so its numbers stay readable and never overlap."""
    plan = plan_at(width)
    if plan.fits:
        return plan, width
    lo, hi = width, width
    while True:  # the plan fits once every cell is as wide as the most compact number needs
        hi *= 1.5
        wide = plan_at(hi)
        if wide.fits or hi > 40_000:
            break
    while hi - lo > 4:
        mid = (lo + hi) / 2
        if plan_at(mid).fits:
            hi = mid
        else:
            lo = mid
    hi = math.ceil(hi)
    return plan_at(hi), float(hi)


def _lowest_cell(font: int, lines: int) -> int:
    """The height (px) of the lowest cell a text of ``lines`` lines at ``font`` px fits in."""
    return math.ceil(font * (LINE_EM + NEXT_LINE_EM * (lines - 1))) + 2 * CELL_PAD + CELL_GAP


def _room_for_notes(plan: GridPlan, extra: float) -> GridPlan:
    """``plan`` with cells that can give ``extra`` px (the notes under a title) to the title: the largest cell font,
    not larger than the plan's, whose text still fits a cell that much lower (16 rows of 34 px at 18 px give 16 px,
    at 16 px 64); the smallest font when none does (the chart then grows by the rest: see _grid_layout)."""
    n_rows = len(plan.row_labels)
    fonts = [f for f in CELL_FONTS if f <= plan.font] or [plan.font]
    for font in fonts:
        if n_rows * (plan.cell_h - _lowest_cell(font, plan.lines)) >= extra:
            break
    return replace(plan, font=font, cell_h_min=_lowest_cell(font, plan.lines))


def grid_need(texts, row_labels, col_labels, *, colorbar_top: float | None, row_title: bool = True,
              tick: int = TICK_FONT) -> float:
    """The narrowest chart width (px) in which a grid with these cell texts shows every one of them at 14 px in the
    way :func:`grid_plan` lays it out (row labels cut at 12 characters, the colour bar under the cells), its axis
    labels at ``tick`` px."""
    em = max((text_px(x, 1.0) for x in {x for row in texts for x in row if x}), default=0.0)
    rows = [escape(x) for x in display_labels([str(x) for x in row_labels], TICK_CHARS)]
    left = 22 + max((text_px(x, tick) for x in rows), default=0.0) + (_Y_TITLE_PX if row_title else 0)
    labels = label_slot_need(col_labels, tick) if len(col_labels) > 1 else 0.0
    cell = max(em * CELL_FONTS[-1] + 2 * CELL_PAD + CELL_GAP, labels)
    return math.ceil(left + 10 + max(len(col_labels), 1) * cell) + 2


def _bar_ticks(lo: float, hi: float, length_px: float, horizontal: bool):
    extent = (lambda t: text_px(t, SMALL_FONT)) if horizontal else (lambda t: SMALL_FONT * LINE_EM)
    return _ticks(lo, hi, length_px, extent)


# ---- building figures cheaply ------------------------------------------------------------------------------------
# go.Figure validates every property it is given, which costs ~8 ms for one 16×16 heatmap, and a lesson page draws a
# dozen on every rerun. So each builder writes its figure as a plain dict (``*_spec``) that is already in the form
# plotly's validation produces (named colour scales resolved to their stops, arrays as lists or float64 NumPy arrays),
# and no go.Figure is made. tests/ui/test_figure_specs.py checks that validating these dicts changes nothing, so the
# figures are exactly those built property by property. ui/charts.py hands the dicts to the screen directly (and
# reuses heatmaps while their inputs do not change).
@cache
def _scale_stops(name: str) -> tuple:
    """A named plotly colour scale as its (position, colour) stops, as validation would resolve it."""
    return tuple(tuple(stop) for stop in go.Heatmap(colorscale=name).to_plotly_json()["colorscale"])


def _colorscale(name: str) -> list:
    return [list(stop) for stop in _scale_stops(name)]


def diverging_colorscale(scheme: str = "default") -> list:
    """The heatmaps' diverging scale of colour scheme ``scheme`` (SCHEMES; default DIVERGING_SCALE, blue < 0 < red,
    white at 0) as explicit stops, for a lesson's own chart: plotly.js has its own scale under the same name (grey at
    0), so a name alone would differ. Raises KeyError for an unknown scheme."""
    return _colorscale(SCHEMES[scheme][1])


def weights_colorscale(scheme: str = "default") -> list:
    """The weights heatmaps' sequential scale of colour scheme ``scheme`` (SCHEMES; default WEIGHTS_SCALE, 0 dark → 1
    bright) as explicit stops, for a lesson's own chart of weights (the same colours as the shared heatmap's). Raises
    KeyError for an unknown scheme."""
    return _colorscale(SCHEMES[scheme][0])


BLOCK_LINE = {"color": "#222222", "width": 3}


def block_frames(r: int, c: int, row_blocks: int = 1, col_blocks: int = 1) -> list[dict]:
    """Plotly rectangles framing the equal blocks of an r × c grid cut into ``row_blocks`` × ``col_blocks`` (a block
    count that does not divide its side, or 1, cuts nothing on that side). Each block of a side cut in k is one
    head's share (head i: block i)."""
    rk = row_blocks if row_blocks > 1 and r % row_blocks == 0 else 1
    ck = col_blocks if col_blocks > 1 and c % col_blocks == 0 else 1
    if rk == ck == 1:
        return []
    h, w = r // rk, c // ck
    return [{"fillcolor": "rgba(0,0,0,0)", "line": dict(BLOCK_LINE), "type": "rect", "x0": b * w - 0.5,
             "x1": (b + 1) * w - 0.5, "y0": a * h - 0.5, "y1": (a + 1) * h - 0.5}
            for a in range(rk) for b in range(ck)]


def frame_rows(rows) -> list[int]:
    """``highlight_rows`` (of :func:`heatmap_spec`) as sorted distinct row numbers: None → [], one int → [it]."""
    if rows is None:
        return []
    return sorted({int(rows)} if np.ndim(rows) == 0 else {int(i) for i in rows})


def heatmap_spec(M, row_labels, col_labels, *, title: str = "", row_title: str = "", col_title: str = "",
                 hover: str = "", weights: bool = False, role: str | None = None, zmax: float | None = None,
                 highlight_rows: int | Iterable[int] | None = None, cell_px: int | None = None,
                 width_px: float | None = None,
                 range_note: str = "", rounded_note: str = "", exact=None, blocks: tuple[int, int] = (1, 1),
                 big: bool = False, scheme: str = "default") -> dict:
    """A matrix as a heatmap with its values written in the cells.

    Args:
        M: (r, c) array. -inf cells (masked) are shown blank with the text "−∞".
        row_labels, col_labels: r and c strings (tokens or indices); duplicates allowed.
        title, row_title, col_title: texts already in the user's language.
        hover: plotly hovertemplate; may use %{customdata[0]} (row label), %{customdata[1]} (column label),
            %{text} (the value as written); "" gives a plain default.
        weights: True for attention weights (sequential scale fixed to 0..1); False: diverging around 0, symmetric
            range ±max|M|, or ±zmax (the lesson's range, lessons/ranges.py) widened to a round number past a value
            beyond it.
        role: key of ROLE_COLORS for the title colour.
        blocks: (row blocks, column blocks): the rows / columns cut into that many equal blocks, each framed
            (:func:`block_frames`): a multi-head W_Q's heads (column blocks), W_O's (row blocks). (1, 1): none.
        highlight_rows: a row, or several, to frame: the chosen query, or the queries with no key to attend to. Rows
            outside 0..r-1 are ignored.
        cell_px: cell height in pixels (default from the size; taller when a cell's text needs it).
        width_px: the chart's width at the reference window (default REF_COLUMN_PX, the whole main column): the
            cells' type size (CELL_FONTS, never below 14 px), number style (CELL_STYLES), label cut, colour bar
            place, margins and height are chosen so that every cell's number fits inside its cell (:func:`grid_plan`).
        range_note: shown under the title when the range was widened: "{new}" and "{base}" are the ranges.
        rounded_note: shown under the title when the cells' numbers were shortened (the hover keeps 2 decimals).
        big: presentation mode: the cells' numbers as large as CELL_FONTS_BIG lets them fit, the axis labels at
            TICK_FONT_BIG.
        scheme: the colour scheme (a key of SCHEMES).
        exact: with ``weights``, (r, c) bool: which weights are exactly 0 or 1 in exact arithmetic
            (ui.numbers.softmax_exact of the scores); a weight stored as 0.0 or 1.0 elsewhere is written "<0.01" /
            ">0.99" (ui.numbers.cell). None: every stored 0 and 1 is exact.

    Returns:
        the figure as a plain dict {"data": [...], "layout": {...}} in plotly's validated form; y axis reversed so
        row 0 is on top; ticks show the labels at positions 0..r-1 / 0..c-1.
    """
    A = np.asarray(M, dtype=np.float64)
    r, c = A.shape
    width = float(width_px or layout_width())
    finite = np.where(np.isfinite(A), A, np.nan)
    masked = np.isneginf(A)
    values = A.tolist()
    rows, cols = hover_names(row_labels), hover_names(col_labels)
    plain = CELL_STYLES[0]
    exact_ = np.ones(A.shape, dtype=bool) if exact is None or not weights else np.asarray(exact, dtype=bool)
    exacts = exact_.tolist()
    by_style: dict = {plain: [[cell(v, weight=weights, exact=e) for v, e in zip(row, es)]  # 2 decimals, "−∞"
                              for row, es in zip(values, exacts)]}
    custom = [[[rows[i], cols[j], by_style[plain][i][j]] for j in range(c)] for i in range(r)]  # labels, value
    notes = []
    if weights:
        lo, hi, scale = 0.0, 1.0, {"zmax": 1.0, "zmin": 0.0}
    else:
        largest = float(np.nanmax(np.abs(finite))) if np.isfinite(finite).any() else 0.0
        top = largest if zmax is None else float(zmax)
        if zmax is not None and largest > top:  # a value past the lesson's range: widened, and said
            top, base = nice_ceiling(largest), top
            if range_note:
                notes.append(range_note.format(new=tick(top), base=tick(base)))
        top = top if top > 0 else 1.0
        lo, hi, scale = -top, top, {"zmax": top, "zmid": 0.0, "zmin": -top}
    first_h = max(cell_px or max(34, min(60, int(420 / max(r, 1)))), 1)
    tick_vals, tick_texts = _bar_ticks(lo, hi, 0.9 * r * first_h, horizontal=False)
    by_style[plain] = [["" if v == -math.inf else x for v, x in zip(vs, xs)] for vs, xs in zip(values, by_style[plain])]

    def texts_for(style):
        if style not in by_style:
            by_style[style] = [["" if v == -math.inf else cell(v, *style, weight=weights, exact=e)
                                for v, e in zip(row, es)] for row, es in zip(values, exacts)]
        return by_style[style]

    shown = [v for row in values for v in row if v != -math.inf]  # the cells with a text
    probe = [max(shown, key=abs), min(shown)] if shown else []  # the longest texts are likely among theirs

    def em_floor(style) -> float:
        return max((text_px(cell(v, *style, weight=weights), 1.0) for v in probe), default=0.0)

    # the widest texts the colour range holds (as ui.charts.heatmap_need measures them): a layout for them stays put
    # while the cells' numbers move inside the range
    steady = (1.0, 0.999, 1e-9) if weights else (-hi, -1e-9)

    def em_steady(style) -> float:
        return max(text_px(cell(v, *style, weight=weights), 1.0) for v in steady)

    column = width
    plan, width = fitted_plan(lambda w: grid_plan(
        texts_for, r, c, row_labels, col_labels, width_px=w, row_title=bool(row_title), col_title=bool(col_title),
        colorbar_ticks=tick_texts, cell_px=cell_px, em_floor=em_floor, fonts=CELL_FONTS_BIG if big else CELL_FONTS,
        tick=TICK_FONT_BIG if big else TICK_FONT, em_steady=em_steady if weights or zmax is not None else None),
        width)
    if plan.style != plain and rounded_note:
        notes.append(rounded_note)
    if notes:  # their room comes out of the cells (the chart keeps its height: _grid_layout)
        extra = chart_title(title, 18, width, subtitle="<br>".join(notes))[1] - chart_title(title, 18, width)[1]
        plan = _room_for_notes(plan, extra)
    hover = hover or "%{customdata[0]} · %{customdata[1]}: %{text}<extra></extra>"
    if plan.style != plain:  # the cells are shortened: the hover keeps 2 decimals
        hover = hover.replace("%{text}", "%{customdata[2]}")
    if plan.colorbar == "h":
        plot_w = width - plan.margin["l"] - plan.margin["r"]
        length = min(0.8, 360 / max(plot_w, 1))
        tick_vals, tick_texts = _bar_ticks(lo, hi, length * plot_w, horizontal=True)
        colorbar = {"len": length, "orientation": "h", "thickness": 12, "tickfont": {"size": SMALL_FONT},
                    "ticktext": tick_texts, "tickvals": tick_vals, "x": 0.5, "xanchor": "center", "y": 0,
                    "yanchor": "bottom", "ypad": 4, "yref": "container"}  # the strip under the column title
    else:
        colorbar = {"len": 0.9, "thickness": 12, "tickfont": {"size": SMALL_FONT}, "ticktext": tick_texts,
                    "tickvals": tick_vals, "x": 1, "xanchor": "left", "xpad": 8}
    trace = {"colorbar": colorbar,
             "colorscale": weights_colorscale(scheme) if weights else diverging_colorscale(scheme)}
    trace.update({
        "customdata": custom, "hoverongaps": False, "hovertemplate": hover, "text": plan.texts,
        "textfont": {"size": plan.font}, "texttemplate": "%{text}", "x": list(range(c)), "xgap": CELL_GAP,
        "y": list(range(r)), "ygap": CELL_GAP, "z": finite, **scale, "type": "heatmap",
    })
    layout = _grid_layout(plan, title, ROLE_COLORS.get(role, "#222"), notes, row_title, col_title, width)
    plot_h = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    if plan.colorbar == "v" and plot_h < r * first_h:  # cells made lower for a note: ticks for the shorter bar,
        widest = max((text_px(x, SMALL_FONT) for x in tick_texts), default=0.0)  # none wider than the margin holds
        colorbar["tickvals"], colorbar["ticktext"] = _ticks(
            lo, hi, 0.9 * plot_h, lambda x: SMALL_FONT * LINE_EM if text_px(x, SMALL_FONT) <= widest else math.inf)
    own_width(layout, width, column)
    framed = [i for i in frame_rows(highlight_rows) if 0 <= i < r]
    shapes = block_frames(r, c, *blocks)
    shapes += [{"fillcolor": "rgba(0,0,0,0)", "line": {"color": ROLE_COLORS["Q"], "width": 4},
                "type": "rect", "x0": -0.5, "x1": c - 0.5, "y0": i - 0.5, "y1": i + 0.5} for i in framed]
    if shapes:
        layout["shapes"] = shapes
    data = [trace]
    if masked.any():  # masked cells (−∞) in grey, written "−∞", under the numbers; they never set the colour range
        data.insert(0, _flat_cells(masked, MASKED_GREY, "−∞", custom, hover, r, c, plan.font))
    return finish({"data": data, "layout": layout})


def _grid_layout(plan: GridPlan, title: str, color: str, notes, row_title: str, col_title: str,
                 width: float) -> dict:
    """The layout of a heatmap or mask grid laid out by ``plan``: title (and notes under it), axes, size.

    Notes take their room from the cells, down to the lowest cell the numbers fit in (``plan.cell_h_min``): the chart
    keeps the height it has without them, so a note that appears while a slider moves (a value past the colour range)
    moves nothing below the chart, such as the weights under the pointer."""
    title_d, top = chart_title(title, 18, width, color, subtitle="<br>".join(notes))
    n_rows, n_cols = len(plan.row_labels), len(plan.col_labels)
    height = plan.height + top
    meta = {}
    if notes:
        plain_top = chart_title(title, 18, width, color)[1]
        height = max(plan.height + plain_top, height - n_rows * (plan.cell_h - max(plan.cell_h_min, 1)))
        meta = {"meta": {"top_without_notes": plain_top}}  # for charts beside it (lowered)
    return {**meta,
        "title": title_d, "margin": {**plan.margin, "t": top}, "font": {"family": FONT, "size": 14},
        "xaxis": {"showgrid": False, "side": "bottom", "tickangle": plan.x_angle, "tickfont": {"size": plan.tick},
                  "ticktext": plan.col_labels, "tickvals": list(range(n_cols)), "title": {"text": col_title},
                  "zeroline": False},
        "yaxis": {"autorange": "reversed", "showgrid": False, "tickfont": {"size": plan.tick},
                  "ticktext": plan.row_labels, "tickvals": list(range(n_rows)), "title": {"text": row_title},
                  "zeroline": False},
        "height": height, "plot_bgcolor": "white", "paper_bgcolor": "white",
    }


def _flat_cells(where: np.ndarray, color: str, label: str, custom, hover: str, r: int, c: int, font: int) -> dict:
    """A heatmap trace that paints the cells ``where`` (r, c) bool in one colour, each written ``label``."""
    z = np.where(where, 1.0, np.nan)
    # hoverongaps off here and on the numbers' trace: a cell that is a gap (NaN) in the trace on top is answered by
    # the trace that draws it, not by the gap (a masked score's label read "masked score " with no number)
    return {"colorscale": [[0.0, color], [1.0, color]], "customdata": custom, "hoverongaps": False,
            "hovertemplate": hover,
            "showscale": False, "text": [[label if w else "" for w in row] for row in where.tolist()],
            "textfont": {"color": "#333333", "size": font}, "texttemplate": "%{text}",
            "x": list(range(c)), "xgap": CELL_GAP, "y": list(range(r)), "ygap": CELL_GAP, "z": z, "zmax": 1.0,
            "zmin": 0.0, "type": "heatmap"}


def mask_spec(mask, row_labels, col_labels, *, title: str = "", row_title: str = "", col_title: str = "",
              hover: str = "", yes: str = "✓", no: str = "✗", cell_px: int | None = None,
              width_px: float | None = None, yes_word: str = "", no_word: str = "") -> dict:
    """A boolean mask (r, c) as a grid: allowed cells (True) white, written ``yes``; hidden cells (False) grey,
    written ``no`` (for the additive form, yes = "0" and no = "−∞"). Row 0 on top; tokens placed by position.
    Laid out for ``width_px`` like :func:`heatmap_spec` (no colour bar). Hover data per cell: [row label, column
    label, ``yes_word`` or ``no_word``] (what the mark means, e.g. "may attend" / "hidden": %{customdata[2]})."""
    m = np.asarray(mask, dtype=bool)
    r, c = m.shape
    width = float(width_px or layout_width())
    rows, cols = hover_names(row_labels), hover_names(col_labels)
    words = (no_word, yes_word)  # what a cell means, for the hover (%{customdata[2]}): "may attend" / "hidden"
    custom = [[[rows[i], cols[j], words[v]] for j, v in enumerate(row)] for i, row in enumerate(m.tolist())]
    hover = hover or "%{customdata[0]} · %{customdata[1]}: %{text}<extra></extra>"
    texts = [[yes if v else no for v in row] for row in m.tolist()]
    column = width
    plan, width = fitted_plan(lambda w: grid_plan(lambda style: texts, r, c, row_labels, col_labels, width_px=w,
                                                  row_title=bool(row_title), col_title=bool(col_title),
                                                  cell_px=cell_px), width)
    layout = _grid_layout(plan, title, ROLE_COLORS["mask"], (), row_title, col_title, width)
    own_width(layout, width, column)
    layout["plot_bgcolor"] = "#eeeeee"
    data = [_flat_cells(m, OPEN_CELL, yes, custom, hover, r, c, plan.font),
            _flat_cells(~m, MASKED_GREY, no, custom, hover, r, c, plan.font)]
    return finish({"data": data, "layout": layout})


def value_labels(texts, slot_px: float, sizes=BAR_FONTS) -> tuple[int, int, float]:
    """Type size and angle of value labels written over bars ``slot_px`` apart, so that no two touch: the largest
    size of BAR_FONTS at which each fits its slot side by side, else upright (−90°) at the largest size whose line
    fits. Returns (size, angle, the labels' extent above / below their bar in px)."""
    widest = max((text_px(t, 1.0) for t in texts), default=0.0)
    for size in sizes:
        if widest * size + 4 <= slot_px:
            return size, 0, size * LINE_EM
    for size in sizes:
        if size * LINE_EM + 2 <= slot_px:
            return size, -90, widest * size
    return sizes[-1], -90, widest * sizes[-1]


def room_for_labels(lo: float, hi: float, vmin: float, vmax: float, above_px: float, below_px: float,
                    plot_px: float) -> list[float]:
    """A value axis range holding [lo, hi] and room for labels ``above_px`` over the highest bar (vmax ≥ 0) and
    ``below_px`` under the lowest (vmin < 0), on a plot ``plot_px`` tall."""
    lo, hi = min(lo, vmin, 0.0), max(hi, vmax, 0.0)
    for _ in range(3):  # each widening changes the scale a little: settle it
        per_px = (hi - lo) / max(plot_px, 1)
        if vmax > 0:
            hi = max(hi, vmax + (above_px + 6) * per_px)
        if vmin < 0:
            lo = min(lo, vmin - (below_px + 6) * per_px)
    return [lo, hi]


def legend_below(names, width_px: float, size: int, offset_px: float, plot_px: float) -> tuple[dict, int]:
    """A horizontal legend under the x axis (``offset_px`` below the plot area: its labels and title), left
    aligned; returns (legend, the height it takes). Plotly puts the entries in one row when they fit, else in
    columns as wide as the widest entry (symbol and gaps: 40 px)."""
    widths = [40 + text_px(name, size) for name in names]
    room = width_px - 20
    if sum(widths) <= room:
        rows = 1
    else:
        rows = math.ceil(len(widths) / max(1, int(room // max(widths))))
    legend = {"font": {"size": size}, "orientation": "h", "x": 0, "xanchor": "left", "y": -offset_px / plot_px,
              "yanchor": "top"}
    return legend, int(rows * (size * LINE_EM + 6) + 8)


VALUE_AXIS_PX = 52  # a value axis left of the plot: its tick labels (12 px) and gaps
_AXIS_TITLE_PX = 26  # an axis title (14 px) beside its tick labels


def _bar_texts(values, percent: bool, exact) -> list[str]:
    """Value labels of bars: percentages (``exact``: which are exactly 0 or 1, None: all) or 2 decimals."""
    values = [float(x) for x in values]
    if not percent:
        return [chart_num(x) for x in values]
    exact = [True] * len(values) if exact is None else [bool(e) for e in exact]
    return [chart_percent(x, e) for x, e in zip(values, exact)]


def bars_need(values, *, percent: bool = False, exact=None) -> float:
    """The narrowest chart (px) in which a bar chart of ``values`` (:func:`bars_spec`, or the output bars of
    :func:`vector_mix_spec`: one group per value) writes each value label side by side at 14 px."""
    texts = _bar_texts(values, percent, exact)
    widest = max((text_px(t, 14) for t in texts), default=0.0)
    return math.ceil(20 + VALUE_AXIS_PX + len(texts) * (widest + 6))


def bars_spec(values, labels, *, title: str = "", color: str = ROLE_COLORS["weights"], percent: bool = False,
              y_range=None, axis_title: str = "", hover: str = "", width_px: float | None = None,
              exact=None) -> dict:
    """A bar per value, labelled by position (duplicates allowed), the value written above each bar.

    Args:
        values: 1-D array. percent=True writes 100·v with one decimal and a % sign (ui.numbers.percent; ``exact``:
            which weights are exactly 0 or 1, ui.numbers.softmax_exact; None: every stored 0 and 1 is).
        labels: one string per bar (tokens are escaped; cut at TICK_CHARS on the axis, whole in the hover).
        y_range: (lo, hi) or None for automatic; widened to hold the value labels.
        width_px: the chart's width at the reference window (default the main column): the value labels take the
            largest size of BAR_FONTS (never below 12 px) at which no two touch, upright when needed.
    """
    v = np.array(values, dtype=np.float64)  # a copy: the figure must not follow later changes of the caller's array
    width = float(width_px or layout_width())
    n = len(v)
    names = hover_names(labels)
    text = _bar_texts(v.tolist(), percent, exact)
    left = 10 + VALUE_AXIS_PX + (_AXIS_TITLE_PX if axis_title else 0)
    column, width = width, wide_enough(width, left + 10, labels)
    slot = (width - left - 10) / max(n, 1)
    ticks, tick_angle, tick_depth = fit_tick_labels(labels, slot)
    size, angle, extent = value_labels(text, slot)
    title_d, top = chart_title(title, 17, width)
    plot_h = 190
    bottom = math.ceil(16 + tick_depth + 8)
    vmin, vmax = (float(v.min()), float(v.max())) if n else (0.0, 0.0)
    lo, hi = y_range if y_range else (vmin, vmax)
    trace = {"cliponaxis": False, "constraintext": "none", "customdata": names,
             "hovertemplate": hover or "%{customdata}: %{text}<extra></extra>", "marker": {"color": color},
             "text": text, "textangle": angle, "textfont": {"size": size}, "textposition": "outside",
             "x": list(range(n)), "y": v, "type": "bar"}
    yaxis = {"title": {"text": axis_title}, "range": room_for_labels(lo, hi, vmin, vmax, extent, extent, plot_h),
             "gridcolor": "#e5e5e5", "zerolinecolor": "#999", "tickfont": {"size": SMALL_FONT}}
    if percent:
        yaxis["tickformat"] = ".0%"
        yaxis["tickvals"] = [0, 0.25, 0.5, 0.75, 1.0]
    layout = {
        "title": title_d, "margin": {"l": left, "r": 10, "t": top, "b": bottom}, "font": {"family": FONT, "size": 14},
        "xaxis": {"tickangle": tick_angle, "tickfont": {"size": TICK_FONT}, "tickvals": list(range(n)),
                  "ticktext": ticks},
        "yaxis": yaxis, "height": top + plot_h + bottom, "plot_bgcolor": "white", "paper_bgcolor": "white",
        "showlegend": False,
    }
    own_width(layout, width, column)
    return finish({"data": [trace], "layout": layout})


def vector_mix_spec(vectors, weights, output, labels, *, out_label: str, dim_title: str, title: str = "",
                    hover: str = "", width_px: float | None = None, exact=None) -> dict:
    """The weighted sum Σ w_j·v_j as grouped bars: each value vector scaled by its weight, and the output.

    Args:
        vectors: (n, d) value vectors; weights: (n,) one query's weights; output: (d,) = weights @ vectors.
        exact: which weights are exactly 0 or 1 (their percentages in the legend), as for :func:`bars_spec`.
        labels: n token labels; out_label: name of the output bar group.
        width_px: the chart's width at the reference window (value labels and the legend under the axis title
            are laid out for it).
    """
    V = np.asarray(vectors, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    out = np.array(output, dtype=np.float64)  # a copy, as validation would make
    width = float(width_px or layout_width())
    d = V.shape[1]
    x = [str(k + 1) for k in range(d)]
    palette = ["#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#E69F00", "#999999"]
    shares = _bar_texts(w.tolist(), True, exact)
    names = [f"{shares[j]} × v({escape(lab)})" for j, lab in enumerate(display_labels(list(map(str, labels)),
                                                                                    TICK_CHARS))]
    text = [chart_num(v) for v in out.tolist()]
    left = 10 + VALUE_AXIS_PX
    slot = (width - left - 10) / max(d, 1)
    size, angle, extent = value_labels(text, slot)
    data = [{"hovertemplate": hover or "%{y:.3f}<extra>%{fullData.name}</extra>",
             "marker": {"color": palette[j % len(palette)]}, "name": names[j],
             "opacity": 0.75, "x": list(x), "y": w[j] * V[j], "type": "bar"} for j in range(len(names))]
    data.append({"cliponaxis": False, "constraintext": "none",
                 "hovertemplate": "%{y:.3f}<extra>%{fullData.name}</extra>",
                 "marker": {"color": ROLE_COLORS["out"], "line": {"color": "#222", "width": 2}},
                 "name": escape(out_label), "text": text, "textangle": angle, "textfont": {"size": size},
                 "textposition": "outside", "x": list(x), "y": out, "type": "bar"})
    title_d, top = chart_title(title, 17, width)
    plot_h = 200
    scaled = w[:, None] * V if V.size else np.zeros((1, d))
    vmin = float(min(scaled.min(initial=0.0), out.min(initial=0.0)))
    vmax = float(max(scaled.max(initial=0.0), out.max(initial=0.0)))
    axis_px = 16 + TICK_FONT * LINE_EM + X_TITLE_PX
    legend, legend_px = legend_below([d_["name"] for d_ in data], width, 14, axis_px, plot_h)
    layout = {
        "title": title_d, "margin": {"l": left, "r": 10, "t": top, "b": int(axis_px + legend_px)},
        "font": {"family": FONT, "size": 14},
        "xaxis": {"tickfont": {"size": TICK_FONT}, "title": {"text": dim_title}},
        "yaxis": {"gridcolor": "#e5e5e5", "zerolinecolor": "#999", "tickfont": {"size": SMALL_FONT},
                  "range": room_for_labels(vmin, vmax, float(out.min(initial=0.0)), float(out.max(initial=0.0)),
                                           extent, extent, plot_h)},
        "legend": legend, "barmode": "group", "height": int(top + plot_h + axis_px + legend_px),
        "plot_bgcolor": "white", "paper_bgcolor": "white",
    }
    return finish({"data": data, "layout": layout})
