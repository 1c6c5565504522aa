"""Every link parameter of every registered lesson × every bad kind of value, one parameter at a time.

The parameters come from each lesson's link schema (``lesson.link.fields`` and ``.matrices``), so a new lesson's
link is covered without new code. The link is the lesson's own link of a far-from-default state (every field and
every matrix present), with one value replaced. What must happen is written here from the field types' documented
rules (lessons/link.py), not read from the codec:

- a value that is not one the field takes is *refused*: a notice names the parameter (``bad_value``) and says why
  in both languages, and the state keeps the field's default;
- a value that only looks odd but is one (−0 for 0, any text for a text field) is *read*, with no notice;
- every other parameter is read as it was given, or a notice names it too (a refused sentence gives another
  token count, so the matrices sized by it are refused in words);
- the lesson's numbers stay finite.

The page shows these notices: ``test_every_refused_parameter_is_named_on_screen_in_the_current_language`` opens a
link in which every parameter is bad at once, in Japanese and in English.
"""
from __future__ import annotations

import numpy as np
import pytest
from reliability_kit import APP, LESSONS, assert_clean, base_state
from streamlit.testing.v1 import AppTest

import lessons
from lessons import link
from lessons.base import CELL_KEY
from ui.i18n import LANGS, table

SCALAR_KINDS = ("empty", "whitespace", "nan", "plus_inf", "minus_inf", "huge_1e308", "minus_zero", "non_number",
                "python_number", "full_width_digits", "over_the_limit", "long_1000", "markup", "control", "unicode")
MATRIX_KINDS = ("empty", "wrong_shape", "truncated", "extra_value", "nan_cell", "inf_cell", "huge_cell",
                "minus_zero_cell", "non_number_cell", "python_number_cell", "long_1000", "markup")
MASK_KINDS = ("empty", "wrong_shape", "truncated", "not_bits", "nan_cell", "long_1000")
PLAIN = {"empty": "", "whitespace": "  \t ", "nan": "nan", "plus_inf": "inf", "minus_inf": "-inf",
         "huge_1e308": "1e308", "minus_zero": "-0", "non_number": "abc", "python_number": "1_0",
         "full_width_digits": "１２", "markup": "<b>1</b> **2** $3$", "control": "a\nb\u202e",
         "unicode": "🐕\u200b\u2060"}


def cases():
    """(lesson, field, kind) for every field of every registered lesson and every kind its type has."""
    out = []
    for lesson in lessons.REGISTRY:
        for f in lesson.link.fields:
            out += [(lesson, f, k) for k in SCALAR_KINDS]
        for m in lesson.link.matrices:
            out += [(lesson, m, k) for k in (MASK_KINDS if isinstance(m, link.Mask) else MATRIX_KINDS)]
    return out


