"""Figure builders: NumPy arrays + labels → plotly figures. Pure functions (no Streamlit, no language tables):
every text they show is passed in, so they are testable on their own.

Conventions (cases K09–K11): cells are placed by position, never by label (equal tokens never merge); row 0 is
the top row; attention weights use a sequential scale fixed to 0..1; everything else a diverging scale centred
on 0. Tokens are HTML-escaped before plotly sees them.
"""
from __future__ import annotations

import html
import math
from functools import cache

import numpy as np
import plotly.graph_objects as go

from attention_core.tokens import display_labels

# One colour per role everywhere (Okabe–Ito palette, safe for colour-blind viewers).
ROLE_COLORS = {"X": "#444444", "W": "#7F7F7F", "Q": "#D55E00", "K": "#0072B2", "V": "#009E73",
               "out": "#CC79A7", "weights": "#E69F00", "mask": "#555555"}
MASKED_GREY = "#c8c8c8"  # a masked cell (−∞ score, or False in a mask): the same grey everywhere
OPEN_CELL = "#ffffff"  # an allowed cell of a mask
WEIGHTS_SCALE = "Viridis"  # sequential, brighter = stronger
DIVERGING_SCALE = "RdBu_r"  # blue < 0 < red, white at 0
FONT = "Noto Sans CJK JP, Noto Sans JP, Hiragino Sans, Yu Gothic, Meiryo, sans-serif"


def fmt_num(v: float, digits: int = 2) -> str:
    """Short, readable number: 2 decimals for ordinary sizes, scientific past 1e4; never '-0.00'."""
    if not math.isfinite(v):  # math, not NumPy: this runs for every cell of every heatmap (16×16 × a dozen)
        return "−∞" if v < 0 else ("∞" if v > 0 else "NaN")
    if abs(v) >= 1e4:
        return f"{v:.2e}"
    s = f"{v:.{digits}f}"
    if float(s) == 0:
        s = f"{0:.{digits}f}"
    return s.replace("-", "−")


def escape(label: str) -> str:
    """Token text safe for plotly's pseudo-HTML (a token like '<b>' is shown, not interpreted)."""
    return html.escape(str(label), quote=False)


TICK_CHARS = 12
"""Longest axis label: a longer token is cut with "…" on the axis (its full text is in the hover)."""


def _tick_labels(labels) -> list[str]:
    return [escape(x) for x in display_labels([str(x) for x in labels], TICK_CHARS)]


def _cell_font(n_rows: int, n_cols: int) -> int:
    m = max(n_rows, n_cols)
    return 18 if m <= 5 else 15 if m <= 8 else 12 if m <= 12 else 10


# ---- building figures cheaply ------------------------------------------------------------------------------------
# go.Figure validates every property it is given, which costs ~8 ms for one 16×16 heatmap, and a lesson page draws a
# dozen on every rerun. So each builder first writes its figure as a plain dict (``*_spec``) that is already in the
# form plotly's validation produces (named colour scales resolved to their stops, arrays as lists or float64 NumPy
# arrays), and the public builder wraps it without validating it again. tests/ui/test_figure_specs.py checks that
# validating these dicts changes nothing, so the figures are exactly those built property by property. The page
# helpers in ui/draw.py hand the dicts to Streamlit directly (and reuse them while their inputs do not change).
@cache
def _scale_stops(name: str) -> tuple:
    """A named plotly colour scale as its (position, colour) stops, as validation would resolve it."""
    return tuple(tuple(stop) for stop in go.Heatmap(colorscale=name).to_plotly_json()["colorscale"])


def _colorscale(name: str) -> list:
    return [list(stop) for stop in _scale_stops(name)]


def _figure(spec: dict) -> go.Figure:
    """go.Figure of a spec in validated form, without validating it again; later edits are validated as usual."""
    fig = go.Figure(spec, _validate=False)
    fig._validate = True
    fig.layout._validate = True
    for trace in fig.data:
        trace._validate = True
    return fig


