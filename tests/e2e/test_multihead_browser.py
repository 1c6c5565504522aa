"""The multi-head page in a real browser: one weights heatmap per head, whose numbers are those of a per-head loop
written here (the hand-chosen example's matrices written out), and a change of h (the slider, by key) changes how
many head heatmaps there are and what they show, as the same loop says (four heads: colour maps side by side, the
chosen head with its numbers below), and the link carries it."""
from __future__ import annotations

import numpy as np

from .helpers import APP_READY, assert_no_exception, assert_no_page_errors, sel, wait_chart, wait_for_app

# 犬 が 速く 歩く: 4 columns for the place (1 in the token's own), 4 for its kind (animal, particle, manner, action)
X = np.hstack([np.eye(4), np.eye(4)])
W_Q, W_K = np.zeros((8, 8)), np.zeros((8, 8))
W_Q[1, 0] = W_Q[2, 1] = W_Q[3, 2] = 6.0  # place p asks for place p − 1
W_K[:4, :4] = np.eye(4)                  # a key is its place
W_Q[4:, 4] = 1.0                         # every kind asks the same question …
W_K[4, 4] = 6.0                          # … that only the animal answers


def head_weights(h: int) -> list[np.ndarray]:
    d_k = 8 // h
    out = []
    for i in range(h):
        c = slice(i * d_k, (i + 1) * d_k)
        S = (X @ W_Q[:, c]) @ (X @ W_K[:, c]).T / np.sqrt(d_k)
        E = np.exp(S - S.max(axis=1, keepdims=True))
        out.append(E / E.sum(axis=1, keepdims=True))
    return out


def as_text(M) -> list[str]:
    return [f"{v:.2f}" for v in np.asarray(M).ravel()]


def head_charts(page) -> int:
    return page.locator("[class*='st-key-multihead-fig-weights_'] .js-plotly-plot").count()


def test_one_heatmap_per_head_and_h_changes_them(page, page_errors, app_server):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_server}/multihead?lang=en")
    wait_for_app(page)
    page.locator(f"{sel('multihead.fig.weights_1')} .heatmap-label text").first.wait_for(timeout=30_000)
    for i, W in enumerate(head_weights(2)):
        wait_chart(page, f"multihead.fig.weights_{i + 1}", as_text(W))
    assert head_charts(page) == 2
    one, two = (page.locator(sel(f"multihead.fig.weights_{i}")).bounding_box() for i in (1, 2))
    assert abs(one["y"] - two["y"]) < 1 and two["x"] > one["x"] + one["width"] - 1  # side by side
    h = page.locator(f"{sel('multihead.h')} input[type=range]")
    h.scroll_into_view_if_needed()
    h.focus()
    page.keyboard.press("ArrowRight")  # h: 2 → 4 (the divisors of d_model = 8 are 1, 2, 4, 8)
    page.wait_for_selector(APP_READY, timeout=30_000)
    # four heads with their numbers would not fit one row at 1280: four colour maps side by side (small multiples),
    # each with the loop's weights as its colours, and the chosen head (head 1) below with its numbers
    four = head_weights(4)
    wait_chart(page, "multihead.fig.weights_1", as_text(four[0]), timeout_s=20)
    page.wait_for_function("() => document.querySelectorAll(\"[class*='st-key-multihead-fig-map_'] .js-plotly-plot\")"
                           ".length === 5", timeout=20_000)  # 4 heads and their average
    boxes = [page.locator(sel(f"multihead.fig.map_{i + 1}")).bounding_box() for i in range(4)]
    assert all(abs(b["y"] - boxes[0]["y"]) < 1 for b in boxes), boxes  # one row
    assert all(b["x"] > a["x"] + a["width"] - 1 for a, b in zip(boxes, boxes[1:])), boxes
    for i, W in enumerate(four):
        z = page.locator(f"{sel(f'multihead.fig.map_{i + 1}')} .js-plotly-plot").evaluate("(p) => p.data[0].z")
        np.testing.assert_allclose(np.array(z), W, atol=1e-9, err_msg=f"head {i + 1}")
    assert head_charts(page) == 1  # only the chosen head with numbers
    assert "h=4" in page.url
    assert_no_exception(page)
    assert_no_page_errors(page_errors)
