"""Multi-head attention (Vaswani et al. 2017, "Attention Is All You Need", sec. 3.2.2):

    MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W_O,   head_i = Attention(Q W_Q^i, K W_K^i, V W_V^i)

where Q, K, V are the token vectors of the query side and of the key/value side (X_q and X_kv here; the same X for
self-attention), W_Q^i, W_K^i (d_model, d_k) and W_V^i (d_model, d_v) are head i's projections and W_O is
(h·d_v, d_model). As the paper's implementations do, the h projections are kept side by side in one matrix each:
W_Q = [W_Q^1 | ... | W_Q^h] of shape (d_model, h·d_k), so head i is column block i (``split_heads(W_Q, h)[i]`` is
W_Q^i) and Q·W_Q split into column blocks gives every head's queries at once.

Letters: n_q query tokens, n_k key/value tokens, d_model the query-side width (and the output's), d_model_kv the
key/value-side width (= d_model in the paper), h = n_heads, d_k the per-head query/key width, d_v the per-head
value width. The paper takes d_k = d_v = d_model / h (square W_Q, W_K, W_V, W_O); any d_k, d_v >= 1 work here.
Arrays are float64; masks are boolean with True = may attend.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .attention import AttentionSteps, _as_matrix, scaled_dot_product_attention
from .projection import project_cross

__all__ = ["MultiHeadSteps", "split_heads", "merge_heads", "multi_head_attention"]


def split_heads(M, n_heads: int) -> np.ndarray:
    """Cut the columns of M into n_heads equal blocks: head i is column block i of every row.

    Applied to projected tokens (Q = X·W_Q, (n, h·d_k)) it gives each head's queries; applied to a weight matrix
    W_Q (d_model, h·d_k) it gives each head's W_Q^i (d_model, d_k).

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
    """Inverse of :func:`split_heads`: (h, n, d_head) → (n, h·d_head), heads side by side (the paper's Concat).

    Raises:
        ValueError: if H is not 3-D.
    """
    H = np.asarray(H, dtype=np.float64)
    if H.ndim != 3:
        raise ValueError(f"H must have shape (h, n, d_head), got {H.shape}")
    h, n, d = H.shape
    return H.transpose(1, 0, 2).reshape(n, h * d).copy()


def _per_head(stage: str) -> cached_property:
    """A derived stage of :class:`MultiHeadSteps`: field ``stage`` of every head's AttentionSteps, stacked to (h, …)."""
    return cached_property(lambda self: np.stack([getattr(s, stage) for s in self.heads]))


@dataclass(frozen=True)
class MultiHeadSteps:
    """Every named stage of multi-head attention (sec. 3.2.2), float64.

    Stored:
        Q: X_q·W_Q, shape (n_q, h·d_k): every head's queries side by side.
        K: X_kv·W_K, shape (n_k, h·d_k).
        V: X_kv·W_V, shape (n_k, h·d_v).
        heads: list of h :class:`AttentionSteps`, head i = Attention(Q_i, K_i, V_i) scaled by 1/√d_k (the per-head
            width, not d_model).
        concat: Concat(head_1..head_h), the heads' outputs side by side, shape (n_q, h·d_v).
        output: concat·W_O, shape (n_q, d_model).

    Derived (read-only views of the stored stages, computed once on first access):
        n_heads (h), d_k, d_v: ints.
        Q_heads (h, n_q, d_k), K_heads (h, n_k, d_k), V_heads (h, n_k, d_v): each head's queries, keys, values
            (``Q_heads[i] == Q[:, i*d_k:(i+1)*d_k]`` = X_q·W_Q^i).
        scores (h, n_q, n_k): Q_i·K_iᵀ per head.  scaled_scores (h, n_q, n_k): scores/√d_k, −inf where masked.
        weights (h, n_q, n_k): softmax of each row (rows sum to 1; a fully masked row is all 0).
        head_outputs (h, n_q, d_v): weights_i·V_i; ``merge_heads(head_outputs) == concat``.
        fully_masked (n_q,) bool: query rows the (shared) mask leaves nothing to attend to.

    Since W_O's rows come in h blocks of d_v (block i: W_O^i = W_O[i*d_v:(i+1)*d_v]),
    output = Σ_i head_outputs[i]·W_O^i: each head writes its share of the output.
    """

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    heads: list[AttentionSteps]
    concat: np.ndarray
    output: np.ndarray

    @property
    def n_heads(self) -> int:
        return len(self.heads)

    @property
    def d_k(self) -> int:
        return self.Q.shape[1] // self.n_heads

    @property
    def d_v(self) -> int:
        return self.V.shape[1] // self.n_heads

    @cached_property
    def Q_heads(self) -> np.ndarray:
        return split_heads(self.Q, self.n_heads)

    @cached_property
    def K_heads(self) -> np.ndarray:
        return split_heads(self.K, self.n_heads)

    @cached_property
    def V_heads(self) -> np.ndarray:
        return split_heads(self.V, self.n_heads)

    scores = _per_head("scores")
    scaled_scores = _per_head("scaled_scores")
    weights = _per_head("weights")
    head_outputs = _per_head("output")

    @property
    def fully_masked(self) -> np.ndarray:
        return self.heads[0].fully_masked.copy()


