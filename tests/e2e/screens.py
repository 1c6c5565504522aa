"""What a screen of any lesson must be, read from the rendered page in Chromium: the checks shared by
tests/e2e/test_screens_browser.py (and nothing else: each loaded page is read once by all of them).

Charts (``chart_problems``, from plotly's SVG, which our chart component puts in the page itself):
- every number written in a heatmap cell is at least 14 px and its text box lies inside its cell;
- every other text (axis ticks and titles, colour bar ticks, legends, notes, titles) is at least 12 px, and so is
  every value label over a bar;
- no two text boxes of one chart overlap, and no chart title runs under the chart's toolbar;
- charts side by side start their plot areas (and their titles) at one height.
Colour (``contrast_problems``): every number written in a heatmap cell keeps a contrast of at least 4.5:1 (WCAG AA)
with its cell: the text's colour as the browser paints it against the pixel under the number's centre in the image
plotly paints the cells into.
Layout (``layout_problems``, from the DOM of the main column):
- the main column and the page never scroll sideways, and nothing in the column (formulas, tables, charts, widgets)
  ends past its right edge; a box that clips its content (a table that scrolls in its own box, a chart's SVG)
  counts as its own box;
- a formula never needs a scroll bar: it wraps (ui.text.formula), since a hidden scroll bar looks like a cut;
- no widget shows its text cut off (a selectbox's choice, a number, a button's label with "…");
- the text of the page (outside charts and input fields) holds no "e" notation (8.7e−05) and no ASCII hyphen as
  a minus sign (−2.2, not -2.2).
``FAULTY_PAGE`` holds each fault once, so a test can show that the layout checks find what they look for.
"""

from __future__ import annotations

import time

import numpy as np

from lessons import link
from ui.i18n import table

from .helpers import APP_READY, assert_no_exception, at_rest, sel

CELL_MIN_PX, TEXT_MIN_PX = 14.0, 12.0
SIZE_SLACK = 0.05  # px: a rendered size is the font size times the screen transform, a float
BOX_SLACK = 0.75  # px: text boxes may touch (rounding of the layout), not overlap
AA = 4.5  # WCAG 2 AA: the least contrast of a number with its cell


