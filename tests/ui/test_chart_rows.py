"""Charts side by side (ui.charts.chart_columns) are one element: a row drawn by ui.plot_component.row, laid out as
st.columns would be (relative widths, or rows of equal columns), each chart with its caption under it."""
from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui import charts, plot_component
from ui import figures as F
from ui.i18n import table

ROOT = Path(__file__).resolve().parents[2]
JA = table("ja")


def test_layout_side_by_side_when_every_chart_fits():
    half = F.column_px(2)
    assert charts.chart_layout([half, half]) == (None, 2, [half, half])


def test_layout_one_under_another_when_a_chart_does_not_fit():
    full = F.column_px(1)
    cols, per_row, widths = charts.chart_layout([F.column_px(2) + 1, 0])
    assert (cols, per_row, widths) == (None, 1, [full, full])


def test_layout_keeps_given_ratios_when_they_fit_else_equal_columns():
    w3, w2 = F.column_px(2, 3 / 5), F.column_px(2, 2 / 5)
    assert charts.chart_layout([w3, w2], ratios=[3, 2]) == ([3.0, 2.0], 2, [w3, w2])
    # the narrow column cannot hold a chart that needs more than 2/5 of the row: equal halves, if they fit
    assert charts.chart_layout([w2 + 1, w2 + 1], ratios=[3, 2])[:2] == (None, 2)


def test_layout_rows_of_at_most_max_cols():
    w = F.column_px(2)
    assert charts.chart_layout([w, w, w, w], max_cols=2) == (None, 2, [w] * 4)


def _rows(at) -> list[dict]:
    return [json.loads(e.proto.bytes) for e in at.get("bidi_component")
            if e.proto.component_name == plot_component.NAME and b'"items"' in e.proto.bytes[:200]]


def test_qkv_page_draws_its_charts_in_rows_with_their_captions():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page("lesson_pages/qkv.py").run()
    assert not at.exception
    rows = _rows(at)
    keys = [[it["key"] for it in r["items"]] for r in rows]
    assert ["qkv.fig.weights", "qkv.fig.out"] in keys  # side by side, as one element
    assert ["qkv.fig.scores", "qkv.fig.scaled"] in keys
    weights_row = rows[keys.index(["qkv.fig.weights", "qkv.fig.out"])]
    assert weights_row["columns"] == [3.0, 2.0]
    caps = {it["key"]: it["caption"] for r in rows for it in r["items"]}
    assert caps["qkv.fig.weights"] == JA["fig.weights.caption"] + JA["num.row_sums"]
    assert caps["qkv.fig.out"] == JA["fig.out.caption"]
    # not a second time as st.caption
    assert JA["fig.weights.caption"] + JA["num.row_sums"] not in [c.value for c in at.caption]
    # 13 charts in 6 elements: X W_Q W_K W_V | Q K V | scores scaled | weights out | bars mix
    assert len(plot_component.charts(at)) == 13
    charts_elements = [e for e in at.get("bidi_component") if e.proto.component_name == plot_component.NAME]
    assert len(charts_elements) == len(rows) == 5  # the frame's own components (browser side, drag relay) aside


def test_a_row_payload_holds_each_chart_as_plot_would_send_it():
    ready = {"data": [{"type": "bar", "y": [1, 2]}], "layout": {"title": {"text": "<b>T</b>"}, "height": 300}}
    single = json.loads(plot_component.payload(ready, {"displaylogo": False}))
    item = plot_component.RowItem("k", ready, {"displaylogo": False}, caption="under")
    got = []
    real_send = plot_component._send
    try:
        plot_component._send = lambda key, data, first: got.append((key, json.loads(data), first))
        plot_component.row([item, plot_component.RowItem("k2", ready, {}, first=True)], columns=[3, 2])
    finally:
        plot_component._send = real_send
    (key, msg, first), = got
    assert key == "row:k+k2" and first is True
    assert msg["columns"] == [3.0, 2.0] and msg["perRow"] == 1
    assert msg["items"][0] == {"key": "k", "caption": "under", "chart": single}
    assert msg["items"][1]["chart"]["first"] is True and msg["items"][1]["caption"] is None


def test_two_rows_of_keyless_charts_do_not_share_a_key():
    def page():
        import numpy as np

        from ui import charts
        for k in range(2):  # different numbers (two identical keyless elements collide in Streamlit itself)
            c1, c2 = charts.chart_columns(0, 0)
            for j, c in enumerate((c1, c2)):
                with c:
                    charts.show_heatmap("scores", np.eye(2) * (2 * k + j + 1), ["a", "b"], ["a", "b"])

    at = AppTest.from_function(page, default_timeout=30).run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(plot_component.charts(at)) == 4
