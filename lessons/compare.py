"""Compare two settings of a lesson, A and B (issue 25 part 2): the difference of one array and its largest change,
and A's place in the link. NumPy only.

The link carries the comparison as ``compare=1``, ``pin=<A's lesson link, URL-encoded>`` (absent until A is pinned)
and ``arr=<array name>`` (the array compared; absent for the lesson's first choice); ``ui/compare.py`` draws it.
"""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode

import numpy as np

from .link import Notice

__all__ = ["ON", "PIN", "ARRAY", "MAX_PIN_CHARS", "Difference", "difference", "pin_text", "read_pin"]

ON, PIN, ARRAY = "compare", "pin", "arr"
"""The link keys (lessons.link.IGNORED_KEYS: the frame's, in every lesson's link)."""
MAX_PIN_CHARS = 8_000
"""Longest A read from a link (a 16×16 lesson's whole link is about 3,000 characters)."""


@dataclass(frozen=True)
class Difference:
    """B − A of one array of the same shape in both (2-D; a vector is one row). ``delta``: float64, B − A where both
    are finite, 0 where both are −∞ (masked in both), −∞ where only one is (masked in one: no difference to write).
    ``largest``: (row, col) of the largest |B − A| among the finite cells, or None when none differs; ``a``, ``b``:
    the values there."""

    delta: np.ndarray
    largest: tuple[int, int] | None
    a: float
    b: float


def as_rows(x: np.ndarray) -> np.ndarray:
    """An array as a matrix: a vector is one row."""
    x = np.asarray(x, dtype=np.float64)
    return x.reshape(1, -1) if x.ndim == 1 else x


def difference(a: np.ndarray, b: np.ndarray, tol: float = 1e-12) -> Difference | None:
    """B − A cell by cell (see :class:`Difference`); None when the shapes differ (another sentence, another size):
    they are not compared cell by cell."""
    A, B = as_rows(a), as_rows(b)
    if A.shape != B.shape or A.ndim != 2:
        return None
    finite = np.isfinite(A) & np.isfinite(B)
    both_masked = np.isneginf(A) & np.isneginf(B)
    delta = np.where(finite, B - A, np.where(both_masked, 0.0, -np.inf))
    mag = np.where(finite, np.abs(B - A), -1.0)
    if mag.size == 0 or mag.max() <= tol:
        return Difference(delta, None, 0.0, 0.0)
    i, j = np.unravel_index(int(np.argmax(mag)), mag.shape)
    return Difference(delta, (int(i), int(j)), float(A[i, j]), float(B[i, j]))


def pin_text(params: dict[str, str]) -> str:
    """A's lesson link (``Lesson.encode``) as the value of ``pin``."""
    return urlencode(params)


def read_pin(text) -> tuple[dict[str, list[str]] | None, list[Notice]]:
    """``pin``'s value → A's link parameters ({key: [values]}, for ``Lesson.decode``), or None with a notice
    (``pin_bad``) when it is too long or not a query string."""
    text = str(text)
    if len(text) > MAX_PIN_CHARS:
        return None, [Notice("pin_bad", {"value": text[:20] + "…"})]
    try:
        params = parse_qs(text, keep_blank_values=True, strict_parsing=True, max_num_fields=400)
    except ValueError:
        return None, [Notice("pin_bad", {"value": text[:20]})]
    return params, []
