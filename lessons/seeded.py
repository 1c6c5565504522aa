"""Where the lessons' numbers come from: seeded token vectors and weights, drawn in one place, and :func:`refit`, which
carries a person's edits into matrices of other tokens or sizes. NumPy only.

Every lesson draws from here, so the same token with the same seed has the same vector in every lesson (the masks
lesson shows the numbers the Q·K·V lesson shows for its own sentence), and a future lesson (multi-head,
cross-attention) gets them by calling the same functions.

Why in ``lessons`` and not in ``attention_core``: attention_core is the math of the paper, deterministic functions
of the arrays they are given. These numbers are teaching choices of this app, not math: one decimal so that a
person can read them and retype them, a largest size that is the lessons' size limit, names and tokens hashed into
the seed, and above all they are part of every link already shared (a link carries only the edits; the rest is
drawn again from the seed). They belong with the lesson model and the link codec.

How a number is drawn (do not change any of it: every shared link would open with other numbers; the regression
reference tests/core/fixtures/seeded_numbers.json holds the numbers of the code before this module existed):

- a token's row of matrix ``name`` (e.g. "X"): ``np.random.default_rng([seed, crc32(name), crc32(token)])``, MAX_SIZE
  normal draws with standard deviation X_SCALE, rounded to one decimal; a width w uses the first w. So a token keeps
  its row wherever it stands in the sentence, and a wider matrix only adds columns.
- a weight matrix ``name`` (e.g. "W_Q"): ``np.random.default_rng([seed, crc32(name)])``, a (MAX_SIZE, MAX_SIZE)
  normal draw with standard deviation W_SCALE, rounded to one decimal; a (rows, cols) matrix is its top-left block.
  So growing or shrinking a size keeps every number that still fits.
- multi-head weights (:func:`multi_head_weights`): head i's block is the weight matrix named ``name`` for head 0 and
  ``f"{name}#{i}"`` for head i >= 1, so one head is exactly the Q·K·V lesson's W_Q, W_K, W_V, and adding or removing
  a head or resizing d_k / d_v keeps every other head's numbers.

crc32 is zlib's, of the UTF-8 bytes. ``+ 0.0`` turns a rounded -0.0 into 0.0. Arrays are float64.
"""
from __future__ import annotations

import zlib
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

__all__ = ["MAX_SIZE", "X_SCALE", "W_SCALE", "token_row", "token_rows", "weight", "multi_head_weights", "refit"]

MAX_SIZE = 16
"""Every row is drawn MAX_SIZE wide and every weight MAX_SIZE × MAX_SIZE, then cut: the largest width a draw gives."""
X_SCALE, W_SCALE = 1.0, 0.5
"""Standard deviations of the token vectors' entries and of the weights' entries (before rounding)."""


def _crc(s: str) -> int:
    return zlib.crc32(s.encode("utf-8"))


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")
    return int(seed)


def _check_size(what: str, k) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k <= MAX_SIZE:
        raise ValueError(f"{what} must be a whole number in 0..{MAX_SIZE} (MAX_SIZE), got {k!r}")
    return int(k)


@lru_cache(maxsize=1024)
def _row(seed: int, name: str, token: str) -> np.ndarray:
    rng = np.random.default_rng([seed, _crc(name), _crc(token)])
    row = np.round(rng.normal(0.0, X_SCALE, MAX_SIZE), 1) + 0.0
    row.setflags(write=False)
    return row


@lru_cache(maxsize=256)
def _weight(seed: int, name: str) -> np.ndarray:
    rng = np.random.default_rng([seed, _crc(name)])
    w = np.round(rng.normal(0.0, W_SCALE, (MAX_SIZE, MAX_SIZE)), 1) + 0.0
    w.setflags(write=False)
    return w


def token_row(seed: int, name: str, token: str, width: int) -> np.ndarray:
    """The seeded row of ``token`` in matrix ``name``: shape (width,), float64, one decimal (a new, writable array).

    Raises:
        ValueError: for a seed that is not a whole number >= 0, or a width outside 0..MAX_SIZE.
    """
    seed, width = _check_seed(seed), _check_size("width", width)
    return _row(seed, str(name), str(token))[:width].copy()


def token_rows(tokens: Sequence[str], seed: int, width: int, name: str = "X") -> np.ndarray:
    """One seeded row per token (:func:`token_row`), in order: shape (len(tokens), width), float64. Repeated tokens
    get equal rows; the tokens are taken as they are (never split again). Raises ValueError like token_row."""
    seed, width = _check_seed(seed), _check_size("width", width)
    out = np.empty((len(tokens), width))
    for i, tok in enumerate(tokens):
        out[i] = _row(seed, str(name), str(tok))[:width]
    return out


def weight(seed: int, name: str, rows: int, cols: int) -> np.ndarray:
    """The seeded weight matrix ``name`` (e.g. "W_Q"), shape (rows, cols), float64, one decimal: the top-left block of
    one (MAX_SIZE, MAX_SIZE) draw (a new, writable array).

    Raises:
        ValueError: for a seed that is not a whole number >= 0, or rows / cols outside 0..MAX_SIZE.
    """
    seed = _check_seed(seed)
    rows, cols = _check_size("rows", rows), _check_size("cols", cols)
    return _weight(seed, str(name))[:rows, :cols].copy()


def _head_name(name: str, i: int) -> str:
    return name if i == 0 else f"{name}#{i}"


