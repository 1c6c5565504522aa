"""Sinusoidal positional encoding (Vaswani et al. 2017, sec. 3.5)."""
from __future__ import annotations

import numpy as np

__all__ = ["sinusoidal_positional_encoding"]


def sinusoidal_positional_encoding(n_positions: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """PE[pos, 2i] = sin(pos / base^(2i/d_model)), PE[pos, 2i+1] = cos(pos / base^(2i/d_model)).

    Args:
        n_positions: number of positions (rows), >= 0; positions are 0, 1, ..., n_positions-1.
        d_model: width (columns), >= 1; odd widths work (the last column is a sine).
        base: wavelength base, > 0 (10000 in the paper).

    Returns:
        float64 array (n_positions, d_model); each sin/cos pair shares one frequency (interleaved,
        not all sines first).

    Raises:
        ValueError: on a negative n_positions, d_model < 1 or base <= 0.
    """
    if n_positions < 0 or d_model < 1 or not base > 0:
        raise ValueError(f"need n_positions >= 0, d_model >= 1, base > 0; got {n_positions}, {d_model}, {base}")
    pos = np.arange(n_positions, dtype=np.float64)[:, None]
    pair = np.arange(d_model) // 2
    angle = pos / np.power(float(base), 2.0 * pair / d_model)
    return np.where(np.arange(d_model) % 2 == 0, np.sin(angle), np.cos(angle))
