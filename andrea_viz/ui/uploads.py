"""Checkpoints the user brings: uploads spooled to a temporary file (so they can be memory-mapped),
files picked from the checkpoint folder, and the per-session list of loaded models."""

from __future__ import annotations

import re
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ..checkpoints import READS, load_path
from ..checkpoints.folder import checkpoint_dir
from ..checkpoints.tables import NoTableError
from ..errors import CheckpointError
from ..i18n import Msg, _, tr, tr_md
from ..model import Embeddings
from ..os_errors import free_bytes, os_error_msg
from ..safe_text import md
from ..tokenizer import TOKENIZER_FILES, TOKENIZER_SUFFIXES
from ..tokenizer.files import GPT2_PAIR
from . import naming, session_files, state
from .errors import show_error
from .uploader_text import file_uploader

UPLOAD_ERROR = "_upload_error"  # session_state: why the last upload could not be read, shown once
CHUNK = 2**20  # 1 MB: the copy to disk adds next to nothing to the memory an upload already takes


def user_models() -> dict[str, Embeddings]:
    return st.session_state.setdefault(state.USER_MODELS, {})


SAFE_NAME = re.compile(r"[^\w.+-]")


def spool(uploaded, folder: Path | None = None) -> Path:
    """Write an upload, chunk by chunk (no copy of the whole), to a file of its own name in a new folder of this
    session's (or in ``folder``). Nothing it may replace is touched until ``keep_upload`` says it was read."""
    made = folder is None
    folder = folder or session_files.new_folder("upload_")
    name = SAFE_NAME.sub("_", Path(uploaded.name).name)[-120:] or "upload"
    path = folder / name
    try:
        _write(uploaded, path)
    except OSError:
        session_files.remove(folder if made else path)  # a full disk keeps no half-written copy
        raise
    return path


def _write(uploaded, path: Path) -> None:
    """Copy an upload to disk chunk by chunk (its bytes stay in Streamlit's upload store until ``drop_bytes``)."""
    with open(path, "wb") as f:
        uploaded.seek(0)
        while chunk := uploaded.read(CHUNK):
            f.write(chunk)
    uploaded.close()


def drop_bytes(files: list) -> None:
    """Have Streamlit's upload store drop the bytes of ``files``, uploads copied to disk and read: it would keep
    them until the session ends (a browser only deletes a file whose chip is removed by hand). Called only once the
    upload is read and recorded, as the last step: a rerun asked for while it is read (a click anywhere on the
    page) stops the script at its next Streamlit call, and the next run must find the files still there to read
    them again, or the chips stay while the page says no file was given."""
    ctx = get_script_run_ctx()
    for uploaded in files if ctx is not None else ():
        if getattr(uploaded, "file_id", None):
            ctx.uploaded_file_mgr.remove_file(session_id=ctx.session_id, file_id=uploaded.file_id)


SIDECARS = {"config.json", "run.json", "trainer_state.json", *TOKENIZER_FILES}


def spool_many(files: list) -> Path:
    """A checkpoint and the files that go beside it (its config JSON, its tokenizer), spooled into one
    folder under their own names, so the loader finds them there. Returns the checkpoint's path: the
    largest file that is not a known sidecar."""
    if len(files) == 1:
        return spool(files[0])
    first = spool(max(files, key=lambda f: (f.name not in SIDECARS, f.size)))
    try:
        for f in files:
            name = SAFE_NAME.sub("_", Path(f.name).name)[-120:]
            if name != first.name:
                _write(f, first.parent / name)
    except OSError:
        session_files.remove(first.parent)
        raise
    return first


LOW_DISK_BYTES = 1_500 * 2**20  # the uploaders take up to 1.4 GB; below this free, a large one cannot be received


def disk_warning() -> Msg | None:
    """A sentence when the server's temporary folder (where the upload is received, then copied) is nearly full:
    Streamlit receives an upload there before this page sees it; one with no room is refused by ``upload_guard``
    and its chip says so, but saying it before the learner picks a large file saves the wait."""
    free = free_bytes(session_files.BASE.parent)
    if free is None or free >= LOW_DISK_BYTES:
        return None
    return Msg("The server's temporary folder has only {free:,.0f} MB free: a larger upload cannot be received. Ask "
               "whoever runs the server to free some space, or use the checkpoint folder.", free=free / 2**20)