SCAN_JS = r"""
async () => {
  const kindOf = (el) => {
    const own = (el.getAttribute('class') || '').split(' ')[0];
    const cls = own || (el.parentNode.getAttribute('class') || '').split(' ')[0];  // a tick label's group names it
    if (el.closest('.heatmap-label')) return 'cell';
    if (el.closest('.cbaxis')) return 'colorbar';
    if (/^[xy]\d*tick$/.test(cls)) return 'tick';
    if (cls === 'bartext') return 'bar';
    if (cls === 'legendtext') return 'legend';
    if (cls.startsWith('gtitle')) return 'title';
    if (/^[xy]\d*title$/.test(cls)) return 'axis title';
    if (cls === 'annotation-text') return 'note';
    return cls || 'text';
  };
  const size = (el) => {
    const m = el.getScreenCTM();
    return parseFloat(getComputedStyle(el).fontSize) * Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
  };
  const rect = (r) => [r.left, r.top, r.right, r.bottom];
  const charts = [];
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const holder = plot.closest('[class*="st-key-"]');
    const key = holder ? (holder.className.match(/st-key-(\S+)/) || [])[1] : '?';
    // each heatmap trace is painted as one image of its cells (plotly's heatmap drawing): a cell's colour is the
    // image's pixel under a point of the cell, read from the image itself (the numbers are not in it)
    const pixels = [];
    for (const img of plot.querySelectorAll('.hm image')) {
      const src = img.getAttribute('href') || img.getAttribute('xlink:href');
      const pic = new Image();
      pic.src = src;
      await pic.decode();
      const canvas = document.createElement('canvas');
      canvas.width = pic.naturalWidth; canvas.height = pic.naturalHeight;
      const ctx = canvas.getContext('2d');
      ctx.drawImage(pic, 0, 0);
      pixels.push({r: img.getBoundingClientRect(), w: canvas.width, h: canvas.height,
                   data: ctx.getImageData(0, 0, canvas.width, canvas.height).data});
    }
    const paint = (cx, cy) => {  // [r, g, b, alpha] of the topmost painted image pixel at (cx, cy), or null
      let color = null;
      for (const p of pixels) {
        const ix = Math.floor((cx - p.r.left) / p.r.width * p.w);
        const iy = Math.floor((cy - p.r.top) / p.r.height * p.h);
        if (ix < 0 || iy < 0 || ix >= p.w || iy >= p.h) continue;
        const k = 4 * (iy * p.w + ix);
        if (p.data[k + 3] > 0) color = [p.data[k], p.data[k + 1], p.data[k + 2], p.data[k + 3]];
      }
      return color;
    };
    const texts = [];
    for (const el of plot.querySelectorAll('svg text')) {
      if (el.closest('.hoverlayer')) continue;
      const r = el.getBoundingClientRect();
      if (!el.textContent.trim() || r.width === 0 || r.height === 0) continue;
      const t = {kind: kindOf(el), text: el.textContent, px: size(el), box: rect(r)};
      if (t.kind === 'cell') {  // the number's colour as painted, and its cell's under the number's centre
        t.fill = getComputedStyle(el).fill;
        t.bg = paint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
      }
      texts.push(t);
    }
    const bar = plot.querySelector('.modebar');
    const cells = [];
    const full = plot._fullData || [];
    const heat = full.filter((t) => t.type === 'heatmap' && t.visible !== false);  // an all-empty trace is hidden
    if (heat.length) {
      const tr = heat[heat.length - 1];
      const xa = plot._fullLayout[tr.xaxis.replace('x', 'xaxis')];
      const ya = plot._fullLayout[tr.yaxis.replace('y', 'yaxis')];
      const o = plot.getBoundingClientRect();
      const nx = tr.x.length, ny = tr.y.length;
      for (let i = 0; i < ny; i++) {
        for (let j = 0; j < nx; j++) {
          const x0 = o.left + xa._offset + xa.c2p(j - 0.5), x1 = o.left + xa._offset + xa.c2p(j + 0.5);
          const y0 = o.top + ya._offset + ya.c2p(i - 0.5), y1 = o.top + ya._offset + ya.c2p(i + 0.5);
          const box = [Math.min(x0, x1) + tr.xgap / 2, Math.min(y0, y1) + tr.ygap / 2,
                       Math.max(x0, x1) - tr.xgap / 2, Math.max(y0, y1) - tr.ygap / 2];
          const color = paint((box[0] + box[2]) / 2, (box[1] + box[3]) / 2);
          cells.push({i, j, box, color: color && color.slice(0, 3)});
        }
      }
    }
    const drag = plot.querySelector('.nsewdrag');  // the plot area (the first subplot's)
    charts.push({key, texts, cells, modebar: bar ? rect(bar.getBoundingClientRect()) : null,
                 frame: rect(plot.getBoundingClientRect()), area: drag ? rect(drag.getBoundingClientRect()) : null});
  }
  return charts;
}
"""

READY_JS = """
() => {
  const plots = [...document.querySelectorAll('.al-plot')];
  if (!plots.length) return -1;
  if (!plots.every((p) => p.querySelector('.main-svg') && p._fullLayout)) return -1;
  return plots.reduce((n, p) => n + p.querySelectorAll('svg text').length, 0);
}
"""

def open_and_read(page, url: str, timeout_s: float = 40.0) -> list[dict]:
    """Open url, wait until the page is at rest with every chart drawn (helpers.at_rest), and read every chart."""
    page.goto(url)
    page.wait_for_selector(APP_READY, timeout=timeout_s * 1000)
    at_rest(page, timeout_s=timeout_s)
    if page.evaluate(READY_JS) <= 0:  # (at rest before its first chart was mounted: a busy machine)
        page.wait_for_function(f"() => ({READY_JS})() > 0", timeout=timeout_s * 1000)
        at_rest(page, timeout_s=timeout_s)
    assert_no_exception(page)
    return page.evaluate(SCAN_JS)


def _inside(inner, outer, slack=BOX_SLACK) -> bool:
    return (inner[0] >= outer[0] - slack and inner[1] >= outer[1] - slack and inner[2] <= outer[2] + slack
            and inner[3] <= outer[3] + slack)


