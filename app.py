"""Attention Lab — router and shared frame (language, share link) around every lesson page.

The pages come from ``lessons.REGISTRY`` (teaching order): a lesson registered there gets its page, its sidebar
entry and its place on the home page without any change here."""
from __future__ import annotations

from urllib.parse import unquote, urlencode, urlsplit

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

import lessons
from lessons import link
from lessons.base import CELL_KEY
from ui import drag, draw, present, runtime, scheme, viewport, widgets
from ui.i18n import DEFAULT_LANG, LANGS, t
from ui.icon import FAVICON

try:  # the limits past which Streamlit drops a whole query string before the app sees it
    from streamlit.runtime.state.query_params import (
        CLIENT_STATE_QUERY_STRING_MAX_FIELDS as DROPPED_PARAMS,
    )
    from streamlit.runtime.state.query_params import (
        CLIENT_STATE_QUERY_STRING_MAX_LENGTH as DROPPED_CHARS,
    )
except ImportError:  # Streamlit 1.67's values
    DROPPED_PARAMS, DROPPED_CHARS = 1000, 512 * 1024

HOME = "lesson_pages/home.py"
BROWSER_KEY = "frame.browser"  # the frame's browser side (BROWSER_JS)
ADDRESS_KEY = runtime.ADDRESS_KEY  # True once this session (page load) had its first link written
# The browser side of the frame, installed once per page load by an st.components.v2 component without a view.
# 1. History. Streamlit's browser code pushes a history entry for every query string the app writes (st.query_params)
#    outside a Back/Forward step, so a page switch made two entries (the new path, then its link), every slider move
#    one more, and Back showed the same page again. Here a push that keeps the path (only the query changes) is a
#    replace: one entry per page, and Back goes to the previous page, whose link that entry holds. A page load's
#    first link is written by this code (``data.link``), not by Streamlit, which would push it before this code
#    is installed.
# 2. A link Streamlit dropped whole (more than DROPPED_PARAMS parameters or DROPPED_CHARS characters: the app sees
#    no query at all) is reported from the URL the page was loaded with, so the person is told it was not read.
# 3. Every run tells this code the page's link (``data.link``: the page's url_path and its query). After a page
#    switch Streamlit writes the new page's path with the query it held when the switch began; on a loaded machine
#    that came after the new page's link (written at the end of its run, and put on the old path), and the address
#    bar kept the old page's link on the new page (/masks?…&qkv=2&dk=7; tests/e2e/test_history_browser.py). A push
#    to the path of the page whose link was written last carries that link, and the address bar is mended when it
#    shows another query on that page's path.
BROWSER_JS = """
export default function ({ data, setTriggerValue }) {
  const F = window.__attentionLabFrame || (window.__attentionLabFrame = install(data, setTriggerValue));
  F.link = data.link || null;
  F.mend();
}
function install(data, setTriggerValue) {
  const F = { link: null };
  const history = window.history, push = history.pushState, bare = (search) => search.replace(/^\\?/, "");
  // the query the server last wrote for the page at this path (its url_path, "" for the home page), else null
  F.linkFor = (pathname) => {
    const l = F.link;
    return l && pathname.replace(/\\/+$/, "").split("/").pop() === l.page ? l.query : null;
  };
  history.pushState = function (state, title, url) {
    const to = url == null ? null : new URL(url, window.location.href);
    if (to && to.pathname === window.location.pathname) return history.replaceState(state, title, url);
    const q = to && F.linkFor(to.pathname);
    if (q != null && bare(to.search) !== q) {  // 3.: a page switch's address, written after the new page's link
      to.search = q ? "?" + q : "";
      return push.call(history, state, title, to.pathname + to.search + to.hash);
    }
    return push.call(history, state, title, url);
  };
  F.mend = () => {
    const q = F.linkFor(window.location.pathname), here = window.location;
    if (q != null && bare(here.search) !== q) {
      history.replaceState(history.state, "", here.pathname + (q ? "?" + q : "") + here.hash);
    }
  };
  const entry = (performance.getEntriesByType && performance.getEntriesByType("navigation")[0]) || null;
  const loaded = new URL(entry ? entry.name : window.location.href);
  const query = bare(loaded.search);
  const params = query ? query.split("&").length : 0;
  if (params > data.max_params || query.length > data.max_chars) {
    setTriggerValue("dropped", { params: params, chars: query.length, lang: loaded.searchParams.get("lang") });
  }
  return F;
}
"""


def _on_dropped() -> None:
    """The browser side reports a link Streamlit dropped: queue the notice (the first run opened the defaults), in
    the link's language when it asked for one."""
    report = (st.session_state.get(BROWSER_KEY) or {}).get("dropped")
    if not isinstance(report, dict):
        return
    if report.get("lang") in LANGS:
        st.session_state["lang"] = report["lang"]
    try:
        n_params, n_chars = int(report.get("params", 0)), int(report.get("chars", 0))
    except (TypeError, ValueError):  # not what BROWSER_JS sends: still a dropped link
        n_params, n_chars = DROPPED_PARAMS + 1, 0
    runtime.push_notices(runtime.FRAME, [link.dropped_notice(n_params, n_chars, DROPPED_PARAMS)])


