"""attention_core.scaling: the 3-books mix, temperature softmax and its limits, entropy, the variance lab and
the saturation curves.

Expected numbers are derived independently of the code under test: by hand (the arithmetic is in the comments,
exponentials from a table / math.exp), from closed forms (entropy of the uniform distribution = ln n, of a
one-hot = 0, Var(q·k) = d_k for standard normal components: Vaswani et al. 2017, sec. 3.2.1, footnote 4), or from
the reference value in issue #3 (softmax([2, 1, 0.1]) = [0.659001, 0.242433, 0.098566]).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_core import scaling as S

VALUES = [[5.0, 1.0, 0.0], [1.0, 5.0, 0.0], [0.0, 0.0, 5.0]]


def ref_softmax(xs):
    """Plain math.exp reference, written out for the tests (no max subtraction needed for small inputs)."""
    e = [math.exp(x) for x in xs]
    return [v / sum(e) for v in e]


# ---- the 3-books mix ---------------------------------------------------------------------------------------------
def test_book_mix_default_lesson_by_hand():
    # scores [8, 2, -4], d_k = 64 → ÷8 → [1, 0.25, -0.5]
    # e^1 = 2.718282, e^0.25 = 1.284025, e^-0.5 = 0.606531; sum = 4.608838
    # weights = [0.589798, 0.278600, 0.131601]
    m = S.book_mix([8, 2, -4], 64, VALUES)
    assert m.divisor == 8.0
    np.testing.assert_allclose(m.scaled, [1.0, 0.25, -0.5])
    np.testing.assert_allclose(m.weights, [0.589798, 0.278600, 0.131601], atol=2e-6)
    # z = 0.589798·[5,1,0] + 0.278600·[1,5,0] + 0.131601·[0,0,5] = [3.227590, 1.982798, 0.658005]
    np.testing.assert_allclose(m.output, [3.227590, 1.982798, 0.658005], atol=1e-5)


def test_book_mix_without_scaling_saturates_at_dk_64():
    # softmax([8, 2, -4]): e^-6 = 0.002478752, e^-12 = 0.000006144; sum with e^0 = 1.002484896
    # → [0.997521, 0.002473, 0.000006]
    m = S.book_mix([8, 2, -4], 64, VALUES, scale=False)
    assert m.divisor == 1.0
    np.testing.assert_array_equal(m.scaled, [8.0, 2.0, -4.0])
    np.testing.assert_allclose(m.weights, [0.997521, 0.002473, 0.000006], atol=2e-6)


def test_book_mix_issue_reference_at_dk_1():
    # d_k = 1: √1 = 1, so scaling changes nothing; issue #3 gives softmax([2, 1, 0.1])
    for scale in (True, False):
        m = S.book_mix([2, 1, 0.1], 1, VALUES, scale=scale)
        np.testing.assert_allclose(m.weights, [0.659001, 0.242433, 0.098566], atol=1e-6)


@pytest.mark.parametrize("d_k", [1, 4, 16, 100, 512])
def test_book_mix_is_softmax_of_scores_over_root_dk(d_k):
    s = [3.0, -1.5, 0.4]
    np.testing.assert_allclose(S.book_mix(s, d_k, VALUES).weights, ref_softmax([x / math.sqrt(d_k) for x in s]),
                               rtol=1e-12)


@pytest.mark.parametrize("bad", [
    dict(scores=[1, 2], d_k=4, values=VALUES),  # 2 scores, 3 values
    dict(scores=[1, 2, float("nan")], d_k=4, values=VALUES),
    dict(scores=[1, 2, 3], d_k=0, values=VALUES),
    dict(scores=[1, 2, 3], d_k=S.MAX_DK + 1, values=VALUES),
    dict(scores=[1, 2, 3], d_k=4.5, values=VALUES),
    dict(scores=[1, 2, 3], d_k=4, values=[[1, 2], [3, float("inf")], [5, 6]]),
    dict(scores=[], d_k=4, values=np.zeros((0, 3))),
])
def test_book_mix_refuses_bad_input(bad):
    with pytest.raises(ValueError):
        S.book_mix(bad["scores"], bad["d_k"], bad["values"])


# ---- temperature -------------------------------------------------------------------------------------------------
def test_temperature_one_is_plain_softmax():
    np.testing.assert_allclose(S.temperature_softmax([2, 1, 0.1], 1.0), [0.659001, 0.242433, 0.098566], atol=1e-6)


def test_temperature_two_by_hand():
    # [2, 1, 0.1] / 2 = [1, 0.5, 0.05]; e^1 = 2.718282, e^0.5 = 1.648721, e^0.05 = 1.051271; sum = 5.418274
    # → [0.501688, 0.304290, 0.194023]
    np.testing.assert_allclose(S.temperature_softmax([2, 1, 0.1], 2.0), [0.501688, 0.304290, 0.194023], atol=2e-6)


def test_root_dk_is_a_temperature():
    s = [8.0, 2.0, -4.0]
    for d_k in S.DK_STEPS:
        np.testing.assert_allclose(S.temperature_softmax(s, math.sqrt(d_k)), S.book_mix(s, d_k, VALUES).weights,
                                   rtol=1e-12)


def test_limits():
    np.testing.assert_array_equal(S.argmax_limit([8, 2, -4]), [1, 0, 0])
    np.testing.assert_array_equal(S.argmax_limit([3, 3, 0]), [0.5, 0.5, 0])  # ties share
    np.testing.assert_allclose(S.uniform_limit(3), [1 / 3] * 3)
    np.testing.assert_allclose(S.uniform_limit(8), [0.125] * 8)
    # T → 0: softmax([2, 1, 0.1] / 0.01) has e^-100 ≈ 3.7e-44 for the runner-up: one-hot to 1e-40
    np.testing.assert_allclose(S.temperature_softmax([2, 1, 0.1], 0.01), [1, 0, 0], atol=1e-40)
    # a temperature so small that s / T overflows still gives the limit, never NaN
    np.testing.assert_array_equal(S.temperature_softmax([2, 1, 0.1], 1e-308), [1, 0, 0])
    # T → ∞: at T = 1e6 the largest gap (1.9) is 1.9e-6 in the exponent: uniform within 1e-6
    np.testing.assert_allclose(S.temperature_softmax([2, 1, 0.1], 1e6), [1 / 3] * 3, atol=1e-6)


@pytest.mark.parametrize("T", [0.0, -1.0, float("inf"), float("nan")])
def test_temperature_must_be_positive_and_finite(T):
    with pytest.raises(ValueError):
        S.temperature_softmax([1, 2, 3], T)


def test_temperature_sweep_shape_and_rows():
    Ts = [0.05, 1.0, 20.0]
    W = S.temperature_sweep([2, 1, 0.1], Ts)
    assert W.shape == (3, 3)
    np.testing.assert_allclose(W[1], [0.659001, 0.242433, 0.098566], atol=1e-6)


scores3 = st.lists(st.floats(-10, 10, allow_nan=False), min_size=2, max_size=6)


@settings(max_examples=60, deadline=None)
@given(scores3, st.lists(st.floats(1e-3, 1e3), min_size=1, max_size=8))
def test_temperature_sweep_rows_are_softmax_of_scores_over_t(s, Ts):
    """Each row, written out from the definition: exp(s_i/T) / Σ_j exp(s_j/T), shifted by the row's largest score
    (the sweep does all temperatures at once)."""
    W = S.temperature_sweep(s, Ts)
    assert W.shape == (len(Ts), len(s))
    for row, T in zip(W, Ts):
        z = [x / T for x in s]
        e = [math.exp(v - max(z)) for v in z]
        np.testing.assert_allclose(row, [v / sum(e) for v in e], rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("inf"), float("nan")])
def test_temperature_sweep_refuses_a_temperature_that_is_not_finite_and_positive(bad):
    with pytest.raises(ValueError, match="finite number > 0"):
        S.temperature_sweep([1, 2, 3], [1.0, bad, 2.0])


def test_temperature_sweep_tiny_t_is_the_argmax_limit():
    """s/T overflows to +inf for T = 1e-308: held at the largest float, the row is one-hot, never NaN."""
    W = S.temperature_sweep([3.0, 1.0, -2.0], [1e-308])
    np.testing.assert_array_equal(W, [[1.0, 0.0, 0.0]])


@settings(max_examples=60, deadline=None)
@given(scores3, st.floats(0.05, 20), st.floats(0.05, 20))
def test_temperature_properties(s, T1, T2):
    w = S.temperature_softmax(s, T1)
    assert abs(w.sum() - 1) < 1e-12 and np.all(w >= 0)
    # order is kept: a larger score never gets a smaller weight
    order = np.argsort(s, kind="stable")
    assert np.all(np.diff(w[order]) >= -1e-12)
    # entropy of softmax(s / T) never decreases as T grows (it lies between 0 and ln n)
    lo, hi = sorted((T1, T2))
    h_lo, h_hi = S.entropy(S.temperature_softmax(s, lo)), S.entropy(S.temperature_softmax(s, hi))
    assert -1e-12 <= h_lo <= h_hi + 1e-9 <= math.log(len(s)) + 2e-9


def test_entropy_closed_forms():
    for n in (1, 2, 3, 8, 32):
        assert S.entropy(np.full(n, 1 / n)) == pytest.approx(math.log(n), abs=1e-12)
    assert S.entropy([1.0, 0.0, 0.0]) == 0.0
    # [0.5, 0.25, 0.25]: 0.5 ln 2 + 2 · 0.25 ln 4 = 1.5 ln 2 = 1.039721
    assert S.entropy([0.5, 0.25, 0.25]) == pytest.approx(1.039721, abs=1e-6)
    np.testing.assert_allclose(S.entropy([[0.5, 0.5], [1.0, 0.0]]), [math.log(2), 0.0])


# ---- the variance lab -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("d_k", [1, 16, 64, 512])
def test_measured_variance_is_dk_and_one(d_k):
    # Var(q·k) = d_k for independent N(0, 1) components (sum of d_k products, each of variance 1);
    # the relative standard error of the variance over 20,000 draws is √((2 + 6/d_k) / 20,000) ≤ 2 %.
    lab = S.variance_lab(d_k, 20_000, seed=0)
    assert lab.theory_raw == d_k and lab.theory_scaled == 1.0
    assert abs(lab.var_raw - d_k) <= 0.05 * d_k
    assert abs(lab.var_scaled - 1.0) <= 0.05
    assert abs(lab.raw.mean()) <= 4 * math.sqrt(d_k / 20_000)
    np.testing.assert_allclose(lab.scaled * math.sqrt(d_k), lab.raw, rtol=1e-12)


def test_samples_are_seeded_and_prefix_stable():
    a = S.dot_product_samples(64, 3000, seed=5)
    np.testing.assert_array_equal(a, S.dot_product_samples(64, 3000, seed=5))
    assert not np.array_equal(a, S.dot_product_samples(64, 3000, seed=6))
    # the first samples do not depend on how many are asked for
    np.testing.assert_array_equal(S.dot_product_samples(64, 100, seed=5), a[:100])


@pytest.mark.parametrize("args", [(0, 10), (S.MAX_DK + 1, 10), (4, 0), (4, S.MAX_SAMPLES + 1), (4, 10, -1),
                                  (4.0, 10)])
def test_samples_refuse_out_of_bounds_sizes(args):
    with pytest.raises(ValueError):
        S.dot_product_samples(*args)


def test_density_histogram_has_area_one():
    x = np.array([-0.9, -0.1, 0.1, 0.2, 0.9])
    centers, dens = S.density_histogram(x, -1.0, 1.0, bins=4)  # bins of width 0.5: counts 1, 1, 2, 1
    np.testing.assert_allclose(centers, [-0.75, -0.25, 0.25, 0.75])
    np.testing.assert_allclose(dens, [0.4, 0.4, 0.8, 0.4])  # count / (5 · 0.5)
    assert (dens * 0.5).sum() == pytest.approx(1.0)
    with pytest.raises(ValueError):
        S.density_histogram(x, 1.0, -1.0)


# ---- saturation --------------------------------------------------------------------------------------------------
def test_saturation_one_key_is_one_hot():
    c = S.saturation_curves([1, 64], n_keys=1, n_draws=10)
    np.testing.assert_allclose(c.max_raw, [1, 1])
    np.testing.assert_allclose(c.entropy_scaled, [0, 0], atol=1e-12)


def test_saturation_without_scaling_goes_one_hot_with_scaling_does_not():
    c = S.saturation_curves(S.DK_STEPS, n_keys=8, n_draws=300, seed=0)
    # d_k = 1: the divisor is 1, both curves are the same draws
    assert c.max_raw[0] == c.max_scaled[0] and c.entropy_raw[0] == c.entropy_scaled[0]
    # bounds: 1/n ≤ largest weight ≤ 1, 0 ≤ entropy ≤ ln n
    for a in (c.max_raw, c.max_scaled):
        assert np.all((a >= 1 / 8 - 1e-12) & (a <= 1 + 1e-12))
    for a in (c.entropy_raw, c.entropy_scaled):
        assert np.all((a >= -1e-12) & (a <= math.log(8) + 1e-12))
    # undivided: score gaps grow like √d_k, so at d_k = 512 the row is nearly one-hot
    assert c.max_raw[-1] > 0.9 and c.entropy_raw[-1] < 0.3
    assert np.all(np.diff(c.max_raw) > 0)
    # divided: the scaled scores have variance 1 at every d_k, so the curve stays flat and far from one-hot
    assert c.max_scaled.max() - c.max_scaled.min() < 0.1 and c.max_scaled.max() < 0.5
    assert c.entropy_scaled.min() > 1.5


def test_saturation_refuses_huge_requests():
    with pytest.raises(ValueError):
        S.saturation_curves([1, 2], n_keys=S.MAX_KEYS + 1)
    with pytest.raises(ValueError):
        S.saturation_curves([1, 2], n_draws=S.MAX_DRAWS + 1)
    with pytest.raises(ValueError):
        S.saturation_curves(list(range(1, 70)))


# ---- the |q|·z shortcut against component-by-component draws ---------------------------------------------------
def _ks_statistic(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sample Kolmogorov–Smirnov statistic: the largest gap between the two empirical distribution functions."""
    grid = np.sort(np.concatenate([a, b]))
    fa = np.searchsorted(np.sort(a), grid, side="right") / a.size
    fb = np.searchsorted(np.sort(b), grid, side="right") / b.size
    return float(np.abs(fa - fb).max())


