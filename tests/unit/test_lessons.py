"""Unit tests for lessons.qkv (presets, the Q·K·V lesson state and its pure with_* functions) and lessons.cells
(the rules for a number typed into a cell or carried by a link).

Every expected number is derived independently of the code under test:
- the 「犬が歩く」 preset: Q, K, V and 犬's raw scores [9, 0, 1] worked out by hand below, weights from a
  softmax written out in this file;
- the "direct3" preset: the printed table of seed 003 (/work/shared/seeds/003_3d995e545bfcbe71.txt);
- the "school" preset: X, W_Q, W_K, W_V copied from the code in seed 004 and multiplied out by hand;
- cases K09, K13 and K14 from /work/shared/cases/README.md;
- everything else: invariants (shapes, determinism, "what still fits is kept") and hypothesis properties.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lessons import qkv as L
from lessons.cells import Refusal, check_cell, parse_cell_text

NAMES = ("X", "W_Q", "W_K", "W_V", "Q", "K", "V")
ROOT = Path(__file__).resolve().parents[2]


def my_softmax(row) -> np.ndarray:
    """Reference softmax, written out: e^(s_j - max s) / Σ_m e^(s_m - max s)."""
    s = np.asarray(row, dtype=np.float64)
    e = np.exp(s - s.max())
    return e / e.sum()


def assert_mats_equal(a: L.QKVState, b: L.QKVState, names=NAMES) -> None:
    for name in names:
        assert a.mats[name].shape == b.mats[name].shape, name
        assert np.array_equal(a.mats[name], b.mats[name]), name


def assert_shapes_consistent(s: L.QKVState) -> None:
    for name in NAMES:
        want = L.matrix_shape(name, s.n, s.d_model, s.d_k, s.d_v)
        assert s.mats[name].shape == want, (name, s.mats[name].shape, want)
        assert s.mats[name].dtype == np.float64, name
        assert np.all(np.isfinite(s.mats[name])), name


# ---------------------------------------------------------------------------------------------- preset "dog"
# 犬が歩く (seed 000). X rows (features: animal, action, particle, alive):
#   犬 [1,0,0,1]   が [0,0,1,0]   歩く [0,1,0,1]
DOG_X = np.array([[1, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 1]], dtype=float)
DOG_WQ = np.array([[1, 2, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 0, 1], [1, 0, 0, 1, 0]], dtype=float)
DOG_WK = np.array([[2, 2, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 0, 1], [0, 0, 0, 1, 0]], dtype=float)
DOG_WV = np.array([[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 0], [0, 0, 0, 1]], dtype=float)
# By hand: a row of X picks rows of W and adds them.
#   Q: 犬 = WQ[0]+WQ[3] = [2,2,0,1,0]; が = WQ[2] = [0,0,1,0,1]; 歩く = WQ[1]+WQ[3] = [1,0,1,1,0]
#   K: 犬 = WK[0]+WK[3] = [2,2,0,1,0]; が = WK[2] = [0,0,1,0,1]; 歩く = WK[1]+WK[3] = [0,0,1,1,0]
#   V: 犬 = WV[0]+WV[3] = [1,0,0,2];   が = WV[2] = [0,0,1,0];     歩く = WV[1]+WV[3] = [0,1,0,2]
DOG_Q = np.array([[2, 2, 0, 1, 0], [0, 0, 1, 0, 1], [1, 0, 1, 1, 0]], dtype=float)
DOG_K = np.array([[2, 2, 0, 1, 0], [0, 0, 1, 0, 1], [0, 0, 1, 1, 0]], dtype=float)
DOG_V = np.array([[1, 0, 0, 2], [0, 0, 1, 0], [0, 1, 0, 2]], dtype=float)
# 犬's raw scores: q_犬·k_犬 = 4+4+0+1+0 = 9; q_犬·k_が = 0; q_犬·k_歩く = 0+0+0+1+0 = 1  → [9, 0, 1]
# ÷√5 = 2.2360680 → [4.024922, 0, 0.447214]; e^(s - 4.024922):
#   e^-4.024922 = e^-4 · e^-0.024922 = 0.0183156 · 0.975386 = 0.0178648
#   e^-3.577709 = e^-3.5 · e^-0.077709 = 0.0301974 · 0.925234 = 0.0279397;   Σ = 1 + both = 1.0458045
# → weights ≈ [0.956202, 0.017082, 0.026716]: 犬 ≈ 95.6 %, 歩く ≈ 2.7 %, が ≈ 1.7 %.


def test_dog_preset_tokens_and_sizes():
    s = L.default_state("dog")
    assert s.tokens == ("犬", "が", "歩く")
    assert (s.d_model, s.d_k, s.d_v) == (4, 5, 4)
    assert s.mode == "xw" and s.preset == "dog" and s.query == 0


def test_dog_preset_matrices_are_the_preset_numbers():
    s = L.default_state("dog")
    np.testing.assert_array_equal(s.mats["X"], DOG_X)
    np.testing.assert_array_equal(s.mats["W_Q"], DOG_WQ)
    np.testing.assert_array_equal(s.mats["W_K"], DOG_WK)
    np.testing.assert_array_equal(s.mats["W_V"], DOG_WV)
    # the preset gives every number, so the seed does not matter
    assert_mats_equal(s, L.default_state("dog", seed=1234), ("X", "W_Q", "W_K", "W_V"))


def test_dog_preset_projection_by_hand():
    res = L.compute(L.default_state("dog"))
    np.testing.assert_array_equal(res.Q, DOG_Q)
    np.testing.assert_array_equal(res.K, DOG_K)
    np.testing.assert_array_equal(res.V, DOG_V)


def test_dog_raw_scores_of_inu_are_9_0_1():
    res = L.compute(L.default_state("dog"))
    np.testing.assert_allclose(res.steps.scores[0], [9.0, 0.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(res.steps.scaled_scores[0], np.array([9.0, 0.0, 1.0]) / math.sqrt(5), atol=1e-12)


def test_dog_weights_match_own_softmax_and_order():
    res = L.compute(L.default_state("dog"))
    raw = DOG_Q @ DOG_K.T  # own arithmetic from the preset matrices
    expected = np.array([my_softmax(r / math.sqrt(5)) for r in raw])
    np.testing.assert_allclose(res.steps.weights, expected, atol=1e-12)
    w = res.steps.weights[0]
    np.testing.assert_allclose(w, [0.956202, 0.017082, 0.026716], atol=2e-6)  # hand numbers above
    inu, ga, aruku = w
    assert inu > aruku > ga  # most on 犬, then 歩く, then が
    np.testing.assert_allclose(res.steps.output, expected @ DOG_V, atol=1e-12)


# ------------------------------------------------------------------------------------------ preset "direct3"
# Seed 003, printed with np.round(·, 3):
SEED003_SCALED = [[0.707, 0.0, 0.707], [0.0, 0.707, 0.707], [0.707, 0.707, 1.414]]
SEED003_WEIGHTS = [[0.401, 0.198, 0.401], [0.198, 0.401, 0.401], [0.248, 0.248, 0.503]]
SEED003_OUTPUT = [[6.017, 3.983], [3.983, 6.017], [5.0, 5.0]]


def test_direct3_reproduces_seed_003_table():
    s = L.default_state("direct3")
    assert s.mode == "direct" and s.n == 3 and s.d_k == 2 and s.d_v == 2
    res = L.compute(s)
    np.testing.assert_array_equal(np.round(res.steps.scaled_scores, 3), SEED003_SCALED)
    np.testing.assert_array_equal(np.round(res.steps.weights, 3), SEED003_WEIGHTS)
    np.testing.assert_array_equal(np.round(res.steps.output, 3), SEED003_OUTPUT)
    np.testing.assert_allclose(res.steps.weights.sum(axis=1), 1.0, atol=1e-12)  # 行ごとの重み合計 [1. 1. 1.]


def test_direct3_uses_q_k_v_as_given():
    res = L.compute(L.default_state("direct3"))
    np.testing.assert_array_equal(res.Q, [[1, 0], [0, 1], [1, 1]])
    np.testing.assert_array_equal(res.K, [[1, 0], [0, 1], [1, 1]])
    np.testing.assert_array_equal(res.V, [[10, 0], [0, 10], [5, 5]])


# ------------------------------------------------------------------------------------------- preset "school"
# Seed 004 code: X rows 私 [1,0,1,0], は [0,1,0,1], 学校へ [1,1,0,0], 行きます [0,0,1,1]
#   W_Q = W_V = [[1,0],[0,1],[1,0],[0,1]];  W_K = [[1,0],[0,1],[0,1],[1,0]]
# Q = X·W_Q: 私 = r0+r2 = [2,0]; は = r1+r3 = [0,2]; 学校へ = r0+r1 = [1,1]; 行きます = r2+r3 = [1,1]
# K = X·W_K: 私 = [1,0]+[0,1] = [1,1]; は = [0,1]+[1,0] = [1,1]; 学校へ = [1,0]+[0,1] = [1,1];
#            行きます = [0,1]+[1,0] = [1,1]  → every key is [1,1]
# V = X·W_V = Q.  Every score row is constant (q·[1,1] the same for each key) → weights 1/4 each;
# output = mean of V rows = ([2,0]+[0,2]+[1,1]+[1,1]) / 4 = [1,1] for every token.
def test_school_preset_by_hand():
    s = L.default_state("school")
    assert s.tokens == ("私", "は", "学校へ", "行きます")
    assert (s.d_model, s.d_k, s.d_v) == (4, 2, 2)
    res = L.compute(s)
    np.testing.assert_array_equal(res.Q, [[2, 0], [0, 2], [1, 1], [1, 1]])
    np.testing.assert_array_equal(res.K, [[1, 1]] * 4)
    np.testing.assert_array_equal(res.V, [[2, 0], [0, 2], [1, 1], [1, 1]])
    # scores: 私 → 2 for every key, ÷√2 = 1.414214
    np.testing.assert_allclose(res.steps.scaled_scores[0], [2 / math.sqrt(2)] * 4, atol=1e-12)
    np.testing.assert_allclose(res.steps.weights, np.full((4, 4), 0.25), atol=1e-12)
    np.testing.assert_allclose(res.steps.output, np.ones((4, 2)), atol=1e-12)


# ------------------------------------------------------------------------------------------- preset "custom"
def test_custom_preset_is_seeded_and_deterministic():
    a = L.default_state("custom", seed=7)
    b = L.default_state("custom", seed=7)
    assert_mats_equal(a, b)
    assert_shapes_consistent(a)
    c = L.default_state("custom", seed=8)
    assert not np.array_equal(a.mats["X"], c.mats["X"])
    assert not np.array_equal(a.mats["W_Q"], c.mats["W_Q"])


def test_custom_numbers_are_the_same_in_another_process():
    """A share link leaves unedited matrices out, so another server process must draw the same numbers
    (no dependence on PYTHONHASHSEED or on what was drawn before)."""
    code = ("import json; from lessons import qkv as L; s = L.default_state('custom', seed=7); "
            "print(json.dumps({k: s.mats[k].tolist() for k in ('X', 'W_Q', 'W_K', 'W_V')}))")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    other = json.loads(out.stdout)
    here = L.default_state("custom", seed=7)
    for k, v in other.items():
        np.testing.assert_array_equal(np.array(v), here.mats[k])


def test_custom_random_numbers_are_not_all_zero_or_equal():
    s = L.default_state("custom", seed=0)
    for name in ("X", "W_Q", "W_K", "W_V"):
        assert np.unique(s.mats[name]).size > 3, name


def test_unrelated_settings_do_not_redraw_matrices():
    s = L.default_state("custom", seed=5)
    s2, _ = L.with_query(s, 3)
    assert s2.query == 3
    assert_mats_equal(s, s2)
    s3 = L.with_mode(L.with_mode(s2, "direct"), "xw")
    assert s3.mode == "xw"
    assert_mats_equal(s, s3, ("X", "W_Q", "W_K", "W_V"))
    # and the lesson's numbers are the same
    np.testing.assert_array_equal(L.compute(s3).steps.weights, L.compute(s).steps.weights)


def test_with_seed_redraws_all_but_the_edited_cells():
    """An edited cell keeps the number typed into it (a hostile trial saw an edited X cell vanish on a seed move,
    without a word); every other cell is the new seed's."""
    s = L.with_cell(L.default_state("custom", seed=5), "W_Q", 0, 0, 3.25)
    s2 = L.with_seed(s, 6)
    assert s2.seed == 6
    fresh = L.default_state("custom", seed=6)
    assert s2.mats["W_Q"][0, 0] == 3.25
    want = fresh.mats["W_Q"].copy()
    want[0, 0] = 3.25
    np.testing.assert_array_equal(s2.mats["W_Q"], want)
    for name in ("X", "W_K", "W_V"):
        np.testing.assert_array_equal(s2.mats[name], fresh.mats[name])
    dog = L.with_seed(L.with_cell(L.default_state("dog"), "X", 0, 1, 2.5), 3152)  # the trial's steps
    assert dog.mats["X"][0, 1] == 2.5 and "X" in L.LESSON.to_link(dog)
    assert L.with_seed(s, 10**9).seed == L.SEED_MAX
    assert L.with_seed(s, -5).seed == 0


