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
    """The URL's value for ``name`` the first time this session asks (by ``read``'s rule), else ``default``.
    After the first time the widget's own state rules."""
    seen = st.session_state.setdefault(SEEN, set())
    if name in seen:
        return default
    seen.add(name)
    return read(name, default, parse, allowed)


def read(name: str, default: Any, parse: Callable[[str], Any] = str, allowed: Sequence | None = None,
         say: bool = True) -> Any:
    """The one rule for an address value: ``parse(raw)`` when the URL gives ``name`` (and one of ``allowed`` when
    given), else ``default``. A value that is too long, holds a NUL, or that ``parse`` raises anything on is
    refused: one sentence (unless ``say`` is False) and the default, never a traceback."""
    raw = st.query_params.get(name)
    if raw is None:
        return default
    ok, value = parsed(raw, parse, allowed)
    if not ok:
        if say:
            refused(name, raw)
        return default
    return value


def parsed(raw: str, parse: Callable[[str], Any] = str, allowed: Sequence | None = None) -> tuple[bool, Any]:
    """(True, value) when ``raw`` is short, has no NUL, parses, and is allowed; else (False, None)."""
    if len(raw) > MAX_CHARS or "\x00" in raw:
        return False, None
    try:
        value = parse(raw)
        ok = value is not None and (allowed is None or value in allowed)
    except Exception:  # noqa: BLE001 - whatever a parser raises on an address value, the value is refused
        return False, None
    return (True, value) if ok else (False, None)


def flag(raw: str) -> bool:
    """A parser for an on/off address value: 1 or 0."""
    if raw not in ("0", "1"):
        raise ValueError(raw)
    return raw == "1"


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
                 name=md(name), value=md(raw, limit=40)), icon=":material/warning:")


def keep(**values: Any) -> None:
    """Write values to the URL (None removes the name)."""
    for name, value in values.items():
        if value is None:
            st.query_params.pop(name, None)
        elif st.query_params.get(name) != str(value):
            st.query_params[name] = str(value)
