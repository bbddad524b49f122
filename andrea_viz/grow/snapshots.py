"""Writing a run's files the way ANDREA publishes them, so every other part opens them as checkpoints.

- ``step-000128.bin``: ``int32 step, int32 n_params``, the n_params float32 weights in the family's
  order (wte, wpe, lm_head, then each layer's six matrices, row-major), then Adam's m and v of the same
  size (or the weights alone, for a model that only ships).
- ``config.json``: V, d_model, T, layers, heads, tied (``config_json``; the ANDREA reader takes its sizes from it).
- ``harris_segments.json``: the segments in id order (ids 256, 257, …), then BOS.
- ``run.json``: the run's manifest: preset, seed, losses, the snapshots written so far, whether it finished.

Each file is written to a temporary name and renamed, so a run stopped mid-write leaves no half file.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np

from ..family import BYTE_TOKENS, LAYER_ORDER, ModelShape

SNAPSHOT = re.compile(r"^step-(\d+)\.bin$")
CONFIG, SEGMENTS, MANIFEST = "config.json", "harris_segments.json", "run.json"
MAX_INT32 = 2**31 - 1


def snapshot_name(step: int) -> str:
    return f"step-{step:06d}.bin"


def config_json(shape: ModelShape) -> dict:
    """A grown model's ``config.json``: its shape under the names the checkpoint readers know (``vocab_size``,
    ``d_model``, ``context``, ``layers``, as nanoGPT-style configs spell them) and its layout."""
    return {"vocab_size": shape.V, "d_model": shape.d, "context": shape.T, "layers": shape.L, "heads": shape.heads,
            "tied": shape.tied, "family": "ANDREA", "layout": "microGPT: wte, wpe, lm_head, then per layer "
            + ", ".join(LAYER_ORDER), "norm": "RMSNorm without weights", "activation": "gelu"}


def _atomic(path: Path, write) -> Path:
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as f:
        write(f)
    os.replace(tmp, path)
    return path


def write_bin(path: Path, step: int, weights: list[np.ndarray], adam_m: list[np.ndarray] | None = None,
              adam_v: list[np.ndarray] | None = None) -> Path:
    """One ANDREA .bin: header, weights, then Adam m and v when given (both or neither)."""
    n = sum(int(w.size) for w in weights)
    if not 0 <= step <= MAX_INT32 or n > MAX_INT32:
        raise ValueError(f"step {step} and n_params {n} must fit an int32")
    if (adam_m is None) != (adam_v is None):
        raise ValueError("Adam m and v are written together or not at all")

    def write(f) -> None:
        f.write(np.array([step, n], "<i4").tobytes())
        for block in (weights, adam_m, adam_v):
            for a in block or ():
                f.write(np.ascontiguousarray(a, dtype="<f4").tobytes())

    return _atomic(path, write)


def write_json(path: Path, data) -> Path:
    return _atomic(path, lambda f: f.write(json.dumps(data, indent=1, ensure_ascii=False).encode("utf-8")))


def write_segments(folder: Path, segments: list[str], rule: str) -> Path:
    return write_json(folder / SEGMENTS, {
        "segments": list(segments),
        "id_layout": f"ids 0-{BYTE_TOKENS - 1} are bytes, then these segments in this order, then one BOS id",
        "rule": rule,
    })


def list_snapshots(folder: Path) -> list[tuple[int, Path]]:
    """(step, path) of every snapshot in a run folder, by step."""
    found = []
    for p in Path(folder).iterdir():
        m = SNAPSHOT.match(p.name)
        if m:
            found.append((int(m.group(1)), p))
    return sorted(found)


def read_manifest(folder: Path) -> dict | None:
    p = Path(folder) / MANIFEST
    if not p.is_file():
        return None
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None