def heatmap_spec(M, row_labels, col_labels, *, title: str = "", row_title: str = "", col_title: str = "",
                 hover: str = "", weights: bool = False, role: str | None = None, zmax: float | None = None,
                 highlight_row: int | None = None, cell_px: int | None = None) -> dict:
    """The figure of :func:`heatmap` (same arguments) as a plain dict {"data": [trace], "layout": {...}}."""
    A = np.asarray(M, dtype=np.float64)
    r, c = A.shape
    finite = np.where(np.isfinite(A), A, np.nan)
    masked = np.isneginf(A)
    text = [["" if v == -math.inf else fmt_num(v) for v in row] for row in A.tolist()]
    rows = [escape(x) for x in row_labels]
    cols = [escape(x) for x in col_labels]
    custom = [[[rows[i], cols[j]] for j in range(c)] for i in range(r)]  # full labels in the hover text
    rows, cols = _tick_labels(row_labels), _tick_labels(col_labels)
    trace = {"colorbar": {"len": 0.9, "thickness": 12, "tickfont": {"size": 12}}}
    if weights:
        trace["colorscale"] = _colorscale(WEIGHTS_SCALE)
        scale = {"zmax": 1.0, "zmin": 0.0}
    else:
        top = zmax if zmax is not None else float(np.nanmax(np.abs(finite))) if np.isfinite(finite).any() else 1.0
        top = top if top > 0 else 1.0
        trace["colorscale"] = _colorscale(DIVERGING_SCALE)
        scale = {"zmax": top, "zmid": 0.0, "zmin": -top}
    trace.update({
        "customdata": custom, "hovertemplate": hover or "%{customdata[0]} · %{customdata[1]}: %{text}<extra></extra>",
        "text": text, "textfont": {"size": _cell_font(r, c)}, "texttemplate": "%{text}", "x": list(range(c)),
        "xgap": 2, "y": list(range(r)), "ygap": 2, "z": finite, **scale, "type": "heatmap",
    })
    cell = cell_px or max(34, min(60, int(420 / max(r, 1))))
    layout = {
        "title": {"font": {"color": ROLE_COLORS.get(role, "#222"), "size": 18},
                  "text": f"<b>{title}</b>" if title else "", "x": 0, "xanchor": "left"},
        "margin": {"b": 50, "l": 10, "r": 10, "t": 50 if title else 20},
        "font": {"family": FONT, "size": 14},
        "xaxis": {"showgrid": False, "side": "bottom", "tickfont": {"size": 15}, "ticktext": cols,
                  "tickvals": list(range(c)), "title": {"text": col_title}, "zeroline": False},
        "yaxis": {"autorange": "reversed", "showgrid": False, "tickfont": {"size": 15}, "ticktext": rows,
                  "tickvals": list(range(r)), "title": {"text": row_title}, "zeroline": False},
        "height": int(cell * r + 110 + (10 if title else 0)), "plot_bgcolor": "white", "paper_bgcolor": "white",
    }
    if highlight_row is not None and 0 <= highlight_row < r:
        layout["shapes"] = [{"fillcolor": "rgba(0,0,0,0)", "line": {"color": ROLE_COLORS["Q"], "width": 4},
                             "type": "rect", "x0": -0.5, "x1": c - 0.5, "y0": highlight_row - 0.5,
                             "y1": highlight_row + 0.5}]
    data = [trace]
    if masked.any():  # masked cells (−∞) in grey, written "−∞", under the numbers; they never set the colour range
        data.insert(0, _flat_cells(masked, MASKED_GREY, "−∞", custom, trace["hovertemplate"], r, c))
    return {"data": data, "layout": layout}


def _flat_cells(where: np.ndarray, color: str, label: str, custom, hover: str, r: int, c: int) -> dict:
    """A heatmap trace that paints the cells ``where`` (r, c) bool in one colour, each written ``label``."""
    z = np.where(where, 1.0, np.nan)
    return {"colorscale": [[0.0, color], [1.0, color]], "customdata": custom, "hovertemplate": hover,
            "showscale": False, "text": [[label if w else "" for w in row] for row in where.tolist()],
            "textfont": {"color": "#333333", "size": _cell_font(r, c)}, "texttemplate": "%{text}",
            "x": list(range(c)), "xgap": 2, "y": list(range(r)), "ygap": 2, "z": z, "zmax": 1.0, "zmin": 0.0,
            "type": "heatmap"}


