"""Presentation mode (ui/present.py, issue 24 part 1) in Chromium, on every registered lesson at 1280×720:

- the keyboard paces the reveal as a presentation clicker does (→ / Page Down forward, ← / Page Up back), the step
  in the address bar and in the bar's words; an arrow key pressed on a slider moves the slider, not the step;
- cause and effect on one screen: at the stage of the lesson's main picture (``Lesson.present.picture``), the page
  brings itself into view as it opens, and again after a step away and back: its main control
  (``Lesson.present.controls[0]``) under the sticky bar and the whole picture inside the window, nobody scrolling;
- the QR code button of the bar shows the page's link (present=1 and the step included), decoded from the screen.
"""
from __future__ import annotations

import io
import re

import pytest
import zxingcpp
from PIL import Image
from playwright.sync_api import TimeoutError as PlaywrightTimeout

import lessons
from ui.i18n import table

from .conftest import FAILURE_SHOTS
from .helpers import assert_no_exception, assert_no_page_errors, query_of, sel, wait_for_app

SIZE = {"width": 1280, "height": 720}
BAR = ".st-key-present-bar"


# in one task: a pointer over every slider (each asks for its frames: ui/drag.py), then a clicker's key
SAME_TASK = """(key) => {
  for (const input of document.querySelectorAll('[data-testid="stSlider"] input[type=range]'))
    input.dispatchEvent(new PointerEvent('pointerover', {bubbles: true, composed: true}));
  document.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true, cancelable: true}));
}"""


# every address the page writes (history.pushState / replaceState), with the time since the load, for a failure's
# message
ADDRESSES_JS = """(() => {
  const seen = window.__alAddresses = [];
  for (const name of ["pushState", "replaceState"]) {
    const own = history[name];
    history[name] = function (state, title, url) {
      seen.push([name, Math.round(performance.now()), String(url)]);
      return own.apply(this, arguments);
    };
  }
})();"""


def step_in_url(page) -> str | None:
    return (query_of(page.url).get("reveal") or [None])[-1]


def wait_step(page, k: int, n: int, lang: str = "ja") -> None:
    words = table(lang)["present.step"].split("{stage}")[0].format(k=k, n=n)
    try:
        page.wait_for_function("([sel, words]) => { const b = document.querySelector(sel);"
                               " return b && b.innerText.includes(words); }", arg=[BAR, words], timeout=30_000)
    except PlaywrightTimeout:  # say what the page showed (CI once timed out here on /training's first step)
        seen = page.evaluate("(sel) => { const b = document.querySelector(sel); const a = document.querySelector("
                             "'[data-testid=\"stApp\"]'); return [b ? b.innerText : null, "
                             "a ? a.getAttribute('data-test-script-state') : null, document.querySelectorAll("
                             "'[data-testid=\"stException\"]').length]; }", BAR)
        FAILURE_SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(FAILURE_SHOTS / f"present-step-{k}-{re.sub(r'[^a-z0-9]+', '-', page.url)[-60:]}.png"),
                        full_page=True)
        raise AssertionError(f"step {k} of {n} not shown within 30 s at {page.url}: the bar read {seen[0]!r}, the app "
                             f"{seen[1]!r}, {seen[2]} exception box(es); a screenshot is in {FAILURE_SHOTS}") from None
    wait_for_app(page, timeout_ms=30_000)
    page.wait_for_function(f"() => new URLSearchParams(location.search).get('reveal') === '{k}'", timeout=15_000)
    # the keyboard listens once its component is mounted (ui/present.py KEYS_JS); on a loaded machine that can come
    # after the step's words, and a key pressed before is nobody's (CI-like load, 2026-12-05: /toy's first → lost)
    page.wait_for_function("() => { const P = window.__attentionLabPresent; return !!(P && P.on && P.send); }",
                           timeout=30_000)


