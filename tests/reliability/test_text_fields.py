"""Every text field of every registered lesson's page, with every bad kind of text a person can type or paste.

The fields are found on the page itself (its keyed ``st.text_input`` widgets), so a new lesson's fields are covered
without new code. For each kind, each field in turn gets the text as the browser would hand it over (cut at the
field's ``max_chars``, as an ``<input maxlength>`` cuts a paste), and then:

- nothing raises, no NaN on screen or in a chart, the lesson's numbers stay finite (reliability_kit.assert_clean);
- the other inputs keep their values (unless what they offer changed with the text, e.g. the query token list);
- the field keeps what was typed, or the page says in words (a warning or an info that was not there before) that
  it used something else; user text never reaches the page as HTML (no raw ``<script>``);
- the page's link carries exactly what the fields hold: opened in a fresh session it gives the same fields and
  the same lesson state (a tab pasted from a spreadsheet once made the link fall back to the example sentence).
"""
from __future__ import annotations

import re

import pytest
from reliability_kit import LESSONS, alerts, assert_clean, assert_others_kept, open_page, shown_text, widgets

KINDS = {
    "empty": "",
    "whitespace": "  \t  ",
    "one_token": "犬",
    "duplicates": "犬 犬 犬 犬 犬",
    "over_the_limit": " ".join(f"w{i}" for i in range(20)),  # 20 tokens (at most 16 are used)
    "unicode": "🐕 が 🐈\u200d⬛ を \u202eabc\u202c שלום 犬\u200bが\u200d歩く\ufeff\t表",  # emoji, RTL, zero-width, tab
    "long_1000": "あい " * 334,  # 1,002 characters
    "markup": "<script>alert(1)</script> <b>x</b> **y** _z_ [a](http://e.x) # h `c` $x^2$ \\frac{a}{b} $$y$$",
    "control": "犬\x01が \x1b[31m歩く\x0b\x0c end",  # pasted control characters (issue 20: the link refused them)
}


def outside_math(text: str) -> str:
    """Markdown text without its $…$ formulas (inside one, KaTeX draws "<script>" as the characters it is)."""
    return re.sub(r"\$[^$]*\$", " ", text)


def text_fields(at, lesson) -> list:
    return [w for w in at.text_input if str(w.key).startswith(lesson.key + ".")]


@LESSONS
@pytest.mark.parametrize("kind", list(KINDS))
def test_bad_text_in_every_text_field(lesson, kind):
    if not lesson.text_fields:
        pytest.skip(f"{lesson.key} declares no text field (Lesson.text_fields)")
    at = open_page(lesson)  # in Japanese: AppTest formats a selectbox outside the run, where t() is Japanese
    fields = [f"{lesson.key}.{name}" for name in lesson.text_fields]
    assert sorted(fields) == sorted(w.key for w in text_fields(at, lesson)), "see test_pages: the declaration"
    for key in fields:
        before, said_before = widgets(at, lesson.key + "."), alerts(at)
        field = at.text_input(key=key)
        typed = KINDS[kind][: field.max_chars] if field.max_chars else KINDS[kind]
        field.set_value(typed)
        at.run()
        assert_clean(at, lesson)
        assert "<script>" not in outside_math(shown_text(at))
        assert_others_kept(before, widgets(at, lesson.key + "."), {key})
        shown = at.text_input(key=key).value
        if shown.strip() != typed.strip():  # not what was typed (surrounding spaces aside): said in words
            assert set(alerts(at)) - set(said_before), f"{key}: {typed!r} became {shown!r} without a word"
        if kind == "control":  # refused, naming the characters (the one rule of lessons.link.unshowable)
            new = [re.sub(r"\\(.)", r"\1", a) for a in set(alerts(at)) - set(said_before)]  # Markdown escapes read
            assert shown != typed and any("U+0001" in a for a in new), alerts(at)
    published = {k: at.query_params[k] for k in at.query_params}
    again = open_page(lesson, published)
    assert_clean(again, lesson)
    for key in fields:
        assert again.text_input(key=key).value == at.text_input(key=key).value, key
    assert lesson.encode(again.session_state[f"{lesson.key}:state"]) == lesson.encode(
        at.session_state[f"{lesson.key}:state"])


@pytest.mark.parametrize("key", ["masks.text", "masks.text2"])
def test_a_masks_sentence_of_more_than_16_tokens_is_cut_with_a_warning(key):
    """(The Q·K·V page's sentence: tests/app/test_qkv_apptest.py::test_twenty_tokens_are_cut_with_a_warning.)"""
    import lessons
    from ui.i18n import table

    lesson = lessons.by_key("masks")
    at = open_page(lesson)
    at.text_input(key=key).set_value(KINDS["over_the_limit"])
    at.run()
    assert_clean(at, lesson)
    assert table("ja")["notice.too_many_tokens"].format(n=20, max=16) in [w.value for w in at.warning]
    assert at.text_input(key=key).value == KINDS["over_the_limit"]  # the text itself is kept as typed
