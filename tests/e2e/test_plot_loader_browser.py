"""The chart component's inline loader (ui.plot_component._loader_js) hands plot.js the calls in the order Streamlit
made them, also the calls that come while plot.js is still loading.

Why it matters: a page's first run is laid out for the 1280-px reference and is followed at once by the run laid out
for the browser's own width (ui/viewport.py). On 8c4eaed each call made its own ``import()``, the browser resolved
those in any order, and in about 1 load of 5 on a 390-px phone a chart kept the figure of the first run: its numbers
overflowed 15-px cells (tests/e2e/test_screens_browser.py, narrow cases).

The loader's own text is run in Chromium with its ``import()`` replaced by one that resolves when the test says, in
the reverse order of the calls (the worst a browser may do).
"""
from __future__ import annotations

from ui import plot_component

RUN_LOADER_JS = r"""
async (loader) => {
  const body = loader.replace("export default", "return").replace(/\bimport\(/g, "load(");
  const waiting = [];
  const load = () => new Promise((resolve) => waiting.push(resolve));
  const seen = [];
  const plotJs = { default: (c) => { seen.push(c); return () => {}; } };
  const call = new Function("load", "location", body)(load, { origin: "" });
  const loads = () => waiting.length;
  call("first run"); call("run for the window's width"); call("a third");
  const imports = loads();
  for (const resolve of waiting.slice().reverse()) resolve(plotJs);  // resolved last-made first
  await new Promise((r) => setTimeout(r, 0));
  call("after loading");
  return { seen, imports };
}
"""


def test_calls_made_while_plot_js_loads_reach_it_in_order(browser):
    page = browser.new_page()
    try:
        out = page.evaluate(RUN_LOADER_JS, plot_component._loader_js())
    finally:
        page.close()
    assert out["seen"] == ["first run", "run for the window's width", "a third", "after loading"], out
    assert out["imports"] == 1, f"plot.js imported {out['imports']} times while loading: once is enough"
