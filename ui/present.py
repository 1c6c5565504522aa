"""Presentation mode, written once for every lesson: a projector, a class at the back of a room,
a teacher pacing the lesson with a clicker.

``?present=1`` (or the frame's switch) opens it on any lesson: the sidebar collapsed, larger type, the lesson's
introduction left out, its controls reduced to the ones it declares essential (``Lesson.present.controls``:
:meth:`ui.runtime.Page.keeps`), and its stages (``Lesson.present.stages``) shown one at a time
(:meth:`ui.runtime.Page.reveals`), with Back / Next buttons and the keyboard: → and Page Down forward, ← and Page Up
back (what presentation clickers send). The step is in the link (``reveal=3``), so a teacher can open a lesson at
"step 3 of 6"; leaving presentation mode keeps the lesson's state (it lives in the session, not in the mode).

The mode is the frame's (``frame.present``, like the language); the step is each lesson's (``<key>:reveal``,
1-based), read from the link on the lesson's first visit, a step past the end moved to the last one and said.
"""
from __future__ import annotations

import re
from urllib.parse import urlencode

import streamlit as st

import lessons

from . import share
from .i18n import t
from .triggers import ONE_SCOPE_JS

PRESENT_KEY = "frame.present"  # the frame's switch: True in presentation mode
KEYS_KEY = "frame.present_keys"  # the keyboard's component (its trigger "key")
ON, STEP = "present", "reveal"  # the link's keys (lessons.link.IGNORED_KEYS)
ASKED = "_present_asked"  # {lesson key: the stages its page asked about in the last run} (the contract tests read it)

