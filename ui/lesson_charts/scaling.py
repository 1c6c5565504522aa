"""The scaling lesson's own charts (lesson_pages/scaling.py draws them): raw scores → ÷√d_k → softmax shares, the
three books' values mixed, the variance histograms, the saturation curves, and the temperature bars and curves.

Only the scaling page imports it (ui/lesson_charts/__init__.py). Written as specs
like ui/figures.py's builders (each ``*_spec`` returns the plain dict in plotly's validated form, drawn with
ui.charts.show_figure), from figures' shared pieces (titles, label fitting, legends). The subplot grids are those
make_subplots would make (_subplot_grid), the reference lines those add_hline / add_vline would add (_hline, _vline).
Every text is passed in, already translated; numbers are written by ui.numbers.
"""
from __future__ import annotations

import numpy as np

from ui.escape import chart as escape
from ui.figures import (
    FONT,
    LINE_EM,
    ROLE_COLORS,
    VALUE_AXIS_PX,
    X_TITLE_PX,
    bars_spec,
    chart_title,
    finish,
    fit_line,
    fit_tick_labels,
    layout_width,
    legend_below,
    own_width,
    room_for_labels,
    value_labels,
)
from ui.numbers import chart_num, chart_percent, num

SCALED_STYLE = dict(color=ROLE_COLORS["weights"], dash="solid")  # ÷√d_k on
UNSCALED_STYLE = dict(color="#444444", dash="dash")  # ÷√d_k off
KEY_SHADES = ("#0072B2", "#56B4E9", "#003F63", "#6A9FCC", "#00263D")  # one role (keys), told apart by shade


def _snap(v: float) -> float:
    """make_subplots' rounding of a vertical domain end that float error put just outside 0..1."""
    return 0.0 if -0.01 < v < 0.0 else 1.0 if 1.0 < v < 1.01 else v


def _subplot_grid(rows: int, cols: int, *, spacing: float, titles=(), shared: bool = False):
    """The axes and subplot titles ``plotly.subplots.make_subplots`` makes for a one-row or one-column grid.

    Same as ``make_subplots(rows, cols, subplot_titles=titles, horizontal_spacing=spacing, shared_yaxes=shared)``
    for one row, and ``make_subplots(rows, 1, subplot_titles=titles, vertical_spacing=spacing, shared_xaxes=shared)``
    for one column (rows from the top), with its arithmetic, so the same floats.

    Returns:
        (axes, annotations, cells): axes {"xaxis": {...}, "yaxis": {...}, "xaxis2": ...} for the layout;
        annotations: the non-empty titles, centred above their cell (font size 16, as make_subplots writes it);
        cells: per cell in reading order {"x": "x2", "y": "y2", "xaxis": <axes["xaxis2"]>, "yaxis": ...}, the
        trace references and the same axis dicts, to be filled in.
    """
    if rows != 1 and cols != 1:
        raise ValueError(f"_subplot_grid makes one row or one column, got rows={rows}, cols={cols}")
    n = max(rows, cols)
    size = (1.0 - spacing * (n - 1)) / n
    sizes = [size] * n
    spans = [[start, start + size] for start in (sum(sizes[:k]) + k * spacing for k in range(n))]
    if rows == 1:
        x_spans, y_spans = spans, [[0.0, 1.0]] * n
    else:  # the grid counts from the bottom, rows are listed from the top
        x_spans, y_spans = [[0.0, 1.0]] * n, [[_snap(a), _snap(b)] for a, b in reversed(spans)]
    axes, cells, annotations = {}, [], []
    for k, ((x0, x1), (y0, y1)) in enumerate(zip(x_spans, y_spans)):
        i = str(k + 1) if k else ""
        xaxis = {"anchor": f"y{i}", "domain": [max(0.0, x0), min(1.0, x1)]}
        yaxis = {"anchor": f"x{i}", "domain": [max(0.0, y0), min(1.0, y1)]}
        axes[f"xaxis{i}"], axes[f"yaxis{i}"] = xaxis, yaxis
        cells.append({"x": f"x{i}", "y": f"y{i}", "xaxis": xaxis, "yaxis": yaxis})
        if k < len(titles) and titles[k]:
            annotations.append({"font": {"size": 16}, "showarrow": False, "text": titles[k], "x": (x0 + x1) / 2.0,
                                "xanchor": "center", "xref": "paper", "y": y1, "yanchor": "bottom",
                                "yref": "paper"})
    if shared and n > 1:  # the others follow the first cell (one row) or the bottom cell (one column)
        first, others, side = (cells[0], cells[1:], "y") if rows == 1 else (cells[-1], cells[:-1], "x")
        for cell in others:
            cell[f"{side}axis"].update({"matches": first[side], "showticklabels": False})
    return axes, annotations, cells


