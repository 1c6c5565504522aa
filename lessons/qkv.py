"""Lesson 1, Q·K·V step by step: presets (data), the lesson state (which tokens, sizes, matrices), its
transitions and its link.

Every function here is pure: it takes a :class:`QKVState` and returns a new one. Matrices are float64.
Random matrices come from lessons/seeded.py (the one place every lesson draws from): seeded by (seed, matrix
name[, token]), always drawn at the largest size and sliced, so growing or shrinking a size keeps every number that
still fits and a token keeps its embedding row wherever it stands in the sentence. A new sentence or size carries the
edits over with :func:`lessons.seeded.refit` (see :func:`with_text`, :func:`with_sizes`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from attention_core import AttentionSteps, causal_mask, project_qkv, scaled_dot_product_attention
from attention_core.tokens import MAX_TEXT_CHARS, tokenize

from . import code as script_code
from . import link, ranges, seeded
from .base import Lesson, Prediction, Presentation, Question, Transition, moved, steps_preview, widest_text
from .cells import CELL_LIMIT, Refusal, check_cell, checked_matrix, with_one_cell
from .code import short_sentence
from .link import Notice

__all__ = [
    "DIM_MIN", "DIM_MAX", "SEED_MAX", "PRESETS", "Preset", "QKVState", "QKVResult", "ROW_MATRICES", "MATRICES",
    "matrix_shape", "state_shape", "active_matrices", "default_state", "baseline_matrix", "with_preset", "with_text",
    "with_sizes", "with_seed", "seeded_matrices", "with_mode", "with_query", "with_matrix", "with_cell",
    "is_preset_as_given", "example_tokens", "grown_sizes", "compute", "arrays", "array_labels", "code",
    "LINK", "LESSON",
]

DIM_MIN, DIM_MAX = 1, 16
SEED_MAX = 9999
X_SCALE, W_SCALE = seeded.X_SCALE, seeded.W_SCALE  # standard deviations of random token vectors and weight entries
assert DIM_MAX <= seeded.MAX_SIZE

ROW_MATRICES = ("X", "Q", "K", "V")  # one row per token (Q, K, V only in direct mode)
XW_MATRICES = ("X", "W_Q", "W_K", "W_V")
DIRECT_MATRICES = ("Q", "K", "V")
MATRICES = XW_MATRICES + DIRECT_MATRICES
DIRECT_LIMIT = DIM_MAX * CELL_LIMIT**2
"""Largest |value| Q, K or V may hold: X·W of cells within ±CELL_LIMIT (a typed value stays within ±CELL_LIMIT)."""


def cell_limit(name: str) -> float:
    """The largest |value| matrix ``name`` may hold: CELL_LIMIT for X and W, DIRECT_LIMIT for Q, K, V."""
    return DIRECT_LIMIT if name in DIRECT_MATRICES else CELL_LIMIT


@dataclass(frozen=True)
class Preset:
    """A lesson's starting point. ``rows`` maps token → row for the row matrices; ``weights`` holds W_* or,
    for a direct preset, nothing. Missing numbers come from the seed."""

    key: str
    text: str
    d_model: int
    d_k: int
    d_v: int
    mode: str
    rows: dict = field(default_factory=dict)  # {"X": {token: [..]}, "Q": {...}}
    weights: dict = field(default_factory=dict)  # {"W_Q": [[..]], ...}
    query: int = 0


PRESETS: dict[str, Preset] = {
    # 犬が歩く (seed 000): d_model = 4, d_k = 5, d_v = 4. Features of X: [animal, action, particle, alive].
    # Chosen so that 犬's raw scores are [9, 0, 1] → scaled by 1/√5 → weights ≈ 95.5% 犬, 1.7% が, 2.7% 歩く.
    "dog": Preset(
        key="dog", text="犬 が 歩く", d_model=4, d_k=5, d_v=4, mode="xw",
        rows={"X": {"犬": [1, 0, 0, 1], "が": [0, 0, 1, 0], "歩く": [0, 1, 0, 1]}},
        weights={
            "W_Q": [[1, 2, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 0, 1], [1, 0, 0, 1, 0]],
            "W_K": [[2, 2, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 0, 1], [0, 0, 0, 1, 0]],
            "W_V": [[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 0], [0, 0, 0, 1]],
        },
    ),
    # Seed 003: Q, K, V given directly, d_k = 2; its printed table is reproduced to 3 decimals.
    "direct3": Preset(
        key="direct3", text="A B C", d_model=2, d_k=2, d_v=2, mode="direct",
        rows={"Q": {"A": [1, 0], "B": [0, 1], "C": [1, 1]},
              "K": {"A": [1, 0], "B": [0, 1], "C": [1, 1]},
              "V": {"A": [10, 0], "B": [0, 10], "C": [5, 5]}},
    ),
    # Seed 004: 私 / は / 学校へ / 行きます with X, W_Q, W_K, W_V from its code (d_model = 4, d_k = d_v = 2).
    "school": Preset(
        key="school", text="私 は 学校へ 行きます", d_model=4, d_k=2, d_v=2, mode="xw",
        rows={"X": {"私": [1, 0, 1, 0], "は": [0, 1, 0, 1], "学校へ": [1, 1, 0, 0], "行きます": [0, 0, 1, 1]}},
        weights={
            "W_Q": [[1, 0], [0, 1], [1, 0], [0, 1]],
            "W_K": [[1, 0], [0, 1], [0, 1], [1, 0]],
            "W_V": [[1, 0], [0, 1], [1, 0], [0, 1]],
        },
    ),
    # Your own sentence: every number from the seed.
    "custom": Preset(key="custom", text="猫 が 魚 を 食べる", d_model=4, d_k=4, d_v=4, mode="xw"),
}


@dataclass(frozen=True)
class QKVState:
    """Everything the Q·K·V page shows, in one value (what a share link carries).

    Attributes:
        preset: key of PRESETS the lesson started from.
        text: the sentence as typed; ``tokens`` is derived from it (at most MAX_TOKENS).
        d_model, d_k, d_v: sizes, each in DIM_MIN..DIM_MAX.
        seed: 0..SEED_MAX, seeds every number a preset does not give.
        mode: "xw" (Q = X·W_Q, ...) or "direct" (Q, K, V typed in).
        mats: name → float64 matrix for X, W_Q, W_K, W_V, Q, K, V (shapes from :func:`matrix_shape`).
        query: index of the query token whose arithmetic is spelled out.
        causal: apply the causal mask (query i sees keys 1..i; the masks lesson explains it).
        direct_edits: Q, K or V was edited in direct mode (then they are kept when the mode switches; else
            entering direct mode starts them at the current X·W).
        cell: the cell picker's choice (matrix, row, col from 0) that the one-cell slider edits, or None for the
            first cell of the mode's first matrix; read it through ``LESSON.picked_cell`` (lessons/base.py), which
            keeps it inside the current matrices.
    """

    preset: str
    text: str
    d_model: int
    d_k: int
    d_v: int
    seed: int
    mode: str
    mats: dict
    query: int = 0
    causal: bool = False
    direct_edits: bool = False
    cell: tuple[str, int, int] | None = None

    @property
    def tokens(self) -> tuple[str, ...]:
        return tokenize(self.text).tokens

    @property
    def n(self) -> int:
        return len(self.tokens)


def matrix_shape(name: str, n: int, d_model: int, d_k: int, d_v: int) -> tuple[int, int]:
    """Shape of a named matrix for n tokens: X (n, d_model); W_Q, W_K (d_model, d_k); W_V (d_model, d_v);
    Q, K (n, d_k); V (n, d_v). Raises KeyError for an unknown name."""
    return {"X": (n, d_model), "W_Q": (d_model, d_k), "W_K": (d_model, d_k), "W_V": (d_model, d_v),
            "Q": (n, d_k), "K": (n, d_k), "V": (n, d_v)}[name]


def state_shape(state: QKVState, name: str) -> tuple[int, int]:
    return matrix_shape(name, state.n, state.d_model, state.d_k, state.d_v)


def active_matrices(mode: str) -> tuple[str, ...]:
    """The matrices a student edits in a mode: X, W_Q, W_K, W_V ("xw") or Q, K, V ("direct")."""
    return XW_MATRICES if mode == "xw" else DIRECT_MATRICES


def baseline_row(preset: Preset, seed: int, name: str, token: str, width: int) -> np.ndarray:
    """The row a token gets before any edit, shape (width,): the preset's numbers where it has them (its first
    columns), else the seed's (:func:`lessons.seeded.token_row`)."""
    row = seeded.token_row(seed, name, token, width)
    given = preset.rows.get(name, {}).get(token)
    return seeded.refit(np.asarray(given, dtype=np.float64), row) if given is not None else row


