"""Linear projections of token vectors into queries, keys and values (Vaswani et al. 2017, sec. 3.2).

Letters: n tokens (self-attention), n_q query tokens and n_k key/value tokens (cross-attention), d_model the width
of the query-side token vectors, d_model_kv that of the key/value side (= d_model in the paper, where both sides are
outputs of the same-sized stacks), d_k the query/key width, d_v the value width. Arrays are float64.

- :func:`project_qkv`: self-attention, one sequence X gives Q, K and V.
- :func:`project_cross`: source–target (cross) attention, queries from the target X_q, keys and values from the
  source X_kv (the encoder–decoder attention of sec. 3.2.3: "the queries come from the previous decoder layer, and
  the memory keys and values come from the output of the encoder"). ``project_cross(X, X, ...)`` equals
  ``project_qkv(X, ...)``.
"""
from __future__ import annotations

import numpy as np

from .attention import _as_matrix

__all__ = ["project_qkv", "project_cross"]


def _product(out_name: str, x_name: str, X: np.ndarray, w_name: str, W: np.ndarray) -> np.ndarray:
    """X·W, refused (ValueError naming both) when it overflows to a non-finite value."""
    with np.errstate(over="ignore", invalid="ignore"):
        M = X @ W
    if not np.all(np.isfinite(M)):
        raise ValueError(f"{out_name} = {x_name}·{w_name} overflowed; use smaller values")
    return M


def project_qkv(X, W_Q, W_K, W_V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q = X·W_Q, K = X·W_K, V = X·W_V (self-attention: every token is a query, a key and a value).

    Args:
        X: token vectors, one row per token, shape (n, d_model).
        W_Q: shape (d_model, d_k).  W_K: shape (d_model, d_k).  W_V: shape (d_model, d_v).

    Returns:
        (Q, K, V) as float64 arrays of shapes (n, d_k), (n, d_k), (n, d_v).

    Raises:
        ValueError: if a matrix is not 2-D or holds a non-finite value, if a weight matrix does not
            have d_model rows, if W_Q and W_K differ in width, or if a product overflows.
    """
    X = _as_matrix("X", X)
    mats = {"W_Q": _as_matrix("W_Q", W_Q), "W_K": _as_matrix("W_K", W_K), "W_V": _as_matrix("W_V", W_V)}
    for name, W in mats.items():
        if W.shape[0] != X.shape[1]:
            raise ValueError(f"{name} needs d_model = {X.shape[1]} rows to multiply X {X.shape}; it is {W.shape}")
    if mats["W_Q"].shape[1] != mats["W_K"].shape[1]:
        raise ValueError(f"W_Q and W_K need the same width d_k: {mats['W_Q'].shape} vs {mats['W_K'].shape}")
    return tuple(_product(name[-1], "X", X, name, W) for name, W in mats.items())  # type: ignore[return-value]


def project_cross(X_q, X_kv, W_Q, W_K, W_V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q = X_q·W_Q, K = X_kv·W_K, V = X_kv·W_V: queries from one sequence, keys and values from another.

    Q depends on X_q only, K and V on X_kv only, so the weights Q·Kᵀ gives are rectangular, (n_q, n_k): one row
    per target token, one column per source token (pass them to
    :func:`attention_core.attention.scaled_dot_product_attention`, whose mask is then (n_q, n_k) too).

    Args:
        X_q: query-side (target) token vectors, shape (n_q, d_model).
        X_kv: key/value-side (source) token vectors, shape (n_k, d_model_kv); d_model_kv may differ from d_model.
        W_Q: shape (d_model, d_k).  W_K: shape (d_model_kv, d_k).  W_V: shape (d_model_kv, d_v).

    Returns:
        (Q, K, V) as float64 arrays of shapes (n_q, d_k), (n_k, d_k), (n_k, d_v). With X_q = X_kv (and
        d_model_kv = d_model) they equal :func:`project_qkv`'s.

    Raises:
        ValueError: if a matrix is not 2-D or holds a non-finite value, if W_Q does not have d_model rows or W_K,
            W_V do not have d_model_kv rows (the message names both shapes), if W_Q and W_K differ in width, or if
            a product overflows.
    """
    X_q, X_kv = _as_matrix("X_q", X_q), _as_matrix("X_kv", X_kv)
    W_Q, W_K, W_V = _as_matrix("W_Q", W_Q), _as_matrix("W_K", W_K), _as_matrix("W_V", W_V)
    if W_Q.shape[0] != X_q.shape[1]:
        raise ValueError(f"W_Q needs d_model = {X_q.shape[1]} rows to multiply X_q {X_q.shape}; it is {W_Q.shape}")
    for name, W in (("W_K", W_K), ("W_V", W_V)):
        if W.shape[0] != X_kv.shape[1]:
            raise ValueError(
                f"{name} needs d_model_kv = {X_kv.shape[1]} rows to multiply X_kv {X_kv.shape}; it is {W.shape}"
            )
    if W_Q.shape[1] != W_K.shape[1]:
        raise ValueError(f"W_Q and W_K need the same width d_k: {W_Q.shape} vs {W_K.shape}")
    return (_product("Q", "X_q", X_q, "W_Q", W_Q), _product("K", "X_kv", X_kv, "W_K", W_K),
            _product("V", "X_kv", X_kv, "W_V", W_V))
