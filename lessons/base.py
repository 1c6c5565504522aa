"""The lesson contract: what every lesson declares once. NumPy only.

A lesson is a :class:`Lesson` value in ``lessons.REGISTRY``. Its ``key`` is the URL path (``/<key>``), the prefix of
its texts in the language tables (``lesson.<key>.*`` and its own ``<key>.*``), the prefix of its widget keys, and the
namespace of its link (``<key>=<version>``). Its state is one frozen value; every change is a pure function
state → state (a *transition*) in the lesson's module. The router, the home page, the link codec, the contract
tests and the export/compare/quiz features rely only on what is declared here.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from attention_core import AttentionSteps, softmax_exact

from . import link
from .link import LinkSchema, Notice

__all__ = ["Lesson", "Transition", "Presentation", "Prediction", "Question", "moved", "CELL_KEY", "widest_text",
           "LONG_TOKEN"]

Label = str | tuple[str, dict]
"""A label of a row, column or key: the text itself, or (text key, args) for a word of the language tables."""

CELL_KEY = "cell"
"""The link key of the cell picker's choice (added to the link of every lesson that declares ``cell_matrices``)."""


@dataclass(frozen=True)
class Transition:
    """A change a page's control makes: ``apply(state, *args) → state``. Each argument is described by a link field
    (lessons/link.py) stating what the control can send, including values a stale control still sends after the
    state changed under it (a row past the end, a matrix of the old shape: ``Matrix``/``Mask`` arguments are drawn
    of any shape by the contract tests). A transition returns a valid state or raises
    :class:`~lessons.cells.Refusal` (said in words); nothing else (tests/contract/test_transitions.py)."""

    apply: Callable
    args: tuple[link.Field, ...] = ()


LONG_TOKEN = "とても長いトークン" * 3 + "abcdef"
"""A 33-character token: the longest label a lesson's :attr:`Lesson.widest` state is expected to carry."""

_WIDE_WORDS = "猫 が 魚 を 食べる 犬 は 公園 で 走る 鳥 が 空 を 飛ぶ 星".split()


def widest_text(n_tokens: int = 16) -> str:
    """A sentence of ``n_tokens`` space-separated tokens (1..16), the last one :data:`LONG_TOKEN`: the text a lesson's
    ``widest`` state types into its sentence fields. Raises ValueError outside 1..16."""
    if not 1 <= n_tokens <= len(_WIDE_WORDS):
        raise ValueError(f"n_tokens must be 1..{len(_WIDE_WORDS)}, got {n_tokens}")
    return " ".join(_WIDE_WORDS[:n_tokens - 1] + [LONG_TOKEN])


@dataclass(frozen=True)
class Presentation:
    """What presentation mode (``?present=1``: a projector, a teacher pacing the lesson) needs of a lesson.

    Attributes:
        stages: the lesson's stages in teaching order (for Q·K·V: X → Q, K, V → scores → ÷√d_k → softmax →
            output), each a lowercase ASCII name whose title is the text ``<key>.stage.<name>``. In presentation mode
            the page shows one stage at a time (``Page.reveals``); the step (1..len(stages)) is in the link
            (``reveal``). At least two, no name twice.
        controls: the names (widget key after ``<key>.``, up to a ``:``) of the controls kept in presentation mode
            (``Page.keeps``); every other control of the page is hidden there. The first is the lesson's main
            control: the one a teacher moves while the class watches ``picture``.
        picture: (stage, chart key): the lesson's main picture, the chart that control changes, and the stage that
            shows it. At 1280×720 in presentation mode the main control and the main picture are on screen together
            (tests/e2e/test_present_browser.py).
    """

    stages: tuple[str, ...]
    controls: tuple[str, ...]
    picture: tuple[str, str]

    def __post_init__(self):
        if len(self.stages) < 2 or len(set(self.stages)) != len(self.stages):
            raise ValueError(f"a presentation needs two or more distinct stages, got {self.stages!r}")
        bad = [s for s in self.stages if not (s.isascii() and s.isidentifier() and s == s.lower())]
        if bad:
            raise ValueError(f"stage names must be lowercase ASCII identifiers, got {bad!r}")
        if not self.controls:
            raise ValueError("a presentation keeps at least one control (its main control)")
        if self.picture[0] not in self.stages:
            raise ValueError(f"the main picture's stage {self.picture[0]!r} is not one of {self.stages!r}")


