"""Widgets shared by the lesson pages: matrix grid editor, one-cell slider, share panel, notices."""
from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlencode

import numpy as np
import pandas as pd
import streamlit as st

from attention_core.tokens import MAX_TOKENS, tokenize
from lessons import predict
from lessons.cells import Refusal, parse_cell_text

from . import drag, echo, slots, viewport
from .escape import markdown as md_escape
from .i18n import current_lang, t, table
from .numbers import editable
from .share import class_url, qr_png, shorter_params


def chosen_option(value, options, format_func: Callable = str):
    """What a choice widget's session value means among ``options``: the option itself, or the option whose text
    (``format_func(option)``) it is; ``None`` when it is neither.

    Streamlit 1.67's selectbox keeps its choice in the browser as the option's text. When the options change under it
    (d_k shrinks W_Q to fewer columns, a shorter sentence has fewer query tokens), the browser sends that text back
    with the next rerun, and the session value is the text of an option that is no longer there ("4: 4" instead of
    an index), found by a new-user trial."""
    if any(value == o and type(value) is type(o) for o in options):
        return value
    if isinstance(value, str):
        for o in options:
            if str(format_func(o)) == value:
                return o
    return None


def _numbered(k: int, label: str) -> str:
    """How the cell picker shows row or column ``k`` (from 0): "3: label", numbered from 1; :func:`_index` reads
    it back."""
    return f"{k + 1}: {label}"


def _index(value) -> int:
    """A row or column picker's session value as an index: an int, or the :func:`_numbered` text Streamlit's
    selectbox sends back when its options shrank under it (see :func:`chosen_option`); anything else is 0."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    m = re.match(r"\s*(\d+):", value) if isinstance(value, str) else None
    return int(m.group(1)) - 1 if m else 0


def columns_or_rows(n: int, least_px: float) -> list:
    """``n`` st.columns side by side when the page's main column gives each at least ``least_px`` (ui.viewport: the
    width the browser said), else ``n`` containers one under another. For groups of controls that cannot shrink:
    /scaling's three book cards, each with three number fields, left the fields too narrow to show their number at
    1024×768 (a new-user trial). (Streamlit puts columns one under another itself only below 640 px of window.)"""
    room = (viewport.width() - 16 * (n - 1)) / max(n, 1)
    return list(st.columns(n)) if room >= least_px else [st.container() for _ in range(n)]


SHOWN = "_sync_shown"  # session_state: {widget key: the option texts it was last drawn with}


def sync(key: str, value, default=echo.NO_DEFAULT, *, shown=None) -> None:
    """Set a widget's session value from the lesson state before the widget is drawn (no value= too, except for a
    slider: see below), only when it differs.

    Only when it differs: a value written through session state is pushed to the browser as the widget's new value.
    Written on every run, a rerun started by one field (Enter in the first sentence field on /masks) wrote the second
    field's old text back over what the person was typing in it meanwhile, and the typed text was lost (seen in CI,
    test_hostile_text_browser[masks]). A keyed widget keeps its identity when its label changes (Streamlit ≥ 1.50:
    the key is its identity), so a language switch needs no write; a widget that was not drawn in the last run has
    no session value, and gets one here.

    ``default``: the widget's value when drawn without a session value (a text field's "", a choice's first
    option): what the browser holds until it has applied the written value (:func:`ui.echo.write`).

    Written again although equal: while the browser has not sent the written value back (:func:`ui.echo.unconfirmed`:
    it may never have got it, the run that wrote it cut short by the next), and when a choice's option texts
    (``shown``) changed since it was last drawn: a new sentence keeps the query at index 0, and the browser went on
    showing the old sentence's first token over the new options (a new-user trial)."""
    relabelled = False
    if shown is not None:
        last = st.session_state.setdefault(SHOWN, {})
        relabelled = last.get(key, tuple(shown)) != tuple(shown)
        last[key] = tuple(shown)
    if key in st.session_state and drag.same(st.session_state[key], value) and not relabelled:
        echo.confirm(key)
        if echo.unconfirmed(key):
            st.session_state[key] = value  # pushed to the browser again with this run
        return
    echo.write(key, value, default)  # the value it replaces may come back from the browser late: ui.echo


