"""The lessons of Attention Lab, in teaching order, and what they share (the contract, the link codec, cell rules).

NumPy only: never imports streamlit, plotly or pandas. ``REGISTRY`` is the one list the router, the home page, the
language-table checks and the contract tests iterate; adding a lesson means writing its module, its page and its
language tables, and adding it here.
"""
from __future__ import annotations

from .base import Lesson
from .masks import LESSON as MASKS
from .multihead import LESSON as MULTIHEAD
from .positional import LESSON as POSITIONAL
from .qkv import LESSON as QKV
from .scaling import LESSON as SCALING

REGISTRY: list[Lesson] = [QKV, SCALING, MASKS, MULTIHEAD, POSITIONAL]
"""The lessons in teaching order (a list, so a test can register a throwaway lesson for the duration of a test)."""

PLANNED = ("cross",)
"""Lessons the home page announces as coming (texts planned.<key>), until a lesson with that key is in REGISTRY."""


def by_key(key: str) -> Lesson:
    """The registered lesson with this key. Raises KeyError."""
    for lesson in REGISTRY:
        if lesson.key == key:
            return lesson
    raise KeyError(key)


__all__ = ["Lesson", "REGISTRY", "PLANNED", "by_key"]
