"""The heatmaps follow a mouse drag at the screen's pace, from the server's frames, with no run per thumb position
(ui/preview.py, issue 18).

/qkv, default state: the one-cell slider edits X's first cell, so X's first heatmap cell must read the thumb's value
(an oracle independent of the frames: the number the student is dragging). The pointer goes down on the thumb, the
frames arrive, then the thumb is moved one step at a time: after each move X's cell comes to show the thumb's value
while the button is held, and no run of the app happened during the moves (the frames did it; how fast is measured by
benchmarks/browser_latency.py --drag, not here).
While held, the texts of the slider's scope (which keep the last run's numbers) are dimmed; after the release the
page equals a fresh load of its own link, nothing dimmed.
"""
from __future__ import annotations

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .helpers import assert_no_exception, assert_no_page_errors
from .sliders import PAGE_JS, at_rest, fresh_load, numbers, sliders_at_rest

CELL = ".st-key-qkv-cell-v input[type=range]"
X_FIRST = "() => { const t = document.querySelector('.st-key-qkv-fig-X .heatmap-label text'); " \
          "return t ? t.textContent : null; }"
RUNS = """() => { window.__alRuns = 0; const app = document.querySelector('[data-testid="stApp"]');
  if (window.__alRunObs) window.__alRunObs.disconnect();
  window.__alRunObs = new MutationObserver(() => {
    if (app.getAttribute('data-test-script-state') === 'running') window.__alRuns += 1; });
  window.__alRunObs.observe(app, {attributes: true, attributeFilter: ['data-test-script-state']}); }"""
DIMMED = """() => [...document.querySelectorAll('[data-testid="stMarkdown"], [data-testid="stCaptionContainer"]')]
  .filter(e => Number(getComputedStyle(e).opacity) < 0.5).length"""
STEP_MS = 100
MOVES = 6


def as_number(text: str) -> float:
    return float(text.replace("−", "-"))


def test_heatmaps_follow_a_drag_without_a_run_per_value(browser, page, page_errors, app_server):
    page.goto(f"{app_server}/qkv")
    sliders_at_rest(page, "qkv")
    inp = page.locator(CELL)
    inp.scroll_into_view_if_needed()
    lo, hi, step, v0 = numbers(inp)
    page.wait_for_function(f"() => ({X_FIRST})() !== null", timeout=30_000)  # X drawn (a loaded machine: later)
    assert as_number(page.evaluate(X_FIRST)) == v0
    knob = inp.locator("xpath=../..").bounding_box()
    track = inp.locator("xpath=../../..").bounding_box()
    x0, y0 = knob["x"] + knob["width"] / 2, knob["y"] + knob["height"] / 2
    px = step / (hi - lo) * track["width"]
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.wait_for_function("() => { const R = window.__attentionLabDrag; return !!(R && R.frames); }", timeout=10_000)
    at_rest(page)
    # the moves stay inside the window of frames the server built (it stops building after preview.BUDGET_S of wall
    # time: a loaded machine gets fewer values, and a value outside the window is rightly relayed to a run)
    window = page.evaluate("() => window.__attentionLabDrag.frames.values")
    moves = 0
    while moves < MOVES and any(abs(x - (v0 - (moves + 1) * step)) < 1e-9 for x in window):
        moves += 1
    assert moves >= 3, f"the frames around {v0} hold fewer than 3 values below it: {window}"
    page.evaluate(RUNS)
    seen = []
    for k in range(1, moves + 1):
        page.mouse.move(x0 - k * px, y0)
        v = numbers(inp)[3]
        try:  # (how fast is the benchmark's business: benchmarks/browser_latency.py --drag)
            page.wait_for_function(f"() => {{ const x = ({X_FIRST})(); return x !== null && "
                                   f"Math.abs(Number(x.replace('−', '-')) - ({v})) < 1e-9; }}", timeout=5_000)
        except PlaywrightTimeout:
            pass
        seen.append((v, page.evaluate(X_FIRST)))
        page.wait_for_timeout(STEP_MS)
    runs = page.evaluate("() => window.__alRuns")
    # the texts beside the charts keep the last run's numbers until the release: while held, they are dimmed
    dimmed = page.evaluate(DIMMED)
    previewed = page.evaluate("() => window.__attentionLabStats.previewed || 0")
    page.mouse.up()
    # the release relays the thumb's value: wait for its run to begin (a loaded CI machine may take longer than
    # at_rest's quiet spell to start it; the page compared must be the release's)
    page.wait_for_function("() => window.__alRuns > 0", timeout=30_000)
    moved = [v for v, _ in seen]
    assert moved[-1] < v0 and len(set(moved)) >= moves - 1, f"the thumb did not move step by step: {moved}"
    wrong = [(v, text) for v, text in seen if text is None or abs(as_number(text) - v) > 1e-9]
    assert not wrong, f"X's cell did not come to show the thumb's value while held: (thumb, cell) {wrong}"
    # (one run is allowed: on a loaded machine the run the pointerdown asked for could begin after the frames a
    # hover had brought and after the quiet spell; a run per value would be as many runs as moves)
    assert runs <= 1, f"{runs} runs of the app during {moves} moves: the numbers came from runs, not from the frames"
    assert previewed > 0
    assert dimmed > 0, "the texts of the dragged slider's scope were not dimmed while the charts showed another value"
    at_rest(page)
    assert page.evaluate(DIMMED) == 0, "texts still dimmed after the release"
    assert_no_exception(page)
    assert as_number(page.evaluate(X_FIRST)) == numbers(inp)[3]

    dragged = page.evaluate(PAGE_JS)
    again, _ = fresh_load(browser, page)
    assert again["sliders"] == dragged["sliders"]
    assert again["text"] == dragged["text"]
    assert again["charts"] == dragged["charts"], "after the drag a chart differs from a fresh load of the link"
    assert_no_page_errors(page_errors)


