"""The server: ``streamlit run streamlit_app.py`` serves the app (its pages: ``home.py`` and ``pages/``) as an
``st.App``, with the frame and upload guards on from its first response, the slow builds started as it starts and the
class's one route (``andrea_viz.web``: nothing of the pages is imported here, before Streamlit's runtime)."""

import streamlit as st

from andrea_viz.web import class_events, hooks

hooks.install()
app = st.App("home.py", lifespan=hooks.at_start, routes=class_events.routes())
