"""Lesson 4, multi-head attention (Vaswani et al. 2017, sec. 3.2.2): one sentence, h heads, one pattern per head,
the heads' outputs side by side (Concat) and projected once more by W_O.

The lesson keeps the paper's square case: W_Q, W_K, W_V and W_O are (d_model, d_model) and head i uses column block
i of W_Q, W_K, W_V (d_k = d_v = d_model / h columns each; h is offered only as a divisor of d_model). Changing h
therefore keeps every number: the same matrices are cut into other blocks, which is what a student should see (the
heads are not extra parameters, they are a way of cutting the same width). Every function here is pure: state in,
new state out; matrices are float64. Random numbers come from lessons/seeded.py, keyed by (seed, matrix name[,
token]), so a token keeps its X row wherever it stands and a size change keeps every number that still fits.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from attention_core import causal_mask, softmax_exact
from attention_core.multihead import MultiHeadSteps, multi_head_attention
from attention_core.tokens import MAX_TEXT_CHARS, tokenize

from . import code as script_code
from . import link, ranges, seeded
from .base import Lesson, Prediction, Presentation, Question, Transition, moved, widest_text
from .cells import CELL_LIMIT, Refusal, placed_cell, placed_matrix
from .link import Notice

__all__ = [
    "DM_MIN", "DM_MAX", "SEED_MAX", "MATRICES", "PAPER", "PRESETS", "Preset", "MultiHeadState", "divisors",
    "fit_heads", "matrix_shape", "baseline_matrix", "is_preset_as_given", "default_state", "with_preset", "with_text",
    "with_d_model", "with_n_heads", "with_seed", "with_query", "with_head", "with_matrix", "with_cell", "compute",
    "cost", "arrays", "array_labels", "color_ranges", "LINK", "LESSON",
]

DM_MIN, DM_MAX = 1, seeded.MAX_SIZE
SEED_MAX = 9999
MATRICES = ("X", "W_Q", "W_K", "W_V", "W_O")
PAPER = {"d_model": 512, "n_heads": 8, "d_k": 64, "d_v": 64}
"""The original paper's sizes (Vaswani et al. 2017, sec. 3.2.2): h = 8 heads of d_k = d_v = d_model / h = 64."""


def divisors(d_model: int) -> tuple[int, ...]:
    """The head counts d_model can be cut into: every h >= 1 that divides d_model (d_k = d_model / h whole)."""
    return tuple(h for h in range(1, int(d_model) + 1) if d_model % h == 0)



def fit_heads(d_model: int, n_heads: int) -> int:
    """The head count used for ``n_heads`` at this d_model: n_heads itself when it divides d_model, else the largest
    divisor below it (1 always divides)."""
    return max(h for h in divisors(d_model) if h <= max(int(n_heads), 1))


@dataclass(frozen=True)
class Preset:
    """A starting point: the sentence, sizes, and the numbers it gives by hand (X rows by token, the W matrices);
    everything else from the seed."""

    key: str
    text: str
    d_model: int
    n_heads: int
    rows: dict = field(default_factory=dict)
    weights: dict = field(default_factory=dict)
    query: int = 0


def _head_weights() -> dict:
    """The "heads" preset's W (8 × 8, h = 2, d_k = 4). X's columns: 4 for the token's place (1 in its own), then
    animal, particle, manner, action.

    Head 1 (columns 1–4) looks at the previous token: a key is its place (W_K: the identity on the place columns);
    the query of the token at place p asks for place p − 1 with weight 6 (W_Q), so its score there is 6, ÷√4 = 3,
    and its weight e³ / (e³ + 3) ≈ 0.870 (the first token has no previous one: its scores are all 0, weights ¼).
    Head 2 (columns 5–8) looks at the animal: every query is [1, 0, 0, 0] (each token has one content feature, and
    W_Q sends each to column 5); only 犬's key is [6, 0, 0, 0] (W_K sends "animal" there), so every token gives
    犬 the weight ≈ 0.870. Both heads' values are the tokens' content features (W_V); W_O is the identity, so the
    output is the two heads' outputs side by side."""
    W_Q, W_K, W_V = np.zeros((8, 8)), np.zeros((8, 8)), np.zeros((8, 8))
    for p in range(1, 4):
        W_Q[p, p - 1] = 6.0          # place p asks for place p − 1 (head 1)
    W_K[:4, :4] = np.eye(4)          # a key is its place (head 1)
    W_Q[4:, 4] = 1.0                 # every content feature asks the same question (head 2)
    W_K[4, 4] = 6.0                  # only the animal answers it (head 2)
    for c in range(4):
        W_V[4 + c, c] = W_V[4 + c, 4 + c] = 1.0  # both heads carry the content features
    return {"W_Q": W_Q, "W_K": W_K, "W_V": W_V, "W_O": np.eye(8)}


