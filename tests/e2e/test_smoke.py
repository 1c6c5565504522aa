"""Smoke test in a real browser: the home page loads, runs its script, shows no error and fetches nothing from
elsewhere, in both languages. Every lesson page's requests are checked on every case of test_screens_browser.py."""

from .helpers import assert_no_exception, assert_no_page_errors, wait_for_app

PATHS = ["/", "/?lang=en"]
"""The home page in both languages."""


def test_app_loads_without_errors(page, page_errors, app_server):
    page.goto(app_server)
    wait_for_app(page)
    assert page.locator("[data-testid='stApp']").is_visible()
    assert_no_exception(page)
    assert_no_page_errors(page_errors)


def test_no_page_fetches_anything_from_outside_the_app(page, page_errors, app_server):
    """A class room may be offline: the home page works from the app's own server (a material-symbol page icon
    once made each page fetch its favicon from fonts.gstatic.com)."""
    outside: list[str] = []
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith(app_server) else None)
    for path in PATHS:
        page.goto(app_server + path)
        wait_for_app(page)
        page.locator("h1").first.wait_for(timeout=15_000)
        page.wait_for_timeout(500)  # the favicon and lazy assets are requested after the first paint
        assert_no_exception(page)
    assert not [u for u in outside if not u.startswith(("data:", "blob:"))], outside
    icon = page.locator("link[rel~='icon']").first.get_attribute("href") or ""
    assert icon.startswith("data:image/svg+xml;base64,"), icon[:80]  # the app's own icon, not a fallback
    assert_no_page_errors(page_errors)
