"""Parts of a page drawn in page order on screen but computed in another order in time.

A rerun sends its elements to the browser while the script runs (Streamlit flushes every few milliseconds, and the
browser applies what arrived in batches). What the script draws first is what the student sees change first. A
lesson's main picture (the attention weights) usually sits in the middle of its page, under the inputs; drawing it
first means its new numbers are on screen before the rest of the rerun has even been sent
(benchmarks/browser_latency.py measures key press → new weights).

``draw_parts`` reserves one empty container per part, in page order, then fills the containers: the ``first`` part
before the others. The containers are plain ``st.container()`` blocks, so the layout is that of the parts drawn one
after the other.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st


def fill_order(n: int, first: int | None) -> list[int]:
    """The order ``draw_parts`` fills ``n`` parts in: ``first`` (if given and in range), then the rest in page order.

    >>> fill_order(4, 2)
    [2, 0, 1, 3]
    """
    rest = [i for i in range(n) if i != first]
    return ([first] + rest) if first is not None and 0 <= first < n else rest


def draw_parts(parts: Sequence[Callable[[], None]], *, first: int | None = None) -> None:
    """Draw ``parts`` (callables that draw with ``st``) in page order, running ``parts[first]`` before the others.

    Raises nothing of its own; an exception of a part propagates as it would without the containers (the parts not
    filled yet stay empty)."""
    slots = [st.container() for _ in parts]
    for i in fill_order(len(parts), first):
        with slots[i]:
            parts[i]()


def keep_place(part: Callable[[], None]) -> None:
    """Draw ``part`` (which may draw nothing: an optional note) inside a container that is always there.

    Streamlit identifies an element by its place on the page: a note that appears above the charts moves every
    later element one place down, and the browser then unmounts and remounts each of them, so every chart goes
    blank for a moment (and a fragment below it gets a new id). Inside an always-present container the note takes
    no place of its own."""
    with st.container():
        part()


def sections(page, *parts: Callable) -> None:
    """Draw a page's sections, ``part(page)`` each, one after the other, each in a container of its own.

    A note or a part that comes and goes in one section (a token note, a chart drawn only for some states) then
    moves no element of the next sections, so the browser remounts none of them: a field in a later section keeps
    what is being typed into it while the run of an earlier field's change arrives (/masks lost a second sentence
    typed meanwhile, CI: test_hostile_text_browser[masks]), and its charts are redrawn in place, not rebuilt."""
    draw_parts([lambda part=part: part(page) for part in parts])
