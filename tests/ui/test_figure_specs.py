"""The Q·K·V figure builders write their figures as plain dicts and skip plotly's validation (it cost ~8 ms per
heatmap on every rerun). These tests check that the dicts are already what validation would make of them: building
the same figure with validation gives the same JSON, so what the browser gets is unchanged. And a builder's figure
still validates later edits."""
from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from ui import figures as F

TOKS = ["犬", "<b>x</b>", "犬", "a&b"]


def _json(fig) -> dict:
    return json.loads(pio.to_json(fig, validate=False))


def _revalidated(fig: go.Figure) -> go.Figure:
    """The same figure built the ordinary way: every property validated."""
    return go.Figure(fig.to_plotly_json())


def _cases():
    rng = np.random.default_rng(7)
    M = rng.normal(size=(4, 4))
    masked = M.copy()
    masked[np.triu_indices(4, 1)] = -np.inf
    W = np.abs(M) / np.abs(M).sum(axis=1, keepdims=True)
    yield "plain", F.heatmap(M, TOKS, TOKS)
    yield "all options", F.heatmap(M, TOKS, TOKS, title="T <i>", row_title="rows", col_title="cols", hover="%{text}",
                                   role="Q", highlight_row=2, cell_px=40)
    yield "weights", F.heatmap(W, TOKS, TOKS, weights=True, highlight_row=0, title="w")
    yield "masked", F.heatmap(masked, TOKS, TOKS)
    yield "zmax int", F.heatmap(M[:1, :3], ["q"], ["1", "2", "3"], zmax=10)
    yield "zeros", F.heatmap(np.zeros((2, 3)), ["a", "b"], ["1", "2", "3"], highlight_row=9)
    yield "16x16", F.heatmap(rng.normal(size=(16, 16)) * 100, [str(k) for k in range(16)], [str(k) for k in range(16)])
    yield "bars", F.bars(W[0], TOKS)
    yield "bars percent", F.bars(W[1], TOKS, title="t", percent=True, y_range=(0, 1.12), axis_title="y", hover="h",
                                 color="#123456")
    yield "vector mix", F.vector_mix(M, W[0], W[0] @ M, TOKS, out_label="z <b>", dim_title="dim", title="mix")
    yield "vector mix 10", F.vector_mix(rng.normal(size=(10, 3)), np.full(10, 0.1), np.zeros(3), [str(k) for k in
                                        range(10)], out_label="z", dim_title="d", hover="%{y}")


@pytest.mark.parametrize("name, fig", list(_cases()), ids=[name for name, _ in _cases()])
def test_validation_changes_nothing(name, fig):
    assert _json(fig) == _json(_revalidated(fig))


def test_figure_keeps_validating_later_edits():
    fig = F.heatmap(np.eye(2), ["a", "b"], ["a", "b"])
    with pytest.raises(ValueError):
        fig.update_layout(not_a_property=1)
    with pytest.raises(ValueError):
        fig.update_traces(not_a_property=1)
    fig.update_layout(height=123)
    assert fig.layout.height == 123


def test_figure_does_not_follow_the_callers_array():
    v = np.array([0.25, 0.75])
    fig = F.bars(v, ["a", "b"])
    v[0] = 9.0
    np.testing.assert_array_equal(np.asarray(fig.data[0].y), [0.25, 0.75])
    M = np.eye(2)
    fig = F.heatmap(M, ["a", "b"], ["a", "b"])
    M[0, 0] = 5.0
    assert np.asarray(fig.data[0].z)[0, 0] == 1.0


# ------------------------------------------------------------------------- what Streamlit sends (ui/draw.py)
def _page_with_both_paths():
    """Each figure drawn twice: the public builder's go.Figure through st.plotly_chart, and the page path of
    ui/draw.py (plain dict → ready figure, heatmaps cached)."""
    import numpy as np
    import streamlit as st

    from ui import draw
    from ui import figures as F
    from ui.i18n import t

    M = np.array([[1.0, -np.inf, 0.5], [2.0, 0.0, -3.0]])
    rows, cols = ["犬", "<b>"], ["1", "2", "3"]
    W = np.array([[0.2, 0.3, 0.5], [0.6, 0.4, 0.0]])
    names = dict(title=t("fig.X.title"), row_title=t("fig.X.rows"), col_title=t("fig.X.cols"),
                 hover=t("fig.X.hover"))
    st.plotly_chart(F.heatmap(M, rows, cols, role="X", highlight_row=1, **names), key="heat:slow")
    draw.show_heatmap("X", M, rows, cols, role="X", highlight_row=1, key="heat:fast")
    draw.show_heatmap("X", M.copy(), list(rows), list(cols), role="X", highlight_row=1, key="heat:cached")
    names = dict(title=t("fig.weights.title"), row_title=t("fig.weights.rows"), col_title=t("fig.weights.cols"),
                 hover=t("fig.weights.hover"))
    st.plotly_chart(F.heatmap(W, rows, cols, weights=True, **names), key="weights:slow")
    draw.show_heatmap("weights", W, rows, cols, weights=True, key="weights:fast")
    kw = dict(title="t <i>", percent=True, y_range=(0, 1.12), hover="h")
    st.plotly_chart(F.bars(W[0], cols, **kw), key="bars:slow")
    draw.show_figure(F.bars_spec(W[0], cols, **kw), key="bars:fast")
    kw = dict(out_label="z", dim_title="dim", title="mix")
    st.plotly_chart(F.vector_mix(M[:, :2].T, W[0, :2], W[0, :2] @ M[:, :2].T, ["a", "b"], **kw), key="mix:slow")
    draw.show_figure(F.vector_mix_spec(M[:, :2].T, W[0, :2], W[0, :2] @ M[:, :2].T, ["a", "b"], **kw),
                     key="mix:fast")


def test_streamlit_sends_the_same_json_on_the_page_path():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_page_with_both_paths, default_timeout=30).run()
    assert not at.exception, [e.message for e in at.exception]
    specs = {c.key: json.loads(c.proto.spec) for c in at.get("plotly_chart")}
    assert len(specs) == 9
    for name in ("heat", "weights", "bars", "mix"):
        assert specs[f"{name}:fast"] == specs[f"{name}:slow"], name
    assert specs["heat:cached"] == specs["heat:slow"]
    assert specs["heat:slow"]["layout"]["template"], "the default template is part of what is sent"