def _brute_dot_products(d_k: int, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed + 1000)  # a stream of its own: independent of the shortcut's draws
    return np.einsum("ij,ij->i", rng.standard_normal((n, d_k)), rng.standard_normal((n, d_k)))


@pytest.mark.parametrize("d_k", [1, 3, 64, 512])
def test_samples_have_the_distribution_of_component_draws(d_k):
    # Same law as Σ q_i k_i drawn component by component: a two-sample KS test at α = 0.001
    # (critical value 1.95·√((n + m)/(n·m)) = 0.0276 for n = m = 10,000).
    n = 10_000
    fast, brute = S.dot_product_samples(d_k, n, seed=3), _brute_dot_products(d_k, n, seed=3)
    assert _ks_statistic(fast, brute) < 1.95 * math.sqrt(2 / n)


@pytest.mark.parametrize("d_k", [1, 8, 256])
def test_samples_fourth_moment_is_3dk2_plus_6dk(d_k):
    # E[(q·k)⁴] = Σ_i E[q_i⁴]E[k_i⁴] + 3 Σ_{i≠j} E[q_i²k_i²]E[q_j²k_j²] = 9 d_k + 3 d_k (d_k − 1) = 3 d_k² + 6 d_k;
    # a draw that got only the variance right (a normal of variance d_k: 3 d_k²) would be off by 6 d_k.
    x = S.dot_product_samples(d_k, S.MAX_SAMPLES, seed=11) / math.sqrt(d_k)
    assert np.mean(x**4) == pytest.approx(3 + 6 / d_k, rel=0.06)


