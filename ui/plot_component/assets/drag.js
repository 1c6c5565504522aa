// The drag relay of every slider (ui/drag.py: a relay per live fragment, a frames element per scope, the page's
// hover relay): one module, loaded once per page by the components' short inline loader (ui/plot_component).
import { sendInScope } from "./scope.js";

export default function ({ parentElement, setTriggerValue, data }) {
  const R = window.__attentionLabDrag || (window.__attentionLabDrag = install());
  if (data && data.h) R.hover = { host: parentElement, send: setTriggerValue };  // the page's hover relay
  if (data && (data.f || data.h)) {  // a scope's frames element (mount_frames) or the hover relay (mount_hover)
    const scope = parentElement.closest(LIVE);
    if (data.frames) {
      // (the scope of frames asked for by a hover: its slider's; a run of that scope ends them)
      const slider = data.h && document.querySelector(`.${data.frames.keys[0]}`);
      // (gen: the frames' number in arrival order; a chart's figure that came after them is newer than they are)
      R.gen += 1;
      window.__attentionLabFramesGen = R.gen;
      R.frames = { ...data.frames, host: parentElement, scope: data.h ? slider && slider.closest(LIVE) : scope,
                   gen: R.gen };
      R.asked.delete(String(data.frames.keys));
      // the thumb's value shown again from these frames: the charts out of the window that were still to take the
      // older frames' value (showLater) drop it when new frames come (X's first cell stayed at the drag's start
      // value while the thumb stood on the next one: test_drag_preview_browser, 2 runs in 6)
      if (R.drag) R.drag.shown = null;
    } else if (R.frames && (R.frames.host === parentElement || (data.f && R.frames.scope === scope))) {
      R.frames = null;  // a later run of the same scope: the state the frames were built from may be gone
    }
    return () => {};
  }
  R.senders.set(parentElement, setTriggerValue);
  // the server drew this relay in a run that had applied value number data.s: the run for the value in flight
  // has begun, so the next "at rest" is its end
  const d = R.drag;
  if (d && d.inflight && data && data.s >= d.seqSent) d.acked = true;
  if (R.closed && data && data.s >= R.closed.seq) R.closed = null;  // the run for the closing message has begun
  return () => { if (R.senders.get(parentElement) === setTriggerValue) R.senders.delete(parentElement); };
}
const LIVE = '[class*="st-key-al-live-"]';  // a live fragment's container (ui.runtime.Page.live)
const RELAY_MS = 600;
const CLOSE_MS = 250, CLOSE_MAX_MS = 1500;  // the closing message after a release (install: end)
// The range input of a drag's slider as it is on the page now (a run may have drawn its element again).
const inputOf = (d) => {
  const box = document.querySelector(`.${d.keys[0]}`);
  return (box && box.querySelector('input[type="range"]')) || d.input;
};
const sameKeys = (a, b) => Array.isArray(a) && Array.isArray(b) && a.length === b.length
  && a.every((k, i) => k === b[i]);
