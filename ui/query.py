"""One query's attention written out (Vaswani et al. 2017, eq. 1, for one row): its dot products with every key as
sums of products, ÷√d_k, the mask, e^(s − s_max), the weights, the bars of its weights, its value mix and the output
vector as a weighted sum. Every lesson that shows a query's arithmetic draws it here (texts ``query.*``)."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import streamlit as st

from attention_core import AttentionSteps

from . import charts, escape, numbers, text
from . import figures as F
from .i18n import t


def _factor(v: float) -> str:  # a negative factor or a bound in brackets: 2×(−0.4), (<0.001)×3
    return numbers.factor(numbers.num(v))


def sum_of_products(q, k) -> str:
    """q·k written out as a sum of products; past 6 terms the first 3 and the last 2, with … between."""
    pairs = list(zip(q, k))
    shown = pairs if len(pairs) <= 6 else pairs[:3] + [None] + pairs[-2:]
    return " + ".join("…" if p is None else f"{_factor(p[0])}×{_factor(p[1])}" for p in shown)


def _weight_factor(w: float, exact: bool) -> str:
    """A weight as a factor in LaTeX: "0.784", or "(<0.001)" for one that is not 0 but rounds to it."""
    return numbers.factor(numbers.prob(w, tex=True, exact=exact))


def explain(i: int, rows, cols, Q, K, V, steps: AttentionSteps, *, masked: bool, key: str,
            follow: Callable[[object], tuple] | None = None) -> None:
    """Query ``i``'s arithmetic: the words, the two formulas, the table (one line per key), the bars of its weights
    and its value mix side by side, and the output as a weighted sum of values.

    Args:
        i: the query's row, 0 ≤ i < n_q.
        rows, cols: the query-side tokens (n_q) and the key-side tokens (n_k): separate, so n_q ≠ n_k works.
        Q (n_q, d_k), K (n_k, d_k), V (n_k, d_v): what the steps were computed from (for a head: its own blocks).
        steps: the attention's AttentionSteps (scores, scaled_scores with −∞ where masked, weights, output).
        masked: a mask was applied: the table gets a "+ mask" column.
        key: the charts' key prefix: ``<key>.fig.qbars`` and ``<key>.fig.mix``.
        follow: lesson state → its (V, steps) for the same query and tokens, so that the two charts follow a
            slider's drag (ui.charts.show_figure ``follow``); None: they wait for the server's runs.
    """
    rows, cols = list(rows), list(cols)
    d_k = Q.shape[1]
    q = Q[i]
    scaled = steps.scaled_scores[i]
    e = np.exp(scaled - scaled.max())
    e_exact = ~np.isfinite(scaled) | (scaled == scaled.max())  # e^(−∞) = 0 and e^0 = 1 exactly, all else between
    w_exact = numbers.softmax_exact(scaled)
    qname = escape.latex(rows[i])
    st.markdown(t("query.explain", token=escape.markdown(rows[i]), d_k=d_k))
    text.formula(r"s_j = \frac{q_{%s}\cdot k_j}{\sqrt{d_k}},\qquad \sqrt{%d} = %s"
                 % (qname, d_k, numbers.num(np.sqrt(d_k), tex=True)))
    text.formula(r"w_j = \mathrm{softmax}(s)_j = \frac{e^{s_j}}{\sum_m e^{s_m}} = \frac{e^{s_j - s_{\max}}}"
                 r"{\sum_m e^{s_m - s_{\max}}},\qquad \sum_m e^{s_m - s_{\max}} = %s" % numbers.num(e.sum(), tex=True))
    names = ["key", "products", "score", "scaled", *(["masked"] if masked else []), "exp", "weight"]
    header = [t(f"query.tbl.{c}") for c in names]
    divided = steps.scores[i] * steps.scale  # ÷√d_k itself; a mask then adds 0 or −∞ (its own column)
    table = [[f"{j + 1}: {tok}", sum_of_products(q, K[j]), numbers.num(steps.scores[i, j]), numbers.num(divided[j]),
              *([numbers.num(scaled[j])] if masked else []),  # num(−inf) is "−∞"
              numbers.prob(e[j], exact=e_exact[j]), numbers.percent(steps.weights[i, j], exact=w_exact[j])]
             for j, tok in enumerate(cols)]
    text.show_table(header, table, align="ll" + "r" * (len(names) - 2), wrap={1})
    st.caption(t("num.rule"))
    w, out = steps.weights[i], steps.output[i]
    c1, c2 = charts.chart_columns(F.bars_need(w, percent=True, exact=w_exact), F.bars_need(out))

    def bars(V, steps) -> dict:
        return F.bars_spec(steps.weights[i], cols, title=t("fig.qbars.title", token=escape.chart(rows[i])),
                           percent=True, y_range=(0, 1.12), hover=t("fig.qbars.hover"), width_px=c1.width_px,
                           exact=numbers.softmax_exact(steps.scaled_scores[i]))

    def mix(V, steps) -> dict:
        return F.vector_mix_spec(V, steps.weights[i], steps.output[i], cols, out_label=t("fig.mix.out"),
                                 dim_title=t("fig.mix.dim"), title=t("fig.mix.title", token=escape.chart(rows[i])),
                                 width_px=c2.width_px, exact=numbers.softmax_exact(steps.scaled_scores[i]))

    def followed(spec: Callable) -> Callable | None:  # another state's charts, while its rows and keys are these
        def draw(s):
            V_s, steps_s = follow(s)
            same = steps_s.weights.shape == steps.weights.shape and len(V_s) == len(cols)
            return spec(V_s, steps_s) if same else None
        return None if follow is None else draw

    with c1:
        charts.show_figure(bars(V, steps), key=f"{key}.fig.qbars", follow=followed(bars))
    with c2:
        charts.show_figure(mix(V, steps), key=f"{key}.fig.mix", follow=followed(mix))
    terms = " + ".join(r"%s\,v_{%s}" % (_weight_factor(x, ex), escape.latex(tok))
                       for x, ex, tok in zip(w, w_exact, cols))
    if len(cols) > 6:
        terms = r"\sum_j w_j v_j"
    text.formula(r"z_{%s} = %s = %s" % (qname, terms, text.tex_vector(out)))
    st.caption(t("query.explain_out"))