# ---- editable grids (a matrix of numbers, a boolean mask) ---------------------------------------------------------
# One mechanism for every grid: the data editor is given a fixed base and its edits accumulate on top (never its own
# output fed back, which would revert every second edit, K14); when the matrix changes from elsewhere (a slider, a
# new size) the grid restarts from it. ``read`` turns an edited cell into a value or raises Refusal.
def _apply_edits(base: np.ndarray, edits: dict, cols: list[str], read: Callable):
    out, refused = base.copy(), []
    for i, row in edits.items():
        for col, value in row.items():
            i_, j = int(i), cols.index(str(col)) if str(col) in cols else -1
            if not (0 <= j < out.shape[1] and 0 <= i_ < out.shape[0]):  # outside: see _outside
                continue
            try:
                out[i_, j] = read(value)
            except Refusal as e:
                refused.append((i_, j, e))
    return out, refused


def _reset_editor(key: str, M: np.ndarray) -> None:
    ver = st.session_state.get(f"{key}:ver", 0)
    st.session_state.pop(f"{key}:ed{ver}", None)
    st.session_state[f"{key}:ver"] = ver + 1
    st.session_state[f"{key}:base"] = M.copy()


def _outside(edits: dict, cols: list[str], grid_shape: tuple[int, int], shape: tuple[int, int]) -> list:
    """The edits (i, j, typed value) made in a grid of ``grid_shape`` that fall outside a matrix of ``shape``."""
    out = []
    for i, row in edits.items():
        for col, value in row.items():
            i_, j = int(i), cols.index(str(col)) if str(col) in cols else -1
            if 0 <= i_ < grid_shape[0] and 0 <= j < grid_shape[1] and not (i_ < shape[0] and j < shape[1]):
                out.append((i_, j, value))
    return out


def _on_edit(key: str, edkey: str, cols: list[str], read: Callable, commit: Callable[[np.ndarray], None],
             on_refused: Callable | None, current: Callable[[], np.ndarray] | None = None,
             on_dropped: Callable | None = None) -> None:
    """The grid's edits, placed on the matrix as it is NOW (``current()``), then committed.

    A grid edit still pending (typed, no Enter) when a size slider is clicked arrives in the same rerun as the new
    size, and Streamlit may run the slider's change first: the grid's base is then of the old shape (issue 20: a
    ValueError traceback, the typed value lost). Placed on the current matrix, every edit that still fits is kept
    and the ones that no longer fit are named (``on_dropped(cells, shape)``), never lost without a word. Placing the
    edits on the current matrix also keeps a refused cell at the value it had just before (which may be an earlier
    accepted edit of the same cell: the grid's new edit replaced that one in edited_rows)."""
    base = st.session_state[f"{key}:base"]
    edits = st.session_state.get(edkey, {}).get("edited_rows", {})
    now = current() if current is not None else st.session_state.get(f"{key}:current")
    if now is None or (current is None and now.shape != base.shape):
        now = base
    M, refused = _apply_edits(np.asarray(now).copy(), edits, cols, read)
    dropped = _outside(edits, cols, base.shape, M.shape) if M.shape != base.shape else []
    commit(M)
    for i, j, e in refused:
        on_refused(i, j, e)
    if dropped and on_dropped is not None:
        on_dropped(dropped, M.shape)
    if refused or dropped or M.shape != base.shape:  # show the accepted values again, not what was typed
        _reset_editor(key, M)


def _occurrences(labels) -> list[tuple[str, int]]:
    """Each label with how many times it came before: the k-th copy of a repeated token is its own row."""
    seen: dict[str, int] = {}
    out = []
    for x in map(str, labels):
        out.append((x, seen.get(x, 0)))
        seen[x] = seen.get(x, 0) + 1
    return out


def _say_dropped(key: str, edkey: str, rows: list[str], cols: list[str], on_dropped: Callable) -> None:
    """The grid restarts with other rows or columns: the cells typed in it since its last restart (its edits, all
    committed) whose row or column the new grid no longer has are named (``on_dropped``). Rows and columns are
    matched by label and copy (the k-th row of a repeated token to its k-th row), as the lessons carry a matrix into
    another sentence or size (lessons.seeded.refit).

    This is the other order of issue 20's race: the edit still pending when a size slider is clicked may be
    committed before the new size (the same rerun's callbacks in the other order, or a rerun of its own), and the
    resize then cuts it off: said here whatever the order. A grid that was not on screen has no edits (Streamlit
    forgets an undrawn widget's state), so nothing old is said."""
    old = st.session_state.get(f"{key}:keys")
    edits = st.session_state.get(edkey, {}).get("edited_rows", {})
    if old is None or not edits:
        return
    old_labels, old_rows, old_cols = old
    new_rows, new_cols = set(_occurrences(rows)), set(_occurrences(cols))
    gone = []
    for i, row in edits.items():
        for col, value in row.items():
            i_, j = int(i), old_labels.index(str(col)) if str(col) in old_labels else -1
            if 0 <= i_ < len(old_rows) and j >= 0 and (old_rows[i_] not in new_rows or old_cols[j] not in new_cols):
                gone.append((i_, j, value))
    if gone:
        on_dropped(sorted(gone), (len(rows), len(cols)))


