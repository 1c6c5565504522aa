"""Under every lesson page: save the page's whole state as a file and load it back, written once for
every lesson through the contract (the lesson's link codec: lessons/state_file.py).

Saving: a download button whose file is made when it is clicked (Streamlit's deferred ``data``: no bytes are kept
per rerun), from the state the page last published (:func:`remember`, called by ``Page.publish`` in full and
fragment runs alike, so a change made inside a live fragment is saved too). Loading: a file uploader; a file is
taken whole or not at all, and what became of it is said under the uploader while that file stays chosen.
Not drawn in presentation mode.
"""
from __future__ import annotations

import io
import math
import zipfile
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

import lessons
from lessons import code as lesson_code
from lessons import state_file

from .escape import markdown as md_escape
from .i18n import label, t
from .widgets import notice_text

LATEST = "_file.latest"  # session_state: {lesson key: its state as last published}
RESULT = ":file.result"  # page key suffix: (file id, file name, None | Unusable) of the last file read


def remember(lesson_key: str, state) -> None:
    """The page's current state, for the save button's file (made later, when clicked, outside the script run)."""
    st.session_state.setdefault(LATEST, {})[lesson_key] = state


def _file_bytes(lesson, latest: dict, fallback) -> bytes:
    """The file of the state last published (``latest`` is the session's dict, read when the button is clicked)."""
    return state_file.dump(lesson, latest.get(lesson.key, fallback))


# ---- the arrays as CSV ------------------------------------------------------------------------------------------
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""A cell a spreadsheet program would run as a formula when it starts so (OWASP, "CSV injection")."""


def as_text(label: str) -> str:
    """A row or column label as a spreadsheet shows it as text: a label that starts like a formula gets a ' in front
    (a typed token "=1+1" stays the text =1+1 in Excel or LibreOffice, never a formula); others are unchanged."""
    return "'" + label if label.startswith(FORMULA_START) else label


def labels_of(lesson, state, name: str, shape: tuple) -> tuple[list[str], list[str]]:
    """The row and column labels of array ``name`` (``Lesson.array_labels``; 1-based indices where none)."""
    declared = lesson.array_labels(state).get(name) if lesson.array_labels else None
    rows, cols = declared if declared is not None else ([], [])
    rows = list(rows) if len(rows) == shape[0] else [str(i + 1) for i in range(shape[0])]
    if len(shape) == 1:
        return [as_text(label(x)) for x in rows], [name]
    cols = list(cols) if len(cols) == shape[1] else [str(j + 1) for j in range(shape[1])]
    return [as_text(label(x)) for x in rows], [as_text(label(x)) for x in cols]


def csv_bytes(lesson, state, name: str) -> bytes:
    """Array ``name`` of the state as CSV (UTF-8 with a byte-order mark, so Excel reads the Japanese labels): the
    labels as its first row and column, every number as stored (float64, shortest round-trip text; masked scores
    as -inf)."""
    A = np.asarray(lesson.arrays(state)[name], dtype=np.float64)
    rows, cols = labels_of(lesson, state, name, A.shape)
    frame = pd.DataFrame(A.reshape(A.shape[0], -1), index=rows, columns=cols)
    return frame.to_csv(lineterminator="\n").encode("utf-8-sig")


def csv_name(lesson_key: str, name: str) -> str:
    """"attention-lab_qkv_weights.csv": the app, the lesson, the array."""
    return f"attention-lab_{lesson_key}_{name}.csv"


def zip_bytes(lesson, state) -> bytes:
    """Every array of the state as CSV (:func:`csv_bytes`), one zip file."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name in lesson.arrays(state):
            z.writestr(csv_name(lesson.key, name), csv_bytes(lesson, state, name))
    return out.getvalue()


def _latest_csv(lesson, latest: dict, fallback, name: str) -> bytes:
    state = latest.get(lesson.key, fallback)
    return csv_bytes(lesson, state if name in lesson.arrays(state) else fallback, name)


def _latest_zip(lesson, latest: dict, fallback) -> bytes:
    return zip_bytes(lesson, latest.get(lesson.key, fallback))


