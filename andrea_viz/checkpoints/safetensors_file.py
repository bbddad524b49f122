"""safetensors: a bounded JSON header and raw tensors. The format executes no code by design; it is
memory-mapped, so only the tensors asked for are read."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import CheckpointError
from ..i18n import Msg
from .tables import Found


def looks_like(head: bytes, size: int) -> bool:
    """An 8-byte little-endian header length that fits the file, then the JSON header's '{'."""
    if len(head) < 9:
        return False
    n = int(np.frombuffer(head[:8], "<u8")[0])
    return 2 <= n <= size - 8 and head[8:9] == b"{"


def _read_tensor(path: Path, key: str, dtype: str) -> np.ndarray:
    """numpy for every dtype it has; bfloat16 (which numpy lacks) through torch."""
    from safetensors import safe_open

    if dtype == "BF16":
        with safe_open(str(path), framework="pt") as g:
            return g.get_tensor(key).float().numpy()
    with safe_open(str(path), framework="np") as g:
        return g.get_tensor(key)


def read(path: Path, found: Found, prefix: str = "") -> None:
    from safetensors import safe_open

    try:
        handle = safe_open(str(path), framework="np")
    except Exception as exc:
        raise CheckpointError("{name} is not a valid safetensors file: {detail}", name=path.name,
                              detail=(str(exc).splitlines() or [type(exc).__name__])[0]) from exc
    with handle as f:
        meta = f.metadata() or {}
        for k in f.keys():
            sl = f.get_slice(k)
            shape, dtype = tuple(sl.get_shape()), sl.get_dtype()
            found.add(prefix + k, shape, dtype, lambda key=k, dt=dtype: _read_tensor(path, key, dt))
    if meta.get("format"):
        found.notes.append(Msg("safetensors metadata: format = {format}", format=str(meta["format"])))