def _grid(key: str, M: np.ndarray, row_labels, col_labels, *, show: Callable, read: Callable, column: Callable,
          commit: Callable[[np.ndarray], None], on_refused: Callable | None = None,
          current: Callable[[], np.ndarray] | None = None, on_dropped: Callable | None = None,
          row_keys: list | None = None, col_keys: list | None = None) -> None:
    """One editable grid (see the comment above). ``row_keys``, ``col_keys``: what identifies a row or column when
    the matrix is carried into another shape (default: the labels; by position: 0, 1, …)."""
    base = st.session_state.get(f"{key}:base")
    ver = st.session_state.get(f"{key}:ver", 0)
    edkey = f"{key}:ed{ver}"
    cols = [str(c) for c in col_labels]
    if base is not None and base.shape == M.shape and base.dtype == M.dtype:
        expected, _ = _apply_edits(base, st.session_state.get(edkey, {}).get("edited_rows", {}), cols, read)
    else:
        expected = None
    st.session_state[f"{key}:current"] = M.copy()  # what a refused edit falls back to (see _on_edit)
    if expected is None or not np.array_equal(expected, M):
        if on_dropped is not None:
            _say_dropped(key, edkey, [str(r) for r in (row_keys or row_labels)], [str(c) for c in (col_keys or cols)],
                         on_dropped)
        _reset_editor(key, M)
        ver = st.session_state[f"{key}:ver"]
        edkey = f"{key}:ed{ver}"
        base = st.session_state[f"{key}:base"]
    st.session_state[f"{key}:keys"] = (cols, _occurrences(row_keys or row_labels), _occurrences(col_keys or cols))
    df = pd.DataFrame([[show(v) for v in row] for row in base], index=[str(r) for r in row_labels], columns=cols)
    st.data_editor(df, key=edkey, on_change=_on_edit,
                   args=(key, edkey, cols, read, commit, on_refused, current, on_dropped),
                   num_rows="fixed", column_config={c: column(c) for c in cols}, width="content")
    # the grid itself leaves out what a paste puts past its edge, and the app never receives it: said beforehand
    st.caption(t("grid.paste_note", shape=f"{M.shape[0]}×{M.shape[1]}"))


def _dropped_notice(notify: Callable[[str, dict], None], name: str, *, values: bool) -> Callable:
    """``on_dropped`` of a grid: the edits that no longer fit matrix ``name`` after a resize, said in one notice
    ("grid_dropped": each cell by row and column, with what was typed when ``values``)."""
    def dropped(cells, shape) -> None:
        shown = [t("grid.cell_value_word" if values else "grid.cell_word", row=i + 1, col=j + 1,
                   value=str(v).strip()[:20]) for i, j, v in cells[:8]]
        more = t("grid.dropped_more", n=len(cells) - 8) if len(cells) > 8 else ""
        notify("grid_dropped", {"matrix": name, "shape": f"{shape[0]}×{shape[1]}",
                                "cells": t("grid.sep").join(shown) + more})
    return dropped


def matrix_editor(key: str, M: np.ndarray, row_labels: list[str], col_labels: list[str], *, name: str,
                  commit: Callable[[np.ndarray], None], notify: Callable[[str, dict], None],
                  current: Callable[[], np.ndarray] | None = None) -> None:
    """An editable grid for matrix M. Edits are validated cell by cell (finite, within the cell limit) and passed
    to ``commit``; refused cells keep their old value and ``notify("cell_refused", args)`` is called.
    ``current``: () → the matrix as the lesson state holds it when the edit arrives (a change of the same rerun, such
    as a new size, may have resized it): the edits are placed on it, and those that no longer fit are said
    (``notify("grid_dropped", args)``).

    Cells are text columns, read by :func:`lessons.cells.parse_cell_text`: what was typed or pasted
    reaches the app as typed (a number column drops the "e" of "1e308" while typing and turns a pasted value it
    cannot hold into an empty cell), so a refusal can quote it, and full-width digits work.
    """
    def refused(i, j, e):
        notify("cell_refused", dict(matrix=name, row=i + 1, col=j + 1, reason=t(f"reason.{e.code}", **e.args_)))

    _grid(key, M, row_labels, col_labels, show=editable, read=parse_cell_text,
          column=lambda c: st.column_config.TextColumn(c, alignment="right"), commit=commit, on_refused=refused,
          current=current, on_dropped=_dropped_notice(notify, name, values=True))


