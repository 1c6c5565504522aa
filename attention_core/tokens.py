"""Sentence → tokens. Text with spaces is split on white space; Japanese without spaces is split into words by
the janome morphological analyser (pure Python, no download). Pure logic: no UI imports."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["MAX_TOKENS", "MAX_TEXT_CHARS", "Tokenized", "tokenize", "display_labels"]

MAX_TOKENS = 16
"""Most tokens a lesson shows; longer sentences are cut with a notice."""
MAX_TEXT_CHARS = 300
"""Longest sentence accepted (characters); the text field enforces it too."""

_SPACE = re.compile(r"[\s\u3000]+")


@dataclass(frozen=True)
class Tokenized:
    """Result of :func:`tokenize`.

    Attributes:
        tokens: the tokens kept (at most MAX_TOKENS), in sentence order; duplicates stay separate.
        n_found: how many tokens the text had before cutting.
        splitter: "space" (split on white space), "janome" (morphological analysis) or "empty".
    """

    tokens: tuple[str, ...]
    n_found: int
    splitter: str

    @property
    def truncated(self) -> bool:
        return self.n_found > len(self.tokens)


@lru_cache(maxsize=1)
def _janome():
    from janome.tokenizer import Tokenizer  # imported lazily: loading the dictionary takes ~1 s

    return Tokenizer(wakati=True)


@lru_cache(maxsize=256)
def tokenize(text: str, max_tokens: int = MAX_TOKENS) -> Tokenized:
    """Split a sentence into tokens.

    Args:
        text: the sentence as typed (str). Leading/trailing white space is ignored.
        max_tokens: cut after this many tokens (>= 1).

    Returns:
        Tokenized. With any white space (ASCII or the full-width U+3000) in the stripped text, tokens are the
        space-separated pieces; otherwise janome splits the text into words (「犬が歩く」 → 犬 / が / 歩く), never
        inside one user-perceived character (an emoji ZWJ sequence, a letter and its combining accent).
        Empty text gives no tokens.
    """
    stripped = text.strip().strip("\u3000")
    if not stripped:
        return Tokenized((), 0, "empty")
    if _SPACE.search(stripped):
        found = [p for p in _SPACE.split(stripped) if p]
        splitter = "space"
    else:
        found = _whole_clusters([w for w in _janome().tokenize(stripped) if w.strip()])
        splitter = "janome"
    return Tokenized(tuple(found[:max_tokens]), len(found), splitter)


ZWJ = "\u200d"


def _continues(ch: str) -> bool:
    """Whether ``ch`` belongs to the character before it (never starts a user-perceived character, Unicode UAX #29):
    a combining mark, the zero-width joiner, a variation selector, an emoji skin-tone modifier or an emoji tag."""
    o = ord(ch)
    return (unicodedata.category(ch) in ("Mn", "Me", "Mc") or ch == ZWJ or 0xFE00 <= o <= 0xFE0F
            or 0xE0100 <= o <= 0xE01EF or 0x1F3FB <= o <= 0x1F3FF or 0xE0020 <= o <= 0xE007F)


def _whole_clusters(pieces: list[str]) -> list[str]:
    """``pieces`` (janome's words, in order) joined where a cut fell inside one user-perceived character: before a
    piece that starts with a mark, joiner or modifier (``_continues``), and after a piece that ends with a joiner
    (an emoji ZWJ sequence: 👨‍👩‍👧 is one token, not 👨 / U+200D / 👩 …; a decomposed "café" keeps its accent)."""
    out: list[str] = []
    for p in pieces:
        if out and (_continues(p[0]) or out[-1].endswith(ZWJ)):
            out[-1] += p
        else:
            out.append(p)
    return out


def display_labels(tokens, max_chars: int = 10) -> list[str]:
    """Short labels for axes: a token longer than max_chars is cut with '…'. Duplicates are NOT renamed:
    figures place tokens by position, so equal labels never merge."""
    return [t if len(t) <= max_chars else t[: _cut_at(t, max_chars - 1)] + "…" for t in tokens]


def _cut_at(t: str, n: int) -> int:
    """The largest index ≤ ``n`` (and ≥ 1) where ``t`` may be cut without cutting a user-perceived character."""
    while n > 1 and (_continues(t[n]) or t[n - 1] == ZWJ):
        n -= 1
    return n
