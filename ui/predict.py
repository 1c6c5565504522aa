"""Predict, then reveal (issue 25 part 1), written once for every lesson that declares ``Lesson.predict``.

A switch at the top of the lesson page ("Predict first"). While it is on and the answer is not shown, the stages the
lesson declares (``Prediction.hides``: the weights and what follows from them) are not drawn (:func:`hides`, asked
by ``Page.reveals``); a panel asks which key the chosen query attends to most and that key's share, and "Reveal"
draws them again with the verdict in words. The answer belongs to the setting it was revealed for: any change of
the lesson's state hides it again. Mode, guess and answer live in the link (lessons/predict.py).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import streamlit as st

import lessons
from lessons import predict as P

from . import echo
from .escape import markdown as md
from .i18n import label, t
from .numbers import num
from .widgets import _index, _numbered, sync

SWITCH = "predict.on.{}"  # widget keys: the switch, the guess's fields and buttons (never "<lesson>.…": not a
FIELD = "predict.{}.{}"  # lesson control, which presentation mode would hide)


def _store(lesson_key: str) -> str:
    return f"_predict:{lesson_key}"


def _get(page) -> dict:
    """This lesson's predict record: {on, guess (lessons.predict.Guess), shown_for (the lesson link the answer was
    revealed for, or None), again (the answer was hidden by a change)}; on the lesson's first visit read from the
    link when the link is the lesson's (notices at the top of the page)."""
    key = _store(page.lesson.key)
    if key not in st.session_state:
        rec = {"on": False, "guess": None, "shown_for": None, "again": False}
        params = {k: st.query_params.get_all(k) for k in st.query_params.keys()}
        others = any(x.key in params for x in lessons.REGISTRY if x.key != page.lesson.key)
        if page.lesson.predict is not None and not others:  # (another lesson's link: its keys are not ours)
            on, guess, answer, notes = P.read_link(params)
            if guess is not None:  # a query or key this setting does not have: said, and left out
                guess, answer, more = P.fit_link(guess, answer, _weights(page), _first_query(page))
                notes += more
            rec.update(on=on, guess=guess)
            if answer:
                rec["shown_for"] = _link(page)
            page.notify_all(notes)
        st.session_state[key] = rec
    return st.session_state[key]


def _link(page) -> tuple:
    """The lesson's link of the current state, as a hashable value (the answer is tied to it)."""
    state = page.state
    memo = st.session_state.get("_predict_memo")
    if memo is None or memo[0] is not state:
        memo = (state, tuple(page.lesson.encode(state).items()))
        st.session_state["_predict_memo"] = memo
    return memo[1]


def _weights(page) -> np.ndarray:
    """The predicted weights; none (0 × 0) when the state has no such array (a sentence with no tokens)."""
    return page.lesson.arrays(page.state).get(page.lesson.predict.array(page.state), np.zeros((0, 0)))


def _first_query(page) -> int:
    q = page.lesson.predict.query
    return int(q(page.state)) if q is not None else 0


def _guess(page, rec: dict) -> P.Guess:
    """The guess kept inside the current weights' shape."""
    w = _weights(page)
    first = _first_query(page)
    return P.fit(rec["guess"] or P.Guess(first), w, first)


def on(page) -> bool:
    """Predict mode is on for this lesson."""
    return page.lesson.predict is not None and _get(page)["on"]


def revealed(page) -> bool:
    """The answer is shown for the current state. A change of the state since it was revealed hides it again (and is
    said in the panel); when that change was made inside a live fragment, the whole page reruns so the panel says so."""
    rec = _get(page)
    if rec["shown_for"] is None:
        return False
    if rec["shown_for"] == _link(page):
        if _guess(page, rec).key is None:  # (nothing to reveal: no key guessed in this setting)
            rec.update(shown_for=None)
            return False
        return True
    rec.update(shown_for=None, again=True)
    from . import runtime

    if not runtime.frame_running():  # a fragment's run: the panel is outside it
        st.rerun(scope="app")
    return False


def visible(page, stages: tuple[str, ...]) -> bool:
    """Whether predict mode lets the page draw what belongs to ``stages``: yes unless the mode is on, the answer not
    shown, and every one of ``stages`` is one the lesson hides."""
    if not on(page):
        return True
    hidden = set(page.lesson.predict.hides)
    return not all(s in hidden for s in stages) or revealed(page)


def link_params(page) -> dict[str, str]:
    """The link's predict keys for this lesson ({} when the mode is off)."""
    if page.lesson.predict is None:
        return {}
    rec = _get(page)
    if not rec["on"]:
        return {}
    return P.write_link(True, _guess(page, rec), revealed(page))


# ---- the page's switch and panel -----------------------------------------------------------------------------
def _set_on(page) -> None:
    rec = _get(page)
    rec.update(on=bool(st.session_state.get(SWITCH.format(page.lesson.key))), shown_for=None, again=False)


def _set(page, part: str) -> None:
    rec = _get(page)
    key = FIELD.format(page.lesson.key, part)
    g = _guess(page, rec)
    if part == "share":
        if echo.stale(key, lambda a, b: a == b):
            return
        rec["guess"] = replace(g, share=int(st.session_state[key]))
    elif part == "query":
        if echo.stale(key, lambda a, b: _index(a) == b):
            return
        rec["guess"] = replace(g, query=_index(st.session_state[key]))
    else:
        value = st.session_state.get(key)
        if echo.stale(key, lambda a, b: (None if a is None else _index(a)) == b):
            return
        rec["guess"] = replace(g, key=None if value is None else _index(value))


