"""The checkpoint folder: a place on the server's disk to pick large checkpoints from without
uploading them. Paths that resolve outside it (``..``, absolute paths, links) are refused."""

from __future__ import annotations

import errno
import json
import os
import re
from pathlib import Path

from ..errors import CheckpointError
from ..tokenizer import TOKENIZER_FILES

ENV = "ANDREA_VIZ_CHECKPOINT_DIR"
NAME_MAX = 255  # bytes of one name in a path (Linux, macOS)
PATH_MAX = 1024  # characters of a path relative to the checkpoint folder
WEIGHT_SUFFIXES = {".bin", ".pt", ".pth", ".safetensors", ".npy", ".npz", ".ckpt", ".gguf"}  # files a checkpoint may be
TOKENIZER_NAMES = set(TOKENIZER_FILES)
# what transformers' Trainer writes beside the weights of a checkpoint-N/ folder: never a model (training_args.bin
# is a pickle of arbitrary objects and is never read)
TRAINER_FILES = re.compile(r"^(optimizer\.pt|scheduler\.pt|scaler\.pt|rng_state(_\d+)?\.pth|training_args\.bin)$")
SHARD = re.compile(r"^(?P<stem>model|pytorch_model)(\.[\w-]+)?-(?P<i>\d{5})-of-(?P<n>\d{5})\.(safetensors|bin)$")
ADAPTER_FILES = {"adapter_model.safetensors", "adapter_model.bin"}  # a PEFT adapter's tensors: opened as its folder
MODEL_WEIGHTS = re.compile(r"^(model(\.[\w-]+)?\.safetensors|pytorch_model(\.[\w-]+)?\.bin|"
                           r"(model\.safetensors|pytorch_model\.bin)\.index(\.[\w-]+)?\.json)$")  # what read_weights reads


def is_checkpoint_file(name: str) -> bool:
    """A file that may be offered as a checkpoint of its own: weights, not a shard nor a Trainer's state."""
    return (Path(name).suffix in WEIGHT_SUFFIXES and name not in TOKENIZER_NAMES and not TRAINER_FILES.match(name)
            and not SHARD.match(name) and not name.endswith(".part") and name not in ADAPTER_FILES)


def is_model_folder(filenames) -> bool:
    """A folder that opens as a model: a config.json with weights beside it (a Hugging Face folder), or a PEFT
    adapter's adapter_config.json with its tensors."""
    names = set(filenames)
    return ("config.json" in names and any(MODEL_WEIGHTS.match(n) or SHARD.match(n) for n in names)
            or "adapter_config.json" in names and bool(names & ADAPTER_FILES))


def module_folders(folder: Path, filenames) -> set[str]:
    """The module folders of a sentence-transformers model (1_Pooling/, 2_Dense/, 3_Normalize/), as its modules.json
    names them: parts of the model around it, never models of their own."""
    if "modules.json" not in filenames:
        return set()
    try:
        modules = json.loads((folder / "modules.json").read_text())
        return {str(m["path"]).strip("/") for m in modules if isinstance(m, dict) and str(m.get("path", "")).strip("/")}
    except (ValueError, UnicodeDecodeError, OSError, TypeError, KeyError, RecursionError):
        return set()


def shard_of(name: str) -> tuple[int, int] | None:
    """(i, n) for a shard named the way save_pretrained names them (model-00002-of-00003.safetensors)."""
    m = SHARD.match(name)
    return (int(m.group("i")), int(m.group("n"))) if m else None


def checkpoint_dir() -> Path:
    return Path(os.environ.get(ENV, "checkpoints")).expanduser().resolve()


def display_root() -> str:
    """The checkpoint folder as the server's operator named it (never its resolved place on disk)."""
    return os.environ.get(ENV, "checkpoints")