def test_the_seed_it_already_has_keeps_every_edit():
    s = L.with_cell(L.default_state("custom", seed=5), "W_Q", 0, 0, 3.25)
    again = L.with_seed(s, 5)
    assert again.mats["W_Q"][0, 0] == 3.25
    assert_mats_equal(again, s)


def test_with_seed_keeps_preset_numbers():
    s = L.with_seed(L.default_state("dog"), 42)
    np.testing.assert_array_equal(s.mats["W_Q"], DOG_WQ)
    np.testing.assert_array_equal(s.mats["X"], DOG_X)


def test_with_preset_keeps_seed():
    s = L.with_preset(L.default_state("dog", seed=9), "custom")
    assert s.preset == "custom" and s.seed == 9
    assert_mats_equal(s, L.default_state("custom", seed=9))


def test_unknown_preset_raises_key_error():
    with pytest.raises(KeyError):
        L.default_state("nope")


# ------------------------------------------------------------------------------------------------ with_sizes
def test_with_sizes_keeps_top_left_block():
    s = L.default_state("custom", seed=3)  # d_model = d_k = d_v = 4
    g = L.with_sizes(s, d_model=6, d_k=7, d_v=5)
    assert (g.d_model, g.d_k, g.d_v) == (6, 7, 5)
    assert_shapes_consistent(g)
    np.testing.assert_array_equal(g.mats["X"][:, :4], s.mats["X"])
    np.testing.assert_array_equal(g.mats["W_Q"][:4, :4], s.mats["W_Q"])
    np.testing.assert_array_equal(g.mats["W_K"][:4, :4], s.mats["W_K"])
    np.testing.assert_array_equal(g.mats["W_V"][:4, :4], s.mats["W_V"])
    sm = L.with_sizes(s, d_model=2, d_k=3, d_v=1)
    assert_shapes_consistent(sm)
    np.testing.assert_array_equal(sm.mats["X"], s.mats["X"][:, :2])
    np.testing.assert_array_equal(sm.mats["W_Q"], s.mats["W_Q"][:2, :3])
    np.testing.assert_array_equal(sm.mats["W_V"], s.mats["W_V"][:2, :1])