def _hline(y, line: dict, xref: str = "x", yref: str = "y") -> dict:
    """The shape of fig.add_hline(y, line=line): across the whole subplot at height y."""
    return {"line": line, "type": "line", "x0": 0, "x1": 1, "xref": f"{xref} domain", "y0": y, "y1": y, "yref": yref}


def _vline(x, line: dict, xref: str = "x", yref: str = "y") -> dict:
    """The shape of fig.add_vline(x, line=line): the whole subplot's height at x."""
    return {"line": line, "type": "line", "x0": x, "x1": x, "xref": xref, "y0": 0, "y1": 1, "yref": f"{yref} domain"}


# The narrowest widths (px) the panel charts stay readable at (their ticks, bars' value labels and panel titles
# apart, read in Chromium at 564 and 358 px columns: tests/e2e/test_screens_browser.py); in a narrower column (a phone)
# such a chart keeps this width and scrolls sideways in its own box (ui/plot_component: ``layout.width``).
STEPS_LEAST_PX = 560  # scores → ÷√d_k → weights, three panels of bars
MIX_LEAST_PX = 560  # the value vectors and their mix
SATURATION_LEAST_PX = 760  # two log-axis panels with ten d_k ticks each
VARIANCE_LEAST_PX = 460  # two histograms, each with its variance note
TEMPERATURE_LEAST_PX = 350  # the shares over a log T axis (0.05 … 20)


def _widths(width_px: float | None, least: float) -> tuple[float, float]:
    """(the column's width, the width the chart is laid out for: the column's, at least ``least``)."""
    column = float(width_px or layout_width())
    return column, max(column, float(least))


def _lesson_layout(title: str, height: int, axes: dict, annotations=(), width: float | None = None,
                   column: float | None = None) -> dict:
    """The layout the scaling charts share: title (clear of the toolbar), size, fonts, white background, light grid,
    no legend; every annotation's font at size 17; ``axes`` (filled in by the builder) completed and placed in the
    layout. The top margin leaves room for the panels' titles under the chart's title. A ``width`` wider than the
    ``column`` (:func:`_widths`) is the chart's own width (it scrolls in its box)."""
    width = width or layout_width()
    title_d, top = chart_title(title, 19, width)
    layout = {
        "title": title_d, "height": height + max(top + 30 - 80, 0) if title else height,
        "margin": {"l": 10, "r": 10, "t": max(80, top + 30) if title else 50, "b": 50},
        "font": {"family": FONT, "size": 16}, "plot_bgcolor": "white", "paper_bgcolor": "white",
        "showlegend": False, "bargap": 0.25,
    }
    if annotations:
        layout["annotations"] = [{**a, "font": {**a.get("font", {}), "size": 17}} for a in annotations]
    for name, axis in axes.items():
        if name.startswith("y"):
            axis.update({"gridcolor": "#e5e5e5", "zerolinecolor": "#888", "zerolinewidth": 1.5,
                         "tickfont": {"size": 15}})
        else:
            axis["tickfont"] = {"size": 16}
        layout[name] = axis
    return layout if column is None else own_width(layout, width, column)


_PANEL_SIDE_PX = 60  # a panel grid's value axis labels and outer margins, left of the first panel


def _panel_px(width: float, n: int, spacing: float) -> float:
    """Width of one of ``n`` panels side by side (make_subplots' horizontal spacing) in a chart ``width`` wide."""
    return (width - _PANEL_SIDE_PX) * (1 - spacing * (n - 1)) / n


