"""llm.c's GPT-2 checkpoint: a 256 × int32 header (magic 20240326, version 3 = fp32 or 5 = bf16, maxT,
V, L, H, C, padded Vp), then the parameters, wte (Vp, C) first and wpe (maxT, C) next. Tied output."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import CheckpointError
from ..i18n import Msg
from .tables import Found

from ..llmc_format import HEADER_BYTES, MODEL_MAGIC

VERSIONS = {3: "float32", 5: "bfloat16"}
GPT2_INIT_STD = 0.02  # GPT-2's init of every table (llm.c and nanoGPT follow it)


def looks_like(head: bytes, size: int = 0) -> bool:
    return len(head) >= 4 and int(np.frombuffer(head[:4], "<i4")[0]) == MODEL_MAGIC


def bf16_to_f32(raw: np.ndarray) -> np.ndarray:
    return (raw.astype(np.uint32) << 16).view(np.float32)


def read(path: Path, found: Found) -> None:
    """Collect wte and wpe; rows of wte past V are padding."""
    size = path.stat().st_size
    if size < HEADER_BYTES:
        raise CheckpointError("{name}: an llm.c checkpoint starts with a {header}-byte header; the file has {size:,} bytes",
                              name=path.name, header=HEADER_BYTES, size=size)
    h = np.fromfile(path, "<i4", count=8)
    version, maxT, V, L, H, C, Vp = (int(x) for x in h[1:8])
    if version not in VERSIONS:
        raise CheckpointError("{name}: llm.c version {version} is not one of 3 (fp32) or 5 (bf16)", name=path.name,
                              version=version)
    if min(maxT, V, C, Vp) <= 0 or Vp < V:
        raise CheckpointError("{name}: the llm.c header declares maxT = {maxT}, V = {V}, C = {C}, Vp = {Vp}; expected "
                              "positive sizes with Vp ≥ V", name=path.name, maxT=maxT, V=V, C=C, Vp=Vp)
    elem = 4 if version == 3 else 2
    need = HEADER_BYTES + (Vp * C + maxT * C) * elem
    if need > size:
        raise CheckpointError("{name}: the header declares tables of {need:,} bytes (Vp = {Vp:,}, maxT = {maxT:,}, C = "
                              "{C:,}) but the file has only {size:,} bytes", name=path.name, need=need - HEADER_BYTES,
                              Vp=Vp, maxT=maxT, C=C, size=size)
    dtype = VERSIONS[version]
    found.notes.append(Msg("llm.c version {version} ({dtype}): maxT = {maxT:,}, V = {V:,}, padded Vp = {Vp:,}, L = {L}, "
                           "heads = {H}, C = {C}", version=version, dtype=dtype, maxT=maxT, V=V, Vp=Vp, L=L, H=H, C=C))
    found.config.update({"layers": L, "heads": H, "family": "GPT-2", "init_std": GPT2_INIT_STD})

    def table(offset: int, shape: tuple[int, int]):
        if elem == 4:
            return np.memmap(path, "<f4", "r", offset=HEADER_BYTES + offset * 4, shape=shape)
        return bf16_to_f32(np.memmap(path, "<u2", "r", offset=HEADER_BYTES + offset * 2, shape=shape))

    found.add("wte", (Vp, C), dtype, lambda: table(0, (Vp, C)))
    found.add("wpe", (maxT, C), dtype, lambda: table(Vp * C, (maxT, C)))
    found.vocab_rows = V
    found.tied_hint = True
    found.assumptions.append(Msg("llm.c ties the output projection to wte"))
