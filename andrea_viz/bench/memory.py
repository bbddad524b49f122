"""``python -m andrea_viz bench-memory``: a large table opened from a file and used as the Home, Lookup table
and Neighbours pages use it, in a fresh process; the peak resident set (file pages mapped in included) after
each step, as a multiple of the table's own size. A model must never hold twice its table.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

CHILD = r"""
import json, sys
def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field): return int(line.split()[1]) * 1024
import andrea_viz
from andrea_viz.geometry import anisotropy, neighbours
from andrea_viz.lookup import block_average, value_stats
base = rss("VmRSS:")
steps = {}
emb = andrea_viz.load(sys.argv[1]); steps["open (a table over 64 MB is not scanned)"] = rss("VmHWM:")
neighbours(emb, "#5", k=10); steps["10 nearest by cosine"] = rss("VmHWM:")
emb.row_norms; steps["every row's length"] = rss("VmHWM:")
block_average(emb.token_table, 128, 64); steps["the overview heatmap"] = rss("VmHWM:")
value_stats(emb.token_table, None); steps["the value histogram"] = rss("VmHWM:")
anisotropy(emb); anisotropy(emb, centered=True); steps["anisotropy, raw and centred"] = rss("VmHWM:")
print(json.dumps({"table": emb.token_table.nbytes, "peaks": {k: (v - base) / emb.token_table.nbytes
                                                              for k, v in steps.items()}}))
"""


def write_table(path: Path, rows: int, d: int, seed: int = 0) -> None:
    """A (rows, d) float32 .npy of seeded N(0, 1) values, written block by block."""
    a = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(rows, d))
    rng = np.random.default_rng(seed)
    for i in range(0, rows, 16_384):
        a[i:i + 16_384] = rng.standard_normal((min(16_384, rows - i), d), dtype=np.float32)
    a.flush()
    del a


def peaks(path: Path) -> dict:
    """{"table": bytes, "peaks": {step: peak ÷ table}} from a fresh process."""
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, cwd=root,
                       env={**os.environ, "PYTHONPATH": str(root)})
    if r.returncode:
        raise RuntimeError(r.stderr.strip().splitlines()[-1])
    return json.loads(r.stdout.strip().splitlines()[-1])


def run(gb: float = 4.0, d: int = 4096, folder: str | None = None) -> dict:
    rows = int(gb * 2**30) // (4 * d)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; a seeded {rows:,} × {d:,} float32 .npy "
          f"({rows * d * 4 / 2**30:.2f} GiB)", flush=True)
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        path = Path(tmp) / "table.npy"
        t = time.perf_counter()
        write_table(path, rows, d)
        print(f"written in {time.perf_counter() - t:.1f} s (not timed)", flush=True)
        t = time.perf_counter()
        out = peaks(path)
        print(f"{'step':<34} peak resident set ÷ table", flush=True)
        for step, ratio in out["peaks"].items():
            print(f"{step:<34} {ratio:.2f}×")
        print(f"all steps in {time.perf_counter() - t:.1f} s; target: ≤ 1.50× throughout")
    return out
