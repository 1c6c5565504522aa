"""The home page's map and the cross-attention page in a real browser: a click on the map's source–target attention
block lands on /cross, whose weights are the 3 × 4 case worked out here from e⁴ (three target queries, three source
keys and a padded key at exactly 0); the switch to self-attention on the target gives the causal 3 × 3 weights of
the same W, also from e⁴; every registered lesson is linked from the home page's main area (not only the sidebar)."""
from __future__ import annotations

import math

import lessons

from .helpers import APP_READY, assert_no_exception, assert_no_page_errors, sel, wait_chart, wait_for_app

E4 = math.exp(4.0)


def as_text(rows) -> list[str]:
    return [f"{v:.2f}" for row in rows for v in row]


HI, LO = E4 / (E4 + 2), 1 / (E4 + 2)
CROSS = [[LO, HI, LO, 0.0], [HI, LO, LO, 0.0], [LO, LO, HI, 0.0]]  # the ↔ が, dog ↔ 犬, walks ↔ 歩く; PAD 0
SELF = [[1.0, 0.0, 0.0], [1 / (1 + E4), E4 / (1 + E4), 0.0], [LO, LO, HI]]  # causal: row i sees 1..i


def test_map_block_opens_the_cross_page_and_the_switch_changes_where_k_v_come_from(page, page_errors, app_server):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_server}/?lang=en")
    wait_for_app(page)
    main = page.locator("[data-testid='stMain']")
    hrefs = [a.get_attribute("href") or "" for a in main.locator("a").all()]
    for lesson in lessons.REGISTRY:  # every lesson linked from the page itself (the map and the list)
        assert any(h.split("?")[0].rstrip("/").split("/")[-1] == lesson.key for h in hrefs), (lesson.key, hrefs)
    block = page.locator(f"{sel('home-map')} a:visible", has_text="Source–target attention")
    block.scroll_into_view_if_needed()
    block.click()
    page.wait_for_url("**/cross**", timeout=30_000)
    wait_for_app(page)
    page.locator(f"{sel('cross.fig.weights')} .heatmap-label text").first.wait_for(timeout=30_000)
    assert as_text(CROSS)[4:8] == ["0.96", "0.02", "0.02", "0.00"]
    wait_chart(page, "cross.fig.weights", as_text(CROSS), timeout_s=20)
    page.locator(sel("cross.mode")).get_by_text("Self-attention on the target").click()
    page.wait_for_selector(APP_READY, timeout=30_000)
    wait_chart(page, "cross.fig.weights", as_text(SELF), timeout_s=20)
    assert "m=self" in page.url
    assert_no_exception(page)
    assert_no_page_errors(page_errors)
