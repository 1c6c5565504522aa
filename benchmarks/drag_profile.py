"""Where a slider drag's main-thread time goes in the browser: a CPU profile of one mouse drag of the /qkv cell slider.

Starts the app (``streamlit run app.py`` on a free port of browser_latency.PORTS) and Debian's Chromium (headless,
1280×720, never downloaded), opens /qkv (``--tokens 16``: browser_latency.LINK16, 16 tokens and d_model = d_k = d_v =
16; ``--tokens 3``: the default page), lets the pointer rest on the thumb (its frames asked for, ui/drag.py), then
samples the page's JavaScript with the DevTools protocol's ``Profiler`` (every 200 µs) while the mouse presses the
thumb and moves it ``--steps`` steps towards the farther end in ``--moves`` pointer moves, as fast as the browser
takes them.

Prints the time sampled; the functions with the most self time (name, script, line); for the forced layouts
(``getBoundingClientRect``) and canvas encodes (``toDataURL``) the call chains they came from; and self time by
script. On a machine shared with other work the shares are what to read, not the milliseconds.
benchmarks/profiles/README.md, "2026-12-06", has a reading.

Usage:  .venv/bin/python benchmarks/drag_profile.py [--tokens 16|3] [--steps 8] [--moves 40] [--app-dir DIR]
        [--save FILE] (--save: also write the profile as a .cpuprofile file, which Chrome DevTools opens)
"""
from __future__ import annotations

import argparse
import collections
import json
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.browser_latency import CELL_SLIDER, LINK16, free_ports, streamlit_server  # noqa: E402
from tests.e2e.helpers import CHROMIUM_ARGS, chromium_path, wait_for_app  # noqa: E402

WATCHED = ("getBoundingClientRect", "toDataURL")  # forced layouts; canvas encodes (patch.js paints a heatmap so)


def profile_drag(base: str, path: str, steps: int, moves: int) -> dict:
    """The CPU profile (DevTools ``Profiler.Profile``) of one drag of the cell slider on ``base + path``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(base + path)
            wait_for_app(page, 60_000)
            page.wait_for_timeout(1500)
            slider = page.get_by_role("slider", name=re.compile(CELL_SLIDER))
            slider.scroll_into_view_if_needed()
            page.wait_for_timeout(800)
            knob = slider.locator("xpath=../..").bounding_box()  # the thumb (input → hidden wrapper → thumb)
            track = slider.locator("xpath=../../..").bounding_box()
            lo, hi, step = (float(slider.get_attribute(a)) for a in ("min", "max", "step"))
            v0 = float(slider.input_value())
            dx = (1 if hi - v0 >= v0 - lo else -1) * steps * step / (hi - lo) * track["width"] / moves
            x0, y0 = knob["x"] + knob["width"] / 2, knob["y"] + knob["height"] / 2
            page.mouse.move(x0, y0)
            page.wait_for_timeout(1500)  # a hand at rest on the thumb: the frames come (ui/drag.py)
            cdp = page.context.new_cdp_session(page)
            cdp.send("Profiler.enable")
            cdp.send("Profiler.setSamplingInterval", {"interval": 200})
            cdp.send("Profiler.start")
            page.mouse.down()
            for i in range(1, moves + 1):
                page.mouse.move(x0 + dx * i, y0)
            page.wait_for_timeout(50)
            profile = cdp.send("Profiler.stop")["profile"]
            page.mouse.up()
            page.wait_for_timeout(1000)
            return profile
        finally:
            browser.close()


def _frame(node: dict) -> tuple[str, str, int]:
    cf = node["callFrame"]
    return cf["functionName"] or "(anonymous)", cf["url"].rsplit("/", 1)[-1][:40], cf["lineNumber"]


def report(profile: dict, top: int = 20) -> str:
    nodes = {n["id"]: n for n in profile["nodes"]}
    parent = {c: n["id"] for n in profile["nodes"] for c in n.get("children", [])}
    self_us: collections.Counter = collections.Counter()
    for sample, dt in zip(profile["samples"], profile["timeDeltas"]):
        self_us[sample] += dt
    total = sum(self_us.values())
    by_fn: collections.Counter = collections.Counter()
    by_script: collections.Counter = collections.Counter()
    chains: dict[str, collections.Counter] = {w: collections.Counter() for w in WATCHED}
    for nid, us in self_us.items():
        fn = _frame(nodes[nid])
        by_fn[fn] += us
        by_script[fn[1] or "(browser)"] += us
        if fn[0] in chains:
            chain, p = [], parent.get(nid)
            while p is not None and len(chain) < 5:
                name, script, line = _frame(nodes[p])
                chain.append(f"{name} ({script}:{line})")
                p = parent.get(p)
            chains[fn[0]][" < ".join(chain)] += us
    out = [f"sampled {total / 1e3:.0f} ms", "", f"top {top} by self time:"]
    out += [f"  {us / 1e3:8.1f} ms {us / total:6.1%}  {n} {s}:{ln}" for (n, s, ln), us in by_fn.most_common(top)]
    for name, counter in chains.items():
        out += ["", f"{name} called from:"]
        out += [f"  {us / 1e3:8.1f} ms  {chain}" for chain, us in counter.most_common(5)]
    out += ["", "self time by script:"]
    out += [f"  {us / 1e3:8.1f} ms {us / total:6.1%}  {s}" for s, us in by_script.most_common(10)]
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, choices=(3, 16), default=16)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--moves", type=int, default=40)
    ap.add_argument("--app-dir", type=Path, default=ROOT)
    ap.add_argument("--save", type=Path, default=None)
    args = ap.parse_args()
    path = LINK16 if args.tokens == 16 else "/qkv"
    port = free_ports(1)[0]
    with streamlit_server("app.py", port, Path(tempfile.mkdtemp(prefix="drag-profile-")), args.app_dir) as server:
        profile = profile_drag(server.url, path, args.steps, args.moves)
    if args.save:
        args.save.write_text(json.dumps(profile))
    print(f"/qkv, {args.tokens} tokens: the cell slider dragged {args.steps} steps in {args.moves} moves "
          f"({args.app_dir})")
    print(report(profile))


if __name__ == "__main__":
    main()