def write_failed(exc: OSError, files: list) -> CheckpointError:
    """An upload the server's disk refused (full, not writable, a name too long) as the sentence to show: what
    could not be written and, for a full disk, how many MB the upload needed."""
    biggest = max(files, key=lambda f: f.size)
    what = Msg("the upload {name}", name=Path(biggest.name).name)
    return CheckpointError(os_error_msg(exc, what, needed=sum(f.size for f in files), folder=session_files.BASE))


def keep_upload(slot: str, folders: list[Path]) -> None:
    """The upload in ``folders`` was read: it takes ``slot``, and the one it replaces there is forgotten and deleted."""
    release(slot)
    st.session_state[f"_spooled:{slot}"] = [str(f) for f in folders]


def discard(folders: list[Path]) -> None:
    """An upload that could not be read: its copy goes, and what was loaded before stays."""
    for f in folders:
        session_files.remove(f)


def release(slot: str) -> None:
    """Forget the models read from a slot's spooled files and delete the files."""
    for old in st.session_state.pop(f"_spooled:{slot}", None) or []:
        for key in [k for k, e in user_models().items() if e.provenance.file and Path(e.provenance.file).parent == Path(old)]:
            user_models().pop(key)
            if st.session_state.get(state.MODEL) == key:
                st.session_state[state.MODEL] = None
        session_files.remove(old)


def uploader_key(name: str) -> str:
    """A file uploader's key, renewed by ``let_go(name)``: a new key draws an empty uploader in place of one
    whose files were spooled (and whose bytes the store has dropped)."""
    gen = st.session_state.get(f"_upload_gen:{name}", 0)
    if gen:  # Streamlit keeps a keyed widget's value after the widget is gone: the replaced uploader's files
        st.session_state.pop(f"{name}:{gen - 1}", None)
    return f"{name}:{gen}"


def let_go(name: str) -> None:
    st.session_state[f"_upload_gen:{name}"] = st.session_state.get(f"_upload_gen:{name}", 0) + 1


def load_checkpoint(path: Path, tokenizer: Path | None, display_name: str, confine: Path,
                    tables: dict[str, str] | None = None) -> Embeddings:
    """Read a checkpoint with progress shown; raises CheckpointError with the sentence to show. Files found
    beside it are read only from ``confine`` (the checkpoint folder, or the upload's own folder); ``tables``: tables
    named by hand."""
    with st.status(_("Reading {name}…", name=md(display_name)), expanded=False) as status:
        status.write(_("Recognising the format from its first bytes, then reading the embedding tables only."))
        try:
            emb = load_path(path, tokenizer=tokenizer, name=display_name, confine=confine, tables=tables)
        except (CheckpointError, OSError):
            status.update(label=_("{name} could not be read.", name=md(display_name)), state="error")
            raise
        status.update(label=read_label(emb, display_name), state="complete")
    user_models()[emb.key] = emb
    return emb


def read_label(emb: Embeddings, display_name: str) -> str:
    """What was read, as ``load_checkpoint``'s status says it once done: "name: format, V × d."."""
    return _("{name}: {format}, {V:,} × {d}.", name=md(display_name), format=tr_md(emb.provenance.format),
             V=emb.vocab_size, d=emb.d_model)


def show_read(emb: Embeddings, display_name: str) -> None:
    """A checkpoint read by an earlier run, said as the run that read it said it (a side of Compare read before the
    other showed no line while the other showed its own)."""
    st.status(read_label(emb, display_name), state="complete", expanded=False)


def explore_checkpoint(path: Path, name: str) -> None:
    """Read a checkpoint the user picked (a timeline's snapshot) and make it the model of every page; a
    checkpoint that cannot be read says why on the page."""
    try:
        emb = load_checkpoint(path, None, name, confine=checkpoint_dir())
    except (CheckpointError, OSError) as exc:  # an OSError (a name too long, a denied file) as a sentence too
        show_error(exc)
        return
    st.session_state[state.MODEL] = emb.key


