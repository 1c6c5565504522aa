"""Which registered lessons a collected test touches, for ``pytest --lesson KEY`` (``make test-lesson KEY=…``).

A test touches lesson ``k`` when any of these holds:
- one of its parameters is that lesson (a ``lessons.base.Lesson``), an object whose ``key`` is ``k`` (a browser
  suite's case), or a string holding ``k`` as a word (``"masks"``, ``"/masks"``, ``"masks.arrays: …"``), alone or
  inside a tuple or list: every registry-wide suite parametrized over ``lessons.REGISTRY``;
- its file lies in ``tests/<k>/``, or its file name or its function's name holds ``k`` as a word
  (``test_qkv_browser.py``, ``test_cross_multihead.py``: both cross and multihead; ``test_masks_fit_their_cells``);
- it carries ``@pytest.mark.lesson("k", …)``.

A test that touches no lesson (the link codec, the number rule, the deploy files) is not selected by ``--lesson``.
Nothing here names a lesson: the keys come from the registry."""
from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def registered_keys() -> set[str]:
    import lessons

    return {lesson.key for lesson in lessons.REGISTRY}


def _words(text: str) -> set[str]:
    return set(re.split(r"[^a-z0-9]+", text.lower()))


def _keys_in(value, keys: set[str]) -> set[str]:
    if isinstance(value, str):
        return _words(value) & keys
    if isinstance(value, tuple | list):
        return set().union(*(_keys_in(v, keys) for v in value)) if value else set()
    key = getattr(value, "key", None)  # a Lesson, or a suite's case that names its lesson
    return {key} & keys if isinstance(key, str) else set()


def lessons_of(item, keys: set[str]) -> set[str]:
    """The keys of the registered lessons the collected test ``item`` touches (see the module's docstring)."""
    found: set[str] = set()
    for mark in item.iter_markers("lesson"):
        found |= set(mark.args)
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        for value in callspec.params.values():
            found |= _keys_in(value, keys)
    path = Path(item.path).resolve()
    if path.is_relative_to(TESTS):
        rel = path.relative_to(TESTS)
        found |= set(rel.parts[:-1]) & keys
        found |= _words(rel.stem) & keys
    found |= _words(getattr(item, "originalname", "") or item.name.split("[")[0]) & keys
    return found


def check_option(config) -> None:
    """A usage error, before any collection, when ``--lesson`` names a key that is not registered."""
    wanted = set(config.getoption("lesson") or ())
    keys = registered_keys() if wanted else set()
    unknown = wanted - keys
    if unknown:
        import pytest

        raise pytest.UsageError(f"--lesson {', '.join(sorted(unknown))}: not a registered lesson "
                                f"(registered: {', '.join(sorted(keys))})")


def select(config, items) -> None:
    """Keep only the tests that touch the lessons named by ``--lesson``."""
    wanted = set(config.getoption("lesson") or ())
    if not wanted:
        return
    keys = registered_keys()
    kept, dropped = [], []
    for item in items:
        (kept if lessons_of(item, keys) & wanted else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept
