"""Two sequences and many heads (issue 19, item 3): rectangular attention, project_cross and multi-head attention
with W_Q, W_K (d_model, h·d_k), W_V (d_model, h·d_v), W_O (h·d_v, d_model).

Expected numbers are worked out by hand in the comments (e = 2.718282, e² = 7.389056); the property tests relate
the functions to each other and to a reference softmax written out here with numpy exp (never via attention_core):
one head with W_O = I is single-head attention, h heads are h single-head attentions side by side times W_O, and
cross-attention with X_q = X_kv is self-attention.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import (
    causal_mask,
    merge_heads,
    multi_head_attention,
    project_cross,
    project_qkv,
    scaled_dot_product_attention,
    split_heads,
)

SETTINGS = settings(max_examples=120, deadline=None)


def reference_attention(Q, K, V, mask=None):
    """softmax(QKᵀ/√d_k)·V written out: exp(s - max) / Σ exp(s - max); a fully masked row is 0."""
    s = (Q @ K.T) / math.sqrt(Q.shape[1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    top = np.max(s, axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.exp(s - top)
    total = e.sum(axis=1, keepdims=True)
    w = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return w, w @ V


# ------------------------------------------------------------------------ rectangular scaled dot-product attention
# Q (2, 1) = [[1], [0]], K (3, 1) = [[0], [1], [2]], V (3, 2) = [[1, 0], [0, 1], [1, 1]]; d_k = 1, so scale = 1.
# scores = QKᵀ = [[1·0, 1·1, 1·2], [0, 0, 0]] = [[0, 1, 2], [0, 0, 0]]
Q21 = np.array([[1.0], [0.0]])
K31 = np.array([[0.0], [1.0], [2.0]])
V32 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])


def test_two_queries_three_keys_by_hand():
    s = scaled_dot_product_attention(Q21, K31, V32)
    assert s.scores.shape == s.weights.shape == (2, 3) and s.output.shape == (2, 2)
    np.testing.assert_array_equal(s.scores, [[0.0, 1.0, 2.0], [0.0, 0.0, 0.0]])
    # row 0: [1, e, e²] / (1 + e + e²) = [1, 2.718282, 7.389056] / 11.107338 = [0.090031, 0.244728, 0.665241]
    # row 1: equal scores → [1/3, 1/3, 1/3]
    np.testing.assert_allclose(s.weights, [[0.090031, 0.244728, 0.665241], [1 / 3, 1 / 3, 1 / 3]], atol=1e-6)
    # output row 0 = 0.090031·[1,0] + 0.244728·[0,1] + 0.665241·[1,1] = [0.755272, 0.909969]
    # output row 1 = (1/3)·([1,0] + [0,1] + [1,1]) = [2/3, 2/3]
    np.testing.assert_allclose(s.output, [[0.755272, 0.909969], [2 / 3, 2 / 3]], atol=1e-6)
    np.testing.assert_array_equal(s.fully_masked, [False, False])


def test_two_queries_three_keys_rectangular_mask_by_hand():
    mask = np.array([[True, True, False], [False, True, True]])
    s = scaled_dot_product_attention(Q21, K31, V32, mask=mask)
    # row 0: softmax([0, 1, −∞]) = [1/(1+e), e/(1+e), 0] = [0.268941, 0.731059, 0]
    # row 1: softmax([−∞, 0, 0]) = [0, 0.5, 0.5]
    np.testing.assert_allclose(s.weights, [[0.268941, 0.731059, 0.0], [0.0, 0.5, 0.5]], atol=1e-6)
    assert s.weights[0, 2] == 0.0 and s.weights[1, 0] == 0.0  # exactly 0, not tiny
    assert np.isneginf(s.scaled_scores[0, 2]) and np.isneginf(s.scaled_scores[1, 0])
    # output row 0 = 0.268941·[1,0] + 0.731059·[0,1] = [0.268941, 0.731059]; row 1 = 0.5·[0,1] + 0.5·[1,1] = [0.5, 1]
    np.testing.assert_allclose(s.output, [[0.268941, 0.731059], [0.5, 1.0]], atol=1e-6)


def test_rectangular_fully_masked_row_by_hand():
    mask = np.array([[True, False, False], [False, False, False]])
    s = scaled_dot_product_attention(Q21, K31, V32, mask=mask)
    # row 0 may attend to key 0 only → weights [1, 0, 0], output = V[0] = [1, 0]; row 1 sees nothing → all 0
    np.testing.assert_array_equal(s.weights, [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(s.output, [[1.0, 0.0], [0.0, 0.0]])
    np.testing.assert_array_equal(s.fully_masked, [False, True])


def test_two_by_three_with_d_k_4_scales_by_one_half():
    # Q (2, 4), K (3, 4): scores row 0 = [1, 1+1, 0] = [1, 2, 0]; row 1 = [1·1, 1·1 + (−1)·1, 0] = [1, 0, 0]
    # ÷ √4 = 2 → [[0.5, 1, 0], [0.5, 0, 0]]
    # row 0: [e^0.5, e, 1] = [1.648721, 2.718282, 1] / 5.367003 = [0.307196, 0.506480, 0.186324]
    # row 1: [1.648721, 1, 1] / 3.648721 = [0.451863, 0.274069, 0.274069]
    Q = np.array([[1.0, 1.0, 1.0, 1.0], [1.0, -1.0, 0.0, 0.0]])
    K = np.array([[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    V = np.eye(3)  # output = weights
    s = scaled_dot_product_attention(Q, K, V)
    assert s.scale == 0.5
    np.testing.assert_array_equal(s.scaled_scores, [[0.5, 1.0, 0.0], [0.5, 0.0, 0.0]])
    np.testing.assert_allclose(s.weights, [[0.307196, 0.506480, 0.186324], [0.451863, 0.274069, 0.274069]],
                               atol=1e-6)
    np.testing.assert_allclose(s.output, s.weights, atol=0)


def test_rectangular_mask_of_the_transposed_shape_is_refused():
    with pytest.raises(ValueError, match=r"\(3, 2\).*\(2, 3\)"):
        scaled_dot_product_attention(Q21, K31, V32, mask=np.ones((3, 2), dtype=bool))


# ------------------------------------------------------------------------------------------------- project_cross


def test_project_cross_by_hand_with_another_source_width():
    # target: 1 token of d_model = 2; source: 3 tokens of d_model_kv = 3
    X_q = np.array([[1.0, 2.0]])
    X_kv = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 1.0]])
    W_Q = np.array([[1.0, 0.0], [1.0, 1.0]])  # (2, 2)
    W_K = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # (3, 2)
    W_V = np.array([[1.0], [2.0], [3.0]])  # (3, 1): d_v = 1
    Q, K, V = project_cross(X_q, X_kv, W_Q, W_K, W_V)
    # Q = [1, 2]·W_Q = [1·1 + 2·1, 1·0 + 2·1] = [3, 2]
    np.testing.assert_array_equal(Q, [[3.0, 2.0]])
    # K: [1,0,0]·W_K = [1, 0]; [0,1,0]·W_K = [0, 1]; [1,1,1]·W_K = [1+0+1, 0+1+1] = [2, 2]
    np.testing.assert_array_equal(K, [[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    # V: [1,0,0]·W_V = 1; [0,1,0]·W_V = 2; [1,1,1]·W_V = 1+2+3 = 6
    np.testing.assert_array_equal(V, [[1.0], [2.0], [6.0]])
    assert (Q.shape, K.shape, V.shape) == ((1, 2), (3, 2), (3, 1))
    assert Q.dtype == K.dtype == V.dtype == np.float64


XQ, XKV = np.ones((2, 3)), np.ones((4, 5))


@pytest.mark.parametrize(
    "args, words",
    [
        ((XQ, XKV, np.ones((5, 2)), np.ones((5, 2)), np.ones((5, 2))), ["W_Q", "d_model = 3", "(5, 2)"]),
        ((XQ, XKV, np.ones((3, 2)), np.ones((3, 2)), np.ones((5, 2))), ["W_K", "d_model_kv = 5", "(3, 2)"]),
        ((XQ, XKV, np.ones((3, 2)), np.ones((5, 2)), np.ones((3, 2))), ["W_V", "d_model_kv = 5", "(3, 2)"]),
        ((XQ, XKV, np.ones((3, 2)), np.ones((5, 3)), np.ones((5, 2))), ["d_k", "(3, 2)", "(5, 3)"]),
        ((np.ones(3), XKV, np.ones((3, 2)), np.ones((5, 2)), np.ones((5, 2))), ["X_q"]),
        ((XQ, np.ones((4, 5, 1)), np.ones((3, 2)), np.ones((5, 2)), np.ones((5, 2))), ["X_kv"]),
        ((XQ, np.array([[0.0, np.inf, 0, 0, 0]]), np.ones((3, 2)), np.ones((5, 2)), np.ones((5, 2))), ["X_kv", "inf"]),
    ],
)
def test_project_cross_errors_name_the_shapes(args, words):
    with pytest.raises(ValueError) as exc:
        project_cross(*args)
    for w in words:
        assert w in str(exc.value)


def test_project_cross_overflow_refused():
    # 1e200 · 1e200 = 1e400 > 1.8e308
    with pytest.raises(ValueError, match="K = X_kv·W_K overflowed"):
        project_cross([[1.0]], [[1e200]], [[1.0]], [[1e200]], [[1.0]])


# ------------------------------------------------------------------------------------- multi-head, worked by hand


def test_two_heads_d_k_1_d_v_2_by_hand():
    # d_model = 2, h = 2, d_k = 1, d_v = 2: W_Q, W_K (2, 2), W_V (2, 4), W_O (4, 2) -- W_V and W_O are not square.
    X = np.eye(2)
    W_Q = W_K = np.eye(2)  # Q = K = X; head 0 takes column 0, head 1 column 1
    W_V = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0, 1.0]])  # V = W_V: token 0 → [1,0|0,0], token 1 → [0,0|2,1]
    W_O = np.vstack([np.eye(2), np.eye(2)])  # (4, 2): output = head 0's output + head 1's output
    r = multi_head_attention(X, X, W_Q, W_K, W_V, W_O, n_heads=2)
    assert (r.n_heads, r.d_k, r.d_v) == (2, 1, 2)
    # head 0: q = k = [[1],[0]], scores [[1, 0], [0, 0]], scale 1/√1
    #   weights row 0 = [e/(1+e), 1/(1+e)] = [0.731059, 0.268941], row 1 = [0.5, 0.5]
    #   V_0 = [[1, 0], [0, 0]] → outputs [[0.731059, 0], [0.5, 0]]
    # head 1: q = k = [[0],[1]], scores [[0, 0], [0, 1]] → weights [[0.5, 0.5], [0.268941, 0.731059]]
    #   V_1 = [[0, 0], [2, 1]] → row 0 = 0.5·[2, 1] = [1, 0.5]; row 1 = 0.731059·[2, 1] = [1.462117, 0.731059]
    np.testing.assert_array_equal(r.scores, [[[1.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 1.0]]])
    np.testing.assert_allclose(r.weights, [[[0.731059, 0.268941], [0.5, 0.5]], [[0.5, 0.5], [0.268941, 0.731059]]],
                               atol=1e-6)
    np.testing.assert_array_equal(r.V_heads, [[[1.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [2.0, 1.0]]])
    np.testing.assert_allclose(r.head_outputs, [[[0.731059, 0.0], [0.5, 0.0]], [[1.0, 0.5], [1.462117, 0.731059]]],
                               atol=1e-6)
    # concat = [head 0 | head 1] = [[0.731059, 0, 1, 0.5], [0.5, 0, 1.462117, 0.731059]]  (n_q, h·d_v) = (2, 4)
    np.testing.assert_allclose(r.concat, [[0.731059, 0.0, 1.0, 0.5], [0.5, 0.0, 1.462117, 0.731059]], atol=1e-6)
    # output = concat·W_O = head 0 + head 1 = [[1.731059, 0.5], [1.962117, 0.731059]]
    np.testing.assert_allclose(r.output, [[1.731059, 0.5], [1.962117, 0.731059]], atol=1e-6)
    assert r.Q.shape == r.K.shape == (2, 2) and r.V.shape == (2, 4) and r.output.shape == (2, 2)


def test_cross_one_head_another_source_width_by_hand():
    # target 1 token (d_model = 2), source 2 tokens (d_model_kv = 3), h = 1, d_k = d_v = 1
    X_q = np.array([[1.0, 1.0]])
    X_kv = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    W_Q = np.array([[1.0], [1.0]])  # Q = [[2]]
    W_K = np.array([[1.0], [0.0], [0.0]])  # K = [[1], [0]]
    W_V = np.array([[0.0], [0.0], [3.0]])  # V = [[0], [3]]
    W_O = np.array([[1.0, -1.0]])  # (h·d_v, d_model) = (1, 2)
    r = multi_head_attention(X_q, X_kv, W_Q, W_K, W_V, W_O, n_heads=1)
    # scores = [2·1, 2·0] = [2, 0]; ÷ √1 → softmax = [e²/(e²+1), 1/(e²+1)] = [0.880797, 0.119203]
    np.testing.assert_allclose(r.weights, [[[0.880797, 0.119203]]], atol=1e-6)
    # head output = 0.880797·0 + 0.119203·3 = 0.357609; output = 0.357609·[1, −1]
    np.testing.assert_allclose(r.concat, [[0.357609]], atol=1e-6)
    np.testing.assert_allclose(r.output, [[0.357609, -0.357609]], atol=1e-6)


def test_square_case_keeps_the_old_fields_and_d_head():
    # the paper's case: every W (d_model, d_model), d_k = d_v = d_model / h = 2
    rng = np.random.default_rng(7)
    X = rng.uniform(-1, 1, (3, 4))
    W_Q, W_K, W_V, W_O = (rng.uniform(-1, 1, (4, 4)) for _ in range(4))
    r = multi_head_attention(X, X, W_Q, W_K, W_V, W_O, 2, mask=causal_mask(3))
    assert (r.n_heads, r.d_k, r.d_v) == (2, 2, 2)
    assert r.concat.shape == r.output.shape == (3, 4)
    for s in r.heads:
        assert s.scale == pytest.approx(1 / math.sqrt(2), abs=1e-15)
        assert s.weights[0, 1] == s.weights[0, 2] == s.weights[1, 2] == 0.0
    np.testing.assert_array_equal(r.fully_masked, [False, False, False])


I2 = np.eye(2)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(W_Q=np.ones((2, 3)), W_K=np.ones((2, 3))), ["W_Q and W_K", "3 columns", "n_heads = 2", "d_k"]),
        (dict(W_V=np.ones((2, 3))), ["W_V", "3 columns", "d_v", "(2, 3)"]),
        (dict(W_V=np.ones((2, 4)), W_O=np.ones((2, 2))), ["W_O", "(4, 2)", "(2, 2)"]),
        (dict(W_O=np.ones((2, 3))), ["W_O", "(2, 2)", "(2, 3)"]),
        (dict(X_kv=np.ones((3, 3))), ["W_K", "d_model_kv = 3"]),
        (dict(n_heads=0), ["n_heads", ">= 1"]),
        (dict(n_heads=True), ["n_heads"]),
        (dict(n_heads=1.5), ["n_heads", "1.5"]),
        (dict(W_Q=np.ones((2, 0)), W_K=np.ones((2, 0))), ["0 columns"]),
        (dict(mask=np.ones((2, 3), dtype=bool)), ["mask", "(2, 3)", "(2, 2)"]),
    ],
)
def test_multi_head_errors_name_the_shapes(kwargs, words):
    args = dict(X_q=np.eye(2), X_kv=np.eye(2), W_Q=I2, W_K=I2, W_V=I2, W_O=I2, n_heads=2)
    args.update(kwargs)
    with pytest.raises(ValueError) as exc:
        multi_head_attention(**args)
    for w in words:
        assert w in str(exc.value)


def test_numpy_integer_n_heads_is_accepted():
    r = multi_head_attention(np.eye(2), np.eye(2), I2, I2, I2, I2, np.int64(2))
    assert r.n_heads == 2


# --------------------------------------------------------------------------------------------- properties


def finite(bound: float):
    return st.floats(-bound, bound, allow_nan=False, allow_infinity=False)


def mat(rows, cols, bound=3.0):
    return arrays(np.float64, (rows, cols), elements=finite(bound))


@st.composite
def mha_case(draw, same_width=False):
    """X_q (n_q, d_model), X_kv (n_k, d_kv), W_Q (d_model, h·d_k), W_K (d_kv, h·d_k), W_V (d_kv, h·d_v),
    W_O (h·d_v, d_model), h, and a mask (n_q, n_k) or None."""
    n_q, n_k = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    d_model = draw(st.integers(1, 4))
    d_kv = d_model if same_width else draw(st.integers(1, 4))
    h, d_k, d_v = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    mask = draw(st.none() | arrays(np.bool_, (n_q, n_k)))
    return dict(X_q=draw(mat(n_q, d_model)), X_kv=draw(mat(n_k, d_kv)), W_Q=draw(mat(d_model, h * d_k)),
                W_K=draw(mat(d_kv, h * d_k)), W_V=draw(mat(d_kv, h * d_v)), W_O=draw(mat(h * d_v, d_model)),
                n_heads=h, mask=mask)


@SETTINGS
@given(st.data())
def test_one_head_with_identity_w_o_is_single_head_attention(data):
    n, d_model, d_k = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    X = data.draw(mat(n, d_model))
    W_Q, W_K, W_V = data.draw(mat(d_model, d_k)), data.draw(mat(d_model, d_k)), data.draw(mat(d_model, d_model))
    mask = data.draw(st.none() | arrays(np.bool_, (n, n)))
    r = multi_head_attention(X, X, W_Q, W_K, W_V, np.eye(d_model), n_heads=1, mask=mask)
    single = scaled_dot_product_attention(*project_qkv(X, W_Q, W_K, W_V), mask=mask)
    np.testing.assert_allclose(r.weights[0], single.weights, rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.output, single.output, rtol=0, atol=1e-12)
    w_ref, out_ref = reference_attention(X @ W_Q, X @ W_K, X @ W_V, mask)  # and an independent softmax
    np.testing.assert_allclose(r.weights[0], w_ref, rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.output, out_ref, rtol=0, atol=1e-8)


@SETTINGS
@given(mha_case())
def test_h_heads_are_h_single_head_attentions_concatenated_times_w_o(case):
    r = multi_head_attention(**case)
    h = case["n_heads"]
    Wq, Wk, Wv = (split_heads(case[n], h) for n in ("W_Q", "W_K", "W_V"))  # W_Q^i etc., column block i
    outs = []
    for i in range(h):
        Q, K, V = project_cross(case["X_q"], case["X_kv"], Wq[i], Wk[i], Wv[i])
        one = scaled_dot_product_attention(Q, K, V, mask=case["mask"])
        np.testing.assert_allclose(r.Q_heads[i], Q, rtol=0, atol=1e-12)
        np.testing.assert_allclose(r.weights[i], one.weights, rtol=0, atol=1e-12)
        np.testing.assert_allclose(r.scaled_scores[i], one.scaled_scores, rtol=0, atol=1e-12)
        outs.append(one.output)
    concat = np.hstack(outs)
    np.testing.assert_allclose(r.concat, concat, rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.output, concat @ case["W_O"], rtol=0, atol=1e-10)


@SETTINGS
@given(mha_case())
def test_stages_have_their_shapes_and_fit_together(case):
    r = multi_head_attention(**case)
    n_q, n_k = case["X_q"].shape[0], case["X_kv"].shape[0]
    h, d_k, d_v = r.n_heads, r.d_k, r.d_v
    assert h * d_k == case["W_Q"].shape[1] and h * d_v == case["W_V"].shape[1]
    assert r.Q.shape == (n_q, h * d_k) and r.K.shape == (n_k, h * d_k) and r.V.shape == (n_k, h * d_v)
    assert r.Q_heads.shape == (h, n_q, d_k) and r.K_heads.shape == (h, n_k, d_k) and r.V_heads.shape == (h, n_k, d_v)
    for stage in (r.scores, r.scaled_scores, r.weights):
        assert stage.shape == (h, n_q, n_k) and stage.dtype == np.float64
    assert r.head_outputs.shape == (h, n_q, d_v) and r.concat.shape == (n_q, h * d_v)
    assert r.output.shape == (n_q, case["X_q"].shape[1])
    np.testing.assert_array_equal(merge_heads(r.head_outputs), r.concat)
    np.testing.assert_array_equal(merge_heads(r.Q_heads), r.Q)
    # weights rows: sum to 1, or all 0 where the shared mask leaves nothing
    sums = r.weights.sum(axis=-1)
    np.testing.assert_allclose(sums[:, ~r.fully_masked], 1.0, atol=1e-12)
    assert np.all(r.weights[:, r.fully_masked] == 0.0)
    # each head writes its share: output = Σ_i head_i · W_O[i·d_v:(i+1)·d_v]
    share = sum(r.head_outputs[i] @ case["W_O"][i * d_v:(i + 1) * d_v] for i in range(h))
    np.testing.assert_allclose(r.output, share, rtol=0, atol=1e-10)


@SETTINGS
@given(mha_case(same_width=True))
def test_cross_attention_with_x_q_equal_x_kv_is_self_attention(case):
    X = case["X_q"]
    a = project_cross(X, X.copy(), case["W_Q"], case["W_K"], case["W_V"])
    b = project_qkv(X, case["W_Q"], case["W_K"], case["W_V"])
    for m, n in zip(a, b):
        np.testing.assert_array_equal(m, n)
    mask = None if case["mask"] is None else np.ones((X.shape[0], X.shape[0]), dtype=bool)
    args = {k: case[k] for k in ("W_Q", "W_K", "W_V", "W_O", "n_heads")}
    cross = multi_head_attention(X, X.copy(), mask=mask, **args)
    self_ = multi_head_attention(X, X, mask=mask, **args)
    np.testing.assert_array_equal(cross.output, self_.output)
    np.testing.assert_array_equal(cross.weights, self_.weights)


@SETTINGS
@given(mha_case(), st.randoms(use_true_random=False))
def test_reordering_the_source_reorders_the_weight_columns_only(case, rnd):
    # attention is a weighted sum over keys: permuting X_kv's rows (and the mask's columns) permutes the weight
    # columns and leaves every output unchanged; the queries do not depend on X_kv at all
    n_k = case["X_kv"].shape[0]
    perm = list(range(n_k))
    rnd.shuffle(perm)
    moved = dict(case, X_kv=case["X_kv"][perm], mask=None if case["mask"] is None else case["mask"][:, perm])
    a, b = multi_head_attention(**case), multi_head_attention(**moved)
    np.testing.assert_array_equal(a.Q, b.Q)
    np.testing.assert_allclose(b.weights, a.weights[:, :, perm], rtol=0, atol=1e-12)
    np.testing.assert_allclose(b.output, a.output, rtol=0, atol=1e-10)
