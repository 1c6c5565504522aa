// A heatmap's new numbers written into the chart plotly.js already drew, without a replot.
//
// A slider move changes the cells of a heatmap (its z, its cell texts, its hover data) and nothing else: the layout,
// the axes, the colour range and the colour bar stay. Plotly.react still redraws the whole chart for it, 25–30 ms for
// a 16×16 heatmap with its 256 numbers (benchmarks/profiles/README.md). patchHeatmap() does the same as plotly's
// heatmap drawing for just the cells, in 2–4 ms: the bricks' colours (a new image, painted exactly as plotly.js
// 4.1's heatmap/plot.js paints it: the same brick edges, gaps, colour interpolation and rounding) and every cell's
// text and text colour (black or white, whichever contrasts more: see contrast). It also gives the chart's
// data, full data and calcdata the new cells, so hovering a cell (a label already shown is drawn again), the
// toolbar's PNG download (drawn from the data) and a redraw from the calcdata (a resize) show the new numbers; the next Plotly.react replots as usual (plotly
// compares data arrays by identity: a new figure's are new). tests/e2e/test_patch_browser.py checks that a patched
// chart and plotly's own drawing of the same figure have the same pixels, texts, text colours and hover data.
//
// Anything this does not know how to draw the same way (another trace type, a changed layout or colour range,
// missing cells, texts with markup, a smoothed or gapless heatmap, ...) returns false: the caller redraws with plotly.

const SAME_EXCEPT = ["z", "text", "customdata"];  // the only parts of a trace a patch may change
const XLINK = "http://www.w3.org/1999/xlink";
const TYPED = { f8: Float64Array, f4: Float32Array, i4: Int32Array, u4: Uint32Array, i2: Int16Array,
                u2: Uint16Array, i1: Int8Array, u1: Uint8Array };

/** What must stay the same for a patch: the figure without its cells' numbers, as one string. */
export function frameKey(figure, config, theme) {
  const data = (figure.data || []).map((trace) => {
    const rest = { ...trace };
    for (const k of SAME_EXCEPT) delete rest[k];
    return rest;
  });
  return JSON.stringify([data, figure.layout || {}, config || {}, theme || null]);
}

// z as a list of rows of numbers, from a nested list or a plotly.js typed-array spec {dtype, bdata, shape}
function rowsOf(z) {
  if (Array.isArray(z)) return z.every(Array.isArray) ? z : null;
  if (!z || typeof z.bdata !== "string" || !TYPED[z.dtype] || typeof z.shape !== "string") return null;
  const shape = z.shape.split(",").map((s) => parseInt(s, 10));
  if (shape.length !== 2) return null;
  const bytes = Uint8Array.from(atob(z.bdata), (c) => c.charCodeAt(0));
  const flat = new TYPED[z.dtype](bytes.buffer);
  if (flat.length !== shape[0] * shape[1]) return null;
  return Array.from({ length: shape[0] }, (_, r) => Array.from(flat.subarray(r * shape[1], (r + 1) * shape[1])));
}

// a colour stop as [r, g, b, a]: "#rgb", "#rrggbb", "rgb(...)", "rgba(...)" (what plotly's named scales use)
function rgba(text) {
  const s = String(text).trim();
  let m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(s);
  if (m) {
    const h = m[1].length === 3 ? m[1].replace(/./g, "$&$&") : m[1];
    return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)).concat([1]);
  }
  m = /^rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*(?:,\s*([\d.]+)\s*)?\)$/i.exec(s);
  return m ? [+m[1], +m[2], +m[3], m[4] === undefined ? 1 : +m[4]] : null;
}

// plotly's colour scale function (Colorscale.makeColorScaleFunc: a clamped d3 v3 polylinear scale from the stops
// spread over [zmin, zmax] to their rgba arrays), as [r, g, b, a] with r, g, b rounded as heatmap/plot.js does
function scaleOf(trace) {
  const stops = trace.colorscale;
  if (!Array.isArray(stops) || stops.length < 2 || trace.reversescale) return null;
  const { zmin, zmax } = trace;
  const domain = stops.map((s) => zmin + s[0] * (zmax - zmin));
  const range = stops.map((s) => rgba(s[1]));
  if (range.some((c) => c === null) || domain.some((d, i) => i && d < domain[i - 1])) return null;
  const k = domain.length - 1;
  return (v) => {
    let j = 1;  // d3.bisect(domain, v, 1, k) - 1
    while (j < k && domain[j] <= v) j++;
    j -= 1;
    const a = domain[j];
    const b = domain[j + 1] - a || 1 / (domain[j + 1] - a);
    const t = Math.max(0, Math.min(1, (v - a) / b));
    const c = range[j].map((x, i) => x * (1 - t) + range[j + 1][i] * t);
    return [Math.round(c[0]), Math.round(c[1]), Math.round(c[2]), c[3]];
  };
}

