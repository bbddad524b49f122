"""Checkpoints the user brings: uploads spooled to a temporary file (so they can be memory-mapped),
files picked from the checkpoint folder, and the per-session list of loaded models."""

from __future__ import annotations

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


def spool(uploaded, slot: str) -> Path:
    """Write an upload to a temporary file in chunks; the file it replaces in the same slot is deleted."""
    SPOOL_DIR.mkdir(parents=True, exist_ok=True)
    release(slot)
    suffix = Path(uploaded.name).suffix[:16]
    with tempfile.NamedTemporaryFile(dir=SPOOL_DIR, suffix=suffix, delete=False) as f:
        uploaded.seek(0)
        while chunk := uploaded.read(CHUNK):
            f.write(chunk)
    st.session_state[f"_spooled:{slot}"] = f.name
    return Path(f.name)


def release(slot: str) -> None:
    """Forget the model read from a slot's spooled file and delete the file."""
    old = st.session_state.pop(f"_spooled:{slot}", None)
    if old:
        for key in [k for k, e in user_models().items() if e.provenance.file == old]:
            user_models().pop(key)
            if st.session_state.get(state.MODEL) == key:
                st.session_state[state.MODEL] = None
        Path(old).unlink(missing_ok=True)


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