def _reveal(page) -> None:
    rec = _get(page)
    rec.update(guess=_guess(page, rec), shown_for=_link(page), again=False)


def _hide(page) -> None:
    _get(page).update(shown_for=None, again=False)


def panel(page) -> None:
    """The switch, and in predict mode the guess (or, once revealed, the verdict). Draws nothing for a lesson
    without ``Lesson.predict``."""
    lesson = page.lesson
    if lesson.predict is None:
        return
    rec = _get(page)
    switch = SWITCH.format(lesson.key)
    sync(switch, rec["on"], False)
    st.toggle(t("predict.switch"), key=switch, help=t("predict.switch_help"), on_change=_set_on, args=(page,))
    if not rec["on"]:
        return
    with st.container(border=True, key=f"predict-panel-{lesson.key}"):
        raw = _weights(page)
        w = P.weight_rows(raw)
        labels = lesson.array_labels(page.state).get(lesson.predict.array(page.state), ((), ()))
        rows, keys = (labels[0], labels[0]) if np.ndim(raw) == 1 else labels
        rows, keys = [label(x) for x in rows], [label(x) for x in keys]
        shown = revealed(page)  # (first: it notices a change of setting since the reveal)
        if rec["again"] and not shown:
            st.caption(t("predict.again_said"))
        if not P.askable(w):
            st.info(t("predict.nothing"), icon=":material/block:")
            return
        if lesson.predict.which is not None:  # which of the page's weights (e.g. the head shown in detail)
            text_key, args = lesson.predict.which(page.state)
            st.markdown(t("predict.which", which=t(text_key, **args)))
        if shown:
            _verdict(page, w, rows, keys)
        else:
            _ask(page, rec, w, rows, keys)


def _stage_titles(page) -> str:
    key = page.lesson.key
    return t("predict.joiner").join(t(f"{key}.stage.{s}") for s in page.lesson.predict.hides)


def _ask(page, rec: dict, w: np.ndarray, rows: list[str], keys: list[str]) -> None:
    lesson_key = page.lesson.key
    g = _guess(page, rec)
    st.markdown(t("predict.ask", hidden=_stage_titles(page)))
    one_query = w.shape[0] == 1
    # the button on its own line under the fields: in a fourth column it was cut to "答え合…" at 1024 px (Japanese)
    cols = st.columns([1, 1.4, 1.3] if not one_query else [1.4, 1.3], vertical_alignment="bottom")
    c = iter(cols)
    if not one_query:
        qk = FIELD.format(lesson_key, "query")
        options = P.askable(w)
        sync(qk, g.query, options[0], shown=[_numbered(i, rows[i]) for i in options])
        next(c).selectbox(t("predict.query"), options, key=qk, format_func=lambda i: _numbered(i, rows[i]),
                          on_change=_set, args=(page, "query"))
    kk = FIELD.format(lesson_key, "key")
    sync(kk, g.key, None, shown=[_numbered(j, keys[j]) for j in range(len(keys))])
    next(c).selectbox(t("predict.key", query=rows[g.query]) if not one_query else t("predict.key_one"),
                      list(range(len(keys))), key=kk, index=None, placeholder=t("predict.key_placeholder"),
                      format_func=lambda j: _numbered(j, keys[j]), on_change=_set, args=(page, "key"))
    sk = FIELD.format(lesson_key, "share")
    sync(sk, g.share, 0)
    next(c).slider(t("predict.share"), 0, 100, step=P.SHARE_STEP, key=sk, format="%d%%", on_change=_set,
                   args=(page, "share"))
    st.button(t("predict.reveal"), key=FIELD.format(lesson_key, "reveal"), type="primary",
              icon=":material/visibility:", disabled=g.key is None, on_click=_reveal, args=(page,),
              help=None if g.key is not None else t("predict.reveal_needs_key"))


def verdict_text(v: P.Verdict, guess: P.Guess, rows: list[str], keys: list[str], one_query: bool) -> str:
    """The verdict in words (Markdown; the tokens escaped)."""
    best = t("predict.or").join(t("predict.quoted", token=md(keys[j])) for j in v.best)
    args = dict(query=md(rows[guess.query]), best=best, top=_pct(v.top), key=md(keys[guess.key]),
                chosen=_pct(v.chosen), share=guess.share, off=num(abs(v.off), 1))
    where = "one" if one_query else "row"
    head = t(f"predict.right_{where}" if v.right else f"predict.wrong_{where}", **args)
    if abs(v.off) < 0.05:
        tail = t("predict.off_none", **args)
    else:
        tail = t("predict.off_high" if v.off > 0 else "predict.off_low", **args)
    return head + "  \n" + tail  # (a line break in Markdown)


def _pct(x: float) -> str:
    """A weight as the heatmaps write it and as a share: "0.956（95.6%）"."""
    return t("predict.weight", w=num(x, 3), pct=num(100 * x, 1))


def _verdict(page, w: np.ndarray, rows: list[str], keys: list[str]) -> None:
    g = _guess(page, _get(page))
    v = P.verdict(w, g)
    text = verdict_text(v, g, rows, keys, w.shape[0] == 1)
    (st.success if v.right else st.warning)(text, icon=":material/check_circle:" if v.right else ":material/info:")
    st.button(t("predict.hide"), key=FIELD.format(page.lesson.key, "hide"), icon=":material/visibility_off:",
              on_click=_hide, args=(page,))
