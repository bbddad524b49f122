"""Checkpoint files: one module per format, and one table that recognises a file by its bytes.

``FORMATS`` is checked in order, exact rules first: an ANDREA .bin whose step's low byte is 0x80
starts like a pickle, so the ANDREA size rule is tried before a pickle's first byte. Every
failure, whatever the reader met, leaves as one ``CheckpointError`` whose message says what was
expected and what came.
"""

from __future__ import annotations

import os
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import CheckpointError
from ..i18n import Msg, N_
from ..model import Embeddings
from ..tokenizer import Tokenizer, tokenizer_from_files
from . import adapters, andrea_bin, gguf_file, hf_folder, llmc, numpy_file, safetensors_file, torch_file
from .folder import shard_of
from .tables import Found, NoTableError, build, choose_tables, token_rows

HEAD_BYTES = 64
CONFIG_BESIDE = ("safetensors", "torch", "zip")  # what save_pretrained writes: a config.json beside it is read with it
SAFETY_NET: Counter[str] = Counter()  # per format: reads where a foreign exception, not a reader's own sentence, left


@dataclass(frozen=True)
class Format:
    """One checkpoint format: how its bytes are recognised, its name, and its reader."""

    key: str
    name: str  # a msgid
    sniff: Callable[[bytes, int], bool]  # (first bytes, file size) -> is it this format?
    read: Callable[[Path, Found], None]
    about: str = ""  # a msgid (markdown): what the Checkpoint page says of the files it covers; "" for none


def _read_zip(path: Path, found: Found) -> None:
    """A zip archive is an .npz (only .npy members) or a PyTorch file (a data.pkl inside)."""
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            packed = [i.filename for i in z.infolist() if i.compress_type != zipfile.ZIP_STORED]
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise CheckpointError("{name} starts like a zip archive (.pt or .npz) but is damaged: {detail}", name=path.name,
                              detail=str(exc)) from exc
    if names and all(n.endswith(".npy") for n in names):
        found.format = Msg(N_("numpy .npz"))
        numpy_file.read_npz(path, found)
    elif any(n.endswith("data.pkl") for n in names):
        if packed:  # torch.save stores its members uncompressed; a compressed one could inflate without bound
            raise CheckpointError("{name} is a PyTorch archive with compressed members ({members}); torch.save writes "
                                  "them uncompressed, and only such files are read", name=path.name,
                                  members=", ".join(packed[:3]))
        found.format = Msg(N_("PyTorch state dict"))
        torch_file.read(path, found)
    else:
        raise CheckpointError("{name} is a zip archive but neither a PyTorch file (no data.pkl) nor an .npz (members: "
                              "{members})", name=path.name, members=", ".join(names[:5]))


FORMATS: tuple[Format, ...] = (
    Format("zip", N_("zip archive (.npz or PyTorch)"), lambda h, s: h.startswith(b"PK\x03\x04"), _read_zip,
           N_("`.npz` (numpy's `savez`, Keras's `get_weights()`) and what `torch.save` writes (`.pt`, `.pth`, "
              "`pytorch_model.bin`, Meta's `consolidated.*.pth`, nanoGPT's `ckpt.pt` with its `meta.pkl`)")),
    Format("npy", N_("numpy .npy"), lambda h, s: h.startswith(numpy_file.NPY_MAGIC), numpy_file.read_npy,
           N_("numpy's `.npy` files")),
    Format("gguf", N_("GGUF (llama.cpp)"), gguf_file.looks_like, gguf_file.read,
           N_("llama.cpp's GGUF files (their tokenizer inside)")),
    Format("llmc", N_("llm.c .bin"), llmc.looks_like, llmc.read, N_("llm.c's `.bin` (with its `gpt2_tokenizer.bin`)")),
    Format("andrea", N_("ANDREA .bin (microGPT layout)"), andrea_bin.looks_like, andrea_bin.read,
           N_("ANDREA's `.bin` (with or without Adam state, an optional config JSON and `harris_segments.json`)")),
    Format("safetensors", N_("safetensors"), safetensors_file.looks_like, safetensors_file.read,
           N_("`model.safetensors`, sharded or not (its `config.json` beside it is read with it)")),
    Format("torch", N_("PyTorch state dict"), lambda h, s: h[:1] == b"\x80", torch_file.read,
           N_("older PyTorch files (`torch.save` before its zip format)")),
    # last: an ANDREA header whose size is wrong (a cut download) gets the ANDREA size message
    Format("andrea-damaged", N_("ANDREA .bin (microGPT layout)"), andrea_bin.looks_damaged, andrea_bin.read),
)
FOLDERS = N_("Hugging Face model folders and PEFT adapter folders")  # read by the folder's files, not a Format
READS = (FOLDERS, *(f.about for f in FORMATS if f.about))  # what the Checkpoint page lists, in this order
EXPECTED = N_("safetensors, a Hugging Face model folder, a PyTorch .pt/.pth/.bin state dict, an ANDREA .bin, an llm.c "
              ".bin, GGUF, .npy or .npz")


