"""Bring your own checkpoint: upload one, or pick one from the checkpoint folder, and explore it."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.checkpoints.folder import ENV, checkpoint_dir, inside, list_checkpoints, list_tokenizers

emb = ui.page_setup(__file__)
st.title("Bring your own checkpoint")
st.markdown(
    "ANDREA's `.bin` (with or without Adam state, an optional config JSON and `harris_segments.json`), nanoGPT's "
    "`ckpt.pt`, Hugging Face folders and `pytorch_model.bin` / `model.safetensors`, Meta's `consolidated.*.pth`, "
    "llm.c's `.bin`, `.npy` and `.npz`. The format is recognised from the file's bytes, whatever its name. "
    "Only the embedding tables are read, and no code in a file is ever run."
)

LAST = "_checkpoint:last"


def _explore(key: str) -> None:
    st.session_state[ui.state.MODEL] = key


upload_tab, folder_tab = st.tabs(["Upload a file", "From the checkpoint folder"])
with upload_tab:
    up = st.file_uploader("Checkpoint file", key="ckpt:file",
                          help="Up to 1.4 GB (a whole ANDREA-120M .bin with Adam state). Larger files: use the folder.")
    tok = st.file_uploader("Tokenizer (optional)", type=["json", "txt"], key="ckpt:tok",
                           help="tokenizer.json, vocab.txt or harris_segments.json; without one tokens show as #id.")
    if st.button("Read the upload", type="primary", disabled=up is None):
        with ui.explain_errors():
            tok_path = ui.uploads.spool(tok, "tokenizer") if tok is not None else None
            path = ui.uploads.spool(up, "checkpoint")
            st.session_state[LAST] = ui.uploads.load_checkpoint(path, tok_path, up.name).key
    st.caption("An upload is held in the server's memory while it arrives, then written to a temporary file that is "
               "memory-mapped and deleted when you upload another.")

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

last = ui.uploads.user_models().get(st.session_state.get(LAST))
if last is not None:
    st.subheader(f"What {last.name} holds")
    ui.checkpoint_report(last)
    if st.button(f"Explore {last.name}", type="primary", on_click=_explore, args=(last.key,),
                 help="Makes it the model of every page, and opens Neighbours."):
        st.switch_page("pages/4_Neighbours.py")
elif ui.uploads.user_models():
    st.caption("Your checkpoints are in the model picker in the sidebar.")