def _head_rows() -> dict:
    toks = ("犬", "が", "速く", "歩く")
    return {"X": {tok: [float(p == k) for k in range(4)] + [float(p == k) for k in range(4)]
                  for p, tok in enumerate(toks)}}


PRESETS: dict[str, Preset] = {
    "heads": Preset("heads", "犬 が 速く 歩く", 8, 2, rows=_head_rows(), weights=_head_weights(), query=2),
    "random": Preset("random", "猫 が 魚 を 食べる", 8, 2),
}


@dataclass(frozen=True)
class MultiHeadState:
    """Everything the multi-head page shows (what a share link carries).

    Attributes:
        preset: key of PRESETS the lesson started from.
        text: the sentence as typed (``tokens`` derived from it).
        d_model: DM_MIN..DM_MAX; n_heads: a divisor of d_model (d_k = d_v = d_model / n_heads).
        seed: 0..SEED_MAX, seeds every number the preset does not give.
        mats: X (n, d_model) and W_Q, W_K, W_V, W_O (d_model, d_model), float64.
        query: the query token whose arithmetic is spelled out (0-based); head: the head shown in detail (0-based).
        causal: apply the causal mask to every head.
        cell: the cell picker's choice (matrix, row, col) or None (see lessons/base.py).
        heads_asked: the head count last chosen when d_model does not take it (n_heads is then the largest divisor
            below it: :func:`fit_heads`), else 0. A d_model move fits the heads to it, so a drag of d_model that
            passes a value h does not divide comes back to the h chosen (8 → 9 → 8 keeps h = 4).
    """

    preset: str
    text: str
    d_model: int
    n_heads: int
    seed: int
    mats: dict
    query: int = 0
    head: int = 0
    causal: bool = False
    cell: tuple[str, int, int] | None = None
    heads_asked: int = 0

    @property
    def tokens(self) -> tuple[str, ...]:
        return tokenize(self.text).tokens

    @property
    def n(self) -> int:
        return len(self.tokens)

    @property
    def d_k(self) -> int:
        return self.d_model // self.n_heads


def matrix_shape(state: MultiHeadState, name: str) -> tuple[int, int]:
    """X (n, d_model); W_Q, W_K, W_V, W_O (d_model, d_model). Raises KeyError for another name."""
    if name not in MATRICES:
        raise KeyError(name)
    return (state.n, state.d_model) if name == "X" else (state.d_model, state.d_model)


def baseline_matrix(state: MultiHeadState, name: str) -> np.ndarray:
    """Matrix ``name`` before any edit: the preset's numbers in its top-left part (X: a token's given row), the
    seed's elsewhere. It does not depend on n_heads (a new h cuts the same matrices into other blocks)."""
    p = PRESETS[state.preset]
    d = state.d_model
    if name == "X":
        out = np.empty((state.n, d))
        for i, tok in enumerate(state.tokens):
            row = seeded.token_row(state.seed, "X", tok, d)
            given = p.rows.get("X", {}).get(tok)
            out[i] = seeded.refit(np.asarray(given, dtype=np.float64), row) if given is not None else row
        return out
    base = seeded.weight(state.seed, name, d, d)
    given = p.weights.get(name)
    return seeded.refit(given, base) if given is not None else base


def _fresh(preset: str, text: str, d_model: int, n_heads: int, seed: int, query: int = 0) -> MultiHeadState:
    s = MultiHeadState(preset, text, d_model, fit_heads(d_model, n_heads), seed, {})
    s = replace(s, mats={name: baseline_matrix(s, name) for name in MATRICES})
    return with_query(s, query)