def scaling_steps_spec(raw, scaled, weights, labels, *, panel_titles, title: str = "", score_limit: float = 10.0,
                       hover: str = "", width_px: float | None = None) -> dict:
    """raw scores → scores after ÷√d_k → softmax shares, as three bar panels side by side.

    Args:
        raw, scaled, weights: (n,) each; weights sum to 1 and are written as percentages with one decimal.
        labels: n book titles (escaped here).
        panel_titles: three texts (raw, scaled, shares).
        score_limit: both score panels share the fixed range ±score_limit (widened if a score is larger), so
            the shrinking by √d_k is seen as shorter bars.
        width_px: the chart's width at the reference window: titles and value labels are fitted to it.
    """
    r, s, w = (np.array(a, dtype=np.float64) for a in (raw, scaled, weights))  # copies, as validation makes
    column, width = _widths(width_px, STEPS_LEAST_PX)
    names = [escape(x) for x in labels]
    x = list(range(len(r)))
    top = max(score_limit, float(np.max(np.abs(np.concatenate([r, s]))))) * 1.18
    panel = _panel_px(width, 3, 0.07)
    axes, notes, cells = _subplot_grid(1, 3, spacing=0.07, titles=[fit_line(t, panel, 17) for t in panel_titles])
    ticks, angle, depth = fit_tick_labels(labels, panel / max(len(r), 1), size=16, wrap=2)
    texts = ([chart_num(v) for v in r.tolist()], [chart_num(v) for v in s.tolist()],
             [chart_percent(v, exact=False) for v in w.tolist()])  # softmax of finite scores
    plot_h = 270
    extents = []
    data = []
    for cell, vals, text, color, sizes in zip(cells, (r, s, w), texts, (ROLE_COLORS["K"], ROLE_COLORS["K"],
                                                                         ROLE_COLORS["weights"]),
                                              ((17, 16, 14, 12), (17, 16, 14, 12), (18, 16, 14, 12))):
        size, text_angle, extent = value_labels(text, panel / max(len(r), 1), sizes)
        extents.append(extent)
        data.append({"cliponaxis": False, "constraintext": "none", "customdata": names,
                     "hovertemplate": hover or "%{customdata}: %{text}<extra></extra>", "marker": {"color": color},
                     "text": text, "textangle": text_angle, "textfont": {"size": size}, "textposition": "outside",
                     "x": x, "xaxis": cell["x"], "y": vals, "yaxis": cell["y"], "type": "bar"})
        cell["xaxis"].update({"ticktext": ticks, "tickvals": x, "tickangle": angle})
    both = np.concatenate([r, s])
    score_range = room_for_labels(-top, top, float(both.min()), float(both.max()), max(extents[:2]),
                                  max(extents[:2]), plot_h)
    cells[0]["yaxis"]["range"] = list(score_range)
    cells[1]["yaxis"]["range"] = list(score_range)
    cells[2]["yaxis"].update({"range": room_for_labels(0, 1.18, 0.0, float(w.max(initial=0)), extents[2], 0, plot_h),
                              "tickformat": ".0%"})
    layout = _lesson_layout(title, 0, axes, notes, width, column)
    layout["margin"]["b"] = int(24 + depth)
    layout["height"] = int(layout["margin"]["t"] + plot_h + layout["margin"]["b"])
    return finish({"data": data, "layout": layout})


