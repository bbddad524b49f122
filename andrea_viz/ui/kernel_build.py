"""The compiled kernels start building when the server starts, in a process of their own (``cuda_ext``'s loader)."""

from __future__ import annotations

import os

import streamlit as st

SWITCH = "ANDREA_VIZ_KERNEL_BUILD"  # "background" (the default) or "inline": the first page that needs a kernel builds it


@st.cache_resource(show_spinner=False)
def _kernel_build_started() -> bool:
    import cuda_ext

    if os.environ.get(SWITCH, "background") != "inline":
        cuda_ext.start_background_build()
    return True


def start_kernel_build() -> None:
    """When the server starts (its first page): the CPU kernel (and the CUDA one where a GPU is visible) starts
    building at the lowest priority in a process of its own, so that no visit waits on it; the Forward pass page runs
    on torch until it is built. Nothing starts when the kernel is built on disk already, or with
    ``ANDREA_VIZ_KERNEL_BUILD=inline`` (the test suite's setting: a test that needs a kernel builds it where it runs)."""
    _kernel_build_started()
