"""Scaling and softmax: the 3-books mix, why scores are divided by √d_k, and softmax temperature.

Letters: n keys (books), d_k the query/key width, d_v the value width, m samples or draws. Arrays are float64.

The variance argument (Vaswani et al. 2017, "Attention Is All You Need", sec. 3.2.1, footnote 4): if the
components of q and k are independent with mean 0 and variance 1, then q·k = Σ_i q_i k_i has mean 0 and
variance d_k. Large d_k therefore gives large scores, and softmax of large scores is nearly one-hot (its
gradients vanish). Dividing by √d_k brings the variance back to 1 whatever d_k is; it is the same as a softmax
temperature T = √d_k.

How q·k is drawn. For q and k with independent N(0, 1) components, q·k has the same distribution as |q|·z with
|q|² ~ χ²(d_k) and z ~ N(0, 1) independent of it: given q, the rotation invariance of the standard normal makes
q·k = |q|·(q/|q|)·k a N(0, |q|²) number, and for one q against n keys the n dot products are independent given q.
So a draw costs two random numbers whatever d_k is (drawing every component costs 2·d_k, which at d_k = 512 and the
saturation chart's sizes was about a second of server time per seed). tests/scaling/test_scaling_core.py checks
the shortcut against component-by-component draws.

Random draws use ``np.random.default_rng([seed, d_k, stream, part])``, so a value at one d_k does not depend on
which other d_k are asked for, the same seed always gives the same numbers, and the first m draws do not depend on
how many are asked for. Work is done in chunks, so memory stays bounded (about CHUNK_FLOATS floats at a time).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attention import softmax

__all__ = [
    "DK_STEPS", "SATURATION_DKS", "CHUNK_FLOATS", "MAX_DK", "MAX_SAMPLES", "MAX_KEYS", "MAX_DRAWS",
    "MixSteps", "book_mix", "temperature_softmax", "argmax_limit", "uniform_limit", "entropy",
    "dot_product_samples", "VarianceLab", "variance_lab", "density_histogram",
    "SaturationCurves", "saturation_curves", "temperature_sweep",
]

DK_STEPS = tuple(2**i for i in range(10))
"""The key widths the lesson offers: 1, 2, 4, ..., 512."""
SATURATION_DKS = tuple(sorted({2**i for i in range(10)} | {3 * 2**i for i in range(8)}))
"""A denser grid for the saturation chart: 1, 2, 3, 4, 6, 8, 12, ..., 384, 512."""
MAX_DK = 4096
MAX_SAMPLES = 200_000
MAX_KEYS = 64
MAX_DRAWS = 20_000
CHUNK_FLOATS = 1 << 20
"""Largest block of random numbers drawn at once (8 MB of float64)."""


def _check_int(name: str, v, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise ValueError(f"{name} must be an integer in {lo}..{hi}, got {v!r}")
    if not lo <= int(v) <= hi:
        raise ValueError(f"{name} must be in {lo}..{hi}, got {v}")
    return int(v)


def _vector(name: str, x) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != 1 or a.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must hold finite numbers only, got {a.tolist()}")
    return a


# ---- the 3-books mix ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MixSteps:
    """One query against n books, step by step.

    Attributes:
        raw: the scores q·k as given, shape (n,).
        divisor: √d_k when scaling is on, else 1.0.
        scaled: raw / divisor, shape (n,).
        weights: softmax(scaled), shape (n,), sums to 1.
        output: weights @ values, shape (d_v,) -- the mixed content Σ_j w_j v_j.
    """

    raw: np.ndarray
    divisor: float
    scaled: np.ndarray
    weights: np.ndarray
    output: np.ndarray


def book_mix(scores, d_k: int, values, scale: bool = True) -> MixSteps:
    """softmax(scores / √d_k) (or softmax(scores) with scale=False), then the weighted sum of the values.

    Args:
        scores: (n,) raw scores q·k, finite.
        d_k: key width, 1..MAX_DK (only its square root is used).
        values: (n, d_v) one value vector per book, finite.
        scale: divide by √d_k (True) or not.

    Raises:
        ValueError: non-finite input, d_k out of range, or values with a row count other than n.
    """
    raw = _vector("scores", scores)
    d_k = _check_int("d_k", d_k, 1, MAX_DK)
    V = np.asarray(values, dtype=np.float64)
    if V.ndim != 2 or V.shape[0] != raw.size:
        raise ValueError(f"values must have one row per score: scores {raw.shape}, values {V.shape}")
    if not np.all(np.isfinite(V)):
        raise ValueError("values must hold finite numbers only")
    divisor = float(np.sqrt(d_k)) if scale else 1.0
    scaled = raw / divisor
    w = softmax(scaled)
    return MixSteps(raw=raw, divisor=divisor, scaled=scaled, weights=w, output=w @ V)


# ---- temperature ------------------------------------------------------------------------------------------------
def temperature_softmax(scores, T: float) -> np.ndarray:
    """softmax(scores / T) along the last axis.

    Args:
        scores: array-like (..., n), finite.
        T: temperature, finite and > 0. T → 0 tends to :func:`argmax_limit`, T → ∞ to :func:`uniform_limit`;
            dividing by √d_k is T = √d_k.

    Returns:
        float64 array of the same shape; each slice along the last axis sums to 1.

    Raises:
        ValueError: T not finite and positive, or non-finite scores.
    """
    T = float(T)
    _check_temperatures(np.array([T]))
    s = np.asarray(scores, dtype=np.float64)
    if not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite")
    return softmax(_over_t(s, T))


def _check_temperatures(Ts: np.ndarray) -> None:
    bad = Ts[~(np.isfinite(Ts) & (Ts > 0))]
    if bad.size:
        raise ValueError(f"temperature T must be a finite number > 0, got {float(bad[0])!r}")


def _over_t(s: np.ndarray, T) -> np.ndarray:
    """s / T (broadcast), a +inf from a tiny T held at the largest float: huge but finite, so softmax stays stable."""
    with np.errstate(over="ignore"):
        z = s / T
    return np.where(np.isposinf(z), np.finfo(np.float64).max, z)


def argmax_limit(scores) -> np.ndarray:
    """The T → 0 limit of softmax(scores / T): weight 1 on the largest score, shared equally among ties.
    Shape (n,) from (n,); raises ValueError for non-finite or empty scores."""
    s = _vector("scores", scores)
    top = s == s.max()
    return top / top.sum()


def uniform_limit(n: int) -> np.ndarray:
    """The T → ∞ limit: every one of n keys gets 1/n. Shape (n,); raises ValueError unless 1 <= n <= MAX_KEYS."""
    n = _check_int("n", n, 1, MAX_KEYS)
    return np.full(n, 1.0 / n)


def temperature_sweep(scores, temperatures) -> np.ndarray:
    """softmax(scores / T) for every T: shape (len(temperatures), n). Raises ValueError like
    :func:`temperature_softmax`."""
    s = _vector("scores", scores)
    Ts = np.asarray(temperatures, dtype=np.float64).ravel()
    if Ts.size > 10_000:
        raise ValueError(f"at most 10000 temperatures, got {Ts.size}")
    _check_temperatures(Ts)
    return softmax(_over_t(s[np.newaxis, :], Ts[:, np.newaxis]))  # one row per T, all at once


def entropy(p, axis: int = -1) -> np.ndarray:
    """Shannon entropy in nats, −Σ p log p along ``axis`` (0·log 0 = 0). Uniform over n gives ln n; one-hot 0."""
    a = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(a > 0, -a * np.log(np.where(a > 0, a, 1.0)), 0.0)
    return terms.sum(axis=axis)


# ---- the variance lab --------------------------------------------------------------------------------------------
def dot_product_samples(d_k: int, n_samples: int, seed: int = 0) -> np.ndarray:
    """n_samples values of q·k where q and k each have d_k independent N(0, 1) components.

    Args:
        d_k: 1..MAX_DK; n_samples: 1..MAX_SAMPLES; seed: >= 0.

    Drawn as |q|·z with |q|² ~ χ²(d_k) and z ~ N(0, 1) (the same distribution as summing d_k products; module
    docstring), so the cost does not grow with d_k.

    Returns:
        float64 array (n_samples,): raw dot products (mean 0, variance d_k in theory).

    Raises:
        ValueError: a size out of range or a negative seed.
    """
    d_k = _check_int("d_k", d_k, 1, MAX_DK)
    n = _check_int("n_samples", n_samples, 1, MAX_SAMPLES)
    seed = _check_int("seed", seed, 0, 2**32 - 1)
    norms = np.sqrt(np.random.default_rng([seed, d_k, 1, 0]).chisquare(d_k, n))  # |q|, one per sample
    return norms * np.random.default_rng([seed, d_k, 1, 1]).standard_normal(n)  # q·k given q is N(0, |q|²)


def _peak_and_entropy(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row of finite scores z (rows, n): the largest weight and the entropy (nats) of softmax(z), without
    writing the weights out. With z' = z − max z and S = Σ e^{z'}: the largest weight is e^0 / S = 1/S, and
    H = −Σ p log p = −Σ p (z' − log S) = log S − Σ e^{z'} z' / S. One exp per score (softmax, then log p, would take an
    exp and a log per score and twice the passes: the saturation chart's 1.2 million weights at 32 keys)."""
    shifted = z - z.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    total = e.sum(axis=-1)
    return 1.0 / total, np.log(total) - (e * shifted).sum(axis=-1) / total