def _baseline_weight(preset: Preset, seed: int, name: str, rows: int, cols: int) -> np.ndarray:
    """W_Q, W_K or W_V before any edit, shape (rows, cols): the preset's numbers in its top-left part, the seed's
    (:func:`lessons.seeded.weight`) elsewhere."""
    base = seeded.weight(seed, name, rows, cols)
    given = preset.weights.get(name)
    return seeded.refit(np.asarray(given, dtype=np.float64), base) if given is not None else base


def seeded_matrices(tokens, seed: int, preset_key: str = "custom") -> dict[str, np.ndarray]:
    """X (n, d_model) and W_Q, W_K, W_V of a preset's sizes for these tokens, as the lesson draws them (a token's
    row depends on the token and the seed only), without re-splitting the tokens into words. For the "custom" preset
    these are plain :mod:`lessons.seeded` draws (what lessons.masks uses directly)."""
    p = PRESETS[preset_key]
    X = np.array([baseline_row(p, seed, "X", tok, p.d_model) for tok in tokens]).reshape(len(tokens), p.d_model)
    out = {"X": X}
    for name, cols in (("W_Q", p.d_k), ("W_K", p.d_k), ("W_V", p.d_v)):
        out[name] = _baseline_weight(p, seed, name, p.d_model, cols)
    return out


