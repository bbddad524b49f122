"""A class: a teacher's code, the learners who joined it, their answers and the presenter's pacing.

``store`` keeps them (SQLite by default, PostgreSQL for several servers), ``codes`` makes and checks the codes,
``answers`` turns the stored answers into tallies and a misconception grid. No Streamlit here (andrea_viz.ui.classroom).
"""
