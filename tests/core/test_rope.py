"""Rotary position embedding (attention_core.positional.apply_rope, rope_angles; Su et al. 2021).

Expected values are worked by hand (cos 1 = 0.540302, sin 1 = 0.841471, θ_i = base^(−2i/d)) or are properties the
paper states: a rotation keeps lengths, position 0 is the identity, and the score of a query at m with a key at n
depends on n − m only."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_core import apply_rope, rope_angles

finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


def test_one_pair_rotated_by_its_position_in_radians():
    out = apply_rope(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 2.0]]))  # positions 0, 1, 2; d = 2: θ_0 = 1
    np.testing.assert_allclose(out[0], [1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(out[1], [0.540302, 0.841471], atol=1e-6)  # [cos 1, sin 1]
    np.testing.assert_allclose(out[2], [-2 * 0.909297, 2 * -0.416147], atol=1e-6)  # [−2 sin 2, 2 cos 2]


def test_second_pair_turns_a_hundred_times_slower_at_d_4():
    # θ_0 = 1, θ_1 = 10000^(−2/4) = 0.01; position 3: angles 3 and 0.03
    a = rope_angles([3], 4)
    np.testing.assert_allclose(a, [[3.0, 0.03]], rtol=1e-12)
    out = apply_rope(np.array([[0.0, 0.0, 1.0, 0.0]]), positions=[3])
    np.testing.assert_allclose(out[0], [0, 0, math.cos(0.03), math.sin(0.03)], atol=1e-12)  # 0.999550, 0.029996


def test_an_odd_width_leaves_the_last_column_as_it_is():
    M = np.array([[1.0, 2.0, 3.0]])
    out = apply_rope(M, positions=[5])
    assert out[0, 2] == 3.0
    np.testing.assert_allclose(out[0, :2], [math.cos(5) - 2 * math.sin(5), math.sin(5) + 2 * math.cos(5)], atol=1e-12)


def test_the_example_the_page_shows_same_distance_same_score():
    q, k = np.array([0.3, -1.2, 0.8, 0.5]), np.array([1.1, 0.4, -0.6, 0.9])

    def score(m, n):
        return float(apply_rope(q[None], [m])[0] @ apply_rope(k[None], [n])[0])

    assert score(2, 5) == pytest.approx(score(10, 13), abs=1e-12)
    assert abs(score(2, 6) - score(2, 5)) > 1e-3


@settings(max_examples=200, deadline=None)
@given(st.lists(finite, min_size=2, max_size=8), st.integers(0, 64), st.integers(0, 64))
def test_rotation_keeps_the_length_and_position_zero_is_the_identity(row, p, _):
    M = np.array([row])
    np.testing.assert_allclose(np.linalg.norm(apply_rope(M, [p])), np.linalg.norm(M), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(apply_rope(M, [0]), M)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 8).flatmap(lambda h: st.tuples(st.lists(finite, min_size=2 * h, max_size=2 * h),
                                                     st.lists(finite, min_size=2 * h, max_size=2 * h))),
       st.integers(0, 50), st.integers(0, 50), st.integers(0, 50), st.sampled_from([10.0, 100.0, 10000.0]))
def test_the_score_depends_only_on_the_distance(qk, m, n, shift, base):
    q, k = (np.array(v) for v in qk)
    s1 = apply_rope(q[None], [m], base)[0] @ apply_rope(k[None], [n], base)[0]
    s2 = apply_rope(q[None], [m + shift], base)[0] @ apply_rope(k[None], [n + shift], base)[0]
    assert s1 == pytest.approx(s2, abs=1e-9 * (1 + np.abs(q).sum() * np.abs(k).sum()))
    s0 = q @ apply_rope(k[None], [n - m], base)[0]  # (R_m q)·(R_n k) = q·(R_{n−m} k)
    assert s1 == pytest.approx(s0, abs=1e-9 * (1 + np.abs(q).sum() * np.abs(k).sum()))


@pytest.mark.parametrize("bad", [
    dict(M=np.zeros(3)), dict(M=np.zeros((2, 2)), positions=[0]), dict(M=np.zeros((1, 2)), base=0.0),
    dict(M=np.zeros((1, 2)), positions=[float("nan")]), dict(M=np.zeros((1, 0))),
])
def test_wrong_input_is_a_value_error_that_names_it(bad):
    with pytest.raises(ValueError):
        apply_rope(**bad)
