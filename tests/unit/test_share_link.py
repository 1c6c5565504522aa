"""Unit tests for the Q·K·V lesson's link (lessons.qkv.LESSON.encode / .decode, case K15) and for what the one
link codec (lessons.link) does for every lesson: the envelope, the limits, the matrix format.

Round trips must give back the same state exactly (float equality, not closeness), the matrices of both input
modes included. Hostile or malformed links must never raise: the bad value falls back to the default and a Notice
names it. Expected states are built with the lesson API (default_state + with_*) or written out by hand, never
copied from the codec's output.
"""
from __future__ import annotations

import math
import string
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lessons
from attention_core.tokens import MAX_TEXT_CHARS
from lessons import link
from lessons import qkv as L
from lessons.cells import CELL_LIMIT, Refusal
from ui.i18n import table

NAMES = ("X", "W_Q", "W_K", "W_V", "Q", "K", "V")
LESSON = L.LESSON
OTHERS = [x.key for x in lessons.REGISTRY if x.key != LESSON.key]  # what the page passes


def decode(params) -> tuple[L.QKVState, list]:
    return LESSON.decode(params, OTHERS)


def assert_same_state(a: L.QKVState, b: L.QKVState, names=NAMES) -> None:
    for f in ("preset", "text", "d_model", "d_k", "d_v", "seed", "mode", "query"):
        assert getattr(a, f) == getattr(b, f), f
    for name in names:
        assert a.mats[name].shape == b.mats[name].shape, name
        assert a.mats[name].dtype == np.float64
        assert np.array_equal(a.mats[name], b.mats[name]), name


def assert_lesson_same(a: L.QKVState, b: L.QKVState) -> None:
    """What a link promises: the same settings, X and W, the Q, K, V of direct mode (typed there, or what entering
    direct mode gives them), and the same numbers."""
    assert (a.causal, a.direct_edits) == (b.causal, b.direct_edits)
    carried = a.mode == "direct" or a.direct_edits
    assert_same_state(a, b, NAMES if carried else NAMES[:4])
    if a.mode == "xw":  # what the person sees on switching to direct mode
        assert_same_state(L.with_mode(a, "direct"), L.with_mode(b, "direct"))
    ra, rb = L.compute(a), L.compute(b)
    if ra is None:
        assert rb is None
    else:
        assert np.array_equal(ra.steps.weights, rb.steps.weights)
        assert np.array_equal(ra.steps.output, rb.steps.output)


def roundtrip(state: L.QKVState) -> tuple[L.QKVState, list]:
    return decode(LESSON.encode(state))


def codes(notices) -> list[str]:
    return [n.code for n in notices]


def assert_valid_state(s: L.QKVState) -> None:
    assert s.preset in L.PRESETS
    assert s.mode in ("xw", "direct")
    assert 0 <= s.seed <= L.SEED_MAX
    for d in (s.d_model, s.d_k, s.d_v):
        assert L.DIM_MIN <= d <= L.DIM_MAX
    assert 0 <= s.query <= max(s.n - 1, 0)
    assert len(s.text) <= MAX_TEXT_CHARS
    for name in NAMES:
        M = s.mats[name]
        assert M.shape == L.matrix_shape(name, s.n, s.d_model, s.d_k, s.d_v), name
        assert np.all(np.isfinite(M)) and np.all(np.abs(M) <= CELL_LIMIT), name


DEFAULT = L.default_state()
DOG_X = np.array([[1, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 1]], dtype=float)


# ------------------------------------------------------------------------------------------------ round trips
def test_default_round_trip_without_notices():
    back, notes = roundtrip(DEFAULT)
    assert notes == []
    assert_same_state(DEFAULT, back)


def test_default_link_is_short_and_starts_with_the_envelope():
    params = LESSON.encode(DEFAULT)
    assert params == {"qkv": "2", "p": "dog", "dm": "4", "dk": "5", "dv": "4", "s": "0", "m": "xw", "q": "0"}
    assert list(params)[0] == "qkv"  # the envelope first: which lesson, which version
    assert not set(params) & set(NAMES)  # unchanged matrices are left out


