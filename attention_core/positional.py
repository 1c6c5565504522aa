"""Position information: sinusoidal positional encoding (Vaswani et al. 2017, sec. 3.5), added to the token
vectors, and rotary position embedding (RoPE, Su et al. 2021), a rotation of each query and key vector."""
from __future__ import annotations

import numpy as np

__all__ = ["apply_rope", "rope_angles", "sinusoidal_at", "sinusoidal_positional_encoding"]


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
    if n_positions < 0:
        raise ValueError(f"need n_positions >= 0, got {n_positions}")
    return sinusoidal_at(np.arange(n_positions, dtype=np.float64), d_model, base)


def sinusoidal_at(positions, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The rows of :func:`sinusoidal_positional_encoding` at any real positions (e.g. 0, 0.05, 0.1, … to draw a
    column as a smooth curve through the table's values at the whole positions).

    Args:
        positions: 1-D, finite, length n. d_model >= 1; base > 0.

    Returns:
        float64 array (n, d_model).

    Raises:
        ValueError: on d_model < 1, base <= 0, or positions not 1-D / not finite.
    """
    pos = np.asarray(positions, dtype=np.float64)
    if d_model < 1 or not base > 0 or pos.ndim != 1 or not np.all(np.isfinite(pos)):
        raise ValueError(f"need 1-D finite positions, d_model >= 1, base > 0; got shape {pos.shape}, {d_model}, "
                         f"{base}")
    pair = np.arange(d_model) // 2
    angle = pos[:, None] / np.power(float(base), 2.0 * pair / d_model)
    return np.where(np.arange(d_model) % 2 == 0, np.sin(angle), np.cos(angle))


def rope_angles(positions, d: int, base: float = 10000.0) -> np.ndarray:
    """The rotation angles of rotary position embedding: angle[p, i] = positions[p] · θ_i, θ_i = base^(−2i/d).

    Args:
        positions: 1-D sequence of positions (whole or not; counting from 0), length n.
        d: the width of the vectors to rotate, >= 1; pair i is columns (2i, 2i+1), i = 0 .. d//2 − 1 (an odd d
            leaves the last column unrotated).
        base: > 0 (10000 in Su et al. 2021).

    Returns:
        float64 array (n, d // 2), radians.

    Raises:
        ValueError: on d < 1, base <= 0, or positions not 1-D / not finite.

    Source: Su et al. 2021, "RoFormer: Enhanced Transformer with Rotary Position Embedding", eq. 15 (θ_i).
    """
    pos = np.asarray(positions, dtype=np.float64)
    if d < 1 or not base > 0 or pos.ndim != 1 or not np.all(np.isfinite(pos)):
        raise ValueError(f"need 1-D finite positions, d >= 1, base > 0; got shape {pos.shape}, d={d}, base={base}")
    theta = np.power(float(base), -2.0 * np.arange(d // 2) / d)
    return pos[:, None] * theta[None, :]


def apply_rope(M: np.ndarray, positions=None, base: float = 10000.0) -> np.ndarray:
    """Rotary position embedding: row p of ``M`` (a query or key vector) with each pair (2i, 2i+1) rotated by the
    angle positions[p] · θ_i, θ_i = base^(−2i/d):

        out[p, 2i]   = M[p, 2i] · cos a − M[p, 2i+1] · sin a
        out[p, 2i+1] = M[p, 2i] · sin a + M[p, 2i+1] · cos a,   a = positions[p] · θ_i.

    Rotations keep lengths, and (R_m q)·(R_n k) = q·(R_{n−m} k): the score of a query at m and a key at n depends on
    n − m only, not on where the pair stands. Position 0 is the identity. Interleaved pairs, as in the paper (some
    libraries rotate the halves [0:d/2] and [d/2:d] instead: the same idea with the columns permuted).

    Args:
        M: float array (n, d), d >= 1 (an odd d leaves the last column as it is).
        positions: n positions (default 0, 1, …, n − 1).
        base: > 0 (10000).

    Returns:
        float64 array (n, d), a new array.

    Raises:
        ValueError: if M is not 2-D, or positions do not have n entries (or see :func:`rope_angles`).

    Source: Su et al. 2021, "RoFormer", eq. 13–15 (the rotation applied to W_q x_m and W_k x_n).
    """
    M = np.asarray(M, dtype=np.float64)
    if M.ndim != 2:
        raise ValueError(f"M must be 2-D (n, d), got shape {M.shape}")
    n, d = M.shape
    pos = np.arange(n, dtype=np.float64) if positions is None else np.asarray(positions, dtype=np.float64)
    if pos.shape != (n,):
        raise ValueError(f"need one position per row of M ({n}), got shape {pos.shape}")
    if d < 1:
        raise ValueError("M needs at least one column")
    a = rope_angles(pos, d, base)
    cos, sin = np.cos(a), np.sin(a)
    out = M.copy()
    even, odd = M[:, 0:2 * (d // 2):2], M[:, 1:2 * (d // 2):2]
    out[:, 0:2 * (d // 2):2] = even * cos - odd * sin
    out[:, 1:2 * (d // 2):2] = even * sin + odd * cos
    return out
