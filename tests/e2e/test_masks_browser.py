"""Masks in a real browser: the causal switch of the Q·K·V page turns the upper triangle of the weights to 0, the
masks page's switch does the same, and a custom mask that blocks everything says so in words.

Expected numbers are computed here from the definition (softmax over the allowed keys of q·k/√d_k) with the
「犬が歩く」 matrices written out (seed 000's example as the Q·K·V lesson gives it)."""
from __future__ import annotations

import numpy as np

from .helpers import (
    APP_READY,
    assert_no_exception,
    assert_no_page_errors,
    cells,
    hover_label,
    sel,
    wait_chart,
    wait_for_app,
)

DOG_X = np.array([[1, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 1]], dtype=float)
DOG_WQ = np.array([[1, 2, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 0, 1], [1, 0, 0, 1, 0]], dtype=float)
DOG_WK = np.array([[2, 2, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 0, 1], [0, 0, 0, 1, 0]], dtype=float)


def masked_weights(X, W_Q, W_K, allowed) -> np.ndarray:
    S = (X @ W_Q) @ (X @ W_K).T / np.sqrt(W_Q.shape[1])
    W = np.zeros_like(S)
    for i in range(S.shape[0]):
        keys = np.flatnonzero(allowed[i])
        if keys.size:
            e = np.exp(S[i, keys] - S[i, keys].max())
            W[i, keys] = e / e.sum()
    return W


def as_text(M) -> list[str]:
    return [f"{v:.2f}" for v in np.asarray(M).ravel()]


def open_page(page, url: str, chart: str) -> None:
    page.goto(url)
    wait_for_app(page)
    page.locator(f"{sel(chart)} .heatmap-label text").first.wait_for(timeout=20_000)


def click_toggle(page, key: str) -> None:
    page.locator(sel(key)).locator("label").first.click()
    page.wait_for_timeout(150)
    page.wait_for_selector(APP_READY, timeout=20_000)


def test_causal_switch_on_the_qkv_page_zeroes_the_upper_triangle(page, page_errors, app_server):
    open_page(page, app_server + "/qkv", "qkv.fig.weights")
    full = masked_weights(DOG_X, DOG_WQ, DOG_WK, np.ones((3, 3), dtype=bool))
    wait_chart(page, "qkv.fig.weights", as_text(full))
    assert page.locator(sel("qkv.fig.masked")).count() == 0  # off by default
    click_toggle(page, "qkv.causal")
    causal = masked_weights(DOG_X, DOG_WQ, DOG_WK, np.tril(np.ones((3, 3), dtype=bool)))
    got = wait_chart(page, "qkv.fig.weights", as_text(causal))
    assert [got[1], got[2], got[5]] == ["0.00"] * 3  # the upper-right triangle, exactly 0
    assert got[0] == "1.00"
    masked = cells(page, "qkv.fig.masked")  # the grey "−∞" cells are a trace of their own, under the numbers
    S = (DOG_X @ DOG_WQ) @ (DOG_X @ DOG_WK).T / np.sqrt(5)
    lower = [f"{S[i, j]:.2f}".replace("-", "−") for i in range(3) for j in range(3) if j <= i]
    assert sorted(masked) == sorted(["−∞"] * 3 + lower)
    assert "c=1" in page.url  # carried in the link
    assert_no_exception(page)
    assert_no_page_errors(page_errors)


def test_a_masked_cell_and_an_open_cell_say_their_value_on_hover(page, page_errors, app_server):
    """The grey −∞ cells are a trace under the numbers' trace, which has a gap (NaN) there: the pointer on one showed
    the gap's label ("masked score" with no value; a new-user trial). Each cell now answers with the trace that
    draws it, on the Q·K·V page's masked scores and the masks page's additive mask (0 or −∞)."""
    open_page(page, app_server + "/qkv?lang=en", "qkv.fig.weights")
    click_toggle(page, "qkv.causal")
    page.locator(f"{sel('qkv.fig.masked')} .heatmap-label text").first.wait_for(timeout=20_000)
    texts = cells(page, "qkv.fig.masked")
    k = texts.index("−∞")  # the first grey cell in page order (its trace is drawn first)
    label = hover_label(page, "qkv.fig.masked", k)
    assert "−∞" in label, label
    open_page(page, app_server + "/masks?lang=en", "masks.fig.weights")
    page.locator(f"{sel('masks.fig.mask_add')} .heatmap-label text").first.wait_for(timeout=20_000)  # drawn
    zeros = [i for i, x in enumerate(cells(page, "masks.fig.mask_add")) if x == "0"]
    label = hover_label(page, "masks.fig.mask_add", zeros[0])
    assert "0 (may attend)" in label, label  # the mark and what it means
    hidden = cells(page, "masks.fig.mask_add").index("−∞")
    assert "−∞ (hidden)" in hover_label(page, "masks.fig.mask_add", hidden)
    assert_no_page_errors(page_errors)


def test_masks_page_causal_switch_and_a_row_with_nothing_to_attend_to(page, page_errors, app_server):
    open_page(page, app_server + "/masks?lang=en", "masks.fig.weights")
    n = 5
    got = cells(page, "masks.fig.weights")
    assert len(got) == n * n
    upper = [i * n + j for i in range(n) for j in range(n) if j > i]
    assert all(got[k] == "0.00" for k in upper)  # opens with the causal mask on
    click_toggle(page, "masks.causal")
    page.wait_for_function(f"""() => {{
        const t = [...document.querySelectorAll("{sel('masks.fig.weights')} .heatmap-label text")];
        return t.length === {n * n} && t[1].textContent !== "0.00"; }}""", timeout=20_000)
    assert page.locator(sel("masks.fig.masked")).locator("text", has_text="−∞").count() == 0
    # the custom mask: start from "everything hidden"
    page.locator(sel("masks.start")).get_by_text("everything hidden").click()
    page.wait_for_timeout(150)
    page.wait_for_selector(APP_READY, timeout=20_000)
    warnings = page.locator("[data-testid='stAlertContentWarning']").all_text_contents()
    assert sum("may attend to no key at all (5 in all)" in w for w in warnings) == 1, warnings
    out = wait_chart(page, "masks.fig.custom_out", ["0.00"] * 20)  # zero output, never NaN (polled: the chart is
    assert out  # redrawn a moment after the run ends)
    assert "NaN" not in page.content()
    assert "M=5x5%3A0000000000000000000000000" in page.url
    assert_no_exception(page)
    assert_no_page_errors(page_errors)