def test_an_edited_cell_is_written_as_a_hand_checkable_link():
    params = LESSON.encode(L.with_cell(DEFAULT, "X", 0, 0, 5.0))
    assert params["X"] == "3x4:5,0,0,1,0,0,1,0,0,1,0,1"  # 犬 [5,0,0,1], が [0,0,1,0], 歩く [0,1,0,1]
    assert not set(params) & {"W_Q", "W_K", "W_V", "Q", "K", "V"}


def test_empty_dict_gives_default():
    s, notes = decode({})
    assert notes == []
    assert_same_state(s, DEFAULT)


def test_only_lang_gives_default():
    s, notes = decode({"lang": "en"})
    assert notes == []
    assert_same_state(s, DEFAULT)


def test_duplicate_tokens_round_trip():
    s = L.with_text(DEFAULT, "犬 が 犬")
    back, notes = roundtrip(s)
    assert notes == []
    assert back.tokens == ("犬", "が", "犬")
    assert_same_state(s, back)


def test_empty_token_list_round_trip():
    s = L.with_text(DEFAULT, "")
    params = LESSON.encode(s)
    assert params["t"] == ""
    back, notes = decode(params)
    assert notes == []
    assert back.text == "" and back.tokens == ()
    assert L.compute(back) is None
    assert_same_state(s, back)


SPECIAL = [0.1, -3.75, 1e-7, 999.5, 1 / 3, -1000.0, 1000.0, 2.0 ** -30, 0.30000000000000004, -0.0]


def test_edited_matrices_round_trip_exactly():
    s = L.default_state("custom", seed=21)
    W = s.mats["W_Q"].copy()
    for k, v in enumerate(SPECIAL[: W.size]):
        W.flat[k] = v
    s = L.with_matrix(s, "W_Q", W)
    s = L.with_cell(s, "X", 0, 0, 0.1)
    s = L.with_cell(s, "X", 4, 3, -3.75)
    s = L.with_cell(s, "W_V", 3, 3, 1e-7)
    s = L.with_cell(s, "W_K", 2, 1, 999.5)
    params = LESSON.encode(s)
    assert {"X", "W_Q", "W_K", "W_V"} <= set(params)
    back, notes = decode(params)
    assert notes == []
    assert_lesson_same(s, back)
    assert back.mats["W_Q"].flat[0] == 0.1 and back.mats["W_Q"].flat[1] == -3.75
    assert back.mats["W_Q"].flat[2] == 1e-7 and back.mats["W_Q"].flat[3] == 999.5
    assert back.mats["W_Q"].flat[4] == 1 / 3


def test_direct_mode_round_trip():
    s = L.with_mode(L.default_state("dog"), "direct")
    s = L.with_cell(s, "K", 1, 0, 3.0)
    s = L.with_cell(s, "V", 2, 3, -0.125)
    back, notes = roundtrip(s)
    assert notes == []
    assert back.mode == "direct"
    assert_lesson_same(s, back)


def test_the_link_of_one_mode_keeps_the_other_modes_edits():
    """X[0,0] edited to 5, switch to direct, share, open, switch back: X[0,0] is still 5 (issue 7: it was lost)."""
    s = L.with_mode(L.with_cell(DEFAULT, "X", 0, 0, 5.0), "direct")
    params = LESSON.encode(s)
    assert params["m"] == "direct" and params["X"] == "3x4:5,0,0,1,0,0,1,0,0,1,0,1"
    back, notes = decode(params)
    assert notes == []
    assert_lesson_same(s, back)
    assert L.with_mode(back, "xw").mats["X"][0, 0] == 5.0
    # and the other way round: Q, K, V typed in direct mode survive a link shared from xw mode
    typed = L.with_mode(L.with_cell(L.with_mode(DEFAULT, "direct"), "K", 1, 0, 3.0), "xw")
    back, notes = roundtrip(typed)
    assert notes == [] and back.mode == "xw"
    assert L.with_mode(back, "direct").mats["K"][1, 0] == 3.0


def test_direct3_preset_round_trip():
    s = L.default_state("direct3")
    back, notes = roundtrip(s)
    assert notes == []
    assert_lesson_same(s, back)


