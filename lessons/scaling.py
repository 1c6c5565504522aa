"""Lesson 2, scaling and softmax: its state (one frozen value), transitions and link.

Link (version 2; version 1 is the same without the envelope, ``v=1``):
  scaling=2  s1,s2,s3=<score q·k of book i>  dk=<1,2,4,..,512>  sc=1|0 (divide by √d_k)  T=<temperature>
  n=<keys in the saturation chart>  seed=<0..SEED_MAX>
  and only when they differ from the defaults: b1,b2,b3=<value of book i: "v,v,v">, t1,t2,t3=<book title>,
  q=<what the query looks for>.
An empty title or query means "the default text of the current language" (the page supplies it), so a link
without them follows the reader's language. Titles are user text: limited to MAX_TITLE_CHARS, kept exactly as
typed (the UI escapes it where it draws).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from attention_core import scaling as scaling_math
from attention_core.scaling import DK_STEPS

from . import code as script_code
from . import link
from .base import LONG_TOKEN, Lesson, Prediction, Presentation, Question, Transition, moved
from .cells import Refusal
from .link import Notice

__all__ = [
    "N_BOOKS", "D_VALUE", "SCORE_MIN", "SCORE_MAX", "SCORE_STEP", "VALUE_LIMIT", "TEMPERATURES", "N_KEYS_MIN",
    "N_KEYS_MAX", "SEED_MAX", "MAX_TITLE_CHARS", "DEFAULT_SCORES", "DEFAULT_VALUES", "ScalingState",
    "default_state", "with_score", "with_value", "with_title", "with_query", "arrays", "array_labels", "code", "LINK",
    "LESSON",
]

N_BOOKS = 3
D_VALUE = 3
SCORE_MIN, SCORE_MAX, SCORE_STEP = -10.0, 10.0, 0.1
VALUE_LIMIT = 10.0
TEMPERATURES = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 8.0, 12.0, 20.0)
"""The temperatures the slider offers (roughly log-spaced); 8 = √64, the scaling at the default d_k."""
N_KEYS_MIN, N_KEYS_MAX = 2, 32
SEED_MAX = 9999
MAX_TITLE_CHARS = 40

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
    """Book i's score, clamped to SCORE_MIN..SCORE_MAX and snapped to the grid. Raises Refusal ("invalid") for a
    book that does not exist, ("not_finite") for NaN or ±∞."""
    _book(i)
    if not math.isfinite(float(v)):
        raise Refusal("not_finite", value=str(v)[:40])
    s = list(state.scores)
    s[i] = _snap(min(max(float(v), SCORE_MIN), SCORE_MAX))
    return replace(state, scores=tuple(s))


def with_value(state: ScalingState, i: int, j: int, v: float) -> ScalingState:
    """Component j of book i's value, clamped to ±VALUE_LIMIT. Raises Refusal ("invalid") for a book or component
    that does not exist, ("not_finite") for NaN or ±∞."""
    _book(i)
    if not 0 <= int(j) < D_VALUE:
        raise Refusal("invalid")
    v = float(v)
    if not math.isfinite(v):
        raise Refusal("not_finite", value=str(v)[:40])
    rows = [list(r) for r in state.values]
    rows[i][j] = min(max(v, -VALUE_LIMIT), VALUE_LIMIT) + 0.0
    return replace(state, values=tuple(tuple(r) for r in rows))


def _book(i: int) -> None:
    if not 0 <= int(i) < N_BOOKS:
        raise Refusal("invalid")


def _clean_text(text: str, default: str) -> str:
    """Typed text: trimmed, cut to MAX_TITLE_CHARS, control characters but the tab dropped (a pasted tab stays, as
    in the field and in the link); equal to the language's default (or empty) → ""."""
    s = "".join(ch for ch in str(text) if ch == "\t" or (ord(ch) >= 32 and ord(ch) != 127)).strip()
    s = s[:MAX_TITLE_CHARS].strip()  # trimmed again: a cut may end at a space, which the link would not keep
    return "" if s == default.strip() else s


def with_title(state: ScalingState, i: int, text: str, default: str = "") -> ScalingState:
    """Book i's title. ``default`` is the current language's default title: typing it (or nothing) stores "".
    Raises Refusal ("invalid") for a book that does not exist."""
    _book(i)
    titles = list(state.titles)
    titles[i] = _clean_text(text, default)
    return replace(state, titles=tuple(titles))