def matrix_grids(page, mats: dict, labels: dict, *, title: str, help: str, commit: Callable[[str, np.ndarray], None],
                 place: str, tab_key: str = "grid_tab") -> None:
    """The matrices ``mats`` (name → array; ``labels``: name → (row labels, column labels)) as editable grids in a
    folded expander with one tab per matrix (keys ``<lesson>.grids``, ``<lesson>.<tab_key>``, the grids
    ``<lesson>.grid.<name>``). Built only while open, and only the chosen tab's grid: a grid costs more than all the
    heatmaps. ``commit(name, M)`` places an edited matrix; refusals and dropped cells are said at ``place``, shown
    in the expander (and as a toast). Each name of ``mats`` is one of the lesson's ``arrays``: where an edit is
    placed when it arrives."""
    if not page.keeps("grids"):  # presentation mode, unless the lesson keeps them
        return
    grids = st.expander(title, icon=":material/edit:", key=page.key("grids"), on_change="rerun")
    if not grids.open:
        return
    with grids:
        st.caption(help)
        notes = st.container()  # filled after the grids: drawing one may add a notice (_say_dropped)
        tabs = st.tabs(list(mats), key=page.key(tab_key), on_change="rerun")
        for n, tab in zip(mats, tabs):
            if tab.open:
                with tab:
                    matrix_editor(page.key(f"grid.{n}"), mats[n], *labels[n], name=n,
                                  commit=lambda M, n=n: commit(n, M),
                                  notify=lambda code, args: page.notify(code, args, place=place),
                                  current=lambda n=n: page.lesson.arrays(page.state)[n])
        with notes:
            page.show_notices(place, toast=True)


def mask_editor(key: str, mask: np.ndarray, row_labels, col_labels, *, commit: Callable[[np.ndarray], None],
                current: Callable[[], np.ndarray] | None = None, notify: Callable[[str, dict], None] | None = None,
                name: str = "") -> None:
    """An editable grid of tick boxes for a boolean mask (ticked = True = may attend); each edit is passed to
    ``commit`` as the whole (r, c) bool mask. Labels are numbered ("1 <token>"), so repeated tokens stay apart.
    ``current``, ``notify``: as for :func:`matrix_editor` (``name``: the mask's name in the notice)."""
    rows = [f"{i + 1} {x}" for i, x in enumerate(row_labels)]
    cols = [f"{j + 1} {x}" for j, x in enumerate(col_labels)]
    # a mask is carried into another batch length by position (lessons.seeded.refit), not by token
    width = _tick_column_px(len(cols))
    _grid(key, np.asarray(mask, dtype=bool), rows, cols, show=bool, read=bool,
          row_keys=list(range(len(rows))), col_keys=list(range(len(cols))),
          column=lambda c: st.column_config.CheckboxColumn(c, width=width, help=c), commit=commit, current=current,
          on_dropped=_dropped_notice(notify, name, values=False) if notify else None)


MASK_INDEX_PX = 72  # the mask editor's row labels ("5 [PAD]") and the grid's borders
TICK_COLUMN_PX = (40, 84)  # a tick box column: at least (a tick box and its padding), at most (its label whole)


def _tick_column_px(n_cols: int) -> int | None:
    """The width (px) of each tick box column so that ``n_cols`` of them fit the page's main column
    (ui.viewport.width: a 390 px phone cut the fifth column of a 5×5 mask, issue 24 §4); None (Streamlit's own,
    each label whole) where they fit anyway. A label cut short is whole in the column's tooltip."""
    room = (viewport.width() - MASK_INDEX_PX) / max(n_cols, 1)
    if room >= TICK_COLUMN_PX[1]:
        return None
    return int(max(TICK_COLUMN_PX[0], room))


