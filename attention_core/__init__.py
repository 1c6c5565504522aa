"""attention_core: the math of Attention Lab -- NumPy only (never imports streamlit, plotly or pandas)."""
from .attention import AttentionSteps, causal_mask, padding_mask, scaled_dot_product_attention, softmax
from .multihead import MultiHeadSteps, merge_heads, multi_head_attention, split_heads
from .positional import sinusoidal_positional_encoding
from .projection import project_cross, project_qkv

__all__ = [
    "AttentionSteps", "MultiHeadSteps", "causal_mask", "merge_heads", "multi_head_attention", "padding_mask",
    "project_cross", "project_qkv", "scaled_dot_product_attention", "sinusoidal_positional_encoding", "softmax",
    "split_heads",
]
