"""No key press is lost on any slider of any lesson (issue 18): presses 100 ms apart all land.

For every lesson in ``lessons.REGISTRY`` its page is opened and every slider on it is found from the DOM (Streamlit's
``stSlider`` elements; their range input holds min, max, step and value, for a select_slider the option's index), none
named by hand. Each slider in turn gets 4 arrow presses 100 ms apart, towards the end with more room (fewer when the
range has fewer steps). Then:
  * the thumb stands at start ± n steps (n the presses made);
  * the page's numbers are those of that value: the page's own link (the address bar, which the server writes from the
    lesson state) opened in a fresh browser shows every slider at the same value, and the same text (numbers,
    formulas, shares) and the same chart texts (cell numbers, ticks, titles, bar labels) as the page that was pressed.

On the code before issue 18 (057a123) the temperature select_slider on /scaling, whose value the binding wrote back
into the widget on every run, lost presses (the thumb ended one or two steps short).
"""
from __future__ import annotations

import difflib
import math

import pytest

import lessons

from .helpers import APP_READY, assert_no_exception, assert_no_page_errors

PRESSES = 4
GAP_MS = 100
SLIDERS = "[data-testid='stMain'] [data-testid='stSlider']"

# Every chart's texts (a multiset: a chart patched in place may hold its texts in another order than one drawn anew),
# in page order; the main area's text; every slider's value.
PAGE_JS = """() => ({
  charts: [...document.querySelectorAll("[data-testid='stMain'] .js-plotly-plot")].map(
      p => [...p.querySelectorAll('.main-svg text')].map(t => t.textContent).sort()),
  text: document.querySelector("[data-testid='stMain']").innerText,
  sliders: [...document.querySelectorAll(%r)].map(s => s.querySelector('input[type=range]').value),
})""" % SLIDERS


def at_rest(page, still_ms: int = 600, timeout_s: float = 30) -> None:
    """Wait until the app has been at rest (no run requested or running), with every chart drawn, for ``still_ms``
    without a break (the charts out of view are drawn after those in view)."""
    page.wait_for_function("""([sel, still]) => {
      const charts = document.querySelectorAll("[data-testid='stMain'] .al-plot");
      const idle = document.querySelectorAll(sel).length === 1
          && [...charts].every(c => c.classList.contains('js-plotly-plot')), now = performance.now();
      if (!idle) { window.__restSince = null; return false; }
      window.__restSince = window.__restSince || now;
      return now - window.__restSince >= still;
    }""", arg=[APP_READY, still_ms], polling=50, timeout=timeout_s * 1000)


def slider_input(page, k: int):
    return page.locator(SLIDERS).nth(k).locator("input[type='range']")


def numbers(inp) -> tuple[float, float, float, float]:
    """(min, max, step, value) of a slider's range input."""
    return tuple(float(inp.get_attribute(a) if a != "value" else inp.input_value()) for a in ("min", "max", "step",
                                                                                              "value"))


@pytest.mark.parametrize("lesson", [x.key for x in lessons.REGISTRY])
def test_quick_presses_land_on_every_slider_and_the_numbers_follow(browser, page, page_errors, app_server, lesson):
    page.goto(f"{app_server}/{lesson}")
    page.wait_for_selector(SLIDERS, timeout=60_000)  # every lesson page has sliders
    at_rest(page)
    count = page.locator(SLIDERS).count()
    for k in range(count):
        inp = slider_input(page, k)
        inp.scroll_into_view_if_needed()
        lo, hi, step, start = numbers(inp)
        up = round((hi - start) / step) >= round((start - lo) / step)
        n = min(PRESSES, round(((hi - start) if up else (start - lo)) / step))
        assert n > 0, f"/{lesson} slider {k}: no room to move ({lo}..{hi}, step {step}, at {start})"
        inp.focus()
        for _ in range(n):
            page.keyboard.press("ArrowRight" if up else "ArrowLeft")
            page.wait_for_timeout(GAP_MS)
        at_rest(page)
        want = start + (n if up else -n) * step
        got = numbers(slider_input(page, k))[3]
        label = page.locator(SLIDERS).nth(k).locator("label").first.inner_text()
        assert math.isclose(got, want, abs_tol=step * 1e-6), (
            f"/{lesson} slider {k} ({label!r}): {n} presses 100 ms apart from {start} went to {got}, not {want}")
        assert_no_exception(page)

    # the numbers on the page are those of the values the thumbs show: a fresh load of the page's link agrees
    pressed = page.evaluate(PAGE_JS)
    ctx = browser.new_context(viewport=page.viewport_size)
    try:
        fresh = ctx.new_page()
        errors = []
        fresh.on("pageerror", lambda e: errors.append(e))
        fresh.goto(page.url)
        fresh.wait_for_selector(SLIDERS, timeout=60_000)
        at_rest(fresh)
        again = fresh.evaluate(PAGE_JS)
        assert_no_page_errors(errors)
    finally:
        ctx.close()
    assert again["sliders"] == pressed["sliders"], f"/{lesson}: the link opens other slider values"
    assert again["text"] == pressed["text"], "\n".join(difflib.unified_diff(
        pressed["text"].splitlines(), again["text"].splitlines(), "pressed", "fresh load", lineterm="", n=1))
    assert len(again["charts"]) == len(pressed["charts"])
    for i, (a, b) in enumerate(zip(again["charts"], pressed["charts"])):
        assert a == b, f"/{lesson}: chart {i}'s texts differ from a fresh load of the link: {set(a) ^ set(b)}"
    assert_no_page_errors(page_errors)
