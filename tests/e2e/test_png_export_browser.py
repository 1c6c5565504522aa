"""A chart's PNG from its toolbar (issue 25 §3, images), for every registered lesson's main picture
(``Lesson.present.picture``), in Chromium, offline: the file is named for the app, the lesson and the chart, it is
the chart at twice its size, and its Japanese labels are drawn as the screen draws them, not as boxes.

How "not boxes" is read from the pixels: each Japanese axis label is cut out of the PNG and out of a screenshot of the
chart at the same scale, and the two are compared at their best alignment (±2 px): the same glyphs differ by ~0.015
(mean absolute grey level, 0..1), another label's glyphs by ~0.065. Missing glyphs ("tofu") are the same box for
every character, so a label is also checked to differ from its neighbour on screen.
"""
from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

import lessons
from ui.i18n import t

from .helpers import sel, wait_for_app

PICTURED = [x for x in lessons.REGISTRY if x.present]
SAME_MAX, APART_MIN = 0.03, 0.04

TICKS_JS = """(el) => { const o = el.getBoundingClientRect();
  return [...el.querySelectorAll('.ytick text, .xtick text')].map((t) => { const r = t.getBoundingClientRect();
    return [t.textContent, r.left - o.left, r.top - o.top, r.right - o.left, r.bottom - o.top]; }); }"""


def _crop(img, box, dx=0, dy=0):
    x0, y0, x1, y1 = (round(v * 2) for v in box)
    return np.asarray(img.crop((x0 - 2 + dx, y0 - 2 + dy, x1 + 2 + dx, y1 + 2 + dy)).convert("L"), dtype=float) / 255


def _apart(a_img, a_box, b_img, b_box) -> float:
    """Mean grey-level difference of two label cut-outs at their best alignment (±4 device px)."""
    a = _crop(a_img, a_box)
    best = 1.0
    for dx in range(-4, 5):
        for dy in range(-4, 5):
            b = _crop(b_img, b_box, dx, dy)
            h, w = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
            best = min(best, float(np.abs(a[:h, :w] - b[:h, :w]).mean()))
    return best


@pytest.mark.parametrize("lesson", PICTURED, ids=[x.key for x in PICTURED])
def test_the_main_picture_downloads_as_a_named_png_with_its_japanese_labels(browser, app_server, lesson):
    chart = lesson.present.picture[1]
    context = browser.new_context(viewport={"width": 1280, "height": 900}, device_scale_factor=2,
                                  accept_downloads=True)
    page = context.new_page()
    try:
        page.goto(f"{app_server}/{lesson.key}?lang=ja")
        wait_for_app(page)
        plot = page.locator(sel(chart)).locator(".al-plot").first
        plot.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        screen = Image.open(io.BytesIO(plot.screenshot())).convert("RGB")
        ticks = page.evaluate(TICKS_JS, plot.element_handle())
        plot.hover()
        context.set_offline(True)  # the PNG is drawn in the page: nothing is fetched
        button = plot.locator(f".modebar-btn[data-title='{t('fig.toolbar.download_png', lang='ja')}']")
        with page.expect_download() as download:
            button.click()
        stem = chart.split(".fig.")[-1]
        assert download.value.suggested_filename == f"attention-lab_{lesson.key}_{stem}.png"
        png = Image.open(download.value.path()).convert("RGB")
    finally:
        context.close()
    assert abs(png.size[0] - screen.size[0]) <= 4 and abs(png.size[1] - screen.size[1]) <= 4, (png.size, screen.size)
    japanese = [(x[0], x[1:]) for x in ticks if any(ord(c) >= 0x3000 for c in x[0]) and x[3] > x[1]]
    if len(japanese) < 2:
        pytest.skip(f"/{lesson.key}: its main picture has fewer than two Japanese labels to compare")
    for (text, box), (other, other_box) in zip(japanese, japanese[1:] + japanese[:1]):
        if text == other:
            continue
        same = _apart(png, box, screen, box)
        apart = _apart(screen, box, screen, other_box)
        assert same <= SAME_MAX, f"{text!r} in the PNG is not drawn as on screen ({same:.3f})"
        assert apart >= APART_MIN, f"{text!r} and {other!r} look alike on screen ({apart:.3f}): boxes, not glyphs?"