@dataclass(frozen=True)
class Prediction:
    """What predict-then-reveal (ui/predict.py, issue 25 part 1) needs of a lesson that shows attention weights.

    Attributes:
        weights: the name of the array of ``arrays(state)`` the class predicts (or state → that name, where the
            page chooses among several, e.g. the head shown in detail; read it with :meth:`array`): attention
            weights, float64, each row
            a query's weights over the keys (summing to 1; a row with every key masked is all 0), shape
            (queries, keys); a 1-D array is one query's weights (absent when the state has no tokens). Its labels
            (``array_labels``) name the queries and keys.
        hides: the stages (names of ``present.stages``) that show these weights or what follows from them: hidden
            (``Page.reveals`` says no) until the answer is revealed.
        query: state → the query row (from 0) the page has chosen, the one the prediction asks about first; None:
            the first row.
        which: state → (text key, {placeholder: value}): words naming which weights are asked about, shown with the
            question (e.g. "head 2"), where the page offers several; None: the lesson's only weights.
    """

    weights: str | Callable[[object], str]
    hides: tuple[str, ...]
    query: Callable[[object], int] | None = None
    which: Callable[[object], tuple[str, dict]] | None = None

    def array(self, state) -> str:
        """The name of the predicted array of ``arrays(state)`` for this state."""
        return self.weights(state) if callable(self.weights) else self.weights

    def __post_init__(self):
        if not self.hides:
            raise ValueError("a prediction hides at least one stage (the weights')")


@dataclass(frozen=True)
class Question:
    """One question of a lesson's plan for class: its words are the text ``<lesson>.plan.<key>`` (both languages),
    and ``state`` () → the lesson state to show while the class thinks about it (its link is made by the lesson's
    own codec, ``Lesson.encode``)."""

    key: str
    state: Callable[[], object]


def steps_preview(prefix: str, steps: AttentionSteps) -> dict[str, np.ndarray | tuple[np.ndarray, np.ndarray]]:
    """The ``Lesson.preview`` entries of the attention steps' usual heatmaps, keyed ``<prefix>.scores``, ``.scaled``
    (the scores times 1/√d_k, before any mask), ``.masked`` (the scaled scores, −∞ where masked), ``.weights``
    (with which are exactly 0 or 1) and ``.out``."""
    return {f"{prefix}.scores": steps.scores, f"{prefix}.scaled": steps.scores * steps.scale,
            f"{prefix}.masked": steps.scaled_scores,
            f"{prefix}.weights": (steps.weights, softmax_exact(steps.scaled_scores)), f"{prefix}.out": steps.output}


def moved(default_state: Callable[[], object], transitions: Mapping[str, Transition], *moves) -> Callable[[], object]:
    """() → the state the page's controls reach from ``default_state()`` by ``moves``, each (transition name,
    *arguments) of ``transitions``: how a lesson plan's question says which setting to show. A move that raises
    (a refusal) is a defect of the plan (tests/contract/test_plan.py opens every question)."""
    def build():
        state = default_state()
        for name, *args in moves:
            state = transitions[name].apply(state, *args)
        return state

    return build


def _no_matrices(state, matrices):
    return state