# Streamlit marks the elements of the part that reruns as stale when the run starts (data-stale="true"): counted inside
# the live fragments (ui.runtime.Page.live) from the moment of the mark.
WATCH_LIVE = """() => { window.__alLiveStale = 0; if (window.__alLiveObs) window.__alLiveObs.disconnect();
  const obs = window.__alLiveObs = new MutationObserver((ms) => {
    for (const m of ms) if (m.target.getAttribute('data-stale') === 'true'
                             && m.target.closest('[class*="st-key-al-live-"]')) window.__alLiveStale += 1; });
  obs.observe(document.querySelector("[data-testid='stMain']"),
              {subtree: true, attributes: true, attributeFilter: ['data-stale']});
}"""
FRAMES_OF = "() => { const R = window.__attentionLabDrag; return R && R.frames ? R.frames.keys : null; }"


def thumb_at_rest(page, app_server, lesson: str, sel: str):
    """Open /``lesson``, bring the slider ``sel`` (its range input) into view, wait for rest: the input and the
    middle of its thumb (x, y)."""
    page.goto(f"{app_server}/{lesson}")
    sliders_at_rest(page, lesson)
    inp = page.locator(sel)
    inp.scroll_into_view_if_needed()
    at_rest(page)
    knob = inp.locator("xpath=../..").bounding_box()
    return inp, (knob["x"] + knob["width"] / 2, knob["y"] + knob["height"] / 2)


def test_a_pointer_over_a_slider_brings_its_frames_without_rerunning_its_fragment(page, page_errors, app_server):
    """A pointer coming over /qkv's cell slider asks for its frames from the page's hover relay (ui.drag.mount_hover):
    they come, and no element of the live fragments was marked for a rerun (before, each hover reran the slider's
    whole fragment: every chart drawn and sent again, docs/load.md 2026-12-06). A key press on the slider then reruns
    its fragment, and the frames built for the value before it are dropped."""
    inp, (x, y) = thumb_at_rest(page, app_server, "qkv", CELL)
    assert page.evaluate(FRAMES_OF) is None
    page.evaluate(WATCH_LIVE)
    page.mouse.move(x, y)
    page.wait_for_function(f"() => ({FRAMES_OF})() !== null", timeout=15_000)
    at_rest(page)
    keys = page.evaluate(FRAMES_OF)
    assert any("cell-v" in k for k in keys), f"frames for another slider than the one under the pointer: {keys}"
    stale = page.evaluate("() => window.__alLiveStale")
    assert stale == 0, f"the hover reran a live fragment ({stale} of its elements marked for the rerun)"
    page.mouse.move(0, 0)  # (the pointer away, so that it asks for nothing more)
    inp.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => window.__alLiveStale > 0", timeout=15_000)
    at_rest(page)
    assert page.evaluate(FRAMES_OF) is None, "frames built before a key press outlived the run it caused"
    assert_no_exception(page)
    assert_no_page_errors(page_errors)


