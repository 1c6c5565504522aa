"""The "redraw equals a fresh draw" driver: random, seeded sequences of a lesson page's own controls, then every
chart compared with a fresh page load of the page's own share link (issue 18).

Shared by tests/e2e/test_redraw_property.py (a few short sequences per lesson, in `make test`) and
tools/redraw_property.py (the long run: many sequences, figures printed). Nothing here knows a lesson by name.

Controls (:func:`controls`). A lesson's widgets are keyed ``<lesson key>.<name>``, so Streamlit gives each widget's
element container the class ``st-key-<lesson key>-<name>``. The driver takes every visible element container with
such a class and reads its kind from the Streamlit widget inside it (``data-testid``): a text input, a slider, a
selectbox, a toggle or checkbox, a radio, a number input, a segmented control. Charts, buttons, expanders and data
editors are not controls here. The list is read again before every move: the controls change with the state (the
one-cell slider's key names its cell; d_model has no slider when Q, K and V are typed in).

A move (:class:`Move`, made by :func:`random_move` and done by :func:`do`) is one thing a person does with one
control, then waits for the app to be at rest:
  * text     — a sentence of :data:`CORPUS` (Japanese and English, 1–16 tokens, repeated tokens) typed, Enter;
  * slider   — its thumb focused, then ArrowLeft / ArrowRight (pressed 1–3 times, 60 ms apart: a quick hand), Home
               or End;
  * select   — the list opened with the mouse and option k clicked (presets, the cell picker, the query token);
  * toggle   — its switch or box clicked;
  * radio    — option k clicked;
  * number   — its + or − button clicked (ArrowUp / ArrowDown and Enter when it is too narrow for them);
  * choice   — option k of a segmented control clicked.
The kind is drawn first (each kind present on the page equally likely, so the one sentence box is not lost among a
dozen sliders), then the control of that kind, then what to do with it; all from one ``random.Random`` seeded by the
caller, so a sequence is reproducible from its start link and its seed.

At rest (:func:`settle`): the app is not running, every chart div has been drawn by plotly (``_fullLayout``), and for
QUIET_S nothing changed: no websocket frame either way, the same address, the same chart component counters
(``window.__attentionLabStats``: figures drawn and patched).

The comparison (:func:`snapshot`, :func:`compare`). A chart is a ``.al-plot`` div of the chart component (the plotly
graph div itself). For every chart, in page order: its key (the ``st-key-…`` class of its element or row cell) and
its accessible name (aria-label); its numbers — per trace of ``_fullData``: type, x, y, z and text; its words — the
cell texts plotly wrote (``.heatmap-label``, bar texts), tick labels by axis (colour-bar ticks under one name: their
class holds the trace's random uid), title and annotations; its geometry — the figure's size, the plot area
(``_fullLayout._size``), the drag layers' boxes and the colour bars' boxes; and the box of every cell text. Boxes are
relative to the chart's own div, so the scroll position does not matter. Two snapshots match when the same charts
come in the same order, every number and word is equal, and every length and box is within TOLERANCE_PX (1 px).
:func:`compare` lists each difference as a :class:`Mismatch` naming the chart, the kind and what differs.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field

from .helpers import APP_READY, EXCEPTION_BOX

VIEWPORT = {"width": 1280, "height": 720}  # where issue 18 was seen
TOLERANCE_PX = 1.0
QUIET_S = 0.4  # at rest: nothing changed for this long
# how long a page may take to come to rest: $ATTN_LAB_REDRAW_TIMEOUT seconds (default 30; more on a loaded machine;
# the long run sets it with --timeout)
SETTLE_TIMEOUT_S = float(os.environ.get("ATTN_LAB_REDRAW_TIMEOUT") or 30.0)

CORPUS = (
    "猫が魚を食べる",
    "犬が歩く",
    "私は昨日友達と公園で遊んだ",
    "猫",
    "犬 犬 犬",
    "東京 大阪 東京 京都 大阪",
    "今日は雨が降っているので家で本を読む",
    "猫が犬を追う",
    "I",
    "attention is all you need",
    "the cat sat on the mat",
    "a b a b a b",
    "the quick brown fox jumps over the lazy dog and the cat sleeps on the mat",  # 16 tokens
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen",
)
"""Sentences typed into text inputs: 1–16 tokens, Japanese (split by janome) and English (split on spaces), with
repeated tokens."""

KINDS = {  # Streamlit's data-testid of the widget inside an element container → the driver's kind
    "stTextInput": "text",
    "stSlider": "slider",
    "stSelectbox": "select",
    "stCheckbox": "toggle",
    "stRadio": "radio",
    "stNumberInput": "number",
    "stButtonGroup": "choice",
}

_CONTROLS_JS = """([prefix, kinds]) => {
  const out = [];
  for (const el of document.querySelectorAll('[data-testid="stElementContainer"]')) {
    const cls = [...el.classList].find((c) => c.startsWith(prefix));
    if (!cls) continue;
    const testid = Object.keys(kinds).find((t) => el.querySelector(`[data-testid="${t}"]`));
    if (!testid) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
    const main = el.querySelector('input, [role=slider], button[role=radio]');
    if (main && main.disabled) continue;
    out.push({ cls, kind: kinds[testid] });
  }
  return out;
}"""


@dataclass(frozen=True)
class Control:
    """One widget of the page: ``cls`` the class of its element container (``st-key-<lesson>-…``), ``kind`` as in
    :data:`KINDS`."""

    cls: str
    kind: str


def controls(page, lesson_key: str) -> list[Control]:
    """The lesson's visible, enabled widgets, in page order (see the module docstring)."""
    found = page.evaluate(_CONTROLS_JS, [f"st-key-{lesson_key}-", KINDS])
    return [Control(c["cls"], c["kind"]) for c in found]


