"""Home: what the explorer is, where to start, the loaded model's card, neighbours of a word."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.geometry import neighbours
from andrea_viz.i18n import _
from andrea_viz.safe_text import md

emb = ui.page_setup(__file__)

st.title(_("ANDREA Embedding Explorer"))
st.markdown(_(
    "The first layer of a GPT-style model, made visible. A tokenizer turns text into integer ids; the **embedding "
    "layer** turns each id into a vector of `d_model` numbers by looking up one row of a table. This app lets you see "
    "that table, size it, measure the geometry of trained vectors, and follow "
    "`x_t = token_embedding[id_t] + position_embedding[t]` into block 1. It is the companion to the *embeddings* "
    "lesson of the course that grows **ANDREA**; the Lesson page walks through it step by step."))

st.subheader(_("Where to start"))
ui.nav.table_of_contents()

st.subheader(_("The loaded model: {label}", label=md(ui.model_label(emb.key))))
st.caption(_("Change it in the sidebar; every page follows."))
ui.model_card(emb)

st.subheader(_("Neighbours of a word"))
st.caption(_("The rows whose direction is closest (cosine similarity), searched over the whole table."))
q = ui.token_picker(emb, key="home:query")
if q is not None:
    with ui.explain_errors():
        _q, found = neighbours(emb, q.text, k=10, metric="cosine")
        st.dataframe(ui.localized([{_("rank"): r, _("token"): n.token, "id": n.id, _("cosine"): round(n.score, 4)}
                      for r, n in enumerate(found, 1)]), hide_index=True, width="content")
        if emb.card.get("untrained"):
            st.caption(_("An untrained table: these rows are random directions, all nearly perpendicular to the query "
                         "(cosines near 0). Training is what gathers related tokens; try ANDREA-micro or "
                         "all-MiniLM-L6-v2."))
