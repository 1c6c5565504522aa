"""Colour (issue 24, part 3) in Chromium: every number written in a heatmap cell keeps a contrast of at least 4.5:1
(WCAG AA) with its cell, on every colour scheme (ui.figures.SCHEMES), over every cell of every registered lesson's
charts. Measured on the screen, not computed: the text's colour as the browser paints it (its computed fill) against
the cell's colour read from a screenshot of the chart, next to the text.

plotly.js's own rule (white, or #444 on a light cell) fell to about 3.1:1 on mid-tone cells (viridis' teal, red–blue's
mid red); the charts now write each number in black or white, whichever contrasts more
(ui/plot_component/assets/patch.js)."""
from __future__ import annotations

import io
from collections import Counter

import pytest
from PIL import Image

import lessons
from ui.figures import SCHEMES

from .helpers import assert_no_exception, assert_no_page_errors, wait_for_app

SIZE = {"width": 1280, "height": 720}
AA = 4.5

LABELS_JS = """(chart) => {
  const box = chart.getBoundingClientRect();
  return [...chart.querySelectorAll('.heatmap-label text')].filter((t) => t.textContent.trim()).map((t) => {
    const r = t.getBBox ? t.getBoundingClientRect() : null;
    return {text: t.textContent, fill: getComputedStyle(t).fill, x: r.left - box.left, y: r.top - box.top,
            w: r.width, h: r.height};
  });
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


def cell_colour(img: Image.Image, label: dict, scale: float) -> tuple[int, int, int]:
    """The cell's colour next to a label: the most common colour at the corners of the text's box (1 px inside), where
    no glyph reaches."""
    x0, y0 = label["x"] * scale, label["y"] * scale
    x1, y1 = (label["x"] + label["w"]) * scale, (label["y"] + label["h"]) * scale
    points = [(x0 + 1, y0 + 1), (x1 - 2, y0 + 1), (x0 + 1, y1 - 2), (x1 - 2, y1 - 2)]
    seen = Counter(img.getpixel((int(min(max(x, 0), img.width - 1)), int(min(max(y, 0), img.height - 1))))[:3]
                   for x, y in points)
    return seen.most_common(1)[0][0]


def check_page(page, where: str) -> int:
    """Every heatmap number on the page against its cell; returns how many were checked."""
    checked, worst = 0, []
    charts = page.locator("[class*='st-key-'][class*='-fig-']:has(.heatmap-label)")
    for i in range(charts.count()):
        chart = charts.nth(i)
        chart.scroll_into_view_if_needed()
        page.wait_for_timeout(150)
        labels = chart.evaluate(LABELS_JS)
        if not labels:
            continue
        img = Image.open(io.BytesIO(chart.screenshot())).convert("RGB")
        scale = img.width / max(chart.bounding_box()["width"], 1)
        for label in labels:
            bg = cell_colour(img, label, scale)
            got = ratio(parse_rgb(label["fill"]), bg)
            checked += 1
            if got < AA:
                worst.append((round(got, 2), label["text"], label["fill"], bg))
    assert not worst, f"{where}: {len(worst)} of {checked} numbers under {AA}:1, e.g. {sorted(worst)[:5]}"
    return checked


@pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
def test_every_number_contrasts_with_its_cell_on_every_scheme(browser, page_errors, app_server, lesson):
    context = browser.new_context(viewport=SIZE)
    page = context.new_page()
    page.on("pageerror", lambda error: page_errors.append(error))
    try:
        total = 0
        for scheme in SCHEMES:
            page.goto(f"{app_server}/{lesson.key}?colors={scheme}")
            wait_for_app(page, timeout_ms=60_000)
            page.wait_for_timeout(800)
            total += check_page(page, f"{lesson.key}, {scheme}")
            assert_no_exception(page)
        assert total >= 0  # a lesson without heatmap numbers (the scaling page: bars) has none to check
        assert_no_page_errors(page_errors)
    finally:
        context.close()
