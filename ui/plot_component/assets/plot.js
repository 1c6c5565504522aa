// One plotly chart that is redrawn in place: the element stays, Plotly.react applies each new figure to the same
// plot div (no unmount/mount, no blank or half-drawn frame between two reruns). Loaded by Streamlit as an ES module
// (st.components.v2, isolate_styles=False, so plotly's global styles reach the chart); called again with the new
// data whenever the element's payload changes. The payload (bytes, UTF-8 JSON, built by ui/plot_component) is one
// chart:
//   {"figure": {"data": [...], "layout": {...}}, "config": {...}, "label": "chart title",
//    "theme": "streamlit" | null, "first": true | false}
// or a row of charts drawn as one element (ui.plot_component.row: a grid like st.columns, each cell a chart, with
// its caption under it, and the class "st-key-<chart key>" a keyed Streamlit element would have):
//   {"columns": [relative widths] | null, "perRow": k, "widths": [px] | null,
//    "items": [{"key", "caption", "chart": <one chart>}, ...]}
// Only the charts whose figure changed are redrawn, and a heatmap whose cells alone changed (a slider move: same
// layout, colour range and config) is not replotted at all: patch.js writes its new colours and numbers into the
// chart plotly drew (2–4 ms instead of 25–30 ms for 16×16, pixel for pixel what plotly would draw).
// plotly.js itself is vendor/plotly-cartesian.min.js (the official cartesian bundle, the version of the `plotly`
// Python package: see vendor/README.md), served by Streamlit from this asset folder (no CDN, works offline); it is
// loaded once per page.
//
// Order: a rerun hands every changed chart of the page to this module within a few milliseconds, and each redraw
// takes 10–40 ms. A chart marked "first" (the attention weights, the lesson's main picture) is drawn at once, inside
// the call that brings its figure: Streamlit calls this module from a React effect, often at the start of its next
// render, and anything awaited would wait for that whole render (~30 ms on /qkv). The other redraws are queued and
// run one per task, best first: charts in the viewport, then the rest in page order. Between two redraws the browser
// may paint, so a chart shows its new numbers as soon as its own redraw is done.
import { colourLabels, frameKey, patchHeatmap } from "./patch.js";

const PLOTLY_URL = new URL("./vendor/plotly-cartesian.min.js", import.meta.url).href;
const decoder = new TextDecoder();
// how many figures were drawn by plotly and how many patched in (patch.js), for the browser tests
const stats = (window.__attentionLabStats = window.__attentionLabStats || { drawn: 0, patched: 0 });

function loadPlotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__attentionLabPlotly) {
    window.__attentionLabPlotly = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = PLOTLY_URL;
      script.async = true;
      script.onload = () => (window.Plotly ? resolve(window.Plotly) : reject(new Error("plotly.js did not load")));
      script.onerror = () => {
        window.__attentionLabPlotly = null;
        reject(new Error(`could not load plotly.js from ${PLOTLY_URL}`));
      };
      document.head.appendChild(script);
    });
  }
  return window.__attentionLabPlotly;
}
// the theme's template: imported here (not statically) so that plotly.js is requested without waiting for it
const template = import("./theme.js").then((module) => module.STREAMLIT_TEMPLATE).catch((err) => {
  console.error("attention_lab.plot: no theme template (plotly's own is used)", err);
  return undefined;
});
// both, once loaded: a "first" chart is then drawn synchronously, inside the call that brings its figure (see below)
let ready = null;  // {Plotly, streamlitTemplate}
Promise.all([loadPlotly(), template]).then(([Plotly, streamlitTemplate]) => { ready = { Plotly, streamlitTemplate }; })
  .catch(() => {});  // drain() says why in each chart