# ---- one cell, one slider ----------------------------------------------------------------------------------------
# Two parts, so a page can draw the picker outside an st.fragment and the slider inside it: moving the slider then
# reruns only that fragment; picking another cell (rarer) reruns whatever drew the picker. The slider edits the cell
# ``page.lesson.picked_cell(page.state)``.
def cell_picker(page, labels: dict[str, tuple[list[str], list[str]]], *, name: str = "cell") -> tuple[str, int, int]:
    """Three selectboxes — matrix, row, column — over the matrices named in ``labels`` (name → (row labels, column
    labels); those of ``page.lesson.cell_matrices``). The choice is the lesson's state (``Lesson.picked_cell``), so
    it lives in the share link; picking runs ``Lesson.with_picked_cell``. Widget keys ``<lesson>.<name>:m / :i /
    :j`` (``page.key(name)``). Returns the picked (matrix, i, j). Not drawn in presentation mode unless the lesson
    keeps ``name`` (:meth:`ui.runtime.Page.keeps`)."""
    key = page.key(name)
    lesson = page.lesson
    cell = lesson.picked_cell(page.state)
    if not page.keeps(name):
        return cell
    names = list(labels)
    rows, cols = labels[cell[0]]
    texts = {"m": names, "i": [_numbered(k, r) for k, r in enumerate(rows)],
             "j": [_numbered(k, c) for k, c in enumerate(cols)]}
    for part, value, first in zip(("m", "i", "j"), cell, (names[0], 0, 0)):
        sync(f"{key}:{part}", value, first, shown=texts[part])

    def pick(part: str) -> None:
        if echo.stale(f"{key}:{part}", lambda a, b: (chosen_option(a, names) if part == "m" else _index(a)) == b):
            return
        value = st.session_state.get(f"{key}:{part}")
        m, i, j = lesson.picked_cell(page.state)
        if part == "m":
            m = chosen_option(value, names)
            if m is None:  # the text of a matrix that is gone: no new choice
                return
        elif part == "i":
            i = _index(value)
        else:
            j = _index(value)
        page.apply(lesson.with_picked_cell, m, i, j)

    c1, c2, c3 = st.columns([1, 1, 1])
    c1.selectbox(t("cell.matrix"), names, key=f"{key}:m", on_change=pick, args=("m",))
    c2.selectbox(t("cell.row"), list(range(len(rows))), key=f"{key}:i", format_func=lambda k: _numbered(k, rows[k]),
                 on_change=pick, args=("i",))
    c3.selectbox(t("cell.col"), list(range(len(cols))), key=f"{key}:j", format_func=lambda k: _numbered(k, cols[k]),
                 on_change=pick, args=("j",))
    return cell


def cell_slider_key(key: str, name: str, i: int, j: int) -> str:
    """The widget key of the one-cell slider while it edits cell (i, j) of matrix ``name``: one slider per cell.

    With one key for every cell, a quick second press could write one cell's value into another: d_k lowered, W_Q's
    picked column 5 becomes column 4, and the browser, which had not yet heard of that, sent the slider's value for
    column 5 with the next press; Streamlit took it for a move of the column-4 slider (a new-user trial; with d_model
    the stale cell was even outside the matrix). A slider of another cell is another widget, so a value sent for the
    old one changes nothing."""
    return f"{key}:v:{name}:{i}:{j}"


def cell_slider(page, M: np.ndarray, name: str, i: int, j: int, apply: Callable, *, place: str = "top",
                limit: float = 5.0, control: str = "cell") -> None:
    """A slider for cell (i, j) of matrix ``name`` (its current values ``M``): every move makes
    ``apply(state, name, i, j, value)`` the page's state (``page.apply``: a refusal is a notice at ``place``), and
    a drag's frames are built with it (ui/preview.py). The range is ±limit, widened to take in the current value.
    The slider sits in a container
    keyed ``<key>:v`` (``key`` = ``page.key(control)``; the element's CSS class ``st-key-<key>-v`` whatever the
    cell); its own key is :func:`cell_slider_key`. Not drawn in presentation mode unless the lesson keeps
    ``control`` (:meth:`ui.runtime.Page.keeps`)."""
    if not page.keeps(control):
        return
    key = page.key(control)
    v = float(M[i, j])
    lo, hi = min(-limit, np.floor(v)), max(limit, np.ceil(v))
    widget = cell_slider_key(key, name, i, j)
    with st.container(key=f"{key}:v"):
        drag.slider(st.slider, t("cell.value", matrix=name, row=i + 1, col=j + 1), key=widget, value=v,
                    min_value=float(lo), max_value=float(hi), step=0.1, help=t("cell.help"),
                    on_change=lambda: page.apply(apply, name, i, j, st.session_state[widget], place=place),
                    relay=lambda x: page.apply(apply, name, i, j, x, place=place),
                    transition=lambda state, x: apply(state, name, i, j, x))


