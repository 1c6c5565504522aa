"""The training lab's core (attention_core/training.py) against values derived here: the hand-written gradients
against central finite differences (relative error < 1e-6 in float64), a tiny forward pass written out cell by cell,
the generated tasks against their definitions, and training reaching each task's known pattern for three seeds."""
from __future__ import annotations

import math

import numpy as np
import pytest

from attention_core import training as T

SEEDS = (0, 1, 2)


def _fd_grads(params: T.Params, data: T.TaskData, *, scaled: bool, decay: float, h: float = 1e-6) -> list:
    """Central differences of the loss, one weight at a time (independent of the chain rule in the code)."""
    out = []
    for k, W in enumerate(params.as_tuple()):
        G = np.zeros_like(W)
        for idx in np.ndindex(W.shape):
            mats = [w.copy() for w in params.as_tuple()]
            mats[k][idx] += h
            up = T.loss(T.Params(*mats), data, scaled=scaled, decay=decay)
            mats[k][idx] -= 2 * h
            down = T.loss(T.Params(*mats), data, scaled=scaled, decay=decay)
            G[idx] = (up - down) / (2 * h)
        out.append(G)
    return out


@pytest.mark.parametrize("task", T.TASKS)
@pytest.mark.parametrize("scaled, decay", [(True, 0.0), (False, 0.003)])
def test_gradients_match_finite_differences(task, scaled, decay):
    data = T.make_task(task, 3, seed=5, stream=1, n_tokens=4)
    params = T.init_params(2 * T.VOCAB, 3, 4, T.VOCAB, seed=5, scale_qk=0.8, scale_vo=0.8)  # not-tiny scores
    value, grads, _ = T.loss_and_grads(params, data, scaled=scaled, decay=decay)
    assert value == pytest.approx(T.loss(params, data, scaled=scaled, decay=decay), abs=1e-12)
    for name, g, fd in zip(("W_Q", "W_K", "W_V", "W_O"), grads.as_tuple(), _fd_grads(params, data, scaled=scaled,
                                                                                       decay=decay)):
        rel = np.linalg.norm(g - fd) / max(np.linalg.norm(fd), 1e-12)
        assert rel < 1e-6, (name, rel)


def test_a_tiny_forward_pass_by_hand():
    """Two tokens, d_model 2, d_k 1, d_v 1, two classes, causal mask, written out number by number."""
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    p = T.Params(np.array([[1.0], [2.0]]), np.array([[3.0], [-1.0]]), np.array([[0.5], [-0.5]]),
                 np.array([[1.0, -1.0]]))
    fw = T.forward(p, X, scaled=False, mask=np.array([[True, False], [True, True]]))
    # q = (1, 2), k = (3, −1), v = (0.5, −0.5); row 0 sees key 0 only; row 1: scores 2·3 = 6 and 2·(−1) = −2
    w1 = math.exp(6) / (math.exp(6) + math.exp(-2))
    assert fw.weights[0, 0].tolist() == [1.0, 0.0]
    assert fw.weights[0, 1] == pytest.approx([w1, 1 - w1], abs=1e-15)
    out1 = w1 * 0.5 + (1 - w1) * -0.5
    assert fw.output[0, :, 0] == pytest.approx([0.5, out1], abs=1e-15)
    assert fw.logits[0, 1] == pytest.approx([out1, -out1], abs=1e-15)
    scaled = T.forward(p, X, scaled=True)  # d_k = 1: ÷√1 changes nothing; no mask: row 0 sees both keys
    assert scaled.scores[0].tolist() == [[3.0, -1.0], [6.0, -2.0]]
    assert scaled.weights[0, 0, 0] == pytest.approx(math.exp(3) / (math.exp(3) + math.exp(-1)))


def test_a_row_with_no_key_gets_zero_weights_not_nan():
    data = T.make_task("same", 2, seed=0)
    fw = T.forward(T.init_params(16, 4, 8, 8, 0), data.X, mask=data.mask)
    assert not np.isnan(fw.weights).any()
    assert fw.weights[:, 0].tolist() == np.zeros((2, data.X.shape[1])).tolist()


@pytest.mark.parametrize("task", T.TASKS)
def test_the_tasks_follow_their_definitions(task):
    d = T.make_task(task, 20, seed=3)
    V, n = T.VOCAB, T.N_TOKENS
    for b in range(20):
        toks = d.tokens[b].tolist()
        for i in range(n):
            assert d.X[b, i, toks[i]] == 1.0 and d.X[b, i, :V].sum() == 1.0
            if task == "previous":
                assert d.has_target[b, i] == (i >= 1)
                if i >= 1:
                    assert d.targets[b, i] == toks[i - 1] and d.answer_key[b, i] == i - 1
                assert d.X[b, i, V + i] == 1.0
            elif task == "first":
                assert d.targets[b, i] == toks[0] and d.answer_key[b, i] == 0
            else:
                earlier = [j for j in range(i) if toks[j] == toks[i]]
                assert d.has_target[b, i] == bool(earlier)
                if earlier:
                    assert d.targets[b, i] == d.values[b, earlier[0]] and d.answer_key[b, i] == earlier[0]
                assert d.X[b, i, V + d.values[b, i]] == 1.0
            row = np.zeros(n)
            if d.has_target[b, i]:
                row[d.answer_key[b, i]] = 1.0
            assert d.ideal[b, i].tolist() == row.tolist()
        if task == "same":
            assert all(toks.count(w) == 2 for w in toks)
            assert len(set(d.values[b].tolist())) == n
        else:
            assert len(set(toks)) == n  # different tokens: one key holds the answer
    below = np.tril(np.ones((n, n), dtype=bool), k=-1 if task == "same" else 0)
    assert d.mask.tolist() == below.tolist()


