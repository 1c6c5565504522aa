"""Lesson 7, the training lab: where W_Q, W_K and W_V come from. A one-head attention layer
(attention_core/training.py) learns a task whose right attention pattern is known in advance, in front of the class,
and the page scrubs through its training: every step's W_Q, W_K, W_V, loss and the attention weights of a few
held-out examples are kept, so moving the step slider trains nothing again.

The setup (task, learning rate, number of steps, d_k, seed, ÷√d_k on/off) fixes the numbers; its training is cached
(``functools.lru_cache`` on the setup tuple, a few setups kept). The default setup trains in ~0.15 s of one core
(benchmarks/training_bench.py prints the median).

Link (version 1): ``training=1&task=previous&lr=0.05&n=200&dk=8&s=0&sc=1&t=0&ex=0``: task, learning rate (one of
LEARNING_RATES), steps (one of STEP_CHOICES), d_k (one of DK_CHOICES), seed, scaled, the step shown (0..steps), the
example shown (0..N_WATCH − 1). A step past the setup's last one opens the last step, said in a notice. NumPy only.
"""
from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from attention_core import training as core

from . import code as script_code
from . import link
from .base import Lesson, Prediction, Presentation, Question, Transition, moved
from .cells import Refusal
from .link import Notice
from .ranges import nice_ceiling

__all__ = [
    "TASKS", "LEARNING_RATES", "STEP_CHOICES", "DK_CHOICES", "SEED_MAX", "N_WATCH", "LR_UNSTABLE", "TrainingState",
    "Run", "default_state", "setup", "run", "comparison", "other_lr", "arrays", "array_labels", "feature_labels",
    "token_labels", "with_task", "with_lr", "with_steps", "with_d_k", "with_seed", "with_scaled", "with_step",
    "with_example", "LINK", "LESSON",
]

TASKS = core.TASKS
LEARNING_RATES = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 3.0)
STEP_CHOICES = (50, 100, 150, 200, 300, 400)
DK_CHOICES = (1, 2, 4, 8, 16)
SEED_MAX = 999
N_WATCH = 4
"""Held-out examples whose attention weights are kept at every step (the page's example picker)."""
LR_UNSTABLE = 3.0
"""The too-large learning rate of the experiment (Adam): the loss jumps up and the pattern does not form."""
N_TRAIN, N_HELD_OUT, BATCH = 512, 64, 32
"""Training examples, held-out examples (never trained on), examples per step (a mini-batch)."""
INIT_SCALE = 0.1
"""The initial weights' standard deviation: small, so the first attention weights are nearly uniform."""
DECAY = 0.003
"""Weight decay on the read-out (W_V, W_O): the read-out cannot make a half-right mix confident, so the loss keeps
asking for sharper attention (attention_core.training.loss)."""
LOSS_GOAL = 0.05
"""The held-out loss the default setups reach (ln 8 = 2.08 at step 0); tests/training checks it for three seeds."""


@dataclass(frozen=True)
class TrainingState:
    """Everything the page shows (what a share link carries).

    Attributes:
        task: one of TASKS (previous token, same word, first token).
        lr: the learning rate, one of LEARNING_RATES (optimizer: Adam).
        steps: training steps, one of STEP_CHOICES.
        d_k: the width of Q and K, one of DK_CHOICES.
        seed: 0..SEED_MAX, fixes the data, the initial weights and the mini-batches.
        scaled: True divides the scores by √d_k.
        step: the training step shown, 0..steps (0: the initial weights).
        example: which held-out example's weights are shown, 0..N_WATCH − 1.

    Raises:
        ValueError: on construction with any value out of bounds.
    """

    task: str = "previous"
    lr: float = 0.05
    steps: int = 200
    d_k: int = 8
    seed: int = 0
    scaled: bool = True
    step: int = 0
    example: int = 0

    def __post_init__(self):
        bad = []
        if self.task not in TASKS:
            bad.append(f"task={self.task!r}")
        if self.lr not in LEARNING_RATES:
            bad.append(f"lr={self.lr!r}")
        if self.steps not in STEP_CHOICES:
            bad.append(f"steps={self.steps!r}")
        if self.d_k not in DK_CHOICES:
            bad.append(f"d_k={self.d_k!r}")
        if not (isinstance(self.seed, int) and 0 <= self.seed <= SEED_MAX):
            bad.append(f"seed={self.seed!r}")
        if not isinstance(self.scaled, bool):
            bad.append(f"scaled={self.scaled!r}")
        if not (isinstance(self.step, int) and 0 <= self.step <= self.steps):
            bad.append(f"step={self.step!r} (0..{self.steps})")
        if not (isinstance(self.example, int) and 0 <= self.example < N_WATCH):
            bad.append(f"example={self.example!r}")
        if bad:
            raise ValueError("TrainingState out of bounds: " + ", ".join(bad))


