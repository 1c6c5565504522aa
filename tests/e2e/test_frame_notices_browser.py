"""What the address itself gets wrong is said (issue 20's hostile trial found both opening without a word): a path
that is no page of the app opens the home page with a notice naming the path; a language given twice uses the last
one and says so. A known path or one language gives no such notice."""
from __future__ import annotations

import pytest

from ui.i18n import table

from .helpers import assert_no_exception, assert_no_page_errors, wait_for_app

EN, JA = table("en"), table("ja")
ALERT = "[data-testid='stAlert']"

CASES = [
    ("nonexistent?lang=en", EN["notice.page_not_found"].format(path="/nonexistent")),
    ("qkvv?lang=ja", JA["notice.page_not_found"].format(path="/qkvv")),
    ("?lang=ja&lang=en", EN["notice.duplicate_keys"].format(keys="lang")),
]


@pytest.mark.parametrize("path, said", CASES, ids=[c[0] for c in CASES])
def test_a_wrong_address_is_said(page, page_errors, app_server, path, said):
    page.goto(f"{app_server}/{path}")
    wait_for_app(page)
    page.locator(ALERT).first.wait_for(timeout=20_000)
    assert said in "\n".join(page.locator(ALERT).all_inner_texts())
    assert_no_exception(page)
    assert_no_page_errors(page_errors)


@pytest.mark.parametrize("path", ["positional?lang=en"])  # (every other browser test opens a right address too)
def test_a_right_address_gets_no_such_notice(page, page_errors, app_server, path):
    page.goto(f"{app_server}/{path}")
    wait_for_app(page)
    page.wait_for_timeout(1500)
    shown = "\n".join(page.locator(ALERT).all_inner_texts())
    assert "There is no page" not in shown and "ページはない" not in shown and "more than once" not in shown
    assert page.locator(".st-key-lang input[type=radio]").count() == 2  # the frame whole: the language switch drawn
    assert_no_page_errors(page_errors)
