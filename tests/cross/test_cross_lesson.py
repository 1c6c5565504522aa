"""The cross-attention lesson's numbers against values derived here by hand: the 3 × 4 case of the default setup
(three target queries, three source keys and one padded key), written cell by cell from e⁴; the same W on the target
alone (self mode) with the causal mask; the bottleneck's shares (1/n in the mean, e⁴/(e⁴ + n − 1) in attention's mix);
and hypothesis properties: Q depends on the target only, K and V on the source only, cross attention of a sentence
with itself is self-attention, a padded key gets weight exactly 0, rows and columns have n_q and n_k entries."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lessons
import lessons.cross as L

E4 = math.exp(4.0)
WORDS = ("犬", "が", "歩く", "猫", "走る", "the", "dog", "walks", "cat", "a")


def test_registered_and_no_longer_planned():
    assert lessons.by_key("cross") is L.LESSON
    assert "cross" not in lessons.PLANNED


def test_default_opens_with_different_lengths_target_rows_and_source_columns():
    s = L.default_state()
    assert L.target_tokens(s) == ("the", "dog", "walks")
    assert L.key_tokens(s) == ("犬", "が", "歩く", "[PAD]")
    res = L.compute(s)
    assert res.steps.weights.shape == (3, 4)  # n_q = 3 rows, n_k = 4 columns
    assert res.Q.shape == (3, 4) and res.K.shape == (4, 4) and res.V.shape == (4, 4)


def test_hand_computed_three_by_four_with_a_padded_key():
    """Q = X_tgt·W_Q: the → [0,0,4,0], dog → [4,0,0,0], walks → [0,4,0,0]; K = X_src·W_K: 犬 → [2,0,0,0],
    が → [0,0,2,0], 歩く → [0,2,0,0], PAD → 0. A match scores 4·2 = 8, ÷√4 → 4; the rest 0; PAD masked."""
    res = L.compute(L.default_state())
    s = res.steps
    np.testing.assert_array_equal(s.scores, [[0, 8, 0, 0], [8, 0, 0, 0], [0, 0, 8, 0]])
    assert s.scaled_scores[0, 1] == 4.0 and s.scaled_scores[2, 0] == 0.0
    assert np.all(np.isneginf(s.scaled_scores[:, 3]))
    hi, lo = E4 / (E4 + 2), 1 / (E4 + 2)  # 0.964663…, 0.017668…
    assert hi == pytest.approx(0.9646631559, abs=1e-9)
    want = [[lo, hi, lo, 0.0], [hi, lo, lo, 0.0], [lo, lo, hi, 0.0]]
    np.testing.assert_allclose(s.weights, want, atol=1e-12)
    assert s.weights[0, 3] == 0.0  # exactly
    # V = X_src·W_V: 犬 [1,0,0,0], が [0,0,1,0], 歩く [0,1,0,0], PAD 0 → dog's output = hi·犬 + lo·が + lo·歩く
    np.testing.assert_allclose(s.output[1], [hi, lo, lo, 0.0], atol=1e-12)
    np.testing.assert_allclose(s.output[0], [lo, lo, hi, 0.0], atol=1e-12)


def test_without_the_padding_mask_the_pad_key_takes_a_share():
    s = replace(L.default_state(), padding=False)
    w = L.compute(s).steps.weights
    assert L.compute(s).mask is None
    np.testing.assert_allclose(w[1], [E4 / (E4 + 3), 1 / (E4 + 3), 1 / (E4 + 3), 1 / (E4 + 3)], atol=1e-12)


def test_self_mode_uses_the_same_w_on_the_target_with_the_causal_mask():
    s = L.with_mode(L.default_state(), "self")
    res = L.compute(s)
    assert res.keys == ("the", "dog", "walks") and res.steps.weights.shape == (3, 3)
    np.testing.assert_allclose(res.steps.weights, [[1, 0, 0], [1 / (1 + E4), E4 / (1 + E4), 0],
                                                   [1 / (E4 + 2), 1 / (E4 + 2), E4 / (E4 + 2)]], atol=1e-12)
    off = L.compute(replace(s, causal=False)).steps.weights
    np.testing.assert_allclose(off[0], [E4 / (E4 + 2), 1 / (E4 + 2), 1 / (E4 + 2)], atol=1e-12)


def test_the_causal_switch_never_touches_cross_attention():
    s = L.default_state()
    a, b = L.compute(replace(s, causal=True)), L.compute(replace(s, causal=False))
    np.testing.assert_array_equal(a.steps.weights, b.steps.weights)
    np.testing.assert_array_equal(a.mask, [[True, True, True, False]] * 3)  # only the padding mask


def test_matches_are_the_translations_in_the_hand_set_space():
    assert L.matches(L.default_state()) == [1, 0, 2]  # the ↔ が, dog ↔ 犬, walks ↔ 歩く


def test_bottleneck_shares_by_hand():
    """dog's query meets every added word's key at 0, so its weight on 犬 is e⁴/(e⁴ + n − 1) for n source words;
    the mean holds 1/n of 犬's value. Mean of the six values at x = 3 is [1, 1, 2, 2]/6: cosine with 犬's
    [1, 0, 0, 0] is 1/√10."""
    s = L.default_state()
    b = L.bottleneck(s)
    assert b.tokens == ("犬", "が", "歩く", "きょう", "は", "朝")
    assert b.share_fixed == pytest.approx(1 / 6) and b.share_mixed == pytest.approx(E4 / (E4 + 5))
    np.testing.assert_allclose(b.fixed, np.array([1, 1, 2, 2]) / 6, atol=1e-12)
    assert b.cos_fixed == pytest.approx(1 / math.sqrt(10))
    n, fixed, mixed = L.bottleneck_curve(s)
    np.testing.assert_array_equal(n, np.arange(3, 16))
    np.testing.assert_allclose(fixed, 1 / np.arange(3, 16), atol=1e-12)
    np.testing.assert_allclose(mixed, E4 / (E4 + np.arange(3, 16) - 1), atol=1e-12)
    assert mixed[-1] > 0.79 > 0.07 > fixed[-1]  # 15 words: attention still picks 犬, the mean holds 1/15 of it


def test_bottleneck_last_vector_holds_the_match_only_when_it_is_last():
    s = replace(L.default_state(), summary="last", extra=0, query=2)  # walks ↔ 歩く, the source's last word
    assert L.bottleneck(s).share_fixed == 1.0
    s = replace(s, query=1)  # dog ↔ 犬, first
    b = L.bottleneck(s)
    assert b.share_fixed == 0.0 and b.cos_fixed == 0.0  # 歩く's value [0,1,0,0] is orthogonal to 犬's


def test_link_round_trip_of_an_edited_state_and_query_clamp_notice():
    s = L.with_cell(L.with_target(L.default_state(), "a dog walks far"), "W_K", 1, 2, 1.5)
    state, notes = L.LESSON.decode(L.LESSON.encode(s))
    assert notes == [] and L.target_tokens(state) == ("a", "dog", "walks", "far")
    np.testing.assert_array_equal(state.mats["W_K"], s.mats["W_K"])
    state, notes = L.LESSON.decode({"cross": "1", "q": "9"})
    assert state.query == 2 and [n.code for n in notes] == ["query_clamped"]


def test_an_edited_row_follows_its_token_into_a_new_sentence():
    s = L.with_cell(L.default_state(), "X_tgt", 1, 3, 2.0)  # dog's "other content" feature
    s2 = L.with_target(s, "a big dog")
    assert s2.mats["X_tgt"][2, 3] == 2.0 and s2.mats["X_tgt"].shape == (3, 5)


def test_refusals_are_refusals():
    s = L.default_state()
    for bad in (lambda: L.with_cell(s, "W_Q", 9, 9, 1), lambda: L.with_cell(s, "W_Q", 0, 0, "nan"),
                lambda: L.with_matrix(s, "X_src", np.zeros((3, 5))), lambda: L.with_mode(s, "other")):
        with pytest.raises(L.Refusal):
            bad()


def test_empty_sentences_give_no_result_and_no_crash():
    s = L.with_source(L.default_state(), "")
    assert L.compute(s) is None and L.bottleneck(s) is None
    assert set(L.arrays(s)) == set(L.MATRICES)
    assert L.compute(L.with_target(L.default_state(), "   ")) is None


def test_a_long_source_keeps_its_pads_within_the_limit():
    s = L.with_pad(L.with_source(L.default_state(), " ".join(["犬"] * 14)), 4)
    assert L.pads_used(s) == 2 and len(L.key_tokens(s)) == 16


# ---- properties ---------------------------------------------------------------------------------------------------
sentence = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)


@settings(max_examples=40, deadline=None)
@given(src=sentence, tgt=sentence, seed=st.integers(0, 50), pad=st.integers(0, 4),
       preset=st.sampled_from(tuple(L.PRESETS)))
def test_rectangular_shapes_pads_get_zero_and_rows_sum_to_one(src, tgt, seed, pad, preset):
    s = L.with_pad(L.with_seed(L.with_target(L.with_source(L.default_state(preset), src), tgt), seed), pad)
    res = L.compute(s)
    n_q, n_k = len(tgt.split()), len(src.split()) + pad
    assert res.steps.weights.shape == (n_q, n_k) and len(res.keys) == n_k
    np.testing.assert_allclose(res.steps.weights.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(res.steps.weights[:, n_k - pad:] == 0.0)
    # the same weights written out here: softmax over the non-pad keys of Q·Kᵀ/√d_k
    Q = s.mats["X_tgt"] @ s.mats["W_Q"]
    K = s.mats["X_src"][:n_k - pad] @ s.mats["W_K"]
    S = Q @ K.T / math.sqrt(s.d_k)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    np.testing.assert_allclose(res.steps.weights[:, :n_k - pad], E / E.sum(axis=1, keepdims=True), atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(src=sentence, src2=sentence, tgt=sentence, seed=st.integers(0, 50))
def test_q_from_the_target_only_k_and_v_from_the_source_only(src, src2, tgt, seed):
    s = L.with_seed(L.with_target(L.with_source(L.default_state("seeded"), src), tgt), seed)
    a, b = L.compute(s), L.compute(L.with_source(s, src2))
    np.testing.assert_array_equal(a.Q, b.Q)
    t2 = L.compute(L.with_target(s, tgt + " cat"))
    np.testing.assert_array_equal(a.K, t2.K)
    np.testing.assert_array_equal(a.V, t2.V)


@settings(max_examples=30, deadline=None)
@given(text=sentence, seed=st.integers(0, 50))
def test_cross_attention_of_a_sentence_with_itself_is_its_self_attention(text, seed):
    s = L.with_pad(L.with_seed(L.with_target(L.with_source(L.default_state("seeded"), text), text), seed), 0)
    cross, self_ = L.compute(s), L.compute(replace(L.with_mode(s, "self"), causal=False))
    np.testing.assert_allclose(cross.steps.weights, self_.steps.weights, atol=1e-12)
    np.testing.assert_allclose(cross.steps.output, self_.steps.output, atol=1e-12)


def test_the_preset_note_holds_only_for_the_preset_as_given():
    s = L.default_state()
    assert L.is_preset_as_given(s)
    i, j = L.PRESET_NOTE_CELL
    assert L.compute(s).steps.weights[i, j] == pytest.approx(E4 / (E4 + 2))
    assert not L.is_preset_as_given(L.with_cell(s, "W_K", 0, 0, 1.0))
    assert not L.is_preset_as_given(replace(s, padding=False))
    assert L.is_preset_as_given(L.with_pad(replace(s, padding=False), 0))  # no pads: nothing to mask
