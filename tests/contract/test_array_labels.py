"""Every array a lesson shows is labelled (``Lesson.array_labels``, lessons/base.py), for every registered lesson.

The exports write these labels as the CSV files' row and column headers (ui/exports.py). Oracle: the contract's
docstring: one (rows, columns) pair for exactly the arrays of ``arrays(state)``, as many labels as the array has rows
and columns (a 1-D array: no column labels), every label a ``str`` or a (text key, args) pair found in both
language tables, and the tokens of the state's sentence on
the rows of at least one array of a lesson that has a sentence (``n_tokens``). Checked on the default state, the
widest, one edit of each, and states reached by random valid links and random sequences of the lesson's transitions.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lesson_strategies import fixed_states
from test_contract import valid_state
from test_transitions import walk

import lessons
from attention_core.tokens import tokenize
from lessons.base import widest_text
from ui import i18n

LESSONS = pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
SEQUENCES = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def texts_tokens(state) -> list[list[str]]:
    """The tokens of every text the state holds (its ``str`` attributes: the sentences among them)."""
    values = ([getattr(state, f.name) for f in dataclasses.fields(state)] if dataclasses.is_dataclass(state)
              else list(vars(state).values()))
    return [list(tokenize(v).tokens) for v in values if isinstance(v, str)]


def _text_key(x) -> bool:
    """Whether ``x`` is a (text key, args) label whose key is in both language tables and takes its args."""
    if not (isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) and isinstance(x[1], dict)):
        return False
    for lang in ("ja", "en"):
        text = i18n.table(lang).get(x[0])
        if text is None or not i18n.label(x, lang).strip():
            return False
    return True


def check_labels(lesson, state) -> dict:
    """The contract's rules for ``array_labels(state)``; returns the labels."""
    arrays = lesson.arrays(state)
    if not arrays:
        return {}
    assert lesson.array_labels is not None, f"{lesson.key}: declare Lesson.array_labels (it shows arrays)"
    labels = lesson.array_labels(state)
    missing, extra = sorted(set(arrays) - set(labels)), sorted(set(labels) - set(arrays))
    assert not missing and not extra, f"{lesson.key}: unlabelled arrays {missing}, labels of no array {extra}"
    for name, A in arrays.items():
        rows, cols = labels[name]
        bad = [x for x in (*rows, *cols) if type(x) is not str and not _text_key(x)]
        assert not bad, f"{lesson.key}/{name}: labels that are neither str nor a text key in both languages: " \
                        f"{bad[:3]!r}"
        A = np.asarray(A)
        assert A.ndim in (1, 2), f"{lesson.key}/{name}: {A.ndim}-D"
        assert len(rows) == A.shape[0], f"{lesson.key}/{name}: {len(rows)} row labels for {A.shape}"
        want_cols = A.shape[1] if A.ndim == 2 else 0
        assert len(cols) == want_cols, f"{lesson.key}/{name}: {len(cols)} column labels for {A.shape}"
    if lesson.n_tokens is not None and lesson.n_tokens(state):
        n = lesson.n_tokens(state)
        sentences = [toks for toks in texts_tokens(state) if len(toks) == n]
        assert any(list(rows) == toks for rows, _ in labels.values() for toks in sentences), \
            f"{lesson.key}: no array has the sentence's {n} tokens as its row labels"
    return labels


@LESSONS
def test_every_array_is_labelled_in_the_fixed_states(lesson):
    for state in fixed_states(lesson):
        check_labels(lesson, state)


@LESSONS
def test_the_widest_sentence_labels_rows_token_by_token(lesson):
    """Lesson.widest types :func:`widest_text` into its sentences: its tokens, the long one and all, are row labels."""
    if lesson.n_tokens is None:
        pytest.skip(f"{lesson.key} has no sentence")
    labels = check_labels(lesson, lesson.widest())
    toks = list(tokenize(widest_text()).tokens)
    assert any(list(rows) == toks for rows, _ in labels.values()), f"{lesson.key}: no rows labelled {toks}"


@LESSONS
@SEQUENCES
@given(data=st.data())
def test_every_array_is_labelled_after_random_transitions(lesson, data):
    start = valid_state(lesson, data)
    check_labels(lesson, start)
    for state in walk(lesson, start, data, 1, 4):
        check_labels(lesson, state)


def test_qkv_default_labels_by_hand():
    """「犬が歩く」 (lessons/qkv.py, preset "dog": d_model = 4, d_k = 5, d_v = 4): the tokens on both axes of the
    weights, the dimensions on X's columns and on both axes of W_Q."""
    qkv = lessons.by_key("qkv")
    state = qkv.default_state()
    labels = qkv.array_labels(state)
    toks = ["犬", "が", "歩く"]
    assert [list(x) for x in labels["weights"]] == [toks, toks]
    assert [list(x) for x in labels["X"]] == [toks, ["1", "2", "3", "4"]]
    assert [list(x) for x in labels["W_Q"]] == [["1", "2", "3", "4"], ["1", "2", "3", "4", "5"]]
    assert [list(x) for x in labels["output"]] == [toks, ["1", "2", "3", "4"]]
    assert "mask" not in labels  # the causal switch is off
