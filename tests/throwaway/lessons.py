"""Two throwaway lessons that exist only to prove the lesson contract (issue 19): registered when the environment
variable ATTN_LAB_EXTRA_LESSONS names this folder (tests/conftest.py does so for every test run and the app servers
of the browser tests), so every registry-wide suite runs on them unchanged.

- ``toy``: the smallest lesson of docs/adding-a-lesson.md: one slider, no text field, no matrix, one vector.
- ``pair``: two sentences (a source and a target of their own lengths), a rectangular target × source matrix of
  scores typed in a grid, no slider and no switch; its weights are the row-wise softmax (hand-checked in
  tests/contract/test_throwaway_lesson.py).

NumPy only, like lessons/. The pages (toy.py, pair.py beside this file) reach their lesson through the registry.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from attention_core import softmax
from attention_core.tokens import MAX_TEXT_CHARS, tokenize
from lessons import code as script_code
from lessons import link, seeded
from lessons.base import Lesson, Prediction, Presentation, Question, Transition, widest_text
from lessons.cells import check_cell

HERE = Path(__file__).resolve().parent
LIMIT = 10.0


# ---- toy -----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ToyState:
    n: int = 3


def _toy_from_link(values: dict):
    return ToyState(values.get("n", 3)), []


def _toy_labels(state: ToyState) -> dict[str, tuple[list[str], tuple]]:
    """The vector's entries numbered "1".."n", as the page's one-row heatmap labels them."""
    return {"ones": ([str(j + 1) for j in range(state.n)], ())}


def _toy_code(state: ToyState) -> str:
    body = "ones = np.ones(n)  # the slider's n ones"
    return script_code.script(f"toy — n={state.n}", script_code.file_name("toy"), {"n": state.n}, body, ["ones"])


TOY_PLAN = (Question("one", lambda: ToyState(1)), Question("start", ToyState), Question("five", lambda: ToyState(5)),
            Question("most", lambda: ToyState(9)))
"""The toy's lesson plan (texts ``toy.plan.<key>`` in tests/throwaway/<lang>.throwaway.toml)."""
TOY_TERMS = ("vector", "dimension")

TOY = Lesson(key="toy", icon=":material/toys:", default_state=ToyState, plan=TOY_PLAN, terms=TOY_TERMS,
             link=link.LinkSchema("toy", 1, (link.Int("n", 1, 9),)),
             to_link=lambda s: {"n": s.n}, from_link=_toy_from_link,
             arrays=lambda s: {"ones": np.ones(s.n)}, array_labels=_toy_labels, code=_toy_code,
             preview=lambda s: {"toy.fig.ones": np.ones(s.n)[None, :]},
             page=str(HERE / "toy.py"),
             transitions={"n": Transition(lambda s, n: replace(s, n=min(max(int(n), 1), 9)), (link.Int("n", 1, 9),))},
             present=Presentation(stages=("sum", "ones"), controls=("n",), picture=("ones", "toy.fig.ones")))


# ---- pair ----------------------------------------------------------------------------------------------------------
SOURCE, TARGET = "犬 が 歩く", "the dog walks here"


def tokens(text: str) -> tuple[str, ...]:
    return tokenize(text).tokens


def baseline(source: str, target: str) -> np.ndarray:
    """The scores before any edit, (n_target, n_source): 1 where a target row and a source column share their
    position, else 0 (an empty sentence gives a matrix with no rows or no columns)."""
    return np.eye(len(tokens(target)), len(tokens(source)))


@dataclass(frozen=True)
class PairState:
    source: str = SOURCE
    target: str = TARGET
    S: np.ndarray = field(default_factory=lambda: baseline(SOURCE, TARGET), compare=False)


def _retyped(state: PairState, source: str, target: str) -> PairState:
    S = seeded.refit(state.S, baseline(source, target), old_rows=tokens(state.target), new_rows=tokens(target),
                     old_cols=tokens(state.source), new_cols=tokens(source))
    return PairState(source, target, S)


def with_source(state: PairState, text: str) -> PairState:
    return _retyped(state, str(text), state.target)


def with_target(state: PairState, text: str) -> PairState:
    return _retyped(state, state.source, str(text))


