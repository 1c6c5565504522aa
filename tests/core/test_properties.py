"""Property tests (hypothesis) for attention_core: invariants that hold for every input, not one example.

Floats are bounded (|x| <= 50, or smaller where products are taken) and sizes are 1..6, so every example
is cheap and no product overflows.
"""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import project_qkv, scaled_dot_product_attention, softmax

SETTINGS = settings(max_examples=150, deadline=None)
SIZES = st.integers(min_value=1, max_value=6)


def finite(lo: float, hi: float):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


def matrix(rows: int, cols: int, bound: float = 50.0):
    return arrays(np.float64, (rows, cols), elements=finite(-bound, bound))


@st.composite
def qkv_and_mask(draw, bound: float = 5.0):
    """Q (n_q, d_k), K (n_k, d_k), V (n_k, d_v) and a random bool mask (n_q, n_k)."""
    n_q, n_k, d_k, d_v = draw(SIZES), draw(SIZES), draw(SIZES), draw(SIZES)
    Q = draw(matrix(n_q, d_k, bound))
    K = draw(matrix(n_k, d_k, bound))
    V = draw(matrix(n_k, d_v, 50.0))
    mask = draw(arrays(np.bool_, (n_q, n_k)))
    return Q, K, V, mask


# ------------------------------------------------------------------------------------------------ softmax


@SETTINGS
@given(st.tuples(SIZES, SIZES).flatmap(lambda s: matrix(*s)))
def test_softmax_rows_sum_to_one_and_lie_in_unit_interval(x):
    w = softmax(x)
    assert w.shape == x.shape
    assert np.all(np.isfinite(w))
    assert np.all(w >= 0.0) and np.all(w <= 1.0)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


@SETTINGS
@given(st.tuples(SIZES, SIZES).flatmap(lambda s: matrix(*s)), finite(-1000.0, 1000.0))
def test_softmax_shift_invariance(x, c):
    # softmax(x + c) = softmax(x); adding c (|c| <= 1000) loses at most ~1e-13 absolute in x + c
    np.testing.assert_allclose(softmax(x + c), softmax(x), rtol=0, atol=1e-10)


@SETTINGS
@given(st.tuples(SIZES, SIZES).flatmap(lambda s: matrix(*s)), st.data())
def test_softmax_neg_inf_entries_are_exactly_zero(x, data):
    hide = data.draw(arrays(np.bool_, x.shape))
    y = np.where(hide, -np.inf, x)
    w = softmax(y)
    assert not np.any(np.isnan(w))
    assert np.all(w[hide] == 0.0)
    full = hide.all(axis=-1)
    np.testing.assert_array_equal(w[full], 0.0)
    np.testing.assert_allclose(w[~full].sum(axis=-1), 1.0, rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------------------------- attention


@SETTINGS
@given(qkv_and_mask())
def test_attention_weights_rows_sum_to_one_and_in_unit_interval(case):
    Q, K, V, _ = case
    steps = scaled_dot_product_attention(Q, K, V)
    w = steps.weights
    assert w.shape == (Q.shape[0], K.shape[0])
    assert np.all(w >= 0.0) and np.all(w <= 1.0)
    np.testing.assert_allclose(w.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert not steps.fully_masked.any()


@SETTINGS
@given(qkv_and_mask())
def test_masked_entries_are_exactly_zero(case):
    Q, K, V, mask = case
    steps = scaled_dot_product_attention(Q, K, V, mask=mask)
    assert np.all(steps.weights[~mask] == 0.0)
    assert np.all(np.isneginf(steps.scaled_scores[~mask]))
    assert not np.any(np.isnan(steps.weights)) and not np.any(np.isnan(steps.output))
    live = mask.any(axis=1)
    np.testing.assert_array_equal(steps.fully_masked, ~live)
    np.testing.assert_allclose(steps.weights[live].sum(axis=1), 1.0, rtol=0, atol=1e-12)


@SETTINGS
@given(qkv_and_mask(), st.data())
def test_fully_masked_row_gives_zero_weights_and_output(case, data):
    Q, K, V, mask = case
    row = data.draw(st.integers(min_value=0, max_value=Q.shape[0] - 1))
    mask = mask.copy()
    mask[row, :] = False
    steps = scaled_dot_product_attention(Q, K, V, mask=mask)
    np.testing.assert_array_equal(steps.weights[row], 0.0)
    np.testing.assert_array_equal(steps.output[row], 0.0)
    assert steps.fully_masked[row]
    assert not np.any(np.isnan(steps.weights)) and not np.any(np.isnan(steps.output))


@SETTINGS
@given(qkv_and_mask())
def test_output_rows_lie_within_bounds_of_attended_values(case):
    Q, K, V, mask = case
    mask = mask.copy()
    mask[~mask.any(axis=1), 0] = True  # no fully masked row
    steps = scaled_dot_product_attention(Q, K, V, mask=mask)
    tol = 1e-9 * (1.0 + np.abs(V).max())
    for i in range(Q.shape[0]):
        seen = V[mask[i]]  # the values row i may attend to
        assert np.all(steps.output[i] >= seen.min(axis=0) - tol)
        assert np.all(steps.output[i] <= seen.max(axis=0) + tol)
        # and hence within the bounds of all of V
        assert np.all(steps.output[i] >= V.min(axis=0) - tol)
        assert np.all(steps.output[i] <= V.max(axis=0) + tol)


@st.composite
def tokens_weights_perm(draw):
    n, d_model, d_k, d_v = draw(SIZES), draw(SIZES), draw(SIZES), draw(SIZES)
    X = draw(matrix(n, d_model, 10.0))
    W_Q = draw(matrix(d_model, d_k, 2.0))
    W_K = draw(matrix(d_model, d_k, 2.0))
    W_V = draw(matrix(d_model, d_v, 2.0))
    perm = np.array(draw(st.permutations(range(n))), dtype=int)
    return X, W_Q, W_K, W_V, perm


@SETTINGS
@given(tokens_weights_perm())
def test_permutation_equivariance_without_positions(case):
    # Without positional information, reordering the tokens only reorders the results:
    # weights(X[p]) = weights(X)[p][:, p], output(X[p]) = output(X)[p].
    X, W_Q, W_K, W_V, perm = case
    base = scaled_dot_product_attention(*project_qkv(X, W_Q, W_K, W_V))
    moved = scaled_dot_product_attention(*project_qkv(X[perm], W_Q, W_K, W_V))
    np.testing.assert_allclose(moved.scores, base.scores[perm][:, perm], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(moved.weights, base.weights[perm][:, perm], rtol=0, atol=1e-7)
    out_tol = 1e-7 * (1.0 + np.abs(base.output).max())
    np.testing.assert_allclose(moved.output, base.output[perm], rtol=0, atol=out_tol)
