"""Grow an ANDREA: train a small one here and watch its embedding table turn from noise into structure."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.errors import QueryError
from andrea_viz.family import BYTE_TOKENS, count_params
from andrea_viz.grow import DEFAULT_PRESET, PRESETS, corpus_text
from andrea_viz.grow.corpus import CLASS_LABELS, word_in
from andrea_viz.model_words import corpus_classes
from andrea_viz.i18n import _, language, tr
from andrea_viz.plots.timeline import loss_curve

emb = ui.page_setup(__file__)
st.title(_("Grow an ANDREA and watch its table learn"))
st.markdown(_(
    "Every entry of the token table starts as a small random number from N(0, 1/√d). Training updates a row each "
    "time its id appears in a batch. Train a small ANDREA here, with the course's layout (untied input and output "
    "tables, learned positions), on a corpus whose words come in classes, and watch *{cat}* move towards *{dog}*.",
    cat=word_in(language(), "cat"), dog=word_in(language(), "dog")))  # the corpus is generated in the app's language

# outside the form: a file chosen there is received at once, so its chip shows its size the language's way
upload = ui.file_uploader(_("Your corpus (UTF-8 .txt)"), type=["txt"], key="grow:corpus",
                          help=_("Used when the corpus is “my own .txt”. Its words are segmented by Harris's "
                                 "successor variety; its most frequent words are followed below."))
with st.form("grow:form"):
    c = st.columns([2, 1, 1, 1])  # the preset's box as wide as its shape and time
    preset = c[0].selectbox(_("Preset"), list(PRESETS), index=list(PRESETS).index(DEFAULT_PRESET),
                            format_func={k: tr(PRESETS[k].label) for k in PRESETS}.__getitem__)  # its time: in the note
    steps = ui.widgets.whole_number_input(_("Steps"), 10, 20_000, PRESETS[DEFAULT_PRESET].steps, container=c[1],
                                          step=100, help=_("Training steps; the preset's own number is a good start."))
    seed = c[2].number_input(_("Seed"), 0, 1_000_000, 0, help=_("Fixes the corpus, the initial table and the batches."))
    source = c[3].radio(_("Corpus"), ["generated", "upload"], format_func={"generated": _("generated (word classes)"),
                                                                            "upload": _("my own .txt")}.get)
    submitted = st.form_submit_button(_("Train"), type="primary")

if submitted:
    with ui.explain_errors():
        corpus = None
        if source == "upload":
            if upload is None:
                raise QueryError("choose a .txt file to train on, or the generated corpus")
            corpus = corpus_text(upload.getvalue(), upload.name)
        ui.grow.start(preset=preset, corpus=corpus, steps=int(steps), seed=int(seed), language=language())

job = ui.grow.job()
if job is not None and job.waiting:
    ui.grow.queue_place()
elif job is not None and job.running:
    ui.grow.live_progress()
elif job is not None and job.left:
    st.info(_("You left the queue; press Train to queue again."))
elif job is not None:
    info = ui.grow.manifest()
    tl = ui.grow.timeline()
    ui.grow.run_ended()
    ui.grow.how_it_ended(job, info)
    if info.get("losses"):
        cfg = info["config"]
        total = count_params(cfg["vocab_size"], cfg["d_model"], cfg["context"], cfg["layers"]).total
        st.markdown(_("**This run:** V = {bytes} bytes + {s:,} segments + 1 BOS = {V:,}; d = {d}, T = {T}, {L} layers; "
                      "{total:,} parameters (2·V·d + T·d + 12·L·d²); {steps:,} steps in {sec:.1f} s.", bytes=BYTE_TOKENS,
                      s=cfg["vocab_size"] - BYTE_TOKENS - 1, V=cfg["vocab_size"], d=cfg["d_model"], T=cfg["context"],
                      L=cfg["layers"], total=total, steps=info.get("steps_done", 0), sec=info.get("seconds", 0.0)))
        ui.chart(loss_curve(info["losses"], info["steps_planned"], [s["step"] for s in info["snapshots"]]),
                        key="grow:loss")
    if tl is not None and len(tl.snapshots) >= 2:
        st.subheader(_("The table at each snapshot"))
        ui.timeline_view(tl, "grow", corpus_classes(tl.last), CLASS_LABELS, unseen_tracked=info.get("unseen_ids"),
                         losses=info.get("losses"), explore=ui.grow.explore_step)
    elif tl is not None:
        st.info(_("Only one snapshot was written before the run stopped; train again to watch the table change."))
else:
    lost = ui.grow.lost_to_restart()
    if lost is not None:
        st.warning(tr(lost), icon=":material/restart_alt:")
    st.info(_("Choose a preset and press Train: it shows its progress as it goes. {timing}",
              timing=ui.grow.preset_timing(DEFAULT_PRESET)))
