"""Position information: x_t = tok + pos, learned versus sinusoidal, RoPE, and the three schemes."""

import streamlit as st

from andrea_viz import lexicon, ui
from andrea_viz.safe_text import md
from andrea_viz.family import CONTEXT
from andrea_viz.forward_pass import block_input_formula, block_input_steps
from andrea_viz.i18n import _, language, tr
from andrea_viz.plots import positions as plots
from andrea_viz.positions import SCHEME_COLUMNS, rope_scores, schemes
from andrea_viz.ui.models import POSITION_KIND_LABELS

emb = ui.page_setup(__file__)
T, d = emb.context or CONTEXT, emb.d_model
kinds = ["learned", "sinusoidal"] if emb.position_kind == "learned" else ["sinusoidal"]
st.title(_("Where is each token? Position embeddings"))
st.markdown(_(
    "Without position information a transformer sees *{sentence}* and *{scrambled}* as the same set of tokens. ANDREA "
    "adds a learned position row to every token row: {formula}, element by element; the model never separates the two "
    "again.", sentence=md(lexicon.order_sentence(language())), scrambled=md(lexicon.order_scrambled(language())),
    formula="$x_t = \\mathrm{token\\_embedding}[id_t] + \\mathrm{position\\_embedding}[t]$"))
st.markdown(_("For the model on screen, block 1 receives:"))
st.latex(block_input_formula(emb))
for step in block_input_steps(emb):
    st.markdown("- " + tr(step, escape=md))
if emb.card.position_reason and emb.position_table is not None:  # without a table, the steps say it
    st.caption(_("Positions: {reason}", reason=tr(emb.card.position_reason, escape=md)))


@ui.fragment
def sum_panel() -> None:
    c1, _c2 = st.columns([2, 1])
    with c1:
        q = ui.token_picker(emb, key="pos:token", url_name="word")
    if q is not None:  # one real id: a word of several tokens takes several positions, each its own x_t
        ui.live.live_sum(emb, int(q.ids[0]), kinds[0], min(3, T - 1))  # its position slider answers in the browser
        if len(q.ids) > 1:
            st.caption(_("“{word}” is {n} tokens, so it takes {n} positions; this is x_t of its first token, id {id}.",
                         word=md(q.text), n=len(q.ids), id=int(q.ids[0])))


st.subheader(_("x_t = token + position"))
st.caption(_("Drag the slider or press the arrow keys: the browser redraws the picture itself, without asking the "
             "server.") + ("" if emb.position_table is not None else " " + _(
    "This model has no learned table, so the sinusoidal row is added.")) + ("" if emb.block_input.plain else " " + _(
    "This panel shows the sum; the steps listed above follow it before block 1.")))
sum_panel()

st.subheader(_("Learned versus sinusoidal, for T = {T:,} and d = {d}", T=T, d=d))
if emb.position_table is None:
    st.info(_("This model has no learned position table (its positions are **{kind}**), so only the sinusoidal side is "
              "shown.", kind=tr(POSITION_KIND_LABELS[emb.position_kind])))
for col, kind in zip(st.columns(2), kinds, strict=False):
    with col:
        st.markdown(_("**Learned**: trained like the token table") if kind == "learned"
                    else _("**Sinusoidal**: a fixed sin/cos formula, never trained"))
        ui.chart(ui.cached(emb, plots.position_table_figure, kind), key=f"pos:table:{kind}")
        ui.chart(ui.cached(emb, plots.cosines_of, kind), key=f"pos:cos:{kind}")
        ui.chart(ui.cached(emb, plots.path_of, kind), key=f"pos:path:{kind}")
ui.chart(ui.cached(emb, plots.position_norms_of), key="pos:norms")

st.subheader(_("RoPE in one picture"))
st.markdown(_("RoPE adds nothing to the input. It rotates each pair of dimensions of a query by m·θ and of a key by n·θ, "
              "so their dot product depends only on the offset m − n."))
r1, r2 = st.columns([2, 3])  # the table's four columns whole beside the picture at 1,280 px
offset = r1.slider(_("Offset m − n"), -6, 6, 2, help=_("The distance between the query's and the key's positions."))
theta = ui.number_slider(_("θ (radians per position)"), 0.05, 0.6, 0.3, 0.05, container=r1)
pairs = plots.rope_pairs(offset)
scores = rope_scores(plots.ROPE_Q, plots.ROPE_K, pairs, theta)
ui.dataframe([{_("m (query)"): m, _("n (key)"): n, "m − n": m - n, _("q·k after rotation"): float(s)}
              for (m, n), s in zip(pairs, scores, strict=True)],
             decimals={_("q·k after rotation"): plots.ROPE_DECIMALS}, where=r1)  # the legend's precision
r1.caption(_("Same offset, same score, wherever the pair sits."))
ui.chart(ui.figure(plots.rope_of, offset, float(theta)), where=r2, key="pos:rope")

st.subheader(_("Three ways to add position"))
st.table(ui.localized([{tr(c): tr(v) for c, v in zip(SCHEME_COLUMNS, row, strict=True)} for row in schemes(emb)]),
         hide_index=True)  # a table that wraps its words: a grid cut "used by" short at 1,280 px
st.caption(_("ANDREA uses learned positions (from microGPT ← nanoGPT ← GPT-2): no special math in attention, its CUDA "
             "engine (microgpt_cuda.cu) treats both lookups the same way with no sin/cos kernel, and the context is "
             "fixed at T = {T:,}.", T=CONTEXT))
if emb.position_kind == "learned" and emb.context and emb.context != CONTEXT:  # ANDREA-120M's T is not this model's
    st.caption(_("{model}, on screen, has a learned table of {T:,} rows, so its context is fixed at T = {T:,}.",
                 model=md(ui.model_label(emb.key)), T=emb.context))
