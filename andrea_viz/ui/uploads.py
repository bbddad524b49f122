"""Checkpoints the user brings: uploads spooled to a temporary file (so they can be memory-mapped),
files picked from the checkpoint folder, and the per-session list of loaded models."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ..checkpoints import load_path
from ..errors import CheckpointError
from ..i18n import _
from ..model import Embeddings
from ..tokenizer import TOKENIZER_FILES, TOKENIZER_SUFFIXES
from . import state
from .errors import explain_errors, show_error

SPOOL_DIR = Path(tempfile.gettempdir()) / "andrea_viz_uploads"
CHUNK = 2**20  # 1 MB: the copy to disk adds next to nothing to the memory an upload already takes


def user_models() -> dict[str, Embeddings]:
    return st.session_state.setdefault(state.USER_MODELS, {})


SAFE_NAME = re.compile(r"[^\w.+-]")


def spool(uploaded, slot: str) -> Path:
    """Write an upload, chunk by chunk (no copy of the whole), to a file of its own name in a temporary
    folder of its own; the file it replaces in the same slot is deleted."""
    SPOOL_DIR.mkdir(parents=True, exist_ok=True)
    release(slot)
    folder = Path(tempfile.mkdtemp(dir=SPOOL_DIR))
    name = SAFE_NAME.sub("_", Path(uploaded.name).name)[-120:] or "upload"
    path = folder / name
    _write(uploaded, path)
    st.session_state[f"_spooled:{slot}"] = str(path)
    return path


def _write(uploaded, path: Path) -> None:
    """Copy an upload to disk chunk by chunk, then have Streamlit's upload store drop its bytes: it would keep
    them until the session ends (a browser only deletes a file whose chip is removed by hand)."""
    with open(path, "wb") as f:
        uploaded.seek(0)
        while chunk := uploaded.read(CHUNK):
            f.write(chunk)
    ctx = get_script_run_ctx()
    if ctx is not None and getattr(uploaded, "file_id", None):
        ctx.uploaded_file_mgr.remove_file(session_id=ctx.session_id, file_id=uploaded.file_id)
    uploaded.close()


SIDECARS = {"config.json", "run.json", "trainer_state.json", *TOKENIZER_FILES}


def spool_many(files: list, slot: str) -> Path:
    """A checkpoint and the files that go beside it (its config JSON, its tokenizer), spooled into one
    folder under their own names, so the loader finds them there. Returns the checkpoint's path: the
    largest file that is not a known sidecar."""
    if len(files) == 1:
        return spool(files[0], slot)
    first = spool(max(files, key=lambda f: (f.name not in SIDECARS, f.size)), slot)
    for f in files:
        name = SAFE_NAME.sub("_", Path(f.name).name)[-120:]
        if name != first.name:
            _write(f, first.parent / name)
    return first


def release(slot: str) -> None:
    """Forget the model read from a slot's spooled file and delete the file."""
    old = st.session_state.pop(f"_spooled:{slot}", None)
    if old:
        for key in [k for k, e in user_models().items() if e.provenance.file == old]:
            user_models().pop(key)
            if st.session_state.get(state.MODEL) == key:
                st.session_state[state.MODEL] = None
        shutil.rmtree(Path(old).parent, ignore_errors=True)


def uploader_key(name: str) -> str:
    """A file uploader's key, renewed by ``let_go(name)``: a new key draws an empty uploader in place of one
    whose files were spooled (and whose bytes the store has dropped)."""
    gen = st.session_state.get(f"_upload_gen:{name}", 0)
    if gen:  # Streamlit keeps a keyed widget's value after the widget is gone: the replaced uploader's files
        st.session_state.pop(f"{name}:{gen - 1}", None)
    return f"{name}:{gen}"


def let_go(name: str) -> None:
    st.session_state[f"_upload_gen:{name}"] = st.session_state.get(f"_upload_gen:{name}", 0) + 1


def load_checkpoint(path: Path, tokenizer: Path | None, display_name: str) -> Embeddings:
    """Read a checkpoint with progress shown; raises CheckpointError with the sentence to show."""
    with st.status(_("Reading {name}…", name=display_name), expanded=False) as status:
        status.write(_("Recognising the format from its first bytes, then reading the embedding tables only."))
        try:
            emb = load_path(path, tokenizer=tokenizer, name=display_name)
        except CheckpointError:
            status.update(label=_("{name} could not be read.", name=display_name), state="error")
            raise
        status.update(label=_("{name}: {format}, {V:,} × {d}.", name=display_name, format=emb.provenance.format,
                              V=emb.vocab_size, d=emb.d_model), state="complete")
    user_models()[emb.key] = emb
    return emb


def explore_checkpoint(path: Path, name: str) -> None:
    """Read a checkpoint the user picked (a timeline's snapshot) and make it the model of every page; a
    checkpoint that cannot be read says why on the page."""
    try:
        emb = load_checkpoint(path, None, name)
    except CheckpointError as exc:
        show_error(exc)
        return
    st.session_state[state.MODEL] = emb.key


def upload_form(result_key: str) -> None:
    """The Checkpoint page's uploaders and its Read button: the files are spooled to disk and read, the key of
    the model read goes to ``st.session_state[result_key]``. A function, so that the uploaded files (Streamlit
    hands the script a copy of each) die with its locals instead of living on in the page's globals."""
    ups = st.file_uploader(_("Checkpoint file (and the files beside it, if any)"), key=uploader_key("ckpt:file"),
                   accept_multiple_files=True,
                   help=_("Up to 1.4 GB (a whole ANDREA-120M .bin with Adam state). Add its config JSON, "
                          "harris_segments.json or meta.pkl when it has them. Larger files: use the folder."))
    toks = st.file_uploader(_("Tokenizer (optional)"), type=list(TOKENIZER_SUFFIXES), key=uploader_key("ckpt:tok"),
                    accept_multiple_files=True,
                    help=_("tokenizer.json, vocab.txt, harris_segments.json, nanoGPT's meta.pkl, llm.c's "
                           "gpt2_tokenizer.bin, or GPT-2's vocab.json and merges.txt together; without one, "
                           "tokens show as #id."))
    if not st.button(_("Read the upload"), type="primary", disabled=not ups):
        return
    with explain_errors():
        try:
            tok_path = [spool(t, f"tokenizer:{i}") for i, t in enumerate(toks)] or None
            path = spool_many(ups, "checkpoint")
        finally:  # the files are on disk and their bytes dropped: the next run draws empty uploaders
            let_go("ckpt:file")
            let_go("ckpt:tok")
            del ups, toks
        st.session_state[result_key] = load_checkpoint(path, tok_path, path.name).key
        st.rerun()
