"""PyTorch files (.pt, .pth, .bin): nanoGPT's ckpt.pt, Hugging Face pytorch_model.bin, Meta's
consolidated.*.pth. Read only with ``torch.load(..., weights_only=True)``: a pickle that would build
any other Python object is refused and nothing in it runs."""

from __future__ import annotations

import pickle
from pathlib import Path

from ..errors import CheckpointError
from .tables import Found


def _torch_load(path: Path):
    import torch

    try:
        return torch.load(str(path), map_location="cpu", weights_only=True, mmap=True)
    except pickle.UnpicklingError as exc:
        raise CheckpointError(
            f"{path.name} was refused: it holds Python objects other than tensors and plain values, and loading "
            "them could run code; only weights are loaded here (torch.load with weights_only=True)"
        ) from exc
    except RuntimeError as exc:
        if "mmap" not in str(exc).lower():
            raise
    try:  # files in the legacy (non-zip) format cannot be memory-mapped
        return torch.load(str(path), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        raise CheckpointError(
            f"{path.name} was refused: it holds Python objects other than tensors and plain values, and loading "
            "them could run code; only weights are loaded here (torch.load with weights_only=True)"
        ) from exc


def read(path: Path, found: Found) -> None:
    import torch

    obj = _torch_load(path)
    state = obj
    if isinstance(obj, dict) and isinstance(obj.get("model"), dict):
        state = obj["model"]
        found.format = "PyTorch checkpoint (nanoGPT ckpt.pt)"
        args = obj.get("model_args")
        if isinstance(args, dict):
            found.notes.append("model_args: " + ", ".join(f"{k} = {v}" for k, v in args.items()))
            if isinstance(args.get("n_layer"), int):
                found.config["layers"] = args["n_layer"]
            if isinstance(args.get("n_head"), int):
                found.config["heads"] = args["n_head"]
        if "iter_num" in obj:
            found.notes.append(f"iteration {obj['iter_num']}")
    elif isinstance(obj, dict) and isinstance(obj.get("state_dict"), dict):
        state = obj["state_dict"]
    if not isinstance(state, dict) or not any(isinstance(v, torch.Tensor) for v in state.values()):
        raise CheckpointError(f"{path.name} holds no tensors by name: expected a state dict "
                              "(name → tensor), or nanoGPT's dict with a 'model' state dict")
    if any(str(k).startswith("_orig_mod.") for k in state):
        found.notes.append("keys carry torch.compile's '_orig_mod.' prefix; it is ignored")
    for k, v in state.items():
        if isinstance(v, torch.Tensor):
            found.add(str(k), tuple(v.shape), str(v.dtype).replace("torch.", ""),
                      lambda t=v: (t.float() if t.is_floating_point() else t).numpy())