def multi_head_weights(seed: int, d_model: int, d_k: int, d_v: int, n_heads: int) -> dict[str, np.ndarray]:
    """Seeded weights for :func:`attention_core.multihead.multi_head_attention` with h = n_heads heads:

    - W_Q, W_K: (d_model, h·d_k), column block i = ``weight(seed, "W_Q" | "W_Q#i", d_model, d_k)``;
    - W_V: (d_model, h·d_v), column block i = ``weight(seed, "W_V" | "W_V#i", d_model, d_v)``;
    - W_O: (h·d_v, d_model), row block i = ``weight(seed, "W_O" | "W_O#i", d_v, d_model)``.

    Head 0's blocks are the Q·K·V lesson's W_Q, W_K, W_V for the same seed and sizes.

    Raises:
        ValueError: for a seed that is not a whole number >= 0, n_heads < 1, or d_model, d_k, d_v outside
            0..MAX_SIZE (each block is one draw).
    """
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer)) or n_heads < 1:
        raise ValueError(f"n_heads must be a whole number >= 1, got {n_heads!r}")
    heads = range(int(n_heads))
    return {
        "W_Q": np.hstack([weight(seed, _head_name("W_Q", i), d_model, d_k) for i in heads]),
        "W_K": np.hstack([weight(seed, _head_name("W_K", i), d_model, d_k) for i in heads]),
        "W_V": np.hstack([weight(seed, _head_name("W_V", i), d_model, d_v) for i in heads]),
        "W_O": np.vstack([weight(seed, _head_name("W_O", i), d_v, d_model) for i in heads]),
    }


def _matches(axis: str, n_old: int, n_new: int, old_keys, new_keys) -> tuple[list[int], list[int]]:
    """(indices into old, indices into new) of the rows (or columns) that correspond."""
    if (old_keys is None) != (new_keys is None):
        raise ValueError(f"give both old_{axis} and new_{axis}, or neither (then {axis} are matched by position)")
    if old_keys is None:
        k = min(n_old, n_new)
        return list(range(k)), list(range(k))
    old_keys, new_keys = list(old_keys), list(new_keys)
    if len(old_keys) != n_old or len(new_keys) != n_new:
        raise ValueError(f"old_{axis} has {len(old_keys)} keys for {n_old} {axis} and new_{axis} {len(new_keys)} for "
                         f"{n_new}: one key per {axis[:-1]}")
    where: dict = {}
    for i, key in enumerate(old_keys):
        where.setdefault(key, []).append(i)
    used: dict = {}
    src, dst = [], []
    for j, key in enumerate(new_keys):
        k = used.get(key, 0)
        used[key] = k + 1
        if k < len(where.get(key, ())):
            src.append(where[key][k])
            dst.append(j)
    return src, dst


def refit(old, new, *, old_rows: Sequence | None = None, new_rows: Sequence | None = None,
          old_cols: Sequence | None = None, new_cols: Sequence | None = None) -> np.ndarray:
    """``new`` with the cells of ``old`` that still exist in it: carry a person's edits into a matrix of other
    tokens or sizes. ``new`` holds what every other cell should be (the seeded / preset numbers of the new shape).

    Which cells are kept: a cell (i, j) of ``old`` goes to (i', j') of the result when row i matches row i' and
    column j matches column j'. Rows (and, likewise, columns) are matched

    - by position when no keys are given: row i ↔ row i for i < min(old rows, new rows). Growing adds rows taken
      from ``new``; shrinking drops only the rows past the new end (the top-left overlap of the two shapes is kept);
    - by key when ``old_rows`` and ``new_rows`` (one key per row, e.g. the tokens of the old and the new sentence)
      are given: the k-th row of ``new`` whose key is t gets the k-th row of ``old`` whose key is t (its k-th
      occurrence), so a token keeps its row wherever it moves, a repeated token's copies keep theirs in order, a
      new token (or a further copy) gets ``new``'s row and a token that left takes its row with it.

    Args:
        old: the matrix as edited, shape (r_old, c_old); a 1-D array is one row (then no row keys).
        new: the new shape's unedited matrix, shape (r_new, c_new) (1-D: one row); its dtype is the result's (a
            boolean mask stays boolean, numbers are cast to it).
        old_rows, new_rows: optional row keys, both or neither. old_cols, new_cols: optional column keys, likewise
            (e.g. (head, column) pairs for a multi-head W_Q whose d_k changes).

    Returns:
        a new array of ``new``'s shape and dtype (``new`` itself is not changed).

    Raises:
        ValueError: if old or new is not 1-D or 2-D, if only one of a pair of keys is given, or if a key list's
            length differs from its axis.

    Example (by position): old [[1, 2], [3, 4]] into new zeros (3, 1) → [[1], [3], [0]].
    """
    old_a, new_a = np.asarray(old), np.asarray(new)
    if old_a.ndim not in (1, 2) or new_a.ndim not in (1, 2):
        raise ValueError(f"refit takes 1-D or 2-D arrays, got shapes {old_a.shape} and {new_a.shape}")
    o2, out = np.atleast_2d(old_a), np.atleast_2d(new_a).copy()
    r_src, r_dst = _matches("rows", o2.shape[0], out.shape[0], old_rows, new_rows)
    c_src, c_dst = _matches("cols", o2.shape[1], out.shape[1], old_cols, new_cols)
    if r_src and c_src:
        out[np.ix_(r_dst, c_dst)] = o2[np.ix_(r_src, c_src)]
    return out.reshape(new_a.shape)


def keep_edits(edited, before, after) -> np.ndarray:
    """``after`` (a matrix drawn again, e.g. from a new seed) with the cells of ``edited`` that differ from
    ``before`` (what was drawn for it): the person's edits survive a redraw, everything else is the new draw.
    All three have one shape. Returns a new array."""
    edited, before, after = (np.asarray(a) for a in (edited, before, after))
    return np.where(edited != before, edited, after).astype(after.dtype)
