"""The multi-head lesson's own chart (lesson_pages/multihead.py draws it): one head's attention weights as colours only,
small enough to stand four side by side at 1280×720 (small multiples: one sentence, a pattern per head), when the
heads' numbered heatmaps would not fit one row. The chosen head is drawn below them with its numbers (the shared
heatmap), so no number is lost: the colours here are the same 0..1 scale.

Only the multi-head page imports it. A spec in plotly's validated form, drawn with ui.charts.show_figure; every text
is passed in, already translated.
"""
from __future__ import annotations

import numpy as np

from ui.figures import (
    FONT,
    TICK_FONT,
    chart_title,
    finish,
    fit_tick_labels,
    hover_names,
    text_px,
    weights_colorscale,
)

LABEL_CHARS = 4  # a token on a small multiple's axis is cut to 4 characters (the hover names it whole)
MIN_LABEL_SLOT = TICK_FONT + 3  # px per row or column below which a small multiple draws no token labels

__all__ = ["head_map_spec", "labels_shown"]


def labels_shown(n_tokens: int, width_px: float) -> bool:
    """Whether a small multiple ``width_px`` wide names its ``n_tokens`` tokens on its axes (a row or column of at
    least MIN_LABEL_SLOT px); else the hover names them."""
    return (width_px - 60) / max(n_tokens, 1) >= MIN_LABEL_SLOT


def head_map_spec(W, tokens, *, title: str, hover: str, width_px: float, frame_row: int | None = None,
                  scheme: str = "default") -> dict:
    """A head's weights (n, n), 0..1, as colours only: rows are queries from the top, columns keys; square cells;
    the tokens on both axes (cut to LABEL_CHARS characters) when :func:`labels_shown`, else none. ``hover``: a plotly
    hovertemplate with %{customdata[0]} (query), %{customdata[1]} (key) and %{z} (the weight). ``frame_row``: a
    query row to frame (the chosen query), or None. No colour bar: the page says the scale once for all heads.
    ``scheme``: the colour scheme (ui.figures.SCHEMES)."""
    A = np.asarray(W, dtype=np.float64)
    n = A.shape[0]
    names = hover_names(tokens)
    show = labels_shown(n, width_px)
    title_d, top = chart_title(title, 16, width_px)
    if show:
        slot = (width_px - 60) / max(n, 1)
        x_texts, angle, depth = fit_tick_labels(tokens, slot, max_chars=LABEL_CHARS, wrap=2)
        y_texts = fit_tick_labels(tokens, 10_000, max_chars=LABEL_CHARS)[0]
        left = int(10 + max((text_px(x, TICK_FONT) for x in y_texts), default=0.0))
        bottom = int(depth + 8)
    else:
        x_texts = y_texts = []
        angle, left, bottom = 0, 8, 8
    plot = max(int(width_px - left - 8), 40)
    axis = {"tickfont": {"size": TICK_FONT}, "showgrid": False, "zeroline": False, "showticklabels": show,
            "ticks": "", "fixedrange": True}
    layout = {"title": title_d, "height": top + plot + bottom,
              "margin": {"l": left, "r": 8, "t": top, "b": bottom},
              "font": {"family": FONT, "size": 16}, "plot_bgcolor": "white", "paper_bgcolor": "white",
              "xaxis": {**axis, "tickmode": "array", "tickvals": list(range(n)), "ticktext": x_texts,
                        "tickangle": angle, "side": "bottom"},
              "yaxis": {**axis, "tickmode": "array", "tickvals": list(range(n)), "ticktext": y_texts,
                        "autorange": "reversed"}}
    if frame_row is not None and 0 <= frame_row < n:
        layout["shapes"] = [{"type": "rect", "xref": "x", "yref": "y", "x0": -0.5, "x1": n - 0.5,
                             "y0": frame_row - 0.5, "y1": frame_row + 0.5,
                             "line": {"color": "#D55E00", "width": 3}}]
    custom = [[[names[i], names[j]] for j in range(n)] for i in range(n)]
    data = [{"type": "heatmap", "z": A.tolist(), "x": list(range(n)), "y": list(range(n)), "zmin": 0.0, "zmax": 1.0,
             "colorscale": weights_colorscale(scheme), "showscale": False, "customdata": custom, "hovertemplate": hover,
             "xgap": 1, "ygap": 1}]
    return finish({"data": data, "layout": layout})
