"""Weights computed with a mask are titled with it: softmax(QKᵀ/√d_k + M), not softmax(QKᵀ/√d_k) (issue 42, item 9).
Read from each page's chart as AppTest receives it; the oracle is the formula each lesson computes (a causal or
padding mask added to the scaled scores before the softmax) and the language tables."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import lessons
from ui import plot_component
from ui.i18n import table

ROOT = Path(__file__).resolve().parents[2]


def _label(lesson, state, key: str) -> str:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for k, v in lesson.encode(state).items():
        at.query_params[k] = v
    at.switch_page(lesson.page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return plot_component.charts(at)[key]["label"]


@pytest.mark.parametrize("causal", [False, True])
def test_qkv_weights_say_the_causal_mask(causal):
    lesson = lessons.by_key("qkv")
    state = replace(lesson.default_state(), causal=causal)
    want = table("ja")["fig.weights.title_masked" if causal else "fig.weights.title"]
    assert _label(lesson, state, "qkv.fig.weights") == want
    assert ("+ M" in want) is causal


def test_the_masks_lessons_weights_are_always_masked():
    lesson = lessons.by_key("masks")
    assert _label(lesson, lesson.default_state(), "masks.fig.weights") == table("ja")["fig.weights.title_masked"]
