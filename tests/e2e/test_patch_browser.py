"""ui/plot_component/assets/patch.js in Chromium: a heatmap patched with new cells must look exactly as plotly.js's
own drawing of the new figure (same image pixels, same texts, same text colours, same image geometry), its hover
data must be the new one, and figures it cannot draw the same way must be refused (the caller then redraws with
plotly).

The figures are the lessons' own (ui.charts' heatmap builder: the weights' viridis scale with automatic text colours,
a diverging W matrix with rgb() stops and negative numbers, a value past the colour range, a highlighted row), served
with plotly.js and the theme from the component's asset folder; no Streamlit server is needed.
"""
from __future__ import annotations

import base64
import json
import mimetypes

import numpy as np
import pytest

from ui import charts

from .helpers import REPO_ROOT

ASSETS = REPO_ROOT / "ui" / "plot_component" / "assets"
ORIGIN = "http://patch.test"
PAGE = """<!doctype html><html><head><meta charset="utf-8"></head><body>
<div id="a" style="width:640px"></div><div id="b" style="width:640px"></div>
<script src="vendor/plotly-cartesian.min.js"></script>
<script type="module">
import { colourLabels, frameKey, patchHeatmap } from "./patch.js";
import { STREAMLIT_TEMPLATE } from "./theme.js";
window.frameKey = frameKey;
window.patchHeatmap = patchHeatmap;
window.colourLabels = colourLabels;
window.TEMPLATE = STREAMLIT_TEMPLATE;
window.pixels = (url) => new Promise((resolve) => {
  const img = new Image();
  img.onload = () => {
    const c = document.createElement("canvas");
    c.width = img.width; c.height = img.height;
    const ctx = c.getContext("2d");
    ctx.drawImage(img, 0, 0);
    resolve(ctx.getImageData(0, 0, c.width, c.height).data);
  };
  img.src = url;
});
window.ready = true;
</script></body></html>"""

# What the browser side does with two figures: draw `old` in #a and patch `new` in; draw `new` in #b with plotly.
COMPARE = """async ([old, nu]) => {
  const a = document.getElementById("a"), b = document.getElementById("b");
  const sameFrame = frameKey(old, {}, null) === frameKey(nu, {}, null);  // as plot.js: before plotly sees them
  for (const f of [old, nu]) f.layout.template = window.TEMPLATE;
  await Plotly.newPlot(a, old.data, old.layout, {});
  await Plotly.newPlot(b, JSON.parse(JSON.stringify(nu.data)), JSON.parse(JSON.stringify(nu.layout)), {});
  colourLabels(a);  // as plot.js does after each drawing by plotly
  colourLabels(b);
  const t0 = performance.now();
  const patched = patchHeatmap(a, nu.data);
  const ms = performance.now() - t0;
  const look = async (div) => {
    const img = div.querySelector(".hm image");
    const labels = [...div.querySelectorAll(".heatmap-label text")];
    return {
      geometry: ["x", "y", "width", "height"].map((k) => img.getAttribute(k)),
      pixels: await window.pixels(img.getAttributeNS("http://www.w3.org/1999/xlink", "href")),
      texts: labels.map((t) => t.textContent),
      fills: labels.map((t) => getComputedStyle(t).fill),
      places: labels.map((t) => [t.getAttribute("x"), t.getAttribute("y")]),
    };
  };
  const cd = a.calcdata[0][0];
  const hover = (div) => {  // the hover label of the last cell, as a pointer over it shows it
    const z = div.calcdata[0][0].z;
    Plotly.Fx.hover(div, {xval: z[0].length - 1, yval: z.length - 1});
    const label = div.querySelector(".hoverlayer .hovertext");
    const text = label ? label.textContent : null;
    Plotly.Fx.unhover(div);
    return text;
  };
  const [la, lb] = [await look(a), await look(b)];
  // the image bytes are compared here: the arrays themselves (4 bytes a pixel) are too big to send to the test
  const [pa, pb] = [la.pixels, lb.pixels];
  let differ = Math.abs(pa.length - pb.length);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) if (pa[i] !== pb[i]) differ++;
  la.pixels = pa.length; lb.pixels = pb.length; la.pixelsDiffer = lb.pixelsDiffer = differ;
  return {patched, sameFrame, ms, a: la, b: lb, hoverZ: cd.z, hoverText: cd.text,
          hoverLabels: [hover(a), hover(b)],
          customdata: cd.trace.customdata, data: a.data === nu.data};
}"""


def _figure(M, *, weights: bool = False, role: str | None = "W", highlight_rows: int | None = None,
            zmax: float | None = None) -> dict:
    M = np.asarray(M, dtype=float)
    rows = tuple(f"r{i + 1}" for i in range(M.shape[0]))
    cols = tuple(f"c{j + 1}" for j in range(M.shape[1]))
    texts = ("title", "rows", "cols", "%{customdata[0]} · %{customdata[1]}: %{text}<extra></extra>")
    return charts._heatmap_ready(M, rows, cols, texts, weights, None if weights else role, highlight_rows, zmax)


