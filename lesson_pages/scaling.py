"""Lesson 2 — scaling and softmax: the 3-books exercise, why √d_k (the variance lab), temperature."""
from __future__ import annotations

import numpy as np
import streamlit as st

from attention_core import scaling as scaling_math
from lessons import scaling as lesson
from ui import bind, cache, charts, escape, numbers, runtime, slots, text, widgets
from ui.i18n import t
from ui.lesson_charts import scaling as scaling_charts

N_SAMPLES = 20_000  # q, k pairs in the variance lab
N_DRAWS = 1_000  # rows per d_k in the saturation chart
BOOK_CARD_PX = 240  # a book card's least width: its three number fields show "−10.5" (side by side at 1280×720)
T_GRID = np.geomspace(0.05, 20.0, 160)
BOOKS, VARIANCE = "books", "variance"  # notice places: under the book cards, under the seed


# ---- cached core calls (pure functions of their arguments) -------------------------------------------------------
@cache.data(max_entries=64, show_spinner=False)
def _variance(d_k: int, seed: int):
    lab = scaling_math.variance_lab(d_k, N_SAMPLES, seed)
    half = 4.0 * max(np.sqrt(d_k), 1.0)
    centers, raw = scaling_math.density_histogram(lab.raw, -half, half, bins=61)
    _, scaled = scaling_math.density_histogram(lab.scaled, -half, half, bins=61)
    return lab.var_raw, lab.var_scaled, centers, raw, scaled


@cache.data(max_entries=64, show_spinner=False)
def _saturation(n_keys: int, seed: int) -> scaling_math.SaturationCurves:
    return scaling_math.saturation_curves(scaling_math.SATURATION_DKS, n_keys, N_DRAWS, seed)


# ---- texts -------------------------------------------------------------------------------------------------------
def titles(state: lesson.ScalingState) -> list[str]:
    return [x or t(f"scaling.book.default_{i + 1}") for i, x in enumerate(state.titles)]


def query_text(state: lesson.ScalingState) -> str:
    return state.query or t("scaling.book.query_default")


def shares_text(names, weights, exact: bool = False) -> str:
    """The books' shares in words; softmax of finite scores is never exactly 0 or 1 (``exact=False``), the limits
    T → 0, ∞ are."""
    return t("scaling.out.sep").join(f"{escape.markdown(n)} {numbers.percent(w, exact=exact)}"
                                     for n, w in zip(names, weights))


def book_cards(page: runtime.Page) -> None:
    state = page.state
    names = titles(state)
    bind.text_or_default(page, st.text_input, "query", t("scaling.book.query"), value=query_text(state),
                         default=t("scaling.book.query_default"), place=BOOKS,
                         apply=lambda s, v: lesson.with_query(s, v, t("scaling.book.query_default")),
                         max_chars=lesson.MAX_TITLE_CHARS, help=t("scaling.book.query_help"))
    dims = [t(f"scaling.book.dim_{j + 1}") for j in range(lesson.D_VALUE)]
    for col, i in zip(widgets.columns_or_rows(lesson.N_BOOKS, BOOK_CARD_PX), range(lesson.N_BOOKS)):
        with col, st.container(border=True):
            bind.text_or_default(page, st.text_input, f"title.{i}", t("scaling.book.title", i=i + 1),
                                 value=names[i], default=t(f"scaling.book.default_{i + 1}"), place=BOOKS,
                                 apply=lambda s, v, i=i: lesson.with_title(s, i, v,
                                                                           t(f"scaling.book.default_{i + 1}")),
                                 max_chars=lesson.MAX_TITLE_CHARS, help=t("scaling.book.title_help"))
            bind.control(page, st.slider, f"score.{i}", t("scaling.book.score", i=i + 1), value=state.scores[i],
                         apply=lambda s, v, i=i: lesson.with_score(s, i, v), min_value=lesson.SCORE_MIN,
                         max_value=lesson.SCORE_MAX, step=lesson.SCORE_STEP, help=t("scaling.book.score_help"))
            st.caption(t("scaling.book.value"))
            for j, c in enumerate(st.columns(lesson.D_VALUE, gap="xsmall")):  # narrow: "−10" must fit
                bind.number(page, c.number_input, f"value.{i}.{j}", dims[j], value=state.values[i][j],
                            apply=lambda s, v, i=i, j=j: lesson.with_value(s, i, j, v),
                            lo=-lesson.VALUE_LIMIT, hi=lesson.VALUE_LIMIT, decimals=1, step=0.5, place=BOOKS,
                            format="%g",
                            what=t("scaling.book.value_what", i=i + 1, dim=dims[j]))