@dataclass(frozen=True)
class Lesson:
    """One lesson's declaration.

    Attributes:
        key: URL path, text prefix, widget-key prefix and link namespace (lowercase ASCII).
        icon: the router's icon (a Material Symbols name, e.g. ":material/calculate:").
        default_state: () → the state a first visit without a link opens with.
        link: the link schema (fields, matrices, version, legacy versions).
        to_link: state → {field key: value} for the fields (and matrices) the state needs in its link;
            omitted keys mean "the default" and must decode to it.
        from_link: {field key: value} of the valid scalar fields present → (state, notices).
        arrays: state → {name: float64 array}, the matrices and vectors the lesson shows (export, compare and
            quiz read these, and the contract tests compare them).
        matrix_shape: (state, matrix key) → (rows, cols) for the schema's matrices.
        with_matrices: (state, {matrix key: array}) → state with those matrices placed.
        page: the page file (default ``lesson_pages/<key>.py``).
        color_ranges: state → {array name (a key of ``arrays``): zmax}, the symmetric colour range ±zmax the
            lesson's diverging heatmaps of that array keep while the lesson is explored (see lessons/ranges.py):
            fixed for the state's setup, computed from its unedited numbers. None (the default): the ranges of the
            default state's arrays, for the whole lesson.
        cell_matrices: state → the names of the matrices the page's cell picker offers (``ui.widgets.cell_picker``),
            in order, each sized by ``matrix_shape``; None (the default): the lesson has no cell picker. A lesson
            with one keeps the choice in its state's ``cell`` attribute (``(matrix, row, col)`` from 0, or None for
            the first matrix's first cell), and the choice lives in its link: the contract adds a
            :class:`~lessons.link.Cell` field ``cell`` to the link schema, writes it when it is not the first cell
            (:meth:`encode`) and reads it after the matrices (:meth:`decode`; a choice the state cannot hold is
            moved to the nearest cell and said, notice ``cell_clamped``).
        transitions: {name: :class:`Transition`}, every change the page's controls make (the cell picker's is
            added by the contract: :meth:`all_transitions`); the contract tests drive them in random sequences.
        text_fields: the names (widget key after ``<key>.``) of the page's text fields, all of them: the
            reliability suites type hostile texts into each (a lesson without one declares none and those suites
            say so); tests/contract/test_pages.py checks the declaration against the page.
        n_tokens: state → how many tokens the state's sentence has (a page with none says "there are no tokens"
            instead of naming the link values that point at a token); None: the lesson has no sentence.
        masked_rows_text: the text key the page shows when the lesson's masks leave a query row with no key
            (formatted with ``n``, the number of such rows, and ``rows``); required when the link has a
            :class:`~lessons.link.Mask` field (the contract tests check it), None otherwise.
        widest: () → the fullest screen the lesson can show: the most tokens (one of them long, see
            :func:`widest_text`), the largest sizes and the widest numbers. The readability checks
            (tests/e2e/test_screens_browser.py) open its link at 1280×720 beside the default one. Required when the
            lesson declares ``n_tokens`` (the contract tests check that it has more tokens than the default state
            and that its link reopens it); None otherwise, and then only the default state is checked.
        one_edit: state → ``state`` with one cell of one of the link's matrices changed to a value inside the
            state's colour ranges. The readability checks verify that every heatmap cell whose number did not change
            keeps its colour. Required when the link has matrices (the contract tests check that exactly one
            matrix's link value changes), None otherwise.
        present: what presentation mode needs (:class:`Presentation`: stages, kept controls, main picture). Required
            of every lesson (the contract tests check it, and that the page asks for every stage it declares).
        array_labels: state → {array name: (row labels, column labels)} for every array of ``arrays(state)``, as
            the page labels it: the tokens where its rows or columns are tokens (duplicates kept as typed), else
            1-based indices as strings ("1", "2", …: the dimensions of d_model, d_k, d_v), or the page's own words
            for them: a ``str``, or a ``(text key, args)`` pair for a word of the language tables (a book's default
            title), which ui.i18n.label puts in the reader's language; a 1-D array has ``(labels, ())``. The
            exports (CSV files, ui/exports.py) write them as the files' row and column headers. Required of every
            lesson with arrays (tests/contract/test_array_labels.py checks every array is labelled, with as many
            labels as it has rows and columns).
        code: state → a standalone NumPy script (:func:`lessons.code.script`) that rebuilds the state's inputs and
            computes and prints what the page shows: at least every array of ``arrays(state)`` whose name starts or
            ends with "weights" or "output" (tests/contract/test_code.py runs it for every lesson and compares the
            printout with ``arrays``). Required of every lesson (the test fails for one without); the files fold
            offers it as a download. A script computes from the state's exact numbers (literals), in plain NumPy:
            helpers shared by several scripts belong in lessons/code.py.
        predict: what the class can predict before the weights are shown (:class:`Prediction`); required of every
            lesson whose ``arrays`` has an array named ``weights`` or starting ``weights_`` (the contract tests check
            it); None otherwise.
        plan: the lesson plan for class, 4–6 :class:`Question` values in teaching order (ui/plan.py shows them with
            their links).
        terms: the glossary terms (keys of ``assets/i18n/*.glossary.toml``) the lesson's words use, in the order a
            student meets them (ui/plan.py explains them in a fold).
        preview: state → {chart key: the matrix the page's keyed heatmap of that key shows in ``state``}, for every
            keyed heatmap the page can draw; a weights heatmap's entry is ``(weights, exact)`` with ``exact`` which
            weights are exactly 0 or 1 (:func:`attention_core.softmax_exact` of the scaled scores), as the page
            passes it. Where the drawing's ``title_args``, ``highlight_rows`` or ``zmax`` depend on the state beyond
            the lesson's colour ranges, the entry is a dict ``{"M": matrix, "exact": … (or absent), and those}``.
            While a slider is dragged, the server computes these for the slider's nearby values and the browser
            shows them as the thumb moves (ui/preview.py, issue 18); the server's run on release stays the truth.
            tests/contract/test_preview.py checks, for every lesson, that the page draws no keyed heatmap the
            declaration leaves out, that each declared matrix equals the drawn one, and that every frame equals the
            page drawn at its value. None: no heatmap follows a drag before the run for the thumb's value (a lesson
            without heatmaps; its figures may follow through ``ui.charts.show_figure(follow=…)``).
    """

    key: str
    icon: str
    default_state: Callable[[], object]
    link: LinkSchema
    to_link: Callable[[object], dict]
    from_link: Callable[[dict], tuple[object, list[Notice]]]
    arrays: Callable[[object], dict[str, np.ndarray]]
    matrix_shape: Callable[[object, str], tuple[int, int]] | None = None
    with_matrices: Callable[[object, dict], object] = _no_matrices
    page: str = ""
    color_ranges: Callable[[object], Mapping[str, float]] | None = None
    cell_matrices: Callable[[object], tuple[str, ...]] | None = None
    transitions: Mapping[str, Transition] | None = None
    text_fields: tuple[str, ...] = ()
    n_tokens: Callable[[object], int] | None = None
    masked_rows_text: str | None = None
    widest: Callable[[], object] | None = None
    one_edit: Callable[[object], object] | None = None
    present: Presentation | None = None
    array_labels: Callable[[object], Mapping[str, tuple[Sequence[Label], Sequence[Label]]]] | None = None
    code: Callable[[object], str] | None = None
    predict: Prediction | None = None
    plan: tuple[Question, ...] = ()
    terms: tuple[str, ...] = ()
    preview: Callable[[object], Mapping[str, np.ndarray | tuple[np.ndarray, np.ndarray]]] | None = None

    def __post_init__(self):
        if not self.key.isascii() or not self.key.isidentifier() or self.key != self.key.lower():
            raise ValueError(f"a lesson key must be a lowercase ASCII identifier, got {self.key!r}")
        if self.link.namespace != self.key:
            raise ValueError(f"lesson {self.key!r}: its link namespace must be its key, got {self.link.namespace!r}")
        clash = self.link.keys & link.IGNORED_KEYS
        if clash:
            raise ValueError(f"lesson {self.key!r}: link keys {sorted(clash)} are the frame's "
                             "(lessons.link.IGNORED_KEYS)")
        if not self.page:
            object.__setattr__(self, "page", f"lesson_pages/{self.key}.py")
        if self.cell_matrices is not None and CELL_KEY not in self.link.keys:
            object.__setattr__(self, "link", replace(self.link, fields=(*self.link.fields, link.Cell(CELL_KEY))))

    def all_transitions(self) -> dict[str, Transition]:
        """The declared transitions and the contract's own (the cell picker's ``pick``)."""
        out = dict(self.transitions or {})
        if self.cell_matrices is not None:
            where = (link.Choice("m", self._cell_names()), link.Int("i", -1, 17), link.Int("j", -1, 17))
            out["pick"] = Transition(self.with_picked_cell, where)
        return out

    def _cell_names(self) -> tuple[str, ...]:
        names = tuple(m.key for m in self.link.matrices)
        return names + ("?",)  # and a matrix the state does not offer

    # ---- the cell picker's choice (lessons that declare cell_matrices) ----
    def picked_cell(self, state) -> tuple[str, int, int]:
        """The cell picker's choice (matrix, row, col) in ``state``, kept inside the state's matrices: an unknown
        matrix (or None) is the first one offered, a row or column past the end the last one. Raises ValueError
        for a lesson without a cell picker."""
        return self._fit_cell(state, getattr(state, "cell", None))[0]

    def _fit_cell(self, state, cell) -> tuple[tuple[str, int, int], bool]:
        """(the nearest cell the state holds, whether that moved ``cell``)."""
        if self.cell_matrices is None:
            raise ValueError(f"lesson {self.key!r} declares no cell picker (cell_matrices)")
        names = tuple(self.cell_matrices(state))
        if cell is None:
            return (names[0], 0, 0), False
        name, i, j = cell
        moved = name not in names
        name = names[0] if moved else name
        rows, cols = self.matrix_shape(state, name)
        fi, fj = min(max(int(i), 0), max(rows - 1, 0)), min(max(int(j), 0), max(cols - 1, 0))
        return (name, fi, fj), moved or (fi, fj) != (i, j)

    def with_picked_cell(self, state, name: str, i: int, j: int):
        """The transition of the cell picker: ``state`` with (name, i, j) chosen, moved to the nearest cell the state
        holds (see :meth:`picked_cell`)."""
        return replace(state, cell=self._fit_cell(state, (str(name), int(i), int(j)))[0])

    def ranges(self, state) -> dict[str, float]:
        """{array name: zmax}: the colour ranges of ``state`` (declared by ``color_ranges``, else those of the
        default state; lessons/ranges.py)."""
        from .ranges import color_ranges

        return color_ranges(self, state)

    def _other_schemas(self, others) -> list[LinkSchema]:
        import lessons  # the registry (lessons/__init__.py imports this module)

        if others is None:
            others = [x for x in lessons.REGISTRY if x.key != self.key]
        out = []
        for o in others:
            if isinstance(o, str):
                o = next((x for x in lessons.REGISTRY if x.key == o), None)
            if o is not None and o.key != self.key:
                out.append(o.link)
        return out

    def encode(self, state) -> dict[str, str]:
        """State → query parameters (strings), the envelope first (with the cell picker's choice when it is not the
        first cell: see ``cell_matrices``)."""
        values = self.to_link(state)
        if self.cell_matrices is not None:
            cell = self.picked_cell(state)
            if cell != self._fit_cell(state, None)[0]:
                values = {**values, CELL_KEY: cell}
        return link.write(self.link, values)

    def decode(self, params: Mapping, others=None) -> tuple[object, list[Notice]]:
        """Query parameters → (state, notices). Never raises: what cannot be used falls back to the default with
        a notice. ``others``: the other lessons (Lesson values or keys; default every other registered lesson),
        so that their links are recognised as theirs."""
        env = link.read_envelope(self.link, params, self._other_schemas(others))
        if not env.readable:
            return self.default_state(), list(env.notices)
        values, notices = link.read_fields(self.link.fields, env.params)
        notices = list(env.notices) + notices  # a readable link's own notices (a key given twice)
        cell = values.pop(CELL_KEY, None) if self.cell_matrices is not None else None
        state, notes = self.from_link(values)
        notices += notes
        if self.link.matrices:
            mats, notes = link.read_matrices(self.link.matrices, env.params,
                                             lambda name: self.matrix_shape(state, name))
            notices += notes
            state = self.with_matrices(state, mats)
        if cell is not None:
            state, notes = self._place_cell(state, cell)
            notices += notes
        return state, notices + link.unknown_keys(self.link, env.params)

    def _place_cell(self, state, cell) -> tuple[object, list[Notice]]:
        fitted, moved = self._fit_cell(state, cell)
        notes = []
        if moved:
            name, i, j = cell
            notes.append(Notice("cell_clamped", {"matrix": name, "row": i + 1, "col": j + 1, "used_matrix": fitted[0],
                                                 "used_row": fitted[1] + 1, "used_col": fitted[2] + 1}))
        return replace(state, cell=fitted), notes
