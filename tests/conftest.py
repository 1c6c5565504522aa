"""Test-suite-wide hooks. Kept small: fixtures live next to the tests that use them.

The throwaway lessons of tests/throwaway (a toy with no text field, a two-sentence lesson with a rectangular matrix
and no slider) are registered for every test run, here, before any test module imports ``lessons``: every
registry-wide suite runs on them unchanged, and the app servers of the browser tests inherit the variable."""
import functools
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

os.environ["ATTN_LAB_EXTRA_LESSONS"] = str(Path(__file__).resolve().parent / "throwaway")

# Hypothesis profiles, for every test (a test's own @settings set how many examples and which health checks, never a
# seed or a database). "ci", loaded when CI=true: the same examples on every run (derandomized: drawn from each test's
# own code), no example database, a failure printed with its @reproduce_failure blob, so a red run is red again by its
# command. "dev", otherwise: new random examples on each run, a failing one kept in .hypothesis/ and tried first the
# next time. HYPOTHESIS_PROFILE=ci or =dev chooses by hand. Neither has a deadline or times data generation: a busy
# machine fails no test.
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
_CI = os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "").strip() or ("ci" if _CI else "dev"))


def _keep_streamlit_start_up_work_for_the_process() -> None:
    """Two pieces of work AppTest redoes for every app it runs, done once per test process instead.

    AppTest starts a new Streamlit runtime for each app (``AppTest.from_file``), and each runtime (1) reads every
    installed package's metadata looking for component manifests and (2) parses, rewrites (Streamlit's "magic")
    and compiles app.py and the page's script into a new, empty script cache: together most of an AppTest's
    start-up (docs/testing.md). Neither can change while the tests run unless a file does: (1) the first scan's list
    is handed, copied, to every later runtime; (2) compiled code is kept by file path, modification time, size and
    the magic option, so an edited script is compiled again. A real server does each once per process too. Where
    this Streamlit release has no such function, nothing is changed: the tests run as before, only slower."""
    try:
        from streamlit import config
        from streamlit.components.v2 import manifest_scanner
        from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    except ImportError:
        return
    scan = getattr(manifest_scanner, "scan_component_manifests", None)
    if scan is not None and not getattr(scan, "kept_for_tests", False):
        scanned: list = []

        @functools.wraps(scan)
        def scan_once(*args, **kwargs):
            if not scanned:
                scanned.append(scan(*args, **kwargs))
            return list(scanned[0])

        scan_once.kept_for_tests = True
        manifest_scanner.scan_component_manifests = scan_once

    compile_script = getattr(ScriptCache, "get_bytecode", None)
    if compile_script is not None and not getattr(compile_script, "kept_for_tests", False):
        compiled: dict = {}

        @functools.wraps(compile_script)
        def get_bytecode(self, script_path):
            path = os.path.abspath(script_path)
            try:
                stat = os.stat(path)
            except OSError:  # Streamlit's own error for a missing script
                return compile_script(self, script_path)
            key = (path, stat.st_mtime_ns, stat.st_size, config.get_option("runner.magicEnabled"))
            if key not in compiled:
                compiled[key] = compile_script(self, script_path)
            return compiled[key]

        get_bytecode.kept_for_tests = True
        ScriptCache.get_bytecode = get_bytecode


_keep_streamlit_start_up_work_for_the_process()

CHROMIUM_MISSING = "CHROMIUM MISSING"
TESTS = Path(__file__).resolve().parent
BROWSER_FIRST = (TESTS / "e2e", TESTS / "deploy")  # the files that start servers, seconds per test


def pytest_addoption(parser):
    parser.addoption("--lesson", action="append", metavar="KEY",
                     help="run only the tests that touch this registered lesson (repeatable; tests/lesson_select.py)")


def pytest_configure(config):
    from lesson_select import check_option

    config.addinivalue_line("markers", "lesson(*keys): the test touches these lessons (tests/lesson_select.py)")
    check_option(config)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """The files that start servers first (browser tests: ~10 s a test), the quick ones after (a few ms a test).

    `make test` runs the files in several processes (pytest-xdist, ``--dist loadfile --no-loadscope-reorder``: the
    files are handed out in this order, one at a time to the process that is free). Ordered this way, the last files
    are short and the processes end together. By default xdist hands out the files with the most tests first, which
    put the browser files with few but long tests (present mode, the redraw property) last, and one process ran
    them alone while the others had finished."""
    from lesson_select import select

    select(config, items)
    items.sort(key=lambda item: not any(Path(item.path).resolve().is_relative_to(d) for d in BROWSER_FIRST))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Repeat, loudly, at the very end, when real-browser tests could not run for want of Chromium."""
    hit = 0
    for outcome in ("skipped", "failed", "error"):
        for report in terminalreporter.stats.get(outcome, []):
            if CHROMIUM_MISSING in str(getattr(report, "longrepr", "") or ""):
                hit += 1
    if hit:
        terminalreporter.write_sep("!", "CHROMIUM MISSING", red=True, bold=True)
        terminalreporter.write_line(
            f"{hit} real-browser test(s) did not run: no Chromium. "
            "Fix: apt-get install chromium fonts-noto-cjk (or set ATTN_LAB_CHROMIUM to its path).",
            red=True,
            bold=True,
        )
