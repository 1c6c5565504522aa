"""Streamlit/plotly adapters shared by the pages: language tables, figure builders, widgets. No math here."""