def _given_rows(preset: Preset, mode: str) -> dict:
    """token → the preset's own numbers for the row matrices of ``mode`` (direct mode of an X·W preset: its X rows,
    which Q, K, V start from)."""
    return preset.rows.get("X", {}) if mode == "xw" else preset.rows.get("Q") or preset.rows.get("X", {})


def example_tokens(state: QKVState) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """Where the rows of a sentence typed over a preset start from: (tokens the preset gives numbers for, tokens whose
    numbers come from the seed), each in sentence order without repeats. None while the state shows its preset's own
    tokens, has no tokens, or its preset gives no numbers of its own in this mode ("custom"). Every row starts so
    (:func:`with_text` keeps a token's row while it stays in the sentence, :func:`baseline_row` gives a new one)."""
    p = PRESETS[state.preset]
    given = _given_rows(p, state.mode)
    if not given or not state.n or state.tokens == tokenize(p.text).tokens:
        return None
    toks = tuple(dict.fromkeys(state.tokens))
    return tuple(x for x in toks if x in given), tuple(x for x in toks if x not in given)


def grown_sizes(state: QKVState) -> list[tuple[str, int, int]]:
    """The sizes raised past the preset's own, as (name, preset's size, current size) for "d_model" (X·W mode only:
    X's columns and W's rows), "d_k" and "d_v" (the columns of W_Q, W_K / W_V, or of Q, K / V in direct mode). The
    rows and columns past the preset's size hold numbers from the seed (:func:`baseline_matrix`), not the preset's.
    Empty for a preset that gives no numbers in this mode."""
    p = PRESETS[state.preset]
    if not (_given_rows(p, state.mode) or (state.mode == "xw" and p.weights)):
        return []
    sizes = [("d_model", p.d_model, state.d_model)] if state.mode == "xw" else []
    sizes += [("d_k", p.d_k, state.d_k), ("d_v", p.d_v, state.d_v)]
    return [(name, given, now) for name, given, now in sizes if now > given]


def is_preset_as_given(state: QKVState) -> bool:
    """True while the state is its preset as the lesson gives it: the preset's sentence, sizes and mode, and no
    matrix edited (every matrix equals :func:`baseline_matrix`). Notes written about a preset's numbers hold only
    then. A custom preset is never "as given"."""
    p = PRESETS.get(state.preset)
    if p is None or state.preset == "custom":
        return False
    if (state.text, state.d_model, state.d_k, state.d_v, state.mode) != (p.text, p.d_model, p.d_k, p.d_v, p.mode):
        return False
    return all(np.array_equal(M, baseline_matrix(state, name)) for name, M in state.mats.items())


def baseline_matrix(state: QKVState, name: str) -> np.ndarray:
    """What matrix ``name`` holds for this state's preset, tokens, sizes and seed before any edit: a new, writable
    float64 array of :func:`state_shape`.

    In direct mode of a preset that gives X and W, Q/K/V start as X·W of the baselines."""
    return _baseline(state.preset, state.tokens, state.seed, name, state.d_model, state.d_k, state.d_v).copy()


@lru_cache(maxsize=256)
def _baseline(preset_key: str, tokens: tuple, seed: int, name: str, d_model: int, d_k: int, d_v: int) -> np.ndarray:
    """:func:`baseline_matrix`, kept read-only: a rerun asks for the same few setups many times (a resize carries the
    edits onto them, the link and the "as given" check compare against them)."""
    preset = PRESETS[preset_key]
    rows, cols = matrix_shape(name, len(tokens), d_model, d_k, d_v)
    if name in ROW_MATRICES and (name == "X" or name in preset.rows or preset.mode == "direct"):
        out = np.empty((rows, cols))
        for i, tok in enumerate(tokens):
            out[i] = baseline_row(preset, seed, name, tok, cols)
    elif name in ROW_MATRICES:  # direct-mode Q, K, V for an X·W preset: the projection of the baselines
        W = {"Q": "W_Q", "K": "W_K", "V": "W_V"}[name]
        args = (d_model, d_k, d_v)
        out = _baseline(preset_key, tokens, seed, "X", *args) @ _baseline(preset_key, tokens, seed, W, *args)
    else:
        out = _baseline_weight(preset, seed, name, rows, cols)
    out.setflags(write=False)
    return out