def main_control(page, lesson):
    """The element of the lesson's main control nearest above its main picture (a cell lesson's slider, under its
    picker), and the picture's element."""
    picture = page.locator(sel(lesson.present.picture[1])).first
    picture.wait_for(state="attached", timeout=30_000)
    controls = page.locator(f"[class*='st-key-{lesson.key}-{lesson.present.controls[0]}']")
    assert controls.count(), f"{lesson.key}: its main control {lesson.present.controls[0]!r} is not on the page"
    top = picture.bounding_box()["y"]
    boxes = [controls.nth(i).bounding_box() for i in range(controls.count())]
    above = [i for i, b in enumerate(boxes) if b is not None and b["y"] < top]
    assert above, f"{lesson.key}: the main control is not above the main picture"
    return controls.nth(max(above, key=lambda i: boxes[i]["y"])), picture


def words_inside_the_bar(page, lesson) -> None:
    """The step's words end above the bar's lower edge (on 05cb47c Streamlit's −1 rem under a text ran them over
    the line wherever they wrapped under the buttons: 1024×768, a phone)."""
    bar = page.locator(BAR).bounding_box()
    words = page.locator(f"{BAR} [data-testid='stMarkdown'] p").last.bounding_box()
    end, edge = words["y"] + words["height"], bar["y"] + bar["height"]
    assert end <= edge - 1, f"{lesson.key}: the step's words (to y = {end:.0f}) run over the bar's edge ({edge:.0f})"


def on_one_screen(page, lesson):
    """Wait until the page has brought the stage into view, then check that the main control sits under the bar and
    the whole main picture is on screen with it. Returns (control, picture)."""
    page.wait_for_timeout(300)
    deadline = 8_000
    while True:
        control, picture = main_control(page, lesson)
        bar, c, p = page.locator(BAR).bounding_box(), control.bounding_box(), picture.bounding_box()
        under = bar["y"] + bar["height"]
        if (c["y"] >= under - 1 > 0 and p["y"] + p["height"] <= SIZE["height"] + 1) or deadline <= 0:
            break
        page.wait_for_timeout(250)
        deadline -= 250
    assert -1 <= bar["y"] <= 16, f"{lesson.key}: the bar is not at the top of the window (y = {bar['y']:.0f})"
    words_inside_the_bar(page, lesson)
    assert c["y"] >= under - 1 and c["y"] + c["height"] <= SIZE["height"], (lesson.key, "control", c, under)
    assert p["y"] >= under - 1 and p["y"] + p["height"] <= SIZE["height"] + 1, (
        f"{lesson.key}: the main picture ({p['height']:.0f} px, from y = {p['y']:.0f}) is not on screen with the "
        f"main control (y = {c['y']:.0f}) under the bar (to y = {under:.0f})")
    return control, picture


@pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
def test_a_clicker_paces_the_stages_and_control_and_picture_share_the_screen(tabs, page_errors, app_server, lesson):
    page = tabs.new_page(viewport=SIZE)
    page.on("pageerror", lambda error: page_errors.append(error))
    try:
        n = len(lesson.present.stages)
        page.goto(f"{app_server}/{lesson.key}?present=1")
        wait_for_app(page, timeout_ms=60_000)
        wait_step(page, 1, n)
        page.locator("h1").first.click()  # the page has the focus, not a field
        page.keyboard.press("ArrowRight")
        wait_step(page, 2, n)
        page.keyboard.press("PageUp")
        wait_step(page, 1, n)
        page.keyboard.press("PageDown")
        wait_step(page, 2, n)
        page.keyboard.press("ArrowLeft")
        wait_step(page, 1, n)

        k = lesson.present.stages.index(lesson.present.picture[0]) + 1
        page.goto(f"{app_server}/{lesson.key}?present=1&reveal={k}")
        wait_for_app(page, timeout_ms=60_000)
        wait_step(page, k, n)
        control, picture = on_one_screen(page, lesson)  # as the page opens, nobody scrolling

        if k < n:  # a step away and back: brought into view again (the page was moved to the top meanwhile)
            page.evaluate("() => document.activeElement && document.activeElement.blur()")  # no control has the focus
            page.keyboard.press("PageDown")
            wait_step(page, k + 1, n)
            page.evaluate(f"() => {{ for (let e = document.querySelector('{BAR}'); e; e = e.parentElement) "
                          "if (e.scrollTop > 0) e.scrollTo({top: 0}); }")
            page.keyboard.press("PageUp")
            wait_step(page, k, n)
            control, picture = on_one_screen(page, lesson)

        # a pointer coming over the sliders in the same moment as the clicker's key (the page scrolled under a
        # resting pointer; CI lost /training's Page Up so): the key still steps (ui/triggers.py)
        away = k + 1 if k < n else k - 1
        page.evaluate(SAME_TASK, "PageDown" if k < n else "PageUp")
        wait_step(page, away, n)
        page.keyboard.press("PageUp" if k < n else "PageDown")
        wait_step(page, k, n)

        slider = control.locator("input[type=range]").first  # (react-aria's slider: a range input, role implicit)
        if slider.count():  # an arrow key on a slider is the slider's
            before = slider.input_value()
            slider.focus()
            page.keyboard.press("ArrowRight" if before != slider.get_attribute("max") else "ArrowLeft")
            page.wait_for_timeout(800)
            wait_for_app(page, timeout_ms=30_000)
            assert step_in_url(page) == str(k)
            assert slider.input_value() != before
            moved = slider.input_value()
            slider.focus()  # … but a clicker's key is always a step, the slider left as it was (a new-user trial)
            page.keyboard.press("PageDown" if k < n else "PageUp")
            wait_step(page, k + 1 if k < n else k - 1, n)
            assert slider.count() == 0 or slider.input_value() == moved
        page.set_viewport_size({"width": 390, "height": 844})  # a phone: the step's words wrap under the buttons
        page.wait_for_timeout(500)
        words_inside_the_bar(page, lesson)
        assert_no_exception(page)
        assert_no_page_errors(page_errors)
    finally:
        page.close()


@pytest.mark.lesson("qkv")
def test_the_bars_qr_code_is_the_pages_link_with_its_step(tabs, page_errors, app_server):
    lesson = lessons.by_key("qkv")  # any lesson: the bar and its QR code are the frame's (ui/present.py)
    page = tabs.new_page(viewport=SIZE)
    try:
        n = len(lesson.present.stages)
        page.add_init_script(ADDRESSES_JS)
        # with predict mode's guess and A/B on: a scanned code hides the weights as this page does
        page.goto(f"{app_server}/{lesson.key}?present=1&reveal=2&lang=en&predict=1&guess=1.2.50&compare=1")
        wait_for_app(page, timeout_ms=60_000)
        wait_step(page, 2, n, "en")
        page.locator(BAR).get_by_role("button", name=re.compile(table("en")["present.qr"])).click()
        img = page.locator("[role='dialog'] img").first
        img.wait_for(state="visible", timeout=30_000)
        page.wait_for_timeout(300)
        found = zxingcpp.read_barcodes(Image.open(io.BytesIO(img.screenshot())).convert("L"))
        assert len(found) == 1
        got = query_of(found[0].text)
        # (CI once found lang=ja in both the code and the address after an English load, not seen since in 40 tries
        # under load: the addresses the page wrote, and what it showed, are in the message if it comes back)
        seen = page.evaluate(f"() => [window.__alAddresses || [], document.querySelector('{BAR}').innerText,"
                             " document.documentElement.lang]")
        assert got == query_of(page.url), (got, page.url, seen)
        assert got["present"] == ["1"] and got["reveal"] == ["2"] and got["lang"] == ["en"], (got, seen)
        assert got["predict"] == ["1"] and got["guess"] == ["1.2.50"] and got["compare"] == ["1"], got
        assert_no_page_errors(page_errors)
    finally:
        page.close()
