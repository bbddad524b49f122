"""The sidebar menu and the home page's table of contents, drawn from the page registry."""

from __future__ import annotations

import streamlit as st

from ..i18n import _, tr
from ..registry import available_pages


def sidebar_menu() -> None:
    with st.sidebar:
        st.markdown(f"**{_('ANDREA Embedding Explorer')}**")
        for p in available_pages():
            st.page_link(p.path, label=tr(p.label), icon=p.icon)
        st.divider()


def table_of_contents() -> None:
    for p in available_pages()[1:]:
        c1, c2 = st.columns([1, 3], vertical_alignment="center")
        c1.page_link(p.path, label=tr(p.label), icon=p.icon)
        c2.markdown(tr(p.blurb))
