"""Sliders in the real browser: found from the DOM, pressed with keys, dragged with the mouse, and the page at rest
compared with a fresh load of its own link. Shared by the slider suites (test_sliders_browser.py,
test_drag_preview_browser.py); nothing here names a lesson.

A page's sliders are Streamlit's ``stSlider`` elements in the main area; their range input holds min, max, step and
value (for a select_slider the option's index).
"""
from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from . import helpers
from .helpers import SIDEBAR, exhaustive

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
    """helpers.at_rest for ``still_ms`` (a page is not read while a chart still shows the value before the last
    press)."""
    helpers.at_rest(page, quiet_ms=still_ms, timeout_s=timeout_s)


def fresh_load(tabs, page) -> tuple[dict, list]:
    """The page's own link (its address) opened in a new tab (helpers.Tabs) of the same size, at rest: its PAGE_JS
    reading, and the page errors it raised."""
    fresh = tabs.new_page(viewport=page.viewport_size)
    try:
        errors = []
        fresh.on("pageerror", lambda e: errors.append(e))
        fresh.goto(page.url)
        fresh.wait_for_selector(SLIDERS, timeout=60_000)
        at_rest(fresh)
        return fresh.evaluate(PAGE_JS), errors
    finally:
        fresh.close()


def slider_input(page, k: int):
    return page.locator(SLIDERS).nth(k).locator("input[type='range']")


def numbers(inp) -> tuple[float, float, float, float]:
    """(min, max, step, value) of a slider's range input."""
    return tuple(float(inp.get_attribute(a) if a != "value" else inp.input_value()) for a in ("min", "max", "step",
                                                                                              "value"))


def sliders_to_try(count: int) -> list[int]:
    """Which of a page's ``count`` sliders the registry-wide slider suites try: the first, the middle one and the last
    (every slider is drawn through the same ui.bind.control / ui.drag.slider); all of them in ``make test-all``."""
    if exhaustive():
        return list(range(count))
    return sorted({0, count // 2, count - 1}) if count else []


def sliders_at_rest(page, lesson: str) -> None:
    """Wait for the lesson's title (up to 60 s: a cold server) and for the page to come to rest; a page that shows
    no slider then is skipped with that reason (the registry-wide slider suites)."""
    page.wait_for_selector(TITLE, timeout=60_000)
    at_rest(page)
    if not page.locator(SLIDERS).count():
        try:  # a page may come to rest with its title before its sliders
            page.wait_for_selector(SLIDERS, timeout=5_000)
        except PlaywrightTimeout:
            pytest.skip(f"/{lesson}: its page has no slider")
        at_rest(page)


HOLD_MS = 8000
"""The pointer stays down at most this long after the last move of a drag: the relayed values must show by then (the
wait ends as soon as a chart changes; the run at the pointerdown may build several figures' frames first)."""
KEYS_AFTER = 4  # arrow presses made at once after a release (the focus stays on the thumb): all must land
STEPS = 4
LIVE = "[class*='st-key-al-live-']"

CHART_TEXTS = """() => [...document.querySelectorAll("[data-testid='stMain'] .js-plotly-plot")].map(
    p => [...p.querySelectorAll('.main-svg text')].map(t => t.textContent).sort().join('|'))"""
# Streamlit marks the elements of the part that reruns as stale at the start of the run (data-stale="true"): the
# sidebar's only in a whole-app run. Counted from the moment of the mark.
WATCH_FRAME = f"""() => {{ window.__alFull = 0; if (window.__alFullObs) window.__alFullObs.disconnect();
  const obs = window.__alFullObs = new MutationObserver((ms) => {{
    for (const m of ms) if (m.target.getAttribute('data-stale') === 'true') window.__alFull += 1; }});
  obs.observe(document.querySelector("{SIDEBAR}"),
              {{subtree: true, attributes: true, attributeFilter: ['data-stale']}});
}}"""


def drag(page, k: int, before: list) -> tuple[float, float]:
    """Drag slider k by STEPS steps towards its farther end and hold until some chart's texts differ from ``before``
    (at most HOLD_MS); returns (value before, thumb's value held)."""
    inp = slider_input(page, k)
    inp.scroll_into_view_if_needed()
    lo, hi, step, v0 = numbers(inp)
    sign = 1 if hi - v0 >= v0 - lo else -1
    n = min(STEPS, round(((hi - v0) if sign > 0 else (v0 - lo)) / step))
    knob = inp.locator("xpath=../..").bounding_box()  # the thumb (input → its hidden wrapper → the thumb)
    track = inp.locator("xpath=../../..").bounding_box()
    x0, y0 = knob["x"] + knob["width"] / 2, knob["y"] + knob["height"] / 2
    dx = sign * (n + 0.3) * step / (hi - lo) * track["width"]
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x0 + dx, y0, steps=8)
    try:
        page.wait_for_function(f"(before) => JSON.stringify(({CHART_TEXTS})()) !== JSON.stringify(before)",
                               arg=before, polling=50, timeout=HOLD_MS)
    except PlaywrightTimeout:
        pass  # the caller says what the charts showed
    return v0, numbers(slider_input(page, k))[3]


