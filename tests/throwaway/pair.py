"""The pair lesson's page (tests/throwaway/lessons.py): two sentences, the target × source scores in a grid, the
weights as a heatmap. No slider, no switch. Reaches its lesson only through the registry."""
import streamlit as st

import lessons
from attention_core.tokens import MAX_TEXT_CHARS, tokenize
from ui import bind, charts, runtime, widgets
from ui.i18n import t


def render(page: runtime.Page) -> None:
    pair = lessons.by_key("pair")
    state = page.state
    for name in ("source", "target"):
        bind.control(page, st.text_input, name, t(f"pair.{name}"), value=getattr(state, name),
                     apply=pair.transitions[name].apply, max_chars=MAX_TEXT_CHARS)
        widgets.token_notices(getattr(state, name))
    page.show_notices()
    src, tgt = list(tokenize(state.source).tokens), list(tokenize(state.target).tokens)
    widgets.matrix_grids(page, {"S": state.S}, {"S": (tgt, src)}, title=t("pair.grid"), help=t("pair.grid"),
                         commit=lambda n, M: page.apply(pair.transitions[n].apply, M, place="grids"),
                         place="grids")
    if page.reveals("scores"):
        st.markdown(t("pair.grid"))
    arrays = pair.arrays(page.state)
    if page.reveals("weights") and arrays["weights"].size:
        charts.show_heatmap("weights", arrays["weights"], tgt, src, weights=True, key="pair.fig.weights")


runtime.run("pair", render)
