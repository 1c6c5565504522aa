"""Every lesson's "NumPy code" (``Lesson.code``, lessons/code.py; issue 25 §3), for every registered lesson (a lesson
without one fails here): the generated script runs on its own
(a fresh Python with NumPy, in a subprocess) and prints the same weights and output the lesson computes, for the
lesson's fixed states, for a few random ones (valid links, then the lesson's own transitions) and for one with every
matrix cell near its limit.

What must be printed: every array of ``arrays(state)`` whose name starts or ends with "weights" or "output"; every
printed array must be one of ``arrays(state)`` and equal it to the 6 decimals printed, as :data:`PRINTED` and
:data:`REL` say.
"""
from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lesson_strategies import fixed_states
from test_contract import valid_state
from test_transitions import walk

import lessons
from lessons import code as C
from lessons import link

LESSONS = pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
HEAD = re.compile(r"^(\w+) \((\d+)x(\d+)\)$")

PRINTED = 5e-7
"""The absolute part of the tolerance: the script prints 6 decimals, so a printed value lies within half a unit of the
6th decimal of the value the script computed. It is the larger part for values below ~5e5 (2⁻⁴⁰·5e5 = 5e-7)."""
REL = 2.0**-40
"""The relative part: float64 rounding. A printed decimal reads back as the nearest float64 (half an ulp, 2⁻⁵³ of
the value), and the script may compute a value in another but equal form than the lesson (x / √d_k where the lesson
takes x · (1/√d_k), a sum in another order), which changes it in its last bits. From ~1e9 on a few ulps are more
than half the 6th decimal (one ulp: 2e-6 at 1e10, 2e-3 at 1e13): there only a relative tolerance is right. 2⁻⁴⁰ is
4096 ulps of slack and still checks 12 significant digits.

A softmax turns a difference δ in a score into at most 2δ·w in a weight w, and into at most 2δ·max|V| in an output.
That passes :data:`PRINTED` only where keys nearly tie (scores less than ~40 apart, so the softmax is not saturated)
at large scores (δ is a few ulps of them) and with different values. The states drawn here do not come near that (in
X·W mode two keys tie when their rows of X, and so their values, nearly do); where it happens, float64 does not
determine the lesson's own weights to 6 decimals, and no printout could match them."""


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
        g, w = got[finite], want[finite]
        off = np.abs(g - w) > PRINTED + REL * np.abs(w)
        assert not off.any(), f"{name}: the script's numbers differ (printed, lesson's): " + ", ".join(
            f"({a!r}, {b!r})" for a, b in zip(g[off][:3].tolist(), w[off][:3].tolist()))
        assert np.array_equal(got[~finite], want[~finite]), name


@LESSONS
def test_the_script_prints_the_lessons_numbers(lesson, tmp_path):
    for state in fixed_states(lesson):
        check(lesson, state, tmp_path)


def near_limit_state(lesson):
    """The lesson's default state with every number matrix (not a mask) filled with cells near its limit (at most
    ±1000, as the strategies draw them), in a fixed pattern of signs and decimals: /qkv's scaled scores reach ~2e13,
    where x / √5 and x · (1/√5) differ by one ulp, 0.004."""
    state = lesson.default_state()
    mats = {}
    for m in lesson.link.matrices:
        if isinstance(m, link.Mask):
            continue
        top = min(m.limit, 1000.0)
        i, j = np.indices(lesson.matrix_shape(state, m.key))
        mats[m.key] = np.where((i + 2 * j) % 3, 1.0, -1.0) * (top - 0.3 * ((5 * i + 3 * j) % 13))
    return lesson.with_matrices(state, mats) if mats else state


@LESSONS
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(data=st.data(), near_limit=st.just(False))
@example(data=None, near_limit=True)
def test_the_script_prints_the_numbers_of_random_states(lesson, data, near_limit, tmp_path):
    if near_limit:
        check(lesson, near_limit_state(lesson), tmp_path)
        return
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
