"""The lesson plan's links in Chromium (issue 25 §4), for every registered lesson: the plan fold under the page holds
one link per question; clicking the last one opens the lesson, in the same tab, with that question's setting (the
address bar then holds exactly the question's link, which the page writes from its state) and no notice about the
link. The glossary fold is there too."""
from __future__ import annotations

from urllib.parse import urlencode

import pytest

import lessons
from ui import plan
from ui.i18n import t, table

from .helpers import assert_no_exception, query_of, wait_for_app

REGISTRY = list(lessons.REGISTRY)


def _fold(page, title: str):
    fold = page.locator("[data-testid='stExpander']").filter(has_text=title).first
    fold.scroll_into_view_if_needed()
    return fold


def _notices(page, lang: str) -> list[str]:
    """The warning boxes on the page that say something about a link (a notice.* text, its placeholders cut off)."""
    starts = {v.split("{")[0].strip() for k, v in table(lang).items() if k.startswith("notice.") and v.split("{")[0]}
    shown = page.locator("[data-testid='stAlertContentWarning']").all_inner_texts()
    return [w for w in shown if any(s and s in w for s in starts)]


@pytest.mark.parametrize("i, lesson", list(enumerate(REGISTRY)), ids=[x.key for x in REGISTRY])
def test_the_last_question_opens_its_setting(browser, app_server, i, lesson):
    lang = ("ja", "en")[i % 2]
    last = lesson.plan[-1]
    want = plan.question_params(lesson, last, lang)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{app_server}/{lesson.key}?" + urlencode({"lang": lang}))
        wait_for_app(page)
        words = _fold(page, t("glossary.title", lang=lang))
        assert words.count() == 1, "the glossary fold is missing"
        fold = _fold(page, t("plan.title", lang=lang))
        fold.locator("summary").click()
        links = fold.locator(f"a.{plan.LINK_CLASS}")
        links.first.wait_for(state="visible", timeout=10_000)
        assert links.count() == len(lesson.plan)
        assert [links.nth(k).get_attribute("data-question") for k in range(links.count())] == \
            [q.key for q in lesson.plan]
        link = links.nth(len(lesson.plan) - 1)
        assert link.get_attribute("target") == "_self"
        assert link.get_attribute("href") == plan.question_link(lesson, last, lang)
        pages_before = len(context.pages)
        wait_for_app(page)  # (a rerun still drawing the fold could replace the link under the click)
        target = link.get_attribute("href")
        link.click()
        page.wait_for_url(lambda url: url.endswith(target.split("/")[-1]) or query_of(url) == query_of(target),
                          timeout=30_000)
        wait_for_app(page)
        assert len(context.pages) == pages_before, "the link opened another tab"
        assert page.url.split("?")[0].rstrip("/").endswith(f"/{lesson.key}")
        assert query_of(page.url) == {k: [v] for k, v in want.items()}, "the page did not open the question's setting"
        assert _notices(page, lang) == []
        assert_no_exception(page)
    finally:
        context.close()
