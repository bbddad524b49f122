"""PyTorch files (.pt, .pth, .bin): nanoGPT's ckpt.pt, Hugging Face pytorch_model.bin, Meta's
consolidated.*.pth. Read only with ``torch.load(..., weights_only=True)``: a pickle that would build
any other Python object is refused and nothing in it runs."""

from __future__ import annotations

import pickle
from pathlib import Path

from ..errors import CheckpointError
from ..i18n import Msg
from .llmc import GPT2_INIT_STD
from .tables import Found


def _refused(path: Path) -> CheckpointError:
    return CheckpointError("{name} was refused: it holds Python objects other than tensors and plain values, and loading "
                           "them could run code; only weights are loaded here (torch.load with weights_only=True)",
                           name=path.name)


def load_weights_only(path: Path):
    """torch.load with weights_only=True, memory-mapped when the file allows it."""
    import torch

    try:
        return torch.load(str(path), map_location="cpu", weights_only=True, mmap=True)
    except pickle.UnpicklingError as exc:
        raise _refused(path) from exc
    except RuntimeError as exc:
        if "mmap" not in str(exc).lower():
            raise _damaged_torch(path, exc) from exc
    except DAMAGED as exc:
        raise _damaged_torch(path, exc) from exc
    try:  # files in the legacy (non-zip) format cannot be memory-mapped
        return torch.load(str(path), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        raise _refused(path) from exc
    except (RuntimeError, *DAMAGED) as exc:
        raise _damaged_torch(path, exc) from exc


# what torch.load raises on a cut or damaged file (its pickle and zip readers' own errors)
DAMAGED = (UnicodeDecodeError, EOFError, ValueError, KeyError, IndexError, TypeError, AttributeError, OSError)


def _damaged_torch(path: Path, exc: Exception) -> CheckpointError:
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
    return CheckpointError("{name} is a damaged PyTorch file: torch.load says {detail}", name=path.name, detail=first)


def read(path: Path, found: Found) -> None:
    import torch

    obj = load_weights_only(path)
    state = obj
    if isinstance(obj, dict) and isinstance(obj.get("model"), dict):
        state = obj["model"]
        found.format = Msg("PyTorch checkpoint (nanoGPT ckpt.pt)")
        found.config.update({"family": "GPT-2", "init_std": GPT2_INIT_STD})
        args = obj.get("model_args")
        if isinstance(args, dict):
            found.notes.append(Msg("model_args: {args}", args=", ".join(f"{k} = {v}" for k, v in args.items())))
            if isinstance(args.get("n_layer"), int):
                found.config["layers"] = args["n_layer"]
            if isinstance(args.get("n_head"), int):
                found.config["heads"] = args["n_head"]
        if isinstance(obj.get("iter_num"), int):
            found.step = obj["iter_num"]
            found.notes.append(Msg("iteration {step:,}", step=obj["iter_num"]))
        config = obj.get("config")
        if isinstance(config, dict) and isinstance(config.get("dataset"), str):
            found.config["dataset"] = config["dataset"]
    elif isinstance(obj, dict) and isinstance(obj.get("state_dict"), dict):
        state = obj["state_dict"]
    if not isinstance(state, dict) or not any(isinstance(v, torch.Tensor) for v in state.values()):
        raise CheckpointError("{name} holds no tensors by name: expected a state dict (name → tensor), or nanoGPT's dict "
                              "with a 'model' state dict", name=path.name)
    if any(str(k).startswith("_orig_mod.") for k in state):
        found.notes.append(Msg("keys carry torch.compile's '_orig_mod.' prefix; it is ignored"))
    for k, v in state.items():
        if isinstance(v, torch.Tensor):
            found.add(str(k), tuple(v.shape), str(v.dtype).replace("torch.", ""),
                      lambda t=v: (t.float() if t.is_floating_point() else t).numpy())
