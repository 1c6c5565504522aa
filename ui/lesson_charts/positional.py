"""The positional-encoding lesson's own charts (lesson_pages/positional.py draws them): a table too large for numbers
in its cells (up to 128 × 128) as a plain colour map, and chosen columns of the PE table as waves over the positions.

Only the positional page imports it (ui/lesson_charts/__init__.py). Specs in plotly's validated form, drawn with
ui.charts.show_figure; every text is passed in, already translated and escaped for charts (ui.escape.chart).
"""
from __future__ import annotations

import numpy as np

from ui.figures import (
    FONT,
    LINE_EM,
    TICK_FONT,
    X_TITLE_PX,
    chart_title,
    diverging_colorscale,
    finish,
    layout_width,
    legend_below,
)

WAVE_STYLES = (("#D55E00", "solid"), ("#D55E00", "dot"), ("#0072B2", "solid"), ("#0072B2", "dot"))
"""sin and cos of the first pair (orange), of the chosen pair (blue): colour = pair (one frequency), dash = sin/cos."""


def _axes(x_title: str, y_title: str, **y) -> dict:
    tick = {"size": TICK_FONT}
    return {"xaxis": {"title": {"text": x_title, "font": {"size": 16}}, "tickfont": tick, "gridcolor": "#e5e5e5",
                      "zeroline": False},
            "yaxis": {"title": {"text": y_title, "font": {"size": 16}}, "tickfont": tick, "gridcolor": "#e5e5e5",
                      "zerolinecolor": "#888", **y}}


def table_map_spec(M, *, title: str, x_title: str, y_title: str, hover: str, zmin: float | None = None,
                   zmax: float | None = None, width_px: float | None = None, scheme: str = "default") -> dict:
    """A large matrix (r, c) as colours only: rows top to bottom (row 0 on top), columns left to right, both counted
    from 0 on the axes; a diverging scale centred on 0, ±max|M| unless ``zmin``/``zmax`` are given. ``hover``: a
    plotly hovertemplate (%{y} row, %{x} column, %{z} value). The height follows the rows (3..14 px a row).
    ``scheme``: the colour scheme (ui.figures.SCHEMES)."""
    A = np.asarray(M, dtype=np.float64)
    r, c = A.shape
    width = float(width_px or layout_width())
    lim = float(np.max(np.abs(A))) if A.size else 1.0
    lo, hi = (-lim, lim) if zmin is None or zmax is None else (float(zmin), float(zmax))
    title_d, top = chart_title(title, 19, width)
    row_px = min(14.0, max(3.0, 520.0 / max(r, 1)))
    plot_h = int(max(140, row_px * r))
    bottom = int(TICK_FONT * LINE_EM + X_TITLE_PX + 10)
    layout = {"title": title_d, "height": top + plot_h + bottom, "margin": {"l": 70, "r": 20, "t": top, "b": bottom},
              "font": {"family": FONT, "size": 16}, "plot_bgcolor": "white", "paper_bgcolor": "white",
              **_axes(x_title, y_title, autorange="reversed")}
    layout["xaxis"]["gridcolor"] = layout["yaxis"]["gridcolor"] = "rgba(0,0,0,0)"
    data = [{"type": "heatmap", "z": A.tolist(), "x": list(range(c)), "y": list(range(r)), "zmin": lo, "zmax": hi,
             "zmid": 0.0, "colorscale": diverging_colorscale(scheme), "hovertemplate": hover,
             "colorbar": {"tickfont": {"size": TICK_FONT}, "thickness": 16, "len": 1.0}}]
    return finish({"data": data, "layout": layout})


