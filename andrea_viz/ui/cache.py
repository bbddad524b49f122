"""One model object per source, shared by every page and session, and derived arrays cached
by (model key, function, parameters). Nothing here hashes an array."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from ..loading import load
from ..model import Embeddings


@st.cache_resource(show_spinner="Loading the model's tables…", max_entries=6)
def get_model(source: str) -> Embeddings:
    """The model for a built-in name (read-only, shared by all sessions)."""
    return load(source)


@st.cache_resource(show_spinner="Computing…", max_entries=64)
def _cached_call(model_key: str, fn_name: str, part: str | None, args: tuple, _fn: Callable, _emb: Embeddings) -> Any:
    target = _emb if part is None else getattr(_emb, part)
    return _fn(target, *args)


def cached(emb: Embeddings, fn: Callable, *args: Any, part: str | None = None) -> Any:
    """``fn(emb, *args)`` (or ``fn(getattr(emb, part), *args)``), computed once per model and arguments.

    Arguments must be small and hashable (numbers, strings, tuples).
    """
    return _cached_call(emb.key, f"{fn.__module__}.{fn.__qualname__}", part, args, fn, emb)
