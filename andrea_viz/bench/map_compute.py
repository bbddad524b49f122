"""``python -m andrea_viz bench-map``: the whole-table UMAP map of MiniLM and of a 128,256 × 4,096 bf16 table, cold
and cached, each run a fresh ``python -m andrea_viz project … --method umap --n all`` process, timed from outside.

- cold: ``ANDREA_VIZ_CACHE_DIR=off``: no map kept, umap-learn's numba code compiled in the process (as before);
- first: an empty cache folder of its own: the code compiled and written to disk, the map computed and kept;
- code cached: that folder with its maps removed: the code loaded from disk, the map computed;
- map cached: the same command again: the map read from disk.

The progress lines each run prints (stderr) are timed as they come: the fewest moves of the bar in a run that
computes, and the longest it stood still (from the start, between moves, to the end).

The lock probe: the same whole-table map computed in the bench's own process through ``project_model`` (the server's
path; above ``map_process.CHILD_ABOVE`` points its layout runs in a child process) while a thread of that process
sleeps 10 ms again and again: the longest it took to wake is the longest stall every other page of a server would
have seen (umap-learn's epochs in the server held the lock 1-4.7 s each on the 128k table).

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
import threading
import time
from itertools import pairwise
from pathlib import Path
from statistics import median

import numpy as np

from ..loading import load
from ..plots.canvas_map import canvas_map_payload
from .planted import PLANTED_D, PLANTED_V, write_planted
from .map_view import save_payload, saved_map_views

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


def _run(source: str, out: Path, cache: str) -> tuple[float, list[float]]:
    """(wall seconds, the second at which each progress line came) of one fresh ``project`` process; its stderr
    is read as it is written, so the times are when the bar moved."""
    env = {**os.environ, "ANDREA_VIZ_CACHE_DIR": cache}
    t = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "andrea_viz", "project", source, "--method", "umap", "--n", "all",
                          "--out", str(out)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    moves, tail = [], []
    for line in p.stderr:
        if line.strip().split("%")[0].strip().isdigit():  # "   42%  building the neighbour graph"
            moves.append(time.perf_counter() - t)
        tail = (tail + [line])[-20:]
    seconds = time.perf_counter() - t
    if p.wait() != 0:
        raise RuntimeError(f"project {source} failed: {''.join(tail).strip()[-500:]}")
    return seconds, moves


def longest_still(seconds: float, moves: list[float]) -> float:
    """The longest time the bar stood still: between the start, each move and the end."""
    marks = [0.0, *moves, seconds]
    return max(b - a for a, b in pairwise(marks))


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
    still, moved = [], []  # of the runs that compute: the longest time the bar stood still, how often it moved
    out = work / "map.tsv"
    cache = work / "cache"

    def timed(kind: str, folder: str) -> None:
        seconds, moves = _run(source, out, folder)
        times[kind].append(seconds)
        if kind != "map cached":
            still.append(longest_still(seconds, moves))
            moved.append(len(moves))

    for _ in range(repeats):
        timed("cold", "off")
        shutil.rmtree(cache, ignore_errors=True)
        timed("first", str(cache))
        for p in cache.glob("map-*.npz"):
            p.unlink()
        timed("code cached", str(cache))
        timed("map cached", str(cache))
    return {"times": times, "trustworthiness": trustworthiness_of(source, out), "still": max(still),
            "moves": min(moved)}


class GilProbe:
    """A thread that sleeps 10 ms again and again and keeps the longest time it took to wake (``longest``, seconds):
    while another thread holds the interpreter's lock it cannot wake. Use as a context manager."""

    NOTED = 0.1  # waits longer than this are kept in ``stalls``: (seconds since the start, seconds waited)

    def __init__(self, nap: float = 0.01):
        self.nap, self.longest, self.wakes = nap, 0.0, 0
        self.stalls: list[tuple[float, float]] = []
        self.start = time.perf_counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gil-probe", daemon=True)

    def _run(self) -> None:
        last = time.perf_counter()
        while not self._stop.is_set():
            time.sleep(self.nap)
            now = time.perf_counter()
            if now - last > self.NOTED:
                self.stalls.append((last - self.start, now - last))
            self.longest, self.wakes, last = max(self.longest, now - last), self.wakes + 1, now

    def __enter__(self) -> GilProbe:
        self.start = time.perf_counter()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def lock_stall(source: str, cache: Path) -> tuple[float, float, list[str]]:
    """(seconds, the longest stall of this process's interpreter lock, each stall over ``GilProbe.NOTED`` placed in
    the progress step it fell in) of the whole-table UMAP map of ``source`` computed here through ``project_model``
    (the map cache in ``cache``, its maps removed first: computed, not read). The table is read inside the probe."""
    from ..maps.project import project_model  # scikit-learn and umap-learn behind it: loaded only to probe

    for p in cache.glob("map-*.npz"):
        p.unlink()
    before = os.environ.get("ANDREA_VIZ_CACHE_DIR")
    os.environ["ANDREA_VIZ_CACHE_DIR"] = str(cache)
    try:
        steps: list[tuple[float, str]] = [(0.0, "reading the table")]
        with GilProbe() as probe:
            emb = load(source)
            steps.append((time.perf_counter() - probe.start, "the map's first step"))
            project_model(emb, "umap", n="all",
                          progress=lambda f, m: steps.append((time.perf_counter() - probe.start, m.msgid)))
            seconds = time.perf_counter() - probe.start
        placed = [f"{d:.2f} s in “{next(m for t, m in reversed(steps) if t <= at)}”" for at, d in probe.stalls]
        return seconds, probe.longest, placed
    finally:
        if before is None:
            os.environ.pop("ANDREA_VIZ_CACHE_DIR", None)
        else:
            os.environ["ANDREA_VIZ_CACHE_DIR"] = before


