"""Real-browser tests of the Q·K·V page (/qkv): what a person sees, types and shares.

Covers the lesson numbers on first load, the d_k and cell sliders (keyboard), the share link round trip (K15,
incl. ?lang=en), grid edits that stick and a refused value (K14), a hostile link, a token holding HTML and an
empty sentence. Expected numbers are independent of the app's code: the 「犬が歩く」 matrices written out below,
weights from a softmax(X·W_Q (X·W_K)ᵀ / √d_k) written out in this file (numbers the seed draws, such as the new
column of a wider W_Q, are read off the page's own input heatmaps), formatted to two decimals as the heatmaps
write them; expected links are written by hand.

Waiting, without fixed sleeps: after an action the test polls until the run it caused is over and the app is at
rest — an init script counts the stApp state leaving "running", and since a fast rerun can skip that state, the
effect of the run is checked too (the frame rewrites the URL at the end of every run; a notice appears). Then
the plotly DOM is polled until the app is at rest and shows exactly one copy of the chart holding the expected
numbers (a chart being replaced is for a moment in the page twice, e.g. 18 cells of a 3×3 heatmap). Grid edits
check every step of the input (focus, selection, the editor's text, a message sent to the server) and only input
that never reached the server is tried again.

Screenshots of key moments go to $ATTN_LAB_SHOTS (default /tmp/e2e_shots).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import numpy as np
import pytest

from .helpers import (
    APP_READY,
    EXCEPTION_BOX,
    SIDEBAR,
    VIEWPORT,
    assert_no_exception,
    assert_no_page_errors,
    cells,
    chart_copies,
    hover_label,
    query_of,
    sel,
    share_link,
    wait_chart,
    wait_for_app,
)

SHOTS = Path(os.environ.get("ATTN_LAB_SHOTS") or "/tmp/e2e_shots")
TITLE_JA = "Q·K·V を一歩ずつ"
TITLE_EN = "Q·K·V step by step"
GRID_EXPANDER_JA = "行列の数字を表で編集する"
ALERT = "[data-testid='stAlert']"
WARNING = "[data-testid='stAlertContentWarning']"

# 「犬が歩く」 (the default lesson), written out: X rows 犬 [1,0,0,1], が [0,0,1,0], 歩く [0,1,0,1]; d_k = 5.
DOG_X = np.array([[1, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 1]], dtype=float)
DOG_WQ = np.array([[1, 2, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 0, 1], [1, 0, 0, 1, 0]], dtype=float)
DOG_WK = np.array([[2, 2, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 0, 1], [0, 0, 0, 1, 0]], dtype=float)
# 犬's row by hand: raw scores [9, 0, 1] → ÷√5 → softmax = 0.956, 0.017, 0.027.
DOG_WEIGHTS_ROW0 = ["0.96", "0.02", "0.03"]

RUN_COUNTER = """
window.__stRunsDone = 0;
new MutationObserver(records => {
  for (const r of records) { if (r.oldValue === 'running') window.__stRunsDone++; }
}).observe(document, {attributes: true, subtree: true, attributeOldValue: true,
                      attributeFilter: ['data-test-script-state']});
"""


# ---- helpers -----------------------------------------------------------------------------------------------------
def shot(page, name: str, locator=None) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = str(SHOTS / f"qkv_{name}.png")
    (locator or page).screenshot(path=path)


def open_qkv(page, url: str, *, heatmaps: bool = True) -> None:
    """Go to url, wait for the first script run to finish (and the weights heatmap to be drawn)."""
    page.add_init_script(RUN_COUNTER)
    track_messages(page)
    page.goto(url)
    wait_for_app(page)
    page.locator("h1").first.wait_for(timeout=15_000)
    if heatmaps and page.locator(EXCEPTION_BOX).count() == 0:
        page.locator(f"{sel('qkv.fig.weights')} .heatmap-label text").first.wait_for(timeout=20_000)


def act(page, action, until=None, timeout_s: float = 20.0) -> None:
    """Do something that reruns the script; return once that run is over and the app is at rest.

    "Over" is either signal: the run counter grew (the stApp state left "running"), or ``until()`` holds — an
    effect only a finished run has (the frame rewrites the URL at the end of every run). A fast rerun can be
    rendered without the state attribute ever showing "running", so callers pass ``until`` where they can."""
    n = page.evaluate("window.__stRunsDone")
    action()
    deadline = time.monotonic() + timeout_s
    while True:
        idle = page.locator(APP_READY).count() == 1
        if idle and (page.evaluate("window.__stRunsDone") > n or (until is not None and until())):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the app did not finish a run within {timeout_s:g}s of the action (url {page.url})")
        page.wait_for_timeout(50)


def poll(predicate, page, timeout_s: float) -> bool:
    """True as soon as predicate() holds, False after timeout_s (checked every 50 ms)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if predicate():
                return True
        except Exception:  # an element being redrawn: try again
            pass
        if time.monotonic() > deadline:
            return False
        page.wait_for_timeout(50)


_WS_SENT: dict[int, list[int]] = {}


def track_messages(page) -> None:
    """Count the messages the page sends to the server (widget changes, rerun requests)."""
    box = _WS_SENT.setdefault(id(page), [0])
    box[0] = 0
    page.on("websocket", lambda ws: ws.on("framesent", lambda _frame: box.__setitem__(0, box[0] + 1)))


def ws_sent(page) -> int:
    return _WS_SENT.get(id(page), [0])[0]