// ---- drawing one figure ----------------------------------------------------------------------------------------
// What Plotly.react may change in place: the figure's structure, as one string. Plotly.react keeps what it can of
// the drawn chart, and some of what it keeps is stale when the structure changes: a colour bar turned from
// horizontal to vertical (a heatmap with fewer columns in the same width) kept its old tick labels ("xcb…tick" next
// to the new "ycb…tick"), the bar's box grew by their width, and plotly's automatic margin gave the plot area what
// was left: a strip 64 px wide in a 402 px chart, until a reload (issue 18). A grid of a new shape made it throw
// ("Something went wrong with axis scaling"). So a figure of another structure is drawn afresh, exactly as a fresh
// page load draws it; only a figure of the same structure (the same traces, grid shapes and colour-bar sides: a
// slider move, a new colour range, a note under the title) goes through Plotly.react, which also keeps a zoom the
// person made (layout.uirevision). tests/e2e/test_redraw_property.py holds every redraw to a fresh load.
export function structureKey(figure) {
  const dims = (a) => (Array.isArray(a) ? a.length : a && typeof a.bdata === "string" ? a.shape || a.bdata.length
    : null);  // a typed-array spec {dtype, bdata(, shape)}: its shape, or its length in base64 for a 1-D one
  const traces = (figure.data || []).map((t) => [
    t.type || "scatter", dims(t.x), dims(t.y), dims(t.z),
    t.showscale === false ? "noscale" : (t.colorbar && t.colorbar.orientation) || "v",
    t.orientation || null,
  ]);
  const layout = figure.layout || {};
  const axes = Object.keys(layout).filter((k) => /^[xy]axis\d*$/.test(k)).sort();
  return JSON.stringify([traces, axes]);
}

// Whether a drawn chart is not as wide as its div. Plotly.react measures the div only for a chart's first draw: after
// that it keeps the width plotly last sized the chart to (plotly resizes only through Plots.resize or a relayout of
// autosize). A react that comes after the div changed width but before the ResizeObserver below reports it (a row
// whose column shares change in the same rerun as its figures: /qkv's weights went from 3/5 to 1/2 of the row when
// d_v grew) kept the old width, and the width recorded after the draw told the observer that all was done: the chart
// stayed 80 px wider than its column, until a reload (tests/e2e/test_redraw_property.py). The same rule as
// plotly's own autosize: more than 1 px between the drawn width and the div's computed width.
function staleWidth(div) {
  const drawn = div._fullLayout && div._fullLayout.width;
  const now = parseFloat(window.getComputedStyle(div).width);
  return drawn > 0 && now > 0 && Math.abs(drawn - now) > 1;
}

// Plotly.react does its work synchronously and returns a promise; a figure of another structure than the drawn one
// (see structureKey), or one it cannot apply in place (it throws or rejects), is drawn afresh in the same div. A
// chart that react left at a width its div no longer has is resized at once (see staleWidth).
async function draw(job, Plotly, streamlitTemplate) {
  if (job.theme === "streamlit" && job.layout.template === undefined) job.layout.template = streamlitTemplate;
  try {
    const afresh = async () => {
      Plotly.purge(job.div);
      await Plotly.newPlot(job.div, job.data, job.layout, job.config);
    };
    if (job.state.drawn && job.state.structure !== job.structure) {
      await afresh();
    } else {
      try {
        await Plotly.react(job.div, job.data, job.layout, job.config);
      } catch (err) {
        console.warn("attention_lab.plot: redrawing from scratch", job.label, err);
        await afresh();
      }
    }
    // (after a fresh draw too: newPlot measures the div when it starts, and the div may change width before it ends)
    if (staleWidth(job.div)) await Plotly.relayout(job.div, { autosize: true });
    colourLabels(job.div);
    if (!job.div.__alColoured && job.div.on) {  // plotly's own redraws (a resize) colour the numbers its way again
      job.div.__alColoured = true;
      job.div.on("plotly_afterplot", () => colourLabels(job.div));
    }
    job.state.drawn = true;
    job.state.config = job.config;
    job.state.frame = job.frame;
    job.state.structure = job.structure;
    stats.drawn += 1;
    job.state.width = job.div.clientWidth;
  } catch (err) {
    console.error("attention_lab.plot: could not draw the chart", job.label, err);
  }
}

// A figure whose cells alone changed since the chart was drawn (the same frame: layout, colour range, config) is
// patched in (patch.js: 2–4 ms instead of plotly's 25–30 ms for a 16×16 heatmap); anything else is drawn by plotly.
// One draw at a time per chart: a figure that comes while the chart's previous one is still being drawn (the
// weights, drawn at once outside the queue, when a second run follows the first within a draw's time: the page's
// first run laid out for the reference width, then the run for the browser's own width, ui/viewport.py) waits for
// it, and is dropped if a newer one came meanwhile. Two plotly draws in one div at once left it empty, for good.
function run(job, Plotly, streamlitTemplate) {
  const state = job.state;
  state.latest = job;
  if (state.pending) {
    return state.pending.then(() => (state.latest === job ? run(job, Plotly, streamlitTemplate) : undefined));
  }
  if (state.drawn && state.frame === job.frame && patchHeatmap(job.div, job.data)) {
    stats.patched += 1;
    return undefined;
  }
  const drawing = draw(job, Plotly, streamlitTemplate);
  state.pending = drawing;
  drawing.finally(() => { if (state.pending === drawing) state.pending = null; });
  return drawing;
}

