"""ui.drag: what a value relayed during a mouse drag does on the server (the browser side is exercised by
tests/e2e/test_sliders_browser.py and benchmarks/browser_latency.py --drag).

The relay's callback runs before the script (a trigger of the frame's component); here the script calls it itself
when the test has put a message where the component would (``st.session_state[DRAG_KEY]``)."""
from __future__ import annotations

import math

from streamlit.testing.v1 import AppTest

from tests.e2e.helpers import sel
from ui import drag


def _script():
    import streamlit as st

    from ui import drag

    fire = st.session_state.pop("_fire", None)  # the relay whose message the test put in place
    if fire:
        drag._on_drag(drag.DRAG_KEY if fire is True else fire)
    st.session_state.setdefault("val", 2.0)

    def relay(v):
        st.session_state["val"] = v

    drag.slider(st.slider, "x", key="s", value=st.session_state["val"], min_value=0.0, max_value=5.0, step=0.1,
                on_change=lambda: relay(st.session_state["s"]), relay=relay)
    st.session_state.setdefault("tval", 1.0)
    drag.slider(st.select_slider, "T", key="t", value=st.session_state["tval"], options=[0.5, 1.0, 2.0, 5.0],
                on_change=lambda: st.session_state.update(tval=st.session_state["t"]),
                relay=lambda v: st.session_state.update(tval=v))


def _relay(at, key: str, value, start, done: bool = False):
    at.session_state[drag.DRAG_KEY] = {"drag": {"k": ["stElementContainer", drag.css_class(key)], "v": value,
                                                "f": start, "s": 1, "d": int(done)}}
    at.session_state["_fire"] = True
    return at.run()


def test_a_relayed_value_moves_the_state_not_the_thumb_and_the_release_is_the_truth():
    at = AppTest.from_function(_script).run()
    assert at.session_state["val"] == 2.0 and at.slider(key="s").value == 2.0
    _relay(at, "s", 2.7, 2.0)
    assert math.isclose(at.session_state["val"], 2.7)
    # the widget keeps the value the browser holds (2.0 until the release): written, it would pull the thumb back
    assert at.session_state["s"] == 2.0
    assert at.session_state[drag.RELAYED] == {"s": (2.0, 2.7)}
    at.slider(key="s").set_value(3.4).run()  # the release: the slider's own value
    assert math.isclose(at.session_state["val"], 3.4) and "s" not in at.session_state[drag.RELAYED]
    _relay(at, "s", 2.9, 2.0)  # a relayed value that arrives after the release: stale, dropped
    assert math.isclose(at.session_state["val"], 3.4) and math.isclose(at.session_state["s"], 3.4)


def test_a_drag_back_to_its_start_is_closed_with_the_start_value():
    at = AppTest.from_function(_script).run()
    _relay(at, "s", 4.0, 2.0)
    assert at.session_state["val"] == 4.0
    _relay(at, "s", 2.0, 2.0, done=True)  # the slider sends nothing new: the relay closes the drag
    assert at.session_state["val"] == 2.0 and at.session_state["s"] == 2.0
    assert "s" not in at.session_state[drag.RELAYED]


def test_the_closing_value_is_the_thumbs_even_when_the_slider_sent_another():
    """Streamlit's slider may send the value of the frame before the release: the relay's closing value (where the
    thumb rests) wins, and becomes the widget's value too (written, so the browser and the server agree)."""
    at = AppTest.from_function(_script).run()
    _relay(at, "s", 3.3, 2.0)
    at.slider(key="s").set_value(3.3).run()  # the slider's release value, one step short of the thumb
    _relay(at, "s", 3.4, 2.0, done=True)
    assert math.isclose(at.session_state["val"], 3.4) and math.isclose(at.session_state["s"], 3.4)
    assert math.isclose(at.slider(key="s").value, 3.4)


def test_a_select_slider_takes_the_options_index_and_bad_values_are_dropped():
    at = AppTest.from_function(_script).run()
    _relay(at, "t", 3, 1)  # index 3 of [0.5, 1.0, 2.0, 5.0], from index 1 (the current 1.0)
    assert at.session_state["tval"] == 5.0 and at.session_state["t"] == 1.0
    for bad in (4, -1, 1.5, float("nan"), True, "2", None):
        _relay(at, "t", bad, 1)
        assert at.session_state["tval"] == 5.0, bad
    _relay(at, "s", 9.0, 2.0)  # outside 0..5
    _relay(at, "nope", 1.0, 2.0)  # no such slider
    assert at.session_state["val"] == 2.0 and not at.exception


def test_read_same_and_css_class():
    b = drag._Bound("k", lambda v: None, None, 1.0, 16.0, True)
    assert [b.read(x) for x in (1, 16, 4.0, 0, 17, float("inf"), False)] == [1, 16, 4, None, None, None, None]
    assert drag.same(0.1 + 0.2, 0.3) and not drag.same(0.3, 0.4) and drag.same("a", "a") and not drag.same(1, "1")
    for key in ("qkv.dm", "qkv.cell:v:W_Q:0:4", "scaling.score.0", " x y "):
        assert "." + drag.css_class(key) == sel(key.strip())


def test_a_hover_asks_the_hover_relay_for_frames_and_moves_nothing():
    """A pointer over a slider, sent to the page's hover relay (ui.drag.mount_hover): nothing applied, the frames
    asked for under the hover relay's key, with the slider's live fragment (``c``, or None when the browser sent
    none or something else than a string)."""
    at = AppTest.from_function(_script).run()
    for c, want in (("st-key-al-live-qkv-live_numbers", "st-key-al-live-qkv-live_numbers"), (None, None), (7, None)):
        at.session_state[drag.HOVER_KEY] = {"drag": {"k": [drag.css_class("s")], "v": 4.0, "f": 4.0, "s": 3, "d": 0,
                                                     "p": 1, "h": 1, "c": c}}
        at.session_state["_fire"] = drag.HOVER_KEY
        at.run()
        assert at.session_state["val"] == 2.0 and at.session_state["s"] == 2.0
        request = at.session_state[drag.preview.REQUEST][drag.HOVER_KEY]
        assert request == {"css": drag.css_class("s"), "k": [drag.css_class("s")], "v": 4.0, "s": 3, "h": True,
                           "c": want}


def test_the_served_module_names_the_classes_python_names():
    """assets/drag.js spells the stale class and the live containers' key prefix that ui.drag names (the module is a
    static file now, no longer built from these constants)."""
    assert f'const STALE = "{drag.STALE}";' in drag.DRAG_JS
    assert f'[class*="st-key-{drag.LIVE_CONTAINER}"]' in drag.DRAG_JS