def wait_one_chart(page, key: str, n_cells: int, *, timeout_s: float = 10.0) -> list[str]:
    """Like :func:`wait_chart` when the numbers are not known yet: one copy of the chart with ``n_cells`` cells."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = cells(page, key)
        if page.locator(APP_READY).count() == 1 and chart_copies(page, key) == 1 and len(got) == n_cells:
            page.wait_for_timeout(100)
            again = cells(page, key)
            if chart_copies(page, key) == 1 and again == got:
                return got
        if time.monotonic() > deadline:
            raise AssertionError(f"{key}: wanted one chart with {n_cells} cells; saw {chart_copies(page, key)} "
                                 f"copies, {len(got)} cells {got}")
        page.wait_for_timeout(100)


def all_cells(page) -> dict[str, list[str]]:
    """Cell texts of every heatmap on the page, by chart key class."""
    keys = page.evaluate("""() => [...document.querySelectorAll('[class*="st-key-qkv-fig-"]')]
        .filter(e => e.querySelector('.heatmap-label'))
        .map(e => [...e.classList].find(c => c.startsWith('st-key-')))""")
    return {k: page.locator(f".{k} .heatmap-label text").all_text_contents() for k in keys}


def ticks(page, key: str, axis: str) -> list[str]:
    return page.locator(f"{sel(key)} .{axis}tick text").all_text_contents()


def two_decimals(v: float) -> str:
    """How a heatmap writes an ordinary number: two decimals, a real minus sign, never "−0.00"; "0.00" only for
    exactly 0, a nonzero number that rounds to it as its bound "<0.01" / ">−0.01" (the one number rule)."""
    s = f"{v:.2f}"
    if float(s) == 0:
        return "0.00" if v == 0 else ("<0.01" if v > 0 else ">−0.01")
    return s.replace("-", "−")


def weight_text(w: float) -> str:
    """How the weights heatmap writes a softmax weight of finite scores, never exactly 0 or 1: "<0.01" for one that
    rounds to 0.00, ">0.99" for one that rounds to 1.00."""
    s = f"{w:.2f}"
    return "<0.01" if s == "0.00" else ">0.99" if s == "1.00" else s


def expected(M) -> list[str]:
    """A matrix's cell texts, row by row, as its heatmap writes them."""
    return [two_decimals(v) for v in np.asarray(M, dtype=np.float64).ravel()]


def reference_weights(X, W_Q, W_K) -> np.ndarray:
    """The attention weights, written out independently of the app: Q = X·W_Q, K = X·W_K,
    softmax(Q Kᵀ / √d_k) row by row (the max subtracted before e^x)."""
    X, W_Q, W_K = (np.asarray(a, dtype=np.float64) for a in (X, W_Q, W_K))
    Q, K = X @ W_Q, X @ W_K
    scaled = Q @ K.T / np.sqrt(W_Q.shape[1])
    e = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def weights_text(X, W_Q, W_K) -> list[str]:
    return [weight_text(w) for w in reference_weights(X, W_Q, W_K).ravel()]


def shown_matrix(page, key: str, shape: tuple[int, int]) -> np.ndarray:
    """A matrix read off its heatmap (one copy, at rest). Exact for the seed's numbers, which have one decimal."""
    texts = wait_one_chart(page, key, shape[0] * shape[1])
    return np.array([float(x.replace("−", "-")) for x in texts]).reshape(shape)


def link_matrix(text: str) -> np.ndarray:
    """A matrix as a link writes it, "<rows>x<cols>:v,v,..." row-major, read back."""
    head, _, body = text.partition(":")
    r, c = (int(n) for n in head.split("x"))
    return np.array([float(v) for v in body.split(",")]).reshape(r, c)


def press_slider(page, key: str, keyname: str, param: str | None = None) -> None:
    """Focus a slider's thumb and press a key; ``param`` names the URL parameter the slider's value lands in."""
    thumb = page.locator(f"{sel(key)} input[type=range]")
    thumb.focus()
    before = page.url

    def moved():
        if param is None:
            return page.url != before
        now, was = (query_of(u).get(param, [None])[-1] for u in (page.url, before))
        return now == thumb.input_value() and now != was

    act(page, lambda: page.keyboard.press(keyname), until=moved)


def set_text(page, text: str) -> None:
    """Type a sentence into the text box and press Enter."""
    box = page.locator(f"{sel('qkv.text')} input")
    box.fill(text)
    act(page, lambda: box.press("Enter"), until=lambda: query_of(page.url).get("t", [None])[-1] == text)


def url_param(page, key: str, want: str, timeout_s: float = 5.0) -> str | None:
    """The address bar's value of ``key``, polled until it equals ``want`` (the frame rewrites the URL at the
    end of a run; the browser applies it a moment later). Returns the last value seen (None when absent)."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = query_of(page.url).get(key, [None])[-1]
        if got == want or time.monotonic() > deadline:
            return got
        page.wait_for_timeout(100)


def with_params(url: str, **changes) -> str:
    parts = urlsplit(url)
    q = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
    q.update(changes)
    return urlunsplit(parts._replace(query=urlencode(q)))


def alerts(page) -> list[str]:
    """The notices' texts as a person reads them: without the invisible word joiners (U+2060) that ui.escape puts
    after ':' and '@' in user text so that Markdown never makes it a link."""
    return [a.replace("\u2060", "") for a in page.locator(ALERT).all_inner_texts()]


def new_page(tabs, errors: list):
    """A new tab at VIEWPORT whose page errors go to ``errors`` (close it when done)."""
    pg = tabs.new_page(viewport=VIEWPORT)
    pg.on("pageerror", lambda e: errors.append(e))
    return pg


# ---- grid (st.data_editor, a glide-data-grid canvas) ---------------------------------------------------------
def grid(page, name: str):
    # The editor's key is "qkv.grid.<name>:ed<version>": the version grows when the grid restarts.
    return page.locator(f"[class*='st-key-qkv-grid-{name}-ed']")


def grid_cell_text(page, name: str, i: int, j: int) -> str:
    """What the grid shows at matrix cell (i, j), from glide's accessibility table (column 0 is the index)."""
    return grid(page, name).locator(f"[data-testid='glide-cell-{j + 1}-{i}']").inner_text()


