"""A lesson's state saved as a file and loaded back (lessons/state_file.py, issue 25 §3), for every registered lesson:
the loaded state shows the same numbers as the saved one, and a wrong, cut, hostile or oversized file is refused
whole with its reason (the state it would have replaced is untouched: load returns nothing then)."""
from __future__ import annotations

import json

import numpy as np
import pytest

import lessons
from lessons import state_file as sf

REGISTRY = list(lessons.REGISTRY)


def _states(lesson):
    """The lesson's default state, its fullest (``widest``) and each after its declared edit (``one_edit``)."""
    out = [("default", lesson.default_state())]
    if lesson.widest:
        out.append(("widest", lesson.widest()))
    if lesson.one_edit:
        out += [(f"{name}+edit", lesson.one_edit(s)) for name, s in list(out)]
    return out


def _same_arrays(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        x, y = np.asarray(a[name]), np.asarray(b[name])
        assert x.shape == y.shape, name
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), f"{name} differs after loading"


@pytest.mark.parametrize("lesson", REGISTRY, ids=[x.key for x in REGISTRY])
def test_a_saved_state_loads_back_to_the_same_numbers(lesson):
    for name, state in _states(lesson):
        data = sf.dump(lesson, state)
        body = json.loads(data)
        assert body["lesson"] == lesson.key and body["app"] == sf.APP and body["format"] == sf.FORMAT
        assert len(data) <= sf.MAX_BYTES, f"{name}: a file this app writes must be one it reads"
        loaded = sf.load(lesson, data)
        _same_arrays(lesson.arrays(state), lesson.arrays(loaded))
        assert lesson.encode(loaded) == lesson.encode(state), name


@pytest.mark.parametrize("lesson", REGISTRY, ids=[x.key for x in REGISTRY])
def test_a_file_is_named_for_its_lesson_and_written_as_readable_utf8(lesson):
    assert sf.file_name(lesson.key) == f"attention-lab_{lesson.key}_state.json"
    data = sf.dump(lesson, lesson.widest() if lesson.widest else lesson.default_state())
    text = data.decode("utf-8")
    assert "\\u" not in text, "Japanese is written as is, readable in any editor"


def _refused(lesson, data) -> sf.Unusable:
    with pytest.raises(sf.Unusable) as caught:
        sf.load(lesson, data)
    return caught.value


@pytest.mark.parametrize("lesson", REGISTRY, ids=[x.key for x in REGISTRY])
def test_a_bad_file_is_refused_whole_with_its_reason(lesson):
    good = sf.dump(lesson, lesson.widest() if lesson.widest else lesson.default_state())
    body = json.loads(good)
    other = next(x for x in REGISTRY if x.key != lesson.key)

    def with_(**kw) -> bytes:
        return json.dumps({**body, **kw}, ensure_ascii=False).encode()

    assert _refused(lesson, b"").code == "not_json"
    for end in range(len(good) // 2, len(good) // 2 + 3):  # cut anywhere, inside a Japanese character too
        assert _refused(lesson, good[:end]).code == "not_json"
    assert _refused(lesson, good[:-3]).info.get("line", 0) >= 1  # where it breaks
    assert _refused(lesson, good.replace(b'"format": 1', b'"format": NaN')).code == "not_json"
    assert _refused(lesson, b"\xff\xfe\x00garbage").code == "not_text"
    assert _refused(lesson, b"[" * 100_000 + b"]" * 100_000).code in ("not_json", "too_large")
    assert _refused(lesson, b'[1, 2, 3]').code == "not_ours"
    assert _refused(lesson, with_(app="someone-else")).code == "not_ours"
    assert _refused(lesson, with_(link=[1, 2])).code == "not_ours"
    assert _refused(lesson, with_(link={"x": 1})).code == "not_ours"
    assert _refused(lesson, with_(link={})).code == "not_ours"
    for fmt in (True, 1.0, "1", None, [1]):  # only the whole number 1 is this format (true == 1 in Python)
        assert _refused(lesson, with_(format=fmt)).code == "not_ours", fmt
    newer = _refused(lesson, with_(format=2))
    assert newer.code == "newer" and newer.info == {"format": "2"}
    wrong = _refused(lesson, with_(lesson=other.key))
    assert wrong.code == "other_lesson" and wrong.info == {"lesson": other.key}
    huge = _refused(lesson, good + b" " * (10 * 1024 * 1024))  # 10 MB
    assert huge.code == "too_large" and huge.info["size"] > sf.MAX_BYTES
    # another lesson's link inside a file that says it is this lesson's: the link reader's notices, whole refusal
    theirs = _refused(lesson, with_(link=other.encode(other.default_state())))
    assert theirs.code in ("link", "not_ours")


@pytest.mark.parametrize("lesson", REGISTRY, ids=[x.key for x in REGISTRY])
def test_a_value_the_lesson_refuses_refuses_the_file(lesson):
    """A value out of range or malformed (the lesson's own link reader says so): the file is not half-loaded."""
    params = lesson.encode(lesson.widest() if lesson.widest else lesson.default_state())
    body = {"app": sf.APP, "kind": sf.KIND, "format": sf.FORMAT, "lesson": lesson.key}
    spoilt = [k for k in params if k != lesson.link.namespace]
    if not spoilt:
        pytest.skip(f"{lesson.key}: its default link has no field to spoil")
    for key in spoilt:
        for bad in ("NaN", "1e308", "<img src=x>", "-"):
            data = json.dumps({**body, "link": {**params, key: bad}}).encode()
            try:
                loaded = sf.load(lesson, data)
            except sf.Unusable as why:
                assert why.code == "link" and why.notices, (key, bad)
            else:  # a text field may hold any text: then it is the text, as typed
                assert lesson.encode(loaded)[key] == bad, (key, bad)


def test_the_largest_link_fits_a_file():
    """The biggest state a link can hold (MAX_QUERY_CHARS characters, 3 bytes each in UTF-8, JSON's own quotes and
    keys) stays under MAX_BYTES."""
    assert sf.MAX_QUERY_CHARS * 3 + 4 * sf.MAX_PARAMS * 8 < sf.MAX_BYTES