# ---- notices and share link --------------------------------------------------------------------------------------
NAMED = ("bad_value", "rounded")
"""The notices about one link value: they name its parameter in words and by its key ({name}, {param})."""


def param_words(lesson: str | None, param: str) -> str:
    """A link parameter in words: the lesson's ``<lesson>.link.<param>`` text (assets/i18n/*.linkwords.toml), else
    the parameter itself (a matrix's name, W_Q, is its own word; a parameter outside any lesson's link)."""
    words = table(current_lang()).get(f"{lesson}.link.{param}") if lesson else None
    return words or param


def notice_text(code: str, args: dict, lesson: str | None = None) -> str:
    """A notice in words (the current language). Link text inside it is user text: Markdown-escaped. ``lesson``:
    the key of the lesson whose link it is about (its parameters are then named in its words)."""
    args = dict(args)
    if code in NAMED and "param" in args:
        args["name"] = param_words(lesson, str(args["param"]))
    if code == "bad_value":
        args["reason"] = t(f"reason.{args['reason']}", **(args.pop("extra", {}) or {}))
    if code == "other_lesson":
        args["lesson"] = t(f"lesson.{args['lesson']}.title")
    args = {k: md_escape(v) if isinstance(v, str) else v for k, v in args.items()}
    return t(f"notice.{code}", **args)


def show_notices(notes, *, toast: bool = False, lesson: str | None = None) -> None:
    """Each notice in words: (code, args) pairs or lessons.link.Notice values. ``toast``: also pop each one up in
    the corner of the screen (for notices about something the person may have scrolled away from). ``lesson``: as
    for :func:`notice_text`."""
    for n in notes:
        code, args = (n.code, n.args) if hasattr(n, "code") else n
        text = notice_text(code, args, lesson)
        st.warning(text, icon=":material/warning:")
        if toast:
            st.toast(text, icon=":material/warning:", duration="long")


def token_notices(*texts: str) -> None:
    """What became of each typed sentence (any lesson's, in the order given): cut at MAX_TOKENS (a warning), split
    into words by janome (shown), repeated tokens (kept apart). Texts ``tokens.*``.

    Drawn inside one container that is always there (:func:`ui.slots.keep_place`): the notes come and go with the
    sentence, and a note taking a place of its own moved every later element down one place, so the browser
    remounted them; a second sentence field below lost what was being typed into it (/masks, seen in CI:
    test_hostile_text_browser[masks]; tests/e2e/test_widget_identity_browser.py)."""
    slots.keep_place(lambda: [_token_notes(text) for text in texts])


def _token_notes(text: str) -> None:
    tok = tokenize(text)
    if tok.truncated:
        st.warning(t("notice.too_many_tokens", n=tok.n_found, max=MAX_TOKENS), icon=":material/content_cut:")
    if tok.splitter == "janome":
        st.caption(t("tokens.split_janome", tokens=" / ".join(md_escape(x) for x in tok.tokens)))
    if len(set(tok.tokens)) < len(tok.tokens):
        st.caption(t("tokens.duplicates"))