def run(repeats: int = 1, big: bool = True, planted: bool = True, browser: bool = True) -> list[dict]:
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
              "trustworthiness (5,000 rows) | progress: fewest moves, longest still |")
        print("|---|---|---|---|---|---|---|---|")
        for source, label in sources:
            m = measure_maps(source, repeats, work)
            med = {k: median(v) for k, v in m["times"].items()}
            rows.append({"table": label, **med, "trustworthiness": m["trustworthiness"]})
            print(f"| {label} | {med['cold']:.1f} s | {med['first']:.1f} s | {med['code cached']:.1f} s | "
                  f"{med['map cached']:.2f} s | {med['cold'] / med['map cached']:.0f}× | {m['trustworthiness']:.3f} | "
                  f"{m['moves']} moves, {m['still']:.1f} s |", flush=True)
        lock_table(sources, work / "cache", rows)
        if planted:
            rows.append({"table": "planted", **run_planted(work, browser=browser)})
    return rows


def run_planted_only(browser: bool = True) -> dict:
    """``bench-map --planted``: the planted table alone (``run_planted``)."""
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="andrea-bench-map-") as tmp:
        return run_planted(Path(tmp), browser=browser)


def planted_labels(source: str, cache: Path, truth: np.ndarray, view: Path | None = None) -> dict:
    """The region labels of the whole-table UMAP map of ``source``, in this process: the map read from ``cache``
    (with the graph UMAP searched for it), then every row clustered on that graph (``clusters.cluster_ids``), timed;
    the adjusted Rand index of its clusters, and of each zoom level's groups, against the planted classes. ``view``:
    a folder to save the labelled map's canvas payload in (``map_view.save_payload``)."""
    from sklearn.metrics import adjusted_rand_score

    from ..maps.clusters import cluster_ids, zoom_labels  # scikit-learn behind it: loaded only for the labels
    from ..maps.project import project_model  # scikit-learn and umap-learn behind it: loaded only for them too

    before = os.environ.get("ANDREA_VIZ_CACHE_DIR")
    os.environ["ANDREA_VIZ_CACHE_DIR"] = str(cache)
    try:
        emb = load(source)
        t = time.perf_counter()
        result = project_model(emb, "umap", n="all")
        read = time.perf_counter() - t
        t = time.perf_counter()
        found = cluster_ids(emb, result.sample.ids, near=result.graph_ids(emb))
        seconds = time.perf_counter() - t
        if view is not None:  # the labelled map as the Projection page's canvas draws it, saved for its pictures
            save_payload(canvas_map_payload(result.projection, result.sample, result.tokens, result.trust,
                                            zoom_labels=zoom_labels(found, result.projection.coords)), view)
    finally:
        if before is None:
            os.environ.pop("ANDREA_VIZ_CACHE_DIR", None)
        else:
            os.environ["ANDREA_VIZ_CACHE_DIR"] = before
    planted = truth[result.sample.ids]
    return {"read": read, "from cache": result.from_cache, "labels": seconds, "clusters": len(found.clusters), "classes": int(truth.max()) + 1,
            "unlabelled": int((found.assignment < 0).sum()), "ari": adjusted_rand_score(planted, found.assignment),
            "levels": {k: adjusted_rand_score(planted, found.level_of[k][found.assignment]) for k in found.level_of}}