def value_mix_spec(values, weights, output, labels, dim_labels, *, out_title: str, title: str = "",
                   share_text: str = "× {p}", width_px: float | None = None) -> dict:
    """Each book's value vector (its own panel, titled with its share) and the mixed output Σ w_j v_j beside them.

    Args:
        values: (n, d_v); weights: (n,); output: (d_v,) = weights @ values.
        labels: n book titles; dim_labels: d_v names of the value components.
        out_title: the output panel's title. share_text: appended to each book's title, "{p}" = the percentage.
    All panels share one y range, so a value and the output compare by bar height. Titles (cut with "…") and value
    labels are fitted to ``width_px``, the chart's width at the reference window.
    """
    V = np.array(values, dtype=np.float64)  # copies, as validation makes
    w = np.asarray(weights, dtype=np.float64)
    z = np.array(output, dtype=np.float64)
    column, width = _widths(width_px, MIX_LEAST_PX)
    n, d = V.shape
    panel = _panel_px(width, n + 1, 0.05)
    titles = [f"{fit_line(lab, panel, 17)}<br>{share_text.format(p=chart_percent(wj, exact=False))}"
              for lab, wj in zip(labels, w.tolist())]
    titles.append(fit_line(out_title, panel, 17))
    axes, notes, cells = _subplot_grid(1, n + 1, spacing=0.05, titles=titles, shared=True)
    ticks, angle, depth = fit_tick_labels(dim_labels, panel / max(d, 1), size=16, wrap=2)
    texts = [[chart_num(v) for v in (V[j] if j < n else z).tolist()] for j in range(n + 1)]
    size, text_angle, extent = value_labels([t for row in texts for t in row], panel / max(d, 1), (16, 14, 12))
    plot_h = 230
    top = max(1.0, float(np.max(np.abs(np.concatenate([V.ravel(), z]))))) * 1.25
    lo = -top if (V < 0).any() or (z < 0).any() else 0.0
    both = np.concatenate([V.ravel(), z])
    value_range = room_for_labels(lo, top, float(both.min()), float(both.max()), extent, extent, plot_h)
    data = []
    for j, cell in enumerate(cells):
        vals = V[j] if j < n else z
        data.append({"cliponaxis": False, "constraintext": "none", "customdata": [escape(x) for x in dim_labels],
                     "hovertemplate": "%{customdata}: %{text}<extra></extra>",
                     "marker": {"color": ROLE_COLORS["V"] if j < n else ROLE_COLORS["out"],
                                "line": {"color": "#222", "width": 2 if j == n else 0}},
                     "text": texts[j], "textangle": text_angle, "textfont": {"size": size}, "textposition": "outside",
                     "x": list(range(d)), "xaxis": cell["x"], "y": vals, "yaxis": cell["y"], "type": "bar"})
        cell["xaxis"].update({"ticktext": ticks, "tickvals": list(range(d)), "tickangle": angle})
        cell["yaxis"]["range"] = list(value_range)
    layout = _lesson_layout(title, 0, axes, notes, width, column)
    layout["margin"]["t"] += 30  # the panels' titles have two lines
    layout["margin"]["b"] = int(24 + depth)
    layout["height"] = int(layout["margin"]["t"] + plot_h + layout["margin"]["b"])
    return finish({"data": data, "layout": layout})


def variance_histograms_spec(centers, density_raw, density_scaled, *, d_k: int, row_titles, x_title: str,
                             y_title: str, title: str = "") -> dict:
    """Histograms (as densities) of q·k without and with ÷√d_k, stacked on one shared x axis, each with the
    normal density it should follow drawn as a thin line: N(0, d_k) and N(0, 1).

    Args:
        centers: (b,) bin centres shared by both histograms; density_raw, density_scaled: (b,).
        row_titles: two texts (without, with scaling), e.g. carrying the measured variances.
    """
    c = np.array(centers, dtype=np.float64)  # a copy, as validation makes
    width = float(c[1] - c[0]) if c.size > 1 else 1.0
    axes, notes, cells = _subplot_grid(2, 1, spacing=0.16, titles=[escape(t) for t in row_titles], shared=True)
    grid = np.linspace(c[0] - width / 2, c[-1] + width / 2, 400)
    data = []
    for cell, dens, var, style in ((cells[0], density_raw, float(d_k), UNSCALED_STYLE),
                                   (cells[1], density_scaled, 1.0, SCALED_STYLE)):
        pdf = np.exp(-grid**2 / (2 * var)) / np.sqrt(2 * np.pi * var)
        data.append({"hovertemplate": "%{x:.2f}: %{y:.4f}<extra></extra>", "marker": {"color": style["color"]},
                     "opacity": 0.8, "width": width, "x": c, "xaxis": cell["x"],
                     "y": np.array(dens, dtype=np.float64), "yaxis": cell["y"], "type": "bar"})
        data.append({"hoverinfo": "skip", "line": {"color": "#111", "width": 2}, "mode": "lines", "x": grid,
                     "xaxis": cell["x"], "y": pdf, "yaxis": cell["y"], "type": "scatter"})
        cell["yaxis"].update({"rangemode": "tozero", "title": {"font": {"size": 14}, "text": y_title}})
    cells[1]["xaxis"]["title"] = {"text": x_title}
    column, width = _widths(None, VARIANCE_LEAST_PX)
    return finish({"data": data, "layout": _lesson_layout(title, 560, axes, notes, width, column)})  # bargap