def default_state() -> TrainingState:
    return TrainingState()


def setup(state: TrainingState) -> tuple:
    """The numbers that fix a training run: (task, lr, steps, d_k, seed, scaled)."""
    return (state.task, state.lr, state.steps, state.d_k, state.seed, state.scaled)


@dataclass(frozen=True)
class Run:
    """One setup's training, kept whole. ``history``: every step (attention_core.training.History); ``watch``: the
    N_WATCH held-out examples whose weights it keeps; ``held_out``: all N_HELD_OUT held-out examples; ``lowest``,
    ``mean``: the smallest and the mean weight a held-out query with a target puts on its answer's key after
    training; ``seconds``: how long training took (process time)."""

    history: core.History
    watch: core.TaskData
    held_out: core.TaskData
    lowest: float
    mean: float
    seconds: float
    scale: float


def _train(task: str, lr: float, steps: int, d_k: int, seed: int, scaled: bool) -> Run:
    started = time.process_time()
    data = core.make_task(task, N_TRAIN, seed, stream=1)
    held = core.make_task(task, N_HELD_OUT, seed, stream=2)
    watch = held.subset(range(N_WATCH))
    d_model = data.X.shape[-1]
    p0 = core.init_params(d_model, d_k, core.VOCAB, core.VOCAB, seed, INIT_SCALE, INIT_SCALE)
    hist = core.train(p0, data, steps=steps, lr=lr, optimizer="adam", scaled=scaled, batch=BATCH, seed=seed,
                      decay=DECAY, held_out=held.subset(range(N_HELD_OUT // 2)), watch=watch)
    W = core.forward(hist.params(steps), held.X, scaled=scaled, mask=held.mask).weights
    lowest, mean = core.pattern_score(W, held)
    return Run(hist, watch, held, lowest, mean, time.process_time() - started, 1 / math.sqrt(d_k) if scaled else 1.0)


@lru_cache(maxsize=12)
def _cached(key: tuple) -> Run:
    return _train(*key)


def run(state: TrainingState) -> Run:
    """The state's setup trained (cached per setup: moving the step or the example trains nothing)."""
    return _cached(setup(state))


def comparison(state: TrainingState) -> dict[str, Run]:
    """The experiment: the state's setup as it is ("now"), with ÷√d_k switched the other way ("flipped"), and with
    the learning rate LR_UNSTABLE ("too_large"; with the moderate 0.05 when the state already uses it)."""
    return {"now": run(state), "flipped": run(replace(state, scaled=not state.scaled, step=0)),
            "too_large": run(replace(state, lr=other_lr(state), step=0))}


def other_lr(state: TrainingState) -> float:
    """The learning rate of the experiment's third training: LR_UNSTABLE, or 0.05 when the state already uses it."""
    return LR_UNSTABLE if state.lr != LR_UNSTABLE else 0.05


def token_labels(state: TrainingState, example: int | None = None) -> list[str]:
    """The shown example's tokens: letters A..H (previous, first); for ``same`` each word with its value, "C=5"."""
    r = run(state)
    b = state.example if example is None else example
    toks = r.watch.tokens[b].tolist()
    letters = [chr(ord("A") + t) for t in toks]
    if state.task != "same":
        return letters
    return [f"{w}={v}" for w, v in zip(letters, r.watch.values[b].tolist())]


def feature_labels(state: TrainingState) -> tuple[list[str], str]:
    """The d_model input features (the rows of W_Q, W_K): the letters A..H, then (previous, first) positions 0..7
    or (same) values 0..7; and which kind the second block is ("pos" or "value")."""
    letters = [chr(ord("A") + t) for t in range(core.VOCAB)]
    kind = "value" if state.task == "same" else "pos"
    return letters + [str(i) for i in range(core.VOCAB)], kind


def arrays(state: TrainingState) -> dict[str, np.ndarray]:
    """What the page shows at the state's step: ``weights`` (n, n) of the chosen held-out example, ``ideal`` (n, n)
    its right pattern (rows without a target all 0), ``W_Q``, ``W_K`` (d_model, d_k), ``W_V`` (d_model, d_v),
    ``asks_offers`` = W_Q·W_Kᵀ × s (d_model, d_model: the scaled score a query feature gives a key feature),
    ``loss`` and ``held_out_loss`` (steps + 1,) over the whole training."""
    r = run(state)
    h, t, b = r.history, state.step, state.example
    return {"weights": h.watch_weights[t, b].copy(), "ideal": r.watch.ideal[b].copy(), "W_Q": h.W_Q[t].copy(),
            "W_K": h.W_K[t].copy(), "W_V": h.W_V[t].copy(), "asks_offers": h.W_Q[t] @ h.W_K[t].T * r.scale,
            "loss": h.loss.copy(), "held_out_loss": h.held_out_loss.copy()}


def preview(state: TrainingState) -> dict[str, np.ndarray | dict]:
    """The matrix each keyed heatmap of the page shows (``Lesson.preview``) at the state's step, from the cached
    training (:func:`arrays`): the chosen example's weights and its right pattern, W_Q, W_K and W_Q·W_Kᵀ × s; the
    charts whose titles name the step say so (``title_args``)."""
    a = arrays(state)
    step = {"title_args": {"step": state.step}}
    return {"training.fig.weights": {"M": a["weights"], **step}, "training.fig.ideal": a["ideal"],
            "training.fig.wq": {"M": a["W_Q"], **step}, "training.fig.wk": {"M": a["W_K"], **step},
            "training.fig.asks": {"M": a["asks_offers"], **step}}


def array_labels(state: TrainingState) -> dict[str, tuple[Sequence[str], Sequence[str]]]:
    """Lesson.array_labels: the shown example's tokens (:func:`token_labels`) on the weights' axes, the input features
    (:func:`feature_labels`: A..H, then positions or values 0..7) on the rows of W and both axes of W_Q·W_Kᵀ, the
    dimensions "1", "2", … on the columns of W, and the step numbers "0".."steps" for the two loss curves."""
    toks, feats = token_labels(state), feature_labels(state)[0]
    d_k, d_v = ([str(j + 1) for j in range(n)] for n in (state.d_k, run(state).history.W_V.shape[-1]))
    steps = [str(t) for t in range(state.steps + 1)]
    return {"weights": (toks, toks), "ideal": (toks, toks), "W_Q": (feats, d_k), "W_K": (feats, d_k),
            "W_V": (feats, d_v), "asks_offers": (feats, feats), "loss": (steps, ()), "held_out_loss": (steps, ())}


def color_ranges(state: TrainingState) -> dict[str, float]:
    """One colour range for W_Q and W_K through the whole training (the largest |value| either reaches), so a
    colour means the same number at every step; likewise for W_V and for W_Q·W_Kᵀ × s."""
    r = run(state)
    h = r.history
    wqk = nice_ceiling(max(np.abs(h.W_Q).max(), np.abs(h.W_K).max()))
    asks = nice_ceiling(np.abs(np.einsum("tik,tjk->tij", h.W_Q, h.W_K)).max() * r.scale)
    return {"W_Q": wqk, "W_K": wqk, "W_V": nice_ceiling(np.abs(h.W_V).max()), "asks_offers": asks}


# ---- transitions -------------------------------------------------------------------------------------------------
def _nearest(options, v, log: bool = False):
    v = float(v)
    if not math.isfinite(v):
        raise Refusal("not_finite", value=str(v)[:40])
    if log:
        v = max(v, 1e-12)
        return min(options, key=lambda x: abs(math.log(x) - math.log(v)))
    return min(options, key=lambda x: abs(x - v))


def _whole(v) -> int:
    """A control's number as an int; Refusal ("not_finite") for NaN or ±∞."""
    v = float(v)
    if not math.isfinite(v):
        raise Refusal("not_finite", value=str(v)[:40])
    return int(round(v))


def with_task(state: TrainingState, task: str) -> TrainingState:
    """Another task (the step shown is kept). Raises Refusal ("invalid") for a task that does not exist."""
    if task not in TASKS:
        raise Refusal("invalid")
    return replace(state, task=task)


def with_lr(state: TrainingState, lr: float) -> TrainingState:
    """The nearest learning rate of LEARNING_RATES (on a log scale)."""
    return replace(state, lr=_nearest(LEARNING_RATES, lr, log=True))


def with_steps(state: TrainingState, steps: int) -> TrainingState:
    """The nearest of STEP_CHOICES; the step shown stays inside the new training."""
    n = _nearest(STEP_CHOICES, steps)
    return replace(state, steps=n, step=min(state.step, n))


def with_d_k(state: TrainingState, d_k: int) -> TrainingState:
    return replace(state, d_k=_nearest(DK_CHOICES, d_k, log=True))


def with_seed(state: TrainingState, seed: int) -> TrainingState:
    return replace(state, seed=min(max(_whole(seed), 0), SEED_MAX))


def with_scaled(state: TrainingState, scaled: bool) -> TrainingState:
    return replace(state, scaled=bool(scaled))


def with_step(state: TrainingState, step: int) -> TrainingState:
    """The step shown, clamped to 0..steps."""
    return replace(state, step=min(max(_whole(step), 0), state.steps))


def with_example(state: TrainingState, example: int) -> TrainingState:
    """The example shown, clamped to 0..N_WATCH − 1."""
    return replace(state, example=min(max(_whole(example), 0), N_WATCH - 1))


# ---- link --------------------------------------------------------------------------------------------------------
STEP_LINK_MAX = 10**9
"""A link's step past the training's end opens its last step (said); t=201 and t=99999999 alike (a new-user trial:
the second was refused and opened step 0). Past this it is no step."""
LINK = link.LinkSchema(
    namespace="training", version=1,
    fields=(link.Choice("task", TASKS), link.Decimal("lr", min(LEARNING_RATES), max(LEARNING_RATES),
                                                     allowed=LEARNING_RATES),
            link.Int("n", min(STEP_CHOICES), max(STEP_CHOICES), allowed=STEP_CHOICES),
            link.Int("dk", min(DK_CHOICES), max(DK_CHOICES), allowed=DK_CHOICES), link.Int("s", 0, SEED_MAX),
            link.Flag("sc"), link.Int("t", 0, STEP_LINK_MAX), link.Int("ex", 0, N_WATCH - 1)),
)
_FIELDS = {"task": "task", "lr": "lr", "n": "steps", "dk": "d_k", "s": "seed", "sc": "scaled", "t": "step",
           "ex": "example"}


def to_link(state: TrainingState) -> dict:
    """Every field."""
    return {k: getattr(state, a) for k, a in _FIELDS.items()}


def from_link(values: dict) -> tuple[TrainingState, list[Notice]]:
    """The state of a link's valid fields (the rest default). A step past the link's last training step opens the
    last step, said in a notice."""
    state = TrainingState(**{a: values[k] for k, a in _FIELDS.items() if k in values and k != "t"})
    notices = []
    if "t" in values:
        asked = values["t"]
        state = replace(state, step=min(asked, state.steps))
        if asked > state.steps:
            notices.append(Notice("training_step_clamped", {"asked": asked, "used": state.steps, "param": "t"}))
    return state, notices


TRANSITIONS = {
    "task": Transition(with_task, (link.Choice("task", (*TASKS, "nope")),)),
    "lr": Transition(with_lr, (link.Decimal("lr", 0.0, 10.0),)),
    "steps": Transition(with_steps, (link.Int("n", 0, 1000),)),
    "dk": Transition(with_d_k, (link.Int("dk", 0, 64),)),
    "seed": Transition(with_seed, (link.Int("s", -5, SEED_MAX + 5),)),
    "scaled": Transition(with_scaled, (link.Flag("sc"),)),
    "step": Transition(with_step, (link.Int("t", -5, 1000),)),
    "example": Transition(with_example, (link.Int("ex", -2, N_WATCH + 2),)),
}
"""What the page's controls do (lesson_pages/training.py); the contract tests drive them in random sequences (a stale
step slider may still send a step past a shorter training: clamped)."""


# ---- the NumPy script (Lesson.code) ---------------------------------------------------------------------------------
_FORWARD = """\
# The training itself (Adam on mini-batches, attention_core/training.py) is not repeated here: W_Q and W_K are the
# learned values at the step shown, and this is what the trained layer does with one example.
Q = X @ W_Q                              # one query per token (n, d_k)
K = X @ W_K
scores = Q @ K.T
scaled_scores = np.where(may_attend, scores * scale, -np.inf)   # scale = 1/√d_k (or 1 with the switch off)
weights = softmax(scaled_scores)         # row i: where token i looks (a row with nothing to see stays 0)
asks_offers = W_Q @ W_K.T * scale        # the scaled score a query feature (row) gives a key feature (column)
"""


def code(state: TrainingState) -> str:
    """Lesson.code: the shown held-out example (its tokens, its input X (n, d_model): a letter's one-hot, then the
    position's or value's), which keys each query may see, the scale, and W_Q, W_K at the step shown; then Q, K, the
    scores, the masked scaled scores, the weights and W_Q·W_Kᵀ × scale. The training is not repeated (the script
    says so): the loss curves are the page's."""
    r, t, b = run(state), state.step, state.example
    inputs = {"tokens": token_labels(state), "X": r.watch.X[b], "may_attend": r.watch.mask.astype(bool).tolist(),
              "scale": float(r.scale), "W_Q": r.history.W_Q[t], "W_K": r.history.W_K[t]}
    title = (f"Training attention ({state.task}) — step {t} of {state.steps}, learning rate {state.lr}, "
             f"d_k={state.d_k}, seed {state.seed}, " + ("÷√d_k" if state.scaled else "not scaled") +
             f"; the weights of held-out example {b + 1} from the learned W_Q and W_K (the training itself, "
             "Adam, is not repeated here)")
    body = "may_attend = np.array(may_attend)       # True: query i (row) may look at key j (column)\n" + _FORWARD
    return script_code.script(title, script_code.file_name("training"), inputs, body, ["weights", "asks_offers"])


PLAN = (
    Question("before", moved(default_state, TRANSITIONS, ("step", 0))),
    Question("after", moved(default_state, TRANSITIONS, ("step", 200))),
    Question("unstable", moved(default_state, TRANSITIONS, ("lr", 3.0), ("step", 200))),
    Question("same", moved(default_state, TRANSITIONS, ("task", "same"), ("step", 200))),
    Question("unscaled", moved(default_state, TRANSITIONS, ("dk", 16), ("scaled", False), ("step", 200))),
)
"""The lesson plan for class (Lesson.plan; texts ``training.plan.<key>``)."""
TERMS = ("training", "query_key_value", "loss", "cross_entropy", "natural_log", "gradient", "learning_rate", "adam",
         "step", "batch", "weight_decay", "generalisation", "scaling")

LESSON = Lesson(plan=PLAN, terms=TERMS, code=code, preview=preview,
                predict=Prediction(weights="weights", hides=("watch",)),
                key="training", icon=":material/model_training:", default_state=default_state, link=LINK,
                to_link=to_link, from_link=from_link, arrays=arrays, transitions=TRANSITIONS,
                color_ranges=color_ranges, array_labels=array_labels,
                present=Presentation(stages=("task", "watch", "matrices", "experiment"),
                                     controls=("step", "play", "task", "example"),
                                     picture=("watch", "training.fig.weights")))
"""Lesson 7 — the training lab: a one-head attention layer learns a known pattern; scrub through its training."""
