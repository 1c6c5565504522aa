"""Colour ranges that hold while a lesson is explored. NumPy only.

A heatmap on a diverging scale maps a value to a colour through its range ±zmax. When the range follows the data
(±max|M|), editing one cell recolours every other cell although its number did not change, and students read the new
colour as a new number. So each lesson's heatmaps keep a range fixed for the lesson's *setup* (preset, sentence,
sizes, seed: what a student does not edit cell by cell), taken from the setup's unedited numbers; only a value
past it widens it (and the page says so, ui.draw.show_heatmap). Weights have their own fixed range 0..1.

A lesson declares its ranges with ``Lesson.color_ranges`` (state → {array name: zmax}); :func:`color_ranges` gives a
lesson's ranges, by default those of its default state's arrays.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

__all__ = ["NICE_STEPS", "nice_ceiling", "of_arrays", "color_ranges"]

NICE_STEPS = (1.0, 2.0, 2.5, 5.0, 10.0)
"""A range is one of these times a power of ten, so that its colour bar ticks are round numbers."""


def nice_ceiling(x: float) -> float:
    """The smallest number of the form s·10^k (s in NICE_STEPS) that is >= x; 1.0 for x <= 0, NaN or ±inf.

    >>> nice_ceiling(3.2), nice_ceiling(0.3), nice_ceiling(9.0), nice_ceiling(10.0), nice_ceiling(0.0)
    (5.0, 0.5, 10.0, 10.0, 1.0)
    """
    x = float(x)
    if not math.isfinite(x) or x <= 0:
        return 1.0
    k = math.floor(math.log10(x))
    for step in NICE_STEPS:
        top = step * 10.0**k
        if top >= x * (1 - 1e-12):  # 0.3 is 3·10⁻¹ up to float error
            return float(f"{top:.12g}")
    return float(f"{10.0 ** (k + 1):.12g}")


def _largest(a) -> float:
    """max |a| over its finite entries (0.0 when it has none: an all −∞ row, an empty array)."""
    arr = np.asarray(a, dtype=np.float64)
    finite = arr[np.isfinite(arr)]
    return float(np.max(np.abs(finite))) if finite.size else 0.0


def of_arrays(arrays: Mapping[str, np.ndarray], names=None) -> dict[str, float]:
    """{name: nice_ceiling(max |finite entries|)} for the named arrays (default: all of them)."""
    return {name: nice_ceiling(_largest(arrays[name])) for name in (arrays if names is None else names)}


def color_ranges(lesson, state) -> dict[str, float]:
    """A registered lesson's colour ranges for ``state``: ``lesson.color_ranges(state)`` when it declares them, else
    the ranges of its default state's arrays (fixed for the whole lesson)."""
    if lesson.color_ranges is not None:
        return dict(lesson.color_ranges(state))
    return of_arrays(lesson.arrays(lesson.default_state()))
