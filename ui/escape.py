"""User text made inert, one function per place it is drawn (pure: no Streamlit).

A token, a title or a link's value is only text: whatever it holds is shown, never followed, fetched or typeset.
Each context where the app draws text has exactly one function here, and pages call it from here (``escape.markdown``,
``escape.latex``, ``escape.chart``); ui.text, ui.widgets and ui.figures use the same functions.

- :func:`markdown` — st.markdown / st.caption / st.info … / st.toast bodies and every widget label or option that
  Streamlit renders as Markdown (radio options, toggles, tabs, expanders, help texts).
- :func:`latex` — a token inside a KaTeX formula (``\\text{…}``).
- :func:`chart` — plotly's pseudo-HTML (titles, ticks, hover texts, legend names).

The hostile corpus these are tested with (tests/ui/test_escape.py, tests/e2e/test_escape_katex_browser.py,
tests/e2e/test_hostile_text_browser.py) is :data:`HOSTILE` below.
"""
from __future__ import annotations

import html
import re
import unicodedata

WORD_JOINER = "\u2060"

# ---- Markdown (Streamlit: react-markdown + remark-gfm + remark-math + remark-emoji + directives) -----------------
_MD_ESCAPES = {ch: "\\" + ch for ch in "\\`*_{}[]()#+-.!|<>~$&:'\"=/%^@;,?"}  # every ASCII punctuation character
# After the backslash escapes are read, remark still rewrites the text: remark-gfm links bare URLs and e-mail
# addresses (mdast-util-gfm-autolink-literal: "https?://", "www." then a dot, "x@y.z") and remark-emoji turns
# ":name:" into a picture. A word joiner (U+2060, invisible, no width) after every ":" and "@" and between "www" and
# "." breaks each of those patterns; the text looks the same.
_BREAK = re.compile(r"(?i)(www)(?=\.)|([:@])")


def _control_picture(ch: str) -> str:
    """A control character drawn visibly and inertly: U+0000..U+001F as its Control Pictures symbol (␀..␟), DEL as
    ␡, anything else (C1 controls, line and paragraph separators) as U+FFFD."""
    o = ord(ch)
    if o < 32:
        return chr(0x2400 + o)
    return "\u2421" if o == 127 else "\ufffd"


def shown(s: str) -> str:
    """What every context shows for ``s``: the text, control characters (but the tab) and line separators drawn as
    symbols (see :func:`_control_picture`)."""
    return "".join(_control_picture(ch) if ch != "\t" and unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch
                   for ch in s)


def markdown(s) -> str:
    """User text inside Markdown: shown exactly as typed, never formatting, a link, an image, HTML, math or an
    emoji code. Every ASCII punctuation character is backslash-escaped; a word joiner breaks bare URLs, e-mail
    addresses and ":codes:" (see _BREAK); control characters and line separators are drawn as symbols (a line
    break in user text could start a new Markdown block). Returns a str; the visible text differs from ``s`` only
    by invisible word joiners and those symbols."""
    s = shown(str(s))
    s = _BREAK.sub(lambda m: (m.group(1) or m.group(2)) + WORD_JOINER, s)
    return "".join(_MD_ESCAPES.get(ch, ch) for ch in s)


