"""A chart whose div changes width while the chart is being drawn ends as wide as its div (assets/plot.js).

Found by tools/redraw_property.py (an uncaught "Something went wrong with axis scaling" on /qkv) and reproduced
here: plot.js is given figures of two grid shapes in turn (each drawn afresh: another structure) while its div
switches between 600 and 300 px, one change per figure. On c9e89d9 the ResizeObserver resized the chart in the
middle of a fresh draw and the draw's own width check ran for Plotly.react only, so the chart ended at the width the
last draw began with: 300 px in a 600 px div (or 600 in 300), for good. Oracle: the div's own width, and no error.
"""
from __future__ import annotations

import json

import pytest

from tests.e2e.helpers import APP_READY


def figure(rows: int, cols: int) -> str:
    """A component payload (ui.plot_component.payload's shape) of a rows×cols heatmap."""
    z = [[(i * cols + j) % 7 for j in range(cols)] for i in range(rows)]
    return json.dumps({"figure": {"data": [{"type": "heatmap", "z": z}],
                                  "layout": {"height": 320, "title": {"text": f"{rows}x{cols}"}}},
                       "config": {}, "label": f"{rows}x{cols}", "theme": None, "first": True})


RACE_JS = r"""async ([A, B, n]) => {
  const errors = [];
  window.addEventListener("unhandledrejection", (e) => errors.push(String(e.reason && (e.reason.message || e.reason))));
  window.addEventListener("error", (e) => errors.push(e.message));
  const mod = await import(location.origin + "/_stcore/bidi-components/attention_lab.plot/plot.js");
  const parent = document.createElement("div");
  parent.style.width = "600px";
  document.body.prepend(parent);
  const stats = window.__attentionLabStats;
  const rest = async () => {
    for (let k = 0; k < 500 && (stats.busy || !parent.querySelector(".main-svg")); k++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 500));  // a resize the last draw left waiting, and its own draw
  };
  mod.default({ parentElement: parent, data: A });
  await rest();
  for (let i = 0; i < n; i++) {
    mod.default({ parentElement: parent, data: i % 2 ? A : B });
    parent.style.width = (i % 2 ? 600 : 300) + "px";
    await new Promise((r) => requestAnimationFrame(() => r()));
    await new Promise((r) => setTimeout(r, (i % 3) * 7));
  }
  await rest();
  const plot = parent.querySelector(".js-plotly-plot");
  return { errors, drawn: plot._fullLayout.width, div: parent.clientWidth };
}"""


@pytest.mark.parametrize("n", [12, 20, 21])
def test_a_chart_drawn_while_its_div_changes_width_ends_as_wide_as_the_div(browser, app_server, n):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(app_server + "/")
        page.wait_for_selector(APP_READY, timeout=60_000)
        out = page.evaluate(RACE_JS, [figure(3, 3), figure(6, 2), n])
    finally:
        page.close()
    assert out["errors"] == []
    assert out["div"] == (600 if n % 2 == 0 else 300)
    assert abs(out["drawn"] - out["div"]) <= 1, out
