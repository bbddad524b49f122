"""Checkpoint files: one module per format, and a dispatcher that sniffs the bytes (not the name).

Every failure, whatever the reader met, leaves as one ``CheckpointError`` whose message says what
was expected and what came.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from ..errors import CheckpointError
from ..model import Embeddings
from ..tokenizer import Tokenizer, tokenizer_from_file
from . import andrea_bin, hf_folder, llmc, numpy_file, safetensors_file, torch_file
from .tables import Found, build

FORMATS = ("safetensors", "a Hugging Face model folder", "a PyTorch .pt/.pth/.bin state dict",
           "an ANDREA .bin", "an llm.c .bin", ".npy", ".npz")


def sniff(path: Path) -> str:
    """The format of a file, from its first bytes and its size."""
    size = path.stat().st_size
    if size == 0:
        raise CheckpointError(f"{path.name} is empty (0 bytes); expected a checkpoint")
    with open(path, "rb") as f:
        head = f.read(64)
    if head.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(path) as z:
                names = z.namelist()
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise CheckpointError(f"{path.name} starts like a zip archive (.pt or .npz) but is damaged: {exc}") from exc
        if names and all(n.endswith(".npy") for n in names):
            return "npz"
        if any(n.endswith("data.pkl") for n in names):
            return "torch"
        raise CheckpointError(f"{path.name} is a zip archive but neither a PyTorch file (no data.pkl) nor an .npz "
                              f"(members: {', '.join(names[:5])})")
    if head.startswith(numpy_file.NPY_MAGIC):
        return "npy"
    if llmc.looks_like(head):
        return "llmc"
    if safetensors_file.looks_like(head, size):
        return "safetensors"
    if head[:1] == b"\x80":
        return "torch"
    if andrea_bin.looks_like(head, size):
        return "andrea"
    raise CheckpointError(
        f"{path.name} is not a checkpoint format this app reads (expected {', '.join(FORMATS)}); "
        f"its first bytes are {head[:12].hex(' ')} and it has {size:,} bytes"
    )


FORMAT_NAMES = {"npz": "numpy .npz", "npy": "numpy .npy", "llmc": "llm.c .bin", "safetensors": "safetensors",
                "torch": "PyTorch state dict", "andrea": "ANDREA .bin (microGPT layout)"}


def _tokenizer(explicit: str | Path | None, path: Path, V: int, found: Found) -> Tokenizer | None:
    candidate = Path(explicit) if explicit is not None else None
    if candidate is None:
        candidate = (hf_folder.find_tokenizer(path) if path.is_dir()
                     else hf_folder.find_tokenizer(path.parent, stem=path.stem))
        if candidate is not None:
            found.notes.append(f"tokenizer found beside the weights: {candidate.name}")
    if candidate is None:
        return None
    tok, notes = tokenizer_from_file(candidate, V)
    found.notes.extend(notes)
    return tok


def _read(path: Path, found: Found, tokenizer: str | Path | None) -> Embeddings:
    tied_hint = pos_hint = drop = None
    if path.is_dir():
        tied_hint, pos_hint = hf_folder.read(path, found)
    else:
        fmt = sniff(path)
        found.format = FORMAT_NAMES[fmt]
        if fmt == "npz":
            numpy_file.read_npz(path, found)
        elif fmt == "npy":
            numpy_file.read_npy(path, found)
        elif fmt == "llmc":
            drop = llmc.read(path, found)
            tied_hint = True
        elif fmt == "safetensors":
            safetensors_file.read(path, found)
        elif fmt == "torch":
            torch_file.read(path, found)
        else:
            andrea_bin.read(path, found)
    # the vocabulary size is known once the token table's shape is
    token_shape = next((s for n, s in found.shapes.items() if len(s) == 2), None)
    V = drop or (token_shape[0] if token_shape else 0)
    tok = _tokenizer(tokenizer, path, V, found) if V else None
    stat = path.stat()
    key = f"file:{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}:{tokenizer}"
    return build(found, tok, name=path.name, key=key, tied_hint=tied_hint, position_kind_hint=pos_hint,
                 drop_rows_past=drop)


def load_path(path: Path, tokenizer: str | Path | None = None, name: str | None = None) -> Embeddings:
    """Read a checkpoint file or folder into an Embeddings object, or raise one CheckpointError."""
    path = Path(path)
    found = Found(format="unknown", file=str(path))
    try:
        try:
            emb = _read(path, found, tokenizer)
        except CheckpointError:
            raise
        except MemoryError as exc:
            raise CheckpointError(f"{path.name} declares tables larger than this machine's memory") from exc
        except Exception as exc:  # whatever a damaged file makes a reader raise
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
            raise CheckpointError(f"{path.name} looks like {found.format} but could not be read: {first}") from exc
    except CheckpointError as exc:
        if name and name != path.name:  # an upload: say the user's file name, not the temporary one
            raise CheckpointError(str(exc).replace(str(path), name).replace(path.name, name)) from exc
        raise
    if name:
        object.__setattr__(emb, "name", name)
    return emb
