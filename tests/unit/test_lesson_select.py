"""How ``pytest --lesson KEY`` (make test-lesson) ties a collected test to the lessons it touches
(tests/lesson_select.py), on stand-in items: parameters, folders, file and function names, markers."""
from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import pytest
from lesson_select import TESTS, lessons_of

KEYS = {"qkv", "masks", "cross", "multihead", "toy"}


@dataclass(frozen=True)
class Case:  # a browser suite's case that names its lesson
    key: str
    size: str = "1280x720"


def item(path: str, name: str = "test_something", params: dict | None = None, marks: tuple = ()):
    return SimpleNamespace(path=TESTS / path, name=name, originalname=name,
                           callspec=SimpleNamespace(params=params) if params is not None else None,
                           iter_markers=lambda _name: [SimpleNamespace(args=m) for m in marks])


@pytest.mark.parametrize("it, want", [
    (item("e2e/test_x_browser.py", params={"lesson": "masks"}), {"masks"}),
    (item("e2e/test_x_browser.py", params={"path": "/masks"}), {"masks"}),
    (item("core/test_seeded.py", params={"name": "masks.arrays: X"}), {"masks"}),
    (item("e2e/test_screens_browser.py", params={"case": Case("cross")}), {"cross"}),
    (item("e2e/test_x_browser.py", params={"cases": (Case("toy"), "qkv")}), {"toy", "qkv"}),
    (item("masks/test_masks_lesson.py"), {"masks"}),
    (item("core/test_cross_multihead.py"), {"cross", "multihead"}),
    (item("ui/test_specs.py", name="test_masks_fit_their_cells"), {"masks"}),
    (item("ui/test_specs.py", marks=(("qkv",),)), {"qkv"}),
    (item("unit/test_link_codec.py", params={"value": "a b c"}), set()),
    (item("unit/test_number_rule.py"), set()),
])
def test_a_test_is_tied_to_the_lessons_it_touches(it, want):
    assert lessons_of(it, KEYS) == want
