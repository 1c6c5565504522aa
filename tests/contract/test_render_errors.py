"""A student never sees a traceback or a server path (issue 20, hardening): an unexpected error while a page draws
becomes a message in words, in the page's language, with a way to start the lesson afresh; the details go to the
server log. Every registered lesson, both languages, the error raised at the page's first own text and at its last
(inside the page's fragments where it has them).

How the error is raised: the page script's ``t`` (``from ui.i18n import t``, bound anew on every run of the page)
is replaced by one that raises on the k-th text of the lesson's own prefix, with a message naming a server path.
The frame (app.py) and ui.runtime keep the real ``t``."""
from __future__ import annotations

import logging

import pytest
from test_pages import open_page

import lessons
import ui.i18n
import ui.runtime  # noqa: F401 -- imported (binding the real t) before any test replaces the pages' t
from ui.i18n import LANGS, table

LESSONS = pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
SECRET = "/srv/attention-lab/lesson_pages/secret.py"


def _failing_t(prefix: str, k: int, count: dict | None = None):
    """A ``t`` that raises on the k-th text of ``prefix`` (k = 0: never; it only counts, into ``count["n"]``)."""
    real = ui.i18n.t
    count = {"n": 0} if count is None else count

    def t(key, **fmt):
        if key.startswith(prefix):
            count["n"] += 1
            if count["n"] == k:
                raise RuntimeError(f'File "{SECRET}", line 3: boom')
        return real(key, **fmt)
    return t


def _own_texts(lesson, lang, monkeypatch) -> int:
    """How many texts of its own (``<key>.*``) the page asks for on its first run."""
    count = {"n": 0}
    monkeypatch.setattr(ui.i18n, "t", _failing_t(f"{lesson.key}.", 0, count))
    open_page(lesson, {"lang": lang})
    return count["n"]


def _everything_shown(at) -> str:
    kinds = ("title", "markdown", "caption", "warning", "info", "error", "header", "subheader", "exception", "code",
             "text", "toast")
    out = []
    for kind in kinds:
        for el in getattr(at, kind, []):
            out.append(str(getattr(el, "value", "")) + str(getattr(el, "message", "")) +
                       "".join(getattr(el, "stack_trace", []) or []))
    return "\n".join(out)


@LESSONS
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("where", ["first", "last"])
def test_an_error_while_a_page_draws_is_said_in_words(lesson, lang, where, monkeypatch, caplog):
    """The error at the page's first own text, and at its last (however many a page has: a fixed 12th text raised
    nothing on a small page)."""
    real = ui.i18n.t
    k = 1 if where == "first" else _own_texts(lesson, lang, monkeypatch)
    assert k >= 1, f"/{lesson.key} asks for no text of its own ({lesson.key}.*): its title at least"
    monkeypatch.setattr(ui.i18n, "t", _failing_t(f"{lesson.key}.", k))
    with caplog.at_level(logging.ERROR, logger="attention_lab"):
        at = open_page(lesson, {"lang": lang})
    shown = _everything_shown(at)
    assert not at.exception, "Streamlit's error box was shown"
    assert [e.value for e in at.error] == [table(lang)["error.unexpected"]]
    assert "Traceback" not in shown and SECRET not in shown and "boom" not in shown and "RuntimeError" not in shown
    assert at.title[0].value == table(lang)[f"{lesson.key}.title"]  # the page is there, in its language
    assert SECRET in caplog.text and "RuntimeError" in caplog.text  # the details are in the server log
    reset = [b for b in at.button if b.label == table(lang)["error.reset"]]
    assert len(reset) == 1
    if lang != "ja":  # AppTest formats a selectbox's value outside the session (in the default language) on a rerun
        return
    monkeypatch.setattr(ui.i18n, "t", real)  # the defect gone: the button starts the lesson afresh
    reset[0].click().run()
    assert not at.exception and not at.error, "the page must be usable again"
    assert at.session_state[f"{lesson.key}:state"] is not None

