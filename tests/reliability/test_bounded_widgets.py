"""Sliders, select sliders and switches of every registered lesson's page, all at one end at once.

These widgets offer only valid values, so a person cannot give them a bad one (a link can: test_link_fields.py).
What a person can do is take each to its end (d_model, d_k and d_v at 16 with the largest seed, the coldest
temperature, every switch off...): the page must then still compute, with finite numbers and no NaN on screen.
The widgets are found on the page itself, so a new lesson's are covered without new code. (Each example of the
Q·K·V page is opened by tests/app/test_qkv_apptest.py::test_each_preset.)
"""
from __future__ import annotations

import pytest
from reliability_kit import LESSONS, assert_clean, open_page


def as_number(text: str):
    """A select slider's option label read back as the number it shows ("0.05", "64"), or None."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return None


def to_end(at, lesson, high: bool) -> int:
    """Every widget of the lesson's page to its lowest or highest value; returns how many were set."""
    n = 0
    for w in at.slider:
        if str(w.key).startswith(lesson.key + "."):
            w.set_value(w.max if high else w.min)
            n += 1
    for w in at.select_slider:
        end = as_number(w.options[-1 if high else 0]) if str(w.key).startswith(lesson.key + ".") else None
        if end is not None:
            w.set_value(end)
            n += 1
    for w in at.toggle:
        if str(w.key).startswith(lesson.key + "."):
            w.set_value(high)
            n += 1
    return n


@LESSONS
@pytest.mark.parametrize("high", [False, True], ids=["lowest", "highest"])
def test_every_bounded_widget_at_its_end_at_once(lesson, high):
    at = open_page(lesson)
    assert_clean(at, lesson)  # a page that failed to draw would have no widgets either
    if not to_end(at, lesson, high):
        pytest.skip(f"{lesson.key}: its page has no slider, select slider or switch")
    at.run()
    assert_clean(at, lesson)
    assert to_end(at, lesson, high)  # what the first move revealed (more tokens, more sizes) goes to its end too
    at.run()
    assert_clean(at, lesson)
