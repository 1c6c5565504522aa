"""A bound widget's value written by the server, and the browser's late echo of the value it replaced.

A widget bound to the lesson state gets its session value from the state (``ui.widgets.sync``, ``ui.drag.sync``)
when the state changed elsewhere: a grid edit sets X[0,0] = 3, so the one-cell slider of X[0,0] is written 3. Streamlit
pushes that value to the browser with the run. But every message the browser sends carries the values of all its
widgets, and a message sent before the browser has drawn that run (a size slider clicked while the grid's edit was
being applied) still carries the slider's old value 1. Streamlit sees 1 ≠ 3 and calls the slider's ``on_change``:
the old value comes back over the grid's edit (issue 20's test lost its typed 3 under load, in CI and locally with
the CPU busy: ``with_cell('X', 0, 0, 1.0)`` after the edit).

Such an echo is told from a person's move by two things together: the value is exactly the one the server replaced,
not yet confirmed by the browser, and it arrives in a run in which another widget changed too (a message from the
browser is sent for one widget's change; the others' values in it are what the browser last had). A person who moves
a widget back to its old value changes that widget alone, and that move is applied.

Server side, per session: ``DISPLACED``: widget key → the value the server wrote over, until the browser sends the
written value back (:func:`confirm`) or the widget's own change is applied; ``WRITTEN``: widget key → the value the
server wrote. That value coming back is never a person's move: after an echo handled in a run of another fragment
(one that did not draw the widget again), the echo stays the widget's session value, and the browser's next message,
carrying the written value, is a "change" to Streamlit (a new seed's X[0,0] was set back to the old seed's on /qkv).
"""
from __future__ import annotations

import logging

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

log = logging.getLogger(__name__)

DISPLACED = "_echo_displaced"
WRITTEN = "_echo_written"  # widget key → the value the server last wrote into it, until the widget's next change
# is handled (stale) or a replaced value is confirmed (confirm)
NO_DEFAULT = object()


def write(key: str, value, default=NO_DEFAULT) -> None:
    """Write ``value`` into widget ``key``'s session value, remembering the value it replaces (the browser's).

    A widget without a session value yet (its first drawing) replaces its ``default``, the value the browser holds
    until it has applied the written one (a text field's "", a choice's first option): a message the browser sends
    in between carries that default (seen under load at a page's first runs: /qkv's sentence field reported "" with
    the frame's width relay, and the sentence was emptied)."""
    if key in st.session_state:
        st.session_state.setdefault(DISPLACED, {})[key] = st.session_state[key]
    elif default is not NO_DEFAULT:
        st.session_state.setdefault(DISPLACED, {})[key] = default
    st.session_state.setdefault(WRITTEN, {})[key] = value
    st.session_state[key] = value


def confirm(key: str) -> None:
    """Before the widget is drawn, its session value equals the state's: if the browser sent that value with this
    run's message, it has the written value and no echo is to be expected. A message without the widget's value
    confirms nothing (seen: the width relay's message came before the browser had the sentence field's value; the
    next message carried the field's default "")."""
    displaced = st.session_state.get(DISPLACED)
    if displaced and key in displaced and _sent(key):
        del displaced[key]
        (st.session_state.get(WRITTEN) or {}).pop(key, None)


def unconfirmed(key: str) -> bool:
    """Whether the server wrote widget ``key``'s value and the browser has not yet sent it back. It may never have
    got it: a page's first run cut short by the next one (the width relay's run, ui/viewport.py) left fields drawn
    empty at 1024×768, about 1 load in 5 (a new-user trial). ``ui.widgets.sync`` then writes it again."""
    return key in (st.session_state.get(DISPLACED) or {})


def stale(key: str, same) -> bool:
    """In a bound widget's ``on_change``: True when its new value is the browser's echo of the value the server
    replaced (see the module docstring) and must not be applied; ``same(a, b)`` compares two values of the widget.
    A change that is applied forgets the replaced value."""
    displaced = st.session_state.get(DISPLACED) or {}
    written = st.session_state.setdefault(WRITTEN, {})
    mine = written.pop(key, NO_DEFAULT)  # an applied change forgets it; an echo keeps it (below)
    if mine is not NO_DEFAULT and same(st.session_state.get(key), mine):
        # the server's own value sent back (the browser has it now): a change only against an echo that a run of
        # another fragment (which did not draw this widget again) left as its session value; never a person's move
        # (else a cell edited before a preset and seed change would go back to the old seed's value)
        displaced.pop(key, None)
        return True
    if key not in displaced:
        return False
    old = displaced.pop(key)
    if not same(st.session_state.get(key), old):
        return False
    if not _others_changed(key):
        return False  # the person moved it back: their move
    displaced[key] = old  # still not confirmed: sync writes the state's value again
    if mine is not NO_DEFAULT:
        written[key] = mine
    return True


# Streamlit 1.67's session state, read where its API says nothing (streamlit.runtime.state.session_state.SessionState):
# before a run, _new_widget_state holds the values of the browser's message (and, once drawn in the run, the widgets
# drawn); _widget_changed is the test of a change Streamlit's callback dispatch makes. Checked by tests/ui/test_echo.py.
def _session():
    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_state._state


def _sent(key: str) -> bool:
    """Whether this run's message from the browser carried widget ``key``'s value (asked before it is drawn)."""
    try:
        state = _session()
        wid = state._key_id_mapper.get_id_from_key(key, None)
        return wid is not None and wid in state._new_widget_state.states
    except Exception:  # another Streamlit: never confirmed (an echo of the old value is still told apart)
        log.warning("ui.echo: Streamlit's widget state could not be read", exc_info=True)
        return False


def _others_changed(key: str) -> bool:
    """Whether a widget other than ``key`` changed in this run."""
    try:
        state = _session()
        own = state._key_id_mapper.get_id_from_key(key, None)
        return any(wid != own and state._widget_changed(wid) for wid in list(state._new_widget_state))
    except Exception:  # another Streamlit: no echo is told (the value is applied, as before this module)
        log.warning("ui.echo: Streamlit's widget state could not be read; echoes are applied", exc_info=True)
        return False