STALE_FRAME = """async () => {
  const f = window.__alOldFrames, v0 = window.__alV0;
  const c = f.charts.find((x) => String(x.key).endsWith("fig.X"));
  const div = c && document.querySelector(`.st-key-${String(c.key).replace(/[^a-zA-Z0-9_-]/g, "-")} .al-plot`);
  const k = f.values.findIndex((x) => Math.abs(x - v0) <= 1e-9);
  if (!div || k < 0) return `no chart or frame (${!!c}, ${!!div}, ${k})`;
  const shown = window.__attentionLabPreview(div, c, k, f.gen);
  await new Promise((r) => setTimeout(r, 400));
  return shown;
}"""


def test_frames_never_go_over_a_figure_the_server_sent_after_them(page, page_errors, app_server):
    """The charts below the window take a drag's frame while the main thread is idle, so a frame can be due after
    the server's figure for a later value has come (a release's run). Such a frame must not go over that figure.
    Reproduced without timing: /qkv's cell slider, frames brought by a pointer over it (for its value v0), a key press
    (the server's new figure for X, at v0 + step), then the old frame of v0 offered to X's chart as the idle callback
    would: X's cell keeps the server's number (before: it went back to v0, the same defect as /training's W_Q·W_Kᵀ
    left at "step 0" after a drag to 4)."""
    inp, (x, y) = thumb_at_rest(page, app_server, "qkv", CELL)
    page.mouse.move(x, y)
    page.wait_for_function(f"() => ({FRAMES_OF})() !== null", timeout=15_000)
    at_rest(page)
    v0 = numbers(inp)[3]
    page.evaluate(f"() => {{ window.__alOldFrames = window.__attentionLabDrag.frames; window.__alV0 = {v0}; }}")
    page.mouse.move(0, 0)
    inp.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"() => {{ const t = ({X_FIRST})(); return t !== null && "
                           f"Math.abs(parseFloat(t.replace('−', '-')) - {v0}) > 1e-9; }}", timeout=15_000)
    at_rest(page)
    v1 = numbers(inp)[3]
    assert v1 != v0 and as_number(page.evaluate(X_FIRST)) == v1
    shown = page.evaluate(STALE_FRAME)
    assert shown is True, shown
    assert as_number(page.evaluate(X_FIRST)) == v1, \
        f"a frame built for {v0} went over the server's figure for {v1}"
    assert_no_exception(page)
    assert_no_page_errors(page_errors)


H = ".st-key-multihead-h input[type=range]"  # /multihead's number of heads: a select slider, 1, 2, 4, 8


def test_a_thumb_moved_by_keys_under_a_resting_pointer_asks_for_no_frames(browser, page, page_errors, app_server):
    """The pointer rests on /multihead's h thumb (it asked the hover relay for its frames); arrow presses then move the
    thumb away from under it and back, 4 times. The page moving under a resting pointer is no pointer coming over
    the slider: no frames are asked for (ui/plot_component/assets/drag.js). Such a request once went out with the
    slider's own key value in one message, which ran as the hover relay's fragment: the value was applied but the
    slider's fragment was not rerun, and its words, charts and link kept the value before (issue 18, a fresh-user
    trial under load: the thumb at h = 1, the page at 2). After the presses the page equals a fresh load of its link."""
    inp, (x, y) = thumb_at_rest(page, app_server, "multihead", H)
    page.mouse.move(x - 3, y)
    page.mouse.move(x, y)
    # the pointer's own request (h's frames are not built: each value draws other charts; the request is sent)
    page.wait_for_function("() => window.__attentionLabDrag.asked.size > 0", timeout=15_000)
    at_rest(page)
    page.evaluate("() => { window.__attentionLabDrag.asked = new Map(); }")
    start = inp.input_value()
    inp.focus()
    for key in ("ArrowRight", "ArrowLeft", "ArrowRight", "ArrowLeft"):  # away from under the pointer, and back
        page.keyboard.press(key)
        at_rest(page)  # (each press's run drops the frames, so an old request would be sent again)
    assert inp.input_value() == start
    asked = page.evaluate("() => [...window.__attentionLabDrag.asked.keys()]")
    assert asked == [], f"the thumb moving under the resting pointer asked for frames: {asked}"
    pressed = page.evaluate(PAGE_JS)
    again, _ = fresh_load(browser, page)
    assert again["sliders"] == pressed["sliders"]
    assert again["text"] == pressed["text"]
    assert again["charts"] == pressed["charts"]
    assert_no_exception(page)
    assert_no_page_errors(page_errors)
