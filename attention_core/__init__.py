"""attention_core: the math of Attention Lab -- NumPy only (never imports streamlit, plotly or pandas).

Letters: n_q query tokens, n_k key/value tokens, d_model (d_model_kv: the key/value side's width), d_k, d_v (per
head), h = n_heads. Arrays are float64; masks are boolean, True = may attend. Each function's docstring gives its
shapes, errors and source (Vaswani et al. 2017, "Attention Is All You Need").

- attention.py: ``softmax``, ``softmax_exact`` (which weights are exactly 0 or 1),
  ``scaled_dot_product_attention(Q, K, V, mask=None, scale=None) -> AttentionSteps``
  (Q (n_q, d_k), K (n_k, d_k), V (n_k, d_v); n_q != n_k and a rectangular mask are fine), ``causal_mask``,
  ``padding_mask``.
- projection.py: ``project_qkv(X, W_Q, W_K, W_V)`` (self-attention) and ``project_cross(X_q, X_kv, W_Q, W_K, W_V)``
  (queries from X_q (n_q, d_model), keys and values from X_kv (n_k, d_model_kv)).
- multihead.py: ``split_heads``, ``merge_heads``, ``multi_head_attention(X_q, X_kv, W_Q, W_K, W_V, W_O, n_heads,
  mask=None) -> MultiHeadSteps`` with W_Q, W_K (d_model, h·d_k), W_V (d_model, h·d_v), W_O (h·d_v, d_model), every
  per-head stage kept (sec. 3.2.2).
- positional.py: ``sinusoidal_positional_encoding``; rotary position embedding ``apply_rope``, ``rope_angles``.
  scaling.py: the variance / saturation / temperature math.
  tokens.py: sentence → tokens.

Seeded example numbers are not here: they are a teaching choice of the lessons (lessons/seeded.py).
"""
from .attention import AttentionSteps, causal_mask, padding_mask, scaled_dot_product_attention, softmax, softmax_exact
from .multihead import MultiHeadSteps, merge_heads, multi_head_attention, split_heads
from .positional import apply_rope, rope_angles, sinusoidal_positional_encoding
from .projection import project_cross, project_qkv

__all__ = [
    "AttentionSteps", "MultiHeadSteps", "apply_rope", "causal_mask", "merge_heads", "multi_head_attention",
    "padding_mask", "project_cross", "project_qkv", "rope_angles", "scaled_dot_product_attention",
    "sinusoidal_positional_encoding", "softmax", "softmax_exact", "split_heads",
]
