"""The colour scheme (ui/scheme.py, issue 24 part 3) on every registered lesson: chosen in the sidebar or by the link
(``colors=``), kept in the page's link, the default left out, a name that is no scheme said in words; and the
heatmaps drawn with the scheme's scales (ui.figures.SCHEMES: their stops as plotly resolves the named scale)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

import lessons
from ui import figures as F
from ui.i18n import LANGS, table

ROOT = Path(__file__).resolve().parents[2]
LESSONS = pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
TOY = lessons.by_key("toy")  # the tests' own lesson (tests/throwaway): for what the frame does alike on every page


def open_page(lesson, params: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for k, v in (params or {}).items():
        at.query_params[k] = v
    at.switch_page(lesson.page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def published(at: AppTest) -> dict[str, str]:
    return {k: at.query_params[k] for k in at.query_params}


@LESSONS
def test_the_scheme_lives_in_the_link(lesson):
    at = open_page(lesson, {"colors": "cividis"})
    assert not at.warning, [w.value for w in at.warning]
    assert at.session_state["frame.colors"] == "cividis"
    link = published(at)
    assert link["colors"] == "cividis" and link[lesson.key] == str(lesson.link.version)
    again = open_page(lesson, link)  # the page's own link reopens the same scheme and state
    assert again.session_state["frame.colors"] == "cividis"
    assert lesson.encode(again.session_state[f"{lesson.key}:state"]) == lesson.encode(
        at.session_state[f"{lesson.key}:state"])
    at.selectbox(key="frame.colors.choice").set_value("default").run()
    assert "colors" not in published(at)  # the default is left out
    at.selectbox(key="frame.colors.choice").set_value("plasma").run()
    assert published(at)["colors"] == "plasma"


@pytest.mark.parametrize("lang", LANGS)
def test_a_scheme_that_does_not_exist_is_said(lang):
    at = open_page(TOY, {"lang": lang, "colors": "<b>rainbow</b>"})
    lead = table(lang)["notice.colors_bad"].split("{")[0]
    assert any(lead in w.value for w in at.warning), [w.value for w in at.warning]
    assert at.session_state["frame.colors"] == "default" and "colors" not in published(at)


@pytest.mark.parametrize("scheme", list(F.SCHEMES))
@pytest.mark.parametrize("weights", [True, False])
def test_a_heatmap_takes_its_schemes_scale(scheme, weights):
    M = np.array([[0.1, 0.9], [0.5, 0.5]]) if weights else np.array([[-1.0, 2.0], [0.0, 0.5]])
    spec = F.heatmap_spec(M, ["a", "b"], ["c", "d"], weights=weights, scheme=scheme)
    name = F.SCHEMES[scheme][0 if weights else 1]
    want = go.Heatmap(colorscale=name).to_plotly_json()["colorscale"]  # plotly's own resolution of the name
    assert [list(s) for s in spec["data"][0]["colorscale"]] == [list(s) for s in want]


def test_the_schemes_differ():
    weights = {F.SCHEMES[s][0] for s in F.SCHEMES}
    scores = {F.SCHEMES[s][1] for s in F.SCHEMES}
    assert len(weights) == len(scores) == len(F.SCHEMES) >= 3