def _fresh(preset_key: str, text: str, d_model: int, d_k: int, d_v: int, seed: int, mode: str, query: int):
    s = QKVState(preset_key, text, d_model, d_k, d_v, seed, mode, {}, query)
    mats = {name: baseline_matrix(s, name) for name in XW_MATRICES + DIRECT_MATRICES}
    return replace(s, mats=mats)


def default_state(preset_key: str = "dog", seed: int = 0) -> QKVState:
    """The state a preset opens with. Raises KeyError for an unknown preset."""
    p = PRESETS[preset_key]
    return _fresh(p.key, p.text, p.d_model, p.d_k, p.d_v, seed, p.mode, p.query)


def with_preset(state: QKVState, preset_key: str) -> QKVState:
    """Start the preset afresh (its tokens, sizes, matrices), keeping the seed, the causal switch and the picked
    cell. Raises Refusal ("invalid") for an unknown preset."""
    if preset_key not in PRESETS:
        raise Refusal("invalid")
    return replace(default_state(preset_key, state.seed), causal=state.causal, cell=state.cell)


def _resized(state: QKVState, new: QKVState) -> QKVState:
    """Matrices of ``state`` carried into ``new`` (other tokens and/or sizes) by :func:`lessons.seeded.refit` onto
    the baseline of ``new``: weight matrices keep the top-left part that fits; row matrices keep a token's row
    (matched by token text, the k-th copy of a token to its k-th copy), its first columns that still fit;
    everything else comes from the baseline of ``new``."""
    old_toks, new_toks = state.tokens, new.tokens
    mats = {}
    for name in XW_MATRICES + DIRECT_MATRICES:
        keys = dict(old_rows=old_toks, new_rows=new_toks) if name in ROW_MATRICES else {}
        mats[name] = seeded.refit(state.mats[name], baseline_matrix(new, name), **keys)
    return replace(new, mats=mats)


def with_text(state: QKVState, text: str) -> QKVState:
    """New sentence: each token keeps its rows if it was there before; new tokens get the seed's numbers.
    The chosen query is clamped to the new length (see :func:`with_query`)."""
    new = replace(state, text=text)
    out = _resized(state, new)
    return with_query(out, state.query)[0]


def with_sizes(state: QKVState, d_model: int | None = None, d_k: int | None = None, d_v: int | None = None):
    """New d_model / d_k / d_v (each clamped to DIM_MIN..DIM_MAX): what still fits is kept, the rest comes from
    the preset and the seed."""
    def clamp(v, old):
        return old if v is None else int(min(max(int(v), DIM_MIN), DIM_MAX))

    new = replace(state, d_model=clamp(d_model, state.d_model), d_k=clamp(d_k, state.d_k),
                  d_v=clamp(d_v, state.d_v))
    return _resized(state, new)


def with_seed(state: QKVState, seed: int) -> QKVState:
    """New seed: every number the preset does not give is drawn again, except the cells the person edited (those
    that differ from what the old seed gave: :func:`seeded.keep_edits`), which keep their numbers: a seed move must
    not throw typed numbers away without a word (issue 20's hostile trial: an edited X cell vanished). Q, K, V of
    direct mode keep their edits only if they were edited there (``direct_edits``). The seed the state already has
    changes nothing (a slider value applied twice, a late rerun)."""
    s = int(min(max(int(seed), 0), SEED_MAX))
    if s == state.seed:
        return state
    fresh = _fresh(state.preset, state.text, state.d_model, state.d_k, state.d_v, s, state.mode, state.query)
    kept = [n for n in MATRICES if n not in DIRECT_MATRICES or state.direct_edits]
    mats = {**fresh.mats, **{n: seeded.keep_edits(state.mats[n], baseline_matrix(state, n), fresh.mats[n])
                             for n in kept}}
    return replace(fresh, mats=mats, causal=state.causal, cell=state.cell, direct_edits=state.direct_edits)