def _overlap(a, b) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w if w > BOX_SLACK and h > BOX_SLACK else 0.0


def side_by_side(charts: list[dict]) -> list[list[dict]]:
    """The lines of charts that stand side by side (their frames start at one height, at different places across),
    two or more to a line."""
    lines: dict = {}
    for chart in charts:
        if chart.get("frame") and chart.get("area"):
            lines.setdefault(round(chart["frame"][1]), []).append(chart)
    return [line for line in lines.values() if len({round(c["frame"][0]) for c in line}) > 1]


def level_problems(charts: list[dict]) -> list[str]:
    """Charts side by side: their plot areas start at one height (±1 px) and their titles too (±2 px)."""
    out = []
    for line in side_by_side(charts):
        tops = {c["key"]: c["area"][1] for c in line}
        if max(tops.values()) - min(tops.values()) > 1.0:
            out.append("plot areas side by side start at different heights: "
                       + ", ".join(f"{k} {v - line[0]['frame'][1]:.0f} px" for k, v in tops.items()))
        titles = {c["key"]: min(t["box"][1] for t in c["texts"] if t["kind"] == "title")
                  for c in line if any(t["kind"] == "title" for t in c["texts"])}
        if len(titles) > 1 and max(titles.values()) - min(titles.values()) > 2.0:
            out.append("titles side by side start at different heights: "
                       + ", ".join(f"{k} {v - line[0]['frame'][1]:.0f} px" for k, v in titles.items()))
    return out


def problems_of(charts: list[dict]) -> list[str]:
    """Every rule broken on one page, in words."""
    out = level_problems(charts)
    for chart in charts:
        key, texts = chart["key"], chart["texts"]
        if not texts:
            out.append(f"{key}: no text drawn")
        for t in texts:
            least = CELL_MIN_PX if t["kind"] == "cell" else TEXT_MIN_PX
            if t["px"] < least - SIZE_SLACK:
                out.append(f"{key}: {t['kind']} {t['text']!r} is {t['px']:.1f} px (< {least:.0f})")
        cells = chart["cells"]
        for t in (t for t in texts if t["kind"] == "cell"):
            cx, cy = (t["box"][0] + t["box"][2]) / 2, (t["box"][1] + t["box"][3]) / 2
            home = next((c for c in cells if c["box"][0] <= cx <= c["box"][2] and c["box"][1] <= cy <= c["box"][3]),
                        None)
            if home is None or not _inside(t["box"], home["box"]):
                w, h = t["box"][2] - t["box"][0], t["box"][3] - t["box"][1]
                cell = home and (home["box"][2] - home["box"][0], home["box"][3] - home["box"][1])
                out.append(f"{key}: cell text {t['text']!r} ({w:.0f}×{h:.0f} px) does not fit its cell "
                           f"({cell and f'{cell[0]:.0f}×{cell[1]:.0f}'} px)")
        boxes = np.array([t["box"] for t in texts]) if texts else np.zeros((0, 4))
        if len(boxes):
            w = np.minimum(boxes[:, None, 2], boxes[None, :, 2]) - np.maximum(boxes[:, None, 0], boxes[None, :, 0])
            h = np.minimum(boxes[:, None, 3], boxes[None, :, 3]) - np.maximum(boxes[:, None, 1], boxes[None, :, 1])
            hit = np.triu((w > BOX_SLACK) & (h > BOX_SLACK), 1)
            for a, b in zip(*np.nonzero(hit)):
                out.append(f"{key}: {texts[a]['kind']} {texts[a]['text']!r} overlaps {texts[b]['kind']} "
                           f"{texts[b]['text']!r} ({w[a, b]:.0f}×{h[a, b]:.0f} px)")
        bar = chart["modebar"]
        for t in (t for t in texts if t["kind"] == "title"):
            if bar and _overlap(t["box"], bar):
                out.append(f"{key}: title {t['text']!r} runs under the chart toolbar")
    return out


