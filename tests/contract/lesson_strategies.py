"""Hypothesis strategies built from a lesson's link schema: valid field values, valid matrices, hostile links.

Written from the field types' documented rules (lessons/link.py), not from the codec's code paths, so a lesson
gets them without writing a strategy of its own.
"""
from __future__ import annotations

import string

import numpy as np
from hypothesis import strategies as st

from lessons import link

TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=30)


def _decimal(f: link.Decimal):
    if f.allowed is not None:
        return st.sampled_from(f.allowed)
    if f.step is not None:
        lo, hi = int(np.ceil(f.lo / f.step - 1e-9)), int(np.floor(f.hi / f.step + 1e-9))
        return st.integers(lo, hi).map(lambda k: round(k * f.step, 6) + 0.0)
    return st.floats(f.lo, f.hi, allow_nan=False)


def _text(f: link.Text):
    chars = st.characters(blacklist_categories=("Cs", "Cc"))
    s = st.text(chars, max_size=f.max_chars).filter(lambda x: not link.unshowable(x))  # what Text refuses (U+2028…)
    return s.map(str.strip).filter(lambda x: len(x) <= f.max_chars) if f.strip else s


def value_strategy(f: link.Field):
    """Values a field accepts (what a state can hold), by the field's documented rules."""
    if isinstance(f, link.Int):
        return st.sampled_from(f.allowed) if f.allowed is not None else st.integers(f.lo, min(f.hi, f.lo + 40))
    if isinstance(f, link.Choice):
        return st.sampled_from(f.choices)
    if isinstance(f, link.Flag):
        return st.booleans()
    if isinstance(f, link.Decimal):
        return _decimal(f)
    if isinstance(f, link.Text):
        return _text(f)
    if isinstance(f, link.Vector):
        num = st.floats(-f.limit, f.limit, allow_nan=False).map(lambda v: v + 0.0)
        return st.tuples(*[num] * f.n)
    raise TypeError(f"no strategy for field type {type(f).__name__}: add one here")


def field_values(schema: link.LinkSchema):
    """A dict with a random subset of the schema's scalar fields, each with a valid value (what ``from_link`` reads:
    not the cell picker's ``link.Cell``, which the contract places, see :func:`picked_cell`)."""
    return st.fixed_dictionaries({}, optional={f.key: value_strategy(f) for f in schema.fields
                                               if not isinstance(f, link.Cell)})


def picked_cell(lesson, state):
    """A cell the state's cell picker can choose (``Lesson.cell_matrices``): (matrix, row, col) within its shape."""
    def cell(name):
        r, c = lesson.matrix_shape(state, name)
        return st.tuples(st.just(name), st.integers(0, max(r - 1, 0)), st.integers(0, max(c - 1, 0)))
    return st.sampled_from(tuple(lesson.cell_matrices(state))).flatmap(cell)


def matrix_values(shape: tuple[int, int], field: link.Matrix | None = None):
    """Valid values of a matrix field of this shape: booleans for a link.Mask, cell numbers otherwise (within the
    field's ``limit``, at most ±1000)."""
    r, c = shape
    if isinstance(field, link.Mask):
        return st.lists(st.booleans(), min_size=r * c, max_size=r * c).map(
            lambda v: np.array(v, dtype=bool).reshape(r, c))
    top = min(1000.0, field.limit) if field is not None else 1000.0
    small = int(min(5, top))
    cell = st.one_of(st.integers(-small, small).map(float),
                     st.floats(-top, top, allow_nan=False, width=32).map(float).filter(lambda v: abs(v) <= top))
    return st.lists(cell, min_size=r * c, max_size=r * c).map(lambda v: np.array(v, dtype=np.float64).reshape(r, c))


JUNK = st.one_of(
    TEXT, st.sampled_from(["", " ", "nan", "inf", "-inf", "1e308", "-0", "1_0", "0x10", "１２", "<b>x</b>", "$x$",
                           "9" * 400, "2x2:1,2,3", "2x2:1,2,3,4,5", "99x99:", "3x3:" + ",".join(["1e3"] * 9),
                           "\u202e\u200b", "🐕", "a" * 1000]),
    st.integers(-10**9, 10**9).map(str), st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


def hostile_params(lesson, other_keys):
    """Query parameters as a tampering student or a broken mailer could make them: the lesson's keys, other
    lessons' envelopes, the legacy envelope and random keys, with junk or valid-looking values."""
    keys = sorted(lesson.link.keys) + [lesson.key, "v", "lang", *other_keys]
    key = st.one_of(st.sampled_from(keys), st.text(string.ascii_letters + "_.[]", min_size=1, max_size=8))
    envelope = st.sampled_from([{}, {lesson.key: str(lesson.link.version)}, {"v": "1"}, {lesson.key: "99"}])
    return st.tuples(envelope, st.dictionaries(key, JUNK, max_size=12)).map(lambda p: {**p[0], **p[1]})


def corner_values(schema: link.LinkSchema) -> dict:
    """One valid, far-from-default value per scalar field (for tests that need a fixed, non-default state)."""
    out = {}
    for f in schema.fields:
        if isinstance(f, link.Int):
            out[f.key] = f.allowed[1] if f.allowed else min(f.lo + 2, f.hi)
        elif isinstance(f, link.Choice):
            out[f.key] = f.choices[-1]
        elif isinstance(f, link.Flag):
            out[f.key] = False
        elif isinstance(f, link.Decimal):
            out[f.key] = f.allowed[0] if f.allowed else f.snap(f.lo + (f.hi - f.lo) / 3)
        elif isinstance(f, link.Text):
            out[f.key] = "犬 が <b>犬</b> & $x$"[: f.max_chars]
        elif isinstance(f, link.Vector):
            out[f.key] = tuple(float(i) - 1.5 for i in range(f.n))
    return out


def fixed_states(lesson) -> list:
    """The default state, the widest (if declared), and ``one_edit`` of each (if declared)."""
    states = [lesson.default_state(), *((lesson.widest(),) if lesson.widest else ())]
    return states + ([lesson.one_edit(s) for s in states] if lesson.one_edit else [])
