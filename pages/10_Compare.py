"""Two tables of one vocabulary side by side: which tokens moved, how far, and where."""

import numpy as np
import streamlit as st

from andrea_viz import ui
from andrea_viz.builtin import micro_name, start_name
from andrea_viz.compare import (
    ALIGNMENTS,
    aligned_map,
    drift,
    held_out_only,
    placed_neighbours,
    same_vocabulary,
    vocab_drift,
    vocab_map,
)
from andrea_viz.errors import QueryError
from andrea_viz.geometry import neighbours
from andrea_viz.i18n import _, num
from andrea_viz.lookup import unchanged_rows
from andrea_viz.plots.compare import arrows_map, drift_histogram
from andrea_viz.model_words import tracked_word

LIST = 15  # tokens listed as moved most and least

emb = ui.page_setup(__file__)
st.title(_("Compare two checkpoints"))
st.markdown(_(
    "Two snapshots of one run, two runs, or two revisions of a model: for every token, how far its row moved "
    "(the drift, 1 − cos(A, B)) and whether its nearest neighbours stayed. Two runs, or maps drawn per snapshot, "
    "differ by a rotation: Procrustes finds the rotation of A that best fits B before comparing. Snapshots of one "
    "run share their axes, and compared in place a row that never moved shows a drift of exactly 0."))

run = ui.models.run_language()  # the run grown in the reader's language, unless the sidebar's model is another grown run
ca, cb = st.columns(2)
with ca:
    st.subheader("A")
    a = ui.compare.pick("A", start_name(run))  # by default a real pair: one run's step 0 …
with cb:
    st.subheader("B")
    b = ui.compare.pick("B", micro_name(run))  # … against its final step
c = st.columns(2)
one_run = a is not None and b is not None and {a.key, b.key} == {micro_name(run), start_name(run)}
align = c[0].radio(_("Alignment"), ALIGNMENTS, index=ALIGNMENTS.index("none") if one_run else 0, horizontal=True, key="cmp:align",
                   format_func={"procrustes": _("Procrustes (two runs)"), "none": _("none (one run)")}.get)
k = c[1].slider(_("Neighbours compared (k)"), 5, 50, 10, key="cmp:k")

with ui.explain_errors():
    if a is None or b is None:
        raise QueryError("choose a model for A and for B")
    if a.key == b.key:
        st.info(_("A and B are the same model: nothing can have moved. Choose another model for A or B."), icon=":material/info:")
    same = same_vocabulary(a, b)
    if same:
        unmoved = int(unchanged_rows(a.token_table, b.token_table).size)  # exact, before any alignment
        r = ui.remember(("drift", a.key, b.key, align, k), lambda progress: drift(
            a.token_table, b.token_table, align=align, k=k, progress=progress), label=_("Comparing:"))
        al = None
    else:  # different vocabularies or widths: compared on their anchors, A mapped onto B
        r, al = ui.remember(("vocab-drift", a.key, b.key, k), lambda progress: vocab_drift(
            a, b, k=k, progress=progress), label=_("Aligning:"))
        ui.compare.alignment_note(a, b, al)
    m = ui.metric_columns(4)
    if same:
        m[0].metric(_("Median drift"), num(r.median_drift, ".4f"))
        m[1].metric(_("Largest drift"), num(r.max_drift, ".4f"))
    else:  # the map all but reproduces the anchors it was fitted on: its drift is the held-out anchors'
        ui.compare.anchor_drift_metrics(m[0], m[1], al, r)
    m[2].metric(_("Neighbours kept (mean)"), num(r.mean_overlap, ".0%"),
                help=_("Share of each token's {k} nearest in A that are among its {k} nearest in B, on {n:,} tokens",
                       k=k, n=int(r.overlap_ids.size)))
    if same:
        m[3].metric(_("Unmoved rows"), num(unmoved),
                    help=_("Tokens whose row is the same in A and B, number for number (before any alignment)."))
    else:
        m[3].metric(_("Anchors"), num(len(al.anchors)), help=_("Tokens both models hold: the only ones compared."))
    shown = r if same else held_out_only(r, al)  # two vocabularies: the anchors the map was not fitted on
    ui.chart(ui.remember(("drift-hist", a.key, b.key, align if same else "anchors", k), lambda progress:
                                drift_histogram(shown.drift, r.aligned), label=None), key="cmp:hist")

    most, least = shown.most_moved(LIST), shown.least_moved(LIST)
    label = (lambda i: b.token(int(i))) if same else (lambda i: ui.compare.anchor_label(a, b, al, int(i)))

    def rows(ids):
        return [{_("token"): label(i), "id": int(i) if same else int(al.anchors.b[i]), _("drift"): round(float(r.drift[i]), 4),
                 # a count of the k, as the metric's share is a share of them (a fraction 0.3 beside 64% read as two units)
                 _("neighbours kept (of {k})", k=k): None if np.isnan(r.overlap[i]) else int(round(float(r.overlap[i]) * k))}
                for i in ids]

    t1, t2 = st.columns(2)
    t1.markdown("**" + _("Moved most") + "**")
    ui.dataframe(rows(most), where=t1, width="stretch", height=ui.height_for(LIST))
    t2.markdown("**" + _("Moved least") + "**")
    ui.dataframe(rows(least), where=t2, width="stretch", height=ui.height_for(LIST))

    ids = np.concatenate([most, least])
    coords, ratio = ui.remember(("cmp-map", a.key, b.key, align if same else "anchors", tuple(ids.tolist())),
                                lambda progress: aligned_map([a.token_table, b.token_table], ids, align=align) if same
                                else vocab_map(a.token_table, b.token_table, al, ids), label=_("Drawing:"))
    ui.chart(ui.remember(("cmp-arrows", a.key, b.key, align if same else "anchors", k), lambda progress: arrows_map(
        coords[0], coords[1], [label(i) for i in ids], ["most"] * len(most) + ["least"] * len(least), ratio),
        label=None), key="cmp:map")

    first = b if same else a  # the word is one of A's when A is rotated onto B
    word = st.text_input(_("A word's neighbours in A and in B"), tracked_word(first) or f"#{int(most[0])}",
                         key="cmp:word" if same else "cmp:vword")
    n1, n2 = st.columns(2)
    for col, model, name in ((n1, a, "A"), (n2, b, "B")):
        with col, ui.explain_errors():
            if same or model is a:
                _q, found = ui.cached(model, neighbours, word, k)
                col.markdown(f"**{name}**")
            else:
                found = ui.remember(("cmp-placed", a.key, b.key, word, k), lambda progress: placed_neighbours(
                    a, b, al, word, k), label=None)
                col.markdown("**" + _("B, nearest to the word of A mapped into B") + "**")
            ui.dataframe([{_("token"): n.token, "id": n.id, _("cosine"): round(n.score, 4)} for n in found], where=col,
                         width="stretch")

ui.audit_view.section()  # B audited as a fine-tune of A, when both are folders of the checkpoint folder
