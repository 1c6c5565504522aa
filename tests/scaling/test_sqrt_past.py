"""The temperature chart ends at T = 20: for d_k > 400 the √d_k line cannot be drawn, and the page says so
(it left the chart without a word before)."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from lessons import scaling as S
from ui import plot_component
from ui.i18n import table

APP = str(Path(__file__).resolve().parents[2] / "app.py")
JA = table("ja")


def _run(d_k: int):
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("lesson_pages/scaling.py")
    at.query_params["dk"] = str(d_k)
    at.query_params["v"] = "1"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_past_the_chart_the_missing_line_is_said():
    big = max(S.DK_STEPS)
    if big ** 0.5 <= 20:
        pytest.skip("no d_k step puts √d_k past T = 20")
    at = _run(big)
    cap = plot_component.charts(at)["scaling.fig.tcurve"]["caption"]
    root = f"{round(big ** 0.5, 3):g}"  # 3 decimals: the pages' number rule
    assert cap == JA["fig.scaling_temp.sqrt_past"].format(root=root, t_max="20")


def test_inside_the_chart_there_is_no_such_note():
    small = min(S.DK_STEPS)
    assert plot_component.charts(_run(small))["scaling.fig.tcurve"]["caption"] is None
