"""``python -m andrea_viz bench-audit``: the fine-tune audit and the alignment of two vocabularies at a real model's
size.

1. A Llama-3-sized token table, 128,256 × 4,096 in bf16 (config.json and model.safetensors, tied, no tokenizer:
   audited by ids), and a tuned copy with 1,000 added rows (250 each of zeros, the mean, copies of base rows and
   N(0, 0.02)): the audit in a fresh process, its wall time and its peak resident set (file pages mapped in
   included) beyond the process before the audit; the issue's target is ≤ 10 s and ≤ 2 GB on 2 cores.
2. The anchors alignment of 50,000 anchors × 4,096 (B a scaled rotation of A plus noise): fit on 80%, judged on 20%
   (median cosine, Jaccard@10 and the nearest-anchor baseline on a sample of 1,000); target ≤ 30 s. Beside it, the
   two roads to its rotation timed side by side on the training anchors' centred xᵀy: the Gram matrix's eigh and
   torch's SVD (``alignment.polar``).
3. Held-out median cosine, the map chosen by cross-validation inside each fit set beside the Procrustes map and the
   nearest-anchor baseline, over 5 seeded splits. Grown here for ``--grow-steps`` micro steps (0 to skip them), on
   one corpus (``held_out_corpus``: the generated English corpus of seed 1 at ``HELD_OUT_SENTENCES`` sentences, which
   600 steps read about once): B with seed 1, then two seeds of one tokenizer (seed 2), two tokenizers of one corpus
   (seed 2, at most ``OTHER_SEGMENTS`` segments: the same corpus cut into other tokens, the runs sharing nothing
   but the corpus), and a harder second tokenizer of ``HALF_SEGMENTS`` segments beside them; then the shipped models'
   two corpora and two tokenizers (andrea-micro-nl onto andrea-micro). Each with every anchor, then with only the
   anchors whose rows both runs fed in at least once (a row never fed in keeps its random step-0 value).
Medians are printed; nothing is asserted.
"""

from __future__ import annotations

import functools
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

from ..alignment import (EIGH_COND, Anchors, row_cosines, align_tables, check_anchors, find_anchors, moments,
                         polar_by_eigh, polar_by_svd, split)
from ..builtin import MICRO, MICRO_DIR, micro_name
from ..grow import train
from ..grow.corpus import generate
from ..loading import load
from ..neighbours import argkmin, normalise

V, D, ADDED, ANCHORS = 128_256, 4_096, 1_000, 50_000
INITS = ("zeros", "mean", "copy", "normal")
SPLITS = 5
# the grown pairs' one corpus: 48,000 generated sentences, so that 600 micro steps of 32 × 32 tokens read each
# about once (andrea-micro's 6,000 are read about nine times over, and two seeds' tables then share less)
HELD_OUT_SENTENCES = 48_000
B_SEED, A_SEED = 1, 2  # the pairs' B run and the run mapped onto it
OTHER_SEGMENTS = 200  # the second tokenizer: its 200 most frequent segments of the first's 300 (two thirds, as
# Llama-2's 32,000 ids against GPT-2's 50,257)
HALF_SEGMENTS = 150  # a harder second tokenizer, half the first: printed beside, under no target

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
    print(f"  alignment of {n:,} anchors × {d:,}: median {median(times):.1f} s over {repeats} runs (map chosen: "
          f"{al.method}; held-out median cosine {al.median_cosine:.3f}, Procrustes {al.median_procrustes:.3f}, "
          f"nearest-anchor baseline {al.median_baseline:.3f}, Jaccard@10 {al.median_jaccard:.2f})", flush=True)
    bench_polar(moments(a, b, al.train).centred(), repeats)


