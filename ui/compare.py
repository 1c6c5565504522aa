"""Compare two settings, A and B, written once for every lesson through the contract (its
``arrays``, ``array_labels`` and link codec).

A switch at the top of the lesson page ("Compare A/B"). "Pin as A" keeps the current setting as A; whatever the page
shows now is B. The panel draws one array (the lesson's predicted weights first: ``Lesson.predict``) of A and of B
side by side with their difference B − A (a diverging scale centred on 0) and names the largest change in words
("dog → walks: 0.41 → 0.63"). Arrays of different shapes (another sentence, another size) are said, not compared cell by
cell. Mode, A and the array live in the link (lessons/compare.py). Not drawn in presentation mode.
"""
from __future__ import annotations

import math
import re

import numpy as np
import streamlit as st

import lessons
from lessons import compare as C

from . import charts
from .escape import chart as fig_escape
from .escape import markdown as md
from .i18n import current_lang, label, t, table
from .numbers import num
from .widgets import sync

SWITCH, FIELD = "compare.on.{}", "compare.{}.{}"  # widget keys (never "<lesson>.…": not a lesson control)


def _get(page) -> dict:
    """This lesson's comparison: {on, a (A's state or None), arr (the array's name or None)}; on the lesson's first
    visit read from the link when the link is the lesson's (notices at the top of the page)."""
    key = f"_compare:{page.lesson.key}"
    if key not in st.session_state:
        rec = {"on": False, "a": None, "arr": None}
        params = {k: st.query_params.get_all(k) for k in st.query_params.keys()}
        others = any(x.key in params for x in lessons.REGISTRY if x.key != page.lesson.key)
        if not others:
            rec.update(_from_link(page, params))
        st.session_state[key] = rec
    return st.session_state[key]


def _from_link(page, params: dict) -> dict:
    def one(k):
        v = params.get(k)
        return v[-1] if v else None

    out = {}
    raw_on, raw_pin, raw_arr = one(C.ON), one(C.PIN), one(C.ARRAY)
    if raw_on not in (None, "0", "1"):
        page.notify("compare_bad", {"value": str(raw_on)[:20]})
    if raw_on != "1":
        if raw_pin is not None:
            page.notify("pin_ignored", {})
        return out
    out["on"] = True
    if raw_pin:
        a_params, notes = C.read_pin(raw_pin)
        if a_params is not None:
            a, notes = page.lesson.decode(a_params)
            out["a"] = a
            if notes:
                notes = [("pin_partial", {})] + list(notes)
        page.notify_all(notes)
    if raw_arr is not None:
        out["arr"] = str(raw_arr)[:40]
    return out


def on(page) -> bool:
    return _get(page)["on"]


def link_params(page) -> dict[str, str]:
    """The link's comparison keys ({} when the switch is off)."""
    rec = _get(page)
    if not rec["on"]:
        return {}
    out = {C.ON: "1"}
    if rec["a"] is not None:
        out[C.PIN] = C.pin_text(page.lesson.encode(rec["a"]))
    if rec["arr"] is not None:
        out[C.ARRAY] = rec["arr"]
    return out


# ---- the switch and the panel ---------------------------------------------------------------------------------
def _set_on(page) -> None:
    _get(page)["on"] = bool(st.session_state.get(SWITCH.format(page.lesson.key)))


def _pin(page) -> None:
    _get(page)["a"] = page.state


def _unpin(page) -> None:
    _get(page)["a"] = None


def _swap(page) -> None:
    rec = _get(page)
    rec["a"], page.state = page.state, rec["a"]


def _choose(page) -> None:
    rec = _get(page)
    rec["arr"] = st.session_state.get(FIELD.format(page.lesson.key, "arr"))


def _first_array(page, names: list[str]) -> str:
    p = page.lesson.predict
    return p.weights if p is not None and p.weights in names else names[0]