def dk_controls(page: runtime.Page) -> None:
    c1, c2 = st.columns([3, 1.3], vertical_alignment="center")
    bind.control(page, c1.select_slider, "dk", t("scaling.ctl.dk"), value=page.state.d_k,
                 apply=bind.setter("d_k", int), options=list(scaling_math.DK_STEPS), help=t("scaling.ctl.dk_help"))
    # the label says the current state: the switch itself is faint when off
    bind.control(page, c2.toggle, "scale", t("scaling.ctl.scale_on" if page.state.scaled else "scaling.ctl.scale_off"),
                 value=page.state.scaled, apply=bind.setter("scaled", bool), help=t("scaling.ctl.scale_help"))


# ---- sections ------------------------------------------------------------------------------------------------------
def books_section(page: runtime.Page) -> None:
    if page.reveals("books", "mix"):
        st.header(t("scaling.sec.books"))
        text.explain(t("scaling.sec.books_help"))
    if not page.presenting:  # the books' titles, scores and values: set up before the class
        book_cards(page)
    page.show_notices(BOOKS)
    dk_controls(page)
    state = page.state
    if page.reveals("books"):
        _books_steps(state, page.presenting)
    if page.reveals("mix"):
        _books_mix(state)


def _books_steps(state: lesson.ScalingState, presenting: bool) -> None:
    names = titles(state)
    mix = scaling_math.book_mix(state.scores, state.d_k, state.values, scale=state.scaled)
    root = numbers.num(np.sqrt(state.d_k))
    if not presenting:  # on a projector the chart below says the same, in larger type
        st.markdown(t("scaling.out.divide_on" if state.scaled else "scaling.out.divide_off", d_k=state.d_k,
                      root=root))
        vec = text.tex_vector
        share = lambda w: numbers.prob(w, tex=True, exact=False)  # noqa: E731 -- softmax of finite scores: never 0/1
        text.formula(r"\mathrm{softmax}\!\left(\frac{" + vec(mix.raw) + "}{" + numbers.num(mix.divisor, tex=True)
                     + r"}\right) = \mathrm{softmax}\!\left(" + vec(mix.scaled) + r"\right) = "
                     + vec(mix.weights, share))
        st.markdown("### " + t("scaling.out.shares", shares=shares_text(names, mix.weights)))
    st.caption(t("num.shares_rounded") + " " + t("num.rule"))
    charts.show_figure(_steps_spec(state), key="scaling.fig.steps", follow=_steps_spec)
    if mix.weights.max() > 0.99:
        st.warning(t("scaling.out.saturated", top=numbers.percent(mix.weights.max(), exact=False)),
                   icon=":material/center_focus_strong:")
    st.caption(t("scaling.out.typical", d_k=state.d_k, root=root))


def _steps_spec(state: lesson.ScalingState) -> dict:
    """The books' scores, scaled scores and shares in ``state`` (also a drag's frames: ui/preview.py)."""
    mix = scaling_math.book_mix(state.scores, state.d_k, state.values, scale=state.scaled)
    root = numbers.num(np.sqrt(state.d_k))
    scaled_title = (t("fig.scaling_steps.scaled_on", d_k=state.d_k, root=root) if state.scaled
                    else t("fig.scaling_steps.scaled_off"))
    return scaling_charts.scaling_steps_spec(
        mix.raw, mix.scaled, mix.weights, titles(state), title=t("fig.scaling_steps.title"),
        panel_titles=(t("fig.scaling_steps.raw"), scaled_title, t("fig.scaling_steps.shares")),
        hover=t("fig.scaling_steps.hover"))


def _mix_spec(state: lesson.ScalingState) -> dict:
    """The books' values mixed by their shares in ``state``."""
    mix = scaling_math.book_mix(state.scores, state.d_k, state.values, scale=state.scaled)
    dims = [t(f"scaling.book.dim_{j + 1}") for j in range(lesson.D_VALUE)]
    return scaling_charts.value_mix_spec(
        np.array(state.values), mix.weights, mix.output, titles(state), dims, title=t("fig.scaling_mix.title"),
        out_title=t("fig.scaling_mix.out"), share_text=t("fig.scaling_mix.share"))