def _select_grid_cell(page, name: str, i: int, j: int) -> bool:
    """Select matrix cell (i, j) of a grid with the keyboard; False when the input did not take effect.

    A click on the top-right data cell focuses the canvas; ArrowLeft many times lands on the index column, then
    j+1 ArrowRight and i ArrowDown reach the cell, whatever the column widths are. The focus and the selection
    are checked (glide's accessibility table marks the selected cell)."""
    g = grid(page, name)
    canvas = g.locator("canvas[data-testid='data-grid-canvas']")
    target = g.locator(f"[data-testid='glide-cell-{j + 1}-{i}']")
    page.keyboard.press("Escape")  # close a cell editor left open by a lost attempt
    page.wait_for_selector(APP_READY)
    ensure_grid_tab(page, name)
    canvas.scroll_into_view_if_needed(timeout=10_000)
    box = canvas.bounding_box()
    page.mouse.click(box["x"] + box["width"] - 12, box["y"] + 35 + 17)  # header and data rows are 35 px
    if not poll(lambda: g.evaluate("e => e.contains(document.activeElement)"), page, 1.0):
        return False  # the click did not reach the grid: arrow keys would switch the tabs instead
    for key, n in (("ArrowLeft", 20), ("ArrowRight", j + 1), ("ArrowUp", 20), ("ArrowDown", i)):
        for _ in range(n):
            page.keyboard.press(key)
    return poll(lambda: target.get_attribute("aria-selected") == "true", page, 3.0)


def _send_edit(page, press) -> bool:
    """Press the key that commits an edit; False if nothing reached the server, else wait for the run."""
    url, n_warn, sent = page.url, page.locator(WARNING).count(), ws_sent(page)
    press()
    if not poll(lambda: ws_sent(page) > sent, page, 3.0):
        return False
    act(page, lambda: None, until=lambda: page.url != url or page.locator(WARNING).count() > n_warn)
    return True


def edit_grid_cell(page, name: str, i: int, j: int, text: str, *, attempts: int = 4) -> None:
    """Select matrix cell (i, j), type ``text``, press Enter; wait for the rerun.

    Each step is checked (focus, selection, the text in the cell editor, a message sent to the server after
    Enter). The grid is redrawn a moment after each run, and input that lands during the redraw is lost before
    it reaches the server; only then is it tried again — an edit the server received is never retried, so an
    edit the app drops still fails the test."""
    editor = page.locator("input.gdg-input, textarea.gdg-input").first
    for _ in range(attempts):
        if not _select_grid_cell(page, name, i, j):
            continue
        page.keyboard.type(text[0])  # typing on a selected cell opens its editor with that character
        if not poll(lambda: editor.count() > 0 and editor.is_visible(), page, 3.0):
            continue
        # At a person's pace: typed all at once, glide now and then closed the editor on Enter without committing
        # the text (no message to the server, the cell kept its value; 4 tries in a row in 1 run of 6).
        page.keyboard.type(text[1:], delay=40)
        if not poll(lambda: editor.input_value() == text, page, 2.0):
            continue  # characters were lost while the editor opened: Escape cancels this edit
        if _send_edit(page, lambda: page.keyboard.press("Enter")):
            return
    raise AssertionError(f"could not deliver an edit of {name}[{i},{j}] to the grid in {attempts} tries")


