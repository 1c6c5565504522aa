"""The lessons of Attention Lab, in teaching order, and what they share (the contract, the link codec, cell rules).

NumPy only: never imports streamlit, plotly or pandas. ``REGISTRY`` is the one list the router, the home page, the
language-table checks and the contract tests iterate; adding a lesson means writing its module, its page and its
language tables, and adding it here.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from .base import Lesson
from .cross import LESSON as CROSS
from .masks import LESSON as MASKS
from .multihead import LESSON as MULTIHEAD
from .positional import LESSON as POSITIONAL
from .qkv import LESSON as QKV
from .scaling import LESSON as SCALING
from .training import LESSON as TRAINING

EXTRA_ENV = "ATTN_LAB_EXTRA_LESSONS"
"""An environment variable naming a folder of extra lessons: its ``lessons.py`` lists them in ``LESSONS`` (pages and
``<lang>.*.toml`` language tables beside it, read by ui.i18n). They are registered after the app's own, so a lesson
can be tried without changing a file here; the tests register tests/throwaway this way."""


def _extra_lessons() -> list[Lesson]:
    folder = os.environ.get(EXTRA_ENV, "").strip()
    if not folder:
        return []
    spec = importlib.util.spec_from_file_location("attn_lab_extra_lessons", Path(folder) / "lessons.py")
    if spec is None or spec.loader is None:
        raise ImportError(f"{EXTRA_ENV}={folder!r}: no lessons.py there")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return list(module.LESSONS)


REGISTRY: list[Lesson] = [QKV, SCALING, MASKS, MULTIHEAD, POSITIONAL, CROSS, TRAINING]
"""The lessons in teaching order (a list, so a test can register a throwaway lesson for the duration of a test),
then the extra ones of ``ATTN_LAB_EXTRA_LESSONS``."""

PLANNED: tuple[str, ...] = ()
"""Lessons the home page announces as coming (texts planned.<key>), until a lesson with that key is in REGISTRY."""


def by_key(key: str) -> Lesson:
    """The registered lesson with this key. Raises KeyError."""
    for lesson in REGISTRY:
        if lesson.key == key:
            return lesson
    raise KeyError(key)


__all__ = ["Lesson", "REGISTRY", "PLANNED", "by_key"]

REGISTRY += _extra_lessons()  # last: an extra lesson module imports this package
