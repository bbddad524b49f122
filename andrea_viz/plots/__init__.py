"""Plotly figure builders: one function per picture, no Streamlit."""
