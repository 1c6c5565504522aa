"""Attention Lab — router and shared frame (language, share link) around every lesson page."""
from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from ui import session, widgets
from ui.i18n import DEFAULT_LANG, LANGS, t
from ui.icon import FAVICON


def _language() -> None:
    if "lang" not in st.session_state:
        asked = st.query_params.get("lang", DEFAULT_LANG)
        st.session_state["lang"] = asked if asked in LANGS else DEFAULT_LANG
        if asked not in LANGS:
            session.push_notices("frame", [("bad_lang", {"value": str(asked)[:20]})])
    st.sidebar.radio(t("frame.language"), LANGS, key="lang", horizontal=True,
                     format_func=lambda code: t(f"frame.lang_{code}"))


def main() -> None:
    st.set_page_config(page_title="Attention Lab", page_icon=FAVICON, layout="wide")
    _language()
    pages = [
        st.Page("lesson_pages/home.py", title=t("nav.home"), icon=":material/home:", url_path="home", default=True),
        st.Page("lesson_pages/qkv.py", title=t("nav.qkv"), icon=":material/calculate:", url_path="qkv"),
        st.Page("lesson_pages/scaling.py", title=t("scaling.nav"), icon=":material/tune:", url_path="scaling"),
    ]
    nav = st.navigation(pages)
    st.session_state.pop(session.SHARE_KEY, None)
    share_slot = st.sidebar.container()
    widgets.show_notices(session.pop_notices("frame"))
    nav.run()
    params = session.url_params()
    st.query_params.from_dict(params)
    with share_slot:
        widgets.share_panel(st.context.url, urlencode(params), key=session.SHARE_PANEL_KEY)
    st.sidebar.caption(t("frame.footer"))


st.session_state[session.FRAME_RUNNING] = True
try:
    main()
finally:  # also when a page stops the run (st.rerun, st.stop) or raises
    st.session_state[session.FRAME_RUNNING] = False
