"""View state in the URL, so a view can be shared: a value is read from the query string when the
session first meets it, and written back on every run (``?word=dog``, ``?method=umap&n=all``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from ..i18n import _
from ..safe_text import md

MAX_CHARS = 200  # an address value longer than this is refused unread
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
        value = parse(raw) if len(raw) <= MAX_CHARS else None
    except (TypeError, ValueError, OverflowError):
        value = None
    if value is None or (allowed is not None and value not in allowed):
        refused(name, raw)
        return default
    return value


def int_in(lo: int, hi: int) -> Callable[[str], int]:
    """A parser for an address value: a plain decimal integer from lo to hi (``²``, ``-1`` or ``1e3`` are refused)."""

    def parse(raw: str) -> int:
        if not raw.isascii() or not raw.isdigit() or not lo <= int(raw) <= hi:
            raise ValueError(raw)
        return int(raw)

    return parse


def refused(name: str, raw: str) -> None:
    """Say that an address value was not used (the page goes on with its default)."""
    st.warning(_("The address gives {name}={value}, which this page cannot use; it shows its default instead.",
                 name=md(name), value=md(raw, limit=40)), icon="⚠️")


def keep(**values: Any) -> None:
    """Write values to the URL (None removes the name)."""
    for name, value in values.items():
        if value is None:
            st.query_params.pop(name, None)
        elif st.query_params.get(name) != str(value):
            st.query_params[name] = str(value)