def _softmax_rows(S):
    e = np.exp(S - S.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.fixture(scope="module")
def patch_page(browser):
    """A page of the session's Chromium (tests/e2e/conftest.py) on a made-up origin served from the asset folder."""
    def serve(route):
        path = route.request.url[len(ORIGIN) + 1:].split("?")[0]
        if path in ("", "index.html"):
            return route.fulfill(body=PAGE, content_type="text/html")
        file = (ASSETS / path).resolve()
        if not file.is_relative_to(ASSETS) or not file.is_file():
            return route.fulfill(status=404)
        return route.fulfill(body=file.read_bytes(), content_type=mimetypes.guess_type(file.name)[0] or "text/plain")

    context = browser.new_context()
    pg = context.new_page()
    pg.route(f"{ORIGIN}/**", serve)
    pg.goto(f"{ORIGIN}/index.html")
    pg.wait_for_function("window.ready === true")
    yield pg
    context.close()


def _compare(page, old: dict, new: dict) -> dict:
    return page.evaluate(COMPARE, [json.loads(json.dumps(old)), json.loads(json.dumps(new))])


rng = np.random.default_rng(7)
CASES = {
    "weights 16×16 (viridis, text colour by contrast)": (
        _figure(_softmax_rows(rng.normal(size=(16, 16)) * 2), weights=True, highlight_rows=3),
        _figure(_softmax_rows(rng.normal(size=(16, 16)) * 2), weights=True, highlight_rows=3)),
    "weights 3×3 (the dog example's size)": (
        _figure(_softmax_rows(rng.normal(size=(3, 3))), weights=True),
        _figure(_softmax_rows(rng.normal(size=(3, 3))), weights=True)),
    "W 4×5, diverging scale with rgb() stops, negative numbers": (
        _figure(np.clip(rng.normal(size=(4, 5)), -1.9, 1.9), zmax=2.0),
        _figure(np.clip(rng.normal(size=(4, 5)), -1.9, 1.9), zmax=2.0)),
    "weights 3×3 with bounds (<0.01, >0.99: a "<" or ">" that forms no tag)": (
        _figure(_softmax_rows(np.array([[9.0, 0.0, 1.0], [0.5, 0.1, 0.2], [1.0, 1.0, 1.0]])), weights=True),
        _figure(_softmax_rows(np.array([[40.0, 0.0, 1.0], [0.5, 0.1, 0.2], [0.0, 9.0, -9.0]])), weights=True)),
    "Q 6×2 with a value past the colour range (clamped colour)": (
        _figure(np.array([[0.5, -0.25]] * 6), role="Q", zmax=3.0),
        _figure(np.array([[0.5, -0.25]] * 5 + [[2.9, -2.99]]), role="Q", zmax=3.0)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_patched_heatmap_is_what_plotly_draws(patch_page, name):
    old, new = CASES[name]
    got = _compare(patch_page, old, new)
    assert got["sameFrame"] and got["patched"], "the patch must apply to a figure whose cells alone changed"
    a, b = got["a"], got["b"]
    assert a["texts"] == b["texts"] == [x for row in new["data"][0]["text"] for x in row]
    assert a["fills"] == b["fills"]
    assert a["places"] == b["places"]
    assert a["geometry"] == b["geometry"]
    assert a["pixels"] == b["pixels"] > 0, "the two images have other sizes (bytes)"
    assert a["pixelsDiffer"] == 0, f"{a['pixelsDiffer']} image bytes differ from plotly's own drawing"
    # hover labels read calcdata's z and text and the full trace's customdata: all the new figure's
    trace = new["data"][0]
    assert got["hoverText"] == trace["text"]
    assert got["customdata"] == trace["customdata"]
    z = np.frombuffer(base64.b64decode(trace["z"]["bdata"])).reshape(np.shape(trace["text"]))
    assert np.array_equal(np.asarray(got["hoverZ"]), z)
    assert got["data"], "the chart's input data must be the new figure (the PNG download draws from it)"
    label_a, label_b = got["hoverLabels"]
    assert old["data"][0]["text"][-1][-1] != trace["text"][-1][-1], "the hovered cell must change"
    assert label_a and label_a == label_b and trace["text"][-1][-1] in label_a


def test_new_texts_differ_from_the_old_ones(patch_page):
    """The cases above must really change the numbers on screen (else the equality proves nothing)."""
    old, new = CASES["weights 16×16 (viridis, text colour by contrast)"]
    assert old["data"][0]["text"] != new["data"][0]["text"]
    fills = set(_compare(patch_page, old, new)["b"]["fills"])
    assert fills == {"rgb(255, 255, 255)", "rgb(0, 0, 0)"}, "both text colours must occur, to test the contrast"


def _with(fig: dict, **trace) -> dict:
    out = json.loads(json.dumps(fig))
    out["data"][0].update(trace)
    return out


@pytest.mark.parametrize("change", ["masked cell", "markup in a text", "empty text", "smoothed", "no gaps",
                                    "other shape"])
def test_what_the_patch_cannot_draw_is_refused(patch_page, change):
    old, new = CASES["W 4×5, diverging scale with rgb() stops, negative numbers"]
    text = [row[:] for row in new["data"][0]["text"]]
    if change == "masked cell":
        z = np.frombuffer(base64.b64decode(new["data"][0]["z"]["bdata"])).reshape(4, 5).copy()
        z[0, 0] = np.nan
        bad = _with(new, z=z.tolist())
    elif change == "markup in a text":
        text[1][1] = "<b>1</b>"
        bad = _with(new, text=text)
    elif change == "empty text":
        text[2][0] = ""
        bad = _with(new, text=text)
    elif change == "smoothed":
        bad = _with(new, zsmooth="best")
    elif change == "no gaps":
        bad = _with(new, xgap=0, ygap=0)
    else:
        bad = _figure(rng.normal(size=(4, 6)), zmax=2.0)
    got = patch_page.evaluate("""async ([old, bad]) => {
      const a = document.getElementById("a");
      old.layout.template = window.TEMPLATE;
      await Plotly.newPlot(a, old.data, old.layout, {});
      const before = [...a.querySelectorAll(".heatmap-label text")].map((t) => t.textContent);
      const patched = patchHeatmap(a, bad.data);
      const after = [...a.querySelectorAll(".heatmap-label text")].map((t) => t.textContent);
      return {patched, unchanged: JSON.stringify(before) === JSON.stringify(after)};
    }""", [json.loads(json.dumps(old)), json.loads(json.dumps(bad))])
    assert got == {"patched": False, "unchanged": True}


def test_the_frame_key_sees_a_changed_layout_or_colour_range(patch_page):
    old, new = CASES["W 4×5, diverging scale with rgb() stops, negative numbers"]
    moved = json.loads(json.dumps(new))
    moved["layout"]["title"] = {"text": "another title"}
    ranged = _with(new, zmax=9.0)
    got = patch_page.evaluate("""([old, moved, ranged]) => {
      const key = frameKey(old, {}, null);
      return [key === frameKey(moved, {}, null), key === frameKey(ranged, {}, null),
              key === frameKey(old, {locale: "ja"}, null)];
    }""", [old, moved, ranged])
    assert got == [False, False, False]


def test_after_a_patch_resize_download_and_the_next_redraw_are_right(patch_page):
    """A resize replots from the calcdata, the PNG download draws the input figure, the next Plotly.react replots:
    each must show the patched numbers (or, for the redraw, the figure it is given), never the ones before."""
    old, new = CASES["weights 16×16 (viridis, text colour by contrast)"]
    got = patch_page.evaluate("""async ([old, nu]) => {
      const a = document.getElementById("a"), b = document.getElementById("b");
      const copy = (x) => JSON.parse(JSON.stringify(x));
      const texts = (div) => [...div.querySelectorAll(".heatmap-label text")].map((t) => t.textContent).join("|");
      for (const f of [old, nu]) f.layout.template = window.TEMPLATE;
      await Plotly.newPlot(a, copy(old.data), copy(old.layout), {});
      await Plotly.newPlot(b, copy(nu.data), copy(nu.layout), {});
      const patched = patchHeatmap(a, copy(nu.data));
      const png = async (div) => Plotly.toImage(div, {format: "png", width: 500, height: 500});
      const out = {patched, png: (await png(a)) === (await png(b))};
      await Plotly.relayout(a, {width: 600});
      await Plotly.relayout(b, {width: 600});
      out.resized = texts(a) === texts(b);
      await Plotly.react(a, copy(old.data), copy(old.layout), {});
      const c = document.createElement("div");
      document.body.appendChild(c);
      await Plotly.newPlot(c, copy(old.data), copy(old.layout), {});
      out.back = texts(a) === texts(c) && texts(a) !== texts(b);
      return out;
    }""", [json.loads(json.dumps(old)), json.loads(json.dumps(new))])
    assert got == {"patched": True, "png": True, "resized": True, "back": True}


def test_a_hover_label_on_screen_shows_the_patched_number(patch_page):
    """The pointer rests on a cell while a slider moves: the label must follow the cell (a new-user trial saw the
    cell say 0.60 and its label 0.58)."""
    old, new = CASES["W 4×5, diverging scale with rgb() stops, negative numbers"]
    got = patch_page.evaluate("""async ([old, nu]) => {
      const a = document.getElementById("a");
      old.layout.template = window.TEMPLATE;
      await Plotly.newPlot(a, old.data, old.layout, {});
      const label = () => (a.querySelector(".hoverlayer .hovertext") || {}).textContent || null;
      Plotly.Fx.hover(a, {xval: 1, yval: 2});
      const before = label();
      const patched = patchHeatmap(a, nu.data);
      await new Promise((resolve) => setTimeout(resolve, 150));  // plotly draws hover labels at most every 50 ms
      return {before, after: label(), patched};
    }""", [json.loads(json.dumps(old)), json.loads(json.dumps(new))])
    old_text, new_text = old["data"][0]["text"][2][1], new["data"][0]["text"][2][1]
    assert old_text != new_text
    assert got["patched"] and old_text in got["before"]
    assert new_text in got["after"] and old_text not in got["after"], got