def _books_mix(state: lesson.ScalingState) -> None:
    mix = scaling_math.book_mix(state.scores, state.d_k, state.values, scale=state.scaled)
    vec = text.tex_vector
    share = lambda w: numbers.prob(w, tex=True, exact=False)  # noqa: E731 -- softmax of finite scores: never 0 or 1
    charts.show_figure(_mix_spec(state), key="scaling.fig.mix", follow=_mix_spec)
    terms = " + ".join(numbers.factor(share(w)) + r"\," + vec(v) for w, v in zip(mix.weights, state.values))
    text.formula("z = " + terms + " = " + vec(mix.output))
    st.caption(t("scaling.out.mix"))


def variance_section(page: runtime.Page) -> None:
    if page.reveals("variance"):
        _variance_part(page)
    if page.reveals("saturation"):
        _saturation_part(page)


def _variance_part(page: runtime.Page) -> None:
    st.header(t("scaling.sec.variance"))
    text.explain(t("scaling.sec.variance_help"))
    c1, c2, c3 = st.columns([1.2, 1, 1])
    bind.number(page, c1.number_input, "seed", t("scaling.ctl.seed"), value=page.state.seed,
                apply=bind.setter("seed", int), lo=0, hi=lesson.SEED_MAX, help=t("scaling.ctl.seed_help"),
                place=VARIANCE)
    state = page.state
    var_raw, var_scaled, centers, dens_raw, dens_scaled = _variance(state.d_k, state.seed)
    c2.metric(t("scaling.out.var_raw"), numbers.num(var_raw, 2), t("scaling.out.var_theory", v=state.d_k),
              delta_color="off", delta_arrow="off")
    c3.metric(t("scaling.out.var_scaled"), numbers.num(var_scaled), t("scaling.out.var_theory", v=1),
              delta_color="off", delta_arrow="off")
    page.show_notices(VARIANCE)
    st.caption(t("scaling.out.var_caption", n=numbers.integer(N_SAMPLES), seed=state.seed))
    charts.show_figure(_var_spec(state), key="scaling.fig.var", follow=_var_spec)


def _var_spec(state: lesson.ScalingState) -> dict:
    """The scores' histograms with and without scaling for the state's d_k and seed."""
    var_raw, var_scaled, centers, dens_raw, dens_scaled = _variance(state.d_k, state.seed)
    return scaling_charts.variance_histograms_spec(
        centers, dens_raw, dens_scaled, d_k=state.d_k, title=t("fig.scaling_var.title", d_k=state.d_k),
        row_titles=(t("fig.scaling_var.raw", var=numbers.num(var_raw, 2), theory=state.d_k),
                    t("fig.scaling_var.scaled", var=numbers.num(var_scaled), d_k=state.d_k)),
        x_title=t("fig.scaling_var.x"), y_title=t("fig.scaling_var.y"))


def _saturation_part(page: runtime.Page) -> None:
    st.subheader(t("scaling.sec.saturation"))
    text.explain(t("scaling.sec.saturation_help"))
    bind.control(page, st.slider, "n", t("scaling.ctl.n_keys"), value=page.state.n_keys,
                 apply=bind.setter("n_keys", int),
                 min_value=lesson.N_KEYS_MIN, max_value=lesson.N_KEYS_MAX, step=1, help=t("scaling.ctl.n_keys_help"))
    charts.show_figure(_sat_spec(page.state), key="scaling.fig.sat", follow=_sat_spec)


def _sat_spec(state: lesson.ScalingState) -> dict:
    """How far softmax saturates with d_k, with and without scaling, for the state's number of keys."""
    cur = _saturation(state.n_keys, state.seed)
    return scaling_charts.saturation_chart_spec(
        cur.d_ks, cur.max_raw, cur.max_scaled, cur.entropy_raw, cur.entropy_scaled, n_keys=state.n_keys,
        current_dk=state.d_k, title=t("fig.scaling_sat.title", n=state.n_keys, draws=numbers.integer(N_DRAWS)),
        panel_titles=(t("fig.scaling_sat.max"), t("fig.scaling_sat.entropy")),
        legend=(t("fig.scaling_sat.without"), t("fig.scaling_sat.with")), x_title=t("fig.scaling_sat.x"),
        ref_texts=(t("fig.scaling_sat.uniform"), t("fig.scaling_sat.onehot"), t("fig.scaling_sat.current")),
        width_px=charts.slot_width())


