"""How wide the page's main column is in the browser, so that charts are laid out for the width they get (any
screen a class uses: a projector, a laptop, a phone).

A chart's type sizes, margins and number style are chosen on the server for a width (ui.figures: every number
inside its cell at 14 px or more). Until a session's browser has said otherwise that width is the reference window's
main column (ui.figures.REF_COLUMN_PX, 820 px: 1280×720, sidebar open). A relay in the frame (``VIEWPORT_JS``, an
``st.components.v2`` component without a view, mounted in every full run by app.py: :func:`mount`) measures the main
column (Streamlit's ``stMainBlockContainer`` less its padding) when the page loads and whenever it changes (a window
resized, the sidebar opened or closed, presentation mode), and sends it when it is narrower than the width the
last run used by more than ``TOLERANCE_PX`` or wider by more than ``GROW_PX`` (no rerun for a scrollbar that comes
and goes with the page's height: that flip-flopped for ever): the app reruns with charts laid out for it. At the
reference window nothing is sent, so a page load there costs no second run; on a 1024×768 projector (564 px) or a
phone (358 px) the first run is followed by one more.

The width belongs to the window, not to the lesson: it is kept per session (a page switch keeps it) and is not in
the share link. Each run sets it for the charts it builds (:func:`apply`, ui.figures.LAYOUT_WIDTH), a live fragment's
run too (ui.runtime.Page.live).
"""
from __future__ import annotations

import streamlit as st

from . import figures as F
from .drag import css_class
from .triggers import ONE_SCOPE_JS

KEY = "frame.viewport"  # the relay's key; its trigger value {"width": px}
WIDTH_KEY = "frame.column_px"  # the session's main-column width (px), as the browser last said
TOLERANCE_PX = 6  # a column at most this much narrower than the width used keeps the layout
GROW_PX = 24  # … or at most this much wider (a scrollbar that went: 15 px; charts laid out a little narrow are fine)
MIN_PX, MAX_PX = 240, 2400  # what a width may be (a value outside comes from no real window: clamped)

VIEWPORT_JS = """
export default function ({ data, setTriggerValue }) {
  const V = window.__attentionLabViewport || (window.__attentionLabViewport = install());
  V.send = setTriggerValue;
  V.used = data && typeof data.used === "number" ? data.used : null;
  V.watch();
  V.check();
}
function install() {
  const V = { send: null, used: null, sent: null, seen: null, timer: null, sends: 0 };  // sends: for the tests
  const main = () => document.querySelector('[data-testid="stMainBlockContainer"]');
  V.measure = () => {
    const m = main();
    if (!m) return 0;
    const cs = window.getComputedStyle(m);
    return Math.floor(m.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight));
  };
  V.check = () => {
    const w = V.measure();
    if (!(w > 0) || !V.send || V.used == null) return;
    // narrower by more than the tolerance, or wider by more than a scrollbar: a page whose height is near the
    // window's gains and loses its scrollbar with each layout, and would otherwise rerun for ever, 15 px each way
    if (w >= V.used - data_tolerance && w <= V.used + data_grow) { V.sent = null; return; }
    if (V.sent === w) return;  // sent, its run not here yet
    V.sent = w;
    V.sends += 1;
    const send = V.send;
    sendInScope(null, () => send("width", w));  // (ui/triggers.py)
  };
  const later = () => { clearTimeout(V.timer); V.timer = setTimeout(V.check, 120); };
  const observer = new ResizeObserver(later);
  V.watch = () => {  // the main column's element may be a new one after a page switch
    const m = main();
    if (m && m !== V.seen) {
      if (V.seen) observer.unobserve(V.seen);
      observer.observe(m);
      V.seen = m;
    }
  };
  window.addEventListener("resize", later);
  return V;
}
const data_tolerance = %(tolerance)d, data_grow = %(grow)d;
""" + ONE_SCOPE_JS

HIDE_CSS = "." + css_class(KEY) + " { display: none; }"


def width() -> float:
    """The main column's width (px) for this session: what the browser last said, else the reference's."""
    value = st.session_state.get(WIDTH_KEY)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else float(F.REF_COLUMN_PX)


def apply() -> None:
    """Lay out the charts of this run for the session's main column (ui.figures.LAYOUT_WIDTH)."""
    F.LAYOUT_WIDTH.set(width())


def _on_width() -> None:
    """A width from the relay: kept (clamped to MIN_PX..MAX_PX), and this run's charts laid out for it."""
    raw = (st.session_state.get(KEY) or {}).get("width")
    if isinstance(raw, int | float) and not isinstance(raw, bool) and raw == raw:
        st.session_state[WIDTH_KEY] = int(min(max(raw, MIN_PX), MAX_PX))
        apply()


def mount() -> None:
    """The relay (it draws nothing), told the width this run used."""
    st.components.v2.component("attention_lab.viewport", js=VIEWPORT_JS % {"tolerance": TOLERANCE_PX, "grow": GROW_PX},
                               css=HIDE_CSS, isolate_styles=False)(
        key=KEY, data={"used": width()}, on_width_change=_on_width, width="stretch", height="content")
