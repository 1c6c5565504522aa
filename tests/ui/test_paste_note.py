"""Every grid says beforehand that a paste past its edge is not pasted (issue 20, defect 6): the data editor leaves
such cells out in the browser and the app never receives them, so no notice can name them afterwards."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from ui.i18n import LANGS, table


def _script(kind: str, rows: int, cols: int, lang: str) -> None:
    import numpy as np
    import streamlit as st

    from ui import widgets

    st.session_state["lang"] = lang
    labels = ([f"r{i}" for i in range(rows)], [f"c{j}" for j in range(cols)])
    if kind == "matrix":
        widgets.matrix_editor("g", np.zeros((rows, cols)), *labels, name="W_Q", commit=lambda M: None,
                              notify=lambda code, args: None)
    else:
        widgets.mask_editor("g", np.ones((rows, cols), dtype=bool), *labels, commit=lambda M: None)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("kind, rows, cols", [("matrix", 4, 5), ("matrix", 1, 3), ("mask", 3, 2)])
def test_a_grid_says_what_a_paste_past_its_edge_does(kind, rows, cols, lang):
    at = AppTest.from_function(_script, args=(kind, rows, cols, lang), default_timeout=30).run()
    assert not at.exception, [e.value for e in at.exception]
    want = table(lang)["grid.paste_note"].format(shape=f"{rows}×{cols}")
    assert [c.value for c in at.caption] == [want]