def test_shrink_then_grow_back_restores_identical_matrices():
    for preset in ("dog", "custom", "school", "direct3"):
        s = L.default_state(preset, seed=11)
        back = L.with_sizes(L.with_sizes(s, d_model=1, d_k=1, d_v=1), d_model=s.d_model, d_k=s.d_k, d_v=s.d_v)
        assert_mats_equal(s, back)
        up = L.with_sizes(L.with_sizes(s, d_model=16, d_k=16, d_v=16), d_model=s.d_model, d_k=s.d_k, d_v=s.d_v)
        assert_mats_equal(s, up)


def test_dog_shrink_dk_then_back_gives_preset_numbers():
    s = L.with_sizes(L.default_state("dog"), d_k=3)
    np.testing.assert_array_equal(s.mats["W_Q"], DOG_WQ[:, :3])
    back = L.with_sizes(s, d_k=5)
    np.testing.assert_array_equal(back.mats["W_Q"], DOG_WQ)
    np.testing.assert_array_equal(back.mats["W_K"], DOG_WK)


def test_edit_inside_kept_block_survives_resizing():
    s = L.with_cell(L.default_state("custom", seed=2), "W_Q", 1, 2, 7.5)
    s = L.with_cell(s, "X", 0, 1, -2.25)
    g = L.with_sizes(L.with_sizes(s, d_k=9, d_model=8), d_k=3, d_model=2)
    assert g.mats["W_Q"][1, 2] == 7.5
    assert g.mats["X"][0, 1] == -2.25