def with_mode(state: QKVState, mode: str) -> QKVState:
    """Switch between "xw" and "direct"; the edits of both modes are kept (and carried by the link).

    Entering direct mode starts Q, K, V at the current X·W so the numbers continue, unless they were edited in
    direct mode before (``direct_edits``): those edits are kept. Going back to "xw" keeps X and W as they were.
    Raises Refusal ("invalid", a ValueError) for another mode."""
    if mode not in ("xw", "direct"):
        raise Refusal("invalid")
    if mode == state.mode:
        return state
    mats = dict(state.mats)
    if mode == "direct" and state.n and not state.direct_edits:
        mats.update(zip(DIRECT_MATRICES, project_qkv(mats["X"], mats["W_Q"], mats["W_K"], mats["W_V"])))
    return replace(state, mode=mode, mats=mats)


def _projection(state: QKVState) -> dict[str, np.ndarray]:
    m = state.mats
    return dict(zip(DIRECT_MATRICES, project_qkv(m["X"], m["W_Q"], m["W_K"], m["W_V"])))


def _placed(state: QKVState, name: str, M: np.ndarray) -> QKVState:
    edited = state.direct_edits or (name in DIRECT_MATRICES and not np.array_equal(M, state.mats[name]))
    return replace(state, mats={**state.mats, name: M}, direct_edits=edited)


def with_query(state: QKVState, query: int) -> tuple[QKVState, bool]:
    """Choose the query token. Returns (state, clamped): an index past the end becomes the last token and
    ``clamped`` is True so the UI can say so (never an IndexError, never a silent jump to 0)."""
    q = int(query)
    hi = max(state.n - 1, 0)
    clamped = q > hi or q < 0
    return replace(state, query=min(max(q, 0), hi)), clamped


def with_matrix(state: QKVState, name: str, M) -> QKVState:
    """Replace matrix ``name`` (same shape; every value must pass :func:`check_cell` within :func:`cell_limit`).
    Raises Refusal: "shape" (a matrix of another shape, e.g. a grid drawn before a size changed), "invalid" (an
    unknown name or not numbers), or a cell's refusal naming the cell."""
    if name not in MATRICES:
        raise Refusal("invalid")
    return _placed(state, name, checked_matrix(name, M, state_shape(state, name), cell_limit(name)))


def with_cell(state: QKVState, name: str, i: int, j: int, value) -> QKVState:
    """Set one cell. Raises Refusal: a code of :func:`check_cell`, "invalid" for an unknown matrix, "outside" for a
    cell outside the matrix (a slider drawn for a cell that a new size removed)."""
    v = check_cell(value)
    if name not in state.mats:
        raise Refusal("invalid")
    return _placed(state, name, with_one_cell(state.mats[name], name, i, j, v))


@dataclass(frozen=True)
class QKVResult:
    """Q, K, V (n, d_k), (n, d_k), (n, d_v) and the attention steps for the state's active mode."""

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    steps: AttentionSteps


def compute(state: QKVState) -> QKVResult | None:
    """Run the lesson: project (xw mode) or take Q, K, V as typed (direct mode), then scaled dot-product
    attention, with the causal mask when ``state.causal`` (masked scaled scores are −∞, their weights 0).
    Returns None when there are no tokens. Raises ValueError on overflow (cannot happen with cells
    within ±CELL_LIMIT)."""
    if state.n == 0:
        return None
    m = state.mats
    if state.mode == "xw":
        Q, K, V = project_qkv(m["X"], m["W_Q"], m["W_K"], m["W_V"])
    else:
        Q, K, V = m["Q"], m["K"], m["V"]
    mask = causal_mask(state.n) if state.causal else None
    return QKVResult(Q, K, V, scaled_dot_product_attention(Q, K, V, mask=mask))




def arrays(state: QKVState) -> dict[str, np.ndarray]:
    """What the page shows, by name: the matrices of the active mode (inputs) and, with at least one token, the
    projections Q, K, V (xw mode; typed in direct mode) and every attention step (Vaswani et al. 2017, eq. 1):
    scores = QKᵀ (n, n), scaled_scores = scores/√d_k, weights = softmax (rows sum to 1), output = weights·V."""
    out = {name: state.mats[name] for name in active_matrices(state.mode)}
    res = compute(state)
    if res is not None:
        out.update(Q=res.Q, K=res.K, V=res.V, scores=res.steps.scores, scaled_scores=res.steps.scaled_scores,
                   weights=res.steps.weights, output=res.steps.output)
        if state.causal:
            out["mask"] = causal_mask(state.n).astype(np.float64)
    return out