// ---- a drag's frames (ui/preview.py; shown by the relay in ui/drag.py) -----------------------------------------
// While a slider is dragged, the server's numbers for the thumb's nearby values are here already: per frame a
// heatmap's cells (z as float64, the cells' texts, the hover's value texts; the server checked that the chart is the
// drawn one but for its cells), or a whole figure (traces and layout; the server checked that its size, margins and
// title's place are the drawn chart's). Cells are written into the drawn chart by patch.js, or, where patch.js cannot
// (a heatmap with blank, masked cells), by Plotly.react with the drawn layout; a whole figure by Plotly.react. The element then forgets the payload
// it was drawn from: the server's next figure for it is drawn even when it is that same payload (a drag that ends
// where it began).
function frameTrace(data, c, k) {
  const base = data && data[0];
  if (!base || !Array.isArray(c.shape) || typeof c.z[k] !== "string") return null;
  const [r, n] = c.shape;
  const bytes = Uint8Array.from(atob(c.z[k]), (ch) => ch.charCodeAt(0));
  const flat = new Float64Array(bytes.buffer);  // (the server's float64: the cells as a fresh draw has them)
  const texts = c.text[k];
  const hover = c.hover[k] || texts;
  if (flat.length !== r * n || !Array.isArray(texts) || texts.length !== r * n) return null;
  const z = [];
  const text = [];
  for (let i = 0; i < r; i++) {
    z.push(Array.from(flat.subarray(i * n, (i + 1) * n)));
    text.push(texts.slice(i * n, (i + 1) * n));
  }
  let { customdata } = base;
  if (Array.isArray(customdata) && customdata.length === r) {
    customdata = customdata.map((row, i) => row.map((cd, j) => (Array.isArray(cd) && cd.length === 3
      ? [cd[0], cd[1], hover[i * n + j]] : cd)));
  }
  return { ...base, z, text, customdata };
}

function forget(div) {
  div.__attentionLab.text = null;
  for (let el = div.parentElement; el; el = el.parentElement) {
    if ("__attentionLabText" in el) {
      el.__attentionLabText = null;
      return;
    }
  }
}

// A figure's frame (a chart drawn with ui.charts.show_figure's follow): its traces and layout, in the size, margins
// and title place the drawn chart has (the server offers only frames that keep them, before a row levels its
// charts: ui.charts.level_tops), with the drawn chart's template.
function frameLayout(div, layout) {
  const drawn = (div.__alStart && div.__alStart.layout) || div.layout || {};
  const out = { ...layout, template: drawn.template, margin: drawn.margin, height: drawn.height };
  if (drawn.title && typeof drawn.title === "object" && layout.title && typeof layout.title === "object") {
    const { y, yanchor, yref, pad } = drawn.title;
    out.title = { ...layout.title, y, yanchor, yref, pad };
  }
  return out;
}

// A plotly call as a promise that also holds what plotly throws at once: plotly throws some errors instead of
// returning a rejected promise, and Promise.resolve(call) let them through. A relayout of a chart whose div was for a
// moment narrower than its margins threw "Something went wrong with axis scaling" inside the ResizeObserver's
// callback, an uncaught error of the page (tools/redraw_property.py, /multihead, 2 of 50 sequences on ebcdc40:
// 16 tokens, edited weights, d_model 11 → 1; tests/e2e/test_redraw_property.py keeps it). The chart is resized
// again when its div changes width.
const plotlyCall = (call) => new Promise((resolve) => resolve(call()));