def with_query(state: ScalingState, text: str, default: str = "") -> ScalingState:
    """What the query looks for; like :func:`with_title`."""
    return replace(state, query=_clean_text(text, default))


def arrays(state: ScalingState) -> dict[str, np.ndarray]:
    """The 3-books computation by name: raw scores q·k (n,), scaled_scores (÷√d_k when ``scaled``), weights =
    softmax (n,) summing to 1, values (n, D_VALUE), output = weights·values (D_VALUE,); and the temperature
    section's weights softmax(scores / T) (n,)."""
    mix = scaling_math.book_mix(state.scores, state.d_k, state.values, scale=state.scaled)
    return {"scores": mix.raw, "scaled_scores": mix.scaled, "weights": mix.weights,
            "values": np.array(state.values, dtype=np.float64), "output": mix.output,
            "temperature_weights": scaling_math.temperature_softmax(state.scores, state.temperature)}


def book_names(state: ScalingState) -> list[str | tuple[str, dict]]:
    """Each book's title as typed, or its default title of the language tables (a (text key, args) label)."""
    return [title or (f"scaling.book.default_{i + 1}", {}) for i, title in enumerate(state.titles)]


def array_labels(state: ScalingState) -> dict[str, tuple[Sequence, Sequence[str]]]:
    """Lesson.array_labels: the books by their titles as the page shows them (:func:`book_names`: a typed title, or
    the language's default title as a text key) and the value components "1".."D_VALUE"; the 1-D arrays are one
    number per book, the output one per component."""
    books, dims = book_names(state), [str(j + 1) for j in range(D_VALUE)]
    out = {name: (books, ()) for name in ("scores", "scaled_scores", "weights", "temperature_weights")}
    return {**out, "values": (books, dims), "output": (dims, ())}


_BODY = """\
divisor = np.sqrt(d_k) if scaled else 1.0        # ÷√d_k on or off
scaled_scores = scores / divisor
weights = softmax(scaled_scores)                 # one weight per book, summing to 1
output = weights @ values                        # the books' values mixed by their weights
temperature_weights = softmax(scores / T)        # the temperature section: softmax(scores / T)"""


def code(state: ScalingState) -> str:
    """Lesson.code: the three books' raw scores q·k and values, d_k, the ÷√d_k switch and the temperature T, then
    the scaled scores, the weights, the mixed output and the temperature section's weights."""
    title = (f"Scaling and softmax — {N_BOOKS} books, d_k={state.d_k}, ÷√d_k {'on' if state.scaled else 'off'}, "
             f"T={state.temperature:g}")
    inputs = {"scores": np.array(state.scores, dtype=np.float64), "values": np.array(state.values, dtype=np.float64),
              "d_k": state.d_k, "scaled": state.scaled, "T": state.temperature}
    shown = ("scaled_scores", "weights", "output", "temperature_weights")
    return script_code.script(title, script_code.file_name("scaling"), inputs, _BODY, shown)


# ---- link ---------------------------------------------------------------------------------------------------------
_BOOKS = range(1, N_BOOKS + 1)
LINK = link.LinkSchema(
    namespace="scaling", version=2, legacy=("1",),
    fields=(*(link.Decimal(f"s{i}", SCORE_MIN, SCORE_MAX, step=SCORE_STEP) for i in _BOOKS),
            link.Int("dk", 1, max(DK_STEPS), allowed=DK_STEPS), link.Flag("sc"),
            link.Decimal("T", min(TEMPERATURES), max(TEMPERATURES), allowed=TEMPERATURES),
            link.Int("n", N_KEYS_MIN, N_KEYS_MAX), link.Int("seed", 0, SEED_MAX),
            *(link.Vector(f"b{i}", D_VALUE, VALUE_LIMIT) for i in _BOOKS),
            *(link.Text(f"t{i}", MAX_TITLE_CHARS, strip=True) for i in _BOOKS),
            link.Text("q", MAX_TITLE_CHARS, strip=True)),
)


def to_link(state: ScalingState) -> dict:
    """Numbers always; values, titles and the query only when they are not the default."""
    out = {f"s{i + 1}": s for i, s in enumerate(state.scores)}
    out.update(dk=state.d_k, sc=state.scaled, T=state.temperature, n=state.n_keys, seed=state.seed)
    out.update({f"b{i + 1}": v for i, v in enumerate(state.values) if v != DEFAULT_VALUES[i]})
    out.update({f"t{i + 1}": x for i, x in enumerate(state.titles) if x})
    if state.query:
        out["q"] = state.query
    return out