# ---- KaTeX ------------------------------------------------------------------------------------------------------
_TEX_SPECIAL = set("\\{}$&#^_%~`'\"-:")
"""ASCII characters that TeX reads as commands, groups, math, comments or ligatures ('--' → –, '``' → “; '^' and
'~' through \\^{} and \\~{} come out as the accents ˆ ˜), and ':', with which Streamlit's Markdown reads an
icon or colour code (":material/home:", ":red[x]") even inside $…$ (a new-user trial: \\text{:material_home:},
a KaTeX error): each is written by its code (``{\\char"XX}``)."""
# KaTeX (as bundled by Streamlit 1.67) refuses some characters inside \text{}: symbols it defines as math-only
# functions or macros (∑ ∏ ∫ ≠ ∉ ≔ ⟦ ℋ ‼ …), private-use and unassigned code points, line separators, and a
# combining mark with nothing to sit on. Such a character is written as \char"<hex>, which KaTeX draws as that very
# character in text mode. Letters and digits are written as themselves (Japanese tokens stay readable in the
# source), except the letter-like and mathematical-alphanumeric blocks, which KaTeX maps to \mathscr, \mathfrak, ….
_MATH_LETTER_BLOCKS = ((0x2100, 0x214F), (0x1D400, 0x1D7FF), (0x1EE00, 0x1EEFF))
_KATEX_ACCENTS = set("\u0300\u0301\u0302\u0303\u0304\u0306\u0307\u0308\u030a\u030b\u030c")
"""The combining marks KaTeX's text mode puts on a letter (its unicodeAccents); any other mark is written by code."""
_KATEX_CANNOT = {0x1D6A4: "\u0131", 0x1D6A5: "\u0237"}
"""Code points KaTeX draws in no way (not even by \\char): written as their compatibility form (ı, ȷ)."""


def _tex_plain(ch: str, after_letter: bool) -> bool:
    o = ord(ch)
    if o < 128:
        return 32 <= o < 127 and ch not in _TEX_SPECIAL
    if any(lo <= o <= hi for lo, hi in _MATH_LETTER_BLOCKS):
        return False
    cat = unicodedata.category(ch)
    if cat[0] in "LN":
        return True
    return after_letter and ch in _KATEX_ACCENTS  # an accent KaTeX knows, on a Latin letter


def latex(s) -> str:
    """A token inside a KaTeX formula, as ``\\text{…}``: shown exactly as typed, whatever it holds (TeX commands,
    braces, "$", math-only symbols such as ∑ or ≠, control characters). The result contains no "$" (it may sit in
    Markdown's $…$)."""
    out, after_letter = [], False
    for ch in shown(s).replace("\t", " "):
        if _tex_plain(ch, after_letter):
            out.append(ch)
            after_letter = ch.isascii() and ch.isalpha()
        elif ord(ch) in _KATEX_CANNOT:
            out.append(_KATEX_CANNOT[ord(ch)])
            after_letter = False
        else:
            out.append(f'{{\\char"{ord(ch):X}}}')  # braced: KaTeX reads on into a following hex digit
            after_letter = False
    return r"\text{" + "".join(out) + "}"


# ---- plotly -----------------------------------------------------------------------------------------------------
def chart(s) -> str:
    """User text inside a plotly text (title, tick, hover, legend): '<', '>' and '&' escaped, so '<b>', '<a href>'
    or '&lt;' are shown as typed (plotly reads a small HTML subset and entities). Plotly's "$…$" math is off: the
    chart component loads no MathJax. Control characters and line separators are drawn as symbols."""
    return html.escape(shown(str(s)), quote=False)


# ---- the hostile corpus -----------------------------------------------------------------------------------------
HOSTILE = (
    "![x](http://127.0.0.1:9/t.png) [go](http://127.0.0.1:9/l) **B** _i_ ~~s~~ `c` # > - 1.",
    "<img src=//127.0.0.1:9/i> <script>x</script> <iframe src=//127.0.0.1:9> &lt; <b>",
    "https://evil.example/l www.evil.example a@evil.example <http://127.0.0.1:9>",
    "$x$ $$y$$ \\href{//127.0.0.1:9}{x} \\url{//127.0.0.1:9} \\\\ { } ^ % &",
    "∑∏∐∫∮⋃⨁ ≠∉≔⟦ℋ‼ \ue000 \u0301a \u732b",  # U+732B: a CJK ideograph (no Japanese literal in code)
    ":smile: :material/home: :red[x] [^1] |a|b|",
    "a\u200bb\u200dc\u2060d\ufeffe \u202eevil\u202c \u2067x\u2069",
    "\x01\x1b\x0b\x0c\x7f\x85\u2028\u2029 a\nb",
)
"""Texts that each context must draw as typed: Markdown images and links, HTML, bare URLs and e-mail addresses,
KaTeX commands and math-only symbols, Streamlit's Markdown extensions, bidirectional and zero-width characters,
control characters and line separators."""