@dataclass(frozen=True)
class Move:
    """One move: ``kind`` and ``cls`` name the control; ``arg`` what is done with it — the sentence (text), the key
    name (slider), the option index (select, radio, choice), "+" or "-" (number), None (toggle); ``times``: how
    often a slider key is pressed."""

    kind: str
    cls: str
    arg: object = None
    times: int = 1

    def __str__(self) -> str:
        name = self.cls.removeprefix("st-key-")
        if self.kind == "slider":
            return f"slider {name}: {self.arg}" + (f" ×{self.times}" if self.times > 1 else "")
        if self.kind == "text":
            return f"text {name}: {self.arg!r}"
        if self.kind in ("select", "radio", "choice"):
            return f"{self.kind} {name}: option {self.arg}"
        if self.kind == "number":
            return f"number {name}: {self.arg}"
        return f"{self.kind} {name}"


SLIDER_KEYS = ("ArrowLeft", "ArrowRight", "ArrowLeft", "ArrowRight", "Home", "End")  # arrows twice as likely


def random_move(rng: random.Random, found: list[Control]) -> Move:
    """A move drawn with ``rng`` over the controls ``found`` (kind first, then control, then what to do; options
    are drawn as an index below 16 and taken modulo the number the control shows when the move is done)."""
    kinds = sorted({c.kind for c in found})
    kind = rng.choice(kinds)
    control = rng.choice([c for c in found if c.kind == kind])
    if kind == "text":
        return Move(kind, control.cls, rng.choice(CORPUS))
    if kind == "slider":
        key = rng.choice(SLIDER_KEYS)
        return Move(kind, control.cls, key, rng.randint(1, 3) if key.startswith("Arrow") else 1)
    if kind in ("select", "radio", "choice"):
        return Move(kind, control.cls, rng.randrange(16))
    if kind == "number":
        return Move(kind, control.cls, rng.choice("+-"))
    return Move(kind, control.cls)


