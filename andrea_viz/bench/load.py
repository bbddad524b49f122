"""``python -m andrea_viz bench-load``: how long a large checkpoint takes to give its tables, and how much
memory that costs. Each load runs in a fresh process that resets its peak resident memory (VmHWM) just
before the load and reports how far the peak rose above the resident size it started from; medians.

Files: an ANDREA-120M-shaped .bin with Adam state (8 + 12 · 98,698,752 bytes ≈ 1.18 GB) and a ~500 MB
safetensors file (the embedding tables first, then filler tensors), written once to a temporary folder.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

import numpy as np

from ..family import CONTEXT, FAMILY, count_shape

GPT2_VOCAB, GPT2_WIDTH = 50_257, 768  # a GPT-2-sized table leads the safetensors file

CHILD = r"""
import json, sys, time
import numpy as np
import andrea_viz
def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])  # kB
open("/proc/self/clear_refs", "w").write("5")  # reset the peak (VmHWM) to the current resident size
base = status("VmRSS")
t = time.perf_counter()
emb = andrea_viz.load(sys.argv[1])
touched = float(np.asarray(emb.token_table).sum()) + float(np.asarray(emb.position_table).sum())
if emb.output_table is not None:
    touched += float(np.asarray(emb.output_table).sum())
seconds = time.perf_counter() - t
peak = status("VmHWM")
print(json.dumps({"seconds": seconds, "growth_mb": (peak - base) / 1024, "shape": list(emb.token_table.shape)}))
"""


def write_andrea(path: Path) -> int:
    s = FAMILY["ANDREA-120M"]
    n = count_shape(s).total  # 98,698,752
    rng = np.random.default_rng(0)
    with open(path, "wb") as f:
        f.write(np.array([1000, n], "<i4").tobytes())
        chunk = 8_000_000
        zeros = np.zeros(chunk, np.float32).tobytes()
        for part in range(3):  # weights (random), then Adam m and v (zeros: only their size matters here)
            left = n
            while left:
                k = min(chunk, left)
                f.write((rng.standard_normal(k, dtype=np.float32) * np.float32(0.036)).tobytes() if part == 0
                        else zeros[: 4 * k])
                left -= k
    return path.stat().st_size


def write_safetensors(path: Path, target_mb: int = 500) -> int:
    from safetensors.numpy import save_file

    rng = np.random.default_rng(0)
    tensors = {"transformer.wte.weight": rng.standard_normal((GPT2_VOCAB, GPT2_WIDTH), dtype=np.float32),
               "transformer.wpe.weight": rng.standard_normal((CONTEXT, GPT2_WIDTH), dtype=np.float32)}
    filler = target_mb * 2**20 - sum(t.nbytes for t in tensors.values())
    i = 0
    while filler >= 4 * GPT2_WIDTH:
        rows = min(filler // (4 * GPT2_WIDTH), 16_384)
        tensors[f"transformer.h.{i}.mlp.c_fc.weight"] = np.zeros((rows, GPT2_WIDTH), np.float32)
        filler -= rows * 4 * GPT2_WIDTH
        i += 1
    save_file(tensors, str(path))
    return path.stat().st_size


def measure_load(path: Path, repeats: int) -> dict:
    runs = []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True,
                             cwd=Path(__file__).resolve().parents[1])
        if out.returncode:
            raise RuntimeError(out.stderr.strip().splitlines()[-1])
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {"seconds": median(r["seconds"] for r in runs), "growth_mb": median(r["growth_mb"] for r in runs),
            "shape": runs[0]["shape"]}


def run(repeats: int = 3, folder: str | None = None) -> None:
    with tempfile.TemporaryDirectory(dir=folder) as d:
        d = Path(d)
        t = time.perf_counter()
        size_a = write_andrea(d / "ANDREA-120M.bin")
        size_s = write_safetensors(d / "model.safetensors")
        print(f"wrote the test files in {time.perf_counter() - t:.1f} s (not timed below)", flush=True)
        for name, path, size, targets in (
            ("ANDREA-120M .bin with Adam state", d / "ANDREA-120M.bin", size_a, "≤ 2 s, ≤ 300 MB"),
            ("safetensors", d / "model.safetensors", size_s, "≤ 2 s"),
        ):
            r = measure_load(path, repeats)
            print(f"{name:<34} {size / 1e9:5.2f} GB file: tables ready in {r['seconds']:.2f} s (median of {repeats}), "
                  f"peak resident memory +{r['growth_mb']:.0f} MB; token table {r['shape'][0]:,} × {r['shape'][1]}; "
                  f"target {targets}", flush=True)
