"""The app's hooks into Streamlit's own web server. ``streamlit_app.py`` serves the app as an ``st.App`` and calls
``install`` before the server answers anything, so the very first response is guarded (``streamlit run home.py``
would install them at its first page, as ``andrea_viz.ui`` does on import); ``at_start`` is its lifespan. Each hook wraps ``Starlette.__call__``
once per process (``wrap_once``), in the order ``install`` gives: the upload guard inside (it may answer a request by itself), the frame guard outside (every
answer, the upload guard's too, carries its headers)."""

from __future__ import annotations

import contextlib
import os

import cuda_ext

from ..maps import compile as umap_compile
from . import frame_guard, upload_guard

KERNEL_BUILD = "ANDREA_VIZ_KERNEL_BUILD"  # "background" (the default) or "inline": the first page that needs it builds it


def wrap_once(mark: str, guard) -> bool:
    """Wrap ``Starlette.__call__`` with ``guard`` (a function of the current ``__call__``) unless a wrapper marked
    ``mark`` is already in place; True when this call wrapped it. A wrapper carries the marks of what it wraps."""
    from starlette.applications import Starlette

    current = Starlette.__call__
    if getattr(current, mark, False):
        return False
    wrapped = guard(current)
    wrapped.__dict__.update({k: v for k, v in getattr(current, "__dict__", {}).items() if k.startswith("_andrea_")})
    setattr(wrapped, mark, True)
    Starlette.__call__ = wrapped
    return True


def install() -> bool:
    """Every hook, once per process (called when ``andrea_viz.ui`` is first imported in the server process); True
    when this call put any in place."""
    inner = wrap_once(upload_guard.MARK, upload_guard.refusing_call)
    return wrap_once(frame_guard.MARK, frame_guard.framed_call) or inner


def start_builds() -> None:
    """UMAP's numba code and the compiled kernels (the CPU one, and the CUDA one where a GPU is visible) start
    building at the lowest priority, each in a process of its own, unless on disk already (or the cache is off, or
    ``ANDREA_VIZ_KERNEL_BUILD=inline``: the test suite's setting, where a test that needs a kernel builds it). Calling
    it again while they run starts nothing more."""
    umap_compile.start_compile_process()
    if os.environ.get(KERNEL_BUILD, "background") != "inline":
        cuda_ext.start_background_build()


@contextlib.asynccontextmanager
async def at_start(_app):
    """The server's lifespan (``streamlit_app.py`` hands it to ``st.App``): the builds start as the server starts,
    before any visit."""
    start_builds()
    yield
