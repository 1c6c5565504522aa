"""Shared helpers for the real-browser (Playwright + Debian Chromium) tests.

Environment variables:
  ATTN_LAB_CHROMIUM  path of the Chromium binary (default /usr/bin/chromium); never downloaded.
  ATTN_LAB_APP_DIR   folder holding the app.py to serve (default: the repo root).
  CI                 when "true", a missing Chromium fails the e2e tests instead of skipping them.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ui import viewport

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CHROMIUM = "/usr/bin/chromium"

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
VIEWPORT = {"width": 1280, "height": 1000}  # the reference width: the page's first run has the column's width
# (ui/viewport.py; a wider window costs every page load a second run)

APP_READY = "[data-testid='stApp'][data-test-script-state='notRunning']"
EXCEPTION_BOX = "[data-testid='stException']"
SIDEBAR = "[data-testid='stSidebar']"


TAB_INIT_JS = """(() => {
  try {
    if (!sessionStorage.getItem("__alFreshTab")) { localStorage.clear(); sessionStorage.setItem("__alFreshTab", "1"); }
  } catch (e) {}
  const WS = window.WebSocket;
  if (!WS || window.__alSocket) return;
  const A = window.__alSocket = { sent: 0, got: 0, last: 0 };
  const send = WS.prototype.send;
  WS.prototype.send = function (...args) { A.sent = A.last = performance.now(); return send.apply(this, args); };
  window.WebSocket = class extends WS {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", () => { A.got = A.last = performance.now(); });
    }
  };
})();"""
"""Run before each document of a shared context's tab (helpers.Tabs):
- the tab's first document starts with an empty localStorage (Streamlit keeps a resized sidebar's width and a chosen
  theme there), as in a context of its own;
