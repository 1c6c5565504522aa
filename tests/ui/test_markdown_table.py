"""ui.text.markdown_table: the query's arithmetic table, with tokens that try to break Markdown."""
from __future__ import annotations

import re

from ui.text import markdown_table


def _parse(md: str) -> list[list[str]]:
    """Rows of cells, split on unescaped pipes and unescaped (independent of how the table was written)."""
    rows = []
    for line in md.splitlines():
        parts = re.split(r"(?<!\\)\|", line.strip())[1:-1]
        rows.append([re.sub(r"\\(.)", r"\1", p.strip()) for p in parts])
    return rows


def test_shape_alignment_and_hostile_cells_survive():
    md = markdown_table(["key", "w"], [["a|b", "1%"], ["**x**", "<b>2</b>"], ["犬", "-0.5"]], align="lr")
    rows = _parse(md)
    assert rows[0] == ["key", "w"]
    assert rows[1] == [":---", "---:"]
    assert rows[2:] == [["a|b", "1%"], ["**x**", "<b>2</b>"], ["犬", "-0.5"]]
    assert "<b>" not in md  # HTML is escaped, never passed through
    assert len(md.splitlines()) == 5


def test_md_escape_escapes_every_markdown_character_and_nothing_else():
    from ui.escape import markdown as md_escape

    special = "\\`*_{}[]()#+-.!|<>~$&:'\"=/%^@;,?"
    # a word joiner (U+2060, invisible) after ':' and '@' breaks bare URLs, e-mail addresses and :codes: (ui.escape)
    assert md_escape(special) == "".join("\\" + ch + ("\u2060" if ch in ":@" else "") for ch in special)
    assert md_escape("犬 が 歩く abc 123") == "犬 が 歩く abc 123"
    assert md_escape(3) == "3"
