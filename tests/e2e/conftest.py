"""Fixtures for the real-browser tests: a live streamlit server and Debian's Chromium via Playwright.

Every test in this folder is marked `e2e` (deselect with -m "not e2e"). Chromium is never downloaded:
Playwright launches the binary at ATTN_LAB_CHROMIUM (default /usr/bin/chromium). When it is missing the
tests are skipped with a loud reason, unless CI=true, where they fail instead.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from .helpers import (
    CHROMIUM_ARGS,
    REPO_ROOT,
    VIEWPORT,
    Tabs,
    app_dir,
    chromium_available,
    chromium_missing_reason,
    chromium_path,
    in_ci,
)

E2E_DIR = Path(__file__).resolve().parent
HEALTH_TIMEOUT_S = 40
FAILURE_SHOTS = REPO_ROOT / "shots" / "e2e-failures"


def pytest_collection_modifyitems(config, items):
    # This hook sees every collected item, not only this folder's: mark ours only.
    for item in items:
        if Path(item.path).resolve().is_relative_to(E2E_DIR):
            item.add_marker(pytest.mark.e2e)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    # Keep each phase's report on the item, so `page` can take a screenshot when a test failed.
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


def _missing(reason: str) -> None:
    if in_ci():
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session", autouse=True)
def _require_chromium():
    """Runs before any other session fixture here, so no server is started when there is no browser."""
    if not chromium_available():
        _missing(chromium_missing_reason(ci=in_ci()))
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        _missing(f"PLAYWRIGHT MISSING: browser tests cannot run — pip install -r requirements-dev.txt ({exc})")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _log_tail(path: Path, n: int = 40) -> str:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return "(no server log)"
    return "\n".join(lines[-n:])


def _wait_healthy(proc: subprocess.Popen, base_url: str, log_path: Path) -> None:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never via a proxy
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(
                f"streamlit exited with code {proc.returncode} before it was healthy; its log:\n{_log_tail(log_path)}",
                pytrace=False,
            )
        try:
            with opener.open(f"{base_url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.25)
    pytest.fail(
        f"streamlit was not healthy at {base_url}/_stcore/health after {HEALTH_TIMEOUT_S}s; "
        f"its log:\n{_log_tail(log_path)}",
        pytrace=False,
    )


@pytest.fixture(scope="session")
def app_server(tmp_path_factory):
    """Start `streamlit run app.py` on a free loopback port; yield its base URL; stop it at the end."""
    root = app_dir()
    if not (root / "app.py").is_file():
        pytest.fail(f"no app.py in {root} (ATTN_LAB_APP_DIR picks another folder)", pytrace=False)
    port = _free_port()
    log_path = tmp_path_factory.mktemp("streamlit") / "server.log"
    cmd = [
        sys.executable, "-m", "streamlit", "run", "app.py",
        "--server.headless", "true",
        "--server.port", str(port),
        "--server.address", "127.0.0.1",
        "--browser.gatherUsageStats", "false",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    base_url = f"http://127.0.0.1:{port}"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, cwd=root, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        try:
            _wait_healthy(proc, base_url, log_path)
            yield base_url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, headless, driven by Playwright's sync API (no browser download, ever)."""
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    try:
        chromium = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
    except Exception:
        pw.stop()
        raise
    try:
        yield chromium
    finally:
        chromium.close()
        pw.stop()


@pytest.fixture(scope="session")
def tabs(browser):
    """This process's shared browser contexts (helpers.Tabs): ``tabs.new_page(viewport=…)`` opens a tab; close it."""
    shared = Tabs(browser)
    try:
        yield shared
    finally:
        shared.close()


@pytest.fixture
def page_errors():
    """The uncaught JavaScript errors (`pageerror` events) of this test's page."""
    return []


@pytest.fixture
def page(tabs, page_errors, request):
    """A new tab (1280x1000) of the shared context per test (helpers.Tabs: a new Streamlit session, warm caches); a
    screenshot goes to shots/e2e-failures/ on failure."""
    pg = tabs.new_page(viewport=VIEWPORT)
    pg.on("pageerror", lambda error: page_errors.append(error))  # a Python callable, not a builtin
    try:
        yield pg
    finally:
        report = getattr(request.node, "rep_call", None)
        if report is not None and report.failed:
            try:
                FAILURE_SHOTS.mkdir(parents=True, exist_ok=True)
                name = "".join(c if c.isalnum() or c in "-_." else "_" for c in request.node.nodeid)
                pg.screenshot(path=str(FAILURE_SHOTS / f"{name}.png"), full_page=True)
            except Exception as exc:  # a screenshot must never hide the real failure
                print(f"(no failure screenshot: {exc})")
        pg.close()
