"""Charts are laid out for the width the browser gives them (issue 24 §4, ui/viewport.py), in a real browser.

- At the reference window (1280×720, sidebar open) the page's first run already has the right width: nothing is sent,
  so a page load there costs no second run.
- At 1024×768 and 390×844 the browser says its main column's width once, and the charts are laid out for it: each
  chart's plotly width is its box's width (a row of charts each its cell's), or wider than its box (its numbers fit
  no narrower) with that box scrolling sideways, never the page.
- The window made narrower, then wider again: the charts follow each time, and the width comes to rest (a page
  whose scrollbar comes and goes with its layout does not rerun for ever).
"""
from __future__ import annotations

import pytest

import lessons
from ui.viewport import GROW_PX as GROW
from ui.viewport import TOLERANCE_PX as TOL

from .helpers import APP_READY

STATE_JS = """() => {
  const V = window.__attentionLabViewport;
  const m = document.querySelector('[data-testid="stMainBlockContainer"]');
  const cs = getComputedStyle(m);
  const plots = [...document.querySelectorAll('.al-plot')].map((p) => ({
    laid: p._fullLayout ? p._fullLayout.width : null,
    box: p.parentElement.clientWidth,
    scrolls: getComputedStyle(p.parentElement).overflowX === 'auto',
  }));
  const S = window.__attentionLabStats;
  return {used: V ? V.used : null, sends: V ? V.sends : null, plots,
          busy: !!(S && S.busy), draws: S ? S.drawn + S.patched : 0,
          column: Math.floor(m.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight)),
          page: document.documentElement.scrollWidth, window: window.innerWidth};
}"""


def _rest(page, quiet_ms: int = 1500, timeout_s: float = 40.0) -> dict:
    """Wait until the app is idle, every chart drawn, no chart's redraw waiting or under way (plot.js draws the charts
    out of view after those in view, one a task: on a busy machine seconds after the run), and for ``quiet_ms``
    nothing sent and nothing drawn; the page's state."""
    import time

    deadline, last, since = time.monotonic() + timeout_s, None, time.monotonic()
    while time.monotonic() < deadline:
        page.wait_for_timeout(250)
        s = page.evaluate(STATE_JS)
        idle = (page.locator(APP_READY).count() == 1 and not s["busy"] and s["plots"]
                and all(p["laid"] for p in s["plots"]))
        key = (s["sends"], s["used"], len(s["plots"]), s["draws"])
        if key != last or not idle:
            last, since = key, time.monotonic()
        elif time.monotonic() - since > quiet_ms / 1000:
            return s
    raise AssertionError(f"the page did not come to rest within {timeout_s:.0f} s: {page.evaluate(STATE_JS)}")


def _laid_out_for_their_boxes(s: dict) -> list[str]:
    out = []
    for k, p in enumerate(s["plots"]):
        if p["laid"] < p["box"] - GROW - 1:  # a little wider than laid out for is fine
            out.append(f"chart {k}: laid out for {p['laid']} px in a {p['box']} px box")
        if p["laid"] > p["box"] + 1 and not p["scrolls"]:
            out.append(f"chart {k}: {p['laid']} px wide in a {p['box']} px box that does not scroll")
    if s["page"] > s["window"]:
        out.append(f"the page scrolls sideways: {s['page']} px in a {s['window']} px window")
    return out


QKV = lessons.by_key("qkv")  # any lesson: every lesson page has the frame's relay


def _url(base: str, lesson) -> str:
    from urllib.parse import urlencode

    state = lesson.widest() if lesson.widest else lesson.default_state()
    return f"{base}/{lesson.key}?" + urlencode({**lesson.encode(state), "lang": "ja"})


@pytest.mark.lesson(QKV.key)
@pytest.mark.parametrize("size", ["1280x720", "1024x768", "390x844"])
def test_charts_are_laid_out_for_the_column_they_get(tabs, app_server, size):
    w, h = map(int, size.split("x"))
    page = tabs.new_page(viewport={"width": w, "height": h})
    try:
        page.goto(_url(app_server, QKV))
        s = _rest(page)
        if size == "1280x720":
            assert s["sends"] == 0, f"the reference window asked for a second run: {s['used']} vs {s['column']}"
        else:
            assert s["sends"] == 1, f"{s['sends']} widths sent on one page load"
        assert s["column"] - TOL <= s["used"] <= s["column"] + GROW, s
        problems = _laid_out_for_their_boxes(s)
        assert not problems, f"{size}:\n" + "\n".join(problems)
    finally:
        page.close()


@pytest.mark.lesson(QKV.key)
def test_a_window_made_narrower_and_wider_again(tabs, app_server):
    page = tabs.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(_url(app_server, QKV))
        first = _rest(page)
        for w, h in ((1024, 768), (700, 800), (1280, 720)):
            page.set_viewport_size({"width": w, "height": h})
            s = _rest(page)
            assert s["column"] - TOL <= s["used"] <= s["column"] + GROW, (w, s)
            problems = _laid_out_for_their_boxes(s)
            assert not problems, f"{w}×{h}:\n" + "\n".join(problems)
        assert abs(s["used"] - first["used"]) <= GROW  # back where it began
    finally:
        page.close()
