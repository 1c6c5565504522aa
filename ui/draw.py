"""Small drawing helpers the pages share: a translated heatmap in one call, the pipeline strip, LaTeX-safe text."""
from __future__ import annotations

import base64
import html
from functools import lru_cache

import numpy as np
import plotly.io as pio
import streamlit as st
from _plotly_utils.utils import to_typed_array_spec
from plotly.basedatatypes import BasePlotlyType

from attention_core.tokens import MAX_TOKENS, tokenize

from . import figures as F
from . import plot_component
from .i18n import current_lang, t

PLOT_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d"],
               "toImageButtonOptions": {"format": "png", "scale": 2}}


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
                   highlight_row: int | None) -> dict:
    title, row_title, col_title, hover = texts
    return _ready(F.heatmap_spec(M, rows, cols, title=title, row_title=row_title, col_title=col_title, hover=hover,
                                 weights=weights, role=role, highlight_row=highlight_row))


@lru_cache(maxsize=96)
def _heatmap_ready_cached(template: str | None, z: bytes, shape: tuple, *args) -> dict:
    """_heatmap_ready keyed by value: the matrix as bytes, and the default template the result embeds."""
    return _heatmap_ready(np.frombuffer(z, dtype=np.float64).reshape(shape), *args)


def _plot(ready: dict, key: str | None, *, first: bool = False, reused: bool = False) -> None:
    """The one place a figure reaches the screen: a ready figure (see _ready) as a chart redrawn in place
    (ui.plot_component: the same element and plot div across reruns, Plotly.react), full width, PLOT_CONFIG.
    ``first``: redrawn before the page's other changed charts (the attention weights: a lesson's main picture).
    ``reused``: ``ready`` comes from the heatmap cache (the same object for the same figure, never modified)."""
    plot_component.plot(ready, PLOT_CONFIG, key, first=first, reused=reused)


def show_figure(spec: dict, *, key: str | None = None) -> None:
    """Draw a figure spec: a plain dict in validated form from ui.figures (``*_spec``), full width, PLOT_CONFIG.

    Raises:
        TypeError: for anything but a dict (a go.Figure: call the builder's ``*_spec`` function instead)."""
    if not isinstance(spec, dict):
        raise TypeError(f"show_figure takes a figure spec (a dict from ui.figures.*_spec), got {type(spec).__name__}; "
                        "use the builder's *_spec function instead of the go.Figure builder")
    _plot(_ready(spec), key)


def _fig_texts(name: str, title_args: dict | None) -> tuple[str, str, str, str]:
    """Title, row title, column title and hover text of figure ``name`` (``fig.<name>.*``); ``title_args`` fill the
    title's placeholders (user text in them must already be escaped with ui.figures.escape)."""
    lang = current_lang()  # once: each lookup in st.session_state takes a lock
    title, rows, cols, hover = (t(f"fig.{name}.{part}", lang=lang) for part in ("title", "rows", "cols", "hover"))
    return (title.format(**title_args) if title_args else title), rows, cols, hover


def show_heatmap(name: str, M, rows, cols, *, role: str | None = None, weights: bool = False,
                 highlight_row: int | None = None, key: str | None = None, caption: str | None = None,
                 title_args: dict | None = None) -> None:
    """Draw a named matrix (title, axis titles and hover text from the language tables, key 'fig.<name>.*').
    −∞ cells (masked scores) are grey and written "−∞"."""
    A = np.ascontiguousarray(M, dtype=np.float64)
    texts = _fig_texts(name, title_args)
    args = (tuple(str(r) for r in rows), tuple(str(c) for c in cols), texts, weights, role, highlight_row)
    template = pio.templates.default
    cached = template is None or isinstance(template, str)
    if cached:
        ready = _heatmap_ready_cached(template, A.tobytes(), A.shape, *args)
    else:  # a Template object as plotly's default is not hashable: built every time
        ready = _heatmap_ready(A, *args)
    _plot(ready, key, first=weights, reused=cached)
    if caption:
        st.caption(caption)


