"""lessons.seeded: the one place the lessons draw their seeded numbers from, and refit, the one helper that carries a
person's edits into matrices of other tokens or sizes (issue 19, item 3).

refit's expected results are small matrices written out by hand below. The seeded draws are checked by what they
promise (prefixes, position independence, one decimal, head 0 = the Q·K·V lesson's weights, the masks lesson's
numbers = the Q·K·V lesson's own sentence's); that today's numbers are the old code's is
tests/core/test_seeded_regression.py.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import project_qkv
from lessons import masks, qkv, seeded
from lessons.seeded import multi_head_weights, refit, token_row, token_rows, weight

ROOT = Path(__file__).resolve().parents[2]

# ------------------------------------------------------------------------------------------------- refit, by hand


def test_position_shrinks_columns_and_grows_rows():
    # old (2, 2) into a (3, 1): rows 0, 1 keep their first column; row 2 is new → from `new` (0)
    out = refit([[1.0, 2.0], [3.0, 4.0]], np.zeros((3, 1)))
    np.testing.assert_array_equal(out, [[1.0], [3.0], [0.0]])


def test_edited_cell_kept_when_growing_and_new_cells_come_from_new():
    old = np.array([[0.1, 0.2], [0.3, 5.0]])  # 5.0 is the person's edit at (1, 1)
    new = np.full((3, 3), 9.0)  # the seeded numbers of the new size
    # [[0.1, 0.2, 9], [0.3, 5.0, 9], [9, 9, 9]]
    np.testing.assert_array_equal(refit(old, new), [[0.1, 0.2, 9.0], [0.3, 5.0, 9.0], [9.0, 9.0, 9.0]])


def test_shrink_drops_only_what_lies_outside():
    old = np.arange(9.0).reshape(3, 3)  # [[0,1,2],[3,4,5],[6,7,8]]
    # into (2, 2): [[0, 1], [3, 4]] -- row 2 and column 2 lie outside and are dropped, nothing else changes
    np.testing.assert_array_equal(refit(old, np.full((2, 2), -1.0)), [[0.0, 1.0], [3.0, 4.0]])
    # into (2, 4): columns 0..2 of rows 0, 1 kept, column 3 from new
    np.testing.assert_array_equal(refit(old, np.full((2, 4), -1.0)), [[0.0, 1.0, 2.0, -1.0], [3.0, 4.0, 5.0, -1.0]])


def test_rows_matched_by_token_follow_the_token_and_its_copies_in_order():
    old = np.array([[1.0], [2.0], [3.0]])  # tokens a, b, a: the first a is 1, the second a is 3
    out = refit(old, np.zeros((5, 1)), old_rows=("a", "b", "a"), new_rows=("b", "a", "c", "a", "a"))
    # b → 2; first a → 1; c is new → 0; second a → 3; a third a has no old copy → 0
    np.testing.assert_array_equal(out, [[2.0], [1.0], [0.0], [3.0], [0.0]])


def test_a_token_that_left_takes_its_row_with_it():
    old = np.array([[1.0, 1.5], [2.0, 2.5]])
    out = refit(old, np.full((1, 3), 7.0), old_rows=("x", "y"), new_rows=("y",))
    np.testing.assert_array_equal(out, [[2.0, 2.5, 7.0]])  # y's row, its two columns, a third from new


def test_columns_by_key_keep_each_heads_block():
    # W_Q of 2 heads, d_k 2 → 3: columns keyed (head, j); head 1's old columns move from 2, 3 to 3, 4
    old = np.array([[1.0, 2.0, 3.0, 4.0]])
    old_cols = [(0, 0), (0, 1), (1, 0), (1, 1)]
    new_cols = [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    out = refit(old, np.zeros((1, 6)), old_cols=old_cols, new_cols=new_cols)
    np.testing.assert_array_equal(out, [[1.0, 2.0, 0.0, 3.0, 4.0, 0.0]])


def test_a_mask_stays_boolean():
    old = np.array([[True, False], [False, False]])
    new = np.ones((3, 3), dtype=bool)
    out = refit(old, new)
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out, [[True, False, True], [False, False, True], [True, True, True]])


def test_one_dimensional_rows():
    # a preset's given row over a seeded row: its first entries replace the seeded ones
    np.testing.assert_array_equal(refit([1.0, 2.0], np.zeros(4)), [1.0, 2.0, 0.0, 0.0])
    np.testing.assert_array_equal(refit([1.0, 2.0, 3.0], np.zeros(2)), [1.0, 2.0])
    assert refit([1.0], np.zeros(3)).shape == (3,)


def test_new_is_not_changed_and_empty_shapes_work():
    new = np.zeros((2, 2))
    refit(np.ones((2, 2)), new)
    np.testing.assert_array_equal(new, 0.0)
    assert refit(np.ones((0, 4)), np.zeros((3, 4))).tolist() == [[0.0] * 4] * 3
    assert refit(np.ones((3, 4)), np.zeros((0, 4))).shape == (0, 4)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(old_rows=("a", "b")), ["old_rows", "new_rows"]),
        (dict(new_cols=("a", "b")), ["old_cols", "new_cols"]),
        (dict(old_rows=("a",), new_rows=("a", "b")), ["1 keys for 2 rows"]),
    ],
)
def test_refit_errors(kwargs, words):
    with pytest.raises(ValueError) as exc:
        refit(np.zeros((2, 2)), np.zeros((2, 2)), **kwargs)
    for w in words:
        assert w in str(exc.value)


def test_refit_refuses_three_dimensions():
    with pytest.raises(ValueError, match="1-D or 2-D"):
        refit(np.zeros((1, 2, 2)), np.zeros((2, 2)))


@settings(max_examples=150, deadline=None)
@given(st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 5), st.integers(0, 5)).flatmap(
    lambda s: st.tuples(arrays(np.float64, s[:2], elements=st.floats(-9, 9)),
                        arrays(np.float64, s[2:], elements=st.floats(-9, 9)))))
def test_refit_keeps_the_overlap_and_takes_the_rest_from_new(pair):
    old, new = pair
    out = refit(old, new)
    r, c = min(old.shape[0], new.shape[0]), min(old.shape[1], new.shape[1])
    assert out.shape == new.shape
    np.testing.assert_array_equal(out[:r, :c], old[:r, :c])
    outside = np.ones(new.shape, dtype=bool)
    outside[:r, :c] = False
    np.testing.assert_array_equal(out[outside], new[outside])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from("abc"), max_size=6), st.lists(st.sampled_from("abcd"), max_size=6))
def test_refit_by_token_equals_matching_copies(old_toks, new_toks):
    # row value = 10·(index of the token's copy) + letter number, so each copy is recognisable
    def rows(toks):
        seen: dict = {}
        out = []
        for t in toks:
            seen[t] = seen.get(t, 0) + 1
            out.append([10.0 * seen[t] + "abcd".index(t)])
        return np.array(out).reshape(len(toks), 1)

    out = refit(rows(old_toks), np.full((len(new_toks), 1), -1.0), old_rows=old_toks, new_rows=new_toks)
    want = rows(new_toks)
    for i, t in enumerate(new_toks):  # the k-th copy of t exists in the old sentence → its row; else new's (-1)
        k = new_toks[:i + 1].count(t)
        assert out[i, 0] == (want[i, 0] if k <= old_toks.count(t) else -1.0)


# ------------------------------------------------------------------------------------------------- seeded draws


def test_rows_are_prefixes_one_decimal_and_no_negative_zero():
    full = token_row(3, "X", "犬", seeded.MAX_SIZE)
    assert full.shape == (16,) and full.dtype == np.float64
    for w in (0, 1, 5, 16):
        np.testing.assert_array_equal(token_row(3, "X", "犬", w), full[:w])
    np.testing.assert_array_equal(np.round(full * 10), full * 10)  # one decimal
    assert not np.any(np.signbit(full) & (full == 0.0))
    assert not np.array_equal(token_row(3, "X", "猫", 16), full)  # another token, another row
    assert not np.array_equal(token_row(4, "X", "犬", 16), full)  # another seed, another row


def test_a_tokens_row_does_not_depend_on_where_it_stands():
    a = token_rows(("a", "b", "a"), 7, 4)
    b = token_rows(("b", "a"), 7, 4)
    np.testing.assert_array_equal(a[0], a[2])
    np.testing.assert_array_equal(a[0], b[1])
    np.testing.assert_array_equal(a[1], b[0])
    assert token_rows((), 7, 4).shape == (0, 4)


def test_weights_are_top_left_blocks_and_returned_arrays_are_fresh():
    full = weight(9, "W_K", 16, 16)
    np.testing.assert_array_equal(weight(9, "W_K", 3, 7), full[:3, :7])
    w = weight(9, "W_K", 2, 2)
    w[0, 0] = 123.0  # editing a returned matrix does not change the next draw
    assert weight(9, "W_K", 2, 2)[0, 0] == full[0, 0]
    assert not np.array_equal(weight(9, "W_Q", 16, 16), full)


def test_the_draws_have_their_standard_deviations():
    # 40 seeds × 256 weight entries: sd ≈ W_SCALE = 0.5; 40 × 20 tokens × 16 row entries: sd ≈ X_SCALE = 1
    ws = np.stack([weight(s, "W_V", 16, 16) for s in range(40)])
    xs = np.stack([token_rows([f"t{i}" for i in range(20)], s, 16) for s in range(40)])
    assert abs(ws.std() - seeded.W_SCALE) < 0.02 and abs(ws.mean()) < 0.02
    assert abs(xs.std() - seeded.X_SCALE) < 0.04 and abs(xs.mean()) < 0.04


@pytest.mark.parametrize("call", [
    lambda: token_row(-1, "X", "a", 3), lambda: token_row(True, "X", "a", 3), lambda: token_row(0, "X", "a", 17),
    lambda: token_rows(["a"], 0, -1), lambda: weight(0, "W_Q", 17, 1), lambda: weight(1.5, "W_Q", 1, 1),
    lambda: multi_head_weights(0, 4, 2, 2, 0), lambda: multi_head_weights(0, 4, 17, 2, 1),
])
def test_seeded_errors(call):
    with pytest.raises(ValueError):
        call()


def test_multi_head_weights_shapes_and_head_zero_is_the_qkv_lessons():
    w = multi_head_weights(5, d_model=4, d_k=3, d_v=2, n_heads=3)
    assert w["W_Q"].shape == w["W_K"].shape == (4, 9) and w["W_V"].shape == (4, 6) and w["W_O"].shape == (6, 4)
    state = qkv.from_link({"p": "custom", "dm": 4, "dk": 3, "dv": 2, "s": 5})[0]
    for name in ("W_Q", "W_K", "W_V"):
        np.testing.assert_array_equal(w[name][:, :state.mats[name].shape[1]], state.mats[name])
    one = multi_head_weights(5, 4, 3, 2, 1)
    np.testing.assert_array_equal(one["W_O"], weight(5, "W_O", 2, 4))
    # heads differ from each other
    assert not np.array_equal(w["W_Q"][:, 0:3], w["W_Q"][:, 3:6])


def test_adding_a_head_or_resizing_keeps_the_other_heads():
    two = multi_head_weights(1, 4, 2, 3, 2)
    three = multi_head_weights(1, 4, 2, 3, 3)
    np.testing.assert_array_equal(three["W_Q"][:, :4], two["W_Q"])
    np.testing.assert_array_equal(three["W_O"][:6], two["W_O"])
    wider = multi_head_weights(1, 4, 3, 3, 2)  # d_k 2 → 3: head i's first 2 columns are unchanged
    np.testing.assert_array_equal(wider["W_Q"][:, [0, 1, 3, 4]], two["W_Q"])


# ------------------------------------------------------------------------------------ the lessons draw from here


@pytest.mark.parametrize("text, seed", [("犬 が 公園 を 歩く", 0), ("a b a", 41), ("x", 9999)])
def test_masks_numbers_are_the_qkv_lessons_own_sentence(text, seed):
    toks = masks.tokens(text)
    Q, K, V = masks.projections(toks, seed)
    state = qkv.from_link({"p": "custom", "t": text, "s": seed})[0]
    m = state.mats
    for a, b in zip((Q, K, V), project_qkv(m["X"], m["W_Q"], m["W_K"], m["W_V"])):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(m["X"], token_rows(toks, seed, 4))


def test_qkv_and_masks_carry_edits_with_refit_only():
    # one drawing and one refit: no lesson module draws random numbers or copies an overlap by hand any more
    for name in ("qkv.py", "masks.py"):
        src = (ROOT / "lessons" / name).read_text("utf-8")
        assert "default_rng" not in src and "zlib" not in src
        assert "[:k, :k]" not in src and "_overlay" not in src
        assert "seeded.refit(" in src


def test_qkv_with_text_keeps_an_edited_cell_on_its_token():
    s = qkv.from_link({"p": "custom", "t": "a b c", "s": 2})[0]
    s = qkv.with_cell(s, "X", 1, 3, 4.5)  # token b, column 3
    s2 = qkv.with_text(s, "c b d")
    assert s2.mats["X"][1, 3] == 4.5  # b is still row 1
    s3 = qkv.with_text(s, "b")
    assert s3.mats["X"][0, 3] == 4.5  # b moved to row 0 and kept its edit
    np.testing.assert_array_equal(s3.mats["X"][0, :3], s.mats["X"][1, :3])
    d = qkv.with_text(s, "d")  # a new token: the seed's row
    np.testing.assert_array_equal(d.mats["X"][0], token_row(2, "X", "d", 4))


def test_masks_custom_mask_keeps_its_cells_by_position():
    s = masks.MasksState()  # L = 5
    s = masks.with_custom_cell(s, 0, 0, False)
    s = masks.with_custom_cell(s, 4, 4, False)
    longer = masks.with_text(s, "犬 が 公園 を 歩く 猫")  # L = 6: (0, 0), (4, 4) kept, row/column 5 from the new mask
    assert longer.custom.shape == (6, 6)
    assert not longer.custom[0, 0] and not longer.custom[4, 4]
    fresh = masks.batch_masks(longer)[2]
    np.testing.assert_array_equal(longer.custom[5], fresh[5])
    np.testing.assert_array_equal(longer.custom[:, 5], fresh[:, 5])
    shorter = masks.with_text(s, "犬 が")  # L = max(2, 3) = 3: (4, 4) lies outside and is dropped, (0, 0) kept
    assert shorter.custom.shape == (3, 3) and not shorter.custom[0, 0]
