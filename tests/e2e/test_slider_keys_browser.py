"""No key press is lost on any slider of any lesson (issue 18): presses 100 ms apart all land.

For every lesson in ``lessons.REGISTRY`` its page is opened and every slider on it is found from the DOM (Streamlit's
``stSlider`` elements; their range input holds min, max, step and value, for a select_slider the option's index), none
named by hand; the first, middle and last are tried (all of them with ATTN_LAB_EVERY_SLIDER=1: sliders_to_try). Each
slider in turn gets 4 arrow presses 100 ms apart, towards the end with more room (fewer when the
range has fewer steps), as many back, and again. Each time:
  * the thumb stands at start ± n steps (n the presses made);
  * the thumb never jumped back on the way (a press made while it stood on an older value is a press lost).
At the end:
  * the page's numbers are those of that value: the page's own link (the address bar, which the server writes from the
    lesson state) opened in a fresh browser shows every slider at the same value, and the same text (numbers,
    formulas, shares) and the same chart texts (cell numbers, ticks, titles, bar labels) as the page that was pressed.

On the code before issue 18 (057a123) the select_sliders on /scaling (d_k, temperature), whose value the binding wrote
back into the widget on every run, lost presses: a run's value reached the browser after later presses and pulled the
thumb back to it (seen here as 6 → 2 → 4 → 2), and a press made then started from the older value.
"""
from __future__ import annotations

import difflib
import math
import os

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

import lessons

from .helpers import APP_READY, assert_no_exception, assert_no_page_errors

PRESSES = 4
GAP_MS = 100
CATCH_UP_S = 5  # how long the pressed page may still take to show its last numbers once at rest
SLIDERS = "[data-testid='stMain'] [data-testid='stSlider']"
TITLE = "[data-testid='stMain'] h1"  # a lesson page's title (ui.runtime.run), drawn in the run that draws its controls

# Every chart's texts (a multiset: a chart patched in place may hold its texts in another order than one drawn anew),
# in page order; the main area's text; every slider's value.
PAGE_JS = """() => ({
  charts: [...document.querySelectorAll("[data-testid='stMain'] .js-plotly-plot")].map(
      p => [...p.querySelectorAll('.main-svg text')].map(t => t.textContent).sort()),
  text: document.querySelector("[data-testid='stMain']").innerText,
  sliders: [...document.querySelectorAll("__SLIDERS__")].map(s => s.querySelector('input[type=range]').value),
})""".replace("__SLIDERS__", SLIDERS)


# The values slider k's thumb shows, each change, from now on (every animation frame; the input may be redrawn).
WATCH_JS = """([sel, k]) => {
  const seen = window.__thumbSeen = [];
  const read = () => {
    const s = document.querySelectorAll(sel)[k];
    return s && s.querySelector('input[type=range]').value;
  };
  seen.push(read());
  cancelAnimationFrame(window.__thumbRaf || 0);
  const tick = () => { const v = read(); if (v != null && v !== seen[seen.length - 1]) seen.push(v);
                       window.__thumbRaf = requestAnimationFrame(tick); };
  window.__thumbRaf = requestAnimationFrame(tick);
}"""


def at_rest(page, still_ms: int = 600, timeout_s: float = 30) -> None:
    """Wait until the app has been at rest (no run requested or running), with every chart drawn and no chart redraw
    waiting or running (the charts out of view are redrawn after those in view, one per task), for ``still_ms``
    without a break: no change of the DOM, of the address or of the charts drawn and patched in that time. (CI's
    loaded machine once compared a page whose Q and score charts still showed the value before the last press.)"""
    page.wait_for_function("""([sel, still]) => {
      if (window.__restMutations === undefined) {
        window.__restMutations = 0;
        new MutationObserver((r) => { window.__restMutations += r.length; })
          .observe(document, { childList: true, subtree: true, characterData: true });
      }
      const stats = window.__attentionLabStats;
      const charts = document.querySelectorAll("[data-testid='stMain'] .al-plot");
      const idle = document.querySelectorAll(sel).length === 1 && !(stats && stats.busy)
          && [...charts].every(c => c.classList.contains('js-plotly-plot')), now = performance.now();
      const seen = JSON.stringify([window.__restMutations, location.href, stats ? [stats.drawn, stats.patched] : 0]);
      if (!idle || seen !== window.__restSeen) {
        window.__restSeen = seen;
        window.__restSince = idle ? now : null;
        return false;
      }
      return now - window.__restSince >= still;
    }""", arg=[APP_READY, still_ms], polling=50, timeout=timeout_s * 1000)


def fresh_load(browser, page) -> tuple[dict, list]:
    """The page's own link (its address) opened in a fresh browser context of the same size, at rest: its PAGE_JS
    reading, and the page errors it raised."""
    ctx = browser.new_context(viewport=page.viewport_size)
    try:
        fresh = ctx.new_page()
        errors = []
        fresh.on("pageerror", lambda e: errors.append(e))
        fresh.goto(page.url)
        fresh.wait_for_selector(SLIDERS, timeout=60_000)
        at_rest(fresh)
        return fresh.evaluate(PAGE_JS), errors
    finally:
        ctx.close()