def mask_spec(mask, row_labels, col_labels, *, title: str = "", row_title: str = "", col_title: str = "",
              hover: str = "", yes: str = "✓", no: str = "✗", cell_px: int | None = None) -> dict:
    """A boolean mask (r, c) as a grid: allowed cells (True) white, written ``yes``; hidden cells (False) grey,
    written ``no`` (for the additive form, yes = "0" and no = "−∞"). Row 0 on top; tokens placed by position."""
    m = np.asarray(mask, dtype=bool)
    r, c = m.shape
    rows = [escape(x) for x in row_labels]
    cols = [escape(x) for x in col_labels]
    custom = [[[rows[i], cols[j]] for j in range(c)] for i in range(r)]
    hover = hover or "%{customdata[0]} · %{customdata[1]}: %{text}<extra></extra>"
    spec = heatmap_spec(np.zeros((r, c)), row_labels, col_labels, title=title, row_title=row_title,
                        col_title=col_title, hover=hover, role="mask", cell_px=cell_px)
    spec["data"] = [_flat_cells(m, OPEN_CELL, yes, custom, hover, r, c),
                    _flat_cells(~m, MASKED_GREY, no, custom, hover, r, c)]
    spec["layout"]["plot_bgcolor"] = "#eeeeee"
    return spec


def heatmap(M, row_labels, col_labels, *, title: str = "", row_title: str = "", col_title: str = "",
            hover: str = "", weights: bool = False, role: str | None = None, zmax: float | None = None,
            highlight_row: int | None = None, cell_px: int | None = None) -> go.Figure:
    """A matrix as a heatmap with its values written in the cells.

    Args:
        M: (r, c) array. -inf cells (masked) are shown blank with the text "−∞".
        row_labels, col_labels: r and c strings (tokens or indices); duplicates allowed.
        title, row_title, col_title: texts already in the user's language.
        hover: plotly hovertemplate; may use %{customdata[0]} (row label), %{customdata[1]} (column label),
            %{text} (the value as written); "" gives a plain default.
        weights: True for attention weights (sequential scale fixed to 0..1); False: diverging around 0, symmetric
            range ±max|M| (or ±zmax).
        role: key of ROLE_COLORS for the title colour.
        highlight_row: draw a frame around this row (the chosen query).
        cell_px: cell height in pixels (default from the size).

    Returns:
        go.Figure; y axis reversed so row 0 is on top; ticks show the labels at positions 0..r-1 / 0..c-1.
    """
    return _figure(heatmap_spec(M, row_labels, col_labels, title=title, row_title=row_title, col_title=col_title,
                                hover=hover, weights=weights, role=role, zmax=zmax, highlight_row=highlight_row,
                                cell_px=cell_px))


def bars_spec(values, labels, *, title: str = "", color: str = ROLE_COLORS["weights"], percent: bool = False,
              y_range=None, axis_title: str = "", hover: str = "") -> dict:
    """The figure of :func:`bars` (same arguments) as a plain dict {"data": [trace], "layout": {...}}."""
    v = np.array(values, dtype=np.float64)  # a copy: the figure must not follow later changes of the caller's array
    names = [escape(x) for x in labels]
    text = [f"{100 * x:.1f}%" for x in v.tolist()] if percent else [fmt_num(x) for x in v.tolist()]
    trace = {"cliponaxis": False, "customdata": names,
             "hovertemplate": hover or "%{customdata}: %{text}<extra></extra>", "marker": {"color": color},
             "text": text, "textfont": {"size": 16}, "textposition": "outside", "x": list(range(len(v))), "y": v,
             "type": "bar"}
    yaxis = {"title": {"text": axis_title}}
    if y_range:
        yaxis["range"] = list(y_range)
    yaxis.update({"gridcolor": "#e5e5e5", "zerolinecolor": "#999"})
    if percent:
        yaxis["tickformat"] = ".0%"
    layout = {
        "title": {"font": {"size": 17}, "text": f"<b>{title}</b>" if title else "", "x": 0, "xanchor": "left"},
        "margin": {"l": 10, "r": 10, "t": 50 if title else 20, "b": 40}, "font": {"family": FONT, "size": 14},
        "xaxis": {"tickfont": {"size": 15}, "tickvals": list(range(len(v))), "ticktext": names}, "yaxis": yaxis,
        "height": 300, "plot_bgcolor": "white", "paper_bgcolor": "white", "showlegend": False,
    }
    return {"data": [trace], "layout": layout}