def colours_by_value(charts: list[dict]) -> dict:
    """{(chart key, i, j): (cell text, fill colour)} of every heatmap cell."""
    out = {}
    for chart in charts:
        texts = {}
        for t in (t for t in chart["texts"] if t["kind"] == "cell"):
            cx, cy = (t["box"][0] + t["box"][2]) / 2, (t["box"][1] + t["box"][3]) / 2
            for c in chart["cells"]:
                if c["box"][0] <= cx <= c["box"][2] and c["box"][1] <= cy <= c["box"][3]:
                    texts[(c["i"], c["j"])] = t["text"]
        for c in chart["cells"]:
            out[(chart["key"], c["i"], c["j"])] = (texts.get((c["i"], c["j"])), c["color"])
    return out


# ---- the tests ---------------------------------------------------------------------------------------------------

NO_SIDEWAYS = """() => ({page: document.documentElement.scrollWidth, window: window.innerWidth})"""

ROW_CELLS = """() => [...document.querySelectorAll('.al-row')].map((grid) => ({
  widths: (grid.__alMsg && grid.__alMsg.widths) || null,
  cells: [...grid.children].map((c) => c.getBoundingClientRect().width),
  tops: [...grid.children].map((c) => Math.round(c.getBoundingClientRect().top)),
}))"""



TOKENS = ["Supercalifragilisticexpialidocious1", "犬", "が", "公園", "を", "ゆっくり", "歩く", "WWWWWWWW", "猫",
          "と", "魚", "を", "食べる", "[PAD]", "<b>x</b>", "終わり"]
"""16 tokens: a 35-character word (longer than the 33 of the issue), wide Latin letters, HTML-looking text."""

LAYOUT_JS = r"""
() => {
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  if (!main) return ['no main column ([data-testid=stMainBlockContainer]) on the page'];
  const edge = main.getBoundingClientRect().right;
  const problems = [];
  const name = (e) => {
    const keyed = e.closest('[class*="st-key-"]');
    const key = keyed ? [...keyed.classList].find(c => c.startsWith('st-key-')) : '';
    const cls = typeof e.className === 'string' && e.className ? '.' + e.className.split(' ')[0] : '';
    return `<${e.tagName.toLowerCase()}${cls}>${key ? ' ' + key : ''} "${(e.textContent || '').trim().slice(0, 60)}"`;
  };
  if (main.scrollWidth > main.clientWidth + 1)
    problems.push(`the main column scrolls sideways (scrollWidth ${main.scrollWidth} > ${main.clientWidth})`);
  const page = document.scrollingElement;
  if (page.scrollWidth > page.clientWidth + 1)
    problems.push(`the page scrolls sideways (scrollWidth ${page.scrollWidth} > ${page.clientWidth})`);
  const walk = (el) => {
    for (const e of el.children) {
      if (e.classList.contains('katex-mathml')) continue;  // KaTeX's copy for screen readers, visually hidden
      const r = e.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && r.right > edge + 1) {
        problems.push(`${name(e)} ends ${Math.round(r.right - edge)} px past the main column's right edge`);
        continue;  // its children would say the same
      }
      if (getComputedStyle(e).overflowX !== 'visible') continue;  // a box that clips (or scrolls) its content
      walk(e);
    }
  };
  walk(main);
  // a formula must wrap: one wider than the box that clips it would be cut (or hidden behind a scroll bar)
  for (const f of main.querySelectorAll('.katex-html')) {
    let box = f.parentElement;
    while (box !== main && getComputedStyle(box).overflowX === 'visible') box = box.parentElement;
    const range = document.createRange();
    range.selectNodeContents(f);  // the glyphs' extent: a display formula's own box is only as wide as its column
    const over = range.getBoundingClientRect().right - box.getBoundingClientRect().right;
    if (over > 1) problems.push(`${name(f)}: a formula ${Math.round(over)} px wider than its box; it must wrap`);
  }
  for (const inp of main.querySelectorAll('[data-testid="stSelectbox"] input, [data-testid="stNumberInput"] input')) {
    if (inp.scrollWidth > inp.clientWidth + 1)  // a sentence may scroll in its field; a choice or a number may not
      problems.push(`${name(inp.closest('[data-testid]'))}: its value "${inp.value}" is cut off`);
  }
  for (const e of main.querySelectorAll('*')) {
    if (e.matches('input[type=file]')) continue;  // the uploader's file chooser: no text of its own is shown
    const cs = getComputedStyle(e);
    if (cs.textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth + 1)
      problems.push(`${name(e)}: its text is cut off with "…"`);
  }
  // text outside charts and input fields, block by block (KaTeX spreads "8.7e−05" over several spans)
  const skip = 'svg, .js-plotly-plot, input, textarea, code, .katex-mathml, style, script, '
             + '[data-testid="stSlider"], [data-testid="stNumberInput"], [data-testid="stTextInput"]';
  const blocks = new Map();
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const p = n.parentElement;
    if (!p || p.closest(skip)) continue;
    const block = p.closest('.katex-html') || p.closest('p, td, th, li, h1, h2, h3, h4, h5, h6, label, div');
    blocks.set(block, (blocks.get(block) || '') + n.nodeValue);
  }
  for (const [block, text] of blocks) {
    const sci = text.match(/\d(?:\.\d+)?\s*e\s*[+\-\u2212]\s*\d+/);
    if (sci) problems.push(`${name(block)}: "e" notation on screen (${sci[0]})`);
    const hyphen = text.match(/(?:^|[\s(\[=:,\uff1a\u3001\uff08|])-\d[\d.]*/);
    if (hyphen) problems.push(`${name(block)}: an ASCII hyphen as a minus sign (${hyphen[0].trim()})`);
  }
  return problems;
}
"""


