"""ui.escape: one function per context makes user text inert, checked against independent models of each renderer.

Markdown: CommonMark's backslash escapes read back (any ASCII punctuation after a backslash is that character), then
the patterns remark rewrites in the text that results: remark-gfm's autolink literals (the two regular expressions of
mdast-util-gfm-autolink-literal, as Streamlit 1.67's bundle holds them) and remark-emoji's ":code:". KaTeX: the
written \\text{...} read back ({\\char"X} is that code point). Plotly: HTML entities read back. The browser checks of
the same functions are tests/e2e/test_escape_katex_browser.py and tests/e2e/test_hostile_text_browser.py.
"""
from __future__ import annotations

import html
import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons import link
from ui import escape
from ui import figures as F

CORPUS = [*escape.HOSTILE, *[w for s in escape.HOSTILE for w in s.split()], "", "a", "猫が魚を食べる", "3.14",
          "WWW.EVIL.EXAMPLE", "HTTP://X.Y", "xmpp:a@b.cd", "mailto:a@b.cd", "a\\", "\\", "😀👨‍👩‍👧"]
TEXTS = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60)

# mdast-util-gfm-autolink-literal (in Streamlit 1.67's StreamlitMarkdown bundle), applied to text nodes
URL = re.compile(r"(https?://|www(?=\.))([-.\w]+)([^ \t\r\n]*)", re.I)
EMAIL = re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)")
EMOJI = re.compile(r":[\w+-]+:")  # remark-emoji's shortcodes (":+1:", ":smile:"); Streamlit's ":material/x:" too
MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")  # CommonMark: a backslash before ASCII punctuation


def md_read(md: str) -> str:
    """The text a CommonMark parser makes of ``md`` when every punctuation character is escaped."""
    return MD_ESCAPE.sub(r"\1", md)


def unescaped_punctuation(md: str) -> list[str]:
    """ASCII punctuation characters of ``md`` that are not the target of a backslash escape."""
    out, k = [], 0
    while k < len(md):
        if md[k] == "\\" and k + 1 < len(md) and md[k + 1] in string.punctuation:
            k += 2
            continue
        if md[k] in string.punctuation:
            out.append(md[k])
        k += 1
    return out


def check_markdown(s: str) -> None:
    md = escape.markdown(s)
    assert not unescaped_punctuation(md), (s, md)
    read = md_read(md)
    assert re.sub(r"(?<=[:@])\u2060|(?i:(?<=www)\u2060(?=\.))", "", read) == escape.shown(s)
    assert not URL.search(read) and not EMAIL.search(read) and not EMOJI.search(read), (s, read)
    assert not any(ch in md for ch in "\n\r\x0b\x0c\u2028\u2029\x85"), "a line break in user text starts a block"


def test_markdown_corpus():
    for s in CORPUS:
        check_markdown(s)


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_markdown_any_text(s):
    check_markdown(s)


def test_markdown_breaks_the_reported_links():
    """Issue 20, defects 2 and 3: the masks page's link and the bare URLs of the report stay text."""
    for s in ("![x](http://127.0.0.1:9/track.png) [Click here to continue](http://127.0.0.1:9/login) **BOLD**",
              "https://evil.example/login", "www.evil.example", "犬がwww.evil.exampleを見る"):
        read = md_read(escape.markdown(s))
        assert not URL.search(read), read
        assert "](" not in escape.markdown(s)


TEX_CHAR = re.compile(r'\{\\char"([0-9A-F]+)\}')


def tex_read(tex: str) -> str:
    """The text KaTeX shows for what latex() wrote: \\text{...} holding plain characters and {\\char"X} groups."""
    assert tex.startswith(r"\text{") and tex.endswith("}")
    body = tex[len(r"\text{"):-1]
    rest = TEX_CHAR.sub("", body)
    assert not set(rest) & set("\\{}$&#^_%~`'\"-"), f"a TeX-active character written as itself: {tex!r}"
    return TEX_CHAR.sub(lambda m: chr(int(m.group(1), 16)), body)


def check_latex(s: str) -> None:
    tex = escape.latex(s)
    assert "$" not in tex
    want = escape.shown(s).replace("\t", " ").replace("\U0001d6a4", "\u0131").replace("\U0001d6a5", "\u0237")
    assert tex_read(tex) == want, (s, tex)