def paste_into_grid_cell(page, name: str, i: int, j: int, text: str, attempts: int = 4) -> None:
    """Select matrix cell (i, j), put ``text`` on the clipboard and press Ctrl+V (a paste skips the number
    editor's character filter, so "1e308" arrives as typed); wait for the rerun."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    for _ in range(attempts):
        if not _select_grid_cell(page, name, i, j):
            continue
        page.evaluate("t => navigator.clipboard.writeText(t)", text)
        if _send_edit(page, lambda: page.keyboard.press("Control+V")):
            return
    raise AssertionError(f"could not paste into {name}[{i},{j}] in {attempts} tries")


def _grid_expander(page):
    return page.locator("[data-testid='stExpander']").filter(has_text=GRID_EXPANDER_JA)


def ensure_grid_tab(page, name: str) -> None:
    """The grid tab being edited is still the selected one (the tabs once jumped back to the first tab by
    themselves after a refused value; they are keyed now and must stay put)."""
    tabs = _grid_expander(page).get_by_role("tab")
    shown = tabs.filter(has=page.locator("xpath=self::*[@aria-selected='true']")).all_inner_texts()
    assert shown == [name], f"the grid tabs jumped from {name} to {shown} without a click"


def open_grid_tab(page, name: str) -> None:
    exp = _grid_expander(page)
    exp.locator("summary").click()  # the grids are built only while the expander is open (one more run)
    exp.get_by_role("tab", name=name, exact=True).click()
    page.wait_for_selector(APP_READY)
    grid(page, name).locator("[data-testid='glide-cell-1-0']").wait_for(state="attached", timeout=10_000)
    _wait_until_still(grid(page, name))


def _wait_until_still(locator, tries: int = 40) -> None:
    """Opening the expander reruns the page and mounts the grid fresh; wait until its position stops moving so
    clicks at canvas coordinates land on the intended cell."""
    last = None
    for _ in range(tries):
        box = locator.bounding_box()
        if box is not None and box == last:
            return
        last = box
        locator.page.wait_for_timeout(150)


# ---- 1. first load -----------------------------------------------------------------------------------------------
def test_loads_in_japanese_with_the_lesson_numbers(page, page_errors, app_server):
    open_qkv(page, f"{app_server}/qkv")
    assert page.get_by_role("heading", name=TITLE_JA).is_visible()
    assert page.get_by_text(GRID_EXPANDER_JA).is_visible()
    assert_no_exception(page)

    # 犬's row: raw scores 9, 0, 1 → ÷√5 → softmax = 95.6%, 1.7%, 2.7%.
    w = wait_chart(page, "qkv.fig.weights", weights_text(DOG_X, DOG_WQ, DOG_WK))
    assert w[:3] == DOG_WEIGHTS_ROW0, w
    assert cells(page, "qkv.fig.scores")[:3] == ["9.00", "0.00", "1.00"]
    assert ticks(page, "qkv.fig.weights", "y") == ["犬", "が", "歩く"]
    assert ticks(page, "qkv.fig.weights", "x") == ["犬", "が", "歩く"]
    shot(page, "01_load_ja")
    # The query's table spells the percentages out (a Markdown table).
    table = page.locator("[data-testid='stMain'] [data-testid='stMarkdownContainer'] table").last
    table.scroll_into_view_if_needed()
    cells_text = table.locator("td").all_inner_texts()
    for pct in ("95.6%", "1.7%", "2.7%"):
        assert pct in cells_text, cells_text
    shot(page, "01_query_table_ja", table)
    shot(page, "01_weights_ja", page.locator(sel("qkv.fig.weights")))

    # The sidebar radio switches to English: same numbers, English title.
    act(
        page,
        lambda: page.locator(SIDEBAR).get_by_text("English", exact=True).click(),
        until=lambda: query_of(page.url).get("lang") == ["en"],
    )
    page.get_by_role("heading", name=TITLE_EN).wait_for(timeout=10_000)
    assert wait_chart(page, "qkv.fig.weights", w) == w
    assert url_param(page, "lang", "en") == "en"
    assert_no_exception(page)
    assert_no_page_errors(page_errors)


# ---- 2. d_k slider -----------------------------------------------------------------------------------------------
def test_dk_slider_with_the_keyboard_changes_the_weights(page, page_errors, app_server):
    open_qkv(page, f"{app_server}/qkv")
    before = wait_chart(page, "qkv.fig.weights", weights_text(DOG_X, DOG_WQ, DOG_WK))
    assert page.locator(f"{sel('qkv.dk')} input[type=range]").input_value() == "5"

    press_slider(page, "qkv.dk", "ArrowRight", "dk")

    assert page.locator(f"{sel('qkv.dk')} input[type=range]").input_value() == "6"
    # W_Q and W_K keep the preset's five columns and get a sixth from the seed: read that one off the page
    W_Q, W_K = shown_matrix(page, "qkv.fig.W_Q", (4, 6)), shown_matrix(page, "qkv.fig.W_K", (4, 6))
    np.testing.assert_array_equal(W_Q[:, :5], DOG_WQ)
    np.testing.assert_array_equal(W_K[:, :5], DOG_WK)
    after = wait_chart(page, "qkv.fig.weights", weights_text(DOG_X, W_Q, W_K))
    assert after != before
    assert url_param(page, "dk", "6") == "6"
    shot(page, "02_weights_dk6", page.locator(sel("qkv.fig.weights")))
    assert_no_exception(page)
    assert_no_page_errors(page_errors)


# ---- 3. one-cell slider ----------------------------------------------------------------------------------------
def test_cell_slider_changes_the_weights(page, page_errors, app_server):
    open_qkv(page, f"{app_server}/qkv")
    before = wait_chart(page, "qkv.fig.weights", weights_text(DOG_X, DOG_WQ, DOG_WK))
    thumb = page.locator(f"{sel('qkv.cell:v')} input[type=range]")
    assert float(thumb.input_value()) == 1.0  # X, row 1 (犬), column 1
    stats = "() => ({...window.__attentionLabStats})"
    counts = page.evaluate(stats)

    press_slider(page, "qkv.cell:v", "End")  # X[0, 0] → 5

    assert float(thumb.input_value()) == 5.0
    X = DOG_X.copy()
    X[0, 0] = 5.0
    after = wait_chart(page, "qkv.fig.weights", weights_text(X, DOG_WQ, DOG_WK))
    assert after != before
    assert wait_chart(page, "qkv.fig.X", expected(X))[0] == "5.00"
    # only cells changed: the new numbers were patched into the drawn charts (ui/plot_component/assets/patch.js),
    # and a pointer over a weights cell shows the new number, not the one before
    assert page.evaluate(stats)["patched"] > counts["patched"]
    shown = hover_label(page, "qkv.fig.weights")
    assert after[0] != before[0] and after[0] in shown and before[0] not in shown, (before[0], after[0], shown)
    assert shown.count("犬") == 2, shown  # row 犬 · column 犬: the labels the payload sends once (alGrid)
    shot(page, "03_weights_cell", page.locator(sel("qkv.fig.weights")))
    assert_no_exception(page)
    assert_no_page_errors(page_errors)


STALE_WATCH = """() => {
  window.__stale = [];
  const seen = (el) => { const cs = getComputedStyle(el);
    window.__stale.push({opacity: cs.opacity, transition: cs.transitionDuration}); };
  new MutationObserver((records) => { for (const r of records) {
    if (r.target.getAttribute('data-stale') === 'true') seen(r.target); } })
    .observe(document.body, {subtree: true, attributes: true, attributeFilter: ['data-stale']});
}"""


def test_elements_waiting_for_a_rerun_are_not_faded(page, page_errors, app_server):
    """Streamlit marks the elements of a rerunning fragment stale and gives each a delayed opacity transition; the
    app's CSS (ui/draw.py STYLE) keeps them as they are: a transition made the browser paint ~50 layers before it
    read the new weights (16 tokens). On Streamlit's own style this reads transition 1s."""
    open_qkv(page, f"{app_server}/qkv")
    wait_chart(page, "qkv.fig.weights", weights_text(DOG_X, DOG_WQ, DOG_WK))
    page.evaluate(STALE_WATCH)
    press_slider(page, "qkv.dk", "ArrowRight", "dk")
    press_slider(page, "qkv.cell:v", "ArrowRight")
    seen = page.evaluate("window.__stale")
    assert seen, "no element was marked stale during two reruns (has Streamlit changed how it marks them?)"
    assert {(x["opacity"], x["transition"]) for x in seen} == {("1", "0s")}, seen[:5]
    assert_no_exception(page)
    assert_no_page_errors(page_errors)


def choose(page, key: str, option: str) -> None:
    """Open the selectbox ``key`` with the mouse and click the option whose text is ``option``."""
    box = page.locator(f"{sel(key)} input[role=combobox]")
    box.scroll_into_view_if_needed()
    shown = page.locator(sel(key))
    # (a rerun this fast may never show the app as "running": the shown choice is the sign it is over)
    act(page, lambda: (box.click(), page.get_by_role("option", name=option, exact=True).click()),
        until=lambda: box.input_value() == option or option in shown.inner_text())


