"""Widgets used on more than one page."""

from __future__ import annotations

import streamlit as st

from ..byte_tokens import shown_token
from .. import lexicon
from ..errors import QueryError
from ..family import FIRST_SEGMENT_ID
from ..geometry import MAX_QUERY_CHARS, Query, resolve
from ..i18n import _, num, tr
from ..model import Embeddings
from ..safe_text import md, md_code
from ..model_words import lesson_word
from . import url
from .errors import show_error

MAX_CHIPS = 64  # tokens listed under a box
MAX_TEXT_CHARS = 2_000  # a sentence typed to be tokenized
GROUPED_FROM = 1_000  # whole numbers from here on are written with the language's group mark (16.384 in nl)


def token_chips(pieces, ids) -> str:
    """Markdown for tokens as chips, each a code span holding the token (escaped; a byte token with what it is:
    "␣ (space byte)", andrea_viz.byte_tokens) and its id."""
    chips = "  ".join(f"{md_code(shown_token(p))} #{i}" for p, i in zip(pieces[:MAX_CHIPS], ids, strict=False))
    return chips + (_(" … and {n:,} more", n=len(ids) - MAX_CHIPS) if len(ids) > MAX_CHIPS else "")


def default_word(emb: Embeddings, preferred: str = "cat") -> str:
    """``preferred`` (one of the lesson's words, cat or dog, written in the model's own language: kat on
    andrea-micro-nl) when the model can look it up as a word, else the first segment id of an ANDREA table (#256),
    else row 0. A word the model splits is kept: the picker says it is several tokens."""
    preferred = lesson_word(emb, preferred) if preferred in lexicon.WORDS[lexicon.ENGLISH] else preferred
    try:
        resolve(emb, preferred)
        return preferred
    except QueryError:
        return f"#{FIRST_SEGMENT_ID}" if emb.vocab_size > FIRST_SEGMENT_ID else "#0"


def default_words(emb: Embeddings, preferred: list[str]) -> list[str]:
    """``default_word`` of each; where the model cannot look up any of them as words (a checkpoint without a
    tokenizer), distinct rows from the first it would pick (#256, #257, …), not one row for each."""
    words = [default_word(emb, p) for p in preferred]
    if all(w.startswith("#") for w in words):
        first = int(words[0][1:])
        return [f"#{min(first + i, emb.vocab_size - 1)}" for i in range(len(words))]
    return words


def token_picker(emb: Embeddings, key: str, label: str | None = None, preferred: str = "cat",
                 url_name: str | None = None, mean_note: bool = True) -> Query | None:
    """A text box for a word or ``#id``; shows the pieces it became. None (with a message) when it cannot be
    resolved. ``url_name``: the word is read from and kept in the URL under that name (``?word=dog``).
    ``mean_note``: a word of several tokens is said to stand for the mean of their rows (as it does where the
    query's vector is used); a page that shows the rows themselves says what it shows instead."""
    widget = f"{key}:{emb.key}"
    default = default_word(emb, preferred)
    if widget not in st.session_state:  # the widget's value lives in the session from here on
        st.session_state[widget] = url.initial(url_name, default) if url_name is not None else default
    text = st.text_input(label or _("Word or token id"), key=widget, max_chars=MAX_QUERY_CHARS,
                         help=_("A word is split by the model's tokenizer; write #42 to pick row 42 directly."))
    if url_name is not None:
        url.keep(**{url_name: text or None})
    try:
        q = resolve(emb, text or "")
    except QueryError as exc:
        show_error(exc)
        return None
    note = q.note if mean_note else None
    st.caption(_("Tokens: {chips}", chips=token_chips(q.pieces, q.ids)) + (f" — {tr(note, escape=md)}" if note else ""))
    return q


def metric_columns(spec, where=None) -> list:
    """Columns for a row of metrics (``spec`` as ``st.columns`` takes it), aligned at their bottoms: a label or heading
    that wraps in one column (Dutch and Portuguese labels are longer) keeps every value on one line."""
    return (where or st).columns(spec, vertical_alignment="bottom")


def slider_values(lo: float, hi: float, step: float) -> list[float]:
    """The values a number slider offers, lo to hi by step, each rounded so that 0.1 + 0.2 is 0.3."""
    n = int(round((hi - lo) / step))
    return [round(lo + i * step, 10) for i in range(n + 1)]


def number_slider(label: str, lo: float, hi: float, value: float, step: float, spec: str = ".2f", *,
                  container=None, **kwargs) -> float:
    """A slider over lo..hi by step whose value is written by the language's formatter (``spec``: "1,00" in nl and
    pt-BR, "1.00" in en and zh-TW; whole numbers with ``spec=","``: "1.000" in nl, "1,000" in en). Streamlit's own number slider writes its value with a printf format, which has
    no decimal comma, and its "localized" format follows the browser, not the page's language: so a select slider
    over the allowed values, each shown through ``num``. ``kwargs`` go to ``st.select_slider`` (key, help,
    on_change, args); ``container`` is where it is drawn (a column), Streamlit's main area by default."""
    options = slider_values(lo, hi, step)
    value = min(options, key=lambda v: abs(v - value))
    return (container or st).select_slider(label, options=options, value=value, format_func=lambda v: num(v, spec),
                                           **kwargs)


def whole_number_input(label: str, lo: int, hi: int, value: int | None = None, *, container=None, **kwargs) -> int:
    """``st.number_input`` for a whole number, its value written again beneath it by the language's formatter once it
    reaches 1,000 (16384 typed, "16.384" shown in nl). Streamlit's box writes its value with printf, which cannot
    group, and its "localized" format follows the browser, not the page's language; the box is kept because a
    learner types plain digits and steps with − / + there, and the echo reads the figure the lesson's way.
    ``value`` None: the value is the one in the session under ``kwargs["key"]``. ``container``: a column, or the
    main area."""
    box = container or st
    n = box.number_input(label, lo, hi, *(() if value is None else (value,)), **kwargs)
    if n is not None and abs(n) >= GROUPED_FROM:
        box.caption(num(int(n)))
    return n