def _brute_saturation(d_k: int, n_keys: int, n_draws: int, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n_draws, 1, d_k))
    K = rng.standard_normal((n_draws, n_keys, d_k))
    s = np.einsum("rid,rnd->rn", q, K)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    w = e / e.sum(axis=1, keepdims=True)
    return float(w.max(axis=1).mean()), float(w.max(axis=1).std())


@pytest.mark.parametrize("d_k, n_keys", [(4, 8), (64, 8), (512, 32)])
def test_saturation_matches_component_draws(d_k, n_keys):
    # Undivided scores: the mean largest weight from the shortcut and from whole q and K matrices agree within
    # 4 standard errors of their difference.
    m = 4000
    fast = S.saturation_curves([d_k], n_keys=n_keys, n_draws=m, seed=2).max_raw[0]
    brute, sd = _brute_saturation(d_k, n_keys, m, seed=77)
    assert abs(fast - brute) < 4 * sd * math.sqrt(2 / m)


class _CountingRng:
    """A NumPy Generator that counts the random numbers asked of it."""

    drawn = 0

    def __init__(self, seed):
        self._g = _REAL_RNG(seed)

    def __getattr__(self, name):
        method = getattr(self._g, name)

        def counted(*args, **kwargs):
            out = method(*args, **kwargs)
            _CountingRng.drawn += np.size(out)
            return out
        return counted


