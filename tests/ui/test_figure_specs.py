"""The figure builders (ui/figures.py, and the scaling lesson's ui/lesson_charts/scaling.py) write their figures as
plain dicts and skip plotly's validation (it cost ~8 ms per heatmap on every rerun). These tests check that the dicts
are already what validation would make of them: building the same figure with validation gives the same JSON, so what
the browser gets is unchanged."""
from __future__ import annotations

import base64
import json
import re
from types import SimpleNamespace

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from ui import figures as F
from ui import numbers
from ui.lesson_charts import scaling as SC

TOKS = ["犬", "<b>x</b>", "犬", "a&b"]


def _cases():
    rng = np.random.default_rng(7)
    M = rng.normal(size=(4, 4))
    masked = M.copy()
    masked[np.triu_indices(4, 1)] = -np.inf
    W = np.abs(M) / np.abs(M).sum(axis=1, keepdims=True)
    yield "plain", F.heatmap_spec(M, TOKS, TOKS)
    yield "all options", F.heatmap_spec(M, TOKS, TOKS, title="T <i>", row_title="rows", col_title="cols",
                                        hover="%{text}", role="Q", highlight_rows=2, cell_px=40)
    yield "weights", F.heatmap_spec(W, TOKS, TOKS, weights=True, highlight_rows=0, title="w")
    yield "masked", F.heatmap_spec(masked, TOKS, TOKS)
    yield "zmax int", F.heatmap_spec(M[:1, :3], ["q"], ["1", "2", "3"], zmax=10)
    yield "zeros", F.heatmap_spec(np.zeros((2, 3)), ["a", "b"], ["1", "2", "3"], highlight_rows=9)
    sixteen = [str(k) for k in range(16)]
    yield "16x16", F.heatmap_spec(rng.normal(size=(16, 16)) * 100, sixteen, sixteen)
    yield "tiny weights", F.heatmap_spec(np.array([[0.004, 0.996], [1.0, 0.0]]), ["a", "b"], ["a", "b"], weights=True)
    yield "bars", F.bars_spec(W[0], TOKS)
    yield "bars percent", F.bars_spec(W[1], TOKS, title="t", percent=True, y_range=(0, 1.12), axis_title="y",
                                      hover="h", color="#123456")
    yield "vector mix", F.vector_mix_spec(M, W[0], W[0] @ M, TOKS, out_label="z <b>", dim_title="dim", title="mix")
    yield "vector mix 10", F.vector_mix_spec(rng.normal(size=(10, 3)), np.full(10, 0.1), np.zeros(3), sixteen[:10],
                                             out_label="z", dim_title="d", hover="%{y}")


@pytest.mark.parametrize("name, spec", list(_cases()), ids=[name for name, _ in _cases()])
def test_validation_changes_nothing(name, spec):
    as_json = go.Figure(spec).to_plotly_json()
    assert "template" not in spec["layout"]
    as_json["layout"].pop("template", None)
    assert _plain(as_json) == _plain(spec)


def test_figure_does_not_follow_the_callers_array():
    v = np.array([0.25, 0.75])
    spec = F.bars_spec(v, ["a", "b"])
    v[0] = 9.0
    np.testing.assert_array_equal(spec["data"][0]["y"], [0.25, 0.75])
    M = np.eye(2)
    spec = F.heatmap_spec(M, ["a", "b"], ["a", "b"])
    M[0, 0] = 5.0
    assert spec["data"][0]["z"][0, 0] == 1.0


# ------------------------------------------------------------------------- the scaling lesson's specs
# The reference: the scaling lesson's go.Figure builders as they were before they were written as specs (ui/figures.py
# at commit 7768709), copied here unchanged but for their names, docstrings and the constants frozen in R. Each spec
# must give the same JSON value for value (ints stay ints, float64 arrays the same bytes), so the charts on the page
# are exactly those of before. Only escape and the value labels are taken from ui (shared by every figure).
R = SimpleNamespace(
    ROLE_COLORS={"X": "#444444", "W": "#7F7F7F", "Q": "#D55E00", "K": "#0072B2", "V": "#009E73", "out": "#CC79A7",
                 "weights": "#E69F00"},
    FONT="Noto Sans CJK JP, Noto Sans JP, Hiragino Sans, Yu Gothic, Meiryo, sans-serif",
    SCALED_STYLE=dict(color="#E69F00", dash="solid"), UNSCALED_STYLE=dict(color="#444444", dash="dash"),
    KEY_SHADES=("#0072B2", "#56B4E9", "#003F63", "#6A9FCC", "#00263D"), escape=F.escape, fmt_num=numbers.chart_num)