def _quick_presses(page, key: str, keyname: str, n: int, param: str, want: str) -> None:
    """``n`` presses 50 ms apart, as a teacher does: each leaves before the rerun of the one before is back."""
    page.locator(f"{sel(key)} input[type=range]").focus()
    for _ in range(n):
        page.keyboard.press(keyname)
        page.wait_for_timeout(50)
    assert poll(lambda: url_param(page, param, want) == want and page.locator(APP_READY).count() == 1, page, 10.0)
    page.wait_for_timeout(1000)


def test_picking_w_qs_last_column_then_lowering_d_k_keeps_the_page_working(page, page_errors, app_server):
    """W_Q's column 5 picked, then d_k 5 → 3 quickly: the column selectbox's options shrink under its choice, and the
    browser sends back the text of a column that is gone ("5: 5"). The page crashed with a traceback (a new-user
    trial); the one-cell slider must move to W_Q's last column left, and still move the weights."""
    open_qkv(page, f"{app_server}/qkv")
    choose(page, "qkv.cell:m", "W_Q")
    choose(page, "qkv.cell:j", "5: 5")
    slider = page.locator(f"{sel('qkv.cell:v')} label").first
    assert poll(lambda: "W_Q" in slider.inner_text() and "5" in slider.inner_text(), page, 10.0), slider.inner_text()
    _quick_presses(page, "qkv.dk", "ArrowLeft", 2, "dk", "3")
    assert_no_exception(page)
    label = slider.inner_text()
    assert "W_Q" in label and "3" in label and "5" not in label, label
    before = cells(page, "qkv.fig.weights")
    press_slider(page, "qkv.cell:v", "End")
    assert poll(lambda: cells(page, "qkv.fig.weights") != before, page, 10.0)
    assert_no_exception(page)
    assert_no_page_errors(page_errors)


def test_x_s_last_column_picked_then_d_model_lowered_quickly_edits_nothing(page, page_errors, app_server):
    """X's last column picked, d_model 4 → 2 quickly: the slider of the clamped cell received the value the browser
    still had for the old cell, and Streamlit took it for a move: an IndexError (the cell was already outside X) or,
    inside X, one cell's value silently written into another (a new-user trial). Now nothing may change but the
    size: X keeps the example's first two columns, and the slider follows the page's d_model."""
    open_qkv(page, f"{app_server}/qkv")
    choose(page, "qkv.cell:j", "4: 4")
    label = page.locator(f"{sel('qkv.cell:v')} label").first
    assert poll(lambda: "4" in label.inner_text(), page, 10.0), label.inner_text()
    _quick_presses(page, "qkv.dm", "ArrowLeft", 2, "dm", "2")
    assert_no_exception(page)
    assert page.locator(f"{sel('qkv.dm')} input[type=range]").input_value() == "2"
    assert wait_chart(page, "qkv.fig.X", expected(DOG_X[:, :2]))
    assert_no_page_errors(page_errors)


@pytest.mark.parametrize("up", [250, 380])
def test_the_weights_stay_put_when_notes_appear_above_them(page, page_errors, app_server, up):
    """X[0, 0] 1.0 → 1.1 puts X, Q, K, V and the scores past their colour ranges: a note appears under four chart
    titles above the weights. The charts grew by it (50 px each) and the weights, with the cell a teacher points at,
    moved 100–150 px down at 1280×720 (a new-user trial; scroll anchoring made up for it only while the growing chart
    was partly out of view). Now a note takes its room from the chart's cells: nothing below it moves, with the scores
    row partly (up=250) or fully (up=380) in view; and not when the note goes again either."""
    page.set_viewport_size({"width": 1280, "height": 720})
    open_qkv(page, f"{app_server}/qkv")
    weights = page.locator(sel("qkv.fig.weights"))
    weights.scroll_into_view_if_needed()
    page.evaluate(f"() => {{ document.querySelector('[data-testid=stMain]').scrollTop -= {up}; }}")
    page.wait_for_timeout(500)
    top = weights.bounding_box()["y"]
    assert 300 < top < 700, top  # the weights on screen, the scores row above them
    x_chart = page.locator(sel("qkv.fig.X"))
    height = x_chart.bounding_box()["height"]
    title = x_chart.locator(".gtitle").first
    title_y = title.bounding_box()["y"]  # level with W_Q's title beside it; it dropped 25 px under a note
    page.locator(f"{sel('qkv.cell:v')} input[type=range]").evaluate("e => e.focus({preventScroll: true})")
    for key, x00, noted in (("ArrowRight", 1.1, True), ("ArrowLeft", 1.0, False)):
        page.keyboard.press(key)
        X = DOG_X.copy()
        X[0, 0] = x00
        wait_chart(page, "qkv.fig.weights", weights_text(X, DOG_WQ, DOG_WK))
        page.wait_for_timeout(500)
        note = page.evaluate("() => [...document.querySelectorAll('.st-key-qkv-fig-X .infolayer text')]"
                             ".map(t => t.textContent).join(' ')")
        assert ("±" in note) == noted, note  # the range note is there (then gone): else this proves nothing
        assert abs(x_chart.bounding_box()["height"] - height) <= 1, (height, x_chart.bounding_box()["height"])
        assert abs(weights.bounding_box()["y"] - top) <= 2, (key, top, weights.bounding_box()["y"])
        assert abs(title.bounding_box()["y"] - title_y) <= 1, (key, title_y, title.bounding_box()["y"])
    assert_no_page_errors(page_errors)