def default_state(preset: str = "heads", seed: int = 0) -> MultiHeadState:
    """The state a preset opens with. Raises KeyError for an unknown preset."""
    p = PRESETS[preset]
    return _fresh(p.key, p.text, p.d_model, p.n_heads, seed, p.query)


def with_preset(state: MultiHeadState, preset: str) -> MultiHeadState:
    """The preset afresh, keeping the seed and the causal switch. Raises Refusal ("invalid") for another key."""
    if preset not in PRESETS:
        raise Refusal("invalid")
    return replace(default_state(preset, state.seed), causal=state.causal)


def is_preset_as_given(state: MultiHeadState) -> bool:
    """True while the state is its preset as given: its sentence, sizes and head count, no matrix edited, no mask
    (what a note about the preset's numbers assumes)."""
    p = PRESETS[state.preset]
    if (state.text, state.d_model, state.n_heads, state.causal) != (p.text, p.d_model, p.n_heads, False):
        return False
    return all(np.array_equal(M, baseline_matrix(state, name)) for name, M in state.mats.items())


def _resized(state: MultiHeadState, new: MultiHeadState) -> MultiHeadState:
    """The edits of ``state`` carried into ``new`` (other tokens or d_model): X keeps a token's row (by token), the
    W keep their top-left part (lessons.seeded.refit)."""
    mats = {}
    for name in MATRICES:
        keys = dict(old_rows=state.tokens, new_rows=new.tokens) if name == "X" else {}
        mats[name] = seeded.refit(state.mats[name], baseline_matrix(new, name), **keys)
    return replace(new, mats=mats)


def with_query(state: MultiHeadState, query: int) -> MultiHeadState:
    """The query token, kept inside the sentence (a query past the end is the last token)."""
    return replace(state, query=min(max(int(query), 0), max(state.n - 1, 0)))


def with_head(state: MultiHeadState, head: int) -> MultiHeadState:
    """The head shown in detail, kept inside 0..n_heads − 1."""
    return replace(state, head=min(max(int(head), 0), state.n_heads - 1))


def with_text(state: MultiHeadState, text: str) -> MultiHeadState:
    """A new sentence: a token keeps its X row while it stays; new tokens get the preset's or the seed's row."""
    return with_query(_resized(state, replace(state, text=text)), state.query)


def with_d_model(state: MultiHeadState, d_model: int) -> MultiHeadState:
    """A new d_model (clamped to DM_MIN..DM_MAX): the numbers that still fit are kept; h becomes the largest
    divisor of the new d_model not above the h chosen (``heads_asked``, else the current h; the page says so when
    it is not the h chosen: :func:`fit_heads`)."""
    d = int(min(max(int(d_model), DM_MIN), DM_MAX))
    asked = state.heads_asked or state.n_heads
    h = fit_heads(d, asked)
    new = replace(state, d_model=d, n_heads=h, heads_asked=asked if h != asked else 0)
    return with_head(_resized(state, new), state.head)


def with_n_heads(state: MultiHeadState, n_heads: int) -> MultiHeadState:
    """A new head count; the matrices stay as they are (cut into other blocks). Raises Refusal ("invalid") for an h
    that does not divide d_model."""
    h = int(n_heads)
    if h not in divisors(state.d_model):
        raise Refusal("invalid")
    return with_head(replace(state, n_heads=h, heads_asked=0), state.head)


def with_seed(state: MultiHeadState, seed: int) -> MultiHeadState:
    """A new seed: every number the preset does not give is drawn again, except the cells the person edited, which
    keep their numbers (lessons.seeded.keep_edits); the same seed changes nothing."""
    s = int(min(max(int(seed), 0), SEED_MAX))
    if s == state.seed:
        return state
    fresh = _fresh(state.preset, state.text, state.d_model, state.n_heads, s)
    mats = {n: seeded.keep_edits(state.mats[n], baseline_matrix(state, n), fresh.mats[n]) for n in MATRICES}
    return replace(fresh, mats=mats, query=state.query, head=state.head, causal=state.causal, cell=state.cell,
                   heads_asked=state.heads_asked)