def sniff(path: Path) -> Format:
    """The format of a file, from its first bytes and its size."""
    size = path.stat().st_size
    if size == 0:
        raise CheckpointError("{name} is empty (0 bytes); expected a checkpoint", name=path.name)
    with open(path, "rb") as f:
        head = f.read(HEAD_BYTES)
    for fmt in FORMATS:
        if fmt.sniff(head, size):
            return fmt
    raise CheckpointError("{name} is not a checkpoint format this app reads (expected {expected}); its first bytes are "
                          "{head} and it has {size:,} bytes", name=path.name, expected=Msg(EXPECTED),
                          head=head[:12].hex(" "), size=size)


def find_tokenizer(path: Path, found: Found, confine: Path | None = None) -> Path | list[Path] | None:
    """A tokenizer file beside the weights (or in the folder), else nanoGPT's ``data/<dataset>/meta.pkl``
    where its sample.py looks: under the checkpoint folder's parent, or the working directory. With
    ``confine``, only a file that resolves inside that folder is taken."""
    candidate = (hf_folder.tokenizer_beside(path) if path.is_dir()
                 else hf_folder.tokenizer_beside(path.parent, stem=path.stem))
    dataset = found.config.get("dataset")
    if candidate is None and isinstance(dataset, str) and dataset and "/" not in dataset and ".." not in dataset:
        folder = path if path.is_dir() else path.parent
        for root in (folder.parent, Path.cwd()):
            meta = root / "data" / dataset / "meta.pkl"
            if meta.is_file() and (confine is None or confine.resolve() in meta.resolve().parents):
                candidate = meta
                break
    files = candidate if isinstance(candidate, list) else [candidate] if candidate is not None else []
    outside = [p for p in files if confine is not None and confine.resolve() not in p.resolve().parents]
    if outside:
        found.notes.append(Msg("a tokenizer beside the weights was left unread: {name} links outside the folder",
                               name=outside[0].name))
        return None
    if files:
        found.notes.append(Msg("tokenizer found beside the weights: {name}", name=" + ".join(p.name for p in files))
                           if files[0].parent == (path if path.is_dir() else path.parent) else
                           Msg("tokenizer found where nanoGPT's sample.py looks: {path}", path=str(files[0])))
    return candidate


def _tokenizer(explicit, path: Path, V: int, found: Found, confine: Path | None) -> Tokenizer | None:
    """The tokenizer given or found beside the weights. One that cannot be used leaves the weights readable,
    with tokens as #id and a warning that says why."""
    if explicit is not None and not isinstance(explicit, str | Path):
        explicit = [Path(p) for p in explicit] or None
    if explicit is None and found.tokenizer is not None:  # the file carries its own (GGUF)
        return found.tokenizer
    candidate = explicit if explicit is not None else find_tokenizer(path, found, confine)
    if candidate is None:
        return None
    try:
        tok, notes = tokenizer_from_files(candidate, V)
    except CheckpointError as exc:
        found.tokenizer_reason = exc.msg
        return None
    found.notes.extend(notes)
    return tok


def _read_adapter(path: Path, found: Found, confine: Path | None, base: Path | None) -> tuple[Path, adapters.Adapter]:
    """A PEFT adapter folder: its base's tables with the adapter merged (``base``: its base model's folder, else found
    by ``adapters.find_base``); returns where its tokenizer is looked for, and the adapter."""
    adapter = adapters.open_adapter(path)
    base = base if base is not None else adapters.find_base(path, adapter.config, confine)
    hf_folder.read(base, found)
    shown = str(base.resolve().relative_to(confine.resolve())) if confine is not None and confine.resolve() in \
        base.resolve().parents else base.name
    found.format = Msg("PEFT adapter ({kind}) on the base model {base}: {format}", kind=adapter.peft_type, base=shown,
                       format=found.format)
    adapters.apply(adapter, found)
    return (path if hf_folder.tokenizer_beside(path) is not None else base), adapter


