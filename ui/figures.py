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

# One colour per role everywhere (Okabe–Ito palette, safe for colour-blind viewers).
ROLE_COLORS = {"X": "#444444", "W": "#7F7F7F", "Q": "#D55E00", "K": "#0072B2", "V": "#009E73",
               "out": "#CC79A7", "weights": "#E69F00"}
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
    text = [[fmt_num(v) for v in row] for row in A.tolist()]
    rows = [escape(x) for x in row_labels]
    cols = [escape(x) for x in col_labels]
    custom = [[[rows[i], cols[j]] for j in range(c)] for i in range(r)]
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
    return {"data": [trace], "layout": layout}


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
# Appended builders; the functions above are left as they are. Every text is passed in, already translated.
SCALED_STYLE = dict(color=ROLE_COLORS["weights"], dash="solid")  # ÷√d_k on
UNSCALED_STYLE = dict(color="#444444", dash="dash")  # ÷√d_k off
KEY_SHADES = ("#0072B2", "#56B4E9", "#003F63", "#6A9FCC", "#00263D")  # one role (keys), told apart by shade


def _plain_layout(fig: go.Figure, title: str, height: int) -> go.Figure:
    fig.update_layout(
        title=dict(text=f"<b>{title}</b>" if title else "", font=dict(size=19), x=0, xanchor="left"),
        height=height, margin=dict(l=10, r=10, t=80 if title else 50, b=50), font=dict(family=FONT, size=16),
        plot_bgcolor="white", paper_bgcolor="white", showlegend=False, bargap=0.25,
    )
    fig.update_annotations(font=dict(size=17))
    fig.update_yaxes(gridcolor="#e5e5e5", zerolinecolor="#888", zerolinewidth=1.5, tickfont=dict(size=15))
    fig.update_xaxes(tickfont=dict(size=16))
    return fig


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
    from plotly.subplots import make_subplots

    r, s, w = (np.asarray(a, dtype=np.float64) for a in (raw, scaled, weights))
    names = [escape(x) for x in labels]
    x = list(range(len(r)))
    top = max(score_limit, float(np.max(np.abs(np.concatenate([r, s]))))) * 1.18
    fig = make_subplots(rows=1, cols=3, subplot_titles=[escape(t) for t in panel_titles], horizontal_spacing=0.07)
    for col, vals in ((1, r), (2, s)):
        fig.add_bar(x=x, y=vals, text=[fmt_num(v) for v in vals], textposition="outside", cliponaxis=False,
                    marker_color=ROLE_COLORS["K"], textfont=dict(size=17), customdata=names,
                    hovertemplate=hover or "%{customdata}: %{text}<extra></extra>", row=1, col=col)
        fig.update_yaxes(range=[-top, top], row=1, col=col)
    fig.add_bar(x=x, y=w, text=[f"{100 * v:.1f}%" for v in w], textposition="outside", cliponaxis=False,
                marker_color=ROLE_COLORS["weights"], textfont=dict(size=18), customdata=names,
                hovertemplate=hover or "%{customdata}: %{text}<extra></extra>", row=1, col=3)
    fig.update_yaxes(range=[0, 1.18], tickformat=".0%", row=1, col=3)
    for col in (1, 2, 3):
        fig.update_xaxes(tickvals=x, ticktext=names, row=1, col=col)
    return _plain_layout(fig, title, 400)