def show_mask(name: str, mask, rows, cols, *, additive: bool = False, title: str | None = None,
              key: str | None = None, caption: str | None = None) -> None:
    """Draw a boolean mask (True = may attend): ✓/✗ (the words of ``fig.mask_bool.yes/no``), or with
    ``additive`` as the matrix added to the scores, 0 and −∞. Texts from ``fig.<name>.*``; ``title`` overrides."""
    title_, row_title, col_title, hover = _fig_texts(name, None)
    yes, no = ("0", "−∞") if additive else (t("fig.mask_bool.yes"), t("fig.mask_bool.no"))
    show_figure(F.mask_spec(mask, [str(r) for r in rows], [str(c) for c in cols], title=title or title_,
                            row_title=row_title, col_title=col_title, hover=hover, yes=yes, no=no), key=key)
    if caption:
        st.caption(caption)


def token_notices(text: str) -> None:
    """What became of a typed sentence: cut at MAX_TOKENS (a warning), split into words by janome (shown), repeated
    tokens (kept apart)."""
    tok = tokenize(text)
    if tok.truncated:
        st.warning(t("notice.too_many_tokens", n=tok.n_found, max=MAX_TOKENS), icon=":material/content_cut:")
    if tok.splitter == "janome":
        st.caption(t("qkv.split_janome", tokens=" / ".join(md_escape(x) for x in tok.tokens)))
    if len(set(tok.tokens)) < len(tok.tokens):
        st.caption(t("qkv.duplicates"))


def latex_text(s: str) -> str:
    """A token inside LaTeX \\text{...}: special characters escaped so any token renders as itself."""
    rep = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#", "^": r"\^{}",
           "_": r"\_", "%": r"\%", "~": r"\~{}"}
    return r"\text{" + "".join(rep.get(ch, ch) for ch in s) + "}"


_MD_ESCAPES = str.maketrans({ch: "\\" + ch for ch in "\\`*_{}[]()#+-.!|<>~$&:'\"=/%^@;,?"})


def md_escape(s: str) -> str:
    """User text (a token) inside Markdown: every ASCII punctuation character backslash-escaped, so '**x**',
    '[a](b)', '$x$' or '<b>' show as typed instead of formatting, links or math."""
    return str(s).translate(_MD_ESCAPES)


def markdown_table(header: list[str], rows: list[list[str]], align: str = "") -> str:
    """A Markdown table (rendered by st.markdown: cheap to send, large type on a projector). Every cell is passed
    through :func:`md_escape`, so tokens holding '|', '*' or HTML show as typed. ``align``: one letter per column,
    'l' or 'r' (default left)."""
    marks = [{"r": "---:", "l": ":---"}.get(a, "---") for a in align.ljust(len(header), "l")]
    lines = ["| " + " | ".join(md_escape(h) for h in header) + " |", "| " + " | ".join(marks) + " |"]
    lines += ["| " + " | ".join(md_escape(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def num(v: float) -> str:
    """A number for formulas: up to 3 decimals, trailing zeros dropped, minus sign kept ASCII for LaTeX;
    −∞ (a masked score) as "−∞"."""
    if not np.isfinite(v):
        return "−∞" if v < 0 else "∞" if v > 0 else "NaN"
    if abs(v) >= 1e4:
        return f"{v:.3g}"
    s = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


FLOW_QKV = [("X", "X"), ("W", "flow.proj"), ("Q", "Q · K · V"), ("weights", "flow.scores"),
            ("weights", "flow.scale"), ("weights", "flow.softmax"), ("out", "flow.mix")]


def pipeline_strip(steps=None) -> None:
    """The computation as a flow of boxes, each (role, text key or literal text); default the Q·K·V flow
    X → W_Q/W_K/W_V → Q, K, V → QKᵀ → ÷√d_k → softmax → ·V."""
    boxes = []
    for role, label in steps or FLOW_QKV:
        text = t(label) if "." in label else label
        color = F.ROLE_COLORS[role]
        boxes.append(f'<span class="al-step" style="border-color:{color};color:{color}">{html.escape(text)}</span>')
    st.markdown(
        "<style>.al-flow{display:flex;flex-wrap:wrap;align-items:center;gap:6px;margin:4px 0 12px}"
        ".al-step{border:2px solid;border-radius:8px;padding:4px 10px;font-weight:600;font-size:1.02rem;"
        "background:#fff}.al-arrow{color:#666;font-size:1.2rem}</style>"
        '<div class="al-flow">' + '<span class="al-arrow">→</span>'.join(boxes) + "</div>",
        unsafe_allow_html=True,
    )
