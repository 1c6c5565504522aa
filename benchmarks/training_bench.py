"""Training time of the training lab's setups (lessons/training.py), uncached: the median of several runs, in
process time (CPU seconds of this one process, so a busy machine does not inflate it) and in wall time.

What a page open or a setting change costs on the server is one training of the new setup plus, for the experiment
section, two more (÷√d_k switched, the too-large learning rate); moving the step slider trains nothing (cached).

Run: .venv/bin/python benchmarks/training_bench.py [--repeats 7]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import lessons.training as L  # noqa: E402


def timed(state) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    L._train(*L.setup(state))  # uncached
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    base = L.default_state()
    cases = [("default (previous, 200 steps, d_k 8)", base),
             ("same word, default", replace(base, task="same")),
             ("first token, default", replace(base, task="first")),
             ("largest (400 steps, d_k 16)", replace(base, steps=400, d_k=16))]
    timed(base)  # warm-up (imports, first allocations)
    print(f"{'setup':40s} {'median CPU s':>13s} {'median wall s':>14s}   (of {args.repeats} runs)")
    for name, state in cases:
        runs = [timed(state) for _ in range(args.repeats)]
        print(f"{name:40s} {statistics.median(c for c, _ in runs):13.3f} {statistics.median(w for _, w in runs):14.3f}")
    page = [sum(timed(s)[0] for s in (base, replace(base, scaled=False), replace(base, lr=L.LR_UNSTABLE)))
            for _ in range(args.repeats)]
    print(f"{'page open (3 trainings: + experiment)':40s} {statistics.median(page):13.3f}")
    state = base
    L.run(state)
    started = time.perf_counter()
    for t in range(base.steps + 1):
        L.arrays(replace(state, step=t))
    print(f"{'one step of the slider (arrays, cached)':40s} {(time.perf_counter() - started) / (base.steps + 1):13.5f}")
    r = L.run(state)
    print(f"default setup, seed 0: held-out loss {r.history.held_out_loss[-1]:.4f}, lowest weight on the previous "
          f"token {r.lowest:.3f}, mean {r.mean:.3f}")


if __name__ == "__main__":
    main()
