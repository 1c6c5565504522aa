"""The scaling lesson's figure builders (ui/lesson_charts/scaling.py), tested as plain functions: each spec is
read as a validated go.Figure.

Numbers written on the figures are checked against hand arithmetic: shares of softmax([1, 0.25, -0.5]) are
59.0 % / 27.9 % / 13.2 % (e^1 = 2.718282, e^0.25 = 1.284025, e^-0.5 = 0.606531, sum 4.608838); the normal
density peak is 1/√(2π·σ²): 0.398942 for σ² = 1 and 0.049868 for σ² = 64; ln 8 = 2.079442.
"""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest

from ui import figures as F
from ui.lesson_charts import scaling as SC

W = [0.589798, 0.278600, 0.131602]
LABELS = ["犬の図鑑", "<b>料理</b>", "犬の図鑑"]  # HTML must be shown as text; equal titles must not merge


def figure(spec_builder, *args, **kwargs) -> go.Figure:
    return go.Figure(spec_builder(*args, **kwargs))


def bars_of(fig):
    return [d for d in fig.data if isinstance(d, go.Bar)]


def test_scaling_steps_three_panels_by_position():
    fig = figure(SC.scaling_steps_spec, [8, 2, -4], [1, 0.25, -0.5], W, LABELS, panel_titles=("raw", "÷8", "shares"),
                 title="T")
    raw, scaled, shares = bars_of(fig)
    assert list(raw.x) == [0, 1, 2] and list(shares.x) == [0, 1, 2]  # by position: the two 犬の図鑑 stay apart
    assert list(raw.text) == ["8.00", "2.00", "−4.00"]
    assert list(scaled.text) == ["1.00", "0.25", "−0.50"]
    assert list(shares.text) == ["59.0%", "27.9%", "13.2%"]
    assert raw.marker.color == F.ROLE_COLORS["K"] and shares.marker.color == F.ROLE_COLORS["weights"]
    ticks = fig.layout.xaxis.ticktext
    assert ticks == ("犬の図鑑", "&lt;b&gt;料理&lt;/b&gt;", "犬の図鑑")
    # both score panels share one fixed range, so dividing by 8 is seen as shorter bars
    assert fig.layout.yaxis.range == fig.layout.yaxis2.range
    assert fig.layout.yaxis.range[0] == -fig.layout.yaxis.range[1] >= -10 * 1.2
    assert tuple(fig.layout.yaxis3.range) == (0, 1.18)
    assert [a.text for a in fig.layout.annotations] == ["raw", "÷8", "shares"]


def test_scaling_steps_range_grows_for_large_scores():
    fig = figure(SC.scaling_steps_spec, [30, 0, 0], [30, 0, 0], [1, 0, 0], ["a", "b", "c"], panel_titles=("", "", ""))
    assert fig.layout.yaxis.range[1] >= 30


def test_value_mix_panels_and_output():
    V = np.array([[5, 1, 0], [1, 5, 0], [0, 0, 5]], dtype=float)
    z = np.array(W) @ V  # [3.227590, 1.982798, 0.658010]
    fig = figure(SC.value_mix_spec, V, W, z, LABELS, ["動物", "料理", "宇宙"], out_title="出力", share_text="× {p}")
    b = bars_of(fig)
    assert len(b) == 4
    assert [d.marker.color for d in b] == [F.ROLE_COLORS["V"]] * 3 + [F.ROLE_COLORS["out"]]
    assert list(b[3].text) == ["3.23", "1.98", "0.66"]
    titles = [a.text for a in fig.layout.annotations]
    assert titles[0] == "犬の図鑑<br>× 59.0%" and titles[1].startswith("&lt;b&gt;") and titles[3] == "出力"
    # one y range for every panel (shared), covering the largest bar
    assert fig.layout.yaxis.range[1] >= 5 and fig.layout.yaxis.range[0] == 0


def test_variance_histograms_reference_curves():
    centers = np.linspace(-10, 10, 21)
    fig = figure(SC.variance_histograms_spec, centers, np.zeros(21), np.zeros(21), d_k=64, row_titles=("a", "b"),
                 x_title="x", y_title="y")
    lines = [d for d in fig.data if isinstance(d, go.Scatter)]
    assert len(bars_of(fig)) == 2 and len(lines) == 2
    assert max(lines[0].y) == pytest.approx(1 / math.sqrt(2 * math.pi * 64), rel=1e-3)  # 0.049868
    assert max(lines[1].y) == pytest.approx(0.398942, rel=1e-3)
    assert bars_of(fig)[1].marker.color == F.ROLE_COLORS["weights"]