def temperature_section(page: runtime.Page) -> None:
    if not page.reveals("temperature"):
        return
    st.header(t("scaling.sec.temperature"))
    text.explain(t("scaling.sec.temperature_help"))
    bind.control(page, st.select_slider, "T", t("scaling.ctl.temperature"), value=page.state.temperature,
                 apply=bind.setter("temperature", float), options=list(lesson.TEMPERATURES),
                 help=t("scaling.ctl.temperature_help"), format_func=numbers.num)
    state = page.state
    names = titles(state)
    w = scaling_math.temperature_softmax(state.scores, state.temperature)
    zero, inf = scaling_math.argmax_limit(state.scores), scaling_math.uniform_limit(lesson.N_BOOKS)
    st.markdown("### " + t("scaling.out.current", T=numbers.num(state.temperature), shares=shares_text(names, w)))
    st.markdown(t("scaling.out.limit_zero", shares=shares_text(names, zero, exact=True)) + "  \n"
                + t("scaling.out.limit_inf", share=numbers.percent(inf[0])))
    c1, c2 = charts.chart_columns(0, scaling_charts.TEMPERATURE_LEAST_PX)  # one under the other where narrow
    with c1:
        bars = lambda s: _tbars_spec(s, c1.width_px)  # noqa: E731 -- also a drag's frames (ui/preview.py)
        charts.show_figure(bars(state), key="scaling.fig.tbars", follow=bars)
    with c2:
        root, t_max = float(np.sqrt(state.d_k)), float(T_GRID[-1])
        curve = lambda s: _tcurve_spec(s, c2.width_px)  # noqa: E731
        past = t("fig.scaling_temp.sqrt_past", root=numbers.num(root), t_max=numbers.num(t_max)) if root > t_max \
            else None
        charts.show_figure(curve(state), key="scaling.fig.tcurve", caption=past, follow=curve)
    at_root = scaling_math.temperature_softmax(state.scores, np.sqrt(state.d_k))
    st.info(t("scaling.sec.temperature_link", d_k=state.d_k, root=numbers.num(np.sqrt(state.d_k)),
              shares=shares_text(names, at_root)), icon=":material/thermostat:")


def _tbars_spec(state: lesson.ScalingState, width_px: float) -> dict:
    """The books' shares at the state's temperature, beside their limits T → 0 and T → ∞."""
    w = scaling_math.temperature_softmax(state.scores, state.temperature)
    zero, inf = scaling_math.argmax_limit(state.scores), scaling_math.uniform_limit(lesson.N_BOOKS)
    return scaling_charts.temperature_bars_spec(
        w, titles(state), limit_zero=zero, limit_inf=inf, width_px=width_px,
        title=t("fig.scaling_temp.bars_title", T=numbers.num(state.temperature)),
        legend=(t("fig.scaling_temp.legend_now"), t("fig.scaling_temp.legend_zero"),
                t("fig.scaling_temp.legend_inf")))


def _tcurve_spec(state: lesson.ScalingState, width_px: float) -> dict:
    """The books' shares as the temperature sweeps, the state's marked."""
    root, t_max = float(np.sqrt(state.d_k)), float(T_GRID[-1])
    return scaling_charts.temperature_chart_spec(
        T_GRID, scaling_math.temperature_sweep(state.scores, T_GRID), titles(state), current_T=state.temperature,
        title=t("fig.scaling_temp.title"), marks=[(root, t("fig.scaling_temp.sqrt_mark"))] if root <= t_max else [],
        x_title=t("fig.scaling_temp.x"), y_title=t("fig.scaling_temp.y"),
        limit_texts=(t("fig.scaling_temp.limit_zero"), t("fig.scaling_temp.limit_inf")),
        current_text=t("fig.scaling_temp.current"), width_px=width_px)


def render(page: runtime.Page) -> None:
    slots.sections(page, books_section, variance_section, temperature_section)


runtime.run("scaling", render)
