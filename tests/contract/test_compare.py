"""Compare two settings A and B (issue 25 part 2): the difference and its largest change (lessons/compare.py, against
hand-computed cases), A's place in the link, and every registered lesson's page under AppTest — A pinned by the
button or opened from a link, A, B and B − A drawn, the largest change named with the right tokens and numbers, a
change of shape said instead of compared, swap and unpin."""
from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st_
from lesson_strategies import fixed_states
from streamlit.testing.v1 import AppTest
from test_transitions import walk

import lessons
from lessons import compare as C
from ui import plot_component
from ui.i18n import table
from ui.numbers import num

ROOT = Path(__file__).resolve().parents[2]
LESSONS = pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
TOY = lessons.by_key("toy")  # the tests' own lesson (tests/throwaway): for what the frame does alike on every page
JA = table("ja")


# ---- the arithmetic -------------------------------------------------------------------------------------------
def test_the_largest_change_of_two_matrices():
    a = np.array([[0.41, 0.59], [0.5, 0.5]])
    b = np.array([[0.63, 0.37], [0.45, 0.55]])
    d = C.difference(a, b)
    assert np.allclose(d.delta, [[0.22, -0.22], [-0.05, 0.05]])
    assert d.largest == (0, 0) and (d.a, d.b) == (0.41, 0.63)  # the first of the two largest, row by row


def test_masked_cells_are_not_a_difference():
    inf = -np.inf
    a = np.array([[1.0, inf], [2.0, inf]])
    b = np.array([[1.5, inf], [inf, 3.0]])
    d = C.difference(a, b)
    assert d.delta[0, 0] == 0.5 and d.delta[0, 1] == 0.0  # masked in both: no change
    assert np.isneginf(d.delta[1, 0]) and np.isneginf(d.delta[1, 1])  # masked in one: no number to write
    assert d.largest == (0, 0)


def test_equal_arrays_have_no_largest_change_and_shapes_that_differ_are_not_compared():
    assert C.difference(np.ones(3), np.ones(3)).largest is None
    assert C.difference(np.ones((3, 3)), np.ones((4, 4))) is None
    assert C.difference(np.ones(3), np.ones((1, 3))).largest is None  # a vector is one row


@given(st_.dictionaries(st_.text("abcdefghij_", min_size=1, max_size=6), st_.text(max_size=30), max_size=12))
def test_a_pinned_link_reads_back(params):
    back, notes = C.read_pin(C.pin_text(params))
    assert notes == [] and {k: v[-1] for k, v in back.items()} == params


@pytest.mark.parametrize("text", ["x" * (C.MAX_PIN_CHARS + 1), "a=1&&&b", "%%%"])
def test_a_pin_that_cannot_be_read_is_said(text):
    back, notes = C.read_pin(text)
    assert back is None and [n.code for n in notes] == ["pin_bad"]
    assert all(len(n.args["value"]) <= 21 for n in notes)


