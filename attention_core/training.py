"""A one-layer, one-head self-attention model trained in front of the class: where W_Q, W_K and W_V come from.

The model (one head of Vaswani et al. 2017, "Attention Is All You Need", eq. 1, with a linear read-out):

    Q = X·W_Q,  K = X·W_K,  V = X·W_V          X (B, n, d_model); W_Q, W_K (d_model, d_k); W_V (d_model, d_v)
    scores = Q·Kᵀ,  scaled scores = scores · s             s = 1/√d_k (scaled) or 1; masked keys: −∞
    attention weights A = softmax(scaled scores)            each row sums to 1 (masked keys get 0)
    output O = A·V,  logits Z = O·W_O,  P = softmax(Z)      W_O (d_v, n_out)
    loss = mean over the query rows that have a target of −log P[target]   (cross-entropy)

Its gradients are written out by hand (the chain rule, through both softmaxes: for y = softmax(x),
∂L/∂x = y ⊙ (∂L/∂y − Σ_j y_j ∂L/∂y_j); Goodfellow, Bengio & Courville 2016, "Deep Learning", sec. 6.5) and
checked against finite differences in tests/training. Training is plain gradient descent or Adam (Kingma & Ba 2015,
"Adam: A Method for Stochastic Optimization", Algorithm 1, with its default β₁ = 0.9, β₂ = 0.999, ε = 1e-8) on
mini-batches drawn from a small generated data set, with weight decay on the read-out (:func:`loss`). Everything is
deterministic: a seed fixes the data, the initial weights and the mini-batches.

Toy tasks whose right attention pattern is known in advance (:func:`make_task`):

- ``previous``: n different tokens of a vocabulary of ``VOCAB`` (different, so that only one key holds the
  answer and a weight elsewhere always costs); X = one-hot(token) ⊕ one-hot(position); the target at
  position i ≥ 1 is the token at i − 1. The right pattern is the sub-diagonal (query i → key i − 1).
- ``same``: ``n/2`` different words, each twice, and at every position a value (one of ``VOCAB``, all different);
  X = one-hot(word) ⊕ one-hot(value); the target at a word's second occurrence is the value stored at its first.
  Its queries see the earlier keys only (mask ``earlier``, j < i: not themselves, which hold the same word). The
  right pattern: that query → the key of the same word.
- ``first``: like ``previous``, but the target at every position is the first token: the right pattern is
  column 0.

Letters: B examples, n tokens per example (query and key positions), d_model, d_k, d_v, n_out classes. Arrays are
float64 (token ids and targets int64, masks bool). NumPy only.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "TASKS", "VOCAB", "N_TOKENS", "TaskData", "Params", "Forward", "History", "make_task", "init_params",
    "forward", "loss", "loss_and_grads", "train", "pattern_score", "decay_term", "DIVERGED_LIMIT",
]

TASKS = ("previous", "same", "first")
VOCAB = 8
"""Tokens (previous, first) and words and values (same) per task: one-hot widths, and n_out."""
N_TOKENS = 8
"""Tokens per example (n): positions 0..7."""
DIVERGED_LIMIT = 1e4
"""A weight whose size passes this (or a loss that is not finite) stops training: it has diverged."""
ADAM_B1, ADAM_B2, ADAM_EPS = 0.9, 0.999, 1e-8


@dataclass(frozen=True)
class TaskData:
    """A generated data set of B examples of one task.

    Attributes:
        task: one of TASKS.
        X: (B, n, d_model) float64 inputs (d_model = 2·VOCAB: two one-hot blocks).
        tokens: (B, n) int64 the token (previous, first) or word (same) at each position, 0..VOCAB − 1.
        values: (B, n) int64 the value a position carries (same; −1: none), all −1 for the other tasks.
        targets: (B, n) int64 the class the read-out must give at each query position (0 where there is none).
        has_target: (B, n) bool: the query rows that count in the loss.
        answer_key: (B, n) int64 the key position holding each query's answer (−1: no target).
        ideal: (B, n, n) float64 the right attention pattern: row i one-hot at answer_key[i]; rows without a target
            are all 0.
        mask: (n, n) bool, True = query i may attend to key j: j ≤ i (causal) for previous and first, j < i (earlier)
            for same (its row 0 has no key: weights 0, output 0).
    """

    task: str
    X: np.ndarray
    tokens: np.ndarray
    values: np.ndarray
    targets: np.ndarray
    has_target: np.ndarray
    answer_key: np.ndarray
    ideal: np.ndarray
    mask: np.ndarray

    def subset(self, idx) -> TaskData:
        """The examples ``idx`` (a list of ints) as a data set of their own."""
        ix = np.asarray(idx, dtype=np.int64)
        return TaskData(self.task, self.X[ix], self.tokens[ix], self.values[ix], self.targets[ix],
                        self.has_target[ix], self.answer_key[ix], self.ideal[ix], self.mask)


def make_task(task: str, n_examples: int, seed: int, stream: int = 0, n_tokens: int = N_TOKENS) -> TaskData:
    """Generate ``n_examples`` examples of ``task``, fixed by (seed, stream): a training set and a held-out set use
    two streams of one seed and share no random numbers.

    Raises:
        ValueError: an unknown task, n_examples < 1, or n_tokens outside 2..VOCAB (the positions are one-hot in
            VOCAB columns) or odd for ``same`` (each word comes twice).
    """
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    if n_examples < 1:
        raise ValueError(f"n_examples must be at least 1, got {n_examples}")
    n = int(n_tokens)
    if not 2 <= n <= VOCAB or (task == "same" and n % 2):
        raise ValueError(f"n_tokens must be 2..{VOCAB} (even for 'same'), got {n_tokens}")
    rng = np.random.default_rng([int(seed), int(stream), TASKS.index(task)])
    B, V = int(n_examples), VOCAB
    X = np.zeros((B, n, 2 * V))
    values = np.full((B, n), -1, dtype=np.int64)
    targets = np.zeros((B, n), dtype=np.int64)
    answer = np.full((B, n), -1, dtype=np.int64)
    rows = np.arange(n)
    if task in ("previous", "first"):
        tokens = np.stack([rng.permutation(V)[:n] for _ in range(B)])  # distinct: only one key holds the answer
        X[:, rows, V + rows] = 1.0  # one-hot position
        if task == "previous":
            answer[:, 1:] = rows[:-1]
        else:
            answer[:, :] = 0
    else:
        tokens = np.zeros((B, n), dtype=np.int64)
        for b in range(B):
            words = rng.choice(V, size=n // 2, replace=False)
            order = rng.permutation(np.repeat(words, 2))
            values[b] = rng.permutation(V)[:n]  # every position its own value: a wrong key always costs
            seen: dict[int, int] = {}
            for i, w in enumerate(order.tolist()):
                tokens[b, i] = w
                if w in seen:
                    answer[b, i] = seen[w]
                else:
                    seen[w] = i
        X[np.arange(B)[:, None], rows[None, :], V + values] = 1.0  # one-hot value
    bidx = np.arange(B)[:, None]
    X[bidx, rows[None, :], tokens] = 1.0  # one-hot token (word)
    has = answer >= 0
    key = np.where(has, answer, 0)
    source = tokens if task != "same" else values
    targets[has] = np.take_along_axis(source, key, axis=1)[has]
    ideal = np.zeros((B, n, n))
    bb, ii = np.nonzero(has)
    ideal[bb, ii, answer[bb, ii]] = 1.0
    mask = np.tril(np.ones((n, n), dtype=bool), k=-1 if task == "same" else 0)
    return TaskData(task, X, tokens.astype(np.int64), values, targets, has, answer, ideal, mask)


@dataclass(frozen=True)
class Params:
    """The model's weights: W_Q, W_K (d_model, d_k), W_V (d_model, d_v), W_O (d_v, n_out), float64."""

    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    W_O: np.ndarray

    def as_tuple(self) -> tuple[np.ndarray, ...]:
        return (self.W_Q, self.W_K, self.W_V, self.W_O)


