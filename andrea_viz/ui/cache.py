"""One model object per source, shared by every page and session, and derived arrays cached
by (model key, function, parameters). Nothing here hashes an array."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import streamlit as st

from ..i18n import N_, language, tr
from ..loading import load
from ..model import Embeddings


@st.cache_resource(show_spinner=False, max_entries=6)
def _model(source: str) -> Embeddings:
    return load(source)


def get_model(source: str) -> Embeddings:
    """The model for a built-in name (read-only, shared by all sessions), with a spinner in the reader's language
    (Streamlit's own ``show_spinner`` text is fixed when the module is imported). Every call passes through it:
    the cache keeps six models, and a seventh evicts one, which is then loaded again; Streamlit draws a spinner only
    once its block has run 0.5 s, so a model in the cache shows nothing."""
    with st.spinner(tr(N_("Loading the model's tables…"))):
        return _model(source)


@st.cache_resource(show_spinner=False, max_entries=256)
def _cached_call(model_key: str, fn_name: str, part: str | None, args: tuple, lang: str, _fn: Callable,
                 _emb: Embeddings) -> Any:
    target = _emb if part is None else getattr(_emb, part)
    return _fn(target, *args)


def cached(emb: Embeddings, fn: Callable, *args: Any, part: str | None = None) -> Any:
    """``fn(emb, *args)`` (or ``fn(getattr(emb, part), *args)``), computed once per model, arguments and
    language (a figure holds text in the reader's language). Shared by every session: never mutate it.

    Arguments must be small and hashable (numbers, strings, tuples).
    """
    return _cached_call(emb.key, f"{fn.__module__}.{fn.__qualname__}", part, args, language(), fn, emb)


@st.cache_resource(show_spinner=False, max_entries=256)
def _figure(fn_name: str, args: tuple, lang: str, _fn: Callable) -> Any:
    return _fn(*args)


def figure(fn: Callable, *args: Any) -> Any:
    """A figure that depends only on small, hashable arguments (no model), built once per language."""
    return _figure(f"{fn.__module__}.{fn.__qualname__}", args, language(), fn)


class _Flight:
    """A computation under way in one session, which other sessions asking for the same key wait on."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.fraction = 0.0
        self.text: Any = ""  # untranslated: each waiting session reads it in its own language


@st.cache_resource(show_spinner=False)
def _slow_store() -> tuple[dict, dict, threading.Lock]:
    return {}, {}, threading.Lock()


def remember(key: tuple, compute: Callable[[Callable[[float, Any], None]], Any], label: str | None,
             max_entries: int = 24, per_language: bool = True) -> Any:
    """``compute(progress)`` once per key, with a progress bar the first time (none when ``label`` is None);
    the second view is instant. Shared by all sessions, so the key must name everything the result depends
    on (model keys, arguments); the language is added to it, unless the result holds no text
    (``per_language=False``: a clustering, whose labels are rendered where they are drawn).

    A session that asks while another computes the same key waits for that computation, its bar following
    the other's progress, instead of computing it again; if that computation fails or its session goes away,
    the waiting session computes it itself."""
    store, flights, lock = _slow_store()
    key = (*key, language()) if per_language else key
    while True:
        with lock:
            if key in store:
                return store[key]
            flight = flights.get(key)
            if flight is None:
                flight = flights[key] = _Flight()
                break
        _wait_for(flight, label)
    bar = None if label is None else st.progress(0.0, text=label)

    def progress(f: float, text: Any) -> None:
        flight.fraction, flight.text = min(max(f, 0.0), 1.0), text
        if bar is not None:
            bar.progress(flight.fraction, text=f"{label} {tr(text)}")

    try:
        result = compute(progress)
        with lock:
            store[key] = result
            while len(store) > max_entries:
                store.pop(next(iter(store)))
    finally:
        with lock:
            flights.pop(key, None)
        flight.done.set()
        if bar is not None:
            bar.empty()
    return result


def _wait_for(flight: _Flight, label: str | None) -> None:
    """Wait for another session's computation, showing its progress."""
    bar = None if label is None else st.progress(flight.fraction, text=label)
    try:
        while not flight.done.wait(0.25):
            if bar is not None:
                bar.progress(flight.fraction, text=f"{label} {tr(flight.text)}".rstrip())
    finally:
        if bar is not None:
            bar.empty()


def cached_with_progress(emb: Embeddings, fn: Callable, *args: Any, label: str = "…",
                         max_entries: int = 24, **kwargs: Any) -> Any:
    """``fn(emb, *args, progress=callback, **kwargs)`` computed once per (model, arguments), with a
    progress bar the first time; the second view is instant. Shared by all sessions."""
    key = (emb.key, f"{fn.__module__}.{fn.__qualname__}", args, tuple(sorted(kwargs.items())))
    return remember(key, lambda progress: fn(emb, *args, progress=progress, **kwargs), label, max_entries)
