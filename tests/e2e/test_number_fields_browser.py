"""Letters typed into a number field (issue 20, defect 7): Chromium's number input takes digits, a sign, a point and
an exponent only, so "abc" or "nan" leave it empty and the app receives no number. The notice says that the field
holds no number and why, not only "the field was empty" (which the person, who pressed keys, could not make sense
of). Every lesson page's number fields are found from the DOM, none named by hand."""
from __future__ import annotations

import pytest

import lessons
from ui.i18n import table

from .helpers import assert_no_exception, assert_no_page_errors, wait_for_app

FIELDS = "[data-testid='stMain'] [data-testid='stNumberInput'] input"


CASES = [(x.key, ("ja", "en")[i % 2]) for i, x in enumerate(lessons.REGISTRY)]
"""Every lesson once, the languages taken in turn (the notice and its binding are shared: ui.bind.number; both
languages' words are checked by tests/ui): half the browser time of every lesson in both (CI budget)."""


@pytest.mark.parametrize("lesson, lang", CASES, ids=["-".join(c) for c in CASES])
def test_letters_in_a_number_field_are_said_in_words(page, page_errors, app_server, lesson, lang):
    page.goto(f"{app_server}/{lesson}?lang={lang}")
    wait_for_app(page)
    page.wait_for_timeout(1500)
    if page.locator(FIELDS).count() == 0:
        pytest.skip(f"/{lesson} draws no number field")
    words = table(lang)["notice.number_empty"].split("{label}")[1].split("{used}")[0]
    field = page.locator(FIELDS).first
    field.scroll_into_view_if_needed()
    before = field.input_value()
    field.click()
    field.press("Control+a")
    page.keyboard.type("abc")
    field.press("Enter")
    page.wait_for_function("(w) => [...document.querySelectorAll(\"[data-testid='stAlert']\")]"
                           ".some(a => a.innerText.includes(w))", arg=words, timeout=20_000)
    wait_for_app(page)
    assert page.locator(FIELDS).first.input_value() == before  # the old value is kept, as the notice says
    assert_no_exception(page)
    assert_no_page_errors(page_errors)