def test_with_sizes_clamps_to_limits():
    s = L.with_sizes(L.default_state("custom"), d_model=0, d_k=99, d_v=-3)
    assert (s.d_model, s.d_k, s.d_v) == (L.DIM_MIN, L.DIM_MAX, L.DIM_MIN)
    assert_shapes_consistent(s)


# ------------------------------------------------------------------------------------------------- with_text
def test_token_keeps_its_x_row_when_moved():
    s = L.default_state("custom", seed=4)  # 猫 が 魚 を 食べる
    row = {tok: s.mats["X"][i].copy() for i, tok in enumerate(s.tokens)}
    m = L.with_text(s, "食べる 魚 猫")
    assert m.tokens == ("食べる", "魚", "猫")
    for i, tok in enumerate(m.tokens):
        np.testing.assert_array_equal(m.mats["X"][i], row[tok])


def test_edited_row_follows_its_token():
    s = L.with_cell(L.default_state("dog"), "X", 0, 2, 0.75)  # 犬's row, 3rd feature
    m = L.with_text(s, "歩く 犬")
    np.testing.assert_array_equal(m.mats["X"][1], [1, 0, 0.75, 1])
    np.testing.assert_array_equal(m.mats["X"][0], [0, 1, 0, 1])  # 歩く, from the preset