def run_planted(work: Path, rows: int | None = None, dims: int | None = None, browser: bool = True) -> dict:
    """``bench-map``'s planted table (``bench.planted``: 262,144 × 2,560 bf16, 797 Zipf-sized classes): made,
    mapped cold in a fresh process (an empty cache folder: UMAP's code compiled, the map and its graph kept), read
    from the cache in another, trustworthiness, then its region labels (``planted_labels``). Prints one table; with
    ``browser``, then the labelled map in Chromium (``map_view.saved_map_views``): its payload, the ids drawn at the
    first view, and screenshots at three zooms."""
    folder = work / "planted"
    folder.mkdir()
    t = time.perf_counter()
    rows, dims = rows or PLANTED_V, dims or PLANTED_D
    path, label_path = write_planted(folder, rows, dims)
    print(f"\nmade the planted {rows:,} × {dims:,} bf16 table in {time.perf_counter() - t:.1f} s "
          f"(load average {os.getloadavg()[0]:.1f})", flush=True)
    cache, out = work / "planted-cache", work / "planted.tsv"
    cold, moves = _run(str(path), out, str(cache))
    cached, _ = _run(str(path), out, str(cache))
    trust = trustworthiness_of(str(path), out)
    got = planted_labels(str(path), cache, np.load(label_path), view=work / "planted-view" if browser else None)
    print("| table | cold (empty cache: compile + map) | map cached: a fresh process / read in-process | trustworthiness "
          "(5,000 rows) | progress: moves, longest still | labels (every row, on the map's graph) | clusters (classes) "
          "| ARI | ARI of 64 / 32 / 16 / 8 groups | load average |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    levels = " / ".join(f"{got['levels'][k]:.3f}" for k in sorted(got["levels"], reverse=True))
    if not got["from cache"]:
        print(f"(the labels' map was computed again in this process in {got['read']:.1f} s: not found in the cache)")
    print(f"| planted {rows:,} × {dims:,} bf16 | {cold:.1f} s | {cached:.2f} s / {got['read']:.2f} s | {trust:.3f} | "
          f"{len(moves)} moves, {longest_still(cold, moves):.1f} s | {got['labels']:.1f} s | {got['clusters']:,} "
          f"({got['classes']:,}) | {got['ari']:.4f} | {levels} | {os.getloadavg()[0]:.1f} |", flush=True)
    if browser:
        views = saved_map_views(work / "planted-view", f"planted_{rows}")
        print(f"\nthe labelled map in Chromium (canvas): payload {views['payload_bytes'] / 2**20:.2f} MiB; ids drawn at "
              f"the first view (read back from a 512 × 512 target): {views['ids_drawn']:,} of {rows:,}; screenshots: "
              f"{', '.join(views['shots'])}", flush=True)
        got = {**got, **views}
    return {"cold": cold, "map cached": cached, "trustworthiness": trust, **got}


def lock_table(sources: list[tuple[str, str]], cache: Path, rows: list[dict] | None = None) -> None:
    """Print each table's lock probe (``lock_stall``): its time, its longest stall, and where each stall fell."""
    print(f"\n| table | map through project_model in this process (read included) | longest stall of its interpreter "
          f"lock | stalls over {GilProbe.NOTED} s, by progress step |")
    print("|---|---|---|---|")
    for source, label in sources:
        seconds, stall, placed = lock_stall(source, cache)
        if rows is not None:
            rows[[r["table"] for r in rows].index(label)]["lock stall"] = stall
        print(f"| {label} | {seconds:.1f} s | {stall:.2f} s | {'; '.join(placed) or 'none'} |", flush=True)


def run_lock_only(big: bool = True) -> None:
    """``bench-map --lock-only``: the lock probe alone (a minute or two instead of the whole bench)."""
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="andrea-bench-map-") as tmp:
        work = Path(tmp)
        sources = [("minilm-l6", "MiniLM, 30,522 × 384")]
        if big:
            sources.append((str(make_big_table(work)), f"{BIG_V:,} × {BIG_D:,} bf16 (PCA to 50 first)"))
        (work / "cache").mkdir(mode=0o700)
        lock_table(sources, work / "cache")


