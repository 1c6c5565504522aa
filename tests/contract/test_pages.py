"""Every registered lesson's page under AppTest: both languages, a clean and a hostile link, its own share link.

The share-link check runs the page on a fixed non-default state, takes the link the page publishes (what the share
panel and the address bar show), opens it in a fresh session and compares the lesson's arrays.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from lesson_strategies import corner_values
from streamlit.testing.v1 import AppTest

import lessons
from ui.i18n import LANGS, table

ROOT = Path(__file__).resolve().parents[2]
LESSONS = pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
HOSTILE = {"v": "1", "dk": "1_0", "q": "<script>alert(1)</script>", "t": "**x** $y$ [a](b)", "s1": "nan",
           "X": "3x3:1e308,inf,nan", "T": "1e308", "zz": "🐕" * 50}


def open_page(lesson, params: dict | None = None, state=None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for k, v in (params or {}).items():
        at.query_params[k] = v
    if state is not None:
        at.session_state[f"{lesson.key}:state"] = state
    at.switch_page(lesson.page)
    return at.run()


def shown_text(at: AppTest) -> str:
    parts = [x.value for kind in ("title", "markdown", "caption", "warning", "info", "header", "subheader")
             for x in getattr(at, kind)]
    return "\n".join(str(p) for p in parts)


@LESSONS
@pytest.mark.parametrize("lang", LANGS)
def test_page_runs_in_both_languages(lesson, lang):
    at = open_page(lesson, {"lang": lang})
    assert not at.exception, [e.value for e in at.exception]
    assert not at.warning, [w.value for w in at.warning]  # a clean first visit has nothing to warn about
    text = shown_text(at)
    assert "nan" not in text.lower().split() and "Traceback" not in text
    assert at.title[0].value == table(lang)[f"{lesson.key}.title"]


@LESSONS
@pytest.mark.parametrize("lang", LANGS)
def test_hostile_link_is_answered_in_words(lesson, lang):
    at = open_page(lesson, {"lang": lang, **HOSTILE})
    assert not at.exception, [e.value for e in at.exception]
    assert at.warning, "a link that could not be used must be said in words"
    assert "<script>" not in shown_text(at)


@LESSONS
def test_own_share_link_reproduces_the_state(lesson):
    state, _ = lesson.from_link(corner_values(lesson.link))
    at = open_page(lesson, state=state)
    assert not at.exception, [e.value for e in at.exception]
    published = {k: at.query_params[k] for k in at.query_params}
    assert published[lesson.key] == str(lesson.link.version)
    again = open_page(lesson, published)
    assert not again.exception
    # no notice about the link: the page warns about exactly what it warned about before (the lesson's own words)
    assert [w.value for w in again.warning] == [w.value for w in at.warning]
    a, b = lesson.arrays(state), lesson.arrays(again.session_state[f"{lesson.key}:state"])
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


@pytest.mark.parametrize("lesson", [x for x in lessons.REGISTRY if x.cell_matrices is not None], ids=lambda x: x.key)
def test_the_cell_pickers_choice_lives_in_the_share_link(lesson):
    """Issue 18: on /qkv, W_K row 2 col 3 chosen with the cell picker reopened from the page's link as X row 1 col 1.
    Chosen through the picker's own selectboxes (<key>.cell:m / :i / :j), the published link must reopen on the same
    matrix, row and column, and the one-cell slider must edit that cell."""
    at = open_page(lesson)
    names = list(lesson.cell_matrices(lesson.default_state()))
    name = names[min(2, len(names) - 1)]  # W_K on /qkv
    rows, cols = lesson.matrix_shape(lesson.default_state(), name)
    i, j = min(1, rows - 1), min(2, cols - 1)  # row 2, column 3
    key = f"{lesson.key}.cell"
    at.selectbox(key=f"{key}:m").set_value(name).run()
    at.selectbox(key=f"{key}:i").set_value(i).run()
    at.selectbox(key=f"{key}:j").set_value(j).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [at.selectbox(key=f"{key}:{p}").value for p in "mij"] == [name, i, j]
    published = {k: at.query_params[k] for k in at.query_params}
    again = open_page(lesson, published)
    assert not again.exception and not again.warning, [w.value for w in again.warning]
    assert [again.selectbox(key=f"{key}:{p}").value for p in "mij"] == [name, i, j]
    sliders = [s for s in again.slider if (s.key or "").startswith(f"{key}:v:")]
    assert [s.key for s in sliders] == [f"{key}:v:{name}:{i}:{j}"]


@LESSONS
def test_another_lessons_link_opens_this_lesson_in_its_own_state(lesson):
    """The Back-button reproduction of issue 7: the address bar of this page carried another lesson's link."""
    for other in lessons.REGISTRY:
        if other is lesson:
            continue
        foreign = other.encode(other.from_link(corner_values(other.link))[0])
        at = open_page(lesson, foreign)
        assert not at.exception
        got = at.session_state[f"{lesson.key}:state"]
        assert lesson.encode(got) == lesson.encode(lesson.default_state())
        assert len(at.warning) == 1  # one notice: this was another lesson's link


@LESSONS
@pytest.mark.parametrize("lang", LANGS)
def test_a_lessons_link_opened_on_the_home_page_opens_that_lesson(lesson, lang):
    """Issue 20, defect 6: ``/?lang=en&qkv=2&dk=7&t=my+sentence`` became ``/?lang=en``, the setup dropped without a
    word. The link opens the lesson it belongs to, with its state and in its language."""
    want = lesson.from_link(corner_values(lesson.link))[0]
    params = {"lang": lang, **lesson.encode(want)}
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == table(lang)[f"{lesson.key}.title"]
    assert lesson.encode(at.session_state[f"{lesson.key}:state"]) == lesson.encode(want)
    direct = open_page(lesson, params)  # the same words as the link opened on its own page: no notice of its own
    assert [w.value for w in at.warning] == [w.value for w in direct.warning]


@pytest.mark.parametrize("query", [{}, {"lang": "en"}, {"lang": "en", "zz": "1"}, {"x": "<b>"}])
def test_the_home_page_keeps_a_query_of_no_lesson(query):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception
    assert at.title[0].value == table(query.get("lang", "ja"))["home.title"]


@LESSONS
def test_the_declared_text_fields_are_the_pages(lesson):
    """Lesson.text_fields names every text field the page draws, and only those (the reliability suites type into
    the declared ones, so a field left out would go untested)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page(lesson.page)
    at.run()
    assert not at.exception
    drawn = sorted(str(w.key)[len(lesson.key) + 1:] for w in at.text_input if str(w.key).startswith(lesson.key + "."))
    assert drawn == sorted(lesson.text_fields)


def _widgets(node):
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _widgets(child)


@LESSONS
def test_a_rerun_pushes_no_widget_value(lesson):
    """A rerun with nothing changed writes no widget's value to the browser (the proto's ``set_value``): a value
    pushed on every run overwrote what the person was typing in another field while a rerun ran (the second sentence
    field on /masks lost its text in CI, and slider key presses were lost the same way, issue 18). On the code before
    the fix every widget of every lesson was pushed on every run."""
    at = open_page(lesson)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    pushed = [getattr(el.proto, "id", "?").rsplit("-", 1)[-1] for el in _widgets(at._tree)
              if getattr(getattr(el, "proto", None), "set_value", False)]
    assert not pushed, f"pushed to the browser on a rerun with nothing changed: {pushed}"
