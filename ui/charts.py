"""Charts to the screen: the one path a figure spec takes (cached, ready for plotly.js, drawn in place by
ui.plot_component), the heatmap and mask of a named matrix in one call (texts from the language tables), and the chart
slots that place charts side by side only when their numbers fit (chart_columns)."""
from __future__ import annotations

import base64
import contextvars
import threading
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import lru_cache

import numpy as np
import plotly.io as pio
import streamlit as st
from _plotly_utils.utils import to_typed_array_spec
from plotly.basedatatypes import BasePlotlyType

from . import figures as F
from . import numbers, plot_component, present, preview, scheme
from .i18n import current_lang, t

PLOT_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d"],
               "toImageButtonOptions": {"format": "png", "scale": 2}}


@lru_cache(maxsize=8)
def _plot_config(lang: str) -> dict:
    """PLOT_CONFIG with the toolbar's tooltips in ``lang`` (plotly's ``locale`` and ``locales`` config options:
    the dictionary travels with the chart, nothing is registered globally). One object per language, never
    modified (ui.plot_component caches payloads by it)."""
    words = {"Download plot as a PNG": t("fig.toolbar.download_png", lang=lang),  # plotly.js's own words → ours
             "Reset axes": t("fig.toolbar.reset_axes", lang=lang),
             "Taking snapshot - this may take a few seconds": t("fig.toolbar.snapshot", lang=lang)}
    return {**PLOT_CONFIG, "locale": f"al-{lang}", "locales": {f"al-{lang}": {"dictionary": words}}}


def color_scheme() -> str:
    """The colour scheme the class chose (ui.scheme; a key of ui.figures.SCHEMES), for a lesson's own chart spec."""
    return scheme.current()


def sign_colours() -> dict[str, str]:
    """{"neg": ..., "pos": ...}: the words for the colours of negative and positive scores in the chosen scheme
    (texts ``scheme.<name>_neg_word`` / ``_pos_word``), for a caption that names them."""
    name = scheme.current()
    return {"neg": t(f"scheme.{name}_neg_word"), "pos": t(f"scheme.{name}_pos_word")}


def plot_config() -> dict:
    """The chart config for the page's current language (see _plot_config)."""
    return _plot_config(current_lang())


def matrix_labels(name: str, tokens, n_rows: int, n_cols: int) -> tuple[list[str], list[str]]:
    """Row and column labels of a named matrix: tokens for row matrices (X, Q, K, V, output), numbers else."""
    nums_r = [str(k + 1) for k in range(n_rows)]
    nums_c = [str(k + 1) for k in range(n_cols)]
    if name in ("X", "Q", "K", "V", "out"):
        return list(tokens), nums_c
    if name in ("scores", "scaled", "weights"):
        return list(tokens), list(tokens)
    return nums_r, nums_c


# ---- figures to the screen, cheaply --------------------------------------------------------------------------
# Building a go.Figure and calling its to_dict() (a deep copy and a walk of the whole figure) costs ~1.5 ms for a
# 16×16 heatmap, on every rerun, a dozen times per page. Here a figure goes from its plain dict (ui.figures.*_spec)
# straight to the form to_dict() returns, and heatmaps whose inputs did not change since an earlier rerun are not
# built again (a small LRU cache shared by all sessions; the cached dicts are never modified). One path for every
# figure: show_figure takes specs only, show_heatmap builds one, and both reach the screen through _plot, the one
# place a chart is drawn (ui.plot_component: redrawn in place with Plotly.react). tests/ui/test_figure_specs.py
# checks the chart receives exactly the JSON st.plotly_chart sends for the go.Figure the public builders return.


@lru_cache(maxsize=8)
def _template_json(name: str) -> dict:
    return pio.templates[name].to_plotly_json()