def test_same_token_same_row_whatever_the_history():
    a = L.with_text(L.default_state("custom", seed=1), "鳥 が 鳴く")
    b = L.with_text(L.with_text(L.default_state("custom", seed=1), "月"), "空 を 鳥")
    np.testing.assert_array_equal(a.mats["X"][0], b.mats["X"][2])


def test_k09_duplicates_keep_five_rows():
    s = L.with_text(L.default_state("dog"), "犬 が 犬 を 見る")
    assert s.tokens == ("犬", "が", "犬", "を", "見る")
    assert s.n == 5
    assert_shapes_consistent(s)
    np.testing.assert_array_equal(s.mats["X"][0], DOG_X[0])
    np.testing.assert_array_equal(s.mats["X"][2], DOG_X[0])  # same token, same embedding (no position info)
    res = L.compute(s)
    assert res.steps.weights.shape == (5, 5)


def test_duplicates_keep_edits_in_order():
    s = L.with_text(L.default_state("dog"), "犬 が 犬 を 見る")
    s = L.with_cell(s, "X", 2, 1, 4.0)  # the second 犬
    m = L.with_text(s, "犬 が 犬 を 見る 。")
    assert m.mats["X"][0, 1] == 0.0
    assert m.mats["X"][2, 1] == 4.0


def test_empty_text_gives_no_result_and_back_again():
    s = L.with_text(L.default_state("dog"), "")
    assert s.tokens == () and s.n == 0
    assert L.compute(s) is None
    assert s.query == 0
    assert_shapes_consistent(s)
    assert L.compute(L.with_text(L.default_state("dog"), " \u3000 ")) is None
    back = L.with_text(s, "犬 が 歩く")
    np.testing.assert_array_equal(back.mats["X"], DOG_X)
    np.testing.assert_allclose(L.compute(back).steps.scores[0], [9, 0, 1])


def test_empty_text_in_direct_mode_gives_none():
    s = L.with_text(L.default_state("direct3"), "")
    assert L.compute(s) is None


# ------------------------------------------------------------------------------------------------ with_query
def test_k13_query_clamped_when_text_shrinks():
    s = L.with_text(L.default_state("custom"), "a b c d e")
    s, clamped = L.with_query(s, 4)
    assert s.query == 4 and not clamped
    short = L.with_text(s, "a b c")
    assert short.n == 3 and short.query == 2  # clamped to the last token, not 0, no IndexError
    _, clamped = L.with_query(s, 4)
    assert not clamped
    q, clamped = L.with_query(short, 4)
    assert q.query == 2 and clamped
    res = L.compute(short)
    assert res.steps.weights[short.query].shape == (3,)


def test_query_in_range_kept_when_growing():
    s, _ = L.with_query(L.with_text(L.default_state("custom"), "a b c"), 2)
    grown = L.with_text(s, "a b c d e")
    assert grown.query == 2


def test_with_query_negative_and_empty():
    s, clamped = L.with_query(L.default_state("dog"), -1)
    assert s.query == 0 and clamped
    e, clamped = L.with_query(L.with_text(L.default_state("dog"), ""), 0)
    assert e.query == 0 and not clamped


