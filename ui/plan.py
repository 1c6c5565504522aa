"""Under every lesson page, written once through the contract: the lesson plan for class
(``Lesson.plan``: 4–6 questions in teaching order, each with a link that opens the setting to show for it, made by
the lesson's own codec) and the words a student may not know (``Lesson.terms``, explained by the one glossary table
``assets/i18n/<lang>.glossary.toml``). Not drawn in presentation mode (ui.runtime.run leaves it out).

A question's link is a plain link to the lesson's own address with the question's setting as its query
(:func:`question_link`): it opens in the same tab (a new page load reads the link, as a shared link is read), and a
teacher can copy it from the fold and hand it to the class. It keeps the page's language, colour scheme and predict
mode (:func:`kept_on`); the rest of the session (other lessons' settings) starts afresh, as with any link.
Streamlit opens every Markdown link in a new tab, and ``st.page_link`` switches pages inside the session, where the
page keeps the state it already has; so the link is an ``<a target="_self">`` whose every part is escaped
(:func:`_anchor`). The rest is Markdown: the questions are our own text with emphasis (any ``<``, ``>`` or ``&`` in
them escaped, so they cannot carry HTML), the glossary is shown as plain text (:func:`ui.escape.markdown`).
"""
from __future__ import annotations

import html
from urllib.parse import urlencode

import streamlit as st

from lessons import predict as predict_link

from . import escape, predict, scheme
from .i18n import current_lang, t

PLAN_ICON = ":material/school:"
WORDS_ICON = ":material/menu_book:"
LINK_CLASS = "al-plan-link"  # the question links (tests/e2e/test_plan_browser.py finds them by it)


def question_params(lesson, question, lang: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The query of a question's link: the lesson's link of the question's state, then ``lang`` (and ``extra``: what
    the page keeps on besides, see :func:`kept_on`)."""
    return {**lesson.encode(question.state()), "lang": lang, **(extra or {})}


def question_link(lesson, question, lang: str, *, base: str = "", extra: dict[str, str] | None = None) -> str:
    """The link (``/<base>/<lesson>?…``) that opens a question's setting in ``lang``; ``base``: the server's
    ``server.baseUrlPath`` (an app mounted under a sub-path)."""
    base = base.strip("/")
    path = f"/{base}/{lesson.key}" if base else f"/{lesson.key}"
    return f"{path}?{urlencode(question_params(lesson, question, lang, extra))}"


def kept_on(page) -> dict[str, str]:
    """What a question's link keeps of the page besides its language: the colour scheme (when not the default) and
    predict mode (when it is on: the question's setting opens with its weights hidden, no guess made yet)."""
    return {**scheme.link_params(), **predict_link.write_link(predict.on(page), None, False)}


def _anchor(href: str, label: str, key: str) -> str:
    return (f'<a class="{LINK_CLASS}" data-question="{html.escape(key, quote=True)}" '
            f'href="{html.escape(href, quote=True)}" target="_self">{html.escape(label, quote=False)}</a>')


def plan_markdown(lesson, lang: str, *, base: str = "", extra: dict[str, str] | None = None) -> str:
    """The numbered questions of ``lesson.plan``, each followed by the link to its setting (Markdown with one inline
    ``<a>`` per question)."""
    lines = []
    for k, q in enumerate(lesson.plan, start=1):
        text = html.escape(t(f"{lesson.key}.plan.{q.key}", lang=lang), quote=False)
        link = _anchor(question_link(lesson, q, lang, base=base, extra=extra), t("plan.open", lang=lang), q.key)
        lines.append(f"{k}. {text}  \n{link}")
    return "\n".join(lines)


def words_markdown(terms, lang: str) -> str:
    """The glossary entries of ``terms`` as a Markdown list, each term's name in bold and its words, both plain
    text."""
    return "\n".join(f"- **{escape.markdown(t(f'glossary.{term}.name', lang=lang))}** — "
                     f"{escape.markdown(t(f'glossary.{term}.words', lang=lang))}" for term in terms)


def panel(page) -> None:
    """The two folds under a lesson page: the lesson plan (when the lesson has one) and the words (when it declares
    terms)."""
    lesson = page.lesson
    lang = current_lang()
    if lesson.plan:
        base = str(st.get_option("server.baseUrlPath") or "")
        with st.expander(t("plan.title"), icon=PLAN_ICON):
            st.caption(t("plan.help"))
            st.markdown(plan_markdown(lesson, lang, base=base, extra=kept_on(page)),
                        unsafe_allow_html=True)  # one escaped <a target="_self"> per question (module docstring)
    if lesson.terms:
        with st.expander(t("glossary.title"), icon=WORDS_ICON):
            st.markdown(words_markdown(lesson.terms, lang))