def _band_note(y: float, text: str, above: bool, xref: str, yref: str, size: int = 15) -> dict:
    """A reference line's label in the band just above (or below) the line, at the left, on white: the bands above
    and below the curves' possible values are kept free of curves and vertical lines, so nothing crosses it."""
    return {"bgcolor": "rgba(255,255,255,0.85)", "font": {"color": "#444", "size": size}, "showarrow": False,
            "text": text, "x": 0, "xanchor": "left", "xref": f"{xref} domain", "y": y,
            "yanchor": "bottom" if above else "top", "yref": yref}


def saturation_chart_spec(d_ks, max_raw, max_scaled, ent_raw, ent_scaled, *, n_keys: int, current_dk: int,
                          panel_titles, legend, x_title: str, ref_texts, title: str = "",
                          width_px: float | None = None) -> dict:
    """Mean largest softmax weight (left) and mean entropy (right) over d_k, without (dashed) and with (solid)
    ÷√d_k, on a log₂ d_k axis; a vertical line marks the current d_k.

    Args:
        d_ks: (g,); the four curves: (g,) each.
        n_keys: n, for the reference lines: largest weight 1/n (uniform) and 1 (one-hot); entropy ln n and 0.
        panel_titles: two texts; legend: (without, with); ref_texts: (uniform, one-hot, current d_k): the first two
            hold "{v}", the line's value in each panel ("1/n", "1"; "ln n", "0"), so each panel labels its own
            lines; the last may hold "{d_k}".
        width_px: the column's width (default: the main column's); narrower than SATURATION_LEAST_PX, the panels
            are stacked (largest weight above, entropy below) at that width.
    """
    x = np.array(d_ks, dtype=np.float64)  # a copy, as validation makes
    column, width = _widths(width_px, SATURATION_LEAST_PX)
    # narrower than the two panels side by side need (a phone): one above the other at the column's width, every
    # other d_k tick, instead of a chart wider than the screen whose title and legend scroll out of sight
    stacked = column < SATURATION_LEAST_PX
    if stacked:
        axes, notes, cells = _subplot_grid(2, 1, spacing=0.2, titles=[escape(t) for t in panel_titles])
        width = column
    else:
        axes, notes, cells = _subplot_grid(1, 2, spacing=0.09, titles=[escape(t) for t in panel_titles])
    ln_n = float(np.log(n_keys))
    data, shapes = [], []
    # largest weight: 1/n (uniform) <= curves <= 1 (one-hot); entropy: 0 <= curves <= ln n. Each label sits in the
    # band outside these bounds, on the side away from the curves; the current d_k line spans the bounds only.
    panels = ((cells[0], (max_raw, max_scaled), ((1 / n_keys, "1/n", False), (1.0, "1", True)), (1 / n_keys, 1.0)),
              (cells[1], (ent_raw, ent_scaled), ((ln_n, "ln n", True), (0.0, "0", False)), (0.0, ln_n)))
    for cell, (raw, sc), refs, (low, high) in panels:
        for ys, style, name in ((raw, UNSCALED_STYLE, legend[0]), (sc, SCALED_STYLE, legend[1])):
            data.append({"hovertemplate": "d_k=%{x}: %{y:.3f}<extra>%{fullData.name}</extra>",
                         "line": {"width": 4, **style}, "marker": {"color": style["color"], "size": 8},
                         "mode": "lines+markers", "name": escape(name), "showlegend": cell is cells[0],
                         "x": x, "xaxis": cell["x"], "y": np.array(ys, dtype=np.float64), "yaxis": cell["y"],
                         "type": "scatter"})
        for (y, value, above), template in zip(refs, ref_texts[:2]):
            shapes.append(_hline(y, {"color": "#999", "dash": "dot", "width": 1.5}, cell["x"], cell["y"]))
            notes.append(_band_note(y, escape(template.format(v=value)), above, cell["x"], cell["y"]))
        # on a log axis a shape's x is the value itself, but an annotation's x would be its log10: the line gets no
        # annotation; the legend names it instead
        shapes.append({"line": {"color": ROLE_COLORS["Q"], "width": 3}, "type": "line", "x0": current_dk,
                       "x1": current_dk, "xref": cell["x"], "y0": low, "y1": high, "yref": cell["y"]})
        ticks = [1, 4, 16, 64, 256] if stacked else [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
        cell["xaxis"].update({"tickvals": ticks, "type": "log"})
        if not stacked or cell is cells[-1]:
            cell["xaxis"]["title"] = {"text": x_title}
    data.append({"line": {"color": ROLE_COLORS["Q"], "width": 3}, "mode": "lines",
                 "name": escape(ref_texts[2].format(d_k=current_dk)), "x": [None], "xaxis": "x", "y": [None],
                 "yaxis": "y", "type": "scatter"})
    cells[0]["yaxis"].update({"range": [-0.16, 1.16], "tickvals": [0, 0.2, 0.4, 0.6, 0.8, 1.0], "zeroline": False})
    cells[1]["yaxis"].update({"range": [-0.2 * ln_n, ln_n * 1.2], "zeroline": False})
    layout = _lesson_layout(title, 460, axes, notes, width, column)
    layout["margin"]["b"] = 110  # the x axis title and the legend
    legend_y = -0.22
    if stacked:  # the panels' area 560 px high; the legend may take two rows
        layout["margin"]["b"] = 150
        layout["height"] = int(layout["margin"]["t"] + 560 + layout["margin"]["b"])
        legend_y = -60 / 560
    layout.update({"showlegend": True, "shapes": shapes,
                   "legend": {"font": {"size": 16}, "orientation": "h", "x": 0, "y": legend_y}})
    for note in layout["annotations"]:
        if "bgcolor" in note:
            note["font"]["size"] = 15
    return finish({"data": data, "layout": layout})


def temperature_chart_spec(temperatures, weights, labels, *, current_T: float, marks=(), x_title: str,
                           y_title: str, limit_texts, current_text: str = "T = {T}", title: str = "",
                           width_px: float | None = None) -> dict:
    """Each book's softmax(s / T) share as a line over T (log axis), with the two limits drawn as reference
    lines named in the legend: T → 0 (argmax: the top score's share goes to 100%) and T → ∞ (uniform 1/n).

    Args:
        temperatures: (m,) increasing; weights: (m, n); labels: n titles.
        current_T: a vertical line here, named in the legend by current_text ("{T}" = the value).
        marks: (T, text) pairs for other vertical lines (e.g. T = √d_k), named in the legend.
        limit_texts: (T → 0 text, T → ∞ text).
        width_px: the chart's width at the reference window (the legend under the chart wraps at it).
    """
    Ts = np.array(temperatures, dtype=np.float64)  # a copy, as validation makes
    W = np.asarray(weights, dtype=np.float64)
    column, width = _widths(width_px, TEMPERATURE_LEAST_PX)
    n = W.shape[1]
    names = [fit_line(x, width - 80, 16) for x in labels]
    data = [{"hovertemplate": "T=%{x:.2f}: %{y:.1%}<extra>%{fullData.name}</extra>",
             "line": {"color": KEY_SHADES[j % len(KEY_SHADES)], "dash": ("solid", "dash", "dot", "dashdot",
                                                                         "longdash")[j % 5], "width": 4},
             "mode": "lines", "name": names[j], "x": Ts, "y": W[:, j].copy(), "type": "scatter"}
            for j in range(n)]
    # the limits are named in the legend, not on the chart: every curve ends on the 1/n line, and the vertical
    # lines may stand anywhere, so a label on the chart would be crossed
    limits = ((1.0, {"color": "#777", "dash": "dashdot", "width": 2}, limit_texts[0]),
              (1 / n, {"color": "#777", "dash": "dot", "width": 2}, limit_texts[1]))
    shapes = [_hline(y, dict(line)) for y, line, _ in limits]
    shapes.append(_vline(current_T, {"color": ROLE_COLORS["weights"], "width": 3}))
    data.append({"line": {"color": ROLE_COLORS["weights"], "width": 3}, "mode": "lines",
                 "name": escape(current_text.format(T=num(current_T))), "x": [None], "y": [None], "type": "scatter"})
    for T, text in marks:
        shapes.append(_vline(T, {"color": ROLE_COLORS["Q"], "dash": "dash", "width": 2}))
        data.append({"line": {"color": ROLE_COLORS["Q"], "dash": "dash", "width": 2}, "mode": "lines",
                     "name": escape(text), "x": [None], "y": [None], "type": "scatter"})
    for _, line, text in limits:
        data.append({"line": dict(line), "mode": "lines", "name": escape(text), "x": [None], "y": [None],
                     "type": "scatter"})
    axes = {"xaxis": {"tickvals": [0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20], "title": {"text": x_title}, "type": "log"},
            "yaxis": {"range": [-0.03, 1.08], "tickformat": ".0%", "title": {"text": y_title}}}
    plot_h = 270
    layout = _lesson_layout(title, 0, axes, (), width, column)
    axis_px = 16 + 16 * LINE_EM + X_TITLE_PX
    legend, legend_px = legend_below([d["name"] for d in data], width, 16, axis_px, plot_h)
    layout.update({"showlegend": True, "legend": legend, "shapes": shapes})
    layout["margin"]["t"] -= 30  # no panel titles
    layout["margin"]["b"] = int(axis_px + legend_px)
    layout["height"] = int(layout["margin"]["t"] + plot_h + layout["margin"]["b"])
    return finish({"data": data, "layout": layout})


def temperature_bars_spec(weights, labels, *, limit_zero, limit_inf, legend, title: str = "",
                          width_px: float | None = None) -> dict:
    """softmax(s / T) as percentage bars, with the T → 0 shares (argmax) as diamonds and the T → ∞ share (1/n)
    as a dotted line on the same bars. A diamond stands just right of its bar, clear of the bar's label.

    Args:
        weights: (n,); limit_zero: (n,) the argmax limit; limit_inf: (n,) the uniform limit.
        legend: (current T, T → 0, T → ∞) texts.
        width_px: the chart's width at the reference window.
    """
    width = float(width_px or layout_width())
    spec = bars_spec(weights, labels, title=title, percent=True, y_range=(0, 1.18), width_px=width,
                     exact=[False] * len(weights))  # softmax of finite scores: never exactly 0 or 1
    bar = spec["data"][0]
    bar["name"] = escape(legend[0])
    slot = (width - 10 - VALUE_AXIS_PX - 10) / max(len(bar["x"]), 1)
    ticks, angle, depth = fit_tick_labels(labels, slot, size=16, wrap=2)
    dotted = {"color": "#777", "dash": "dot", "width": 2}
    spec["data"] += [
        {"hovertemplate": "%{y:.0%}<extra>%{fullData.name}</extra>",
         "marker": {"color": "#222", "line": {"color": "white", "width": 1}, "size": 16, "symbol": "diamond"},
         "mode": "markers", "name": escape(legend[1]), "x": [i + 0.3 for i in bar["x"]],
         "y": np.array(limit_zero, dtype=np.float64), "type": "scatter"},
        {"line": dict(dotted), "mode": "lines", "name": escape(legend[2]), "x": [None], "y": [None], "type": "scatter"},
    ]
    layout = spec["layout"]
    plot_h = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    axis_px = 16 + depth + 8
    legend_d, legend_px = legend_below([d["name"] for d in spec["data"]], width, 15, axis_px, plot_h)
    layout.update({"showlegend": True, "shapes": [_hline(float(np.mean(limit_inf)), dict(dotted))],
                   "legend": legend_d})
    layout["margin"]["b"] = int(axis_px + legend_px)
    layout["height"] = int(layout["margin"]["t"] + plot_h + layout["margin"]["b"])
    layout["font"]["size"] = 16
    layout["xaxis"].update({"tickfont": {"size": 16}, "ticktext": ticks, "tickangle": angle})
    return finish(spec)


