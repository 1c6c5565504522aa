"""Multi-head attention: split d_model into heads, attend per head, concatenate, project with W_O
(Vaswani et al. 2017, sec. 3.2.2)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attention import AttentionSteps, _as_matrix, scaled_dot_product_attention

__all__ = ["MultiHeadSteps", "split_heads", "merge_heads", "multi_head_attention"]


def split_heads(M, n_heads: int) -> np.ndarray:
    """Cut the columns of M into n_heads equal blocks: head i is column block i of every token.

    Args:
        M: shape (n, h·d_head), float64.
        n_heads: h >= 1; must divide the width of M.

    Returns:
        array (h, n, d_head) with ``out[i] == M[:, i*d_head:(i+1)*d_head]``.

    Raises:
        ValueError: if M is not 2-D, n_heads < 1, or n_heads does not divide the width.
    """
    M = _as_matrix("M", M)
    n, width = M.shape
    if n_heads < 1 or width % n_heads:
        raise ValueError(f"n_heads = {n_heads} must be >= 1 and divide the width {width}")
    return M.reshape(n, n_heads, width // n_heads).transpose(1, 0, 2).copy()


def merge_heads(H) -> np.ndarray:
    """Inverse of :func:`split_heads`: (h, n, d_head) → (n, h·d_head), heads side by side.

    Raises:
        ValueError: if H is not 3-D.
    """
    H = np.asarray(H, dtype=np.float64)
    if H.ndim != 3:
        raise ValueError(f"H must have shape (h, n, d_head), got {H.shape}")
    h, n, d = H.shape
    return H.transpose(1, 0, 2).reshape(n, h * d).copy()


@dataclass(frozen=True)
class MultiHeadSteps:
    """Named stages of multi-head attention.

    Attributes:
        Q, K, V: full projections, shapes (n_q, d_model), (n_k, d_model), (n_k, d_model).
        heads: one AttentionSteps per head, each scaled by 1/√d_head.
        concat: the heads' outputs side by side, shape (n_q, d_model).
        output: concat · W_O, shape (n_q, d_model).
    """

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    heads: list[AttentionSteps]
    concat: np.ndarray
    output: np.ndarray


def multi_head_attention(X_q, X_kv, W_Q, W_K, W_V, W_O, n_heads: int, mask=None) -> MultiHeadSteps:
    """MultiHead(X_q, X_kv) = Concat(head_1..head_h) W_O, head_i = Attention(Q_i, K_i, V_i).

    Args:
        X_q: query-side tokens (n_q, d_model). For self-attention pass the same array as X_kv.
        X_kv: key/value-side tokens (n_k, d_model).
        W_Q, W_K, W_V, W_O: each (d_model, d_model); head i uses column block i of W_Q, W_K, W_V.
        n_heads: h, must divide d_model.
        mask: optional bool (n_q, n_k), True = may attend, shared by every head.

    Returns:
        MultiHeadSteps (float64 arrays).

    Raises:
        ValueError: on shape mismatches, non-finite values, or an n_heads that does not divide d_model.
    """
    X_q, X_kv = _as_matrix("X_q", X_q), _as_matrix("X_kv", X_kv)
    Ws = {n: _as_matrix(n, W) for n, W in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V), ("W_O", W_O))}
    d_model = X_q.shape[1]
    if X_kv.shape[1] != d_model:
        raise ValueError(f"X_q {X_q.shape} and X_kv {X_kv.shape} need the same d_model")
    for name, W in Ws.items():
        if W.shape != (d_model, d_model):
            raise ValueError(f"{name} must be ({d_model}, {d_model}), got {W.shape}")
    Q, K, V = X_q @ Ws["W_Q"], X_kv @ Ws["W_K"], X_kv @ Ws["W_V"]
    Qh, Kh, Vh = split_heads(Q, n_heads), split_heads(K, n_heads), split_heads(V, n_heads)
    heads = [scaled_dot_product_attention(Qh[i], Kh[i], Vh[i], mask=mask) for i in range(n_heads)]
    concat = merge_heads(np.stack([s.output for s in heads]))
    return MultiHeadSteps(Q=Q, K=K, V=V, heads=heads, concat=concat, output=concat @ Ws["W_O"])
