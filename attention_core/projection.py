"""Linear projections of token vectors into queries, keys and values (Vaswani et al. 2017, sec. 3.2)."""
from __future__ import annotations

import numpy as np

from .attention import _as_matrix

__all__ = ["project_qkv"]


def project_qkv(X, W_Q, W_K, W_V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q = X·W_Q, K = X·W_K, V = X·W_V.

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
    with np.errstate(over="ignore", invalid="ignore"):
        out = tuple(X @ W for W in mats.values())
    for name, M in zip("QKV", out):
        if not np.all(np.isfinite(M)):
            raise ValueError(f"{name} = X·W_{name} overflowed; use smaller values")
    return out  # type: ignore[return-value]
