"""Issue 20, defect 6 (in part): `/qkv?qkv=2&t=&q=5` and `/masks?masks=1&t=&st=5` ended with q=0 / st=0 without a
word (the sentence has no token to point at). Said now, in both languages, on the page (AppTest)."""
from __future__ import annotations

import pytest
from reliability_kit import APP
from streamlit.testing.v1 import AppTest

import lessons
from ui.i18n import LANGS, table

CASES = [("qkv", {"qkv": "2", "t": "", "q": "5"}, "query_no_tokens"),
         ("qkv", {"v": "1", "t": "", "q": "5"}, "query_no_tokens"),
         ("masks", {"masks": "1", "t": "", "st": "5"}, "step_no_tokens"),
         ("multihead", {"multihead": "1", "t": "", "q": "5"}, "query_no_tokens")]


@pytest.mark.parametrize("key, params, code", CASES)
def test_a_pointer_into_an_empty_sentence_is_said(key, params, code):
    lesson = lessons.by_key(key)
    state, notes = lesson.decode(params)
    assert [(n.code, n.args["asked"]) for n in notes] == [(code, 6)]
    assert lesson.decode(lesson.encode(state))[1] == []  # its own link is clean


@pytest.mark.parametrize("key, params, code", CASES[::2])
@pytest.mark.parametrize("lang", LANGS)
def test_the_page_says_it_in_its_language(key, params, code, lang):
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in {"lang": lang, **params}.items():
        at.query_params[k] = v
    at.switch_page(lessons.by_key(key).page)
    at.run()
    assert not at.exception
    assert table(lang)[f"notice.{code}"].format(asked=6) in [w.value for w in at.warning]
