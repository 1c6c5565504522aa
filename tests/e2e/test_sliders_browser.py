"""Every slider of every lesson, by key and by mouse, on one page load per lesson: no key press is lost, a drag moves
the numbers before the release, and the page at rest equals a fresh load of its own link.

For every lesson in ``lessons.REGISTRY`` its page is opened and its sliders are found from the DOM (none named by
hand); the first, middle and last are tried (all of them in ``make test-all``: sliders.sliders_to_try). Each slider in
turn:
  * keys: ``PRESSES`` arrow presses 100 ms apart towards the end with more room (fewer when the range has fewer
    steps): the thumb stands at start ± n steps, and never jumped back on the way (a press made while it stood on
    an older value is a press lost);
  * drag: the thumb dragged a few steps towards its farther end and held: before the release, some chart of the
    page already shows other texts than before the drag; a slider inside a live fragment (ui.runtime.Page.live)
    never makes the whole app rerun while it is dragged (the sidebar's elements are marked stale only by a
    whole-app run);
  * keys at once after the release: ``KEYS_AFTER`` presses 100 ms apart all land, and the thumb never jumped back.
At the end the page's own link (the address bar, which the server writes from the lesson state) opened in a fresh
browser shows every slider at the same value, and the same text (numbers, formulas, shares) and the same chart
texts (cell numbers, ticks, titles, bar labels) as the page that was worked.
"""
from __future__ import annotations

import difflib
import math

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

import lessons

from . import sliders as SL
from .helpers import assert_no_exception, assert_no_page_errors


def _presses(page, lesson: str, k: int, label: str, n: int, up: bool) -> None:
    """``n`` arrow presses 100 ms apart on slider k (focused), right when ``up``; then at rest: the thumb moved n
    steps and never jumped back on the way."""
    inp = SL.slider_input(page, k)
    _, _, step, was = SL.numbers(inp)
    inp.focus()
    page.evaluate(SL.WATCH_JS, [SL.SLIDERS, k])
    for _ in range(n):
        page.keyboard.press("ArrowRight" if up else "ArrowLeft")
        page.wait_for_timeout(SL.GAP_MS)
    try:
        SL.at_rest(page)
    except PlaywrightTimeout:
        assert_no_exception(page)  # an error box or Streamlit's connection error says more than a timeout
        raise AssertionError(f"/{lesson} slider {k} ({label!r}): the app did not come to rest within 30 s of "
                             f"{n} presses from {was} (the thumb showed {page.evaluate('window.__thumbSeen')})"
                             ) from None
    seen = [float(v) for v in page.evaluate("window.__thumbSeen")]
    want = was + (n if up else -n) * step
    got = SL.numbers(SL.slider_input(page, k))[3]
    assert math.isclose(got, want, abs_tol=step * 1e-6), (
        f"/{lesson} slider {k} ({label!r}): {n} presses 100 ms apart from {was} went to {got}, not {want} "
        f"(the thumb showed {seen})")
    back = [(a, b) for a, b in zip(seen, seen[1:]) if (b - a) * (want - was) < 0]
    assert not back, (f"/{lesson} slider {k} ({label!r}): the thumb jumped back {back} while {n} presses "
                      f"took it from {was} to {want} (it showed {seen}): a press made then is lost")


def _room(page, k: int) -> tuple[bool, int]:
    """(towards the larger end?, how many steps there are that way) for slider k as it stands."""
    lo, hi, step, v = SL.numbers(SL.slider_input(page, k))
    up = round((hi - v) / step) >= round((v - lo) / step)
    return up, round(((hi - v) if up else (v - lo)) / step)


def _drag_and_release(page, lesson: str, k: int, label: str) -> float:
    """Drag slider k, hold until a chart follows, check what the drag reran, release; returns the value held."""
    box = page.locator(SL.SLIDERS).nth(k)
    in_fragment = box.evaluate(f"(e) => !!e.closest(\"{SL.LIVE}\")")
    before = page.evaluate(SL.CHART_TEXTS)
    page.evaluate(SL.WATCH_FRAME)
    v0, held = SL.drag(page, k, before)
    held_charts = page.evaluate(SL.CHART_TEXTS)
    full_runs = page.evaluate("() => window.__alFull")
    page.mouse.up()
    assert held != v0, f"/{lesson} slider {k} ({label!r}): the drag did not move the thumb from {v0}"
    assert held_charts != before, (f"/{lesson} slider {k} ({label!r}): thumb held at {held} (from {v0}) for "
                                   f"{SL.HOLD_MS} ms, every chart still shows the numbers of {v0}")
    if in_fragment:
        assert full_runs == 0, (f"/{lesson} slider {k} ({label!r}) sits in a live fragment, yet its drag "
                                f"reran the whole app ({full_runs} sidebar elements marked stale)")
    return held


def _equals_a_fresh_load(tabs, page, lesson: str) -> None:
    worked = page.evaluate(SL.PAGE_JS)
    again, errors = SL.fresh_load(tabs, page)
    assert_no_page_errors(errors)
    assert again["sliders"] == worked["sliders"], f"/{lesson}: the link opens other slider values"
    for _ in range(SL.CATCH_UP_S * 10):  # a loaded machine may still be drawing what the last press sent
        if worked["text"] == again["text"] and worked["charts"] == again["charts"]:
            break
        page.wait_for_timeout(100)
        worked = page.evaluate(SL.PAGE_JS)
    late = f"/{lesson}: {SL.CATCH_UP_S} s after coming to rest:\n"
    assert again["text"] == worked["text"], late + "\n".join(difflib.unified_diff(
        worked["text"].splitlines(), again["text"].splitlines(), "worked", "fresh load", lineterm="", n=1))
    assert len(again["charts"]) == len(worked["charts"])
    for i, (a, b) in enumerate(zip(again["charts"], worked["charts"])):
        assert a == b, f"/{lesson}: chart {i}'s texts differ from a fresh load of the link: {set(a) ^ set(b)}"


@pytest.mark.parametrize("lesson", [x.key for x in lessons.REGISTRY])
def test_keys_and_drags_land_on_every_slider_and_the_page_equals_its_link(tabs, page, page_errors, app_server,
                                                                         lesson):
    page.goto(f"{app_server}/{lesson}")
    SL.sliders_at_rest(page, lesson)
    for k in SL.sliders_to_try(page.locator(SL.SLIDERS).count()):
        SL.slider_input(page, k).scroll_into_view_if_needed()
        label = page.locator(SL.SLIDERS).nth(k).locator("label").first.inner_text()
        up, room = _room(page, k)
        assert room > 0, f"/{lesson} slider {k} ({label!r}): no room to move"
        _presses(page, lesson, k, label, min(SL.PRESSES, room), up)
        _drag_and_release(page, lesson, k, label)
        up, room = _room(page, k)
        if room:
            _presses(page, lesson, k, label, min(SL.KEYS_AFTER, room), up)
        else:
            SL.at_rest(page)
        assert_no_exception(page)
    _equals_a_fresh_load(tabs, page, lesson)
    assert_no_page_errors(page_errors)