def test_a_zoom_on_the_weights_outlives_a_slider_move(page, page_errors, app_server):
    """A teacher drags over part of the weights to zoom in, then moves the cell slider: the zoom stays (it was reset
    by every move: a new-user trial) and the numbers are the new ones."""
    open_qkv(page, f"{app_server}/qkv")
    wait_chart(page, "qkv.fig.weights", weights_text(DOG_X, DOG_WQ, DOG_WK))
    chart = page.locator(sel("qkv.fig.weights"))
    chart.scroll_into_view_if_needed()
    labels = page.locator(f"{sel('qkv.fig.weights')} .heatmap-label text")
    a, b = labels.nth(0).bounding_box(), labels.nth(4).bounding_box()  # cells (1, 1) and (2, 2)
    page.mouse.move(a["x"] - 10, a["y"] - 10)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] + 10, b["y"] + b["height"] + 10, steps=8)
    page.mouse.up()
    page.wait_for_timeout(500)
    ranges = "() => { const gd = document.querySelector('.st-key-qkv-fig-weights .js-plotly-plot'); " \
             "return [gd._fullLayout.xaxis.range, gd._fullLayout.yaxis.range]; }"
    zoomed = page.evaluate(ranges)
    assert zoomed[0][1] - zoomed[0][0] < 2.5, f"the drag did not zoom: {zoomed}"
    page.locator(f"{sel('qkv.cell:v')} input[type=range]").evaluate("e => e.focus({preventScroll: true})")
    page.keyboard.press("ArrowLeft")  # X[0, 0] 1.0 → 0.9
    X = DOG_X.copy()
    X[0, 0] = 0.9
    want = weights_text(X, DOG_WQ, DOG_WK)
    assert poll(lambda: page.evaluate(
        "() => [...document.querySelectorAll('.st-key-qkv-fig-weights .heatmap-label text')].map(t => t.textContent)"
    )[:1] == want[:1], page, 10.0)
    page.wait_for_timeout(500)
    after = page.evaluate(ranges)
    assert np.allclose(after, zoomed), (zoomed, after)
    assert_no_page_errors(page_errors)


THUMB_TRACE = """(sel) => { window.__thumbs = []; const read = () => {
  const el = document.querySelector(sel + ' input[type=range]');
  if (el) window.__thumbs.push(parseFloat(el.value));
  window.__thumbRaf = requestAnimationFrame(read); }; read(); }"""


def test_quick_presses_on_the_cell_slider_all_land_and_the_thumb_never_jumps_back(page, page_errors, app_server):
    """Ten quick presses, 100 ms apart (a rerun's reply comes back between two of them): the thumb climbs 1.0 → 2.0
    without ever going back, and the numbers end at X[0, 0] = 2. A slider whose session value was written on every
    run was pushed back to the value of each rerun's own press (2.0 → 1.1 → 1.5 → 2.0) and later presses were lost
    (a new-user trial)."""
    open_qkv(page, f"{app_server}/qkv")
    wait_chart(page, "qkv.fig.weights", weights_text(DOG_X, DOG_WQ, DOG_WK))
    thumb = page.locator(f"{sel('qkv.cell:v')} input[type=range]")
    thumb.focus()
    page.evaluate(THUMB_TRACE, sel("qkv.cell:v"))
    for _ in range(10):
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(100)
    X = DOG_X.copy()
    X[0, 0] = 2.0
    wait_chart(page, "qkv.fig.weights", weights_text(X, DOG_WQ, DOG_WK), timeout_s=20)
    page.wait_for_timeout(500)
    trace = page.evaluate("() => { cancelAnimationFrame(window.__thumbRaf); return window.__thumbs; }")
    assert round(float(thumb.input_value()), 2) == 2.0
    backs = [(a, b) for a, b in zip(trace, trace[1:]) if b < a - 1e-9]
    assert not backs, f"the thumb moved back: {backs[:5]} (trace {trace[:40]})"
    assert wait_chart(page, "qkv.fig.X", expected(X))[0] == "2.00"
    assert_no_exception(page)
    assert_no_page_errors(page_errors)


def test_cell_slider_keeps_the_address_bar_and_the_open_share_panel_current(page, page_errors, app_server):
    """The cell slider reruns only the lesson part of the page (an st.fragment); the frame, which writes the
    link, does not run then. The address bar and an open share panel must still show the new numbers."""
    open_qkv(page, f"{app_server}/qkv")
    assert "X" not in query_of(page.url)
    link_before = share_link(page)  # opens the panel
    assert "X" not in query_of(link_before)
    press_slider(page, "qkv.cell:v", "End")  # X[0, 0] → 5
    want = "3x4:5,0,0,1,0,0,1,0,0,1,0,1"  # 犬 [5,0,0,1], が [0,0,1,0], 歩く [0,1,0,1]
    assert url_param(page, "X", want) == want
    panel = page.locator(SIDEBAR).locator("[data-testid='stCode'] code")
    assert poll(lambda: query_of(panel.inner_text().strip()).get("X") == [want], page, 10.0), panel.inner_text()
    assert query_of(share_link(page)) == query_of(page.url)
    shot(page, "03b_share_after_cell", page.locator(SIDEBAR))
    assert_no_exception(page)
    assert_no_page_errors(page_errors)


# ---- 4. share link round trip (K15) ------------------------------------------------------------------------------
def test_share_link_round_trip_in_a_new_tab(page, page_errors, tabs, app_server):
    open_qkv(page, f"{app_server}/qkv")
    set_text(page, "犬 が 犬")
    press_slider(page, "qkv.dk", "ArrowRight", "dk")  # d_k 5 → 6
    X = DOG_X[[0, 1, 0]]  # 犬 が 犬: the second 犬 has 犬's row
    W_Q, W_K = shown_matrix(page, "qkv.fig.W_Q", (4, 6)), shown_matrix(page, "qkv.fig.W_K", (4, 6))
    np.testing.assert_array_equal(W_Q[:, :5], DOG_WQ)
    np.testing.assert_array_equal(W_K[:, :5], DOG_WK)
    want = wait_chart(page, "qkv.fig.weights", weights_text(X, W_Q, W_K))
    assert wait_chart(page, "qkv.fig.X", expected(X))
    seen = all_cells(page)
    assert len(seen) >= 8, sorted(seen)  # X, W_Q, W_K, W_V, Q, K, V, scores, scaled, weights, out

    link = share_link(page)
    shot(page, "04_share_panel", page.locator(SIDEBAR))
    assert link.startswith(f"{app_server}/qkv?"), link
    q = query_of(link)
    assert q == {"lang": ["ja"], "qkv": ["2"], "p": ["dog"], "t": ["犬 が 犬"], "dm": ["4"], "dk": ["6"], "dv": ["4"],
                 "s": ["0"], "m": ["xw"], "q": ["0"]}, q
    assert q == query_of(page.url), "the address bar and the share panel disagree"

    errors: list = []
    for lang, title in (("ja", TITLE_JA), ("en", TITLE_EN)):
        other = new_page(tabs, errors)
        try:
            open_qkv(other, link if lang == "ja" else with_params(link, lang="en"))
            assert other.get_by_role("heading", name=title).is_visible()
            assert other.locator(f"{sel('qkv.text')} input").input_value() == "犬 が 犬"
            assert other.locator(f"{sel('qkv.dk')} input[type=range]").input_value() == "6"
            assert wait_chart(other, "qkv.fig.weights", want) == want
            assert all_cells(other) == seen
            # K09: the duplicate token keeps its own row and column.
            assert ticks(other, "qkv.fig.weights", "y") == ["犬", "が", "犬"]
            assert ticks(other, "qkv.fig.weights", "x") == ["犬", "が", "犬"]
            assert other.locator(WARNING).count() == 0, alerts(other)
            shot(other, f"04_reopened_{lang}")
            assert_no_exception(other)
        finally:
            other.close()
    assert_no_page_errors(errors)
    assert_no_page_errors(page_errors)