def with_matrix(state: MultiHeadState, name: str, M) -> MultiHeadState:
    """Replace matrix ``name`` (same shape, every cell within ±CELL_LIMIT). Raises Refusal ("shape", "invalid", or a
    cell's refusal naming the cell)."""
    return replace(state, mats=placed_matrix(state.mats, MATRICES, name, M, lambda n: matrix_shape(state, n)))


def with_cell(state: MultiHeadState, name: str, i: int, j: int, value) -> MultiHeadState:
    """Set one cell. Raises Refusal: a code of check_cell, "invalid" (unknown matrix), "outside" (no such cell)."""
    return replace(state, mats=placed_cell(state.mats, MATRICES, name, i, j, value))


def compute(state: MultiHeadState) -> MultiHeadSteps | None:
    """Multi-head self-attention of the state (X as both sides), the causal mask on every head when ``causal``.
    None without tokens."""
    if state.n == 0:
        return None
    m = state.mats
    mask = causal_mask(state.n) if state.causal else None
    return multi_head_attention(m["X"], m["X"], m["W_Q"], m["W_K"], m["W_V"], m["W_O"], state.n_heads, mask=mask)


def cost(n: int, d_model: int, n_heads: int) -> dict[str, int]:
    """Multiplications of one multi-head self-attention over n tokens (each dot product of length d counted as d):

    - ``projections``: Q, K, V = X·W (n·d_model·d_model each, 3 of them);
    - ``scores`` and ``mix``: per head n·n·d_k for QKᵀ and n·n·d_v for weights·V, times h (= n²·d_model each, the
      same for every h, since h·d_k = d_model);
    - ``out``: concat·W_O (n·d_model·d_model);
    - ``one_head``: scores + mix of ONE head of full width d_model (2·n²·d_model), for comparison.
    """
    d_k = d_model // n_heads
    per_head = 2 * n * n * d_k
    return {"projections": 3 * n * d_model * d_model, "scores": n_heads * n * n * d_k, "mix": n_heads * n * n * d_k,
            "heads": n_heads * per_head, "out": n * d_model * d_model, "one_head": 2 * n * n * d_model}


def arrays(state: MultiHeadState) -> dict[str, np.ndarray]:
    """What the page shows: X, W_Q, W_K, W_V, W_O; with tokens Q, K, V (n, d_model), per head i (1-based)
    ``scores_i``, ``scaled_scores_i``, ``weights_i`` (n, n) and ``head_output_i`` (n, d_k); ``concat`` (n, d_model),
    ``output`` (n, d_model) and ``weights_mean`` (the heads' weights averaged: for looking only, no model computes
    it)."""
    out = {name: state.mats[name] for name in MATRICES}
    res = compute(state)
    if res is None:
        return out
    out.update(Q=res.Q, K=res.K, V=res.V, concat=res.concat, output=res.output, weights_mean=res.weights.mean(axis=0))
    for i in range(res.n_heads):
        out[f"scores_{i + 1}"] = res.scores[i]
        out[f"scaled_scores_{i + 1}"] = res.scaled_scores[i]
        out[f"weights_{i + 1}"] = res.weights[i]
        out[f"head_output_{i + 1}"] = res.head_outputs[i]
    return out


def preview(state: MultiHeadState) -> dict[str, np.ndarray | tuple[np.ndarray, np.ndarray]]:
    """The matrix each keyed heatmap of the page shows (``Lesson.preview``): X, W_Q, W_K, W_V, W_O; with tokens Q, K,
    V, each head's weights (with which are exactly 0 or 1), their mean (h > 1), the chosen head's Q_h, K_h, V_h, the
    concatenation and the output."""
    out: dict = {f"multihead.fig.{name}": state.mats[name] for name in MATRICES}
    res = compute(state)
    if res is None:
        return out
    k = state.head
    out.update({"multihead.fig.Q_out": res.Q, "multihead.fig.K_out": res.K, "multihead.fig.V_out": res.V,
                "multihead.fig.head_Q": res.Q_heads[k], "multihead.fig.head_K": res.K_heads[k],
                "multihead.fig.head_V": res.V_heads[k], "multihead.fig.concat": res.concat,
                "multihead.fig.output": res.output})
    for i in range(res.n_heads):
        out[f"multihead.fig.weights_{i + 1}"] = (res.weights[i], softmax_exact(res.scaled_scores[i]))
    if res.n_heads > 1:
        out["multihead.fig.mean"] = res.weights.mean(axis=0)
    return out


