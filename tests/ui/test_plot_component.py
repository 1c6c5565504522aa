"""The chart component's plotly.js and loader: the vendored cartesian bundle draws every trace type the lessons
send, is the plotly.js version the installed plotly package was built for, and the inline loader stays inline."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.components.v2.component_path_utils import ComponentPathUtils
from streamlit.testing.v1 import AppTest

import lessons
from ui import plot_component

ROOT = Path(__file__).resolve().parents[2]
VERSION = re.compile(rb"plotly\.js(?: \([a-z -]+\))? v(\d+\.\d+\.\d+)")
TRACE_MODULE = re.compile(rb'moduleType:"trace",name:"([a-z0-9]+)"')


def _version(path: Path) -> str:
    m = VERSION.search(path.read_bytes()[:300])
    assert m, f"no plotly.js version in the header of {path}"
    return m.group(1).decode()


def test_vendored_bundle_is_the_installed_plotly_version():
    full = plot_component.PLOTLY_JS_DIR / "plotly.min.js"
    assert _version(plot_component.VENDOR_PLOTLY_JS) == _version(full), (
        "the plotly package was upgraded: run `make vendor-plotly` (ui/plot_component/assets/vendor/README.md)")


def test_vendored_bundle_is_the_smaller_one():
    full = plot_component.PLOTLY_JS_DIR / "plotly.min.js"
    assert plot_component.VENDOR_PLOTLY_JS.stat().st_size < full.stat().st_size / 2


def _trace_types_in_bundle() -> set[str]:
    return {m.decode() for m in TRACE_MODULE.findall(plot_component.VENDOR_PLOTLY_JS.read_bytes())}


def test_bundle_registers_the_2d_trace_types():
    # independent of our figures: what the package's README lists for the cartesian bundle
    assert {"bar", "heatmap", "scatter", "histogram"} <= _trace_types_in_bundle()


@pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
def test_every_trace_a_lesson_draws_is_in_the_bundle(lesson):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page(lesson.page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    charts = plot_component.charts(at)
    assert charts, f"{lesson.key}: no chart drawn"
    used = {trace.get("type", "scatter") for c in charts.values() for trace in c["figure"]["data"]}
    assert used <= _trace_types_in_bundle(), f"{lesson.key} draws {used - _trace_types_in_bundle()}"


def test_loader_is_inline_javascript_that_imports_plot_js(monkeypatch):
    from streamlit import config

    js = plot_component._loader_js()
    # Streamlit takes a path-looking string for a file in the asset folder: the loader must read as inline content
    assert ComponentPathUtils.looks_like_inline_content(js)
    assert "/_stcore/bidi-components/attention_lab.plot/plot.js" in js
    assert len(js) < 300, "sent with every chart element: keep it short"
    monkeypatch.setattr(config, "get_option", lambda name: "/school/lab/" if name == "server.baseUrlPath" else None)
    assert '"/school/lab/_stcore/bidi-components/attention_lab.plot/plot.js"' in plot_component._loader_js()


def test_a_changed_first_chart_is_handed_over_once_per_change(monkeypatch):
    import streamlit as st

    monkeypatch.setattr(st, "session_state", {})
    assert plot_component._changed_for_session("w", b'{"z":[1]}')  # nothing sent yet
    assert not plot_component._changed_for_session("w", b'{"z":[1]}')  # the same bytes again: no pause
    assert plot_component._changed_for_session("w", b'{"z":[2]}')
    assert plot_component._changed_for_session("other", b'{"z":[2]}')  # per chart key
    assert not plot_component._changed_for_session("w", b'{"z":[2]}')


def test_hand_over_pauses_for_its_stated_time():
    slept = []
    plot_component.hand_over(sleep=slept.append)
    assert slept == [plot_component.HAND_OVER_S] and 0 < plot_component.HAND_OVER_S <= 0.05


def test_apptest_runs_do_not_pause(monkeypatch):
    # AppTest's runtime is a stand-in: its reruns never sleep (the pause is for a browser)
    calls = []
    monkeypatch.setattr(plot_component, "hand_over", lambda *a: calls.append(a))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page("lesson_pages/qkv.py")
    at.run()
    assert not at.exception and plot_component.charts(at)
    assert calls == []


# ---- a heatmap's labels sent once (compact_trace) -----------------------------------------------------------------
def _ready(M, **kw):
    import numpy as np

    from ui import charts
    from ui import figures as F

    toks = ["犬", "が", "歩く", "犬"][: np.shape(M)[0]]
    return charts._ready(F.heatmap_spec(np.asarray(M, dtype=float), toks, [str(j + 1) for j in range(np.shape(M)[1])],
                                      title="T", rounded_note="r", **kw))


@pytest.mark.parametrize("case", ["plain", "masked", "shortened"])
def test_compact_labels_decode_to_the_figure_plotly_would_get(case):
    import numpy as np

    M = np.array([[1.0, -2.5, 0.0], [0.25, 3.0, -1.0], [2.0, 0.5, 1.5], [0.0, 1.0, 2.0]])
    if case == "masked":
        M = np.where(np.tril(np.ones((4, 3))) > 0, M, -np.inf)
    ready = _ready(M * (1234.5 if case == "shortened" else 1.0), width_px=140 if case == "shortened" else 500)
    cd = ready["data"][-1]["customdata"]
    assert cd[1][2][:2] == ["2: が", "3"]  # as built: [row label (numbered: 犬 twice), column label, number]
    sent = plot_component.payload(ready, {})
    got = plot_component.decode(sent)["figure"]["data"]
    assert [t.get("customdata") for t in got] == [t.get("customdata") for t in ready["data"]]
    assert b'"alGrid"' in sent and '"1: 犬","2: が","3: 歩く","4: 犬"'.encode() in sent  # the labels once each
    if case == "masked":  # a masked cell's text is empty, its hover number "−∞": the numbers go as a grid of their own
        assert ready["data"][-1]["text"][0][2] == "" and cd[0][2][2] == "−∞"


def test_compact_labels_make_a_16_token_heatmap_much_smaller(monkeypatch):
    import numpy as np

    from ui import charts
    from ui import figures as F

    toks = [f"t{k}" for k in range(16)]
    ready = charts._ready(F.heatmap_spec(np.random.default_rng(0).normal(size=(16, 16)), toks, toks, width_px=700))
    sent = len(plot_component.payload(ready, {}))
    monkeypatch.setattr(plot_component, "compact_trace", lambda trace: trace)
    whole = len(plot_component.payload(ready, {}))
    assert sent < 0.8 * whole, (sent, whole)  # 9.2 vs 12.3 kB: each cell sent its two labels again


def test_other_customdata_is_sent_as_it_is():
    trace = {"type": "bar", "customdata": ["a", "b"], "y": [1, 2]}
    assert plot_component.compact_trace(trace) is trace
    odd = {"type": "heatmap", "customdata": [[["a", "1"], ["b", "2"]]], "z": [[1, 2]]}  # row labels differ in a row
    assert plot_component.compact_trace(odd) is odd
