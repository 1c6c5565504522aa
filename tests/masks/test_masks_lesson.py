"""The masks lesson (lessons/masks.py): every number checked against a reference written here from the definition
(softmax over the allowed keys only; a row with no allowed key is all 0), and hand-computed cases from
shared/cases (K01, K02, K06)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lessons
from lessons import masks as M

WORDS = ["犬", "が", "公園", "を", "歩く", "猫", "走る", "<b>", "犬"]


def reference(Q, K, V, allowed):
    """Masked scaled dot-product attention, written out: for each query, softmax of q·k/√d_k over the keys it may
    see; nothing allowed → zero weights, zero output."""
    n_q, n_k = Q.shape[0], K.shape[0]
    W = np.zeros((n_q, n_k))
    for i in range(n_q):
        keys = [j for j in range(n_k) if allowed[i][j]]
        if not keys:
            continue
        s = np.array([Q[i] @ K[j] / np.sqrt(Q.shape[1]) for j in keys])
        e = np.exp(s - s.max())
        W[i, keys] = e / e.sum()
    return W, W @ V


def test_default_opens_with_three_or_more_tokens_and_the_causal_mask_on():
    s = M.MasksState()
    assert len(M.tokens(s.text)) >= 3 and s.causal


def test_causal_section_masks_exactly_the_strict_upper_triangle():
    s = M.MasksState()
    steps = M.causal_steps(s)
    n = steps.weights.shape[0]
    strict_upper = np.triu(np.ones((n, n), dtype=bool), k=1)
    assert np.array_equal(np.isneginf(steps.scaled_scores), strict_upper)  # −∞ exactly where masked (K06, K10)
    assert np.all(steps.weights[strict_upper] == 0.0)  # exact zeros in the data
    Q, K, V = M.projections(M.tokens(s.text), s.seed)
    W, out = reference(Q, K, V, ~strict_upper)
    np.testing.assert_allclose(steps.weights, W, atol=1e-12)
    np.testing.assert_allclose(steps.output, out, atol=1e-12)
    assert steps.weights[0, 0] == 1.0  # the first token sees only itself


def test_causal_switch_off_lets_every_query_see_every_key():
    s = replace(M.MasksState(), causal=False)
    steps = M.causal_steps(s)
    assert np.all(np.isfinite(steps.scaled_scores)) and np.all(steps.weights > 0)


@settings(max_examples=40, deadline=None)
@given(words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=8), step=st.integers(0, 10),
       seed=st.integers(0, 50))
def test_stepper_row_equals_the_full_causal_matrix_row(words, step, seed):
    s = M.with_step(replace(M.MasksState(), text=" ".join(words), seed=seed), step)
    words = M.tokens(s.text)  # one word alone ("<b>") is split by janome: the sentence's tokens are what counts
    alone, full_row = M.generation_step(s)
    t = min(step, len(words) - 1) + 1
    assert alone.shape == (t,) and full_row.shape == (len(words),)
    # the reference: only tokens 1..t exist, no mask at all
    Q, K, V = M.projections(words[:t], seed)
    W, _ = reference(Q, K, V, np.ones((t, t), dtype=bool))
    np.testing.assert_allclose(alone, W[t - 1], atol=1e-12)
    np.testing.assert_allclose(full_row[:t], alone, atol=1e-12)
    assert np.all(full_row[t:] == 0.0)


def test_batch_pads_the_shorter_sentence_at_the_end():
    b = M.batch(M.MasksState(text="犬 が 公園 を 歩く", text2="犬 が 走る"))
    assert b.tokens[1] == ("犬", "が", "走る", M.PAD, M.PAD)
    assert b.is_pad[1].tolist() == [False, False, False, True, True] and not b.is_pad[0].any()
    b = M.batch(M.MasksState(text="犬 が", text2="犬 が 走る", extra_pad=2))
    assert b.length == 5 and b.tokens[0] == ("犬", "が", M.PAD, M.PAD, M.PAD)


def test_padding_hides_keys_not_queries_and_combines_with_causal_by_and():
    s = M.MasksState(text="犬 が 公園 を 歩く", text2="犬 が 走る", causal=True, padding=True, item=1)
    causal, pad, both = M.batch_masks(s)
    # padding polarity: False in the PAD columns (keys 4 and 5), for every query row, PAD rows included
    assert pad.tolist() == [[True, True, True, False, False]] * 5
    assert np.array_equal(both, causal & pad)
    assert both.tolist() == [[True, False, False, False, False], [True, True, False, False, False],
                             [True, True, True, False, False], [True, True, True, False, False],
                             [True, True, True, False, False]]
    steps = M.batch_steps(s)
    Q, K, V = M.projections(M.batch(s).tokens[1], s.seed)
    W, out = reference(Q, K, V, both)
    np.testing.assert_allclose(steps.weights, W, atol=1e-12)
    np.testing.assert_allclose(steps.output, out, atol=1e-12)
    assert np.all(steps.weights[:, 3:] == 0.0)
    np.testing.assert_allclose(steps.weights[3:].sum(axis=1), 1.0)  # the PAD query rows are defined rows
    assert not steps.fully_masked.any()


def test_padding_off_gives_pad_keys_weight():
    s = M.MasksState(text2="犬 が 走る", causal=False, padding=False, item=1)
    assert np.all(M.batch_steps(s).weights[:, 3:] > 0)


def test_a_row_with_no_key_has_zero_weights_and_zero_output_not_uniform():
    """K01 / K02: all keys of a query blocked → weights all 0 and output 0 (never 1/n each, which a finite fill
    such as the float minimum would give)."""
    s = M.with_custom_start(M.MasksState(), "causal")
    s = M.with_custom(s, np.array(M.custom_mask(s)).copy())
    m = M.custom_mask(s).copy()
    m[2, :] = False
    s = M.with_custom(s, m)
    steps = M.custom_steps(s)
    assert steps.fully_masked.tolist() == [False, False, True, False, False]
    assert np.all(steps.weights[2] == 0.0) and np.all(steps.output[2] == 0.0)
    L = m.shape[0]
    assert not np.allclose(steps.weights[2], 1 / L)
    others = [i for i in range(L) if i != 2]
    np.testing.assert_allclose(steps.weights[others].sum(axis=1), 1.0)
    blocked = M.custom_steps(M.with_custom_start(s, "blocked"))
    assert blocked.fully_masked.all() and np.all(blocked.weights == 0) and np.all(blocked.output == 0)


def test_custom_starts():
    s = M.MasksState(text2="犬 が 走る", item=1)
    L = M.batch(s).length
    assert M.custom_mask(M.with_custom_start(s, "none")).all()
    assert np.array_equal(M.custom_mask(M.with_custom_start(s, "causal")), np.tril(np.ones((L, L), dtype=bool)))
    assert M.custom_mask(M.with_custom_start(s, "padding"))[:, 3:].sum() == 0
    assert not M.custom_mask(M.with_custom_start(s, "blocked")).any()
    with pytest.raises(ValueError):
        M.with_custom_start(s, "sideways")


def test_edited_custom_mask_keeps_its_cells_when_the_batch_grows():
    s = M.with_custom_start(M.MasksState(), "blocked")
    s = M.with_custom_cell(s, 0, 0, True)
    grown = M.with_extra_pad(s, 2)
    m = M.custom_mask(grown)
    assert m.shape == (7, 7) and m[0, 0] and not m[:5, :5][1:].any()


def test_step_is_clamped_when_the_sentence_shrinks():
    s = M.with_step(M.MasksState(), 4)
    assert s.step == 4
    assert M.with_text(s, "犬 が").step == 1
    st_, notes = M.from_link({"st": 9})
    assert st_.step == 4 and [n.code for n in notes] == ["step_clamped"]
    assert notes[0].args == {"asked": 10, "used": 5, "param": "st"}


def test_empty_sentences_show_nothing_and_raise_nothing():
    s = M.MasksState(text="", text2="")
    assert M.causal_steps(s) is None and M.generation_step(s) is None and M.batch_steps(s) is None
    assert M.arrays(s) == {}


def test_extra_padding_never_makes_the_batch_longer_than_max_tokens():
    """Found by a new user: 14 tokens + 3 extra PAD crashed the page (a 17×17 mask on 16×16 scores)."""
    s = M.MasksState(text=" ".join("abcdefghijklmn"), text2="x", extra_pad=3)
    assert M.batch(s).length == 16 and M.pads_cut(s) == 1
    assert M.batch_steps(s).weights.shape == (16, 16) and M.custom_steps(s).weights.shape == (16, 16)
    s = M.MasksState(text=" ".join("abcdefghijklmnop"), text2="x", extra_pad=4)
    assert M.batch(s).length == 16 and M.pads_cut(s) == 4 and M.arrays(s)["batch_weights"].shape == (16, 16)


def test_no_step_notice_unless_the_link_asked_for_a_step():
    assert M.from_link({"t": "犬 が"})[1] == []


def test_projections_are_the_qkv_lessons_numbers_for_the_same_sentence():
    """The same token and seed give the same vectors as the Q·K·V lesson's own sentence (independent path:
    the Q·K·V lesson's state for that sentence)."""
    from lessons import qkv

    state = qkv.with_text(qkv.default_state("custom", 7), "犬 が 公園 を 歩く")
    res = qkv.compute(state)
    Q, K, V = M.projections(("犬", "が", "公園", "を", "歩く"), 7)
    np.testing.assert_array_equal(Q, res.Q)
    np.testing.assert_array_equal(K, res.K)
    np.testing.assert_array_equal(V, res.V)
    assert M.projections(("<b>",), 0)[0].shape == (1, 4)  # one token stays one token


