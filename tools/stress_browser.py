"""Run the real-browser tests several times in a row beside busy processes: a test that passes only on a quiet
machine fails here, as it would on a loaded CI machine.

Starts ``--hogs`` processes that each keep one core busy (a bare Python loop that ends when this script ends, when
its parent is gone, and after ``--max-minutes`` at the latest), then runs ``pytest -m e2e`` with CI=true (2 test
processes, as ``make test``; a missing Chromium fails) ``--runs`` times, each stopped after ``--run-minutes``, and
prints each run's counts and time. Exit code 1 when any run failed.

Usage:  .venv/bin/python tools/stress_browser.py [--runs 3] [--hogs 2] [--max-minutes 180] [-- PYTEST ARGS ...]
e.g.    .venv/bin/python tools/stress_browser.py --runs 3 -- tests/e2e/test_screens_browser.py
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _hog(seconds: float, parent: int) -> None:
    end = time.monotonic() + seconds
    x = 0
    while time.monotonic() < end and os.getppid() == parent:
        for _ in range(100_000):
            x += 1


def _summary(output: str) -> str:
    lines = [ln for ln in output.splitlines() if re.search(r"\d+ (passed|failed|error)", ln)]
    return lines[-1].strip("= ") if lines else "(no summary line)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--runs", type=int, default=3, help="how many runs in a row")
    parser.add_argument("--hogs", type=int, default=2, help="busy processes beside the tests")
    parser.add_argument("--max-minutes", type=float, default=150.0, help="the busy processes end after this anyway")
    parser.add_argument("--run-minutes", type=float, default=45.0, help="a run still going after this is stopped")
    parser.add_argument("--workers", default="2", help="pytest-xdist processes (0: one process)")
    parser.add_argument("pytest_args", nargs="*", help="after --: files or options for pytest (default: tests/e2e)")
    args = parser.parse_args(argv)

    hogs = [mp.Process(target=_hog, args=(args.max_minutes * 60, os.getpid()), daemon=True) for _ in range(args.hogs)]
    for h in hogs:
        h.start()
    xdist = [] if args.workers == "0" else ["-n", args.workers, "--dist", "loadfile", "--no-loadscope-reorder"]
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "e2e", *xdist,
           *(args.pytest_args or ["tests/e2e"])]
    results = []
    try:
        for run in range(1, args.runs + 1):
            start = time.monotonic()
            try:
                proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env={**os.environ, "CI": "true"},
                                      timeout=args.run_minutes * 60)
                rc, out = proc.returncode, proc.stdout
            except subprocess.TimeoutExpired as exc:
                raw = exc.stdout or ""
                rc, out = 124, raw if isinstance(raw, str) else raw.decode(errors="replace")
            took = time.monotonic() - start
            results.append(rc)
            print(f"run {run}/{args.runs} beside {args.hogs} busy processes: exit {rc}, {took:.0f} s, "
                  f"{_summary(out)}", flush=True)
            if rc != 0:
                failed = [ln for ln in out.splitlines() if ln.startswith(("FAILED", "ERROR"))]
                print("\n".join("   " + ln for ln in failed), flush=True)
    finally:
        for h in hogs:
            h.terminate()
            h.join(timeout=5)
    bad = sum(rc != 0 for rc in results)
    print(f"{len(results) - bad} of {len(results)} runs passed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