// ``gen``: the frames' number (ui/drag.py). Frames never go over a figure the server sent after them (show() notes
// the frames' number at its arrival): that figure is the newer truth. Before, the charts below the window, which take
// their frames while the main thread is idle, could take a frame of the value before a release after the release's
// figure had come: /training's W_Q·W_Kᵀ stayed at "step 0" with the slider at 4 (test_drag_browser, under load).
window.__attentionLabPreview = (div, chart, k, gen) => {
  const state = div.__attentionLab;
  if (gen !== undefined && (div.__alGen || 0) >= gen) return true;  // (nothing to show: the figure is newer)
  if (!state || !state.drawn || state.pending || !window.Plotly) return false;
  if (div.__alShown && div.__alShown.chart === chart && div.__alShown.k === k) return true;  // shown already
  if (!div.__alStart) div.__alStart = { data: div.data, layout: div.layout };  // the figure the server drew
  const start = div.__alStart;
  const whole = Array.isArray(chart.figures) ? chart.figures[k] : null;  // a whole figure (its title changed, ...)
  let data = start.data;  // a figure the same as drawn
  let layout = start.layout;
  const cells = chart.kind !== "figure" && !whole;
  if (whole) {
    data = (whole.data || []).map(expandGrid);
    layout = frameLayout(div, whole.layout || {});
  } else if (cells) {
    const trace = frameTrace(start.data, chart, k);
    if (!trace) return false;
    data = [trace];
  }
  forget(div);
  div.__alShown = { chart, k };
  stats.previewed = (stats.previewed || 0) + 1;
  // cells alone are patched in while the chart is the one drawn (not a whole frame shown since)
  if (cells && !div.__alWhole && patchHeatmap(div, data)) return true;
  div.__alWhole = !cells;
  const drawing = plotlyCall(() => window.Plotly.react(div, data, layout, state.config))
    .then(() => colourLabels(div))
    .catch((err) => console.warn("attention_lab.plot: could not show a drag's frame", err));
  state.pending = drawing;
  drawing.finally(() => { if (state.pending === drawing) state.pending = null; });
  return true;
};

// ---- the redraw queue (one per page: the module is evaluated once) ---------------------------------------------
const queue = new Map();  // plot div → its latest figure not drawn yet
const firstDivs = new Set();  // the plot divs of the charts marked "first" on this page
let running = false;
// whether a redraw is waiting or running (for the browser tests' "at rest": a chart still queued shows old numbers)
if (!Object.getOwnPropertyDescriptor(stats, "busy")) {
  Object.defineProperty(stats, "busy", { get: () => running || queue.size > 0, enumerable: true });
}
let firstArrived = null;  // while drain() waits for a "first" chart's figure: call to stop waiting
const FIRST_WAIT_MS = 30;
const channel = new MessageChannel();  // a task without setTimeout's clamping
let resume = null;
channel.port1.onmessage = () => resume && resume();
const nextTask = () => new Promise((resolve) => { resume = resolve; channel.port2.postMessage(0); });

function inViewport(div) {
  const r = div.getBoundingClientRect();
  return r.bottom > 0 && r.top < window.innerHeight && r.width > 0;
}

function best() {
  let pick = null;
  let rank = Infinity;
  for (const job of queue.values()) {  // Map order is arrival order: page order within a rerun
    const r = job.first ? 0 : inViewport(job.div) ? 1 : 2;
    if (r < rank) {
      pick = job;
      rank = r;
      if (r === 0) break;
    }
  }
  return pick;
}

async function drain() {
  running = true;
  try {
    const [Plotly, streamlitTemplate] = await Promise.all([loadPlotly(), template]);
    const hasFirst = () => [...queue.values()].some((job) => job.first);
    // a "first" chart waiting: drawn at once (in this task, before the browser goes on with the rest of the
    // rerun); otherwise let the rest of this rerun's charts arrive before choosing the first one
    if (!hasFirst()) await nextTask();
    if (!ready && !hasFirst() && [...firstDivs].some((div) => !queue.has(div))) {
      // plotly.js still loading (the page's first draw), so a "first" chart goes through this queue too, and it
      // has no figure yet; the rerun may bring it a moment later (Streamlit renders a rerun's elements in a few
      // batches): wait for it a little, not for ever (it may not change). Once plotly.js is loaded, a "first" chart
      // is drawn the moment it arrives (show()), so the other charts need not wait for it.
      await new Promise((resolve) => {
        const timer = setTimeout(() => { firstArrived = null; resolve(); }, FIRST_WAIT_MS);
        firstArrived = () => { clearTimeout(timer); firstArrived = null; resolve(); };
      });
    }
    while (queue.size) {
      const job = best();
      queue.delete(job.div);
      await run(job, Plotly, streamlitTemplate);
      if (queue.size) await nextTask();
    }
  } catch (err) {  // plotly.js did not load: say so in each waiting chart; its next figure tries again
    console.error("attention_lab.plot:", err);
    for (const job of queue.values()) {
      job.div.textContent = `${job.label}: ${err.message}`;
      job.state.text = null;
    }
    queue.clear();
  } finally {
    running = false;
    if (queue.size) drain();
  }
}

