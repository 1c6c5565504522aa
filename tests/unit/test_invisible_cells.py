"""Issue 20, defect 7: a cell holding "5" and a zero-width space was refused with 「5」は数として読めません, which
reads as if the 5 were refused. A character that shows nothing is named (code point and Unicode name), in both
languages."""
from __future__ import annotations

import pytest

from lessons.cells import Refusal, parse_cell_text
from ui.i18n import LANGS, table


@pytest.mark.parametrize("typed, named", [("5\u200b", "U+200B ZERO WIDTH SPACE"),
                                          ("\u202e1", "U+202E RIGHT-TO-LEFT OVERRIDE"),
                                          ("\ufeff2", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
                                          ("3\u2060", "U+2060 WORD JOINER")])
@pytest.mark.parametrize("lang", LANGS)
def test_an_invisible_character_is_named(typed, named, lang):
    with pytest.raises(Refusal) as e:
        parse_cell_text(typed)
    assert e.value.code == "invisible" and e.value.args_["chars"] == named
    text = table(lang)["reason.invisible"].format(**e.value.args_)
    assert named in text


def test_visible_text_is_read_or_refused_as_before():
    assert parse_cell_text(" ５ ") == 5.0  # full-width and spaces: the number meant
    with pytest.raises(Refusal) as e:
        parse_cell_text("5a")
    assert e.value.code == "not_number"