# ---- 5. grid edits stick (K14); a refused value ------------------------------------------------------------------
def test_grid_edits_stick_and_a_huge_value_is_refused(page, page_errors, tabs, app_server):
    open_qkv(page, f"{app_server}/qkv")
    open_grid_tab(page, "W_Q")
    W = DOG_WQ.copy()
    assert wait_chart(page, "qkv.fig.W_Q", expected(W))

    for (i, j), v in (((0, 0), 2.0), ((1, 1), 3.0), ((0, 1), 0.5)):
        edit_grid_cell(page, "W_Q", i, j, f"{v:g}")
        W[i, j] = v
        # Every edit so far is kept, not only the last one (feeding the editor its output back reverts every
        # second edit).
        assert wait_chart(page, "qkv.fig.W_Q", expected(W)), f"after setting W_Q[{i},{j}]={v:g}"
    assert W[0, 0] == 2 and W[1, 1] == 3 and W[0, 1] == 0.5
    link_w = query_of(page.url)["W_Q"][0]
    assert link_w == "4x5:2,0.5,0,0,0,0,3,1,0,0,0,0,1,0,1,1,0,0,1,0", link_w
    assert np.array_equal(link_matrix(link_w), W), link_w
    assert [grid_cell_text(page, "W_Q", i, j) for i, j in ((0, 0), (1, 1), (0, 1))] == ["2", "3", "0.5"]
    shot(page, "05_grid_after_edits", grid(page, "W_Q"))
    shot(page, "05_wq_after_edits", page.locator(sel("qkv.fig.W_Q")))
    assert page.locator(WARNING).count() == 0, alerts(page)

    # A value past the cell limit: a warning naming the cell and the value as typed, the old value kept everywhere.
    edit_grid_cell(page, "W_Q", 2, 2, "1e308")
    warning = page.locator(WARNING).filter(has_text="W_Q の 3 行 3 列")
    warning.first.wait_for(timeout=10_000)
    assert "1e308 は大きすぎます" in warning.first.inner_text()
    assert "元の値のままにしました" in warning.first.inner_text()
    assert wait_chart(page, "qkv.fig.W_Q", expected(W))
    assert query_of(page.url)["W_Q"][0] == link_w
    ensure_grid_tab(page, "W_Q")
    assert grid_cell_text(page, "W_Q", 2, 2) == f"{W[2, 2]:g}"  # the grid shows the old value again
    shot(page, "05_refused")
    assert_no_exception(page)

    # The edited matrix travels in the link (K15).
    errors: list = []
    other = new_page(tabs, errors)
    try:
        open_qkv(other, page.url)
        assert wait_chart(other, "qkv.fig.W_Q", expected(W))
        assert wait_chart(other, "qkv.fig.weights", weights_text(DOG_X, W, DOG_WK))
        assert cells(other, "qkv.fig.weights") == cells(page, "qkv.fig.weights")
        assert_no_exception(other)
    finally:
        other.close()
    assert_no_page_errors(errors)
    assert_no_page_errors(page_errors)


def _in_view(page, locator) -> bool:
    """Whether any element of ``locator`` is at least partly inside the viewport (what a person can see now)."""
    return any(
        box is not None and box["y"] + box["height"] > 0 and box["y"] < VIEWPORT["height"]
        for box in (el.bounding_box() for el in locator.all())
    )


def test_refusal_notice_is_on_screen_where_the_grid_is_edited(page, page_errors, app_server):
    open_qkv(page, f"{app_server}/qkv")
    open_grid_tab(page, "W_Q")
    edit_grid_cell(page, "W_Q", 2, 2, "1e308")
    notice = page.locator(f"{WARNING}, [data-testid='stToast']").filter(has_text="W_Q の 3 行 3 列")
    notice.first.wait_for(state="attached", timeout=10_000)
    # The person is looking at the grid they just typed into (the helper's keyboard moves may scroll the page,
    # a person's double-click does not): is the notice on screen together with it?
    ensure_grid_tab(page, "W_Q")
    grid(page, "W_Q").scroll_into_view_if_needed()
    assert _in_view(page, grid(page, "W_Q"))
    shot(page, "05b_refusal_in_view")
    assert_no_exception(page)
    assert_no_page_errors(page_errors)
    assert _in_view(page, notice), "the notice naming the refused cell is not on screen"


def test_pasted_1e308_is_refused_with_a_message_that_names_it(page, page_errors, app_server):
    open_qkv(page, f"{app_server}/qkv")
    open_grid_tab(page, "W_Q")
    W = DOG_WQ.copy()
    paste_into_grid_cell(page, "W_Q", 2, 2, "1e308")
    notice = page.locator(WARNING).filter(has_text="W_Q の 3 行 3 列")
    notice.first.wait_for(timeout=10_000)
    assert wait_chart(page, "qkv.fig.W_Q", expected(W))  # the old value is kept
    assert "W_Q" not in query_of(page.url)
    assert_no_exception(page)
    assert_no_page_errors(page_errors)
    text = notice.first.inner_text()
    assert "None" not in text and "1e308" in text, f"the notice does not name the pasted value: {text!r}"


