"""Widgets used on more than one page."""

from __future__ import annotations

import streamlit as st

from ..errors import QueryError
from ..family import FIRST_SEGMENT_ID
from ..geometry import Query, resolve
from ..i18n import tr
from ..model import Embeddings


def default_word(emb: Embeddings, preferred: str = "cat") -> str:
    """``preferred`` when the model can look it up as a word, else the first segment id of an ANDREA
    table (#256), else row 0."""
    try:
        resolve(emb, preferred)
        return preferred
    except QueryError:
        return f"#{FIRST_SEGMENT_ID}" if emb.vocab_size > FIRST_SEGMENT_ID else "#0"


def token_picker(emb: Embeddings, key: str, label: str = "Word or token id", preferred: str = "cat") -> Query | None:
    """A text box for a word or ``#id``; shows the pieces it became. None (with a message) when it
    cannot be resolved."""
    text = st.text_input(
        label, value=default_word(emb, preferred), key=f"{key}:{emb.key}",
        help="A word is split by the model's tokenizer; write #42 to pick row 42 directly.",
    )
    try:
        q = resolve(emb, text)
    except QueryError as exc:
        st.error(tr(exc.msg), icon="⚠️")
        return None
    chips = "  ".join(f"`{p}` #{i}" for p, i in zip(q.pieces, q.ids, strict=True))
    st.caption(f"Tokens: {chips}" + (f" — {q.note}" if q.note else ""))
    return q