def _row_scores(rng_norm, rng_z, rows: int, n: int, d_k: int) -> np.ndarray:
    """(rows, n) scores q·k_j of one fresh q against n fresh keys per row, drawn as |q|·z_j (module docstring)."""
    return np.sqrt(rng_norm.chisquare(d_k, (rows, 1))) * rng_z.standard_normal((rows, n))


@dataclass(frozen=True)
class VarianceLab:
    """Samples of q·k at one d_k, with and without ÷√d_k.

    Attributes:
        d_k: the key width.
        raw: (m,) q·k; scaled: (m,) q·k / √d_k.
        var_raw, var_scaled: measured variances (population, ddof=0).
        theory_raw: d_k; theory_scaled: 1.0 (Vaswani et al. 2017, sec. 3.2.1, footnote 4).
    """

    d_k: int
    raw: np.ndarray
    scaled: np.ndarray
    var_raw: float
    var_scaled: float
    theory_raw: float
    theory_scaled: float


def variance_lab(d_k: int, n_samples: int = 20_000, seed: int = 0) -> VarianceLab:
    """Draw :func:`dot_product_samples` and measure the variance with and without scaling. Raises like it."""
    raw = dot_product_samples(d_k, n_samples, seed)
    scaled = raw / np.sqrt(d_k)
    return VarianceLab(d_k=int(d_k), raw=raw, scaled=scaled, var_raw=float(raw.var()),
                       var_scaled=float(scaled.var()), theory_raw=float(d_k), theory_scaled=1.0)