def panel(page) -> None:
    """The switch, and with it on: pin A, then A and B compared."""
    lesson = page.lesson
    rec = _get(page)
    switch = SWITCH.format(lesson.key)
    sync(switch, rec["on"], False)
    st.toggle(t("compare.switch"), key=switch, help=t("compare.switch_help"), on_change=_set_on, args=(page,))
    if not rec["on"]:
        return
    with st.container(border=True, key=f"compare-panel-{lesson.key}"):
        if rec["a"] is None:
            st.markdown(t("compare.start"))
            st.button(t("compare.pin"), key=FIELD.format(lesson.key, "pin"), icon=":material/push_pin:",
                      type="primary", on_click=_pin, args=(page,))
            return
        _buttons(page)
        b_arrays = lesson.arrays(page.state)
        names = list(b_arrays)
        if not names:
            st.info(t("compare.no_arrays"))
            return
        arr = rec["arr"] if rec["arr"] in names else _first_array(page, names)
        key = FIELD.format(lesson.key, "arr")
        sync(key, arr, names[0], shown=names)
        st.selectbox(t("compare.array"), names, key=key, on_change=_choose, args=(page,),
                     format_func=lambda n: _title(lesson.key, n))
        _compare(page, rec["a"], arr, b_arrays)


def _buttons(page) -> None:
    key = page.lesson.key
    with st.container(horizontal=True):
        st.button(t("compare.repin"), key=FIELD.format(key, "repin"), icon=":material/push_pin:", on_click=_pin,
                  args=(page,), help=t("compare.repin_help"))
        st.button(t("compare.swap"), key=FIELD.format(key, "swap"), icon=":material/swap_horiz:", on_click=_swap,
                  args=(page,), help=t("compare.swap_help"))
        st.button(t("compare.unpin"), key=FIELD.format(key, "unpin"), icon=":material/close:", on_click=_unpin,
                  args=(page,))


def array_title(lesson_key: str, name: str, lang: str | None = None) -> str | None:
    """An array's name in words, as the lists and sentences of this panel say it: the lesson's own
    ``<lesson>.array.<name>``, else its ``<lesson>.array.<base>_i`` for a numbered ``<base>_<i>`` (a head's,
    "Head 2: attention weights"), else the shared ``array.<name>`` (assets/i18n/*.arrays.toml); None when none
    has words (tests/contract/test_compare.py requires words for every array of every lesson)."""
    tab = table(lang or current_lang())
    numbered = re.fullmatch(r"(.+)_(\d+)", name)
    if f"{lesson_key}.array.{name}" in tab:
        return tab[f"{lesson_key}.array.{name}"]
    if numbered and f"{lesson_key}.array.{numbered[1]}_i" in tab:
        return tab[f"{lesson_key}.array.{numbered[1]}_i"].format(i=int(numbered[2]))
    return tab.get(f"array.{name}")


def _title(lesson_key: str, name: str) -> str:
    return array_title(lesson_key, name) or name


def _labels(lesson, state, name: str, shape: tuple) -> tuple[list[str], list[str]]:
    declared = lesson.array_labels(state).get(name) if lesson.array_labels else None
    rows, cols = declared if declared is not None else ((), ())
    rows, cols = [label(x) for x in rows], [label(x) for x in cols]
    if len(shape) == 1:
        return [_title(lesson.key, name)], rows if len(rows) == shape[0] else [str(j + 1) for j in range(shape[0])]
    rows = rows if len(rows) == shape[0] else [str(i + 1) for i in range(shape[0])]
    cols = cols if len(cols) == shape[1] else [str(j + 1) for j in range(shape[1])]
    return rows, cols


def nice_ceiling(x: float) -> float:
    """``x`` > 0 rounded up to two significant digits (0.4077 → 0.41, 13.2 → 14): a colour bar's end that reads
    at a glance, never below the largest value it colours."""
    e = math.floor(math.log10(x)) - 1
    m = math.ceil(round(x / 10 ** e, 9))  # (41.000000001 from float noise is 41)
    end = round(m * 10 ** e, max(-e, 0))
    return end if end >= x else round((m + 1) * 10 ** e, max(-e, 0))


