"""Small drawing helpers the pages share: a translated heatmap in one call, the pipeline strip, LaTeX-safe text."""
from __future__ import annotations

import html

import numpy as np
import streamlit as st

from . import figures as F
from .i18n import t

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


def show_heatmap(name: str, M, rows, cols, *, role: str | None = None, weights: bool = False,
                 highlight_row: int | None = None, key: str | None = None, caption: str | None = None) -> None:
    """Draw a named matrix (title, axis titles and hover text from the language tables, key 'fig.<name>.*')."""
    fig = F.heatmap(M, rows, cols, title=t(f"fig.{name}.title"), row_title=t(f"fig.{name}.rows"),
                    col_title=t(f"fig.{name}.cols"), hover=t(f"fig.{name}.hover"), weights=weights, role=role,
                    highlight_row=highlight_row)
    st.plotly_chart(fig, config=PLOT_CONFIG, key=key, width="stretch")
    if caption:
        st.caption(caption)


def latex_text(s: str) -> str:
    """A token inside LaTeX \\text{...}: special characters escaped so any token renders as itself."""
    rep = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#", "^": r"\^{}",
           "_": r"\_", "%": r"\%", "~": r"\~{}"}
    return r"\text{" + "".join(rep.get(ch, ch) for ch in s) + "}"


def md_escape(s: str) -> str:
    """User text (a token) inside Markdown: every ASCII punctuation character backslash-escaped, so '**x**',
    '[a](b)', '$x$' or '<b>' show as typed instead of formatting, links or math."""
    return "".join("\\" + ch if ch in "\\`*_{}[]()#+-.!|<>~$&:'\"=/%^@;,?" else ch for ch in str(s))


def num(v: float) -> str:
    """A number for formulas: up to 3 decimals, trailing zeros dropped, minus sign kept ASCII for LaTeX."""
    if abs(v) >= 1e4:
        return f"{v:.3g}"
    s = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def pipeline_strip(active: str | None = None) -> None:
    """The computation as a flow: X → W_Q/W_K/W_V → Q, K, V → QKᵀ → ÷√d_k → softmax → ·V."""
    steps = [("X", "X"), ("W", "flow.proj"), ("Q", "Q · K · V"), ("weights", "flow.scores"),
             ("weights", "flow.scale"), ("weights", "flow.softmax"), ("out", "flow.mix")]
    boxes = []
    for role, label in steps:
        text = t(label) if label.startswith("flow.") else label
        color = F.ROLE_COLORS[role]
        boxes.append(f'<span class="al-step" style="border-color:{color};color:{color}">{html.escape(text)}</span>')
    st.markdown(
        "<style>.al-flow{display:flex;flex-wrap:wrap;align-items:center;gap:6px;margin:4px 0 12px}"
        ".al-step{border:2px solid;border-radius:8px;padding:4px 10px;font-weight:600;font-size:1.02rem;"
        "background:#fff}.al-arrow{color:#666;font-size:1.2rem}</style>"
        '<div class="al-flow">' + '<span class="al-arrow">→</span>'.join(boxes) + "</div>",
        unsafe_allow_html=True,
    )


def finite_or_dash(a) -> np.ndarray:
    return np.where(np.isfinite(a), a, np.nan)