def from_link(values: dict) -> tuple[ScalingState, list[Notice]]:
    base = default_state()
    state = ScalingState(
        scores=tuple(values.get(f"s{i}", base.scores[i - 1]) for i in _BOOKS),
        d_k=values.get("dk", base.d_k), scaled=values.get("sc", base.scaled),
        temperature=values.get("T", base.temperature), n_keys=values.get("n", base.n_keys),
        seed=values.get("seed", base.seed), values=tuple(values.get(f"b{i}", base.values[i - 1]) for i in _BOOKS),
        titles=tuple(values.get(f"t{i}", "") for i in _BOOKS), query=values.get("q", ""))
    return state, []


def _set(attr: str, field: link.Field) -> Transition:
    """A plain setting, refused in words when the state cannot hold it (ScalingState checks every value)."""
    def apply(state, v):
        try:
            return replace(state, **{attr: v})
        except ValueError:
            raise Refusal("invalid") from None
    return Transition(apply, (field,))


_BOOK = link.Int("i", 0, N_BOOKS - 1)
TRANSITIONS = {
    "score": Transition(with_score, (_BOOK, link.Decimal("s", 2 * SCORE_MIN, 2 * SCORE_MAX))),
    "value": Transition(with_value, (_BOOK, link.Int("j", 0, D_VALUE - 1),
                                     link.Decimal("v", -2 * VALUE_LIMIT, 2 * VALUE_LIMIT))),
    "title": Transition(with_title, (_BOOK, link.Text("t", 2 * MAX_TITLE_CHARS))),
    "query": Transition(with_query, (link.Text("q", 2 * MAX_TITLE_CHARS),)),
    "d_k": _set("d_k", link.Int("dk", 1, max(DK_STEPS), allowed=DK_STEPS)),
    "scaled": _set("scaled", link.Flag("sc")),
    "temperature": _set("temperature", link.Decimal("T", min(TEMPERATURES), max(TEMPERATURES), allowed=TEMPERATURES)),
    "n_keys": _set("n_keys", link.Int("n", N_KEYS_MIN, N_KEYS_MAX)),
    "seed": _set("seed", link.Int("seed", 0, SEED_MAX)),
}
"""What the page's controls do (lesson_pages/scaling.py): the contract tests drive these in random sequences."""


def widest_state() -> ScalingState:
    """The fullest screen (Lesson.widest): titles at their longest (one Japanese, one English), scores at both ends of
    their range, d_k = 1, a value at −VALUE_LIMIT and a long query."""
    state = default_state()
    for i, title in enumerate(("犬の飼い方と健康のすべて" * 3, "Cooking for beginners: 100 recipes", "星空")):
        state = with_title(state, i, title[:MAX_TITLE_CHARS])
    state = with_query(with_score(with_score(state, 0, SCORE_MAX), 2, SCORE_MIN), LONG_TOKEN[:MAX_TITLE_CHARS])
    return with_value(replace(state, d_k=1), 1, 1, -VALUE_LIMIT)


PLAN = (
    Question("off", moved(default_state, TRANSITIONS, ("scaled", False))),
    Question("dk", moved(default_state, TRANSITIONS, ("d_k", 512))),
    Question("variance", moved(default_state, TRANSITIONS, ("d_k", 256))),
    Question("temperature", moved(default_state, TRANSITIONS, ("temperature", 8.0))),
    Question("sharp", moved(default_state, TRANSITIONS, ("temperature", 0.1))),
)
"""The lesson plan for class (Lesson.plan; texts ``scaling.plan.<key>``)."""
TERMS = ("query_key_value", "dot_product", "scaling", "softmax", "dimension", "variance", "normal_distribution",
         "standard_deviation", "saturation", "argmax", "entropy", "natural_log", "temperature")

LESSON = Lesson(plan=PLAN, terms=TERMS,
                predict=Prediction(weights="weights", hides=("books", "mix", "temperature")),
                key="scaling", icon=":material/tune:", default_state=default_state, link=LINK, to_link=to_link,
                from_link=from_link, arrays=arrays, transitions=TRANSITIONS,
                text_fields=("query", *(f"title.{i}" for i in range(N_BOOKS))), widest=widest_state,
                array_labels=array_labels, code=code,
                present=Presentation(stages=("books", "mix", "variance", "saturation", "temperature"),
                                     controls=("dk", "scale", "n", "T"), picture=("books", "scaling.fig.steps")))
