"""The lesson contract, checked for every lesson in lessons.REGISTRY (a new lesson gets these tests for free).

Oracles: the link rules of lessons/link.py's docstring (envelope, limits, never raise), links saved by the code that
made them before the contract existed (fixtures/v1_links.json, commit 902428a), and the language tables.
"""
from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qsl

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lesson_strategies import field_values, hostile_params, matrix_values, picked_cell

import lessons
from lessons import link
from ui.i18n import LANGS, table

FIXTURES = json.loads((Path(__file__).parent / "fixtures" / "v1_links.json").read_text("utf-8"))
LESSONS = pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
LINK_CODES = {"link_too_long", "link_too_many", "link_version", "link_unreadable", "other_lesson", "unknown_keys",
              "bad_value", "rounded"}
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def others(lesson):
    return [x.key for x in lessons.REGISTRY if x.key != lesson.key]


def assert_same_state(lesson, a, b):
    assert lesson.encode(a) == lesson.encode(b)
    arr_a, arr_b = lesson.arrays(a), lesson.arrays(b)
    assert arr_a.keys() == arr_b.keys()
    for name in arr_a:
        np.testing.assert_array_equal(arr_a[name], arr_b[name], err_msg=name)


def valid_state(lesson, data):
    """A state built the way a person reaches it: valid field values, then valid matrices of the right shapes."""
    state, _ = lesson.from_link(data.draw(field_values(lesson.link)))
    if lesson.link.matrices:
        fields = {m.key: m for m in lesson.link.matrices}
        names = data.draw(st.sets(st.sampled_from(sorted(fields)), max_size=3))
        mats = {n: data.draw(matrix_values(lesson.matrix_shape(state, n), fields[n])) for n in sorted(names)}
        state = lesson.with_matrices(state, mats)
    if lesson.cell_matrices is not None:  # the cell picker's choice, as the picker makes it
        state = lesson.with_picked_cell(state, *data.draw(picked_cell(lesson, state)))
    return state


def check_notices(notices):
    for n in notices:
        assert isinstance(n, link.Notice), n
        for lang in LANGS:  # every notice has words, with every placeholder filled
            text = table(lang)[f"notice.{n.code}"]
            args = dict(n.args)
            if n.code in ("bad_value", "rounded"):
                args["name"] = "the parameter in words"  # ui.widgets.notice_text (tests/contract/test_link_words.py)
            if n.code == "bad_value":
                table(lang)[f"reason.{args['reason']}"].format(**args["extra"])
                args["reason"] = "r"
            text.format(**args)


# ---- the declaration ---------------------------------------------------------------------------------------------
@LESSONS
def test_declaration(lesson):
    assert lesson.link.namespace == lesson.key
    assert Path(lesson.page).is_file() or Path(__file__).parents[2].joinpath(lesson.page).is_file()
    assert len({x.key for x in lessons.REGISTRY}) == len(lessons.REGISTRY)
    default = lesson.default_state()
    for name, a in lesson.arrays(default).items():
        assert isinstance(a, np.ndarray) and a.dtype == np.float64, name
        assert not np.isnan(a).any() and not np.isposinf(a).any(), name  # −∞ only for masked scores
    # what the registry-wide suites are told instead of guessing (Lesson.text_fields, Lesson.masked_rows_text)
    assert isinstance(lesson.text_fields, tuple) and len(set(lesson.text_fields)) == len(lesson.text_fields)
    if lesson.n_tokens is not None:
        n = lesson.n_tokens(default)
        assert isinstance(n, int) and n > 0, "n_tokens: the default sentence has tokens"
    has_mask = any(isinstance(f, link.Mask) for f in (*lesson.link.fields, *lesson.link.matrices))
    assert bool(lesson.masked_rows_text) == has_mask, "masked_rows_text: declared exactly when the link has a Mask"
    for lang in LANGS if lesson.masked_rows_text else ():
        assert "{n}" in table(lang).get(lesson.masked_rows_text, ""), (lang, lesson.masked_rows_text)


@LESSONS
def test_widest_state_is_declared_and_reopens_from_its_link(lesson):
    """Lesson.widest: the readability checks open it; declared by every lesson with a sentence, with more tokens than
    the default state, and its link opens it again without a notice."""
    if lesson.n_tokens is not None:
        assert lesson.widest is not None, "a lesson with a sentence declares widest (its fullest screen)"
    if lesson.widest is None:
        return
    wide, default = lesson.widest(), lesson.default_state()
    assert lesson.encode(wide) != lesson.encode(default)
    if lesson.n_tokens is not None:
        assert lesson.n_tokens(wide) > lesson.n_tokens(default)
    state, notes = lesson.decode(lesson.encode(wide), others(lesson))
    assert notes == []
    assert_same_state(lesson, state, wide)


