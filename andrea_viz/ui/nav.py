"""The app's pages, in lesson order: the sidebar menu and the home page's table of contents."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class PageInfo:
    path: str  # relative to the entry script
    label: str
    icon: str  # a Streamlit Material icon: renders without emoji fonts
    blurb: str


PAGES = [
    PageInfo("streamlit_app.py", "Home", ":material/home:", "what this is, the loaded model, neighbours of a word"),
    PageInfo("pages/1_Lookup_table.py", "Lookup table", ":material/table_view:",
             "the (V, d) matrix, one row per token, and why a lookup equals a one-hot product"),
    PageInfo("pages/2_Sizing.py", "Sizing", ":material/straighten:",
             "how many parameters an embedding table holds, tied versus untied, where a model's parameters live"),
    PageInfo("pages/3_Dot_products.py", "Dot products", ":material/change_history:",
             "u·v = |u||v|cos θ as an angle turns, on real vectors, and a game: predict which words are close"),
    PageInfo("pages/4_Neighbours.py", "Neighbours", ":material/hub:",
             "the nearest tokens by cosine, dot or distance, analogies, input versus output table"),
    PageInfo("pages/5_Projection.py", "Projection", ":material/scatter_plot:",
             "PCA and t-SNE maps of thousands of tokens, how much of each neighbourhood survives, downloads"),
    PageInfo("pages/6_Positions.py", "Positions", ":material/format_list_numbered:",
             "x_t = token + position with sliders, learned versus sinusoidal, RoPE in one picture"),
    PageInfo("pages/7_Forward_pass.py", "Forward pass", ":material/arrow_forward:",
             "a sentence to ids to the matrix x, order blindness, the compiled kernels and their speed"),
    PageInfo("pages/8_Checkpoint.py", "Checkpoint", ":material/upload_file:",
             "bring your own: upload a checkpoint or pick one from a folder, see what it holds, explore it"),
]


def available_pages() -> list[PageInfo]:
    return [p for p in PAGES if (ROOT / p.path).exists()]


def sidebar_menu() -> None:
    with st.sidebar:
        st.markdown("**ANDREA Embedding Explorer**")
        for p in available_pages():
            st.page_link(p.path, label=p.label, icon=p.icon)
        st.divider()


def table_of_contents() -> None:
    for p in available_pages()[1:]:
        c1, c2 = st.columns([1, 3], vertical_alignment="center")
        c1.page_link(p.path, label=p.label, icon=p.icon)
        c2.markdown(p.blurb)