def array_labels(state: MultiHeadState) -> dict[str, tuple[list[str], list[str]]]:
    """Lesson.array_labels: the tokens on every token axis, the dimensions "1".."d_model" on the others (the W's rows
    and columns, the columns of X, Q, K, V, concat and output), "1".."d_k" on the columns of a head's output."""
    toks, dm = list(state.tokens), [str(j + 1) for j in range(state.d_model)]
    out = {"X": (toks, dm), **{name: (dm, dm) for name in MATRICES if name != "X"}}
    if not state.n:
        return out
    out.update({name: (toks, dm) for name in ("Q", "K", "V", "concat", "output")}, weights_mean=(toks, toks))
    for i in range(1, state.n_heads + 1):
        out.update({f"{kind}_{i}": (toks, toks) for kind in ("scores", "scaled_scores", "weights")})
        out[f"head_output_{i}"] = (toks, [str(j + 1) for j in range(state.d_k)])
    return out


@lru_cache(maxsize=64)
def _setup_ranges(preset: str, text: str, d_model: int, n_heads: int, seed: int) -> tuple:
    base = _fresh(preset, text, d_model, n_heads, seed)
    found = ranges.of_arrays(arrays(base))
    merged = {}
    for name, zmax in found.items():  # one range per kind of array, whichever head it belongs to
        kind = name.rstrip("0123456789").rstrip("_") if name[-1].isdigit() else name
        merged[kind] = max(merged.get(kind, 0.0), zmax)
    return tuple(sorted(merged.items()))


def color_ranges(state: MultiHeadState) -> dict[str, float]:
    """{array name of :func:`arrays`: zmax} of the unedited setup (lessons/ranges.py); a head's ``scores_i``,
    ``scaled_scores_i`` and ``head_output_i`` share one range with every other head's (so two heads' colours
    compare)."""
    kinds = dict(_setup_ranges(state.preset, state.text, state.d_model, state.n_heads, state.seed))
    heads = [f"{k}_{i + 1}" for i in range(state.n_heads) for k in ("scores", "scaled_scores", "head_output")]
    out = {}
    for name in (*MATRICES, "Q", "K", "V", "concat", "output", *heads):
        kind = name.rstrip("0123456789").rstrip("_") if name[-1].isdigit() else name
        if kind in kinds:
            out[name] = kinds[kind]
    return out


# ---- link ---------------------------------------------------------------------------------------------------------
# multihead=1 p=<preset> [t=<sentence>] dm h s q hd [c=1] and each matrix that differs from what preset and seed give.
# h is the head count chosen (heads_asked, else n_heads): d_model may not divide by it; the page says which is used.
LINK = link.LinkSchema(
    namespace="multihead", version=1,
    fields=(link.Choice("p", tuple(PRESETS)), link.Text("t", MAX_TEXT_CHARS), link.Int("dm", DM_MIN, DM_MAX),
            link.Int("h", 1, DM_MAX), link.Int("s", 0, SEED_MAX), link.Int("q", 0, 10**6),
            link.Int("hd", 0, DM_MAX), link.Flag("c")),
    matrices=tuple(link.Matrix(name, CELL_LIMIT) for name in MATRICES),
)


def to_link(state: MultiHeadState) -> dict:
    p = PRESETS[state.preset]
    out = {"p": state.preset}
    if state.text != p.text:
        out["t"] = state.text
    out.update(dm=state.d_model, h=state.heads_asked or state.n_heads, s=state.seed, q=state.query, hd=state.head)
    if state.causal:
        out["c"] = True
    for name in MATRICES:
        M = state.mats[name]
        if M.size and not np.array_equal(M, baseline_matrix(state, name)):
            out[name] = M
    return out