def do(page, move: Move) -> None:
    """Do ``move`` on the page the way a person would (mouse or keyboard), then wait until the app is at rest."""
    box = page.locator("." + move.cls).first
    if move.kind == "text":
        field_ = box.locator("input").first
        field_.fill(str(move.arg))
        field_.press("Enter")
    elif move.kind == "slider":
        thumb = box.locator("input[type=range], [role=slider]").first
        thumb.focus()
        for k in range(move.times):
            if k:
                page.wait_for_timeout(60)
            page.keyboard.press(str(move.arg))
    elif move.kind == "select":
        combo = box.locator("input[role=combobox]").first
        options = page.get_by_role("option")
        for attempt in range(3):  # (on a loaded machine the list can take a while, or miss the first click)
            combo.click()
            try:
                options.first.wait_for(timeout=5_000)
                n = options.count()  # (0 when the list closed again in between: a run redrew the select box)
                if not n:
                    raise LookupError("the list of options closed before one was picked")
                options.nth(int(move.arg) % n).click()
                break
            except Exception:
                if attempt == 2:
                    raise
                page.keyboard.press("Escape")
    elif move.kind == "toggle":
        box.locator("label").first.click()
    elif move.kind == "radio":
        labels = box.locator("label:has(input[type=radio])")
        labels.nth(int(move.arg) % labels.count()).click()
    elif move.kind == "choice":
        buttons = box.locator("button[role=radio]")
        buttons.nth(int(move.arg) % buttons.count()).click()
    elif move.kind == "number":
        button = "stNumberInputStepUp" if move.arg == "+" else "stNumberInputStepDown"
        step = box.locator(f"[data-testid={button}]")
        if step.count():
            if step.is_enabled():
                step.click()
        else:  # a narrow number input has no +/− buttons: the arrow key steps it, Enter sends the value
            field_ = box.locator("input").first
            field_.focus()
            page.keyboard.press("ArrowUp" if move.arg == "+" else "ArrowDown")
            field_.press("Enter")
    else:
        raise ValueError(f"unknown move kind {move.kind!r}")
    settle(page)


# ---- at rest ------------------------------------------------------------------------------------------------------
_WATCH = "_redraw_watch"  # a page attribute: {"frames": websocket frames so far, "requests": in flight}

_MUTATIONS_JS = """
window.__redrawMutations = 0;
new MutationObserver((records) => { window.__redrawMutations += records.length; })
  .observe(document, { childList: true, subtree: true, characterData: true });
"""

_STATE_JS = """(ready) => {
  const plots = [...document.querySelectorAll('.al-plot')];
  const waiting = plots.filter((d) => !(d._fullLayout || d.textContent)).map((d) => d.getAttribute('aria-label'));
  const running = document.querySelector(ready) === null;
  return [running, waiting, JSON.stringify([location.href, window.__attentionLabStats || null, plots.length,
                                            window.__redrawMutations || 0])];
}"""


def watch(page) -> None:
    """Follow what :func:`settle` waits for (call once, before the page loads): the page's websocket frames, its
    requests in flight (Streamlit loads a widget's code the first time one is shown) and its DOM changes."""
    box = {"frames": 0, "requests": 0}
    setattr(page, _WATCH, box)

    def on_ws(ws):
        ws.on("framesent", lambda _f: box.__setitem__("frames", box["frames"] + 1))
        ws.on("framereceived", lambda _f: box.__setitem__("frames", box["frames"] + 1))

    def done(_request):
        box["requests"] -= 1

    page.on("websocket", on_ws)
    page.on("request", lambda _r: box.__setitem__("requests", box["requests"] + 1))
    page.on("requestfinished", done)
    page.on("requestfailed", done)
    page.add_init_script(_MUTATIONS_JS)


def settle(page, *, quiet_s: float = QUIET_S, timeout_s: float | None = None) -> None:
    """Wait until the app is at rest: not running, every chart drawn, no request in flight, and for ``quiet_s`` no
    websocket frame, no change of address or of the DOM, no chart drawn or patched. Raises AssertionError after
    ``timeout_s`` (default SETTLE_TIMEOUT_S)."""
    timeout_s = SETTLE_TIMEOUT_S if timeout_s is None else timeout_s
    seen = getattr(page, _WATCH, {"frames": 0, "requests": 0})
    deadline = time.monotonic() + timeout_s
    last, since = None, time.monotonic()
    while True:
        running, waiting, inside = page.evaluate(_STATE_JS, APP_READY)
        idle = not running and not waiting and seen["requests"] <= 0
        state = (idle, inside, seen["frames"])
        now = time.monotonic()
        if state != last:
            last, since = state, now
        elif idle and now - since >= quiet_s:
            return
        if now > deadline:
            raise AssertionError(f"the app was not at rest within {timeout_s:g}s: app running {running}, charts not "
                                 f"drawn {waiting}, requests in flight {seen['requests']} (url {page.url})")
        page.wait_for_timeout(50)


