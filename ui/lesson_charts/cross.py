"""The cross-attention lesson's own charts (lesson_pages/cross.py draws them): the alignment picture (each target token
joined to every source token by a line as thick as its weight, like a translation alignment) and the bottleneck's
shares over the source length.

Only the cross page imports it (ui/lesson_charts/__init__.py). Specs in plotly's validated form, drawn with
ui.charts.show_figure. Tokens are escaped here (ui.figures.fit_tick_labels, ui.escape.chart); every other text is
passed in, already translated and escaped.
"""
from __future__ import annotations

import numpy as np

from ui.escape import chart as escape
from ui.figures import (
    FONT,
    LINE_EM,
    ROLE_COLORS,
    SMALL_FONT,
    TICK_FONT,
    X_TITLE_PX,
    chart_title,
    finish,
    fit_tick_labels,
    hover_names,
    layout_width,
    legend_below,
    own_width,
    text_px,
    wide_enough,
)
from ui.numbers import chart_percent

LINE_MAX_PX = 12.0
"""The width of an alignment line of weight 1 (a line's width is weight × LINE_MAX_PX; a weight of 0 draws nothing)."""
CHOSEN, OTHERS = ROLE_COLORS["Q"], ROLE_COLORS["weights"]


def alignment_positions(n: int) -> list[float]:
    """Where n tokens stand across the picture (0..1): the centres of n equal slots."""
    return [(k + 0.5) / n for k in range(n)]


def alignment_spec(weights, targets, sources, *, chosen: int | None, title: str, target_title: str,
                   source_title: str, exact=None, width_px: float | None = None) -> dict:
    """Target tokens along the top (n_q of them: the weights' rows), source tokens along the bottom (n_k: its
    columns), and one line per (target i, source j) of width weights[i, j] × LINE_MAX_PX, in row-major order (the
    chosen target token's lines in the query colour, drawn last so they lie on top). ``exact``: which weights are
    exactly 0 or 1 (ui.numbers.softmax_exact) for the hover's percentages. Nothing assumes n_q = n_k."""
    W = np.asarray(weights, dtype=np.float64)
    n_q, n_k = W.shape
    if len(targets) != n_q or len(sources) != n_k:
        raise ValueError(f"{n_q} × {n_k} weights need {n_q} target and {n_k} source labels, "
                         f"got {len(targets)} and {len(sources)}")
    width = float(width_px or layout_width())
    left_titles = (target_title, source_title)
    left = int(max(text_px(x, TICK_FONT) for x in left_titles) + 18)
    column = width
    width = max(wide_enough(width, left + 20, targets), wide_enough(width, left + 20, sources))
    plot_w = max(width - left - 20, 60.0)
    top_ticks, top_angle, top_depth = fit_tick_labels(targets, plot_w / max(n_q, 1))
    bottom_ticks, bottom_angle, bottom_depth = fit_tick_labels(sources, plot_w / max(n_k, 1))
    xt, xs = alignment_positions(n_q), alignment_positions(n_k)
    t_names, s_names = hover_names(targets), hover_names(sources)
    E = np.ones_like(W, dtype=bool) if exact is None else np.asarray(exact, dtype=bool)
    order = [i for i in range(n_q) if i != chosen] + ([chosen] if chosen is not None and 0 <= chosen < n_q else [])
    data = []
    for i in order:
        for j in range(n_k):
            label = f"{t_names[i]} → {s_names[j]}: {chart_percent(W[i, j], bool(E[i, j]))}"
            data.append({"type": "scatter", "mode": "lines", "x": [xt[i], xs[j]], "y": [1.0, 0.0],
                         "line": {"width": float(W[i, j]) * LINE_MAX_PX, "color": CHOSEN if i == chosen else OTHERS},
                         "opacity": 1.0 if i == chosen else 0.75, "text": [label, label],
                         "hovertemplate": "%{text}<extra></extra>", "showlegend": False,
                         "meta": {"row": i, "col": j}})
    data.append({"type": "scatter", "mode": "markers", "x": xs, "y": [0.0] * n_k, "xaxis": "x", "yaxis": "y",
                 "marker": {"color": ROLE_COLORS["K"], "size": 10}, "hoverinfo": "skip", "showlegend": False})
    data.append({"type": "scatter", "mode": "markers", "x": xt, "y": [1.0] * n_q, "xaxis": "x2", "yaxis": "y",
                 "marker": {"color": CHOSEN, "size": 10}, "hoverinfo": "skip", "showlegend": False})
    title_d, title_px = chart_title(title, 19, width)
    top = int(title_px + top_depth + 12)
    bottom = int(bottom_depth + 16)
    plot_h = 220
    tick = {"size": TICK_FONT}
    axis = {"range": [0, 1], "showgrid": False, "zeroline": False, "tickfont": tick, "fixedrange": True}
    layout = {
        "title": title_d, "height": top + plot_h + bottom, "margin": {"l": left, "r": 20, "t": top, "b": bottom},
        "font": {"family": FONT, "size": 14}, "plot_bgcolor": "white", "paper_bgcolor": "white",
        "showlegend": False, "hovermode": "closest",
        "xaxis": {**axis, "tickvals": xs, "ticktext": bottom_ticks, "tickangle": bottom_angle},
        "xaxis2": {**axis, "tickvals": xt, "ticktext": top_ticks, "tickangle": top_angle, "side": "top",
                   "overlaying": "x"},
        "yaxis": {"range": [-0.06, 1.06], "showgrid": False, "zeroline": False, "tickfont": tick,
                  "tickvals": [1.0, 0.0], "ticktext": list(left_titles), "fixedrange": True},
    }
    own_width(layout, width, column)
    # the lines are drawn against the bottom axis (x): both axes span 0..1, so a target's x is its top tick's
    return finish({"data": data, "layout": layout})


