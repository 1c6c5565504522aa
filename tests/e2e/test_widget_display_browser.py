"""What a bound field or choice shows is the lesson's state (ui.widgets.sync), in Chromium, in two cases a new-user
trial met on 2b66c8e..b0ee6c5:

- a page opened at 1024×768 showed some fields empty (the sentence, the seed, the book values) in about 1 load of 5,
  while the charts used the default sentence: the page's first run, which wrote the fields, was cut short by the run
  for the window's width, and the next run did not write them again (the values were equal). Measured with these
  loads: 4 of 20 on the old code, 0 of 30 after;
- /scaling's nine book values in three cards side by side left each number field too narrow to show its number;
- a new sentence kept the query's choice at index 0, and the choice went on showing the old text "1: 犬" over the new
  options 1: 鳥 / 2: が / 3: 飛ぶ.
"""
from __future__ import annotations

import pytest

import lessons
from ui.i18n import table

from .helpers import sel, wait_for_app

FIELDS = "[data-testid=stTextInput] input, [data-testid=stNumberInput] input, [data-testid=stTextArea] textarea"
TYPED = [x for x in lessons.REGISTRY if x.text_fields]
NARROW_NUMBERS = """() => [...document.querySelectorAll('[data-testid=stNumberInput] input')]
  .filter((e) => e.clientWidth < 36).map((e) => `${e.getAttribute('aria-label')}: ${e.clientWidth} px`)"""
"""Number fields narrower than "−10.5" at 14 px (~34 px): /scaling's book values were 0-10 px wide at 1024×768."""


@pytest.fixture(scope="module")
def narrow(tabs):
    """A new tab at 1024×768 for each call (each load a new session)."""
    return lambda: tabs.new_page(viewport={"width": 1024, "height": 768})


@pytest.mark.parametrize("lesson", TYPED, ids=[x.key for x in TYPED])
def test_no_field_opens_empty_on_a_narrow_projector(narrow, app_server, lesson):
    for _ in range(2):  # each load a new session, its first run followed at once by the width's
        page = narrow()
        try:
            page.goto(f"{app_server}/{lesson.key}?lang=ja")
            wait_for_app(page)
            values = page.evaluate(f"() => [...document.querySelectorAll({FIELDS!r})].map((e) => e.value)")
            cut = page.evaluate(NARROW_NUMBERS)
        finally:
            page.close()
        assert values, f"/{lesson.key} draws no field"
        assert all(v != "" for v in values), f"/{lesson.key} at 1024×768: a field shows nothing: {values}"
    assert not cut, f"/{lesson.key} at 1024×768: number fields too narrow for their number: {cut}"


def test_a_new_sentence_relabels_the_chosen_token(page, app_server):
    page.goto(f"{app_server}/qkv?lang=ja")
    wait_for_app(page)
    field = page.locator(f"{sel('qkv.text')} input")
    field.fill("鳥 が 飛ぶ")
    field.press("Enter")
    page.wait_for_timeout(300)
    wait_for_app(page)
    shown = {page.locator(f"{sel(k)} input").first.get_attribute("aria-label"):
             page.locator(f"{sel(k)} input").first.input_value() for k in ("qkv.cell:i", "qkv.query")}
    assert all(v.endswith("鳥") for v in shown.values()), f"the choices still show the old sentence: {shown}"
    # the language switched: the colour choice shows its option in the new language (it kept 既定 after English)
    page.locator("[data-testid='stSidebar']").get_by_text(table("en")["frame.lang_en"], exact=True).click()
    wait_for_app(page)
    shown = page.locator(f"{sel('frame.colors.choice')} input").first.input_value()  # the option it shows
    want = table("en")["scheme.default"]
    assert want in shown, f"after English, the colour choice shows {shown!r}, not {want!r}"