def test_query_index_round_trip():
    s, _ = L.with_query(L.default_state("school"), 3)
    back, notes = roundtrip(s)
    assert notes == []
    assert back.query == 3
    assert_same_state(s, back)


def test_sizes_seed_and_text_round_trip():
    s = L.with_seed(L.default_state("custom"), 4321)
    s = L.with_sizes(s, d_model=7, d_k=16, d_v=1)
    s = L.with_text(s, "鳥 が 空 を 飛ぶ 、 鳥 が 鳴く")
    s = L.with_cell(s, "W_K", 6, 15, -999.9)
    back, notes = roundtrip(s)
    assert notes == []
    assert_lesson_same(s, back)


def test_urlencode_parse_qs_round_trip_with_japanese():
    s = L.with_text(L.default_state("dog"), "犬 が 犬 を 見る")
    s, _ = L.with_query(s, 4)
    s = L.with_cell(s, "W_Q", 1, 2, -0.5)
    url = "http://localhost:8501/qkv?" + urlencode({"lang": "ja", **LESSON.encode(s)})
    query = urlsplit(url).query
    assert "犬" not in query  # percent-encoded
    parsed = parse_qs(query, keep_blank_values=True, strict_parsing=True)
    assert all(len(v) == 1 for v in parsed.values())  # every key once
    back, notes = decode({k: v[0] for k, v in parsed.items()})
    assert notes == []
    assert back.tokens == ("犬", "が", "犬", "を", "見る")
    assert_lesson_same(s, back)


def test_urlencode_round_trip_of_empty_text():
    s = L.with_text(L.default_state("dog"), "")
    query = urlencode(LESSON.encode(s))
    parsed = parse_qs(query, keep_blank_values=True)
    back, notes = decode({k: v[-1] for k, v in parsed.items()})
    assert notes == [] and back.text == ""


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(sorted(L.PRESETS)),
    seed=st.integers(0, L.SEED_MAX),
    dk=st.integers(1, 16),
    edits=st.lists(st.tuples(st.sampled_from(NAMES), st.integers(0, 15), st.integers(0, 15),
                             st.floats(-1000, 1000, allow_nan=False, allow_subnormal=True)), max_size=6),
    words=st.lists(st.sampled_from(["犬", "が", "歩く", "<b>", "&", "=", "?", "%", "#", "a+b"]), max_size=6),
    switch=st.booleans(),
)
def test_any_edited_state_round_trips_exactly(preset, seed, dk, edits, words, switch):
    s = L.with_text(L.with_sizes(L.default_state(preset, seed), d_k=dk), " ".join(words))
    for name, i, j, v in edits:  # any matrix, of either mode: the link carries both
        r, c = s.mats[name].shape
        if i < r and j < c:
            s = L.with_cell(s, name, i, j, v)
    if switch:
        s = L.with_mode(s, "direct" if s.mode == "xw" else "xw")  # X·W may pass CELL_LIMIT: carried all the same
    query = urlencode(LESSON.encode(s))
    back, notes = decode({k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()})
    assert notes == []
    assert_lesson_same(s, back)


def test_direct_mode_beyond_the_cell_limit_round_trips():
    """X[0,0] = 1000 (allowed), then direct mode: Q = X·W_Q has 2000 in it. The page's own link must reopen the
    same numbers, in direct mode and after switching back to xw (whose link carries Q, K, V too)."""
    big = L.with_cell(DEFAULT, "X", 0, 0, 1000.0)
    for s in (L.with_mode(big, "direct"), L.with_mode(L.with_mode(big, "direct"), "xw")):
        back, notes = roundtrip(s)
        assert notes == [], notes
        assert_lesson_same(s, back)


