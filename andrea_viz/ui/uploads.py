"""Checkpoints the user brings: uploads spooled to a temporary file (so they can be memory-mapped),
files picked from the checkpoint folder, and the per-session list of loaded models."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import streamlit as st

from ..checkpoints import load_path
from ..errors import CheckpointError
from ..i18n import _
from ..model import Embeddings
from . import state

SPOOL_DIR = Path(tempfile.gettempdir()) / "andrea_viz_uploads"
CHUNK = 16 * 2**20


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
    with open(path, "wb") as f:
        uploaded.seek(0)
        while chunk := uploaded.read(CHUNK):
            f.write(chunk)
    st.session_state[f"_spooled:{slot}"] = str(path)
    return path


SIDECARS = {"config.json", "run.json", "harris_segments.json", "tokenizer.json", "vocab.txt", "meta.pkl",
            "gpt2_tokenizer.bin", "trainer_state.json"}


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
            with open(first.parent / name, "wb") as out:
                f.seek(0)
                while chunk := f.read(CHUNK):
                    out.write(chunk)
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
    """A file uploader's key, renewed by ``let_go(name)``: a new key drops the old widget, and Streamlit then
    frees the bytes it held for it (an upload would otherwise stay in the server's memory)."""
    return f"{name}:{st.session_state.get(f'_upload_gen:{name}', 0)}"


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


def explore(path: Path, name: str) -> None:
    """Read a checkpoint the user picked (a timeline's snapshot) and make it the model of every page."""
    try:
        emb = load_checkpoint(path, None, name)
    except CheckpointError as exc:
        st.session_state["_explore_error"] = exc
        return
    st.session_state[state.MODEL] = emb.key
