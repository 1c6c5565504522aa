"""Lesson 6, source–target (cross) attention: queries from the target sentence, keys and values from the source
sentence (the encoder–decoder attention of Vaswani et al. 2017, §3.2.3), and the Seq2Seq bottleneck it solved
(Bahdanau et al. 2015: one fixed-length vector for the whole source against a weighted mix chosen per target token).

Letters: n_q target tokens (queries, rows), n_k source keys (columns: the source's own tokens, then the [PAD] keys
of the batch), d_model the width of the shared embedding space (source and target tokens live in one space, so a
word and its translation can have similar vectors), d_k, d_v. Matrices are float64.

The numbers: preset "align" is set by hand (d_model = 5, features [animal, motion, function word, other content,
language]): a target word and its translation differ only in the language feature, which W_Q and W_K ignore, so
"dog" finds 「犬」; every other word gets the seed's row. Preset "seeded" draws every number from lessons/seeded.py
(the Q·K·V lesson's own sentence uses the same draws: a token has one row wherever it stands, in either sentence).
A [PAD] key is the masks lesson's PAD token (lessons.masks.PAD), hidden by attention_core.padding_mask.

The causal mask belongs to the decoder's self-attention (the "self" mode: Q, K, V all from the target); cross
attention never has one: the whole source is known before the decoder writes a word. Every function here is pure.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from attention_core import (
    AttentionSteps,
    causal_mask,
    padding_mask,
    project_cross,
    project_qkv,
    scaled_dot_product_attention,
    softmax,
)
from attention_core.tokens import MAX_TEXT_CHARS, MAX_TOKENS, tokenize

from . import code as script_code
from . import link, ranges, seeded
from .base import Lesson, Prediction, Presentation, Question, Transition, moved, steps_preview, widest_text
from .cells import CELL_LIMIT, Refusal, placed_cell, placed_matrix
from .code import short_sentence
from .link import Notice
from .masks import PAD, pad_to

__all__ = [
    "PAD", "DIM_MIN", "DIM_MAX", "SEED_MAX", "MAX_PAD", "MAX_EXTRA", "MODES", "SUMMARIES", "FILLERS", "MATRICES",
    "Preset", "PRESETS", "PRESET_NOTE_CELL",
    "is_preset_as_given", "CrossState", "CrossResult", "Bottleneck", "default_state", "source_tokens",
    "target_tokens", "key_tokens", "is_pad", "pads_used", "state_shape", "baseline_matrix", "compute", "matches",
    "bottleneck", "bottleneck_curve", "arrays", "array_labels", "color_ranges", "with_preset", "with_source",
    "with_target", "with_sizes", "with_seed", "with_mode", "with_pad", "with_query", "with_extra", "with_summary",
    "with_matrix", "with_cell", "code", "LINK", "LESSON",
]

DIM_MIN, DIM_MAX = 1, 16
SEED_MAX = 9999
MAX_PAD = 4
"""Most [PAD] keys added after the source (the batch's padding); the source with its pads has at most MAX_TOKENS."""
MAX_EXTRA = 12
"""Most words the bottleneck section adds to the source (FILLERS, in order)."""
MODES = ("cross", "self")
SUMMARIES = ("mean", "last")
FILLERS = ("きょう", "は", "朝", "から", "公園", "の", "中", "を", "ゆっくり", "と", "楽しそう", "に")
"""The words the bottleneck slider adds after the source's own tokens (all different, none an animal or a motion)."""
MATRICES = ("X_tgt", "X_src", "W_Q", "W_K", "W_V")

_F, _C = [0, 0, 1, 0], [0, 0, 0, 1]  # a function word, other content (features 3 and 4 of the hand-set space)
_JA, _EN = 0.5, -0.5  # the language feature


@dataclass(frozen=True)
class Preset:
    """A starting point: sentences, sizes, rows of X by token (one table for both sentences: one space), W_*.
    Numbers a preset does not give come from the seed."""

    key: str
    source: str
    target: str
    d_model: int
    d_k: int
    d_v: int
    rows: dict = field(default_factory=dict)
    weights: dict = field(default_factory=dict)


def _eye(rows: int, cols: int, v: float) -> list[list[float]]:
    return [[v if i == j else 0.0 for j in range(cols)] for i in range(rows)]


PRESETS: dict[str, Preset] = {
    # Features [animal, motion, function word, other content, language (+0.5 Japanese, −0.5 English)]. W_Q and W_K
    # read the first four only (their last row is 0), so a word and its translation get the same query/key
    # direction: "dog"·「犬」 = 4·2 = 8, scaled by 1/√4 → 4, every other source key 0 → weight e⁴/(e⁴ + 2) ≈ 0.965.
    "align": Preset(
        key="align", source="犬 が 歩く", target="the dog walks", d_model=5, d_k=4, d_v=4,
        rows={"犬": [1, 0, 0, 0, _JA], "が": [*_F, _JA], "歩く": [0, 1, 0, 0, _JA],
              "the": [*_F, _EN], "dog": [1, 0, 0, 0, _EN], "walks": [0, 1, 0, 0, _EN], PAD: [0, 0, 0, 0, 0],
              **{w: [*_C, _JA] for w in ("きょう", "朝", "公園", "中", "ゆっくり", "楽しそう")},
              **{w: [*_F, _JA] for w in ("は", "から", "の", "を", "と", "に")}},
        weights={"W_Q": _eye(5, 4, 4.0), "W_K": _eye(5, 4, 2.0), "W_V": _eye(5, 4, 1.0)},
    ),
    # every number from the seed (the Q·K·V lesson's "your own sentence" draws)
    "seeded": Preset(key="seeded", source="犬 が 歩く", target="the dog walks", d_model=4, d_k=4, d_v=4),
}


@dataclass(frozen=True)
class CrossState:
    """Everything the cross-attention page shows (what a share link carries).

    Attributes:
        preset: key of PRESETS. source, target: the sentences as typed (tokens from attention_core.tokens).
        d_model, d_k, d_v: sizes (DIM_MIN..DIM_MAX). seed: 0..SEED_MAX, for every number the preset does not give.
        mats: X_tgt (n_q, d_model), X_src (n_k, d_model) (the source's tokens, then its pads), W_Q, W_K
            (d_model, d_k), W_V (d_model, d_v).
        mode: "cross" (Q from the target, K and V from the source) or "self" (Q, K, V all from the target).
        pad: [PAD] keys added after the source (0..MAX_PAD; fewer when the source is long: :func:`pads_used`).
        padding: the padding mask hides the [PAD] keys (cross mode). causal: the causal mask (self mode only).
        query: the target token whose arithmetic is written out. extra: words the bottleneck section adds
            (0..MAX_EXTRA). summary: the bottleneck's one fixed vector, "mean" or "last".
        cell: the cell picker's choice (lessons/base.py).
    """

    preset: str = "align"
    source: str = "犬 が 歩く"
    target: str = "the dog walks"
    d_model: int = 5
    d_k: int = 4
    d_v: int = 4
    seed: int = 0
    mats: dict = field(default_factory=dict, compare=False)
    mode: str = "cross"
    pad: int = 1
    padding: bool = True
    causal: bool = True
    query: int = 1
    extra: int = 3
    summary: str = "mean"
    cell: tuple[str, int, int] | None = None


def source_tokens(state: CrossState) -> tuple[str, ...]:
    """The source's own tokens (no pads)."""
    return tokenize(state.source).tokens


def target_tokens(state: CrossState) -> tuple[str, ...]:
    return tokenize(state.target).tokens


def pads_used(state: CrossState) -> int:
    """How many [PAD] keys the source gets: ``pad``, fewer when the source and its pads would pass MAX_TOKENS."""
    return max(min(state.pad, MAX_TOKENS - len(source_tokens(state))), 0)


def _padded(state: CrossState) -> tuple[tuple[str, ...], np.ndarray]:
    src = source_tokens(state)
    return pad_to(src, len(src) + pads_used(state))  # the masks lesson's padding


def key_tokens(state: CrossState) -> tuple[str, ...]:
    """The source's keys, in order: its tokens, then :func:`pads_used` × PAD (n_k of them)."""
    return _padded(state)[0]


def is_pad(state: CrossState) -> np.ndarray:
    """(n_k,) bool: True for the [PAD] keys added after the source (a typed "[PAD]" is a word like any other)."""
    return _padded(state)[1]


def state_shape(state: CrossState, name: str) -> tuple[int, int]:
    """X_tgt (n_q, d_model), X_src (n_k, d_model), W_Q / W_K (d_model, d_k), W_V (d_model, d_v). KeyError else."""
    return {"X_tgt": (len(target_tokens(state)), state.d_model), "X_src": (len(key_tokens(state)), state.d_model),
            "W_Q": (state.d_model, state.d_k), "W_K": (state.d_model, state.d_k),
            "W_V": (state.d_model, state.d_v)}[name]


def _row(preset: Preset, seed: int, token: str, width: int) -> np.ndarray:
    row = seeded.token_row(seed, "X", token, width)
    given = preset.rows.get(token)
    return seeded.refit(np.asarray(given, dtype=np.float64), row) if given is not None else row


def _rows(preset: Preset, seed: int, tokens, width: int) -> np.ndarray:
    out = np.zeros((len(tokens), width))
    for i, tok in enumerate(tokens):
        out[i] = _row(preset, seed, tok, width)
    return out


def baseline_matrix(state: CrossState, name: str) -> np.ndarray:
    """Matrix ``name`` before any edit: the preset's rows and weights where it gives them, the seed's elsewhere."""
    p = PRESETS[state.preset]
    if name == "X_tgt":
        return _rows(p, state.seed, target_tokens(state), state.d_model)
    if name == "X_src":
        return _rows(p, state.seed, key_tokens(state), state.d_model)
    r, c = state_shape(state, name)
    base = seeded.weight(state.seed, name, r, c)
    given = p.weights.get(name)
    return seeded.refit(np.asarray(given, dtype=np.float64), base) if given is not None else base


def _fresh(state: CrossState) -> CrossState:
    return replace(state, mats={n: baseline_matrix(state, n) for n in MATRICES})


PRESET_NOTE_CELL = (1, 0)
"""The weight the page's note on preset "align" names: target "dog" (row 1) on source 「犬」 (column 0)."""


def is_preset_as_given(state: CrossState) -> bool:
    """True while the state shows its preset as set: the preset's sentences and sizes, no matrix edited, and any
    [PAD] keys masked (so they take no weight). Notes about the preset's numbers hold only then."""
    p = PRESETS.get(state.preset)
    if p is None or (state.source, state.target, state.d_model, state.d_k, state.d_v) != (
            p.source, p.target, p.d_model, p.d_k, p.d_v):
        return False
    return (state.padding or not pads_used(state)) and all(
        np.array_equal(state.mats[n], baseline_matrix(state, n)) for n in MATRICES)


def default_state(preset_key: str = "align") -> CrossState:
    """The state a preset opens with. Raises KeyError for an unknown preset."""
    p = PRESETS[preset_key]
    return _fresh(CrossState(preset=p.key, source=p.source, target=p.target, d_model=p.d_model, d_k=p.d_k,
                             d_v=p.d_v))


# ---- the computation ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CrossResult:
    """Q (n_q, d_k) from the target; K (m, d_k), V (m, d_v) from the source (cross, m = n_k) or the target (self,
    m = n_q); ``keys`` their tokens; ``mask`` (n_q, m) bool or None; ``steps`` the attention (weights (n_q, m))."""

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    keys: tuple[str, ...]
    mask: np.ndarray | None
    steps: AttentionSteps


def compute(state: CrossState) -> CrossResult | None:
    """Cross mode: Q = X_tgt·W_Q, K = X_src·W_K, V = X_src·W_V (attention_core.project_cross), with the padding mask
    (attention_core.padding_mask) on the [PAD] keys when ``padding``. Self mode: Q, K, V = X_tgt·W_* (project_qkv),
    with the causal mask when ``causal``. None when the target or the source has no token."""
    tgt, src = target_tokens(state), source_tokens(state)
    if not tgt or not src:
        return None
    m = state.mats
    n_q = len(tgt)
    if state.mode == "self":
        Q, K, V = project_qkv(m["X_tgt"], m["W_Q"], m["W_K"], m["W_V"])
        keys, mask = tgt, (causal_mask(n_q) if state.causal else None)
    else:
        Q, K, V = project_cross(m["X_tgt"], m["X_src"], m["W_Q"], m["W_K"], m["W_V"])
        pads = is_pad(state)
        keys = key_tokens(state)
        mask = padding_mask(pads, n_q) if state.padding and pads.any() else None
    return CrossResult(Q, K, V, keys, mask, scaled_dot_product_attention(Q, K, V, mask=mask))


def _cos(a: np.ndarray, b: np.ndarray) -> float | None:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return None if na == 0 or nb == 0 else float(a @ b / (na * nb))


def matches(state: CrossState) -> list[int | None]:
    """For each target token, its matching source word: the source token (not a pad) whose embedding points most
    nearly the same way (largest cosine of the X rows), or None when a vector is 0. In preset "align": the
    translation. The choice uses X only, never the weights, so "attention finds the match" can be checked."""
    src = source_tokens(state)
    X_s, X_t = state.mats["X_src"][:len(src)], state.mats["X_tgt"]
    out = []
    for x in X_t:
        cos = [_cos(x, y) for y in X_s]
        best = max((c, -j) for j, c in enumerate(cos) if c is not None) if any(c is not None for c in cos) else None
        out.append(None if best is None else -best[1])
    return out


@dataclass(frozen=True)
class Bottleneck:
    """The bottleneck section for the chosen target token: ``tokens`` the longer source (its own tokens, then
    ``extra`` FILLERS), V (n, d_v) their values, ``weights`` (n,) the token's attention over them (no pads),
    ``fixed`` (d_v,) the one vector a Seq2Seq decoder gets (the mean of V's rows, or its last row), ``mixed`` (d_v,)
    attention's weighted mix, ``match`` the matching word's index (None: no match), ``share_fixed`` /
    ``share_mixed`` how much of the matching word's value each holds (1/n in the mean, 1 or 0 in the last vector;
    its weight in the mix), ``cos_fixed`` / ``cos_mixed`` the cosine of each with the matching value (None for a 0
    vector)."""

    tokens: tuple[str, ...]
    V: np.ndarray
    weights: np.ndarray
    fixed: np.ndarray
    mixed: np.ndarray
    match: int | None
    share_fixed: float | None
    share_mixed: float | None
    cos_fixed: float | None
    cos_mixed: float | None


def _extra_used(state: CrossState, extra: int) -> int:
    return max(min(extra, MAX_TOKENS - len(source_tokens(state))), 0)


def _bottleneck(state: CrossState, extra: int) -> Bottleneck | None:
    src, tgt = source_tokens(state), target_tokens(state)
    if not src or not tgt:
        return None
    p, m = PRESETS[state.preset], state.mats
    added = FILLERS[:_extra_used(state, extra)]
    X = np.vstack([m["X_src"][:len(src)], _rows(p, state.seed, added, state.d_model)])
    q = m["X_tgt"][state.query] @ m["W_Q"]
    K, V = X @ m["W_K"], X @ m["W_V"]
    w = softmax(K @ q / np.sqrt(state.d_k))
    fixed = V.mean(axis=0) if state.summary == "mean" else V[-1].copy()
    mixed = w @ V
    j = matches(state)[state.query]
    n = len(X)
    if j is None:
        share_f = share_m = cos_f = cos_m = None
    else:
        share_f = 1.0 / n if state.summary == "mean" else float(j == n - 1)
        share_m, cos_f, cos_m = float(w[j]), _cos(fixed, V[j]), _cos(mixed, V[j])
    return Bottleneck(src + added, V, w, fixed, mixed, j, share_f, share_m, cos_f, cos_m)


def bottleneck(state: CrossState) -> Bottleneck | None:
    """The bottleneck at the state's ``extra`` (cut so the source stays within MAX_TOKENS); None without tokens."""
    return _bottleneck(state, state.extra)


def bottleneck_curve(state: CrossState) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The matching word's share in the fixed vector and in attention's mix for every source length the slider
    reaches: (lengths (k,), share_fixed (k,), share_mixed (k,)); None without tokens or without a match."""
    b = bottleneck(state)
    if b is None or b.match is None:
        return None
    n0 = len(source_tokens(state))
    rows = [_bottleneck(state, e) for e in range(_extra_used(state, MAX_EXTRA) + 1)]
    return (np.array([n0 + k for k in range(len(rows))], dtype=np.float64),
            np.array([r.share_fixed for r in rows]), np.array([r.share_mixed for r in rows]))


def arrays(state: CrossState) -> dict[str, np.ndarray]:
    """The matrices the page shows: X_tgt, X_src, W_Q, W_K, W_V, and with tokens on both sides Q, K, V, scores
    (n_q, m), scaled_scores (−∞ where masked), weights (rows sum to 1), output (n_q, d_v), ``mask`` (as 0/1) when
    one applies, and ``bottleneck`` (3, d_v): the fixed vector, attention's mix, the matching word's value (its
    value row only when there is a match)."""
    out = {n: state.mats[n] for n in MATRICES}
    res = compute(state)
    if res is None:
        return out
    s = res.steps
    out.update(Q=res.Q, K=res.K, V=res.V, scores=s.scores, scaled_scores=s.scaled_scores, weights=s.weights,
               output=s.output)
    if res.mask is not None:
        out["mask"] = res.mask.astype(np.float64)
    b = bottleneck(state)
    rows = [b.fixed, b.mixed] + ([b.V[b.match]] if b.match is not None else [])
    out["bottleneck"] = np.array(rows, dtype=np.float64)
    return out


def preview(state: CrossState) -> dict[str, np.ndarray | tuple[np.ndarray, np.ndarray]]:
    """The matrix each keyed heatmap of the page shows (``Lesson.preview``): X_tgt, X_src, W_Q, W_K, W_V; with tokens
    on both sides Q, K, V, the scores, the scaled scores (before any mask), the masked scaled scores, the weights (with
    which are exactly 0 or 1), the output, and with a matching word the bottleneck (3, d_v): the fixed vector,
    attention's mix, the matching word's value."""
    out: dict = {f"cross.fig.{name}": state.mats[name] for name in MATRICES}
    res = compute(state)
    if res is None:
        return out
    out.update({"cross.fig.Q": res.Q, "cross.fig.K": res.K, "cross.fig.V": res.V,
                **steps_preview("cross.fig", res.steps)})
    b = bottleneck(state)
    if b is not None and b.match is not None:
        out["cross.fig.bottleneck"] = np.array([b.fixed, b.mixed, b.V[b.match]])
    return out


def array_labels(state: CrossState) -> dict[str, tuple[list[str], list[str]]]:
    """Lesson.array_labels: the target's tokens on the query axes, the keys' tokens (the source with its [PAD]s; the
    target in self mode) on the key axes, the dimensions "1", "2", … on the d_model, d_k, d_v axes; the bottleneck's
    rows "1".."3" (the fixed vector, attention's mix, the matching word's value)."""
    def dims(n: int) -> list[str]:
        return [str(j + 1) for j in range(n)]

    tgt, dm, dk, dv = list(target_tokens(state)), dims(state.d_model), dims(state.d_k), dims(state.d_v)
    out = {"X_tgt": (tgt, dm), "X_src": (list(key_tokens(state)), dm), "W_Q": (dm, dk), "W_K": (dm, dk),
           "W_V": (dm, dv)}
    res = compute(state)
    if res is None:
        return out
    keys = list(res.keys)
    out.update(Q=(tgt, dk), K=(keys, dk), V=(keys, dv), output=(tgt, dv),
               **{name: (tgt, keys) for name in ("scores", "scaled_scores", "weights")})
    if res.mask is not None:
        out["mask"] = (tgt, keys)
    out["bottleneck"] = (dims(2 if bottleneck(state).match is None else 3), dv)
    return out


def baseline_state(state: CrossState) -> CrossState:
    return _fresh(state)


@lru_cache(maxsize=64)
def _setup_ranges(preset, source, target, d_model, d_k, d_v, seed, mode, pad, padding, causal, query, extra,
                  summary) -> tuple:
    s = CrossState(preset, source, target, d_model, d_k, d_v, seed, {}, mode, pad, padding, causal, query, extra,
                   summary)
    found = ranges.of_arrays(arrays(_fresh(s)))
    if "V" in found:  # each output row is a weighted mean of V's rows
        found["output"] = max(found.get("output", 0.0), found["V"])
    return tuple(sorted(found.items()))


def color_ranges(state: CrossState) -> dict[str, float]:
    """{array name: zmax}: the ranges of the unedited setup (lessons/ranges.py), so an edit recolours only the cells
    whose numbers change; the output shares V's range."""
    return dict(_setup_ranges(state.preset, state.source, state.target, state.d_model, state.d_k, state.d_v,
                              state.seed, state.mode, state.pad, state.padding, state.causal, state.query,
                              state.extra, state.summary))


# ---- transitions -------------------------------------------------------------------------------------------------
def _clamp(v, lo: int, hi: int) -> int:
    return int(min(max(int(v), lo), hi))


def _resized(old: CrossState, new: CrossState) -> CrossState:
    """``old``'s matrices carried into ``new`` (other sentences, pads or sizes) by seeded.refit onto ``new``'s
    baseline: a token keeps its row (matched by token, the k-th copy to the k-th copy), W keeps its top-left part."""
    rows = {"X_tgt": (target_tokens(old), target_tokens(new)), "X_src": (key_tokens(old), key_tokens(new))}
    mats = {}
    for n in MATRICES:
        keys = dict(old_rows=rows[n][0], new_rows=rows[n][1]) if n in rows else {}
        mats[n] = seeded.refit(old.mats[n], baseline_matrix(new, n), **keys)
    return with_query(replace(new, mats=mats), old.query)[0]


def with_preset(state: CrossState, preset_key: str) -> CrossState:
    """The preset afresh (its sentences, sizes, matrices), keeping the seed, the switches and the bottleneck's
    settings. Raises Refusal("invalid") for an unknown preset."""
    if preset_key not in PRESETS:
        raise Refusal("invalid")
    p = PRESETS[preset_key]
    new = replace(state, preset=p.key, source=p.source, target=p.target, d_model=p.d_model, d_k=p.d_k, d_v=p.d_v,
                  query=CrossState.query)
    return with_query(_fresh(new), new.query)[0]


def with_source(state: CrossState, text: str) -> CrossState:
    return _resized(state, replace(state, source=str(text)))


def with_target(state: CrossState, text: str) -> CrossState:
    return _resized(state, replace(state, target=str(text)))


def with_sizes(state: CrossState, d_model: int | None = None, d_k: int | None = None, d_v: int | None = None):
    """New sizes (each clamped to DIM_MIN..DIM_MAX); what still fits is kept."""
    def pick(v, old):
        return old if v is None else _clamp(v, DIM_MIN, DIM_MAX)
    return _resized(state, replace(state, d_model=pick(d_model, state.d_model), d_k=pick(d_k, state.d_k),
                                   d_v=pick(d_v, state.d_v)))


def with_seed(state: CrossState, seed: int) -> CrossState:
    """New seed: every number the preset does not give drawn again, the cells a person edited kept."""
    s = _clamp(seed, 0, SEED_MAX)
    if s == state.seed:
        return state
    new = _fresh(replace(state, seed=s))
    mats = {n: seeded.keep_edits(state.mats[n], baseline_matrix(state, n), new.mats[n]) for n in MATRICES}
    return replace(new, mats=mats)


def with_mode(state: CrossState, mode: str) -> CrossState:
    """"cross" or "self" (the same W). Raises Refusal("invalid") for another word."""
    if mode not in MODES:
        raise Refusal("invalid")
    return replace(state, mode=mode)


def with_pad(state: CrossState, pad: int) -> CrossState:
    return _resized(state, replace(state, pad=_clamp(pad, 0, MAX_PAD)))


def with_query(state: CrossState, query: int) -> tuple[CrossState, bool]:
    """Choose the target token. Returns (state, clamped): past the end → the last token, clamped True."""
    q = int(query)
    hi = max(len(target_tokens(state)) - 1, 0)
    return replace(state, query=min(max(q, 0), hi)), not 0 <= q <= hi


def with_extra(state: CrossState, extra: int) -> CrossState:
    return replace(state, extra=_clamp(extra, 0, MAX_EXTRA))


def with_summary(state: CrossState, summary: str) -> CrossState:
    if summary not in SUMMARIES:
        raise Refusal("invalid")
    return replace(state, summary=summary)


def with_matrix(state: CrossState, name: str, M) -> CrossState:
    """Replace matrix ``name`` (same shape, cells within ±CELL_LIMIT). Raises Refusal ("invalid", "shape", a cell's)."""
    return replace(state, mats=placed_matrix(state.mats, MATRICES, name, M, lambda n: state_shape(state, n)))


def with_cell(state: CrossState, name: str, i: int, j: int, value) -> CrossState:
    """Set one cell. Raises Refusal: a code of check_cell, "invalid" (unknown matrix), "outside"."""
    return replace(state, mats=placed_cell(state.mats, MATRICES, name, i, j, value))


# ---- the NumPy script (Lesson.code) ---------------------------------------------------------------------------------
_PROJECT = {
    "cross": "Q = X_tgt @ W_Q    # queries from the target\nK = X_src @ W_K    # keys and values from the source\n"
             "V = X_src @ W_V",
    "self": "Q = X_tgt @ W_Q    # self-attention of the target: queries, keys and values all from it\n"
            "K = X_tgt @ W_K\nV = X_tgt @ W_V",
}
_MASK = {
    "cross": "if padding:\n    scaled_scores[:, np.array(is_pad)] = -np.inf  # no target token looks at a [PAD] key",
    "self": "if causal:\n    n = len(target)\n    scaled_scores[np.tril(np.ones((n, n))) == 0] = -np.inf"
            "  # the decoder: token i sees tokens 1..i",
}
_STEPS = """\
d_k = W_Q.shape[1]
scores = Q @ K.T                       # one row per target token, one column per key
scaled_scores = scores / np.sqrt(d_k)
{mask}
weights = softmax(scaled_scores)       # each row sums to 1
output = weights @ V                   # each target token: a mix of the values"""


def code(state: CrossState) -> str:
    """Lesson.code: the target's tokens and X_tgt, the source's keys (its tokens, then its [PAD]s) and X_src (cross
    mode only), W_Q, W_K, W_V and the mode's switch (padding, or causal in self mode); then Q, K, V, the scores, the
    (masked) scaled scores, the weights and the output. Without a token on either side, the inputs only."""
    m, cross_mode = state.mats, state.mode == "cross"
    inputs: dict = {"target": list(target_tokens(state)), "X_tgt": m["X_tgt"]}
    if cross_mode:
        inputs.update(source=list(key_tokens(state)), X_src=m["X_src"], is_pad=[bool(x) for x in is_pad(state)],
                      padding=state.padding)
    inputs.update({n: m[n] for n in ("W_Q", "W_K", "W_V")})
    if not cross_mode:
        inputs["causal"] = state.causal
    title = (f"Source–target attention ({state.mode}) — {short_sentence(source_tokens(state))} → "
             f"{short_sentence(target_tokens(state))}, d_model={state.d_model}, d_k={state.d_k}, d_v={state.d_v}")
    if compute(state) is None:  # the page shows the matrices only
        body = "# the target or the source has no token: there is nothing to attend to"
        shown = [n for n in inputs if n in MATRICES and m[n].size]
    else:
        body = _PROJECT[state.mode] + "\n" + _STEPS.format(mask=_MASK[state.mode])
        shown = ["Q", "K", "V", "scores", "scaled_scores", "weights", "output"]
    return script_code.script(title, script_code.file_name("cross"), inputs, body, shown)


# ---- link --------------------------------------------------------------------------------------------------------
# cross=1 p [s=<source>] [t=<target>] dm dk dv sd m pad pm c q x b, and each matrix that differs from its baseline;
# cell=<matrix>.<row>.<col> (the cell picker's, added by the contract) when it is not the first cell.
LINK = link.LinkSchema(
    namespace="cross", version=1,
    fields=(link.Choice("p", tuple(PRESETS)), link.Text("s", MAX_TEXT_CHARS), link.Text("t", MAX_TEXT_CHARS),
            link.Int("dm", DIM_MIN, DIM_MAX), link.Int("dk", DIM_MIN, DIM_MAX), link.Int("dv", DIM_MIN, DIM_MAX),
            link.Int("sd", 0, SEED_MAX), link.Choice("m", MODES), link.Int("pad", 0, MAX_PAD), link.Flag("pm"),
            link.Flag("c"), link.Int("q", 0, 10**6), link.Int("x", 0, MAX_EXTRA), link.Choice("b", SUMMARIES)),
    matrices=tuple(link.Matrix(n, CELL_LIMIT) for n in MATRICES),
)


def to_link(state: CrossState) -> dict:
    """Every scalar field; the sentences only when not the preset's; the matrices that differ from the baseline."""
    p = PRESETS[state.preset]
    out = {"p": state.preset}
    if state.source != p.source:
        out["s"] = state.source
    if state.target != p.target:
        out["t"] = state.target
    out.update(dm=state.d_model, dk=state.d_k, dv=state.d_v, sd=state.seed, m=state.mode, pad=state.pad,
               pm=state.padding, c=state.causal, q=state.query, x=state.extra, b=state.summary)
    for n in MATRICES:
        M = state.mats[n]
        if M.size and not np.array_equal(M, baseline_matrix(state, n)):
            out[n] = M
    return out


def from_link(values: dict) -> tuple[CrossState, list[Notice]]:
    """The state of a link's valid fields (the rest from the preset). A query past the target's end becomes its last
    token (notice ``query_clamped``; ``query_no_tokens`` when the target has none)."""
    p = PRESETS[values.get("p", "align")]
    state = _fresh(CrossState(
        preset=p.key, source=values.get("s", p.source), target=values.get("t", p.target),
        d_model=values.get("dm", p.d_model), d_k=values.get("dk", p.d_k), d_v=values.get("dv", p.d_v),
        seed=values.get("sd", 0), mode=values.get("m", "cross"), pad=values.get("pad", CrossState.pad),
        padding=values.get("pm", True), causal=values.get("c", True), extra=values.get("x", CrossState.extra),
        summary=values.get("b", "mean")))
    asked = values.get("q", CrossState.query)
    state, clamped = with_query(state, asked)
    notices = []
    if "q" in values and clamped and target_tokens(state):  # (the default query moved to fit is not said)
        notices.append(Notice("query_clamped", {"asked": asked + 1, "used": state.query + 1, "param": "q"}))
    elif "q" in values and clamped:
        notices.append(Notice("query_no_tokens", {"asked": asked + 1, "param": "q"}))
    return state, notices


def with_matrices(state: CrossState, mats: dict) -> CrossState:
    return replace(state, mats={**state.mats, **{k: np.asarray(v, dtype=np.float64) + 0.0 for k, v in mats.items()}})


def _sizes(attr: str, key: str) -> Transition:
    return Transition(lambda s, v: with_sizes(s, **{attr: v}), (link.Int(key, DIM_MIN, DIM_MAX),))


TRANSITIONS = {
    "preset": Transition(with_preset, (link.Choice("p", (*PRESETS, "gone")),)),
    "source": Transition(with_source, (link.Text("s", MAX_TEXT_CHARS),)),
    "target": Transition(with_target, (link.Text("t", MAX_TEXT_CHARS),)),
    "d_model": _sizes("d_model", "dm"), "d_k": _sizes("d_k", "dk"), "d_v": _sizes("d_v", "dv"),
    "seed": Transition(with_seed, (link.Int("sd", 0, SEED_MAX),)),
    "mode": Transition(with_mode, (link.Choice("m", (*MODES, "other")),)),
    "pad": Transition(with_pad, (link.Int("pad", 0, MAX_PAD + 2),)),
    "padding": Transition(lambda s, v: replace(s, padding=bool(v)), (link.Flag("pm"),)),
    "causal": Transition(lambda s, v: replace(s, causal=bool(v)), (link.Flag("c"),)),
    "query": Transition(lambda s, q: with_query(s, q)[0], (link.Int("q", 0, 20),)),  # a stale option past the end
    "extra": Transition(with_extra, (link.Int("x", 0, MAX_EXTRA + 2),)),
    "summary": Transition(with_summary, (link.Choice("b", (*SUMMARIES, "other")),)),
    "cell": Transition(with_cell, (link.Choice("m", MATRICES), link.Int("i", 0, DIM_MAX), link.Int("j", 0, DIM_MAX),
                                   link.Decimal("v", -2 * CELL_LIMIT, 2 * CELL_LIMIT))),
    **{f"grid.{n}": Transition(lambda s, M, n=n: with_matrix(s, n, M), (link.Matrix(n, CELL_LIMIT),))
       for n in MATRICES},
}
"""What the page's controls do (lesson_pages/cross.py); the contract tests drive them in random sequences."""


def widest_state() -> CrossState:
    """The fullest screen (Lesson.widest): a 16-token target and a 12-token source with 4 pads (both ending in a
    33-character token), d_model = d_k = d_v = 16, cells typed to wide numbers (scores past 10⁴), 4 added words."""
    state = with_preset(default_state(), "seeded")
    state = with_sizes(with_pad(with_source(with_target(state, widest_text()), widest_text(12)), MAX_PAD),
                       d_model=DIM_MAX, d_k=DIM_MAX, d_v=DIM_MAX)
    for name, i, j, v in (("X_tgt", 0, 0, -19.34), ("X_src", 1, 1, 100.0), ("W_Q", 0, 0, 999.9),
                          ("X_tgt", 2, 0, 38.5)):
        state = with_cell(state, name, i, j, v)
    return with_extra(with_query(state, 15)[0], MAX_EXTRA)


def one_edit(state: CrossState) -> CrossState:
    """Lesson.one_edit: W_Q's first cell halved, or 0.5 where it is 0 (4 → 2 in preset "align")."""
    v = float(state.mats["W_Q"][0, 0])
    return with_cell(state, "W_Q", 0, 0, v / 2 if v else 0.5)


def cell_matrices(state: CrossState) -> tuple[str, ...]:
    """The matrices the cell picker offers: those with at least one cell (X_tgt has none without a target)."""
    return tuple(n for n in MATRICES if all(state_shape(state, n)))


PLAN = (
    Question("align", moved(default_state, TRANSITIONS)),
    Question("walks", moved(default_state, TRANSITIONS, ("query", 2))),
    Question("self", moved(default_state, TRANSITIONS, ("mode", "self"))),
    Question("padding", moved(default_state, TRANSITIONS, ("padding", False))),
    Question("bottleneck", moved(default_state, TRANSITIONS, ("extra", 12), ("summary", "last"))),
)
"""The lesson plan for class (Lesson.plan; texts ``cross.plan.<key>``)."""
TERMS = ("self_attention", "source_target", "cross_attention", "encoder", "decoder", "query_key_value", "embedding",
         "padding", "batch", "causal_mask", "alignment", "seq2seq", "recurrence", "bottleneck", "cosine_similarity")

LESSON = Lesson(plan=PLAN, terms=TERMS,
                predict=Prediction(weights="weights", hides=("weights", "align", "query"), query=lambda s: s.query),
                key="cross", icon=":material/translate:", default_state=default_state, link=LINK, to_link=to_link,
                from_link=from_link, arrays=arrays, matrix_shape=state_shape, with_matrices=with_matrices,
                color_ranges=color_ranges, cell_matrices=cell_matrices, transitions=TRANSITIONS, preview=preview,
                text_fields=("source", "target"), n_tokens=lambda s: len(target_tokens(s)),
                widest=widest_state, one_edit=one_edit, array_labels=array_labels, code=code,
                present=Presentation(stages=("inputs", "qkv", "scores", "mask", "weights", "align", "query",
                                             "bottleneck"),
                                     controls=("cell", "mode", "dk", "pad", "padding", "causal", "query", "summary",
                                               "extra"),
                                     picture=("weights", "cross.fig.weights")))