def inside(root: Path, relative: str | Path) -> Path:
    """root / relative, resolved; a CheckpointError (a sentence naming only ``relative``, never a server path)
    when it holds a NUL, is longer than a path can be, lands outside root, is missing, or the system refuses to
    look it up."""
    rel = str(relative)
    if "\x00" in rel:
        raise CheckpointError("'{rel}' holds a NUL character, which no file name can hold", rel=rel)
    longest = max((len(os.fsencode(part)) for part in Path(rel).parts), default=0)
    if longest > NAME_MAX or len(rel) > PATH_MAX:
        raise CheckpointError("'{rel}' is too long for a path in the checkpoint folder: each name in it may have at "
                              "most {name_max:,} bytes and the whole path {path_max:,} characters", rel=rel,
                              name_max=NAME_MAX, path_max=PATH_MAX)
    try:
        return _inside(root.resolve(), rel)
    except CheckpointError:
        raise
    except (OSError, ValueError, RuntimeError) as exc:  # ValueError: a name the system cannot encode; RuntimeError:
        # Python 3.11's resolve() on a symlink loop (its text names the server's path, so it is never shown)
        code = "ELOOP" if isinstance(exc, RuntimeError) else errno.errorcode.get(getattr(exc, "errno", 0) or 0,
                                                                                 type(exc).__name__)
        raise CheckpointError("'{rel}' could not be looked up in the checkpoint folder (the system said {code})",
                              rel=rel, code=code) from None


def _inside(root: Path, rel: str) -> Path:
    target = (root / rel).resolve()
    if not _within(root, target):
        raise CheckpointError("'{rel}' resolves outside the checkpoint folder; only files inside it can be opened",
                              rel=rel)
    if not target.exists():
        raise CheckpointError("'{rel}' does not exist in the checkpoint folder", rel=rel)
    beside = [p for p in (target.rglob("*") if target.is_dir() else target.parent.iterdir()) if p.is_symlink()]
    for link in beside:  # a file read beside the weights (a tokenizer, a config) must be inside too
        if not _within(root, link.resolve()):
            raise CheckpointError("'{rel}' links to a file outside the checkpoint folder; only files inside it can be "
                                  "opened", rel=str(link.relative_to(root)))
    return target


def _within(root: Path, target: Path) -> bool:
    return target == root or root in target.parents


def list_checkpoints(root: Path, depth: int = 3) -> list[str]:
    """Weight files and folders that open as a model (``is_model_folder``) under root, as paths relative to it; the
    module folders of a sentence-transformers model are not entered."""
    if not root.is_dir():
        return []
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        rel = here.relative_to(root)
        modules = module_folders(here, filenames)
        dirnames[:] = [] if len(rel.parts) >= depth else [d for d in dirnames if d not in modules]
        if is_model_folder(filenames) and here != root:
            found.append(str(rel) + "/")
        found += [str(rel / f) for f in filenames if is_checkpoint_file(f)]
    return sorted(found)


def list_tokenizers(root: Path, depth: int = 3) -> list[str]:
    if not root.is_dir():
        return []
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if p.name in TOKENIZER_NAMES and len(p.relative_to(root).parts) <= depth)


def list_timelines(root: Path, depth: int = 2) -> list[str]:
    """Folders under root (root itself as '.') that hold two or more snapshots: checkpoint files, checkpoint-N/ or model
    folders. A model folder's own weight files are one model, not snapshots (unless it is a Trainer's output_dir, with
    checkpoint-N/ folders), and a sentence-transformers model's module folders are parts of it."""
    if not root.is_dir():
        return []
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        rel = here.relative_to(root)
        modules = module_folders(here, filenames)
        subfolders = [d for d in dirnames if d not in modules]
        if len(rel.parts) >= depth:
            dirnames[:] = []
        trainer = [d for d in subfolders if d.startswith("checkpoint-")]
        n = 0 if is_model_folder(filenames) and not trainer else sum(is_checkpoint_file(f) for f in filenames)
        n += sum(d.startswith("checkpoint-") or is_model_folder(_names(here / d)) for d in subfolders)
        if n >= 2:
            out.append(str(rel) + "/" if rel.parts else "./")
    return sorted(out)


def _names(folder: Path) -> list[str]:
    try:
        return [p.name for p in folder.iterdir()]
    except OSError:
        return []
