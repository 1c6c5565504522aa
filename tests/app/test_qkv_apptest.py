"""AppTest of the Q·K·V page (lesson_pages/qkv.py inside the app.py frame): widgets → lesson state → screen.

Expected values come from the lesson model's own contract, worked by hand (the 「犬が歩く」 preset numbers),
from cases K12, K13, K15 in /work/shared/cases/README.md, and from the language tables (the words the page must
show). Figures and data_editor edits are not visible to AppTest (tested as functions / in the browser).

The lesson pages live in ``lesson_pages/``, not ``pages/``: Streamlit treats a ``pages/`` folder as a legacy (v1)
multipage app until app.py's ``st.navigation`` has run once in the server process, so a deep link as the first
request ran the page without the frame. `test_deep_link_first_request_runs_inside_the_frame` guards that.
"""
from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path
from urllib.parse import parse_qsl

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import lessons
from lessons import qkv as L
from tests.apptest_fragments import the_cell_slider
from ui import plot_component
from ui.i18n import table

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
JA, EN = table("ja"), table("en")

DOG_X = np.array([[1, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 1]], dtype=float)
DOG_WQ = np.array([[1, 2, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 0, 1], [1, 0, 0, 1, 0]], dtype=float)
DOG_WV = np.array([[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 0], [0, 0, 0, 1]], dtype=float)


@pytest.fixture
def served():
    """A server session (kept as a name for readability; no patching is needed since the pages left pages/)."""
    yield


