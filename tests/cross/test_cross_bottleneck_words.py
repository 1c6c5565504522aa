"""The bottleneck section's conclusion follows its own numbers (fresh-user trial, issue 23): where attention gives the
matching word no more than the one fixed vector does (the seeded example, query "dog", 3 added words, the mean), the
page does not say that attention still picks it out; with the hand-set example it does."""
from __future__ import annotations

import sys
from pathlib import Path

import lessons
import lessons.cross as L
from ui.i18n import table

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "contract"))
from test_pages import open_page, shown_text  # noqa: E402

JA = table("ja")
PARAMS = {"lang": "ja", "cross": "1", "p": "seeded", "dm": "4", "dk": "4", "dv": "4", "sd": "0", "m": "cross",
          "pad": "1", "pm": "1", "c": "1", "q": "1", "x": "3", "b": "mean"}


def _opening(key: str) -> str:
    return JA[key].split("{")[0]  # the words before the first placeholder


def test_weak_attention_is_not_told_as_the_story():
    lesson = lessons.by_key("cross")
    state, notes = lesson.decode(PARAMS)
    assert notes == []
    b = L.bottleneck(state)
    assert b is not None and b.share_mixed <= b.share_fixed  # the case: attention no better than the mean
    text = shown_text(open_page(lesson, PARAMS))
    assert _opening("cross.bn.summary_weak") in text
    assert _opening("cross.bn.summary_mean") not in text


def test_the_hand_set_example_tells_the_story():
    lesson = lessons.by_key("cross")
    params = {k: v for k, v in PARAMS.items() if k in ("lang", "cross")}
    state, _ = lesson.decode(params)
    b = L.bottleneck(state)
    assert b is not None and b.share_mixed > b.share_fixed
    text = shown_text(open_page(lesson, params))
    assert _opening("cross.bn.summary_mean") in text and _opening("cross.bn.summary_weak") not in text
