"""Weights titled with what they were computed from (issue 42, item 9): a mask adds + M (softmax(QKᵀ/√d_k + M),
not softmax(QKᵀ/√d_k)); positions added at another scale read "0.5·X + PE", not "X + PE". Read from each page's
chart as AppTest receives it; the oracle is the formula each lesson computes (a causal or padding mask added to the
scaled scores before the softmax; the word vectors times the scale plus PE) and the language tables."""
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


@pytest.mark.parametrize("scale", [1.0, 0.5])
def test_positional_weights_name_the_input_they_were_computed_from(scale):
    """The weights with positions are computed from scale·X + PE: their titles say so when the scale is not 1."""
    from lessons import positional

    lesson = lessons.by_key("positional")
    state = positional.with_scale(lesson.default_state(), scale)
    label = _label(lesson, state, "positional.fig.weights_a_pe")
    if scale == 1:
        assert "（X + PE）" in label, label
    else:
        assert "0.5" in label and "·X + PE" in label, label
