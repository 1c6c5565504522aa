"""A real fragment rerun (as the browser sends it) keeps the address bar's link current and does not run the frame.

The Q·K·V page's numbers are one fragment (ui.runtime.Page.live): its cell slider sits inside it.
"""
from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests import apptest_fragments as fragments
from tests.apptest_fragments import the_cell_slider

ROOT = Path(__file__).resolve().parents[2]


def test_cell_slider_reruns_only_the_fragment_and_publishes_the_link():
    fragments.install()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("lesson_pages/qkv.py").run()
    slider = the_cell_slider(at, "qkv.cell")
    assert fragments.as_fragment_rerun(slider.id), "the cell slider must sit inside the numbers' fragment"
    slider.set_value(2.5)
    at.run()
    assert not at.exception
    assert not any(r.key == "lang" for r in at.sidebar.radio), "a fragment rerun must not run the frame"
    state = at.session_state["qkv:state"]
    assert state.mats["X"][0, 0] == 2.5
    # the link in the address bar: X now differs from the preset's, so it is in the link; 犬's row starts with 2.5
    assert at.query_params["qkv"] == "2"
    assert at.query_params["X"].startswith("3x4:2.5,0,0,1,")
    assert at.query_params["lang"] == "ja"
    # and the frame's share panel gets the same link on the next full run
    at.run()
    assert at.query_params["X"].startswith("3x4:2.5,")