function plotDiv(parent) {
  let div = parent.querySelector(":scope > .al-plot");
  if (!div) {
    pageStyle();
    div = document.createElement("div");
    div.className = "al-plot";
    div.setAttribute("role", "figure");
    div.style.width = "100%";
    parent.prepend(div);  // before a row cell's caption, also when drawn anew (dispose)
    const state = { text: null, drawn: false, width: 0 };
    // A width change while a draw of this chart is under way waits for it (two plotly calls in one div at once: a
    // resize during a fresh draw of another grid shape threw "Something went wrong with axis scaling", seen by
    // tools/redraw_property.py, and left the chart at the width the draw began with: 300 px in a 600 px div).
    const resize = () => {
      if (state.pending) {
        state.pending.then(resize);
        return;
      }
      const w = div.clientWidth;
      if (!div.isConnected || !state.drawn || w <= 0 || (w === state.width && !staleWidth(div))) return;
      state.width = w;
      if (div.layout && div.layout.width) return;  // a chart laid out wider than its column keeps its width
      // A relayout now, as one of this chart's draws (state.pending), not Plots.resize: that relayouts from a 100 ms
      // timer, outside any draw's turn, and a fresh draw of another grid shape begun within those 100 ms met it
      // half-way: the uncaught "Something went wrong with axis scaling" (tools/redraw_property.py, /qkv, twice in
      // 48 sequences on a0984c9).
      const resizing = plotlyCall(() => window.Plotly.relayout(div, { autosize: true }))
        .catch((err) => console.warn("attention_lab.plot: could not resize", err));
      state.pending = resizing;
      resizing.finally(() => { if (state.pending === resizing) state.pending = null; });
    };
    state.resize = new ResizeObserver(resize);
    state.resize.observe(div);
    div.__attentionLab = state;
  }
  return div;
}

// ---- one chart in its plot div --------------------------------------------------------------------------------
// A heatmap's customdata may come as its grid of labels, each label once (ui.plot_component.compact_trace):
// {"alGrid": {"rows", "cols", "third"}} stands for cell (i, j) = [rows[i], cols[j]] (+ third[i][j], or the trace's
// text when third is "text"). Written out here, before plotly (or patch.js) sees the figure.
function expandGrid(trace) {
  const grid = trace.customdata && trace.customdata.alGrid;
  if (!grid) return trace;
  const third = grid.third === "text" ? trace.text : grid.third;
  const customdata = grid.rows.map((r, i) => grid.cols.map((c, j) => (third ? [r, c, third[i][j]] : [r, c])));
  return { ...trace, customdata };
}

// The name of the toolbar's PNG download: the app, the lesson and the chart, from the chart's key
// ("qkv.fig.weights", in the page as the class st-key-qkv-fig-weights) → "attention-lab_qkv_weights" (.png added by
// plotly). Plotly's own default is "newplot" for every chart.
function fileStem(div) {
  const holder = div.closest('[class*="st-key-"]');
  const key = holder ? (holder.className.match(/st-key-(\S+)/) || [])[1] : null;
  if (!key) return "attention-lab_chart";
  const parts = key.match(/^([A-Za-z0-9_]+)-fig-(.+)$/);
  return parts ? `attention-lab_${parts[1]}_${parts[2]}` : `attention-lab_${key}`;
}