# ---- the page -------------------------------------------------------------------------------------------------
def open_page(lesson, params: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for k, v in (params or {}).items():
        at.query_params[k] = v
    at.switch_page(lesson.page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def published(at) -> dict[str, str]:
    return {k: at.query_params[k] for k in at.query_params}


def chart_keys(at) -> set[str]:
    """The keys of the charts the run drew."""
    out = set()
    for e in at.get("bidi_component"):
        if e.proto.component_name == plot_component.NAME and e.proto.bytes:
            body = json.loads(e.proto.bytes)
            out |= {it.get("key") for it in body.get("items", [body])}
    return out


def first_array(lesson, names) -> str:
    p = lesson.predict
    return p.weights if p is not None and p.weights in names else names[0]


def labels(lesson, state, name, a):
    """The labels as the page (in Japanese) shows them: a (text key, args) label is that text of the ja table."""
    rows, cols = ([table("ja")[x[0]].format(**x[1]) if isinstance(x, tuple) else x for x in xs]
                  for xs in lesson.array_labels(state)[name])
    return ([name], list(rows)) if a.ndim == 1 else (list(rows), list(cols))


@LESSONS
@settings(max_examples=3, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st_.data())
def test_a_and_b_from_the_link_name_the_largest_change(lesson, data):
    """A = the default setting (in the link's ``pin``), B = where a random walk of the page's controls led."""
    a_state = lesson.default_state()
    b_state = [*walk(lesson, a_state, data, 1, 6)][-1:] or [a_state]
    b_state = b_state[0]
    a_arrays, b_arrays = lesson.arrays(a_state), lesson.arrays(b_state)
    assume(b_arrays)
    name = first_array(lesson, list(b_arrays))
    assume(name in a_arrays)
    params = {**lesson.encode(b_state), "compare": "1", "pin": urlencode(lesson.encode(a_state))}
    at = open_page(lesson, params)
    link_ = published(at)
    assert link_["compare"] == "1" and link_["pin"] == urlencode(lesson.encode(a_state))
    keys = chart_keys(at)
    a, b = a_arrays[name], b_arrays[name]
    # the Markdown source read as text: an escaped character is the character (a title "\\" is written "\\\\"),
    # the bold marks go (hypothesis found a title "\\": dropping every backslash lost the title itself)
    said = " ".join(re.sub(r"\\(.)", r"\1", m.value.replace("**", "")) for m in at.markdown)
    if a.shape != b.shape:  # another sentence or size: said, not compared
        assert any(JA["compare.shapes"].split("{")[0] in i.value for i in at.info)
        assert {f"compare.{lesson.key}.fig.a", f"compare.{lesson.key}.fig.b"} <= keys
        assert f"compare.{lesson.key}.fig.diff" not in keys
        return
    assert {f"compare.{lesson.key}.fig.{x}" for x in ("a", "b", "diff")} <= keys
    A, B = np.atleast_2d(a), np.atleast_2d(b)
    ok = np.isfinite(A) & np.isfinite(B)
    change = np.where(ok, np.abs(B - A), -1)
    if change.max() <= 1e-12:
        assert JA["compare.same"].split("「")[0] in said
        return
    i, j = np.unravel_index(np.argmax(change), change.shape)
    rows, cols = labels(lesson, b_state, name, b)
    where = str(cols[j]) if b.ndim == 1 else f"{rows[i]} → {cols[j]}"
    assert f"{where}：{num(A[i, j])} → {num(B[i, j])}" in said, (where, said)


@LESSONS
def test_pin_swap_and_unpin_on_the_page(lesson):
    at = open_page(lesson)
    at.toggle(key=f"compare.on.{lesson.key}").set_value(True).run()
    assert published(at)["compare"] == "1" and "pin" not in published(at)
    at.button(key=f"compare.{lesson.key}.pin").click().run()
    a = lesson.encode(lesson.default_state())
    assert published(at)["pin"] == urlencode(a)
    widest = lesson.widest() if lesson.widest else None
    if widest is not None:  # B: another setting; swap brings A back to the page and keeps B as A
        at.session_state[f"{lesson.key}:state"] = widest
        at.run()
        at.button(key=f"compare.{lesson.key}.swap").click().run()
        assert lesson.encode(at.session_state[f"{lesson.key}:state"]) == a
        assert published(at)["pin"] == urlencode(lesson.encode(widest))
    at.button(key=f"compare.{lesson.key}.unpin").click().run()
    assert not at.exception
    assert "pin" not in published(at) and published(at)["compare"] == "1"


@pytest.mark.parametrize("params, code", [({"compare": "2"}, "compare_bad"),
                                          ({"compare": "1", "pin": "%%%"}, "pin_bad"),
                                          ({"pin": "a=1"}, "pin_ignored")])
@pytest.mark.parametrize("lang", ["ja", "en"])
def test_what_the_links_comparison_cannot_give_is_said(params, code, lang):
    lesson = TOY
    at = open_page(lesson, {"lang": lang, lesson.key: str(lesson.link.version), **params})
    lead = table(lang)[f"notice.{code}"].split("{")[0][:12]
    assert any(lead in w.value for w in at.warning), [w.value for w in at.warning]
    assert "pin" not in published(at)


def test_a_pin_of_a_setting_the_lesson_refuses_is_said_in_part():
    lesson = TOY
    bad = urlencode({lesson.key: str(lesson.link.version), "zz": "1"})  # a key the lesson does not know
    at = open_page(lesson, {lesson.key: str(lesson.link.version), "compare": "1", "pin": bad})
    assert any(JA["notice.pin_partial"] in w.value for w in at.warning), [w.value for w in at.warning]


@pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
@pytest.mark.parametrize("lang", ("ja", "en"))
def test_every_array_a_lesson_shows_has_a_name_in_words(lesson, lang):
    """The comparison's list and sentences name an array in words, not by its code name (a new-user trial: the list
    read weights_1, scaled_scores_1, … in both languages): every array of every fixed state has words, from the
    lesson's tables or the shared ones (ui.compare.array_title), numbered ones with their number."""
    from ui.compare import array_title

    for state in fixed_states(lesson):
        for name in lesson.arrays(state):
            title = array_title(lesson.key, name, lang)
            assert title and title.strip(), f"{lesson.key}: the array {name!r} has no words in {lang}"
            number = name.rsplit("_", 1)[-1]
            if number.isdigit() and f"{lesson.key}.array.{name}" not in table(lang):
                assert number in title, (lesson.key, name, title)


@given(x=st_.floats(min_value=1e-9, max_value=1e9, allow_nan=False, allow_infinity=False))
def test_a_colour_bar_ends_at_two_digits_never_below_the_largest_change(x):
    """Oracle: the definition: the end is ≥ x, within 10 % of it (two significant digits: m in [10, 100) rounded up
    loses less than 1/10), and written with at most two significant digits."""
    from ui.compare import nice_ceiling

    end = nice_ceiling(x)
    assert x <= end <= x * 1.1 + 1e-12
    assert float(f"{end:.1e}") == end, (x, end)  # two significant digits say it exactly


def test_a_change_of_0_4077_is_coloured_up_to_0_41():
    from ui.compare import nice_ceiling

    assert nice_ceiling(0.4077) == 0.41 and nice_ceiling(13.2) == 14 and nice_ceiling(0.41) == 0.41
