"""The reference page for benchmarks/rerun_latency.py: one slider, one 3×3 plotly heatmap, built the plain way."""
import numpy as np
import plotly.graph_objects as go
import streamlit as st
from streamlit import runtime

if not runtime.exists():  # `make bench` runs every benchmarks/*.py; this one is a page, not a benchmark
    print("(a page for rerun_latency.py; see it with: streamlit run benchmarks/minimal_app.py)")
    raise SystemExit(0)

v = st.slider("value", min_value=-5.0, max_value=5.0, value=0.0, step=0.1, key="v")
M = np.arange(9, dtype=float).reshape(3, 3) / 4 - 1 + v
fig = go.Figure(go.Heatmap(z=M, text=np.round(M, 2), texttemplate="%{text}", colorscale="RdBu_r", zmid=0))
fig.update_layout(height=300, yaxis=dict(autorange="reversed"))
st.plotly_chart(fig, key="fig", width="stretch")