_REAL_RNG = np.random.default_rng


def test_saturation_cost_does_not_grow_with_dk(monkeypatch):
    # The page's largest request (every width to 512, 32 keys, 1,000 draws) asks 1 + 32 random numbers per row:
    # 18 · 1,000 · 33 = 594,000, not 1,000 · 33 · Σ d_k ≈ 50 million as drawing every component would. Counted,
    # not timed.
    monkeypatch.setattr(np.random, "default_rng", _CountingRng)
    _CountingRng.drawn = 0
    S.saturation_curves(S.SATURATION_DKS, n_keys=32, n_draws=1000, seed=9)
    assert _CountingRng.drawn == len(S.SATURATION_DKS) * 1000 * 33
    _CountingRng.drawn = 0
    S.dot_product_samples(512, 20_000, seed=9)
    assert _CountingRng.drawn == 2 * 20_000


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.floats(-700, 700), min_size=4, max_size=4), min_size=1, max_size=5))
def test_peak_and_entropy_are_those_of_the_softmax_weights(rows):
    """The saturation chart's shortcut (largest weight 1/Σe^{z'}, H = log Σe^{z'} − Σ p z') against the weights
    written out: max of softmax, and −Σ p log p computed in plain Python."""
    z = np.array(rows)
    top, ent = S._peak_and_entropy(z)
    for r, row in enumerate(rows):
        e = [math.exp(v - max(row)) for v in row]
        p = [v / sum(e) for v in e]
        assert math.isclose(top[r], max(p), rel_tol=1e-12)
        assert math.isclose(ent[r], -sum(q * math.log(q) for q in p if q > 0), rel_tol=1e-9, abs_tol=1e-12)