def _shape_text(x: np.ndarray) -> str:
    return "×".join(str(n) for n in x.shape) if x.ndim else "1"


def largest_text(name: str, d: C.Difference, rows: list[str], cols: list[str], vector: bool) -> str:
    """The largest change in words (Markdown; ``name``, the array's words, and the labels escaped):
    "dog → walks: 0.41 → 0.63"."""
    name = md(name)
    if d.largest is None:
        return t("compare.same", name=name)
    i, j = d.largest
    where = md(cols[j]) if vector else f"{md(rows[i])} → {md(cols[j])}"
    return t("compare.largest", name=name, where=where, a=num(d.a), b=num(d.b), change=_signed(d.b - d.a))


def _signed(x: float) -> str:
    return ("+" if x > 0 else "") + num(x)


def _compare(page, a_state, name: str, b_arrays: dict) -> None:
    lesson = page.lesson
    b = b_arrays[name]
    a = lesson.arrays(a_state).get(name)
    if a is None:
        st.info(t("compare.missing", name=md(_title(lesson.key, name))), icon=":material/info:")
        return
    rows_a, cols_a = _labels(lesson, a_state, name, a.shape)
    rows_b, cols_b = _labels(lesson, page.state, name, b.shape)
    d = C.difference(a, b)
    weights = "weights" in name and all(np.all((x >= 0) & (x <= 1)) for x in (a, b))
    A, B = C.as_rows(a), C.as_rows(b)
    finite = [np.abs(x[np.isfinite(x)]).max() for x in (A, B) if np.isfinite(x).any()]
    zmax = None if weights else (nice_ceiling(max(finite)) if finite and max(finite) > 0 else 1.0)
    title = {"name": fig_escape(_title(lesson.key, name))}
    if d is None:
        st.info(t("compare.shapes", name=md(_title(lesson.key, name)), a=_shape_text(a), b=_shape_text(b)),
                icon=":material/info:")
        needs = [charts.heatmap_need(A, rows_a, cols_a, weights=weights, zmax=zmax),
                 charts.heatmap_need(B, rows_b, cols_b, weights=weights, zmax=zmax)]
        slots = charts.chart_columns(*needs, max_cols=2)
        with slots[0]:
            charts.show_heatmap("cmp_a", A, rows_a, cols_a, weights=weights, zmax=zmax, title_args=title,
                                key=f"compare.{lesson.key}.fig.a")
        with slots[1]:
            charts.show_heatmap("cmp_b", B, rows_b, cols_b, weights=weights, zmax=zmax, title_args=title,
                                key=f"compare.{lesson.key}.fig.b")
        return
    st.markdown(largest_text(_title(lesson.key, name), d, rows_b, cols_b, np.ndim(b) == 1))
    spread = np.abs(d.delta[np.isfinite(d.delta)])
    dmax = nice_ceiling(float(spread.max())) if spread.size and spread.max() > 0 else 1.0
    needs = [charts.heatmap_need(A, rows_b, cols_b, weights=weights, zmax=zmax),
             charts.heatmap_need(B, rows_b, cols_b, weights=weights, zmax=zmax),
             charts.heatmap_need(d.delta, rows_b, cols_b, zmax=dmax)]
    slots = charts.chart_columns(*needs, max_cols=3)
    diff_caption = t("compare.diff_caption", **charts.sign_colours())
    for slot, (fig, M, z, w) in zip(slots, (("a", A, zmax, weights), ("b", B, zmax, weights),
                                            ("diff", d.delta, dmax, False))):
        with slot:
            charts.show_heatmap(f"cmp_{fig}", M, rows_b, cols_b, weights=w, zmax=z, title_args=title,
                                key=f"compare.{lesson.key}.fig.{fig}",
                                caption=diff_caption if fig == "diff" else None)