# --------------------------------------------------------------------------- links made before the envelope
def test_a_version_1_link_still_opens_with_the_same_numbers():
    """Written as the version-1 code wrote it (v=1, no namespace): X[0,0] = 5 of 「犬が歩く」, query 3."""
    query = "v=1&p=dog&dm=4&dk=5&dv=4&s=0&m=xw&q=2&X=3x4%3A5%2C0%2C0%2C1%2C0%2C0%2C1%2C0%2C0%2C1%2C0%2C1"
    s, notes = decode(dict(parse_qsl(query, keep_blank_values=True)))
    assert notes == []
    want = DOG_X.copy()
    want[0, 0] = 5.0
    np.testing.assert_array_equal(s.mats["X"], want)
    assert s.query == 2 and (s.d_model, s.d_k, s.d_v) == (4, 5, 4)
    # 歩く's query [1,0,1,1,0] against the keys of X·W_K: 犬 [10,10,0,1,0] → 11, が → 1, 歩く → 2
    np.testing.assert_allclose(L.compute(s).steps.scores[2], [11, 1, 2], atol=1e-12)
    # re-shared, it is a version-2 link
    assert LESSON.encode(s)["qkv"] == "2" and "v" not in LESSON.encode(s)


def test_a_version_1_link_without_v_is_read_as_one():
    s, notes = decode({"dk": "7", "t": "犬 が 犬"})
    assert notes == []
    assert s.d_k == 7 and s.tokens == ("犬", "が", "犬")


# ----------------------------------------------------------------------------------- malformed and hostile
def single(params: dict) -> tuple[L.QKVState, list]:
    s, notes = decode(params)
    assert_valid_state(s)
    return s, notes


@pytest.mark.parametrize("params, v", [({"v": "2", "dk": "7"}, "2"), ({"qkv": "3", "dk": "7"}, "3"),
                                       ({"qkv": "1", "dk": "7"}, "1"), ({"qkv": "", "dk": "7"}, "")])
def test_unknown_version(params, v):
    s, notes = single(params)
    assert codes(notes) == ["link_version"] and notes[0].args == {"v": v}
    assert_same_state(s, DEFAULT)


def test_another_lessons_link_opens_the_default_with_a_notice():
    """A page never reads another lesson's parameters (issue 7: the scaling page read Q·K·V's dk and q)."""
    s, notes = single({"scaling": "2", "dk": "4", "q": "2", "s1": "1"})
    assert codes(notes) == ["other_lesson"] and notes[0].args == {"lesson": "scaling"}
    assert_same_state(s, DEFAULT)


@pytest.mark.parametrize("key, raw, reason", [
    ("dk", "abc", "not_integer"), ("dk", "7.5", "not_integer"), ("dk", "", "not_integer"), ("dk", "0", "range"),
    ("dk", "17", "range"), ("dk", "999", "range"), ("dk", "-3", "range"), ("dk", "1" * 50, "range"),
    ("dm", "0x10", "not_integer"), ("dv", "１e3", "not_integer"), ("s", "99999", "range"), ("s", "-1", "range"),
    ("q", "abc", "not_integer"), ("q", "1.0", "not_integer"),
])
def test_bad_ints_fall_back(key, raw, reason):
    """Refused, and why in words: not a whole number, or outside the field's bounds (which the notice names)."""
    s, notes = single({"qkv": "2", "p": "dog", key: raw})
    assert codes(notes) == ["bad_value"]
    assert notes[0].args["param"] == key and notes[0].args["value"] == raw[:40]
    assert notes[0].args["reason"] == reason
    if reason == "range":
        field = next(f for f in L.LESSON.link.fields if f.key == key)
        assert notes[0].args["extra"] == {"lo": str(field.lo), "hi": str(field.hi)}
    assert_same_state(s, DEFAULT)


def test_bad_int_keeps_the_good_values():
    s, notes = single({"qkv": "2", "p": "dog", "dk": "abc", "dv": "2", "t": "犬 が 犬"})
    assert codes(notes) == ["bad_value"]
    assert s.d_k == 5 and s.d_v == 2 and s.tokens == ("犬", "が", "犬")


@pytest.mark.parametrize("key, raw", [("p", "evil"), ("p", "__class__"), ("m", "sideways"), ("m", "XW")])
def test_bad_choices_fall_back(key, raw):
    s, notes = single({"qkv": "2", key: raw})
    assert codes(notes) == ["bad_value"] and notes[0].args["param"] == key
    assert_same_state(s, DEFAULT)


