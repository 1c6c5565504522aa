"""The positional-encoding page in a real browser: the weights of sentences A and B without positions are those of a
softmax written here from the seeded numbers, B's are A's re-ordered (the page says the largest difference is
0.000000), a new d_model (the slider, by keyboard) keeps that and goes into the link, and with PE the page names a
difference that is not 0."""
from __future__ import annotations

import math
import re

import numpy as np

from lessons import seeded

from .helpers import APP_READY, assert_no_exception, assert_no_page_errors, sel, wait_chart, wait_for_app

A, B = ("猫", "が", "犬", "を", "追う"), ("犬", "が", "猫", "を", "追う")


def weights(tokens, d: int, pe: bool = False) -> np.ndarray:
    X = seeded.token_rows(tokens, 0, d)
    if pe:
        X = X + np.array([[math.sin(p / 10000 ** (2 * (j // 2) / d)) if j % 2 == 0 else
                           math.cos(p / 10000 ** (2 * (j // 2) / d)) for j in range(d)] for p in range(len(tokens))])
    S = (X @ seeded.weight(0, "W_Q", d, d)) @ (X @ seeded.weight(0, "W_K", d, d)).T / math.sqrt(d)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def as_text(M) -> list[str]:
    return [f"{v:.2f}" for v in np.asarray(M).ravel()]


NUMBER = r"([0-9]+\.[0-9]+)"
WITHOUT = r"Largest difference between B's weights and A's re-ordered weights: " + NUMBER
WITH_PE = r"With PE added, the largest difference between B's weights and A's re-ordered weights: " + NUMBER


def gaps(page) -> list[str]:
    """The two largest differences the page names: without positions, then with PE."""
    text = page.locator("[data-testid='stMain']").inner_text()
    return re.findall(WITHOUT, text) + re.findall(WITH_PE, text)


def test_order_lost_without_positions_and_found_with_them(page, page_errors, app_server):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_server}/positional?lang=en")
    wait_for_app(page)
    page.locator(f"{sel('positional.fig.weights_a')} .heatmap-label text").first.wait_for(timeout=30_000)
    wait_chart(page, "positional.fig.weights_a", as_text(weights(A, 4)))
    wait_chart(page, "positional.fig.weights_b", as_text(weights(B, 4)))
    wait_chart(page, "positional.fig.weights_b_pe", as_text(weights(B, 4, pe=True)))
    without, with_pe = gaps(page)
    assert without == "0.000000" and float(with_pe) > 0.05
    dm = page.locator(f"{sel('positional.dm')} input[type=range]")
    dm.scroll_into_view_if_needed()
    dm.focus()
    page.keyboard.press("ArrowRight")  # d_model 4 → 5
    page.wait_for_selector(APP_READY, timeout=30_000)
    wait_chart(page, "positional.fig.weights_a", as_text(weights(A, 5)), timeout_s=20)
    wait_chart(page, "positional.fig.weights_a_pe", as_text(weights(A, 5, pe=True)), timeout_s=20)
    assert gaps(page)[0] == "0.000000"
    assert "dm=5" in page.url
    assert_no_exception(page)
    assert_no_page_errors(page_errors)
