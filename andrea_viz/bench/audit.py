"""``python -m andrea_viz bench-audit``: the fine-tune audit and the alignment of two vocabularies at a real model's
size.

1. A Llama-3-sized token table, 128,256 × 4,096 in bf16 (config.json and model.safetensors, tied, no tokenizer:
   audited by ids), and a tuned copy with 1,000 added rows (250 each of zeros, the mean, copies of base rows and
   N(0, 0.02)): the audit in a fresh process, its wall time and its peak resident set (file pages mapped in
   included) beyond the process before the audit; the issue's target is ≤ 10 s and ≤ 2 GB on 2 cores.
2. The anchors alignment of 50,000 anchors × 4,096 (B a scaled rotation of A plus noise): fit on 80%, judged on 20%
   (median cosine, Jaccard@10 and the nearest-anchor baseline on a sample of 1,000); target ≤ 30 s.
3. Held-out median cosine, the map beside the nearest-anchor baseline, over 5 seeded splits: two tokenizers of one
   corpus (andrea-micro-nl onto andrea-micro, grown on the parallel generated corpora) and two seeds of one
   tokenizer (andrea-micro, seed 1, against a micro run grown here with seed 2: ``--grow-steps``, 0 to skip).
Medians are printed; nothing is asserted.
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
from statistics import median

import numpy as np

from ..alignment import Anchors, align_tables, check_anchors, find_anchors
from ..builtin import MICRO, micro_name
from ..grow import train
from ..loading import load

V, D, ADDED, ANCHORS = 128_256, 4_096, 1_000, 50_000
INITS = ("zeros", "mean", "copy", "normal")
SPLITS = 5

CHILD = r"""
import json, sys, time
def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field): return int(line.split()[1]) * 1024
from andrea_viz.audit import audit_checkpoints
import safetensors.torch  # noqa: F401 (imported before the clock starts, as by any earlier command of the process)
base = rss("VmRSS:")
t = time.perf_counter()
r = audit_checkpoints(sys.argv[1], sys.argv[2])
print(json.dumps({"seconds": time.perf_counter() - t, "peak": rss("VmHWM:") - base,
                  "inits": [x["init"] for x in r["added_rows"]]}))
"""


def _config(vocab: int, d: int) -> dict:
    return {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": vocab, "hidden_size": d,
            "tie_word_embeddings": True, "initializer_range": 0.02, "torch_dtype": "bfloat16"}


def write_pair(root: Path, rows: int = V, d: int = D, added: int = ADDED) -> list[str]:
    """base/ and tuned/ under ``root``; returns the init written to each added row, in id order."""
    import torch
    from safetensors.torch import save_file

    g = torch.Generator().manual_seed(0)
    table = torch.empty(rows, d, dtype=torch.bfloat16)
    for i in range(0, rows, 8_192):
        table[i:i + 8_192] = (torch.randn(min(8_192, rows - i), d, generator=g) * 0.02).to(torch.bfloat16)
    (root / "base").mkdir()
    (root / "base" / "config.json").write_text(json.dumps(_config(rows, d)))
    save_file({"model.embed_tokens.weight": table}, str(root / "base" / "model.safetensors"))
    mean = table.float().mean(0)
    kinds = [INITS[i * len(INITS) // added] for i in range(added)]
    new = torch.empty(added, d)
    for i, kind in enumerate(kinds):
        if kind == "zeros":
            new[i] = 0
        elif kind == "mean":
            new[i] = mean
        elif kind == "copy":
            new[i] = table[(i * 7_919) % rows].float()
        else:
            new[i] = torch.randn(d, generator=g) * 0.02
    tuned = torch.cat([table, new.to(torch.bfloat16)])
    del table
    (root / "tuned").mkdir()
    (root / "tuned" / "config.json").write_text(json.dumps(_config(rows + added, d)))
    save_file({"model.embed_tokens.weight": tuned}, str(root / "tuned" / "model.safetensors"))
    return kinds


def bench_audit(repeats: int, rows: int = V, d: int = D, added: int = ADDED) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-audit-") as tmp:
        root = Path(tmp)
        t = time.perf_counter()
        kinds = write_pair(root, rows, d, added)
        print(f"  wrote a {rows:,} × {d:,} bf16 base and a tuned copy with {added:,} added rows in "
              f"{time.perf_counter() - t:.1f} s", flush=True)
        runs = []
        for _ in range(repeats):
            out = subprocess.run([sys.executable, "-c", CHILD, str(root / "base"), str(root / "tuned")],
                                 capture_output=True, text=True, check=True)
            runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        right = sum(a == b for a, b in zip(runs[-1]["inits"], kinds, strict=True))
        print(f"  audit: median {median(r['seconds'] for r in runs):.1f} s, peak resident set "
              f"{median(r['peak'] for r in runs) / 2**30:.2f} GiB beyond the process before it, over {repeats} "
              f"runs; init right on {right:,} / {added:,} added rows", flush=True)


def bench_alignment(repeats: int, n: int = ANCHORS, d: int = D) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, d), dtype=np.float32) * np.float32(0.02)
    q, _ = np.linalg.qr(rng.standard_normal((d, d), dtype=np.float32))
    b = a @ (np.float32(0.7) * q)
    b += rng.standard_normal((n, d), dtype=np.float32) * np.float32(0.005)
    ids = np.arange(n)
    anchors = Anchors(ids, ids, np.array(["string"] * n, object))
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        al = align_tables(a, b, anchors)
        times.append(time.perf_counter() - t)
    print(f"  alignment of {n:,} anchors × {d:,}: median {median(times):.1f} s over {repeats} runs (held-out median "
          f"cosine {al.median_cosine:.3f}, nearest-anchor baseline {al.median_baseline:.3f}, Jaccard@10 "
          f"{al.median_jaccard:.2f})", flush=True)


def held_out(a, b, label: str) -> None:
    anchors = find_anchors(a, b)
    check_anchors(anchors, a.key, b.key)
    runs = [align_tables(a.token_table, b.token_table, anchors, seed=s) for s in range(SPLITS)]
    print(f"  {label}: {len(anchors):,} anchors; held-out median cosine {median(r.median_cosine for r in runs):.3f} "
          f"(nearest-anchor baseline {median(r.median_baseline for r in runs):.3f}), Jaccard@10 "
          f"{median(r.median_jaccard for r in runs):.2f}, medians over {SPLITS} seeded splits", flush=True)


def bench_held_out(grow_steps: int) -> None:
    en = load(MICRO)
    held_out(load(micro_name("nl")), en, "two tokenizers of one corpus (andrea-micro-nl onto andrea-micro)")
    if grow_steps <= 0:
        print("  two seeds of one tokenizer: skipped (--grow-steps 0)")
        return
    with tempfile.TemporaryDirectory(prefix="bench-audit-grow-") as tmp:
        t = time.perf_counter()
        r = train(Path(tmp) / "seed2", preset="micro", seed=2, steps=grow_steps, snapshot_at=[grow_steps])
        print(f"  grew andrea-micro with seed 2 for {grow_steps:,} steps in {time.perf_counter() - t:.0f} s", flush=True)
        other = load(r.snapshots[-1][1])
        held_out(other, en, "two seeds of one tokenizer (micro seed 2 onto andrea-micro, seed 1)")


def run(repeats: int = 3, grow_steps: int = 600, rows: int = V, d: int = D, added: int = ADDED,
        anchors: int = ANCHORS) -> None:
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores", flush=True)
    bench_audit(repeats, rows, d, added)
    bench_alignment(repeats, anchors, d)
    bench_held_out(grow_steps)
