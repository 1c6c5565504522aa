"""The share panel's QR code (issue 24, part 2), on every registered lesson: a click shows it large, and the code read
back from the screen (a screenshot of the rendered image, decoded with zxing-cpp) is exactly the panel's link. A
link too long for a readable code (the Q·K·V lesson's fullest screen: ~2,400 characters) says so and shows the
shorter link, without the typed cells. The test servers listen on loopback only, so the panel says that its link
opens on this computer only (ui/share.py; the network address is tested in tests/unit/test_share.py)."""
from __future__ import annotations

import io
import re
from urllib.parse import urlencode

import pytest
import zxingcpp
from PIL import Image
from playwright.sync_api import TimeoutError as PlaywrightTimeout

import lessons
from ui.i18n import table

from .helpers import SIDEBAR, assert_no_exception, assert_no_page_errors, query_of, share_link, wait_for_app

DIALOG = "[role='dialog']"


def read_qr(page) -> str:
    img = page.locator(f"{DIALOG} img").first
    img.wait_for(state="visible", timeout=15_000)
    page.wait_for_timeout(300)  # the dialog's opening animation
    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(img.screenshot())).convert("L"))
    assert len(found) == 1, f"{len(found)} codes read from the screen"
    return found[0].text


def open_qr(page, lang: str) -> str:
    """Open the share panel, read its link, click the QR button; returns the panel's link."""
    link = share_link(page)
    wait_for_app(page, timeout_ms=60_000)  # the rerun that opening the panel makes, done (a heavy page on a busy
    button = page.locator(SIDEBAR).get_by_role("button", name=table(lang)["share.qr_button"])  # machine: seconds)
    button.click()
    try:
        page.locator(DIALOG).wait_for(state="visible", timeout=30_000)
    except PlaywrightTimeout:  # say what the page shows rather than only that nothing came
        assert_no_exception(page)
        raise
    return link


@pytest.mark.parametrize("lesson", [x.key for x in lessons.REGISTRY])
def test_the_qr_code_on_screen_is_the_pages_link(page, page_errors, app_server, lesson):
    page.goto(f"{app_server}/{lesson}?lang=en")
    wait_for_app(page, timeout_ms=60_000)
    link = open_qr(page, "en")
    assert link.startswith(f"{app_server}/{lesson}?") and query_of(link) == query_of(page.url)
    assert read_qr(page) == link
    page.keyboard.press("Escape")  # the dialog closed: the panel's copy button, visible without hovering
    page.locator(DIALOG).wait_for(state="hidden", timeout=15_000)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_server)
    copy = page.locator(SIDEBAR).get_by_role("button", name=re.compile(table("en")["share.copy"]))
    copy.wait_for(state="visible", timeout=15_000)
    page.mouse.move(5, 5)  # the pointer away from the panel
    assert copy.is_visible()
    copy.click()
    page.locator(SIDEBAR).get_by_role("button", name=re.compile(table("en")["share.copied"])).wait_for(
        state="visible", timeout=10_000)  # the button says it worked
    assert page.evaluate("navigator.clipboard.readText()") == link
    assert table("en")["share.local_only"] in page.locator(SIDEBAR).inner_text()
    assert_no_exception(page)
    assert_no_page_errors(page_errors)


def test_a_link_too_long_for_a_readable_code_shows_the_shorter_one(page, page_errors, app_server):
    qkv = lessons.by_key("qkv")
    params = {"lang": "ja", **qkv.encode(qkv.widest())}
    page.goto(f"{app_server}/qkv?{urlencode(params)}")
    wait_for_app(page, timeout_ms=60_000)
    link = open_qr(page, "ja")
    assert len(link) > 1000
    dialog = page.locator(DIALOG)
    dialog.get_by_text(table("ja")["share.qr_too_long"].format(n=len(link))).wait_for(timeout=10_000)
    short = read_qr(page)
    typed = {m.key for m in qkv.link.matrices} | {"cell"}
    assert query_of(short) == {k: v for k, v in query_of(link).items() if k not in typed}
    assert short.split("?")[0] == link.split("?")[0]
    assert_no_exception(page)
    assert_no_page_errors(page_errors)
