"""Bring your own checkpoint: upload one, or pick one from the checkpoint folder, and explore it."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.checkpoints.folder import ENV, checkpoint_dir, display_root, inside, list_checkpoints, list_timelines, list_tokenizers
from andrea_viz.grow.corpus import CLASS_LABELS
from andrea_viz.model_words import corpus_classes
from andrea_viz.i18n import _
from andrea_viz.safe_text import in_code, md
from andrea_viz.timeline import describe

LAST = "_checkpoint:last"
TIMELINE = "_checkpoint:timeline"
TIMELINE_REL = "_checkpoint:timeline_rel"  # the timeline's folder, relative to the checkpoint folder (its heading)

emb = ui.page_setup(__file__)
st.title(_("Bring your own checkpoint"))
st.markdown(ui.uploads.what_it_reads())


def _explore(key: str) -> None:
    st.session_state[ui.state.MODEL] = key


upload_tab, folder_tab = st.tabs([_("Upload a file"), _("From the checkpoint folder")])
with upload_tab:
    ui.uploads.upload_form(LAST)
    if ui.naming.table_picker("upload") is not None:
        st.rerun()  # read with the tables named: the report below, the picker gone
    st.caption(_("An upload is held in the server's memory while it arrives; once read it is written to a temporary file "
                 "that is memory-mapped (and deleted when you upload another), and the server lets go of its bytes."))

with folder_tab:
    root = checkpoint_dir()
    entries = list_checkpoints(root)
    st.caption(_("Files under `{root}` (set `{env}` to use another folder). Paths outside it are refused.", root=in_code(display_root()),
                 env=ENV))
    if not entries:
        st.info(_("No checkpoints in `{root}` yet: copy a file or a Hugging Face folder there, then reload.", root=in_code(display_root())))
    else:
        rel = st.selectbox(_("Checkpoint"), entries, key="ckpt:rel")
        tokenizers = {"-": _("(found beside it, or none)"), **{t: t for t in list_tokenizers(root)}}
        tok_rel = st.selectbox(_("Tokenizer"), list(tokenizers), key="ckpt:tokrel", format_func=tokenizers.__getitem__)
        if st.button(_("Read it"), type="primary"):
            with ui.explain_errors():
                if tok_rel == "-":
                    st.session_state[LAST] = ui.models.read_from_folder(rel).key
                else:
                    st.session_state[LAST] = ui.uploads.load_checkpoint(inside(root, rel), inside(root, tok_rel),
                                                                         rel.rstrip("/"), confine=root).key
        named = ui.naming.table_picker("folder")
        if named is not None:
            st.session_state[LAST] = named.key
    timelines = list_timelines(root)
    if timelines:
        st.markdown("**" + _("Or a folder of snapshots of one run, as a timeline") + "**")
        tl_rel = st.selectbox(_("Folder"), timelines, key="ckpt:tlrel",
                              help=_("Its checkpoints are ordered by the step each records (the ANDREA header's step, "
                                     "nanoGPT's iter_num, trainer_state.json's global_step)."))
        if st.button(_("Open as a timeline"), key="ckpt:tlopen"):
            with ui.explain_errors():
                st.session_state[TIMELINE] = ui.models.timeline_from_folder(tl_rel)
                st.session_state[TIMELINE_REL] = tl_rel

last = ui.uploads.user_models().get(st.session_state.get(LAST))
if last is not None:
    st.subheader(_("What {name} holds", name=md(last.name)))
    ui.checkpoint_report(last)
    if st.button(_("Explore {name}", name=md(last.name)), type="primary", on_click=_explore, args=(last.key,),
                 help=_("Makes it the model of every page, and opens Neighbours.")):
        st.switch_page("pages/4_Neighbours.py")
elif ui.uploads.user_models():
    st.caption(_("Your checkpoints are in the model picker in the sidebar."))

tl = st.session_state.get(TIMELINE)
if tl is not None:
    st.subheader(_("Timeline: {source}", source=md(st.session_state.get(TIMELINE_REL, ""))))
    st.caption(ui.tr(describe(tl), escape=md))
    ui.timeline_view(tl, "ckpt-tl", corpus_classes(tl.last), CLASS_LABELS,
                     explore=lambda step: ui.uploads.explore_checkpoint(tl.snapshots[tl.steps.index(step)].path,
                                                             f"{tl.snapshots[tl.steps.index(step)].label} (step {step:,})"))
