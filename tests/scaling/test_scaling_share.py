"""attention_core.scaling_lesson: the lesson state and its share link (URL query parameters).

Round trips (Japanese titles, HTML in a title, every bound), malformed and oversized values (→ defaults + notices,
never an exception), and the notices' texts in both languages (every placeholder filled, none called "key" or
"lang", which t() itself uses)."""
from __future__ import annotations

import string
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_core import scaling_lesson as SL
from attention_core.share import Notice
from ui.i18n import LANGS, t

DEFAULT = SL.default_state()


def codes(notes):
    return [n.code for n in notes]


def test_default_round_trip_and_empty_link():
    assert SL.decode({}) == (DEFAULT, [])
    assert SL.decode({"lang": "en"}) == (DEFAULT, [])
    assert SL.decode(SL.encode(DEFAULT)) == (DEFAULT, [])


def test_default_link_is_short_and_complete():
    p = SL.encode(DEFAULT)
    assert p == {"v": "1", "s1": "8", "s2": "2", "s3": "-4", "dk": "64", "sc": "1", "T": "1", "n": "8", "seed": "0"}


def test_full_round_trip_with_japanese_and_html():
    s = SL.ScalingState(scores=(-10.0, 10.0, 0.3), d_k=512, scaled=False, temperature=0.05, n_keys=32, seed=9999,
                        values=((-10.0, 0.5, 10.0), (1.25, -3.0, 0.0), (0.0, 0.0, 0.1)),
                        titles=("吾輩は猫である", "<b>太字</b><script>alert(1)</script>", "a & b \"c\" 'd'"),
                        query="犬の散歩 😀 のコツ")
    p = SL.encode(s)
    assert p["t2"] == "<b>太字</b><script>alert(1)</script>"  # kept as typed; the UI escapes it when drawing
    back, notes = SL.decode(p)
    assert notes == []
    assert back == s


def test_titles_and_values_only_when_changed():
    s = SL.with_value(SL.with_title(DEFAULT, 1, "数学の本"), 2, 0, 2.5)
    p = SL.encode(s)
    assert p["t2"] == "数学の本" and "t1" not in p and "t3" not in p and "q" not in p
    assert p["b3"] == "2.5,0,5" and "b1" not in p and "b2" not in p


def test_with_title_default_and_limits():
    s = SL.with_title(DEFAULT, 0, "  犬の図鑑 ", default="犬の図鑑")
    assert s.titles[0] == ""  # typing the language's default title stores "no custom title"
    s = SL.with_title(DEFAULT, 0, "", default="犬の図鑑")
    assert s.titles[0] == ""
    s = SL.with_title(DEFAULT, 0, "x" * 100)
    assert s.titles[0] == "x" * SL.MAX_TITLE_CHARS
    s = SL.with_title(DEFAULT, 0, "a\nb\tc")
    assert s.titles[0] == "abc"
    assert SL.with_query(DEFAULT, "<i>猫</i>").query == "<i>猫</i>"


def test_with_score_clamps_and_snaps():
    assert SL.with_score(DEFAULT, 0, 10.7).scores[0] == 10.0
    assert SL.with_score(DEFAULT, 0, -99).scores[0] == -10.0
    assert SL.with_score(DEFAULT, 1, 0.1 + 0.2).scores[1] == 0.3
    assert SL.with_value(DEFAULT, 0, 0, 50).values[0][0] == 10.0
    with pytest.raises(ValueError):
        SL.with_value(DEFAULT, 0, 0, float("nan"))


def test_state_refuses_out_of_bounds_values():
    for bad in (dict(d_k=3), dict(scaled=1), dict(temperature=0.04), dict(n_keys=1), dict(seed=10_000),
                dict(scores=(1.0, 2.0)), dict(scores=(1.0, 2.0, 11.0)), dict(scores=(1.0, 2.0, 0.05)),
                dict(titles=("x" * 41, "", "")), dict(values=((1.0, 2.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))),
                dict(query=None)):
        with pytest.raises(ValueError):
            replace(DEFAULT, **bad)


