"""A page's number controls do what its lesson declares they do (``Lesson.transitions``), on every registered lesson,
under AppTest.

A fresh-user trial found /multihead's seed field changing only the seed (``bind.setter("seed", int)``) while the
lesson declared ``with_seed`` (every number the preset does not give drawn again): a class told "use seed 4" got seed
0's numbers, and the link wrote them all out. The contract tests drove the declared transition, so nothing saw the
page's own. Here every declared transition with one integer or decimal argument whose control the page draws under
the same name (a number field or a slider keyed ``<lesson>.<name>``) is moved on the page to another value in its
range, and the state the page then holds must be the declared transition applied to that value (read as its
link field reads it: an integer field's number as an int). A page whose control sends another number than the
transition takes (a slider showing a step from 1) declares the transition in the control's terms.
"""
from __future__ import annotations

import pytest
from lesson_strategies import fixed_states
from test_pages import open_page

import lessons
from lessons import link

LESSONS = pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)


def numeric_transitions(lesson) -> dict[str, link.Field]:
    """The declared transitions of one integer or decimal argument: {name: its field}."""
    return {name: tr.args[0] for name, tr in (lesson.transitions or {}).items()
            if len(tr.args) == 1 and isinstance(tr.args[0], (link.Int, link.Decimal))}


def _controls(at, key: str) -> list:
    return [w for kind in ("number_input", "slider") for w in getattr(at, kind) if w.key == key]


def _other_value(w, field) -> float | None:
    """A value the control can take other than its own: one step up, else one step down (None when neither)."""
    lo = getattr(w, "min", None)
    hi = getattr(w, "max", None)
    lo = field.lo if lo is None else lo
    hi = field.hi if hi is None else hi
    step = getattr(w, "step", None) or 1
    v = w.value
    if not isinstance(v, (int, float)):
        return None
    for cand in (v + step, v - step):
        if lo <= cand <= hi:
            return type(v)(round(cand, 9))
    return None


@LESSONS
def test_a_number_control_applies_the_declared_transition(lesson):
    fields = numeric_transitions(lesson)
    tried = []
    for state in fixed_states(lesson)[:3]:
        at = open_page(lesson, state=state)
        assert not at.exception, [e.value for e in at.exception]
        for name, field in fields.items():
            key = f"{lesson.key}.{name}"
            if not _controls(at, key):
                continue
            at = open_page(lesson, state=state)  # each control from the same state
            w = _controls(at, key)[0]
            value = _other_value(w, field)
            if value is None:
                continue
            before = at.session_state[f"{lesson.key}:state"]
            w.set_value(value)
            at.run()
            assert not at.exception, [e.value for e in at.exception]
            after = at.session_state[f"{lesson.key}:state"]
            sent = int(value) if isinstance(field, link.Int) else float(value)  # as the link field reads it
            want = lesson.transitions[name].apply(before, sent)
            assert lesson.encode(after) == lesson.encode(want), (
                f"/{lesson.key}: the page's {name} control set to {value} does not do the declared transition:\n"
                f"  page: {lesson.encode(after)}\n  declared: {lesson.encode(want)}")
            tried.append(name)
    if not fields:
        pytest.skip(f"{lesson.key} declares no transition of one number")
    if not tried:
        pytest.skip(f"{lesson.key}: no declared number transition has a control of its name on the page")