def density_histogram(x, lo: float, hi: float, bins: int = 60) -> tuple[np.ndarray, np.ndarray]:
    """Histogram of x on [lo, hi] as a probability density (area 1 over all samples).

    Returns:
        (centers (bins,), density (bins,)); samples outside [lo, hi] are counted in no bin.

    Raises:
        ValueError: bins outside 1..1000, lo >= hi, or non-finite bounds.
    """
    bins = _check_int("bins", bins, 1, 1000)
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise ValueError(f"need finite lo < hi, got {lo}, {hi}")
    a = np.asarray(x, dtype=np.float64).ravel()
    counts, edges = np.histogram(a, bins=bins, range=(lo, hi))
    width = (hi - lo) / bins
    density = counts / (max(a.size, 1) * width)
    return (edges[:-1] + edges[1:]) / 2, density


# ---- softmax saturation over d_k ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class SaturationCurves:
    """Mean over draws of one query against n keys, for every d_k (components N(0, 1), seeded).

    Attributes:
        d_ks: (g,) int widths; n_keys: n; n_draws: draws per width.
        max_raw, max_scaled: (g,) mean largest softmax weight without / with ÷√d_k (between 1/n and 1).
        entropy_raw, entropy_scaled: (g,) mean entropy of the weights in nats (between 0 and ln n).
    """

    d_ks: np.ndarray
    n_keys: int
    n_draws: int
    max_raw: np.ndarray
    max_scaled: np.ndarray
    entropy_raw: np.ndarray
    entropy_scaled: np.ndarray


def saturation_curves(d_ks=DK_STEPS, n_keys: int = 8, n_draws: int = 400, seed: int = 0) -> SaturationCurves:
    """How peaked softmax(q·K / c) is, with c = 1 (no scaling) and c = √d_k, as d_k grows.

    Args:
        d_ks: 1..64 widths, each 1..MAX_DK.
        n_keys: keys per row, 1..MAX_KEYS.
        n_draws: rows per width, 1..MAX_DRAWS (each row: a fresh q and n fresh keys).
        seed: >= 0.

    Raises:
        ValueError: a size out of range.
    """
    widths = [_check_int("d_k", int(d) if isinstance(d, (int, np.integer)) else d, 1, MAX_DK) for d in d_ks]
    if not 1 <= len(widths) <= 64:
        raise ValueError(f"give 1..64 widths, got {len(widths)}")
    n = _check_int("n_keys", n_keys, 1, MAX_KEYS)
    m = _check_int("n_draws", n_draws, 1, MAX_DRAWS)
    seed = _check_int("seed", seed, 0, 2**32 - 1)
    res = np.zeros((4, len(widths)))
    rows = max(1, CHUNK_FLOATS // n)
    for g, d in enumerate(widths):
        rng_norm, rng_z = (np.random.default_rng([seed, d, 2, n, part]) for part in (0, 1))
        acc = np.zeros(4)
        for a in range(0, m, rows):
            s = _row_scores(rng_norm, rng_z, min(m, a + rows) - a, n, d)
            for i, c in enumerate((1.0, np.sqrt(d))):
                top, ent = _peak_and_entropy(s / c)
                acc[i] += top.sum()
                acc[2 + i] += ent.sum()
        res[:, g] = acc / m
    return SaturationCurves(d_ks=np.array(widths), n_keys=n, n_draws=m, max_raw=res[0], max_scaled=res[1],
                            entropy_raw=res[2], entropy_scaled=res[3])
