"""Every number field of every registered lesson's page, with every bad number a person can type into it.

The fields are found on the page (its keyed ``st.number_input`` widgets). A browser's number field takes digits,
a sign, a point and an exponent only ("abc" cannot be typed); emptied, it sends no value. So the kinds are: empty,
NaN, ±∞, ±1e308, −0, far outside the range, and more digits than the field shows. For each: nothing raises, no NaN
on screen, the field then shows a finite number, the other inputs keep their values, and when the field does not
show what was typed the page says so in words (ui.bind.number: used value and why).
"""
from __future__ import annotations

import math

import pytest
from reliability_kit import LESSONS, assert_clean, assert_others_kept, open_page, widgets

KINDS = {
    "empty": None,
    "nan": math.nan,
    "plus_inf": math.inf,
    "minus_inf": -math.inf,
    "huge_1e308": 1e308,
    "minus_huge_1e308": -1e308,
    "minus_zero": -0.0,
    "over_the_limit": 1e6,
    "under_the_limit": -1e6,
    "too_many_digits": 2.123456789,
}


def warnings(at) -> list[str]:
    return [str(w.value) for w in at.warning]


def sample(fields: list[str], k: int) -> list[str]:
    """The fields one kind is typed into: the first, the last and the k-th (all of them once over the kinds), so a
    page of many alike fields (the scaling lesson's nine book values) costs three runs per kind, not nine."""
    picked = [fields[0], fields[k % len(fields)], fields[-1]] if fields else []
    return list(dict.fromkeys(picked))


@LESSONS
def test_bad_numbers_in_every_number_field(lesson):
    """One session per page, every kind in turn (a run per field typed into, not a new session per kind)."""
    at = open_page(lesson)
    assert_clean(at, lesson)  # a page without number fields (Q·K·V) is checked as it opens
    fields = [w.key for w in at.number_input if str(w.key).startswith(lesson.key + ".")]
    for k, (kind, typed) in enumerate(KINDS.items()):
        for key in sample(fields, k):
            before = widgets(at, lesson.key + ".")
            at.number_input(key=key).set_value(typed)
            at.run()
            assert_clean(at, lesson)
            assert_others_kept(before, widgets(at, lesson.key + "."), {key})
            shown = at.number_input(key=key).value
            assert shown is not None and math.isfinite(shown), (kind, key, shown)
            if typed is None or not math.isfinite(typed) or shown != typed:  # said in words, naming the field
                label = at.number_input(key=key).label
                assert any(label in w.replace("\\", "") for w in warnings(at)), (kind, key, typed, shown)


@LESSONS
@pytest.mark.parametrize("lang", ["ja", "en"])
def test_every_number_field_says_beforehand_which_keys_it_types(lesson, lang):
    """Issue 20, defect 7: a browser's number field types nothing for a letter, so ``0x10`` arrives as 10 and the
    app never sees the x. What the page cannot hear afterwards it says beforehand: every number field's help (the
    "?" beside it) names the keys it types, in the page's language, with an example a student might type (a letter
    among digits: a new-user trial found "0x10" developer-speak) and its result."""
    from ui.i18n import t

    at = open_page(lesson, lang=lang)
    assert_clean(at, lesson)
    keys = t("num.keys", lang=lang)
    assert "2a5" in keys and "25" in keys.replace("2a5", "")  # the words give the example and its result
    for w in at.number_input:
        if str(w.key).startswith(lesson.key + "."):
            assert keys in str(w.help), (w.key, w.help)
