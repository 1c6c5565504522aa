"""The positional-encoding lesson's numbers against values derived here: a softmax and a PE written out in the test,
the seed lesson's fact that a re-ordered sentence gives re-ordered weights without positions (a hypothesis test
over sentences and orders), the similarity PE·PEᵀ depending on distance only (a cos identity, for even widths),
sin² + cos² = 1 per pair, and the RoPE demonstration (same distance, same score)."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lessons.positional as L
from lessons import seeded

WORDS = ("猫", "が", "犬", "を", "追う", "魚", "食べる", "鳥")


def _softmax_rows(S: np.ndarray) -> np.ndarray:
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def _pe(n: int, d: int, base: float) -> np.ndarray:
    """PE written cell by cell from the formula (Vaswani et al. 2017, sec. 3.5)."""
    out = np.zeros((n, d))
    for pos in range(n):
        for j in range(d):
            angle = pos / base ** (2 * (j // 2) / d)
            out[pos, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return out


def _weights(X, W_Q, W_K):
    return _softmax_rows((X @ W_Q) @ (X @ W_K).T / math.sqrt(W_Q.shape[1]))


def test_the_default_sentences_are_the_seed_lessons_pair_and_b_reorders_a():
    s = L.default_state()
    assert s.tokens == ("猫", "が", "犬", "を", "追う") and s.tokens2 == ("犬", "が", "猫", "を", "追う")
    assert L.reordering(s.tokens, s.tokens2) == (2, 1, 0, 3, 4)  # B's 犬 is A's third token, …


def test_default_weights_from_the_seeded_numbers_and_the_gaps():
    s = L.default_state()
    res = L.experiment(s)
    X_a = seeded.token_rows(s.tokens, 0, 4)
    X_b = seeded.token_rows(s.tokens2, 0, 4)
    W_Q, W_K = seeded.weight(0, "W_Q", 4, 4), seeded.weight(0, "W_K", 4, 4)
    np.testing.assert_allclose(res.weights_a, _weights(X_a, W_Q, W_K), atol=1e-12)
    pe = _pe(5, 4, 10000.0)
    np.testing.assert_allclose(res.weights_b_pe, _weights(X_b + pe, W_Q, W_K), atol=1e-12)
    p = [2, 1, 0, 3, 4]
    assert res.gap < 1e-12  # without positions: B's weights are A's re-ordered
    assert res.gap_pe == pytest.approx(np.abs(_weights(X_b + pe, W_Q, W_K)
                                              - _weights(X_a + pe, W_Q, W_K)[np.ix_(p, p)]).max(), abs=1e-12)
    assert res.gap_pe > 0.05  # with positions: not


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8), st.randoms(use_true_random=False),
       st.integers(2, 8), st.integers(0, 50))
def test_without_positions_any_reordering_reorders_the_weights(words, rnd, d, seed):
    b = list(words)
    rnd.shuffle(b)
    s = replace(L.default_state(), text=" ".join(words), text2=" ".join(b), d_model=d, seed=seed)
    res = L.experiment(s)
    perm = res.perm
    assert [s.tokens[k] for k in perm] == list(s.tokens2)
    np.testing.assert_allclose(res.weights_b, res.weights_a[np.ix_(perm, perm)], atol=1e-12)
    assert res.gap < 1e-12


def test_repeated_tokens_are_matched_copy_by_copy():
    assert L.reordering(("犬", "が", "犬"), ("犬", "犬", "が")) == (0, 2, 1)
    assert L.reordering(("犬", "が"), ("犬", "を")) is None
    assert L.reordering(("犬", "が"), ("犬", "が", "が")) is None


def test_other_words_in_b_are_not_compared():
    s = replace(L.default_state(), text2="鳥 が 魚 を 食べる")
    res = L.experiment(s)
    assert res.perm is None and res.reordered is None and res.gap is None and res.gap_pe is None
    assert "reordered" not in L.arrays(s)


@pytest.mark.parametrize("n,d,base", [(32, 16, 10000), (7, 5, 100), (128, 128, 10000), (3, 1, 10)])
def test_the_table_is_the_formula(n, d, base):
    s = L.with_base(L.with_table(L.default_state(), n_positions=n, d_table=d), base)
    np.testing.assert_allclose(L.pe_table(s), _pe(n, d, float(base)), atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 64), st.integers(1, 32).map(lambda k: 2 * k), st.sampled_from(L.BASES))
def test_similarity_depends_on_the_distance_only_for_even_widths(n, d, base):
    s = replace(L.default_state(), n_positions=n, d_table=d, base=base)
    sim = L.arrays(s)["PE_similarity"]
    for k in range(n):
        diag = np.diagonal(sim, offset=k)
        # Σ_i cos(k·ω_i), ω_i = base^(−2i/d): sin a sin b + cos a cos b = cos(a − b)
        want = sum(math.cos(k / base ** (2 * i / d)) for i in range(d // 2))
        np.testing.assert_allclose(diag, want, atol=1e-9)


def test_each_pair_has_sin_squared_plus_cos_squared_one():
    pe = L.pe_table(replace(L.default_state(), n_positions=50, d_table=12))
    np.testing.assert_allclose(pe[:, 0::2] ** 2 + pe[:, 1::2] ** 2, 1.0, atol=1e-12)


def test_the_rope_demonstration_same_distance_same_score():
    s = L.default_state()  # m = 2, n = 5, shift 8: (2, 5), (10, 13), (2, 6)
    q, k, rows = L.rope_scores(s, L.experiment(s))
    assert [(m, n) for m, n, _ in rows] == [(2, 5), (10, 13), (2, 6)]
    assert rows[0][2] == pytest.approx(rows[1][2], abs=1e-12)
    assert abs(rows[2][2] - rows[0][2]) > 1e-3
    # by hand for pair i: rotating q by mθ and k by nθ leaves q·R((n−m)θ)k; d = 4: θ = 1, 0.01
    want = 0.0
    for i, theta in enumerate((1.0, 0.01)):
        a = 3 * theta
        k2 = np.array([k[2 * i] * math.cos(a) - k[2 * i + 1] * math.sin(a),
                       k[2 * i] * math.sin(a) + k[2 * i + 1] * math.cos(a)])
        want += q[2 * i] * k2[0] + q[2 * i + 1] * k2[1]
    assert rows[0][2] == pytest.approx(want, abs=1e-12)


def test_rope_weights_equal_plain_weights_only_for_one_token():
    one = replace(L.default_state(), text="猫")
    res = L.experiment(one)
    np.testing.assert_allclose(res.weights_a_rope, [[1.0]])
    res = L.experiment(L.default_state())
    assert not np.allclose(res.weights_a_rope, res.weights_a)


def test_a_pair_past_the_width_in_a_link_is_said_and_moved():
    state, notes = L.from_link({"dp": 6, "pi": 40})
    assert state.pair == 2 and [n.code for n in notes] == ["pair_clamped"]
    assert notes[0].args["param"] == "pi"


def test_the_table_width_keeps_the_pair_inside():
    s = L.with_pair(L.default_state(), 7)  # d_table 16: pairs 0..7
    assert s.pair == 7
    assert L.with_table(s, d_table=5).pair == 2


def test_a_base_between_the_offered_ones_goes_to_the_nearest():
    assert L.with_base(L.default_state(), 3000).base == 1000
    assert L.with_base(L.default_state(), 40000).base == 100000


def test_the_rope_curve_with_the_query_moved_is_the_same_curve_moved():
    s = L.default_state()  # m = 2, shift 8
    ns, first, second = L.rope_curves(s, L.experiment(s))
    assert ns[0] == 0 and ns[-1] >= 5 + 8 + 1
    np.testing.assert_allclose(second[8:], first[:-8], atol=1e-12)
    q, k, rows = L.rope_scores(s, L.experiment(s))
    for _, n, v in rows[:1] + rows[2:]:
        assert first[n] == pytest.approx(v, abs=1e-12)
    assert second[13] == pytest.approx(rows[1][2], abs=1e-12)


def test_rope_tells_the_order_apart_too():
    res = L.experiment(L.default_state())
    p = np.ix_([2, 1, 0, 3, 4], [2, 1, 0, 3, 4])
    assert res.gap_rope == pytest.approx(np.abs(res.weights_b_rope - res.weights_a_rope[p]).max(), abs=1e-15)
    assert res.gap_rope > 0.05


def test_a_shift_of_zero_becomes_one_and_the_curve_shows_both_queries():
    s = L.with_rope(L.default_state(), m=64, n=0, shift=0)
    assert s.rope_shift == 1
    s = L.with_rope(s, shift=64)
    ns, first, second = L.rope_curves(s, L.experiment(s))
    assert ns[-1] >= 64 + 64  # the moved query's neighbourhood is in view
    np.testing.assert_allclose(second[64:], first[:-64], atol=1e-12)


def test_a_refused_pair_and_a_narrow_table_give_one_notice():
    """pi=999 is refused (past its field's range) and dp=4 leaves pairs 0..1: the refusal is said once; the default
    pair 2 moved to 1 is not a second notice (the link did not ask for it)."""
    from lessons.positional import LESSON

    params = {**LESSON.encode(LESSON.default_state()), "pi": "999", "dp": "4"}
    state, notes = LESSON.decode(params)
    assert [n.code for n in notes] == ["bad_value"] and notes[0].args["param"] == "pi"
    assert state.d_table == 4 and state.pair == 1
    params["pi"] = "3"  # asked, and past the 4-wide table's last pair (1): said
    state, notes = LESSON.decode(params)
    assert [n.code for n in notes] == ["pair_clamped"] and state.pair == 1
