"""The throwaway lessons of tests/throwaway (registered for every test run by tests/conftest.py) are picked up by the
router, the home page and every registry-wide suite, without any other file changed: what adding a lesson costs
(docs/adding-a-lesson.md, issue 19). Here: that they are registered, that the app serves them, and the pair lesson's
numbers by hand."""
from __future__ import annotations

import math
import sys

import numpy as np
import pytest
import test_pages
from streamlit.testing.v1 import AppTest

import lessons
from ui.i18n import LANGS, table


def test_both_throwaway_lessons_are_registered_after_the_apps_own():
    extra = [x.key for x in sys.modules["attn_lab_extra_lessons"].LESSONS]  # tests/throwaway/lessons.py
    assert {"toy", "pair"} <= set(extra)
    assert [x.key for x in lessons.REGISTRY][-len(extra):] == extra  # after the app's own, in their own order
    toy, pair = lessons.by_key("toy"), lessons.by_key("pair")
    assert toy.text_fields == () and toy.n_tokens is None and not toy.link.matrices  # no sentence, no matrix
    assert len(pair.text_fields) == 2 and pair.link.matrices  # two sentences, a matrix ...
    s = pair.default_state()
    assert pair.matrix_shape(s, "S") == (4, 3)  # ... rectangular: 4 target tokens × 3 source tokens


def test_pair_weights_by_hand():
    """Default scores: 1 where target row i and source column i meet (i < 3), else 0; weights = row softmax."""
    pair = lessons.by_key("pair")
    w = pair.arrays(pair.default_state())["weights"]
    e = math.e
    expected = np.array([[e / (e + 2), 1 / (e + 2), 1 / (e + 2)],
                         [1 / (e + 2), e / (e + 2), 1 / (e + 2)],
                         [1 / (e + 2), 1 / (e + 2), e / (e + 2)],
                         [1 / 3, 1 / 3, 1 / 3]])
    np.testing.assert_allclose(w, expected, rtol=0, atol=1e-15)
    assert round(w[0, 0], 6) == 0.576117


def test_router_and_home_list_them():
    at = AppTest.from_file(str(test_pages.ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    labels = [el.proto.label for el in at.get("page_link")]
    assert "おもちゃのレッスン" in labels and "二つの文のレッスン" in labels  # the home page's lesson list
    toy = lessons.by_key("toy")
    at.switch_page(toy.page).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "おもちゃ"
    at.slider(key="toy.n").set_value(7).run()
    assert at.session_state["toy:state"].n == 7
    assert at.query_params["toy"] == "1" and at.query_params["n"] == "7"


@pytest.fixture
def toy_first(monkeypatch):
    toy = lessons.by_key("toy")
    monkeypatch.setattr(lessons, "REGISTRY", [toy, *[x for x in lessons.REGISTRY if x is not toy]])
    return toy


@pytest.mark.parametrize("lang", LANGS)
def test_the_start_button_names_the_first_registered_lesson(toy_first, lang):
    # It used to say "Open the first lesson: Q·K·V with 「犬が歩く」" whatever lesson it linked to (issue 19).
    at = AppTest.from_file(str(test_pages.ROOT / "app.py"), default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    start = next(el.proto for el in at.get("page_link") if el.proto.icon == ":material/play_arrow:")
    assert start.label == table(lang)["home.start"].format(title=table(lang)["lesson.toy.title"])
    assert start.page.endswith("toy.py") or "toy" in start.page