def test_pad_to_by_hand():
    """The padding both lessons use (masks' batch, cross's source keys): PADs added up to the length, marked; a typed
    "[PAD]" is not marked; a sentence already that long gets none."""
    from lessons.masks import PAD, pad_to

    toks, marked = pad_to(("犬", "が"), 4)
    assert toks == ("犬", "が", PAD, PAD) and marked.tolist() == [False, False, True, True]
    toks, marked = pad_to(("a", PAD), 3)
    assert toks == ("a", PAD, PAD) and marked.tolist() == [False, False, True]
    assert pad_to(("a", "b"), 1)[0] == ("a", "b") and not pad_to(("a", "b"), 1)[1].any()


def test_a_mask_in_a_link_with_a_newline_is_refused_not_read_as_a_0():
    """24 ones and a newline for a 5×5 mask: the newline is no cell (a regex "$" matched before it and read it as 0)."""
    lesson = lessons.by_key("masks")
    n = M.batch_masks(lesson.default_state())[2].shape[0]
    state, notes = lesson.decode({"masks": "1", "M": f"{n}x{n}:" + "1" * (n * n - 1) + "\n"})
    assert state.custom is None and [(x.code, x.args["reason"]) for x in notes] == [("bad_value", "format_mask")]
    state, notes = lesson.decode({"masks": "1", "M": f"{n}x{n}:" + "1" * (n * n)})
    assert notes == [] and state.custom.all()
