"""Unit tests for attention_core.tokens: sentence → tokens (white space or janome), truncation, display labels.

Expected splits are the ones the lesson texts use (seed 000: 犬 / が / 歩く) or follow from the documented rule
(white space, including the full-width U+3000, splits; otherwise janome), cut at MAX_TOKENS = 16.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_core.tokens import MAX_TOKENS, display_labels, tokenize


def test_max_tokens_is_16():
    assert MAX_TOKENS == 16


def test_janome_splits_inu_ga_aruku():
    tok = tokenize("犬が歩く")
    assert tok.tokens == ("犬", "が", "歩く")
    assert tok.splitter == "janome"
    assert tok.n_found == 3 and not tok.truncated


def test_janome_splits_neko_ga_inu_wo_ou():
    # the positional-encoding lesson's sentence (seed 001)
    assert tokenize("猫が犬を追う").tokens == ("猫", "が", "犬", "を", "追う")


@pytest.mark.parametrize(
    "text", ["犬 が 歩く", "犬\u3000が\u3000歩く", "  犬   が\t歩く\n", "\u3000犬 \u3000が\u3000歩く\u3000"]
)
def test_white_space_splits(text):
    tok = tokenize(text)
    assert tok.tokens == ("犬", "が", "歩く")
    assert tok.splitter == "space"


def test_space_split_keeps_words_whole():
    # with spaces, janome is not used: 学校へ stays one token
    assert tokenize("私 は 学校へ 行きます").tokens == ("私", "は", "学校へ", "行きます")


def test_duplicates_stay_separate():
    tok = tokenize("犬 が 犬 を 見る")
    assert tok.tokens == ("犬", "が", "犬", "を", "見る")


def test_more_than_16_tokens_truncated_with_count():
    words = [f"w{i}" for i in range(20)]
    tok = tokenize(" ".join(words))
    assert tok.tokens == tuple(words[:16])
    assert tok.n_found == 20
    assert tok.truncated


def test_exactly_16_tokens_not_truncated():
    tok = tokenize(" ".join(f"w{i}" for i in range(16)))
    assert len(tok.tokens) == 16 and tok.n_found == 16 and not tok.truncated


def test_long_japanese_sentence_truncated_by_janome():
    text = "犬が歩く" * 8  # 3 words each → 24 words, no spaces
    tok = tokenize(text)
    assert tok.splitter == "janome"
    assert tok.n_found == 24
    assert len(tok.tokens) == 16 and tok.truncated
    assert tok.tokens[:6] == ("犬", "が", "歩く", "犬", "が", "歩く")


def test_max_tokens_argument():
    tok = tokenize("a b c d", max_tokens=2)
    assert tok.tokens == ("a", "b") and tok.n_found == 4


@pytest.mark.parametrize("text", ["", " ", "\u3000", " \u3000 \t\n", "\u3000\u3000"])
def test_empty_or_white_space_only_gives_no_tokens(text):
    tok = tokenize(text)
    assert tok.tokens == ()
    assert tok.n_found == 0
    assert not tok.truncated


def test_html_with_spaces_is_kept_as_text():
    tok = tokenize("<b>x</b> <script>alert(1)</script> &amp;")
    assert tok.tokens == ("<b>x</b>", "<script>alert(1)</script>", "&amp;")


def test_html_without_spaces_keeps_every_character():
    text = "<b>犬</b>が<i>歩く</i>"
    tok = tokenize(text)
    assert "".join(tok.tokens) == text  # nothing stripped, nothing escaped
    assert "<" in "".join(tok.tokens)


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="犬猫がを歩く見るabc<>&\"' \u3000\t", max_size=40))
def test_tokens_are_non_empty_pieces_of_the_text(text):
    tok = tokenize(text)
    assert len(tok.tokens) <= MAX_TOKENS
    assert tok.n_found >= len(tok.tokens)
    for t in tok.tokens:
        assert t and t.strip() and t.strip("\u3000")
        assert t in text
    if tok.splitter == "space":
        assert tok.tokens == tuple(text.split())[:MAX_TOKENS]


def test_display_labels_cut_long_tokens_and_keep_duplicates():
    labels = display_labels(["犬", "犬", "abcdefghijkl", "abcdefghij"])
    assert labels[0] == labels[1] == "犬"  # not renamed
    assert labels[2] == "abcdefghi…" and len(labels[2]) == 10
    assert labels[3] == "abcdefghij"


@pytest.mark.parametrize("text, want", [
    ("👨\u200d👩\u200d👧が好き", ("👨\u200d👩\u200d👧", "が", "好き")),  # a ZWJ family: one token, no bare U+200D
    ("cafe\u0301が好き", ("cafe\u0301", "が", "好き")),  # a decomposed é keeps its accent
    ("☺\ufe0fです", ("☺\ufe0f", "です")),  # a variation selector stays with its character
])
def test_a_user_perceived_character_is_never_cut_into_tokens(text, want):
    assert tokenize(text).tokens == want


def test_a_display_label_is_cut_between_user_perceived_characters():
    family = "👨\u200d👩\u200d👧"
    (label,) = display_labels(["abcdefgh" + family + "xyz"])
    assert label == "abcdefgh…"  # not "abcdefgh👨…" (a family cut after its first person) nor a bare joiner
    assert display_labels(["abcdefghi\u0301jk"]) == ["abcdefgh…"]  # not an "i" without its accent
