"""AppTest of the masks page's seed field (issue 9): an out-of-range or emptied seed gives a notice in the current
language and the value used; "1e9" is read as a number (an integer field would read it as 1)."""
from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui import plot_component
from ui.i18n import table

APP = str(Path(__file__).resolve().parents[2] / "app.py")
JA = table("ja")


def test_seed_out_of_range_and_emptied():
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("lesson_pages/masks.py")
    at.run()
    assert not at.exception
    at.number_input(key="masks.seed").set_value(1e9).run()
    assert not at.exception
    assert at.session_state["masks:state"].seed == 9999
    said = JA["notice.number_clamped"].format(label=JA["masks.ctl.seed"], value="1×10⁹", lo="0", hi="9999",
                                              used="9999")
    shown = [re.sub(r"\\(.)", r"\1", w.value) for w in at.warning]
    assert said in shown, shown
    at.number_input(key="masks.seed").set_value(None).run()
    assert at.session_state["masks:state"].seed == 9999
    assert at.number_input(key="masks.seed").value == 9999.0
    shown = [re.sub(r"\\(.)", r"\1", w.value) for w in at.warning]
    assert JA["notice.number_empty"].format(label=JA["masks.ctl.seed"], used="9999") in shown, shown


def test_weights_caption_does_not_promise_rows_of_one_when_a_row_has_no_key():
    import lessons.masks as M

    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("lesson_pages/masks.py").run()
    captions = plot_component.captions(at)
    assert JA["fig.weights.caption"] + JA["num.row_sums"] in captions
    state = at.session_state["masks:state"]
    at.session_state["masks:state"] = M.with_custom_cell(state, 0, 0, False)  # 犬 (first token) sees nothing
    at.run()
    assert not at.exception
    assert M.custom_steps(at.session_state["masks:state"]).fully_masked[0]
    captions = plot_component.captions(at)
    assert JA["masks.out.weights_caption_empty"] in captions


def _framed_rows(chart) -> list[float]:
    return sorted((s["y0"] + s["y1"]) / 2 for s in chart["figure"]["layout"].get("shapes", []))


def test_every_row_with_no_key_is_framed_and_the_frame_is_explained():
    """Issue 19 item 10.2: with every key hidden, each query row is framed on the weights and the output chart, and
    the output chart's caption says what the frame means; with no such row, no frame and no such caption."""
    import lessons.masks as M

    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("lesson_pages/masks.py").run()
    shown = plot_component.charts(at)
    assert _framed_rows(shown["masks.fig.custom_out"]) == []
    assert JA["masks.out.output_caption_empty"] not in plot_component.captions(at)
    at.session_state["masks:state"] = M.with_custom_start(at.session_state["masks:state"], "blocked")
    at.run()
    assert not at.exception
    n = len(M.batch(at.session_state["masks:state"]).tokens[0])
    assert n >= 3
    shown = plot_component.charts(at)
    for key in ("masks.fig.custom_out", "masks.fig.custom_weights"):
        assert _framed_rows(shown[key]) == list(range(n)), key
    assert shown["masks.fig.custom_out"]["caption"] == JA["masks.out.output_caption_empty"]
    state = M.with_custom_start(at.session_state["masks:state"], "none")
    at.session_state["masks:state"] = M.with_custom_cell(M.with_custom_cell(state, 1, 0, False), 1, 1, False)
    for j in range(2, n):
        at.session_state["masks:state"] = M.with_custom_cell(at.session_state["masks:state"], 1, j, False)
    at.run()
    assert _framed_rows(plot_component.charts(at)["masks.fig.custom_out"]) == [1]  # only the row that sees nothing