# The keyboard, installed once per page load by an st.components.v2 component without a view: → / Page Down and
# ← / Page Up step through the stages. The arrows do not when the key is meant for a field, a slider, a choice or a
# tab (which use them themselves); Page Down / Up, what a clicker sends, always do. None with a modifier (Alt+← is
# the browser's Back).
KEYS_JS = """
export default function ({ data, setTriggerValue }) {
  const P = window.__attentionLabPresent || (window.__attentionLabPresent = install());
  P.on = !!(data && data.on);
  P.send = setTriggerValue;
  const where = data && data.where;
  if (P.where !== where) align(data.anchor, data.picture);  // a new step, or the page opened: the stage in view
  P.where = where;
}
const OWN = "input, textarea, select, [role=slider], [role=tab], [role=radio], [role=listbox], [role=option], " +
            "[role=combobox], [role=dialog], [contenteditable=''], [contenteditable=true], .stDataFrame";
function install() {
  const P = { on: false, send: null, n: 0 };
  document.addEventListener("keydown", (e) => {
    if (!P.on || !P.send || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.defaultPrevented) return;
    const d = { ArrowRight: 1, PageDown: 1, ArrowLeft: -1, PageUp: -1 }[e.key];
    const el = e.target;
    const clicker = e.key === "PageDown" || e.key === "PageUp";  // what a presentation clicker sends: always a step
    if (!d || (!clicker && el && el.closest && el.closest(OWN)) || document.querySelector("[role=dialog]")) return;
    e.preventDefault();
    if (clicker) e.stopPropagation();  // not also a slider's big step (a trial: a touched slider took the clicker)
    P.n += 1;
    const send = P.send, msg = { d: d, n: P.n };
    sendInScope(null, () => send("key", msg));  // the whole app's: never in a fragment's batch (ui/triggers.py)
  }, true);
  return P;
}
// Scroll the page so that the lesson's main control (the element of `anchor` nearest above the main picture, `picture`,
// at its stage; else above the stage's first chart) sits just under the bar, with the pictures below it; the page's
// top when the stage has no such control. Done once the run is over and the picture is drawn (at most 5 s), and done
// again while charts above it are still growing (up to 2.5 s later), unless the reader has scrolled meanwhile.
function align(anchor, picture) {  // (only the latest call acts: an older one, for another step, stops)
  const started = performance.now(), me = (window.__attentionLabAligning = (window.__attentionLabAligning || 0) + 1);
  const aligning = () => window.__attentionLabAligning;
  let set = null;  // the scroll position this call last set
  const scrollerOf = (bar) => {
    let s = bar.parentElement;
    while (s && !(s.scrollHeight > s.clientHeight + 1 && /(auto|scroll)/.test(getComputedStyle(s).overflowY)))
      s = s.parentElement;
    return s;
  };
  const place = () => {
    const bar = document.querySelector(".st-key-present-bar");
    const scroller = bar && scrollerOf(bar);
    if (!scroller || me !== aligning()) return null;
    if (set !== null && Math.abs(scroller.scrollTop - set) > 2) return null;  // the reader scrolled: theirs now
    const chart = (picture && document.querySelector(picture + " .js-plotly-plot")) ||
                  document.querySelector(".js-plotly-plot");
    const top = chart ? chart.getBoundingClientRect().top : Infinity;
    const controls = anchor ? [...document.querySelectorAll(anchor)] : [];
    const above = controls.filter((c) => c.getBoundingClientRect().height > 0 && c.getBoundingClientRect().top < top);
    const target = above.length ? above[above.length - 1] : null;
    const want = target ? Math.max(scroller.scrollTop + target.getBoundingClientRect().top -
                                   bar.getBoundingClientRect().bottom - 8, 0) : 0;
    if (Math.abs(want - scroller.scrollTop) > 1) scroller.scrollTo({ top: want });
    return scroller.scrollTop;
  };
  const tick = () => {
    const app = document.querySelector("[data-testid='stApp']");
    const idle = app && app.getAttribute("data-test-script-state") === "notRunning";
    const drawn = picture ? document.querySelector(picture + " .js-plotly-plot")
                          : document.querySelector(".js-plotly-plot");
    if (me !== aligning()) return;
    if ((!idle || !drawn) && performance.now() - started < 5000) return void setTimeout(tick, 100);
    set = place();
    for (const later of [400, 1000, 2500]) setTimeout(() => { if (set !== null) set = place(); }, later);
  };
  setTimeout(tick, 150);
}
""" + ONE_SCOPE_JS
STYLE = ("<style>html{font-size:18px}"  # larger type everywhere (Streamlit's sizes are in rem; 16 px normally)
         "[data-testid='stMainBlockContainer']{padding-top:0.6rem;max-width:none}"
         # the bar stays in view at the top while the page scrolls, over Streamlit's (empty, transparent) header,
         # clear of the header's button that opens the sidebar (top left) and its menu (top right)
         "header[data-testid='stHeader']{background:transparent;pointer-events:none}"
         "header[data-testid='stHeader'] *{pointer-events:auto}"
         # (sticky is the bar's wrapper, a child of the page's column: the bar itself sticks only inside its wrapper)
         "[data-testid='stLayoutWrapper']:has(> .st-key-present-bar){position:sticky;top:0;z-index:999991}"
         ".st-key-present-bar{background:#fff;border-bottom:2px solid #E69F00;padding:4px 0 6px}"
         ".st-key-present-bar p{font-size:1.05rem;font-weight:600;margin:0}"
         # (Streamlit pulls a text's next element up by 1 rem: here the step's words would run over the bar's line)
         ".st-key-present-bar [data-testid='stMarkdownContainer']{margin-bottom:0}"
         "[data-testid='stMainBlockContainer'] h1{font-size:1.9rem;padding:0.2rem 0}"
         # small print is not read from the back of a room: the teacher says it
         "[data-testid='stMainBlockContainer'] [data-testid='stCaptionContainer']{display:none}"
         "</style>")


def from_link() -> None:
    """On a session's first run: presentation mode as the link asks (``present=1``; ``0`` or no key: off; anything
    else: off, said). Later runs keep the switch's value."""
    if PRESENT_KEY in st.session_state:
        return
    asked = st.query_params.get(ON)
    st.session_state[PRESENT_KEY] = asked == "1"
    from . import runtime

    if asked not in (None, "0", "1"):
        runtime.push_notices(runtime.FRAME, [("present_bad", {"value": str(asked)[:20]})])
    elif asked != "1" and st.query_params.get(STEP) is not None:  # a step without the mode: said, not dropped
        runtime.push_notices(runtime.FRAME, [("reveal_ignored", {"value": str(st.query_params.get(STEP))[:20]})])


