"""The training lab in a real browser: at step 0 the weights heatmap is nearly uniform (each query spreads its weight
evenly over the keys it may see: 1/(i + 1) in row i), and moving the step slider (by keyboard, to the end of
training) changes it toward the right pattern, the previous token: every row i ≥ 1 then puts at least 0.9 on column
i − 1. The step goes into the link."""
from __future__ import annotations

import re

import numpy as np

from .helpers import APP_READY, assert_no_exception, assert_no_page_errors, cells, chart_copies, sel, wait_for_app

N = 8


def as_matrix(texts: list[str]) -> np.ndarray:
    """Cell texts (row by row) as numbers: "0.99", ">0.99", "<0.01", "1", "0"."""
    return np.array([float(re.sub(r"[^0-9.]", "", x) or "nan") for x in texts]).reshape(N, N)


def on_previous(W: np.ndarray) -> np.ndarray:
    return np.array([W[i, i - 1] for i in range(1, N)])


def read_weights(page, before: list[str] | None = None, timeout_s: float = 20.0) -> list[str]:
    """The weights heatmap's cell texts once the app is at rest with one copy of it (and, given ``before``, other
    texts than those)."""
    key = "training.fig.weights"
    for _ in range(int(timeout_s * 10)):
        got = cells(page, key)
        if (page.locator(APP_READY).count() == 1 and chart_copies(page, key) == 1 and len(got) == N * N
                and got != before):
            return got
        page.wait_for_timeout(100)
    raise AssertionError(f"weights heatmap: saw {cells(page, key)}")


def test_the_step_slider_moves_the_weights_toward_the_previous_token(page, page_errors, app_server):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_server}/training?lang=en")
    wait_for_app(page)
    page.locator(f"{sel('training.fig.weights')} .heatmap-label text").first.wait_for(timeout=30_000)
    start_texts = read_weights(page)
    start = as_matrix(start_texts)
    uniform = np.tril(np.ones((N, N))) / np.arange(1, N + 1)[:, None]
    assert np.abs(start - uniform).max() <= 0.06  # written with 2 decimals
    assert on_previous(start).max() < 0.6
    step = page.locator(f"{sel('training.step')} input[type=range]")
    step.scroll_into_view_if_needed()
    step.focus()
    page.keyboard.press("End")  # the last step of training
    end = as_matrix(read_weights(page, start_texts))
    assert on_previous(end).min() >= 0.9, end
    assert np.abs(end - np.eye(N, k=-1))[1:].max() < np.abs(start - np.eye(N, k=-1))[1:].max()
    assert "t=200" in page.url
    step.focus()
    for _ in range(3):
        page.keyboard.press("ArrowLeft")  # back through training: the numbers are kept, nothing trains again
    page.wait_for_function("() => location.search.includes('t=197')", timeout=20_000)
    assert on_previous(as_matrix(read_weights(page))).min() >= 0.9
    assert_no_exception(page)
    assert_no_page_errors(page_errors)