def share_panel(url: str | None, params: dict[str, str], *, key: str, left_out=(), bound_address: str | None = None,
                network_ip: str | None = None) -> None:
    """The link that reproduces this exact setup, with a copy button and a QR code. ``key``: the expander's; its
    session value is True while the panel is open (see session.publish). The link is drawn only while the panel is
    open: a fragment rerun does not redraw the sidebar, so a link kept in a closed panel could be stale when opened
    and copied before the rerun that opening causes has finished.

    ``params``: the link's query parameters; ``left_out``: the keys the shorter link for a QR code leaves out (the
    lesson's typed cells). A page opened on a loopback address hands out the machine's network address
    (``bound_address``: the server's ``server.address``; ``network_ip``: the address ``streamlit run`` prints):
    :func:`ui.share.class_url`."""
    panel = st.expander(t("share.title"), icon=":material/link:", key=key, on_change="rerun")
    if not panel.open:
        return
    base, note, args = class_url(url or "", bound_address, network_ip)
    link = base + ("?" + urlencode(params) if params else "")
    with panel:
        st.caption(t("share.help"))
        st.code(link, language=None, wrap_lines=True)
        copy_button(link, key=f"{key}.copy")
        if params.get(predict.ANSWER):  # opened revealed: the same page with the question still open
            question = {k: v for k, v in params.items() if k not in (predict.ANSWER, predict.GUESS)}
            st.caption(t("share.question"))
            st.code(base + "?" + urlencode(question), language=None, wrap_lines=True)
            copy_button(base + "?" + urlencode(question), key=f"{key}.copy_question")
        if note == "share.network":
            st.caption(t("share.network", host=md_escape(args["host"])))
        elif note == "share.local_only":
            st.caption(t("share.local_only"))
        if st.button(t("share.qr_button"), key=f"{key}.qr", icon=":material/qr_code_2:"):
            shorter = shorter_params(params, left_out)
            short = base + ("?" + urlencode(shorter) if shorter else "")
            st.dialog(t("share.qr_title"), width="large")(qr_dialog)(link, short if short != link else None)


# A copy button that is always visible (st.code's own shows only while the pointer is over the code, which a teacher
# at a projector, or a phone, never does). The Clipboard API needs a secure page (https, or localhost); a class opens
# the app at the machine's network address over http, so there the text is copied the older way, through a selected
# text area (document.execCommand("copy")). The button says whether it worked.
COPY_HTML = '<button type="button" class="al-copy"></button>'
COPY_CSS = (".al-copy{font:inherit;font-size:0.95rem;padding:0.3rem 0.8rem;border:1px solid rgba(49,51,63,0.3);"
            "border-radius:0.5rem;background:#fff;color:rgb(49,51,63);cursor:pointer}"
            ".al-copy:hover{border-color:#1c83e1;color:#1c83e1}.al-copy.done{border-color:#1a7f37;color:#1a7f37}")
COPY_JS = """
export default function ({ parentElement, data }) {
  const button = parentElement.querySelector("button.al-copy");
  button.textContent = data.label;
  button.title = data.help;
  const older = (text) => {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand("copy"); } catch (err) { ok = false; }
    area.remove();
    return ok;
  };
  button.onclick = async () => {
    let ok = false;
    if (navigator.clipboard && window.isSecureContext) {
      try { await navigator.clipboard.writeText(data.text); ok = true; } catch (err) { ok = older(data.text); }
    } else {
      ok = older(data.text);
    }
    button.textContent = ok ? "✓ " + data.done : data.failed;
    button.classList.toggle("done", ok);
    clearTimeout(button.__alTimer);
    button.__alTimer = setTimeout(() => { button.textContent = data.label; button.classList.remove("done"); }, 2500);
  };
}
"""


def copy_button(text: str, *, key: str) -> None:
    """A button that copies ``text`` to the clipboard, visible without hovering (COPY_JS); its words are
    ``share.copy*``."""
    mount = st.components.v2.component("attention_lab.copy", html=COPY_HTML, css=COPY_CSS, js=COPY_JS)
    mount(key=key, data={"text": text, "label": t("share.copy"), "help": t("share.copy_help"),
                         "done": t("share.copied"), "failed": t("share.copy_failed")}, width="content",
          height="content")


@st.cache_resource(show_spinner=False)
def network_ip() -> str | None:
    """This machine's network address, as `streamlit run` prints it ("Network URL"); looked up once per process."""
    from streamlit import net_util

    return net_util.get_internal_ip()


QR_PX = 480  # the QR code's width on screen: with the dialog's title and caption inside a 1024×768 projector's height


def qr_dialog(link: str, short: str | None) -> None:
    """The QR code of ``link``, or of ``short`` (said) when ``link`` does not fit a readable one."""
    png = qr_png(link)
    if png is not None:
        with st.container(horizontal_alignment="center"):
            st.image(png, width=QR_PX)
        st.caption(t("share.qr_help", n=len(link)))
        return
    st.warning(t("share.qr_too_long", n=len(link)), icon=":material/qr_code_2:")
    png = qr_png(short) if short else None
    if png is None:
        st.info(t("share.qr_none"), icon=":material/content_copy:")
        return
    st.caption(t("share.qr_shorter", n=len(short)))
    with st.container(horizontal_alignment="center"):
        st.image(png, width=QR_PX - 100)  # under the warning: still inside a 1024×768 window