def value_mix(values, weights, output, labels, dim_labels, *, out_title: str, title: str = "",
              share_text: str = "× {p}") -> go.Figure:
    """Each book's value vector (its own panel, titled with its share) and the mixed output Σ w_j v_j beside them.

    Args:
        values: (n, d_v); weights: (n,); output: (d_v,) = weights @ values.
        labels: n book titles; dim_labels: d_v names of the value components.
        out_title: the output panel's title. share_text: appended to each book's title, "{p}" = the percentage.
    All panels share one y range, so a value and the output compare by bar height.
    """
    from plotly.subplots import make_subplots

    V = np.asarray(values, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    z = np.asarray(output, dtype=np.float64)
    n, d = V.shape
    dims = [escape(x) for x in dim_labels]
    titles = [f"{escape(lab)}<br>{share_text.format(p=f'{100 * wj:.1f}%')}" for lab, wj in zip(labels, w)]
    titles.append(escape(out_title))
    fig = make_subplots(rows=1, cols=n + 1, subplot_titles=titles, horizontal_spacing=0.05, shared_yaxes=True)
    top = max(1.0, float(np.max(np.abs(np.concatenate([V.ravel(), z]))))) * 1.25
    lo = -top if (V < 0).any() or (z < 0).any() else 0.0
    for j in range(n + 1):
        vals = V[j] if j < n else z
        color = ROLE_COLORS["V"] if j < n else ROLE_COLORS["out"]
        fig.add_bar(x=list(range(d)), y=vals, text=[fmt_num(v) for v in vals], textposition="outside",
                    cliponaxis=False, marker=dict(color=color, line=dict(color="#222", width=2 if j == n else 0)),
                    textfont=dict(size=16), customdata=dims, hovertemplate="%{customdata}: %{text}<extra></extra>",
                    row=1, col=j + 1)
        fig.update_xaxes(tickvals=list(range(d)), ticktext=dims, row=1, col=j + 1)
    fig.update_yaxes(range=[lo, top])
    fig = _plain_layout(fig, title, 380)
    fig.update_layout(margin=dict(t=110 if title else 80))
    return fig


def variance_histograms(centers, density_raw, density_scaled, *, d_k: int, row_titles, x_title: str,
                        y_title: str, title: str = "") -> go.Figure:
    """Histograms (as densities) of q·k without and with ÷√d_k, stacked on one shared x axis, each with the
    normal density it should follow drawn as a thin line: N(0, d_k) and N(0, 1).

    Args:
        centers: (b,) bin centres shared by both histograms; density_raw, density_scaled: (b,).
        row_titles: two texts (without, with scaling), e.g. carrying the measured variances.
    """
    from plotly.subplots import make_subplots

    c = np.asarray(centers, dtype=np.float64)
    width = float(c[1] - c[0]) if c.size > 1 else 1.0
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.16,
                        subplot_titles=[escape(t) for t in row_titles])
    grid = np.linspace(c[0] - width / 2, c[-1] + width / 2, 400)
    for row, dens, var, style in ((1, density_raw, float(d_k), UNSCALED_STYLE), (2, density_scaled, 1.0,
                                                                                   SCALED_STYLE)):
        fig.add_bar(x=c, y=np.asarray(dens, dtype=np.float64), width=width, marker_color=style["color"],
                    opacity=0.8, hovertemplate="%{x:.2f}: %{y:.4f}<extra></extra>", row=row, col=1)
        pdf = np.exp(-grid**2 / (2 * var)) / np.sqrt(2 * np.pi * var)
        fig.add_scatter(x=grid, y=pdf, mode="lines", line=dict(color="#111", width=2),
                        hoverinfo="skip", row=row, col=1)
        fig.update_yaxes(title=dict(text=y_title, font=dict(size=14)), rangemode="tozero", row=row, col=1)
    fig.update_xaxes(title=dict(text=x_title), row=2, col=1)
    fig.update_layout(bargap=0)
    return _plain_layout(fig, title, 560)


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
    from plotly.subplots import make_subplots

    x = np.asarray(d_ks, dtype=np.float64)
    fig = make_subplots(rows=1, cols=2, subplot_titles=[escape(t) for t in panel_titles], horizontal_spacing=0.09)
    ln_n = float(np.log(n_keys))
    for col, (raw, sc), (uni, one) in ((1, (max_raw, max_scaled), (1 / n_keys, 1.0)),
                                       (2, (ent_raw, ent_scaled), (ln_n, 0.0))):
        for ys, style, name in ((raw, UNSCALED_STYLE, legend[0]), (sc, SCALED_STYLE, legend[1])):
            fig.add_scatter(x=x, y=np.asarray(ys, dtype=np.float64), mode="lines+markers", name=escape(name),
                            line=dict(width=4, **style), marker=dict(size=8, color=style["color"]),
                            showlegend=col == 1, hovertemplate="d_k=%{x}: %{y:.3f}<extra>%{fullData.name}</extra>",
                            row=1, col=col)
        for y, label in ((uni, ref_texts[0]), (one, ref_texts[1])):
            fig.add_hline(y=y, line=dict(color="#999", width=1.5, dash="dot"), annotation_text=escape(label),
                          annotation_position="top left", annotation_font=dict(size=14, color="#555"),
                          row=1, col=col)
        # on a log axis a shape's x is the value itself in plotly.py's add_vline, but annotations would need log10:
        # the line gets no annotation; the legend names it instead
        fig.add_vline(x=current_dk, line=dict(color=ROLE_COLORS["Q"], width=3), row=1, col=col)
        fig.update_xaxes(type="log", tickvals=[1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
                         title=dict(text=x_title), row=1, col=col)
    fig.add_scatter(x=[None], y=[None], mode="lines", name=escape(ref_texts[2].format(d_k=current_dk)),
                    line=dict(color=ROLE_COLORS["Q"], width=3), row=1, col=1)
    fig.update_yaxes(range=[0, 1.15], row=1, col=1)
    fig.update_yaxes(range=[-0.05 * ln_n, ln_n * 1.18], row=1, col=2)
    fig = _plain_layout(fig, title, 460)
    fig.update_layout(showlegend=True, legend=dict(orientation="h", y=-0.22, x=0, font=dict(size=16)),
                      margin=dict(b=110))
    return fig


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
    Ts = np.asarray(temperatures, dtype=np.float64)
    W = np.asarray(weights, dtype=np.float64)
    n = W.shape[1]
    fig = go.Figure()
    for j in range(n):
        color = KEY_SHADES[j % len(KEY_SHADES)]
        dash = ("solid", "dash", "dot", "dashdot", "longdash")[j % 5]
        fig.add_scatter(x=Ts, y=W[:, j], mode="lines", name=escape(labels[j]), line=dict(color=color, width=4,
                                                                                         dash=dash),
                        hovertemplate="T=%{x:.2f}: %{y:.1%}<extra>%{fullData.name}</extra>")
    fig.add_hline(y=1 / n, line=dict(color="#777", width=2, dash="dot"), annotation_text=escape(limit_texts[1]),
                  annotation_position="bottom right", annotation_font=dict(size=15, color="#444"))
    fig.add_hline(y=1.0, line=dict(color="#777", width=2, dash="dot"), annotation_text=escape(limit_texts[0]),
                  annotation_position="top right", annotation_font=dict(size=15, color="#444"))
    # vertical lines carry no annotation (on a log axis it would be placed at 10^x); the legend names them
    fig.add_vline(x=current_T, line=dict(color=ROLE_COLORS["weights"], width=3))
    fig.add_scatter(x=[None], y=[None], mode="lines", name=escape(current_text.format(T=f"{current_T:g}")),
                    line=dict(color=ROLE_COLORS["weights"], width=3))
    for T, text in marks:
        fig.add_vline(x=T, line=dict(color=ROLE_COLORS["Q"], width=2, dash="dash"))
        fig.add_scatter(x=[None], y=[None], mode="lines", name=escape(text),
                        line=dict(color=ROLE_COLORS["Q"], width=2, dash="dash"))
    fig.update_xaxes(type="log", title=dict(text=x_title), tickvals=[0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20])
    fig.update_yaxes(range=[-0.03, 1.15], tickformat=".0%", title=dict(text=y_title))
    fig = _plain_layout(fig, title, 460)
    fig.update_layout(showlegend=True, legend=dict(orientation="h", y=-0.25, x=0, font=dict(size=16)),
                      margin=dict(b=110))
    return fig


def temperature_bars(weights, labels, *, limit_zero, limit_inf, legend, title: str = "") -> go.Figure:
    """softmax(s / T) as percentage bars, with the T → 0 shares (argmax) as diamonds and the T → ∞ share (1/n)
    as a dotted line on the same bars. A diamond stands just right of its bar, clear of the bar's label.

    Args:
        weights: (n,); limit_zero: (n,) the argmax limit; limit_inf: (n,) the uniform limit.
        legend: (current T, T → 0, T → ∞) texts.
    """
    w = np.asarray(weights, dtype=np.float64)
    fig = bars(w, labels, title=title, percent=True, y_range=(0, 1.18))
    fig.data[0].name = escape(legend[0])
    x = list(range(len(w)))
    fig.add_scatter(x=[i + 0.3 for i in x], y=np.asarray(limit_zero, dtype=np.float64), mode="markers",
                    name=escape(legend[1]),
                    marker=dict(symbol="diamond", size=16, color="#222", line=dict(color="white", width=1)),
                    hovertemplate="%{y:.0%}<extra>%{fullData.name}</extra>")
    fig.add_hline(y=float(np.mean(limit_inf)), line=dict(color="#777", width=2, dash="dot"))
    fig.add_scatter(x=[None], y=[None], mode="lines", name=escape(legend[2]),
                    line=dict(color="#777", width=2, dash="dot"))
    fig.update_layout(showlegend=True, height=400, legend=dict(orientation="h", y=-0.2, x=0, font=dict(size=15)),
                      margin=dict(b=100), font=dict(size=16))
    fig.update_xaxes(tickfont=dict(size=16))
    return fig