# ------------------------------------------------------------------------------------------------ check_cell
@pytest.mark.parametrize(
    "value, code",
    [
        (float("nan"), "not_finite"),
        ("nan", "not_finite"),
        (float("inf"), "not_finite"),
        ("-inf", "not_finite"),
        ("1e400", "not_finite"),  # parses to inf
        (1e308, "too_big"),
        ("1e308", "too_big"),
        (-1000.5, "too_big"),
        ("abc", "not_number"),
        ("", "not_number"),
        (None, "not_number"),
        ("1,5", "not_number"),
        # Python's float() takes these; a person does not mean them as numbers (nor does a link carry them)
        ("1_0", "not_number"),
        ("0x10", "not_number"),
        (" 1 2", "not_number"),
        ("infinity", "not_finite"),
        ("-Infinity", "not_finite"),
        ("∞", "not_finite"),
    ],
)
def test_check_cell_refuses(value, code):
    with pytest.raises(Refusal) as ei:
        check_cell(value)
    assert ei.value.code == code
    assert isinstance(ei.value, ValueError)


@pytest.mark.parametrize("value, want", [("2.5", 2.5), (" -3.75 ", -3.75), (1000, 1000.0), (-1000.0, -1000.0),
                                         (np.float64(0.1), 0.1), (1e-7, 1e-7), (3, 3.0), (".5", 0.5), ("3.", 3.0),
                                         ("+1e-3", 0.001), ("1E2", 100.0)])
def test_check_cell_accepts(value, want):
    got = check_cell(value)
    assert isinstance(got, float) and got == want


def test_check_cell_negative_zero_becomes_zero():
    assert math.copysign(1.0, check_cell("-0")) == 1.0
    assert math.copysign(1.0, check_cell(-0.0)) == 1.0


def test_with_matrix_refuses_bad_value_naming_the_cell():
    s = L.default_state("dog")
    M = DOG_WQ.copy()
    M[2, 3] = np.nan
    with pytest.raises(Refusal) as ei:
        L.with_matrix(s, "W_Q", M)
    assert ei.value.code == "not_finite"
    assert ei.value.args_["matrix"] == "W_Q" and ei.value.args_["row"] == 2 and ei.value.args_["col"] == 3
    with pytest.raises(ValueError):
        L.with_matrix(s, "W_Q", np.zeros((4, 4)))  # wrong shape


def test_with_cell_refuses_and_leaves_state_alone():
    s = L.default_state("dog")
    with pytest.raises(Refusal):
        L.with_cell(s, "W_Q", 0, 0, "inf")
    np.testing.assert_array_equal(s.mats["W_Q"], DOG_WQ)
    with pytest.raises(Refusal) as ei:  # a refusal in words (issue 20: a transition raises nothing else)
        L.with_cell(s, "W_Q", 4, 0, 1.0)
    assert ei.value.code == "outside" and ei.value.args_ == {"matrix": "W_Q", "row": 5, "col": 1, "shape": "4x5"}


def test_with_cell_negative_index_is_outside_the_matrix():
    s = L.default_state("dog")
    with pytest.raises(Refusal) as ei:
        L.with_cell(s, "W_Q", -1, 0, 9.0)
    assert ei.value.code == "outside"


# --------------------------------------------------------------------------------------------- K14 (state)
def test_k14_grid_edits_stick():
    s = L.with_sizes(L.default_state("custom"), d_model=2, d_k=2)
    s = L.with_matrix(s, "W_Q", np.eye(2))
    np.testing.assert_array_equal(s.mats["W_Q"], [[1, 0], [0, 1]])
    s = L.with_cell(s, "W_Q", 0, 0, 2)
    np.testing.assert_array_equal(s.mats["W_Q"], [[2, 0], [0, 1]])
    s = L.with_cell(s, "W_Q", 1, 1, 3)
    np.testing.assert_array_equal(s.mats["W_Q"], [[2, 0], [0, 3]])
    s = L.with_cell(s, "W_Q", 0, 1, 0.5)
    np.testing.assert_array_equal(s.mats["W_Q"], [[2, 0.5], [0, 3]])
    # the edits reach the computation: Q = X·W_Q
    res = L.compute(s)
    np.testing.assert_allclose(res.Q, s.mats["X"] @ np.array([[2, 0.5], [0, 3]]), atol=1e-12)


def test_with_cell_does_not_mutate_the_old_state():
    s = L.default_state("dog")
    L.with_cell(s, "W_Q", 0, 0, 5.0)
    np.testing.assert_array_equal(s.mats["W_Q"], DOG_WQ)


