"""English labels start the same way on every page (issue 9: "value", "density", "share" next to "Token",
"Query (gathers)"): every chart text (axis and colour-bar titles, legends, hover texts, reference lines), every
table header, every control label and choice starts with a capital letter, unless it starts with a math name
(d_k, softmax, q·k, …), a symbol or a placeholder. Sentences that continue another text (reasons, notices that
start with a field's name, help texts, separators) are left out."""
from __future__ import annotations

import re

from ui.i18n import table

MATH_WORDS = ("d_k", "d_v", "d_model", "softmax", "q·k", "e^", "T ", "T=", "x ")
"""Names written in lower case in the formulas themselves."""
CONTINUATIONS = re.compile(r"^(reason\.|notice\.)|\.link\.|(_help|\.help|\.sep|_sep|\.hover_sep|_word)$")
"""Keys left out: reasons and notices (they continue a sentence), a link parameter's words (``<lesson>.link.*``,
inside a notice: "The link's value for the seed …"), help texts, separators, and ``*_word``: a word written inside
another text, e.g. a mask mark's meaning in a hover label, "0 (may attend)"."""


def label_keys(en: dict) -> list[str]:
    return [k for k in en if not CONTINUATIONS.search(k)]


def starts_wrong(text: str) -> bool:
    if not text or not text[0].isalpha() or not text[0].isascii():  # a symbol, a placeholder, Japanese
        return False
    return text[0].islower() and not text.startswith(MATH_WORDS)


def test_english_labels_start_with_a_capital_letter():
    en = table("en")
    wrong = {k: en[k] for k in label_keys(en) if starts_wrong(en[k])}
    assert wrong == {}


def test_the_rule_sees_the_labels_it_is_about():
    en = table("en")
    keys = label_keys(en)
    assert {"fig.scaling_var.x", "fig.scaling_var.y", "fig.scaling_temp.y", "fig.scaling_sat.with", "fig.X.rows",
            "fig.mask_bool.hover", "masks.start.none", "scaling.book.dim_1", "query.tbl.weight"} <= set(keys)
    assert starts_wrong("value") and starts_wrong("density") and not starts_wrong("Value")
    assert not starts_wrong("d_k (log scale)") and not starts_wrong("× share {p}") and not starts_wrong("犬")


def test_each_line_of_an_english_hover_label_starts_with_a_capital_letter():
    """A hover label is a few labels, one a line ("Token 犬" / "Dimension 1" / "Value 1.03"): each line starts the way a
    label does (a new-user trial read "Token … / dimension … / value …" as mixed capitals)."""
    en = table("en")
    wrong = {k: v for k, v in en.items() if k.endswith("hover")
             for line in v.split("<br>")[1:] if starts_wrong(line)}
    assert wrong == {}