def waves_spec(xs, curves, PE, columns, names, *, title: str, x_title: str, y_title: str,
               width_px: float | None = None) -> dict:
    """Columns ``columns`` of the PE table (n, d) as waves over the positions: each a smooth curve (``xs`` (m,),
    ``curves`` (m, len(columns)): the same formula between the whole positions) with a dot at each whole position
    0..n − 1 (the table's values; dots left out past 64 positions), named ``names`` in a legend under the chart;
    styles WAVE_STYLES in order."""
    P = np.asarray(PE, dtype=np.float64)
    C = np.asarray(curves, dtype=np.float64)
    width = float(width_px or layout_width())
    n = P.shape[0]
    data = []
    for k, (j, name) in enumerate(zip(columns, names)):
        color, dash = WAVE_STYLES[k % len(WAVE_STYLES)]
        data.append({"type": "scatter", "mode": "lines", "x": np.asarray(xs, dtype=np.float64).tolist(),
                     "y": C[:, k].tolist(), "name": name, "legendgroup": str(j), "hoverinfo": "skip",
                     "line": {"color": color, "dash": dash, "width": 2.5}})
        if n <= 64:
            data.append({"type": "scatter", "mode": "markers", "x": list(range(n)), "y": P[:, j].tolist(),
                         "name": name, "legendgroup": str(j), "showlegend": False,
                         "marker": {"color": color, "size": 7},
                         "hovertemplate": "%{x}: %{y:.3f}<extra>%{fullData.name}</extra>"})
    title_d, top = chart_title(title, 19, width)
    plot_h = 280
    axis_px = TICK_FONT * LINE_EM + X_TITLE_PX + 10  # the legend clear of the axis title on a narrower page
    legend, legend_px = legend_below(names, width, 16, axis_px, plot_h)
    layout = {"title": title_d, "margin": {"l": 70, "r": 20, "t": top, "b": int(axis_px + legend_px)},
              "font": {"family": FONT, "size": 16}, "plot_bgcolor": "white", "paper_bgcolor": "white",
              "showlegend": True, "legend": legend, **_axes(x_title, y_title, range=[-1.15, 1.15])}
    layout["height"] = int(top + plot_h + layout["margin"]["b"])
    return finish({"data": data, "layout": layout})


def rope_spec(ns, first, second, points, names, point_name: str, *, title: str, x_title: str, y_title: str,
              width_px: float | None = None) -> dict:
    """RoPE scores over the key position: ``first`` and ``second`` (one value per n of ``ns``) as two lines named
    ``names`` (the query at m, at m + shift), and ``points`` [(n, score)] as large dots named ``point_name``."""
    width = float(width_px or layout_width())
    x = np.asarray(ns, dtype=np.float64).tolist()
    data = []
    for ys, name, (color, dash) in zip((first, second), names, (WAVE_STYLES[0], WAVE_STYLES[3])):
        data.append({"type": "scatter", "mode": "lines+markers", "x": x,
                     "y": np.asarray(ys, dtype=np.float64).tolist(), "name": name,
                     "line": {"color": color, "dash": dash, "width": 2.5}, "marker": {"color": color, "size": 6},
                     "hovertemplate": "n = %{x}: %{y:.3f}<extra>%{fullData.name}</extra>"})
    data.append({"type": "scatter", "mode": "markers", "x": [float(n) for n, _ in points],
                 "y": [float(v) for _, v in points], "name": point_name,
                 "marker": {"color": "#222222", "size": 12, "symbol": "circle-open", "line": {"width": 3}},
                 "hovertemplate": "n = %{x}: %{y:.6f}<extra></extra>"})
    title_d, top = chart_title(title, 19, width)
    plot_h = 260
    axis_px = TICK_FONT * LINE_EM + X_TITLE_PX + 10  # the legend clear of the axis title on a narrower page
    legend, legend_px = legend_below([d["name"] for d in data], width, 16, axis_px, plot_h)
    layout = {"title": title_d, "margin": {"l": 70, "r": 20, "t": top, "b": int(axis_px + legend_px)},
              "font": {"family": FONT, "size": 16}, "plot_bgcolor": "white", "paper_bgcolor": "white",
              "showlegend": True, "legend": legend, **_axes(x_title, y_title)}
    layout["height"] = int(top + plot_h + layout["margin"]["b"])
    return finish({"data": data, "layout": layout})
