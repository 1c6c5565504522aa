"""The training lab's own chart (lesson_pages/training.py draws it): loss curves over the training steps, the step
shown marked by a vertical line and a dot on each curve.

Only the training page imports it (ui/lesson_charts/__init__.py). Specs in plotly's validated form, drawn with
ui.charts.show_figure. Every text is passed in, already translated and escaped.
"""
from __future__ import annotations

import math

import numpy as np

from ui.figures import (
    FONT,
    LINE_EM,
    ROLE_COLORS,
    SMALL_FONT,
    TICK_FONT,
    X_TITLE_PX,
    chart_title,
    finish,
    layout_width,
    legend_below,
)

STYLES = ({"color": ROLE_COLORS["Q"], "dash": "solid", "width": 4},
          {"color": ROLE_COLORS["K"], "dash": "dash", "width": 3},
          {"color": "#777777", "dash": "dot", "width": 3})
"""Curve styles in order: solid, dashed, dotted (told apart without colour too)."""
LOSS_FLOOR = 1e-6
"""No log axis goes lower: a loss below it is drawn on it."""
TICKS = (1.0, 2.0, 5.0)
"""The log axis' ticks: 1, 2 and 5 times each power of ten in its range."""


def log_axis(low: float, top: float) -> tuple[list[float], list[float], list[str]]:
    """A log axis from a little below ``low`` (the curves' smallest loss, at least LOSS_FLOOR) to a little above
    ``top`` (at least 1): its range in log10 units, its tick values and their texts ("0.02", "1", "10"). Fitted
    to the curves, so a loss that settles at 0.02 is not pressed against a floor far below it (a new-user trial:
    the axis started at 0.001 and the whole fall of the loss took the top half of the plot)."""
    lo = math.log10(max(low, LOSS_FLOOR)) - 0.1
    hi = math.log10(max(top, 1.0)) + 0.15
    values = [m * 10.0 ** e for e in range(math.floor(lo), math.ceil(hi) + 1) for m in TICKS
              if lo <= math.log10(m * 10.0 ** e) <= hi]
    if hi - lo > 2.5:  # a wide range: the powers of ten alone, or the ticks crowd
        values = [v for v in values if math.isclose(math.log10(v), round(math.log10(v)))]
    return [lo, hi], values, [_tick_text(v) for v in values]


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _tick_text(v: float) -> str:
    """0.02, 0.5, 1, 20; below 0.001 a power of ten as 10⁻⁴ (no "1e-04")."""
    if v >= 1e-3:
        return f"{v:g}"
    return "10" + str(round(math.log10(v))).translate(_SUPERSCRIPT)


def loss_spec(curves, *, step: int | None, marker: str, title: str, x_title: str, y_title: str,
              width_px: float | None = None, y_top: float | None = None) -> dict:
    """Loss curves over the steps 0..T on a log axis.

    Args:
        curves: (name, values (T + 1,)) pairs, drawn in the order of STYLES; the first is the main one, with a dot at
            ``step``.
        step: the step shown, marked by a vertical line with ``marker`` written above it (None: no mark).
        y_top: the axis' top (a loss); default the curves' largest value.
    """
    width = float(width_px or layout_width())
    data = []
    top = 0.0
    for k, (name, values) in enumerate(curves):
        y = np.maximum(np.asarray(values, dtype=np.float64), LOSS_FLOOR)
        top = max(top, float(y.max()))
        data.append({"type": "scatter", "mode": "lines", "x": np.arange(len(y), dtype=np.float64), "y": y,
                     "name": name, "line": dict(STYLES[k % len(STYLES)]),
                     "hovertemplate": "%{x}: %{y:.3f}<extra>%{fullData.name}</extra>"})
    if curves and step is not None:
        main = np.maximum(np.asarray(curves[0][1], dtype=np.float64), LOSS_FLOOR)
        at = min(max(int(step), 0), len(main) - 1)
        data.append({"type": "scatter", "mode": "markers", "x": [float(at)], "y": [float(main[at])],
                     "marker": {"color": STYLES[0]["color"], "size": 14, "line": {"color": "white", "width": 2}},
                     "hoverinfo": "skip", "showlegend": False})
    n = max((len(v) for _, v in curves), default=1)
    top = float(y_top) if y_top else top
    title_d, title_px = chart_title(title, 19, width)
    plot_h = 250
    axis_px = TICK_FONT * LINE_EM + X_TITLE_PX + 10
    legend, legend_px = legend_below([name for name, _ in curves], width, 16, axis_px, plot_h)
    low = min((float(np.min(np.maximum(v, LOSS_FLOOR))) for _, v in curves), default=LOSS_FLOOR)
    y_range, tick_values, tick_texts = log_axis(low, top)
    layout = {
        "title": title_d, "margin": {"l": 80, "r": 20, "t": title_px + 26, "b": int(axis_px + legend_px)},
        "font": {"family": FONT, "size": 16}, "plot_bgcolor": "white", "paper_bgcolor": "white",
        "showlegend": True, "legend": legend, "hovermode": "closest",
        "xaxis": {"title": {"text": x_title, "font": {"size": 16}}, "tickfont": {"size": TICK_FONT},
                  "range": [0, max(n - 1, 1)], "gridcolor": "#e5e5e5", "zeroline": False},
        "yaxis": {"title": {"text": y_title, "font": {"size": 16}}, "tickfont": {"size": SMALL_FONT},
                  "type": "log", "range": y_range, "tickvals": tick_values, "ticktext": tick_texts,
                  "gridcolor": "#e5e5e5"},
    }
    if step is not None:
        layout["shapes"] = [{"type": "line", "x0": step, "x1": step, "y0": 0, "y1": 1, "yref": "paper",
                             "line": {"color": "#444", "width": 2, "dash": "dash"}}]
        layout["annotations"] = [{"x": step, "y": 1, "yref": "paper", "yanchor": "bottom", "text": marker,
                                  "showarrow": False, "font": {"size": 14, "color": "#444"},
                                  "xanchor": "left" if step < 0.8 * max(n - 1, 1) else "right"}]
    layout["height"] = int(layout["margin"]["t"] + plot_h + layout["margin"]["b"])
    return finish({"data": data, "layout": layout})
