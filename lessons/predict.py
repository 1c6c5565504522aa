"""Predict, then reveal (issue 25 part 1): the arithmetic of a guess and its place in the link. NumPy only.

A student guesses which key a query attends to most, and that key's share of the query's attention (in percent);
the lesson's attention weights (``Lesson.predict.array(state)``) say whether the guess was right and by how much. The
link carries the mode and the guess: ``predict=1``, ``guess=<query>.<key>.<percent>`` (query and key counted from 1; a
guess without a key yet is ``guess=<query>``), ``answer=1`` once revealed. ``ui/predict.py`` draws it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .link import Notice

__all__ = ["ON", "GUESS", "ANSWER", "Guess", "Verdict", "weight_rows", "askable", "fit", "fit_link", "verdict",
           "read_link", "write_link", "TIE"]

ON, GUESS, ANSWER = "predict", "guess", "answer"
"""The link keys (lessons.link.IGNORED_KEYS: the frame's, in every lesson's link)."""
TIE = 1e-9
"""Keys whose weight is within TIE of the row's largest all count as "the key it attends to most"."""
SHARE_STEP = 5
"""The share is guessed in steps of 5 %."""


@dataclass(frozen=True)
class Guess:
    """A student's guess: ``query`` (row, from 0), ``key`` (column, from 0; None: not chosen yet) and ``share``
    (the key's share of the query's attention, in whole percent 0..100)."""

    query: int = 0
    key: int | None = None
    share: int = 50


@dataclass(frozen=True)
class Verdict:
    """What the weights say of a guess. ``best``: the keys the query attends to most (several when tied), ``top``:
    their weight (0..1); ``chosen``: the weight of the guessed key (0..1); ``right``: the guessed key is one of
    ``best``; ``off``: guessed share − the guessed key's real share, in percentage points (+: guessed too high)."""

    best: tuple[int, ...]
    top: float
    chosen: float
    right: bool
    off: float


def weight_rows(weights: np.ndarray) -> np.ndarray:
    """Attention weights as rows (queries × keys): a 1-D array (one query's weights) is one row. float64."""
    w = np.asarray(weights, dtype=np.float64)
    return w.reshape(1, -1) if w.ndim == 1 else w


def askable(weights: np.ndarray) -> list[int]:
    """The queries (rows, from 0) a guess can be about: those that attend to some key (a row with every key masked
    is all 0 and has no answer)."""
    rows = weight_rows(weights)
    if rows.shape[1] == 0:
        return []
    return [i for i in range(rows.shape[0]) if np.isfinite(rows[i]).all() and rows[i].max() > TIE]


def fit(guess: Guess, weights: np.ndarray, first_query: int = 0) -> Guess:
    """``guess`` kept inside ``weights``' shape: a query past the end or with no answer is ``first_query`` (else the
    first askable one), a key past the end is not chosen, the share inside 0..100."""
    rows = weight_rows(weights)
    ok = askable(rows)
    q = guess.query
    if q not in ok:
        q = first_query if first_query in ok else (ok[0] if ok else 0)
    k = guess.key if guess.key is not None and 0 <= guess.key < rows.shape[1] else None
    return Guess(q, k, min(max(int(guess.share), 0), 100))


def fit_link(guess: Guess, answer: bool, weights: np.ndarray, first_query: int = 0) -> tuple[Guess, bool, list[Notice]]:
    """A link's guess (:func:`read_link`) kept inside ``weights`` as :func:`fit` keeps it, with every change said:
    a query the weights do not have or that attends to nothing (notice ``guess_query_moved``: ``asked``, ``used``,
    numbered from 1), a key past the last one (``guess_key_dropped``: ``asked``, ``keys``, the number of keys). The
    answer stays shown only for a guess that still has its key (else ``answer_ignored``). Returns (fitted guess,
    answer shown, notices)."""
    rows = weight_rows(weights)
    fitted = fit(guess, rows, first_query)
    notes = []
    if fitted.query != guess.query:
        notes.append(Notice("guess_query_moved", {"asked": guess.query + 1, "used": fitted.query + 1}))
    if guess.key is not None and fitted.key is None:
        notes.append(Notice("guess_key_dropped", {"asked": guess.key + 1, "keys": rows.shape[1]}))
    shown = answer and fitted.key is not None and fitted.query in askable(rows)
    if answer and not shown:
        notes.append(Notice("answer_ignored", {"value": "1"}))
    return fitted, shown, notes


def verdict(weights: np.ndarray, guess: Guess) -> Verdict:
    """Compare ``guess`` (its key chosen) with the weights of its query. Raises ValueError for a guess without a key
    or about a query that attends to nothing (see :func:`askable`)."""
    rows = weight_rows(weights)
    if guess.key is None or guess.query not in askable(rows) or not 0 <= guess.key < rows.shape[1]:
        raise ValueError(f"no verdict for {guess!r} over weights of shape {rows.shape}")
    row = rows[guess.query]
    top = float(row.max())
    best = tuple(int(j) for j in np.flatnonzero(row >= top - TIE))
    chosen = float(row[guess.key])
    return Verdict(best, top, chosen, guess.key in best, guess.share - 100 * chosen)


_GUESS = re.compile(r"(\d{1,3})(?:\.(\d{1,3})\.(\d{1,3}))?")


def read_link(params) -> tuple[bool, Guess | None, bool, list[Notice]]:
    """The link's predict keys → (predict mode on, the guess or None, answer shown, notices). ``params``: the query
    ({key: value}; a list value counts by its last item). ``predict`` other than 0/1, a ``guess`` that is not
    ``q``/``q.k.p``, or ``answer`` without a whole guess are said (notices ``predict_bad``, ``guess_bad``,
    ``answer_ignored``) and left out; the guess is fitted to the weights later (:func:`fit`)."""
    def one(key):
        v = params.get(key)
        return (v[-1] if v else None) if isinstance(v, list) else v

    notes = []
    on_raw, guess_raw, answer_raw = one(ON), one(GUESS), one(ANSWER)
    on = on_raw == "1"
    if on_raw not in (None, "0", "1"):
        notes.append(Notice("predict_bad", {"value": str(on_raw)[:20]}))
    guess = None
    if guess_raw is not None and on:
        m = _GUESS.fullmatch(str(guess_raw).strip())
        if m is None or int(m.group(1)) < 1 or (m.group(2) is not None and (int(m.group(2)) < 1
                                                                            or int(m.group(3)) > 100)):
            notes.append(Notice("guess_bad", {"value": str(guess_raw)[:20]}))
        else:
            key = None if m.group(2) is None else int(m.group(2)) - 1
            guess = Guess(int(m.group(1)) - 1, key, 50 if key is None else int(m.group(3)))
    answer = on and answer_raw == "1" and guess is not None and guess.key is not None
    if answer_raw is not None and answer_raw != "0" and not answer:
        notes.append(Notice("answer_ignored", {"value": str(answer_raw)[:20]}))
    return on, guess, answer, notes


def write_link(on: bool, guess: Guess | None, answer: bool) -> dict[str, str]:
    """The link's predict keys for the mode, the guess and whether the answer is shown ({} when the mode is off)."""
    if not on:
        return {}
    out = {ON: "1"}
    if guess is not None:
        out[GUESS] = f"{guess.query + 1}" if guess.key is None else f"{guess.query + 1}.{guess.key + 1}.{guess.share}"
        if answer and guess.key is not None:
            out[ANSWER] = "1"
    return out