def bench_polar(cross: np.ndarray, repeats: int) -> None:
    """The two roads to a wide map's rotation, side by side on one centred xᵀy: the Gram matrix's eigh (float32,
    Newton–Schulz steps) and torch's SVD (float32)."""
    roads = {"eigh": lambda: polar_by_eigh(cross), "svd": lambda: polar_by_svd(cross)}
    times: dict[str, list[float]] = {k: [] for k in roads}
    found = None
    for _ in range(repeats):
        for k, road in roads.items():
            t = time.perf_counter()
            out = road()
            times[k].append(time.perf_counter() - t)
            found = out if k == "eigh" else found
    e, s = median(times["eigh"]), median(times["svd"])
    taken = "taken" if found is not None else f"declined: singular values more than {EIGH_COND:g} times apart"
    print(f"  its rotation, from the {cross.shape[0]:,} × {cross.shape[1]:,} centred xᵀy of the training anchors, "
          f"side by side over {repeats} runs: the Gram matrix's eigh {e:.1f} s ({taken}), torch's SVD {s:.1f} s, "
          f"×{s / e:.2f}", flush=True)


def fed_in(anchors: Anchors, unseen_a=(), unseen_b=()) -> Anchors:
    """The anchors whose rows both runs fed in at least once (neither id among its run's ``unseen`` ids)."""
    ua, ub = set(map(int, unseen_a)), set(map(int, unseen_b))
    keep = np.array([int(x) not in ua and int(y) not in ub for x, y in zip(anchors.a, anchors.b, strict=True)], bool)
    return Anchors(anchors.a[keep], anchors.b[keep], anchors.kind[keep])


ORACLE_KS = (4, 8, 16)


def oracle_cosine(b_table: np.ndarray, anchors: Anchors, splits: int = SPLITS) -> float:
    """What a map that places a token among the anchors' B rows would reach if it knew B itself: each held-out
    anchor's B row guessed as the mean of the unit B rows of its k nearest training anchors *in B* (the neighbours
    no map can know, read from the answer), the best k of ``ORACLE_KS`` in hindsight; the median cosine over the
    held-out anchors, the median over the same ``splits`` seeded splits as the maps'. Not a proof of a bound (a
    kernel map's weights may be negative), a yardstick: the nearest-anchor maps average rows the same way."""
    yb = np.asarray(b_table[np.asarray(anchors.b, np.int64)], np.float32)
    units = normalise(yb)
    per_k = {k: [] for k in ORACLE_KS}
    for s in range(splits):
        train_at, held = split(len(anchors), s)
        nearest = argkmin(units, max(ORACLE_KS), held, among=train_at).ids  # nearest first: each k is a slice
        for k in ORACLE_KS:
            guess = units.rows[np.maximum(nearest[:, :k], 0)].mean(axis=1)
            per_k[k].append(float(np.nanmedian(row_cosines(guess, yb[held]))))
    return max(median(v) for v in per_k.values())


def held_out_figures(a, b, anchors: Anchors, splits: int = SPLITS) -> dict:
    """Medians over ``splits`` seeded splits of A's anchors mapped onto B: the chosen map's held-out median cosine
    (``map``, with the maps chosen in ``methods``), the Procrustes map's (``procrustes``), the nearest-anchor
    baseline's (``baseline``), Jaccard@10 (``jaccard``) and the oracle that knows B's own neighbours (``oracle``,
    ``oracle_cosine``)."""
    runs = [align_tables(a.token_table, b.token_table, anchors, seed=s) for s in range(splits)]
    return {"anchors": len(anchors), "map": median(r.median_cosine for r in runs),
            "procrustes": median(r.median_procrustes for r in runs), "baseline": median(r.median_baseline for r in runs),
            "jaccard": median(r.median_jaccard for r in runs), "methods": [r.method for r in runs],
            "oracle": oracle_cosine(b.token_table, anchors, splits)}