function show(div, msg, text) {
  const state = div.__attentionLab;
  if (text === state.text) return;  // the same figure again: nothing to redraw
  div.__alShown = null;  // (a drag's frame shown before: the server's figure replaces it)
  div.__alStart = null;
  div.__alWhole = false;
  div.__alGen = window.__attentionLabFramesGen || 0;  // (frames up to this number are older than this figure)
  state.text = text;
  const { config, label, theme, first } = msg;
  const figure = { ...msg.figure, data: (msg.figure.data || []).map(expandGrid) };
  const layout = figure.layout || {};
  div.setAttribute("aria-label", label || "");
  if (layout.height) div.style.height = `${layout.height}px`;  // the chart's height, reserved before plotly runs
  // a chart laid out wider than its column (its numbers fit no narrower: ui.figures.fitted_plan) keeps its width
  // and scrolls sideways in its own box; the page itself never scrolls sideways
  const wide = typeof layout.width === "number";
  div.style.width = wide ? `${layout.width}px` : "100%";
  if (div.parentElement) div.parentElement.style.overflowX = wide ? "auto" : "";
  queue.delete(div);  // a newer figure replaces one not drawn yet, and takes its place in the page order
  // as st.plotly_chart does: no "Share chart" button (it would upload the chart to Plotly Cloud); the width
  // follows the column through the ResizeObserver above, not plotly's window listener
  const remove = [...(config.modeBarButtonsToRemove || []), "sendChartToCloud"];
  const toImage = { ...(config.toImageButtonOptions || {}), filename: fileStem(div) };
  const job = { div, state, label, theme, first: !!first, data: figure.data || [], layout,
                config: { ...config, modeBarButtonsToRemove: remove, responsive: false,
                          toImageButtonOptions: toImage },
                frame: frameKey(figure, config, theme), structure: structureKey(figure) };
  if (first) firstDivs.add(div);
  else firstDivs.delete(div);
  queue.set(div, job);
  if (first && ready) {
    // drawn now, in this call: Streamlit's frontend calls this module from a React effect, often at the start of its
    // next render (tens of milliseconds for a lesson's page); anything awaited here would wait for that render
    queue.delete(div);
    run(job, ready.Plotly, ready.streamlitTemplate);
  }
  if (first && firstArrived) firstArrived();
}

// A chart's element taken down (Streamlit calls the cleanup below): its plot div goes with its plot. Streamlit may
// call this module again for the same element with the same payload (seen when a second run follows the page's
// first one at once: ui/viewport.py); the chart is then drawn afresh in a new div, never left purged and empty.
function dispose(div) {
  queue.delete(div);
  firstDivs.delete(div);
  if (div.__attentionLab) {
    div.__attentionLab.resize.disconnect();
    div.__attentionLab.latest = null;
  }
  if (window.Plotly) window.Plotly.purge(div);
  div.remove();
}

// ---- a row of charts (ui.plot_component.row): one element, a grid of cells, each a chart and its caption --------
const cssKey = (key) => `st-key-${String(key).replace(/[^a-zA-Z0-9_-]/g, "-")}`;  // as Streamlit names a keyed element

// On a narrow screen st.columns put their columns one under another (Streamlit's "columns" breakpoint, 640 px):
// a row does the same. And a plot div is never the browser's scroll anchor: a chart that grows (a colour-range
// note appears under its title) while it is partly in view would otherwise be the anchor, and everything below it,
// the weights under the pointer included, moved down with its growth (150 px on /qkv at 1280×720; a new-user
// trial). The browser then anchors on an element outside the charts and keeps it in place. Written once per page.
const PAGE_STYLE = "@media (max-width: 640px) { .al-row { grid-template-columns: minmax(0, 1fr) !important; } }\n"
  + ".al-plot { overflow-anchor: none; }";

function pageStyle() {
  if (document.getElementById("al-page-style")) return;
  const style = document.createElement("style");
  style.id = "al-page-style";
  style.textContent = PAGE_STYLE;
  document.head.appendChild(style);
}

function rowGrid(holder) {
  let grid = holder.querySelector(":scope > .al-row");
  if (!grid) {
    pageStyle();  // (a row may come before its first chart is drawn: its narrow-screen rule must be there already)
    grid = document.createElement("div");
    grid.className = "al-row";
    // st.columns' look: 16 px between columns and between rows, each column as wide as its share allows
    Object.assign(grid.style, { display: "grid", columnGap: "16px", rowGap: "16px", alignItems: "start" });
    holder.appendChild(grid);
  }
  return grid;
}

function captionOf(cell, text) {
  let cap = cell.querySelector(":scope > .al-caption");
  if (!text) {
    if (cap) cap.remove();
    return;
  }
  if (!cap) {
    cap = document.createElement("div");
    cap.className = "al-caption";  // st.caption's look (14 px, the page's text colour at opacity 0.6), 16 px under
    Object.assign(cap.style, { fontSize: "14px", lineHeight: "1.6", color: "inherit", opacity: "0.6",
                               marginTop: "16px", overflowWrap: "anywhere" });
    cell.appendChild(cap);
  }
  if (cap.textContent !== text) cap.textContent = text;
}

