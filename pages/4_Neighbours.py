"""Nearest neighbours, analogies, and the input table against the output table."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.geometry import MAX_QUERY_CHARS, METRICS, analogy, anisotropy, anisotropy_note, jaccard, neighbours
from andrea_viz.i18n import _, num, sentences, tr
from andrea_viz.plots import neighbours as plots
from andrea_viz.precision import K as PRECISION_K
from andrea_viz.precision import PRECISIONS, measure
from andrea_viz.safe_text import md

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
aniso, aniso_c = ui.cached(emb, anisotropy), ui.cached(emb, anisotropy, True)
st.caption(sentences([tr(m) for m in anisotropy_note(aniso, aniso_c)]))
if q is not None:
    with ui.explain_errors():
        centre = centered and metric == "cosine"
        _q, found = ui.cached(emb, neighbours, q.text, k, metric, "input", centre)
        t1, t2 = st.columns([2, 3])
        ui.dataframe([{_("rank"): r, _("token"): n.token, "id": n.id, METRIC_LABELS[metric]: round(n.score, 4)}
                      for r, n in enumerate(found, 1)], where=t1, width="stretch")
        ui.chart(ui.cached(emb, plots.neighbours_of, q.text, k, metric, centre), where=t2, key="nb:bars")

st.subheader(_("Analogies: A − B + C"))
a1, a2, a3, a4 = st.columns([1, 1, 1, 1])
# in the model's language (koning …); rows #256, #257, #258 where it has no tokenizer to spell words with
first, minus, plus = ui.default_words(emb, ["king", "man", "woman"])
wa = a1.text_input("A", first, max_chars=MAX_QUERY_CHARS, help=_("The analogy reads: A is to B as ? is to C"))
wb = a2.text_input("− B", minus, max_chars=MAX_QUERY_CHARS)
wc = a3.text_input("+ C", plus, max_chars=MAX_QUERY_CHARS)
ka = a4.slider(_("Answers"), 3, 20, 5)
with ui.explain_errors():
    inputs, _answers = ui.cached(emb, analogy, wa, wb, wc, ka)
    ui.chart(ui.cached(emb, plots.analogy_of, wa, wb, wc, ka), key="nb:analogy")
    for x in inputs:
        if x.note:
            st.caption(tr(x.note, escape=md))

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
        ui.chart(ui.cached(emb, plots.spaces_of, q.text, k, "input"), where=o1, key="nb:in")
        ui.chart(ui.cached(emb, plots.spaces_of, q.text, k, "output"), where=o2, key="nb:out")
        st.metric(_("Overlap (Jaccard@{k})", k=k), num(jaccard([n.id for n in nin], [n.id for n in nout]), ".2f"),
                  help=_("shared ids ÷ all ids of the two lists: 1 when the tables agree"))
        ui.chart(ui.cached(emb, plots.input_output_of), key="nb:hist")

st.subheader(_("What a lower precision keeps"))
st.markdown(_("Store the table in fewer bits and read it back: for every token, the share of its {k} nearest by cosine "
              "that are still its {k} nearest (Jaccard@{k}, exact over the whole table, against float32). Q8_0 and "
              "Q4_0 are GGUF's blocks of 32 values with one scale, made by the gguf package itself.", k=PRECISION_K))
p1, p2 = st.columns([1, 3], vertical_alignment="bottom")
chosen = p1.selectbox(_("Precision"), PRECISIONS, index=PRECISIONS.index("q4_0"), key="nb:precision")
wanted = st.session_state.setdefault("nb:precision:asked", set())
if p2.button(_("Compare every token"), key="nb:precision:go"):
    wanted.add((emb.key, chosen))
if (emb.key, chosen) in wanted:
    with ui.explain_errors():
        r = ui.cached_with_progress(emb, measure, chosen, label=_("Searching every token's neighbours:"))
        m1, m2, m3 = st.columns(3)
        m1.metric(_("median Jaccard@{k}", k=r.k), num(r.median, ".2f"))
        m2.metric(_("5th percentile"), num(r.p05, ".2f"))
        m3.metric(_("tokens that kept all {k}", k=r.k), num(float((r.jaccard == 1).mean()), ".0%"))
        for label, (full, low) in r.pairs.items():
            st.caption(_("cos({pair}): {full:+.3f} at float32, {low:+.3f} at {name}", pair=label.replace("/", ", "),
                         full=full, low=low, name=chosen))
        ui.dataframe([{_("token"): emb.token(int(i)), "id": int(i), "Jaccard": round(float(r.jaccard[i]), 2)}
                      for i in r.worst(20)], width="content")
