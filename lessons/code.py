"""A lesson's numbers as a standalone NumPy script a student can run at home (issue 25 §3, "NumPy code"), written
once: a lesson's ``Lesson.code`` gives its inputs (the state's matrices, exactly) and the few lines of NumPy that
compute what the page shows from them; :func:`script` writes the whole file around them.

The script needs Python 3 and NumPy only. It prints each array it names as ``<name> (rows×cols)`` followed by its
rows, 6 decimals each (tests/contract/test_code.py runs every lesson's script and compares the printout with the
lesson's own arrays). Every value is written with ``repr`` (the shortest text that reads back as the same float64),
every label with ``repr`` too (a token is text in the script, never code).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

HEADER = '''"""Attention Lab: {title}

This script rebuilds, with NumPy alone, the numbers the page showed when it was saved, and prints them.
Run it with:  python {file_name}
"""
import numpy as np


def softmax(z, axis=-1):
    """Row-wise softmax; a row whose entries are all -inf (nothing to attend to) gives all zeros."""
    z = np.asarray(z, dtype=np.float64)
    top = np.max(z, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.exp(z - top)
    total = np.sum(e, axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def show(name, M):
    """Print an array: its name and shape, then one line per row (6 decimals)."""
    M = np.atleast_2d(np.asarray(M, dtype=np.float64))
    print(f"{{name}} ({{M.shape[0]}}x{{M.shape[1]}})")
    for row in M:
        print("  " + "  ".join(f"{{v:.6f}}" for v in row))
'''


def literal(value) -> str:
    """A Python literal for an array (np.array([...]) with every float as repr), a number, a string, None or a list
    of them (tokens: repr, so a token is always text)."""
    if isinstance(value, np.ndarray):
        A = np.asarray(value, dtype=np.float64)
        return f"np.array({_nested(A.tolist())})"
    if value is None or isinstance(value, str):
        return repr(value)
    if isinstance(value, bool | int):
        return repr(value)
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, Sequence):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    raise TypeError(f"no literal for {type(value).__name__}")


def _number(v: float) -> str:
    if v != v:
        return "np.nan"
    if v in (float("inf"), float("-inf")):
        return "np.inf" if v > 0 else "-np.inf"
    return repr(float(v))


def _nested(x) -> str:
    if isinstance(x, list):
        return "[" + ", ".join(_nested(v) for v in x) + "]"
    return _number(float(x))


def script(title: str, file_name: str, inputs: Mapping[str, object], body: str, shown: Sequence[str]) -> str:
    """The whole script: a header (softmax, show), ``inputs`` as assignments (name = literal), ``body`` (NumPy lines
    using the inputs and ``softmax``), then ``show(name, name)`` for each name of ``shown`` (names the body assigns,
    each also a key of the lesson's ``arrays``). ``title``: one line saying the lesson and the setup (plain text:
    it is written inside the script's docstring with any quotes and backslashes neutralised)."""
    safe = title.replace("\\", "/").replace('"""', "'''").replace("\n", " ")
    lines = [HEADER.format(title=safe, file_name=file_name), "", "# ---- the page's inputs ----"]
    lines += [f"{name} = {literal(value)}" for name, value in inputs.items()]
    lines += ["", "# ---- the computation ----", body.strip("\n"), "", "# ---- what the page shows ----"]
    lines += [f"show({name!r}, {name})" for name in shown]
    return "\n".join(lines) + "\n"


def short_sentence(tokens, limit: int = 40) -> str:
    """The tokens joined by spaces for a script's title, cut to ``limit`` characters with "…" (one plain line)."""
    text = " ".join(tokens) or "(no tokens)"
    return text if len(text) <= limit else text[:limit - 1] + "…"


def file_name(lesson_key: str) -> str:
    """"attention-lab_qkv.py": the app and the lesson."""
    return f"attention-lab_{lesson_key}.py"
