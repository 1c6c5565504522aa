"""The scaling-and-softmax lesson: its state (one frozen value) and its share link (URL query parameters).

Link format (version 1); every value is one string and each key appears once:
  v=1  s1,s2,s3=<score q·k of book i>  dk=<1,2,4,..,512>  sc=1|0 (divide by √d_k)  T=<temperature>
  n=<keys in the saturation chart>  seed=<0..SEED_MAX>
  and only when they differ from the defaults: b1,b2,b3=<value of book i: "v,v,v">, t1,t2,t3=<book title>,
  q=<what the query looks for>.
An empty title or query means "the default text of the current language" (the page supplies it), so a link
without them follows the reader's language. Decoding never raises and never allocates more than the limits allow:
a malformed, unknown or oversized value falls back to the default and adds a :class:`~attention_core.share.Notice`
(codes: scaling_invalid, scaling_too_long, scaling_count, scaling_not_number, scaling_too_big, scaling_rounded, and
the shared link_too_long, link_version, unknown_keys).
Titles are user text: limited to MAX_TITLE_CHARS, kept exactly as typed (the UI escapes HTML when it draws).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from .scaling import DK_STEPS
from .share import IGNORED_KEYS, Notice, _num

__all__ = [
    "VERSION", "N_BOOKS", "D_VALUE", "SCORE_MIN", "SCORE_MAX", "SCORE_STEP", "VALUE_LIMIT", "TEMPERATURES",
    "N_KEYS_MIN", "N_KEYS_MAX", "SEED_MAX", "MAX_TITLE_CHARS", "MAX_PARAM_CHARS", "MAX_QUERY_CHARS",
    "ScalingState", "default_state", "with_score", "with_value", "with_title", "with_query", "encode", "decode",
]

VERSION = "1"
N_BOOKS = 3
D_VALUE = 3
SCORE_MIN, SCORE_MAX, SCORE_STEP = -10.0, 10.0, 0.1
VALUE_LIMIT = 10.0
TEMPERATURES = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 8.0, 12.0, 20.0)
"""The temperatures the slider offers (roughly log-spaced); 8 = √64, the scaling at the default d_k."""
N_KEYS_MIN, N_KEYS_MAX = 2, 32
SEED_MAX = 9999
MAX_TITLE_CHARS = 40
MAX_PARAM_CHARS = 200
"""Longest single parameter read at all (a title of 40 CJK characters is 40 characters here, not bytes)."""
MAX_QUERY_CHARS = 2000
"""Longest whole query string accepted, summed over keys and values."""

DEFAULT_SCORES = (8.0, 2.0, -4.0)
DEFAULT_VALUES = ((5.0, 1.0, 0.0), (1.0, 5.0, 0.0), (0.0, 0.0, 5.0))


@dataclass(frozen=True)
class ScalingState:
    """Everything the page shows, in one value (what a share link carries).

    Attributes:
        scores: N_BOOKS raw scores q·k, each SCORE_MIN..SCORE_MAX on the SCORE_STEP grid.
        d_k: key width, one of DK_STEPS.
        scaled: True divides the scores by √d_k before softmax.
        temperature: one of TEMPERATURES (softmax(s / T) in the temperature section).
        n_keys: keys per row in the saturation chart, N_KEYS_MIN..N_KEYS_MAX.
        seed: 0..SEED_MAX, seeds the random q and k of the variance lab and the saturation chart.
        values: N_BOOKS value vectors of D_VALUE numbers, each |v| <= VALUE_LIMIT.
        titles: N_BOOKS book titles ("" = the language's default title), each at most MAX_TITLE_CHARS.
        query: what the query looks for ("" = the language's default), at most MAX_TITLE_CHARS.

    Raises:
        ValueError: on construction (also through ``dataclasses.replace``) with any value out of bounds.
    """

    scores: tuple[float, ...] = DEFAULT_SCORES
    d_k: int = 64
    scaled: bool = True
    temperature: float = 1.0
    n_keys: int = 8
    seed: int = 0
    values: tuple[tuple[float, ...], ...] = DEFAULT_VALUES
    titles: tuple[str, ...] = ("", "", "")
    query: str = ""

    def __post_init__(self):
        if len(self.scores) != N_BOOKS or not all(_is_score(s) for s in self.scores):
            raise ValueError(f"scores must be {N_BOOKS} numbers in {SCORE_MIN}..{SCORE_MAX}, got {self.scores!r}")
        if self.d_k not in DK_STEPS:
            raise ValueError(f"d_k must be one of {DK_STEPS}, got {self.d_k!r}")
        if not isinstance(self.scaled, bool):
            raise ValueError(f"scaled must be True or False, got {self.scaled!r}")
        if self.temperature not in TEMPERATURES:
            raise ValueError(f"temperature must be one of {TEMPERATURES}, got {self.temperature!r}")
        if not (isinstance(self.n_keys, int) and N_KEYS_MIN <= self.n_keys <= N_KEYS_MAX):
            raise ValueError(f"n_keys must be in {N_KEYS_MIN}..{N_KEYS_MAX}, got {self.n_keys!r}")
        if not (isinstance(self.seed, int) and 0 <= self.seed <= SEED_MAX):
            raise ValueError(f"seed must be in 0..{SEED_MAX}, got {self.seed!r}")
        if len(self.values) != N_BOOKS or any(len(v) != D_VALUE or not all(map(_is_value, v)) for v in self.values):
            raise ValueError(f"values must be {N_BOOKS} vectors of {D_VALUE} numbers within ±{VALUE_LIMIT}")
        if len(self.titles) != N_BOOKS or not all(isinstance(x, str) and len(x) <= MAX_TITLE_CHARS
                                                  for x in self.titles):
            raise ValueError(f"titles must be {N_BOOKS} strings of at most {MAX_TITLE_CHARS} characters")
        if not isinstance(self.query, str) or len(self.query) > MAX_TITLE_CHARS:
            raise ValueError(f"query must be a string of at most {MAX_TITLE_CHARS} characters")


def _is_score(v) -> bool:
    return isinstance(v, float) and SCORE_MIN <= v <= SCORE_MAX and _on_grid(v)


def _on_grid(v: float) -> bool:
    return abs(round(v / SCORE_STEP) * SCORE_STEP - v) < 1e-9


def _is_value(v) -> bool:
    return isinstance(v, float) and math.isfinite(v) and abs(v) <= VALUE_LIMIT


def _snap(v: float) -> float:
    """A score on the SCORE_STEP grid, as the shortest decimal (0.30000000000000004 → 0.3)."""
    return round(round(float(v) / SCORE_STEP) * SCORE_STEP, 6) + 0.0


def default_state() -> ScalingState:
    return ScalingState()


def with_score(state: ScalingState, i: int, v: float) -> ScalingState:
    """Book i's score, clamped to SCORE_MIN..SCORE_MAX and snapped to the grid. Raises IndexError, ValueError."""
    s = list(state.scores)
    s[i] = _snap(min(max(float(v), SCORE_MIN), SCORE_MAX))
    return replace(state, scores=tuple(s))


def with_value(state: ScalingState, i: int, j: int, v: float) -> ScalingState:
    """Component j of book i's value, clamped to ±VALUE_LIMIT. Raises IndexError, ValueError (NaN)."""
    v = float(v)
    if not math.isfinite(v):
        raise ValueError(f"a value must be a finite number, got {v!r}")
    rows = [list(r) for r in state.values]
    rows[i][j] = min(max(v, -VALUE_LIMIT), VALUE_LIMIT) + 0.0
    return replace(state, values=tuple(tuple(r) for r in rows))


def _clean_text(text: str, default: str) -> str:
    """Typed text: trimmed, cut to MAX_TITLE_CHARS; equal to the language's default (or empty) → ""."""
    s = "".join(ch for ch in str(text) if ord(ch) >= 32 and ord(ch) != 127).strip()[:MAX_TITLE_CHARS]
    return "" if s == default.strip() else s


def with_title(state: ScalingState, i: int, text: str, default: str = "") -> ScalingState:
    """Book i's title. ``default`` is the current language's default title: typing it (or nothing) stores ""."""
    titles = list(state.titles)
    titles[i] = _clean_text(text, default)
    return replace(state, titles=tuple(titles))


def with_query(state: ScalingState, text: str, default: str = "") -> ScalingState:
    """What the query looks for; like :func:`with_title`."""
    return replace(state, query=_clean_text(text, default))


# ---- share link ---------------------------------------------------------------------------------------------------
def encode(state: ScalingState) -> dict[str, str]:
    """State → query parameters (strings). Numbers always; values, titles and query only when not the default."""
    out = {"v": VERSION}
    for i, s in enumerate(state.scores):
        out[f"s{i + 1}"] = _num(s)
    out.update(dk=str(state.d_k), sc="1" if state.scaled else "0", T=_num(state.temperature),
               n=str(state.n_keys), seed=str(state.seed))
    for i in range(N_BOOKS):
        if state.values[i] != DEFAULT_VALUES[i]:
            out[f"b{i + 1}"] = ",".join(_num(x) for x in state.values[i])
    for i, title in enumerate(state.titles):
        if title:
            out[f"t{i + 1}"] = title
    if state.query:
        out["q"] = state.query
    return out


_NUMBER = re.compile(r"^[+-]?(\d{1,6}(\.\d{0,24})?|\.\d{1,24})([eE][+-]?\d{1,3})?$")
_INT = re.compile(r"^\d{1,6}$")
KNOWN_KEYS = frozenset({"v", "dk", "sc", "T", "n", "seed", "q"}
                       | {f"{c}{i + 1}" for c in "sbt" for i in range(N_BOOKS)})


def _float(raw: str) -> float | None:
    raw = raw.strip()
    if not _NUMBER.match(raw):
        return None
    v = float(raw)
    return v if math.isfinite(v) else None


def decode(params: dict[str, str]) -> tuple[ScalingState, list[Notice]]:
    """Query parameters → (state, notices). Never raises. Missing keys take the defaults silently; a bad value
    falls back to its default with a ``scaling_<reason>`` notice naming the parameter (``param``) and its value;
    an empty dict gives the default."""
    notices: list[Notice] = []
    base = default_state()
    try:
        params = {str(k): str(v) for k, v in dict(params).items()}
    except Exception:  # not a mapping of strings: nothing usable
        return base, [Notice("link_version", {"v": "?"})]
    total = sum(len(k) + len(v) for k, v in params.items())
    if total > MAX_QUERY_CHARS:
        return base, [Notice("link_too_long", {"n": total, "max": MAX_QUERY_CHARS})]
    if params.get("v", VERSION) != VERSION:
        return base, [Notice("link_version", {"v": params["v"][:20]})]

    def bad(key, reason="invalid", **extra):
        """Notice codes scaling_<reason>; placeholders never named "key" or "lang" (those are t()'s own)."""
        notices.append(Notice(f"scaling_{reason}", {"param": key, "value": params.get(key, "")[:40], **extra}))

    def raw(key):
        r = params.get(key)
        if r is not None and len(r) > MAX_PARAM_CHARS:
            bad(key, "too_long", n=len(r), max=MAX_PARAM_CHARS)
            return None
        return r

    scores = list(base.scores)
    for i in range(N_BOOKS):
        key = f"s{i + 1}"
        r = raw(key)
        if r is None:
            continue
        v = _float(r)
        if v is None or not SCORE_MIN <= v <= SCORE_MAX:
            bad(key)
            continue
        snapped = _snap(v)
        if abs(snapped - v) > 1e-9:
            notices.append(Notice("scaling_rounded", {"param": key, "value": r[:40], "used": _num(snapped)}))
        scores[i] = snapped

    def pick_int(key, ok, default):
        r = raw(key)
        if r is None:
            return default
        if _INT.match(r.strip()) and ok(int(r)):
            return int(r)
        bad(key)
        return default

    d_k = pick_int("dk", lambda v: v in DK_STEPS, base.d_k)
    n_keys = pick_int("n", lambda v: N_KEYS_MIN <= v <= N_KEYS_MAX, base.n_keys)
    seed = pick_int("seed", lambda v: 0 <= v <= SEED_MAX, base.seed)
    scaled = base.scaled
    r = raw("sc")
    if r is not None:
        if r in ("0", "1"):
            scaled = r == "1"
        else:
            bad("sc")
    temperature = base.temperature
    r = raw("T")
    if r is not None:
        v = _float(r)
        match = [x for x in TEMPERATURES if v is not None and abs(x - v) < 1e-9]
        if match:
            temperature = match[0]
        else:
            bad("T")

    values = [list(v) for v in base.values]
    for i in range(N_BOOKS):
        key = f"b{i + 1}"
        r = raw(key)
        if r is None:
            continue
        parts = r.split(",")
        if len(parts) != D_VALUE:
            bad(key, "count", got=len(parts), want=D_VALUE)
            continue
        nums = [_float(p) for p in parts]
        if any(x is None for x in nums):
            first = next(p for p, x in zip(parts, nums) if x is None)
            bad(key, "not_number", item=first.strip()[:40])
            continue
        big = [x for x in nums if abs(x) > VALUE_LIMIT]
        if big:
            bad(key, "too_big", item=f"{big[0]:g}", limit=f"{VALUE_LIMIT:g}")
            continue
        values[i] = [x + 0.0 for x in nums]

    def text(key):
        r = raw(key)
        if r is None:
            return ""
        s = r.strip()
        if any(ord(ch) < 32 or ord(ch) == 127 for ch in s):
            bad(key)
            return ""
        if len(s) > MAX_TITLE_CHARS:
            bad(key, "too_long", n=len(s), max=MAX_TITLE_CHARS)
            return ""
        return s

    titles = tuple(text(f"t{i + 1}") for i in range(N_BOOKS))
    query = text("q")
    unknown = sorted(params.keys() - IGNORED_KEYS - KNOWN_KEYS)
    if unknown:
        notices.append(Notice("unknown_keys", {"keys": ", ".join(k[:20] for k in unknown[:5])}))
    state = ScalingState(scores=tuple(scores), d_k=d_k, scaled=scaled, temperature=temperature, n_keys=n_keys,
                         seed=seed, values=tuple(tuple(v) for v in values), titles=titles, query=query)
    return state, notices
