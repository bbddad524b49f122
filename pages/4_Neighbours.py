"""Nearest neighbours, analogies, and the input table against the output table."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.geometry import ANISOTROPY_PAIRS, METRICS, analogy, anisotropy, jaccard, neighbours
from andrea_viz.i18n import _, num, tr
from andrea_viz.plots import neighbours as plots

emb = ui.page_setup(__file__)
METRIC_LABELS = {"cosine": _("cosine"), "dot": _("dot"), "euclidean": _("euclidean")}
st.title(_("Nearest neighbours"))
st.markdown(_("The rows closest to a word, searched exactly over all {V:,} rows of the token table.", V=emb.vocab_size))
ui.offer_trained_example(emb, "nb")

c1, c2, c3 = st.columns([2, 1, 1])
with c1:
    q = ui.token_picker(emb, key="nb:query", url_name="word")
k = c2.slider(_("How many (k)"), 5, 50, 10, help=_("The query's own rows are never counted."))
metric = c3.radio(_("Measure"), METRICS, horizontal=True, format_func=METRIC_LABELS.get,
                  help=_("cosine: direction only; dot: direction and length; euclidean: straight-line distance"))
centered = st.toggle(_("Mean-centred cosine"), value=False, disabled=metric != "cosine",
                     help=_("Subtract the table's average row before measuring angles (cosine only)."))
aniso, aniso_c = ui.cached(emb, anisotropy), ui.cached(emb, anisotropy, ANISOTROPY_PAIRS, 0, True)
st.caption(_(
    "Anisotropy (mean cosine of {n:,} random pairs): {raw:+.4f} raw, {centred:+.4f} mean-centred. When every vector "
    "leans the same way, all raw cosines are inflated by that shared direction; subtracting the mean row removes it, "
    "so the neighbours that remain are similar for their own reasons.", n=ANISOTROPY_PAIRS, raw=aniso, centred=aniso_c))
if q is not None:
    with ui.explain_errors():
        centre = centered and metric == "cosine"
        _q, found = ui.cached(emb, neighbours, q.text, k, metric, "input", centre)
        t1, t2 = st.columns([2, 3])
        t1.dataframe([{_("rank"): r, _("token"): n.token, "id": n.id, METRIC_LABELS[metric]: round(n.score, 4)}
                      for r, n in enumerate(found, 1)], hide_index=True, width="stretch")
        t2.plotly_chart(ui.cached(emb, plots.neighbours_of, q.text, k, metric, centre), key="nb:bars")

st.subheader(_("Analogies: A − B + C"))
a1, a2, a3, a4 = st.columns([1, 1, 1, 1])
wa = a1.text_input("A", "king", help=_("The analogy reads: A is to B as ? is to C"))
wb = a2.text_input("− B", "man")
wc = a3.text_input("+ C", "woman")
ka = a4.slider(_("Answers"), 3, 20, 5)
with ui.explain_errors():
    inputs, _answers = ui.cached(emb, analogy, wa, wb, wc, ka)
    st.plotly_chart(ui.cached(emb, plots.analogy_of, wa, wb, wc, ka), key="nb:analogy")
    for x in inputs:
        if x.note:
            st.caption(tr(x.note))

st.subheader(_("Input table versus output table"))
if emb.output_kind != "untied":
    st.info(_("This model's output is **tied**: the output projection reuses the token table, so both give the same "
              "neighbours.") if emb.output_kind == "tied" else
            _("This model has no output head (an encoder), so there is only the input table."))
elif q is not None:
    with ui.explain_errors():
        _q, nin = ui.cached(emb, neighbours, q.text, k, "cosine", "input", False)
        _q, nout = ui.cached(emb, neighbours, q.text, k, "cosine", "output", False)
        o1, o2 = st.columns(2)
        o1.plotly_chart(ui.cached(emb, plots.spaces_of, q.text, k, "input"), key="nb:in")
        o2.plotly_chart(ui.cached(emb, plots.spaces_of, q.text, k, "output"), key="nb:out")
        st.metric(_("Overlap (Jaccard@{k})", k=k), num(jaccard([n.id for n in nin], [n.id for n in nout]), ".2f"),
                  help=_("shared ids ÷ all ids of the two lists: 1 when the tables agree"))
        st.plotly_chart(ui.cached(emb, plots.input_output_of), key="nb:hist")
