"""Numbers a person types or a link carries into a matrix cell: one set of rules for every lesson.

NumPy only. A refused value raises :class:`Refusal` (a ValueError) whose ``code`` names the reason in the language
tables (``reason.<code>``) and whose ``args`` fill it, so the page can say in words what was wrong.
"""
from __future__ import annotations

import re
import unicodedata

import numpy as np

__all__ = ["CELL_LIMIT", "Refusal", "check_cell", "checked_matrix", "with_one_cell", "placed_matrix", "placed_cell",
           "parse_number", "parse_cell_text"]

CELL_LIMIT = 1000.0
"""Largest |value| a matrix cell may hold: keeps every product finite (16·1000² per entry at most)."""

_NUMBER = re.compile(r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$")
"""What a person means as a number: 1, -2.5, .5, 3., 1e-3. Not Python's extras (1_0, 0x1f, 'infinity')."""
_NOT_FINITE = re.compile(r"^[+-]?(nan|inf|infinity|∞)$", re.I)
_MINUS_SIGNS = str.maketrans({"\u2212": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u30fc": "-"})


class Refusal(ValueError):
    """A refused value. ``code`` names the reason in the language tables (reason.<code>); ``args`` fill it."""

    def __init__(self, code: str, **args):
        super().__init__(f"{code}: {args}")
        self.code, self.args_ = code, args


def check_cell(value, limit: float = CELL_LIMIT) -> float:
    """A cell value (a number, or a string a machine wrote, e.g. a link) as float64, |value| <= ``limit``.

    Strings must be plain decimals (``_NUMBER``): "1_0", "0x10" or " 1 2" are refused although Python's float()
    takes some of them.

    Raises:
        Refusal with code "not_number", "not_finite" or "too_big" (|value| > limit).
    """
    shown = None  # the value as the refusal names it: as typed, or the float's shortest repr
    if isinstance(value, str):
        text = value.strip()
        shown = text[:40]
        if _NOT_FINITE.match(text):
            raise Refusal("not_finite", value=value[:40])
        if not _NUMBER.match(text):
            raise Refusal("not_number", value=value[:40])
        value = text
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise Refusal("not_number", value=str(value)[:40]) from None
    if not np.isfinite(v):
        raise Refusal("not_finite", value=str(value)[:40])
    if abs(v) > limit:
        raise Refusal("too_big", value=shown or repr(v), limit=f"{limit:g}")  # (1000.0000001 is not "1000")
    return v + 0.0  # -0.0 → 0.0


def checked_matrix(name: str, M, want: tuple[int, int], limit: float = CELL_LIMIT) -> np.ndarray:
    """Matrix ``name`` as a new float64 array of shape ``want`` whose every cell passes :func:`check_cell`.

    Raises:
        Refusal: "invalid" (not numbers), "shape" (another shape, e.g. a grid drawn before a size changed; args got,
        want as "RxC"), or a cell's refusal with matrix, row, col (from 0) added.
    """
    try:
        arr = np.array(M, dtype=np.float64)
    except (TypeError, ValueError):
        raise Refusal("invalid") from None
    if arr.shape != tuple(want):
        raise Refusal("shape", got="x".join(str(k) for k in arr.shape), want=f"{want[0]}x{want[1]}")
    for (i, j), v in np.ndenumerate(arr):
        try:
            check_cell(float(v), limit)
        except Refusal as e:
            e.args_.update(matrix=name, row=i, col=j)
            raise
    return arr + 0.0


def with_one_cell(M: np.ndarray, name: str, i: int, j: int, v: float) -> np.ndarray:
    """A copy of matrix ``name`` with cell (i, j) set to ``v`` (already checked). Raises Refusal "outside" for a cell
    outside the matrix (a slider drawn for a cell that a new size removed), with matrix, row, col (from 1), shape."""
    if not (0 <= i < M.shape[0] and 0 <= j < M.shape[1]):
        raise Refusal("outside", matrix=name, row=int(i) + 1, col=int(j) + 1, shape=f"{M.shape[0]}x{M.shape[1]}")
    out = M.copy()
    out[i, j] = v
    return out


def placed_matrix(mats: dict, names, name: str, M, shape_of) -> dict:
    """``mats`` (name → matrix) with matrix ``name`` replaced by ``M``, checked (:func:`checked_matrix`) against the
    shape ``shape_of(name)`` gives: a lesson's ``with_matrix``. Raises Refusal "invalid" for a name not in ``names``,
    or checked_matrix's refusal."""
    if name not in names:
        raise Refusal("invalid")
    return {**mats, name: checked_matrix(name, M, shape_of(name))}


def placed_cell(mats: dict, names, name: str, i: int, j: int, value) -> dict:
    """``mats`` with cell (i, j) of matrix ``name`` set to ``value``: a lesson's ``with_cell``. Raises Refusal: a code
    of :func:`check_cell`, "invalid" for a name not in ``names``, "outside" (:func:`with_one_cell`)."""
    v = check_cell(value)
    if name not in names:
        raise Refusal("invalid")
    return {**mats, name: with_one_cell(mats[name], name, i, j, v)}


def parse_number(text: str) -> float | None:
    """A plain decimal string as float, or None (not of that form, or not finite). No limit applied."""
    text = text.strip()
    if not _NUMBER.match(text):
        return None
    v = float(text)
    return v if np.isfinite(v) else None


def parse_cell_text(text) -> float:
    """A number a person typed or pasted into a grid cell, as float.

    Full-width characters are read as their ASCII forms (NFKC: 「１．５」 → 1.5) and the minus look-alikes a
    Japanese keyboard produces (− ‒ – — ー) as "-"; surrounding spaces are ignored. Everything else goes through
    :func:`check_cell`.

    Raises:
        Refusal with code "empty" (None, or only spaces: an emptied cell), "invisible" (a character that shows
        nothing, such as a zero-width space or a text-direction mark, pasted with the number: ``chars`` names each
        one, "U+200B ZERO WIDTH SPACE"), or any code of :func:`check_cell` (whose ``value`` argument quotes the text
        as typed, at most 40 characters).
    """
    if text is None or (isinstance(text, str) and not text.strip()):
        raise Refusal("empty")
    if not isinstance(text, str):
        return check_cell(text)
    plain = unicodedata.normalize("NFKC", text).translate(_MINUS_SIGNS).strip()
    hidden = [ch for ch in dict.fromkeys(plain) if unicodedata.category(ch) in ("Cf", "Cc", "Co", "Cn", "Zl", "Zp")]
    if hidden:  # "5" + U+200B refused as "5 is not a number" read as if the 5 were refused (issue 20)
        raise Refusal("invisible", value=text.strip()[:40],
                      chars=", ".join(f"U+{ord(ch):04X} {unicodedata.name(ch, '')}".strip() for ch in hidden[:3]))
    try:
        return check_cell(plain)
    except Refusal as e:
        if "value" in e.args_:
            e.args_["value"] = text.strip()[:40]
        raise