@LESSONS
def test_one_edit_changes_one_cell_of_one_matrix(lesson):
    """Lesson.one_edit: declared exactly when the link has matrices; it changes one matrix of the link, in one cell,
    in the default and in the widest state."""
    assert (lesson.one_edit is not None) == bool(lesson.link.matrices), "one_edit: declared exactly with matrices"
    if lesson.one_edit is None:
        return
    for state in (lesson.default_state(), *((lesson.widest(),) if lesson.widest else ())):
        before, after = lesson.encode(state), lesson.encode(lesson.one_edit(state))
        changed = [k for k in before.keys() | after.keys() if before.get(k) != after.get(k)]
        assert len(changed) == 1 and changed[0] in {m.key for m in lesson.link.matrices}, changed
        name = changed[0]
        arr_a, arr_b = (lesson.arrays(lesson.decode(x, others(lesson))[0]) for x in (before, after))
        if name in arr_a:  # a matrix the lesson shows as an array (a mask may be shown only through its effect)
            assert arr_a[name].shape == arr_b[name].shape and int(np.sum(arr_a[name] != arr_b[name])) == 1, name


@LESSONS
def test_texts_in_both_languages(lesson):
    for lang in LANGS:
        tb = table(lang)
        for key in (f"lesson.{lesson.key}.nav", f"lesson.{lesson.key}.title", f"lesson.{lesson.key}.blurb",
                    f"{lesson.key}.title", f"{lesson.key}.intro"):
            assert tb.get(key, "").strip(), f"{lang}: {key}"


def test_every_link_notice_has_words():
    for lang in LANGS:
        tb = table(lang)
        codes = LINK_CODES | {"query_clamped", "value_refused", "step_clamped", "cell_clamped", "unexpected"}
        missing = [c for c in codes if f"notice.{c}" not in tb]
        assert not missing, (lang, missing)


# ---- links ---------------------------------------------------------------------------------------------------------
@LESSONS
def test_default_state_has_a_clean_link(lesson):
    state, notes = lesson.decode(lesson.encode(lesson.default_state()), others(lesson))
    assert notes == []
    assert_same_state(lesson, state, lesson.default_state())
    assert lesson.decode({}, others(lesson))[1] == []
    assert lesson.decode({"lang": "en"}, others(lesson))[1] == []


@LESSONS
@FAST
@given(data=st.data())
def test_link_round_trip(lesson, data):
    state = valid_state(lesson, data)
    params = lesson.encode(state)
    assert list(params)[0] == lesson.key and params[lesson.key] == str(lesson.link.version)
    assert all(isinstance(v, str) for v in params.values())
    back, notes = lesson.decode(params, others(lesson))
    assert notes == []
    assert_same_state(lesson, back, state)


@LESSONS
@FAST
@given(data=st.data())
def test_hostile_links_never_raise(lesson, data):
    params = data.draw(hostile_params(lesson, others(lesson)))
    state, notes = lesson.decode(params, others(lesson))
    check_notices(notes)
    for name, a in lesson.arrays(state).items():  # whatever came in: no NaN on screen, −∞ only where masked
        assert not np.isnan(a).any() and not np.isposinf(a).any(), name
    back, again = lesson.decode(lesson.encode(state), others(lesson))
    assert again == []
    assert_same_state(lesson, back, state)


