"""Test-suite-wide hooks. Kept small: fixtures live next to the tests that use them.

The throwaway lessons of tests/throwaway (a toy with no text field, a two-sentence lesson with a rectangular matrix
and no slider) are registered for every test run, here, before any test module imports ``lessons``: every
registry-wide suite runs on them unchanged, and the app servers of the browser tests inherit the variable."""
import os
from pathlib import Path

os.environ["ATTN_LAB_EXTRA_LESSONS"] = str(Path(__file__).resolve().parent / "throwaway")

CHROMIUM_MISSING = "CHROMIUM MISSING"


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
