"""Every lesson's "NumPy code" (``Lesson.code``, lessons/code.py; issue 25 §3), for every registered lesson (a lesson
without one fails here): the generated script runs on its own
(a fresh Python with NumPy, in a subprocess) and prints the same weights and output the lesson computes, for the
lesson's fixed states and for a few random ones (valid links, then the lesson's own transitions).

What must be printed: every array of ``arrays(state)`` whose name starts or ends with "weights" or "output"; every
printed array must be one of ``arrays(state)`` and equal it to the 6 decimals printed.
"""
from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lesson_strategies import fixed_states
from test_contract import valid_state
from test_transitions import walk

import lessons
from lessons import code as C

LESSONS = pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
HEAD = re.compile(r"^(\w+) \((\d+)x(\d+)\)$")


def run_script(text: str, tmp_path) -> dict[str, np.ndarray]:
    path = tmp_path / "lesson.py"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", str(path)], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path, env={"PYTHONIOENCODING": "utf-8"})
    assert done.returncode == 0, f"the script failed:\n{done.stderr[-2000:]}"
    out, name, rows = {}, None, []
    for line in done.stdout.splitlines():
        head = HEAD.match(line)
        if head:
            name, rows = head.group(1), []
            out[name] = (int(head.group(2)), int(head.group(3)), rows)
        elif line.startswith("  ") and name:
            rows.append([float(x) for x in line.split()])
    return {k: np.array(r, dtype=np.float64).reshape(n, m) for k, (n, m, r) in out.items()}


def required(arrays: dict) -> set[str]:
    return {n for n in arrays if n.startswith(("weights", "output")) or n.endswith(("weights", "output"))}


def check(lesson, state, tmp_path) -> None:
    assert lesson.code is not None, f"{lesson.key} declares no code (Lesson.code)"
    text = lesson.code(state)
    printed = run_script(text, tmp_path)
    arrays = lesson.arrays(state)
    if not arrays:  # nothing on the page to compute (/masks with both sentences emptied): the script runs all the same
        return
    assert printed, "the script printed nothing"
    assert required(arrays) <= set(printed), f"not printed: {sorted(required(arrays) - set(printed))}"
    for name, got in printed.items():
        assert name in arrays, f"{name} is not an array of the lesson"
        want = np.atleast_2d(np.asarray(arrays[name], dtype=np.float64))
        if want.shape[0] != got.shape[0] and want.shape[0] == 1:
            want = want.T
        assert got.shape == want.shape, (name, got.shape, want.shape)
        finite = np.isfinite(want)
        assert np.array_equal(np.isfinite(got), finite), f"{name}: not the same cells are infinite"
        assert np.allclose(got[finite], want[finite], rtol=0, atol=6e-7), f"{name}: the script's numbers differ"
        assert np.array_equal(got[~finite], want[~finite]), name


@LESSONS
def test_the_script_prints_the_lessons_numbers(lesson, tmp_path):
    for state in fixed_states(lesson):
        check(lesson, state, tmp_path)


@LESSONS
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_script_prints_the_numbers_of_random_states(lesson, data, tmp_path):
    start = valid_state(lesson, data)
    check(lesson, ([start] + list(walk(lesson, start, data, 0, 3)))[-1], tmp_path)  # the last state reached


def test_a_token_is_text_in_the_script(tmp_path):
    """A hostile token cannot end the string it is written in: it is printed back as typed."""
    token = "'); import os; print('pwned'); ('\"\"\"\\"
    body = "n = len(tokens)\nweights = np.ones((1, n)) / n"
    text = C.script("a\"\"\"b\\c\nd", "x.py", {"tokens": [token, "犬"]}, body + "\nprint(tokens[0])", ["weights"])
    path = tmp_path / "x.py"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", str(path)], capture_output=True, text=True, timeout=60,
                          env={"PYTHONIOENCODING": "utf-8"})
    assert done.returncode == 0, done.stderr
    assert "pwned" not in done.stdout.replace(token, "")
    assert token in done.stdout


def test_literals_read_back_exactly():
    A = np.array([[0.1, -np.inf], [1e308, 5e-324]])
    assert np.array_equal(eval(C.literal(A), {"np": np}), A)  # noqa: S307 -- our own literal, checked here
    assert eval(C.literal(["犬", "a'b"]), {}) == ["犬", "a'b"]  # noqa: S307