def widest_params(lesson) -> dict[str, str]:
    """The lesson's widest valid link, from its link schema alone (so a new lesson gets one with no new code):
    every text field 16 tokens (cut to its limit), every whole number at its largest allowed value (sizes 16,
    a query past the end, the largest seed), every switch on, every decimal at its most negative, every vector at
    −limit. Choices (presets, modes) keep their defaults."""
    values: dict[str, object] = {}
    for f in lesson.link.fields:
        if isinstance(f, link.Text):
            values[f.key] = " ".join(TOKENS)[: f.max_chars].strip()
        elif isinstance(f, link.Int):
            values[f.key] = f.allowed[-1] if f.allowed else f.hi
        elif isinstance(f, link.Flag):
            values[f.key] = True
        elif isinstance(f, link.Decimal):
            values[f.key] = f.allowed[0] if f.allowed else f.snap(f.lo)
        elif isinstance(f, link.Vector):
            values[f.key] = tuple(-f.limit for _ in range(f.n))
    return link.write(lesson.link, values)


SETTLE_S = 8.0
"""How long the layout may take to follow a new width (charts redraw for it after a resize observer fires; on a
busy machine that took over a second): the checks are repeated until they pass or this time is up."""


def _settled(page, script: str, good, arg=None) -> list:
    """The script's findings once ``good`` holds for them, or when SETTLE_S is up (a row that was just redrawn, or
    appeared after a late rerun, takes its narrow layout a moment later)."""
    deadline = time.monotonic() + SETTLE_S
    while True:
        found = page.evaluate(script, arg)
        if good(found) or time.monotonic() > deadline:
            return found
        page.wait_for_timeout(300)


def layout_problems(page) -> list[str]:
    """The layout rules of the module's docstring on the page as it is (LAYOUT_JS), repeated until they hold or
    SETTLE_S is up."""
    return _settled(page, LAYOUT_JS, lambda found: not found)


def _menus() -> dict[str, tuple[str, list[str]]]:
    """Menus whose every choice must fit, not only the one on screen: lesson key → (widget key, text keys)."""
    from lessons import qkv

    return {"qkv": ("qkv.preset", [f"preset.{k}" for k in qkv.PRESETS])}


MENU_FIT = """([selector, names]) => {
    const inp = document.querySelector(selector + ' input');
    if (!inp) return [['(no menu on the page)', 0, 0]];
    const cs = getComputedStyle(inp);
    const room = inp.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = cs.font;  // the menu's own font: the other choices are measured as it would draw them
    return names.map(n => [n, Math.ceil(ctx.measureText(n).width), Math.floor(room)]).filter(([, w, r]) => w > r);
}"""


def menu_problems(page, lesson_key: str, lang: str) -> list[str]:
    """Every choice of the lesson's menus (``_menus``) fits its box in language ``lang``, not only the one shown."""
    if lesson_key not in _menus():
        return []
    key, text_keys = _menus()[lesson_key]
    names = [table(lang)[k] for k in text_keys]
    return [f"{key}: the choice \"{n}\" needs {w} px, the menu shows {r}"
            for n, w, r in page.evaluate(MENU_FIT, [sel(key), names])]


