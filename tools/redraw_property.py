"""The long run of "redraw equals a fresh draw" (issue 18): many seeded random sequences of moves on every registered
lesson, each followed by a comparison of every chart with a fresh load of the page's share link.

The driver is tests/e2e/redraw.py (shared with tests/e2e/test_redraw_property.py, which runs a few short sequences
in `make test`): it finds the page's controls, makes and does the moves, and compares the pages. Each lesson starts
from its page without a link; every next sequence goes on from the fresh load the one before was compared with.
Sequence k of lesson L uses random.Random(f"{seed}:{L}:{k}"), so a run is reproducible on the same code.

Prints, per lesson and in all: sequences, moves done (and not done: a control the driver could not work), sequences
that differed, differences by kind (charts, drawn, numbers, words, geometry, text boxes), app errors, and the time
(total, median and p95 per sequence); then the report of every sequence that differed. Exit code 1 when any did.

Starts its own `streamlit run app.py` on a free loopback port (stopped at the end whatever happens) and Debian's
Chromium (never downloaded). With the defaults (50 sequences of 10 moves per lesson) it takes about 30–60 minutes on
a 2-core machine.

Usage:  .venv/bin/python tools/redraw_property.py [--sequences 50] [--moves 10] [--seed 18] [--app-dir DIR]
        [--lesson KEY ...] [--report FILE] [--timeout S] [--minutes M] [--first K]
--first K starts at sequence K with that sequence's seed (a part of a long run; each part starts from the page
without a link, as sequence 1 does).
--app-dir serves another copy of the app (e.g. `git worktree add /tmp/old 107117a`) with this checkout's Python.
"""
from __future__ import annotations

import argparse
import collections
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import lessons  # noqa: E402
from tests.e2e import redraw as R  # noqa: E402
from tests.e2e.helpers import CHROMIUM_ARGS, Tabs, chromium_path  # noqa: E402


