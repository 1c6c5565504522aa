"""AppTest of the Q·K·V page's words (issue 9): a sentence typed over an example says which tokens start from the
example's numbers and which from the seed; raising d_k over the example's says which columns are random; step ⑤'s
table for 「猫が魚を食べる」 over 犬が歩く (the trial's case: weights of 8.7e−05 and smaller) shows decimals a student
reads, one minus sign, and no rounded weight as 0. Expected numbers are recomputed here from the state's matrices
with plain NumPy and math.exp (not attention_core), expected words come from the language tables."""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from lessons import qkv as L
from ui.i18n import table

APP = str(Path(__file__).resolve().parents[2] / "app.py")
JA, EN = table("ja"), table("en")
CAT = "猫が魚を食べる"


def open_qkv() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("lesson_pages/qkv.py")
    return ok(at.run())


def in_lang(at: AppTest, lang: str) -> AppTest:
    """Switch the language as a person does (the frame's radio), as the last run of a test: AppTest formats a
    selectbox's value with the page's format_func outside the session, that is in Japanese, so a run after an
    English one cannot find the English option."""
    return ok(at.radio(key="lang").set_value(lang).run()) if lang != "ja" else at


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def plain(md: str) -> str:
    """Markdown as it reads: escapes, word joiners and no-break spaces removed."""
    return re.sub(r"\\(.)", r"\1", md).replace("\u2060", "").replace("\u00a0", " ")


def infos(at) -> list[str]:
    return [plain(i.value) for i in at.info]


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_a_sentence_typed_over_an_example_says_where_its_numbers_come_from(lang):
    tab = JA if lang == "ja" else EN
    at = in_lang(open_qkv(), lang)
    assert not [i for i in infos(at) if tab["qkv.own.hint"].split("{")[0] in i]  # the example as given: no note
    at = open_qkv()
    ok(at.text_input(key="qkv.text").set_value(CAT).run())
    in_lang(at, lang)
    assert at.selectbox(key="qkv.preset").value == "dog"  # the menu stays on the example, and the note says why
    sep = tab["qkv.own.sep"]
    want = [tab["qkv.own.intro_xw"].format(preset=tab["preset.dog"]),
            tab["qkv.own.example"].format(tokens="が"),  # 犬が歩く gives a vector for が only
            tab["qkv.own.seeded"].format(tokens=sep.join(["猫", "魚", "を", "食べる"]), seed=0),
            tab["qkv.own.hint"].format(custom=tab["preset.custom"])]
    (note,) = [i for i in infos(at) if want[0] in i]
    for sentence in want:
        assert sentence in note, (sentence, note)
    # and it is true: が's row is the example's [0, 0, 1, 0]; W_Q is the example's
    s = at.session_state["qkv:state"]
    assert s.mats["X"][1].tolist() == [0, 0, 1, 0]
    assert s.mats["W_Q"].tolist() == L.PRESETS["dog"].weights["W_Q"]


def test_a_new_seed_is_named_in_the_note():
    at = open_qkv()
    ok(at.text_input(key="qkv.text").set_value(CAT).run())
    ok(at.slider(key="qkv.seed").set_value(7).run())
    in_lang(at, "en")
    assert any("random numbers of seed 7" in i for i in infos(at)), infos(at)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_raising_dk_past_the_example_says_which_columns_are_random(lang):
    tab = JA if lang == "ja" else EN
    assert not [i for i in infos(in_lang(open_qkv(), lang)) if tab["qkv.grown.d_k_xw"].split("{")[0] in i]
    at = open_qkv()
    ok(at.slider(key="qkv.dk").set_value(8).run())
    in_lang(at, lang)
    said = tab["qkv.grown.d_k_xw"].format(given=5, now=8, span="6–8", seed=0)
    assert any(said in i for i in infos(at)), infos(at)
    s = at.session_state["qkv:state"]
    given = np.array(L.PRESETS["dog"].weights["W_Q"], dtype=float)
    assert np.array_equal(s.mats["W_Q"][:, :5], given)  # the example's numbers stay
    assert np.abs(s.mats["W_Q"][:, 5:]).max() > 0  # the new columns hold the seed's numbers
    at = open_qkv()
    ok(at.slider(key="qkv.dk").set_value(8).run())
    ok(at.slider(key="qkv.dk").set_value(5).run())
    assert not any(JA["qkv.grown.d_k_xw"].split("{")[0] in i for i in infos(at))  # back to the example's size


def _table(at) -> dict[str, list[str]]:
    for m in at.markdown:
        text = re.sub(r"^<style>.*?</style>\s*", "", m.value.strip(), flags=re.S)
        lines = text.splitlines()
        if len(lines) > 2 and lines[0].startswith("|") and plain(JA["query.tbl.weight"]) in plain(lines[0]):
            rows = [[plain(c.strip()) for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]] for line in lines]
            return {h: [r[k] for r in rows[2:]] for k, h in enumerate(rows[0])}
    raise AssertionError("no query table")


def test_step_5_for_the_cat_sentence_is_readable_and_right():
    at = open_qkv()
    ok(at.text_input(key="qkv.text").set_value(CAT).run())
    s = at.session_state["qkv:state"]
    X, WQ, WK = (np.array(s.mats[n]) for n in ("X", "W_Q", "W_K"))
    q, K = X[0] @ WQ, X @ WK  # the query 猫 (token 1)
    scaled = [float(q @ k) / math.sqrt(s.d_k) for k in K]
    exps = [math.exp(x - max(scaled)) for x in scaled]
    weights = [e / sum(exps) for e in exps]
    assert min(weights) < 1e-7 and 5e-5 < weights[1] < 5e-4  # the trial's case: が about 8.7e−05
    tbl = _table(at)
    cells = [c for col in tbl.values() for c in col]
    assert not [c for c in cells if re.search(r"\de[+\-−]?\d", c) or re.search(r"(^|[(\s])-\d", c)], cells
    for text, w in zip(tbl[JA["query.tbl.weight"]], weights):
        if w < 0.0005:
            assert text == "<0.1%"  # not 0, not "0.0%", not "8.7e-05"
        else:
            assert abs(float(text.rstrip("%")) - 100 * w) <= 0.05 + 1e-9
    for text, e in zip(tbl[JA["query.tbl.exp"]], exps):
        assert text == ("1" if e == 1 else "<0.001" if e < 0.0005 else text)
        if text not in ("1", "<0.001"):
            assert abs(float(text) - e) <= 0.0005
    assert tbl[JA["query.tbl.score"]][1] == "−2.2" and tbl[JA["query.tbl.score"]][4] == "−19.34"  # one minus sign
    assert JA["num.rule"] in [c.value for c in at.caption]
