"""AppTest for lesson_pages/scaling.py: the page runs without an exception, and each control changes what it should.

Expected shares are worked by hand: default scores [8, 2, -4] at d_k = 64 → ÷8 → [1, 0.25, -0.5] → 59.0 %,
27.9 %, 13.2 %; at d_k = 1 (or undivided) softmax([8, 2, -4]) = [0.997521, 0.002473, 0.000006] → 99.8 %, 0.2 %,
0.0 %; at d_k = 4 → ÷2 → [4, 1, -2]: e^-3 = 0.049787, e^-6 = 0.002479, sum 1.052266 → 95.0 %, 4.7 %, 0.2 %;
issue #3's softmax([2, 1, 0.1]) = [0.659001, 0.242433, 0.098566] → 65.9 %, 24.2 %, 9.9 %.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import lessons

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def open_page(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    if "lang" in query:  # the frame reads ?lang= into this key; set it directly (AppTest runs the frame too)
        at.session_state["lang"] = query["lang"]
    at.switch_page("lesson_pages/scaling.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shares(at) -> str:
    """The big line of section ①: "注目の割合：…" / "Shares of attention: …"."""
    found = [m.value for m in at.markdown if m.value.startswith("### ") and "100%" in m.value]
    assert len(found) == 1, found
    return found[0]


def temperature_line(at) -> str:
    found = [m.value for m in at.markdown if m.value.startswith("### T = ")]
    assert len(found) == 1
    return found[0]


def params(at) -> dict:
    return at.session_state["_share_params"]


def rerun(at):
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture(scope="module")
def fresh():
    return open_page


def test_default_page(fresh):
    at = fresh()
    assert at.title[0].value == "スケーリングとソフトマックス"
    s = shares(at)
    assert "犬の図鑑 59.0%" in s and "料理の本 27.9%" in s and "星空の本 13.2%" in s
    assert params(at)["dk"] == "64" and params(at)["sc"] == "1"
    # the variance lab prints the measured variances: within 5 % of d_k = 64 and of 1
    metrics = {m.label: float(m.value) for m in at.metric}
    assert abs(metrics["分散（割らない）"] - 64) <= 0.05 * 64
    assert abs(metrics["分散（÷√d_k）"] - 1) <= 0.05
    assert not at.warning


def test_dk_slider_changes_the_shares_and_the_variance(fresh):
    at = fresh()
    at.select_slider(key="scaling.dk").set_value(4)
    rerun(at)
    assert "95.0%" in shares(at) and "4.7%" in shares(at)
    assert params(at)["dk"] == "4"
    metrics = {m.label: float(m.value) for m in at.metric}
    assert abs(metrics["分散（割らない）"] - 4) <= 0.05 * 4
    at.select_slider(key="scaling.dk").set_value(1)
    rerun(at)
    assert "犬の図鑑 99.8%" in shares(at)
    at.select_slider(key="scaling.dk").set_value(512)
    rerun(at)
    metrics = {m.label: float(m.value) for m in at.metric}
    assert abs(metrics["分散（割らない）"] - 512) <= 0.05 * 512


def test_scaling_switch_at_dk_64(fresh):
    at = fresh()
    at.toggle(key="scaling.scale").set_value(False)
    rerun(at)
    assert "犬の図鑑 99.8%" in shares(at) and "料理の本 0.2%" in shares(at)
    assert params(at)["sc"] == "0"
    assert at.warning  # "nearly all attention goes to one book"
    at.toggle(key="scaling.scale").set_value(True)
    rerun(at)
    assert "59.0%" in shares(at)


def test_score_sliders(fresh):
    at = fresh(dk="1")
    for i, v in enumerate((2.0, 1.0, 0.1)):
        at.slider(key=f"scaling.score.{i}").set_value(v)
        rerun(at)
    s = shares(at)
    assert "65.9%" in s and "24.2%" in s and "9.9%" in s
    assert (params(at)["s1"], params(at)["s2"], params(at)["s3"]) == ("2", "1", "0.1")


def test_temperature_slider(fresh):
    at = fresh()
    assert "99.8%" in temperature_line(at)  # T = 1 on the raw scores [8, 2, -4]
    at.select_slider(key="scaling.T").set_value(8.0)  # T = √64: the same shares as ① with dividing on
    rerun(at)
    assert "59.0%" in temperature_line(at) and "27.9%" in temperature_line(at)
    assert params(at)["T"] == "8"
    at.select_slider(key="scaling.T").set_value(20.0)
    rerun(at)
    # [8, 2, -4] / 20 = [0.4, 0.1, -0.2]: e^0.4 = 1.491825, e^0.1 = 1.105171, e^-0.2 = 0.818731 → 43.7 %, 32.4 %,
    # 24.0 % (sum 3.415727): heading for a third each
    assert "43.7%" in temperature_line(at) and "24.0%" in temperature_line(at)


def test_n_keys_and_seed(fresh):
    at = fresh()
    before = {m.label: m.value for m in at.metric}
    at.slider(key="scaling.n").set_value(16)
    rerun(at)
    assert params(at)["n"] == "16"
    at.number_input(key="scaling.seed").set_value(7)
    rerun(at)
    assert params(at)["seed"] == "7"
    after = {m.label: m.value for m in at.metric}
    assert after != before  # new random draws, new measured variances


def test_titles_values_and_query_are_shown_as_text(fresh):
    at = fresh()
    at.text_input(key="scaling.title.1").set_value("<b>**数学**</b>")
    rerun(at)
    s = shares(at)
    # escaped by the one Markdown escaper of every page (ui.escape.markdown: every ASCII punctuation character):
    # shown as typed, not bold, not HTML
    assert r"\<b\>\*\*数学\*\*\<\/b\> 27.9%" in s
    assert params(at)["t2"] == "<b>**数学**</b>"
    at.number_input(key="scaling.value.2.0").set_value(4.0)
    rerun(at)
    assert params(at)["b3"] == "4,0,5"
    at.text_input(key="scaling.query").set_value("猫の本")
    rerun(at)
    assert params(at)["q"] == "猫の本"
    at.text_input(key="scaling.title.1").set_value("")  # empty: the default title again
    rerun(at)
    assert "料理の本 27.9%" in shares(at) and "t2" not in params(at)


def test_shared_link_round_trip_in_english(fresh):
    link = {"lang": "en", "v": "1", "s1": "2", "s2": "1", "s3": "0.1", "dk": "1", "sc": "1", "T": "2", "n": "4",
            "seed": "3", "t1": "吾輩は猫である", "b2": "1,2,3"}
    at = fresh(**link)
    assert at.title[0].value == "Scaling and softmax"
    assert "吾輩は猫である 65.9%" in shares(at) and "Cookbook 24.2%" in shares(at)
    # the page's own link: the same setup, re-shared in version 2 (the envelope instead of v=1), values and
    # titles only where they differ from the defaults
    assert params(at) == {"scaling": "2", "s1": "2", "s2": "1", "s3": "0.1", "dk": "1", "sc": "1", "T": "2",
                          "n": "4", "seed": "3", "b2": "1,2,3", "t1": "吾輩は猫である"}
    assert at.text_input(key="scaling.title.0").value == "吾輩は猫である"
    assert at.number_input(key="scaling.value.1.2").value == 3.0


def test_bad_link_gives_defaults_and_notices(fresh):
    at = fresh(s1="abc", dk="1024", b1="1,2", t1="x" * 300, zz="1")
    assert "59.0%" in shares(at)
    texts = [w.value for w in at.warning]
    assert len(texts) == 5, texts  # s1, dk, b1, t1 (too long), zz (unknown)
    assert any("1" in w and "512" in w for w in texts if "dk" in w)  # the bounds it must be within
    assert any("s1" in w for w in texts) and any("dk" in w for w in texts) and any("zz" in w for w in texts)


def test_the_qkv_lessons_link_is_not_read_here(fresh):
    """Issue 7: opened with Q·K·V's parameters, the page said "wrong format for dk (7)" and its query text became
    "2". Now it says the link is another lesson's and opens its own starting state."""
    at = fresh(qkv="2", p="dog", dm="4", dk="7", dv="4", s="0", m="xw", q="2")
    assert "59.0%" in shares(at)
    assert at.text_input(key="scaling.query").value != "2"
    assert at.session_state["scaling:state"] == lessons.scaling.default_state()
    texts = [w.value for w in at.warning]
    assert len(texts) == 1 and "Q·K·V" in texts[0], texts


def test_language_switch_keeps_the_state(fresh):
    at = fresh()
    at.select_slider(key="scaling.dk").set_value(4)
    rerun(at)
    at.session_state["lang"] = "en"
    rerun(at)
    assert at.title[0].value == "Scaling and softmax"
    assert "Dog encyclopedia 95.0%" in shares(at)
    assert at.text_input(key="scaling.title.0").value == "Dog encyclopedia"
