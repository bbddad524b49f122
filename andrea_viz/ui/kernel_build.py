"""The compiled kernels start building when the server starts, in a process of their own (``cuda_ext``'s loader),
through ``andrea_viz.web.hooks.start_builds``; here once per process for a server started on ``home.py`` itself."""

from __future__ import annotations

import streamlit as st

from ..web.hooks import start_builds


@st.cache_resource(show_spinner=False)
def _builds_started() -> bool:
    start_builds()
    return True


def start_builds_once() -> None:
    """At the server's first page: the builds of ``start_builds`` (UMAP's code, the compiled kernels), once; they
    started with the server already when it was started on ``streamlit_app.py``."""
    _builds_started()
