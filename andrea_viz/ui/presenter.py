"""Presenter mode's own controls (the Lesson page on a projector): the sidebar is hidden there, so the language is
picked on screen, beside the step menu, whose titles are shown whole."""

from __future__ import annotations

import streamlit as st

from ..i18n import LANGUAGES, language
from . import state

PICKER = "lesson:language"
PICKER_LABEL = "Language · 語言 · Taal · Idioma"  # the sidebar's label: written in all four languages on purpose
MENU_WIDTH = {False: 320, True: 440}  # px: in presenter mode the longest title (46 characters) whole

# A page on a projector (presenter mode, "show the class"): the whole screen for the page (no sidebar, no header),
# and no text of Streamlit's under 18 px (captions, metric labels, tables, code chips)
PROJECTOR_CSS = """
html { font-size: 18px; }
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], header[data-testid="stHeader"],
[data-testid="stSidebarNav"] { display: none !important; }
[data-testid="stMainBlockContainer"] { padding: 0.6rem 1.4rem 0 1.4rem !important; max-width: 100% !important; }
[data-testid="stMain"] :not(svg, svg *, .katex, .katex *, h1, h2, h3, [data-testid="stMetricValue"],
[data-testid="stMetricValue"] *) { font-size: max(18px, 1em) !important; }
[data-testid="stMain"] [data-testid="stMetricValue"] { font-size: 1.8rem !important; }
"""


def _take_language() -> None:
    st.session_state[state.LANGUAGE] = st.session_state[PICKER]


def language_on_screen() -> None:
    """The language picker in the page itself (presenter mode hides the sidebar's): the session's language, changed
    for every page as the sidebar's picker changes it."""
    st.session_state[PICKER] = language()
    st.selectbox(PICKER_LABEL, list(LANGUAGES), key=PICKER, format_func=LANGUAGES.__getitem__,
                 on_change=_take_language, label_visibility="collapsed", width=210)