def preview(state: QKVState) -> dict[str, np.ndarray | tuple[np.ndarray, np.ndarray]]:
    """The matrix each keyed heatmap of the page shows (``Lesson.preview``): the active inputs, Q, K, V, the scores,
    the scaled scores (the scores times 1/√d_k, before any mask), the masked scaled scores, the weights (with which
    are exactly 0 or 1) and the output."""
    out: dict = {f"qkv.fig.{name}": state.mats[name] for name in active_matrices(state.mode)}
    res = compute(state)
    if res is None:
        return out
    out.update({"qkv.fig.Q_out": res.Q, "qkv.fig.K_out": res.K, "qkv.fig.V_out": res.V,
                **steps_preview("qkv.fig", res.steps)})
    return out


def _dims(n: int) -> list[str]:
    return [str(j + 1) for j in range(n)]


def array_labels(state: QKVState) -> dict[str, tuple[list[str], list[str]]]:
    """Lesson.array_labels: the tokens on every token axis (rows of X, Q, K, V and the output; both axes of the
    scores, scaled scores, weights and mask), the dimensions "1", "2", … on the d_model, d_k and d_v axes."""
    toks, dm, dk, dv = list(state.tokens), _dims(state.d_model), _dims(state.d_k), _dims(state.d_v)
    axes = {"X": (toks, dm), "W_Q": (dm, dk), "W_K": (dm, dk), "W_V": (dm, dv), "Q": (toks, dk), "K": (toks, dk),
            "V": (toks, dv)}
    out = {name: axes[name] for name in active_matrices(state.mode)}
    if state.n:
        out.update(Q=axes["Q"], K=axes["K"], V=axes["V"], output=(toks, dv),
                   **{name: (toks, toks) for name in ("scores", "scaled_scores", "weights")})
        if state.causal:
            out["mask"] = (toks, toks)
    return out


def baseline_state(state: QKVState) -> QKVState:
    """The state's setup as the lesson gives it: the same preset, sentence, sizes, seed, mode and switches, every
    matrix as :func:`baseline_matrix` draws it (no edits)."""
    return replace(state, mats={name: baseline_matrix(state, name) for name in MATRICES}, direct_edits=False)


@lru_cache(maxsize=64)
def _setup_ranges(preset: str, text: str, d_model: int, d_k: int, d_v: int, seed: int, mode: str) -> tuple:
    base = baseline_state(_fresh(preset, text, d_model, d_k, d_v, seed, mode, 0))
    found = ranges.of_arrays(arrays(base))
    if "V" in found:  # each output row is a weighted mean of V's rows: within V's range, and coloured like V
        found["output"] = max(found.get("output", 0.0), found["V"])
    if "scaled_scores" in found:
        found["masked_scores"] = found["scaled_scores"]  # the masked scores are scaled scores with −∞ cells
    return tuple(sorted(found.items()))


def color_ranges(state: QKVState) -> dict[str, float]:
    """{array name of :func:`arrays`: zmax} for the heatmaps (lessons/ranges.py): the ranges of the unedited setup
    (:func:`baseline_state`), so an edit recolours only the cells whose numbers it changes; the output shares V's
    range; ``masked_scores`` that of the scaled scores."""
    return dict(_setup_ranges(state.preset, state.text, state.d_model, state.d_k, state.d_v, state.seed, state.mode))


# ---- the NumPy script (Lesson.code) ----------------------------------------------------------------------------------
_QKV_BODY = """\
d_k = K.shape[1]
scores = Q @ K.T                        # one row per query token, one column per key token
scaled_scores = scores / np.sqrt(d_k)   # ÷√d_k keeps the scores' spread the same whatever d_k is
if causal:
    mask = np.tril(np.ones((len(tokens), len(tokens))))  # 1 = may attend: token i sees tokens 1..i
    scaled_scores[mask == 0] = -np.inf  # a masked score gets weight 0
weights = softmax(scaled_scores)        # each row sums to 1
output = weights @ V                    # each row: a weighted mix of V's rows"""


def code(state: QKVState) -> str:
    """Lesson.code: the active mode's matrices as typed, the causal switch, then Q, K, V (X·W in X·W mode), the
    scores, the scaled (and causally masked) scores, the weights and the output; without tokens, the inputs only."""
    inputs = {"tokens": list(state.tokens), **{n: state.mats[n] for n in active_matrices(state.mode)}}
    title = (f"Q·K·V step by step — {short_sentence(state.tokens)}, d_model={state.d_model}, d_k={state.d_k}, "
             f"d_v={state.d_v}" + (", causal mask" if state.causal else ""))
    if not state.n:  # nothing to attend to: the (empty) inputs, shaped as the page has them
        names = active_matrices(state.mode)
        body = "# no tokens: there is nothing to attend to\n" + "\n".join(
            f"{n} = {n}.reshape{state_shape(state, n)}" for n in names if not all(state_shape(state, n)))
        return script_code.script(title, script_code.file_name("qkv"), inputs, body, names)
    proj = "".join(f"{m} = X @ W_{m}".ljust(40) + f"# one {w} per token\n"
                   for m, w in (("Q", "query"), ("K", "key"), ("V", "value")))
    body = (proj if state.mode == "xw" else "# Q, K and V are typed in directly (no X, no W)\n") + _QKV_BODY
    shown = ["Q", "K", "V", "scores", "scaled_scores", *(["mask"] if state.causal else []), "weights", "output"]
    return script_code.script(title, script_code.file_name("qkv"), {**inputs, "causal": state.causal}, body, shown)