def test_99_by_99_shape():
    s, notes = single({"qkv": "2", "p": "dog", "W_Q": "99x99:" + ",".join(["1"] * 50)})
    assert codes(notes) == ["bad_value"]
    assert notes[0].args["param"] == "W_Q" and notes[0].args["reason"] in ("shape", "count", "too_long")
    assert_same_state(s, DEFAULT)


def test_wrong_shape_for_this_state():
    s, notes = single({"qkv": "2", "p": "dog", "W_Q": "2x2:1,2,3,4"})
    assert codes(notes) == ["bad_value"] and notes[0].args["reason"] == "shape"
    assert notes[0].args["extra"] == {"got": "2x2", "want": "4x5"}
    assert_same_state(s, DEFAULT)


def test_wrong_count():
    s, notes = single({"qkv": "2", "p": "dog", "W_Q": "4x5:1,2,3"})
    assert codes(notes) == ["bad_value"] and notes[0].args["reason"] == "count"
    assert notes[0].args["extra"] == {"got": 3, "want": 20}
    assert_same_state(s, DEFAULT)


@pytest.mark.parametrize("raw", ["", "garbage", "4x5", "4*5:1", "x:1", "4x5:" + ",".join(["a"] * 20)])
def test_bad_matrix_format(raw):
    s, notes = single({"qkv": "2", "p": "dog", "W_Q": raw})
    assert codes(notes) == ["bad_value"]
    assert_same_state(s, DEFAULT)


def test_ten_thousand_value_matrix():
    raw = "4x5:" + ",".join(["0"] * 10_000)  # ~20,000 characters
    s, notes = single({"qkv": "2", "p": "dog", "W_Q": raw})
    assert len(notes) == 1 and notes[0].code in ("link_too_long", "bad_value")
    assert_same_state(s, DEFAULT)


def test_long_single_value_keeps_the_rest_of_the_link():
    raw = "4x5:" + ",".join(["0"] * 3_500)  # 7,003 characters > MAX_VALUE_CHARS, total < MAX_QUERY_CHARS
    assert len(raw) > link.MAX_VALUE_CHARS
    s, notes = single({"qkv": "2", "p": "dog", "W_Q": raw, "dv": "2"})
    assert codes(notes) == ["bad_value"] and notes[0].args["reason"] == "too_long"
    assert notes[0].args["extra"] == {"n": len(raw), "max": link.MAX_VALUE_CHARS}
    assert s.d_v == 2
    np.testing.assert_array_equal(s.mats["W_Q"], DEFAULT.mats["W_Q"])


@pytest.mark.parametrize("bad, reason", [("nan", "not_finite"), ("NaN", "not_finite"), ("inf", "not_finite"),
                                         ("-inf", "not_finite"), ("1e400", "not_finite"), ("1e308", "too_big"),
                                         ("1000.5", "too_big"), ("0x1", "not_number"), ("1_0", "not_number")])
def test_non_finite_or_huge_values(bad, reason):
    vals = ["0"] * 20
    vals[7] = bad
    s, notes = single({"qkv": "2", "p": "dog", "W_Q": "4x5:" + ",".join(vals)})
    assert codes(notes) == ["bad_value"]
    assert notes[0].args["param"] == "W_Q" and notes[0].args["reason"] == reason
    assert_same_state(s, DEFAULT)


def test_html_in_text_is_kept_as_text():
    text = "<script>alert(1)</script> <b>犬</b>"
    s, notes = single({"qkv": "2", "p": "dog", "t": text})
    assert notes == []
    assert s.text == text
    assert s.tokens == ("<script>alert(1)</script>", "<b>犬</b>")


def test_too_long_text_falls_back_to_preset_text():
    s, notes = single({"qkv": "2", "p": "dog", "t": "犬 " * 200})
    assert codes(notes) == ["bad_value"]
    assert notes[0].args["param"] == "t" and notes[0].args["reason"] == "too_long"
    assert notes[0].args["extra"] == {"n": 400, "max": MAX_TEXT_CHARS}
    assert_same_state(s, DEFAULT)