def _read_found(path: Path, found: Found, tokenizer: str | Path | None, confine: Path | None, tables: dict | None,
                base: Path | None) -> Embeddings:
    tok_path, adapter = path, None
    if path.is_dir() and adapters.is_adapter_folder(path):
        tok_path, adapter = _read_adapter(path, found, confine, base)
    elif path.name in adapters.WEIGHTS and adapters.is_adapter_folder(path.parent):  # an adapter's tensors: its folder
        tok_path, adapter = _read_adapter(path.parent, found, confine, base)
    elif path.is_dir():
        hf_folder.read(path, found)
    else:
        fmt = sniff(path)
        found.format = Msg(fmt.name)
        fmt.read(path, found)
        if fmt.key in CONFIG_BESIDE:
            hf_folder.config_beside(path, found, confine)
    shard = shard_of(path.name) if path.is_file() else None
    if shard is not None:
        found.warnings.append(Msg("{name} is shard {i} of {n} of a sharded checkpoint: it holds only part of the model; "
                                  "open the folder with all {n} shards and their index", name=path.name, i=shard[0],
                                  n=shard[1]))
    try:
        choice = choose_tables(found, tables)
    except CheckpointError as exc:
        if shard is None:
            raise
        raise CheckpointError("{name} is shard {i} of {n} of a sharded checkpoint, and the token table is not in it; "
                              "open the folder with all {n} shards and their index ({detail})", name=path.name,
                              i=shard[0], n=shard[1], detail=exc.msg) from exc
    if adapter is not None:
        choice = adapters.untie(adapter, found, choice)
        adapters.note_untouched(adapter, found, [choice.token, choice.position, choice.output])
    tok = _tokenizer(tokenizer, tok_path, token_rows(found, choice), found, confine)
    stat = path.stat()
    named = ",".join(f"{r}={k}" for r, k in sorted((tables or {}).items()))
    key = f"file:{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}:{tokenizer_key(tokenizer)}" + (f":{named}" if named else "")
    if base is not None:
        key += f":base={base.resolve()}"
    return build(found, choice, tok, name=path.name, key=key)


def tokenizer_key(tokenizer) -> str:
    """The part of a model's cache key that says which tokenizer files were given (path, size, time)."""
    if tokenizer is None:
        return "-"
    paths = [tokenizer] if isinstance(tokenizer, str | Path) else list(tokenizer)
    parts = []
    for p in map(Path, paths):
        st = p.stat() if p.exists() else None
        parts.append(f"{p.resolve()}:{st.st_size if st else 0}:{st.st_mtime_ns if st else 0}")
    return "+".join(parts)


def said_as(msg: Msg, path: Path, name: str) -> Msg:
    """``msg`` with the file called ``name`` (what the user calls it) instead of where the server keeps it: a parameter
    that is the path, or a path inside it, or the file's bare name, is renamed; the server's absolute path is taken out
    of any other text (a library's own error may quote it). Other words that merely contain the file's name stay."""
    where, inner = str(path), str(path) + os.sep

    def rename(v: str) -> str:
        if v == where:
            return name
        if v.startswith(inner):
            return str(Path(name) / v[len(inner):])
        if v == path.name:
            return Path(name).name
        return v.replace(where, name)

    return msg.map_strings(rename)


def load_path(path: Path, tokenizer=None, name: str | None = None, confine: Path | None = None,
              tables: dict[str, str] | None = None, base: Path | None = None) -> Embeddings:
    """Read a checkpoint file or folder into an Embeddings object, or raise one CheckpointError. ``name``: what
    messages call it (an upload's own name, a path relative to the checkpoint folder); ``confine``: a folder
    that every file found beside it must lie in (the checkpoint folder, an upload's own folder); ``tables``: tables
    named by hand (``token``, ``position``, ``output`` -> the file's key); ``base``: a PEFT adapter's base folder."""
    path = Path(path)
    found = Found(format=Msg("unknown"), file=str(path))
    try:
        try:
            emb = _read_found(path, found, tokenizer, confine, {k: v for k, v in (tables or {}).items() if v}, base)
        except CheckpointError:
            raise
        except MemoryError as exc:
            raise CheckpointError("{name} declares tables larger than this machine's memory", name=path.name) from exc
        except Exception as exc:  # whatever a damaged file makes a reader raise: the safety net, counted
            SAFETY_NET[str(found.format)] += 1
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
            raise CheckpointError("{name} looks like {format} but could not be read: {detail}", name=path.name,
                                  format=found.format, detail=first) from exc
    except CheckpointError as exc:
        if name and name != str(path):  # say the user's name for it, never the server's place on disk
            renamed = said_as(exc.msg, path, name)
            if isinstance(exc, NoTableError):
                raise NoTableError(renamed, exc.tensors) from exc
            raise CheckpointError(renamed) from exc
        raise
    return replace(emb, name=name) if name else emb