def ref_bars_spec(values, labels, *, title: str = "", color: str = R.ROLE_COLORS["weights"], percent: bool = False,
              y_range=None, axis_title: str = "", hover: str = "") -> dict:
    v = np.array(values, dtype=np.float64)  # a copy: the figure must not follow later changes of the caller's array
    names = [R.escape(x) for x in labels]
    text = [f"{100 * x:.1f}%" for x in v.tolist()] if percent else [R.fmt_num(x) for x in v.tolist()]
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
        "margin": {"l": 10, "r": 10, "t": 50 if title else 20, "b": 40}, "font": {"family": R.FONT, "size": 14},
        "xaxis": {"tickfont": {"size": 15}, "tickvals": list(range(len(v))), "ticktext": names}, "yaxis": yaxis,
        "height": 300, "plot_bgcolor": "white", "paper_bgcolor": "white", "showlegend": False,
    }
    return {"data": [trace], "layout": layout}


def ref_bars(values, labels, **kw) -> go.Figure:
    return go.Figure(ref_bars_spec(values, labels, **kw))


def ref_plain_layout(fig: go.Figure, title: str, height: int) -> go.Figure:
    fig.update_layout(
        title=dict(text=f"<b>{title}</b>" if title else "", font=dict(size=19), x=0, xanchor="left"),
        height=height, margin=dict(l=10, r=10, t=80 if title else 50, b=50), font=dict(family=R.FONT, size=16),
        plot_bgcolor="white", paper_bgcolor="white", showlegend=False, bargap=0.25,
    )
    fig.update_annotations(font=dict(size=17))
    fig.update_yaxes(gridcolor="#e5e5e5", zerolinecolor="#888", zerolinewidth=1.5, tickfont=dict(size=15))
    fig.update_xaxes(tickfont=dict(size=16))
    return fig


def ref_scaling_steps(raw, scaled, weights, labels, *, panel_titles, title: str = "", score_limit: float = 10.0,
                  hover: str = "") -> go.Figure:
    from plotly.subplots import make_subplots

    r, s, w = (np.asarray(a, dtype=np.float64) for a in (raw, scaled, weights))
    names = [R.escape(x) for x in labels]
    x = list(range(len(r)))
    top = max(score_limit, float(np.max(np.abs(np.concatenate([r, s]))))) * 1.18
    fig = make_subplots(rows=1, cols=3, subplot_titles=[R.escape(t) for t in panel_titles], horizontal_spacing=0.07)
    for col, vals in ((1, r), (2, s)):
        fig.add_bar(x=x, y=vals, text=[R.fmt_num(v) for v in vals], textposition="outside", cliponaxis=False,
                    marker_color=R.ROLE_COLORS["K"], textfont=dict(size=17), customdata=names,
                    hovertemplate=hover or "%{customdata}: %{text}<extra></extra>", row=1, col=col)
        fig.update_yaxes(range=[-top, top], row=1, col=col)
    fig.add_bar(x=x, y=w, text=[f"{100 * v:.1f}%" for v in w], textposition="outside", cliponaxis=False,
                marker_color=R.ROLE_COLORS["weights"], textfont=dict(size=18), customdata=names,
                hovertemplate=hover or "%{customdata}: %{text}<extra></extra>", row=1, col=3)
    fig.update_yaxes(range=[0, 1.18], tickformat=".0%", row=1, col=3)
    for col in (1, 2, 3):
        fig.update_xaxes(tickvals=x, ticktext=names, row=1, col=col)
    return ref_plain_layout(fig, title, 400)


def ref_value_mix(values, weights, output, labels, dim_labels, *, out_title: str, title: str = "",
              share_text: str = "× {p}") -> go.Figure:
    from plotly.subplots import make_subplots

    V = np.asarray(values, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    z = np.asarray(output, dtype=np.float64)
    n, d = V.shape
    dims = [R.escape(x) for x in dim_labels]
    titles = [f"{R.escape(lab)}<br>{share_text.format(p=f'{100 * wj:.1f}%')}" for lab, wj in zip(labels, w)]
    titles.append(R.escape(out_title))
    fig = make_subplots(rows=1, cols=n + 1, subplot_titles=titles, horizontal_spacing=0.05, shared_yaxes=True)
    top = max(1.0, float(np.max(np.abs(np.concatenate([V.ravel(), z]))))) * 1.25
    lo = -top if (V < 0).any() or (z < 0).any() else 0.0
    for j in range(n + 1):
        vals = V[j] if j < n else z
        color = R.ROLE_COLORS["V"] if j < n else R.ROLE_COLORS["out"]
        fig.add_bar(x=list(range(d)), y=vals, text=[R.fmt_num(v) for v in vals], textposition="outside",
                    cliponaxis=False, marker=dict(color=color, line=dict(color="#222", width=2 if j == n else 0)),
                    textfont=dict(size=16), customdata=dims, hovertemplate="%{customdata}: %{text}<extra></extra>",
                    row=1, col=j + 1)
        fig.update_xaxes(tickvals=list(range(d)), ticktext=dims, row=1, col=j + 1)
    fig.update_yaxes(range=[lo, top])
    fig = ref_plain_layout(fig, title, 380)
    fig.update_layout(margin=dict(t=110 if title else 80))
    return fig


def ref_variance_histograms(centers, density_raw, density_scaled, *, d_k: int, row_titles, x_title: str,
                        y_title: str, title: str = "") -> go.Figure:
    from plotly.subplots import make_subplots

    c = np.asarray(centers, dtype=np.float64)
    width = float(c[1] - c[0]) if c.size > 1 else 1.0
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.16,
                        subplot_titles=[R.escape(t) for t in row_titles])
    grid = np.linspace(c[0] - width / 2, c[-1] + width / 2, 400)
    for row, dens, var, style in ((1, density_raw, float(d_k), R.UNSCALED_STYLE), (2, density_scaled, 1.0,
                                                                                   R.SCALED_STYLE)):
        fig.add_bar(x=c, y=np.asarray(dens, dtype=np.float64), width=width, marker_color=style["color"],
                    opacity=0.8, hovertemplate="%{x:.2f}: %{y:.4f}<extra></extra>", row=row, col=1)
        pdf = np.exp(-grid**2 / (2 * var)) / np.sqrt(2 * np.pi * var)
        fig.add_scatter(x=grid, y=pdf, mode="lines", line=dict(color="#111", width=2),
                        hoverinfo="skip", row=row, col=1)
        fig.update_yaxes(title=dict(text=y_title, font=dict(size=14)), rangemode="tozero", row=row, col=1)
    fig.update_xaxes(title=dict(text=x_title), row=2, col=1)
    fig.update_layout(bargap=0)
    return ref_plain_layout(fig, title, 560)


