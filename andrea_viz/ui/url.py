"""View state in the URL, so a view can be shared: a value is read from the query string when the
session first meets it, and written back on every run (``?word=dog``, ``?method=umap&n=all``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

SEEN = "_url_seen"  # session_state: the names already taken from the URL in this session


def initial(name: str, default: Any, parse: Callable[[str], Any] = str, allowed: Sequence | None = None) -> Any:
    """The URL's value for ``name`` the first time this session asks (parsed, and one of ``allowed`` when
    given), else ``default``. After the first time the widget's own state rules."""
    seen = st.session_state.setdefault(SEEN, set())
    if name in seen:
        return default
    seen.add(name)
    raw = st.query_params.get(name)
    if raw is None:
        return default
    try:
        value = parse(raw)
    except (TypeError, ValueError):
        return default
    return value if allowed is None or value in allowed else default


def keep(**values: Any) -> None:
    """Write values to the URL (None removes the name)."""
    for name, value in values.items():
        if value is None:
            st.query_params.pop(name, None)
        elif st.query_params.get(name) != str(value):
            st.query_params[name] = str(value)
