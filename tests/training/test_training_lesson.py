"""The training lab's lesson module (lessons/training.py): the default setups reach their task's known pattern for three
seeds (what the page shows), a step is read from what was kept (recomputed here from that step's weights), the link
(hostile steps and learning rates said in words), the cache, and the registry entry."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

import lessons
import lessons.training as L
from attention_core import training as core


def _softmax_rows(S):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("task", L.TASKS)
@pytest.mark.parametrize("seed", (0, 1, 2))
def test_the_default_setup_reaches_the_known_pattern(task, seed):
    r = L.run(replace(L.default_state(), task=task, seed=seed))
    assert r.lowest >= 0.9, r.lowest  # every held-out query: ≥ 0.9 of its weight on its answer's key
    assert r.history.held_out_loss[-1] < L.LOSS_GOAL
    assert r.history.held_out_loss[0] == pytest.approx(math.log(core.VOCAB), abs=0.05)  # a blind guess at step 0


def test_a_step_is_what_that_steps_weights_give():
    state = replace(L.default_state(), step=37, example=2)
    r = L.run(state)
    a = L.arrays(state)
    W_Q, W_K = r.history.W_Q[37], r.history.W_K[37]
    X = r.watch.X[2]
    S = (X @ W_Q) @ (X @ W_K).T / math.sqrt(state.d_k)
    S = np.where(np.tril(np.ones((8, 8), dtype=bool)), S, -np.inf)  # previous-token task: causal
    assert np.allclose(a["weights"], _softmax_rows(S), atol=1e-12)
    assert np.allclose(a["asks_offers"], W_Q @ W_K.T / math.sqrt(state.d_k))
    assert a["ideal"].tolist() == np.eye(8, k=-1).tolist()  # the sub-diagonal


def test_weights_at_step_0_nearly_uniform_and_at_the_end_on_the_previous_token():
    start = L.arrays(L.default_state())["weights"]
    seen = np.arange(1, 9)[:, None]
    assert np.abs(start - np.tril(np.ones((8, 8))) / seen).max() < 0.05
    end = L.arrays(replace(L.default_state(), step=L.default_state().steps))["weights"]
    assert min(end[i, i - 1] for i in range(1, 8)) >= 0.9


def test_one_colour_range_holds_w_q_and_w_k_through_the_whole_training():
    state = L.default_state()
    r, ranges = L.run(state), L.color_ranges(state)
    assert ranges["W_Q"] == ranges["W_K"]
    assert max(np.abs(r.history.W_Q).max(), np.abs(r.history.W_K).max()) <= ranges["W_Q"]
    for t in (0, 100, 200):
        assert ranges == L.color_ranges(replace(state, step=t))


def test_moving_the_step_trains_nothing_again(monkeypatch):
    state = L.default_state()
    first = L.run(state)
    L.arrays(state)

    def train(*setup):
        raise AssertionError(f"trained again: {setup}")

    monkeypatch.setattr(L, "_train", train)
    for t in range(0, 201, 10):
        assert L.run(replace(state, step=t)) is first
        L.arrays(replace(state, step=t))


def test_same_setup_same_numbers():
    state = replace(L.default_state(), seed=7, steps=50)
    a = L._train(*L.setup(state))
    b = L._train(*L.setup(state))
    assert np.array_equal(a.history.W_Q, b.history.W_Q) and np.array_equal(a.history.loss, b.history.loss)


def test_the_link_carries_the_step_and_the_setup():
    state = L.TrainingState(task="same", lr=0.1, steps=100, d_k=4, seed=12, scaled=False, step=42, example=3)
    params = L.LESSON.encode(state)
    assert params["t"] == "42" and params["task"] == "same" and params["sc"] == "0"
    assert L.LESSON.decode(params) == (state, [])


@pytest.mark.parametrize("params, code", [({"t": "-1"}, "bad_value"), ({"t": "99999999999"}, "bad_value"),
                                          ({"lr": "nan"}, "bad_value"),
                                          ({"lr": "5"}, "bad_value"), ({"dk": "32"}, "bad_value"),
                                          ({"task": "<b>x</b>"}, "bad_value")])
def test_hostile_link_values_are_said_and_the_default_used(params, code):
    state, notes = L.LESSON.decode({"training": "1", **params})
    key = next(iter(params))
    assert [n.code for n in notes] == [code] and notes[0].args["param"] == key
    default = L.default_state()
    assert state == default


@pytest.mark.parametrize("params, field, used, shown", [({"lr": "0.07"}, "lr", 0.05, "0.05"),  # 0.02 from 0.05
                                                         ({"dk": "3"}, "d_k", 2, "2"),  # as near 2 as 4: the lower
                                                         ({"n": "260"}, "steps", 300, "300")])  # 40 from 300
def test_a_value_the_sliders_do_not_offer_becomes_the_nearest_one_said(params, field, used, shown):
    state, notes = L.LESSON.decode({"training": "1", **params})
    (key, raw), = params.items()
    assert getattr(state, field) == used
    assert [(n.code, n.args) for n in notes] == [("rounded", {"param": key, "value": raw, "used": shown})]


@pytest.mark.parametrize("asked", ["201", "99999999"])
def test_a_huge_step_is_past_the_end_too(asked):
    """A new-user trial: t=201 opened the last step with a notice, t=99999999 was refused and opened step 0."""
    state, notes = L.LESSON.decode({"training": "1", "n": "200", "t": asked})
    assert state.step == 200
    assert [(n.code, n.args["asked"], n.args["used"]) for n in notes] == [("training_step_clamped", int(asked), 200)]


def test_a_step_past_the_links_training_is_its_last_step_said():
    state, notes = L.LESSON.decode({"training": "1", "n": "100", "t": "300"})
    assert state.step == 100
    assert [(n.code, n.args["asked"], n.args["used"], n.args["param"]) for n in notes] == [
        ("training_step_clamped", 300, 100, "t")]


def test_transitions_clamp_and_refuse_in_words():
    from lessons.cells import Refusal

    s = L.default_state()
    assert L.with_step(s, 999).step == s.steps and L.with_step(s, -3).step == 0
    assert L.with_steps(L.with_step(s, 200), 50).step == 50
    assert L.with_lr(s, 0.06).lr == 0.05 and L.with_d_k(s, 5).d_k == 4
    with pytest.raises(Refusal):
        L.with_step(s, float("nan"))
    with pytest.raises(Refusal):
        L.with_task(s, "nope")


def test_registered_and_no_longer_planned():
    assert lessons.by_key("training") is L.LESSON
    assert "training" not in lessons.PLANNED


def test_the_experiment_shows_a_too_large_learning_rate_failing():
    runs = L.comparison(L.default_state())
    assert set(runs) == {"now", "flipped", "too_large"}
    bad = runs["too_large"].history.held_out_loss
    assert bad[-1] > 1.0 and np.max(bad) > 5 * math.log(core.VOCAB)  # jumps far above a blind guess, never learns
    assert runs["now"].history.held_out_loss[-1] < L.LOSS_GOAL
