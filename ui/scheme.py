"""The colour scheme, the frame's choice for every lesson: the default scales or one of the other
colour-blind-safe pairs of ui.figures.SCHEMES (weights' sequential scale, scores' diverging scale). It is in the link
(``colors=cividis``; the default is left out) and read from it on a session's first run, like the language; a value
that is no scheme opens the default, said."""
from __future__ import annotations

import streamlit as st

from . import echo
from .figures import SCHEMES
from .i18n import current_lang, t
from .widgets import sync

KEY = "frame.colors"  # the sidebar's choice
LINK = "colors"  # its link key (lessons.link.IGNORED_KEYS)
DEFAULT = "default"


def from_link() -> None:
    """On a session's first run: the scheme the link names, else the default (a name that is no scheme: said)."""
    if KEY in st.session_state:
        return
    asked = st.query_params.get(LINK)
    st.session_state[KEY] = asked if asked in SCHEMES else DEFAULT
    if asked is not None and asked not in SCHEMES:
        from . import runtime

        runtime.push_notices(runtime.FRAME, [("colors_bad", {"value": str(asked)[:20]})])


def current() -> str:
    """The chosen scheme (a key of SCHEMES)."""
    value = st.session_state.get(KEY, DEFAULT)
    return value if value in SCHEMES else DEFAULT


def choice() -> None:
    """The sidebar's choice of scheme (its own widget key, set from the session's choice when they differ:
    :func:`ui.widgets.sync`)."""
    widget = KEY + ".choice"
    lang = current_lang()  # the option texts of this run's language, whenever they are asked for
    names = {k: t(f"scheme.{k}", lang=lang) for k in SCHEMES}
    sync(widget, current(), next(iter(SCHEMES)), shown=list(names.values()))  # (new words: the choice shown anew)
    st.sidebar.selectbox(t("scheme.label"), list(SCHEMES), key=widget, format_func=names.__getitem__,
                         help=t("scheme.help"),
                         on_change=_chosen, args=(widget,))


def _chosen(widget: str) -> None:
    if not echo.stale(widget, lambda a, b: a == b):
        st.session_state[KEY] = st.session_state[widget]


def link_params() -> dict[str, str]:
    """The scheme's part of the link: {} for the default."""
    value = current()
    return {} if value == DEFAULT else {LINK: value}