@contextmanager
def server(app_dir: Path):
    """`streamlit run app.py` in ``app_dir`` on a free loopback port; yields its base URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = Path(tempfile.mkdtemp(prefix="redraw-property-")) / "server.log"
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port",
           str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=app_dir, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            base = f"http://127.0.0.1:{port}"
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            deadline = time.monotonic() + 60
            while True:
                try:
                    with opener.open(f"{base}/_stcore/health", timeout=2) as resp:
                        if resp.status == 200:
                            break
                except OSError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"streamlit did not start; its log: {log}")
                time.sleep(0.25)
            print(f"app {app_dir} at {base} (log {log})", flush=True)
            yield base
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


def run_lesson(tabs, base: str, key: str, sequences: int, moves: int, seed: int,
               stop_at: float = float("inf"), first: int = 0) -> list[R.Outcome]:
    outcomes = []
    page = _open(tabs, f"{base}/{key}")
    try:
        for k in range(first, first + sequences):
            if time.monotonic() > stop_at:
                print(f"  {key}: time is up after {k - first} sequences (--minutes)", flush=True)
                break
            try:
                outcome, fresh = R.run_sequence(tabs, page, key, random.Random(f"{seed}:{key}:{k}"), moves)
            except Exception as exc:  # the driver lost the page (a timeout): say so, start again from a fresh page
                outcome = R.Outcome(start=page.url, skipped=[f"sequence lost: {str(exc).splitlines()[0][:300]}"])
                fresh = _open(tabs, f"{base}/{key}")
            page.close()
            page = fresh
            outcomes.append(outcome)
            mark = "DIFFERS" if outcome.failed else "ok"
            print(f"  {key} #{k + 1}: {len(outcome.moves)} moves, {outcome.seconds:.1f} s, {mark}"
                  + (f" ({len(outcome.mismatches)} differences)" if outcome.mismatches else ""), flush=True)
    finally:
        page.close()
    return outcomes


def _open(tabs, url: str, tries: int = 3):
    """R.open_page, tried again when the page does not come (a loaded machine)."""
    for attempt in range(tries):
        try:
            return R.open_page(tabs, url)
        except Exception as exc:
            if attempt == tries - 1:
                raise
            print(f"  (could not open {url}: {str(exc).splitlines()[0][:200]}; trying again)", flush=True)


def figures(name: str, outcomes: list[R.Outcome]) -> str:
    done = sum(len(o.moves) - len([s for s in o.skipped if s.startswith("move ")]) for o in outcomes)
    skipped = sum(len(o.skipped) for o in outcomes)
    kinds = collections.Counter(m.kind for o in outcomes for m in o.mismatches)
    secs = sorted(o.seconds for o in outcomes if o.seconds)
    p95 = secs[min(len(secs) - 1, int(round(0.95 * (len(secs) - 1))))] if secs else 0.0
    by_kind = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "none"
    return (f"{name:8s} sequences {len(outcomes):4d} | moves done {done:5d}, not done {skipped:3d} | "
            f"sequences differing {sum(o.failed for o in outcomes):3d} | differences by kind: {by_kind} | "
            f"app errors {sum(len(o.errors) for o in outcomes)} | time {sum(secs):.0f} s, per sequence median "
            f"{statistics.median(secs) if secs else 0:.1f} s, p95 {p95:.1f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sequences", type=int, default=50)
    ap.add_argument("--moves", type=int, default=10)
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--app-dir", type=Path, default=ROOT)
    ap.add_argument("--lesson", action="append", help="only this lesson (repeatable; default: every registered one)")
    ap.add_argument("--report", type=Path, help="also write the reports of differing sequences to this file")
    ap.add_argument("--first", type=int, default=0, metavar="K",
                    help="start at sequence K (0-based; the seeds are those of a run from 0): a long run split in "
                         "parts, each on the same code, e.g. --first 25 --sequences 25 after --sequences 25")
    ap.add_argument("--minutes", type=float, default=None,
                    help="start no sequence after this many minutes (the figures then say how many ran)")
    ap.add_argument("--timeout", type=float, default=R.SETTLE_TIMEOUT_S,
                    help="seconds a page may take to come to rest (default %(default)s; more on a loaded machine)")
    args = ap.parse_args()
    R.SETTLE_TIMEOUT_S = args.timeout
    keys = [x.key for x in lessons.REGISTRY if not args.lesson or x.key in args.lesson]

    from playwright.sync_api import sync_playwright

    t0 = time.monotonic()
    results: dict[str, list[R.Outcome]] = {}
    with server(args.app_dir.resolve()) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
        tabs = Tabs(browser)
        try:
            for key in keys:
                print(f"/{key}: {args.sequences} sequences of {args.moves} moves (from sequence {args.first + 1}), "
                      f"seed {args.seed}", flush=True)
                stop_at = t0 + 60 * args.minutes if args.minutes else float("inf")
                results[key] = run_lesson(tabs, base, key, args.sequences, args.moves, args.seed, stop_at,
                                          args.first)
        finally:
            tabs.close()
            browser.close()
    every = [o for outs in results.values() for o in outs]
    lines = ["", f"redraw property: {len(keys)} lessons, {args.sequences} sequences × {args.moves} moves each "
                 f"(sequences {args.first + 1}–{args.first + args.sequences}), "
                 f"seed {args.seed}, viewport {R.VIEWPORT['width']}×{R.VIEWPORT['height']}, "
                 f"wall time {time.monotonic() - t0:.0f} s"]
    lines += [figures(key, outs) for key, outs in results.items()] + [figures("all", every)]
    reports = [f"--- /{key} sequence {args.first + k + 1}\n{o.report()}" for key, outs in results.items()
               for k, o in enumerate(outs) if o.failed or o.skipped]
    print("\n".join(lines))
    if reports:
        print("\n" + "\n\n".join(reports))
    if args.report:
        args.report.write_text("\n".join(lines) + "\n\n" + "\n\n".join(reports) + "\n")
    return 1 if any(o.failed for o in every) else 0


if __name__ == "__main__":
    sys.exit(main())
