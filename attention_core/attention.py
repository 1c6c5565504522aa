"""Scaled dot-product attention, step by step (Vaswani et al. 2017, "Attention Is All You Need", eq. 1).

Letters used in shapes: n_q query tokens, n_k key tokens, d_k query/key width, d_v value width.
All arrays are float64. Masks are boolean with **True = may attend** (the convention of PyTorch's
``scaled_dot_product_attention``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["AttentionSteps", "softmax", "softmax_exact", "scaled_dot_product_attention", "causal_mask", "padding_mask"]


def _as_matrix(name: str, a) -> np.ndarray:
    arr = np.asarray(a, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(
            f"{name} has a non-finite value {arr[tuple(bad)]!r} at row {bad[0]}, column {bad[1]}; "
            "use finite numbers only"
        )
    return arr


def softmax(x, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax: ``exp(x - max) / sum(exp(x - max))`` along ``axis``.

    Args:
        x: array-like of any shape, float64 after conversion. Entries may be ``-inf`` (masked):
            they get weight exactly 0. ``+inf`` or NaN entries raise.
        axis: the axis that sums to 1 (default: the last one, i.e. each row of a scores matrix).

    Returns:
        float64 array of the same shape. Every slice along ``axis`` sums to 1, except a slice whose
        entries are all ``-inf`` (nothing to attend to), which is all zeros -- never NaN.

    Raises:
        ValueError: if ``x`` contains NaN or ``+inf``.

    The maximum of each slice is subtracted first, so scores like 800 or 1e300 do not overflow
    (softmax is invariant to adding a constant to a slice).
    """
    arr = np.asarray(x, dtype=np.float64)
    if np.any(np.isnan(arr)) or np.any(np.isposinf(arr)):
        raise ValueError("softmax input contains NaN or +inf; only finite numbers or -inf (masked) are allowed")
    top = np.max(arr, axis=axis, keepdims=True) if arr.size else arr
    empty = np.isneginf(top)  # slices with nothing to attend to
    shifted = arr - np.where(empty, 0.0, top)
    with np.errstate(invalid="ignore"):
        e = np.exp(shifted)  # exp(-inf) = 0
    total = np.sum(e, axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def softmax_exact(scores) -> np.ndarray:
    """Which softmax weights of (scaled) scores are exactly 0 or 1 in exact arithmetic: a masked key's (score −∞)
    is exactly 0, and the one key left when all others are masked gets exactly 1. Every other weight lies strictly
    between 0 and 1, even where floating point stores it as 0.0 or 1.0 (e^−800 underflows).

    Args:
        scores: (n,) or (..., n) float; each row along the last axis; −∞ (or any non-finite value) is masked.

    Returns:
        bool array of the same shape.
    """
    s = np.asarray(scores, dtype=np.float64)
    masked = ~np.isfinite(s)
    return masked | (masked.sum(axis=-1, keepdims=True) >= s.shape[-1] - 1)


@dataclass(frozen=True)
class AttentionSteps:
    """Every named stage of one scaled dot-product attention.

    Attributes:
        scores: QKᵀ, shape (n_q, n_k), float64 -- raw dot products, before scaling or masking.
        scaled_scores: scores × scale, shape (n_q, n_k); entries the mask forbids are ``-inf``.
        weights: softmax of each row of ``scaled_scores``, shape (n_q, n_k); each row sums to 1,
            except a fully masked row, which is all 0.
        output: weights · V, shape (n_q, d_v).
        fully_masked: shape (n_q,), bool -- True for a query row that may attend to no key at all.
        scale: the factor applied to the scores (1/√d_k by default).
    """

    scores: np.ndarray
    scaled_scores: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    fully_masked: np.ndarray
    scale: float


def scaled_dot_product_attention(Q, K, V, mask=None, scale: float | None = None) -> AttentionSteps:
    """Attention(Q, K, V) = softmax(QKᵀ / √d_k) V, keeping every intermediate (Vaswani et al. 2017, eq. 1).

    Args:
        Q: queries, shape (n_q, d_k).
        K: keys, shape (n_k, d_k).
        V: values, shape (n_k, d_v).
        mask: optional bool array broadcastable to (n_q, n_k); True = the query may attend to the key.
            Masked entries get scaled score ``-inf`` and weight 0.
        scale: multiplier for the scores; default ``1 / sqrt(d_k)``.

    Returns:
        AttentionSteps with scores, scaled_scores, weights, output, fully_masked, scale (float64).

    Raises:
        ValueError: on non-2-D inputs, mismatched shapes (Q and K widths, K and V lengths, mask shape),
            a non-boolean mask, a non-finite value in Q, K or V, or a non-finite/non-positive scale.
    """
    Q, K, V = _as_matrix("Q", Q), _as_matrix("K", K), _as_matrix("V", V)
    if Q.shape[1] != K.shape[1]:
        raise ValueError(f"Q and K need the same width d_k: Q is {Q.shape}, K is {K.shape}")
    if K.shape[0] != V.shape[0]:
        raise ValueError(f"K and V need one row per key: K is {K.shape}, V is {V.shape}")
    d_k = Q.shape[1]
    if scale is None:
        if d_k == 0:
            raise ValueError("d_k must be at least 1 to scale by 1/sqrt(d_k)")
        scale = 1.0 / np.sqrt(d_k)
    scale = float(scale)
    if not np.isfinite(scale):
        raise ValueError(f"scale must be finite, got {scale!r}")
    scores = Q @ K.T
    with np.errstate(over="ignore"):
        scaled = scores * scale
    if not np.all(np.isfinite(scaled)):
        raise ValueError("scores overflowed to infinity; use smaller values in Q and K")
    n_q, n_k = scores.shape
    if mask is None:
        allowed = np.ones((n_q, n_k), dtype=bool)
    else:
        m = np.asarray(mask)
        if m.dtype != np.bool_:
            raise ValueError(f"mask must be boolean (True = may attend), got dtype {m.dtype}")
        try:
            allowed = np.broadcast_to(m, (n_q, n_k))
        except ValueError:
            raise ValueError(f"mask of shape {m.shape} does not fit scores of shape {(n_q, n_k)}") from None
    scaled = np.where(allowed, scaled, -np.inf)
    weights = softmax(scaled, axis=-1)
    output = weights @ V
    fully_masked = ~np.any(allowed, axis=-1)
    return AttentionSteps(scores=scores, scaled_scores=scaled, weights=weights, output=output,
                          fully_masked=fully_masked, scale=scale)


def causal_mask(n: int) -> np.ndarray:
    """Decoder (look-ahead) mask: query i may attend to keys 0..i.

    Args:
        n: number of tokens, >= 0.

    Returns:
        bool array (n, n), True on and below the diagonal (the diagonal is kept: a token sees itself).

    Raises:
        ValueError: if n is negative.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    return np.tril(np.ones((n, n), dtype=bool))


def padding_mask(is_pad, n_queries: int) -> np.ndarray:
    """Mask that hides padding keys from every query.

    Args:
        is_pad: 1-D bool array-like of length n_k; True marks a padding token.
        n_queries: number of query rows n_q, >= 0.

    Returns:
        bool array (n_queries, n_k): False in the columns of pad keys, True elsewhere.

    Raises:
        ValueError: if is_pad is not 1-D or n_queries is negative.
    """
    pad = np.asarray(is_pad, dtype=bool)
    if pad.ndim != 1:
        raise ValueError(f"is_pad must be 1-D, got shape {pad.shape}")
    if n_queries < 0:
        raise ValueError(f"n_queries must be >= 0, got {n_queries}")
    return np.broadcast_to(~pad, (n_queries, pad.size)).copy()
