"""The lesson plan and the words (issue 25 §4) of every registered lesson, through its declaration (``Lesson.plan``:
4–6 :class:`~lessons.base.Question` values, ``Lesson.terms``: glossary term ids): the questions' texts in both
languages, each question's setting as a link the lesson's own codec reads back, the glossary entries, and the page
under AppTest showing both folds (ui/plan.py). Clicking a link in a browser: tests/e2e/test_plan_browser.py."""
from __future__ import annotations

import html
import re
import unicodedata
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from streamlit.testing.v1 import AppTest

import lessons
from lessons.base import Question
from ui import plan
from ui.i18n import LANGS, table

ROOT = Path(__file__).resolve().parents[2]
LESSONS = pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
TOY = lessons.by_key("toy")  # the tests' own lesson (tests/throwaway): for what the frame does alike on every page
BOTH = pytest.mark.parametrize("lang", LANGS)
TERM_KEY = re.compile(r"^glossary\.([a-z0-9_]+)\.(name|words)$")


def glossary(lang: str) -> dict[str, dict[str, str]]:
    """{term id: {"name": …, "words": …}} of the language's glossary table."""
    out: dict[str, dict[str, str]] = {}
    for key, text in table(lang).items():
        m = TERM_KEY.match(key)
        if m:
            out.setdefault(m.group(1), {})[m.group(2)] = text
    return out


def unread_emphasis(text: str) -> list[str]:
    """The ``**`` runs of ``text`` that Markdown (CommonMark's flanking rules, which Streamlit's renderer follows) would
    show as asterisks instead of opening or closing bold, in order open, close, open, …: in Japanese a ``**`` between
    a letter and a bracket (``は**「``, ``」**に``) is such a run; a space on the outer side mends it."""
    def punct(c: str) -> bool:
        return c == "" or unicodedata.category(c)[0] in "PS"

    def space(c: str) -> bool:
        return c == "" or c.isspace()

    runs = list(re.finditer(r"\*\*", text))
    bad = [] if len(runs) % 2 == 0 else ["an odd number of **"]
    for n, m in enumerate(runs):
        before = text[m.start() - 1] if m.start() else ""
        after = text[m.end()] if m.end() < len(text) else ""
        opens = not space(after) and (not punct(after) or space(before) or punct(before))
        closes = not space(before) and (not punct(before) or space(after) or punct(after))
        if not (opens if n % 2 == 0 else closes):
            bad.append(text[max(m.start() - 8, 0):m.end() + 8])
    return bad


# ---- the plan ------------------------------------------------------------------------------------------------------
@LESSONS
def test_every_lesson_has_a_plan_of_four_to_six_questions(lesson):
    assert 4 <= len(lesson.plan) <= 6, f"{lesson.key}: declare plan=PLAN with 4–6 questions, has {len(lesson.plan)}"
    assert all(isinstance(q, Question) for q in lesson.plan)
    keys = [q.key for q in lesson.plan]
    assert len(set(keys)) == len(keys), f"{lesson.key}: a question key is used twice: {keys}"
    assert all(k.isascii() and k.isidentifier() for k in keys), keys


@LESSONS
@BOTH
def test_every_question_has_its_words(lesson, lang):
    tab = table(lang)
    for q in lesson.plan:
        text = tab.get(f"{lesson.key}.plan.{q.key}", "")
        assert text.strip(), f"{lang}: no text {lesson.key}.plan.{q.key}"
        assert "<" not in text and ">" not in text, f"{lesson.key}.plan.{q.key}: Markdown emphasis only, no HTML"
        assert unread_emphasis(text) == [], f"{lang}: {lesson.key}.plan.{q.key}: ** that would show as asterisks"


def test_unread_emphasis_is_found():
    assert unread_emphasis("今度は**「歩く」の行**です") == ["今度は**「歩く」の行**"]
    assert unread_emphasis("今度は **「歩く」の行**です。**d_k を 16** に") == []
    assert unread_emphasis("**探す」**に") == ["**探す」**に"]


@LESSONS
def test_every_questions_setting_is_a_link_the_lesson_reads_back(lesson):
    links = []
    for q in lesson.plan:
        params = lesson.encode(q.state())
        state, notices = lesson.decode(params)
        assert notices == [], f"{lesson.key}.plan.{q.key}: its link gives notices {notices}"
        assert lesson.encode(state) == params, f"{lesson.key}.plan.{q.key}: its link does not reopen its setting"
        links.append(tuple(sorted(params.items())))
    assert len(set(links)) > 1, f"{lesson.key}: every question of the plan opens the same setting"