CHARTS_TIMEOUT_S = 60.0  # a fresh load's charts may come this long after the app is at rest (a loaded machine)

_CHARTS_JS = """(n) => {
  const plots = [...document.querySelectorAll('.al-plot')];
  return plots.length >= n && plots.every((d) => d._fullLayout || d.textContent);
}"""


def open_page(tabs, url: str, *, charts: int = 0):
    """A new tab (1280×720) of ``tabs`` (helpers.Tabs) at ``url``, at rest, and when ``charts`` is given with at least
    that many charts drawn (or CHARTS_TIMEOUT_S gone: the comparison then says what is missing). On a loaded
    machine the browser can mount a page's charts seconds after the app looked at rest. Returns the page (close
    it)."""
    page = tabs.new_page(viewport=VIEWPORT)
    try:
        errors: list = []
        page.on("pageerror", lambda e: errors.append(e))
        page.redraw_errors = errors
        watch(page)
        page.goto(url)
        page.wait_for_selector(APP_READY, timeout=SETTLE_TIMEOUT_S * 1000)
        # a lesson page writes its link into the address bar at the end of its first run
        page.wait_for_function("() => location.search.length > 1", timeout=SETTLE_TIMEOUT_S * 1000)
        settle(page)
        if charts:
            try:
                page.wait_for_function(_CHARTS_JS, arg=charts, timeout=CHARTS_TIMEOUT_S * 1000)
            except Exception:  # (a Playwright timeout) compare what is there
                pass
            settle(page)
    except BaseException:
        page.close()
        raise
    return page


# ---- what is compared ---------------------------------------------------------------------------------------------
_SNAPSHOT_JS = """() => {
  // arrays as plain lists; NaN and ±Infinity as words (NaN ≠ NaN; a masked cell holds one)
  const plain = (a) => (a == null ? null : ArrayBuffer.isView(a) ? Array.from(a, plain)
    : Array.isArray(a) ? a.map(plain) : typeof a === 'object' ? null
    : typeof a === 'number' && !Number.isFinite(a) ? String(a) : a);
  return [...document.querySelectorAll('.al-plot')].map((gd) => {
    const host = gd.closest('[class*="st-key-"]');
    const key = host ? [...host.classList].find((c) => c.startsWith('st-key-')) : null;
    const origin = gd.getBoundingClientRect();
    const rel = (el) => {
      const b = el.getBoundingClientRect();
      return [b.left - origin.left, b.top - origin.top, b.width, b.height];
    };
    const fl = gd._fullLayout;
    if (!fl) return { key, label: gd.getAttribute('aria-label'), drawn: false, error: gd.textContent };
    const s = fl._size || {};
    const texts = [...gd.querySelectorAll('.heatmap-label text, text.bartext, .bartext text')];
    const ticks = {};
    for (const t of gd.querySelectorAll('g[class$="tick"] > text')) {
      const name = t.parentNode.getAttribute('class').replace(/cb[0-9a-zA-Z_-]*?(?=tick$)/, 'cb');
      (ticks[name] = ticks[name] || []).push(t.textContent);
    }
    return {
      key, label: gd.getAttribute('aria-label'), drawn: true,
      traces: (gd._fullData || []).map((t) => ({ type: t.type, visible: t.visible, x: plain(t.x), y: plain(t.y),
                                                 z: plain(t.z), text: plain(t.text) })),
      cellTexts: texts.map((t) => t.textContent),
      ticks,
      words: [...gd.querySelectorAll('.gtitle, .annotation-text')].map((t) => t.textContent),
      size: { width: fl.width, height: fl.height, l: s.l, r: s.r, t: s.t, b: s.b, w: s.w, h: s.h },
      drag: [...gd.querySelectorAll('.draglayer .nsewdrag')].map(rel),
      colorbars: [...gd.querySelectorAll('.colorbar')].map(rel),
      textBoxes: texts.map(rel),
    };
  });
}"""


def snapshot(page) -> list[dict]:
    """Every chart of the page, in page order, as :func:`compare` reads it (see the module docstring)."""
    return page.evaluate(_SNAPSHOT_JS)


