"""ui.runtime.frame_running: whether the page code runs in app.py's whole run or in a fragment's rerun (which writes
the page's link itself: Page.publish). It used to be a session value set at app.py's start and cleared in a
``finally``; Streamlit checks for a waiting rerun request before it sets a session value, so a run stopped at that
line left the value on, and every fragment rerun after it wrote no link (issue 18: /multihead's address kept h=8
while four arrow presses took the state and the thumb to h=1). A run is now told by its own ScriptRunContext."""
from __future__ import annotations

import threading
from types import SimpleNamespace

from streamlit.testing.v1 import AppTest

from ui import runtime


def _run():
    """A stand-in for one script run's context: Streamlit gives every run (a fragment's rerun too) new cursors."""
    return SimpleNamespace(cursors={})


def test_only_the_run_that_began_in_app_py_is_the_frames(monkeypatch):
    now = {"ctx": None}
    monkeypatch.setattr(runtime, "get_script_run_ctx", lambda suppress_warning=False: now["ctx"])
    assert runtime.frame_running() is False  # outside a run
    now["ctx"] = whole = _run()
    runtime.frame_begins()
    assert runtime.frame_running() is True
    # the whole run stopped without a word (no end-of-run call exists): the next run is a fragment's rerun
    now["ctx"] = _run()
    assert runtime.frame_running() is False
    now["ctx"] = whole  # (the same run asked again: still the frame's)
    assert runtime.frame_running() is True


def test_a_fragment_rerun_on_another_script_thread_is_not_the_frames(monkeypatch):
    whole = _run()
    monkeypatch.setattr(runtime, "get_script_run_ctx", lambda suppress_warning=False: whole)
    runtime.frame_begins()
    seen = []
    other = _run()
    monkeypatch.setattr(runtime, "get_script_run_ctx", lambda suppress_warning=False: other)
    t = threading.Thread(target=lambda: seen.append(runtime.frame_running()))
    t.start()
    t.join()
    assert seen == [False]


def _script():
    import streamlit as st

    from ui import runtime

    if st.session_state.get("begin", True):
        runtime.frame_begins()
    st.session_state["seen"] = runtime.frame_running()


def test_in_streamlit_a_run_that_began_is_the_frames_and_the_next_one_is_not_unless_it_begins():
    at = AppTest.from_function(_script).run()
    assert at.session_state["seen"] is True
    at.session_state["begin"] = False  # a run whose page code runs without app.py's start (as a fragment's rerun)
    at.run()
    assert at.session_state["seen"] is False
