"""safetensors: a bounded JSON header and raw tensors. The format executes no code by design. Float tensors are
memory-mapped in the dtype they are stored in (bfloat16 through ml_dtypes), so opening a file reads its header
only, and a table's bytes are read when a view first touches them."""

from __future__ import annotations

import json
import mmap
from pathlib import Path

import ml_dtypes
import numpy as np

from ..errors import CheckpointError
from ..i18n import Msg
from .tables import Found

HEADER_MAX = 100_000_000  # bytes: the safetensors library refuses larger headers too
MAPPED = {"F64": np.dtype("<f8"), "F32": np.dtype("<f4"), "F16": np.dtype("<f2"), "BF16": np.dtype(ml_dtypes.bfloat16),
          "I64": np.dtype("<i8"), "I32": np.dtype("<i4"), "I16": np.dtype("<i2"), "I8": np.dtype("i1"),
          "U8": np.dtype("u1"), "BOOL": np.dtype("?")}  # safetensors dtype -> numpy dtype of the bytes as stored


def looks_like(head: bytes, size: int) -> bool:
    """An 8-byte little-endian header length that fits the file, then the JSON header's '{'."""
    if len(head) < 9:
        return False
    n = int(np.frombuffer(head[:8], "<u8")[0])
    return 2 <= n <= size - 8 and head[8:9] == b"{"


def safetensors_header(path: Path) -> tuple[dict, int]:
    """(the JSON header, the offset where the tensors' bytes start): the only part of the file read when it opens."""
    with open(path, "rb") as f:
        n = int(np.frombuffer(f.read(8), "<u8")[0])
        if not 2 <= n <= HEADER_MAX:
            raise CheckpointError("{name} declares a safetensors header of {n:,} bytes; at most {most:,} are read",
                                  name=path.name, n=n, most=HEADER_MAX)
        return json.loads(f.read(n)), 8 + n


def map_tensor(path: Path, start: int, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """The tensor's bytes as a read-only array over a memory map of the file (nothing is read until it is touched)."""
    count = int(np.prod(shape, dtype=np.int64))
    if count == 0:
        return np.zeros(shape, dtype)
    with open(path, "rb") as f:
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    a = np.frombuffer(mm, dtype=dtype, count=count, offset=start).reshape(shape)
    return a  # read-only: the map is ACCESS_READ


def _read_other(path: Path, key: str) -> np.ndarray:
    """A dtype with no numpy twin (F8 and the like), through torch, widened to float32."""
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as g:
        return g.get_tensor(key).float().numpy()


def read(path: Path, found: Found, prefix: str = "") -> None:
    from safetensors import safe_open

    try:  # the safetensors library checks the header (offsets in order, inside the file) before anything is mapped
        with safe_open(str(path), framework="np") as f:
            meta = f.metadata() or {}
        head, base = safetensors_header(path)
    except CheckpointError:
        raise
    except Exception as exc:
        raise CheckpointError("{name} is not a valid safetensors file: {detail}", name=path.name,
                              detail=(str(exc).splitlines() or [type(exc).__name__])[0]) from exc
    for k, spec in head.items():
        if k == "__metadata__":
            continue
        shape, dtype = tuple(int(s) for s in spec["shape"]), str(spec["dtype"])
        start = base + int(spec["data_offsets"][0])
        found.add(prefix + k, shape, dtype, (lambda s=start, dt=MAPPED[dtype], sh=shape: map_tensor(path, s, dt, sh))
                  if dtype in MAPPED else (lambda key=k: _read_other(path, key)))
    if meta.get("format"):
        found.notes.append(Msg("safetensors metadata: format = {format}", format=str(meta["format"])))
