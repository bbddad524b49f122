"""llm.c's GPT-2 checkpoint: a 256 × int32 header (magic 20240326, version 3 = fp32 or 5 = bf16, maxT,
V, L, H, C, padded Vp), then the parameters, wte (Vp, C) first and wpe (maxT, C) next. Tied output."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import CheckpointError
from .tables import Found

MAGIC = 20240326
HEADER_BYTES = 256 * 4


def looks_like(head: bytes) -> bool:
    return len(head) >= 4 and int(np.frombuffer(head[:4], "<i4")[0]) == MAGIC


def bf16_to_f32(raw: np.ndarray) -> np.ndarray:
    return (raw.astype(np.uint32) << 16).view(np.float32)


def read(path: Path, found: Found) -> int:
    """Collect wte and wpe; returns V (rows past it are padding)."""
    size = path.stat().st_size
    if size < HEADER_BYTES:
        raise CheckpointError(f"{path.name}: an llm.c checkpoint starts with a {HEADER_BYTES}-byte header; "
                              f"the file has {size:,} bytes")
    h = np.fromfile(path, "<i4", count=8)
    version, maxT, V, L, H, C, Vp = (int(x) for x in h[1:8])
    if version not in (3, 5):
        raise CheckpointError(f"{path.name}: llm.c version {version} is not one of 3 (fp32) or 5 (bf16)")
    if min(maxT, V, C, Vp) <= 0 or Vp < V:
        raise CheckpointError(f"{path.name}: the llm.c header declares maxT = {maxT}, V = {V}, C = {C}, Vp = {Vp}; "
                              "expected positive sizes with Vp ≥ V")
    elem = 4 if version == 3 else 2
    need = HEADER_BYTES + (Vp * C + maxT * C) * elem
    if need > size:
        raise CheckpointError(f"{path.name}: the header declares tables of {need - HEADER_BYTES:,} bytes "
                              f"(Vp = {Vp:,}, maxT = {maxT:,}, C = {C:,}) but the file has only {size:,} bytes")
    dtype = "float32" if elem == 4 else "bfloat16"
    found.notes.append(f"llm.c version {version} ({dtype}): maxT = {maxT:,}, V = {V:,}, padded Vp = {Vp:,}, "
                       f"L = {L}, heads = {H}, C = {C}")
    found.config.update({"layers": L, "heads": H})

    def table(offset: int, shape: tuple[int, int]):
        if elem == 4:
            return np.memmap(path, "<f4", "r", offset=HEADER_BYTES + offset * 4, shape=shape)
        return bf16_to_f32(np.memmap(path, "<u2", "r", offset=HEADER_BYTES + offset * 2, shape=shape))

    found.add("wte", (Vp, C), dtype, lambda: table(0, (Vp, C)))
    found.add("wpe", (maxT, C), dtype, lambda: table(Vp * C, (maxT, C)))
    found.assumptions.append("llm.c ties the output projection to wte")
    return V