# ------------------------------------------------------------------------------------------------- with_mode
def test_with_mode_direct_starts_at_x_times_w():
    s = L.with_cell(L.default_state("custom", seed=12), "W_K", 1, 1, 2.5)  # an edit must carry over
    X, WQ, WK, WV = (s.mats[n] for n in ("X", "W_Q", "W_K", "W_V"))
    d = L.with_mode(s, "direct")
    assert d.mode == "direct"
    np.testing.assert_allclose(d.mats["Q"], X @ WQ, atol=1e-12)
    np.testing.assert_allclose(d.mats["K"], X @ WK, atol=1e-12)
    np.testing.assert_allclose(d.mats["V"], X @ WV, atol=1e-12)
    # the numbers continue: the lesson's weights are the same in both modes
    np.testing.assert_allclose(L.compute(d).steps.weights, L.compute(s).steps.weights, atol=1e-12)
    back = L.with_mode(d, "xw")
    assert back.mode == "xw"
    assert_mats_equal(s, back, ("X", "W_Q", "W_K", "W_V"))


def test_dog_direct_mode_gives_hand_q_k_v():
    d = L.with_mode(L.default_state("dog"), "direct")
    np.testing.assert_array_equal(d.mats["Q"], DOG_Q)
    np.testing.assert_array_equal(d.mats["K"], DOG_K)
    np.testing.assert_array_equal(d.mats["V"], DOG_V)


def test_direct_mode_uses_typed_q():
    d = L.with_mode(L.default_state("dog"), "direct")
    d = L.with_cell(d, "K", 1, 0, 3.0)  # が's key now [3,0,1,0,1]: q_犬·k_が = 2·3 = 6
    res = L.compute(d)
    np.testing.assert_allclose(res.steps.scores[0], [9, 6, 1], atol=1e-12)


def test_direct_edits_survive_a_round_trip_through_xw():
    """Edits typed in direct mode are kept when switching to "xw" and back (they are not replaced by X·W)."""
    d = L.with_cell(L.with_mode(L.default_state("dog"), "direct"), "K", 1, 0, 3.0)
    back = L.with_mode(L.with_mode(d, "xw"), "direct")
    want_k = DOG_K.copy()
    want_k[1, 0] = 3.0
    np.testing.assert_array_equal(back.mats["K"], want_k)
    np.testing.assert_array_equal(back.mats["Q"], DOG_Q)
    np.testing.assert_allclose(L.compute(back).steps.scores[0], [9, 6, 1], atol=1e-12)
    # and xw mode in between shows X·W again, not the typed K
    np.testing.assert_array_equal(L.compute(L.with_mode(d, "xw")).K, DOG_K)


def test_with_mode_rejects_unknown():
    with pytest.raises(ValueError):
        L.with_mode(L.default_state("dog"), "sideways")


def test_baseline_matrix_direct_mode_of_xw_preset_is_projection():
    s = L.default_state("dog")
    d = L.with_mode(s, "direct")
    np.testing.assert_array_equal(L.baseline_matrix(d, "Q"), DOG_Q)
    np.testing.assert_array_equal(L.baseline_matrix(s, "W_K"), DOG_WK)


# ------------------------------------------------------------------------------------------- property tests
VOCAB = ["犬", "が", "歩く", "猫", "を", "見る", "a", "b"]

