"""Language tables: t(key, **fmt) over assets/i18n/{ja,en}.toml. Japanese is the default language."""
from __future__ import annotations

import os
import threading
import tomllib
from functools import cache
from pathlib import Path

LANGS = ("ja", "en")
DEFAULT_LANG = "ja"
_DIR = Path(__file__).resolve().parent.parent / "assets" / "i18n"
EXTRA_ENV = "ATTN_LAB_EXTRA_LESSONS"  # = lessons.EXTRA_ENV (ui.i18n does not import the lessons)


def _flatten(d: dict, prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


@cache
def table(lang: str) -> dict[str, str]:
    """All strings of one language as a flat {dotted.key: text} dict, from assets/i18n/<lang>.toml and any
    assets/i18n/<lang>.<part>.toml (one file per lesson keeps tables small), and the ``<lang>.*.toml`` of the folder of
    extra lessons named by ATTN_LAB_EXTRA_LESSONS (see lessons/__init__.py). Raises FileNotFoundError for a
    language without a main table, ValueError for a key defined in two files."""
    files = [_DIR / f"{lang}.toml", *sorted(_DIR.glob(f"{lang}.*.toml"))]
    extra = os.environ.get(EXTRA_ENV, "").strip()  # the extra lessons' folder (lessons.EXTRA_ENV) has its own
    if extra:
        files += sorted(Path(extra).glob(f"{lang}.*.toml"))
    out: dict[str, str] = {}
    for path in files:
        with open(path, "rb") as f:
            part = _flatten(tomllib.load(f))
        twice = out.keys() & part.keys()
        if twice:
            raise ValueError(f"{path.name} defines keys already defined elsewhere: {sorted(twice)[:5]}")
        out.update(part)
    return out


_run = threading.local()  # the language read in this thread's current script run: (the run's cursors, language)


def current_lang() -> str:
    """The language of this session ("ja" unless the user chose otherwise); "ja" outside Streamlit.

    Read from the session state once per script run (a page asks ~120 times per rerun, ~3 µs each through
    st.session_state): a run is told apart by its ScriptRunContext's cursors, a new dict at the start of every run.
    The language only changes between runs (the sidebar's radio, or app.py before anything is written)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx(suppress_warning=True)
        seen = getattr(_run, "seen", None)
        if ctx is not None and seen is not None and seen[0] is ctx.cursors:
            return seen[1]
        import streamlit as st

        chosen = st.session_state.get("lang")
        lang = chosen if chosen in LANGS else DEFAULT_LANG
        if ctx is not None and chosen is not None:  # (before app.py has set it on a first visit: not kept)
            _run.seen = (ctx.cursors, lang)
        return lang
    except Exception:  # outside a Streamlit run (unit tests of figure builders)
        return DEFAULT_LANG


def t(key: str, /, lang: str | None = None, **fmt) -> str:
    """The text for ``key`` in ``lang`` (default: the session's), with ``{placeholders}`` filled from fmt.
    ``key`` is positional-only, so a placeholder may itself be called {key}. A missing key shows as the key
    itself (tests keep both tables complete)."""
    text = table(lang or current_lang()).get(key, key)
    return text.format(**fmt) if fmt else text


def label(x, lang: str | None = None) -> str:
    """A label a lesson gives (``Lesson.array_labels``) as text: a ``str`` as it is (a
    typed token, an index), a ``(text key, args)`` pair (a word of the language tables, e.g. a book's default title)
    in ``lang`` (default: the session's)."""
    if isinstance(x, tuple):
        key, args = x
        return t(key, lang=lang, **args)
    return str(x)
