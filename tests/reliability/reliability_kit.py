"""What every bad-input test of tests/reliability checks, written once (docs/reliability.md lists the cells).

A page opened in AppTest (inside the app.py frame) must, whatever came in: raise nothing and show no error box, show
no "nan"/"inf" word (in its text or in the texts its charts draw), keep its lesson's arrays free of NaN and +∞, and
keep the inputs that were not touched. "Kept" allows only what the page itself says it changed: a widget whose
options or range changed (a selectbox of tokens after the sentence changed) may change with them.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import lessons
from lessons import link

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "contract"))  # lesson_strategies: links and values from a lesson's schema
APP = str(ROOT / "app.py")
LESSONS = pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
NAN_WORD = re.compile(r"(?<![A-Za-z])((?i:nan|inf|undefined)|Infinity)(?![A-Za-z])")
"""A number that is not one, as Python, NumPy or JavaScript would print it (JavaScript's "Infinity" with its capital:
the English word in a sentence, "−∞ (minus infinity)" in the glossary, is not a number)."""
WIDGETS = ("text_input", "number_input", "slider", "select_slider", "selectbox", "radio", "toggle", "checkbox",
           "button_group", "multiselect")


def open_page(lesson, params: dict | None = None, *, lang: str | None = None) -> AppTest:
    """A fresh session opened on ``lesson``'s page with ``params`` as its query (``lang`` added when given)."""
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in {**({"lang": lang} if lang else {}), **(params or {})}.items():
        at.query_params[k] = v
    at.switch_page(lesson.page)
    return at.run()


def shown_text(at: AppTest, *, alerts: bool = True) -> str:
    """Every text the page shows, one element per line (titles, Markdown, captions, formulas and, unless
    ``alerts=False``, the warnings, which quote what was refused: "nan" there is what the person typed)."""
    kinds = ("title", "header", "subheader", "markdown", "caption", "info", "success", "error", "latex", "code")
    kinds += ("warning", "toast") if alerts else ()
    out = []
    for kind in kinds:
        try:
            out += [str(x.value) for x in getattr(at, kind)]
        except Exception:  # an element kind this Streamlit's AppTest does not offer
            continue
    return "\n".join(out)


def alerts(at: AppTest) -> list[str]:
    """The warnings and infos on the page (what tells a person that something was refused or changed)."""
    return [str(x.value) for x in at.warning] + [str(x.value) for x in at.info]


def chart_texts(at: AppTest) -> list[str]:
    """The texts the page's in-place charts draw (cell numbers, tick labels, titles), as far as AppTest sees them."""
    try:
        from ui import plot_component

        charts = plot_component.charts(at)
    except Exception:  # the chart component's AppTest accessor is not there: nothing to read
        return []
    out: list[str] = []

    def walk(x, key=""):
        if isinstance(x, dict):
            if "bdata" in x:  # a typed array of numbers: not text
                return
            for k, v in x.items():
                if k not in ("hovertemplate", "customdata", "colorscale", "template"):
                    walk(v, k)
        elif isinstance(x, list):
            for v in x:
                walk(v, key)
        elif isinstance(x, str) and key in ("text", "ticktext", "title", "name"):
            out.append(x)
        elif isinstance(x, float) and key in ("text",) and not np.isfinite(x):
            out.append(repr(x))

    for c in charts.values():
        walk(c.get("figure", c))
    return out


def assert_clean(at: AppTest, lesson=None) -> None:
    """No exception or error box, no traceback, no NaN/inf word on screen or in a chart, finite lesson arrays."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert "Traceback" not in shown_text(at)
    text = shown_text(at, alerts=False)
    bad = NAN_WORD.findall(re.sub(r"\\[A-Za-z]+", " ", text))  # LaTeX commands (\infty) are not words on screen
    assert not bad, (bad, text[:2000])
    bad = [x for x in chart_texts(at) if NAN_WORD.search(x)]
    assert not bad, bad[:10]
    if lesson is not None:
        state = at.session_state[f"{lesson.key}:state"]
        for name, a in lesson.arrays(state).items():
            assert not np.isnan(a).any() and not np.isposinf(a).any(), name  # −∞ only for masked scores


def widgets(at: AppTest, prefix: str) -> dict[str, tuple[object, str]]:
    """{key: (value, range)} of the page's keyed widgets whose key starts with ``prefix``; ``range`` describes what
    the widget offers (options, min/max), so that a widget whose range changed may change its value."""
    out = {}
    for kind in WIDGETS:
        try:
            elements = list(getattr(at, kind))
        except Exception:
            continue
        for w in elements:
            key = getattr(w, "key", None)
            if not key or not str(key).startswith(prefix):
                continue
            offered = [getattr(w, a, None) for a in ("options", "min", "max")]
            out[str(key)] = (_value(w), json.dumps(offered, default=str, ensure_ascii=False))
    return out


def _value(w):
    """A widget's value; for a selectbox whose labels changed language AppTest cannot map its value back to an
    option (it raises), so its index in the proto is the value compared."""
    try:
        return w.value
    except ValueError:
        return ("index", getattr(w.proto, "default", None), getattr(getattr(w, "_value", None), "value", None))


def assert_others_kept(before: dict, after: dict, touched: set[str]) -> None:
    """Every widget of ``before`` but ``touched`` still shows its value, unless what it offers changed, or what a
    widget of its family offers (keys "<name>:<part>": the one-cell slider shows the cell the picker's token rows
    point at)."""
    moved = {k.split(":")[0] for k, (_, offered) in before.items() if k in after and after[k][1] != offered}
    for key, (value, _) in before.items():
        if key in touched or key not in after or key.split(":")[0] in moved:
            continue
        now, _ = after[key]
        assert now == value, f"{key}: {value!r} became {now!r}, and nothing it or its family offers changed"


def base_state(lesson):
    """A far-from-default valid state of ``lesson`` whose link holds every parameter of its schema: the corner
    value of each field (tests/contract/lesson_strategies.py), a switch at its non-default position, and a matrix of
    the right shape for each matrix field, and the cell picker's last cell where the lesson has one."""
    from lesson_strategies import corner_values

    values = corner_values(lesson.link)
    state, _ = lesson.from_link(values)
    for f in lesson.link.fields:  # a switch left at its default is not in the link: the other position is
        if isinstance(f, link.Flag) and f.key not in lesson.encode(state):
            values[f.key] = not values[f.key]
    state, _ = lesson.from_link(values)
    mats = {}
    for m in lesson.link.matrices:
        r, c = lesson.matrix_shape(state, m.key)
        if isinstance(m, link.Mask):
            mats[m.key] = np.indices((r, c)).sum(0) % 2 == 0
        else:
            mats[m.key] = np.arange(r * c, dtype=float).reshape(r, c) * 0.25 - 1
    state = lesson.with_matrices(state, mats)
    if lesson.cell_matrices is not None:  # the cell picker's choice (lessons/base.py): its last cell, in the link
        name = lesson.cell_matrices(state)[-1]
        r, c = lesson.matrix_shape(state, name)
        state = lesson.with_picked_cell(state, name, r - 1, c - 1)
    return state
