"""Links that are wrong as a whole, on every registered lesson's page (AppTest, inside the app.py frame).

Oracles: the limits of lessons/link.py (MAX_QUERY_CHARS, MAX_PARAMS), Streamlit's own limit (a query string of more
than 1,000 parameters reaches no app: the browser side of the frame says so, tests/e2e/test_params_browser.py), and
the words of the language tables. For each: nothing raises, no NaN, the page says in the current language what it
could not read, and what it could read is read.
"""
from __future__ import annotations

from urllib.parse import parse_qsl, urlencode

import numpy as np
import pytest
from reliability_kit import LESSONS, assert_clean, base_state, open_page

from lessons import link
from ui.i18n import LANGS, table


def state_of(at, lesson):
    return at.session_state[f"{lesson.key}:state"]


def same_state(lesson, a, b) -> bool:
    return lesson.encode(a) == lesson.encode(b) and all(
        np.array_equal(x, y) for x, y in zip(lesson.arrays(a).values(), lesson.arrays(b).values()))


def _matrix_value(text: str):
    """A matrix's link text ("RxC:v,v,…") as (shape, numbers), or the text itself when its cells are not numbers."""
    shape, _, cells = text.partition(":")
    try:
        return shape, [float(v) for v in cells.split(",")]
    except ValueError:
        return text


def same_value(lesson, key: str, a: str | None, b: str) -> bool:
    """Two texts of parameter ``key`` that mean the same value ("0." and "0" of a number; "-0" and "0" in a matrix
    cut inside "-0.25")."""
    if a is None:
        return False
    if any(m.key == key for m in lesson.link.matrices):
        return _matrix_value(a) == _matrix_value(b)
    f = next((x for x in lesson.link.fields if x.key == key), None)
    try:
        return f is not None and f.parse(a) == f.parse(b)
    except ValueError:
        return False


def warned(at, lang: str, code: str, **args) -> bool:
    text = table(lang)[f"notice.{code}"].format(**args)
    return any(str(w.value).replace("\\", "") == text for w in at.warning)


@LESSONS
@pytest.mark.parametrize("lang", LANGS)
def test_a_100_kb_link_is_not_read_and_said(lesson, lang):
    ns = {lesson.key: str(lesson.link.version)}
    key = sorted(lesson.link.keys)[0]
    at = open_page(lesson, {**ns, key: "1" * 100_000}, lang=lang)
    assert_clean(at, lesson)
    n = len(lesson.key) + len(ns[lesson.key]) + len(key) + 100_000 + len("lang") + len(lang)
    assert warned(at, lang, "link_too_long", n=n, max=link.MAX_QUERY_CHARS), [w.value for w in at.warning]
    assert same_state(lesson, state_of(at, lesson), lesson.default_state())


@LESSONS
def test_more_parameters_than_a_link_has_are_not_read_and_said(lesson):
    params = {lesson.key: str(lesson.link.version), **{f"x{i}": "1" for i in range(link.MAX_PARAMS)}}
    at = open_page(lesson, params)
    assert_clean(at, lesson)
    assert warned(at, "ja", "link_too_many", n=link.MAX_PARAMS + 1, max=link.MAX_PARAMS)
    assert same_state(lesson, state_of(at, lesson), lesson.default_state())


@LESSONS
def test_more_than_1000_parameters_never_reach_the_app(lesson):
    """Streamlit drops such a query string whole before any app code runs (AppTest does the same): the page opens
    its default without a word from the server. The person is told by the frame's browser side, which sees the
    URL the page was loaded with (tests/e2e/test_params_browser.py). Should Streamlit one day pass such a query on,
    the link's own limit answers it."""
    params = {lesson.key: str(lesson.link.version), **{f"x{i}": "1" for i in range(1050)}}
    at = open_page(lesson, params)
    assert_clean(at, lesson)
    assert same_state(lesson, state_of(at, lesson), lesson.default_state())
    words = [str(w.value) for w in at.warning]
    assert words == [] or warned(at, "ja", "link_too_many", n=len(params), max=link.MAX_PARAMS), words


def test_the_browser_sides_report_of_a_dropped_link_is_said_with_the_links_limits():
    assert link.dropped_notice(1051, 7000, 1000) == link.Notice("link_too_many", {"n": 1051, "max": link.MAX_PARAMS})
    assert link.dropped_notice(1, 600_000, 1000) == link.Notice("link_too_long",
                                                                {"n": 600_000, "max": link.MAX_QUERY_CHARS})
    for lang in LANGS:
        assert "1051" in table(lang)["notice.link_too_many"].format(n=1051, max=link.MAX_PARAMS)


@LESSONS
@pytest.mark.parametrize("lang", LANGS)
def test_a_key_given_twice_an_unknown_key_and_an_unknown_language_are_said(lesson, lang):
    """The last value of a key given twice is read (as st.query_params[key] does), and that is said; an unknown
    key is named and ignored; the rest of the link is read."""
    state = lesson.from_link({})[0]
    base = lesson.encode(state)
    key = next((k for k in base if k != lesson.key), lesson.key)  # a link that is only its envelope: that, twice
    params = {**base, key: ["garbage", base[key]], "zz_unknown": "1"}
    at = open_page(lesson, params, lang=lang)
    assert_clean(at, lesson)
    assert warned(at, lang, "duplicate_keys", keys=key), [w.value for w in at.warning]
    assert warned(at, lang, "unknown_keys", keys="zz_unknown"), [w.value for w in at.warning]
    assert same_state(lesson, state_of(at, lesson), state)
    bad = open_page(lesson, {**base, "lang": "xx"})
    assert_clean(bad, lesson)
    assert warned(bad, "ja", "bad_lang", value="xx")


@LESSONS
def test_a_link_cut_short_opens_what_it_still_says(lesson):
    """A link cut by a mail client or a chat app, in the middle of a value or between two: every parameter left is
    read as it stands, or a warning names it (the cut value, or a matrix sized by a cut sentence)."""
    query = urlencode(lesson.encode(base_state(lesson)))
    for cut in (len(query) // 3, len(query) // 2, len(query) - 3):
        params = dict(parse_qsl(query[:cut], keep_blank_values=True))
        at = open_page(lesson, params)
        assert_clean(at, lesson)
        got, said = lesson.encode(state_of(at, lesson)), "\n".join(str(w.value) for w in at.warning)
        for key, value in params.items():
            if key != lesson.key:
                read = got.get(key) == value or same_value(lesson, key, got.get(key), value)
                assert read or f"{key}" in said.replace("\\", ""), (cut, key, value[:40])
