"""A transition never raises anything but a refusal (issue 20), for every registered lesson.

Each lesson declares the changes its page's controls make (``Lesson.transitions``, lessons/base.py), each argument
described by a link field: what the control can send, including what a stale control still sends after the state
changed under it. Hypothesis drives random sequences of them from random valid states, with matrices of the right
shape, of a neighbouring (stale) shape and of any shape, and requires after each step either a
``lessons.cells.Refusal`` whose reason has words in both languages, or a valid state: its numbers free of NaN, its
link read back without a notice to the same numbers. Oracle: the contract's own rules (lessons/base.py,
lessons/link.py), not the lessons' code paths; a lesson gets this test by declaring its transitions.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lesson_strategies import matrix_values, value_strategy
from test_contract import assert_same_state, others, valid_state

import lessons
from lessons import link
from lessons.cells import Refusal
from ui.i18n import LANGS, table

LESSONS = pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
SEQUENCES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _shape_of(lesson, state, key: str) -> tuple[int, int] | None:
    try:
        return tuple(lesson.matrix_shape(state, key))
    except (KeyError, TypeError):
        return None


def argument(lesson, state, f: link.Field):
    """A value the control behind field ``f`` can send now. A matrix: of the state's shape, a neighbouring shape
    (a grid drawn before a size changed) or any shape up to 17×17, its cells valid or past the limit."""
    if isinstance(f, link.Matrix):
        right = _shape_of(lesson, state, f.key)
        shapes = [st.tuples(st.integers(0, 17), st.integers(0, 17))]
        if right is not None:
            r, c = right
            stale = [(max(r + dr, 0), max(c + dc, 0)) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
            shapes += [st.just(right), st.just(right), st.sampled_from(stale)]
        values = st.one_of(st.just(None), st.sampled_from([1e4, -1e9]))

        def build(shape, junk):
            m = matrix_values(shape, f)
            return m if junk is None or isinstance(f, link.Mask) else m.map(lambda a: np.where(a > 900, junk, a))
        return st.tuples(st.one_of(*shapes), values).flatmap(lambda p: build(*p))
    return value_strategy(f)


def walk(lesson, state, data, least: int, most: int):
    """The states a random walk of ``least``..``most`` of the lesson's transitions reaches from ``state``, each as it
    is reached (a refused move is skipped), for the contract tests that check a property along the way."""
    moves = lesson.all_transitions()
    for _ in range(data.draw(st.integers(least, most), label="moves")):
        name = data.draw(st.sampled_from(sorted(moves)), label="transition")
        args = [data.draw(argument(lesson, state, f), label=f"{name}.{f.key}") for f in moves[name].args]
        try:
            state = moves[name].apply(state, *args)
        except Refusal:
            continue
        yield state


def check_refusal(e: Refusal) -> None:
    for lang in LANGS:
        text = table(lang).get(f"reason.{e.code}")
        assert text, f"{lang}: no words for reason.{e.code}"
        text.format(**e.args_)


def check_valid(lesson, state) -> None:
    for name, a in lesson.arrays(state).items():
        assert isinstance(a, np.ndarray) and a.dtype == np.float64, name
        assert not np.isnan(a).any() and not np.isposinf(a).any(), name
    back, notes = lesson.decode(lesson.encode(state), others(lesson))
    assert notes == [], notes
    assert_same_state(lesson, back, state)
    if lesson.cell_matrices is not None:
        assert lesson.picked_cell(back) == lesson.picked_cell(state)


@LESSONS
def test_every_lesson_declares_its_transitions(lesson):
    moves = lesson.all_transitions()
    assert moves, f"{lesson.key}: declare Lesson.transitions (what the page's controls do)"
    for name, tr in moves.items():
        assert callable(tr.apply) and all(isinstance(f, link.Field) for f in tr.args), name


@LESSONS
@SEQUENCES
@given(data=st.data())
def test_a_transition_never_raises_anything_but_a_refusal(lesson, data):
    state = valid_state(lesson, data)
    moves = lesson.all_transitions()
    for _ in range(data.draw(st.integers(1, 8), label="moves")):
        name = data.draw(st.sampled_from(sorted(moves)), label="transition")
        tr = moves[name]
        args = [data.draw(argument(lesson, state, f), label=f"{name}.{f.key}") for f in tr.args]
        try:
            new = tr.apply(state, *args)
        except Refusal as e:
            check_refusal(e)
            continue
        assert type(new) is type(state), name
        check_valid(lesson, new)
        state = new


def test_a_grid_of_the_old_shape_is_refused_in_words_not_a_value_error():
    """Issue 20's reproduction as a transition: X drawn at d_model 4, then d_model 11, then the grid's 3×4 commit."""
    from lessons import qkv

    state = qkv.with_sizes(qkv.default_state("dog"), d_model=11)
    with pytest.raises(Refusal) as e:
        qkv.with_matrix(state, "X", np.zeros((3, 4)))
    assert (e.value.code, e.value.args_) == ("shape", {"got": "3x4", "want": "3x11"})
    check_refusal(e.value)
