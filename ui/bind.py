"""Widgets bound to a lesson's state in one call: the widget's key, its value from the state, and its change
written back through a transition.

Streamlit keeps a widget's value under its key; here that value is set from the lesson state before the widget is
drawn, only when it differs (:func:`ui.widgets.sync`, :func:`ui.drag.sync`; never through ``value=``, except for a
slider), and the widget's ``on_change`` applies ``apply(state, value)`` unless the change is the browser's late echo
of a value the server replaced (:mod:`ui.echo`).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from decimal import ROUND_HALF_UP, Decimal

import streamlit as st

from lessons import link

from . import drag, echo
from .i18n import t
from .numbers import num
from .runtime import Page
from .widgets import chosen_option, sync

__all__ = ["control", "field", "setter", "sync", "checked_number", "number", "text_or_default"]


def control(page: Page, factory: Callable, name: str, label: str, *, value, apply: Callable, place: str = "top",
            **kwargs):
    """Draw ``factory(label, key=page.key(name), on_change=…, **kwargs)`` — st.slider, st.selectbox, a column's
    .toggle, … — showing ``value``; a change by the person runs ``page.apply(apply, new_value)`` (a refusal becomes
    a notice at ``place``). Returns the widget's value.

    A slider (``st.slider``, ``st.select_slider``) is drawn through :func:`ui.drag.slider`: its numbers follow a
    mouse drag, and its value is written into the widget only when it differs (a select_slider too: written on every
    run, the temperature on /scaling lost key presses, issue 18).

    In presentation mode a control the lesson does not keep (:meth:`ui.runtime.Page.keeps`) is not drawn: ``value``
    is returned."""
    if not page.keeps(name):
        return value
    key = page.key(name)
    limit = kwargs.pop("max_chars", None)  # not given to the widget: see _cut
    is_slider = getattr(factory, "__name__", "") in ("slider", "select_slider")
    options = kwargs.get("options")
    if not is_slider:
        shown = None if options is None else [str(kwargs.get("format_func", str)(o)) for o in options]
        sync(key, value, _default(factory, options), shown=shown)

    def same(a, b) -> bool:  # a choice's session value may be its option's text (see chosen_option)
        if options is not None:
            a = chosen_option(a, options, kwargs.get("format_func", str))
        return drag.same(a, b)

    def changed() -> None:
        if echo.stale(key, same):
            return
        value = st.session_state[key]
        if options is not None:  # a choice: the text of an option that is gone means no new choice
            value = chosen_option(value, options, kwargs.get("format_func", str))
            if value is None:
                return
        elif isinstance(value, str):  # what is kept of it (the first ``limit`` characters) is checked, not all
            if _refused_text(page, value[:limit] if limit is not None else value, label, place):
                return
            value = _cut(page, value, limit, label, place)
        page.apply(apply, value, place=place)

    if is_slider:
        return drag.slider(factory, label, key=key, value=value, on_change=changed,
                           relay=lambda v: page.apply(apply, v, place=place), transition=apply, **kwargs)
    return factory(label, key=key, on_change=changed, **kwargs)


def _default(factory: Callable, options) -> object:
    """The value a widget made by ``factory`` has when drawn without a session value (Streamlit 1.67's defaults)."""
    name = getattr(factory, "__name__", "")
    if name in ("text_input", "text_area"):
        return ""
    if name in ("selectbox", "radio"):
        return list(options)[0] if options is not None and len(options) else None
    if name in ("toggle", "checkbox"):
        return False
    return echo.NO_DEFAULT


def _refused_text(page: Page, value: str, label: str, place: str) -> bool:
    """What a person typed holds a character no text of the app may hold (a control or text-direction character,
    :func:`lessons.link.unshowable`, the rule the same text meets in a link): refused, said in words naming the field
    and the characters (notice "text_refused" at ``place``). Returns True when refused."""
    try:
        link.check_text(value)
    except link.Refusal as e:
        page.notify("text_refused", {"label": label, "reason": t(f"reason.{e.code}", **e.args_)}, place=place)
        return True
    return False


def _cut(page: Page, value, limit: int | None, label: str, place: str):
    """A text longer than ``limit`` characters: its first ``limit`` characters, said in a notice ("text_cut").

    Streamlit's own ``max_chars`` refuses a paste that would pass the limit, so a pasted paragraph vanished without
    a word (found by a new-user trial); here the paste is kept up to the limit and the person is told."""
    if limit is None or not isinstance(value, str) or len(value) <= limit:
        return value
    page.notify("text_cut", {"label": label, "limit": limit, "typed": len(value)}, place=place)
    return value[:limit]


def setter(attr: str, convert: Callable = lambda v: v) -> Callable:
    """A transition that sets one attribute of a frozen state: ``setter("d_k", int)(state, "8")``."""
    return lambda state, value: replace(state, **{attr: convert(value)})


def field(page: Page, factory: Callable, attr: str, label: str, *, convert: Callable = lambda v: v, **kwargs):
    """:func:`control` for a plain state attribute: its value shown, a change stored (through ``convert``)."""
    return control(page, factory, attr, label, value=getattr(page.state, attr), apply=setter(attr, convert),
                   **kwargs)


def checked_number(raw, old: float, lo: float, hi: float, decimals: int) -> tuple[float, str | None]:
    """What a number field does with what was typed: (the value used, the notice code or None).

    ``raw`` is the field's value (None when emptied); ``old`` the value it showed; ``lo``..``hi`` the range;
    ``decimals`` the digits the field holds. Emptied → ``old``, "number_empty"; NaN or ±∞ → ``old``,
    "number_not_finite"; outside the range → the nearest end, "number_clamped"; more digits than the field holds
    → rounded half up (0.25 → 0.3 at 1 decimal, as the field itself displays it), "number_rounded"; else as typed."""
    if raw is None:
        return float(old), "number_empty"
    v = float(raw)
    if not math.isfinite(v):
        return float(old), "number_not_finite"
    if v < lo or v > hi:
        return float(min(max(v, lo), hi)), "number_clamped"
    used = float(Decimal(repr(v)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)) + 0.0
    return used, ("number_rounded" if used != v else None)


def number(page: Page, factory: Callable, name: str, label: str, *, value: float, lo: float, hi: float,
           apply: Callable, decimals: int = 0, step: float | None = None, help: str | None = None,
           what: str | None = None, place: str = "top", format: str | None = None, **kwargs):
    """A number field (``st.number_input`` or a column's ``.number_input``) bound to a state value, whose range is
    checked here and said in words: Streamlit's own check (``min_value``/``max_value``) shows an English-only
    tooltip and silently keeps the old value for 1e9 or −50, and an integer field reads "1e9" as 1. So the field is
    a float field without bounds; what was typed goes through :func:`checked_number`, its notice (naming ``what``,
    default ``label``) is queued at ``place``, and ``apply(state, used)`` runs with the value used (a float: convert
    it in ``apply``, e.g. ``setter("seed", int)``). The help text ends with the range and the keys the field types
    (``num.keys``): a browser's number field types nothing for a letter, so ``0x10`` arrives as 10 and the app never
    sees the x; the field says it beforehand. ``format``: how the field writes its value (default ``decimals``
    fixed decimals; "%g" drops trailing zeros, for narrow fields). Not drawn in presentation mode unless the lesson
    keeps it (:meth:`ui.runtime.Page.keeps`): then ``value`` is returned."""
    if not page.keeps(name):
        return value
    key = page.key(name)
    sync(key, float(value), None)  # the field is drawn with value=None
    shown = what or label
    rng = t("num.range", lo=num(lo, decimals), hi=num(hi, decimals)) + " " + t("num.keys")

    def changed() -> None:
        if echo.stale(key, drag.same):
            return
        raw = st.session_state.get(key)
        used, code = checked_number(raw, value, lo, hi, decimals)
        typed = "" if raw is None else num(raw, max(decimals, 6))
        args = {"label": shown, "value": typed, "lo": num(lo, decimals), "hi": num(hi, decimals),
                "used": num(used, decimals)}
        if code == "number_empty":
            page.notify("number_empty", {"label": shown, "used": args["used"]}, place=place)
        elif code == "number_not_finite":
            page.notify("number_not_finite", {"label": shown, "value": typed, "used": args["used"]}, place=place)
        elif code == "number_clamped":
            page.notify("number_clamped", {"label": shown, "value": typed, "lo": args["lo"], "hi": args["hi"],
                                           "used": args["used"]}, place=place)
        elif code == "number_rounded":
            page.notify("number_rounded", {"label": shown, "value": typed, "used": args["used"]}, place=place)
        page.apply(apply, used, place=place)

    return factory(label, key=key, value=None, step=step or 10.0**-decimals, format=format or f"%.{decimals}f",
                   help=f"{help} {rng}" if help else rng, on_change=changed, **kwargs)


def text_or_default(page: Page, factory: Callable, name: str, label: str, *, value: str, default: str,
                    apply: Callable, place: str = "top", **kwargs):
    """:func:`control` for a text whose empty value means ``default`` (a title): emptying the field shows the
    default again and says so (notice "text_default" at ``place``), instead of a silent change."""
    def applied(state, text):
        if not str(text).strip():
            page.notify("text_default", {"label": label, "default": default}, place=place)
        return apply(state, text)

    return control(page, factory, name, label, value=value, apply=applied, place=place, **kwargs)