def from_link(values: dict) -> tuple[MultiHeadState, list[Notice]]:
    """The state of a link's valid fields (the rest from the preset). An h that does not divide d_model is the h
    chosen (``heads_asked``; the largest divisor below it is used, and the page says so); a query or head past the
    end becomes the last one, said in a notice."""
    p = PRESETS[values.get("p", "heads")]
    d_model = values.get("dm", p.d_model)
    asked_h = values.get("h", p.n_heads)
    state = _fresh(p.key, values.get("t", p.text), d_model, asked_h, values.get("s", 0))
    if state.n_heads != asked_h:  # the h chosen, kept: the page says which h is used (as after a d_model move)
        state = replace(state, heads_asked=asked_h)
    notices = []
    asked_q, asked_hd = values.get("q", p.query), values.get("hd", 0)
    state = with_head(with_query(replace(state, causal=values.get("c", False)), asked_q), asked_hd)

    if "q" in values and asked_q != state.query and state.n:  # (the preset's query moved to fit is not said)
        notices.append(Notice("query_clamped", {"asked": asked_q + 1, "used": state.query + 1, "param": "q"}))
    elif "q" in values and asked_q != state.query:  # no token at all: nothing to point at, said all the same
        notices.append(Notice("query_no_tokens", {"asked": asked_q + 1, "param": "q"}))
    if "hd" in values and asked_hd != state.head:
        notices.append(Notice("head_clamped", {"asked": asked_hd + 1, "used": state.head + 1, "param": "hd"}))
    return state, notices


def with_matrices(state: MultiHeadState, mats: dict) -> MultiHeadState:
    return replace(state, mats={**state.mats, **{k: v + 0.0 for k, v in mats.items()}})


TRANSITIONS = {
    "preset": Transition(with_preset, (link.Choice("p", (*PRESETS, "gone")),)),
    "text": Transition(with_text, (link.Text("t", MAX_TEXT_CHARS),)),
    "d_model": Transition(with_d_model, (link.Int("dm", DM_MIN, DM_MAX),)),
    "n_heads": Transition(with_n_heads, (link.Int("h", 1, DM_MAX),)),
    "seed": Transition(with_seed, (link.Int("s", 0, SEED_MAX),)),
    "query": Transition(with_query, (link.Int("q", 0, 20),)),
    "head": Transition(with_head, (link.Int("hd", 0, DM_MAX),)),
    "causal": Transition(lambda s, v: replace(s, causal=bool(v)), (link.Flag("c"),)),
    "cell": Transition(with_cell, (link.Choice("m", MATRICES), link.Int("i", 0, DM_MAX), link.Int("j", 0, DM_MAX),
                                   link.Decimal("v", -2 * CELL_LIMIT, 2 * CELL_LIMIT))),
    **{f"grid.{n}": Transition(lambda s, M, n=n: with_matrix(s, n, M), (link.Matrix(n, CELL_LIMIT),))
       for n in MATRICES},
}
"""What the page's controls do (lesson_pages/multihead.py); the contract tests drive them in random sequences."""

def widest_state() -> MultiHeadState:
    """The fullest screen (Lesson.widest): 16 tokens (the last of 33 characters), d_model = 16 in 4 heads side by
    side, the causal mask on, the last token as the query, and X cells typed to −19.34 and 100.00."""
    state = with_n_heads(with_d_model(with_text(default_state(), widest_text()), DM_MAX), 4)
    state = with_cell(with_cell(state, "X", 0, 0, -19.34), "X", 1, 1, 100.0)
    return replace(with_query(state, state.n - 1), causal=True)


def one_edit(state: MultiHeadState) -> MultiHeadState:
    """Lesson.one_edit: W_Q's first cell halved, or 0.5 where it is 0."""
    v = float(state.mats["W_Q"][0, 0])
    return with_cell(state, "W_Q", 0, 0, v / 2 if v else 0.5)