def _arrays_buttons(page, latest: dict) -> None:
    """The zip of every array, and each array on its own (in a pop-over: a lesson shows up to ~20)."""
    lesson, state = page.lesson, page.state
    names = list(lesson.arrays(state))
    if not names:
        return
    st.caption(t("file.arrays_help"))
    left, right = st.columns(2)
    with left:
        st.download_button(t("file.zip"), data=partial(_latest_zip, lesson, latest, state),
                           file_name=f"attention-lab_{lesson.key}_arrays.zip", mime="application/zip",
                           on_click="ignore", icon=":material/folder_zip:", key=page.key("file.zip"))
    with right, st.popover(t("file.csv_one"), icon=":material/table:"):
        for name in names:
            st.download_button(f"{name}.csv", data=partial(_latest_csv, lesson, latest, state, name),
                               file_name=csv_name(lesson.key, name), mime="text/csv", on_click="ignore",
                               key=page.key(f"file.csv.{name}"), width="stretch")


# ---- the NumPy script -------------------------------------------------------------------------------------------
def _latest_code(lesson, latest: dict, fallback) -> bytes:
    return lesson.code(latest.get(lesson.key, fallback)).encode("utf-8")


def _code_button(page, latest: dict) -> None:
    """The lesson's numbers as a standalone NumPy script (``Lesson.code``, lessons/code.py), made when clicked."""
    lesson = page.lesson
    if lesson.code is None:
        return
    st.caption(t("file.code_help"))
    st.download_button(t("file.code"), data=partial(_latest_code, lesson, latest, page.state),
                       file_name=lesson_code.file_name(lesson.key), mime="text/x-python", on_click="ignore",
                       icon=":material/code:", key=page.key("file.code"))


def _kb(n: int) -> str:
    return str(max(1, math.ceil(n / 1024)))


def panel(page) -> None:
    """The save / load fold at the bottom of a lesson page."""
    lesson = page.lesson
    name = state_file.file_name(lesson.key)
    latest = st.session_state.setdefault(LATEST, {})
    with st.expander(t("file.title"), icon=":material/save:"):
        st.caption(t("file.help"))
        st.download_button(t("file.save"), data=partial(_file_bytes, lesson, latest, page.state), file_name=name,
                           mime="application/json", on_click="ignore", icon=":material/download:",
                           key=page.key("file.save"), help=t("file.save_help", name=name))
        chosen = st.file_uploader(t("file.load"), type=["json"], key=page.key("file.load"),
                                  on_change=_on_load, args=(page,),
                                  help=t("file.load_help", max_kb=_kb(state_file.MAX_BYTES)))
        _say_result(page, chosen)
        _arrays_buttons(page, latest)
        _code_button(page, latest)


def _on_load(page) -> None:
    """A file chosen: read it whole, or refuse it whole (the state unchanged); the outcome kept for the panel."""
    upload = st.session_state.get(page.key("file.load"))
    if upload is None:  # the file taken away: nothing to do
        st.session_state.pop(page.key(RESULT), None)
        return
    try:
        if upload.size > state_file.MAX_BYTES:  # not read at all
            raise state_file.Unusable("too_large", {"size": upload.size, "max": state_file.MAX_BYTES})
        state = state_file.load(page.lesson, upload.getvalue())
    except state_file.Unusable as why:
        st.session_state[page.key(RESULT)] = (upload.file_id, upload.name, why)
        return
    page.state = state
    st.session_state[page.key(RESULT)] = (upload.file_id, upload.name, None)


def _reason(why: state_file.Unusable, lesson: str | None = None) -> str:
    args = dict(why.info)
    if why.code == "too_large":
        return t("file.too_large", size_kb=_kb(args["size"]), max_kb=_kb(args["max"]))
    if why.code == "not_json" and args.get("line"):
        return t("file.not_json_line", line=args["line"])
    if why.code == "other_lesson":
        known = {x.key for x in lessons.REGISTRY}
        if args.get("lesson") not in known:
            return t("file.other_app")
        return t("file.other_lesson", lesson=t(f"lesson.{args['lesson']}.title"))
    if why.code == "newer":
        return t("file.newer", format=md_escape(args.get("format", "?")))
    if why.code == "link":
        items = "\n".join(f"- {notice_text(n.code, n.args, lesson)}" for n in why.notices)
        return t("file.link") + "\n\n" + items
    return t(f"file.{why.code}")


def _say_result(page, chosen) -> None:
    """What became of the chosen file, while it stays chosen."""
    result = st.session_state.get(page.key(RESULT))
    if result is None or chosen is None or result[0] != chosen.file_id:
        return
    _, name, why = result
    if why is None:
        st.success(t("file.loaded", name=md_escape(name)), icon=":material/check_circle:")
    else:
        st.error(t("file.refused", name=md_escape(name)) + "\n\n" + _reason(why, page.lesson.key),
                 icon=":material/block:")
