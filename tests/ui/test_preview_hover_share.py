"""A class moving their mice over sliders must not take the CPU their runs need (ui/preview.py, HOVER_SHARE_S): frames
asked for by a pointer passing over a slider are built only while the process's building of the last second is under
its share; a drag's own request (the press) always is, and both count."""
from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from ui import preview

NOW = 1000.0
"""The module's clock in these tests (ui.preview reads time.monotonic): stopped, so a test paused by a busy machine
sees the second it set up, not a later one."""


@pytest.fixture
def built(monkeypatch):
    calls = []

    def fake_build(page, bound, center, drawn):
        calls.append(center)
        return {"values": [center]}

    monkeypatch.setattr(preview, "build", fake_build)
    monkeypatch.setattr(preview, "_spent", preview.deque())
    monkeypatch.setattr(preview, "time", SimpleNamespace(monotonic=lambda: NOW, perf_counter=time.perf_counter))
    return calls


PAGE = SimpleNamespace(lesson=SimpleNamespace(key="k"))
BOUND = SimpleNamespace(key="s")


def test_a_hover_builds_while_the_process_is_idle(built):
    assert preview.frames(PAGE, BOUND, 1.0, {}, hover=True) == {"values": [1.0]}
    assert built == [1.0]


def test_a_busy_second_refuses_hovers_not_presses(built):
    preview._spent.extend([(NOW, preview.HOVER_SHARE_S * 0.6), (NOW, preview.HOVER_SHARE_S * 0.6)])
    assert preview.frames(PAGE, BOUND, 2.0, {}, hover=True) is None
    assert preview.frames(PAGE, BOUND, 3.0, {}) == {"values": [3.0]}  # a press: the drag has begun
    assert built == [3.0]


def test_building_older_than_a_second_no_longer_counts(built):
    preview._spent.append((NOW - 1.5, 10.0))
    assert preview.frames(PAGE, BOUND, 4.0, {}, hover=True) == {"values": [4.0]}
    assert len(preview._spent) == 1  # the old record dropped, this build's recorded


def test_every_build_is_counted(built):
    preview.frames(PAGE, BOUND, 5.0, {})
    preview.frames(PAGE, BOUND, 6.0, {}, hover=True)
    assert len(preview._spent) == 2 and all(s >= 0 for _, s in preview._spent)
