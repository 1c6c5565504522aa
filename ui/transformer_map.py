"""The home page's map of the Transformer (Vaswani et al. 2017, Figure 1 and 2), drawn from data: the encoder stack,
the decoder stack and what is inside every attention block, each block a link to the lesson that teaches it (a real
page link: the session, its lessons' states and the language stay) or, where no lesson covers it, saying so.

``STACKS`` is the data (no Streamlit); :func:`draw` puts it on the page. Block texts are ``home.block.<kind>`` in the
main language tables; a block's ``lesson`` is a lesson key, linked when that lesson is in ``lessons.REGISTRY``.
"""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import lessons

from .i18n import t


@dataclass(frozen=True)
class Block:
    """One block of the map: ``kind`` names its text (``home.block.<kind>``), ``lesson`` the key of the lesson that
    teaches it (None: no lesson covers it), ``role`` its look (attention, ffn, norm, io)."""

    kind: str
    lesson: str | None
    role: str


@dataclass(frozen=True)
class Stack:
    """A column of the map, its blocks listed from the top of the figure down (the output at the top, the input at
    the bottom, as in the paper's Figure 1); ``title`` is ``home.stack.<key>``."""

    key: str
    blocks: tuple[Block, ...]


_NORM = Block("norm", None, "norm")
STACKS: tuple[Stack, ...] = (
    Stack("encoder", (
        _NORM, Block("ffn", None, "ffn"), _NORM, Block("self_attention", "qkv", "attention"),
        Block("positional", "positional", "io"), Block("embed_source", None, "io"),
    )),
    Stack("decoder", (
        Block("output", None, "io"), _NORM, Block("ffn", None, "ffn"), _NORM,
        Block("cross_attention", "cross", "attention"), _NORM, Block("masked_attention", "masks", "attention"),
        Block("positional", "positional", "io"), Block("embed_target", None, "io"),
    )),
    Stack("inside", (
        Block("heads", "multihead", "attention"), Block("qkv", "qkv", "attention"),
        Block("scaling", "scaling", "attention"), Block("mask", "masks", "attention"),
    )),
)
"""The map: encoder, decoder, and the inside of one attention block."""


def linked_lessons() -> set[str]:
    """The keys of the lessons the map links to (those of STACKS that are registered)."""
    registered = {x.key for x in lessons.REGISTRY}
    return {b.lesson for s in STACKS for b in s.blocks if b.lesson in registered}


def _block(block: Block, registered: dict, n: int) -> None:
    label = t(f"home.block.{block.kind}")
    lesson = registered.get(block.lesson)
    with st.container(key=f"home-map-{block.role}-{n}"):
        if lesson is not None:
            st.page_link(lesson.page, label=label, icon=lesson.icon,
                         help=t("home.block_link", title=t(f"lesson.{lesson.key}.title")))
        else:
            st.markdown(label)
            st.caption(t("home.no_lesson"))


def draw() -> None:
    """The map: one column per stack, each block a link or a "no lesson yet" box, in a container keyed
    ``home-map`` (its blocks ``home-map-<role>-<n>``: styled by ui.draw.STYLE)."""
    registered = {x.key: x for x in lessons.REGISTRY}
    n = 0
    with st.container(key="home-map"):
        cols = st.columns([1, 1.15, 1], gap="medium")
        for col, stack in zip(cols, STACKS):
            with col:
                if stack.key == "encoder":
                    st.markdown(f"**{t('home.stack.encoder')}**")
                elif stack.key == "decoder":
                    st.markdown(f"**{t('home.stack.decoder')}**")
                else:
                    st.markdown(f"**{t('home.stack.inside')}**")
                with st.container(key=f"home-stack-{stack.key}"):  # (the stacks' blocks get arrows: ui.draw.STYLE)
                    for block in stack.blocks:
                        _block(block, registered, n)
                        n += 1
        st.caption(t("home.map_caption"))