def with_scores(state: PairState, M) -> PairState:
    """Raises Refusal: "shape" for another shape, or a cell's refusal."""
    from lessons.cells import Refusal

    M = np.asarray(M, dtype=np.float64)
    if M.shape != state.S.shape:
        raise Refusal("shape", got="x".join(map(str, M.shape)), want="x".join(map(str, state.S.shape)))
    return replace(state, S=np.array([[check_cell(v, LIMIT) for v in row] for row in M]).reshape(M.shape))


def arrays(state: PairState) -> dict[str, np.ndarray]:
    S = state.S
    weights = softmax(S, axis=-1) if S.size else S.copy()
    return {"S": S, "weights": weights}


def array_labels(state: PairState) -> dict[str, tuple[list[str], list[str]]]:
    """The target's tokens on the rows (queries), the source's on the columns (keys), as the page labels them."""
    rows, cols = list(tokens(state.target)), list(tokens(state.source))
    return {"S": (rows, cols), "weights": (rows, cols)}


def code(state: PairState) -> str:
    """The typed scores S (target rows × source columns) and their row-wise softmax."""
    source, target = tokens(state.source), tokens(state.target)
    inputs = {"source": list(source), "target": list(target), "S": state.S}
    if state.S.size:
        body = "weights = softmax(S)  # each target row over the source columns"
    else:  # a sentence without tokens: S has no rows or no columns (the literal of an empty array is 1-D)
        body = "S = S.reshape(len(target), len(source))\nweights = S.copy()  # nothing to normalise"
    title = f"pair — {' '.join(source)} → {' '.join(target)}"[:80]
    return script_code.script(title, script_code.file_name("pair"), inputs, body, ["S", "weights"])


def _to_link(state: PairState) -> dict:
    out = {}
    if state.source != SOURCE:
        out["s"] = state.source
    if state.target != TARGET:
        out["t"] = state.target
    if not np.array_equal(state.S, baseline(state.source, state.target)):
        out["S"] = state.S
    return out


def _from_link(values: dict):
    source, target = values.get("s", SOURCE), values.get("t", TARGET)
    return PairState(source, target, baseline(source, target)), []


def _widest() -> PairState:
    text = widest_text()
    state = PairState(text, text, baseline(text, text))
    S = state.S.copy()
    S[0, 0], S[1, 2] = -LIMIT, LIMIT
    return replace(state, S=S)


def _one_edit(state: PairState) -> PairState:
    S = state.S.copy()
    S[0, 0] = S[0, 0] / 2 if S[0, 0] else 0.5
    return replace(state, S=S)


PAIR_PLAN = (
    Question("start", PairState),
    Question("equal", lambda: with_scores(PairState(), np.zeros_like(baseline(SOURCE, TARGET)))),
    Question("strong", lambda: with_scores(PairState(), 5 * baseline(SOURCE, TARGET))),
    Question("longer", lambda: with_source(PairState(), "犬 が 公園 を 歩く")),
)
"""The pair's lesson plan (texts ``pair.plan.<key>``), each state reached by the lesson's own transitions."""
PAIR_TERMS = ("source_target", "matrix", "softmax", "attention_weights")

PAIR = Lesson(key="pair", icon=":material/compare_arrows:", default_state=PairState, plan=PAIR_PLAN,
              terms=PAIR_TERMS,
              predict=Prediction(weights="weights", hides=("weights",)),
              link=link.LinkSchema("pair", 1, (link.Text("s", MAX_TEXT_CHARS), link.Text("t", MAX_TEXT_CHARS)),
                                   matrices=(link.Matrix("S", LIMIT),)),
              to_link=_to_link, from_link=_from_link, arrays=arrays, array_labels=array_labels, code=code,
              preview=lambda s: {"pair.fig.weights": arrays(s)["weights"]},
              matrix_shape=lambda s, name: s.S.shape,
              with_matrices=lambda s, mats: with_scores(s, mats["S"]) if "S" in mats else s,
              page=str(HERE / "pair.py"), text_fields=("source", "target"),
              transitions={"source": Transition(with_source, (link.Text("s", MAX_TEXT_CHARS),)),
                           "target": Transition(with_target, (link.Text("t", MAX_TEXT_CHARS),)),
                           "S": Transition(with_scores, (link.Matrix("S", LIMIT),))},
              n_tokens=lambda s: len(tokens(s.target)), widest=_widest, one_edit=_one_edit,
              present=Presentation(stages=("scores", "weights"), controls=("grids",),
                                   picture=("weights", "pair.fig.weights")))

LESSONS = [TOY, PAIR]
