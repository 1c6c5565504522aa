"""The scaling lesson in a real browser: move the d_k control with the keyboard and see the shares change; open
the page's own share link (the sidebar's "Share this setup" panel) in a new tab and see the same numbers;
never an exception box.

Hand-derived shares: d_k = 64 → scores [8, 2, -4] ÷ 8 → 59.0 % / 27.9 % / 13.2 %; one step left, d_k = 32 →
÷ 5.656854 → [1.414214, 0.353553, -0.707107]: e^0 = 1, e^-1.060660 = 0.346228, e^-2.121320 = 0.119873,
sum 1.466101 → 68.2 % / 23.6 % / 8.2 %.
"""
from __future__ import annotations

from .helpers import assert_no_exception, assert_no_page_errors, query_of, share_link, wait_for_app

SHARES = "h3:has-text('100%')"


def shares_text(page) -> str:
    return page.locator(SHARES).first.inner_text(timeout=10_000)


def wait_for_shares(page, must_contain: str) -> str:
    page.wait_for_function(
        "([sel, text]) => [...document.querySelectorAll('h3')].some(h => h.innerText.includes(text))",
        arg=["h3", must_contain], timeout=20_000)
    wait_for_app(page)
    return shares_text(page)


def test_dk_keyboard_changes_bars_and_link_reproduces(tabs, page, page_errors, app_server):
    page.goto(f"{app_server}/scaling")
    wait_for_app(page)
    before = wait_for_shares(page, "59.0%")
    assert "27.9%" in before and "13.2%" in before

    # the d_k select_slider: focus its thumb and press ← once (64 → 32)
    dk = page.locator("[data-testid='stSlider']").filter(has_text="d_k").first
    thumb = dk.get_by_role("slider")
    thumb.focus()
    page.keyboard.press("ArrowLeft")
    after = wait_for_shares(page, "68.2%")
    assert "23.6%" in after and "8.2%" in after and after != before
    assert_no_exception(page)

    # the page's own share link of that setup, as a person copies it from the sidebar's panel: the language, the
    # lesson's envelope, the numbers (d_k now 32; the rest the defaults: scores 8, 2, -4, dividing on, T = 1,
    # 8 keys, seed 0), and the same parameters as the address bar
    url = share_link(page)
    assert url.startswith(f"{app_server}/scaling?"), url
    assert query_of(url) == {"lang": ["ja"], "scaling": ["2"], "s1": ["8"], "s2": ["2"], "s3": ["-4"], "dk": ["32"],
                             "sc": ["1"], "T": ["1"], "n": ["8"], "seed": ["0"]}, url
    assert query_of(url) == query_of(page.url)
    # open it in a new tab and see the same numbers
    other = tabs.new_page(viewport={"width": 1400, "height": 1000})
    try:
        errors = []
        other.on("pageerror", lambda e: errors.append(e))
        other.goto(url)
        wait_for_app(other)
        again = wait_for_shares(other, "68.2%")
        assert again == after
        assert_no_exception(other)
        assert_no_page_errors(errors)
    finally:
        other.close()
    assert_no_page_errors(page_errors)


def test_english_link_with_custom_title(page, page_errors, app_server):
    page.goto(f"{app_server}/scaling?lang=en&t1=%3Cb%3ECats%3C%2Fb%3E&dk=1&sc=1")
    wait_for_app(page)
    text = wait_for_shares(page, "99.8%")
    assert "<b>Cats</b> 99.8%" in text and "Cookbook 0.2%" in text  # HTML shown as text, English defaults
    assert page.locator("h1").first.inner_text() == "Scaling and softmax"
    assert_no_exception(page)
    assert_no_page_errors(page_errors)