@dataclass(frozen=True)
class Mismatch:
    """One difference between a redrawn page and a fresh load: ``kind`` is one of "charts" (which charts, their
    order or names), "drawn", "numbers", "words", "geometry", "text boxes"; ``chart`` names the chart."""

    kind: str
    chart: str
    detail: str

    def __str__(self) -> str:
        return f"[{self.kind}] {self.chart}: {self.detail}"


def _name(chart: dict) -> str:
    return f"{(chart.get('key') or '?').removeprefix('st-key-')} ({chart.get('label') or 'no label'})"


def _first_difference(a, b, path: str = "") -> str | None:
    """Where two JSON-like values first differ, e.g. "[0].z[1][2]: 0.25 ≠ 0.5" (None when equal)."""
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path or 'value'}: {len(a)} items ≠ {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = _first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            d = _first_difference(a.get(k), b.get(k), f"{path}.{k}" if path else k)
            if d:
                return d
        return None
    return None if a == b else f"{path or 'value'}: {_short(a)} ≠ {_short(b)}"


def _short(v) -> str:
    text = repr(v)
    return text if len(text) <= 120 else text[:117] + "…"


def _far(a: list, b: list, tol: float) -> list[str]:
    """Boxes (or numbers) of ``a`` and ``b`` that differ by more than ``tol``, as readable lines."""
    out = []
    if len(a) != len(b):
        return [f"{len(a)} ≠ {len(b)}"]
    for i, (x, y) in enumerate(zip(a, b)):
        xs, ys = (x, y) if isinstance(x, list) else ([x], [y])
        if any(u is None or v is None or abs(u - v) > tol for u, v in zip(xs, ys)):
            out.append(f"#{i} {_round(x)} ≠ {_round(y)}")
    return out


def _round(v):
    return [round(u, 1) for u in v] if isinstance(v, list) else v if v is None else round(v, 1)


def compare(redrawn: list[dict], fresh: list[dict], tol: float = TOLERANCE_PX) -> list[Mismatch]:
    """The differences of a redrawn page's charts from a fresh load's (snapshots of :func:`snapshot`); empty when
    they match. The first list is the redrawn page's, and every message reads "redrawn ≠ fresh"."""
    out: list[Mismatch] = []
    names = [(c["key"], c["label"]) for c in redrawn]
    fresh_names = [(c["key"], c["label"]) for c in fresh]
    if names != fresh_names:
        gone = [n for n in fresh_names if n not in names]
        extra = [n for n in names if n not in fresh_names]
        out.append(Mismatch("charts", "page", f"charts differ: only after the redraw {extra}, only in the fresh "
                                              f"load {gone}; order redrawn {names} ≠ fresh {fresh_names}"))
    fresh_by = {(c["key"], c["label"]): c for c in fresh}
    for a in redrawn:
        b = fresh_by.get((a["key"], a["label"]))
        if b is None:
            continue
        name = _name(a)
        if not (a["drawn"] and b["drawn"]):
            if a["drawn"] != b["drawn"]:
                out.append(Mismatch("drawn", name, f"drawn {a['drawn']} ≠ {b['drawn']} "
                                                   f"({a.get('error') or b.get('error') or ''})"))
            continue
        d = _first_difference(a["traces"], b["traces"], "traces")
        if d:
            out.append(Mismatch("numbers", name, d))
        for part in ("cellTexts", "ticks", "words"):
            d = _first_difference(a[part], b[part], part)
            if d:
                out.append(Mismatch("words", name, d))
        geo = [f"{k} {a['size'][k]} ≠ {b['size'][k]}" for k in a["size"]
               if a["size"][k] is None or b["size"][k] is None or abs(a["size"][k] - b["size"][k]) > tol]
        geo += [f"drag layer {x}" for x in _far(a["drag"], b["drag"], tol)]
        geo += [f"colour bar {x}" for x in _far(a["colorbars"], b["colorbars"], tol)]
        if geo:
            out.append(Mismatch("geometry", name, "; ".join(geo)))
        boxes = _far(a["textBoxes"], b["textBoxes"], tol)
        if boxes:
            texts = a["cellTexts"]
            shown = [f"{x} ({texts[int(x[1:].split()[0])]!r})" if x.startswith("#") else x for x in boxes[:4]]
            more = f" … and {len(boxes) - 4} more" if len(boxes) > 4 else ""
            out.append(Mismatch("text boxes", name, f"{len(boxes)} cell-text box(es) moved by > {tol:g} px "
                                                    f"[x, y, w, h]: " + "; ".join(shown) + more))
    return out


# ---- a sequence ---------------------------------------------------------------------------------------------------
@dataclass
class Outcome:
    """What one sequence did and found: the link it started from, its moves, the link it ended at (the address
    bar's URL, which the fresh load opened), the differences, the app's errors (uncaught JavaScript errors, an
    exception box), the moves that could not be done (the driver's trouble, not the app's: said, not counted as
    differences) and the time it took."""

    start: str
    moves: list[Move] = field(default_factory=list)
    link: str = ""
    mismatches: list[Mismatch] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return bool(self.mismatches or self.errors)

    def report(self) -> str:
        lines = [f"started at {self.start}"] + [f"  {i + 1}. {m}" for i, m in enumerate(self.moves)]
        lines.append(f"ended at (share link) {self.link}")
        lines += [f"  {m}" for m in self.mismatches] + [f"  app error: {e}" for e in self.errors]
        lines += [f"  (not done: {s})" for s in self.skipped]
        return "\n".join(lines)


RECHECK_S = 20.0  # a difference is looked at again for this long before it counts (a page slow to finish drawing)


def check_against_fresh(tabs, page, outcome: Outcome):
    """Compare every chart of ``page`` (at rest) with a fresh load of its address in a new tab; fill ``outcome`` in
    and return the fresh page (still open: the caller closes it or goes on with it).

    A difference found is looked at again, both pages at rest, for RECHECK_S: on a loaded machine a page can look at
    rest while the browser still builds it (a chart not mounted yet). A difference that stays is reported; the
    collapsed charts of issue 18 stay until a reload."""
    settle(page)
    outcome.link = page.url
    fresh = open_page(tabs, outcome.link, charts=len(snapshot(page)))
    deadline = time.monotonic() + RECHECK_S
    while True:
        outcome.mismatches = compare(_stable_snapshot(page), _stable_snapshot(fresh))
        if not outcome.mismatches or time.monotonic() > deadline:
            break
        page.wait_for_timeout(1000)
        settle(page)
        settle(fresh)
    for p in (page, fresh):
        if p.locator(EXCEPTION_BOX).count():
            outcome.errors.append(f"exception box on {p.url}: {p.locator(EXCEPTION_BOX).first.inner_text()[:300]}")
        seen = getattr(p, "redraw_errors", [])
        outcome.errors += [str(e) for e in seen]
        seen.clear()  # (the fresh page may go on as the next sequence's page)
    return fresh


def _stable_snapshot(page, tries: int = 20) -> list[dict]:
    """A snapshot that a second one 250 ms later repeats (a chart still resizing is waited for)."""
    snap = snapshot(page)
    for _ in range(tries):
        page.wait_for_timeout(250)
        again = snapshot(page)
        if again == snap:
            return snap
        settle(page)
        snap = again
    return snap


def run_sequence(tabs, page, lesson_key: str, rng: random.Random, n_moves: int, moves: list[Move] | None = None):
    """Do ``n_moves`` random moves (or the given ``moves``) on ``page`` (a lesson page at rest), then compare its
    charts with a fresh load of its link. Returns (outcome, fresh page: a page of the end state, at rest, in a tab
    of its own, from which a next sequence may go on)."""
    t0 = time.monotonic()
    outcome = Outcome(start=page.url)
    for k in range(n_moves if moves is None else len(moves)):
        move = random_move(rng, controls(page, lesson_key)) if moves is None else moves[k]
        outcome.moves.append(move)
        try:
            do(page, move)
        except Exception as exc:  # a move that could not be done is reported with the sequence, not hidden
            outcome.skipped.append(f"move {k + 1} ({move}): {str(exc).splitlines()[0][:300]}")
            settle(page)
    fresh = check_against_fresh(tabs, page, outcome)
    outcome.seconds = time.monotonic() - t0
    return outcome, fresh
