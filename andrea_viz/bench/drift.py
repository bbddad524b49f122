"""``python -m andrea_viz bench-drift``: comparing two GPT-2-sized tables (50,257 × 768), as the drift
command and the Compare page do: the Procrustes rotation, every token's drift, and the k = 10
neighbour overlap on a sample of 2,000 tokens. Medians of fresh runs; the target is 20 s on 2 cores."""

from __future__ import annotations

import os
import platform
import time
from statistics import median

import numpy as np

from ..compare import OVERLAP_SAMPLE, drift

V, D = 50_257, 768


def run(repeats: int = 3) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((V, D), dtype=np.float32) * np.float32(0.02)
    b = a + rng.standard_normal((V, D), dtype=np.float32) * np.float32(0.01)  # a later snapshot of the same run
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; two {V:,} × {D} tables; overlap on "
          f"{OVERLAP_SAMPLE:,} tokens, k = 10", flush=True)
    for align in ("procrustes", "none"):
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            r = drift(a, b, align=align)
            times.append(time.perf_counter() - t)
        print(f"  align = {align:<10} median {median(times):5.1f} s over {repeats} runs (median drift {r.median_drift:.4f},"
              f" mean overlap {r.mean_overlap:.2f})", flush=True)
