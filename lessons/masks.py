"""Lesson 3, masks: the causal mask (a decoder must not see the future), padding in a batch, and a query row with
nothing to attend to. State, transitions, the computations the page shows, and the link. NumPy only.

Masks are boolean, True = may attend (attention_core's convention, that of PyTorch's scaled_dot_product_attention);
they are combined with logical AND and applied once, as −∞ on the scaled scores before softmax, so a masked weight
is an exact 0 and a row with no key left is all 0 with a 0 output (cases K01, K02, K06 in shared/cases).

The numbers: every token gets a seeded random embedding and one set of seeded random weights W_Q, W_K, W_V
(d_model = d_k = d_v = 4), drawn by lessons/seeded.py, the one place every lesson draws from: the numbers the Q·K·V
lesson shows for its own sentence (preset "custom"), so the same token with the same seed has the same vector in
both lessons. An edited custom mask is carried into a new batch length by :func:`lessons.seeded.refit`.

Letters: n tokens of sentence 1 (the causal and generation sections), L the batch length (both sentences padded with
PAD to it, the padding and custom-mask sections).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from attention_core import (
    AttentionSteps,
    causal_mask,
    padding_mask,
    project_qkv,
    scaled_dot_product_attention,
    softmax_exact,
)
from attention_core.tokens import MAX_TEXT_CHARS, MAX_TOKENS, tokenize

from . import code as script_code
from . import link, qkv, ranges, seeded
from .base import Lesson, Prediction, Presentation, Question, Transition, moved, widest_text
from .cells import Refusal
from .code import short_sentence
from .link import Notice

__all__ = [
    "PAD", "pad_to", "D_K", "DEFAULT_TEXT", "DEFAULT_TEXT2", "MAX_EXTRA_PAD", "SEED_MAX", "CUSTOM_STARTS", "MasksState",
    "Batch",
    "tokens", "batch", "pads_cut", "projections", "causal_steps", "generation_step", "batch_masks", "batch_steps",
    "custom_mask", "custom_steps", "with_text", "with_text2", "with_step", "with_custom", "with_custom_cell",
    "with_custom_start", "arrays", "array_labels", "color_ranges", "code", "LINK", "LESSON",
]

PAD = "[PAD]"
DEFAULT_TEXT = "犬 が 公園 を 歩く"
DEFAULT_TEXT2 = "犬 が 走る"
MAX_EXTRA_PAD = 4
SEED_MAX = qkv.SEED_MAX
D_K = qkv.PRESETS["custom"].d_k
"""d_k of the lesson's Q and K (= d_model = d_v = 4, the sizes of the Q·K·V lesson's own sentence)."""
assert qkv.PRESETS["custom"].d_model == D_K == qkv.PRESETS["custom"].d_v
CUSTOM_STARTS = ("none", "causal", "padding", "blocked")
"""Where the custom mask can start from: nothing hidden, causal, padding of the chosen sentence, everything hidden."""


@dataclass(frozen=True)
class MasksState:
    """Everything the masks page shows, in one value (what a share link carries).

    Attributes:
        text: sentence 1 as typed (the causal and generation sections); tokens derived from it.
        text2: sentence 2 as typed; both sentences form the batch of the padding section.
        seed: 0..SEED_MAX, seeds every embedding and weight.
        causal: the causal mask is applied (sections 1 and 3).
        padding: the padding mask hides the batch's PAD keys (section 3).
        extra_pad: PAD tokens added after the longer sentence too (0..MAX_EXTRA_PAD): the batch length is
            max(len 1, len 2) + extra_pad, at most MAX_TOKENS (:func:`pads_cut` says when that cut some).
        item: which sentence of the batch sections 3 and 4 show (0 or 1).
        step: the generation stepper's token (0-based), at most the last token of sentence 1.
        custom: the custom mask (L, L) bool of section 4, or None while it follows the combined mask of section 3.
    """

    text: str = DEFAULT_TEXT
    text2: str = DEFAULT_TEXT2
    seed: int = 0
    causal: bool = True
    padding: bool = True
    extra_pad: int = 0
    item: int = 1
    step: int = 2
    custom: np.ndarray | None = field(default=None, compare=False)


def tokens(text: str) -> tuple[str, ...]:
    return tokenize(text).tokens


@dataclass(frozen=True)
class Batch:
    """The two sentences padded to one length L. ``tokens[b]`` has L entries (PAD at the end), ``is_pad[b]`` (L,)
    bool marks them, ``lengths[b]`` is the sentence's own length."""

    tokens: tuple[tuple[str, ...], tuple[str, ...]]
    is_pad: tuple[np.ndarray, np.ndarray]
    lengths: tuple[int, int]

    @property
    def length(self) -> int:
        return len(self.tokens[0])


