"""The forward pass so far: a sentence to ids to the (T, d) matrix x that enters block 1."""

import streamlit as st

from andrea_viz import lexicon, ui
from andrea_viz.byte_tokens import shown_token
from andrea_viz.errors import QueryError
from andrea_viz.forward_pass import (BACKENDS, backend_status, block_input_formula, block_input_parts, block_input_steps,
                                     forward, kernels_building, kernels_ready, time_backends)
from andrea_viz.i18n import _, num, short_duration, tr
from andrea_viz.plots.positions import block_input_heatmaps, block_input_scale
from andrea_viz.positions import order_blindness
from andrea_viz.safe_text import md
from andrea_viz.model_words import model_language

emb = ui.page_setup(__file__)
T_max = emb.context
st.title(_("The forward pass so far"))
st.markdown(_("A full context: {n} ids → {n} token rows + {n} position rows → a ({T}, {d}) matrix **x** that flows into "
              "transformer block 1.", n=num(T_max), T=T_max, d=emb.d_model) if T_max else
            _("Ids → token rows → a (T, {d}) matrix **x** that flows into transformer block 1.", d=emb.d_model))
st.markdown(_("For this model, block 1 receives:"))
st.latex(block_input_formula(emb))
for step in block_input_steps(emb):
    st.markdown("- " + tr(step, escape=md))

if kernels_building():
    st.info(_("The compiled kernels are being built in the background (the server started it when it started); "
              "until they are ready this page runs on torch. Open the page again in a minute or two to use them."))
    statuses = backend_status()
elif kernels_ready():
    statuses = backend_status()
else:
    with st.status(_("Building the compiled kernels (the first time only; about a minute)…"), expanded=False) as box:
        statuses = backend_status()
        box.update(label=_("Kernels ready."), state="complete")

c1, c2 = st.columns([3, 1])
text = c1.text_input(_("A sentence"), lexicon.order_sentence(model_language(emb)), max_chars=ui.MAX_TEXT_CHARS, help=_("Tokenized by the loaded model's tokenizer."))
available = [s.name for s in statuses if s.available]
backend = c2.selectbox(_("Backend"), ["auto", *available], key="fwd:backend",
                       help=_("auto: the fastest available, in the order {order}", order=" → ".join(BACKENDS)))


with ui.explain_errors():
    ids = emb.tokenizer.encode(text)
    if not ids:
        raise QueryError("the sentence gives no tokens; type a few words")
    st.markdown(_("**Tokens:** ") + ui.token_chips([emb.token(i) for i in ids], ids))
    result = forward(emb, ids, backend)
    parts = block_input_parts(emb, ids)
    labels = [f"{t}: {shown_token(emb.token(i), short=True)}" for t, i in enumerate(ids)]  # ␣ as the chips say it
    figs = block_input_heatmaps(parts, labels)
    row = 2 if len(figs) == 4 else min(3, len(figs))  # four as two rows of two: a fourth alone on a row was cut short
    for k, fig in enumerate(figs):
        if k % row == 0:
            h = st.columns(row)
        ui.chart(fig, where=h[k % row], key=f"fwd:part:{k}")
    st.caption(block_input_scale(parts))
    m = st.columns(3)
    m[0].metric(_("Backend used"), result.backend)
    m[1].metric(_("Time of this run"), short_duration(result.seconds))
    m[2].metric(_("Bandwidth"), "—" if result.gbps is None else _("{n:.2f} GB/s", n=result.gbps),
                help=_("B·T·(3·d·4 + 8) bytes moved ÷ time; not shown below 4 MB moved, where the time is mostly call "
                       "overhead (the full context below is not)"))

st.subheader(_("Order blindness"))
o1, o2 = st.columns(2)
text_a = o1.text_input(_("One order"), lexicon.order_sentence(model_language(emb)), max_chars=ui.MAX_TEXT_CHARS)
text_b = o2.text_input(_("Another order of the same words"), lexicon.order_scrambled(model_language(emb)),
                       max_chars=ui.MAX_TEXT_CHARS)
with ui.explain_errors():
    check = order_blindness(emb, text_a, text_b)
    b1, b2 = st.columns(2)
    b1.metric(_("Without positions: same rows after sorting?"), _("yes") if check.same_rows_without_positions else _("no"),
              help=_("The two token-part matrices, rows sorted, compared entry by entry."))
    b2.metric(_("With positions: largest difference after sorting"), num(check.max_diff_with_positions, ".4f"),
              help=_("Frobenius norm of the difference: {n:.3f}", n=check.frobenius_with_positions))
    st.caption(_("Without position rows the two sentences are the same bag of vectors; adding position rows is what lets "
                 "the model tell them apart."))

st.subheader(_("Backends"))
st.table(ui.localized([{_("backend"): s.name, _("what"): tr(s.label), _("available"): _("yes") if s.available else _("no"),
                        _("why not"): tr(s.reason)} for s in statuses]), hide_index=True)  # a table wraps the reasons
if T_max and st.button(_("Run a full context: B = 8 sequences × T = {T:,} random ids", T=T_max),
                       help=_("Times every available backend on the same ids")):
    with st.spinner(_("Timing every available backend…")):
        rows = time_backends(emb, B=8)
    ui.dataframe([{_("backend"): r["backend"], _("best of 3"): short_duration(r["seconds"]),
                   "GB/s": None if r["gbps"] is None else round(r["gbps"], 1)} for r in rows])
    st.caption(_("For the median of many runs against torch eager and torch.compile: `python -m andrea_viz bench`."))