def shares_spec(lengths, fixed, mixed, current: int, *, names: tuple[str, str], marker: str, title: str,
                x_title: str, y_title: str, width_px: float | None = None) -> dict:
    """The matching word's share over the source length: ``fixed`` (its share in the one fixed vector) and
    ``mixed`` (its weight in attention's mix), one value per length of ``lengths``, as two lines named ``names``;
    the slider's length ``current`` marked by a vertical line and ``marker`` written above it."""
    x = np.asarray(lengths, dtype=np.float64).tolist()
    width = float(width_px or layout_width())
    data = []
    for ys, name, color, dash in ((fixed, names[0], ROLE_COLORS["X"], "dot"), (mixed, names[1], CHOSEN, "solid")):
        data.append({"type": "scatter", "mode": "lines+markers", "x": x,
                     "y": np.asarray(ys, dtype=np.float64).tolist(), "name": name,
                     "line": {"color": color, "dash": dash, "width": 3}, "marker": {"color": color, "size": 8},
                     "hovertemplate": "n = %{x}: %{y:.1%}<extra>%{fullData.name}</extra>"})
    title_d, top = chart_title(title, 19, width)
    plot_h = 240
    axis_px = TICK_FONT * LINE_EM + X_TITLE_PX + 10
    legend, legend_px = legend_below(names, width, 16, axis_px, plot_h)
    lo, hi = (min(x), max(x)) if x else (0.0, 1.0)
    layout = {
        "title": title_d, "margin": {"l": 70, "r": 20, "t": top + 24, "b": int(axis_px + legend_px)},
        "font": {"family": FONT, "size": 16}, "plot_bgcolor": "white", "paper_bgcolor": "white",
        "showlegend": True, "legend": legend,
        "xaxis": {"title": {"text": x_title, "font": {"size": 16}}, "tickfont": {"size": TICK_FONT},
                  "range": [lo - 0.5, hi + 0.5], "dtick": 1, "gridcolor": "#e5e5e5", "zeroline": False},
        "yaxis": {"title": {"text": y_title, "font": {"size": 16}}, "tickfont": {"size": SMALL_FONT},
                  "range": [0, 1.05], "tickformat": ".0%", "tickvals": [0, 0.25, 0.5, 0.75, 1.0],
                  "gridcolor": "#e5e5e5", "zeroline": False},
        "shapes": [{"type": "line", "x0": current, "x1": current, "y0": 0, "y1": 1, "yref": "paper",
                    "line": {"color": "#666", "width": 2, "dash": "dash"}}],
        "annotations": [{"x": current, "y": 1, "yref": "paper", "yanchor": "bottom", "text": escape(marker),
                         "showarrow": False, "font": {"size": 14, "color": "#444"}}],
    }
    layout["height"] = int(layout["margin"]["t"] + plot_h + layout["margin"]["b"])
    return finish({"data": data, "layout": layout})