ops = st.one_of(
    st.tuples(st.just("text"), st.lists(st.sampled_from(VOCAB), min_size=0, max_size=7)),
    st.tuples(st.just("sizes"), st.tuples(st.integers(-2, 20), st.integers(-2, 20), st.integers(-2, 20))),
    st.tuples(st.just("query"), st.integers(-3, 20)),
    st.tuples(st.just("mode"), st.sampled_from(["xw", "direct"])),
    st.tuples(st.just("cell"), st.tuples(st.sampled_from(NAMES), st.integers(0, 20), st.integers(0, 20),
                                         st.floats(-1000, 1000, allow_nan=False))),
    st.tuples(st.just("seed"), st.integers(0, 50)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(sorted(L.PRESETS)), steps=st.lists(ops, max_size=8))
def test_any_sequence_of_changes_keeps_state_consistent(preset, steps):
    s = L.default_state(preset)
    for op, arg in steps:
        if op == "text":
            s = L.with_text(s, " ".join(arg))
        elif op == "sizes":
            s = L.with_sizes(s, *arg)
        elif op == "query":
            s = L.with_query(s, arg)[0]
        elif op == "mode":
            s = L.with_mode(s, arg)
        elif op == "cell":
            name, i, j, v = arg
            r, c = s.mats[name].shape
            if i < r and j < c:
                s = L.with_cell(s, name, i, j, v)
        elif op == "seed":
            s = L.with_seed(s, arg)
        assert_shapes_consistent(s)
        assert 0 <= s.query <= max(s.n - 1, 0)
        assert L.DIM_MIN <= min(s.d_model, s.d_k, s.d_v) and max(s.d_model, s.d_k, s.d_v) <= L.DIM_MAX
    res = L.compute(s)
    if s.n == 0:
        assert res is None
    else:
        np.testing.assert_allclose(res.steps.weights.sum(axis=1), 1.0, atol=1e-9)
        assert res.steps.weights.shape == (s.n, s.n)
        assert res.steps.output.shape == (s.n, s.d_v)


# ------------------------------------------------------------------------------------------- parse_cell_text
@pytest.mark.parametrize("text, want", [
    ("1.5", 1.5), (" -2 ", -2.0), ("１．５", 1.5), ("−２", -2.0), ("ー0.25", -0.25), ("3e-2", 0.03),
    ("１ｅ２", 100.0), (7, 7.0), (0.5, 0.5),
])
def test_parse_cell_text_reads_what_a_person_types(text, want):
    assert parse_cell_text(text) == want


@pytest.mark.parametrize("text, code, quoted", [
    (None, "empty", None), ("", "empty", None), ("   ", "empty", None), ("\u3000", "empty", None),
    ("abc", "not_number", "abc"), ("1,5", "not_number", "1,5"), ("ｎａｎ", "not_finite", "ｎａｎ"),
    ("1e400", "not_finite", "1e400"), ("1e308", "too_big", "1e308"), ("-1000.01", "too_big", "-1000.01"),
    ("1000.0000001", "too_big", "1000.0000001"),
    ("x" * 60, "not_number", "x" * 40), ("１＿０", "not_number", "１＿０"), ("0x10", "not_number", "0x10"),
])
def test_parse_cell_text_refusals_quote_what_was_typed(text, code, quoted):
    with pytest.raises(Refusal) as ei:
        parse_cell_text(text)
    assert ei.value.code == code
    assert ei.value.args_.get("value") == quoted


# ------------------------------------------------------------------------------------------- is_preset_as_given
@pytest.mark.parametrize("key", ["dog", "direct3", "school"])
def test_a_preset_as_loaded_is_as_given(key):
    assert L.is_preset_as_given(L.default_state(key))


def test_any_change_to_the_lesson_means_its_notes_no_longer_hold():
    s = L.default_state("dog")
    assert not L.is_preset_as_given(L.with_text(s, "猫 が 魚 を 食べる"))
    assert not L.is_preset_as_given(L.with_cell(s, "W_Q", 0, 0, 1.5))
    assert not L.is_preset_as_given(L.with_sizes(s, d_k=6))
    assert not L.is_preset_as_given(L.with_mode(s, "direct"))
    assert not L.is_preset_as_given(L.default_state("custom"))
    back = L.with_cell(L.with_cell(s, "X", 0, 0, 3.0), "X", 0, 0, float(s.mats["X"][0, 0]))
    assert L.is_preset_as_given(back)  # an edit undone by hand: the numbers are the preset's again
    assert L.is_preset_as_given(L.with_query(s, 2)[0])  # another query does not change any number


def test_entering_direct_mode_again_projects_the_current_x_when_q_k_v_were_not_typed():
    """Found in review: X[0,0]=5 → direct → xw → X[0,0]=7 → direct must give Q = X·W with the 7 (犬's row of the
    dog preset: X = [7, 0, 0, 1], W_Q rows 1 and 4 → [7·1 + 1, 7·2, 0, 1, 0] = [8, 14, 0, 1, 0]), not the old 5."""
    s = L.with_cell(L.default_state("dog"), "X", 0, 0, 5.0)
    s = L.with_mode(L.with_mode(s, "direct"), "xw")
    s = L.with_mode(L.with_cell(s, "X", 0, 0, 7.0), "direct")
    assert s.mats["Q"][0].tolist() == [8.0, 14.0, 0.0, 1.0, 0.0]
    typed = L.with_cell(s, "Q", 0, 0, 2.5)  # typed in direct mode: kept across a round trip of modes
    back = L.with_mode(L.with_mode(typed, "xw"), "direct")
    assert back.mats["Q"][0].tolist() == [2.5, 14.0, 0.0, 1.0, 0.0] and back.direct_edits
