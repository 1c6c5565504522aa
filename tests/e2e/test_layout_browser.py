"""Readable from the back of the room (issue 9): every registered lesson, both languages, its default link and its
widest link (16 tokens, the largest sizes), at a 1280×720 projector window and a 390 px phone.

Checked in the real browser, from the rendered page (not from the code that made it):
- the main column never scrolls sideways, and nothing in it (formulas, tables, charts, widgets) ends past its right
  edge; a box that clips its content (a table that scrolls in its own box, a chart's SVG) counts as its own box;
- a formula never needs a scroll bar: it wraps (ui.text.formula), since a hidden scroll bar looks like a cut;
- no widget shows its text cut off (a selectbox's choice, a button's label with "…");
- the text of the page (outside charts and input fields) holds no "e" notation (8.7e−05) and no ASCII hyphen as
  a minus sign (−2.2, not -2.2).
``test_the_checks_find_what_they_look_for`` feeds the same checks a page with each fault, so they cannot pass
by looking at nothing.
"""
from __future__ import annotations

import time
from urllib.parse import urlencode

import pytest

import lessons
from lessons import link
from ui.i18n import table

from .helpers import assert_no_exception, assert_no_page_errors, sel, wait_for_app

WIDTHS = {"projector": {"width": 1280, "height": 720}, "phone": {"width": 390, "height": 844}}
TOKENS = ["Supercalifragilisticexpialidocious1", "犬", "が", "公園", "を", "ゆっくり", "歩く", "WWWWWWWW", "猫",
          "と", "魚", "を", "食べる", "[PAD]", "<b>x</b>", "終わり"]
"""16 tokens: a 35-character word (longer than the 33 of the issue), wide Latin letters, HTML-looking text."""

CHECKS = r"""
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


def open_page(page, app_server: str, path: str) -> None:
    page.goto(app_server + path)
    wait_for_app(page, timeout_ms=60_000)
    assert_no_exception(page)


def problems_at(page, width: str) -> list[str]:
    if page.viewport_size != WIDTHS[width]:
        page.set_viewport_size(WIDTHS[width])
    deadline = time.monotonic() + SETTLE_S
    while True:
        page.wait_for_timeout(300)
        found = page.evaluate(CHECKS)
        if not found or time.monotonic() > deadline:
            return [f"{width} ({WIDTHS[width]['width']} px): {p}" for p in found]


def _settled(page, script: str, good) -> list:
    """The script's findings once ``good`` holds for them, or when SETTLE_S is up (a row that was just redrawn, or
    appeared after a late rerun, takes its narrow layout a moment later)."""
    deadline = time.monotonic() + SETTLE_S
    while True:
        found = page.evaluate(script)
        if good(found) or time.monotonic() > deadline:
            return found
        page.wait_for_timeout(300)


def _menus() -> dict[str, tuple[str, list[str]]]:
    """Menus whose every choice must fit, not only the one on screen: lesson key → (widget key, text keys)."""
    from lessons import qkv

    return {"qkv": ("qkv.preset", [f"preset.{k}" for k in qkv.PRESETS])}


MENU_FIT = """([selector, names]) => {
    const inp = document.querySelector(selector + ' input');
    const cs = getComputedStyle(inp);
    const room = inp.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = cs.font;  // the menu's own font: the other choices are measured as it would draw them
    return names.map(n => [n, Math.ceil(ctx.measureText(n).width), Math.floor(room)]).filter(([, w, r]) => w > r);
}"""


def menu_problems(page, lesson_key: str, lang: str) -> list[str]:
    if lesson_key not in _menus():
        return []
    key, text_keys = _menus()[lesson_key]
    selector = sel(key)
    names = [table(lang)[k] for k in text_keys]
    return [f"projector (1280 px): {key}: the choice \"{n}\" needs {w} px, the menu shows {r}"
            for n, w, r in page.evaluate(MENU_FIT, [selector, names])]


EDGE_CASES = [(x, lang, "default") for i, x in enumerate(lessons.REGISTRY) for lang in ("ja", "en")
              if x.key in _menus() or lang == ("en", "ja")[i % 2]] + \
             [(x, ("ja", "en")[i % 2], "widest") for i, x in enumerate(lessons.REGISTRY)]
"""Every lesson's default link and its widest link, each in one language, the two languages taken in turn, so that
every lesson is seen in both (CI budget); a lesson whose menus' words are checked (_menus) has its default link in
both languages."""


@pytest.mark.parametrize("lesson, lang, kind", EDGE_CASES, ids=[f"{x.key}-{g}-{k}" for x, g, k in EDGE_CASES])
def test_nothing_runs_past_the_right_edge(page, page_errors, app_server, lesson, lang, kind):
    params = {"lang": lang, **(widest_params(lesson) if kind == "widest" else {})}
    page.set_viewport_size(WIDTHS["projector"])
    open_page(page, app_server, f"/{lesson.key}?{urlencode(params)}")
    problems = problems_at(page, "projector")
    if kind == "default":
        problems += menu_problems(page, lesson.key, lang)
    problems += problems_at(page, "phone")
    problems += [f"phone (390 px): a row of charts keeps {n} columns side by side, as st.columns would not"
                 for n in _settled(page, ROWS_SIDE_BY_SIDE, lambda found: all(n <= 1 for n in found)) if n > 1]
    assert problems == [], "\n".join(problems)
    assert_no_page_errors(page_errors)


# How many columns each row of charts (ui.plot_component.row) shows: on a phone, one (as st.columns stack there)
ROWS_SIDE_BY_SIDE = """() => [...document.querySelectorAll('.al-row')]
    .map(g => getComputedStyle(g).gridTemplateColumns.split(' ').filter(Boolean).length)"""


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


def test_the_checks_find_what_they_look_for(page):
    """Each fault of FAULTY_PAGE is reported once, and the table that scrolls inside its own box is not."""
    page.set_content(FAULTY_PAGE)
    problems = page.evaluate(CHECKS)
    text = "\n".join(problems)
    assert "the main column scrolls sideways" in text
    assert '<div> "wide" ends 200 px past' in text
    assert "px wider than its box; it must wrap" in text
    assert '"e" notation on screen (8.7e−' in text
    assert "an ASCII hyphen as a minus sign (-2.2)" in text
    assert "is cut off" in text and 'cut off with "…"' in text and '"−10.0000" is cut off' in text
    assert "scrolls in its own box" not in text