def _named_reader(path: Path, tok_path: list[Path] | None, folders: list[Path], result_key: str):
    """What reads a kept upload once its tables are named: the model, its files kept as an upload's are."""

    def read(tables: dict[str, str]) -> Embeddings:
        emb = load_checkpoint(path, tok_path, path.name, confine=path.parent, tables=tables)
        keep_upload("checkpoint", folders)
        st.session_state[result_key] = emb.key
        return emb

    return read


def what_it_reads() -> str:
    """The Checkpoint page's first paragraph: every format the app reads (``checkpoints.READS``, the table's own
    words), in the reader's language."""
    return _("The format is recognised from the file's bytes, whatever its name. Only the embedding tables are read, "
             "and no code in a file is ever run. It reads:") + "\n\n" + "\n".join(f"- {tr(a)}" for a in READS)


def upload_form(result_key: str) -> None:
    """The Checkpoint page's uploaders and its Read button: the files are spooled to disk and read, the key of
    the model read goes to ``st.session_state[result_key]``. A function, so that the uploaded files (Streamlit
    hands the script a copy of each) die with its locals instead of living on in the page's globals."""
    ups = file_uploader(_("Checkpoint file (and the files beside it, if any)"), key=uploader_key("ckpt:file"),
                   accept_multiple_files=True,
                   help=_("Up to 1.4 GB (a whole ANDREA-120M .bin with Adam state). Add its config JSON, "
                          "harris_segments.json or meta.pkl when it has them. Larger files: use the folder."))
    toks = file_uploader(_("Tokenizer (optional)"), type=list(TOKENIZER_SUFFIXES), key=uploader_key("ckpt:tok"),
                    accept_multiple_files=True,
                    help=_("{files}, or GPT-2's {vocab} and {merges} together; without one, tokens show as #id.",
                           files=", ".join(TOKENIZER_FILES), vocab=GPT2_PAIR[0], merges=GPT2_PAIR[1]))
    low = disk_warning()
    if low is not None:  # said before the upload, not only on the refused file's chip
        st.warning(tr(low), icon=":material/warning:")
    failed = st.session_state.pop(UPLOAD_ERROR, None)
    if failed is not None:  # the last upload could not be read: its sentence, under the new empty uploaders
        show_error(failed)
    if not st.button(_("Read the upload"), type="primary", disabled=not ups):
        return
    naming.forget()  # a new upload: one kept for naming (never named) is given up
    folders: list[Path] = []
    try:
        path = spool_many(ups)
        folders.append(path.parent)
        tok_folder = session_files.new_folder("tokenizer_") if toks else None
        folders += [tok_folder] if tok_folder else []  # before its files: a write that fails leaves no folder either
        tok_path = [spool(t, tok_folder) for t in toks] or None
        emb = load_checkpoint(path, tok_path, path.name, confine=path.parent)
    except NoTableError as exc:  # kept, for its tables to be named by hand (naming.table_picker)
        st.session_state[UPLOAD_ERROR] = exc
        naming.offer(naming.Pending("upload", path.name, exc, _named_reader(path, tok_path, folders, result_key),
                                    drop=lambda kept=list(folders): discard(kept)))
    except CheckpointError as exc:
        discard(folders)  # what was loaded before stays, with its files
        st.session_state[UPLOAD_ERROR] = exc
    except OSError as exc:  # the disk refused the copy: a sentence, never "OSError: [Errno 28]"
        discard(folders)
        st.session_state[UPLOAD_ERROR] = write_failed(exc, [*ups, *(toks or [])])
    except BaseException:  # a rerun asked for while it was read (a click elsewhere) stops the script here: the
        discard(folders)  # copy goes, the files stay in the uploaders for the next Read
        raise
    else:
        keep_upload("checkpoint", folders)
        st.session_state[result_key] = emb.key
    drop_bytes([*ups, *(toks or [])])  # read: the next run draws empty uploaders
    let_go("ckpt:file")
    let_go("ckpt:tok")
    del ups, toks
    st.rerun()  # the new, empty uploaders are drawn only by the next run: a file chosen now would be lost