- the times of the page's last websocket frame sent and received are kept in ``window.__alSocket`` (what
  :func:`at_rest` reads: a rerun asked for is on its way before the page shows it running)."""


class Tabs:
    """Browser contexts shared by one test process, one per set of context options; each test opens its own tab
    (page) in one and closes it when done.

    A tab of a shared context starts with the HTTP cache and V8's code cache warm (Streamlit's bundle and plotly.js
    fetched and compiled once), so a page load costs about two thirds of one in a new context (docs/testing.md).
    What a tab does not share with earlier tabs: its session (each load is a new Streamlit session), its
    sessionStorage and, through TAB_INIT_JS, its localStorage. What it does share: cookies, permissions granted to
    the context, the cache. A test that changes the context itself (offline, routes for every tab, counting its
    pages) makes a context of its own with ``browser.new_context``."""

    def __init__(self, browser):
        self.browser = browser
        self._contexts: dict[str, object] = {}

    def new_page(self, **options):
        """A new tab in the shared context made with ``options`` (Playwright's ``Browser.new_context`` keywords:
        viewport, device_scale_factor, accept_downloads, …), its requests followed for :func:`at_rest`
        (:func:`follow_requests`). Close it with ``page.close()``."""
        key = repr(sorted(options.items()))
        if key not in self._contexts:
            context = self.browser.new_context(**options)
            context.add_init_script(TAB_INIT_JS)
            self._contexts[key] = context
        return follow_requests(self._contexts[key].new_page())

    def close(self) -> None:
        for context in self._contexts.values():
            context.close()
        self._contexts.clear()


def chromium_path() -> str:
    return os.environ.get("ATTN_LAB_CHROMIUM") or DEFAULT_CHROMIUM


def chromium_available() -> bool:
    path = chromium_path()
    return os.path.isfile(path) and os.access(path, os.X_OK)


def chromium_missing_reason(ci: bool = False) -> str:
    what = "browser tests FAIL (CI=true: no skipping in CI)" if ci else "browser tests skipped"
    return f"CHROMIUM MISSING: {what} — apt-get install chromium fonts-noto-cjk (looked for {chromium_path()})"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def app_dir() -> Path:
    return Path(os.environ.get("ATTN_LAB_APP_DIR") or REPO_ROOT).resolve()


AT_REST_JS = """([ready, quiet, tolerance, grow, waitReply]) => {
  const now = performance.now();
  let R = window.__alRest;
  if (!R) {
    R = window.__alRest = { changes: 0, seen: null, since: now };
    new MutationObserver((records) => { R.changes += records.length; })
      .observe(document, { childList: true, subtree: true, characterData: true, attributes: true });
  }
  const V = window.__attentionLabViewport, S = window.__attentionLabStats, W = window.__alSocket;
  const width = V && V.used != null ? V.measure() : null;
  const laidOut = width != null && (!(width > 0) || (width >= V.used - tolerance && width <= V.used + grow));
  const plots = [...document.querySelectorAll('.al-plot')];
  const answered = !W || W.got >= W.sent || now - W.sent > waitReply;  // a frame sent is answered (a rerun asked for)
  const idle = document.querySelector(ready) !== null && laidOut && answered && !(S && S.busy)
      && plots.every((d) => d._fullLayout || d.textContent);
  const seen = JSON.stringify([R.changes, location.href, S ? [S.drawn, S.patched, S.previewed || 0] : 0,
                               W ? W.last : 0]);
  if (!idle || seen !== R.seen || R.since === null) {  // (a spell starts at an idle reading)
    R.seen = seen;
    R.since = idle ? now : null;
    return false;
  }
  return now - R.since >= quiet;
}"""
REPLY_WAIT_MS = 5000
"""How long a websocket frame the page sent may stay unanswered before :func:`at_rest` stops waiting for the answer
(every rerun Streamlit is asked for is answered; a frame of another kind may not be)."""


class Requests:
    """A page's HTTP requests as :func:`at_rest` needs them: how many are in flight, and when (time.monotonic) the
    last one started or ended."""

    def __init__(self) -> None:
        self.in_flight, self.last = 0, time.monotonic()

    def started(self, _request) -> None:
        self.in_flight += 1
        self.last = time.monotonic()

    def ended(self, _request) -> None:
        self.in_flight = max(0, self.in_flight - 1)
        self.last = time.monotonic()


def follow_requests(page):
    """Count ``page``'s requests in flight (``page.al_requests``, a :class:`Requests`): a page whose code is still
    loading (a component's module, plotly.js) may show no change for a moment. Returns the page."""
    box = Requests()
    page.al_requests = box
    page.on("request", box.started)
    page.on("requestfinished", box.ended)
    page.on("requestfailed", box.ended)
    return page


def at_rest(page, quiet_ms: int = 300, timeout_s: float = 60.0) -> None:
    """Wait until the app is at rest and has been for ``quiet_ms`` without a break: the script not running, the frame's
    width relay (ui/viewport.py) has measured the main column and the charts are laid out for it, every chart drawn
    and no chart redraw waiting or under way (plot.js draws the charts out of view after those in view, one a task),
    the last websocket frame the page sent answered (in a tab of helpers.Tabs), and in that time no change of the
    DOM, of the address, of a websocket frame either way, or of the charts drawn, patched or previewed.

    The quiet spell starts at the first call on a document, so a page is read at least ``quiet_ms`` after it is
    asked. A page of helpers.Tabs (or one given to :func:`follow_requests`) also has no HTTP request in flight and
    none started or ended for ``quiet_ms``. Raises Playwright's TimeoutError after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    requests = getattr(page, "al_requests", None)
    while True:
        left = max(deadline - time.monotonic(), 0.05)
        page.wait_for_function(AT_REST_JS, arg=[APP_READY, quiet_ms, viewport.TOLERANCE_PX, viewport.GROW_PX,
                                                REPLY_WAIT_MS], polling=50, timeout=left * 1000)
        if requests is None or (requests.in_flight == 0 and time.monotonic() - requests.last >= quiet_ms / 1000):
            return
        if time.monotonic() > deadline:
            raise PlaywrightTimeout(f"at_rest: {requests.in_flight} request(s) still in flight after {timeout_s:g} s")
        page.wait_for_timeout(50)


def wait_for_app(page, timeout_ms: float = 30_000) -> None:
    """Wait until the app's script has run (the page holds its elements) and the page is :func:`at_rest`."""
    page.wait_for_selector(APP_READY, timeout=timeout_ms)
    at_rest(page, timeout_s=timeout_ms / 1000)


def assert_no_exception(page) -> None:
    """Fail with the shown text if the app displays an exception box."""
    dialogs = page.locator("[role='dialog']").filter(has_text="ForwardMsg")
    if dialogs.count():  # Streamlit's "Connection error" over the page: the app is stuck until a reload
        raise AssertionError(f"the app shows Streamlit's connection error:\n{dialogs.first.inner_text(timeout=5_000)}")
    boxes = page.locator(EXCEPTION_BOX)
    n = boxes.count()
    if n:
        text = boxes.first.inner_text(timeout=5_000)
        raise AssertionError(f"the app shows {n} exception box(es); the first says:\n{text}")


def assert_no_page_errors(errors: list) -> None:
    """Fail if the browser reported uncaught JavaScript errors (the `pageerror` events)."""
    if errors:
        listed = "\n".join(f"- {e}" for e in errors)
        raise AssertionError(f"{len(errors)} uncaught page error(s) in the browser:\n{listed}")


def query_of(url: str) -> dict[str, list[str]]:
    """A URL's query parameters, each with the list of its values (blank values kept)."""
    return parse_qs(urlsplit(url).query, keep_blank_values=True)


def share_link(page) -> str:
    """The link in the sidebar's share panel ("Share this setup": an expander holding an st.code block), opening
    the panel when it is closed (opening it reruns the app, which then draws the link)."""
    panel = page.locator(SIDEBAR).locator("[data-testid='stExpander']").first
    code = panel.locator("[data-testid='stCode'] code")
    if not code.is_visible():
        panel.locator("summary").click()
    code.wait_for(state="visible", timeout=30_000)  # opening the panel reruns the app: seconds on a busy machine
    return code.inner_text().strip()


# ---- charts and keyed elements (shared by the lesson browser tests) ----------------------------------------------
def sel(key: str) -> str:
    """CSS selector of a keyed element's container: '.st-key-' + key, characters outside [a-zA-Z0-9_-] → '-'."""
    return ".st-key-" + "".join(c if c.isalnum() or c in "_-" else "-" for c in key)


def cells(page, key: str) -> list[str]:
    """The numbers written in a heatmap's cells, row by row (plotly's text in the chart's SVG)."""
    return page.locator(f"{sel(key)} .heatmap-label text").all_text_contents()


def hover_label(page, key: str, index: int = 0) -> str:
    """The hover label shown with the pointer on cell text ``index`` (page order, every trace) of heatmap ``key``."""
    label = page.locator(f"{sel(key)} .heatmap-label text").nth(index)
    label.scroll_into_view_if_needed()
    box = label.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2 - 4, box["y"] + box["height"] / 2 - 4)
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=3)
    hover = page.locator(f"{sel(key)} .hoverlayer .hovertext")
    hover.wait_for(timeout=5000)
    return hover.text_content()


