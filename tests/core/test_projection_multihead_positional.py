"""Unit tests for project_qkv, split_heads / merge_heads, multi_head_attention and the sinusoidal encoding.

Expected numbers are worked by hand (arithmetic in the comments), taken from cases/README.md (K05, K07),
or computed by an independent reference written out here with numpy exp (never via attention_core).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import (
    MultiHeadSteps,
    causal_mask,
    merge_heads,
    multi_head_attention,
    project_qkv,
    sinusoidal_positional_encoding,
    split_heads,
)


def reference_attention(Q, K, V, mask=None):
    """softmax(QKᵀ/√d_k)·V written out: exp(s - max) / Σ exp(s - max), masked entries dropped."""
    s = (Q @ K.T) / math.sqrt(Q.shape[1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    w = e / e.sum(axis=1, keepdims=True)
    return w, w @ V


# ----------------------------------------------------------------------------------------------- project_qkv


def test_project_qkv_by_hand():
    X = np.array([[1.0, 2.0], [3.0, 4.0]])
    W_Q = np.array([[1.0, 1.0], [0.0, 1.0]])
    W_K = np.array([[2.0, 0.0], [0.0, 0.5]])
    W_V = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])  # d_v = 3 ≠ d_k = 2
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    # Q: [1,2]·W_Q = [1·1+2·0, 1·1+2·1] = [1, 3];   [3,4]·W_Q = [3, 3+4] = [3, 7]
    np.testing.assert_array_equal(Q, [[1.0, 3.0], [3.0, 7.0]])
    # K: [1,2]·W_K = [2, 1];   [3,4]·W_K = [6, 2]
    np.testing.assert_array_equal(K, [[2.0, 1.0], [6.0, 2.0]])
    # V: [1,2]·W_V = [1, 2, 3];   [3,4]·W_V = [3, 4, 7]
    np.testing.assert_array_equal(V, [[1.0, 2.0, 3.0], [3.0, 4.0, 7.0]])
    for M in (Q, K, V):
        assert M.dtype == np.float64


def test_project_qkv_identity_returns_x():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    Q, K, V = project_qkv(X, np.eye(2), np.eye(2), np.eye(2))
    for M in (Q, K, V):
        np.testing.assert_array_equal(M, X)


def test_project_qkv_accepts_lists_and_ints():
    Q, K, V = project_qkv([[1, 2]], [[1], [1]], [[2], [0]], [[0, 1], [1, 0]])
    # [1,2]·[[1],[1]] = [3]; [1,2]·[[2],[0]] = [2]; [1,2]·[[0,1],[1,0]] = [2, 1]
    np.testing.assert_array_equal(Q, [[3.0]])
    np.testing.assert_array_equal(K, [[2.0]])
    np.testing.assert_array_equal(V, [[2.0, 1.0]])


X23 = np.ones((2, 3))
W3 = np.ones((3, 2))


@pytest.mark.parametrize(
    "args, names",
    [
        ((X23, np.ones((2, 2)), W3, W3), ["W_Q", "(2, 2)"]),  # W_Q rows ≠ d_model
        ((X23, W3, np.ones((4, 2)), W3), ["W_K", "(4, 2)"]),  # W_K rows ≠ d_model
        ((X23, W3, W3, np.ones((2, 5))), ["W_V", "(2, 5)"]),  # W_V rows ≠ d_model
        ((X23, np.ones((3, 2)), np.ones((3, 4)), W3), ["(3, 2)", "(3, 4)"]),  # W_Q, W_K widths differ
        ((np.ones(3), W3, W3, W3), ["X"]),  # X not 2-D
    ],
)
def test_project_qkv_shape_errors(args, names):
    with pytest.raises(ValueError) as exc:
        project_qkv(*args)
    for name in names:
        assert name in str(exc.value)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_project_qkv_non_finite_refused(bad):
    X = X23.copy()
    X[0, 1] = bad
    with pytest.raises(ValueError):
        project_qkv(X, W3, W3, W3)
    W = W3.copy()
    W[2, 0] = bad
    with pytest.raises(ValueError):
        project_qkv(X23, W3, W3, W)


def test_project_qkv_overflow_refused():
    # 1e200 · 1e200 = 1e400 > float64 max ≈ 1.8e308 → inf
    with pytest.raises(ValueError):
        project_qkv([[1e200]], [[1e200]], [[1.0]], [[1.0]])


# ----------------------------------------------------------------------------------- split_heads / merge_heads

K05_Q = np.arange(1, 13, dtype=float).reshape(3, 4)  # [[1,2,3,4],[5,6,7,8],[9,10,11,12]]


def test_k05_split_heads_column_blocks():
    H = split_heads(K05_Q, 2)
    assert H.shape == (2, 3, 2)
    np.testing.assert_array_equal(H[0], [[1, 2], [5, 6], [9, 10]])
    np.testing.assert_array_equal(H[1], [[3, 4], [7, 8], [11, 12]])
    # the classic bug (reshape without the axis swap) would give [[1,2],[3,4],[5,6]] for head 0
    assert not np.array_equal(H[0], [[1, 2], [3, 4], [5, 6]])


def test_k05_merge_heads_restores():
    H = np.array([[[1, 2], [5, 6], [9, 10]], [[3, 4], [7, 8], [11, 12]]], dtype=float)
    np.testing.assert_array_equal(merge_heads(H), K05_Q)


def test_split_heads_one_and_width_heads():
    np.testing.assert_array_equal(split_heads(K05_Q, 1), K05_Q[None])
    H = split_heads(K05_Q, 4)  # d_head = 1: head i is column i
    assert H.shape == (4, 3, 1)
    for i in range(4):
        np.testing.assert_array_equal(H[i][:, 0], K05_Q[:, i])


@pytest.mark.parametrize("n_heads", [0, -1, 3, 5])
def test_split_heads_invalid_n_heads(n_heads):
    with pytest.raises(ValueError):
        split_heads(K05_Q, n_heads)


def test_split_heads_not_a_matrix():
    with pytest.raises(ValueError):
        split_heads(np.arange(4.0), 2)


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4, 1), (4,)])
def test_merge_heads_needs_3d(shape):
    with pytest.raises(ValueError):
        merge_heads(np.zeros(shape))


@st.composite
def matrix_and_heads(draw):
    h = draw(st.integers(1, 4))
    d_head = draw(st.integers(1, 4))
    n = draw(st.integers(1, 6))
    M = draw(arrays(np.float64, (n, h * d_head), elements=st.floats(-50, 50, allow_nan=False)))
    return M, h, d_head


@settings(max_examples=100, deadline=None)
@given(matrix_and_heads())
def test_split_merge_round_trip(case):
    M, h, d_head = case
    H = split_heads(M, h)
    assert H.shape == (h, M.shape[0], d_head)
    for i in range(h):
        np.testing.assert_array_equal(H[i], M[:, i * d_head:(i + 1) * d_head])
    np.testing.assert_array_equal(merge_heads(H), M)
    np.testing.assert_array_equal(split_heads(merge_heads(H), h), H)


# ------------------------------------------------------------------------------------------ multi_head_attention

RNG = np.random.default_rng(20240601)


def test_one_head_identity_wo_equals_plain_attention():
    X = RNG.uniform(-2, 2, size=(4, 3))
    W_Q, W_K, W_V = (RNG.uniform(-1, 1, size=(3, 3)) for _ in range(3))
    res = multi_head_attention(X, X, W_Q, W_K, W_V, np.eye(3), n_heads=1)
    assert isinstance(res, MultiHeadSteps)
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    w, out = reference_attention(Q, K, V)
    np.testing.assert_allclose(res.Q, Q, atol=1e-12)
    np.testing.assert_allclose(res.K, K, atol=1e-12)
    np.testing.assert_allclose(res.V, V, atol=1e-12)
    assert len(res.heads) == 1
    np.testing.assert_allclose(res.heads[0].weights, w, atol=1e-12)
    assert res.heads[0].scale == pytest.approx(1 / math.sqrt(3), abs=1e-15)
    np.testing.assert_allclose(res.concat, out, atol=1e-12)
    np.testing.assert_allclose(res.output, out, atol=1e-12)


def test_one_head_k08_numbers():
    # K08 via multi-head with one head and W_O = I: same weights as cases/README.md K08
    X2 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    W_Q = np.array([[1.0, 0.0], [0.0, 2.0]])
    W_K = np.array([[0.0, 1.0], [1.0, 0.0]])
    res = multi_head_attention(X2, X2, W_Q, W_K, np.eye(2), np.eye(2), n_heads=1)
    expected = np.array(
        [[0.197776, 0.401112, 0.401112], [0.445808, 0.108383, 0.445808], [0.283995, 0.140029, 0.575975]]
    )
    np.testing.assert_allclose(res.heads[0].weights, expected, atol=1e-6)
    # output = weights · V with V = X2: row 0 = 0.197776·[1,0] + 0.401112·[0,1] + 0.401112·[1,1]
    #                                         = [0.598888, 0.802224]
    np.testing.assert_allclose(res.output[0], [0.598888, 0.802224], atol=1e-6)


def test_two_heads_match_independent_reference_with_wo():
    # d_model = 4, h = 2, d_head = 2: each head is column block i of Q, K, V, scaled by 1/√2.
    X_q = RNG.uniform(-2, 2, size=(2, 4))
    X_kv = RNG.uniform(-2, 2, size=(3, 4))  # cross-attention: 2 queries, 3 keys
    W_Q, W_K, W_V, W_O = (RNG.uniform(-1, 1, size=(4, 4)) for _ in range(4))
    res = multi_head_attention(X_q, X_kv, W_Q, W_K, W_V, W_O, n_heads=2)
    Q, K, V = X_q @ W_Q, X_kv @ W_K, X_kv @ W_V
    outs = []
    for i in range(2):
        cols = slice(2 * i, 2 * i + 2)
        w, o = reference_attention(Q[:, cols], K[:, cols], V[:, cols])
        np.testing.assert_allclose(res.heads[i].weights, w, atol=1e-12)
        assert res.heads[i].weights.shape == (2, 3)
        assert res.heads[i].scale == pytest.approx(1 / math.sqrt(2), abs=1e-15)
        outs.append(o)
    concat = np.hstack(outs)
    np.testing.assert_allclose(res.concat, concat, atol=1e-12)
    np.testing.assert_allclose(res.output, concat @ W_O, atol=1e-12)
    assert res.output.shape == (2, 4)


def test_mask_is_shared_by_every_head():
    X = RNG.uniform(-2, 2, size=(3, 4))
    W_Q, W_K, W_V = (RNG.uniform(-1, 1, size=(4, 4)) for _ in range(3))
    mask = causal_mask(3)
    res = multi_head_attention(X, X, W_Q, W_K, W_V, np.eye(4), n_heads=2, mask=mask)
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    for i, head in enumerate(res.heads):
        cols = slice(2 * i, 2 * i + 2)
        w, _ = reference_attention(Q[:, cols], K[:, cols], V[:, cols], mask=mask)
        np.testing.assert_allclose(head.weights, w, atol=1e-12)
        assert head.weights[0, 1] == 0.0 and head.weights[0, 2] == 0.0 and head.weights[1, 2] == 0.0


def test_multi_head_two_heads_by_hand():
    # d_model = 2 split into 2 heads of width 1. X = [[1, 0], [0, 1]], all W = I.
    # Q = K = V = I. Head 0 uses column 0: q = k = v = [[1],[0]]; head 1 uses column 1: [[0],[1]].
    # d_head = 1 → scale 1. Head 0 scores [[1,0],[0,0]]:
    #   row 0 softmax([1,0]) = [e/(e+1), 1/(e+1)] = [0.731059, 0.268941]; row 1 uniform [0.5, 0.5]
    #   output head 0 = weights·[[1],[0]] = [[0.731059],[0.5]]
    # Head 1 scores [[0,0],[0,1]]: row 0 [0.5,0.5]; row 1 [0.268941, 0.731059]
    #   output head 1 = weights·[[0],[1]] = [[0.5],[0.731059]]
    # concat = [[0.731059, 0.5], [0.5, 0.731059]]
    X = np.eye(2)
    res = multi_head_attention(X, X, np.eye(2), np.eye(2), np.eye(2), np.eye(2), n_heads=2)
    np.testing.assert_allclose(res.heads[0].weights, [[0.731059, 0.268941], [0.5, 0.5]], atol=1e-6)
    np.testing.assert_allclose(res.heads[1].weights, [[0.5, 0.5], [0.268941, 0.731059]], atol=1e-6)
    np.testing.assert_allclose(res.concat, [[0.731059, 0.5], [0.5, 0.731059]], atol=1e-6)
    # W_O = [[0,1],[1,0]] swaps the columns
    res2 = multi_head_attention(X, X, np.eye(2), np.eye(2), np.eye(2), np.array([[0.0, 1.0], [1.0, 0.0]]), 2)
    np.testing.assert_allclose(res2.output, [[0.5, 0.731059], [0.731059, 0.5]], atol=1e-6)


I4 = np.eye(4)
X34 = np.ones((3, 4))


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(n_heads=3),  # 3 does not divide d_model = 4
        dict(n_heads=0),
        dict(X_kv=np.ones((3, 5))),  # d_model mismatch
        dict(W_O=np.eye(3)),  # W_O wrong shape
        dict(W_Q=np.ones((4, 2))),  # W_Q not (d_model, d_model)
        dict(mask=np.ones((2, 2), dtype=bool)),  # mask shape
        dict(mask=np.ones((3, 3), dtype=int)),  # non-bool mask
        dict(X_q=np.array([[np.nan, 0, 0, 0]])),  # non-finite input
    ],
)
def test_multi_head_invalid_arguments(kwargs):
    args = dict(X_q=X34, X_kv=X34, W_Q=I4, W_K=I4, W_V=I4, W_O=I4, n_heads=2)
    args.update(kwargs)
    with pytest.raises(ValueError):
        multi_head_attention(**args)


# ------------------------------------------------------------------------------------------ positional encoding


def test_k07_values_d_model_4():
    pe = sinusoidal_positional_encoding(3, 4)
    assert pe.shape == (3, 4)
    assert pe.dtype == np.float64
    # pair 0: frequency 1/10000^0 = 1; pair 1: 1/10000^(2/4) = 1/100
    # pos 1: [sin 1, cos 1, sin 0.01, cos 0.01] = [0.841471, 0.540302, 0.010000, 0.999950]
    # pos 2: [sin 2, cos 2, sin 0.02, cos 0.02] = [0.909297, -0.416147, 0.019999, 0.999800]
    np.testing.assert_allclose(pe[1], [0.841471, 0.540302, 0.010000, 0.999950], atol=1e-6)
    np.testing.assert_allclose(pe[2], [0.909297, -0.416147, 0.019999, 0.999800], atol=1e-6)
    # not "all sines first": that table would have pos 1 = [sin 1, sin 0.01, cos 1, cos 0.01]
    assert not np.allclose(pe[1], [0.841471, 0.010000, 0.540302, 0.999950], atol=1e-3)


@pytest.mark.parametrize("d_model", [1, 2, 3, 4, 5, 8])
def test_row_zero_is_sin0_cos0_pattern(d_model):
    # pos 0: every angle is 0 → sin 0 = 0 in even columns, cos 0 = 1 in odd columns
    pe = sinusoidal_positional_encoding(2, d_model)
    expected = [0.0 if j % 2 == 0 else 1.0 for j in range(d_model)]
    np.testing.assert_array_equal(pe[0], expected)


def test_odd_d_model():
    pe = sinusoidal_positional_encoding(3, 5)
    assert pe.shape == (3, 5)
    # columns 0..3 at pos 1 use 10000^(0/5) = 1 and 10000^(2/5) = 10^1.6 = 39.810717:
    #   [sin 1, cos 1, sin(1/39.810717), cos(1/39.810717)] = [0.841471, 0.540302, 0.025116, 0.999685]
    # column 4 (a sine, 2i = 4): 10000^(4/5) = 10^3.2 = 1584.893192; 1/1584.893192 = 0.000630957
    #   sin(0.000630957) = 0.000630957 (to 1e-10)
    np.testing.assert_allclose(pe[1, :4], [0.841471, 0.540302, 0.025116, 0.999685], atol=1e-6)
    np.testing.assert_allclose(pe[1, 4], 0.000630957, atol=1e-9)
    np.testing.assert_allclose(pe[2, 4], 0.001261914, atol=1e-9)


def test_base_argument():
    # base = 1: every frequency is 1 → row pos = [sin pos, cos pos, sin pos, cos pos]
    pe = sinusoidal_positional_encoding(3, 4, base=1.0)
    # pos 2: sin 2 = 0.909297, cos 2 = -0.416147
    np.testing.assert_allclose(pe[2], [0.909297, -0.416147, 0.909297, -0.416147], atol=1e-6)


def test_pairs_share_frequency_unit_norm():
    # sin²θ + cos²θ = 1 for every (2i, 2i+1) pair
    pe = sinusoidal_positional_encoding(50, 6)
    for i in range(3):
        np.testing.assert_allclose(pe[:, 2 * i] ** 2 + pe[:, 2 * i + 1] ** 2, 1.0, atol=1e-12)


def test_zero_positions():
    assert sinusoidal_positional_encoding(0, 4).shape == (0, 4)


@pytest.mark.parametrize(
    "args",
    [(-1, 4), (3, 0), (3, -2), (3, 4, 0.0), (3, 4, -10.0), (3, 4, float("nan"))],
)
def test_positional_invalid_arguments(args):
    with pytest.raises(ValueError):
        sinusoidal_positional_encoding(*args)
