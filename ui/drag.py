"""Every bound slider, written once: its value kept from the lesson state, and its numbers following a mouse drag.

Streamlit 1.67's ``st.slider`` and ``st.select_slider`` send their value when the thumb is let go: while a student
drags, the charts kept the old numbers and changed 0.4–0.6 s after the release (issue 18). Here the slider stays
Streamlit's own (label, help, keyboard, look), and a relay in the frame (``DRAG_JS``, an ``st.components.v2``
component without a view, mounted once by app.py: :func:`mount`) reads the thumb's value while the pointer holds it
and sends it to the server, which applies it to the lesson state like a move (the bound slider's own ``relay``
callback) and reruns, so the charts show the server's numbers for the thumb's value during the drag. One value is
in flight at a time: the next is sent when the app is at rest again (``data-test-script-state`` of Streamlit's
root element), the thumb's latest value then, so a slow run is never interrupted by the next value (a trigger of the
frame reruns the whole app, and a rerun request stops a running full run).

Frames (ui/preview.py): a run per value costs the browser ~150–280 ms, so the relay's values alone reach 4–6 a
second. The drag's first message (at pointerdown, the thumb's value) and every later one ask for frames (``"p": 1``):
at the end of the run the server builds the heatmaps of the slider's values within a few steps (:func:`mount_frames`,
a hidden element per relay), and while the thumb stands on one of those values the relay sends nothing and shows that
value's frame on the next animation frame (plot.js, ``window.__attentionLabPreview``); off them it sends values as
before, and the run for such a value brings frames around it. A pointer coming over a slider asks for its frames
ahead of a drag, from the page's hover relay (:func:`mount_hover`): a fragment of its own, so that a hover builds the
frames and reruns nothing else.

Release: the slider sends its own value, as it always did, and the relay then closes the drag with the value the thumb
came to rest at (``"d": 1``, after the slider's own message: at least 250 ms after the release with the app at rest,
at most 1.5 s; at once when a pointer is pressed or a key elsewhere, dropped when a key is pressed on the slider
before that: its move sends the value; a key pressed on it after it went sends ``"d": 2``, which takes its place if
both wait for the same run, see DRAG_JS): applied, and written into the widget when the slider sent another value.
Both are needed: a drag that ends where it began makes the slider send nothing (the state would keep the last
relayed value), and Streamlit's slider can send the value of the frame before the release (seen once: thumb at −10,
the slider's value −9.9, the numbers of −9.9).

Server side, per session:
  * ``SLIDERS``: the CSS class of each bound slider's element (``st-key-<key>``) → what a relayed value means there
    (:class:`_Bound`): written when the slider is drawn.
  * ``RELAYED``: widget key → (the slider's value when the drag began, the value relayed last). While the widget's
    own value is still the start value, the lesson state holds the relayed value and :func:`sync` must not write it
    into the widget: a value written through session state is pushed to the browser as the thumb's position and
    would pull the thumb back under the pointer.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from . import echo, plot_component, preview

DRAG_KEY = "frame.drag"  # the relay's widget key (its trigger "drag")
SLIDERS = "_drag_sliders"
STALE = "al-stale"  # the class of a drag's scope while its texts show another value than the charts (DRAG_JS)
STALE_TEXTS = ("stMarkdown", "stCaptionContainer", "stTable")  # the elements dimmed then (st.latex: a stMarkdown)
RELAYED = "_drag_relayed"
HOVER_KEY = "frame.drag.hover"  # the page's hover relay (mount_hover)
RUNS = "_drag_runs"  # the number of scope runs of the session (each frames element's "r")
HOVER_DRAWN = "_drag_hover_drawn"  # a scope's CSS class (None: the page) → (the lesson state its last run drew from,
# the keyed heatmaps it drew)

# The browser side: installed once per page load. A pointer pressed inside a Streamlit slider (stSlider) starts a
# watch of that slider's range input (react-aria keeps the thumb's value there during a drag) on every animation
# frame; a new value is sent when no run is in flight and the app is at rest. Sent: {k: the element container's
# st-key-* classes, v: the thumb's value (select_slider: the option's index), f: the value when the pointer went down,
# s: a sequence number, d: 1 for the closing message (2: a key moved the slider after it, it is void), p: 1 to ask for
# the frames around v (ui/preview.py), h: 1 for a pointer over the slider (frames only, nothing applied)}.
DRAG_JS = (plot_component.ASSETS / "drag.js").read_text(encoding="utf-8")  # the browser side, as served



def css_class(key: str) -> str:
    """The CSS class Streamlit gives a keyed element's container: ``st-key-`` + key, other characters than
    [a-zA-Z0-9_-] as ``-`` (Streamlit 1.67's frontend rule)."""
    return "st-key-" + re.sub(r"[^a-zA-Z0-9_-]", "-", key.strip())


@dataclass(frozen=True)
class _Bound:
    """A drawn slider as the relay sees it: its widget key, what a relayed value is applied with, and its values:
    ``options`` (a select_slider: the value is an index into them) or ``lo``..``hi`` by ``step`` (``integer``: an
    int slider); ``transition``: (state, value) → the state the value makes (pure; None: unknown), for the frames of
    a drag (ui/preview.py)."""
    key: str
    relay: Callable[[object], None]
    options: tuple | None
    lo: float | None
    hi: float | None
    integer: bool
    step: float | None = None
    transition: Callable[[object, object], object] | None = None

    def read(self, raw) -> object | None:
        """A number from the browser as this slider's value; None when it is not one (not finite, out of range,
        not an option's index)."""
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw):
            return None
        if self.options is not None:
            k = int(raw)
            return self.options[k] if k == raw and 0 <= k < len(self.options) else None
        if (self.lo is not None and raw < self.lo) or (self.hi is not None and raw > self.hi):
            return None
        return int(round(raw)) if self.integer else float(raw)