def _typed_arrays(obj):
    """NumPy arrays in a spec as plotly.js typed arrays, as Figure.to_dict() writes them. Plotly's own
    convert_to_base64 costs ~75 µs per array and walks into every list (a 16×16 heatmap's cell texts and hover
    labels are 800 of them); the builders put arrays only as values of dicts (or in lists of dicts), so only those
    are visited, and float64, the only kind they make, is encoded here directly, anything else by plotly."""
    if isinstance(obj, dict):
        return {k: _typed_arrays(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_typed_arrays(v) for v in obj] if any(isinstance(v, (dict, np.ndarray)) for v in obj) else obj
    if isinstance(obj, np.ndarray):
        if obj.dtype == np.float64 and obj.size:
            spec = {"dtype": "f8", "bdata": base64.b64encode(np.ascontiguousarray(obj)).decode("ascii")}
            if obj.ndim > 1:
                spec["shape"] = str(obj.shape)[1:-1]
            return spec
        return to_typed_array_spec(obj)
    return obj


def _ready(spec: dict) -> dict:
    """A figure spec (validated form) as go.Figure(spec).to_dict() would return it: the default template added,
    NumPy arrays as plotly.js typed arrays."""
    default = pio.templates.default
    layout = _typed_arrays(spec["layout"])
    if default is not None and "template" not in layout:
        layout = {"template": default.to_plotly_json() if isinstance(default, BasePlotlyType)
                  else _template_json(default), **layout}
    return {"data": [_typed_arrays(trace) for trace in spec["data"]], "layout": layout}


def _heatmap_ready(M, rows: tuple, cols: tuple, texts: tuple, weights: bool, role: str | None,
                   highlight_rows: tuple[int, ...], zmax: float | None = None, width_px: float | None = None,
                   notes: tuple = ("", ""), blocks: tuple[int, int] = (1, 1), big: bool = False,
                   scheme: str = "default", cell_px: int | None = None, exact=None) -> dict:
    title, row_title, col_title, hover = texts
    range_note, rounded_note = notes
    return _ready(F.heatmap_spec(M, rows, cols, title=title, row_title=row_title, col_title=col_title, hover=hover,
                                 weights=weights, role=role, highlight_rows=highlight_rows, zmax=zmax,
                                 width_px=width_px, range_note=range_note, rounded_note=rounded_note, exact=exact,
                                 blocks=blocks, big=big, scheme=scheme, cell_px=cell_px))


@lru_cache(maxsize=96)
def _heatmap_ready_cached(template: str | None, z: bytes, shape: tuple, exact: bytes | None, *args) -> dict:
    """_heatmap_ready keyed by value: the matrix (and which weights are exact) as bytes, and the default template the
    result embeds."""
    E = None if exact is None else np.frombuffer(exact, dtype=bool).reshape(shape)
    return _heatmap_ready(np.frombuffer(z, dtype=np.float64).reshape(shape), *args, exact=E)


def _plot(ready: dict, key: str | None, *, first: bool = False, reused: bool = False,
          caption: str | None = None) -> None:
    """The one place a figure reaches the screen: a ready figure (see _ready) as a chart redrawn in place
    (ui.plot_component: the same element and plot div across reruns, Plotly.react), full width, plot_config(), with
    ``caption`` (plain text) under it. Inside a :func:`chart_columns` slot the chart joins the slots' row, drawn as
    one element once every slot is filled. ``first``: redrawn before the page's other changed charts (the attention
    weights: a lesson's main picture). ``reused``: ``ready`` comes from the heatmap cache (the same object for the
    same figure, never modified). A figure laid out wider than its column (its numbers fit no narrower:
    ``layout.width``, ui.figures.fitted_plan / wide_enough) scrolls sideways in its own box, and its caption begins by
    saying so (``fig.wide``)."""
    if "width" in (ready.get("layout") or {}):
        caption = t("fig.wide") + (" " + caption if caption else "")
    slot = _ROW_SLOT.get()
    if slot is not None:
        slot.add(plot_component.RowItem(key, ready, plot_config(), caption, first, reused))
        return
    plot_component.plot(ready, plot_config(), key, first=first, reused=reused)
    if caption:
        st.caption(caption)


def show_figure(spec: dict, *, key: str | None = None, caption: str | None = None,
                follow: Callable[[object], dict] | None = None) -> None:
    """Draw a figure spec: a plain dict in validated form from ui.figures (``*_spec``), full width, plot_config(),
    ``caption`` (plain text) under it. ``follow``: lesson state → this chart's spec in that state (the same code
    that made ``spec``), or None where it cannot draw that state, so that the chart follows a slider's drag
    before the run for each value (ui/preview.py; needs ``key``); tests/contract/test_preview.py holds each frame to
    the page drawn at its value. A figure drawn
    without it is redrawn during a drag by the server's runs only (the relay then keeps sending the thumb's value,
    less often, beside the frames: ui/drag.py).

    Raises:
        TypeError: for anything but a dict (a go.Figure: call the builder's ``*_spec`` function instead)."""
    if not isinstance(spec, dict):
        raise TypeError(f"show_figure takes a figure spec (a dict from ui.figures.*_spec), got {type(spec).__name__}; "
                        "use the builder's *_spec function instead of the go.Figure builder")
    ready = _ready(spec)
    if key is not None:
        preview.record_figure(key, follow, ready)
    _plot(ready, key, caption=caption)


def ready_figure(spec: dict) -> dict:
    """A figure spec as the chart receives it (see _ready)."""
    return _ready(spec)


# ---- chart widths: charts side by side only when their numbers fit -----------------------------------------------
# A chart is as wide as its column, and plotly cannot be asked how wide that is while the script runs. The browser
# says how wide the page's main column is (ui.viewport: the width of the last run's window, 820 px at 1280×720 with
# the sidebar open until it has said), and charts are placed by chart_columns, which knows the width each column
# gets there and puts charts side by side only when each one's numbers fit at a readable size (else one under
# another, full width); a chart drawn inside a slot is laid out for the slot's width (ui.figures.LAYOUT_WIDTH).
def slot_width() -> float:
    """Width (px) of the chart slot being drawn in (the main column outside any slot): ui.figures.layout_width."""
    return F.layout_width()


class ChartRow:
    """The charts of one :func:`chart_columns` call, drawn as one element (ui.plot_component.row) in the place the
    call was made, once each of its slots has been filled (entered and left)."""

    def __init__(self, n: int, columns: list[float] | None, per_row: int, widths: list[float] | None = None):
        self.place = st.container()  # the row's place on the page, taken when chart_columns is called
        self.n, self.columns, self.per_row = n, columns, per_row
        self.widths = [float(x) for x in widths] if widths is not None else None  # each slot's, at the reference
        self.items: list[plot_component.RowItem] = []
        self._filled: set[int] = set()

    def filled(self, index: int) -> None:
        self._filled.add(index)
        if len(self._filled) == self.n:
            with self.place:
                plot_component.row(level_tops(self.items, len(self.columns) if self.columns else self.per_row),
                                   columns=self.columns, per_row=self.per_row,
                                   widths=self.widths if self.widths is not None and len(self.widths) == len(self.items)
                                   else None)


def level_tops(items: list, per_row: int) -> list:
    """The charts of a row grid (plot_component.RowItem, ``per_row`` to a line) with the plot areas and titles of each
    line starting at one height: each chart lowered (ui.figures.lowered) to its line's deepest plot top without notes
    (a note that comes and goes changes no chart's height). A cached figure (``reused``) gets a cached lowered copy,
    so its payload is still encoded once."""
    out = []
    for start in range(0, len(items), max(per_row, 1)):
        line = items[start:start + per_row]
        deepest = max(line, key=lambda it: F.plain_top(it.ready["layout"]))
        top = F.plain_top(deepest.ready["layout"])
        out += [_lowered_item(it, top, F.title_pad(deepest.ready["layout"])) for it in line]
    return out


_LOWERED_LOCK = threading.Lock()
_LOWERED: dict = {}  # (id of a cached ready figure, top, pad) → (that figure, its lowered copy); held, the id stays its


def _lowered_item(item, top: int, pad: int):
    layout = item.ready["layout"]
    if F.lowered(layout, top, pad) is layout:
        return item
    if not item.reused:
        return replace(item, ready={**item.ready, "layout": F.lowered(layout, top, pad)})
    key = (id(item.ready), top, pad)
    with _LOWERED_LOCK:  # sessions rerun on threads of their own
        if key not in _LOWERED:
            if len(_LOWERED) >= 256:
                _LOWERED.pop(next(iter(_LOWERED)))
            _LOWERED[key] = (item.ready, {**item.ready, "layout": F.lowered(layout, top, pad)})
        ready = _LOWERED[key][1]
    return replace(item, ready=ready)


class ChartSlot:
    """One chart's place in a :func:`chart_columns` row, with its width at the reference window: the charts drawn
    ``with slot:`` (show_heatmap, show_mask, show_figure) are laid out for ``slot.width_px`` and join the row. A slot
    holds charts only (each with its caption): anything else drawn inside it lands in the row's place, above it."""

    def __init__(self, row: ChartRow, index: int, width_px: float):
        self.row, self.index, self.width_px = row, index, float(width_px)
        self._tokens = []

    def add(self, item) -> None:
        self.row.items.append(item)

    def __enter__(self):
        self.row.place.__enter__()
        self._tokens.append((F.LAYOUT_WIDTH.set(self.width_px), _ROW_SLOT.set(self)))
        return self

    def __exit__(self, *exc):
        width, slot = self._tokens.pop()
        _ROW_SLOT.reset(slot)
        F.LAYOUT_WIDTH.reset(width)
        out = self.row.place.__exit__(*exc)
        if exc[0] is None:
            self.row.filled(self.index)
        return out


_ROW_SLOT: contextvars.ContextVar[ChartSlot | None] = contextvars.ContextVar("chart_row_slot", default=None)


def heatmap_need(M, rows, cols, *, weights: bool = False, zmax: float | None = None) -> float:
    """The narrowest chart (px) in which heatmap ``M`` shows every number with 2 decimals at 14 px.

    ``zmax``: the chart's colour range (the lesson's ``ranges``). The need is then that of the widest number the
    range holds (every cell written as −max(zmax, max|M|)), not of today's numbers, so that a layout chosen with
    :func:`chart_columns` does not change while a student moves a cell within the range: a chart moved to another
    column is a new element in the browser, blank until it is drawn again (issue 8's "no chart missing"). The bounds
    a tiny value is written as (">−0.01", weights' "<0.01" / ">0.99": ui.numbers) are measured too, being texts any
    cell may come to show. Weights (0..1) are measured as their widest text in every cell, for the same reason. Such
    needs depend on the shape, the labels, the masked cells and the range only, and are cached."""
    A = np.asarray(M, dtype=np.float64)
    finite = np.isfinite(A)
    if weights or zmax is not None:
        top = 1.0 if weights else max(float(zmax), float(np.max(np.abs(A[finite]), initial=1.0)))
        return _stable_need(finite.tobytes(), A.shape, tuple(str(r) for r in rows), tuple(str(c) for c in cols),
                            top, weights, _tick())
    texts = [["" if v == -np.inf else numbers.cell(v) for v in row] for row in A.tolist()]
    top = float(np.nanmax(np.abs(np.where(finite, A, np.nan)), initial=1.0))
    return F.grid_need(texts, [str(r) for r in rows], [str(c) for c in cols], colorbar_top=top, tick=_tick())


def _tick() -> int:
    """The heatmaps' axis label size in this run (larger in presentation mode: ui.figures.heatmap_spec ``big``)."""
    return F.TICK_FONT_BIG if present.on() else F.TICK_FONT


@lru_cache(maxsize=256)
def _stable_need(finite: bytes, shape: tuple, rows: tuple, cols: tuple, top: float, weights: bool,
                 tick: int = F.TICK_FONT) -> float:
    candidates = [numbers.cell(v, weight=True) for v in (1.0, 0.999, 1e-9)] if weights else \
        [numbers.cell(-top), numbers.cell(-1e-9)]  # −top, and the bound of a tiny negative value
    widest = max(candidates, key=lambda x: F.text_px(x, 1.0))
    mask = np.frombuffer(finite, dtype=bool).reshape(shape)
    texts = [[widest if ok else "" for ok in row] for row in mask.tolist()]
    return F.grid_need(texts, list(rows), list(cols), colorbar_top=top, tick=tick)


def mask_need(mask, rows, cols, *, additive: bool = False) -> float:
    """The narrowest chart (px) in which mask ``mask`` (drawn by :func:`show_mask`) shows every cell's mark."""
    yes, no = ("0", "−∞") if additive else (t("fig.mask_bool.yes"), t("fig.mask_bool.no"))
    texts = [[yes if v else no for v in row] for row in np.asarray(mask, dtype=bool).tolist()]
    return F.grid_need(texts, [str(r) for r in rows], [str(c) for c in cols], colorbar_top=None)


def chart_columns(*needs: float, ratios=None, max_cols: int | None = None) -> list[ChartSlot]:
    """Slots for charts meant to stand side by side, one per need (the narrowest width, px, at which each chart is
    readable: :func:`heatmap_need`, :func:`mask_need`, or 0): in one row of columns (widths ``ratios``, default
    equal) when every chart fits its column, else in rows of as many equal columns as fit (at most ``max_cols``),
    down to one chart per row at full width. Slots are returned in order; draw each chart ``with`` its slot.

    The layout is chosen for the reference window (1280 px), and each chart is laid out for its slot's width there;
    those widths go to the browser too, which puts fewer charts side by side where the page is narrower (a
    1024 × 768 projector), so no chart is drawn narrower than it was laid out for (ui/plot_component/assets/plot.js,
    rowTemplate)."""
    columns, per_row, widths = chart_layout(needs, ratios=ratios, max_cols=max_cols, outer=slot_width())
    if not needs:
        return []
    row = ChartRow(len(needs), columns, per_row, widths)
    return [ChartSlot(row, i, w) for i, w in enumerate(widths)]


def chart_layout(needs, *, ratios=None, max_cols: int | None = None, outer: float | None = None):
    """Where :func:`chart_columns` puts charts of these needs: (columns, per_row, widths) — ``columns`` the
    relative widths of one row (or None: rows of ``per_row`` equal columns), ``widths`` each chart's width (px)."""
    n = len(needs)
    if ratios is not None and len(ratios) == n:
        total = float(sum(ratios))
        widths = [F.column_px(n, r / total, outer) for r in ratios]
        if all(need <= w for need, w in zip(needs, widths)):
            return [float(r) for r in ratios], n, widths
    for k in range(min(n, max_cols or n), 0, -1):
        width = F.column_px(k, of=outer)
        if k == 1 or all(need <= width for need in needs):
            return None, k, [width] * n
    return None, 1, []  # no needs


def _fig_texts(name: str, title_args: dict | None, masked: bool = False) -> tuple[str, str, str, str]:
    """Title, row title, column title and hover text of figure ``name`` (``fig.<name>.*``; ``masked``: the title
    ``fig.<name>.title_masked``, the formula with its mask); ``title_args`` fill the title's placeholders (user text
    in them must already be escaped with ui.figures.escape)."""
    lang = current_lang()  # once: each lookup in st.session_state takes a lock
    parts = ("title_masked" if masked else "title", "rows", "cols", "hover")
    title, rows, cols, hover = (t(f"fig.{name}.{part}", lang=lang) for part in parts)
    return (title.format(**title_args) if title_args else title), rows, cols, hover


def show_heatmap(name: str, M, rows, cols, *, role: str | None = None, weights: bool = False,
                 highlight_rows: int | Iterable[int] | None = None, key: str | None = None,
                 caption: str | None = None,
                 title_args: dict | None = None, zmax: float | None = None, exact=None,
                 blocks: tuple[int, int] = (1, 1), cell_px: int | None = None, masked: bool = False) -> None:
    """Draw a named matrix (title, axis titles and hover text from the language tables, key 'fig.<name>.*';
    ``masked``: weights computed with a mask, titled ``fig.<name>.title_masked``, softmax(QKᵀ/√d_k + M)).
    −∞ cells (masked scores) are grey and written "−∞". ``exact`` (weights): which weights are exactly 0 or 1,
    ``ui.numbers.softmax_exact(scaled_scores)``; the others are never written "0.00" or "1.00" (ui.numbers).

    ``zmax``: the lesson's colour range for this matrix (``Lesson.ranges(state)``, lessons/ranges.py), so a cell's
    colour changes only when its number does; a value past it widens it, said under the title
    (``fig.note.range_widened``). The chart is laid out for the width of the :func:`chart_columns` slot it is drawn
    in (default the whole main column): numbers that cannot fit with 2 decimals are shortened, said under the title
    (``fig.note.rounded``). ``blocks``: (row blocks, column blocks) framed, e.g. a multi-head matrix's heads
    (ui.figures.block_frames). ``cell_px``: the cells' height asked for (default from the rows; taller where a number
    needs it), e.g. lower for a picture that must fit a projector's screen beside its control."""
    A = np.ascontiguousarray(M, dtype=np.float64)
    notes = (t("fig.note.range_widened"), t("fig.note.rounded"))  # templates, filled by the figure
    labels = (tuple(str(r) for r in rows), tuple(str(c) for c in cols))
    rest = (slot_width(), notes, (int(blocks[0]), int(blocks[1])), present.on(), scheme.current(), cell_px)
    template = pio.templates.default

    def make(A, E, *, title_args=title_args, highlight_rows=highlight_rows, zmax=zmax) -> dict:
        args = (*labels, _fig_texts(name, title_args, masked), weights, role, tuple(F.frame_rows(highlight_rows)),
                None if zmax is None else float(zmax), *rest)
        return ready_heatmap(template, A, E, args)

    E = None if exact is None or not weights else np.ascontiguousarray(exact, dtype=bool)
    ready = make(A, E)
    preview.record(key, A, E, make, ready)  # what a drag's frames are built from (ui/preview.py)
    _plot(ready, key, first=weights, reused=template is None or isinstance(template, str), caption=caption)


def ready_heatmap(template, A: np.ndarray, E: np.ndarray | None, args: tuple) -> dict:
    """The ready figure of heatmap ``A`` (float64, C order) with ``E`` (which weights are exact, or None) and
    show_heatmap's other arguments ``args``, from the cache when plotly's default ``template`` is a name (a Template
    object is not hashable: built every time)."""
    if template is None or isinstance(template, str):
        return _heatmap_ready_cached(template, A.tobytes(), A.shape, None if E is None else E.tobytes(), *args)
    return _heatmap_ready(A, *args, exact=E)


def show_mask(name: str, mask, rows, cols, *, additive: bool = False, title: str | None = None,
              key: str | None = None, caption: str | None = None, follow: Callable | None = None) -> None:
    """Draw a boolean mask (True = may attend): ✓/✗ (the words of ``fig.mask_bool.yes/no``), or with
    ``additive`` as the matrix added to the scores, 0 and −∞. Texts from ``fig.<name>.*``; ``title`` overrides.
    ``follow``: lesson state → (mask, rows, cols) in that state, or None where it has none: the chart then follows
    a slider's drag (:func:`show_figure`)."""
    title_, row_title, col_title, hover = _fig_texts(name, None)
    yes, no = ("0", "−∞") if additive else (t("fig.mask_bool.yes"), t("fig.mask_bool.no"))
    width = slot_width()  # (a frame is laid out for the slot the chart was drawn in)

    def spec(mask, rows, cols) -> dict:
        return F.mask_spec(mask, [str(r) for r in rows], [str(c) for c in cols], title=title or title_,
                           row_title=row_title, col_title=col_title, hover=hover, yes=yes, no=no,
                           yes_word=t("fig.mask_bool.yes_word"), no_word=t("fig.mask_bool.no_word"), width_px=width)

    def followed(state) -> dict | None:
        drawn = follow(state)
        return None if drawn is None else spec(*drawn)

    show_figure(spec(mask, rows, cols), key=key, caption=caption, follow=followed if follow else None)