def ref_saturation_chart(d_ks, max_raw, max_scaled, ent_raw, ent_scaled, *, n_keys: int, current_dk: int,
                     panel_titles, legend, x_title: str, ref_texts, title: str = "") -> go.Figure:
    from plotly.subplots import make_subplots

    x = np.asarray(d_ks, dtype=np.float64)
    fig = make_subplots(rows=1, cols=2, subplot_titles=[R.escape(t) for t in panel_titles], horizontal_spacing=0.09)
    ln_n = float(np.log(n_keys))
    for col, (raw, sc), (uni, one) in ((1, (max_raw, max_scaled), (1 / n_keys, 1.0)),
                                       (2, (ent_raw, ent_scaled), (ln_n, 0.0))):
        for ys, style, name in ((raw, R.UNSCALED_STYLE, legend[0]), (sc, R.SCALED_STYLE, legend[1])):
            fig.add_scatter(x=x, y=np.asarray(ys, dtype=np.float64), mode="lines+markers", name=R.escape(name),
                            line=dict(width=4, **style), marker=dict(size=8, color=style["color"]),
                            showlegend=col == 1, hovertemplate="d_k=%{x}: %{y:.3f}<extra>%{fullData.name}</extra>",
                            row=1, col=col)
        for y, label in ((uni, ref_texts[0]), (one, ref_texts[1])):
            fig.add_hline(y=y, line=dict(color="#999", width=1.5, dash="dot"), annotation_text=R.escape(label),
                          annotation_position="top left", annotation_font=dict(size=14, color="#555"),
                          row=1, col=col)
        # on a log axis a shape's x is the value itself in plotly.py's add_vline, but annotations would need log10:
        # the line gets no annotation; the legend names it instead
        fig.add_vline(x=current_dk, line=dict(color=R.ROLE_COLORS["Q"], width=3), row=1, col=col)
        fig.update_xaxes(type="log", tickvals=[1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
                         title=dict(text=x_title), row=1, col=col)
    fig.add_scatter(x=[None], y=[None], mode="lines", name=R.escape(ref_texts[2].format(d_k=current_dk)),
                    line=dict(color=R.ROLE_COLORS["Q"], width=3), row=1, col=1)
    fig.update_yaxes(range=[0, 1.15], row=1, col=1)
    fig.update_yaxes(range=[-0.05 * ln_n, ln_n * 1.18], row=1, col=2)
    fig = ref_plain_layout(fig, title, 460)
    fig.update_layout(showlegend=True, legend=dict(orientation="h", y=-0.22, x=0, font=dict(size=16)),
                      margin=dict(b=110))
    return fig


def ref_temperature_chart(temperatures, weights, labels, *, current_T: float, marks=(), x_title: str,
                      y_title: str, limit_texts, current_text: str = "T = {T}", title: str = "") -> go.Figure:
    Ts = np.asarray(temperatures, dtype=np.float64)
    W = np.asarray(weights, dtype=np.float64)
    n = W.shape[1]
    fig = go.Figure()
    for j in range(n):
        color = R.KEY_SHADES[j % len(R.KEY_SHADES)]
        dash = ("solid", "dash", "dot", "dashdot", "longdash")[j % 5]
        fig.add_scatter(x=Ts, y=W[:, j], mode="lines", name=R.escape(labels[j]), line=dict(color=color, width=4,
                                                                                         dash=dash),
                        hovertemplate="T=%{x:.2f}: %{y:.1%}<extra>%{fullData.name}</extra>")
    fig.add_hline(y=1 / n, line=dict(color="#777", width=2, dash="dot"), annotation_text=R.escape(limit_texts[1]),
                  annotation_position="bottom right", annotation_font=dict(size=15, color="#444"))
    fig.add_hline(y=1.0, line=dict(color="#777", width=2, dash="dot"), annotation_text=R.escape(limit_texts[0]),
                  annotation_position="top right", annotation_font=dict(size=15, color="#444"))
    # vertical lines carry no annotation (on a log axis it would be placed at 10^x); the legend names them
    fig.add_vline(x=current_T, line=dict(color=R.ROLE_COLORS["weights"], width=3))
    fig.add_scatter(x=[None], y=[None], mode="lines", name=R.escape(current_text.format(T=f"{current_T:g}")),
                    line=dict(color=R.ROLE_COLORS["weights"], width=3))
    for T, text in marks:
        fig.add_vline(x=T, line=dict(color=R.ROLE_COLORS["Q"], width=2, dash="dash"))
        fig.add_scatter(x=[None], y=[None], mode="lines", name=R.escape(text),
                        line=dict(color=R.ROLE_COLORS["Q"], width=2, dash="dash"))
    fig.update_xaxes(type="log", title=dict(text=x_title), tickvals=[0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20])
    fig.update_yaxes(range=[-0.03, 1.15], tickformat=".0%", title=dict(text=y_title))
    fig = ref_plain_layout(fig, title, 460)
    fig.update_layout(showlegend=True, legend=dict(orientation="h", y=-0.25, x=0, font=dict(size=16)),
                      margin=dict(b=110))
    return fig


def ref_temperature_bars(weights, labels, *, limit_zero, limit_inf, legend, title: str = "") -> go.Figure:
    w = np.asarray(weights, dtype=np.float64)
    fig = ref_bars(w, labels, title=title, percent=True, y_range=(0, 1.18))
    fig.data[0].name = R.escape(legend[0])
    x = list(range(len(w)))
    fig.add_scatter(x=[i + 0.3 for i in x], y=np.asarray(limit_zero, dtype=np.float64), mode="markers",
                    name=R.escape(legend[1]),
                    marker=dict(symbol="diamond", size=16, color="#222", line=dict(color="white", width=1)),
                    hovertemplate="%{y:.0%}<extra>%{fullData.name}</extra>")
    fig.add_hline(y=float(np.mean(limit_inf)), line=dict(color="#777", width=2, dash="dot"))
    fig.add_scatter(x=[None], y=[None], mode="lines", name=R.escape(legend[2]),
                    line=dict(color="#777", width=2, dash="dot"))
    fig.update_layout(showlegend=True, height=400, legend=dict(orientation="h", y=-0.2, x=0, font=dict(size=15)),
                      margin=dict(b=100), font=dict(size=16))
    fig.update_xaxes(tickfont=dict(size=16))
    return fig


def _scaling_cases():
    """(id, name of the builder, args, kwargs): the page's own inputs, and the edges (no titles, empty panel titles,
    large scores, negative values, other sizes, one histogram bin, no or several marks, more books than shades)."""
    from attention_core import scaling as S

    books = ["犬の図鑑", "<b>料理</b> & co", "犬の図鑑"]
    values = np.array([[5.0, 1.0, 0.0], [1.0, 5.0, 0.0], [0.0, 0.0, 5.0]])
    mix = S.book_mix([8.0, 2.0, -4.0], 64, values)
    yield "steps page", "scaling_steps", (mix.raw, mix.scaled, mix.weights, books), dict(
        panel_titles=("スコア q·k", "÷ √64 = ÷ 8", "割合 <b>"), title="スコア → ÷√d_k", hover="%{customdata}: %{text}")
    yield "steps bare", "scaling_steps", ([30, 0, 0], [30, 0, 0], [1, 0, 0], ["a", "b", "c"]), dict(
        panel_titles=("", "", ""))
    yield "steps one title", "scaling_steps", ([1.5, -2.0], [1.5, -2.0], [0.97, 0.03], ["a", "b"]), dict(
        panel_titles=("raw", "", "w"), score_limit=1.0, title="t")
    yield "mix page", "value_mix", (values, mix.weights, mix.output, books, ["動物", "料理", "宇宙"]), dict(
        out_title="出力 z", title="3 冊の中身", share_text="× 割合 {p}")
    V = np.array([[-3.0, 1.0], [2.0, 0.5]])
    yield "mix negative", "value_mix", (V, [0.3, 0.7], np.array([0.3, 0.7]) @ V, ["x", "y"], ["d1", "d<2>"]), dict(
        out_title="z")
    V = np.arange(8.0).reshape(4, 2) / 3
    yield "mix 4 books", "value_mix", (V, [0.1, 0.2, 0.3, 0.4], np.array([0.1, 0.2, 0.3, 0.4]) @ V,
                                       list("abcd"), ["p", "q"]), dict(out_title="out", title="T", share_text="{p}")
    for d_k, title in ((64, "q·k のばらつき"), (1, ""), (512, "wide")):
        lab = S.variance_lab(d_k, 2000, 3)
        half = 4.0 * max(np.sqrt(d_k), 1.0)
        centers, raw = S.density_histogram(lab.raw, -half, half, bins=61)
        _, scaled = S.density_histogram(lab.scaled, -half, half, bins=61)
        yield f"variance {d_k}", "variance_histograms", (centers, raw, scaled), dict(
            d_k=d_k, title=title, row_titles=(f"raw {lab.var_raw:.2f}", "scaled <1>"), x_title="値", y_title="密度")
    yield "variance one bin", "variance_histograms", ([0.5], [1.0], [2.0]), dict(d_k=4, row_titles=("", "b"),
                                                                                   x_title="", y_title="")
    for n_keys, current, title in ((8, 64, "重みの最大値 (n = 8)"), (2, 512, ""), (32, 1, "n = 32")):
        cur = S.saturation_curves(S.SATURATION_DKS, n_keys, 50, 1)
        yield f"saturation {n_keys}", "saturation_chart", (cur.d_ks, cur.max_raw, cur.max_scaled, cur.entropy_raw,
                                                           cur.entropy_scaled), dict(
            n_keys=n_keys, current_dk=current, title=title, panel_titles=("最大値", "エントロピー"),
            legend=("割らない", "√d_k で割る <i>"), x_title="d_k",
            ref_texts=("一様 1/n", "1 つに集中", "いまの d_k = {d_k}"))
    T_grid = np.geomspace(0.05, 20.0, 160)
    scores = [8.0, 2.0, -4.0]
    yield "temperature page", "temperature_chart", (T_grid, S.temperature_sweep(scores, T_grid), books), dict(
        current_T=1.0, marks=[(8.0, "T = √d_k")], title="温度", x_title="T", y_title="割合",
        limit_texts=("T → 0", "T → ∞ <b>"), current_text="いまの T = {T}")
    six = [1.0, 0.5, 0.0, -0.5, -1.0, 2.0]
    yield "temperature six", "temperature_chart", (T_grid[:7], S.temperature_sweep(six, T_grid[:7]), list("abcdef")),\
        dict(current_T=0.05, x_title="", y_title="", limit_texts=("", ""))
    yield "temperature marks", "temperature_chart", (T_grid, S.temperature_sweep(scores, T_grid), books), dict(
        current_T=20.0, marks=[(float(np.sqrt(2)), "√2"), (4.0, "√16")], x_title="T", y_title="w",
        limit_texts=("a", "b"))
    for T, title in ((1.0, "T = 1 のとき"), (0.05, "")):
        yield f"temperature bars {T}", "temperature_bars", (S.temperature_softmax(scores, T), books), dict(
            limit_zero=S.argmax_limit(scores), limit_inf=S.uniform_limit(3), title=title,
            legend=("いまの T", "T → 0", "T → ∞"))
    yield "temperature bars tie", "temperature_bars", ([0.5, 0.5], ["a", "a"]), dict(
        limit_zero=[0.5, 0.5], limit_inf=[0.5, 0.5], legend=("now", "0", "inf"))


SCALING_CASES = list(_scaling_cases())
REFERENCE = {"scaling_steps": ref_scaling_steps, "value_mix": ref_value_mix,
             "variance_histograms": ref_variance_histograms, "saturation_chart": ref_saturation_chart,
             "temperature_chart": ref_temperature_chart, "temperature_bars": ref_temperature_bars}
scaling_cases = pytest.mark.parametrize("name, builder, args, kwargs", SCALING_CASES,
                                        ids=[case[0] for case in SCALING_CASES])


def _canonical(fig: go.Figure) -> str:
    """What plotly sends for a figure, keys sorted: equal strings are equal values of equal JSON types."""
    return json.dumps(json.loads(pio.to_json(fig, validate=False)), sort_keys=True, ensure_ascii=False)


def _plain(obj):
    """A spec or to_plotly_json() value with arrays (NumPy or plotly.js typed-array dicts) as (kind, dtype, list)."""
    if isinstance(obj, dict):
        if "bdata" in obj and "dtype" in obj:
            a = np.frombuffer(base64.b64decode(obj["bdata"]), dtype=np.dtype(obj["dtype"]))
            if "shape" in obj:  # a 2-D array (a heatmap's z): "4, 4"
                a = a.reshape([int(k) for k in str(obj["shape"]).split(",")])
            return ("array", a.dtype.str, json.dumps(a.tolist()))  # (NaN equals NaN as text)
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return ("array", obj.dtype.str, json.dumps(obj.tolist()))
    return obj


@scaling_cases
def test_scaling_spec_is_in_validated_form(name, builder, args, kwargs):
    spec = getattr(SC, f"{builder}_spec")(*args, **kwargs)
    validated = go.Figure(spec)
    as_json = validated.to_plotly_json()
    assert "template" not in spec["layout"]
    as_json["layout"].pop("template", None)
    assert _plain(as_json) == _plain(spec)


def _drawn(fig: go.Figure):
    """What a chart draws, without its layout: per trace its kind, points, written texts (tags dropped) and colours;
    the reference lines' positions."""
    def written(x: str):
        # a percentage as the number it says at 1 decimal: the charts now write the ends as the pages do
        # ("100%" exactly 1, "<0.1%" / ">99.9%" near the ends; ui.numbers.percent), the first builders "100.0%"
        text = F.text_lines(x)[0]
        m = re.fullmatch(r"([<>]?)(\d+(?:\.\d)?)%", text)
        if not m:
            return text
        value = float(m.group(2))
        return ("%", 0.0 if m.group(1) == "<" else 100.0 if m.group(1) == ">" else value)

    def plain(v):
        return None if v is None else [None if x is None else (round(float(x), 12) if not isinstance(x, str) else
                                                               written(x)) for x in v]
    traces = []
    for d in fig.data:
        marker, line = getattr(d, "marker", None), getattr(d, "line", None)
        traces.append((d.type, plain(d.x), plain(d.y), plain(getattr(d, "text", None)),
                       marker.color if marker is not None else None,
                       (line.color, line.dash) if line is not None and d.type == "scatter" else None))
    lines = sorted(("v", round(float(sh.x0), 9)) if sh.x0 == sh.x1 else ("h", round(float(sh.y0), 9))
                   for sh in fig.layout.shapes if sh.type == "line")
    return traces, lines


@scaling_cases
def test_scaling_spec_draws_todays_numbers(name, builder, args, kwargs):
    """The charts were laid out anew for a 1280×720 projector (issue 9: type sizes, margins, label places, the
    limits of the temperature chart in its legend, each saturation panel labelling its own lines): what they draw
    — every bar, point, number written and reference line — is that of the reference builders (the charts as first
    written); the spec may only add legend entries (traces without points)."""
    spec = getattr(SC, f"{builder}_spec")(*args, **kwargs)
    now_traces, now_lines = _drawn(go.Figure(spec))
    ref_traces, ref_lines = _drawn(REFERENCE[builder](*args, **kwargs))
    drawn = [t for t in now_traces if t[1] != [None]]
    assert drawn == [t for t in ref_traces if t[1] != [None]]
    assert now_lines == ref_lines
    ref_legend_only = [t for t in ref_traces if t[1] == [None]]
    assert [t for t in now_traces if t[1] == [None]][:len(ref_legend_only)] == ref_legend_only


@pytest.mark.parametrize("rows, cols, spacing, titles, shared", [
    (1, 2, 0.09, ["a", "b"], False), (1, 3, 0.07, ["a", "", "c"], False), (1, 3, 0.07, ["", "", ""], False),
    (1, 2, 0.05, ["a", "b"], True), (1, 4, 0.05, ["a", "b", "c", "d"], True), (1, 6, 0.05, list("abcdef"), True),
    (2, 1, 0.16, ["a", "b"], True), (2, 1, 0.16, ["", "b"], False), (3, 1, 0.1, ["a", "b", "c"], True),
    (1, 1, 0.1, ["a"], True), (1, 3, 0.07, ["a"], False),
])
def test_subplot_grid_is_what_make_subplots_makes(rows, cols, spacing, titles, shared):
    from plotly.subplots import make_subplots

    along = ({"horizontal_spacing": spacing, "shared_yaxes": shared} if rows == 1
             else {"vertical_spacing": spacing, "shared_xaxes": shared})
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles, **along)
    expected = fig.to_plotly_json()["layout"]
    expected.pop("template", None)
    axes, annotations, cells = SC._subplot_grid(rows, cols, spacing=spacing, titles=titles, shared=shared)
    got = dict(axes, annotations=annotations) if annotations else axes
    assert _plain(got) == _plain({k: v for k, v in expected.items() if v != ()})
    for k, cell in enumerate(cells):  # the cells in reading order are the grid's (row, col) references
        ref = fig.get_subplot(k // cols + 1, k % cols + 1)
        assert (cell["x"], cell["y"]) == (ref.xaxis.plotly_name.replace("axis", ""),
                                          ref.yaxis.plotly_name.replace("axis", ""))
        assert cell["xaxis"] is axes[ref.xaxis.plotly_name] and cell["yaxis"] is axes[ref.yaxis.plotly_name]


def test_subplot_grid_refuses_a_two_dimensional_grid():
    with pytest.raises(ValueError, match="rows=2, cols=2"):
        SC._subplot_grid(2, 2, spacing=0.1)


def test_scaling_specs_do_not_follow_the_callers_arrays():
    raw, w = np.array([1.0, 2.0]), np.array([0.4, 0.6])
    spec = SC.scaling_steps_spec(raw, raw, w, ["a", "b"], panel_titles=("", "", ""))
    raw[0], w[0] = 9.0, 9.0
    assert [d["y"][0] for d in spec["data"]] == [1.0, 1.0, 0.4]
    c = np.array([0.0, 1.0])
    spec = SC.variance_histograms_spec(c, c, c, d_k=1, row_titles=("", ""), x_title="", y_title="")
    c[0] = 5.0
    assert spec["data"][0]["x"][0] == 0.0 and spec["data"][0]["y"][0] == 0.0


# ------------------------------------------------------------------------- what Streamlit sends (ui/charts.py)
def _sent(at) -> dict:
    """What each chart of an AppTest run received, by key: st.plotly_chart's spec JSON, and for the page path's
    in-place charts (ui.plot_component) the figure in their payload, with the default template put back as plot.js
    puts it back in the browser."""
    from ui import plot_component

    specs = {c.key: json.loads(c.proto.spec) for c in at.get("plotly_chart")}
    for key, msg in plot_component.charts(at).items():
        assert key not in specs, key
        specs[key] = msg["figure"]
    return specs


def _page_with_both_paths():
    """Each figure drawn twice: its spec as a validated go.Figure through st.plotly_chart, and the page path of
    ui/charts.py (plain dict → ready figure, heatmaps cached, drawn by ui.plot_component)."""
    import numpy as np
    import plotly.graph_objects as go
    import streamlit as st

    from ui import charts
    from ui import figures as F
    from ui.i18n import t

    M = np.array([[1.0, -np.inf, 0.5], [2.0, 0.0, -3.0]])
    rows, cols = ["犬", "<b>"], ["1", "2", "3"]
    W = np.array([[0.2, 0.3, 0.5], [0.6, 0.4, 0.0]])
    names = dict(title=t("fig.X.title"), row_title=t("fig.X.rows"), col_title=t("fig.X.cols"),
                 hover=t("fig.X.hover"))
    st.plotly_chart(go.Figure(F.heatmap_spec(M, rows, cols, role="X", highlight_rows=1, **names)), key="heat:slow")
    charts.show_heatmap("X", M, rows, cols, role="X", highlight_rows=1, key="heat:fast")
    charts.show_heatmap("X", M.copy(), list(rows), list(cols), role="X", highlight_rows=1, key="heat:cached")
    names = dict(title=t("fig.weights.title"), row_title=t("fig.weights.rows"), col_title=t("fig.weights.cols"),
                 hover=t("fig.weights.hover"))
    st.plotly_chart(go.Figure(F.heatmap_spec(W, rows, cols, weights=True, **names)), key="weights:slow")
    charts.show_heatmap("weights", W, rows, cols, weights=True, key="weights:fast")
    kw = dict(title="t <i>", percent=True, y_range=(0, 1.12), hover="h")
    st.plotly_chart(go.Figure(F.bars_spec(W[0], cols, **kw)), key="bars:slow")
    charts.show_figure(F.bars_spec(W[0], cols, **kw), key="bars:fast")
    kw = dict(out_label="z", dim_title="dim", title="mix")
    st.plotly_chart(go.Figure(F.vector_mix_spec(M[:, :2].T, W[0, :2], W[0, :2] @ M[:, :2].T, ["a", "b"], **kw)),
                    key="mix:slow")
    charts.show_figure(F.vector_mix_spec(M[:, :2].T, W[0, :2], W[0, :2] @ M[:, :2].T, ["a", "b"], **kw),
                     key="mix:fast")


def test_streamlit_sends_the_same_json_on_the_page_path():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_page_with_both_paths, default_timeout=30).run()
    assert not at.exception, [e.message for e in at.exception]
    assert len(at.get("plotly_chart")) == 4
    specs = _sent(at)
    assert len(specs) == 9
    for name in ("heat", "weights", "bars", "mix"):
        assert specs[f"{name}:fast"] == specs[f"{name}:slow"], name
    assert specs["heat:cached"] == specs["heat:slow"]
    assert specs["heat:slow"]["layout"]["template"], "the default template is part of what is sent"


