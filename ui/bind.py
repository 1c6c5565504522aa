"""Widgets bound to a lesson's state in one call: the widget's key, its value from the state, and its change
written back through a transition.

Streamlit keeps a widget's value under its key; here that value is set from the lesson state on every run before
the widget is drawn (never through ``value=``), and the widget's ``on_change`` applies ``apply(state, value)``.
Setting it on every run, even when equal, matters: a widget whose labels change (a language switch) is a new
widget to Streamlit and would otherwise show no selection.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import streamlit as st

from .runtime import Page
from .widgets import sync

__all__ = ["control", "field", "setter", "sync"]


def control(page: Page, factory: Callable, name: str, label: str, *, value, apply: Callable, place: str = "top",
            **kwargs):
    """Draw ``factory(label, key=page.key(name), on_change=…, **kwargs)`` — st.slider, st.selectbox, a column's
    .toggle, … — showing ``value``; a change by the person runs ``page.apply(apply, new_value)`` (a refusal becomes
    a notice at ``place``). Returns the widget's value."""
    key = page.key(name)
    sync(key, value)
    return factory(label, key=key, on_change=lambda: page.apply(apply, st.session_state[key], place=place), **kwargs)


def setter(attr: str, convert: Callable = lambda v: v) -> Callable:
    """A transition that sets one attribute of a frozen state: ``setter("d_k", int)(state, "8")``."""
    return lambda state, value: replace(state, **{attr: convert(value)})


def field(page: Page, factory: Callable, attr: str, label: str, *, convert: Callable = lambda v: v, **kwargs):
    """:func:`control` for a plain state attribute: its value shown, a change stored (through ``convert``)."""
    return control(page, factory, attr, label, value=getattr(page.state, attr), apply=setter(attr, convert),
                   **kwargs)