# ---- the NumPy script (Lesson.code) ---------------------------------------------------------------------------------
_HEADS = """\
n, d_model = X.shape
d_k = d_model // n_heads                # each head's width (d_k = d_v = d_model / n_heads)
Q = X @ W_Q                             # all heads' queries side by side: head h uses columns h*d_k .. (h+1)*d_k - 1
K = X @ W_K
V = X @ W_V
may_attend = np.tril(np.ones((n, n), dtype=bool)) if causal else np.ones((n, n), dtype=bool)
heads = []
for h in range(n_heads):
    cols = slice(h * d_k, (h + 1) * d_k)
    scores = Q[:, cols] @ K[:, cols].T                                        # this head's QKᵀ
    scaled_scores = np.where(may_attend, scores / np.sqrt(d_k), -np.inf)      # ÷√d_k (masked: −∞)
    weights = softmax(scaled_scores)                                          # each row sums to 1
    heads.append((scores, scaled_scores, weights, weights @ V[:, cols]))      # and the head's output
concat = np.concatenate([head[3] for head in heads], axis=1)  # the heads' outputs side by side (n, d_model)
output = concat @ W_O                                          # mixed back into d_model by W_O
weights_mean = np.mean([head[2] for head in heads], axis=0)    # for looking only: no model computes it
"""


def code(state: MultiHeadState) -> str:
    """Lesson.code: the tokens, X, W_Q, W_K, W_V, W_O, n_heads and the causal switch; then Q, K, V, each head's
    scores, scaled scores (÷√d_k, −∞ where the causal mask hides), weights and output from its column block, the
    concatenation, the output (concat·W_O) and the heads' mean weights, named as the page's arrays (``weights_1``, …).
    Without tokens, the matrices only."""
    m = state.mats
    inputs = {"tokens": list(state.tokens), **{name: m[name] for name in MATRICES}, "n_heads": state.n_heads,
              "causal": state.causal}
    title = (f"Multi-head attention — {script_code.short_sentence(state.tokens)}, d_model={state.d_model}, "
             f"n_heads={state.n_heads}, seed {state.seed}" + (", causal mask" if state.causal else ""))
    if compute(state) is None:
        body, shown = "# no tokens: there is nothing to attend to", [n for n in MATRICES if m[n].size]
    else:
        kinds = ("scores", "scaled_scores", "weights", "head_output")
        named = [f"{', '.join(f'{k}_{h + 1}' for k in kinds)} = heads[{h}]" for h in range(state.n_heads)]
        body = _HEADS + "\n".join(named)
        shown = ["Q", "K", "V", *(f"{k}_{h + 1}" for h in range(state.n_heads) for k in kinds), "concat", "output",
                 "weights_mean"]
    return script_code.script(title, script_code.file_name("multihead"), inputs, body, shown)


PLAN = (
    Question("two_views", moved(default_state, TRANSITIONS)),
    Question("one_head", moved(default_state, TRANSITIONS, ("n_heads", 1))),
    Question("four_heads", moved(default_state, TRANSITIONS, ("n_heads", 4))),
    Question("random", moved(default_state, TRANSITIONS, ("preset", "random"))),
    Question("cost", moved(default_state, TRANSITIONS, ("n_heads", 8))),
)
"""The lesson plan for class (Lesson.plan; texts ``multihead.plan.<key>``)."""
TERMS = ("multi_head", "head", "query_key_value", "dimension", "projection", "matrix", "attention_weights",
         "concatenation", "identity_matrix", "causal_mask", "seed", "computational_cost")

LESSON = Lesson(plan=PLAN, terms=TERMS, code=code, preview=preview,
                predict=Prediction(weights=lambda s: f"weights_{s.head + 1}", hides=("heads", "detail", "combine"),
                                   query=lambda s: s.query,
                                   which=lambda s: ("multihead.predict.which", {"i": s.head + 1})),
                key="multihead", icon=":material/view_column:", default_state=default_state, link=LINK,
                to_link=to_link, from_link=from_link, arrays=arrays, matrix_shape=matrix_shape,
                with_matrices=with_matrices, color_ranges=color_ranges, cell_matrices=lambda s: MATRICES,
                transitions=TRANSITIONS, text_fields=("text",), n_tokens=lambda s: s.n, widest=widest_state,
                one_edit=one_edit, array_labels=array_labels,
                present=Presentation(stages=("inputs", "split", "heads", "detail", "combine", "cost"),
                                     controls=("h", "causal", "head", "query"),
                                     picture=("heads", "multihead.fig.weights_1")))
