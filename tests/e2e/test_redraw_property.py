"""Redraw equals a fresh draw (issue 18): after any sequence of a lesson page's own moves, every chart on the page is
the chart a fresh load of the page's share link draws — the same charts in the same order, the same numbers and
words, the same plot area and cell-text boxes within 1 px.

On 107117a a chart redrawn in place could collapse into a strip ~64 px wide (stale colour-bar ticks kept by
Plotly.react pushed plotly's automatic margins) and stay so until a reload. The driver (tests/e2e/redraw.py: how
controls are found, what a move is, how pages are compared) is shared with tools/redraw_property.py, the long run.

* One test per registered lesson (lessons.REGISTRY, no exemption): SEQUENCES seeded random sequences of MOVES moves
  each, each sequence going on from the fresh load the one before was compared with.
* The three reproductions of issue 18 on /qkv, and what the property test found since, as their own cases.
All at 1280×720 in Japanese (the default), each page in its own tab.
"""

from __future__ import annotations

import random

import pytest

import lessons
from lessons import qkv as qkv_lesson

from . import redraw as R
from .helpers import query_of

SEQUENCES, MOVES = 1, 5  # per lesson, in `make test` (the long run: tools/redraw_property.py)
SEED = 18


def _check(outcomes: list[R.Outcome]) -> None:
    failed = [o for o in outcomes if o.failed]
    moves = sum(len(o.moves) for o in outcomes)
    skipped = sum(len(o.skipped) for o in outcomes)
    assert not failed, (f"{len(failed)} of {len(outcomes)} sequence(s): a redrawn page differs from a fresh load of "
                        f"its link (redrawn ≠ fresh):\n" + "\n\n".join(o.report() for o in failed))
    # a sequence whose moves were not done proves nothing: most of them must have been
    assert skipped * 2 <= moves, "too many moves could not be done:\n" + "\n\n".join(o.report() for o in outcomes)


@pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda lesson: lesson.key)
def test_after_random_moves_every_chart_equals_a_fresh_load_of_the_link(tabs, app_server, lesson):
    page = R.open_page(tabs, f"{app_server}/{lesson.key}")
    assert R.controls(page, lesson.key), f"/{lesson.key}: no controls found (class st-key-{lesson.key}-…)"
    outcomes = []
    try:
        for k in range(SEQUENCES):
            outcome, fresh = R.run_sequence(tabs, page, lesson.key, random.Random(f"{SEED}:{lesson.key}:{k}"),
                                            MOVES)
            page.close()
            page = fresh
            outcomes.append(outcome)
    finally:
        page.close()
    _check(outcomes)


# ---- the reproductions of issue 18 (/qkv, 1280×720, Japanese) ------------------------------------------------------
QKV = qkv_lesson.LESSON.key
TEXT = f"st-key-{QKV}-text"


def _reproduce(tabs, app_server, moves: list[R.Move], **link) -> None:
    """Do ``moves`` on a fresh /qkv page; the link must then hold ``link``'s values; then compare as above."""
    page = R.open_page(tabs, f"{app_server}/{QKV}")
    try:
        outcome, fresh = R.run_sequence(tabs, page, QKV, random.Random(0), 0, moves=moves)
        fresh.close()
    finally:
        page.close()
    assert not outcome.skipped, outcome.report()
    got = {k: query_of(outcome.link).get(k, [None])[-1] for k in link}
    assert got == link, f"the moves did not reach the state of the reproduction: {got} ≠ {link}\n{outcome.report()}"
    _check([outcome])


def test_two_sentences_typed_one_after_the_other(tabs, app_server):
    """猫が魚を食べる, Enter, then 犬が歩く, Enter: Q, K and both score heatmaps collapsed on 107117a."""
    _reproduce(tabs, app_server, [R.Move("text", TEXT, "猫が魚を食べる"), R.Move("text", TEXT, "犬が歩く")],
               t="犬が歩く")


def test_own_sentence_example_then_a_long_sentence(tabs, app_server):
    """The own-sentence example chosen, then 私は昨日友達と公園で遊んだ typed: both score heatmaps collapsed."""
    custom = list(qkv_lesson.PRESETS).index("custom")
    _reproduce(tabs, app_server, [R.Move("select", f"st-key-{QKV}-preset", custom),
                                     R.Move("text", TEXT, "私は昨日友達と公園で遊んだ")], p="custom",
               t="私は昨日友達と公園で遊んだ")