def bars(values, labels, *, title: str = "", color: str = ROLE_COLORS["weights"], percent: bool = False,
         y_range=None, axis_title: str = "", hover: str = "") -> go.Figure:
    """A bar per value, labelled by position (duplicates allowed), the value written above each bar.

    Args:
        values: 1-D array. percent=True writes 100·v with one decimal and a % sign.
        labels: one string per bar (tokens are escaped).
        y_range: (lo, hi) or None for automatic.
    """
    return _figure(bars_spec(values, labels, title=title, color=color, percent=percent, y_range=y_range,
                             axis_title=axis_title, hover=hover))


def vector_mix_spec(vectors, weights, output, labels, *, out_label: str, dim_title: str, title: str = "",
                    hover: str = "") -> dict:
    """The figure of :func:`vector_mix` (same arguments) as a plain dict {"data": [...], "layout": {...}}."""
    V = np.asarray(vectors, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    out = np.array(output, dtype=np.float64)  # a copy, as validation would make
    d = V.shape[1]
    x = [str(k + 1) for k in range(d)]
    palette = ["#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#E69F00", "#999999"]
    data = [{"hovertemplate": hover or "%{y:.3f}<extra>%{fullData.name}</extra>",
             "marker": {"color": palette[j % len(palette)]}, "name": f"{w[j] * 100:.1f}% × v({escape(lab)})",
             "opacity": 0.75, "x": list(x), "y": w[j] * V[j], "type": "bar"} for j, lab in enumerate(labels)]
    data.append({"hovertemplate": "%{y:.3f}<extra>%{fullData.name}</extra>",
                 "marker": {"color": ROLE_COLORS["out"], "line": {"color": "#222", "width": 2}},
                 "name": escape(out_label), "text": [fmt_num(v) for v in out.tolist()], "textfont": {"size": 15},
                 "textposition": "outside", "x": list(x), "y": out, "type": "bar"})
    layout = {
        "title": {"font": {"size": 17}, "text": f"<b>{title}</b>" if title else "", "x": 0},
        "margin": {"l": 10, "r": 10, "t": 50 if title else 20, "b": 40}, "font": {"family": FONT, "size": 14},
        "xaxis": {"title": {"text": dim_title}}, "yaxis": {"gridcolor": "#e5e5e5", "zerolinecolor": "#999"},
        "legend": {"font": {"size": 13}, "orientation": "h", "y": -0.25}, "barmode": "group", "height": 340,
        "plot_bgcolor": "white", "paper_bgcolor": "white",
    }
    return {"data": data, "layout": layout}


def vector_mix(vectors, weights, output, labels, *, out_label: str, dim_title: str, title: str = "",
               hover: str = "") -> go.Figure:
    """The weighted sum Σ w_j·v_j as grouped bars: each value vector scaled by its weight, and the output.

    Args:
        vectors: (n, d) value vectors; weights: (n,) one query's weights; output: (d,) = weights @ vectors.
        labels: n token labels; out_label: name of the output bar group.
    """
    return _figure(vector_mix_spec(vectors, weights, output, labels, out_label=out_label, dim_title=dim_title,
                                   title=title, hover=hover))


# ---- scaling and softmax lesson (lesson_pages/scaling.py) -----------------------------------------------------
# Written as specs like the builders above: each ``*_spec`` returns the plain dict in plotly's validated form, the
# public builder of the same name wraps it with _figure. The subplot grids are those make_subplots would make
# (_subplot_grid), the reference lines those add_hline / add_vline would add (_hline, _vline, _hline_note).
# Every text is passed in, already translated.
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


def _hline_note(y, text: str, position: str, font: dict, xref: str = "x", yref: str = "y") -> dict:
    """The annotation add_hline(annotation_text=text, annotation_position=position) adds ("top left", ...)."""
    vertical, horizontal = position.split()
    return {"font": font, "showarrow": False, "text": text, "x": 0 if horizontal == "left" else 1,
            "xanchor": horizontal, "xref": f"{xref} domain", "y": y,
            "yanchor": "bottom" if vertical == "top" else "top", "yref": yref}


def _lesson_layout(title: str, height: int, axes: dict, annotations=()) -> dict:
    """The layout the scaling charts share: title, size, fonts, white background, light grid, no legend;
    every annotation's font at size 17; ``axes`` (filled in by the builder) completed and placed in the layout."""
    layout = {
        "title": {"font": {"size": 19}, "text": f"<b>{title}</b>" if title else "", "x": 0, "xanchor": "left"},
        "height": height, "margin": {"l": 10, "r": 10, "t": 80 if title else 50, "b": 50},
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
    return layout


def scaling_steps_spec(raw, scaled, weights, labels, *, panel_titles, title: str = "", score_limit: float = 10.0,
                       hover: str = "") -> dict:
    """The figure of :func:`scaling_steps` (same arguments) as a plain dict {"data": [...], "layout": {...}}."""
    r, s, w = (np.array(a, dtype=np.float64) for a in (raw, scaled, weights))  # copies, as validation makes
    names = [escape(x) for x in labels]
    x = list(range(len(r)))
    top = max(score_limit, float(np.max(np.abs(np.concatenate([r, s]))))) * 1.18
    axes, notes, cells = _subplot_grid(1, 3, spacing=0.07, titles=[escape(t) for t in panel_titles])
    texts = ([fmt_num(v) for v in r.tolist()], [fmt_num(v) for v in s.tolist()],
             [f"{100 * v:.1f}%" for v in w.tolist()])
    data = []
    for cell, vals, text, color, size in zip(cells, (r, s, w), texts, (ROLE_COLORS["K"], ROLE_COLORS["K"],
                                                                        ROLE_COLORS["weights"]), (17, 17, 18)):
        data.append({"cliponaxis": False, "customdata": names,
                     "hovertemplate": hover or "%{customdata}: %{text}<extra></extra>", "marker": {"color": color},
                     "text": text, "textfont": {"size": size}, "textposition": "outside", "x": x,
                     "xaxis": cell["x"], "y": vals, "yaxis": cell["y"], "type": "bar"})
        cell["xaxis"].update({"ticktext": names, "tickvals": x})
    cells[0]["yaxis"]["range"] = [-top, top]
    cells[1]["yaxis"]["range"] = [-top, top]
    cells[2]["yaxis"].update({"range": [0, 1.18], "tickformat": ".0%"})
    return {"data": data, "layout": _lesson_layout(title, 400, axes, notes)}


def scaling_steps(raw, scaled, weights, labels, *, panel_titles, title: str = "", score_limit: float = 10.0,
                  hover: str = "") -> go.Figure:
    """raw scores → scores after ÷√d_k → softmax shares, as three bar panels side by side.

    Args:
        raw, scaled, weights: (n,) each; weights sum to 1 and are written as percentages with one decimal.
        labels: n book titles (escaped here).
        panel_titles: three texts (raw, scaled, shares).
        score_limit: both score panels share the fixed range ±score_limit (widened if a score is larger), so
            the shrinking by √d_k is seen as shorter bars.
    """
    return _figure(scaling_steps_spec(raw, scaled, weights, labels, panel_titles=panel_titles, title=title,
                                      score_limit=score_limit, hover=hover))


def value_mix_spec(values, weights, output, labels, dim_labels, *, out_title: str, title: str = "",
                   share_text: str = "× {p}") -> dict:
    """The figure of :func:`value_mix` (same arguments) as a plain dict {"data": [...], "layout": {...}}."""
    V = np.array(values, dtype=np.float64)  # copies, as validation makes
    w = np.asarray(weights, dtype=np.float64)
    z = np.array(output, dtype=np.float64)
    n, d = V.shape
    dims = [escape(x) for x in dim_labels]
    titles = [f"{escape(lab)}<br>{share_text.format(p=f'{100 * wj:.1f}%')}" for lab, wj in zip(labels, w.tolist())]
    titles.append(escape(out_title))
    axes, notes, cells = _subplot_grid(1, n + 1, spacing=0.05, titles=titles, shared=True)
    top = max(1.0, float(np.max(np.abs(np.concatenate([V.ravel(), z]))))) * 1.25
    lo = -top if (V < 0).any() or (z < 0).any() else 0.0
    data = []
    for j, cell in enumerate(cells):
        vals = V[j] if j < n else z
        data.append({"cliponaxis": False, "customdata": dims, "hovertemplate": "%{customdata}: %{text}<extra></extra>",
                     "marker": {"color": ROLE_COLORS["V"] if j < n else ROLE_COLORS["out"],
                                "line": {"color": "#222", "width": 2 if j == n else 0}},
                     "text": [fmt_num(v) for v in vals.tolist()], "textfont": {"size": 16}, "textposition": "outside",
                     "x": list(range(d)), "xaxis": cell["x"], "y": vals, "yaxis": cell["y"], "type": "bar"})
        cell["xaxis"].update({"ticktext": dims, "tickvals": list(range(d))})
        cell["yaxis"]["range"] = [lo, top]
    layout = _lesson_layout(title, 380, axes, notes)
    layout["margin"]["t"] = 110 if title else 80
    return {"data": data, "layout": layout}


def value_mix(values, weights, output, labels, dim_labels, *, out_title: str, title: str = "",
              share_text: str = "× {p}") -> go.Figure:
    """Each book's value vector (its own panel, titled with its share) and the mixed output Σ w_j v_j beside them.

    Args:
        values: (n, d_v); weights: (n,); output: (d_v,) = weights @ values.
        labels: n book titles; dim_labels: d_v names of the value components.
        out_title: the output panel's title. share_text: appended to each book's title, "{p}" = the percentage.
    All panels share one y range, so a value and the output compare by bar height.
    """
    return _figure(value_mix_spec(values, weights, output, labels, dim_labels, out_title=out_title, title=title,
                                  share_text=share_text))


def variance_histograms_spec(centers, density_raw, density_scaled, *, d_k: int, row_titles, x_title: str,
                             y_title: str, title: str = "") -> dict:
    """The figure of :func:`variance_histograms` (same arguments) as a plain dict {"data": [...], "layout": {...}}."""
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
    return {"data": data, "layout": _lesson_layout(title, 560, axes, notes)}  # bargap: no effect, bars have a width


def variance_histograms(centers, density_raw, density_scaled, *, d_k: int, row_titles, x_title: str,
                        y_title: str, title: str = "") -> go.Figure:
    """Histograms (as densities) of q·k without and with ÷√d_k, stacked on one shared x axis, each with the
    normal density it should follow drawn as a thin line: N(0, d_k) and N(0, 1).

    Args:
        centers: (b,) bin centres shared by both histograms; density_raw, density_scaled: (b,).
        row_titles: two texts (without, with scaling), e.g. carrying the measured variances.
    """
    return _figure(variance_histograms_spec(centers, density_raw, density_scaled, d_k=d_k, row_titles=row_titles,
                                            x_title=x_title, y_title=y_title, title=title))


def saturation_chart_spec(d_ks, max_raw, max_scaled, ent_raw, ent_scaled, *, n_keys: int, current_dk: int,
                          panel_titles, legend, x_title: str, ref_texts, title: str = "") -> dict:
    """The figure of :func:`saturation_chart` (same arguments) as a plain dict {"data": [...], "layout": {...}}."""
    x = np.array(d_ks, dtype=np.float64)  # a copy, as validation makes
    axes, notes, cells = _subplot_grid(1, 2, spacing=0.09, titles=[escape(t) for t in panel_titles])
    ln_n = float(np.log(n_keys))
    data, shapes = [], []
    for cell, (raw, sc), (uni, one) in ((cells[0], (max_raw, max_scaled), (1 / n_keys, 1.0)),
                                        (cells[1], (ent_raw, ent_scaled), (ln_n, 0.0))):
        for ys, style, name in ((raw, UNSCALED_STYLE, legend[0]), (sc, SCALED_STYLE, legend[1])):
            data.append({"hovertemplate": "d_k=%{x}: %{y:.3f}<extra>%{fullData.name}</extra>",
                         "line": {"width": 4, **style}, "marker": {"color": style["color"], "size": 8},
                         "mode": "lines+markers", "name": escape(name), "showlegend": cell is cells[0],
                         "x": x, "xaxis": cell["x"], "y": np.array(ys, dtype=np.float64), "yaxis": cell["y"],
                         "type": "scatter"})
        for y, label in ((uni, ref_texts[0]), (one, ref_texts[1])):
            shapes.append(_hline(y, {"color": "#999", "dash": "dot", "width": 1.5}, cell["x"], cell["y"]))
            notes.append(_hline_note(y, escape(label), "top left", {"color": "#555", "size": 14}, cell["x"],
                                     cell["y"]))
        # on a log axis a shape's x is the value itself, but an annotation's x would be its log10: the line gets no
        # annotation; the legend names it instead
        shapes.append(_vline(current_dk, {"color": ROLE_COLORS["Q"], "width": 3}, cell["x"], cell["y"]))
        cell["xaxis"].update({"tickvals": [1, 2, 4, 8, 16, 32, 64, 128, 256, 512], "title": {"text": x_title},
                              "type": "log"})
    data.append({"line": {"color": ROLE_COLORS["Q"], "width": 3}, "mode": "lines",
                 "name": escape(ref_texts[2].format(d_k=current_dk)), "x": [None], "xaxis": "x", "y": [None],
                 "yaxis": "y", "type": "scatter"})
    cells[0]["yaxis"]["range"] = [0, 1.15]
    cells[1]["yaxis"]["range"] = [-0.05 * ln_n, ln_n * 1.18]
    layout = _lesson_layout(title, 460, axes, notes)
    layout.update({"showlegend": True, "legend": {"font": {"size": 16}, "orientation": "h", "x": 0, "y": -0.22},
                   "shapes": shapes})
    layout["margin"]["b"] = 110
    return {"data": data, "layout": layout}


def saturation_chart(d_ks, max_raw, max_scaled, ent_raw, ent_scaled, *, n_keys: int, current_dk: int,
                     panel_titles, legend, x_title: str, ref_texts, title: str = "") -> go.Figure:
    """Mean largest softmax weight (left) and mean entropy (right) over d_k, without (dashed) and with (solid)
    ÷√d_k, on a log₂ d_k axis; a vertical line marks the current d_k.

    Args:
        d_ks: (g,); the four curves: (g,) each.
        n_keys: n, for the reference lines: largest weight 1/n (uniform) and 1 (one-hot); entropy ln n and 0.
        panel_titles: two texts; legend: (without, with); ref_texts: (uniform, one-hot, current d_k) where the
            last may hold "{d_k}".
    """
    return _figure(saturation_chart_spec(d_ks, max_raw, max_scaled, ent_raw, ent_scaled, n_keys=n_keys,
                                         current_dk=current_dk, panel_titles=panel_titles, legend=legend,
                                         x_title=x_title, ref_texts=ref_texts, title=title))


def temperature_chart_spec(temperatures, weights, labels, *, current_T: float, marks=(), x_title: str,
                           y_title: str, limit_texts, current_text: str = "T = {T}", title: str = "") -> dict:
    """The figure of :func:`temperature_chart` (same arguments) as a plain dict {"data": [...], "layout": {...}}."""
    Ts = np.array(temperatures, dtype=np.float64)  # a copy, as validation makes
    W = np.asarray(weights, dtype=np.float64)
    n = W.shape[1]
    data = [{"hovertemplate": "T=%{x:.2f}: %{y:.1%}<extra>%{fullData.name}</extra>",
             "line": {"color": KEY_SHADES[j % len(KEY_SHADES)], "dash": ("solid", "dash", "dot", "dashdot",
                                                                         "longdash")[j % 5], "width": 4},
             "mode": "lines", "name": escape(labels[j]), "x": Ts, "y": W[:, j].copy(), "type": "scatter"}
            for j in range(n)]
    dotted = {"color": "#777", "dash": "dot", "width": 2}
    shapes = [_hline(1 / n, dict(dotted)), _hline(1.0, dict(dotted)),
              _vline(current_T, {"color": ROLE_COLORS["weights"], "width": 3})]
    notes = [_hline_note(1 / n, escape(limit_texts[1]), "bottom right", {"color": "#444", "size": 15}),
             _hline_note(1.0, escape(limit_texts[0]), "top right", {"color": "#444", "size": 15})]
    # vertical lines carry no annotation (on a log axis it would be placed at 10^x); the legend names them
    data.append({"line": {"color": ROLE_COLORS["weights"], "width": 3}, "mode": "lines",
                 "name": escape(current_text.format(T=f"{current_T:g}")), "x": [None], "y": [None], "type": "scatter"})
    for T, text in marks:
        shapes.append(_vline(T, {"color": ROLE_COLORS["Q"], "dash": "dash", "width": 2}))
        data.append({"line": {"color": ROLE_COLORS["Q"], "dash": "dash", "width": 2}, "mode": "lines",
                     "name": escape(text), "x": [None], "y": [None], "type": "scatter"})
    axes = {"xaxis": {"tickvals": [0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20], "title": {"text": x_title}, "type": "log"},
            "yaxis": {"range": [-0.03, 1.15], "tickformat": ".0%", "title": {"text": y_title}}}
    layout = _lesson_layout(title, 460, axes, notes)
    layout.update({"showlegend": True, "legend": {"font": {"size": 16}, "orientation": "h", "x": 0, "y": -0.25},
                   "shapes": shapes})
    layout["margin"]["b"] = 110
    return {"data": data, "layout": layout}


def temperature_chart(temperatures, weights, labels, *, current_T: float, marks=(), x_title: str,
                      y_title: str, limit_texts, current_text: str = "T = {T}", title: str = "") -> go.Figure:
    """Each book's softmax(s / T) share as a line over T (log axis), with the two limits drawn as reference
    markers: T → 0 (argmax, one-hot: shares 1 or 0) at the left edge and T → ∞ (uniform 1/n) as a dotted line.

    Args:
        temperatures: (m,) increasing; weights: (m, n); labels: n titles.
        current_T: a vertical line here, named in the legend by current_text ("{T}" = the value).
        marks: (T, text) pairs for other vertical lines (e.g. T = √d_k), named in the legend.
        limit_texts: (T → 0 text, T → ∞ text).
    """
    return _figure(temperature_chart_spec(temperatures, weights, labels, current_T=current_T, marks=marks,
                                          x_title=x_title, y_title=y_title, limit_texts=limit_texts,
                                          current_text=current_text, title=title))


def temperature_bars_spec(weights, labels, *, limit_zero, limit_inf, legend, title: str = "") -> dict:
    """The figure of :func:`temperature_bars` (same arguments) as a plain dict {"data": [...], "layout": {...}}."""
    spec = bars_spec(weights, labels, title=title, percent=True, y_range=(0, 1.18))
    bar = spec["data"][0]
    bar["name"] = escape(legend[0])
    dotted = {"color": "#777", "dash": "dot", "width": 2}
    spec["data"] += [
        {"hovertemplate": "%{y:.0%}<extra>%{fullData.name}</extra>",
         "marker": {"color": "#222", "line": {"color": "white", "width": 1}, "size": 16, "symbol": "diamond"},
         "mode": "markers", "name": escape(legend[1]), "x": [i + 0.3 for i in bar["x"]],
         "y": np.array(limit_zero, dtype=np.float64), "type": "scatter"},
        {"line": dict(dotted), "mode": "lines", "name": escape(legend[2]), "x": [None], "y": [None], "type": "scatter"},
    ]
    layout = spec["layout"]
    layout.update({"showlegend": True, "height": 400, "shapes": [_hline(float(np.mean(limit_inf)), dict(dotted))],
                   "legend": {"font": {"size": 15}, "orientation": "h", "x": 0, "y": -0.2}})
    layout["margin"]["b"] = 100
    layout["font"]["size"] = 16
    layout["xaxis"]["tickfont"] = {"size": 16}
    return spec


def temperature_bars(weights, labels, *, limit_zero, limit_inf, legend, title: str = "") -> go.Figure:
    """softmax(s / T) as percentage bars, with the T → 0 shares (argmax) as diamonds and the T → ∞ share (1/n)
    as a dotted line on the same bars. A diamond stands just right of its bar, clear of the bar's label.

    Args:
        weights: (n,); limit_zero: (n,) the argmax limit; limit_inf: (n,) the uniform limit.
        legend: (current T, T → 0, T → ∞) texts.
    """
    return _figure(temperature_bars_spec(weights, labels, limit_zero=limit_zero, limit_inf=limit_inf,
                                         legend=legend, title=title))