def fresh(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    for k, v in query.items():
        at.query_params[k] = v
    return at


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


@pytest.fixture
def qkv(served) -> AppTest:
    """The app opened at its root, then the Q·K·V page."""
    at = ok(fresh().run())
    return ok(at.switch_page("lesson_pages/qkv.py").run())


def state(at: AppTest) -> L.QKVState:
    return at.session_state["qkv:state"]


def texts(elements) -> list[str]:
    return [e.value for e in elements]


def widget_keys(elements) -> set[str]:
    return {w.key for w in elements}


# ------------------------------------------------------------------------------------------- page & language
def test_page_runs_in_japanese_by_default(qkv):
    assert texts(qkv.title) == [JA["qkv.title"]]
    assert any("\u3040" <= ch <= "\u30ff" for ch in qkv.title[0].value)  # kana in the title
    assert qkv.selectbox(key="qkv.preset").label == JA["qkv.preset"]
    assert qkv.slider(key="qkv.seed").label == JA["qkv.seed"]
    assert qkv.radio(key="lang").value == "ja"
    s = state(qkv)
    assert s.preset == "dog" and s.tokens == ("犬", "が", "歩く") and (s.d_model, s.d_k, s.d_v) == (4, 5, 4)
    assert JA["qkv.note.dog"] in texts(qkv.info)


def test_language_radio_switches_to_english(served):
    at = ok(fresh().run())
    ok(at.radio(key="lang").set_value("en").run())
    ok(at.switch_page("lesson_pages/qkv.py").run())
    assert texts(at.title) == [EN["qkv.title"]]
    assert at.selectbox(key="qkv.preset").label == EN["qkv.preset"]
    assert at.slider(key="qkv.seed").label == EN["qkv.seed"]
    assert at.radio(key="qkv.mode").label == EN["qkv.mode"]
    assert EN["qkv.note.dog"] in texts(at.info)
    assert at.query_params.get("lang") == "en"


def test_language_from_session_state(served):
    at = fresh()
    at.session_state["lang"] = "en"
    ok(at.run())
    ok(at.switch_page("lesson_pages/qkv.py").run())
    assert texts(at.title) == [EN["qkv.title"]]
    assert at.text_input(key="qkv.text").label == EN["qkv.text"]
    # the lesson itself does not depend on the language
    assert state(at).tokens == ("犬", "が", "歩く")


# ----------------------------------------------------------------------------------------------- sliders
def test_dk_slider(qkv):
    ok(qkv.slider(key="qkv.dk").set_value(7).run())
    s = state(qkv)
    assert s.d_k == 7 and (s.d_model, s.d_v) == (4, 4)
    assert qkv.slider(key="qkv.dk").value == 7
    assert s.mats["W_Q"].shape == (4, 7)
    np.testing.assert_array_equal(s.mats["W_Q"][:, :5], DOG_WQ)  # what still fits is kept
    np.testing.assert_array_equal(s.mats["X"], DOG_X)
    np.testing.assert_array_equal(s.mats["W_V"], DOG_WV)
    res = L.compute(s)
    assert res.Q.shape == (3, 7) and res.K.shape == (3, 7)
    # the scaled-scores caption now divides by √7 = 2.646
    assert JA["fig.scaled.caption"].format(d_k=7, root="2.646") in plot_component.captions(qkv)


def test_dm_slider(qkv):
    ok(qkv.slider(key="qkv.dm").set_value(6).run())
    s = state(qkv)
    assert s.d_model == 6 and (s.d_k, s.d_v) == (5, 4)
    assert s.mats["X"].shape == (3, 6) and s.mats["W_Q"].shape == (6, 5)
    np.testing.assert_array_equal(s.mats["X"][:, :4], DOG_X)
    np.testing.assert_array_equal(s.mats["W_Q"][:4], DOG_WQ)


def test_dv_slider(qkv):
    ok(qkv.slider(key="qkv.dv").set_value(2).run())
    s = state(qkv)
    assert s.d_v == 2 and (s.d_model, s.d_k) == (4, 5)
    np.testing.assert_array_equal(s.mats["W_V"], DOG_WV[:, :2])
    assert L.compute(s).steps.output.shape == (3, 2)


def test_seed_slider(qkv):
    ok(qkv.slider(key="qkv.seed").set_value(42).run())
    s = state(qkv)
    assert s.seed == 42
    np.testing.assert_array_equal(s.mats["W_Q"], DOG_WQ)  # the preset gives every number: nothing to redraw
    ok(qkv.selectbox(key="qkv.preset").set_value("custom").run())
    assert state(qkv).preset == "custom" and state(qkv).seed == 42
    ok(qkv.slider(key="qkv.seed").set_value(43).run())
    s = state(qkv)
    assert s.seed == 43
    for name in ("X", "W_Q", "W_K", "W_V"):
        np.testing.assert_array_equal(s.mats[name], L.default_state("custom", seed=43).mats[name])


def test_cell_slider_edits_that_cell(qkv):
    assert qkv.selectbox(key="qkv.cell:m").value == "X"
    assert the_cell_slider(qkv, "qkv.cell").value == 1.0  # X[0,0] of 犬 = 1
    ok(the_cell_slider(qkv, "qkv.cell").set_value(2.5).run())
    s = state(qkv)
    want = DOG_X.copy()
    want[0, 0] = 2.5
    np.testing.assert_array_equal(s.mats["X"], want)
    np.testing.assert_array_equal(s.mats["W_Q"], DOG_WQ)
    # another matrix, another cell: W_Q row 2, column 3 (1-based) = 1
    ok(qkv.selectbox(key="qkv.cell:m").set_value("W_Q").run())
    ok(qkv.selectbox(key="qkv.cell:i").set_value(1).run())
    ok(qkv.selectbox(key="qkv.cell:j").set_value(2).run())
    assert the_cell_slider(qkv, "qkv.cell").value == 1.0
    ok(the_cell_slider(qkv, "qkv.cell").set_value(-0.5).run())
    s = state(qkv)
    want_wq = DOG_WQ.copy()
    want_wq[1, 2] = -0.5
    np.testing.assert_array_equal(s.mats["W_Q"], want_wq)
    np.testing.assert_array_equal(s.mats["X"], want)  # the first edit is kept
    assert s.d_k == 5 and s.tokens == ("犬", "が", "歩く")


# ---------------------------------------------------------------------------------------------- sentence
def test_duplicate_tokens(qkv):
    ok(qkv.text_input(key="qkv.text").input("犬 が 犬 を 見る").run())
    s = state(qkv)
    assert s.tokens == ("犬", "が", "犬", "を", "見る") and s.n == 5
    assert s.mats["X"].shape == (5, 4)
    assert JA["tokens.duplicates"] in texts(qkv.caption)
    assert qkv.selectbox(key="qkv.query").options == ["1: 犬", "2: が", "3: 犬", "4: を", "5: 見る"]


def test_janome_split_is_shown(qkv):
    ok(qkv.text_input(key="qkv.text").input("犬が歩く").run())
    assert state(qkv).tokens == ("犬", "が", "歩く")
    assert JA["tokens.split_janome"].format(tokens="犬 / が / 歩く") in texts(qkv.caption)


def test_empty_sentence(qkv):
    ok(qkv.text_input(key="qkv.text").input("").run())
    assert state(qkv).n == 0
    assert JA["tokens.no_tokens"] in texts(qkv.info)
    assert "qkv.query" not in widget_keys(qkv.selectbox)
    # and back
    ok(qkv.text_input(key="qkv.text").input("犬 が 歩く").run())
    np.testing.assert_array_equal(state(qkv).mats["X"], DOG_X)


def test_twenty_tokens_are_cut_with_a_warning(qkv):
    ok(qkv.text_input(key="qkv.text").input(" ".join(f"w{i}" for i in range(20))).run())
    assert state(qkv).n == 16
    assert JA["notice.too_many_tokens"].format(n=20, max=16) in texts(qkv.warning)


# ----------------------------------------------------------------------------------------- preset & mode
@pytest.mark.parametrize("preset", [
    "dog", "direct3", "custom",
    "school",
])
def test_each_preset(qkv, preset):
    ok(qkv.selectbox(key="qkv.preset").set_value(preset).run())
    s = state(qkv)
    want = L.default_state(preset, seed=0)
    assert s.preset == preset and s.text == want.text and s.mode == want.mode
    assert (s.d_model, s.d_k, s.d_v) == (want.d_model, want.d_k, want.d_v)
    assert qkv.text_input(key="qkv.text").value == want.text
    assert ("qkv.dm" in widget_keys(qkv.slider)) == (want.mode == "xw")
    assert qkv.radio(key="qkv.mode").value == want.mode


def test_school_preset_explains_uniform_weights(qkv):
    """Seed 004's matrices make every key [1,1], so weights are 25 % each; the page says so."""
    ok(qkv.selectbox(key="qkv.preset").set_value("school").run())
    assert JA["qkv.note.same_keys"].format(key="[1, 1]", n=4, share="25.0%") in texts(qkv.info)


def test_direct_mode(qkv):
    ok(qkv.radio(key="qkv.mode").set_value("direct").run())
    s = state(qkv)
    assert s.mode == "direct"
    assert "qkv.dm" not in widget_keys(qkv.slider)
    assert JA["qkv.dm_direct"] in texts(qkv.caption)
    np.testing.assert_allclose(s.mats["Q"], DOG_X @ DOG_WQ, atol=1e-12)
    assert qkv.selectbox(key="qkv.cell:m").options == ["Q", "K", "V"]
    ok(qkv.radio(key="qkv.mode").set_value("xw").run())
    assert "qkv.dm" in widget_keys(qkv.slider)
    np.testing.assert_array_equal(state(qkv).mats["X"], DOG_X)


def test_direct_mode_edits_survive_a_switch_to_xw_and_back(qkv):
    ok(qkv.radio(key="qkv.mode").set_value("direct").run())
    ok(qkv.selectbox(key="qkv.cell:m").set_value("K").run())
    ok(qkv.selectbox(key="qkv.cell:i").set_value(1).run())  # が's key [0,0,1,0,1], first entry
    ok(the_cell_slider(qkv, "qkv.cell").set_value(3.0).run())
    ok(qkv.radio(key="qkv.mode").set_value("xw").run())
    assert state(qkv).mats["K"][1, 0] == 3.0  # kept, though xw mode computes K = X·W_K
    ok(qkv.radio(key="qkv.mode").set_value("direct").run())
    s = state(qkv)
    assert s.mode == "direct" and s.mats["K"][1, 0] == 3.0
    # q_犬 = [2,2,0,1,0], k_が = [3,0,1,0,1]: score 6
    np.testing.assert_allclose(L.compute(s).steps.scores[0], [9, 6, 1], atol=1e-12)


def test_link_of_direct_mode_keeps_the_edits_of_xw_mode(qkv):
    """Issue 7: X[0,0] edited to 5, switch to direct, open the link, switch back → X[0,0] was 1.00 again."""
    ok(the_cell_slider(qkv, "qkv.cell").set_value(5.0).run())  # X, 犬, column 1
    ok(qkv.radio(key="qkv.mode").set_value("direct").run())
    link = dict(qkv.query_params)
    assert link["m"] == "direct" and link["X"] == "3x4:5,0,0,1,0,0,1,0,0,1,0,1"
    other = ok(fresh(**link).switch_page("lesson_pages/qkv.py").run())
    assert not other.warning
    assert state(other).mode == "direct"
    ok(other.radio(key="qkv.mode").set_value("xw").run())
    want = DOG_X.copy()
    want[0, 0] = 5.0
    np.testing.assert_array_equal(state(other).mats["X"], want)


def test_query_selectbox(qkv):
    assert qkv.selectbox(key="qkv.query").options == ["1: 犬", "2: が", "3: 歩く"]
    ok(qkv.selectbox(key="qkv.query").set_value(2).run())
    assert state(qkv).query == 2
    assert JA["query.explain"].format(token="歩く", d_k=5) in texts(qkv.markdown)
    # 歩く's row spelled out. q_歩く = [1,0,1,1,0]; keys 犬 [2,2,0,1,0], が [0,0,1,0,1], 歩く [0,0,1,1,0]
    # scores: 2+0+0+1+0 = 3, 0+0+1+0+0 = 1, 0+0+1+1+0 = 2; ÷√5 → 1.342, 0.447, 0.894
    # e^(s - max): 1, e^-0.894427 = 0.408842, e^-0.447214 = 0.639407; Σ = 2.048249
    # weights: 0.488222, 0.199606, 0.312172 → 48.8 %, 20.0 %, 31.2 %
    (df,) = [tbl for tbl in map(markdown_table, texts(qkv.markdown)) if tbl and JA["query.tbl.weight"] in tbl]
    assert df[JA["query.tbl.score"]] == ["3", "1", "2"]
    assert df[JA["query.tbl.scaled"]] == ["1.342", "0.447", "0.894"]
    assert df[JA["query.tbl.exp"]] == ["1", "0.409", "0.639"]
    assert df[JA["query.tbl.weight"]] == ["48.8%", "20.0%", "31.2%"]
    assert df[JA["query.tbl.key"]] == ["1: 犬", "2: が", "3: 歩く"]
    assert df[JA["query.tbl.products"]][0] == "1×2 + 0×2 + 1×0 + 1×1 + 0×0"


def markdown_table(md: str) -> dict[str, list[str]] | None:
    """A Markdown table's columns by header (cells unescaped), or None when ``md`` is not a table. The page's table
    comes after the shared <style> (ui.text.show_table) and its unbreakable cells hold word joiners and no-break
    spaces (ui.text.keep_together): read as the plain text they show."""
    md = re.sub(r"^<style>.*?</style>\s*", "", md.strip(), flags=re.S).replace("\u2060", "").replace("\u00a0", " ")
    lines = md.strip().splitlines()
    if len(lines) < 2 or not lines[0].startswith("|") or not set(lines[1]) <= set("|:- "):
        return None
    def cells(line):
        return [re.sub(r"\\(.)", r"\1", c.strip()) for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
    header, body = cells(lines[0]), [cells(line) for line in lines[2:]]
    return {h: [row[k] for row in body] for k, h in enumerate(header)}


# ---------------------------------------------------------------------------------------- K12, K13, K15
def test_k12_state_survives_a_page_switch(qkv):
    ok(qkv.slider(key="qkv.dk").set_value(7).run())
    ok(qkv.text_input(key="qkv.text").input("犬 が 犬").run())
    before = state(qkv)
    ok(qkv.switch_page("lesson_pages/home.py").run())
    assert texts(qkv.title) == [JA["home.title"]]
    ok(qkv.switch_page("lesson_pages/qkv.py").run())
    after = state(qkv)
    assert after.d_k == 7 and after.tokens == ("犬", "が", "犬")
    assert qkv.slider(key="qkv.dk").value == 7
    assert qkv.text_input(key="qkv.text").value == "犬 が 犬"
    for name in ("X", "W_Q", "W_K", "W_V"):
        np.testing.assert_array_equal(after.mats[name], before.mats[name])


def test_k13_query_clamped_when_sentence_shrinks(qkv):
    ok(qkv.text_input(key="qkv.text").input("a b c d e").run())
    ok(qkv.selectbox(key="qkv.query").set_value(4).run())
    assert state(qkv).query == 4
    ok(qkv.text_input(key="qkv.text").input("a b c").run())
    assert state(qkv).query == 2
    assert qkv.selectbox(key="qkv.query").value == 2
    assert JA["notice.query_clamped"].format(asked=5, used=3) in texts(qkv.warning)
    # an in-range choice is kept when the range grows
    ok(qkv.text_input(key="qkv.text").input("a b c d e f").run())
    assert state(qkv).query == 2


def test_share_link_reproduces_the_lesson(qkv):
    ok(qkv.slider(key="qkv.dk").set_value(6).run())
    ok(qkv.text_input(key="qkv.text").input("犬 が 犬").run())
    ok(the_cell_slider(qkv, "qkv.cell").set_value(-1.3).run())
    ok(qkv.selectbox(key="qkv.query").set_value(2).run())
    s = state(qkv)
    link = dict(qkv.query_params)
    assert link.get("dk") == "6" and link.get("t") == "犬 が 犬" and link.get("q") == "2" and "X" in link
    # a new session opens the link on the Q·K·V page
    other = ok(fresh(**link).switch_page("lesson_pages/qkv.py").run())
    t = state(other)
    assert not other.warning
    for f in ("preset", "text", "d_model", "d_k", "d_v", "seed", "mode", "query"):
        assert getattr(t, f) == getattr(s, f), f
    for name in ("X", "W_Q", "W_K", "W_V"):
        assert np.array_equal(t.mats[name], s.mats[name]), name
    assert t.mats["X"][0, 0] == -1.3


def test_share_link_of_an_empty_sentence(qkv):
    ok(qkv.text_input(key="qkv.text").input("").run())
    link = dict(qkv.query_params)
    assert link.get("t") == ""
    other = ok(fresh(**link).switch_page("lesson_pages/qkv.py").run())
    assert state(other).text == "" and state(other).n == 0
    assert JA["tokens.no_tokens"] in texts(other.info)


def test_language_change_keeps_the_lesson(qkv):
    ok(qkv.slider(key="qkv.dk").set_value(3).run())
    ok(qkv.text_input(key="qkv.text").input("犬 が 犬").run())
    before = state(qkv)
    ok(qkv.radio(key="lang").set_value("en").run())
    assert texts(qkv.title) == [EN["qkv.title"]]
    after = state(qkv)
    assert after.d_k == 3 and after.tokens == ("犬", "が", "犬")
    assert qkv.slider(key="qkv.dk").value == 3
    for name in ("X", "W_Q", "W_K", "W_V"):
        np.testing.assert_array_equal(after.mats[name], before.mats[name])


# ------------------------------------------------------------------------------------- URL query params
def test_url_sets_the_lesson(served):
    at = ok(fresh(dk="7", t="犬 が 犬", q="1", lang="en").switch_page("lesson_pages/qkv.py").run())
    s = state(at)
    assert s.d_k == 7 and s.tokens == ("犬", "が", "犬") and s.query == 1
    assert at.slider(key="qkv.dk").value == 7
    assert texts(at.title) == [EN["qkv.title"]]
    assert not at.warning


def test_url_direct_mode_and_matrix(served):
    q = "3x2:0,1,1,0,2,2"  # rows A, B, C
    at = ok(fresh(p="direct3", m="direct", Q=q, dk="2").switch_page("lesson_pages/qkv.py").run())
    s = state(at)
    assert s.preset == "direct3" and s.mode == "direct"
    np.testing.assert_array_equal(s.mats["Q"], [[0, 1], [1, 0], [2, 2]])
    assert not at.warning


def test_hostile_dk_in_url_gives_warning_and_default(served):
    at = fresh(dk="999")
    at.switch_page("lesson_pages/qkv.py").run()
    ok(at)
    assert state(at).d_k == 5
    assert at.slider(key="qkv.dk").value == 5
    assert len(at.warning) == 1 and "dk" in at.warning[0].value and "999" in at.warning[0].value


def test_a_notice_stays_through_reruns_that_change_nothing_and_goes_with_the_next_change(served):
    """Issue 20: a rerun that changes nothing (here: run again; in the browser a grid's restart) wiped a notice
    before it could be read. It stays until the state changes, and a page opened again starts without it."""
    at = ok(fresh(dk="999").switch_page("lesson_pages/qkv.py").run())
    said = [w.value for w in at.warning if "999" in w.value]
    assert len(said) == 1
    ok(at.run())
    assert [w.value for w in at.warning if "999" in w.value] == said  # a rerun with the same state: still there
    ok(at.slider(key="qkv.dk").set_value(3).run())
    assert not [w for w in at.warning if "999" in w.value]  # the state changed: gone
    at = ok(fresh(dk="999").switch_page("lesson_pages/qkv.py").run())
    ok(at.switch_page("lesson_pages/scaling.py").run())
    ok(at.switch_page("lesson_pages/qkv.py").run())
    assert not [w for w in at.warning if "999" in w.value]  # left and opened again: gone


def test_unknown_version_in_url(served):
    at = ok(fresh(v="2", dk="7").switch_page("lesson_pages/qkv.py").run())
    assert state(at).d_k == 5
    assert JA["notice.link_version"].format(v="2") in texts(at.warning)


def test_another_lessons_link_is_not_read_here(served):
    """The scaling lesson's link opened on this page: its dk and q are not this page's (issue 7)."""
    at = ok(fresh(scaling="2", dk="4", q="2", s1="1").switch_page("lesson_pages/qkv.py").run())
    s = state(at)
    assert s.d_k == 5 and s.query == 0
    title = JA["lesson.scaling.title"].replace("_", r"\_")  # Markdown-escaped: shown as d_k
    assert JA["notice.other_lesson"].format(lesson=title) in texts(at.warning)
    assert len(at.warning) == 1


def test_unknown_keys_and_html_in_url(served):
    at = ok(fresh(foo="<b>x</b>", t="<script>alert(1)</script> 犬").switch_page("lesson_pages/qkv.py").run())
    assert state(at).tokens == ("<script>alert(1)</script>", "犬")
    assert JA["notice.unknown_keys"].format(keys="foo") in texts(at.warning)


def test_unknown_language_in_url(served):
    at = ok(fresh(lang="xx").switch_page("lesson_pages/qkv.py").run())
    assert texts(at.title) == [JA["qkv.title"]]
    assert JA["notice.bad_lang"].format(value="xx") in texts(at.warning)


def test_deep_link_first_request_runs_inside_the_frame():
    at = fresh(dk="7")
    at.switch_page("lesson_pages/qkv.py").run()
    ok(at)
    assert state(at).d_k == 7
    assert "lang" in widget_keys(at.radio)


# ------------------------------------------------------------------------------------------- share panel
def test_share_panel_shows_the_link_only_while_open_and_then_the_current_one(qkv):
    """Closed, the panel holds no link (one drawn earlier could be stale after a fragment rerun); opened, it
    shows the link of the current state."""
    assert not qkv.sidebar.code
    ok(qkv.slider(key="qkv.dk").set_value(6).run())
    qkv.session_state["frame.share"] = True  # what opening the panel does (it reruns the app)
    ok(qkv.run())
    (code,) = qkv.sidebar.code
    query = code.value.split("?", 1)[1]
    params = dict(parse_qsl(query))
    assert params["lang"] == "ja" and params["qkv"] == "2" and params["dk"] == "6" and params["p"] == "dog"
    assert list(params)[:2] == ["lang", "qkv"]  # the frame's language, then the lesson's envelope
    others = [x.key for x in lessons.REGISTRY if x.key != "qkv"]
    decoded, notes = L.LESSON.decode(params, others)
    assert notes == [] and L.LESSON.encode(decoded) == L.LESSON.encode(state(qkv))


def _query_table(at) -> dict[str, list[str]]:
    (tbl,) = [x for x in map(markdown_table, texts(at.markdown)) if x and JA["query.tbl.weight"] in x]
    return tbl


def test_query_table_brackets_negative_factors_and_never_shows_a_tiny_exp_as_zero(qkv):
    # W_Q[0,0] = -2, X_犬 = [1,0,0,1]: q_犬 = W_Q row 1 + W_Q row 4 = [-2,2,0,0,0] + [1,0,0,1,0] = [-1,2,0,1,0];
    # k_犬 = [2,2,0,1,0]; q·k = -2 + 4 + 0 + 1 + 0 = 3.
    qkv.session_state["qkv:state"] = L.with_cell(state(qkv), "W_Q", 0, 0, -2.0)
    tbl = _query_table(ok(qkv.run()))
    assert tbl[JA["query.tbl.products"]][0] == "(−1)×2 + 2×2 + 0×0 + 1×1 + 0×0"
    assert tbl[JA["query.tbl.score"]][0] == "3"
    # W_Q[0,0] = 100: q_犬 = [101, 2, 0, 1, 0]; scores 207, 0, 1; ÷√5; e^(s - max) for が = e^(-207/√5).
    qkv.session_state["qkv:state"] = L.with_cell(state(qkv), "W_Q", 0, 0, 100.0)
    tbl = _query_table(ok(qkv.run()))
    tiny = math.exp(-207 / math.sqrt(5))
    assert tiny < 1e-30  # not 0, far below what 3 decimals show: "<0.001" (ui.numbers.prob), never "e" notation
    assert tbl[JA["query.tbl.exp"]][1:] == ["<0.001", "<0.001"]
    # weights 1 − (tiny + e^(−206/√5)) < 1 but within 1e-30 of it: ">99.9%", and the tiny two "<0.1%"
    assert tbl[JA["query.tbl.weight"]] == [">99.9%", "<0.1%", "<0.1%"]
    assert JA["qkv.note.dog"] not in texts(qkv.info)  # the preset's note is about its own numbers


def test_query_table_with_the_causal_mask_keeps_the_division_and_shows_the_mask_apart(qkv):
    # 犬が歩く, query 犬 (the first token): scores 9, 0, 1 (the seed's printed table); ÷√5 = 4.025, 0, 0.447 whatever
    # the mask; the causal mask then hides が and 歩く (they come after 犬): −∞, and 犬 takes all the weight.
    qkv.session_state["qkv:state"] = dataclasses.replace(state(qkv), causal=True, query=0)
    tbl = _query_table(ok(qkv.run()))
    assert tbl[JA["query.tbl.score"]] == ["9", "0", "1"]
    assert tbl[JA["query.tbl.scaled"]] == ["4.025", "0", "0.447"]
    assert tbl[JA["query.tbl.masked"]] == ["4.025", "−∞", "−∞"]
    assert tbl[JA["query.tbl.weight"]] == ["100%", "0%", "0%"]
    qkv.session_state["qkv:state"] = dataclasses.replace(state(qkv), causal=False)
    assert JA["query.tbl.masked"] not in _query_table(ok(qkv.run()))
