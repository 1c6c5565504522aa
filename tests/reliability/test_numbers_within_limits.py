"""Every registered lesson: any state a person or a link can reach within the limits shows finite numbers.

States are drawn from the lesson's own link schema (tests/contract/lesson_strategies.py: valid field values, and
matrices of the state's shapes with cells anywhere in ±the cell limit, the ends included), so a new lesson is
covered without new code. Every array the lesson shows must be free of NaN and +∞ (−∞ only where a mask hides a
score). The attention math at those limits: tests/core/test_limit_properties.py.
"""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_kit import LESSONS

from lessons import link

LIMITS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def at_the_limit(shape, field):
    from lesson_strategies import matrix_values

    if isinstance(field, link.Mask):
        return matrix_values(shape, field)
    r, c = shape
    edge = st.sampled_from([field.limit, -field.limit, 0.0]) if np.isfinite(field.limit) else st.just(0.0)
    cell = st.one_of(edge, st.floats(-min(field.limit, 1e300), min(field.limit, 1e300), allow_nan=False))
    return st.lists(cell, min_size=r * c, max_size=r * c).map(lambda v: np.array(v, dtype=float).reshape(r, c))


@LESSONS
@LIMITS
@given(data=st.data())
def test_any_state_within_the_limits_shows_finite_numbers(lesson, data):
    from lesson_strategies import field_values

    state, _ = lesson.from_link(data.draw(field_values(lesson.link)))
    mats = {m.key: data.draw(at_the_limit(lesson.matrix_shape(state, m.key), m)) for m in lesson.link.matrices}
    state = lesson.with_matrices(state, mats)
    for name, a in lesson.arrays(state).items():
        assert not np.isnan(a).any() and not np.isposinf(a).any(), name
