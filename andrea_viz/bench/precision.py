"""``python -m andrea_viz bench-precision``: the exact top-10 of every row of MiniLM's table (30,522 × 384) at
one precision, the library's pass (numpy's matrix product, torch's topk; all on the device when there is a
GPU) beside a plain blocked numpy pass (matrix product, argpartition, sort), medians of fresh runs and their
ratio. Then a Llama-3-sized table (128,256 × 4,096): timed on the GPU with torch when CUDA is available
(target 30 s), otherwise estimated from the CPU's measured rate (it would take the same floating-point work
per row, V times over). Target for MiniLM: 60 s on 2 cores."""

from __future__ import annotations

import os
import platform
import time
from statistics import median

import numpy as np

from ..loading import load
from ..precision import K, at_precision, neighbour_ids, torch_device

LLAMA3 = (128_256, 4_096)


def _timed(fn) -> tuple[float, object]:
    t = time.perf_counter()
    r = fn()
    return time.perf_counter() - t, r


def run(repeats: int = 3, precision: str = "q4_0") -> None:
    emb = load("minilm-l6")
    V, d = emb.token_table.shape
    device = torch_device()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, torch device: {device}; MiniLM {V:,} × {d} at "
          f"{precision}, exact top-{K} of every row by cosine, {repeats} runs each, alternating", flush=True)
    table = at_precision(emb.token_table, precision)
    ours, plain, same = [], [], None
    for _ in range(repeats):
        t, a = _timed(lambda: neighbour_ids(table, K, backend="auto"))
        ours.append(t)
        t, b = _timed(lambda: neighbour_ids(table, K, backend="numpy"))
        plain.append(t)
        same = float((np.sort(a, 1) == np.sort(b, 1)).all(1).mean())
    print(f"  andrea_viz.precision.neighbour_ids (auto: {'torch' if device else 'numpy'})        median {median(ours):6.1f} s",
          flush=True)
    print(f"  plain blocked numpy (matmul, argpartition, sort)     median {median(plain):6.1f} s", flush=True)
    print(f"  ratio plain / ours: {median(plain) / median(ours):.2f}×; the two agree on {same:.2%} of the rows "
          f"(target: 60 s)", flush=True)
    work = V * V * d  # multiply-adds of one pass
    rate = work / median(ours)
    BV, Bd = LLAMA3
    if device == "cuda":
        import torch

        big = np.random.default_rng(0).standard_normal(LLAMA3, dtype=np.float32)
        neighbour_ids(big[:20_000], K, backend="torch")  # warm: CUDA context, kernels
        t, _ = _timed(lambda: neighbour_ids(big, K, backend="torch"))
        torch.cuda.synchronize()
        print(f"  {BV:,} × {Bd:,} on {torch.cuda.get_device_name()}: {t:.1f} s (target 30 s)", flush=True)
    else:
        print(f"  {BV:,} × {Bd:,}: no CUDA device; at this CPU's measured {rate / 1e9:.1f} G multiply-adds/s it would "
              f"take about {BV * BV * Bd / rate / 60:.0f} min (an estimate, not a run)", flush=True)