def searchsorted_rank_excess(sim, cols, k: int):
    """``maps.quality.rank_excess`` as it was before (one searchsorted of every entry against the row's m sorted
    values, then a histogram): the same sums, kept here to be timed beside today's."""
    import torch

    b, m = cols.shape
    values, _ = torch.sort(torch.gather(sim, 1, cols), dim=1)
    below = torch.searchsorted(values.contiguous(), sim.contiguous())
    hist = torch.zeros((b, m + 1), dtype=torch.int64).scatter_add_(1, below, torch.ones_like(below))
    larger = hist.flip(1).cumsum(1).flip(1)[:, 1:]
    return (larger + 1 - k).clamp_min(0).sum(1)


def run_card(repeats: int = 3, source: str = "minilm-l6") -> None:
    """``bench-map --card``: the full quality card (every point) of a map of the whole table, with today's rank
    counting and the searchsorted one before it, side by side in this run: medians of wall and CPU seconds, their
    ratio, and whether the scores are equal."""
    from ..maps import quality  # torch and scikit-learn behind it: loaded only for this bench

    emb = load(source)
    X = np.asarray(emb.token_table, np.float32)
    Y = (X - X.mean(0)) @ np.random.default_rng(0).standard_normal((X.shape[1], 2)).astype(np.float32)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; the full card of {source}'s "
          f"{X.shape[0]:,} × {X.shape[1]} table on a seeded 2-D projection, medians of {repeats}")
    today = quality.rank_excess
    variants = (("searchsorted (before)", searchsorted_rank_excess), ("today", today))
    walls, cpus, scores = ({name: [] for name, _f in variants} for _ in range(3))
    try:
        for _ in range(repeats):  # the two taken in turn, so that both meet the same load
            for name, counter in variants:
                quality.rank_excess = counter
                w, c = time.perf_counter(), time.process_time()
                scores[name].append(quality.map_scores(X, Y))
                walls[name].append(time.perf_counter() - w)
                cpus[name].append(time.process_time() - c)
    finally:
        quality.rank_excess = today
    got = {}
    for name, _f in variants:
        got[name] = (median(walls[name]), median(cpus[name]), scores[name][-1])
        print(f"| {name} | wall {got[name][0]:.1f} s | CPU {got[name][1]:.1f} s | T@10 {got[name][2].trustworthiness:.4f} "
              f"| C@10 {got[name][2].continuity:.4f} |", flush=True)
    (w0, c0, s0), (w1, c1, s1) = got.values()
    print(f"before ÷ today: wall {w0 / w1:.2f}×, CPU {c0 / c1:.2f}×; the same scores: {s0 == s1}")
