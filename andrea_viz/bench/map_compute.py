"""``python -m andrea_viz bench-map``: the whole-table UMAP map of MiniLM and of a 128,256 × 4,096 bf16 table, cold
and cached, each run a fresh ``python -m andrea_viz project … --method umap --n all`` process, timed from outside.

- cold: ``ANDREA_VIZ_CACHE_DIR=off``: no map kept, umap-learn's numba code compiled in the process (as before);
- first: an empty cache folder of its own: the code compiled and written to disk, the map computed and kept;
- code cached: that folder with its maps removed: the code loaded from disk, the map computed;
- map cached: the same command again: the map read from disk.

Trustworthiness (scikit-learn's, 10 neighbours, cosine in d dimensions) is scored on a seeded 5,000-row sample of
each map. The 128k table is made by the command (seeded) as a safetensors file in a temporary folder.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

import numpy as np

from ..loading import load

BIG_V, BIG_D = 128_256, 4_096
TRUST_ROWS = 5_000
KINDS = ("cold", "first", "code cached", "map cached")


def make_big_table(folder: Path, seed: int = 0) -> Path:
    """A seeded (BIG_V, BIG_D) bf16 token table with some structure (rows near 64 random centres), written as a
    one-tensor safetensors file the way ``safetensors.torch.save_file`` writes it. Returns the file."""
    import torch
    from safetensors.torch import save_file

    g = torch.Generator().manual_seed(seed)
    centres = torch.randn(64, BIG_D, generator=g) * 0.05
    which = torch.randint(0, 64, (BIG_V,), generator=g)
    table = torch.empty(BIG_V, BIG_D, dtype=torch.bfloat16)
    for s in range(0, BIG_V, 8_192):
        rows = which[s : s + 8_192]
        table[s : s + rows.numel()] = (centres[rows] + 0.02 * torch.randn(rows.numel(), BIG_D, generator=g)).bfloat16()
    path = folder / "model.safetensors"
    save_file({"model.embed_tokens.weight": table}, str(path))
    return path


def _run(source: str, out: Path, cache: str) -> float:
    env = {**os.environ, "ANDREA_VIZ_CACHE_DIR": cache}
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "andrea_viz", "project", source, "--method", "umap", "--n", "all",
                        "--out", str(out)], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t
    if r.returncode != 0:
        raise RuntimeError(f"project {source} failed: {r.stderr.strip()[-500:]}")
    return seconds


def trustworthiness_of(source: str, tsv: Path, seed: int = 0) -> float:
    """scikit-learn's trustworthiness (10 neighbours, cosine in the table) on a seeded TRUST_ROWS-row sample."""
    from sklearn.manifold import trustworthiness

    emb = load(source)
    with open(tsv, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))[1:]  # the way coordinates_csv wrote it
    ids = np.array([int(r[0]) for r in rows], np.int64)
    coords = np.array([[float(r[3]), float(r[4])] for r in rows])
    pick = np.sort(np.random.default_rng(seed).choice(ids.size, min(TRUST_ROWS, ids.size), replace=False))
    return float(trustworthiness(np.asarray(emb.token_table[ids[pick]], np.float32), coords[pick], n_neighbors=10,
                                 metric="cosine"))


def measure_maps(source: str, repeats: int, work: Path) -> dict:
    """Times (lists, one per repeat) of each kind, and the map's trustworthiness."""
    times = {k: [] for k in KINDS}
    out = work / "map.tsv"
    for _ in range(repeats):
        times["cold"].append(_run(source, out, "off"))
        cache = work / "cache"
        shutil.rmtree(cache, ignore_errors=True)
        times["first"].append(_run(source, out, str(cache)))
        for p in cache.glob("map-*.npz"):
            p.unlink()
        times["code cached"].append(_run(source, out, str(cache)))
        times["map cached"].append(_run(source, out, str(cache)))
    return {"times": times, "trustworthiness": trustworthiness_of(source, out)}


def run(repeats: int = 1, big: bool = True) -> list[dict]:
    """Measure and print the table; returns one row per table."""
    rows = []
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; each figure a fresh process "
          f"(python -m andrea_viz project SOURCE --method umap --n all), medians of {repeats}")
    with tempfile.TemporaryDirectory(prefix="andrea-bench-map-") as tmp:
        work = Path(tmp)
        sources = [("minilm-l6", "MiniLM, 30,522 × 384")]
        if big:
            t = time.perf_counter()
            path = make_big_table(work)
            print(f"made the {BIG_V:,} × {BIG_D:,} bf16 table in {time.perf_counter() - t:.1f} s")
            sources.append((str(path), f"{BIG_V:,} × {BIG_D:,} bf16 (PCA to 50 first)"))
        print("| table | cold (cache off) | first (compile + map) | code cached | map cached | cold ÷ map cached | "
              "trustworthiness (5,000 rows) |")
        print("|---|---|---|---|---|---|---|")
        for source, label in sources:
            m = measure_maps(source, repeats, work)
            med = {k: median(v) for k, v in m["times"].items()}
            rows.append({"table": label, **med, "trustworthiness": m["trustworthiness"]})
            print(f"| {label} | {med['cold']:.1f} s | {med['first']:.1f} s | {med['code cached']:.1f} s | "
                  f"{med['map cached']:.2f} s | {med['cold'] / med['map cached']:.0f}× | {m['trustworthiness']:.3f} |",
                  flush=True)
    return rows
