"""The toy lesson's page (tests/throwaway/lessons.py): one slider, and the vector it sizes as a one-row heatmap."""
import streamlit as st

import lessons
from ui import bind, charts, runtime
from ui.i18n import t


def render(page: runtime.Page) -> None:
    toy = lessons.by_key("toy")
    bind.control(page, st.slider, "n", "n", value=page.state.n, min_value=1, max_value=9,
                 apply=toy.transitions["n"].apply)
    ones = toy.arrays(page.state)["ones"]
    if page.reveals("sum"):
        st.markdown(t("toy.sum", n=page.state.n, total=f"{ones.sum():.0f}"))
    if page.reveals("ones"):
        charts.show_heatmap("toy_ones", ones[None, :], ["1"], [str(j + 1) for j in range(len(ones))],
                            key="toy.fig.ones")


runtime.run("toy", render)