def test_text_with_a_control_character_falls_back():
    s, notes = single({"qkv": "2", "p": "dog", "t": "犬\nが"})
    assert codes(notes) == ["bad_value"] and notes[0].args["reason"] == "control"
    assert_same_state(s, DEFAULT)


def test_unknown_keys_are_ignored_with_notice():
    s, notes = single({"qkv": "2", "p": "dog", "foo": "bar", "__proto__": "x", "dk": "6"})
    assert codes(notes) == ["unknown_keys"]
    assert notes[0].args == {"keys": "__proto__, foo"}
    assert s.d_k == 6


def test_matrix_of_the_other_mode_is_carried():
    """Q, K, V in an xw link (and W in a direct link) are the other mode's edits: kept, used after a switch."""
    q = "3x5:" + ",".join(["1"] * 15)
    s, notes = single({"qkv": "2", "p": "dog", "m": "xw", "Q": q})
    assert notes == []
    np.testing.assert_array_equal(s.mats["Q"], np.ones((3, 5)))
    assert_same_state(s, DEFAULT, ("X", "W_Q", "W_K", "W_V"))
    np.testing.assert_array_equal(L.compute(s).steps.weights, L.compute(DEFAULT).steps.weights)
    np.testing.assert_array_equal(L.with_mode(s, "direct").mats["Q"], np.ones((3, 5)))
    s, notes = single({"qkv": "2", "p": "direct3", "W_Q": "2x2:0,1,1,0"})
    assert notes == [] and s.mode == "direct"
    np.testing.assert_array_equal(s.mats["W_Q"], [[0, 1], [1, 0]])
    np.testing.assert_array_equal(L.compute(s).Q, [[1, 0], [0, 1], [1, 1]])  # direct mode: Q as given


def test_query_past_the_end_is_clamped_with_notice():
    s, notes = single({"qkv": "2", "p": "dog", "q": "99"})
    assert codes(notes) == ["query_clamped"]
    assert notes[0].args == {"asked": 100, "used": 3, "param": "q"}
    assert s.query == 2


def test_embed_keys_are_ignored_silently():
    s, notes = single({"embed": "true", "embed_options": "light_theme", "lang": "ja"})
    assert notes == []
    assert_same_state(s, DEFAULT)


def test_non_string_values_do_not_raise():
    s, notes = single({"v": 1, "dk": ["7", "8"], "t": None, 3: 4})
    assert notes  # something was wrong, and it said so
    assert s.d_k == 8 and "duplicate_keys" in codes(notes)  # a list: the values of a key given twice, the last read


def test_not_a_mapping_does_not_raise():
    s, notes = single([("dk", "7", "extra")])
    assert codes(notes) == ["link_unreadable"]
    assert_same_state(s, DEFAULT)


# ------------------------------------------------------------------ the codec's limits (lessons.link, generic)
def test_oversized_total():
    params = {"qkv": "2", "p": "dog", "dk": "7", **{f"k{i}": "x" * 1000 for i in range(25)}}
    assert sum(len(k) + len(v) for k, v in params.items()) > link.MAX_QUERY_CHARS
    s, notes = single(params)
    assert codes(notes) == ["link_too_long"]
    assert notes[0].args["max"] == link.MAX_QUERY_CHARS == 20_000
    assert_same_state(s, DEFAULT)


def test_too_many_parameters():
    params = {"qkv": "2", "dk": "7", **{f"k{i}": "1" for i in range(link.MAX_PARAMS)}}
    s, notes = single(params)
    assert codes(notes) == ["link_too_many"]
    assert notes[0].args == {"n": link.MAX_PARAMS + 2, "max": link.MAX_PARAMS}
    assert_same_state(s, DEFAULT)


def test_int_field_bounds():
    f = link.Int("dk", 1, 16)
    assert f.parse("7") == 7 and f.parse(" 7 ") == 7 and f.parse("16") == 16 and f.parse("1") == 1
    for raw, code in (("17", "range"), ("0", "range"), ("1e3", "not_integer"), ("7.0", "not_integer"),
                      ("", "not_integer"), ("0x7", "not_integer"), ("1" * 8, "range"), ("9" * 13, "range")):
        with pytest.raises(Refusal) as ei:
            f.parse(raw)
        assert ei.value.code == code, raw


