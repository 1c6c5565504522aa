"""Smoke test in a real browser: the app loads, runs its script, and shows no error."""

from .helpers import assert_no_exception, assert_no_page_errors, wait_for_app


def test_app_loads_without_errors(page, page_errors, app_server):
    page.goto(app_server)
    wait_for_app(page)
    assert page.locator("[data-testid='stApp']").is_visible()
    assert_no_exception(page)
    assert_no_page_errors(page_errors)
