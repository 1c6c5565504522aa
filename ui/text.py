"""Text on the page: formulas (KaTeX that wraps in its column), Markdown tables, sentences of the language tables
joined, text kept on one line. Numbers in them are written by ui.numbers; user text is escaped by ui.escape."""
from __future__ import annotations

import unicodedata

import streamlit as st

from .escape import markdown as md_escape
from .numbers import num


def explain(words: str) -> None:
    """A section's explanation (Markdown from the language tables): drawn, except in presentation mode
    (ui.present), where the teacher says it and the screen keeps its room for the numbers."""
    from . import present

    if not present.on():
        st.markdown(words)


def formula(tex: str) -> None:
    """Draw a formula that fits its column: KaTeX in display style, but set inline (Markdown's ``$...$``), where
    KaTeX may break a line after ``=``, ``+`` or ``\\allowbreak`` (st.latex's display mode never breaks: a long
    equation ran past the column's right edge). Centred like st.latex. ``tex`` must not hold "$" (tokens: use
    ``ui.escape.latex``)."""
    if "$" in tex:
        raise ValueError("a formula must not contain '$' (escape user text with ui.escape.latex)")
    st.markdown("$\\displaystyle " + tex + "$", text_alignment="center")


def tex_vector(values, fmt=None) -> str:
    """A row vector in LaTeX as [a, b, c]. Past 4 entries a line may break after any comma (a bmatrix never
    breaks, and 16 entries are wider than a phone); up to 4 it stays whole (it fits a phone), so a formula breaks
    before it. ``fmt``: how each entry is written (default :func:`num` for LaTeX)."""
    fmt = fmt or (lambda v: num(v, tex=True))
    texts = [fmt(v) for v in values]
    sep = ",\\allowbreak\\ " if len(texts) > 4 else ",\\ "
    return "[\\," + sep.join(texts) + "\\,]"


JA_STOPS = ("\u3002", "\uff09", "\u300d")  # the Japanese full stop, closing bracket and closing quote


def join_sentences(parts) -> str:
    """Sentences of the language tables as one text: a space after a Latin full stop, none after a Japanese one."""
    out = ""
    for part in parts:
        out += part if not out or out.endswith(JA_STOPS) else " " + part
    return out


WORD_JOINER, NO_BREAK_SPACE = "\u2060", "\u00a0"


def _wide(ch: str) -> bool:
    """A character a browser may break a line before or after (CJK ideographs, kana, full-width forms)."""
    return unicodedata.east_asian_width(ch) in ("W", "F")


def keep_together(s: str) -> str:
    """Text that never wraps onto two lines: spaces become no-break spaces and a word joiner (U+2060, invisible)
    goes between two characters where a line may break inside Japanese text. Latin words and numbers need none."""
    if s.isascii():  # numbers, Latin words: only the spaces (most cells of a table; a per-character walk is slow)
        return s.replace(" ", NO_BREAK_SPACE)
    out = []
    for k, ch in enumerate(s):
        if k and (_wide(ch) or _wide(s[k - 1])) and ch != " " and s[k - 1] != " ":
            out.append(WORD_JOINER)
        out.append(NO_BREAK_SPACE if ch == " " else ch)
    return "".join(out)


def markdown_table(header: list[str], rows: list[list[str]], align: str = "", wrap=()) -> str:
    """A Markdown table (rendered by st.markdown: cheap to send, large type on a projector). Every cell is passed
    through :func:`md_escape`, so tokens holding '|', '*' or HTML show as typed. ``align``: one letter per column,
    'l' or 'r' (default left). Headers and the cells of every column not listed in ``wrap`` (column indices) are
    kept on one line (:func:`keep_together`): a number, a token or a header never breaks in the middle."""
    marks = [{"r": "---:", "l": ":---"}.get(a, "---") for a in align.ljust(len(header), "l")]

    def cell(text: str, j: int) -> str:
        return md_escape(text if j in wrap else keep_together(str(text)))

    lines = ["| " + " | ".join(md_escape(keep_together(h)) for h in header) + " |", "| " + " | ".join(marks) + " |"]
    lines += ["| " + " | ".join(cell(c, j) for j, c in enumerate(row)) + " |" for row in rows]
    return "\n".join(lines)


def show_table(header: list[str], rows: list[list[str]], align: str = "", wrap=()) -> None:
    """Draw :func:`markdown_table` (same arguments); it scrolls sideways inside its own box when wider than the
    column (STYLE). The cells are escaped, and no HTML is allowed through."""
    st.markdown(markdown_table(header, rows, align, wrap))