def same(a, b) -> bool:
    """Whether two slider values are the same: numbers within 1e-9 (the browser's float steps and the state's
    rounded values differ in the last bits), anything else equal."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool | str):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    return a == b


def sync(key: str, value) -> None:
    """Set a slider's session value to ``value`` (the lesson state's) before it is drawn, only when it differs, and
    not while a drag relays ``value`` (see the module docstring).

    Only when it differs: a value written through session state is pushed to the browser as the slider's new
    position. Written on every run, it moved the thumb back to the value of the rerun's own key press while the
    student had already pressed further, and those later presses were lost (found by a new-user trial: ten quick
    presses went 2.0 → 1.1 → 1.5 → 2.0; the temperature select_slider on /scaling, still written on every run,
    dropped presses 150 ms apart: issue 18). A slider whose identity changes (a new range) starts from ``value=``,
    so it needs no write either."""
    if key in st.session_state:
        relayed = st.session_state.get(RELAYED, {}).get(key)
        if relayed is not None and same(st.session_state[key], relayed[0]) and same(value, relayed[1]):
            return
        if same(st.session_state[key], value):
            echo.confirm(key)
            return
    echo.write(key, value)  # the value it replaces may come back from the browser late: ui.echo


# Sliders are also given their value as value= (the same value sync() set, so the two never disagree): a slider
# without value= builds Streamlit's whole filtered session state to learn whether it is a range slider, and that runs
# the state presenter of every keyed chart on the page (ui.plot_component; ~80 µs each): ~1 ms per slider per rerun
# (docs/load.md). Streamlit's warning about a widget given both a value and a session value is turned off for this
# in .streamlit/config.toml (global.disableWidgetStateDuplicationWarning).
def slider(factory: Callable, label: str, *, key: str, value, on_change: Callable[[], None],
           relay: Callable[[object], None], transition: Callable[[object, object], object] | None = None,
           **kwargs):
    """Draw ``factory(label, key=key, value=value, on_change=…, **kwargs)`` — st.slider or st.select_slider, or a
    column's — showing ``value``. ``on_change()`` runs when the slider sends a new value (it reads
    ``st.session_state[key]``); ``relay(v)`` applies a value the thumb passes during a mouse drag (the same value
    type as the slider's); ``transition(state, v)``: the lesson state ``v`` makes, without making it (pure), so the
    page's heatmaps can follow a drag before the run for each value (ui/preview.py). Returns the widget's value."""
    sync(key, value)
    options = kwargs.get("options")
    lo, hi, step = kwargs.get("min_value"), kwargs.get("max_value"), kwargs.get("step")
    st.session_state.setdefault(SLIDERS, {})[css_class(key)] = _Bound(
        key, relay, None if options is None else tuple(options),
        None if lo is None else float(lo), None if hi is None else float(hi),
        isinstance(value, int) and not isinstance(value, bool), None if step is None else float(step), transition)

    def changed() -> None:
        if echo.stale(key, same):
            return
        st.session_state.get(RELAYED, {}).pop(key, None)
        on_change()

    return factory(label, key=key, value=value, on_change=changed, **kwargs)


def _on_drag(relay_key: str) -> None:
    """A value from the relay: during the drag, applied through its slider's ``relay`` while the slider's own value is
    still the one the drag began from (one that arrives after the slider sent its release is stale and dropped); the
    closing value (``d``) is applied and made the widget's value."""
    msg = (st.session_state.get(relay_key) or {}).get("drag")
    if not isinstance(msg, dict) or not isinstance(msg.get("k"), list):
        return
    if isinstance(msg.get("s"), int) and not isinstance(msg.get("s"), bool):
        st.session_state[SEEN + relay_key] = msg["s"]  # drawn back to the browser: the run for it has begun
    if msg.get("d") == 2:  # a key moved the slider after the closing message: that message is void (DRAG_JS)
        return
    sliders = st.session_state.get(SLIDERS, {})
    bound = next((sliders[c] for c in msg["k"] if isinstance(c, str) and c in sliders), None)
    if bound is None or bound.key not in st.session_state:
        return
    value, start = bound.read(msg.get("v")), bound.read(msg.get("f"))
    if value is None or start is None:
        return
    if msg.get("p") and isinstance(msg.get("s"), int):  # the frames around this value asked for (ui/preview.py)
        st.session_state.setdefault(preview.REQUEST, {})[relay_key] = {
            "css": css_class(bound.key), "k": msg["k"], "v": float(msg["v"]), "s": msg["s"], "h": bool(msg.get("h")),
            "c": msg["c"] if isinstance(msg.get("c"), str) else None}
    if msg.get("h"):  # a pointer over the slider: frames only, nothing applied
        return
    relayed = st.session_state.setdefault(RELAYED, {})
    if msg.get("d"):  # the thumb at rest: its value is the truth, whatever the slider sent
        relayed.pop(bound.key, None)
        if not same(st.session_state[bound.key], value):
            st.session_state[bound.key] = value
        bound.relay(value)
    elif same(st.session_state[bound.key], start):
        relayed[bound.key] = (start, value)
        bound.relay(value)


# A relay's element takes no room: without this its (empty) element container added a 16 px gap to the sidebar.
# (Two lines: Streamlit takes a one-line string with "[" or "*" in it for a file path.)
LIVE_PREFIX = "al-drag."  # the keys of the relays in live fragments
LIVE_CONTAINER = "al-live-"  # + a live fragment's scope: its container's key (ui.runtime._live_body), dots as "-"
SEEN = "_drag_seen:"  # + a relay's key: the sequence number of the last value it relayed (sent back as its data)
HIDE_CSS = (",\n".join("." + css_class(k) for k in (DRAG_KEY, DRAG_KEY + ".frames", HOVER_KEY)) + ",\n" + '[class*="'
            + css_class(LIVE_PREFIX) + '"] { display: none; }\n'
            # while a drag's frames show another value than the texts were written for, the texts of the slider's
            # scope are dimmed: their numbers are the last run's (the charts follow the thumb; the texts at the release)
            + ", ".join(f".{STALE} [data-testid='{t}']" for t in STALE_TEXTS) + " { opacity: 0.35; }")


def relay_key(scope: str | None = None) -> str:
    """The widget key of the frame's relay (``scope`` None) or of the relay of live fragment ``scope``."""
    return DRAG_KEY if scope is None else LIVE_PREFIX + scope


def _element(**kwargs) -> None:
    """One element of the drag's component (``DRAG_JS``): a relay, a frames element or the hover relay."""
    plot_component.ensure_assets()
    st.components.v2.component("attention_lab.drag", js=plot_component.loader_js("drag.js"), css=HIDE_CSS,
                               isolate_styles=False)(width="stretch", height="content", **kwargs)


def mount_frames(page, scope: str | None, drawn: dict) -> None:
    """At the end of a scope's run (the live fragment ``scope``, or the whole page for None): the frames a drag in
    it asked for (ui/preview.py), built from the keyed heatmaps the run drew (``drawn``), as the data of a hidden
    element (no frames: ``{"f": 1, "r": the run's number}``). Keeps the drawn heatmaps, with the state they were
    drawn from, for the hover relay (:func:`mount_hover`) and for the tests (``preview.LAST``, ``preview.BUILT``)."""
    key = relay_key(scope)
    st.session_state[preview.LAST] = drawn
    st.session_state.setdefault(HOVER_DRAWN, {})[scope and css_class(LIVE_CONTAINER + scope)] = (page.state, drawn)
    # (r: the run's number, so that the element's data changes with every run and the browser drops the frames a
    # hover brought for the state before it)
    runs = st.session_state[RUNS] = st.session_state.get(RUNS, 0) + 1
    _element(key=key + FRAMES_SUFFIX, data=_with_frames({"f": 1, "r": runs}, page, key, drawn))


def _with_frames(data: dict, page, key: str, drawn: dict) -> dict:
    """``data`` with the frames relay ``key`` asked for (built from ``drawn``), if it asked and they could be built."""
    request = st.session_state.get(preview.REQUEST, {}).pop(key, None)
    bound = st.session_state.get(SLIDERS, {}).get(request["css"]) if request else None
    if bound is not None:
        built = st.session_state[preview.BUILT] = preview.frames(page, bound, request["v"], drawn,
                                                                  hover=bool(request.get("h")))
        if built is not None:
            return {**data, "frames": {**built, "s": request["s"], "keys": request["k"]}}
    return data


def _hover_body(page) -> None:
    """The page's hover relay (data ``{"h": 1}``): the browser sends it a pointer coming over a slider (with the
    CSS class of the slider's live fragment, ``c``), and it brings the frames asked for in its data. It is a fragment
    of its own at the top of the page, so its trigger reruns nothing else, and the runs of the live fragments do not
    run it: the frames are built from the heatmaps the slider's scope drew last, while the lesson state is still the
    one they were drawn from. (Before, a hover reran the slider's whole scope: a class of 40 hovering took the
    server's CPU, docs/load.md 2026-12-06.)"""
    request = st.session_state.get(preview.REQUEST, {}).get(HOVER_KEY) or {}
    state, drawn = st.session_state.get(HOVER_DRAWN, {}).get(request.get("c"), (None, {}))
    data = _with_frames({"h": 1}, page, HOVER_KEY, drawn if state is page.state else {})
    _element(key=HOVER_KEY, data=data, on_drag_change=lambda: _on_drag(HOVER_KEY))


_hover_fragment = st.fragment(_hover_body)


def mount_hover(page) -> None:
    """The page's hover relay (:func:`_hover_body`), drawn by every whole run of a lesson page, outside any live
    fragment."""
    _hover_fragment(page)


FRAMES_SUFFIX = ".frames"


def mount(scope: str | None = None) -> None:
    """A relay (``DRAG_JS``; it draws nothing). ``scope`` None: the frame's, in every full run (app.py): a value it
    relays reruns the whole app. Else the relay of the live fragment named ``scope`` (ui.runtime.Page.live), drawn
    in that fragment's container: a value it relays reruns that fragment only, as the slider's own key press does.
    Its data is the sequence number of the last value it relayed: the browser learns from it that the run for that
    value has begun, so it sends the next one as soon as that run ends (issue 18)."""
    key = relay_key(scope)
    _element(key=key, data={"s": st.session_state.get(SEEN + key, 0)}, on_drag_change=lambda: _on_drag(key))