def slider_input(page, k: int):
    return page.locator(SLIDERS).nth(k).locator("input[type='range']")


def numbers(inp) -> tuple[float, float, float, float]:
    """(min, max, step, value) of a slider's range input."""
    return tuple(float(inp.get_attribute(a) if a != "value" else inp.input_value()) for a in ("min", "max", "step",
                                                                                              "value"))


def sliders_to_try(count: int) -> list[int]:
    """Which of a page's ``count`` sliders the registry-wide slider suites try: all of them when the environment
    variable ATTN_LAB_EVERY_SLIDER is 1 (before a release; README), else the first, the middle one and the last
    (every slider is drawn through the same ui.bind.control / ui.drag.slider; trying all of them on every lesson took
    about 9 of CI's 17 minutes)."""
    if os.environ.get("ATTN_LAB_EVERY_SLIDER") == "1":
        return list(range(count))
    return sorted({0, count // 2, count - 1}) if count else []


def sliders_at_rest(page, lesson: str) -> None:
    """Wait for the lesson's title (up to 60 s: a cold server) and for the page to come to rest; a page that shows
    no slider then is skipped with that reason (the registry-wide slider suites). (Waiting for a slider first cost
    a page without one 20 s.)"""
    page.wait_for_selector(TITLE, timeout=60_000)
    at_rest(page)
    if not page.locator(SLIDERS).count():
        try:  # (a page once came to rest with its title and no slider yet)
            page.wait_for_selector(SLIDERS, timeout=5_000)
        except PlaywrightTimeout:
            pytest.skip(f"/{lesson}: its page has no slider")
        at_rest(page)


@pytest.mark.parametrize("lesson", [x.key for x in lessons.REGISTRY])
def test_quick_presses_land_on_every_slider_and_the_numbers_follow(browser, page, page_errors, app_server, lesson):
    page.goto(f"{app_server}/{lesson}")
    sliders_at_rest(page, lesson)
    count = page.locator(SLIDERS).count()
    for k in sliders_to_try(count):
        inp = slider_input(page, k)
        inp.scroll_into_view_if_needed()
        lo, hi, step, start = numbers(inp)
        up = round((hi - start) / step) >= round((start - lo) / step)
        n = min(PRESSES, round(((hi - start) if up else (start - lo)) / step))
        assert n > 0, f"/{lesson} slider {k}: no room to move ({lo}..{hi}, step {step}, at {start})"
        label = page.locator(SLIDERS).nth(k).locator("label").first.inner_text()
        for there in (True, False, True):  # n presses one way, n back, n that way again
            inp = slider_input(page, k)
            was = numbers(inp)[3]
            inp.focus()
            page.evaluate(WATCH_JS, [SLIDERS, k])
            for _ in range(n):
                page.keyboard.press("ArrowRight" if up == there else "ArrowLeft")
                page.wait_for_timeout(GAP_MS)
            try:
                at_rest(page)
            except PlaywrightTimeout:
                assert_no_exception(page)  # an error box or Streamlit's connection error says more than a timeout
                raise AssertionError(f"/{lesson} slider {k} ({label!r}): the app did not come to rest within 30 s of "
                                     f"{n} presses from {was} (the thumb showed {page.evaluate('window.__thumbSeen')})"
                                     ) from None
            seen = [float(v) for v in page.evaluate("window.__thumbSeen")]
            want = was + (n if up == there else -n) * step
            got = numbers(slider_input(page, k))[3]
            assert math.isclose(got, want, abs_tol=step * 1e-6), (
                f"/{lesson} slider {k} ({label!r}): {n} presses 100 ms apart from {was} went to {got}, not {want} "
                f"(the thumb showed {seen})")
            back = [(a, b) for a, b in zip(seen, seen[1:]) if (b - a) * (want - was) < 0]
            assert not back, (f"/{lesson} slider {k} ({label!r}): the thumb jumped back {back} while {n} presses "
                              f"took it from {was} to {want} (it showed {seen}): a press made then is lost")
        assert_no_exception(page)

    # the numbers on the page are those of the values the thumbs show: a fresh load of the page's link agrees
    pressed = page.evaluate(PAGE_JS)
    again, errors = fresh_load(browser, page)
    assert_no_page_errors(errors)
    assert again["sliders"] == pressed["sliders"], f"/{lesson}: the link opens other slider values"
    for _ in range(CATCH_UP_S * 10):  # a loaded machine (CI) may still be drawing what the last press sent
        if pressed["text"] == again["text"] and pressed["charts"] == again["charts"]:
            break
        page.wait_for_timeout(100)
        pressed = page.evaluate(PAGE_JS)
    late = f"/{lesson}: {CATCH_UP_S} s after coming to rest:\n"
    assert again["text"] == pressed["text"], late + "\n".join(difflib.unified_diff(
        pressed["text"].splitlines(), again["text"].splitlines(), "pressed", "fresh load", lineterm="", n=1))
    assert len(again["charts"]) == len(pressed["charts"])
    for i, (a, b) in enumerate(zip(again["charts"], pressed["charts"])):
        assert a == b, f"/{lesson}: chart {i}'s texts differ from a fresh load of the link: {set(a) ^ set(b)}"
    assert_no_page_errors(page_errors)
