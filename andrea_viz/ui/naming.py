"""Tables named by hand: a file (from the checkpoint folder or uploaded) whose tables no known name says is kept
with its 2-D tensors, and ``table_picker`` asks which is the token, position and output table. A file of the
checkpoint folder read with tables named by hand keeps them in its address: ``?model=folder:<path>&tables=token:<key>,
position:<key>,output:<key>`` (``tables_address`` writes it, ``tables_in_address`` parses it by url's one rule)."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from ..checkpoints.tables import NoTableError
from ..i18n import _, num
from ..model import Embeddings
from ..safe_text import md
from . import url
from .errors import explain_errors

NAMING = "_checkpoint:naming"  # session_state: a Pending file to name
ROLES = ("token", "position", "output")
TABLES_PARAM = "tables"  # the address name of the tables named by hand, beside ?model=folder:<path>


def tables_in_address(raw: str) -> dict[str, str]:
    """The tables an address names, ``token:arr_0,position:arr_1`` -> {"token": "arr_0", "position": "arr_1"}
    (a key may hold ``:``, never ``,``); ValueError for anything else: an unknown or repeated role, an empty key or
    one with a control character, no token table."""
    named: dict[str, str] = {}
    for part in raw.split(","):
        role, sep, key = part.partition(":")
        if not sep or role not in ROLES or role in named or not key or not key.isprintable():
            raise ValueError(part)
        named[role] = key
    if "token" not in named:
        raise ValueError(raw)
    return named


def tables_address(tables: dict[str, str]) -> str | None:
    """The address value of tables named by hand (``tables_in_address`` reads it back), or None when it cannot say
    them: a key holding ``,`` or a control character, or a value longer than url's limit."""
    named = {r: tables[r] for r in ROLES if tables.get(r)}
    text = ",".join(f"{r}:{k}" for r, k in named.items())
    ok, back = url.parsed(text, tables_in_address)
    return text if ok and back == named else None


class Pending:
    """A file waiting for its tables to be named: ``where`` ("folder" or "upload"), its name as shown, its
    tensors [(key, shape)], ``read(tables)`` -> the model, and ``drop()`` for a file given up."""

    def __init__(self, where: str, name: str, exc: NoTableError, read: Callable[[dict[str, str]], Embeddings],
                 drop: Callable[[], None] = lambda: None):
        self.where, self.name, self.tensors, self.read, self.drop = where, name, exc.tensors, read, drop


def offer(pending: Pending) -> None:
    """Keep ``pending`` for the picker; a file kept before (and never named) is given up."""
    forget()
    st.session_state[NAMING] = pending


def forget() -> None:
    old = st.session_state.pop(NAMING, None)
    if old is not None:
        old.drop()


def _tensor_label(key: str, shape: tuple[int, ...]) -> str:
    rows, cols = shape[-2:]
    return f"{key} · " + _("{a} × {b}", a=num(rows), b=num(cols))


def table_picker(where: str) -> Embeddings | None:
    """For the file kept from ``where`` whose tables no known name says: pickers of its 2-D tensors (with shapes)
    for the token, position and output tables, the largest offered first as a stated guess; the model once read
    with them, else None."""
    pending = st.session_state.get(NAMING)
    if pending is None or pending.where != where:
        return None
    shapes = dict(pending.tensors)
    keys = list(shapes)
    label = {k: _tensor_label(k, s) for k, s in shapes.items()} | {"-": _("(none)")}
    st.markdown("**" + _("Name the tables of {name}", name=md(pending.name)) + "**")
    token = st.selectbox(_("Token table"), keys, key="ckpt:name:token", format_func=label.__getitem__)
    st.caption(_("Offered first: the largest 2-D array, taken as the token table. That is a guess; pick another "
                 "tensor if it is not the table. The card says which tables were named by hand."))
    position = st.selectbox(_("Position table"), ["-", *keys], key="ckpt:name:position", format_func=label.__getitem__)
    output = st.selectbox(_("Output table"), ["-", *keys], key="ckpt:name:output", format_func=label.__getitem__)
    if not st.button(_("Read it with these tables"), key="ckpt:name:read"):
        return None
    named = dict(zip(ROLES, (token, position, output), strict=True))
    with explain_errors():
        emb = pending.read({r: k for r, k in named.items() if k != "-"})
        st.session_state.pop(NAMING, None)  # read: its files are the model's now
        return emb
    return None