@pytest.mark.parametrize("raw, used", [("3", 2), ("5", 4), ("6", 4), ("7", 8), ("12", 8), ("13", 16), ("16", 16)])
def test_an_int_between_the_allowed_values_becomes_the_nearest(raw, used):
    """Oracle: the nearest power of two by hand (3 is as near to 2 as to 4, 6 to 4 as to 8: the lower); 16 is
    allowed as it is."""
    f = link.Int("dk", 1, 16, allowed=(1, 2, 4, 8, 16))
    value, note = f.read(raw)
    assert value == used
    assert (note is None) == (raw == str(used))
    if note is not None:
        assert note.code == "rounded" and note.args == {"param": "dk", "value": raw, "used": str(used)}


@pytest.mark.parametrize("raw, used", [("0.03", 0.03), ("0.015", 0.01), ("0.07", 0.1), ("0.3", 0.3), ("0.19", 0.1)])
def test_a_decimal_between_the_allowed_values_becomes_the_nearest(raw, used):
    """Oracle by hand: of 0.003, 0.01, 0.03, 0.1, 0.3 the nearest (0.015: 0.005 from 0.01, 0.015 from 0.03; 0.19:
    0.09 from 0.1, 0.11 from 0.3); an allowed value passes unchanged, without a notice."""
    f = link.Decimal("lr", 0.001, 1.0, allowed=(0.003, 0.01, 0.03, 0.1, 0.3))
    value, note = f.read(raw)
    assert value == used
    assert (note is None) == (raw in ("0.03", "0.3"))


def test_other_refusals_say_why():
    with pytest.raises(Refusal) as ei:
        link.Choice("p", ("dog", "school")).parse("cat")
    assert (ei.value.code, ei.value.args_) == ("choice", {"choices": "dog, school"})
    with pytest.raises(Refusal) as ei:
        link.Flag("c").parse("yes")
    assert ei.value.code == "flag"
    with pytest.raises(Refusal) as ei:
        link.Decimal("lr", 0.001, 1.0).parse("2")
    assert (ei.value.code, ei.value.args_) == ("range", {"lo": "0.001", "hi": "1"})
    with pytest.raises(Refusal) as ei:
        link.Decimal("lr", 0.001, 1.0).parse("fast")
    assert (ei.value.code, ei.value.args_) == ("not_number", {"value": "fast"})


def test_encode_matrix_shortest_round_trip_decimals():
    M = np.array([[0.1, -3.75], [1e-7, 999.5]])
    text = link.encode_matrix(M)
    assert text == "2x2:0.1,-3.75,1e-07,999.5"
    back = link.Matrix("W").parse_shaped(text, (2, 2))
    assert np.array_equal(back, M)
    assert all(math.isfinite(v) for v in back.ravel())
    assert link.encode_matrix(np.array([[-0.0, 3.0]])) == "1x2:0,3"  # no "-0", no "3.0"


def test_write_puts_the_envelope_first_and_refuses_unknown_fields():
    params = link.write(LESSON.link, {"q": 1, "dk": 7})
    assert list(params.items()) == [("qkv", "2"), ("dk", "7"), ("q", "1")]  # schema order, not call order
    with pytest.raises(KeyError):
        link.write(LESSON.link, {"zz": 1})


# ---------------------------------------------------------------------- every notice can be shown in words
def _fields(text: str) -> set[str]:
    return {f.split(".")[0].split("[")[0] for _, f, _, _ in string.Formatter().parse(text) if f}