const cssKey = (key) => `st-key-${String(key).replace(/[^a-zA-Z0-9_-]/g, "-")}`;
// The frame of the thumb's value (ui/preview.py): its index in R.frames, or -1.
function frameOf(R, d, value) {
  const f = R.frames;
  if (!f || !sameKeys(f.keys, d.keys)) return -1;
  const v = Number(value);
  return f.values.findIndex((x) => Math.abs(x - v) <= 1e-7 * Math.max(1, Math.abs(x)));
}
// Frame k's cells written into every chart it has (plot.js's window.__attentionLabPreview): at once into those in the
// window, and into those out of it when the main thread is idle, so that their patches never hold up the charts a
// student watches (nor, at the release, the run's redraw). False when a chart in the window is not on the page as
// drawn (then the drag goes on through the server's runs).
const plotOf = (c) => document.querySelector(`.${cssKey(c.key)} .al-plot`);
function showFrame(R, k) {
  const f = R.frames;
  const show = window.__attentionLabPreview;
  if (!show) return false;
  let all = true;
  const later = [];
  for (const c of f.charts) {  // (each chart that can take its frame now does; the others on a later frame)
    const div = plotOf(c);
    if (div) {
      const r = div.getBoundingClientRect();
      if (r.bottom <= 0 || r.top >= window.innerHeight) { later.push(c); continue; }
    }
    if (!div || !show(div, c, k, f.gen)) all = false;
  }
  R.later = later.length ? { k, frames: f, charts: later, tries: 0 } : null;
  if (R.later && !R.idle) R.idle = requestIdleCallback(showLater, { timeout: 250 });
  return all;
}
// The charts out of the window, one after another while the main thread is idle (each at most every 250 ms).
function showLater(deadline) {
  const R = window.__attentionLabDrag;
  R.idle = null;
  const L = R.later, show = window.__attentionLabPreview;
  if (!L || L.frames !== R.frames || !show) { R.later = null; return; }
  while (L.charts.length && L.tries < 40) {
    const div = plotOf(L.charts[0]);
    if (div && !show(div, L.charts[0], L.k, L.frames.gen)) { L.tries += 1; break; }  // being drawn: again later
    L.charts.shift();
    if (deadline.didTimeout || deadline.timeRemaining() < 4) break;
  }
  if (L.charts.length && L.tries < 40) R.idle = requestIdleCallback(showLater, { timeout: 250 });
  else R.later = null;
}
function install() {
  // frames: the last frames a run built ({values, charts, keys, s, host}); asked: the sliders (their keys, joined)
  // whose frames were asked for by a pointer over them, and when
  const R = { senders: new Map(), hover: null, drag: null, seq: 0, frames: null, asked: new Map(), gen: 0,
             closing: null };
  // The relay that reruns what the slider's own move reruns: the one in the slider's innermost live fragment, or,
  // for a slider outside any, the frame's (a whole-app rerun).
  // (its sends go out in a batch of their own scope: ui/triggers.py)
  function senderFor(slider) {
    const scope = slider.closest(LIVE);
    let frame = null;
    for (const [host, send] of R.senders) {
      if (!host.isConnected) { R.senders.delete(host); continue; }
      const own = host.closest(LIVE);
      if (scope && own === scope) return (name, value) => sendInScope(scope, () => send(name, value));
      if (!own) frame = send;
    }
    return frame && ((name, value) => sendInScope(null, () => frame(name, value)));
  }
  const state = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    return app ? app.getAttribute("data-test-script-state") : "notRunning";
  };
  const busy = () => state() !== "notRunning" || (window.__attentionLabStats && window.__attentionLabStats.busy);
  function post(d, value, done) {
    if (!d.send) return;
    R.seq += 1;
    d.seqSent = R.seq;
    d.acked = false;
    // every message asks for the frames around its value (the closing one for the next drag of the slider)
    d.send("drag", { k: d.keys, v: Number(value), f: Number(d.from), s: R.seq, d: done ? 1 : 0, p: 1 });
  }
  const ready = (keys) => !!(R.frames && sameKeys(R.frames.keys, keys));
  const onSlider = (ev, keys) => { const s = sliderOf(ev); return !!s && sameKeys(s.keys, keys); };
  function sliderOf(ev) {
    const slider = ev.target.closest && ev.target.closest('[data-testid="stSlider"]');
    const input = slider && slider.querySelector('input[type="range"]');
    const box = slider && slider.closest('[data-testid="stElementContainer"]');
    const keys = box ? [...box.classList].filter((c) => c.startsWith("st-key-")) : [];
    return input && keys.length ? { slider, input, keys } : null;
  }
  // A pointer coming over a slider asks for its frames (at most once a second each, none during a drag), so that a
  // drag begun a moment later has them at once: no run at its start, the numbers follow from the first move. It asks
  // the page's hover relay (mount_hover), whose run builds them and draws nothing else; c: the slider's scope.
  function hoverSender(slider) {
    const H = R.hover;
    if (!H || !H.host.isConnected) return null;
    const scope = slider.closest(LIVE);
    const c = scope ? [...scope.classList].find((x) => x.startsWith("st-key-al-live-")) || null : null;
    return (name, value) => sendInScope(H.host, () => H.send(name, { ...value, c }));
  }
  // Only a pointer that moved: Chrome also sends "pointer over" when the page moves under a resting pointer (a
  // thumb stepped by the arrow keys, a scroll), at the pointer's last place. Such a request went out in the same
  // message as the slider's own key value (Streamlit sends the updates of a moment as one message and reruns one
  // scope for it) and ran as the hover relay's fragment: the value was applied, but the slider's fragment was not
  // rerun, so its charts, words and link kept the value before (issue 18: /multihead h, 4 arrow presses after a
  // drag beside a CPU hog, thumb at 1, page at 2, 2 tries in 12 in a fresh-user trial).
  R.at = null;  // the pointer's last place
  const place = (ev) => { const at = R.at, x = ev.clientX, y = ev.clientY; R.at = { x, y };
                          return !at || at.x !== x || at.y !== y; };  // true: another place than the last one
  document.addEventListener("pointermove", place, { capture: true, passive: true });
  document.addEventListener("pointerover", (ev) => {
    const s = !place(ev) || R.drag ? null : sliderOf(ev);
    if (!s || ready(s.keys) || state() !== "notRunning") return;
    const now = performance.now(), id = String(s.keys);
    if (now - (R.asked.get(id) || -Infinity) < 1000) return;
    const send = hoverSender(s.slider) || senderFor(s.slider);
    if (!send) return;
    R.asked.set(id, now);
    R.seq += 1;
    send("drag", { k: s.keys, v: Number(s.input.value), f: Number(s.input.value), s: R.seq, d: 0, p: 1, h: 1 });
  }, true);
  function frame() {
    const d = R.drag;
    if (!d) return;
    const now = performance.now(), st = state();
    if (d.inflight) {  // the run it caused: seen starting, then at rest (or 1 s without a sign of it)
      if (st !== "notRunning") d.seenRun = true;
      else if (d.seenRun || d.acked || now - d.sentAt > 1000) { d.inflight = false; d.texts = d.last; }
    }
    const value = d.input.value;
    const k = frameOf(R, d, value);
    if (k >= 0) {  // the server's numbers for this value are here: shown on this animation frame
      if (busy()) d.shown = null;  // a run or a chart's redraw under way: its charts may come after the patch
      else if (d.shown !== value && showFrame(R, k)) d.shown = value;
    }
    if (d.scope) d.scope.classList.toggle(STALE, d.shown === value && value !== d.texts);
    // Sent to the server: a value without a frame; and, while the frames leave a chart out (a figure that cannot
    // follow), a value with one too, at most every RELAY_MS, so that the frames keep most of the main thread.
    const send = k < 0 || (!R.frames.complete && now - (d.sentAt || 0) >= RELAY_MS);
    if (send && !d.inflight && st === "notRunning" && value !== d.last) {
      d.last = value; d.sent = true; d.inflight = true; d.seenRun = false; d.sentAt = now;
      if (k < 0) d.shown = null;
      post(d, value, false);
    }
    d.raf = requestAnimationFrame(frame);
  }
  document.addEventListener("pointerdown", (ev) => {
    flushClose();
    const s = sliderOf(ev);
    if (!s || ev.button !== 0) return;
    const { slider, input, keys } = s;
    if (R.drag) cancelAnimationFrame(R.drag.raf);
    const have = ready(keys);  // frames built since the scope's last run (asked for by the pointer coming over)
    R.drag = { input, keys, from: input.value, last: input.value, sent: false, inflight: !have, seenRun: false,
               sentAt: performance.now(), send: senderFor(slider), seqSent: 0, acked: false, shown: input.value,
               texts: input.value, scope: slider.closest(LIVE) || document.querySelector('[data-testid="stMain"]') };
    if (!have) post(R.drag, input.value, false);  // asks for the frames around the value the drag starts from
    R.drag.raf = requestAnimationFrame(frame);
  }, true);
  // The closing message goes after the slider's own release value (see the module docstring). Streamlit's slider
  // commits that value in a React update, which a loaded browser may render several frames after the pointerup;
  // a closing message sent before it was overridden by the slider's value of the frame before the release (the
  // thumb jumped back two steps: make test on f9987ca, once). So it waits until CLOSE_MS after the release with the
  // app at rest (the slider's run, if it sent a value, is over), at most CLOSE_MAX_MS; a pointer pressed meanwhile
  // sends it at once, before the move it makes, and a key pressed on the slider drops it (below).
  const flushClose = () => { const c = R.closing; R.closing = null; if (c) c(); };
  const end = () => {
    const d = R.drag;
    if (!d) return;
    R.drag = null;
    cancelAnimationFrame(d.raf);
    if (d.scope) d.scope.classList.remove(STALE);  // (the release's run writes the texts)
    flushClose();
    const t0 = performance.now();
    let still = 0, shown = false;
    const close = () => {  // (always sent: the state must hold the thumb's value, the run redraws what a frame
      R.closing = null;    // could not, and it brings the frames for the slider's next drag)
      post(d, inputOf(d).value, true);
      if (d.send) R.closed = { keys: d.keys, input: d.input, seq: d.seqSent, send: d.send, from: d.from };
    };
    close.keys = d.keys;
    R.closing = close;
    const wait = (frames) => {
      if (R.closing !== close) return;  // sent or dropped already (a key, a pointer pressed)
      if (frames >= 2 && !shown) {  // the thumb's frame, so the screen has its numbers at once
        shown = true;
        const k = frameOf(R, d, inputOf(d).value);
        if (k >= 0) showFrame(R, k);
      }
      const now = performance.now();
      still = state() === "notRunning" ? still + 1 : 0;
      if ((frames >= 2 && still >= 2 && now - t0 >= CLOSE_MS) || now - t0 >= CLOSE_MAX_MS) { close(); return; }
      requestAnimationFrame(() => wait(frames + 1));
    };
    requestAnimationFrame(() => wait(1));
  };
  // A key pressed on the slider before the closing message went drops it: the key's own move sends the slider's
  // value. Sent then, its value written into the slider came back while the keys moved the thumb on and pulled it
  // back: presses were lost, or the thumb stayed on the release value while the numbers moved on (a fresh-user
  // trial: 21 of 32 drags followed by 4 arrow presses 100 ms apart). A key pressed elsewhere sends it at once, as a
  // pointer does.
  // A key pressed on the slider after the closing message went, before the server began its run: the two messages
  // can reach the server in one run (Streamlit merges a rerun request into the one waiting), whose callbacks apply
  // the slider's new value first and then the closing message's older one, written back into the slider
  // (test_drag_browser under load, /cross d_model: released at 9, ArrowLeft × 4, the closing 9 applied after the
  // slider's 7). A message of the same relay that cancels it takes its place there (the newer trigger value wins the
  // merge); later it does nothing.
  document.addEventListener("keydown", (ev) => {
    const c = R.closing;
    if (c && onSlider(ev, c.keys)) { R.closing = null; return; }
    flushClose();
    const done = R.closed;
    if (done && onSlider(ev, done.keys)) {
      R.closed = null;
      R.seq += 1;
      done.send("drag", { k: done.keys, v: Number(inputOf(done).value), f: Number(done.from), s: R.seq, d: 2, p: 0 });
    }
  }, true);
  document.addEventListener("scroll", () => { if (R.drag) R.drag.shown = null; }, { capture: true, passive: true });
  window.addEventListener("pointerup", end, true);
  window.addEventListener("pointercancel", end, true);
  return R;
}
const STALE = "al-stale";  // ui.drag.STALE