// A cell's number in black or white, whichever contrasts more with the cell (WCAG 2 contrast ratio of relative
// luminances of linearised sRGB): one of the two always reaches 4.58:1, so every number meets WCAG AA (4.5:1) on any
// colour scale. plotly's own rule (white, or #444 on a light cell) falls to 3.1:1 on mid-tone cells (issue 24, part 3).
const linear = (v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
const luminance = ([r, g, b]) => 0.2126 * linear(r / 255) + 0.7152 * linear(g / 255) + 0.0722 * linear(b / 255);
const ratio = (a, b) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
const WHITE = luminance([255, 255, 255]);
const BLACK = 0;
export const contrast = (c) => {
  const l = luminance(c);
  return ratio(l, WHITE) > ratio(l, BLACK) ? "#fff" : "#000";
};

/** Every heatmap number of a drawn chart in black or white by its cell's colour (see contrast), where the trace leaves
 * the text colour to plotly; called after each drawing by plotly (the patch colours its own cells). */
export function colourLabels(gd) {
  for (const group of gd.querySelectorAll(".heatmaplayer .hm")) {
    const cd = group.__data__;
    const trace = cd && cd[0] && cd[0].trace;
    if (!trace || (trace.textfont && trace.textfont.color && trace.textfont.color !== "auto")) continue;
    const scale = scaleOf(trace);
    if (!scale) continue;
    for (const el of group.querySelectorAll(":scope > g.heatmap-label > text")) {
      const d = el.__data__;
      if (d && Number.isFinite(d.z)) el.style.fill = contrast(scale(d.z));
    }
  }
}

// a cell text plotly writes as it is: one line, no entity, no LaTeX, and no pseudo-HTML tag; a lone "<" or ">" (the
// bound of a number too small for the cell's digits: "<0.01", ">−0.01", ">0.99", ui/numbers.py) forms no tag, and
// plotly writes it as it is
const PLAIN = /^[^&$\n]+$/;
const TAG = /<[^<>]*>/;
const plain = (s) => typeof s === "string" && PLAIN.test(s) && !TAG.test(s);

function usable(trace, rows, texts, custom) {
  if (trace.type !== "heatmap" || trace.zsmooth || trace.texttemplate !== "%{text}") return false;
  if (!Number.isFinite(trace.zmin) || !Number.isFinite(trace.zmax) || !(trace.zmax > trace.zmin)) return false;
  if (!((trace.xgap || 0) > 0 || (trace.ygap || 0) > 0)) return false;  // gapless: plotly's "fast" drawing
  if (!rows || !rows.length || !Array.isArray(texts) || texts.length !== rows.length) return false;
  const n = rows[0].length;
  if (custom !== undefined && (!Array.isArray(custom) || custom.length !== rows.length)) return false;
  return rows.every((row, r) => row.length === n && row.every(Number.isFinite)
    && Array.isArray(texts[r]) && texts[r].length === n && texts[r].every(plain)
    && (custom === undefined || (Array.isArray(custom[r]) && custom[r].length === n)));
}

// the image of the bricks, painted as heatmap/plot.js's "default" drawing method does
function paint(image, cd, xa, ya, trace, rows, scale) {
  const d = cd.x;
  const p = cd.y;
  let A, q, E, P, R;
  for (R = 0; A === undefined && R < d.length - 1; R++) A = xa.c2p(d[R]);
  for (R = d.length - 1; q === undefined && R > 0; R--) q = xa.c2p(d[R]);
  for (R = 0; E === undefined && R < p.length - 1; R++) E = ya.c2p(p[R]);
  for (R = p.length - 1; P === undefined && R > 0; R--) P = ya.c2p(p[R]);
  const xRev = q < A;
  const yRev = P < E;
  if (xRev) [A, q] = [q, A];
  if (yRev) [E, P] = [P, E];
  A = Math.max(-0.5 * xa._length, A);
  q = Math.min(1.5 * xa._length, q);
  E = Math.max(-0.5 * ya._length, E);
  P = Math.min(1.5 * ya._length, P);
  const W = Math.round(q - A);
  const H = Math.round(P - E);
  if (+image.getAttribute("width") !== W || +image.getAttribute("height") !== H
      || +image.getAttribute("x") !== A || +image.getAttribute("y") !== E) return false;  // not where plotly drew it
  const canvas = document.createElement("canvas");
  canvas.width = W;
  canvas.height = H;
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  const px = (k) => Math.max(0, Math.min(W, Math.round(xa.c2p(d[k]) - A)));
  const py = (k) => Math.max(0, Math.min(H, Math.round(ya.c2p(p[k]) - E)));
  const xgap = trace.xgap || 0;
  const ygap = trace.ygap || 0;
  const tr = Math.floor(xgap / 2);
  const ir = Math.floor(ygap / 2);
  const cx = xRev ? 0 : 1;
  const cy = yRev ? 0 : 1;
  const ue = [py(0), py(0)];
  for (let r = 0; r < rows.length; r++) {
    ue.reverse();
    ue[cy] = py(r + 1);
    if (ue[0] === ue[1] || Number.isNaN(ue[0]) || Number.isNaN(ue[1])) continue;
    const me = [px(0), px(0)];
    for (let c = 0; c < rows[r].length; c++) {
      me.reverse();
      me[cx] = px(c + 1);
      if (me[0] === me[1] || Number.isNaN(me[0]) || Number.isNaN(me[1])) continue;
      ctx.fillStyle = `rgba(${scale(rows[r][c]).join(",")})`;
      ctx.fillRect(me[0] + tr, ue[0] + ir, me[1] - me[0] - xgap, ue[1] - ue[0] - ygap);
    }
  }
  image.setAttributeNS(XLINK, "xlink:href", canvas.toDataURL("image/png"));  // as plotly sets it
  return true;
}

/**
 * Write the cells of ``trace`` (the figure's only trace, same shape and frame as the one drawn) into ``gd``, the plot
 * div plotly.js drew. Returns true when done, false (nothing changed) when the chart must be redrawn by plotly.
 */
export function patchHeatmap(gd, data) {
  if (!gd || !gd._fullLayout || !Array.isArray(gd.calcdata) || gd.calcdata.length !== 1 || data.length !== 1) {
    return false;
  }
  const trace = data[0];
  const cd = gd.calcdata[0][0];
  const full = cd && cd.trace;
  const rows = rowsOf(trace.z);
  if (!full || !usable({ ...full, ...trace, type: trace.type || "heatmap" }, rows, trace.text, trace.customdata)) {
    return false;
  }
  if (!Array.isArray(cd.z) || cd.z.length !== rows.length || cd.z.some((row) => row.length !== rows[0].length)) {
    return false;
  }
  const scale = scaleOf(full);
  const fl = gd._fullLayout;
  const xa = fl[`xaxis${(full.xaxis || "x").slice(1)}`];
  const ya = fl[`yaxis${(full.yaxis || "y").slice(1)}`];
  const layer = gd.querySelectorAll(".heatmaplayer .hm");
  const image = layer.length === 1 ? layer[0].querySelector(":scope > image") : null;
  const labels = layer.length === 1 ? layer[0].querySelectorAll(":scope > g.heatmap-label > text") : [];
  const cells = rows.length * rows[0].length;
  // one label per cell (plotly skips cells whose centre is outside the plot area, e.g. zoomed in: then fewer)
  if (!scale || !xa || !ya || !image || labels.length !== cells) return false;
  if (!paint(image, cd, xa, ya, full, rows, scale)) return false;
  const autoColour = !(full.textfont && full.textfont.color && full.textfont.color !== "auto");
  let k = 0;
  for (let r = 0; r < rows.length; r++) {
    for (let c = 0; c < rows[r].length; c++, k++) {
      const el = labels[k];
      const text = trace.text[r][c];
      if (el.textContent !== text) el.textContent = text;
      el.setAttribute("data-unformatted", text);
      if (autoColour) el.style.fill = contrast(scale(rows[r][c]));
    }
  }
  // the chart's own data: what a hover label reads (calcdata's z and text, the full trace's customdata), what a
  // replot from the calcdata draws (a resize), and the input figure the PNG download is drawn from
  cd.z = rows;
  cd.text = trace.text;
  full.z = rows;
  full.text = trace.text;
  if (trace.customdata !== undefined) full.customdata = trace.customdata;
  gd.data = data;
  rehover(gd);
  return true;
}

// A hover label on screen (the pointer resting on a cell while a slider moves) shows the number from before the
// patch: drawn again for the same cells, from the new data (a plotly replot would have removed it; found by a
// new-user trial: the cell said 0.60, its label 0.58).
function rehover(gd) {
  const points = gd._hoverdata;
  if (!Array.isArray(points) || points.length !== 1 || !gd.querySelector(".hoverlayer .hovertext")) return;
  const { x, y } = points[0];  // the hovered cell's centre, in data coordinates
  if (Number.isFinite(x) && Number.isFinite(y) && window.Plotly && window.Plotly.Fx) {
    window.Plotly.Fx.hover(gd, { xval: x, yval: y });  // (plotly draws it within its 50 ms hover throttle)
  }
}