HOSTILE = [
    {"v": "2"}, {"qkv": "7"}, {"scaling": "2"}, {"dk": "x"}, {"W_Q": "99x99:1"},
    {"W_Q": "4x5:" + ",".join(["nan"] * 20)}, {"W_Q": "4x5:" + ",".join(["1e308"] * 20)}, {"W_Q": "4x5:1"},
    {"W_Q": "4x5"}, {"W_Q": "x" * 7000}, {"W_Q": "4x5:" + ",".join(["a"] * 20)}, {"k": "x" * 30000},
    {f"k{i}": "1" for i in range(150)}, {"t": "a" * 400}, {"t": "a\x01b"}, {"foo": "1"}, {"q": "50"},
    {"p": "nope"}, {"m": "??"}, {"s": "-4"},
]


@pytest.mark.parametrize("params", HOSTILE, ids=range(len(HOSTILE)))
def test_every_notice_has_words_in_both_languages(params):
    _, notes = decode(params)
    assert notes
    for n in notes:
        for lang in ("ja", "en"):
            tab = table(lang)
            key = f"notice.{n.code}"
            assert key in tab, key
            args = dict(n.args)
            if n.code in ("bad_value", "rounded"):
                args["name"] = tab.get(f"qkv.link.{args['param']}", args["param"])
            if n.code == "bad_value":
                reason_key = f"reason.{args['reason']}"
                assert reason_key in tab, reason_key
                assert _fields(tab[reason_key]) <= set(args.get("extra", {})), reason_key
            if n.code == "other_lesson":
                assert f"lesson.{args['lesson']}.title" in tab
            assert _fields(tab[key]) <= set(args), (key, args)


# --------------------------------------------------------------------------------- never raises (fuzzing)
KEYS = ["qkv", "scaling", "v", "p", "t", "dm", "dk", "dv", "s", "m", "q", "lang", "embed", *NAMES]
matrix_text = st.builds(
    lambda r, c, vals: f"{r}x{c}:" + ",".join(vals),
    st.integers(0, 99), st.integers(0, 99),
    st.lists(st.one_of(st.floats().map(repr), st.sampled_from(["nan", "inf", "", "1e999", "-0", "1_0", "٣"]),
                       st.text(max_size=4)), max_size=30),
)
values = st.one_of(st.text(max_size=30), st.integers(-10**6, 10**6).map(str), matrix_text,
                   st.sampled_from(["1", "2", "xw", "direct", "dog", "custom", "school", "direct3", "", " 3 "]))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=8)), values, max_size=12))
def test_decode_never_raises_and_gives_valid_state(params):
    s, notes = decode(params)
    assert_valid_state(s)
    assert all(isinstance(n, link.Notice) for n in notes)
    tab = table("ja")
    for n in notes:
        assert f"notice.{n.code}" in tab


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(max_size=5), st.text(max_size=50), max_size=6))
def test_decode_arbitrary_text_dicts(params):
    s, _ = decode(params)
    assert_valid_state(s)


def test_a_version_1_link_of_another_lesson_is_recognised_by_its_keys():
    """The issue-7 reproduction with a version-1 link: Q·K·V's parameters on the scaling page."""
    scaling = lessons.by_key("scaling")
    state, notes = scaling.decode({"v": "1", "p": "dog", "dm": "4", "dk": "7", "dv": "4", "s": "0", "m": "xw",
                                   "q": "2"})
    assert [(n.code, n.args) for n in notes] == [("other_lesson", {"lesson": "qkv"})]
    assert state.query == "" and state.d_k == 64
    back, notes = LESSON.decode({"v": "1", "s1": "3", "dk": "64", "sc": "1", "T": "1"})
    assert [(n.code, n.args) for n in notes] == [("other_lesson", {"lesson": "scaling"})]


def test_a_direct_edit_back_to_the_projection_keeps_its_flag_in_the_link():
    """Found by the property above: after a new sentence Q held 1.3e-17 where X·W now gives 0 (another product
    order); a direct-mode edit of that cell to 0 set the edits' flag, but the link, writing only matrices that differ
    from the baseline, dropped Q and reopened without the flag (so entering direct mode started Q afresh)."""
    s = L.with_text(L.with_sizes(L.default_state("custom", 420), d_k=1), "が")
    s = L.with_cell(s, "Q", 0, 0, 0.0)
    assert s.direct_edits
    back, notes = roundtrip(s)
    assert notes == [] and back.direct_edits
    assert_lesson_same(s, back)
