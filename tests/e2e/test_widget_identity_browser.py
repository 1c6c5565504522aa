"""A field keeps what is being typed into it while the run of another field's change arrives, on every lesson with
text fields (``Lesson.text_fields``), in Chromium.

Streamlit's browser identifies an element by its place on the page. A note that comes or goes with a sentence (cut at
16 tokens, split by janome, repeated tokens) took a place of its own on /masks, so a new first sentence moved every
later element one place down and the browser remounted them: the second sentence field, a new <input>, lost the text
being typed into it (CI of stop 37: test_hostile_text_browser[masks], '~~s~~ `c` …' typed into sentence 2 while
sentence 1's run arrived was not on screen). The notes now sit in a container that is always there
(``ui.widgets.token_notices``) and /masks's and /scaling's sections each in their own (``ui.slots.sections``).

Here every field a person types into (text, number) is marked in the DOM; then each text field in turn gets a sentence
that brings every note and then its old text back (the notes go again); after each run every field must still be
the node that was marked. On the code before the fix /masks's second sentence field was a new node after the first
step.
"""
from __future__ import annotations

import pytest

import lessons

from .helpers import wait_for_app

TYPED = [x for x in lessons.REGISTRY if x.text_fields]
FIELDS = "[data-testid=stTextInput] input, [data-testid=stNumberInput] input, [data-testid=stTextArea] textarea"
NOTES = "猫が魚を食べて犬が猫を見て鳥が空を飛んで魚が海を泳いで猫が寝る"  # > 16 tokens, split by janome, repeats
"""A sentence that brings all three token notes: more than 16 tokens (cut), no spaces (janome), 猫 three times."""

MARK = f"""() => {{
    const fields = [...document.querySelectorAll({FIELDS!r})];
    fields.forEach((e, k) => {{ e.__alMark = k + 1; }});
    return fields.map((e) => e.getAttribute('aria-label'));
}}"""
REMOUNTED = f"""() => [...document.querySelectorAll({FIELDS!r})]
    .filter((e) => !e.__alMark).map((e) => e.getAttribute('aria-label'))"""
GONE = f"""(n) => {{
    const seen = new Set([...document.querySelectorAll({FIELDS!r})].map((e) => e.__alMark));
    return Array.from({{length: n}}, (_, k) => k + 1).filter((k) => !seen.has(k));
}}"""


def _settle(page) -> None:
    """The run of an Enter has been asked for, has ended, and the page is at rest (helpers.wait_for_app: the frame
    the Enter sent is answered)."""
    wait_for_app(page, timeout_ms=60_000)


@pytest.mark.parametrize("lesson", TYPED, ids=[x.key for x in TYPED])
def test_a_sentence_run_remounts_no_field(page, app_server, lesson):
    page.goto(f"{app_server}/{lesson.key}?lang=en")
    page.wait_for_selector(f"[class*='st-key-{lesson.key}-']", timeout=30_000)
    _settle(page)
    labels = page.evaluate(MARK)
    texts = page.locator(f"[class*='st-key-{lesson.key}-'] [data-testid='stTextInput'] input")
    n = texts.count()
    assert n >= len(lesson.text_fields), f"/{lesson.key}: {n} text fields drawn, {len(lesson.text_fields)} declared"
    problems = []
    for k in range(n):
        box = texts.nth(k)
        old = box.input_value()
        for text in (NOTES, old):
            box.fill(text)
            box.press("Enter")
            _settle(page)
            remounted, gone = page.evaluate(REMOUNTED), page.evaluate(GONE, len(labels))
            if remounted or gone:
                problems.append(f"text field {k + 1} set to {text!r}: fields drawn anew {remounted}, "
                                f"fields gone {[labels[g - 1] for g in gone]}")
    assert not problems, f"/{lesson.key}: " + "\n".join(problems)