@pytest.mark.parametrize("key,value,code", [
    ("s1", "abc", "scaling_invalid"),
    ("s1", "10.5", "scaling_invalid"),
    ("s2", "nan", "scaling_invalid"),
    ("s3", "1e999", "scaling_invalid"),
    ("s1", "", "scaling_invalid"),
    ("dk", "5", "scaling_invalid"),
    ("dk", "1024", "scaling_invalid"),
    ("dk", "64.0", "scaling_invalid"),
    ("dk", "-64", "scaling_invalid"),
    ("sc", "yes", "scaling_invalid"),
    ("T", "0.04", "scaling_invalid"),
    ("T", "inf", "scaling_invalid"),
    ("n", "1", "scaling_invalid"),
    ("n", "33", "scaling_invalid"),
    ("seed", "-1", "scaling_invalid"),
    ("seed", "99999999999", "scaling_invalid"),
    ("b1", "1,2", "scaling_count"),
    ("b1", "1,2,3,4", "scaling_count"),
    ("b2", "1,x,2", "scaling_not_number"),
    ("b2", "nan,1,1", "scaling_not_number"),
    ("b3", "1,2,11", "scaling_too_big"),
    ("t1", "x" * 41, "scaling_too_long"),
    ("t2", "a\nb", "scaling_invalid"),
    ("q", "y" * 41, "scaling_too_long"),
    ("t3", "z" * 500, "scaling_too_long"),
])
def test_bad_value_falls_back_to_default_with_notice(key, value, code):
    state, notes = SL.decode({**SL.encode(DEFAULT), key: value})
    assert state == DEFAULT
    assert codes(notes) == [code]
    assert notes[0].args["param"] == key


def test_other_values_survive_a_bad_one():
    state, notes = SL.decode({"s1": "oops", "s2": "-3.5", "dk": "4", "t1": "<b>本</b>"})
    assert state.scores == (8.0, -3.5, -4.0) and state.d_k == 4 and state.titles[0] == "<b>本</b>"
    assert codes(notes) == ["scaling_invalid"]


def test_off_grid_score_is_rounded_with_a_notice():
    state, notes = SL.decode({"s1": "1.23"})
    assert state.scores[0] == 1.2
    assert notes == [Notice("scaling_rounded", {"param": "s1", "value": "1.23", "used": "1.2"})]


def test_whole_link_limits():
    state, notes = SL.decode({"t1": "x" * 30, "zz": "y" * 2000})
    assert state == DEFAULT and codes(notes) == ["link_too_long"]
    state, notes = SL.decode({"v": "2", "dk": "4"})
    assert state == DEFAULT and codes(notes) == ["link_version"]
    state, notes = SL.decode({"dk": "4", "zz": "1", "p": "dog"})
    assert state.d_k == 4 and codes(notes) == ["unknown_keys"]
    assert notes[0].args["keys"] == "p, zz"


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(sorted(SL.KNOWN_KEYS | {"lang", "zz"})) | st.text(max_size=5),
                       st.text(max_size=60), max_size=12))
def test_decode_never_raises(params):
    state, notes = SL.decode(params)
    assert isinstance(state, SL.ScalingState)
    assert all(isinstance(n, Notice) for n in notes)


score = st.integers(-100, 100).map(lambda k: round(k * 0.1, 6) + 0.0)
value = st.floats(-10, 10, allow_nan=False).map(lambda v: v + 0.0)
title = st.text(st.characters(min_codepoint=32, exclude_categories=("Cs", "Cc")), max_size=40).map(str.strip)


@settings(max_examples=100, deadline=None)
@given(st.tuples(score, score, score), st.sampled_from((1, 2, 4, 8, 16, 32, 64, 128, 256, 512)), st.booleans(),
       st.sampled_from(SL.TEMPERATURES), st.integers(SL.N_KEYS_MIN, SL.N_KEYS_MAX), st.integers(0, SL.SEED_MAX),
       st.tuples(*[st.tuples(value, value, value)] * 3), st.tuples(title, title, title), title)
def test_round_trip_any_state(scores, d_k, scaled, T, n, seed, values, titles, query):
    s = SL.ScalingState(scores=scores, d_k=d_k, scaled=scaled, temperature=T, n_keys=n, seed=seed, values=values,
                        titles=titles, query=query)
    assert SL.decode(SL.encode(s)) == (s, [])


# ---- the notices in words ----------------------------------------------------------------------------------------
SAMPLE_LINKS = [{"s1": "abc"}, {"b1": "1,2"}, {"b2": "1,x,2"}, {"b3": "1,2,11"}, {"t1": "x" * 41}, {"s1": "1.23"},
                {"v": "9"}, {"zz": "1"}, {"q": "q" * 3000}]


@pytest.mark.parametrize("lang", LANGS)
def test_every_notice_has_words_in_both_languages(lang):
    for link in SAMPLE_LINKS:
        _, notes = SL.decode(link)
        assert notes, link
        for n in notes:
            assert not ({"key", "lang"} & set(n.args)), n  # t(key, lang, **fmt) could not take these
            text = t(f"notice.{n.code}", lang=lang, **n.args)
            assert text != f"notice.{n.code}", n.code
            fields = {f for _, f, _, _ in string.Formatter().parse(text) if f}
            assert not fields, (n.code, text)
