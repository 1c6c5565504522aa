"""Lesson 5, positional encoding: why self-attention loses word order, how the sinusoidal table of Vaswani et al.
2017 (sec. 3.5) puts it back, and how rotary position embedding (RoPE, Su et al. 2021) makes a score depend on the
distance between two tokens only.

The order experiment: sentence A and sentence B (by default 「猫 が 犬 を 追う」 and 「犬 が 猫 を 追う」, the same
words in another order) with the same W_Q, W_K and the same token vectors (lessons/seeded.py: a token has one X row
wherever it stands). Without positions, B's weights are A's with rows and columns put in B's order: the page
shows the re-ordered matrix and the largest difference. With X·scale + PE they are not.

The PE table has its own sizes (positions × d_model up to 128 × 128) so its waves can be seen; the experiment uses
d_model = ``d_model`` (2..16, W square: d_k = d_model). Positions count from 0. Every function here is pure.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from attention_core import apply_rope, sinusoidal_positional_encoding, softmax
from attention_core.positional import sinusoidal_at
from attention_core.tokens import MAX_TEXT_CHARS, tokenize

from . import code as script_code
from . import link, seeded
from .base import Lesson, Prediction, Presentation, Question, Transition, moved, widest_text
from .link import Notice

__all__ = [
    "DM_MIN", "DM_MAX", "TABLE_MAX", "SEED_MAX", "BASES", "SCALE_MAX", "POS_MAX", "PositionalState", "default_state",
    "reordering", "pe_table", "similarity", "wave_columns", "wave_curves", "wavelength", "experiment", "rope_scores",
    "rope_curves", "arrays", "array_labels", "n_pairs", "with_text", "with_text2", "with_d_model", "with_table",
    "with_pair", "with_rope", "LINK", "LESSON",
]

DM_MIN, DM_MAX = 2, seeded.MAX_SIZE
TABLE_MAX = 128
SEED_MAX = 9999
BASES = (10, 100, 1000, 10000, 100000)
SCALE_MAX, SCALE_STEP = 4.0, 0.25
POS_MAX = 64
TEXT_A, TEXT_B = "猫 が 犬 を 追う", "犬 が 猫 を 追う"


@dataclass(frozen=True)
class PositionalState:
    """Everything the page shows (what a share link carries).

    Attributes:
        text, text2: sentences A and B as typed (tokens from attention_core.tokens.tokenize).
        d_model: the experiment's width (DM_MIN..DM_MAX); W_Q, W_K are (d_model, d_model).
        seed: 0..SEED_MAX: the token vectors and W of the experiment (lessons/seeded.py).
        scale: the token vectors are multiplied by it before PE is added (0..SCALE_MAX): how strong the words are
            against the positions.
        n_positions, d_table: the PE table's size (1..TABLE_MAX each).
        base: the wavelength base (one of BASES; 10000 in the paper), for the table, the experiment and RoPE.
        pair: the sin/cos pair i (columns 2i, 2i+1) drawn as waves beside pair 0, 0..n_pairs(d_table) − 1.
        rope_m, rope_n: a query's and a key's position in the RoPE demonstration; rope_shift: both moved by it.
    """

    text: str = TEXT_A
    text2: str = TEXT_B
    d_model: int = 4
    seed: int = 0
    scale: float = 1.0
    n_positions: int = 32
    d_table: int = 16
    base: int = 10000
    pair: int = 2
    rope_m: int = 2
    rope_n: int = 5
    rope_shift: int = 8

    @property
    def tokens(self) -> tuple[str, ...]:
        return tokenize(self.text).tokens

    @property
    def tokens2(self) -> tuple[str, ...]:
        return tokenize(self.text2).tokens


def default_state() -> PositionalState:
    return PositionalState()


def n_pairs(d: int) -> int:
    """How many sin/cos pairs a width d has: ⌈d / 2⌉ (an odd d's last column is a sine alone)."""
    return (int(d) + 1) // 2


def reordering(a, b) -> tuple[int, ...] | None:
    """How B's tokens come from A's: perm with b[k] = a[perm[k]] (the k-th copy of a token in B is its k-th copy in
    A), or None when B is not A's tokens in another order (other tokens, other counts)."""
    if sorted(a) != sorted(b):
        return None
    where: dict[str, list[int]] = {}
    for i, tok in enumerate(a):
        where.setdefault(tok, []).append(i)
    seen: dict[str, int] = {}
    perm = []
    for tok in b:
        perm.append(where[tok][seen.get(tok, 0)])
        seen[tok] = seen.get(tok, 0) + 1
    return tuple(perm)


def pe_table(state: PositionalState) -> np.ndarray:
    """The sinusoidal table (n_positions, d_table), float64, positions 0 .. n_positions − 1."""
    return sinusoidal_positional_encoding(state.n_positions, state.d_table, float(state.base))


def similarity(state: PositionalState) -> tuple[np.ndarray, np.ndarray]:
    """PE·PEᵀ of the table (n_positions, n_positions), and the values of its distance-1 diagonal (positions p and
    p + 1, n_positions − 1 of them): equal for an even d_table, since sin a·sin b + cos a·cos b = cos(a − b)."""
    pe = pe_table(state)
    sim = pe @ pe.T
    return sim, np.diagonal(sim, offset=1).copy()


def wave_columns(state: PositionalState) -> list[int]:
    """The table columns drawn as waves: pair 0's sin and cos and the chosen pair's (those the width has)."""
    i = state.pair
    return [j for j in dict.fromkeys((0, 1, 2 * i, 2 * i + 1)) if j < state.d_table]


def wave_curves(state: PositionalState, step: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """The wave columns (:func:`wave_columns`) between the whole positions, for smooth curves through the table's
    values: (xs (m,) from 0 to n_positions − 1 in ``step``s, values (m, len(columns)))."""
    xs = np.arange(0.0, state.n_positions - 1 + step / 2, step) if state.n_positions > 1 else np.zeros(1)
    return xs, sinusoidal_at(xs, state.d_table, float(state.base))[:, wave_columns(state)]


def wavelength(state: PositionalState, j: int) -> float:
    """Column j's wavelength in positions: 2π·base^(2⌊j/2⌋/d_table)."""
    return float(2 * np.pi * float(state.base) ** (2 * (j // 2) / state.d_table))


def _weights(X: np.ndarray, W_Q: np.ndarray, W_K: np.ndarray, rope: bool = False, base: float = 10000.0):
    Q, K = X @ W_Q, X @ W_K
    if rope:
        Q, K = apply_rope(Q, base=base), apply_rope(K, base=base)
    return softmax(Q @ K.T / np.sqrt(W_Q.shape[1]), axis=-1)


def _x(state: PositionalState, toks) -> np.ndarray:
    return seeded.token_rows(toks, state.seed, state.d_model) if toks else np.zeros((0, state.d_model))


@dataclass(frozen=True)
class Experiment:
    """The order experiment's numbers. a / b: sentences A and B. X_*: token vectors (n, d_model); PE_*: their
    positions' rows of the table (n, d_model); sum_a: A's input with positions, scale·X_a + PE_a; weights_* (n, n):
    without positions, with X·scale + PE, with RoPE on Q and K (no PE added). perm: B from A (:func:`reordering`)
    or None; reordered: A's weights without positions with rows and columns in B's order (weights_a[perm][:, perm]);
    gap, gap_pe, gap_rope: the largest |difference| between B's weights and A's re-ordered ones, without positions,
    with PE, with RoPE (None without a reordering)."""

    W_Q: np.ndarray
    W_K: np.ndarray
    X_a: np.ndarray
    X_b: np.ndarray
    sum_a: np.ndarray
    PE_a: np.ndarray
    PE_b: np.ndarray
    weights_a: np.ndarray
    weights_b: np.ndarray
    weights_a_pe: np.ndarray
    weights_b_pe: np.ndarray
    weights_a_rope: np.ndarray
    weights_b_rope: np.ndarray
    perm: tuple[int, ...] | None
    reordered: np.ndarray | None
    reordered_pe: np.ndarray | None
    gap: float | None
    gap_pe: float | None
    gap_rope: float | None


def experiment(state: PositionalState) -> Experiment | None:
    """The order experiment of the state; None when sentence A has no tokens."""
    a, b = state.tokens, state.tokens2
    if not a:
        return None
    d = state.d_model
    W_Q, W_K = seeded.weight(state.seed, "W_Q", d, d), seeded.weight(state.seed, "W_K", d, d)
    X_a, X_b = _x(state, a), _x(state, b)
    pe = sinusoidal_positional_encoding(max(len(a), len(b)), d, float(state.base))
    PE_a, PE_b = pe[:len(a)], pe[:len(b)]
    sum_a = state.scale * X_a + PE_a
    w = {k: _weights(X, W_Q, W_K) if len(X) else np.zeros((0, 0))
         for k, X in (("a", X_a), ("b", X_b), ("a_pe", sum_a), ("b_pe", state.scale * X_b + PE_b))}
    rope = _weights(X_a, W_Q, W_K, rope=True, base=float(state.base))
    rope_b = _weights(X_b, W_Q, W_K, rope=True, base=float(state.base)) if len(X_b) else np.zeros((0, 0))
    perm = reordering(a, b)
    re = re_pe = gap = gap_pe = gap_rope = None
    if perm is not None:
        p = np.ix_(list(perm), list(perm))
        re, re_pe = w["a"][p], w["a_pe"][p]
        gap, gap_pe = float(np.max(np.abs(w["b"] - re))), float(np.max(np.abs(w["b_pe"] - re_pe)))
        gap_rope = float(np.max(np.abs(rope_b - rope[p])))
    return Experiment(W_Q, W_K, X_a, X_b, sum_a, PE_a, PE_b, w["a"], w["b"], w["a_pe"], w["b_pe"], rope, rope_b,
                      perm, re, re_pe, gap, gap_pe, gap_rope)


def rope_scores(state: PositionalState, res: Experiment) -> tuple[np.ndarray, np.ndarray, list]:
    """The RoPE demonstration: q = the first token's query (X·W_Q), k = the second token's key (X·W_K; the first
    token's when there is one token), both without PE. Returns (q, k, rows), rows = [(m, n, q_m·k_n)] for (m, n),
    (m + shift, n + shift) and (m, n + 1): the first two have the same distance, so the same score."""
    Q, K = res.X_a @ res.W_Q, res.X_a @ res.W_K
    q, k = Q[0], K[min(1, len(K) - 1)]
    base = float(state.base)
    out = []
    for m, n in ((state.rope_m, state.rope_n), (state.rope_m + state.rope_shift, state.rope_n + state.rope_shift),
                 (state.rope_m, state.rope_n + 1)):
        out.append((m, n, float(apply_rope(q[None], [m], base)[0] @ apply_rope(k[None], [n], base)[0])))
    return q, k, out


def rope_curves(state: PositionalState, res: Experiment) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The RoPE scores of :func:`rope_scores`'s q and k over the key positions n = 0 .. past both the table's last key
    and the moved query (at least 0 .. 24): (ns, scores with the query at m, scores with the query at
    m + shift). The second is the first moved right by shift."""
    Q, K = res.X_a @ res.W_Q, res.X_a @ res.W_K
    q, k = Q[0], K[min(1, len(K) - 1)]
    base = float(state.base)
    m, n, sh = state.rope_m, state.rope_n, state.rope_shift
    ns = np.arange(max(25, n + sh + 6, m + sh + 12))  # both queries' neighbourhoods in view
    rotated_k = apply_rope(np.tile(k, (len(ns), 1)), ns, base)
    at = [apply_rope(q[None], [m], base)[0] @ rotated_k.T for m in (state.rope_m, state.rope_m + state.rope_shift)]
    return ns, at[0], at[1]


def arrays(state: PositionalState) -> dict[str, np.ndarray]:
    """What the page shows: ``PE`` (n_positions, d_table) and ``PE_similarity`` = PE·PEᵀ (n_positions, n_positions);
    with tokens in A the experiment's ``W_Q``, ``W_K`` (d_model, d_model), ``X_a``, ``PE_a`` (n_a, d_model),
    ``weights_a``, ``weights_a_pe``, ``weights_a_rope`` (n_a, n_a), and with tokens in B ``X_b``, ``PE_b``,
    ``weights_b``, ``weights_b_pe``, ``weights_b_rope`` (n_b, n_b); ``reordered`` (n, n) when B re-orders A."""
    out = {"PE": pe_table(state), "PE_similarity": similarity(state)[0]}
    res = experiment(state)
    if res is None:
        return out
    out.update(W_Q=res.W_Q, W_K=res.W_K, X_a=res.X_a, PE_a=res.PE_a, weights_a=res.weights_a,
               weights_a_pe=res.weights_a_pe, weights_a_rope=res.weights_a_rope)
    if len(res.X_b):
        out.update(X_b=res.X_b, PE_b=res.PE_b, weights_b=res.weights_b, weights_b_pe=res.weights_b_pe,
                   weights_b_rope=res.weights_b_rope)
    if res.reordered is not None:
        out["reordered"] = res.reordered
    return out


def preview(state: PositionalState) -> dict[str, np.ndarray]:
    """The matrix each keyed heatmap of the page shows (``Lesson.preview``): the PE table and PE·PEᵀ (heatmaps up to
    12 × 12); with tokens in A the weights of A, B and A re-ordered as B without positions, with PE and with RoPE, and
    A's X, PE and scale·X + PE."""
    out = {"positional.fig.table": pe_table(state), "positional.fig.sim": similarity(state)[0]}
    res = experiment(state)
    if res is None:
        return out
    out.update({"positional.fig.weights_a": res.weights_a, "positional.fig.pos_x_a": res.X_a,
                "positional.fig.pos_pe_a": res.PE_a, "positional.fig.pos_sum_a": res.sum_a,
                "positional.fig.weights_a_pe": res.weights_a_pe, "positional.fig.rope_pe": res.weights_a_pe,
                "positional.fig.weights_a_rope": res.weights_a_rope})
    if len(res.X_b):
        out.update({"positional.fig.weights_b": res.weights_b, "positional.fig.weights_b_pe": res.weights_b_pe,
                    "positional.fig.weights_b_rope": res.weights_b_rope})
    if res.reordered is not None:
        out.update({"positional.fig.reordered": res.reordered, "positional.fig.reordered_pe": res.reordered_pe})
    return out


def _from_0(n: int) -> list[str]:
    return [str(j) for j in range(n)]


def array_labels(state: PositionalState) -> dict[str, tuple[list[str], list[str]]]:
    """Lesson.array_labels, as the page numbers its axes: positions and dimensions from 0 ("0", "1", …: PE's row pos,
    column 2i or 2i + 1); sentence A's or B's tokens on the token axes (``reordered`` is in B's order)."""
    out = {"PE": (_from_0(state.n_positions), _from_0(state.d_table)),
           "PE_similarity": (_from_0(state.n_positions), _from_0(state.n_positions))}
    a, b, dims = list(state.tokens), list(state.tokens2), _from_0(state.d_model)
    if not a:
        return out
    out.update(W_Q=(dims, dims), W_K=(dims, dims), X_a=(a, dims), PE_a=(a, dims),
               **{f"weights_a{k}": (a, a) for k in ("", "_pe", "_rope")})
    if b:
        out.update(X_b=(b, dims), PE_b=(b, dims), **{f"weights_b{k}": (b, b) for k in ("", "_pe", "_rope")})
    if reordering(a, b) is not None:
        out["reordered"] = (b, b)
    return out


# ---- transitions -------------------------------------------------------------------------------------------------
def _clamp(v, lo, hi) -> int:
    return int(min(max(int(v), lo), hi))


def with_text(state: PositionalState, text: str) -> PositionalState:
    return replace(state, text=str(text))


def with_text2(state: PositionalState, text: str) -> PositionalState:
    return replace(state, text2=str(text))


def with_d_model(state: PositionalState, d: int) -> PositionalState:
    return replace(state, d_model=_clamp(d, DM_MIN, DM_MAX))


def with_table(state: PositionalState, n_positions: int | None = None, d_table: int | None = None):
    """New table sizes (each clamped to 1..TABLE_MAX); the chosen pair is kept inside the new width."""
    new = replace(state, n_positions=_clamp(state.n_positions if n_positions is None else n_positions, 1, TABLE_MAX),
                  d_table=_clamp(state.d_table if d_table is None else d_table, 1, TABLE_MAX))
    return with_pair(new, state.pair)


def with_pair(state: PositionalState, pair: int) -> PositionalState:
    return replace(state, pair=_clamp(pair, 0, n_pairs(state.d_table) - 1))


def with_base(state: PositionalState, base: int) -> PositionalState:
    """A base of BASES; another value becomes the nearest one (on a log scale)."""
    b = min(BASES, key=lambda x: abs(np.log10(x) - np.log10(max(float(base), 1e-9))))
    return replace(state, base=b)


def with_scale(state: PositionalState, scale: float) -> PositionalState:
    v = float(scale)
    v = 1.0 if not np.isfinite(v) else min(max(round(v / SCALE_STEP) * SCALE_STEP, 0.0), SCALE_MAX)
    return replace(state, scale=v + 0.0)


def with_seed(state: PositionalState, seed: int) -> PositionalState:
    return replace(state, seed=_clamp(seed, 0, SEED_MAX))


def with_rope(state: PositionalState, m: int | None = None, n: int | None = None, shift: int | None = None):
    """The RoPE demonstration's positions m, n (each clamped to 0..POS_MAX) and the shift (1..POS_MAX: a shift of 0
    would compare a pair with itself)."""
    def pick(v, old, lo=0):
        return old if v is None else _clamp(v, lo, POS_MAX)
    return replace(state, rope_m=pick(m, state.rope_m), rope_n=pick(n, state.rope_n),
                   rope_shift=pick(shift, state.rope_shift, 1))


# ---- link --------------------------------------------------------------------------------------------------------
# positional=1 [t=<A>] [t2=<B>] dm s sc np dp b pi rm rn sh (the sentences written only when not the default)
LINK = link.LinkSchema(
    namespace="positional", version=1,
    fields=(link.Text("t", MAX_TEXT_CHARS), link.Text("t2", MAX_TEXT_CHARS), link.Int("dm", DM_MIN, DM_MAX),
            link.Int("s", 0, SEED_MAX), link.Decimal("sc", 0.0, SCALE_MAX, step=SCALE_STEP),
            link.Int("np", 1, TABLE_MAX), link.Int("dp", 1, TABLE_MAX), link.Int("b", 10, 100000, allowed=BASES),
            link.Int("pi", 0, TABLE_MAX), link.Int("rm", 0, POS_MAX), link.Int("rn", 0, POS_MAX),
            link.Int("sh", 1, POS_MAX)),
)
_FIELDS = {"t": "text", "t2": "text2", "dm": "d_model", "s": "seed", "sc": "scale", "np": "n_positions",
           "dp": "d_table", "b": "base", "pi": "pair", "rm": "rope_m", "rn": "rope_n", "sh": "rope_shift"}


def to_link(state: PositionalState) -> dict:
    """Every field; the two sentences only when they are not the default ones."""
    default = PositionalState()
    return {k: getattr(state, a) for k, a in _FIELDS.items()
            if k not in ("t", "t2") or getattr(state, a) != getattr(default, a)}


def from_link(values: dict) -> tuple[PositionalState, list[Notice]]:
    """The state of a link's valid fields (the rest default). A pair the link asks for past the table's width becomes
    its last pair, said in a notice (one notice for a refused ``pi``: its own, not a second one about the default)."""
    state = PositionalState(**{a: values[k] for k, a in _FIELDS.items() if k in values and k != "pi"})
    asked = values.get("pi", state.pair)
    state = with_pair(state, asked)
    notices = []
    if "pi" in values and state.pair != asked:  # (the default pair moved to fit a table a link made narrower: unsaid)
        notices.append(Notice("pair_clamped", {"asked": asked, "used": state.pair, "d": state.d_table, "param": "pi"}))
    return state, notices


TRANSITIONS = {
    "text": Transition(with_text, (link.Text("t", MAX_TEXT_CHARS),)),
    "text2": Transition(with_text2, (link.Text("t2", MAX_TEXT_CHARS),)),
    "d_model": Transition(with_d_model, (link.Int("dm", DM_MIN, DM_MAX),)),
    "seed": Transition(with_seed, (link.Int("s", 0, SEED_MAX),)),
    "scale": Transition(with_scale, (link.Decimal("sc", 0.0, SCALE_MAX, step=SCALE_STEP),)),
    "n_positions": Transition(lambda s, v: with_table(s, n_positions=v), (link.Int("np", 1, TABLE_MAX),)),
    "d_table": Transition(lambda s, v: with_table(s, d_table=v), (link.Int("dp", 1, TABLE_MAX),)),
    "base": Transition(with_base, (link.Int("b", 10, 100000, allowed=BASES),)),
    "pair": Transition(with_pair, (link.Int("pi", 0, TABLE_MAX),)),
    "rope_m": Transition(lambda s, v: with_rope(s, m=v), (link.Int("rm", 0, POS_MAX),)),
    "rope_n": Transition(lambda s, v: with_rope(s, n=v), (link.Int("rn", 0, POS_MAX),)),
    "rope_shift": Transition(lambda s, v: with_rope(s, shift=v), (link.Int("sh", 0, POS_MAX),)),  # 0: moved to 1
}
"""What the page's controls do (lesson_pages/positional.py); the contract tests drive them in random sequences."""

def widest_state() -> PositionalState:
    """The fullest screen (Lesson.widest): A of 16 tokens (the last of 33 characters) and B its reverse, d_model 16,
    the largest scale, a 12 × 12 table (the largest with numbers in its cells), base 100000, RoPE at the far end."""
    text = widest_text()
    state = replace(default_state(), text=text, text2=" ".join(reversed(text.split())), d_model=DM_MAX,
                    scale=SCALE_MAX, base=max(BASES))
    return with_rope(with_table(state, n_positions=12, d_table=12), m=POS_MAX - 1, n=POS_MAX, shift=POS_MAX)


# ---- the NumPy script (Lesson.code) ---------------------------------------------------------------------------------
_TABLE = """\
def positional_encoding(n, d, base):
    \"\"\"PE[pos, 2i] = sin(pos / base^(2i/d)), PE[pos, 2i+1] = cos(pos / base^(2i/d)) (Vaswani et al. 2017).\"\"\"
    pair = np.arange(d) // 2
    angle = np.arange(n)[:, None] / np.power(float(base), 2.0 * pair / d)
    return np.where(np.arange(d) % 2 == 0, np.sin(angle), np.cos(angle))


PE = positional_encoding(n_positions, d_table, base)  # the table: one row per position
PE_similarity = PE @ PE.T                             # how alike two positions' rows are
"""
_EXPERIMENT = """
def rope(M, base):
    \"\"\"Rotary position embedding: row p's pairs (2i, 2i+1) turned by p * base^(-2i/d) (Su et al. 2021).\"\"\"
    out = M.copy()
    d = M.shape[1]
    angle = np.arange(len(M))[:, None] * np.power(float(base), -2.0 * np.arange(d // 2) / d)
    even, odd = M[:, 0:2 * (d // 2):2], M[:, 1:2 * (d // 2):2]
    out[:, 0:2 * (d // 2):2] = even * np.cos(angle) - odd * np.sin(angle)
    out[:, 1:2 * (d // 2):2] = even * np.sin(angle) + odd * np.cos(angle)
    return out


def attention_weights(X, rotate=False):
    Q, K = X @ W_Q, X @ W_K
    if rotate:                          # RoPE: positions turn Q and K instead of being added to X
        Q, K = rope(Q, base), rope(K, base)
    return softmax(Q @ K.T / np.sqrt(W_Q.shape[1]))


d_model = W_Q.shape[0]
pe_rows = positional_encoding(max(len(tokens_a), len(tokens_b)), d_model, base)
PE_a = pe_rows[:len(tokens_a)]
weights_a = attention_weights(X_a)                     # no position information at all
weights_a_pe = attention_weights(scale * X_a + PE_a)   # positions added to the token vectors
weights_a_rope = attention_weights(X_a, rotate=True)
"""
_SENTENCE_B = """PE_b = pe_rows[:len(tokens_b)]
weights_b = attention_weights(X_b)
weights_b_pe = attention_weights(scale * X_b + PE_b)
weights_b_rope = attention_weights(X_b, rotate=True)
"""
_REORDERED = """# B's tokens as positions in A: without positions, B's weights are A's with rows and columns re-ordered
reordered = weights_a[np.ix_(perm, perm)]
"""


def code(state: PositionalState) -> str:
    """Lesson.code: the base, the table's size, the strength of the words (scale), sentences A and B with their token
    vectors X_a, X_b, W_Q and W_K, and B's order in A (perm, or None); then the PE table and its similarity, and the
    order experiment's weights without positions, with PE added and with RoPE, for A and (with tokens) for B, and
    A's weights re-ordered as B. Without tokens in A, the table and its similarity only."""
    res = experiment(state)
    inputs: dict = {"base": state.base, "n_positions": state.n_positions, "d_table": state.d_table}
    body, shown = _TABLE, ["PE", "PE_similarity"]
    if res is not None:
        perm = reordering(state.tokens, state.tokens2)
        inputs.update(scale=float(state.scale), tokens_a=list(state.tokens), tokens_b=list(state.tokens2),
                      X_a=res.X_a, X_b=res.X_b, W_Q=res.W_Q, W_K=res.W_K,
                      perm=None if perm is None else [int(k) for k in perm])
        body += _EXPERIMENT
        shown += ["PE_a", "weights_a", "weights_a_pe", "weights_a_rope"]
        if len(res.X_b):
            body += _SENTENCE_B
            shown += ["PE_b", "weights_b", "weights_b_pe", "weights_b_rope"]
        if res.reordered is not None:
            body += _REORDERED
            shown.append("reordered")
    title = (f"Positional encoding — A: {script_code.short_sentence(state.tokens)}, B: "
             f"{script_code.short_sentence(state.tokens2)}, d_model={state.d_model}, base {state.base}, "
             f"table {state.n_positions}×{state.d_table}, seed {state.seed}")
    return script_code.script(title, script_code.file_name("positional"), inputs, body, shown)


PLAN = (
    Question("lost", moved(default_state, TRANSITIONS)),
    Question("waves", moved(default_state, TRANSITIONS, ("pair", 0))),
    Question("similar", moved(default_state, TRANSITIONS, ("n_positions", 64))),
    Question("strength", moved(default_state, TRANSITIONS, ("scale", 0.0))),
    Question("rope", moved(default_state, TRANSITIONS, ("rope_shift", 20))),
)
"""The lesson plan for class (Lesson.plan; texts ``positional.plan.<key>``)."""
TERMS = ("self_attention", "token", "positional_encoding", "permutation", "vector", "sinusoid", "frequency",
         "dot_product", "rotation", "rope", "seed")

LESSON = Lesson(plan=PLAN, terms=TERMS, code=code, preview=preview,
                predict=Prediction(weights="weights_a", hides=("lost",)),
                key="positional", icon=":material/format_list_numbered:", default_state=default_state, link=LINK,
                to_link=to_link, from_link=from_link, arrays=arrays, transitions=TRANSITIONS,
                text_fields=("text", "text2"), n_tokens=lambda s: len(s.tokens),
                widest=widest_state, array_labels=array_labels,
                present=Presentation(stages=("lost", "table", "similar", "restored", "rope"),
                                     controls=("pair", "np", "dp", "scale", "rm", "rn", "sh"),
                                     picture=("table", "positional.fig.waves")))
