"""Figure builders: NumPy arrays + labels → plotly figures. Pure functions (no Streamlit, no language tables):
every text they show is passed in, so they are testable on their own.

Conventions (cases K09–K11): cells are placed by position, never by label (equal tokens never merge); row 0 is
the top row; attention weights use a sequential scale fixed to 0..1; everything else a diverging scale centred
on 0. Tokens are HTML-escaped before plotly sees them.
"""
from __future__ import annotations

import html

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
    if not np.isfinite(v):
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
    A = np.asarray(M, dtype=np.float64)
    r, c = A.shape
    finite = np.where(np.isfinite(A), A, np.nan)
    text = [[fmt_num(v) for v in row] for row in A]
    rows = [escape(x) for x in row_labels]
    cols = [escape(x) for x in col_labels]
    custom = [[[rows[i], cols[j]] for j in range(c)] for i in range(r)]
    if weights:
        scale = dict(colorscale=WEIGHTS_SCALE, zmin=0.0, zmax=1.0)
    else:
        top = zmax if zmax is not None else float(np.nanmax(np.abs(finite))) if np.isfinite(finite).any() else 1.0
        top = top if top > 0 else 1.0
        scale = dict(colorscale=DIVERGING_SCALE, zmin=-top, zmax=top, zmid=0.0)
    font = _cell_font(r, c)
    trace = go.Heatmap(
        z=finite, x=list(range(c)), y=list(range(r)), text=text, texttemplate="%{text}",
        textfont=dict(size=font), customdata=custom, xgap=2, ygap=2,
        hovertemplate=hover or "%{customdata[0]} · %{customdata[1]}: %{text}<extra></extra>",
        colorbar=dict(thickness=12, len=0.9, tickfont=dict(size=12)), **scale,
    )
    cell = cell_px or max(34, min(60, int(420 / max(r, 1))))
    fig = go.Figure(trace)
    fig.update_layout(
        title=dict(text=f"<b>{title}</b>" if title else "", font=dict(size=18, color=ROLE_COLORS.get(role, "#222")),
                   x=0, xanchor="left"),
        height=int(cell * r + 110 + (10 if title else 0)), margin=dict(l=10, r=10, t=50 if title else 20, b=50),
        font=dict(family=FONT, size=14), plot_bgcolor="white", paper_bgcolor="white",
        xaxis=dict(tickvals=list(range(c)), ticktext=cols, side="bottom", title=dict(text=col_title),
                   tickfont=dict(size=15), showgrid=False, zeroline=False),
        yaxis=dict(tickvals=list(range(r)), ticktext=rows, autorange="reversed", title=dict(text=row_title),
                   tickfont=dict(size=15), showgrid=False, zeroline=False),
    )
    if highlight_row is not None and 0 <= highlight_row < r:
        fig.add_shape(type="rect", x0=-0.5, x1=c - 0.5, y0=highlight_row - 0.5, y1=highlight_row + 0.5,
                      line=dict(color=ROLE_COLORS["Q"], width=4), fillcolor="rgba(0,0,0,0)")
    return fig


def bars(values, labels, *, title: str = "", color: str = ROLE_COLORS["weights"], percent: bool = False,
         y_range=None, axis_title: str = "", hover: str = "") -> go.Figure:
    """A bar per value, labelled by position (duplicates allowed), the value written above each bar.

    Args:
        values: 1-D array. percent=True writes 100·v with one decimal and a % sign.
        labels: one string per bar (tokens are escaped).
        y_range: (lo, hi) or None for automatic.
    """
    v = np.asarray(values, dtype=np.float64)
    names = [escape(x) for x in labels]
    text = [f"{100 * x:.1f}%" for x in v] if percent else [fmt_num(x) for x in v]
    fig = go.Figure(go.Bar(x=list(range(len(v))), y=v, text=text, textposition="outside", marker_color=color,
                           customdata=names, textfont=dict(size=16), cliponaxis=False,
                           hovertemplate=hover or "%{customdata}: %{text}<extra></extra>"))
    fig.update_layout(
        title=dict(text=f"<b>{title}</b>" if title else "", font=dict(size=17), x=0, xanchor="left"),
        height=300, margin=dict(l=10, r=10, t=50 if title else 20, b=40), font=dict(family=FONT, size=14),
        plot_bgcolor="white", paper_bgcolor="white", showlegend=False,
        xaxis=dict(tickvals=list(range(len(v))), ticktext=names, tickfont=dict(size=15)),
        yaxis=dict(title=dict(text=axis_title), range=list(y_range) if y_range else None, gridcolor="#e5e5e5",
                   zerolinecolor="#999", tickformat=".0%" if percent else None),
    )
    return fig


def vector_mix(vectors, weights, output, labels, *, out_label: str, dim_title: str, title: str = "",
               hover: str = "") -> go.Figure:
    """The weighted sum Σ w_j·v_j as grouped bars: each value vector scaled by its weight, and the output.

    Args:
        vectors: (n, d) value vectors; weights: (n,) one query's weights; output: (d,) = weights @ vectors.
        labels: n token labels; out_label: name of the output bar group.
    """
    V = np.asarray(vectors, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    d = V.shape[1]
    x = [str(k + 1) for k in range(d)]
    palette = ["#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#E69F00", "#999999"]
    fig = go.Figure()
    for j, lab in enumerate(labels):
        fig.add_bar(x=x, y=w[j] * V[j], name=f"{w[j] * 100:.1f}% × v({escape(lab)})",
                    marker_color=palette[j % len(palette)], opacity=0.75,
                    hovertemplate=hover or "%{y:.3f}<extra>%{fullData.name}</extra>")
    fig.add_bar(x=x, y=np.asarray(output, dtype=np.float64), name=escape(out_label),
                marker=dict(color=ROLE_COLORS["out"], line=dict(color="#222", width=2)),
                text=[fmt_num(v) for v in output], textposition="outside", textfont=dict(size=15),
                hovertemplate="%{y:.3f}<extra>%{fullData.name}</extra>")
    fig.update_layout(
        barmode="group", title=dict(text=f"<b>{title}</b>" if title else "", font=dict(size=17), x=0),
        height=340, margin=dict(l=10, r=10, t=50 if title else 20, b=40), font=dict(family=FONT, size=14),
        plot_bgcolor="white", paper_bgcolor="white", xaxis=dict(title=dict(text=dim_title)),
        yaxis=dict(gridcolor="#e5e5e5", zerolinecolor="#999"),
        legend=dict(orientation="h", y=-0.25, font=dict(size=13)),
    )
    return fig