def _trained(task, seed, steps=200, lr=0.05, scaled=True):
    data, held = T.make_task(task, 512, seed, 1), T.make_task(task, 64, seed, 2)
    p0 = T.init_params(16, 8, T.VOCAB, T.VOCAB, seed, 0.1, 0.1)
    hist = T.train(p0, data, steps=steps, lr=lr, scaled=scaled, batch=32, seed=seed, decay=0.003, held_out=held)
    return hist, held, T.forward(hist.params(steps), held.X, scaled=scaled, mask=held.mask).weights


@pytest.mark.parametrize("task", T.TASKS)
@pytest.mark.parametrize("seed", SEEDS)
def test_training_reaches_the_known_pattern_on_held_out_examples(task, seed):
    hist, held, W = _trained(task, seed)
    lowest, mean = T.pattern_score(W, held)
    # every query with a target puts at least 0.9 of its weight on the answer's key, on 64 unseen examples
    assert lowest >= 0.9 and mean >= 0.97, (lowest, mean)
    assert hist.held_out_loss[0] == pytest.approx(math.log(T.VOCAB), abs=0.1)  # a uniform guess at the start
    assert hist.held_out_loss[-1] < 0.05
    assert hist.diverged_at is None
    ideal_rows = held.has_target
    assert np.abs(W - held.ideal)[ideal_rows].max() <= 0.2  # the pattern is the ideal one, row for row


def test_the_first_weights_are_nearly_uniform_over_the_keys_a_query_sees():
    data = T.make_task("previous", 64, seed=0, stream=2)
    W = T.forward(T.init_params(16, 8, 8, 8, 0, 0.1, 0.1), data.X, mask=data.mask).weights
    seen = np.arange(1, T.N_TOKENS + 1)[None, :, None]  # query i sees i + 1 keys
    assert np.abs(W - data.mask / seen)[:, :, :].max() < 0.05


def test_same_seed_same_numbers_and_another_seed_others():
    a, _, _ = _trained("previous", 4, steps=30)
    b, _, _ = _trained("previous", 4, steps=30)
    c, _, _ = _trained("previous", 5, steps=30)
    for x, y in zip((a.W_Q, a.W_K, a.W_V, a.loss, a.held_out_loss), (b.W_Q, b.W_K, b.W_V, b.loss, b.held_out_loss)):
        assert np.array_equal(x, y)
    assert not np.array_equal(a.W_Q, c.W_Q)


def test_the_history_keeps_every_step_and_the_first_is_the_initial_weights():
    data = T.make_task("first", 40, 0, 1)
    watch = T.make_task("first", 3, 0, 2)
    p0 = T.init_params(16, 4, 8, 8, 0)
    hist = T.train(p0, data, steps=5, lr=0.1, batch=None, watch=watch)
    assert hist.W_Q.shape == (6, 16, 4) and hist.watch_weights.shape == (6, 3, 8, 8) and hist.loss.shape == (6,)
    assert np.array_equal(hist.W_Q[0], p0.W_Q)
    # full batch; Adam's first step by hand (Kingma & Ba 2015, Alg. 1): m̂ = g, v̂ = g², so Δ = −lr·g/(|g| + ε)
    _, g, _ = T.loss_and_grads(p0, data)
    assert np.allclose(hist.W_Q[1] - p0.W_Q, -0.1 * g.W_Q / (np.abs(g.W_Q) + 1e-8), rtol=1e-9, atol=1e-15)
    for t in range(6):
        assert np.allclose(hist.watch_weights[t], T.forward(hist.params(t), watch.X, mask=watch.mask).weights)


def test_plain_gradient_descent_is_w_minus_lr_times_gradient():
    data = T.make_task("previous", 10, 0, 1)
    p0 = T.init_params(16, 4, 8, 8, 1)
    hist = T.train(p0, data, steps=1, lr=0.5, optimizer="gd", batch=None)
    _, g, _ = T.loss_and_grads(p0, data)
    for k in range(4):
        assert np.allclose(hist.params(1).as_tuple()[k], p0.as_tuple()[k] - 0.5 * g.as_tuple()[k], atol=1e-15)


def test_a_far_too_large_learning_rate_is_unstable_and_stays_finite():
    data = T.make_task("previous", 256, 0, 1)
    hist = T.train(T.init_params(16, 8, 8, 8, 0, 0.1, 0.1), data, steps=100, lr=1e5, optimizer="gd", batch=32)
    assert hist.diverged_at is not None and hist.diverged_at <= 100
    assert np.isfinite(hist.loss).all() and np.isfinite(hist.W_Q).all()
    assert np.array_equal(hist.W_Q[-1], hist.W_Q[hist.diverged_at - 1])


@pytest.mark.parametrize("bad", [dict(steps=-1), dict(lr=0.0), dict(lr=float("nan")), dict(optimizer="sgd2"),
                                 dict(batch=0)])
def test_bad_training_arguments_are_refused_with_words(bad):
    args = dict(steps=2, lr=0.1, optimizer="adam", batch=4) | bad
    with pytest.raises(ValueError, match=next(iter(bad))):
        T.train(T.init_params(16, 2, 8, 8, 0), T.make_task("first", 4, 0), **args)


@pytest.mark.parametrize("bad", [dict(task="nope"), dict(n_examples=0), dict(task="same", n_tokens=5),
                                 dict(n_tokens=9)])
def test_bad_task_arguments_are_refused_with_words(bad):
    args = dict(task="previous", n_examples=2, seed=0) | bad
    with pytest.raises(ValueError):
        T.make_task(**args)