def test_latex_corpus():
    for s in CORPUS:
        check_latex(s)


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_latex_any_text(s):
    check_latex(s)


def test_latex_writes_math_only_symbols_by_code():
    """Issue 20, defect 4: ∑ ∏ ∐ ∫ ∮ ⋃ ⨁ (KaTeX: "Can't use function '∑' in text mode") are written by code."""
    for ch in "∑∏∐∫∮⋃⨁≠":
        assert escape.latex("x" + ch) == '\\text{x{\\char"' + f'{ord(ch):X}' + '}}'
    assert escape.latex("猫a1") == r"\text{猫a1}"  # letters and digits stay readable


def check_chart(s: str) -> None:
    out = escape.chart(s)
    assert "<" not in out and ">" not in out
    assert html.unescape(out) == escape.shown(s)


def test_chart_corpus():
    for s in CORPUS:
        check_chart(s)


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_chart_any_text(s):
    check_chart(s)


def test_one_function_per_context():
    """Pages call ui.escape itself; the modules that escape for them use its functions (no second copy of a rule)."""
    from ui import text, widgets

    assert text.md_escape is escape.markdown and widgets.md_escape is escape.markdown
    assert F.escape is escape.chart


def test_shown_draws_controls_as_symbols():
    assert escape.shown("a\x01b\x1b\x7f\tc\x85\u2028") == "a\u2401b\u241b\u2421\tc\ufffd\ufffd"


def test_the_text_rule():
    """One rule for every text (lessons.link.unshowable): controls but the tab, separators, direction controls."""
    assert link.unshowable("a\tb c\u200bd\u200de\u2060f😀") == []
    assert link.unshowable("a\x01b\x01\x1b\x0b\x0c\x7f\x85\u2028\u2029\u202e\u2066") == [
        "U+0001", "U+001B", "U+000B", "U+000C", "U+007F", "U+0085", "U+2028", "U+2029", "U+202E", "U+2066"]
    for s in ("a\x0bb", "\u202eevil"):
        try:
            link.check_text(s)
        except link.Refusal as e:
            assert e.code == "control" and e.args_["chars"].startswith("U+")
        else:
            raise AssertionError(f"{s!r} was not refused")
    for raw in ("a\x01b", "x\u202ey", "p\u2029q"):
        try:
            link.Text("t", 300).parse(raw)
        except link.Refusal as e:
            assert e.code == "control"
        else:
            raise AssertionError(f"link.Text took {raw!r}")


def test_latex_leaves_no_colon_for_streamlits_markdown_codes():
    # Streamlit's Markdown reads ":material/home:" and ":red[x]" even inside $…$, before KaTeX sees the formula: the
    # token ":material/home:" became \text{:material_home:} and a KaTeX error on /qkv (a new-user trial, issue 20).
    from ui.escape import latex

    for s in (":material/home:", ":red[R]", "a:b", ":smile:"):
        out = latex(s)
        assert ":" not in out and '{\\char"3A}' in out, out


def test_a_link_text_too_long_is_refused_as_too_long_before_any_scan():
    """Length first: a link's text of 10,000 control characters is refused as too long (the scan of every character
    is never made), one within the limit as holding a control character."""
    field = link.Text("t", 300)
    with pytest.raises(link.Refusal) as e:
        field.parse("\x0b" * 10_000)
    assert e.value.code == "too_long"
    with pytest.raises(link.Refusal) as e:
        field.parse("\x0b" * 10)
    assert e.value.code == "control" and "U+000B" in e.value.args_["chars"]


def test_a_link_with_bytes_that_are_not_utf8_is_refused_in_words():
    """t=%C0%AF reaches the app as two U+FFFD (the query string decoded with replacement, as Python's urllib does):
    refused, naming U+FFFD, not shown as 「��」 without a word."""
    from urllib.parse import parse_qs

    import lessons

    (t,) = parse_qs("t=%C0%AF")["t"]
    assert t == "\ufffd\ufffd"
    lesson = lessons.by_key("qkv")
    state, notes = lesson.decode({**dict(list(lesson.encode(lesson.default_state()).items())[:1]), "t": t})
    assert state.text == lesson.default_state().text
    assert [(n.code, n.args["reason"], n.args["extra"].get("chars")) for n in notes] == [
        ("bad_value", "control", "U+FFFD")]
