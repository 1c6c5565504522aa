"""Regression reference: the seeded numbers the Q·K·V and masks lessons show, and what their resize transitions keep.

The arrays in ``fixtures/seeded_numbers.json`` were RECORDED FROM THE OLD CODE (commit 59ec829, before issue 19
item 3 moved the seeded drawing into lessons/seeded.py and item 4 replaced ``qkv._resized``, ``qkv._overlay`` and
``masks._fit_custom`` by one ``lessons.seeded.refit``), by calling :func:`produce` on every case of :data:`CASES`.
They are not hand-computed and are not meant to be: they are the numbers a link shared before the refactor opens
with, and a link must keep opening with the same numbers. The test below calls the same public functions today and
demands the very same float64 values for everything drawn or edited (X, the W matrices, masks: exact equality), and
agreement to 1e-12 for what is computed from them by a matrix product (Q, K, V, scores, weights...): the BLAS kernel
OpenBLAS picks for the processor may round a sum of products in another order (CI's processor gave Q = -2.7 where
the recording machine gave -2.6999999999999997), which is not a changed number on screen.

Never re-record them to make this test pass: a difference means a shared link now shows other numbers.
(``record`` refuses to overwrite the file.)
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lessons import masks, qkv

FIXTURE = Path(__file__).parent / "fixtures" / "seeded_numbers.json"
QKV_NAMES = ("X", "W_Q", "W_K", "W_V", "Q", "K", "V")
# Arrays drawn from the seed or edited, never a product (and every boolean mask): bit for bit on any processor.
DRAWN = {"X", "W_Q", "W_K", "W_V", "custom", "custom_mask"}

# (id, link values for qkv.from_link): sentence, d_model, d_k, d_v, seed, mode over each preset
QKV_LINKS = [
    ("custom default", {"p": "custom"}),
    ("custom janome 16x16x16 seed 42", {"p": "custom", "t": "猫が魚を食べる", "dm": 16, "dk": 16, "dv": 16, "s": 42}),
    ("custom duplicates 3x2x5 seed 9999", {"p": "custom", "t": "the cat saw the cat", "dm": 3, "dk": 2, "dv": 5,
                                           "s": 9999}),
    ("custom one token 1x1x1 seed 1", {"p": "custom", "t": "a", "dm": 1, "dk": 1, "dv": 1, "s": 1}),
    ("custom no tokens", {"p": "custom", "t": "", "s": 3}),
    ("custom direct seed 5", {"p": "custom", "t": "x y z x", "dm": 5, "dk": 3, "dv": 2, "s": 5, "m": "direct"}),
    ("dog default", {"p": "dog"}),
    ("dog grown, new tokens, seed 7", {"p": "dog", "t": "犬 が 走る 犬", "dm": 6, "dk": 7, "dv": 3, "s": 7}),
    ("dog shrunk seed 0", {"p": "dog", "dm": 2, "dk": 3, "dv": 1}),
    ("school direct seed 3", {"p": "school", "s": 3, "m": "direct"}),
    ("school grown seed 12", {"p": "school", "t": "私 は 家へ 行きます", "dm": 8, "dk": 4, "dv": 5, "s": 12}),
    ("direct3 grown seed 5", {"p": "direct3", "t": "A B C D", "dm": 3, "dk": 3, "dv": 4, "s": 5}),
    ("direct3 xw mode seed 2", {"p": "direct3", "s": 2, "m": "xw"}),
]

SEEDED = [  # qkv.seeded_matrices(tokens, seed, preset): what the masks lesson borrowed
    ("masks sentence seed 0", ("犬", "が", "公園", "を", "歩く"), 0, "custom"),
    ("with PAD seed 77", ("犬", "が", "走る", masks.PAD, masks.PAD), 77, "custom"),
    ("dog preset tokens seed 4", ("犬", "が", "歩く", "猫"), 4, "dog"),
    ("school preset seed 9999", ("私", "は", "学校へ", "行きます"), 9999, "school"),
    ("empty", (), 0, "custom"),
]

PROJECTIONS = [  # masks.projections(tokens, seed)
    ("default sentence", ("犬", "が", "公園", "を", "歩く"), 0),
    ("sentence 2 padded seed 31", ("犬", "が", "走る", masks.PAD, masks.PAD), 31),
    ("repeats seed 8000", ("a", "b", "a", "a"), 8000),
]

MASKS_STATES = [  # masks.arrays(state) over the whole page
    ("default", {}),
    ("seed 5, no causal, extra pad 2", {"seed": 5, "causal": False, "extra_pad": 2}),
    ("other sentences seed 123 item 0", {"text": "猫が魚を食べる", "text2": "a b c d e f g", "seed": 123, "item": 0}),
]


def _qkv_steps():
    """qkv transitions that refit matrices (with_text, with_sizes), after edits: (id, state) pairs."""
    out = []
    s = qkv.from_link({"p": "custom", "t": "猫 が 魚 を 食べる", "s": 11})[0]
    s = qkv.with_cell(s, "X", 1, 2, 3.5)
    s = qkv.with_cell(s, "X", 4, 0, -1.25)
    s = qkv.with_cell(s, "W_Q", 0, 3, -2.0)
    s = qkv.with_cell(s, "W_V", 3, 1, 7.0)
    out.append(("edited", s))
    s = qkv.with_text(s, "食べる 魚 が 猫 が 猫 鳥")
    out.append(("text reordered with repeats", s))
    s = qkv.with_sizes(s, d_model=6, d_k=2)
    out.append(("d_model 6 d_k 2", s))
    s = qkv.with_sizes(s, d_model=2, d_v=1)
    out.append(("d_model 2 d_v 1", s))
    s = qkv.with_sizes(s, d_model=5, d_k=5, d_v=5)
    out.append(("grown back to 5", s))
    s = qkv.with_text(s, "猫")
    out.append(("one token", s))
    d = qkv.with_mode(qkv.from_link({"p": "dog", "s": 2})[0], "direct")
    d = qkv.with_cell(d, "Q", 0, 4, 9.0)
    d = qkv.with_cell(d, "V", 2, 1, -3.0)
    out.append(("dog direct edited", d))
    d = qkv.with_text(d, "歩く 犬 犬")
    out.append(("dog direct text", d))
    d = qkv.with_sizes(d, d_k=3, d_v=6)
    out.append(("dog direct sizes", d))
    return out


def _masks_steps():
    """masks transitions that refit the custom mask (with_text, with_text2, with_extra_pad)."""
    out = []
    s = masks.MasksState(seed=4)
    s = masks.with_custom_cell(s, 0, 0, False)
    s = masks.with_custom_cell(s, 4, 1, True)
    s = masks.with_custom_cell(s, 2, 3, True)
    out.append(("edited", s))
    s = masks.with_text(s, "犬 が 公園 を 歩く 猫 も")
    out.append(("sentence 1 longer", s))
    s = masks.with_extra_pad(s, 3)
    out.append(("extra pad 3", s))
    s = masks.with_text(s, "犬")
    out.append(("sentence 1 short", s))
    s = masks.with_text2(s, "")
    out.append(("sentence 2 empty", s))
    s = masks.with_extra_pad(s, 0)
    out.append(("no extra pad", s))
    return out


def _enc(a) -> dict:
    a = np.asarray(a)
    return {"dtype": str(a.dtype), "shape": list(a.shape), "data": a.ravel().tolist()}


def _dec(d: dict) -> np.ndarray:
    return np.array(d["data"], dtype=d["dtype"]).reshape(d["shape"])


def produce() -> dict[str, dict[str, np.ndarray]]:
    """Every case's arrays, through the lessons' public functions."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for name, values in QKV_LINKS:
        state = qkv.from_link(values)[0]
        out[f"qkv link: {name}"] = {m: state.mats[m] for m in QKV_NAMES}
    for name, toks, seed, preset in SEEDED:
        out[f"qkv.seeded_matrices: {name}"] = dict(qkv.seeded_matrices(toks, seed, preset))
    for name, toks, seed in PROJECTIONS:
        out[f"masks.projections: {name}"] = dict(zip("QKV", masks.projections(toks, seed)))
    for name, kw in MASKS_STATES:
        out[f"masks.arrays: {name}"] = masks.arrays(masks.MasksState(**kw))
    for name, state in _qkv_steps():
        out[f"qkv refit: {name}"] = {m: state.mats[m] for m in QKV_NAMES}
    for name, state in _masks_steps():
        out[f"masks refit: {name}"] = {"custom": state.custom, "custom_mask": masks.custom_mask(state)}
    return out


