"""Every plotly chart of the app, drawn with its words: under the chart an expander holds the figure's summary (what
it shows and its main numbers, in the reader's language, from ``plots.words``) and, where the figure holds values,
a small HTML table (``st.table``) a screen reader can walk row by row. Pages and panels call ``chart`` where they
would call ``st.plotly_chart``."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ..i18n import _
from ..plots.words import Words, words_of
from ..safe_text import md

WORDS_BOX = "chart-words"  # the class prefix of each chart's words (st-key-chart-words-<key>), for the browser tests


def chart(fig, *, key: str, where=None, in_words: bool = True, **kw):
    """``where.plotly_chart(fig, key=key, **kw)`` (``where``: st or a column; its return value, the selection of a
    chart drawn with ``on_select``), then the figure's words in an expander below it (in the Lesson's presenter mode
    too). ``in_words=False``: the chart alone."""
    where = st if where is None else where
    event = where.plotly_chart(fig, key=key, **kw)
    if in_words:
        words_box(words_of(fig), key=key, where=where)
    return event


def words_box(said: Words, *, key: str, where=None) -> None:
    """A figure's words (``said``) in their expander, in ``where`` (st or a column): under a plotly chart (``chart``),
    or under a picture drawn another way (the canvas and deck.gl maps)."""
    where = st if where is None else where
    label = _("In words: {title}", title=md(said.title)) if said.title else _("This chart in words")
    with where.container(key=f"{WORDS_BOX}-{key}".replace(":", "-")), st.expander(label):
        st.markdown(md(said.summary, limit=None))
        if said.table:
            st.table(pd.DataFrame({md(col): [md(v, limit=200) for v in values] for col, values in said.table.items()}),
                     hide_index=True)
        if said.note:
            st.caption(said.note)