@LESSONS
@FAST
@given(data=st.data())
def test_mutated_links_never_raise(lesson, data):
    """A valid link with one value cut short, doubled or replaced, as a mail client or a student does."""
    params = lesson.encode(valid_state(lesson, data))
    key = data.draw(st.sampled_from(sorted(params)))
    raw = params[key]
    params[key] = data.draw(st.sampled_from([raw[: len(raw) // 2], raw + raw, raw + ",", "", raw.upper(), " " + raw]))
    state, notes = lesson.decode(params, others(lesson))
    check_notices(notes)


PICKERS = pytest.mark.parametrize("lesson", [x for x in lessons.REGISTRY if x.cell_matrices is not None],
                                  ids=lambda x: x.key)


@PICKERS
def test_a_picked_cell_the_state_cannot_hold_is_moved_and_said(lesson):
    """The cell picker's choice in a link (Lesson.cell_matrices): a row or column past the end becomes the last one,
    an unknown matrix the first one offered, each said (cell_clamped, with words in both languages); a malformed one
    is a bad value; nothing raises."""
    ns = {lesson.key: str(lesson.link.version)}
    default = lesson.default_state()
    first = lesson.cell_matrices(default)[0]
    rows, cols = lesson.matrix_shape(default, first)
    state, notes = lesson.decode({**ns, "cell": f"{first}.99.98"}, others(lesson))
    assert lesson.picked_cell(state) == (first, rows - 1, cols - 1)
    assert [n.code for n in notes] == ["cell_clamped"]
    assert notes[0].args == {"matrix": first, "row": 100, "col": 99, "used_matrix": first, "used_row": rows,
                             "used_col": cols}
    check_notices(notes)
    state, notes = lesson.decode({**ns, "cell": "Zz9.0.0"}, others(lesson))
    assert lesson.picked_cell(state) == (first, 0, 0) and [n.code for n in notes] == ["cell_clamped"]
    for junk in ("W_K", "W_K.1", "W_K.-1.2", "1.2.3", "W K.1.2", "W_K.1.2.3", "<b>.1.2", ""):
        state, notes = lesson.decode({**ns, "cell": junk}, others(lesson))
        assert [(n.code, n.args["reason"]) for n in notes] == [("bad_value", "format_cell")], junk
        check_notices(notes)
        assert lesson.picked_cell(state) == (first, 0, 0)


@PICKERS
@FAST
@given(data=st.data())
def test_a_picked_cell_survives_the_link(lesson, data):
    """Every cell the picker can choose is written to the link and read back as the same cell, without a notice;
    the first cell is the link without the field (links made before the field open on it)."""
    state = valid_state(lesson, data)
    cell = data.draw(picked_cell(lesson, state))
    state = lesson.with_picked_cell(state, *cell)
    params = lesson.encode(state)
    first = (lesson.cell_matrices(state)[0], 0, 0)
    assert ("cell" in params) == (cell != first)
    back, notes = lesson.decode(params, others(lesson))
    assert notes == [] and lesson.picked_cell(back) == cell


@LESSONS
def test_limits(lesson):
    ns = {lesson.key: str(lesson.link.version)}
    state, notes = lesson.decode({**ns, **{f"x{i}": "1" for i in range(link.MAX_PARAMS)}}, others(lesson))
    assert [n.code for n in notes] == ["link_too_many"]
    state, notes = lesson.decode({**ns, "x": "9" * (link.MAX_QUERY_CHARS + 1)}, others(lesson))
    assert [n.code for n in notes] == ["link_too_long"]
    key = sorted(lesson.link.keys)[0]
    state, notes = lesson.decode({**ns, key: "1" * (link.MAX_VALUE_CHARS + 1)}, others(lesson))
    assert [(n.code, n.args["param"], n.args["reason"]) for n in notes] == [("bad_value", key, "too_long")]
    assert_same_state(lesson, state, lesson.default_state())
    state, notes = lesson.decode({lesson.key: "99"}, others(lesson))
    assert [n.code for n in notes] == ["link_version"]


@LESSONS
def test_a_page_never_reads_another_lessons_link(lesson):
    for other in lessons.REGISTRY:
        if other is lesson:
            continue
        foreign = other.encode(other.default_state())
        state, notes = lesson.decode(foreign, others(lesson))
        assert [n.code for n in notes] == ["other_lesson"] and notes[0].args == {"lesson": other.key}
        assert_same_state(lesson, state, lesson.default_state())


@pytest.mark.parametrize("key", ["qkv", "scaling"])
def test_version_1_links_open_with_the_same_numbers(key):
    """Links shared before the contract (made by the previous code, commit 902428a) still give the numbers they
    gave then."""
    lesson = lessons.by_key(key)
    assert FIXTURES[key], "fixtures missing"
    for case in FIXTURES[key]:
        state, notes = lesson.decode(dict(parse_qsl(case["query"], keep_blank_values=True)), others(lesson))
        assert notes == [], case["name"]
        arrays = lesson.arrays(state)
        for name, M in case.get("mats", {}).items():
            np.testing.assert_array_equal(arrays[name], np.array(M).reshape(arrays[name].shape), err_msg=name)
        if case["weights"] is not None:
            # the inputs are bit for bit the same (above); what a matrix product gives may differ in the last bit
            # with the BLAS kernel the processor selects (OpenBLAS picks one per CPU model: seen as a 4e-18
            # difference in a weight of 0.0267 on another machine), far below any digit the page shows
            for name in ("weights", "output"):
                np.testing.assert_allclose(arrays[name], np.array(case[name]), rtol=1e-12, atol=1e-15,
                                           err_msg=case["name"])
        else:
            assert "weights" not in arrays
        back, again = lesson.decode(lesson.encode(state), others(lesson))  # and re-shared as version 2
        assert again == []
        assert_same_state(lesson, back, state)