def _press(name: str, key: str) -> R.Move:
    return R.Move("slider", f"st-key-{QKV}-{name}", key)


def test_sizes_changed_d_k_then_d_model_then_d_v(tabs, app_server):
    """犬が歩く (d_model 4, d_k 5, d_v 4): d_k → 3, d_model → 5, then d_v 4 → 3: the output heatmap collapsed."""
    _reproduce(tabs, app_server, [_press("dk", "ArrowLeft"), _press("dk", "ArrowLeft"), _press("dm", "ArrowRight"),
                                     _press("dv", "ArrowLeft")], dk="3", dm="5", dv="3")


def test_weights_keep_their_column_width_when_d_v_grows(tabs, app_server):
    """Found by the property test on 057a123: six tokens, d_v 4 → 6: the output grows, the weights' share of their
    row drops from 3/5 to 1/2 in the same rerun, and Plotly.react kept the weights 482 px wide in a 402 px column."""
    _reproduce(tabs, app_server, [R.Move("text", TEXT, "a b a b a b"), _press("dv", "ArrowRight"),
                                     _press("dv", "ArrowRight")], t="a b a b a b", dv="6")


# /multihead found by the long run on ebcdc40 (seed 40, sequence 4, its 9th move): 16 tokens, weights edited, d_model
# 11 → 1. A chart's div was for a moment narrower than its margins; plotly's relayout of it threw "Something went
# wrong with axis scaling" at once instead of rejecting, inside plot.js's ResizeObserver callback: an uncaught error
# of the page (every run of it, 3 of 3). The page's state before the move, as its share link:
MULTIHEAD_NARROW = (
    "lang=ja&multihead=1&p=heads&t=the+quick+brown+fox+jumps+over+the+lazy+dog+and+the+cat+sleeps+on+the+mat&"
    "dm=11&h=6&s=0&q=4&hd=0&cell=W_Q.4.3&W_Q=11x11%3A0%2C0%2C0%2C0%2C0%2C0%2C0%2C0%2C-0.9%2C0.4%2C-0.2%2C6%2C"
    "0%2C0%2C0%2C0%2C0%2C0%2C0%2C-0.7%2C-0.2%2C-0.7%2C0%2C6%2C0%2C0%2C0%2C0%2C0%2C0%2C0.4%2C0.6%2C-0.8%2C0%2C"
    "0%2C6%2C0%2C0%2C0%2C0%2C0%2C-0.5%2C-0.3%2C-1.2%2C0%2C0%2C0%2C-0.2%2C1%2C0%2C0%2C0%2C0.4%2C-0.4%2C0.7%2C0"
    "%2C0%2C0%2C0%2C1%2C0%2C0%2C0%2C0.3%2C0.8%2C-0.1%2C0%2C0%2C0%2C0%2C1%2C0%2C0%2C0%2C0.6%2C-0.2%2C-0.8%2C0%"
    "2C0%2C0%2C0%2C1%2C0%2C0%2C0%2C1%2C-0.2%2C-0.1%2C0.3%2C-0.2%2C0.9%2C-0.2%2C-0.4%2C0%2C-0.1%2C0.2%2C-0.6%2"
    "C-0.6%2C-0.3%2C0.8%2C1.1%2C-0.1%2C1.5%2C0.5%2C-0.5%2C-0.3%2C-0.8%2C0%2C-0.4%2C0%2C-0.4%2C-0.4%2C-0.5%2C0"
    ".2%2C0.2%2C-0.5%2C0%2C0.2%2C0.8%2C0.2%2C-0.1&W_K=11x11%3A1%2C0%2C0%2C0%2C0%2C0%2C0%2C0%2C0.3%2C0.7%2C-0."
    "6%2C0%2C1%2C0%2C0%2C0%2C0%2C0%2C0%2C-0.3%2C-0.5%2C0.5%2C0%2C0%2C1%2C0%2C0%2C0%2C0%2C0%2C-0.9%2C0.1%2C0.2"
    "%2C0%2C0%2C0%2C1%2C0%2C0%2C0%2C0%2C0.1%2C-0.2%2C-0.4%2C0%2C0%2C0%2C0%2C6%2C0%2C0%2C0%2C-0.6%2C-1.1%2C-0."
    "3%2C0%2C0%2C0%2C0%2C0%2C0%2C0%2C0%2C-0.2%2C0.5%2C-0.3%2C0%2C0%2C0%2C0%2C0%2C0%2C0%2C0%2C-0.3%2C0.2%2C0.5"
    "%2C0%2C0%2C0%2C0%2C0%2C0%2C0%2C0%2C0.1%2C-0.1%2C-0.2%2C0.5%2C-0.6%2C0.4%2C-0.3%2C-0.1%2C0.1%2C0.5%2C-0.4"
    "%2C-0.1%2C0.4%2C0%2C-0.7%2C0.1%2C0.2%2C0%2C0%2C0%2C-0.8%2C-0.2%2C-0.5%2C-0.4%2C0.3%2C0.8%2C-0.5%2C0%2C-0"
    ".2%2C0.4%2C0.4%2C-0.5%2C1.1%2C0.2%2C0.1%2C0.1&W_V=11x11%3A0.3%2C0%2C0%2C0%2C0%2C0%2C0%2C0%2C0.4%2C-0.1%2"
    "C0.1%2C0%2C0%2C0%2C0%2C0%2C0%2C0%2C0%2C0.2%2C-0.2%2C-0.7%2C0%2C0%2C0%2C0%2C0%2C0%2C0%2C0%2C0.6%2C1.1%2C0"
    ".5%2C0%2C0%2C0%2C0%2C0%2C0%2C0%2C0%2C1%2C-0.5%2C0%2C1%2C0%2C0%2C0%2C1%2C0%2C0%2C0%2C-0.1%2C0.2%2C0.1%2C0"
    "%2C1%2C0%2C0%2C0%2C1%2C0%2C0%2C-0.3%2C-0.2%2C-0.2%2C0%2C0%2C1%2C0%2C0%2C0%2C1%2C0%2C0.1%2C-0.1%2C-0.1%2C"
    "0%2C0%2C0%2C1%2C0%2C0%2C0%2C1%2C0.1%2C-0.5%2C0.1%2C0.1%2C-0.3%2C1.2%2C0.2%2C0.5%2C-0.5%2C0.2%2C-0.3%2C0."
    "2%2C-1%2C-1%2C-0.2%2C0%2C-1.2%2C0%2C-0.7%2C0.2%2C-0.4%2C-0.2%2C-0.7%2C-1%2C0.2%2C-0.5%2C0.2%2C-0.4%2C0.2"
    "%2C0.1%2C0.5%2C-0.1%2C-0.1%2C0.2%2C0%2C-0.3&W_O=11x11%3A1%2C0%2C0%2C0%2C0%2C0%2C0%2C0%2C0%2C0.1%2C-0.1%2"
    "C0%2C1%2C0%2C0%2C0%2C0%2C0%2C0%2C-0.1%2C0.1%2C-0.3%2C0%2C0%2C1%2C0%2C0%2C0%2C0%2C0%2C-1.2%2C-0.4%2C0.4%2"
    "C0%2C0%2C0%2C1%2C0%2C0%2C0%2C0%2C0.4%2C0.6%2C0.3%2C0%2C0%2C0%2C0%2C1%2C0%2C0%2C0%2C-0.3%2C0.6%2C0.3%2C0%"
    "2C0%2C0%2C0%2C0%2C1%2C0%2C0%2C0.4%2C0.3%2C-0.2%2C0%2C0%2C0%2C0%2C0%2C0%2C1%2C0%2C0.3%2C0%2C0.3%2C0%2C0%2"
    "C0%2C0%2C0%2C0%2C0%2C1%2C-0.6%2C0.4%2C-0.2%2C-1.2%2C-0.1%2C-0.5%2C-0.4%2C0%2C-0.3%2C0.4%2C-0.8%2C0.7%2C-"
    "0.3%2C0.1%2C-0.1%2C-0.4%2C0%2C0.6%2C0.3%2C-0.1%2C0.7%2C0.7%2C0.2%2C-0.9%2C0.2%2C-0.2%2C0.5%2C0.3%2C0.7%2"
    "C-0.5%2C-0.2%2C0.1%2C0%2C0.5%2C-0.5%2C0.3"
)


def test_a_chart_narrower_than_its_margins_for_a_moment_raises_no_page_error(tabs, app_server):
    page = R.open_page(tabs, f"{app_server}/multihead?{MULTIHEAD_NARROW}")
    try:
        outcome, fresh = R.run_sequence(tabs, page, "multihead", random.Random(0), 0,
                                        moves=[R.Move("slider", "st-key-multihead-dm", "Home")])
        fresh.close()
    finally:
        page.close()
    assert not outcome.skipped, outcome.report()
    assert query_of(outcome.link).get("dm") == ["1"], outcome.report()
    _check([outcome])
