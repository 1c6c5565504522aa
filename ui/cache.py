"""``st.cache_data`` for a function written in a page file, made once per server process.

A page file (lesson_pages/<key>.py) runs from the top at every rerun, so ``@st.cache_data`` there made a new cached
function each time, and Streamlit names a cached function by reading its source (``inspect.getsource``: about 10 ms of
server CPU per function per rerun on /scaling, issue 20 defect 8). :func:`data` keeps the cached function made at the
first run and hands it back while the function's code is the same (code objects compare by their contents, so an edited
function, in development, gets a new one). Its cache is Streamlit's: ``st.cache_data.clear()`` empties it.
"""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st

_made: dict[tuple[str, str], tuple[object, Callable]] = {}


def data(**options) -> Callable[[Callable], Callable]:
    """Like ``st.cache_data(**options)`` (the same options, e.g. ``max_entries``, ``show_spinner``), for a function
    defined at the top of a page file; raises whatever ``st.cache_data`` raises for bad options."""
    def wrap(fn: Callable) -> Callable:
        code = fn.__code__
        key = (code.co_filename, fn.__qualname__)
        made = _made.get(key)
        if made is None or made[0] != (code, options):
            made = ((code, options), st.cache_data(**options)(fn))
            _made[key] = made
        return made[1]
    return wrap
