"""Unit tests for attention_core.attention: softmax, scaled_dot_product_attention, causal_mask, padding_mask.

Every expected number here is derived independently of the code under test: worked by hand (the arithmetic
is in the comments), taken from the printed table of seed 003 (/work/shared/seeds/003_*.txt), or taken from
the numbers printed in /work/shared/cases/README.md (cases K01-K08).

Notation: X2 = [[1,0],[0,1],[1,1]] (犬, が, 歩く), d_k = 2, so the default scale is 1/√2 ≈ 0.7071068.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from attention_core import (
    AttentionSteps,
    causal_mask,
    padding_mask,
    project_qkv,
    scaled_dot_product_attention,
    softmax,
)

T, F = True, False
X2 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
I2 = np.eye(2)
R2 = 1.0 / math.sqrt(2.0)  # 1/√d_k for d_k = 2


# --------------------------------------------------------------------------------------------------- softmax


def test_softmax_reference_values():
    # e^2 = 7.389056, e^1 = 2.718282, e^0.1 = 1.105171; sum = 11.212509
    # 7.389056/11.212509 = 0.659001, 2.718282/11.212509 = 0.242433, 1.105171/11.212509 = 0.098566
    np.testing.assert_allclose(softmax([2.0, 1.0, 0.1]), [0.659001, 0.242433, 0.098566], atol=1e-6)


def test_softmax_returns_float64_same_shape():
    out = softmax(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int64))
    assert out.dtype == np.float64
    assert out.shape == (2, 3)


def test_softmax_uniform_row():
    # equal entries → 1/n each
    np.testing.assert_allclose(softmax([5.0, 5.0, 5.0, 5.0]), [0.25] * 4, rtol=0, atol=1e-15)


def test_softmax_default_axis_is_last_and_axis_argument():
    m = np.array([[0.0, math.log(3.0)], [math.log(3.0), 0.0]])
    # rows: softmax([0, ln 3]) = [1/(1+3), 3/(1+3)] = [0.25, 0.75]
    np.testing.assert_allclose(softmax(m), [[0.25, 0.75], [0.75, 0.25]], atol=1e-15)
    # columns: column 0 is [0, ln 3] → [0.25, 0.75]; column 1 is [ln 3, 0] → [0.75, 0.25]
    np.testing.assert_allclose(softmax(m, axis=0), [[0.25, 0.75], [0.75, 0.25]], atol=1e-15)
    m2 = np.array([[0.0, 0.0], [math.log(3.0), math.log(3.0)]])
    # axis=0: each column is [0, ln 3] → [0.25, 0.75]; axis=-1: each row is constant → [0.5, 0.5]
    np.testing.assert_allclose(softmax(m2, axis=0), [[0.25, 0.25], [0.75, 0.75]], atol=1e-15)
    np.testing.assert_allclose(softmax(m2, axis=-1), [[0.5, 0.5], [0.5, 0.5]], atol=1e-15)


def test_softmax_neg_inf_gets_exactly_zero():
    # softmax([0, -inf, ln 3]) = [1, 0, 3] / 4
    out = softmax([0.0, -np.inf, math.log(3.0)])
    assert out[1] == 0.0
    np.testing.assert_allclose(out, [0.25, 0.0, 0.75], atol=1e-15)


def test_softmax_all_neg_inf_slice_is_zeros_not_nan():
    out = softmax(np.array([[-np.inf, -np.inf, -np.inf], [0.0, 0.0, -np.inf]]))
    assert not np.any(np.isnan(out))
    np.testing.assert_array_equal(out[0], [0.0, 0.0, 0.0])
    np.testing.assert_allclose(out[1], [0.5, 0.5, 0.0], atol=1e-15)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_softmax_rejects_nan_and_pos_inf(bad):
    with pytest.raises(ValueError):
        softmax([0.0, bad, 1.0])


def test_k03_huge_score_row():
    # K03: [1, 1, 1e300] → [0, 0, 1]. After subtracting the max: [1-1e300, 1-1e300, 0] → exp = [0, 0, 1].
    out = softmax([1.0, 1.0, 1e300])
    assert not np.any(np.isnan(out))
    np.testing.assert_allclose(out, [0.0, 0.0, 1.0], rtol=0, atol=1e-15)


def test_k04_overflow_without_max_subtraction():
    # K04: [800, 0, -5] → [1, e^-800, e^-805] / (1 + ...) = [1, 0, 0] to double precision (e^-800 ≈ 3.6e-348 → 0).
    s = np.array([800.0, 0.0, -5.0])
    out = softmax(s)
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out, [1.0, 0.0, 0.0], rtol=0, atol=1e-300)
    assert abs(out.sum() - 1.0) <= 1e-12


@pytest.mark.parametrize("c", [-1000.0, 0.0, 1000.0])
def test_k04_shift_invariance(c):
    # softmax(s + c) = softmax(s): exp(s_i + c) / Σ exp(s_j + c) = e^c exp(s_i) / (e^c Σ exp(s_j)).
    base = np.array([[800.0, 0.0, -5.0], [2.0, 1.0, 0.1], [0.0, 0.0, 0.0]])
    expected = np.array([[1.0, 0.0, 0.0], [0.659001, 0.242433, 0.098566], [1 / 3, 1 / 3, 1 / 3]])
    out = softmax(base + c)
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out, expected, atol=1e-6)
    np.testing.assert_allclose(out, softmax(base), atol=1e-12)
    np.testing.assert_allclose(out.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


# ------------------------------------------------------------------------------ scaled_dot_product_attention

# Seed 003: Q = K = [[1,0],[0,1],[1,1]], V = [[10,0],[0,10],[5,5]], d_k = 2, printed to 3 decimals.
SEED_Q = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
SEED_K = SEED_Q.copy()
SEED_V = np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])
# Its "スコア" are QKᵀ / √d_k (already divided):
SEED_SCALED = np.array([[0.707, 0.0, 0.707], [0.0, 0.707, 0.707], [0.707, 0.707, 1.414]])
SEED_WEIGHTS = np.array([[0.401, 0.198, 0.401], [0.198, 0.401, 0.401], [0.248, 0.248, 0.503]])
SEED_OUTPUT = np.array([[6.017, 3.983], [3.983, 6.017], [5.0, 5.0]])


def test_seed_003_table():
    steps = scaled_dot_product_attention(SEED_Q, SEED_K, SEED_V)
    # raw QKᵀ by hand: rows of Q dotted with rows of K
    np.testing.assert_array_equal(steps.scores, [[1, 0, 1], [0, 1, 1], [1, 1, 2]])
    np.testing.assert_array_equal(np.round(steps.scaled_scores, 3), SEED_SCALED)
    np.testing.assert_array_equal(np.round(steps.weights, 3), SEED_WEIGHTS)
    np.testing.assert_array_equal(np.round(steps.output, 3), SEED_OUTPUT)
    # "行ごとの重み合計: [1. 1. 1.]"
    np.testing.assert_allclose(steps.weights.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_array_equal(steps.fully_masked, [False, False, False])


def test_seed_003_row0_by_hand():
    # row 0 scaled scores [a, 0, a], a = 1/√2 = 0.7071068; e^a = 2.0281150; denominator 2·e^a + 1 = 5.0562300
    # weights [e^a/5.05623, 1/5.05623, e^a/5.05623] = [0.4011121, 0.1977758, 0.4011121]
    # output = w0·[10,0] + w1·[0,10] + w0·[5,5] = [15·w0, 10·w1 + 5·w0]
    #        = [15·0.4011121, 1.977758 + 2.0055605] = [6.016681, 3.983319]
    ea = math.exp(R2)
    w = np.array([ea, 1.0, ea]) / (2 * ea + 1)
    steps = scaled_dot_product_attention(SEED_Q, SEED_K, SEED_V)
    np.testing.assert_allclose(steps.weights[0], w, atol=1e-12)
    np.testing.assert_allclose(steps.output[0], [6.016681, 3.983319], atol=1e-6)


K01_V = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
K01_MASK = np.array([[T, T, F], [T, T, T], [F, F, F]])


def test_k01_fully_masked_row():
    # W = I, so Q = K = X2; V is given directly
    steps = scaled_dot_product_attention(X2, X2, K01_V, mask=K01_MASK)
    # scaled scores (unmasked) = [[1,0,1],[0,1,1],[1,1,2]]/√2
    # row 0 allowed [a, 0] with a = 1/√2: [e^a, 1]/(e^a + 1) = [0.669762, 0.330238]
    # row 1 [0, a, a]: [1, e^a, e^a]/(1 + 2e^a) = [0.197776, 0.401112, 0.401112]
    expected_w = np.array([[0.669762, 0.330238, 0.0], [0.197776, 0.401112, 0.401112], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(steps.weights, expected_w, atol=1e-6)
    assert steps.weights[0, 2] == 0.0
    np.testing.assert_array_equal(steps.weights[2], [0.0, 0.0, 0.0])
    # output row 0 = 0.669762·[1,2] + 0.330238·[3,4] = [1.660476, 2.660476]
    # output row 1 = 0.197776·[1,2] + 0.401112·[3,4] + 0.401112·[5,6] = [3.406672, 4.406672]
    np.testing.assert_allclose(steps.output[0], [1.660476, 2.660476], atol=1e-6)
    np.testing.assert_allclose(steps.output[1], [3.406672, 4.406672], atol=1e-6)
    np.testing.assert_array_equal(steps.output[2], [0.0, 0.0])
    assert not np.any(np.isnan(steps.weights)) and not np.any(np.isnan(steps.output))
    assert steps.fully_masked.dtype == np.bool_
    np.testing.assert_array_equal(steps.fully_masked, [False, False, True])
    # masked entries of scaled_scores are -inf; raw scores are untouched
    assert np.isneginf(steps.scaled_scores[0, 2]) and np.all(np.isneginf(steps.scaled_scores[2]))
    np.testing.assert_array_equal(steps.scores, [[1, 0, 1], [0, 1, 1], [1, 1, 2]])
    np.testing.assert_allclose(steps.scaled_scores[1], np.array([0.0, 1.0, 1.0]) * R2, atol=1e-15)


def test_k02_combined_bool_masks_equal_single_mask():
    # causal(3) & keep-first-two-keys (padding on key 2), or-ed with a mask that reopens (2, 2)
    causal = causal_mask(3)
    pad = padding_mask([False, False, True], 3)
    reopen = np.array([[F, F, F], [F, F, F], [F, F, T]])
    combined_and = causal & pad
    combined_or = (causal & pad) | reopen
    single_and = np.array([[T, F, F], [T, T, F], [T, T, F]])
    single_or = np.array([[T, F, F], [T, T, F], [T, T, T]])
    w_and = scaled_dot_product_attention(X2, X2, K01_V, mask=combined_and).weights
    w_or = scaled_dot_product_attention(X2, X2, K01_V, mask=combined_or).weights
    np.testing.assert_array_equal(w_and, scaled_dot_product_attention(X2, X2, K01_V, mask=single_and).weights)
    np.testing.assert_array_equal(w_or, scaled_dot_product_attention(X2, X2, K01_V, mask=single_or).weights)
    # by hand: row 0 sees only key 0 → [1,0,0]; row 2 (and) sees [a, a] → [0.5, 0.5, 0]
    np.testing.assert_allclose(w_and[0], [1.0, 0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(w_and[2], [0.5, 0.5, 0.0], atol=1e-15)


def test_k02_and_of_disjoint_masks_gives_zero_row_not_uniform():
    # key 0 only & key 1 only → row sees nothing: zeros (a finite "very negative" fill would give 1/3 each)
    a = np.array([[T, F, F]] * 3)
    b = np.array([[F, T, F]] * 3)
    steps = scaled_dot_product_attention(X2, X2, K01_V, mask=a & b)
    np.testing.assert_array_equal(steps.weights, np.zeros((3, 3)))
    np.testing.assert_array_equal(steps.output, np.zeros((3, 2)))
    np.testing.assert_array_equal(steps.fully_masked, [True, True, True])


@pytest.mark.parametrize(
    "mask",
    [
        np.array([[1, 1, 0], [1, 1, 1], [0, 0, 0]]),  # 0/1 integers
        np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]),  # 0/1 floats
        np.array([[0.0, 0.0, -np.inf], [0.0, 0.0, 0.0], [-np.inf] * 3]),  # additive float mask
        np.array([[0.0, 0.0, np.finfo(float).min]] * 3),  # "very negative" finite fill
    ],
)
def test_k02_non_bool_mask_refused(mask):
    with pytest.raises(ValueError):
        scaled_dot_product_attention(X2, X2, K01_V, mask=mask)


def test_k06_causal_on_given_scaled_scores():
    # With scale = 1 and K = I, QKᵀ·scale = Q, so the scaled scores are exactly the matrix below.
    S = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    steps = scaled_dot_product_attention(S, np.eye(3), np.eye(3), mask=causal_mask(3), scale=1.0)
    # row 0: only key 0 → [1, 0, 0]
    # row 1: softmax([4, 5]) = [1, e]/(1 + e) = [0.268941, 0.731059]
    # row 2: softmax([7, 8, 9]) = softmax([0, 1, 2]) = [1, e, e²]/(1 + e + e²) = [0.090031, 0.244728, 0.665241]
    expected = np.array([[1.0, 0.0, 0.0], [0.268941, 0.731059, 0.0], [0.090031, 0.244728, 0.665241]])
    np.testing.assert_allclose(steps.weights, expected, atol=1e-6)
    assert steps.weights[0, 1] == 0.0 and steps.weights[0, 2] == 0.0 and steps.weights[1, 2] == 0.0
    # V = I, so the output is the weights themselves
    np.testing.assert_allclose(steps.output, expected, atol=1e-6)
    assert steps.scale == 1.0
    np.testing.assert_array_equal(steps.scaled_scores[np.tril_indices(3)], S[np.tril_indices(3)])


def test_k08_weights_and_column_sums():
    # X2, W_Q = [[1,0],[0,2]], W_K = [[0,1],[1,0]], W_V = I
    # Q = X2·W_Q = [[1,0],[0,2],[1,2]]; K = X2·W_K = [[0,1],[1,0],[1,1]]; V = X2
    # QKᵀ = [[0,1,1],[2,0,2],[2,1,3]]; ÷√2 then softmax per row.
    W_Q = np.array([[1.0, 0.0], [0.0, 2.0]])
    W_K = np.array([[0.0, 1.0], [1.0, 0.0]])
    Q, K, V = project_qkv(X2, W_Q, W_K, I2)
    steps = scaled_dot_product_attention(Q, K, V)
    np.testing.assert_array_equal(steps.scores, [[0, 1, 1], [2, 0, 2], [2, 1, 3]])
    expected = np.array(
        [[0.197776, 0.401112, 0.401112], [0.445808, 0.108383, 0.445808], [0.283995, 0.140029, 0.575975]]
    )
    np.testing.assert_allclose(steps.weights, expected, atol=1e-6)
    np.testing.assert_allclose(steps.weights.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(steps.weights.sum(axis=0), [0.927580, 0.649525, 1.422896], atol=1e-6)
    # not symmetric
    assert not np.allclose(steps.weights, steps.weights.T)


def test_default_scale_is_one_over_sqrt_dk():
    # d_k = 4: Q = [[1,1,1,1]], K = [[1,1,1,1],[0,0,0,0]] → scores [4, 0]; scale 1/√4 = 0.5 → [2, 0]
    # weights [e²/(e²+1), 1/(e²+1)] = [0.880797, 0.119203]
    Q = np.array([[1.0, 1.0, 1.0, 1.0]])
    K = np.array([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]])
    V = np.array([[1.0], [0.0]])
    steps = scaled_dot_product_attention(Q, K, V)
    assert steps.scale == pytest.approx(0.5, abs=1e-15)
    np.testing.assert_array_equal(steps.scores, [[4.0, 0.0]])
    np.testing.assert_allclose(steps.scaled_scores, [[2.0, 0.0]], atol=1e-15)
    np.testing.assert_allclose(steps.weights, [[0.880797, 0.119203]], atol=1e-6)
    np.testing.assert_allclose(steps.output, [[0.880797]], atol=1e-6)


def test_explicit_scale_overrides_default():
    # same as above with scale = 1: scaled [4, 0] → [e⁴/(e⁴+1), 1/(e⁴+1)] = [0.982014, 0.017986]
    Q = np.array([[1.0, 1.0, 1.0, 1.0]])
    K = np.array([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]])
    steps = scaled_dot_product_attention(Q, K, np.eye(2), scale=1.0)
    np.testing.assert_allclose(steps.weights, [[0.982014, 0.017986]], atol=1e-6)


def test_rectangular_cross_attention_shapes():
    # n_q = 2, n_k = 3, d_k = 2, d_v = 4
    Q = np.array([[1.0, 0.0], [0.0, 0.0]])
    K = X2
    V = np.arange(12, dtype=float).reshape(3, 4)
    steps = scaled_dot_product_attention(Q, K, V)
    assert steps.scores.shape == (2, 3)
    assert steps.weights.shape == (2, 3)
    assert steps.output.shape == (2, 4)
    assert steps.fully_masked.shape == (2,)
    # query 1 is zero → all scores 0 → uniform 1/3 → output is the mean of V's rows = [4, 5, 6, 7]
    np.testing.assert_allclose(steps.weights[1], [1 / 3] * 3, atol=1e-15)
    np.testing.assert_allclose(steps.output[1], [4.0, 5.0, 6.0, 7.0], atol=1e-12)


def test_results_are_float64():
    steps = scaled_dot_product_attention(X2.astype(int), X2.astype(int), K01_V.astype(int))
    for arr in (steps.scores, steps.scaled_scores, steps.weights, steps.output):
        assert arr.dtype == np.float64


def test_attention_steps_is_frozen():
    steps = scaled_dot_product_attention(SEED_Q, SEED_K, SEED_V)
    assert isinstance(steps, AttentionSteps)
    assert dataclasses.is_dataclass(steps)
    with pytest.raises(dataclasses.FrozenInstanceError):
        steps.weights = np.zeros((3, 3))  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        steps.output = np.zeros((3, 2))  # type: ignore[misc]


def test_shape_mismatch_q_k_width_names_shapes():
    with pytest.raises(ValueError) as exc:
        scaled_dot_product_attention(np.ones((3, 2)), np.ones((3, 3)), np.ones((3, 2)))
    msg = str(exc.value)
    assert "(3, 2)" in msg and "(3, 3)" in msg


def test_shape_mismatch_k_v_length_names_shapes():
    with pytest.raises(ValueError) as exc:
        scaled_dot_product_attention(np.ones((3, 2)), np.ones((3, 2)), np.ones((4, 2)))
    msg = str(exc.value)
    assert "(3, 2)" in msg and "(4, 2)" in msg


def test_mask_shape_mismatch_names_shapes():
    with pytest.raises(ValueError) as exc:
        scaled_dot_product_attention(X2, X2, K01_V, mask=np.ones((2, 2), dtype=bool))
    msg = str(exc.value)
    assert "(2, 2)" in msg and "(3, 3)" in msg


@pytest.mark.parametrize("shape", [(3,), (1, 3, 2)])
def test_non_matrix_input_refused(shape):
    with pytest.raises(ValueError) as exc:
        scaled_dot_product_attention(np.ones(shape), X2, K01_V)
    assert str(shape) in str(exc.value)


@pytest.mark.parametrize("which", ["Q", "K", "V"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_input_refused_and_named(which, bad):
    mats = {"Q": X2.copy(), "K": X2.copy(), "V": K01_V.copy()}
    mats[which][1, 0] = bad
    with pytest.raises(ValueError) as exc:
        scaled_dot_product_attention(mats["Q"], mats["K"], mats["V"])
    msg = str(exc.value)
    assert which in msg
    assert repr(bad) in msg or str(bad) in msg  # 'nan' / 'inf' / '-inf'


# ------------------------------------------------------------------------------------ causal / padding masks


def test_k06_causal_mask_literal():
    m = causal_mask(3)
    assert m.dtype == np.bool_
    np.testing.assert_array_equal(m, [[T, F, F], [T, T, F], [T, T, T]])


@pytest.mark.parametrize("n", [1, 2, 4, 6])
def test_causal_mask_keeps_diagonal_lower_triangle_true_upper_right_false(n):
    m = causal_mask(n)
    assert m.shape == (n, n)
    for i in range(n):
        for j in range(n):
            assert m[i, j] == (j <= i), (i, j)


def test_causal_mask_zero_and_negative():
    assert causal_mask(0).shape == (0, 0)
    with pytest.raises(ValueError):
        causal_mask(-1)


def test_padding_mask_literal():
    m = padding_mask([False, False, True], 2)
    assert m.dtype == np.bool_
    assert m.shape == (2, 3)
    np.testing.assert_array_equal(m, [[T, T, F], [T, T, F]])
    m2 = padding_mask(np.array([True, False, True, False]), 3)
    np.testing.assert_array_equal(m2, [[F, T, F, T]] * 3)


def test_padding_mask_is_writable_copy():
    m = padding_mask([False, True], 2)
    m[0, 0] = False  # must not raise (not a read-only broadcast view) and must not leak to other rows
    np.testing.assert_array_equal(m, [[F, F], [T, F]])


def test_padding_mask_invalid_arguments():
    with pytest.raises(ValueError):
        padding_mask([[False, True]], 2)
    with pytest.raises(ValueError):
        padding_mask([False, True], -1)


def test_padding_mask_in_attention_by_hand():
    # Keys 犬, が, <pad>; Q = K = X2 rows 0..2, pad on key 2.
    # row 2 (q = [1,1]) sees keys 0,1 with scaled scores [a, a] → [0.5, 0.5, 0]
    # row 0 (q = [1,0]) sees [a, 0] → [e^a, 1]/(e^a+1) = [0.669762, 0.330238, 0]
    steps = scaled_dot_product_attention(X2, X2, K01_V, mask=padding_mask([False, False, True], 3))
    np.testing.assert_allclose(steps.weights[0], [0.669762, 0.330238, 0.0], atol=1e-6)
    np.testing.assert_allclose(steps.weights[2], [0.5, 0.5, 0.0], atol=1e-15)
    np.testing.assert_array_equal(steps.weights[:, 2], [0.0, 0.0, 0.0])
    # output row 2 = 0.5·[1,2] + 0.5·[3,4] = [2, 3]
    np.testing.assert_allclose(steps.output[2], [2.0, 3.0], atol=1e-12)
