"""Property tests at the app's own limits: any shape and any values a lesson can hold give finite numbers.

tests/core/test_properties.py checks the invariants on small, mild inputs (|x| <= 50, sizes 1..6). Here the inputs
go to the limits the lessons allow (lessons/cells.py, lessons/qkv.py, attention_core/tokens.py): up to 16 tokens,
d_model, d_k, d_v up to 16, a typed cell up to ±1000, a typed Q, K or V up to ±16·1000² (what X·W can reach),
any boolean mask, fully masked rows included. Weights must be finite, in [0, 1], each row summing to 1 (0 for a
row with nothing to attend to); outputs finite. The worst cases (every cell at the limit) are written out too.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import project_qkv, scaled_dot_product_attention
from attention_core.tokens import MAX_TOKENS
from lessons.cells import CELL_LIMIT
from lessons.qkv import DIM_MAX, DIRECT_LIMIT

LIMITS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
N = st.integers(1, MAX_TOKENS)
D = st.integers(1, DIM_MAX)


def cells(shape, limit: float):
    """Values a grid or a link can put in a matrix of this shape: anywhere in ±limit, the ends and 0 included."""
    edge = st.sampled_from([limit, -limit, 0.0, -0.0])
    return arrays(np.float64, shape, elements=st.one_of(edge, st.floats(-limit, limit, allow_nan=False)))


def check(steps, mask=None) -> None:
    w, out = steps.weights, steps.output
    assert np.isfinite(w).all() and np.isfinite(out).all()
    assert (w >= 0).all() and (w <= 1).all()
    live = np.ones(w.shape[0], bool) if mask is None else mask.any(axis=1)
    np.testing.assert_allclose(w[live].sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(w[~live], 0.0)
    np.testing.assert_array_equal(out[~live], 0.0)


@LIMITS
@given(data=st.data(), n=N, d_model=D, d_k=D, d_v=D)
def test_typed_x_and_weights_at_the_cell_limit_give_finite_attention(data, n, d_model, d_k, d_v):
    X = data.draw(cells((n, d_model), CELL_LIMIT))
    W_Q, W_K = data.draw(cells((d_model, d_k), CELL_LIMIT)), data.draw(cells((d_model, d_k), CELL_LIMIT))
    W_V = data.draw(cells((d_model, d_v), CELL_LIMIT))
    mask = data.draw(st.one_of(st.none(), arrays(np.bool_, (n, n))))
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    assert np.abs(Q).max() <= DIRECT_LIMIT and np.abs(V).max() <= DIRECT_LIMIT  # what a direct-mode cell may hold
    check(scaled_dot_product_attention(Q, K, V, mask=mask), mask)


@LIMITS
@given(data=st.data(), n_q=N, n_k=N, d_k=D, d_v=D)
def test_typed_q_k_v_at_the_direct_limit_give_finite_attention(data, n_q, n_k, d_k, d_v):
    Q, K = data.draw(cells((n_q, d_k), DIRECT_LIMIT)), data.draw(cells((n_k, d_k), DIRECT_LIMIT))
    V = data.draw(cells((n_k, d_v), DIRECT_LIMIT))
    mask = data.draw(st.one_of(st.none(), arrays(np.bool_, (n_q, n_k))))
    check(scaled_dot_product_attention(Q, K, V, mask=mask), mask)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_every_cell_at_the_limit(sign):
    """16 tokens, every size 16, every cell ±1000: Q = X·W_Q holds 16·1000² = 1.6e7 per entry, a score
    16·(1.6e7)² = 4.1e15, far below the float64 range; the softmax of equal rows is uniform (1/16 each)."""
    n = d = 16
    X = np.full((n, d), sign * CELL_LIMIT)
    W = np.full((d, d), CELL_LIMIT)
    Q, K, V = project_qkv(X, W, W, W)
    np.testing.assert_array_equal(Q, sign * d * CELL_LIMIT**2)
    steps = scaled_dot_product_attention(Q, K, V)
    np.testing.assert_array_equal(steps.scores, d * (d * CELL_LIMIT**2) ** 2)
    np.testing.assert_allclose(steps.weights, 1 / n, rtol=1e-12)
    np.testing.assert_allclose(steps.output, sign * d * CELL_LIMIT**2, rtol=1e-12)
    check(steps)


def test_one_huge_score_against_the_rest_is_one_hot_not_nan():
    """Scores of 4e15 next to −4e15: after subtracting the row's max, e^(−8e15/4) is 0, not NaN."""
    Q = np.array([[DIRECT_LIMIT] * 16])
    K = np.array([[DIRECT_LIMIT] * 16, [-DIRECT_LIMIT] * 16])
    V = np.array([[1.0], [2.0]])
    steps = scaled_dot_product_attention(Q, K, V)
    np.testing.assert_array_equal(steps.weights, [[1.0, 0.0]])
    np.testing.assert_array_equal(steps.output, [[1.0]])
