"""Inside the table: rows that never trained, dimensions that dominate, and hubs."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.anatomy import hubs
from andrea_viz.anatomy.dims import stats_of, views
from andrea_viz.anatomy.reference import REASONS
from andrea_viz.anatomy.report import INDICATOR_NAMES, hub_views, indicator_reason, undertrained_of
from andrea_viz.i18n import _, num, tr
from andrea_viz.plots import anatomy as plots

emb = ui.page_setup(__file__)
st.title(_("Inside the table"))
st.markdown(_("Rows that never trained, dimensions that dominate every cosine, and hubs: three things a trained table "
              "of {V:,} rows × {d:,} dimensions carries that no single row shows.", V=emb.vocab_size, d=emb.d_model))

# --- 1. rows that never trained ---------------------------------------------------------------------------
st.header(_("Rows that never trained"))
st.markdown(_("Backpropagation moves a row only when its id is in a batch. A row whose token the training data never "
              "held keeps its initial values, or decays. Magikarp's indicators find such rows from the table alone."))
with st.expander(_("Reference ids (optional): one id a line, replacing the set found from the tokenizer")):
    ref_text = st.text_area(_("Reference ids"), key=f"anatomy:ref:{emb.key}", height=100).strip() or None
with ui.explain_errors():
    u = ui.cached(emb, undertrained_of, ref_text)
    r, ref = u.ranked, u.reference
    note = tr(ref.note)
    (st.info if ref.found else st.warning)(note[:1].upper() + note[1:])
    st.markdown(_("Indicator: **{indicator}**. {why}", indicator=tr(INDICATOR_NAMES[r.indicator]),
                  why=tr(indicator_reason(emb, r.indicator))))
    c = ui.metric_columns(4)
    c[0].metric(_("Reference rows"), num(len(ref.ids)))
    c[1].metric(_("Threshold"), num(r.threshold, ".3f"), help=tr(r.why))
    c[2].metric(_("Rows at or above it"), num(int(r.flagged.size)))
    if u.auroc is not None:
        c[3].metric(_("AUROC"), num(u.auroc, ".4f"), help=_("How well the score, computed from this snapshot alone, "
                                                         "separates the ids the run never put in a batch from the rest "
                                                         "(1 = perfectly), outside the reference set."))
    st.caption(_("Threshold: {why}", why=r.why))
    n_top = st.slider(_("Rows listed"), 10, min(500, emb.vocab_size), min(50, emb.vocab_size))
    reason = {m: tr(m) for m in REASONS}
    norms = emb.row_norms
    rows = []
    for rank, i in enumerate(r.order[:n_top], 1):
        i = int(i)
        row = {_("rank"): rank, _("token"): emb.token(i), "id": i, _("score"): round(float(r.scores[i]), 4)}
        if r.indicator == "norm":  # the score's evidence as numbers beside it (a sentence ran past the table's edge)
            row[_("length")] = round(float(norms[i]), 3)
            row[_("× median")] = round(1.0 - float(r.scores[i]), 2)  # short headers: the table fits its page
        row[_("≥ threshold")] = bool(r.scores[i] >= r.threshold)
        if u.truth is not None:
            if u.truth.counts is not None:
                row[_("count in the corpus")] = int(u.truth.counts[i])
            row[_("never in a batch")] = bool(u.truth.never_in_batch[i])
        row[_("reference")] = reason.get(ref.reasons.get(i), "")  # the widest text last: the numbers stay in view
        rows.append(row)
    ui.dataframe(rows, width="stretch", height=ui.height_for(8), column_config={
        _("score"): st.column_config.Column(help=tr(r.meaning)),
        _("× median"): st.column_config.Column(help=_("the row's length ÷ the median row's length")),
        _("≥ threshold"): st.column_config.Column(help=_("at or above the threshold"))})
    if u.truth is not None:
        st.caption(_("The corpus counts and the run's record of ids never in a batch are the truth, shown beside the "
                     "score to check it; the score never reads them."))
    ui.chart(ui.cached(emb, plots.undertrained_figure, ref_text), key="anatomy:scores")

# --- 2. dimensions that dominate ----------------------------------------------------------------------------
st.header(_("Dimensions that dominate"))
stats = ui.cached(emb, stats_of)
st.markdown(_("The average cosine of two different rows, {c:+.4f} here, is a sum over the {d:,} dimensions. A few "
              "\"rogue\" dimensions with a large shared mean or spread can carry most of it: they are the stripes in "
              "the table's heatmap, and they make every pair look alike.", c=stats.avg_cosine, d=emb.d_model))
ks = [k for k in (1, 3, 10) if k <= emb.d_model]
c = st.columns(len(ks))
for col, k in zip(c, ks, strict=True):
    share = stats.share(k)
    col.metric(_("Share of the top {k}", k=k), "—" if share is None else num(share, ".1%"))
if stats.share(1) is None:
    st.caption(_("The average cosine is not above 0 here: the dimensions' parts cancel, so no share of it is shown."))
remove = st.slider(_("Remove the top k dimensions"), 0, min(20, emb.d_model - 1), min(3, emb.d_model - 1))
ui.chart(ui.cached(emb, plots.dimension_parts_of, remove), key="anatomy:dims")
with ui.explain_errors():
    ui.chart(ui.cached(emb, plots.marked_overview_of, ref_text, remove), key="anatomy:overview")
ui.dataframe([{_("dimension"): k, _("mean"): round(float(stats.mean[k]), 4), _("standard deviation"):
               round(float(stats.std[k]), 4), _("excess kurtosis"): round(float(stats.kurtosis[k]), 2),
               _("part of the average cosine"): round(float(stats.contribution[k]), 6)} for k in stats.top(10)],
             width="content")
q = ui.token_picker(emb, key="anatomy:word", url_name="word")
VIEW = {"raw": _("raw"), "centred": _("mean-centred"), "removed": _("without the top {k}", k=remove)}
shown = ui.cached(emb, views, q.text if q is not None else None, remove)
for col, v in zip(ui.metric_columns(3), shown, strict=True):  # headings and metrics, then the tables below
    with col:
        st.subheader(VIEW[v.name])
        st.metric(_("Anisotropy"), num(v.anisotropy, "+.4f"))
for col, v in zip(st.columns(3), shown, strict=True):
    with col:
        if v.pairs:
            ui.dataframe([{_("pair"): f"{a} / {b}", "cos": round(x, 3)} for a, b, x in v.pairs], width="stretch")
        if v.neighbours:
            ui.dataframe([{_("token"): n.token, "cos": round(n.score, 3)} for n in v.neighbours], width="stretch")

# --- 3. hubs ----------------------------------------------------------------------------------------------------
st.header(_("Hubs"))
st.markdown(_("A hub is a token in many other tokens' lists of 10 nearest. Its k-occurrence counts those lists, "
              "exactly, over all {V:,} rows.", V=emb.vocab_size))
exact = hubs.fits_exact(emb.vocab_size, emb.d_model)
sample = None
if not exact:
    st.warning(_("An exact pass over every pair of the {V:,} rows is too large for this machine.", V=emb.vocab_size))
    sample = hubs.SAMPLE_ROWS
quick = exact and hubs.exact_cost(emb.vocab_size, emb.d_model) < 1e10
label = (_("Count the hubs of all {V:,} rows", V=emb.vocab_size) if exact else
         _("Count the hubs of a seeded sample of {n:,} rows", n=sample))
key = f"anatomy:hubs:{emb.key}:{remove}"
if quick or st.session_state.get(key) or st.button(label, key="anatomy:hubs"):
    st.session_state[key] = True
    with ui.explain_errors():
        h = ui.cached_with_progress(emb, hub_views, 10, remove, sample, label=_("Counting neighbours:"))
        if sample is not None:
            st.info(_("A seeded sample of {n:,} rows (seed 0): each row's 10 nearest are searched among the sample.",
                      n=h.raw.ids.size))
        heads = ui.metric_columns(3)  # headings and metrics, then the tables below
        for col, name, hv in zip(heads, ("raw", "centred", "removed"), (h.raw, h.centred, h.removed), strict=True):
            with col:
                st.subheader(VIEW[name])
                st.metric(_("Skewness of the counts"), num(hv.skewness, ".2f"),
                          help=_("About 0 when every token is in about 10 lists; large when a few are in very many."))
        for col, name, hv in zip(st.columns(3), ("raw", "centred", "removed"), (h.raw, h.centred, h.removed),
                                 strict=True):  # what each view's hubs are, from the top
            with col:
                if name != "raw":
                    st.caption(_("Still among the 20 largest: {n} of the raw table's 20 largest hubs",
                                 n=h.overlap(hv)))
                ui.dataframe([{_("token"): emb.token(i), "id": i, _("lists"): n} for i, n in hv.top(20)],
                             width="stretch", height=ui.height_for(10))
