"""ui.slots: parts shown in page order, computed (and sent to the browser) with the chosen part first."""
from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st_
from streamlit.testing.v1 import AppTest

from tests import apptest_fragments as fragments
from ui import plot_component
from ui.slots import fill_order

ROOT = Path(__file__).resolve().parents[2]


@given(st_.integers(0, 12), st_.one_of(st_.none(), st_.integers(-3, 15)))
def test_fill_order_is_every_part_once_with_first_in_front(n, first):
    order = fill_order(n, first)
    assert sorted(order) == list(range(n))
    if first is not None and 0 <= first < n:
        assert order[0] == first
        assert order[1:] == [i for i in range(n) if i != first]
    else:
        assert order == list(range(n))


def _three_parts():
    import streamlit as st

    from ui import slots

    slots.draw_parts([lambda: st.markdown("part a"), lambda: st.markdown("part b"),
                      lambda: st.markdown("part c")], first=2)


def _sent_markdown(msgs) -> list[str]:
    return [m.delta.new_element.markdown.body for m in msgs
            if m.HasField("delta") and m.delta.HasField("new_element")
            and m.delta.new_element.WhichOneof("type") == "markdown"]


def test_parts_are_shown_in_page_order_but_sent_first_part_first():
    fragments.install()
    at = AppTest.from_function(_three_parts, default_timeout=30).run()
    assert not at.exception
    assert [m.value for m in at.markdown] == ["part a", "part b", "part c"]  # on screen: page order
    assert _sent_markdown(fragments.last["msgs"]) == ["part c", "part a", "part b"]  # on the wire: c first


def test_qkv_page_sends_the_weights_before_the_inputs():
    """The lesson's main picture reaches the browser first; on screen the page keeps its order."""
    fragments.install()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("lesson_pages/qkv.py").run()
    assert not at.exception
    sent = [m.delta.new_element.bidi_component for m in fragments.last["msgs"]
            if m.HasField("delta") and m.delta.HasField("new_element")
            and m.delta.new_element.WhichOneof("type") == "bidi_component"
            and m.delta.new_element.bidi_component.component_name == plot_component.NAME]
    keys = [k for el in sent for k in plot_component.chart_keys(el)]
    assert keys.index("qkv.fig.weights") < keys.index("qkv.fig.X"), keys
    shown = list(plot_component.charts(at))
    assert shown.index("qkv.fig.X") < shown.index("qkv.fig.weights"), shown


def _chart_paths(msgs) -> dict[str, tuple]:
    """{chart key: the delta path of the element drawing it} (a chart in a row: the row's path)."""
    return {k: tuple(m.metadata.delta_path)
            for m in msgs if m.HasField("delta") and m.delta.HasField("new_element")
            and m.delta.new_element.WhichOneof("type") == "bidi_component"
            and m.delta.new_element.bidi_component.component_name == plot_component.NAME
            for k in plot_component.chart_keys(m.delta.new_element.bidi_component)}


def test_a_note_above_the_charts_does_not_move_them():
    """Raising d_k past the example's adds a note above the charts and typing a sentence over an example adds
    another; the charts keep their places on the page (a moved element is remounted: blank in the browser)."""
    fragments.install()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("lesson_pages/qkv.py").run()
    before = _chart_paths(fragments.last["msgs"])
    at.slider(key="qkv.dk").set_value(6).run()
    assert not at.exception
    assert any("d_k" in i.value for i in at.info), "the size note is shown"
    after = _chart_paths(fragments.last["msgs"])
    assert after["qkv.fig.weights"] == before["qkv.fig.weights"]
    assert after["qkv.fig.X"] == before["qkv.fig.X"]