ROWS_SIDE_BY_SIDE = """() => [...document.querySelectorAll('.al-row')]
    .map(g => getComputedStyle(g).gridTemplateColumns.split(' ').filter(Boolean).length)"""


def phone_row_problems(page) -> list[str]:
    """On a phone every row of charts (ui.plot_component.row) shows one column, as st.columns stack there."""
    found = _settled(page, ROWS_SIDE_BY_SIDE, lambda found: all(n <= 1 for n in found))
    return [f"a row of charts keeps {n} columns side by side, as st.columns would not" for n in found if n > 1]


def squeezed_row_problems(page, column_px: int) -> list[str]:
    """Charts meant to stand side by side are put one under another when their columns would be narrower than each
    chart was laid out for (plot.js rowTemplate), so their numbers keep the room they were given. A chart laid out for
    the whole column (``column_px``, ui.figures.REF_COLUMN_PX) stands alone anyway."""
    rows = page.evaluate(ROW_CELLS)
    out = ["a row of charts that does not know the widths its charts were laid out for" for r in rows
           if not r["widths"]]
    full = column_px - 20
    for r in rows:
        if r["widths"] and any(c < w - 12 for c, w in zip(r["cells"], r["widths"]) if w < full):
            out.append(f"charts narrower than laid out for (laid out {r['widths']}, drawn "
                       f"{[round(c) for c in r['cells']]})")
    return out


def sideways_problems(page) -> list[str]:
    wide = page.evaluate(NO_SIDEWAYS)
    if wide["page"] > wide["window"]:
        return [f"the page scrolls sideways: {wide['page']} px in a {wide['window']} px window"]
    return []


FAULTY_PAGE = """<!doctype html><meta charset="utf-8"><body style="margin:0">
<div data-testid="stMainBlockContainer" style="width:300px">
  <div id="wide" style="width:500px">wide</div>
  <div class="katex-display" style="overflow-x:auto;width:300px"><span class="katex"><span class="katex-html"
       style="display:block"><span style="display:inline-block;width:600px">8.7</span><span>e</span><span>−</span>
       <span>05</span></span>
  </span></div>
  <table><tr><td>-2.2</td></tr></table>
  <div data-testid="stSelectbox"><input value="3 tokens, Q/K/V given directly, and much more" style="width:60px"></div>
  <div data-testid="stNumberInput"><input value="−10.0000" style="width:20px"></div>
  <button><div style="width:50px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap">Back to the example's
     start</div></button>
  <div style="overflow-x:auto;width:300px"><table style="width:700px"><tr><td>scrolls in its own box</td></tr>
  </table></div>
</div></body>"""


def luminance(rgb) -> float:
    """WCAG 2's relative luminance of an sRGB colour (0–255 a channel)."""
    def lin(v: float) -> float:
        v = v / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = rgb[:3]
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def ratio(a, b) -> float:
    """WCAG 2's contrast ratio of two sRGB colours: 1 (none) to 21 (black on white)."""
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def parse_rgb(css: str) -> tuple[int, int, int]:
    inner = css[css.index("(") + 1:css.index(")")]
    return tuple(int(float(x)) for x in inner.split(",")[:3])


def contrast_problems(charts: list[dict]) -> list[str]:
    """Every number written in a heatmap cell (read by SCAN_JS) against the cell painted under it: at least AA."""
    out, low, checked = [], [], 0
    for chart in charts:
        for t in (t for t in chart["texts"] if t["kind"] == "cell"):
            if not t.get("bg") or t["bg"][3] != 255:
                out.append(f"{chart['key']}: no painted cell under the number {t['text']!r}")
                continue
            checked += 1
            got = ratio(parse_rgb(t["fill"]), t["bg"])
            if got < AA:
                low.append((round(got, 2), chart["key"], t["text"], t["fill"], tuple(t["bg"][:3])))
    if low:
        out.append(f"{len(low)} of {checked} numbers under {AA}:1 with their cells, e.g. {sorted(low)[:5]}")
    return out