# ---- link ---------------------------------------------------------------------------------------------------------
# Version 2: qkv=2 p=<preset> [t=<sentence>] dm dk dv s m q [c=1: causal mask], and each matrix that differs from
# what the preset and seed give (of both modes, so switching modes after opening a link loses nothing), and
# cell=<matrix>.<row>.<col> (the cell picker's choice, from 0) when it is not the first cell: added by the contract
# (Lesson.cell_matrices), optional, so links without it (all older ones) open as before, on the first cell.
# Version 1 (v=1, the same keys without the envelope) is read by the same fields.
LINK = link.LinkSchema(
    namespace="qkv", version=2, legacy=("1",),
    fields=(link.Choice("p", tuple(PRESETS)), link.Text("t", MAX_TEXT_CHARS),
            link.Int("dm", DIM_MIN, DIM_MAX), link.Int("dk", DIM_MIN, DIM_MAX), link.Int("dv", DIM_MIN, DIM_MAX),
            link.Int("s", 0, SEED_MAX), link.Choice("m", ("xw", "direct")), link.Int("q", 0, 10**6),
            link.Flag("c")),
    matrices=tuple(link.Matrix(name, cell_limit(name)) for name in MATRICES),
)


def to_link(state: QKVState) -> dict:
    p = PRESETS[state.preset]
    out = {"p": state.preset}
    if state.text != p.text:
        out["t"] = state.text
    out.update(dm=state.d_model, dk=state.d_k, dv=state.d_v, s=state.seed, m=state.mode, q=state.query)
    if state.causal:
        out["c"] = True
    carry_direct = state.mode == "direct" or state.direct_edits  # else Q, K, V are only an old copy of X·W
    # an xw-mode state with direct-mode edits says so by carrying Q, K, V even where they equal the baseline (an edit
    # can set a cell back to what X·W gives: the link then lost the edits' flag, and direct mode started afresh)
    always = state.mode == "xw" and state.direct_edits
    for name in MATRICES:
        M = state.mats[name]
        if name in DIRECT_MATRICES and not carry_direct:
            continue
        if M.size and ((always and name in DIRECT_MATRICES) or not np.array_equal(M, baseline_matrix(state, name))):
            out[name] = M
    return out


def from_link(values: dict) -> tuple[QKVState, list[Notice]]:
    """The state of a link's valid fields; what is missing comes from the preset (the seed 0, the query 0).
    A query past the sentence's end is clamped to its last token with a ``query_clamped`` notice; a query other
    than the first token of a sentence without tokens becomes the first, with a ``query_no_tokens`` notice."""
    base = PRESETS[values.get("p", "dog")]
    state = _fresh(base.key, values.get("t", base.text), values.get("dm", base.d_model), values.get("dk", base.d_k),
                   values.get("dv", base.d_v), values.get("s", 0), values.get("m", base.mode), 0)
    asked = values.get("q", 0)
    state, clamped = with_query(replace(state, causal=values.get("c", False)), asked)
    notices = []
    if clamped and state.n:
        notices.append(Notice("query_clamped", {"asked": asked + 1, "used": state.query + 1, "param": "q"}))
    elif clamped:  # no token at all: nothing to point at, said all the same (issue 20, defect 6)
        notices.append(Notice("query_no_tokens", {"asked": asked + 1, "param": "q"}))
    return state, notices


def with_matrices(state: QKVState, mats: dict) -> QKVState:
    """A link's matrices placed. Q, K, V in an xw-mode link are direct-mode edits (only those are written); in a
    direct-mode link they are edits where they differ from X·W."""
    state = replace(state, mats={**state.mats, **{k: v + 0.0 for k, v in mats.items()}})
    direct = [n for n in DIRECT_MATRICES if n in mats]
    if state.mode == "xw":
        edited = bool(direct)
    else:
        proj = _projection(state) if state.n else {}
        edited = any(not np.array_equal(state.mats[n], proj.get(n, state.mats[n])) for n in direct)
    return replace(state, direct_edits=edited)


