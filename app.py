"""Attention Lab — router and shared frame (language, share link) around every lesson page.

The pages come from ``lessons.REGISTRY`` (teaching order): a lesson registered there gets its page, its sidebar
entry and its place on the home page without any change here."""
from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

import lessons
from ui import runtime, widgets
from ui.i18n import DEFAULT_LANG, LANGS, t
from ui.icon import FAVICON

HOME = "lesson_pages/home.py"


def _language() -> None:
    if "lang" not in st.session_state:
        asked = st.query_params.get("lang", DEFAULT_LANG)
        st.session_state["lang"] = asked if asked in LANGS else DEFAULT_LANG
        if asked not in LANGS:
            runtime.push_notices(runtime.FRAME, [("bad_lang", {"value": str(asked)[:20]})])
    st.sidebar.radio(t("frame.language"), LANGS, key="lang", horizontal=True,
                     format_func=lambda code: t(f"frame.lang_{code}"))


def pages() -> list:
    """The home page, then one page per registered lesson (URL path = the lesson's key)."""
    home = st.Page(HOME, title=t("nav.home"), icon=":material/home:", url_path="home", default=True)
    return [home] + [st.Page(x.page, title=t(f"lesson.{x.key}.nav"), icon=x.icon, url_path=x.key)
                     for x in lessons.REGISTRY]


def main() -> None:
    st.set_page_config(page_title="Attention Lab", page_icon=FAVICON, layout="wide")
    _language()
    nav = st.navigation(pages())
    st.session_state.pop(runtime.SHARE_KEY, None)
    share_slot = st.sidebar.container()
    widgets.show_notices(runtime.pop_notices(runtime.FRAME))
    nav.run()
    params = runtime.url_params()
    st.query_params.from_dict(params)
    with share_slot:
        widgets.share_panel(st.context.url, urlencode(params), key=runtime.SHARE_PANEL_KEY)
    st.sidebar.caption(t("frame.footer"))


st.session_state[runtime.FRAME_RUNNING] = True
try:
    main()
finally:  # also when a page stops the run (st.rerun, st.stop) or raises
    st.session_state[runtime.FRAME_RUNNING] = False
