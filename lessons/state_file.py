"""A lesson's whole state as a JSON file a student can save and load back (issue 25 §3), for every lesson.

The file holds the lesson's share link as its parameters, so what a file restores is exactly what the link restores
(the link codec is the lesson's one description of its state: ``Lesson.encode`` / ``Lesson.decode``), and a file is
read with every check a link gets (sizes, which lesson, which version, each field's range). A file is taken whole or
not at all: anything that cannot be used as it is (not JSON, NaN, too large, another lesson's, a value out of range,
a matrix of the wrong shape) is refused with a reason, and the page keeps its state.

Format (UTF-8 JSON, one object)::

    {"app": "attention-lab", "kind": "lesson-state", "format": 1, "lesson": "qkv",
     "link": {"qkv": "2", "t": "犬 が 歩く", ...}}

NumPy only (no Streamlit): ui/exports.py draws the buttons and says the reasons in words.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from .link import MAX_PARAMS, MAX_QUERY_CHARS

APP = "attention-lab"
KIND = "lesson-state"
FORMAT = 1
MAX_BYTES = 64 * 1024
"""The largest file read (bytes). A link holds at most MAX_QUERY_CHARS characters (20,000; up to 3 bytes each in
UTF-8, JSON escapes included rarely more): every file this app writes is smaller."""


@dataclass(frozen=True)
class Unusable(Exception):
    """Why a file was not loaded: ``code`` (a key of the ``file.*`` texts) and its arguments ``info``. ``notices``:
    for ``code == "link"``, what the lesson's link reader said of the file's values (lessons.link.Notice)."""

    code: str
    info: dict = field(default_factory=dict)
    notices: tuple = ()


def file_name(lesson_key: str) -> str:
    """The saved file's name: says the app and the lesson ("attention-lab_qkv_state.json")."""
    return f"{APP}_{lesson_key}_state.json"


def dump(lesson, state) -> bytes:
    """The state of ``lesson`` (a lessons.base.Lesson) as the file's bytes (UTF-8 JSON, Japanese written as is)."""
    body = {"app": APP, "kind": KIND, "format": FORMAT, "lesson": lesson.key, "link": lesson.encode(state)}
    return json.dumps(body, ensure_ascii=False, indent=1).encode("utf-8")


def _no_constant(name: str):
    raise ValueError(name)  # NaN, Infinity, -Infinity: not JSON, and never written by dump


def _parse(data: bytes) -> object:
    if len(data) > MAX_BYTES:
        raise Unusable("too_large", {"size": len(data), "max": MAX_BYTES})
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:  # a file cut inside a character is a JSON file cut short
        raise Unusable("not_json" if e.reason == "unexpected end of data" else "not_text") from None
    try:
        return json.loads(text, parse_constant=_no_constant)
    except ValueError as e:  # json.JSONDecodeError or a NaN / Infinity
        line = getattr(e, "lineno", None)
        raise Unusable("not_json", {"line": line} if line else {}) from None
    except RecursionError:  # thousands of nested brackets
        raise Unusable("not_json") from None


def load(lesson, data: bytes, others: Sequence | None = None):
    """The state a file written by :func:`dump` for ``lesson`` holds. ``others``: the other lessons (as for
    ``Lesson.decode``). Raises :class:`Unusable` when the file cannot be used whole: codes ``too_large`` (size, max),
    ``not_text``, ``not_json`` (line), ``not_ours`` (not an Attention Lab state file), ``newer`` (format),
    ``other_lesson`` (lesson), ``link`` (notices: a value the lesson refuses, a matrix of another shape, …)."""
    body = _parse(data)
    if not isinstance(body, dict) or body.get("app") != APP or body.get("kind") != KIND:
        raise Unusable("not_ours")
    fmt = body.get("format")
    if type(fmt) is not int:  # (not isinstance: true == 1 in Python; a bool, 1.0 or "1" is no format of ours)
        raise Unusable("not_ours")
    if fmt != FORMAT:
        raise Unusable("newer", {"format": str(fmt)[:20]})
    if body.get("lesson") != lesson.key:
        other = body.get("lesson")
        raise Unusable("other_lesson", {"lesson": other[:40] if isinstance(other, str) else "?"})
    params = body.get("link")
    if (not isinstance(params, dict) or len(params) > MAX_PARAMS
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in params.items())
            or lesson.link.namespace not in params):
        raise Unusable("not_ours")
    if sum(len(k) + len(v) for k, v in params.items()) > MAX_QUERY_CHARS:
        raise Unusable("too_large", {"size": len(data), "max": MAX_BYTES})
    state, notices = lesson.decode(params, others)
    if notices:
        raise Unusable("link", notices=tuple(notices))
    return state
