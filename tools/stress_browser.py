"""Run the real-browser tests several times in a row beside busy processes: a test that passes only on a quiet
machine fails here, as it would on a loaded CI machine.

Starts ``--hogs`` processes that each keep one core busy (a bare Python loop, ended when this script ends and after
``--max-minutes`` at the latest), then runs ``pytest -m e2e`` (2 test processes, as ``make test``) ``--runs`` times,
and prints each run's counts and time. Exit code 1 when any run failed.

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


def _hog(seconds: float) -> None:
    end = time.monotonic() + seconds
    x = 0
    while time.monotonic() < end:
        for _ in range(100_000):
            x += 1


def _summary(output: str) -> str:
    lines = [ln for ln in output.splitlines() if re.search(r"\d+ (passed|failed|error)", ln)]
    return lines[-1].strip("= ") if lines else "(no summary line)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--hogs", type=int, default=2, help="busy processes beside the tests")
    parser.add_argument("--max-minutes", type=float, default=180.0, help="the busy processes end after this anyway")
    parser.add_argument("--workers", default="2", help="pytest-xdist processes (0: one process)")
    parser.add_argument("pytest_args", nargs="*", help="after --: files or options for pytest (default: tests/e2e)")
    args = parser.parse_args(argv)

    hogs = [mp.Process(target=_hog, args=(args.max_minutes * 60,), daemon=True) for _ in range(args.hogs)]
    for h in hogs:
        h.start()
    xdist = [] if args.workers == "0" else ["-n", args.workers, "--dist", "loadfile", "--no-loadscope-reorder"]
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "e2e", *xdist,
           *(args.pytest_args or ["tests/e2e"])]
    results = []
    try:
        for run in range(1, args.runs + 1):
            start = time.monotonic()
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env={**os.environ})
            took = time.monotonic() - start
            results.append(proc.returncode)
            print(f"run {run}/{args.runs} beside {args.hogs} busy processes: exit {proc.returncode}, {took:.0f} s, "
                  f"{_summary(proc.stdout)}", flush=True)
            if proc.returncode != 0:
                failed = [ln for ln in proc.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
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