def test_saturation_chart_reference_lines_and_current_dk():
    d = [1, 2, 4]
    fig = figure(SC.saturation_chart_spec, d, [0.3, 0.4, 0.5], [0.3, 0.31, 0.32], [1.8, 1.6, 1.2], [1.8, 1.79, 1.78],
                 n_keys=8, current_dk=2, panel_titles=("max", "H"), legend=("without", "with"), x_title="d_k",
                 ref_texts=("uniform", "one-hot", "now {d_k}"))
    ys = sorted(round(s.y0, 6) for s in fig.layout.shapes if s.type == "line" and s.y0 == s.y1)
    assert ys == sorted([0.125, 1.0, round(math.log(8), 6), 0.0])  # 1/n, 1, ln n, 0
    xs = [s.x0 for s in fig.layout.shapes if s.x0 == s.x1 and s.type == "line"]
    assert xs == [2, 2]
    names = [d.name for d in fig.data if d.showlegend is not False]
    assert names == ["without", "with", "now 2"]
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis2.type == "log"


def test_temperature_chart_and_bars():
    Ts = np.array([0.1, 1.0, 10.0])
    Wt = np.array([[1.0, 0.0, 0.0], [0.66, 0.24, 0.10], [0.37, 0.33, 0.30]])
    fig = figure(SC.temperature_chart_spec, Ts, Wt, LABELS, current_T=1.0, marks=[(8.0, "√d_k")], x_title="T",
                 y_title="w", limit_texts=("T→0", "T→∞"), current_text="T = {T}")
    lines = [d for d in fig.data if isinstance(d, go.Scatter) and d.x[0] is not None]
    assert len(lines) == 3 and lines[1].name == "&lt;b&gt;料理&lt;/b&gt;"
    hl = sorted(round(s.y0, 6) for s in fig.layout.shapes if s.y0 == s.y1)
    assert hl == [round(1 / 3, 6), 1.0]
    assert sorted(s.x0 for s in fig.layout.shapes if s.x0 == s.x1) == [1.0, 8.0]
    # legend-only entries: the vertical lines, then the two limits (named in the legend, never on the chart); the
    # √ is drawn in a Latin font (a span around it)
    assert [F.text_lines(d.name)[0] for d in fig.data if d.x[0] is None] == ["T = 1", "√d_k", "T→0", "T→∞"]
    assert not [a for a in fig.layout.annotations]

    fb = figure(SC.temperature_bars_spec, [0.659001, 0.242433, 0.098566], LABELS, limit_zero=[1, 0, 0],
                limit_inf=[1 / 3] * 3, legend=("now", "T→0", "T→∞"))
    assert list(fb.data[0].text) == ["65.9%", "24.2%", "9.9%"]
    assert list(fb.data[1].y) == [1, 0, 0]
    assert [round(s.y0, 6) for s in fb.layout.shapes] == [round(1 / 3, 6)]


def test_on_a_phone_the_saturation_panels_stack_at_the_column_width():
    # 358 px: the main column at 390×844. Side by side the two panels need SATURATION_LEAST_PX (760): the chart
    # was 760 px wide in a scroll box, its title and legend cut (a fresh-user trial, 2026-12-06).
    d = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    curve = np.linspace(0.3, 0.9, 10)
    title = "Largest weight and entropy (n = 8, mean of 1,000 draws)"
    spec = SC.saturation_chart_spec(d, curve, curve, curve, curve, n_keys=8, current_dk=64, title=title,
                                    panel_titles=("max", "H"), legend=("without", "with"), x_title="d_k",
                                    ref_texts=("uniform {v}", "one-hot {v}", "now {d_k}"), width_px=358)
    layout = spec["layout"]
    assert "width" not in layout  # the column's width: no box of its own to scroll
    assert layout["xaxis"]["domain"] == layout["xaxis2"]["domain"] == [0.0, 1.0]
    top, bottom = layout["yaxis"]["domain"], layout["yaxis2"]["domain"]
    assert bottom[1] < top[0]  # the entropy panel under the largest weight's
    assert layout["xaxis"]["tickvals"] == [1, 4, 16, 64, 256]
    assert "title" not in layout["xaxis"] and layout["xaxis2"]["title"]["text"] == "d_k"  # once, at the bottom
    wide = SC.saturation_chart_spec(d, curve, curve, curve, curve, n_keys=8, current_dk=64, title=title,
                                    panel_titles=("max", "H"), legend=("without", "with"), x_title="d_k",
                                    ref_texts=("uniform {v}", "one-hot {v}", "now {d_k}"), width_px=820)
    assert wide["layout"]["yaxis"]["domain"] == wide["layout"]["yaxis2"]["domain"] == [0.0, 1.0]  # side by side
