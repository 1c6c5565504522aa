"""Colour (issue 24, part 3) in Chromium: every number written in a heatmap cell keeps a contrast of at least 4.5:1
(WCAG AA) with its cell, on every colour scheme (ui.figures.SCHEMES), over every cell of every registered lesson's
charts. Measured on the page, not computed: the text's colour as the browser paints it (its computed fill) against
the cell's colour as painted (the pixel under the number's centre in the image plotly paints the cells into).

plotly.js's own rule (white, or #444 on a light cell) fell to about 3.1:1 on mid-tone cells (viridis' teal, red–blue's
mid red); the charts now write each number in black or white, whichever contrasts more
(ui/plot_component/assets/patch.js). In make test each lesson meets the default scheme and one other, in turn;
ATTN_LAB_EVERY_SCHEME=1 checks every lesson on every scheme."""
from __future__ import annotations

import os

import pytest

import lessons
from ui.figures import SCHEMES

from .helpers import assert_no_exception, assert_no_page_errors, wait_for_app

SIZE = {"width": 1280, "height": 720}
AA = 4.5

LABELS_JS = """async (chart) => {
  // each heatmap trace is painted as one image of its cells (plotly's heatmap drawing); a number's cell is the image's
  // pixel under the number's centre, read from the image itself (the text is not in it)
  const out = [];
  for (const group of chart.querySelectorAll('.heatmaplayer .hm')) {
    const img = group.querySelector(':scope > image');
    if (!img) continue;
    const href = img.getAttribute('href') || img.getAttributeNS('http://www.w3.org/1999/xlink', 'href');
    const pic = await new Promise((resolve) => { const i = new Image(); i.onload = () => resolve(i); i.src = href; });
    const canvas = document.createElement('canvas');
    canvas.width = pic.width; canvas.height = pic.height;
    const ctx = canvas.getContext('2d');
    ctx.drawImage(pic, 0, 0);
    const box = img.getBoundingClientRect();
    for (const t of group.querySelectorAll(':scope > g.heatmap-label > text')) {
      if (!t.textContent.trim()) continue;
      const r = t.getBoundingClientRect();
      const x = Math.floor((r.left + r.width / 2 - box.left) / box.width * pic.width);
      const y = Math.floor((r.top + r.height / 2 - box.top) / box.height * pic.height);
      const p = ctx.getImageData(Math.min(Math.max(x, 0), pic.width - 1), Math.min(Math.max(y, 0), pic.height - 1),
                                 1, 1).data;
      out.push({text: t.textContent, fill: getComputedStyle(t).fill, bg: [p[0], p[1], p[2]], alpha: p[3]});
    }
  }
  return out;
}"""


def luminance(rgb) -> float:
    def lin(v: float) -> float:
        v = v / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = rgb[:3]
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def ratio(a, b) -> float:
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def test_the_ratio_is_wcags():
    """The measure itself, on values WCAG 2 gives: black on white 21:1, #777 on white about 4.48:1."""
    assert ratio((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert ratio((0x77, 0x77, 0x77), (255, 255, 255)) == pytest.approx(4.48, abs=0.01)
    assert ratio((0x44, 0x44, 0x44), (0x21, 0x91, 0x8C)) < AA  # plotly's #444 on viridis' teal: what failed


def parse_rgb(css: str) -> tuple[int, int, int]:
    inner = css[css.index("(") + 1:css.index(")")]
    return tuple(int(float(x)) for x in inner.split(",")[:3])


def check_page(page, where: str) -> int:
    """Every heatmap number on the page against its cell; returns how many were checked."""
    checked, worst = 0, []
    charts = page.locator("[class*='st-key-'][class*='-fig-']:has(.heatmap-label)")
    for i in range(charts.count()):
        chart = charts.nth(i)
        chart.scroll_into_view_if_needed()
        page.wait_for_timeout(150)
        for label in chart.evaluate(LABELS_JS):
            assert label["alpha"] == 255, f"{where}: no painted cell under the number {label['text']!r}"
            got = ratio(parse_rgb(label["fill"]), label["bg"])
            checked += 1
            if got < AA:
                worst.append((round(got, 2), label["text"], label["fill"], tuple(label["bg"])))
    assert not worst, f"{where}: {len(worst)} of {checked} numbers under {AA}:1, e.g. {sorted(worst)[:5]}"
    return checked


def schemes_for(lesson) -> list[str]:
    """The default scheme and one other, in turn by the lesson's place in the registry (every scheme is met, and each
    lesson twice, in make test's time); all of them with ATTN_LAB_EVERY_SCHEME=1 (before a release, README)."""
    names = list(SCHEMES)
    if os.environ.get("ATTN_LAB_EVERY_SCHEME") == "1":
        return names
    others = names[1:]
    return [names[0], others[lessons.REGISTRY.index(lesson) % len(others)]]


@pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
def test_every_number_contrasts_with_its_cell_on_every_scheme(browser, page_errors, app_server, lesson):
    context = browser.new_context(viewport=SIZE)
    page = context.new_page()
    page.on("pageerror", lambda error: page_errors.append(error))
    try:
        total = 0
        for scheme in schemes_for(lesson):
            page.goto(f"{app_server}/{lesson.key}?colors={scheme}")
            wait_for_app(page, timeout_ms=60_000)
            page.wait_for_timeout(800)
            total += check_page(page, f"{lesson.key}, {scheme}")
            assert_no_exception(page)
        assert total >= 0  # a lesson without heatmap numbers (the scaling page: bars) has none to check
        assert_no_page_errors(page_errors)
    finally:
        context.close()