def home_note(url_path: str) -> None:
    """On a page that is no lesson (the home page) in presentation mode: say that the mode paces a lesson."""
    if on() and url_path in ("", "home"):
        st.info(t("present.home"), icon=":material/co_present:")


def on() -> bool:
    """True in presentation mode."""
    return bool(st.session_state.get(PRESENT_KEY, False))


def control_name(widget: str) -> str:
    """The control a widget key (after ``<lesson>.``) belongs to: up to its first ":" or "." (``cell:v:X:0:1`` →
    ``cell``, ``score.2`` → ``score``)."""
    return widget.split(":")[0].split(".")[0]


def switch() -> None:
    """The frame's switch (in the sidebar): presentation mode on or off, the lesson's state kept.

    Drawn with ``value=`` the mode as it is (as well as its session value; config.toml silences Streamlit's warning
    about the two), so that the switch's default in the browser is never "off" while the mode is on. Streamlit's
    frontend starts a widget it has no stored value for from the proto's default; with the default "off", such a
    start sent "off" back with the next run and switched the mode off under a teacher's clicker (test_present_browser
    saw it twice under load, /pair and /cross: the bar gone, the switch off, present=1 gone from the address)."""
    st.sidebar.toggle(t("present.switch"), key=PRESENT_KEY, value=on(), help=t("present.switch_help"),
                      on_change=lambda: None if st.session_state.get(PRESENT_KEY) else leave())


def style() -> None:
    """The mode's CSS (drawn by the frame in every run of presentation mode; a style-only st.html takes no room)."""
    if on():
        st.html(STYLE)


def _step_key(lesson_key: str) -> str:
    return f"{lesson_key}:{STEP}"


def step(page) -> int:
    """The lesson's step (1..number of stages). On the lesson's first visit it is read from the link (``reveal``):
    a number past the end is the last step, anything but a whole number the first, both said (notices
    ``reveal_clamped``, ``reveal_bad``)."""
    key = _step_key(page.lesson.key)
    if key not in st.session_state:
        n = len(page.lesson.present.stages)
        raw = st.query_params.get(STEP)
        used = 1
        if raw is not None:
            text = str(raw).strip()
            if not re.fullmatch(r"[+-]?\d+", text):
                page.notify("reveal_bad", {"value": text[:20], "n": n})
            else:
                negative = text.startswith("-")
                digits = text.lstrip("+-").lstrip("0") or "0"
                asked = int(text) if len(digits) <= 6 else None  # a number of 5,000 digits is past the end too
                used = (1 if negative else n) if asked is None else min(max(asked, 1), n)
                if asked is None or used != asked:
                    shown = text if len(text) <= 12 else text[:10] + "…"
                    page.notify("reveal_clamped", {"asked": shown, "used": used, "n": n})
        st.session_state[key] = used
    return st.session_state[key]


def stage(page) -> str:
    """The stage shown in presentation mode (the lesson's stages[step − 1])."""
    return page.lesson.present.stages[step(page) - 1]


def go(lesson_key: str, delta: int) -> None:
    """Step forward (``delta`` 1) or back (−1), within 1..number of stages."""
    n = len(lessons.by_key(lesson_key).present.stages)
    key = _step_key(lesson_key)
    st.session_state[key] = min(max(int(st.session_state.get(key, 1)) + int(delta), 1), n)
    st.session_state.pop(f"{lesson_key}:top:shown", None)  # a notice about the step the link asked for: now old


def leave() -> None:
    """Leave presentation mode (the lesson's state kept); the next time it starts at step 1."""
    st.session_state[PRESENT_KEY] = False
    for k in [k for k in st.session_state if str(k).endswith(":" + STEP)]:
        del st.session_state[k]


