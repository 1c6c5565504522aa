"""Issue 19 item 10.3: the masks page shows Q, K and V, folded, so a student can recompute its numbers. The test does
that recomputation from the Q, K and V the page draws (softmax written out here) and compares it with the page's own
score, weight and output charts: it fails if the folded matrices are not the ones the section used."""
from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

import lessons.masks as M
from ui import plot_component

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _z(chart) -> np.ndarray:
    """The heatmap's numbers (the last trace; a masked cell, −∞, is NaN there), from plotly.js's typed array."""
    z = chart["figure"]["data"][-1]["z"]
    if isinstance(z, dict):  # {"bdata": base64, "dtype": "f8", "shape": "r, c"}
        a = np.frombuffer(base64.b64decode(z["bdata"]), dtype=np.dtype(z["dtype"]))
        return a.reshape([int(k) for k in str(z["shape"]).split(",")]).astype(float)
    return np.array(z, dtype=float)


def _softmax_rows(S: np.ndarray) -> np.ndarray:
    out = np.zeros_like(S)
    for i, row in enumerate(S):
        keep = ~np.isnan(row)
        if keep.any():
            e = np.exp(row[keep] - row[keep].max())
            out[i, keep] = e / e.sum()
    return out


def _page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("lesson_pages/masks.py").run()
    assert not at.exception
    return at


def test_folded_until_opened():
    at = _page()
    assert not [k for k in plot_component.charts(at) if k.startswith("masks.qkv")]
    assert len([e for e in at.expander if "Q・K・V" in e.label]) == 2


def test_causal_sections_numbers_follow_from_the_q_k_v_shown():
    at = _page()
    at.session_state["masks.qkv_causal"] = True
    at.run()
    shown = plot_component.charts(at)
    Q, K, V = (_z(shown[f"masks.qkv_causal.{n}"]) for n in "QKV")
    n, d = Q.shape
    assert (n, d) == (5, 4) and K.shape == (5, 4) and V.shape == (5, 4)  # 犬 が 公園 を 歩く, d_k = 4
    masked = _z(shown["masks.fig.masked"])
    scaled = Q @ K.T / 2.0  # ÷ √4
    causal = np.tril(np.ones((n, n), dtype=bool))
    assert np.array_equal(np.isnan(masked), ~causal)
    np.testing.assert_allclose(masked[causal], scaled[causal], rtol=1e-12, atol=1e-12)
    weights = _softmax_rows(np.where(causal, scaled, np.nan))
    np.testing.assert_allclose(_z(shown["masks.fig.weights"]), weights, rtol=1e-12, atol=1e-12)


def test_batch_sections_numbers_follow_from_the_q_k_v_shown():
    at = _page()
    at.session_state["masks:state"] = M.with_custom_start(at.session_state["masks:state"], "blocked")
    at.session_state["masks.qkv_batch"] = True
    at.run()
    shown = plot_component.charts(at)
    Q, K, V = (_z(shown[f"masks.qkv_batch.{n}"]) for n in "QKV")
    assert Q.shape == (5, 4)  # 犬 が 走る [PAD] [PAD]
    keep = np.tril(np.ones((5, 5), dtype=bool)) & np.array([True, True, True, False, False])  # causal and padding
    weights = _softmax_rows(np.where(keep, Q @ K.T / 2.0, np.nan))
    np.testing.assert_allclose(_z(shown["masks.fig.batch_weights"]), weights, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_z(shown["masks.fig.batch_out"]), weights @ V, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_z(shown["masks.fig.custom_out"]), np.zeros((5, 4)), atol=0)  # nothing to attend to
