"""The arrays of every lesson as CSV files and as one zip (ui/exports.py, issue 25 §3): each file reads back (pandas)
to exactly the array the lesson computed, headed by the labels the lesson declares, named for the app, the lesson and
the array; a label a spreadsheet would run as a formula is written as text."""
from __future__ import annotations

import csv
import io
import zipfile
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import lessons
from ui import exports

REGISTRY = list(lessons.REGISTRY)


def _states(lesson):
    out = [lesson.default_state()]
    if lesson.widest:
        out.append(lesson.widest())
    if lesson.one_edit:
        out.append(lesson.one_edit(out[-1]))
    return out


def _read(data: bytes) -> pd.DataFrame:
    assert data.startswith(b"\xef\xbb\xbf"), "UTF-8 with a byte-order mark (Excel reads the Japanese labels)"
    return pd.read_csv(io.BytesIO(data), encoding="utf-8-sig", index_col=0,
                       keep_default_na=False, dtype={0: str})


@pytest.mark.parametrize("lesson", REGISTRY, ids=[x.key for x in REGISTRY])
def test_every_array_reads_back_exactly_from_the_zip(lesson):
    for state in _states(lesson):
        arrays = lesson.arrays(state)
        with zipfile.ZipFile(io.BytesIO(exports.zip_bytes(lesson, state))) as z:
            assert sorted(z.namelist()) == sorted(exports.csv_name(lesson.key, n) for n in arrays)
            for name, A in arrays.items():
                A = np.asarray(A, dtype=np.float64)
                frame = _read(z.read(exports.csv_name(lesson.key, name)))
                got = frame.to_numpy(dtype=np.float64)
                want = A.reshape(A.shape[0], -1)
                assert got.shape == want.shape, name
                assert np.array_equal(got, want, equal_nan=True), f"{lesson.key}/{name}: numbers changed in the CSV"
                rows, cols = exports.labels_of(lesson, state, name, A.shape)
                table = list(csv.reader(io.StringIO(z.read(exports.csv_name(lesson.key, name)).decode("utf-8-sig"))))
                assert table[0][1:] == cols, name  # as written (pandas renames a repeated header when it reads)
                assert [r[0] for r in table[1:]] == rows, name


@pytest.mark.parametrize("lesson", [x for x in REGISTRY if x.array_labels], ids=lambda x: x.key)
def test_the_headers_are_the_labels_the_lesson_declares(lesson):
    state = lesson.widest() if lesson.widest else lesson.default_state()
    for name, (rows, cols) in lesson.array_labels(state).items():
        A = np.asarray(lesson.arrays(state)[name])
        got_rows, got_cols = exports.labels_of(lesson, state, name, A.shape)
        assert got_rows == [exports.as_text(str(x)) for x in rows]
        if A.ndim == 2:
            assert got_cols == [exports.as_text(str(x)) for x in cols]


def test_the_file_names_say_the_app_the_lesson_and_the_array():
    assert exports.csv_name("qkv", "weights") == "attention-lab_qkv_weights.csv"


@pytest.mark.parametrize("label, shown", [
    ("=1+1", "'=1+1"), ("+81", "'+81"), ("-x", "'-x"), ("@SUM(A1)", "'@SUM(A1)"), ("\tcmd", "'\tcmd"),
    ("犬", "犬"), ("a=b", "a=b"), ("1", "1"), ("<b>x</b>", "<b>x</b>"),
])
def test_a_label_that_starts_like_a_formula_is_text(label, shown):
    assert exports.as_text(label) == shown


def test_hostile_tokens_stay_text_in_the_csv_and_duplicates_keep_their_rows():
    A = np.array([[0.5, -np.inf], [1e308, -1e-300]])
    fake = SimpleNamespace(key="fake", arrays=lambda s: {"scores": A},
                           array_labels=lambda s: {"scores": (["=HYPERLINK(\"http://x\")", "犬"], ["犬", "犬"])})
    frame = _read(exports.csv_bytes(fake, None, "scores"))
    assert list(frame.index) == ["'=HYPERLINK(\"http://x\")", "犬"]
    assert list(frame.columns) == ["犬", "犬.1"] or list(frame.columns) == ["犬", "犬"]  # pandas renames on reading
    assert np.array_equal(frame.to_numpy(dtype=np.float64), A)
    raw = exports.csv_bytes(fake, None, "scores").decode("utf-8-sig").splitlines()
    assert raw[0] == ",犬,犬" and raw[1].endswith(",0.5,-inf")


def test_without_declared_labels_the_rows_and_columns_are_numbered():
    fake = SimpleNamespace(key="fake", arrays=lambda s: {"v": np.arange(3.0), "m": np.ones((2, 3))},
                           array_labels=None)
    assert exports.labels_of(fake, None, "v", (3,)) == (["1", "2", "3"], ["v"])
    assert exports.labels_of(fake, None, "m", (2, 3)) == (["1", "2"], ["1", "2", "3"])