def link_params(share_params: dict) -> dict[str, str]:
    """The frame's part of the link in presentation mode (``present=1``, and on a lesson page its ``reveal``):
    {} outside it. ``share_params``: the page's own link (its first key is the lesson's)."""
    if not on():
        return {}
    out = {ON: "1"}
    owner = next(iter(share_params), None)
    if owner is not None and _step_key(owner) in st.session_state:
        out[STEP] = str(st.session_state[_step_key(owner)])
    return out


def _on_key(lesson_key: str) -> None:
    report = (st.session_state.get(KEYS_KEY) or {}).get("key")
    if isinstance(report, dict) and report.get("d") in (1, -1):
        go(lesson_key, report["d"])


def _keyboard(lesson, step_: int) -> None:
    """The keyboard's component; told the lesson and step shown, so that a new step is brought into view with the
    lesson's main control (its widgets' CSS classes start ``st-key-<key>-<control>``) under the bar."""
    mount = st.components.v2.component("attention_lab.present_keys", js=KEYS_JS)
    anchor = f"[class*='st-key-{lesson.key}-{lesson.present.controls[0]}']"
    stage_, chart = lesson.present.picture
    picture = ".st-key-" + "".join(c if c.isalnum() or c in "_-" else "-" for c in chart)
    at_picture = lesson.present.stages[step_ - 1] == stage_
    mount(key=KEYS_KEY, data={"on": True, "where": f"{lesson.key}:{step_}", "anchor": anchor,
                              "picture": picture if at_picture else None},
          on_key_change=lambda: _on_key(lesson.key), width="stretch", height="content")


def bar(page, *, url: str | None, network_ip: str | None) -> None:
    """Presentation mode's bar at the top of a lesson page (kept in view while the page scrolls): Back, "step k of
    n: stage", Next, the link as a QR code, and the way out. Draws nothing outside presentation mode."""
    if not on():
        return
    lesson = page.lesson
    stages = lesson.present.stages
    k = step(page)
    key = lesson.key
    # the buttons first, in fixed places (no help: a tooltip left under the pointer would cover the page), then the
    # step's words, which may wrap
    with st.container(horizontal=True, vertical_alignment="center", key="present-bar"):
        st.button(t("present.back"), key="present.back", icon=":material/arrow_back:", disabled=k <= 1,
                  on_click=go, args=(key, -1))
        st.button(t("present.next"), key="present.next", icon=":material/arrow_forward:", disabled=k >= len(stages),
                  on_click=go, args=(key, 1), type="primary")
        if st.button(t("present.qr"), key="present.qr", icon=":material/qr_code_2:"):
            _qr(page, url, network_ip)
        st.button(t("present.exit"), key="present.exit", icon=":material/close_fullscreen:", on_click=leave)
        st.markdown(t("present.step", k=k, n=len(stages), stage=t(f"{key}.stage.{stages[k - 1]}")))
    _keyboard(lesson, k)


def _qr(page, url: str | None, network_ip: str | None) -> None:
    """The QR code of the page's link (as the share panel hands it out, every key of the address), full-screen."""
    from . import scheme, widgets
    from .i18n import current_lang

    own = page.link_params()  # (predict mode's guess and A/B's pin too: a scanned link hides what this page hides)
    params = {"lang": current_lang(), **own, **scheme.link_params(), **link_params(own)}
    base, _, _ = share.class_url(url or "", st.get_option("server.address"), network_ip)
    link = base + "?" + urlencode(params)
    left_out = {m.key for m in page.lesson.link.matrices} | {lessons.base.CELL_KEY}
    shorter = share.shorter_params(params, left_out)
    short = base + "?" + urlencode(shorter)
    st.dialog(t("share.qr_title"), width="large")(widgets.qr_dialog)(link, short if short != link else None)


def asked(page, stages: tuple[str, ...]) -> None:
    """Record that the page asked whether ``stages`` are shown (tests/contract: every declared stage is asked)."""
    st.session_state.setdefault(ASKED, {}).setdefault(page.lesson.key, set()).update(stages)
