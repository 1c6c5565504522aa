"""A mask editor (tick boxes) with nothing ticked: every registered lesson whose link holds a mask.

A tick box holds only ticked or not, so the bad kinds of a mask are the masks themselves: a row with no box
ticked (that query may attend to nothing) and no box ticked at all. The page must say which rows have nothing to
attend to, give them zero weights and a zero output (never NaN, never 1/n each), and keep the other inputs. AppTest
does not apply data_editor edits, so the mask comes in the way the editor's state is shared: the lesson's link
(one row of the editor in the browser: tests/e2e/test_masks_browser.py::
test_masks_page_causal_switch_and_a_row_with_nothing_to_attend_to).
"""
from __future__ import annotations

import numpy as np
import pytest
from reliability_kit import APP, assert_clean, base_state
from streamlit.testing.v1 import AppTest

import lessons
from lessons import link
from ui.i18n import table

MASKED = [(lesson, m) for lesson in lessons.REGISTRY for m in lesson.link.matrices if isinstance(m, link.Mask)]


@pytest.mark.parametrize("lesson, field", MASKED, ids=lambda x: x.key)
@pytest.mark.parametrize("blocked", ["first_row", "every_row"])
def test_rows_with_nothing_ticked_are_named_and_give_zero_weights(lesson, field, blocked):
    state = base_state(lesson)
    params = lesson.encode(state)
    r, c = lesson.matrix_shape(state, field.key)
    mask = np.ones((r, c), dtype=bool)
    mask[: 1 if blocked == "first_row" else r] = False
    params[field.key] = field.format(mask)
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in params.items():
        at.query_params[k] = v
    at.switch_page(lesson.page)
    at.run()
    assert_clean(at, lesson)
    got = at.session_state[f"{lesson.key}:state"]
    assert lesson.encode(got) == params  # the rest of the link read as given
    arrays = lesson.arrays(got)
    empty = (1 if blocked == "first_row" else r)
    assert lesson.masked_rows_text, f"{lesson.key}: a Mask in its link, no masked_rows_text declared"
    said = table("ja")[lesson.masked_rows_text].split("{")[0]  # the words before the count
    assert any(str(w.value).startswith(said + str(empty)) for w in at.warning), [w.value for w in at.warning]
    weights = [a for name, a in arrays.items() if name.endswith("weights") and a.shape == (r, c)]
    outputs = [a for name, a in arrays.items() if name.endswith("output") and a.shape[0] == r]
    assert weights and outputs
    np.testing.assert_array_equal(weights[-1][:empty], 0.0)
    np.testing.assert_array_equal(outputs[-1][:empty], 0.0)