def chart_copies(page, key: str) -> int:
    """How many copies of a keyed chart the page holds: 1 at rest; 2 for a moment while a changed figure is
    mounted anew (st.plotly_chart gives a changed figure a new element) and the old one is not yet removed."""
    return page.locator(f"{sel(key)} .js-plotly-plot").count()


def wait_chart(page, key: str, want: list[str], *, timeout_s: float = 10.0) -> list[str]:
    """Poll until the app is at rest and shows exactly one copy of the heatmap ``key``, whose cell texts are
    ``want``; return them. Fails, naming what was there, when that does not happen within timeout_s."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = cells(page, key)
        copies = chart_copies(page, key)
        idle = page.locator(APP_READY).count() == 1
        if idle and copies == 1 and got == want:
            page.wait_for_timeout(100)  # still so a moment later (not a frame between two runs)
            if page.locator(APP_READY).count() == 1 and chart_copies(page, key) == 1 and cells(page, key) == want:
                return want
        if time.monotonic() > deadline:
            raise AssertionError(f"{key}: wanted one chart with {len(want)} cells {want}; saw {copies} "
                                 f"cop{'y' if copies == 1 else 'ies'}, {len(got)} cells {got}, app at rest: {idle}")
        page.wait_for_timeout(100)


def exhaustive() -> bool:
    """Whether the browser suites run their whole matrix (every slider, size, language, state and colour scheme):
    ATTN_LAB_EXHAUSTIVE=1, as ``make test-all`` sets it. ``make test`` (CI) runs every registry-wide check on every
    lesson, on a smaller, rotating choice of those variants."""
    return os.environ.get("ATTN_LAB_EXHAUSTIVE") == "1"
