"""Presentation mode, written once for every lesson (issue 24, part 1): a projector, a class at the back of a room,
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

from urllib.parse import urlencode

import streamlit as st

import lessons

from . import share
from .i18n import t

PRESENT_KEY = "frame.present"  # the frame's switch: True in presentation mode
KEYS_KEY = "frame.present_keys"  # the keyboard's component (its trigger "key")
ON, STEP = "present", "reveal"  # the link's keys (lessons.link.IGNORED_KEYS)
ASKED = "_present_asked"  # {lesson key: the stages its page asked about in the last run} (the contract tests read it)

# The keyboard, installed once per page load by an st.components.v2 component without a view: → / Page Down and
# ← / Page Up step through the stages, unless the key is meant for a field, a slider, a choice or a tab (which use
# the arrow keys themselves), or comes with a modifier (Alt+← is the browser's Back).
KEYS_JS = """
export default function ({ data, setTriggerValue }) {
  const P = window.__attentionLabPresent || (window.__attentionLabPresent = install());
  P.on = !!(data && data.on);
  P.send = setTriggerValue;
  const where = data && data.where;
  if (P.where !== undefined && P.where !== where) {  // another step: the new stage from its top
    let el = document.querySelector(".st-key-present-bar");
    for (; el; el = el.parentElement) if (el.scrollTop > 0) el.scrollTo({ top: 0 });
  }
  P.where = where;
}
const OWN = "input, textarea, select, [role=slider], [role=tab], [role=radio], [role=listbox], [role=option], " +
            "[role=combobox], [contenteditable=''], [contenteditable=true], .stDataFrame";
function install() {
  const P = { on: false, send: null, n: 0 };
  document.addEventListener("keydown", (e) => {
    if (!P.on || !P.send || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.defaultPrevented) return;
    const d = { ArrowRight: 1, PageDown: 1, ArrowLeft: -1, PageUp: -1 }[e.key];
    const el = e.target;
    if (!d || (el && el.closest && el.closest(OWN))) return;
    e.preventDefault();
    P.n += 1;
    P.send("key", { d: d, n: P.n });
  }, true);
  return P;
}
"""
STYLE = ("<style>html{font-size:18px}"  # larger type everywhere (Streamlit's sizes are in rem; 16 px normally)
         "[data-testid='stMainBlockContainer']{padding-top:0.6rem;max-width:none}"
         # the bar stays in view at the top while the page scrolls, over Streamlit's (empty, transparent) header,
         # clear of the header's button that opens the sidebar (top left) and its menu (top right)
         "header[data-testid='stHeader']{background:transparent;pointer-events:none}"
         "header[data-testid='stHeader'] *{pointer-events:auto}"
         ".st-key-present-bar{position:sticky;top:0;z-index:999991;background:#fff;"
         "border-bottom:2px solid #E69F00;padding:4px 0 6px}"
         ".st-key-present-bar p{font-size:1.05rem;font-weight:600;margin:0}"
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
    if asked not in (None, "0", "1"):
        from . import runtime

        runtime.push_notices(runtime.FRAME, [("present_bad", {"value": str(asked)[:20]})])


def on() -> bool:
    """True in presentation mode."""
    return bool(st.session_state.get(PRESENT_KEY, False))


def control_name(widget: str) -> str:
    """The control a widget key (after ``<lesson>.``) belongs to: up to its first ":" or "." (``cell:v:X:0:1`` →
    ``cell``, ``score.2`` → ``score``)."""
    return widget.split(":")[0].split(".")[0]


def switch() -> None:
    """The frame's switch (in the sidebar): presentation mode on or off, the lesson's state kept."""
    st.sidebar.toggle(t("present.switch"), key=PRESENT_KEY, help=t("present.switch_help"))


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
            try:
                asked = int(str(raw).strip())
            except ValueError:
                page.notify("reveal_bad", {"value": str(raw)[:20], "n": n})
            else:
                used = min(max(asked, 1), n)
                if used != asked:
                    page.notify("reveal_clamped", {"asked": asked, "used": used, "n": n})
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


def _keyboard(lesson_key: str, step_: int) -> None:
    """The keyboard's component; told the lesson and step shown, so that a new step starts at the page's top."""
    mount = st.components.v2.component("attention_lab.present_keys", js=KEYS_JS)
    mount(key=KEYS_KEY, data={"on": True, "where": f"{lesson_key}:{step_}"}, on_key_change=lambda: _on_key(lesson_key),
          width="stretch", height="content")


def bar(page, *, url: str | None, network_ip: str | None) -> None:
    """Presentation mode's bar at the top of a lesson page (kept in view while the page scrolls): Back, "step k of
    n: stage", Next, the link as a QR code, and the way out. Draws nothing outside presentation mode."""
    if not on():
        return
    lesson = page.lesson
    stages = lesson.present.stages
    k = step(page)
    key = lesson.key
    with st.container(horizontal=True, vertical_alignment="center", key="present-bar"):
        st.button(t("present.back"), key="present.back", icon=":material/arrow_back:", disabled=k <= 1,
                  on_click=go, args=(key, -1), help=t("present.keys_help"))
        st.markdown(t("present.step", k=k, n=len(stages), stage=t(f"{key}.stage.{stages[k - 1]}")))
        st.button(t("present.next"), key="present.next", icon=":material/arrow_forward:", disabled=k >= len(stages),
                  on_click=go, args=(key, 1), type="primary", help=t("present.keys_help"))
        if st.button(t("present.qr"), key="present.qr", icon=":material/qr_code_2:", help=t("share.qr_button")):
            _qr(page, url, network_ip)
        st.button(t("present.exit"), key="present.exit", icon=":material/close_fullscreen:",
                  help=t("present.exit_help"), on_click=lambda: st.session_state.update({PRESENT_KEY: False}))
    _keyboard(key, k)


def _qr(page, url: str | None, network_ip: str | None) -> None:
    """The QR code of the page's link (as the share panel hands it out), full-screen."""
    from . import scheme, widgets
    from .i18n import current_lang

    params = {"lang": current_lang(), **page.lesson.encode(page.state), **scheme.link_params(),
              **link_params({page.lesson.key: ""})}
    base, _, _ = share.class_url(url or "", st.get_option("server.address"), network_ip)
    link = base + "?" + urlencode(params)
    left_out = {m.key for m in page.lesson.link.matrices} | {lessons.base.CELL_KEY}
    shorter = share.shorter_params(params, left_out)
    short = base + "?" + urlencode(shorter)
    st.dialog(t("share.qr_title"), width="large")(widgets.qr_dialog)(link, short if short != link else None)


def asked(page, stages: tuple[str, ...]) -> None:
    """Record that the page asked whether ``stages`` are shown (tests/contract: every declared stage is asked)."""
    st.session_state.setdefault(ASKED, {}).setdefault(page.lesson.key, set()).update(stages)