def _n_heads(n_heads) -> int:
    if isinstance(n_heads, bool):
        raise ValueError(f"n_heads must be a whole number >= 1, got {n_heads!r}")
    try:
        h = operator.index(n_heads)
    except TypeError:
        raise ValueError(f"n_heads must be a whole number >= 1, got {n_heads!r}") from None
    if h < 1:
        raise ValueError(f"n_heads must be >= 1, got {h}")
    return h


def multi_head_attention(X_q, X_kv, W_Q, W_K, W_V, W_O, n_heads: int, mask=None) -> MultiHeadSteps:
    """MultiHead(X_q, X_kv) = Concat(head_1..head_h)·W_O, head_i = Attention(X_q·W_Q^i, X_kv·W_K^i, X_kv·W_V^i)
    (Vaswani et al. 2017, sec. 3.2.2), keeping every intermediate.

    Args:
        X_q: query-side tokens, shape (n_q, d_model). For self-attention pass the same array as X_kv.
        X_kv: key/value-side tokens, shape (n_k, d_model_kv) (d_model_kv = d_model in the paper).
        W_Q: (d_model, h·d_k), the heads' W_Q^i side by side: head i uses column block i.
        W_K: (d_model_kv, h·d_k), likewise.
        W_V: (d_model_kv, h·d_v), likewise.
        W_O: (h·d_v, d_model): maps the concatenated heads back to d_model.
            The paper's square case, every W (d_model, d_model) with d_k = d_v = d_model/h, is one instance.
        n_heads: h >= 1; d_k = width of W_Q / h and d_v = width of W_V / h, each must come out a whole number >= 1.
        mask: optional bool array broadcastable to (n_q, n_k), True = may attend, shared by every head.

    Returns:
        :class:`MultiHeadSteps`: Q (n_q, h·d_k), K (n_k, h·d_k), V (n_k, h·d_v), heads (h AttentionSteps, each
        scaled by 1/√d_k), concat (n_q, h·d_v), output (n_q, d_model), and per-head stacks Q_heads, K_heads,
        V_heads, scores, scaled_scores, weights, head_outputs, fully_masked.

    Raises:
        ValueError (the message names the shapes): a non-2-D or non-finite input; W_Q without d_model rows, W_K or
        W_V without d_model_kv rows; W_Q and W_K of different widths; n_heads not a whole number >= 1, or not
        dividing the width of W_Q / W_K or of W_V into blocks of at least one column; W_O not (h·d_v, d_model);
        a mask that is not boolean or does not fit (n_q, n_k); a product that overflows.
    """
    h = _n_heads(n_heads)
    X_q, X_kv = _as_matrix("X_q", X_q), _as_matrix("X_kv", X_kv)
    W_Q, W_K, W_V, W_O = (_as_matrix(n, W) for n, W in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V), ("W_O", W_O)))
    Q, K, V = project_cross(X_q, X_kv, W_Q, W_K, W_V)
    for what, W, letter in (("W_Q and W_K have", W_Q, "d_k"), ("W_V has", W_V, "d_v")):
        width = W.shape[1]
        if width == 0 or width % h:
            raise ValueError(f"{what} {width} columns; n_heads = {h} must divide them into blocks of {letter} >= 1 "
                             f"columns (the shape is (d_model, h·{letter}); got {W.shape})")
    d_model, hd_v = X_q.shape[1], W_V.shape[1]
    if W_O.shape != (hd_v, d_model):
        raise ValueError(f"W_O must be (h·d_v, d_model) = ({hd_v}, {d_model}) to map the {h} heads' outputs "
                         f"back to d_model; it is {W_O.shape}")
    Qh, Kh, Vh = split_heads(Q, h), split_heads(K, h), split_heads(V, h)
    heads = [scaled_dot_product_attention(Qh[i], Kh[i], Vh[i], mask=mask) for i in range(h)]
    concat = merge_heads(np.stack([s.output for s in heads]))
    with np.errstate(over="ignore", invalid="ignore"):
        output = concat @ W_O
    if not np.all(np.isfinite(output)):
        raise ValueError("output = concat·W_O overflowed; use smaller values")
    return MultiHeadSteps(Q=Q, K=K, V=V, heads=heads, concat=concat, output=output)
