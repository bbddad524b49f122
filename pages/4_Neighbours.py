"""Nearest neighbours, analogies, and the input table against the output table."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.geometry import (
    ANISOTROPY_PAIRS, METRICS, analogy, anisotropy, input_output_cosines, jaccard, neighbors,
)
from andrea_viz.plots import neighbours as plots

emb = ui.page_setup(__file__)
st.title("Nearest neighbours")
st.markdown("The rows closest to a word, searched exactly over all "
            f"{emb.vocab_size:,} rows of the token table.")
ui.offer_trained_example(emb, "nb")

c1, c2, c3 = st.columns([2, 1, 1])
with c1:
    q = ui.token_picker(emb, key="nb:query")
k = c2.slider("How many (k)", 5, 50, 10, help="The query's own rows are never counted.")
metric = c3.radio("Measure", METRICS, horizontal=True,
                  help="cosine: direction only; dot: direction and length; euclidean: straight-line distance")
centered = st.toggle("Mean-centred cosine", value=False, disabled=metric != "cosine",
                     help="Subtract the table's average row before measuring angles (cosine only).")
aniso, aniso_c = ui.cached(emb, anisotropy), ui.cached(emb, anisotropy, ANISOTROPY_PAIRS, 0, True)
st.caption(
    f"Anisotropy (mean cosine of {ANISOTROPY_PAIRS:,} random pairs): {aniso:+.4f} raw, {aniso_c:+.4f} mean-centred. "
    "When every vector leans the same way, all raw cosines are inflated by that shared direction; "
    "subtracting the mean row removes it, so the neighbours that remain are similar for their own reasons."
)
if q is not None:
    with ui.explain_errors():
        query, found = neighbors(emb, q.text, k=k, metric=metric, centered=centered and metric == "cosine")
        t1, t2 = st.columns([2, 3])
        t1.dataframe([{"rank": r, "token": n.token, "id": n.id, metric: round(n.score, 4)}
                      for r, n in enumerate(found, 1)], hide_index=True, width="stretch")
        t2.plotly_chart(plots.neighbour_bars(found, query.text, metric))

st.subheader("Analogies: A − B + C")
a1, a2, a3, a4 = st.columns([1, 1, 1, 1])
wa = a1.text_input("A", "king", help="The analogy reads: A is to B as ? is to C")
wb = a2.text_input("− B", "man")
wc = a3.text_input("+ C", "woman")
ka = a4.slider("Answers", 3, 20, 5)
with ui.explain_errors():
    inputs, answers = analogy(emb, wa, wb, wc, k=ka)
    notes = [x.note for x in inputs if x.note]
    st.plotly_chart(plots.neighbour_bars(answers, f"{wa} − {wb} + {wc}", "cosine",
                                         title=f"{wa} − {wb} + {wc} ≈ ? (the three inputs excluded)"))
    for n in notes:
        st.caption(n)

st.subheader("Input table versus output table")
if emb.output_kind != "untied":
    st.info(f"This model's output is **{emb.output_kind}**: "
            + ("the output projection reuses the token table, so both give the same neighbours."
               if emb.output_kind == "tied" else "it has no output head (an encoder), so there is only the input table."))
elif q is not None:
    with ui.explain_errors():
        _, nin = neighbors(emb, q.text, k=k, metric="cosine", space="input")
        _, nout = neighbors(emb, q.text, k=k, metric="cosine", space="output")
        o1, o2 = st.columns(2)
        o1.plotly_chart(plots.neighbour_bars(nin, q.text, "cosine", title=f"Input table: nearest to “{q.text}”"))
        o2.plotly_chart(plots.neighbour_bars(nout, q.text, "cosine", title=f"Output table: nearest to “{q.text}”",
                                             color="#9467bd"))
        st.metric(f"Overlap (Jaccard@{k})", f"{jaccard([n.id for n in nin], [n.id for n in nout]):.2f}",
                  help="shared ids ÷ all ids of the two lists: 1 when the tables agree")
        st.plotly_chart(plots.input_output_histogram(ui.cached(emb, input_output_cosines)))
