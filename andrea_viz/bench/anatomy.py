"""``python -m andrea_viz bench-anatomy``: the anatomy of a Llama-3-sized table in one run.

1. A seeded 128,256 × 4,096 bf16 table made here: N(0, 0.02) rows, two rogue dimensions (a large shared
   mean, a large spread), and 256 "reserved" rows at the end that never trained (small, and leaning one
   shared way). Both under-trained indicators (the norm, and the cosine after removing the first principal
   component, with half of the reserved ids as the reference) and the per-dimension stats, timed together;
   target ≤ 10 s on 2 cores. The AUROC of each indicator on the other half is printed.
2. The exact k-occurrence (hubs, k = 10) of MiniLM's 30,522 rows, blocked; target ≤ 60 s.
3. On a CUDA device: the exact hubs of the 128k table, torch on the device.
"""

from __future__ import annotations

import os
import platform
import time

import numpy as np
from ..anatomy import dims, hubs, undertrained
from ..loading import load

V, D, RESERVED = 128_256, 4_096, 256
ROGUE = (1_512, 2_873)


def make_table(seed: int = 0):
    """(V, D) torch bf16: the table described above, and the reserved ids."""
    import torch

    g = torch.Generator().manual_seed(seed)
    t = torch.empty(V, D, dtype=torch.bfloat16)
    step = 8192
    for a in range(0, V, step):
        x = torch.randn(min(step, V - a), D, generator=g) * 0.02
        x[:, ROGUE[0]] += 0.4  # a shared offset
        x[:, ROGUE[1]] *= 12.0  # a large spread
        t[a:a + step] = x.bfloat16()
    shared = torch.randn(D, generator=g)
    shared /= shared.norm()
    reserved = torch.arange(V - RESERVED, V)
    t[reserved] = (torch.randn(RESERVED, D, generator=g) * 0.002 + 0.01 * shared).bfloat16()
    return t, reserved.numpy()


def run(hubs_on_device: bool = True) -> dict:
    import torch


    threads = torch.get_num_threads()
    print(f"load average {os.getloadavg()[0]:.1f}; machine: {platform.machine()}, {os.cpu_count()} cores, torch {torch.__version__} ({threads} threads), "
          f"CUDA {'yes: ' + torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'no'}", flush=True)
    table, reserved = make_table()
    bf16 = table
    ref, scored = reserved[::2], reserved[1::2]
    positive = np.zeros(V, bool)
    positive[scored] = True
    keep = np.ones(V, bool)
    keep[ref] = False
    out: dict = {}
    t0 = time.perf_counter()
    table = table.float()  # once, counted: every pass below reads float32
    norm = undertrained.norm_score(table)
    t1 = time.perf_counter()
    cos = undertrained.cosine_score(table, ref)
    t2 = time.perf_counter()
    st = dims.dim_stats(table)
    t3 = time.perf_counter()
    out["table_s"] = {"norm": t1 - t0, "cosine": t2 - t1, "dims": t3 - t2, "total": t3 - t0}
    print(f"1. {V:,} × {D:,} bf16: norm indicator {t1 - t0:.2f} s, cosine indicator (first PC removed) "
          f"{t2 - t1:.2f} s, dimension stats {t3 - t2:.2f} s; together {t3 - t0:.2f} s (target 10 s)", flush=True)
    out["auroc"] = {"norm": undertrained.auroc(norm, positive, keep), "cosine": undertrained.auroc(cos, positive, keep)}
    print(f"   AUROC on the {scored.size} reserved ids not given as reference: norm {out['auroc']['norm']:.4f}, "
          f"cosine {out['auroc']['cosine']:.4f}; the top dimension ({st.top(1)[0]}) carries "
          f"{'no share (not above 0)' if st.share(1) is None else format(st.share(1), '.0%')} of the "
          f"average cosine {st.avg_cosine:+.4f}", flush=True)
    emb = load("minilm-l6")
    t = time.perf_counter()
    h = hubs.hubs(emb.token_table, 10, on="cpu")
    out["minilm_hubs_s"] = time.perf_counter() - t
    print(f"2. MiniLM hubs, exact over {emb.vocab_size:,} rows, k = 10, CPU: {out['minilm_hubs_s']:.1f} s (target 60 s);"
          f" skewness {h.skewness:.2f}, top {[(emb.token(i), c) for i, c in h.top(5)]}", flush=True)
    if torch.cuda.is_available() and hubs_on_device:
        dev_table = bf16.to("cuda")
        torch.cuda.synchronize()
        t = time.perf_counter()
        hb = hubs.hubs(dev_table, 10, on="cuda")
        torch.cuda.synchronize()
        out["table_hubs_cuda_s"] = time.perf_counter() - t
        print(f"3. hubs of the {V:,} × {D:,} table, exact, on {torch.cuda.get_device_name(0)}: "
              f"{out['table_hubs_cuda_s']:.1f} s; skewness {hb.skewness:.2f}", flush=True)
        t = time.perf_counter()
        undertrained.norm_score(dev_table)
        undertrained.cosine_score(dev_table, ref)
        dims.dim_stats(dev_table)
        torch.cuda.synchronize()
        out["table_cuda_s"] = time.perf_counter() - t
        print(f"   indicators and dimension stats on the device: {out['table_cuda_s']:.2f} s", flush=True)
    else:
        print("3. no CUDA device: the 128k table's exact hubs are not run here "
              f"({hubs.exact_cost(V, D):.1e} multiply-adds; the CPU limit is {hubs.EXACT_LIMIT_CPU:.0e})", flush=True)
    return out