# ---- 6. hostile links ----------------------------------------------------------------------------------------------
def test_hostile_link_gives_warnings_and_the_default_lesson(page, page_errors, app_server):
    open_qkv(page, f"{app_server}/qkv?dk=999&X=3x4:nan&zz=1")
    shot(page, "06_hostile")
    assert_no_exception(page)
    texts = alerts(page)
    # named in words and by key=value (ui.widgets.notice_text), the bounds said
    assert any("d_k" in a and "「dk=999」" in a and "1 から 16" in a for a in texts), texts
    assert any("「X=3x4:nan" in a for a in texts), texts
    assert any("zz" in a for a in texts), texts
    assert page.get_by_role("heading", name=TITLE_JA).is_visible()
    assert wait_chart(page, "qkv.fig.weights", weights_text(DOG_X, DOG_WQ, DOG_WK))[:3] == DOG_WEIGHTS_ROW0
    assert page.locator(f"{sel('qkv.dk')} input[type=range]").input_value() == "5"
    assert url_param(page, "dk", "5") == "5" and "X" not in query_of(page.url)
    assert_no_page_errors(page_errors)


def test_link_with_nan_and_inf_of_the_right_shape_is_refused(page, page_errors, app_server):
    # K03 through a link: well-formed matrices holding nan / inf never reach softmax.
    x = "3x4:" + ",".join(["nan"] + ["0"] * 11)
    w_q = "4x5:" + ",".join(["1"] * 19 + ["inf"])
    open_qkv(page, f"{app_server}/qkv?" + urlencode({"qkv": "2", "p": "dog", "X": x, "W_Q": w_q}))
    assert_no_exception(page)
    texts = alerts(page)
    assert any("「X=3x4:nan" in a for a in texts), texts
    assert any("「W_Q=4x5:" in a for a in texts), texts
    assert wait_chart(page, "qkv.fig.weights", weights_text(DOG_X, DOG_WQ, DOG_WK))
    assert not any(c in ("NaN", "∞", "−∞") for c in sum(all_cells(page).values(), [])), all_cells(page)
    assert_no_page_errors(page_errors)


def test_link_with_unknown_key_and_far_query_is_survived(page, page_errors, app_server):
    open_qkv(page, f"{app_server}/qkv?zz=1&q=99")
    assert_no_exception(page)
    texts = alerts(page)
    assert any("zz" in a for a in texts), texts
    assert any("100" in a and "3" in a for a in texts), texts  # query 100 → clamped to the 3rd token
    assert wait_chart(page, "qkv.fig.weights", weights_text(DOG_X, DOG_WQ, DOG_WK))
    assert url_param(page, "q", "2") == "2"
    assert_no_page_errors(page_errors)


# ---- 7. a token holding HTML ---------------------------------------------------------------------------------------
def test_token_with_html_is_shown_literally(page, page_errors, app_server):
    open_qkv(page, f"{app_server}/qkv")
    wait_chart(page, "qkv.fig.weights", weights_text(DOG_X, DOG_WQ, DOG_WK))
    set_text(page, "<b>x</b> が")
    # "<b>x</b>" is a new token: its X row comes from the seed, read off the page; が keeps [0,0,1,0]
    X = shown_matrix(page, "qkv.fig.X", (2, 4))
    np.testing.assert_array_equal(X[1], DOG_X[1])
    wait_chart(page, "qkv.fig.weights", weights_text(X, DOG_WQ, DOG_WK))
    assert_no_exception(page)
    for key in ("qkv.fig.weights", "qkv.fig.scores", "qkv.fig.X"):
        assert ticks(page, key, "y") == ["<b>x</b>", "が"], key
    assert ticks(page, "qkv.fig.weights", "x") == ["<b>x</b>", "が"]
    assert len(cells(page, "qkv.fig.weights")) == 4
    # Nothing was interpreted: no tick label holds a (bold) tspan, the bar chart's title quotes the token
    # literally, and no <b> element in the page body holds "x".
    assert page.locator(".stPlotlyChart :is(.xtick, .ytick) tspan").count() == 0
    page.locator(sel("qkv.fig.qbars")).scroll_into_view_if_needed()
    assert "「<b>x</b>」" in page.locator(f"{sel('qkv.fig.qbars')} .gtitle").text_content()
    assert page.locator("[data-testid='stMain'] b").filter(has_text="x").count() == 0
    shot(page, "07_html_token", page.locator(sel("qkv.fig.weights")))
    assert_no_page_errors(page_errors)


# ---- 8. an empty sentence -------------------------------------------------------------------------------------------
def test_empty_text_shows_the_info_and_no_heatmaps(page, page_errors, tabs, app_server):
    from ui.i18n import table

    open_qkv(page, f"{app_server}/qkv")
    set_text(page, "")
    info = page.locator(ALERT).filter(has_text=table("ja")["tokens.no_tokens"])
    info.wait_for(timeout=10_000)
    assert page.locator(".stPlotlyChart").count() == 0
    assert page.locator(f"{sel('qkv.text')} input").input_value() == ""
    assert url_param(page, "t", "") == ""
    shot(page, "08_empty")
    assert_no_exception(page)

    # K15: the empty token list survives a shared link too.
    errors: list = []
    other = new_page(tabs, errors)
    try:
        open_qkv(other, page.url, heatmaps=False)
        other.locator(ALERT).filter(has_text=table("ja")["tokens.no_tokens"]).wait_for(timeout=10_000)
        assert other.locator(".stPlotlyChart").count() == 0
        assert other.locator(f"{sel('qkv.text')} input").input_value() == ""
        assert_no_exception(other)
    finally:
        other.close()
    assert_no_page_errors(errors)
    assert_no_page_errors(page_errors)