def init_params(d_model: int, d_k: int, d_v: int, n_out: int, seed: int, scale_qk: float = 0.3,
                scale_vo: float = 0.3) -> Params:
    """Random initial weights, fixed by ``seed``: W_Q, W_K entries N(0, scale_qk²), W_V, W_O entries
    N(0, scale_vo²). Small weights give small scores, so the first attention weights are nearly uniform.

    Raises:
        ValueError: a size below 1 or a negative scale.
    """
    if min(d_model, d_k, d_v, n_out) < 1 or scale_qk < 0 or scale_vo < 0:
        raise ValueError(f"sizes must be >= 1 and scales >= 0, got d_model={d_model}, d_k={d_k}, d_v={d_v}, "
                         f"n_out={n_out}, scale_qk={scale_qk}, scale_vo={scale_vo}")
    rng = np.random.default_rng([int(seed), 99])
    return Params(rng.normal(0.0, scale_qk, (d_model, d_k)), rng.normal(0.0, scale_qk, (d_model, d_k)),
                  rng.normal(0.0, scale_vo, (d_model, d_v)), rng.normal(0.0, scale_vo, (d_v, n_out)))


def _softmax_rows(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis; −inf entries get 0, a row that is all −inf gets all 0 (never NaN)."""
    top = x.max(axis=-1, keepdims=True)
    e = np.exp(x - np.where(np.isfinite(top), top, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


@dataclass(frozen=True)
class Forward:
    """Every stage of one forward pass, by name (B examples): Q, K (B, n, d_k), V (B, n, d_v), scores = Q·Kᵀ and
    scaled_scores (B, n, n; masked entries −inf), weights (B, n, n), output = weights·V (B, n, d_v), logits
    (B, n, n_out), probs = softmax(logits)."""

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    scores: np.ndarray
    scaled_scores: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    logits: np.ndarray
    probs: np.ndarray


def forward(params: Params, X: np.ndarray, *, scaled: bool = True, mask: np.ndarray | None = None) -> Forward:
    """The model on X (B, n, d_model) (a single example (n, d_model) is read as B = 1); ``mask`` (n, n) bool, True =
    may attend (None: every key).

    Raises:
        ValueError: X's width is not W_Q's number of rows, or the mask is not (n, n).
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 2:
        X = X[None]
    if X.ndim != 3 or X.shape[-1] != params.W_Q.shape[0]:
        raise ValueError(f"X must be (B, n, {params.W_Q.shape[0]}), got {X.shape}")
    Q, K, V = X @ params.W_Q, X @ params.W_K, X @ params.W_V
    S = Q @ K.transpose(0, 2, 1)
    s = 1.0 / np.sqrt(params.W_Q.shape[1]) if scaled else 1.0
    SS = S * s
    if mask is not None:
        if np.shape(mask) != (X.shape[1], X.shape[1]):
            raise ValueError(f"mask must be ({X.shape[1]}, {X.shape[1]}), got {np.shape(mask)}")
        SS = np.where(mask, SS, -np.inf)
    A = _softmax_rows(SS)
    out = A @ V
    Z = out @ params.W_O
    return Forward(Q, K, V, S, SS, A, out, Z, _softmax_rows(Z))


def _cross_entropy(fw: Forward, data: TaskData) -> float:
    n_t = max(int(data.has_target.sum()), 1)
    Zmax = fw.logits.max(axis=-1, keepdims=True)
    logp = fw.logits - Zmax - np.log(np.exp(fw.logits - Zmax).sum(axis=-1, keepdims=True))
    picked = np.take_along_axis(logp, data.targets[..., None], axis=-1)[..., 0]
    return float(-(picked * data.has_target).sum() / n_t)


def _readout_size(params: Params) -> float:
    return float(np.sum(params.W_V ** 2) + np.sum(params.W_O ** 2))


def decay_term(params: Params, decay: float) -> float:
    """The weight-decay part of :func:`loss`: ``decay``/2 · (‖W_V‖² + ‖W_O‖²) (squared Frobenius norms; a float,
    in the loss' units, nats). A mini-batch's loss in :class:`History` includes it; the held-out loss does not."""
    return 0.5 * float(decay) * _readout_size(params)


def loss(params: Params, data: TaskData, *, scaled: bool = True, decay: float = 0.0) -> float:
    """The mean cross-entropy (natural log) over the query rows with a target (ln(n_out) = 2.079 is a uniform
    guess), plus ``decay``/2 · (‖W_V‖² + ‖W_O‖²): weight decay on the read-out only (0: none). Kept small, the
    read-out cannot make a half-right mix of values confident, so the loss keeps asking for sharper attention
    weights. The task's mask applies."""
    value = _cross_entropy(forward(params, data.X, scaled=scaled, mask=data.mask), data)
    return value + 0.5 * decay * _readout_size(params) if decay else value


def loss_and_grads(params: Params, data: TaskData, *, scaled: bool = True,
                   decay: float = 0.0) -> tuple[float, Params, Forward]:
    """(:func:`loss`, its gradients with respect to W_Q, W_K, W_V, W_O as a Params of the same shapes, the forward
    pass), by the chain rule written out (s = 1/√d_k or 1, N_t = the number of query rows with a target):

        dZ = (P − onehot(target)) · has_target / N_t                      (softmax + cross-entropy)
        dW_O = Σ_b Oᵀ·dZ,   dO = dZ·W_Oᵀ
        dA = dO·Vᵀ,   dV = Aᵀ·dO
        dS' = A ⊙ (dA − rowsum(A ⊙ dA))                                   (softmax; masked entries: A = 0 → 0)
        dQ = s · dS'·K,   dK = s · dS'ᵀ·Q                                  (S' = s·Q·Kᵀ)
        dW_Q = Σ_b Xᵀ·dQ,  dW_K = Σ_b Xᵀ·dK,  dW_V = Σ_b Xᵀ·dV   (+ decay·W_V, + decay·W_O)
    """
    X = data.X
    fw = forward(params, X, scaled=scaled, mask=data.mask)
    n_t = max(int(data.has_target.sum()), 1)
    tgt = data.targets[..., None]
    dZ = fw.probs.copy()
    np.put_along_axis(dZ, tgt, np.take_along_axis(dZ, tgt, -1) - 1.0, -1)
    dZ *= data.has_target[..., None] / n_t
    Xt = X.transpose(0, 2, 1)
    dW_O = np.einsum("bnv,bno->vo", fw.output, dZ)
    dO = dZ @ params.W_O.T
    A = fw.weights
    dA = dO @ fw.V.transpose(0, 2, 1)
    dV = A.transpose(0, 2, 1) @ dO
    dS = A * (dA - (A * dA).sum(axis=-1, keepdims=True))
    s = 1.0 / np.sqrt(params.W_Q.shape[1]) if scaled else 1.0
    dQ = s * (dS @ fw.K)
    dK = s * (dS.transpose(0, 2, 1) @ fw.Q)
    dW_V = (Xt @ dV).sum(axis=0)
    value = _cross_entropy(fw, data)
    if decay:
        value += 0.5 * decay * _readout_size(params)
        dW_V, dW_O = dW_V + decay * params.W_V, dW_O + decay * params.W_O
    return value, Params((Xt @ dQ).sum(axis=0), (Xt @ dK).sum(axis=0), dW_V, dW_O), fw


@dataclass(frozen=True)
class History:
    """Every training step kept, so a page can scrub through training without training again. T = steps; index t
    is the state after t updates (t = 0: the initial weights; t = T: after the last update).

    Attributes:
        W_Q, W_K: (T + 1, d_model, d_k); W_V: (T + 1, d_model, d_v); W_O: (T + 1, d_v, n_out).
        loss: (T + 1,) the loss (with its weight decay term) of the mini-batch drawn at each step.
        held_out_loss: (T + 1,) the cross-entropy on the held-out examples at each step (no weight decay term).
        watch_weights: (T + 1, E, n, n) the attention weights of the E watched examples at each step.
        diverged_at: the first step whose update made a weight pass DIVERGED_LIMIT (or a loss not finite): training
            stopped there and every later step repeats the step before; None when training never diverged.
    """

    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    W_O: np.ndarray
    loss: np.ndarray
    held_out_loss: np.ndarray
    watch_weights: np.ndarray
    diverged_at: int | None

    def params(self, t: int) -> Params:
        """The weights after t updates (0..T)."""
        return Params(self.W_Q[t], self.W_K[t], self.W_V[t], self.W_O[t])


def train(params: Params, data: TaskData, *, steps: int, lr: float, optimizer: str = "adam", scaled: bool = True,
          batch: int | None = 32, seed: int = 0, decay: float = 0.0, held_out: TaskData | None = None,
          watch: TaskData | None = None) -> History:
    """Train from ``params`` on ``data`` for ``steps`` updates with learning rate ``lr``: each step draws a
    mini-batch of ``batch`` examples (without repeats; None or ≥ B: the whole set) with a generator fixed by
    ``seed``, then ``optimizer`` "gd" (W ← W − lr·∂L/∂W) or "adam" (Kingma & Ba 2015, Algorithm 1); ``decay``:
    weight decay on the read-out (:func:`loss`). Every step is kept (:class:`History`); ``held_out``: its loss is
    kept too; ``watch``: its attention weights are kept.

    Raises:
        ValueError: steps < 0, lr not a finite positive number, an unknown optimizer, batch < 1.
    """
    if steps < 0:
        raise ValueError(f"steps must be >= 0, got {steps}")
    if not (np.isfinite(lr) and lr > 0):
        raise ValueError(f"lr must be a finite positive number, got {lr!r}")
    if optimizer not in ("gd", "adam"):
        raise ValueError(f"optimizer must be 'gd' or 'adam', got {optimizer!r}")
    B = data.X.shape[0]
    if batch is not None and batch < 1:
        raise ValueError(f"batch must be >= 1 or None, got {batch}")
    mb = B if batch is None else min(int(batch), B)
    rng = np.random.default_rng([int(seed), 7])
    T = int(steps)
    W = [w.astype(np.float64, copy=True) for w in params.as_tuple()]
    keep = [np.empty((T + 1, *w.shape)) for w in W]
    losses, held = np.empty(T + 1), np.empty(T + 1)
    n = data.X.shape[1]
    E = 0 if watch is None else watch.X.shape[0]
    watched = np.empty((T + 1, E, n, n))
    m = [np.zeros_like(w) for w in W]
    v = [np.zeros_like(w) for w in W]
    diverged = None
    for t in range(T + 1):
        if diverged is not None:  # hold the last good step
            for k in range(4):
                keep[k][t] = keep[k][t - 1]
            losses[t], held[t], watched[t] = losses[t - 1], held[t - 1], watched[t - 1]
            continue
        cur = Params(*W)
        part = data if mb == B else data.subset(np.sort(rng.choice(B, size=mb, replace=False)))
        value, grads, _ = loss_and_grads(cur, part, scaled=scaled, decay=decay)
        for k in range(4):
            keep[k][t] = W[k]
        losses[t] = value
        held[t] = loss(cur, held_out, scaled=scaled) if held_out is not None else value
        if E:
            watched[t] = forward(cur, watch.X, scaled=scaled, mask=watch.mask).weights
        if t == T:
            break
        g = grads.as_tuple()
        new = []
        for k in range(4):
            if optimizer == "gd":
                new.append(W[k] - lr * g[k])
            else:
                m[k] = ADAM_B1 * m[k] + (1 - ADAM_B1) * g[k]
                v[k] = ADAM_B2 * v[k] + (1 - ADAM_B2) * g[k] ** 2
                mh = m[k] / (1 - ADAM_B1 ** (t + 1))
                vh = v[k] / (1 - ADAM_B2 ** (t + 1))
                new.append(W[k] - lr * mh / (np.sqrt(vh) + ADAM_EPS))
        if any(not np.all(np.isfinite(w)) or np.max(np.abs(w)) > DIVERGED_LIMIT for w in new):
            diverged = t + 1
            continue
        W = new
    return History(*keep, losses, held, watched, diverged)


def pattern_score(weights: np.ndarray, data: TaskData) -> tuple[float, float]:
    """How well attention weights (B, n, n) of ``data``'s examples find the answer: (the smallest, the mean) weight
    a query row with a target puts on its answer's key, over every such row of every example. (nan, nan) when no
    row has a target."""
    W = np.asarray(weights, dtype=np.float64)
    bb, ii = np.nonzero(data.has_target)
    if not len(bb):
        return float("nan"), float("nan")
    on = W[bb, ii, data.answer_key[bb, ii]]
    return float(on.min()), float(on.mean())