def _changing_page():
    """One heatmap whose numbers follow session_state["n"], drawn by the page path."""
    import numpy as np
    import streamlit as st

    from ui import charts

    n = st.session_state.setdefault("n", 0)
    charts.show_heatmap("weights", np.full((2, 2), 0.25 * n), ["犬", "<b>"], ["犬", "<b>"], weights=True, key="w")


def test_the_page_path_sends_a_keyed_in_place_chart():
    """The chart element keeps its id across reruns (so the browser keeps the element and redraws it in place with
    Plotly.react) while its payload follows the figure; an unchanged figure is the same bytes; the template is not
    on the wire (plot.js adds it), the toolbar config and the accessible name are."""
    from streamlit.testing.v1 import AppTest

    from ui import charts, plot_component
    from ui.i18n import t

    def element(at):
        [el] = [e for e in at.get("bidi_component") if e.proto.component_name == plot_component.NAME]
        return el.proto.id, el.proto.bytes

    at = AppTest.from_function(_changing_page, default_timeout=30).run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.get("plotly_chart")
    id0, sent0 = element(at)
    assert plot_component.charts(at).keys() == {"w"}
    wire = json.loads(sent0)
    assert "template" not in wire["figure"]["layout"] and wire["theme"] == plot_component.STREAMLIT_THEME
    assert wire["config"] == {**charts.PLOT_CONFIG, "locale": "al-ja",
                              "locales": {"al-ja": {"dictionary": {
                                  "Download plot as a PNG": t("fig.toolbar.download_png", lang="ja"),
                                  "Reset axes": t("fig.toolbar.reset_axes", lang="ja"),
                                  "Taking snapshot - this may take a few seconds": t("fig.toolbar.snapshot",
                                                                                     lang="ja")}}}}
    assert wire["label"] == t("fig.weights.title") and "<" not in wire["label"]
    assert plot_component.charts(at)["w"]["figure"]["layout"]["template"] == pio.templates["streamlit"].to_plotly_json()
    at.run()
    assert element(at) == (id0, sent0)  # same figure: same element, same bytes
    at.session_state["n"] = 1
    at.run()
    id1, sent1 = element(at)
    assert id1 == id0 and sent1 != sent0  # new numbers: same element, new payload
    assert "0.25" in json.dumps(plot_component.charts(at)["w"]["figure"]["data"][0]["text"])