def _address(params: dict[str, str], query: str) -> None:
    """Write the page's link (``params``; ``query``, its urlencoded form) into the address bar. On a page load's
    first run the browser side writes it (BROWSER_JS, from ``data.link``; Streamlit is only told, without a message
    to the browser); after that, through st.query_params, whose pushes the browser side turns into replaces."""
    if st.session_state.get(ADDRESS_KEY):
        st.query_params.from_dict(params)
        return
    st.session_state[ADDRESS_KEY] = True
    ctx = get_script_run_ctx()
    if ctx is not None:  # what Streamlit (and AppTest) record as this run's query string
        ctx.query_string = query


def _browser(page_path: str, query: str) -> None:
    """The frame's browser side (BROWSER_JS), told the page's url_path ("" for the home page) and its link."""
    mount = st.components.v2.component("attention_lab.frame", js=BROWSER_JS)
    mount(key=BROWSER_KEY, data={"max_params": DROPPED_PARAMS, "max_chars": DROPPED_CHARS,
                                 "link": {"page": page_path, "query": query}},
          on_dropped_change=_on_dropped, width="stretch", height="content")


def _language() -> None:
    if "lang" not in st.session_state:
        asked = st.query_params.get("lang", DEFAULT_LANG)  # the last one of several
        st.session_state["lang"] = asked if asked in LANGS else DEFAULT_LANG
        if asked not in LANGS:
            runtime.push_notices(runtime.FRAME, [("bad_lang", {"value": str(asked)[:20]})])
        if len(set(st.query_params.get_all("lang"))) > 1:  # ?lang=ja&lang=en: said, as for a lesson's keys
            runtime.push_notices(runtime.FRAME, [("duplicate_keys", {"keys": "lang"})])
    st.sidebar.radio(t("frame.language"), LANGS, key="lang", horizontal=True,
                     format_func=lambda code: t(f"frame.lang_{code}"))


def _unknown_path() -> None:
    """On a page load's first run: a path that is no page of the app (/nonexistent, a mistyped lesson) opened the
    home page; said, naming the path, instead of without a word (issue 20's hostile trial)."""
    if st.session_state.get(ADDRESS_KEY) or not st.context.url:
        return
    path = urlsplit(st.context.url).path
    base = str(st.get_option("server.baseUrlPath") or "").strip("/")
    path = path.strip("/")
    if base and (path == base or path.startswith(base + "/")):
        path = path[len(base):].strip("/")
    known = {"", "home", *(x.key for x in lessons.REGISTRY)}
    if path not in known:
        runtime.push_notices(runtime.FRAME, [("page_not_found", {"path": "/" + unquote(path)[:40]})])


def _typed_cells(params: dict) -> set[str]:
    """The link keys of the typed cells of the lesson the link belongs to (its matrices and its cell choice): what
    the shorter link for a QR code leaves out."""
    key = link.owner([x.link for x in lessons.REGISTRY], params)
    if key is None:
        return set()
    return {m.key for m in lessons.by_key(key).link.matrices} | {CELL_KEY}


def pages() -> list:
    """The home page, then one page per registered lesson (URL path = the lesson's key)."""
    home = st.Page(HOME, title=t("nav.home"), icon=":material/home:", url_path="home", default=True)
    return [home] + [st.Page(x.page, title=t(f"lesson.{x.key}.nav"), icon=x.icon, url_path=x.key)
                     for x in lessons.REGISTRY]


def main() -> None:
    viewport.apply()
    present.from_link()
    scheme.from_link()
    st.set_page_config(page_title="Attention Lab", page_icon=FAVICON, layout="wide",
                       initial_sidebar_state="collapsed" if present.on() else "auto")
    draw.page_style()
    present.style()
    _language()
    present.switch()
    scheme.choice()
    _unknown_path()
    nav = st.navigation(pages())
    st.session_state.pop(runtime.SHARE_KEY, None)
    share_slot = st.sidebar.container()
    widgets.show_notices(runtime.pop_notices(runtime.FRAME))
    runtime.page_opened(nav.url_path)
    present.home_note(nav.url_path)
    with st.sidebar:
        viewport.mount()  # charts laid out for the main column's width in this browser (ui/viewport.py)
    nav.run()
    params = runtime.url_params()
    link = urlencode(params)
    _address(params, link)
    with share_slot:
        widgets.share_panel(st.context.url, params, key=runtime.SHARE_PANEL_KEY, left_out=_typed_cells(params),
                            bound_address=st.get_option("server.address"), network_ip=widgets.network_ip())
    st.sidebar.caption(t("frame.footer"))
    with st.sidebar:
        _browser(nav.url_path, link)
        drag.mount()  # a slider's numbers follow a mouse drag (ui/drag.py)


runtime.frame_begins()
main()
runtime.freeze_heap()  # once per process: the cyclic collector stops walking what lives as long as the server
