"""A class: the teacher's live view of the learners' answers (behind the teacher key), and the learners' join form."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.i18n import _

ui.page_setup(__file__)
st.title(_("A class"))
ui.classroom.class_page()
