"""A text longer than its field's limit (a pasted paragraph) is kept up to the limit, with a notice: Streamlit's own
max_chars refused the whole paste without a word."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from attention_core.tokens import MAX_TEXT_CHARS
from ui.i18n import LANGS, table

ROOT = Path(__file__).resolve().parents[2]


def test_a_pasted_paragraph_is_cut_to_the_limit_and_said():
    lang = "ja"  # (AppTest formats the page's selectboxes in Japanese: an English run of this page cannot type)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page("lesson_pages/qkv.py").run()
    box = at.text_input(key="qkv.text")
    assert not box.max_chars, "the limit is the app's (with a notice), not the widget's (a silent refusal)"
    pasted = "犬 が 歩く " * 120  # 720 characters
    box.input(pasted).run()
    assert not at.exception
    state = at.session_state["qkv:state"]
    assert state.text == pasted[:MAX_TEXT_CHARS]
    assert at.text_input(key="qkv.text").value == pasted[:MAX_TEXT_CHARS]
    said = " ".join(str(x.value) for kind in ("warning", "info", "toast") for x in getattr(at, kind, []))
    words = table(lang)["notice.text_cut"].split("{")[0]
    assert words.strip(" :：") in said and str(len(pasted)) in said and str(MAX_TEXT_CHARS) in said


@pytest.mark.parametrize("lang", LANGS)
def test_the_cut_notice_names_both_lengths_in_each_language(lang):
    text = table(lang)["notice.text_cut"]
    assert all(p in text for p in ("{label}", "{typed}", "{limit}")), text


def test_only_what_is_kept_is_checked():
    """A paste with a control character past the limit: the kept part has none, so it is cut (said), not refused;
    a control character inside the kept part is refused as before."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page("lesson_pages/qkv.py").run()
    kept = ("猫 が 走る " * 60)[:MAX_TEXT_CHARS]
    at.text_input(key="qkv.text").input(kept + "\x0b" * 1000).run()
    assert not at.exception and at.session_state["qkv:state"].text == kept
    at.text_input(key="qkv.text").input("鳥\x0bが 飛ぶ").run()
    assert at.session_state["qkv:state"].text == kept  # refused: the state as it was
    said = " ".join(str(x.value) for x in at.warning)
    assert "U+000B" in said.replace("\\", ""), said