def held_out(a, b, label: str, unseen_a=(), unseen_b=()) -> None:
    """The held-out figures of A mapped onto B, on every anchor, then (when ``unseen_a`` or ``unseen_b`` name rows
    never fed in) on the anchors whose rows both runs fed in."""
    anchors = find_anchors(a, b)
    check_anchors(anchors, a.key, b.key)
    print(f"  {label}:", flush=True)
    for tag, an in (("every anchor", anchors), ("rows fed in by both runs", fed_in(anchors, unseen_a, unseen_b))):
        if tag != "every anchor" and not (len(unseen_a) or len(unseen_b)):
            continue
        f = held_out_figures(a, b, an)
        kinds = ", ".join(f"{m} ×{f['methods'].count(m)}" for m in dict.fromkeys(f["methods"]))
        print(f"    {tag}: {f['anchors']:,} anchors; held-out median cosine {f['map']:.3f} (Procrustes with scale "
              f"{f['procrustes']:.3f}, nearest-anchor baseline {f['baseline']:.3f}; an oracle that knows B's own "
              f"neighbours {f['oracle']:.3f}), Jaccard@10 {f['jaccard']:.2f}, "
              f"medians over {SPLITS} seeded splits; maps chosen inside the fit sets: {kinds}", flush=True)


@functools.cache
def held_out_corpus() -> str:
    """The grown pairs' one corpus, generated once per process (every run of a pair reads the same text)."""
    return generate(1, HELD_OUT_SENTENCES, "en")


def grow_for_held_out(folder: Path, seed: int, steps: int = 600, segments: int | None = None):
    """A micro run on ``held_out_corpus`` (``segments``: the tokenizer's cap, the preset's when None): a GrowResult."""
    return train(folder, preset="micro", corpus=held_out_corpus(), seed=seed, steps=steps, snapshot_at=[steps],
                 max_segments=segments)


def bench_held_out(grow_steps: int) -> None:
    if grow_steps <= 0:
        print("  two seeds of one tokenizer, two tokenizers of one corpus: skipped (--grow-steps 0)")
    else:
        with tempfile.TemporaryDirectory(prefix="bench-audit-grow-") as tmp:
            runs = {}
            for name, seed, segments in (("b", B_SEED, None), ("seeds", A_SEED, None), ("tokens", A_SEED, OTHER_SEGMENTS),
                                         ("half", A_SEED, HALF_SEGMENTS)):
                t = time.perf_counter()
                runs[name] = grow_for_held_out(Path(tmp) / name, seed, grow_steps, segments)
                print(f"  grew a micro run ({runs[name].config['vocab_size']:,} ids, seed {seed}) on "
                      f"{HELD_OUT_SENTENCES:,} generated sentences for {grow_steps:,} steps in "
                      f"{time.perf_counter() - t:.0f} s", flush=True)
            b = load(runs["b"].snapshots[-1][1])
            for name, label in (("seeds", f"two seeds of one tokenizer (seed {A_SEED} onto seed {B_SEED})"),
                                ("tokens", f"two tokenizers of one corpus (at most {OTHER_SEGMENTS} segments, seed "
                                           f"{A_SEED}, onto seed {B_SEED})"),
                                ("half", f"a second tokenizer half the first (at most {HALF_SEGMENTS} segments, seed "
                                         f"{A_SEED}, onto seed {B_SEED}; no target)")):
                held_out(load(runs[name].snapshots[-1][1]), b, label, runs[name].unseen_ids, runs["b"].unseen_ids)
    en = load(MICRO)
    en_unseen = json.loads((MICRO_DIR / "run.json").read_text())["unseen_ids"]
    nl = json.loads((MICRO_DIR.parent / micro_name("nl") / "run.json").read_text())["unseen_ids"]
    held_out(load(micro_name("nl")), en, "two corpora and two tokenizers (andrea-micro-nl onto andrea-micro)", nl,
             en_unseen)


def run(repeats: int = 3, grow_steps: int = 600, rows: int = V, d: int = D, added: int = ADDED,
        anchors: int = ANCHORS) -> None:
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores", flush=True)
    bench_audit(repeats, rows, d, added)
    bench_alignment(repeats, anchors, d)
    bench_held_out(grow_steps)
