"""``ui.fragment``: st.fragment that also times its body, so ``bench-pages`` can report what a slider
drag costs (AppTest cannot rerun a fragment alone). The language is set again inside, as a fragment's
rerun runs only its own body."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable

import streamlit as st

from .. import i18n
from . import state

TIMINGS = "_fragment_seconds"  # session_state: fragment name -> the last body's seconds


def fragment(fn: Callable | None = None, *, run_every: float | None = None):
    def wrap(f: Callable) -> Callable:
        @functools.wraps(f)
        def body(*args, **kwargs):
            i18n.set_language(st.session_state.get(state.LANGUAGE))
            t = time.perf_counter()
            try:
                return f(*args, **kwargs)
            finally:
                st.session_state.setdefault(TIMINGS, {})[f.__name__] = time.perf_counter() - t

        return st.fragment(body, run_every=run_every)

    return wrap(fn) if fn is not None else wrap