@LESSONS
@BOTH
def test_a_questions_link_is_the_lessons_path_its_setting_and_the_language(lesson, lang):
    for q in lesson.plan:
        url = plan.question_link(lesson, q, lang)
        parts = urlsplit(url)
        assert parts.path == f"/{lesson.key}" and not parts.netloc and not parts.scheme
        query = parse_qs(parts.query, keep_blank_values=True)
        assert query == {**{k: [v] for k, v in lesson.encode(q.state()).items()}, "lang": [lang]}
        assert urlsplit(plan.question_link(lesson, q, lang, base="/school/lab/")).path == f"/school/lab/{lesson.key}"


# ---- the words -----------------------------------------------------------------------------------------------------
@LESSONS
@BOTH
def test_every_term_a_lesson_declares_is_in_the_glossary(lesson, lang):
    words = glossary(lang)
    assert lesson.terms, f"{lesson.key}: declare terms=TERMS (the glossary terms its words use)"
    assert len(set(lesson.terms)) == len(lesson.terms), f"{lesson.key}: a term is listed twice"
    for term in lesson.terms:
        entry = words.get(term, {})
        assert entry.get("name", "").strip(), f"{lang}: glossary.{term}.name is missing ({lesson.key})"
        assert entry.get("words", "").strip(), f"{lang}: glossary.{term}.words is missing ({lesson.key})"


@BOTH
def test_every_glossary_term_is_used_by_a_lesson(lang):
    used = {term for x in lessons.REGISTRY for term in x.terms}
    unused = sorted(set(glossary(lang)) - used)
    assert unused == [], f"{lang}: glossary terms no lesson declares: {unused}"


@BOTH
def test_every_glossary_entry_is_complete_and_plain(lang):
    for term, entry in glossary(lang).items():
        assert set(entry) == {"name", "words"}, f"{lang}: glossary.{term} needs a name and words"
        for text in entry.values():
            assert "<" not in text and "{" not in text, f"{lang}: glossary.{term}: plain text only"


def test_the_words_are_shown_as_plain_text():
    md = plan.words_markdown(("softmax",), "en")
    assert md.startswith("- **") and "Softmax" in md and "e\\^s" in md  # its own Markdown characters escaped


# ---- the page ------------------------------------------------------------------------------------------------------
def open_page(lesson, lang: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["lang"] = lang
    at.switch_page(lesson.page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def fold(at: AppTest, title: str):
    found = [e for e in at.expander if e.label == title]
    assert len(found) == 1, f"no fold {title!r} under the page ({[e.label for e in at.expander]})"
    return found[0]


@pytest.mark.parametrize("i, lesson", list(enumerate(lessons.REGISTRY)), ids=[x.key for x in lessons.REGISTRY])
def test_the_page_shows_the_plan_with_its_links_and_the_words(i, lesson):
    lang = LANGS[i % len(LANGS)]
    tab = table(lang)
    at = open_page(lesson, lang)
    shown = "\n".join(m.value for m in fold(at, tab["plan.title"]).markdown)
    for k, q in enumerate(lesson.plan, start=1):
        assert f"{k}. {html.escape(tab[f'{lesson.key}.plan.{q.key}'], quote=False)}" in shown, q.key
        assert f'href="{html.escape(plan.question_link(lesson, q, lang))}"' in shown, q.key
    assert shown.count('target="_self"') == len(lesson.plan)
    words = "\n".join(m.value for m in fold(at, tab["glossary.title"]).markdown)
    for term in lesson.terms:
        assert plan.words_markdown((term,), lang) in words, term


@pytest.mark.parametrize("lesson", [x for x in lessons.REGISTRY if x.predict is not None][:2], ids=lambda x: x.key)
def test_the_links_keep_predict_mode_and_the_colours(lesson):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for k, v in {"lang": "en", "predict": "1", "colors": "cividis"}.items():
        at.query_params[k] = v
    at.switch_page(lesson.page)
    at.run()
    assert not at.exception
    shown = "\n".join(m.value for m in fold(at, table("en")["plan.title"]).markdown)
    for q in lesson.plan:  # the setting opens with its weights hidden, in the same colours, no guess carried over
        href = html.escape(plan.question_link(lesson, q, "en", extra={"colors": "cividis", "predict": "1"}))
        assert f'href="{href}"' in shown, q.key


def test_presentation_mode_leaves_the_plan_out():
    lesson = TOY
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["present"] = "1"
    at.switch_page(lesson.page)
    at.run()
    assert not at.exception
    labels = [e.label for e in at.expander]
    assert table("ja")["plan.title"] not in labels and table("ja")["glossary.title"] not in labels
