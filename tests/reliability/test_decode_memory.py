"""Decoding a link never allocates beyond the link's limits, for every registered lesson (issue 10, section 3).

The limits (lessons/link.py): at most MAX_QUERY_CHARS characters in all, MAX_VALUE_CHARS per value, MAX_PARAMS
parameters; a matrix's shape is checked against the state before any of its values is read. So the worst link a
person can send costs a bounded amount of memory to decode, whatever it claims (a "99x99:" matrix, ten thousand
commas, a million-character value). Measured with tracemalloc: the peak while decoding stays under a budget that
is a small multiple of the link's own size, far from what the claimed sizes would need.
"""
from __future__ import annotations

import tracemalloc

import pytest
from reliability_kit import LESSONS

import lessons
from lessons import link

BUDGET = 256 * 1024  # bytes: the longest readable link is 20,000 characters


def worst_links(lesson) -> dict[str, dict]:
    ns = {lesson.key: str(lesson.link.version)}
    key = sorted(lesson.link.keys)[0]
    mats = [m.key for m in lesson.link.matrices] or [key]
    many_commas = ",".join(["1e300"] * (link.MAX_VALUE_CHARS // 6))
    return {
        "claims 99x99": {**ns, **{m: "99x99:" + many_commas for m in mats}},
        "values at the value limit": {**ns, **{k: "9" * link.MAX_VALUE_CHARS for k in sorted(lesson.link.keys)[:3]}},
        "one value of a million characters": {**ns, key: "x" * 1_000_000},
        "parameters at the limit": {**ns, **{f"k{i}": "1" * 150 for i in range(link.MAX_PARAMS - 1)}},
        "ten thousand parameters": {**ns, **{f"k{i}": "1" for i in range(10_000)}},
    }


@LESSONS
@pytest.mark.parametrize("kind", list(worst_links(lessons.by_key("toy"))))  # the same kinds for every lesson
def test_decoding_the_worst_links_stays_within_a_small_budget(lesson, kind):
    params = worst_links(lesson)[kind]
    others = [x for x in lessons.REGISTRY if x is not lesson]
    lesson.decode({lesson.key: str(lesson.link.version)}, others)  # warm caches (tokenizer, presets) first
    tracemalloc.start()
    try:
        state, notes = lesson.decode(params, others)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert notes, kind  # it was said
    assert peak < BUDGET, f"{kind}: decoding peaked at {peak / 1e6:.1f} MB"
