"""The app's server, below Streamlit's pages and without Streamlit: the guards on every request (``hooks``,
``frame_guard``, ``upload_guard``) and what starts with the server. ``streamlit_app.py`` imports only this, so no page
code (and no component) is loaded before Streamlit's runtime is."""
