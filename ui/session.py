"""A page's lesson state in st.session_state, its share link in the URL, and notices to show once.

The lesson state (a frozen value from attention_core) is the single source of truth. Widgets never hold state of
their own: before a widget is drawn its session key is set from the lesson state, and its on_change callback
writes the new value back into the lesson state. So values survive page switches (K12) and a language change.
"""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from .i18n import DEFAULT_LANG

SHARE_KEY = "_share_params"
SHARE_PANEL_KEY = "frame.share"  # the sidebar's share panel (an expander): True while it is open
FRAME_RUNNING = "_frame_running"  # True while app.py runs: a page's code that runs without it is a fragment rerun


def _skey(page: str) -> str:
    return f"{page}:state"


def load(page: str, decode: Callable[[dict], tuple[object, list]]):
    """The page's lesson state. On the session's first visit to the page it is decoded from the URL's query
    parameters (a shared link); notices about anything the link could not give are queued for :func:`notices`."""
    key = _skey(page)
    if key not in st.session_state:
        params = {k: st.query_params.get(k) for k in st.query_params.keys()}
        state, notes = decode(params)
        st.session_state[key] = state
        if notes:
            push_notices(page, notes)
    return st.session_state[key]


def store(page: str, state) -> None:
    st.session_state[_skey(page)] = state


def push_notices(page: str, notes) -> None:
    st.session_state.setdefault(f"{page}:notices", []).extend(notes)


def pop_notices(page: str) -> list:
    return st.session_state.pop(f"{page}:notices", [])


def publish(params: dict[str, str]) -> None:
    """The page's share parameters. In a full run the frame writes them into the URL and the share panel after
    the page ran. In a fragment rerun (a widget inside an ``st.fragment`` moved) the frame does not run: the
    address bar is updated here, and when the sidebar's share panel is open — it shows the link, and a fragment
    cannot redraw the sidebar — the whole app is rerun so the panel shows the new link."""
    params = dict(params)
    if st.session_state.get(FRAME_RUNNING, False):
        st.session_state[SHARE_KEY] = params
        return
    changed = params != st.session_state.get(SHARE_KEY)
    st.session_state[SHARE_KEY] = params
    if changed:
        st.query_params.from_dict(url_params())
        if st.session_state.get(SHARE_PANEL_KEY):
            st.rerun(scope="app")


def url_params() -> dict[str, str]:
    """What the URL holds: the language, then the current page's share parameters."""
    return {"lang": st.session_state.get("lang", DEFAULT_LANG), **st.session_state.get(SHARE_KEY, {})}


def sync(widget_key: str, value) -> None:
    """Set a widget's session value from the lesson state before the widget is drawn (never pass value= too).
    Set on every run, even when equal: a widget whose labels change (a language switch) is a new widget to
    Streamlit and would otherwise show no selection."""
    st.session_state[widget_key] = value


def update(page: str, fn: Callable, *args, **kwargs) -> None:
    """Callback helper: state = fn(state, *args, **kwargs). Errors propagate; callers that can be refused catch them."""
    st.session_state[_skey(page)] = fn(st.session_state[_skey(page)], *args, **kwargs)