def test_the_payload_without_orjson_is_the_same_figure(monkeypatch):
    """orjson is optional: without it the payload's figure comes from plotly.io.to_json and decodes the same."""
    import streamlit  # noqa: F401  (registers the "streamlit" plotly template, as in the app)

    from ui import charts, plot_component

    rng = np.random.default_rng(3)
    M = rng.normal(size=(3, 4))
    M[0, 1] = -np.inf
    ready = charts._ready(F.heatmap_spec(M, TOKS[:3], TOKS, title="<b>T</b> &amp;", hover="%{text}", weights=False))
    fast = plot_component.decode(plot_component.payload(ready, charts.PLOT_CONFIG))
    monkeypatch.setattr(plot_component, "_orjson", None)
    plot_component._payloads.clear()
    slow = plot_component.decode(plot_component.payload(ready, charts.PLOT_CONFIG))
    plot_component._payloads.clear()
    assert fast == slow
    assert fast["label"] == "T &"
    assert fast["figure"] == json.loads(pio.to_json(ready, validate=False))


def _scaling_page(cases):
    """Each scaling chart twice: as a validated go.Figure through st.plotly_chart, and as its spec through
    charts.show_figure, the page's path."""
    import streamlit as st

    from ui import charts

    for name, reference, spec, args, kwargs in cases:
        st.plotly_chart(reference(*args, **kwargs), key=f"{name}:before")
        charts.show_figure(spec(*args, **kwargs), key=f"{name}:now")