def _sizes(attr: str) -> Transition:
    return Transition(lambda s, v: with_sizes(s, **{attr: v}), (link.Int(attr, DIM_MIN, DIM_MAX),))


TRANSITIONS = {
    "preset": Transition(with_preset, (link.Choice("p", (*PRESETS, "gone")),)),
    "text": Transition(with_text, (link.Text("t", MAX_TEXT_CHARS),)),
    "d_model": _sizes("d_model"), "d_k": _sizes("d_k"), "d_v": _sizes("d_v"),
    "seed": Transition(with_seed, (link.Int("s", 0, SEED_MAX),)),
    "mode": Transition(with_mode, (link.Choice("m", ("xw", "direct", "other")),)),
    "query": Transition(lambda s, q: with_query(s, q)[0], (link.Int("q", 0, 20),)),  # a stale option past the end
    "causal": Transition(lambda s, v: replace(s, causal=bool(v)), (link.Flag("c"),)),
    "cell": Transition(with_cell, (link.Choice("m", MATRICES), link.Int("i", 0, DIM_MAX), link.Int("j", 0, DIM_MAX),
                                   link.Decimal("v", -2 * CELL_LIMIT, 2 * CELL_LIMIT))),
    **{f"grid.{n}": Transition(lambda s, M, n=n: with_matrix(s, n, M), (link.Matrix(n, cell_limit(n)),))
       for n in MATRICES},
}
"""What the page's controls do (lesson_pages/qkv.py): the contract tests drive these in random sequences."""

def widest_state() -> QKVState:
    """The fullest screen (Lesson.widest): 16 tokens (the last of 33 characters), d_model = d_k = d_v = 16, and cells
    typed to the widest numbers: −19.34 and 100.00 in X, a W_Q cell that takes Q and the scores past 10⁴."""
    state = with_sizes(with_text(default_state("custom"), widest_text()), d_model=16, d_k=16, d_v=16)
    for name, i, j, v in (("X", 0, 0, -19.34), ("X", 1, 1, 100.0), ("W_Q", 0, 0, 999.9), ("X", 2, 0, 38.5)):
        state = with_cell(state, name, i, j, v)
    return state


def one_edit(state: QKVState) -> QKVState:
    """Lesson.one_edit: the first cell of W_Q (of Q when Q, K, V are typed directly) halved, or 0.5 where it is 0
    (1 → 0.5 in 犬が歩く): the colour ranges stay those of the setup (lessons/ranges.py)."""
    name = "W_Q" if state.mode == "xw" else "Q"
    v = float(state.mats[name][0, 0])
    return with_cell(state, name, 0, 0, v / 2 if v else 0.5)


PLAN = (
    Question("dog", moved(default_state, TRANSITIONS)),
    Question("self", moved(default_state, TRANSITIONS, ("query", 2))),
    Question("same_row", moved(default_state, TRANSITIONS, ("cell", "X", 1, 0, 1.0), ("cell", "X", 1, 2, 0.0),
                               ("cell", "X", 1, 3, 1.0))),
    Question("dk", moved(default_state, TRANSITIONS, ("d_k", 16))),
    Question("causal", moved(default_state, TRANSITIONS, ("causal", True), ("query", 1))),
    Question("school", moved(default_state, TRANSITIONS, ("preset", "school"))),
)
"""The lesson plan for class (Lesson.plan; texts ``qkv.plan.<key>``)."""
TERMS = ("token", "morphological_analysis", "embedding", "vector", "matrix", "dimension", "seed", "projection",
         "query_key_value", "self_attention", "dot_product", "transpose", "scaling", "softmax", "attention_weights",
         "causal_mask", "decoder")

LESSON = Lesson(plan=PLAN, terms=TERMS, preview=preview,
                predict=Prediction(weights="weights", hides=("softmax", "output"), query=lambda s: s.query),
                key="qkv", icon=":material/calculate:", default_state=default_state, link=LINK, to_link=to_link,
                from_link=from_link, arrays=arrays, matrix_shape=state_shape, with_matrices=with_matrices,
                color_ranges=color_ranges, cell_matrices=lambda s: active_matrices(s.mode), transitions=TRANSITIONS,
                text_fields=("text",), n_tokens=lambda s: len(s.tokens),
                widest=widest_state, one_edit=one_edit, array_labels=array_labels, code=code,
                present=Presentation(stages=("inputs", "qkv", "scores", "scaled", "softmax", "output"),
                                     controls=("cell", "dk", "causal", "query"),
                                     picture=("softmax", "qkv.fig.weights")))