def pad_to(toks: tuple[str, ...], length: int) -> tuple[tuple[str, ...], np.ndarray]:
    """``toks`` followed by PAD tokens up to ``length`` (none when it is that long already), and which positions are
    those added PADs: (padded tokens, (len,) bool). A typed "[PAD]" is a word like any other (not marked). The
    masks lesson pads its batch with it, the source–target lesson its source keys (lessons/cross.py)."""
    n = len(toks)
    padded = tuple(toks) + (PAD,) * max(int(length) - n, 0)
    return padded, np.arange(len(padded)) >= n


def batch(state: MasksState) -> Batch:
    own = (tokens(state.text), tokens(state.text2))
    L = min(max(len(own[0]), len(own[1])) + state.extra_pad, MAX_TOKENS)  # a batch is at most MAX_TOKENS long
    padded, is_pad = zip(*(pad_to(t, L) for t in own))
    return Batch(tuple(padded), tuple(is_pad), (len(own[0]), len(own[1])))


def pads_cut(state: MasksState) -> int:
    """How many of the extra PAD tokens asked for do not fit in a batch of at most MAX_TOKENS."""
    longest = max(len(tokens(state.text)), len(tokens(state.text2)))
    return max(longest + state.extra_pad - MAX_TOKENS, 0)


def projections(toks, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q, K, V (n, 4) each for these tokens: X·W_Q, X·W_K, X·W_V with the Q·K·V lesson's seeded numbers for its
    own sentence (preset "custom"); the tokens are taken as they are (never split again)."""
    X = seeded.token_rows(tuple(toks), seed, D_K)
    return project_qkv(X, *(seeded.weight(seed, name, D_K, D_K) for name in ("W_Q", "W_K", "W_V")))


def _attend(toks, seed: int, mask) -> AttentionSteps | None:
    if not toks:
        return None
    Q, K, V = projections(toks, seed)
    return scaled_dot_product_attention(Q, K, V, mask=mask)


def causal_steps(state: MasksState) -> AttentionSteps | None:
    """Sentence 1 with the causal mask when ``state.causal`` (None without tokens)."""
    toks = tokens(state.text)
    return _attend(toks, state.seed, causal_mask(len(toks)) if state.causal else None)


def generation_step(state: MasksState) -> tuple[np.ndarray, np.ndarray] | None:
    """The stepper: at step t (= state.step + 1) only tokens 1..t exist. Returns (the weights of token t over the
    t tokens, computed from those t tokens alone without any mask; row t of the full causal weights matrix of the
    whole sentence (n,)). The first t entries of the second equal the first, the rest are 0."""
    toks = tokens(state.text)
    if not toks:
        return None
    t = min(state.step, len(toks) - 1) + 1
    alone = _attend(toks[:t], state.seed, None)
    full = _attend(toks, state.seed, causal_mask(len(toks)))
    return alone.weights[t - 1], full.weights[t - 1]


def batch_masks(state: MasksState) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For the chosen sentence of the batch: (causal (L, L), padding (L, L), combined = causal AND padding), each
    all True while its switch is off. Padding hides PAD keys (columns); a PAD query row keeps a defined row."""
    b = batch(state)
    L = b.length
    causal = causal_mask(L) if state.causal else np.ones((L, L), dtype=bool)
    pad = padding_mask(b.is_pad[state.item], L) if state.padding else np.ones((L, L), dtype=bool)
    return causal, pad, causal & pad


def batch_steps(state: MasksState) -> AttentionSteps | None:
    b = batch(state)
    return _attend(b.tokens[state.item], state.seed, batch_masks(state)[2])


def _start_mask(state: MasksState, start: str) -> np.ndarray:
    b = batch(state)
    L = b.length
    if start == "none":
        return np.ones((L, L), dtype=bool)
    if start == "causal":
        return causal_mask(L)
    if start == "padding":
        return padding_mask(b.is_pad[state.item], L)
    if start == "blocked":
        return np.zeros((L, L), dtype=bool)
    raise ValueError(f"start must be one of {CUSTOM_STARTS}, got {start!r}")


def custom_mask(state: MasksState) -> np.ndarray:
    """Section 4's mask (L, L): as edited, or the combined mask of section 3 until it is edited."""
    return state.custom if state.custom is not None else batch_masks(state)[2]


def custom_steps(state: MasksState) -> AttentionSteps | None:
    b = batch(state)
    return _attend(b.tokens[state.item], state.seed, custom_mask(state))


# ---- transitions ----------------------------------------------------------------------------------------------
def _fit_custom(old: MasksState, new: MasksState) -> MasksState:
    """After the batch length changed: the edited custom mask keeps the cells that still exist (by position: the
    top-left overlap of the old and the new L × L, whatever the tokens there now are); new cells come from the
    combined mask of the new state (:func:`lessons.seeded.refit`)."""
    if old.custom is None:
        return new
    return replace(new, custom=seeded.refit(old.custom, batch_masks(new)[2]))


def _clamped_step(state: MasksState) -> MasksState:
    n = len(tokens(state.text))
    return replace(state, step=min(state.step, max(n - 1, 0)))


def with_text(state: MasksState, text: str) -> MasksState:
    """Sentence 1; the stepper stays on its token when it still exists, else moves to the last token."""
    return _fit_custom(state, _clamped_step(replace(state, text=str(text))))


def with_text2(state: MasksState, text: str) -> MasksState:
    return _fit_custom(state, replace(state, text2=str(text)))


def with_extra_pad(state: MasksState, k: int) -> MasksState:
    return _fit_custom(state, replace(state, extra_pad=int(min(max(int(k), 0), MAX_EXTRA_PAD))))


def with_step(state: MasksState, step: int) -> MasksState:
    return _clamped_step(replace(state, step=max(int(step), 0)))


def with_step_shown(state: MasksState, t: int) -> MasksState:
    """The step as its slider shows it: t from 1 (token t is the one just written), i.e. ``with_step(state, t − 1)``."""
    return with_step(state, int(t) - 1)


def with_custom(state: MasksState, mask) -> MasksState:
    """Set the custom mask. Raises Refusal: "shape" unless it is (L, L) (a grid drawn before the batch length
    changed), "format_mask" unless it is bool."""
    m = np.asarray(mask)
    L = batch(state).length
    if m.shape != (L, L):
        raise Refusal("shape", got="x".join(str(k) for k in m.shape), want=f"{L}x{L}")
    if m.dtype != np.bool_:
        raise Refusal("format_mask")
    return replace(state, custom=m.copy())


def with_custom_cell(state: MasksState, i: int, j: int, allowed: bool) -> MasksState:
    """One cell of the custom mask. Raises Refusal ("outside") for a cell outside it."""
    m = custom_mask(state).copy()
    if not (0 <= i < m.shape[0] and 0 <= j < m.shape[1]):
        raise Refusal("outside", matrix="M", row=int(i) + 1, col=int(j) + 1, shape=f"{m.shape[0]}x{m.shape[1]}")
    m[i, j] = bool(allowed)
    return replace(state, custom=m)


def with_custom_start(state: MasksState, start: str) -> MasksState:
    """The custom mask started afresh from one of CUSTOM_STARTS. Raises Refusal ("invalid") for another word."""
    if start not in CUSTOM_STARTS:
        raise Refusal("invalid")
    return replace(state, custom=_start_mask(state, start))


# ---- what the page shows ----------------------------------------------------------------------------------------
def _bits(m: np.ndarray) -> np.ndarray:
    return m.astype(np.float64)


def arrays(state: MasksState) -> dict[str, np.ndarray]:
    """By name: sentence 1's ``scores``, ``scaled_scores`` (÷√d_k), ``mask`` (1 = may attend), ``masked_scores``
    (−∞ where masked), ``weights`` (n, n) and ``output`` (n, 4); the stepper's ``step_weights`` (t,) and
    ``step_row_of_full`` (n,); the batch sentence's ``batch_causal``, ``batch_padding``, ``batch_mask`` (1/0),
    ``batch_weights`` (L, L), ``batch_output`` (L, 4); the custom section's ``custom_mask``, ``custom_weights``,
    ``custom_output`` and ``fully_masked`` (L,) 1 for a query with nothing to attend to."""
    out: dict[str, np.ndarray] = {}
    s = causal_steps(state)
    if s is not None:
        out.update(scores=s.scores, scaled_scores=s.scores * s.scale, mask=_bits(np.isfinite(s.scaled_scores)),
                   masked_scores=s.scaled_scores, weights=s.weights, output=s.output)
        alone, full_row = generation_step(state)
        out.update(step_weights=alone, step_row_of_full=full_row)
    b = batch_steps(state)
    if b is not None:
        causal, pad, both = batch_masks(state)
        out.update(batch_causal=_bits(causal), batch_padding=_bits(pad), batch_mask=_bits(both),
                   batch_weights=b.weights, batch_output=b.output)
        c = custom_steps(state)
        out.update(custom_mask=_bits(custom_mask(state)), custom_weights=c.weights, custom_output=c.output,
                   fully_masked=_bits(c.fully_masked))
    return out


def preview(state: MasksState) -> dict[str, np.ndarray | tuple[np.ndarray, np.ndarray]]:
    """The matrix each keyed heatmap of the page shows (``Lesson.preview``): sentence 1's scaled scores (before the
    mask), masked scores, weights (with which are exactly 0 or 1), the stepper's weights (1, t) and row of the full
    weights (1, n), and its Q, K, V (the folded expander); the batch sentence's weights and output, the custom mask's
    weights and output, and its Q, K, V."""
    out: dict = {}
    s = causal_steps(state)
    if s is not None:
        alone, full_row = generation_step(state)
        out.update({"masks.fig.scaled": s.scores * s.scale, "masks.fig.masked": s.scaled_scores,
                    "masks.fig.weights": (s.weights, softmax_exact(s.scaled_scores)),
                    "masks.fig.step_alone": alone[None, :], "masks.fig.step_full": full_row[None, :]})
        out.update(zip(("masks.qkv_causal.Q", "masks.qkv_causal.K", "masks.qkv_causal.V"),
                       projections(tokens(state.text), state.seed)))
    row = batch(state).tokens[state.item]
    b = batch_steps(state)
    if b is not None:
        c = custom_steps(state)
        out.update({"masks.fig.batch_weights": (b.weights, softmax_exact(b.scaled_scores)),
                    "masks.fig.batch_out": b.output,
                    "masks.fig.custom_weights": (c.weights, softmax_exact(c.scaled_scores)),
                    "masks.fig.custom_out": c.output})
        out.update(zip(("masks.qkv_batch.Q", "masks.qkv_batch.K", "masks.qkv_batch.V"), projections(row, state.seed)))
    return out


def array_labels(state: MasksState) -> dict[str, tuple[Sequence[str], Sequence[str]]]:
    """Lesson.array_labels: sentence 1's tokens on the axes of its arrays (the stepper's ``step_weights`` over the
    tokens visible at its step), the chosen batch sentence's tokens with its [PAD]s on the batch and custom arrays'
    axes, and the output dimensions "1".."D_K"."""
    out: dict[str, tuple[Sequence[str], Sequence[str]]] = {}
    dims = [str(j + 1) for j in range(D_K)]
    toks = list(tokens(state.text))
    if toks:
        seen = min(state.step, len(toks) - 1) + 1
        out.update({n: (toks, toks) for n in ("scores", "scaled_scores", "mask", "masked_scores", "weights")})
        out.update(output=(toks, dims), step_weights=(toks[:seen], ()), step_row_of_full=(toks, ()))
    row = list(batch(state).tokens[state.item])
    if row:
        out.update({n: (row, row) for n in ("batch_causal", "batch_padding", "batch_mask", "batch_weights",
                                            "custom_mask", "custom_weights")})
        out.update(batch_output=(row, dims), custom_output=(row, dims), fully_masked=(row, ()))
    return out


def color_ranges(state: MasksState) -> dict[str, float]:
    """{array name of :func:`arrays`: zmax} for the heatmaps (lessons/ranges.py), fixed by the sentences and the
    seed: the scaled and masked scores share the range of the unmasked scaled scores (the switches and the custom
    mask never recolour them); every output shares the range of its sentence's V (an output row is a weighted mean
    of V's rows, a row with nothing to attend to is 0), so no mask edit can push an output past it."""
    out: dict[str, float] = {}
    toks = tokens(state.text)
    if toks:
        Q, K, V = projections(toks, state.seed)
        scaled = scaled_dot_product_attention(Q, K, V)  # no mask: every score
        out.update(ranges.of_arrays({"scaled_scores": scaled.scaled_scores, "output": V}))
        out["masked_scores"] = out["scaled_scores"]
    b = batch(state)
    if b.length:
        _, _, V = projections(b.tokens[state.item], state.seed)
        out["batch_output"] = out["custom_output"] = ranges.nice_ceiling(float(np.max(np.abs(V))))
    return out


# ---- the NumPy script (Lesson.code) ----------------------------------------------------------------------------------
_ATTEND = """\
d_k = W_Q.shape[1]


def attend(X, allowed):
    \"\"\"Scaled dot-product attention of the tokens X among themselves; allowed[i, j] = 1: query i may see key j.\"\"\"
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    weights = softmax(np.where(allowed == 1, Q @ K.T / np.sqrt(d_k), -np.inf))  # a row with no key left: all 0
    return weights, weights @ V

"""

_SENTENCE = """
# 1. sentence 1, step by step, with the causal mask when it is on
n = len(tokens)
Q, K, V = X @ W_Q, X @ W_K, X @ W_V
scores = Q @ K.T
scaled_scores = scores / np.sqrt(d_k)
mask = np.tril(np.ones((n, n))) if causal else np.ones((n, n))  # 1 = may attend: token i sees tokens 1..i
masked_scores = np.where(mask == 1, scaled_scores, -np.inf)      # −∞: weight exactly 0
weights = softmax(masked_scores)
output = weights @ V

# 2. generating token t = step + 1: only tokens 1..t exist yet, so no mask is needed
t = step + 1
step_weights = attend(X[:t], np.ones((t, t)))[0][t - 1]
step_row_of_full = attend(X, np.tril(np.ones((n, n))))[0][t - 1]  # the same numbers, then 0s: the causal row
"""

_BATCH = """
# 3. the chosen sentence of the batch, padded with [PAD] to the batch length L
L = len(batch_tokens)
batch_causal = np.tril(np.ones((L, L))) if causal else np.ones((L, L))
batch_padding = np.ones((L, L))
if padding:
    batch_padding[:, np.array(is_pad)] = 0  # no query may look at a [PAD] key
batch_mask = batch_causal * batch_padding   # both must allow
batch_weights, batch_output = attend(X_batch, batch_mask)

# 4. the custom mask
{custom}custom_weights, custom_output = attend(X_batch, custom_mask)
fully_masked = 1.0 * (custom_mask.sum(axis=1) == 0)  # a query with nothing to attend to: weights 0, output 0
"""


def code(state: MasksState) -> str:
    """Lesson.code: sentence 1's tokens and seeded X, the weights W_Q, W_K, W_V (the Q·K·V lesson's numbers for the
    seed), the switches and the stepper, the chosen batch sentence with its [PAD]s and their X, and the custom mask
    once edited; then each section's weights and output (a section without tokens is left out, as on the page)."""
    toks, b = tokens(state.text), batch(state)
    row, L = b.tokens[state.item], b.length
    W = {name: seeded.weight(state.seed, name, D_K, D_K) for name in ("W_Q", "W_K", "W_V")}
    inputs: dict = {}
    shown: list[str] = []
    body = ""
    if toks:
        inputs.update(tokens=list(toks), X=seeded.token_rows(toks, state.seed, D_K))
        shown += ["mask", "masked_scores", "weights", "output", "step_weights", "step_row_of_full"]
        body += _SENTENCE
    inputs.update(W, causal=state.causal, **({"step": state.step} if toks else {}))
    if L:
        inputs.update(batch_tokens=list(row), X_batch=seeded.token_rows(row, state.seed, D_K),
                      is_pad=[bool(x) for x in b.is_pad[state.item]], padding=state.padding)
        if state.custom is not None:
            inputs["custom_mask"] = _bits(state.custom)
        custom = "" if state.custom is not None else "custom_mask = batch_mask  # not edited: the mask of section 3\n"
        shown += ["batch_mask", "batch_weights", "batch_output", "custom_weights", "custom_output", "fully_masked"]
        body += _BATCH.format(custom=custom)
    title = (f"Masks — {short_sentence(toks)} / batch: {short_sentence(row)}, seed {state.seed}, "
             f"causal {'on' if state.causal else 'off'}, padding {'on' if state.padding else 'off'}")
    return script_code.script(title, script_code.file_name("masks"), inputs, _ATTEND + body, shown)


# ---- link ---------------------------------------------------------------------------------------------------------
# masks=1 [t=<sentence 1>] [t2=<sentence 2>] s c pd xp b st, and M=<L>x<L>:<bits> once the custom mask was edited.
LINK = link.LinkSchema(
    namespace="masks", version=1,
    fields=(link.Text("t", MAX_TEXT_CHARS), link.Text("t2", MAX_TEXT_CHARS), link.Int("s", 0, SEED_MAX),
            link.Flag("c"), link.Flag("pd"), link.Int("xp", 0, MAX_EXTRA_PAD), link.Int("b", 0, 1),
            link.Int("st", 0, 10**6)),
    matrices=(link.Mask("M"),),
)


def to_link(state: MasksState) -> dict:
    out = {}
    if state.text != DEFAULT_TEXT:
        out["t"] = state.text
    if state.text2 != DEFAULT_TEXT2:
        out["t2"] = state.text2
    out.update(s=state.seed, c=state.causal, pd=state.padding, xp=state.extra_pad, b=state.item, st=state.step)
    if state.custom is not None and state.custom.size:
        out["M"] = state.custom
    return out


def from_link(values: dict) -> tuple[MasksState, list[Notice]]:
    """The state of a link's valid fields (defaults for the rest). A stepper position past sentence 1's end moves
    to its last token with a ``step_clamped`` notice; with no token in sentence 1, to the first with a
    ``step_no_tokens`` notice."""
    base = MasksState()
    state = MasksState(text=values.get("t", base.text), text2=values.get("t2", base.text2),
                       seed=values.get("s", base.seed), causal=values.get("c", base.causal),
                       padding=values.get("pd", base.padding), extra_pad=values.get("xp", base.extra_pad),
                       item=values.get("b", base.item), step=values.get("st", base.step))
    clamped = _clamped_step(state)
    notices = []
    if "st" in values and clamped.step != state.step and tokens(state.text):
        notices.append(Notice("step_clamped", {"asked": state.step + 1, "used": clamped.step + 1, "param": "st"}))
    elif "st" in values and clamped.step != state.step:  # sentence 1 has no token: said (issue 20, defect 6)
        notices.append(Notice("step_no_tokens", {"asked": state.step + 1, "param": "st"}))
    return clamped, notices


def matrix_shape(state: MasksState, name: str) -> tuple[int, int]:
    L = batch(state).length
    return {"M": (L, L)}[name]


def with_matrices(state: MasksState, mats: dict) -> MasksState:
    return replace(state, custom=mats["M"]) if "M" in mats else state


def _set(attr: str, convert) -> Callable:
    return lambda s, v: replace(s, **{attr: convert(v)})


TRANSITIONS = {
    "text": Transition(with_text, (link.Text("t", MAX_TEXT_CHARS),)),
    "text2": Transition(with_text2, (link.Text("t2", MAX_TEXT_CHARS),)),
    "seed": Transition(_set("seed", int), (link.Int("s", 0, SEED_MAX),)),
    "causal": Transition(_set("causal", bool), (link.Flag("c"),)),
    "padding": Transition(_set("padding", bool), (link.Flag("pd"),)),
    "extra_pad": Transition(with_extra_pad, (link.Int("xp", 0, MAX_EXTRA_PAD),)),
    "item": Transition(_set("item", int), (link.Int("b", 0, 1),)),
    "step": Transition(with_step_shown, (link.Int("st", 1, MAX_TOKENS + 3),)),  # a stale slider past the end
    "custom": Transition(with_custom, (link.Mask("M"),)),
    "custom_cell": Transition(with_custom_cell, (link.Int("i", 0, 2 * MAX_TOKENS), link.Int("j", 0, 2 * MAX_TOKENS),
                                                 link.Flag("a"))),
    "custom_start": Transition(with_custom_start, (link.Choice("start", (*CUSTOM_STARTS, "other")),)),
}
"""What the page's controls do (lesson_pages/masks.py): the contract tests drive these in random sequences."""

def widest_state() -> MasksState:
    """The fullest screen (Lesson.widest): both sentences of 16 tokens (the last of 33 characters), the generation
    stepper on the last token."""
    text = widest_text()
    return MasksState(text=text, text2=text, step=len(tokens(text)) - 1)


def one_edit(state: MasksState) -> MasksState:
    """Lesson.one_edit: the custom mask's cell (last query, first key) toggled."""
    m = custom_mask(state)
    return with_custom_cell(state, m.shape[0] - 1, 0, not bool(m[-1, 0]))


PLAN = (
    Question("future", moved(MasksState, TRANSITIONS)),
    Question("off", moved(MasksState, TRANSITIONS, ("causal", False))),
    Question("generation", moved(MasksState, TRANSITIONS, ("step", 4))),
    Question("padding", moved(MasksState, TRANSITIONS, ("extra_pad", 3))),
    Question("no_padding", moved(MasksState, TRANSITIONS, ("causal", False), ("padding", False), ("extra_pad", 2))),
)
"""The lesson plan for class (Lesson.plan; texts ``masks.plan.<key>``)."""
TERMS = ("decoder", "causal_mask", "negative_infinity", "softmax", "attention_weights", "padding", "batch", "boolean",
         "scaled_dot_product_attention", "morphological_analysis", "seed")

LESSON = Lesson(plan=PLAN, terms=TERMS,
                predict=Prediction(weights="weights", hides=("weights", "generation", "padding", "custom"),
                                   query=lambda s: max(len(tokens(s.text)) - 1, 0)),
                key="masks", icon=":material/visibility_off:", default_state=MasksState, link=LINK,
                to_link=to_link, from_link=from_link, arrays=arrays, matrix_shape=matrix_shape,
                with_matrices=with_matrices, color_ranges=color_ranges, transitions=TRANSITIONS, preview=preview,
                text_fields=("text", "text2"), masked_rows_text="masks.out.empty_rows",
                n_tokens=lambda s: len(tokens(s.text)), widest=widest_state,
                one_edit=one_edit, array_labels=array_labels, code=code,
                present=Presentation(stages=("mask", "weights", "generation", "padding", "custom"),
                                     controls=("causal", "step", "extra_pad", "padding", "item", "start", "custom"),
                                     picture=("weights", "masks.fig.weights")))

assert len(tokens(DEFAULT_TEXT)) <= MAX_TOKENS