def test_streamlit_sends_the_same_json_for_the_scaling_specs():
    from streamlit.testing.v1 import AppTest

    # "before": the same spec as a go.Figure validated property by property, through st.plotly_chart
    cases = [(name, lambda *a, builder=builder, **k: go.Figure(getattr(SC, f"{builder}_spec")(*a, **k)),
              getattr(SC, f"{builder}_spec"), args, kwargs) for name, builder, args, kwargs in SCALING_CASES]
    at = AppTest.from_function(_scaling_page, args=(cases,), default_timeout=30).run()
    assert not at.exception, [e.message for e in at.exception]
    assert len(at.get("plotly_chart")) == len(cases)
    specs = _sent(at)
    assert len(specs) == 2 * len(cases)
    for name, *_ in cases:
        assert specs[f"{name}:now"] == specs[f"{name}:before"], name


def test_show_figure_takes_specs_only():
    from ui import charts

    with pytest.raises(TypeError, match=r"\*_spec"):
        charts.show_figure(go.Figure(F.bars_spec([0.5, 0.5], ["a", "b"])))


def test_the_training_loss_axis_fits_the_curves():
    """A loss that settles at 0.02 gets an axis from just below 0.02 (a new-user trial: the axis began at 0.001 and
    the whole fall took the top half of the plot); ticks 1-2-5 in a narrow range, powers of ten in a wide one."""
    import math

    from ui.lesson_charts.training import LOSS_FLOOR, log_axis

    (lo, hi), values, texts = log_axis(0.02, 2.08)
    assert 10 ** lo < 0.02 < 10 ** (lo + 0.2) and 10 ** hi > 2.08
    assert texts == ["0.02", "0.05", "0.1", "0.2", "0.5", "1", "2"] and values[0] == 0.02
    (lo, hi), values, texts = log_axis(1e-5, 3.0)
    assert texts == ["10⁻⁵", "10⁻⁴", "0.001", "0.01", "0.1", "1"]
    (lo, _), _, _ = log_axis(0.0, 3.0)  # a loss of 0 sits on the floor
    assert math.isclose(10 ** (lo + 0.1), LOSS_FLOOR)
