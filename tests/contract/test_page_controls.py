"""A page's controls do what its lesson declares they do (``Lesson.transitions``), on every registered lesson, under
AppTest.

A fresh-user trial found /multihead's seed field changing only the seed (``bind.setter("seed", int)``) while the
lesson declared ``with_seed`` (every number the preset does not give drawn again): a class told "use seed 4" got seed
0's numbers, and the link wrote them all out. The contract tests drove the declared transition, so nothing saw the
page's own. Here every declared transition of one argument (an integer, a decimal, a flag, a choice or a text) whose
control the page draws under the same name or under its link parameter's (any widget keyed ``<lesson>.<name>`` or
``<lesson>.<link key>``: a number field, a slider, a select slider, a select box, radio buttons, a toggle, a check box,
a text field) is set on the page to another value it can take, and the state the page then holds must be the
declared transition applied to that value (read as its link field reads it: an integer field's number as an int). A
page whose control sends another value than the transition takes (a slider showing a step from 1) declares the
transition in the control's terms. Not tied: a control under a third key (/qkv's ``qkv.dm`` for ``d_model``, whose
link key is ``d_model``; /scaling's ``scaling.scale`` for ``scaled``, ``sc``).
"""
from __future__ import annotations

import pytest
from lesson_strategies import fixed_states
from test_pages import open_page

import lessons
from lessons import link

LESSONS = pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
ONE_VALUE = (link.Int, link.Decimal, link.Flag, link.Choice, link.Text)
KINDS = ("number_input", "slider", "select_slider", "selectbox", "radio", "toggle", "checkbox", "text_input",
         "text_area")
# Texts a sentence or title field can take (each a different sentence from the others and from the presets' own)
TEXTS = ("猫が魚を食べる", "私は昨日友達と公園で遊んだ", "a cat sat")


def one_value_transitions(lesson) -> dict[str, link.Field]:
    """The declared transitions of one argument of a type a control can send: {name: its field}."""
    return {name: tr.args[0] for name, tr in (lesson.transitions or {}).items()
            if len(tr.args) == 1 and isinstance(tr.args[0], ONE_VALUE)}


def _control(at, key: str):
    """The widget keyed ``key`` on the page (None when the page does not draw one)."""
    return next((w for kind in KINDS for w in getattr(at, kind) if w.key == key), None)


def _candidates(field: link.Field, current, options=()) -> list:
    """Values of ``field`` other than ``current``, nearest first; for a number shown by an option control (a select
    slider of powers of two), its ``options`` read as the field reads them."""
    if options and isinstance(field, (link.Int, link.Decimal)) and isinstance(current, (int, float)):
        values = []
        for o in options:
            try:
                values.append(field.parse(o))
            except link.Refusal:
                pass
        if values:  # (options that are labels, "1: 犬", are matched through the control's own labels below)
            return sorted((v for v in values if v != current), key=lambda v: abs(v - current))
    if isinstance(field, link.Flag):
        return [not current]
    if isinstance(field, link.Choice):
        return [c for c in field.choices if c != current]
    if isinstance(field, link.Text):
        return [s for s in TEXTS if s != current and len(s) <= field.max_chars]
    if not isinstance(current, (int, float)) or isinstance(current, bool):
        return []
    if field.allowed is not None:
        return sorted((a for a in field.allowed if a != current), key=lambda a: abs(a - current))
    step = 1 if isinstance(field, link.Int) else (field.step or 0.1)
    return [type(current)(round(current + d, 9)) for d in (step, -step) if field.lo <= current + d <= field.hi]


def _takes(w, value) -> bool:
    """Whether control ``w`` can be set to ``value``: within a number control's range, among an option control's
    options (as it shows them)."""
    options = getattr(w, "options", None)  # (a slider's is empty)
    if options:
        try:
            return str(w.format_func(value)) in options
        except Exception:  # a value the control's labels do not know
            return False
    lo, hi = getattr(w, "min", None), getattr(w, "max", None)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (lo is None or lo <= value) and (hi is None or value <= hi)
    return True


@LESSONS
def test_a_control_applies_the_declared_transition(lesson):
    fields = one_value_transitions(lesson)
    tried, seen = set(), set()
    for state in fixed_states(lesson)[:3]:
        at = open_page(lesson, state=state)
        assert not at.exception, [e.value for e in at.exception]
        drawn = {name: (key, field) for name, field in fields.items()
                 for key in (f"{lesson.key}.{name}", f"{lesson.key}.{field.key}") if _control(at, key) is not None}
        seen |= set(drawn)
        for name, (key, field) in drawn.items():
            at = open_page(lesson, state=state)  # each control from the same state
            w = _control(at, key)
            value = next((v for v in _candidates(field, w.value, getattr(w, "options", ())) if _takes(w, v)), None)
            if value is None:
                continue
            before = at.session_state[f"{lesson.key}:state"]
            w.set_value(value)
            at.run()
            assert not at.exception, [e.value for e in at.exception]
            after = at.session_state[f"{lesson.key}:state"]
            sent = int(value) if isinstance(field, link.Int) else float(value) if isinstance(field, link.Decimal) \
                else value  # as the link field reads it
            want = lesson.transitions[name].apply(before, sent)
            assert lesson.encode(after) == lesson.encode(want), (
                f"/{lesson.key}: the page's {name} control ({type(w).__name__}) set to {value!r} does not do the "
                f"declared transition:\n  page: {lesson.encode(after)}\n  declared: {lesson.encode(want)}")
            tried.add(name)
    assert seen <= tried, f"/{lesson.key}: no other value found for the controls {sorted(seen - tried)}"
    if not fields:
        pytest.skip(f"{lesson.key} declares no transition of one value")
    if not tried:
        pytest.skip(f"{lesson.key}: no declared one-value transition has a control of its name on the page")