// The server chose the row's columns for the reference window (1280 px wide, ui/figures.py REF_COLUMN_PX) and laid
// each chart out for its column's width there (msg.widths: type sizes, margins, numbers that fit). On a narrower
// page (a 1024 × 768 projector) the same columns would squeeze those numbers into each other: the row then puts as
// many charts side by side as still get their width, down to one a row (wider than laid out for is fine: the
// cells grow). NEED_SLACK: the column measured in the browser may be a few px narrower than the server's reference;
// such a difference keeps the server's layout.
const NEED_SLACK = 12;
const GAP = 16;

function rowTemplate(msg, width) {
  const needs = msg.widths || [];
  const fits = (k) => { const w = (width - GAP * (k - 1)) / k; return needs.every((n) => n <= w + NEED_SLACK); };
  if (msg.columns) {
    const total = msg.columns.reduce((a, b) => a + b, 0);
    const room = width - GAP * (msg.columns.length - 1);
    if (!width || needs.every((n, i) => n <= room * msg.columns[i] / total + NEED_SLACK)) {
      return msg.columns.map((c) => `minmax(0, ${c}fr)`).join(" ");
    }
    let k = msg.columns.length - 1;
    while (k > 1 && !fits(k)) k -= 1;
    return `repeat(${Math.max(k, 1)}, minmax(0, 1fr))`;
  }
  let k = msg.perRow || 1;
  while (width && k > 1 && !fits(k)) k -= 1;
  return `repeat(${k}, minmax(0, 1fr))`;
}

function layoutRow(grid) {
  const template = rowTemplate(grid.__alMsg, grid.clientWidth);
  if (grid.__alTemplate !== template) {  // (the browser rewrites the style's text: compared with our own)
    grid.__alTemplate = template;
    grid.style.gridTemplateColumns = template;
  }
}

function showRow(holder, msg) {
  const grid = rowGrid(holder);
  grid.__alMsg = msg;
  if (!grid.__alResize) {  // a window made narrower or wider: the row laid out again for its new width
    grid.__alResize = new ResizeObserver(() => layoutRow(grid));
    grid.__alResize.observe(grid);
  }
  layoutRow(grid);
  const cells = [...grid.children];
  msg.items.forEach((item, i) => {
    let cell = cells[i];
    if (!cell) {
      cell = document.createElement("div");
      grid.appendChild(cell);
    }
    cell.className = item.key == null ? "al-cell" : `al-cell ${cssKey(item.key)}`;
    const div = plotDiv(cell);
    captionOf(cell, item.caption);
    show(div, item.chart, JSON.stringify(item.chart));
  });
  for (const extra of cells.slice(msg.items.length)) {
    for (const div of extra.querySelectorAll(".al-plot")) dispose(div);
    extra.remove();
  }
}

// A call's cleanup takes the charts down only when their element has left the page and no later call came for it.
// Streamlit runs cleanups of elements that stay on the page too (two runs in quick succession: the page's first run
// and the run for the browser's own width, ui/viewport.py): taken down at once, the charts just drawn vanished and
// the page stayed without them (/pair at 1024×768, every load); an earlier call's cleanup may even come after the
// next call. So the cleanup looks a moment later, and only an element no longer in the document loses its charts.
export default function (component) {
  const { data, parentElement } = component;
  const call = {};
  parentElement.__attentionLabCall = call;
  const cleanup = () => {
    setTimeout(() => {
      if (parentElement.__attentionLabCall !== call || parentElement.isConnected) return;
      parentElement.__attentionLabText = null;
      for (const div of parentElement.querySelectorAll(".al-plot")) dispose(div);
    }, 0);
  };
  if (data == null) return cleanup;
  const text = typeof data === "string" ? data : decoder.decode(data);
  if (text === parentElement.__attentionLabText) return cleanup;  // the same payload again: nothing to redraw
  parentElement.__attentionLabText = text;
  const msg = JSON.parse(text);
  if (msg.items) showRow(parentElement, msg);
  else show(plotDiv(parentElement), msg, text);
  if (!running && queue.size) drain();
  return cleanup;
}
