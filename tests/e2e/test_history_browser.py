"""Browser history in a real browser: one entry per page, and Back goes to the previous page with its state.

Streamlit's browser code pushes a history entry for every query string the app writes, so a sidebar page switch
used to add two entries (the new page's path, then its link), every slider move one more, and the first load one;
Back then showed the same page. The frame's browser side (app.py, BROWSER_JS) turns a push that keeps the path
into a replace. Counted with ``history.length`` and walked with real ``goBack()`` / ``goForward()``.
"""
from __future__ import annotations

import time

from ui.i18n import table

from .helpers import APP_READY, SIDEBAR, assert_no_exception, assert_no_page_errors, query_of, sel, wait_for_app

JA = table("ja")


def settle(page, until, what: str, timeout_s: float = 20.0) -> None:
    """Wait until the app is at rest and ``until()`` holds (the address bar is written after the run)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if page.locator(APP_READY).count() == 1 and until():
            page.wait_for_timeout(300)  # still so a moment later
            if page.locator(APP_READY).count() == 1 and until():
                return
        page.wait_for_timeout(100)
    raise AssertionError(f"{what}: not reached; at {page.url}")


def on(page, path: str, **params) -> bool:
    """The address bar shows ``path`` with these parameters (and the page's own link envelope)."""
    q = query_of(page.url)
    return page.url.split("?")[0].endswith(path) and all(q.get(k) == [v] for k, v in params.items())


def length(page) -> int:
    return page.evaluate("history.length")


def switch(page, key: str) -> None:
    page.locator(f"{SIDEBAR} [data-testid='stSidebarNav'] a[href$='/{key}']").first.click()
    settle(page, lambda: on(page, f"/{key}", **{key: "2" if key != "masks" else "1"}), f"switch to {key}")


def test_one_history_entry_per_page_and_back_returns_to_the_previous_page_with_its_state(page, page_errors,
                                                                                           app_server):
    page.goto(app_server + "/")
    wait_for_app(page)
    settle(page, lambda: on(page, "/", lang="ja"), "first load")
    start = length(page)
    assert start == 2, "the first load added an entry of its own (about:blank, then the app: 2)"

    switch(page, "qkv")
    assert length(page) == start + 1
    thumb = page.locator(f"{sel('qkv.dk')} input[type=range]")
    thumb.focus()
    page.keyboard.press("ArrowRight")  # d_k 5 → 6: the link changes, no new entry
    settle(page, lambda: on(page, "/qkv", dk="6"), "d_k moved")
    assert length(page) == start + 1

    switch(page, "scaling")
    switch(page, "masks")
    assert length(page) == start + 3

    page.go_back()
    settle(page, lambda: on(page, "/scaling", scaling="2"), "Back to scaling")
    assert page.locator("h1").first.inner_text() == JA["scaling.title"]
    page.go_back()
    settle(page, lambda: on(page, "/qkv", dk="6"), "Back to Q·K·V with d_k 6")
    assert page.locator("h1").first.inner_text() == JA["qkv.title"]
    assert page.locator(f"{sel('qkv.dk')} input[type=range]").input_value() == "6"  # its state, not its default
    page.go_back()
    settle(page, lambda: on(page, "/", lang="ja") and "qkv" not in query_of(page.url), "Back to home")
    assert page.locator("h1").first.inner_text() == JA["home.title"]
    page.go_forward()
    settle(page, lambda: on(page, "/qkv", dk="6"), "Forward to Q·K·V")
    assert length(page) == start + 3  # walking the history adds nothing
    assert_no_exception(page)
    assert_no_page_errors(page_errors)


def test_a_shared_link_opened_adds_no_entry_and_keeps_its_numbers(page, page_errors, app_server):
    page.goto(app_server + "/qkv?lang=en&qkv=2&p=dog&dm=4&dk=7&dv=4&s=0&m=xw&q=1")
    wait_for_app(page)
    settle(page, lambda: on(page, "/qkv", dk="7", q="1", lang="en"), "shared link")
    assert length(page) == 2
    page.locator(f"{SIDEBAR} [data-testid='stSidebarNav'] a[href$='/masks']").first.click()
    settle(page, lambda: on(page, "/masks", masks="1", lang="en"), "switch to masks")
    page.go_back()
    settle(page, lambda: on(page, "/qkv", dk="7", q="1"), "Back to the shared link's page")
    assert length(page) == 3
    assert_no_exception(page)
    assert_no_page_errors(page_errors)


# Streamlit's order on a loaded machine, replayed: the new page's link written first (on the old path: a replace),
# the frame told that link (data.link), then Streamlit's push of the new page's path with the query it held before.
RACE_JS = """(masksLink) => {
  const F = window.__attentionLabFrame;
  history.pushState({}, "", location.pathname + "?" + masksLink);
  F.link = { page: "masks", query: masksLink };
  F.mend();
  history.pushState({}, "", "/masks?lang=en&qkv=2&p=dog&dk=7&q=1");
  return location.pathname + location.search;
}"""


def test_a_page_switch_whose_link_came_first_still_shows_the_new_pages_link(page, page_errors, app_server):
    """Seen once in a full test run (2026-12-04): after a switch from a shared /qkv link to /masks the address bar
    showed /masks with /qkv's link (the new page's path came after its link). The frame's browser side gives such a
    push the link the server wrote for that page."""
    page.goto(app_server + "/qkv?lang=en&qkv=2&p=dog&dm=4&dk=7&dv=4&s=0&m=xw&q=1")
    wait_for_app(page)
    settle(page, lambda: on(page, "/qkv", dk="7", q="1", lang="en"), "shared link")
    # the frame's browser side is drawn last, in the sidebar: told /qkv's link
    told = "() => { const F = window.__attentionLabFrame; return F && F.link && F.link.page === 'qkv'; }"
    page.wait_for_function(told, timeout=30_000)
    masks_link = "lang=en&masks=1&t=a+b"
    assert page.evaluate(RACE_JS, masks_link) == "/masks?" + masks_link
    # a push to another page than the one whose link was written last is left as Streamlit made it
    assert page.evaluate("() => { history.pushState({}, '', '/scaling?lang=en&z=1'); return location.search; }"
                         ) == "?lang=en&z=1"
    assert_no_page_errors(page_errors)