def record() -> None:
    """Write the fixture from the code as it is (done once, before the refactor). Refuses to overwrite it."""
    if FIXTURE.exists():
        raise FileExistsError(f"{FIXTURE} exists: it is the old code's reference and is never re-recorded")
    FIXTURE.parent.mkdir(exist_ok=True)
    data = {case: {k: _enc(v) for k, v in arrs.items()} for case, arrs in produce().items()}
    FIXTURE.write_text(json.dumps(data, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")


REFERENCE = json.loads(FIXTURE.read_text("utf-8")) if FIXTURE.exists() else {}
NOW = None


def _now():
    global NOW
    if NOW is None:
        NOW = produce()
    return NOW


def test_fixture_covers_every_case():
    assert REFERENCE, f"{FIXTURE} is missing"
    assert set(_now()) == set(REFERENCE)


@pytest.mark.parametrize("case", sorted(REFERENCE))
def test_numbers_equal_the_old_codes(case):
    now = _now()[case]
    assert set(now) == set(REFERENCE[case])
    for name, want in REFERENCE[case].items():
        ref = _dec(want)
        got = np.asarray(now[name])
        assert got.dtype == ref.dtype, (case, name)
        assert got.shape == ref.shape, (case, name)
        if name in DRAWN or ref.dtype == bool:
            np.testing.assert_array_equal(got, ref, err_msg=f"{case}: {name}")
        else:
            np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12, err_msg=f"{case}: {name}")


if __name__ == "__main__":
    record()
