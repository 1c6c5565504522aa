"""An A/B difference in Chromium (issue 25 §2), for every registered lesson: the page opened from a link holding A
(the default setting, in ``pin``) and B (one change the page's controls can make, of the same shape) draws A, B and
B − A, whose cells say B − A of the lesson's numbers (to the 2 decimals a cell shows), and names the largest change
in words; pinning from the page puts A in the address bar."""
from __future__ import annotations

from urllib.parse import urlencode

import numpy as np
import pytest

import lessons
from lessons import link
from lessons.cells import Refusal
from ui.compare import array_title
from ui.i18n import t
from ui.numbers import num

from .helpers import APP_READY, assert_no_exception, cells, query_of, sel, wait_for_app

REGISTRY = list(lessons.REGISTRY)


def _array(lesson, names) -> str:
    p = lesson.predict
    return p.weights if p is not None and p.weights in names else names[0]


def _choices(field):
    if isinstance(field, link.Flag):
        return [True, False]
    if isinstance(field, link.Choice):
        return list(field.choices)
    if isinstance(field, link.Int):
        return list(field.allowed or ()) or [field.hi, field.lo, (field.lo + field.hi) // 2]
    if isinstance(field, link.Decimal):
        return list(field.allowed or ()) or [field.hi, field.lo]
    return None


def state_b(lesson, a):
    """B: ``one_edit`` of A when the lesson declares it and it changes the compared array, else the first change of
    one of its scalar controls (in the order of their names) that changes the array and keeps its shape; else the
    first that changes its shape. Returns (B, same shape)."""
    name = _array(lesson, list(lesson.arrays(a)))
    x = lesson.arrays(a)[name]

    def changes(b) -> bool:
        y = lesson.arrays(b).get(name)
        return y is not None and (y.shape != x.shape or not np.allclose(x, y))

    candidates = [lesson.one_edit(a)] if lesson.one_edit is not None else []
    moves = lesson.all_transitions()
    for key in sorted(moves):
        options = [_choices(f) for f in moves[key].args]
        if not moves[key].args or any(o is None for o in options):
            continue
        for value in options[0]:
            try:
                candidates.append(moves[key].apply(a, value, *[o[0] for o in options[1:]]))
            except Refusal:
                continue
    found = [b for b in candidates if changes(b)]
    same = [b for b in found if lesson.arrays(b)[name].shape == x.shape]
    assert found, f"{lesson.key}: no control changes {name!r}"
    return (same[0], True) if same else (found[0], False)


def _value(text: str) -> float:
    """A cell's text as a number ("−0.03" → -0.03; ">−0.01" → -0.005; "<0.01" → 0.005)."""
    text = text.replace("−", "-")
    if text.startswith((">", "<")):
        bound = float(text[1:])
        return bound / 2
    return float(text)


def _difference(page, key, panel, a, b) -> None:
    """The difference chart's cells are B − A (as written to 2 decimals) and the largest change is named."""
    page.wait_for_timeout(500)
    texts = cells(page, key)
    finite = np.isfinite(a) & np.isfinite(b)
    want = np.where(finite, b - a, 0.0)
    shown = [x for x in texts if x.strip()]
    assert len(shown) == int(finite.sum()), (len(shown), texts)
    got = np.array([_value(x) for x in shown])
    assert np.allclose(got, want[finite], atol=0.0051), (got, want[finite])
    change = np.where(finite, np.abs(b - a), -1)
    r, c = np.unravel_index(np.argmax(change), change.shape)
    assert f"{num(a[r, c])} → {num(b[r, c])}" in panel.inner_text()


@pytest.mark.parametrize("i, lesson", list(enumerate(REGISTRY)), ids=[x.key for x in REGISTRY])
def test_an_a_b_difference(tabs, app_server, i, lesson):
    lang = ("ja", "en")[i % 2]
    a_state = lesson.default_state()
    b_state, same_shape = state_b(lesson, a_state)
    name = _array(lesson, list(lesson.arrays(b_state)))
    a, b = np.atleast_2d(lesson.arrays(a_state)[name]), np.atleast_2d(lesson.arrays(b_state)[name])
    params = {**lesson.encode(b_state), "compare": "1", "pin": urlencode(lesson.encode(a_state)), "lang": lang}
    page = tabs.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(f"{app_server}/{lesson.key}?" + urlencode(params))
        wait_for_app(page)
        panel = page.locator(f"[class*='st-key-compare-panel-{lesson.key}']")
        if not same_shape:  # another shape: A and B side by side, said, no difference
            for fig in ("a", "b"):
                page.locator(f"{sel(f'compare.{lesson.key}.fig.{fig}')} .js-plotly-plot").wait_for(timeout=30_000)
            shapes = ("×".join(map(str, lesson.arrays(x)[name].shape)) for x in (a_state, b_state))
            said = t("compare.shapes", lang=lang, name=array_title(lesson.key, name, lang), a=next(shapes),
                     b=next(shapes))
            assert said[:30] in panel.inner_text(), (said, panel.inner_text())
            assert page.locator(sel(f"compare.{lesson.key}.fig.diff")).count() == 0
        key = f"compare.{lesson.key}.fig.diff"
        if same_shape:
            page.locator(f"{sel(key)} .js-plotly-plot").wait_for(timeout=30_000)
            page.locator(sel(key)).scroll_into_view_if_needed()
            _difference(page, key, panel, a, b)
            assert_no_exception(page)

        page.goto(f"{app_server}/{lesson.key}?lang={lang}")  # pinning on the page
        wait_for_app(page)
        page.get_by_text(t("compare.switch", lang=lang), exact=True).click()
        page.wait_for_selector(APP_READY, timeout=30_000)
        page.get_by_role("button", name=t("compare.pin", lang=lang)).click()
        page.wait_for_timeout(500)
        page.wait_for_selector(APP_READY, timeout=30_000)
        page.wait_for_function("() => new URLSearchParams(location.search).has('pin')", timeout=15_000)
        assert query_of(page.url)["pin"] == [urlencode(lesson.encode(a_state))]
    finally:
        page.close()
