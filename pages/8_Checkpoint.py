"""Bring your own checkpoint: upload one, or pick one from the checkpoint folder, and explore it."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.checkpoints.folder import ENV, checkpoint_dir, inside, list_checkpoints, list_timelines, list_tokenizers
from andrea_viz.grow.corpus import CLASS_LABELS, WORD_CLASSES
from andrea_viz.timeline import describe, open_timeline

emb = ui.page_setup(__file__)
st.title("Bring your own checkpoint")
st.markdown(
    "ANDREA's `.bin` (with or without Adam state, an optional config JSON and `harris_segments.json`), nanoGPT's "
    "`ckpt.pt`, Hugging Face folders and `pytorch_model.bin` / `model.safetensors`, Meta's `consolidated.*.pth`, "
    "llm.c's `.bin`, `.npy` and `.npz`. The format is recognised from the file's bytes, whatever its name. "
    "Only the embedding tables are read, and no code in a file is ever run."
)

LAST = "_checkpoint:last"
TIMELINE = "_checkpoint:timeline"


def _explore(key: str) -> None:
    st.session_state[ui.state.MODEL] = key


upload_tab, folder_tab = st.tabs(["Upload a file", "From the checkpoint folder"])
with upload_tab:
    ups = st.file_uploader("Checkpoint file (and the files beside it, if any)", key=ui.uploads.uploader_key("ckpt:file"),
                           accept_multiple_files=True,
                           help="Up to 1.4 GB (a whole ANDREA-120M .bin with Adam state). Add its config JSON, "
                           "harris_segments.json or meta.pkl when it has them. Larger files: use the folder.")
    toks = st.file_uploader("Tokenizer (optional)", type=["json", "txt", "pkl", "bin"], key=ui.uploads.uploader_key("ckpt:tok"),
                            accept_multiple_files=True,
                            help="tokenizer.json, vocab.txt, harris_segments.json, nanoGPT's meta.pkl, llm.c's "
                            "gpt2_tokenizer.bin, or GPT-2's vocab.json and merges.txt together; without one, tokens "
                            "show as #id (a tokenizer beside a file in the checkpoint folder is found by itself).")
    if st.button("Read the upload", type="primary", disabled=not ups):
        with ui.explain_errors():
            tok_path = [ui.uploads.spool(t, f"tokenizer:{i}") for i, t in enumerate(toks)] or None
            path = ui.uploads.spool_many(ups, "checkpoint")
            st.session_state[LAST] = ui.uploads.load_checkpoint(path, tok_path, path.name).key
            ui.uploads.let_go("ckpt:file")  # the bytes are on disk now: a new uploader lets Streamlit drop its copy
            ui.uploads.let_go("ckpt:tok")
            st.rerun()
    st.caption("An upload is held in the server's memory while it arrives; once read it is written to a temporary file "
               "that is memory-mapped (and deleted when you upload another), and the server lets go of its bytes.")

with folder_tab:
    root = checkpoint_dir()
    entries = list_checkpoints(root)
    st.caption(f"Files under `{root}` (set `{ENV}` to use another folder). Paths outside it are refused.")
    if not entries:
        st.info(f"No checkpoints in `{root}` yet: copy a file or a Hugging Face folder there, then reload.")
    else:
        rel = st.selectbox("Checkpoint", entries, key="ckpt:rel")
        tok_rel = st.selectbox("Tokenizer", ["(found beside it, or none)", *list_tokenizers(root)], key="ckpt:tokrel")
        if st.button("Read it", type="primary"):
            with ui.explain_errors():
                path = inside(root, rel)
                tpath = None if tok_rel.startswith("(") else inside(root, tok_rel)
                st.session_state[LAST] = ui.uploads.load_checkpoint(path, tpath, rel.rstrip("/")).key
    timelines = list_timelines(root)
    if timelines:
        st.markdown("**Or a folder of snapshots of one run, as a timeline**")
        tl_rel = st.selectbox("Folder", timelines, key="ckpt:tlrel",
                              help="Its checkpoints are ordered by the step each records (the ANDREA header's step, "
                              "nanoGPT's iter_num, trainer_state.json's global_step).")
        if st.button("Open as a timeline", key="ckpt:tlopen"):
            with ui.explain_errors():
                st.session_state[TIMELINE] = open_timeline(inside(root, tl_rel))

last = ui.uploads.user_models().get(st.session_state.get(LAST))
if last is not None:
    st.subheader(f"What {last.name} holds")
    ui.checkpoint_report(last)
    if st.button(f"Explore {last.name}", type="primary", on_click=_explore, args=(last.key,),
                 help="Makes it the model of every page, and opens Neighbours."):
        st.switch_page("pages/4_Neighbours.py")
elif ui.uploads.user_models():
    st.caption("Your checkpoints are in the model picker in the sidebar.")

tl = st.session_state.get(TIMELINE)
if tl is not None:
    st.subheader(f"Timeline: {tl.source}")
    st.caption(ui.tr(describe(tl)))
    ui.timeline_view(tl, "ckpt-tl", WORD_CLASSES, CLASS_LABELS,
                     explore=lambda step: ui.uploads.explore(tl.snapshots[tl.steps.index(step)].path,
                                                             f"{tl.snapshots[tl.steps.index(step)].label} (step {step:,})"))