def bad_value(f, kind: str, raw: str) -> str:
    """The text of ``kind`` for field ``f`` whose valid value in the base link is ``raw``."""
    if isinstance(f, link.Matrix):  # Matrix and Mask: "<r>x<c>:<body>"
        head, body = raw.split(":", 1)
        r, c = (int(x) for x in head.split("x"))
        mask = isinstance(f, link.Mask)
        cells = list(body) if mask else body.split(",")
        join = "".join if mask else ",".join

        def with_cell(v):
            return f"{head}:{join([v] + cells[1:])}"

        return {"empty": "", "wrong_shape": f"{r + 1}x{c}:{join(cells + cells[:c])}",
                "truncated": raw[: len(raw) // 2], "extra_value": f"{head}:{join(cells + cells[:1])}",
                "not_bits": with_cell("2"), "nan_cell": with_cell("nan"), "inf_cell": with_cell("inf"),
                "huge_cell": with_cell("1e308"), "minus_zero_cell": with_cell("-0"),
                "non_number_cell": with_cell("abc"), "python_number_cell": with_cell("1_0"),
                "long_1000": f"{head}:" + "9" * 1000, "markup": f"{head}:<b>1</b>"}[kind]
    if kind == "long_1000":
        return "あ" * 1000 if isinstance(f, link.Text) else "9" * 1000
    if kind == "over_the_limit":
        if isinstance(f, link.Int):
            return str(f.hi + 1)
        if isinstance(f, link.Decimal):
            return link.format_number(f.hi + abs(f.hi) + 1)
        if isinstance(f, link.Text):
            return "x" * (f.max_chars + 1)
        if isinstance(f, link.Vector):
            return ",".join([link.format_number(f.limit * 10)] * f.n)
        return "x" * 30  # a Choice or a Flag: a word it does not have
    return PLAIN[kind]


def expected(f, kind: str, value: str, raw: str):
    """What the field must make of ``value``: the text its link then holds (read), or None (refused)."""
    if isinstance(f, link.Matrix):
        if kind == "minus_zero_cell":
            head, body = raw.split(":", 1)
            return f"{head}:" + ",".join(["0"] + body.split(",")[1:])
        return None
    if isinstance(f, link.Text):
        if kind in ("control", "long_1000", "over_the_limit"):
            return None
        kept = value.strip(link.SPACES) if f.strip else value
        return None if value and not kept else kept  # spaces alone: refused ("blank"), not an empty value
    if kind == "minus_zero":  # −0 is 0 where 0 is a value of the field
        if isinstance(f, link.Int) and f.lo <= 0 <= f.hi and (f.allowed is None or 0 in f.allowed):
            return "0"
        if isinstance(f, link.Decimal) and f.lo <= 0 <= f.hi and (f.allowed is None or 0.0 in f.allowed):
            return "0"
    return None


def named(notes, key: str, lesson=None) -> bool:
    """A notice names parameter ``key``: its value refused or rounded (``bad_value``, ``rounded``), or changed for a
    reason the notice says in words (a query past a shorter sentence's end, a head count that does not divide
    d_model: every such notice carries the parameter it is about as ``param``), or the picked cell gone."""
    if any(n.args.get("param") == key[:20] for n in notes):
        return True
    return key == CELL_KEY and any(n.code == "cell_clamped" for n in notes)  # the picked cell gone with its row


def check_words(notes, lesson) -> None:
    """Every notice has words in both languages, every placeholder filled; a notice about one value names its
    parameter in the lesson's words (a matrix by its own name)."""
    matrices = {m.key for m in lesson.link.matrices}
    for lang in LANGS:
        tb = table(lang)
        for n in notes:
            args = dict(n.args)
            if n.code in ("bad_value", "rounded"):
                words = tb.get(f"{lesson.key}.link.{args['param']}")
                assert words or args["param"] in matrices, (lesson.key, args["param"], lang)
                args["name"] = words or args["param"]
            if n.code == "bad_value":
                assert tb[f"reason.{args['reason']}"].format(**args.pop("extra"))
                args["reason"] = "r"
            assert tb[f"notice.{n.code}"].format(**args)


@pytest.mark.parametrize("lesson, f, kind", cases(), ids=lambda x: getattr(x, "key", x))
def test_one_bad_link_parameter_is_named_and_the_rest_is_read(lesson, f, kind):
    base = lesson.encode(base_state(lesson))
    others = [x for x in lessons.REGISTRY if x is not lesson]
    value = bad_value(f, kind, base[f.key])
    state, notes = lesson.decode({**base, f.key: value}, others)
    check_words(notes, lesson)
    got = lesson.encode(state)
    want = expected(f, kind, value, base[f.key])
    if want is None:
        assert named(notes, f.key), (f.key, value[:60], notes)
    else:
        assert not named(notes, f.key), (f.key, value[:60], notes)
        assert got.get(f.key, "") == want, (f.key, got.get(f.key))
    for key, raw in base.items():  # every other parameter: read as given, or said
        if key in (f.key, lesson.key):
            continue
        assert got.get(key) == raw or named(notes, key, lesson), (key, raw[:40], got.get(key, "")[:40], notes)
    for name, a in lesson.arrays(state).items():
        assert not np.isnan(a).any() and not np.isposinf(a).any(), name


def worst_link(lesson, k: int) -> tuple[dict, set[str]]:
    """The lesson's base link with every parameter bad, each with another kind (rotated by ``k``); and the keys
    whose value must be refused. Text fields get kinds that are refused, so that no sentence reads "nan"."""
    base = lesson.encode(base_state(lesson))
    params, refused = dict(base), set()
    for i, f in enumerate(lesson.link.fields + lesson.link.matrices):
        kinds = (MASK_KINDS if isinstance(f, link.Mask) else MATRIX_KINDS if isinstance(f, link.Matrix)
                 else ("control", "long_1000", "over_the_limit") if isinstance(f, link.Text) else SCALAR_KINDS)
        kind = kinds[(i + k) % len(kinds)]
        params[f.key] = bad_value(f, kind, base[f.key])
        if expected(f, kind, params[f.key], base[f.key]) is None:
            refused.add(f.key)
    return params, refused


@LESSONS
@pytest.mark.parametrize("lang", LANGS)
def test_every_refused_parameter_is_named_on_screen_in_the_current_language(lesson, lang):
    params, refused = worst_link(lesson, LANGS.index(lang))
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in {"lang": lang, **params}.items():
        at.query_params[key] = value
    at.switch_page(lesson.page)
    at.run()
    assert_clean(at, lesson)
    warnings = "\n".join(str(w.value) for w in at.warning)
    shown = warnings.replace("\\", "")
    for key in refused:  # named in the lesson's words (a matrix by its name) and by its key: "d_k (“dk=…”)"
        words = table(lang).get(f"{lesson.key}.link.{key}", key)
        assert f"{words}" in shown and f"{key}=" in shown, (lang, key, warnings[:1500])
