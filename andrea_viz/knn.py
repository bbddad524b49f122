"""Each point's nearest neighbours by cosine, as umap-learn's ``precomputed_knn`` takes them: (indices (N, k) int64,
cosine distances (N, k) float32), each point first (distance 0), then its k − 1 nearest other points, nearest
first. ``knn_graph`` is exact; ``cell_knn_graph`` is the approximate graph of larger maps.

Why not umap-learn's own search (pynndescent's NN-descent): its numba code compiles in every process (it cannot
be kept on disk, see ``umap_compile``), about 35 s on 2 cores, and holds the interpreter's lock while it runs, so a
bar cannot move meanwhile. The graphs here are BLAS products and torch's top-k: no compile, and the lock is let go.
A row that is not finite counts as all zeros.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .geometry import unit_rows

ROW_BLOCK = 1_024  # rows whose cosines with every candidate are one BLAS product
PROBE_CELLS = 12  # each row is compared with the rows of this many cells whose centres are nearest to it
KMEANS_STEPS = 8  # Lloyd steps of the spherical k-means that makes the cells
KMEANS_ROWS_PER_CELL = 64  # the k-means is fitted on a seeded sample of this many rows per cell
CELLS_PER_ROOT = 0.5  # a table of N rows falls into CELLS_PER_ROOT × √N cells
REFINE_ROUNDS = 1  # rounds of "my neighbours' neighbours" after the cells' search


def _units(X: np.ndarray):
    import torch

    U = np.nan_to_num(unit_rows(X).astype(np.float32, copy=False), nan=0.0, posinf=0.0, neginf=0.0)
    return torch.from_numpy(np.ascontiguousarray(U))


def knn_graph(X: np.ndarray, k: int, progress: Callable[[float], None] | None = None,
              block: int = ROW_BLOCK) -> tuple[np.ndarray, np.ndarray]:
    """Exact: a block of rows' cosines with every row (one BLAS product), then torch's top-k of each row, 4-6×
    faster than a partition in numpy (ties in any order). ``progress(fraction done)`` after each block."""
    import torch

    n = X.shape[0]
    U = _units(X)
    idx = np.empty((n, k), np.int64)
    dist = np.empty((n, k), np.float32)
    idx[:, 0], dist[:, 0] = np.arange(n), 0
    for s in range(0, n, block):
        e = min(n, s + block)
        sim = U[s:e] @ U.T
        sim[torch.arange(e - s), torch.arange(s, e)] = -np.inf  # a row is not its own neighbour
        best, at = torch.topk(sim, k - 1, dim=1)
        idx[s:e, 1:], dist[s:e, 1:] = at.numpy(), 1 - best.numpy()
        if progress:
            progress(e / n)
    return idx, np.clip(dist, 0, 2)


def cells_of(U, cells: int, seed: int = 0):
    """Spherical k-means: (unit centres (cells, d), each row's cell (N,)) — KMEANS_STEPS Lloyd steps on a seeded
    sample, started from seeded sample rows; a cell left empty keeps its centre. Then every row's nearest centre."""
    import torch

    n = U.shape[0]
    rng = np.random.default_rng(seed)
    sample = U[torch.from_numpy(np.sort(rng.choice(n, min(n, cells * KMEANS_ROWS_PER_CELL), replace=False)))]
    centres = sample[torch.from_numpy(rng.choice(sample.shape[0], cells, replace=False))].clone()
    for _ in range(KMEANS_STEPS):
        near = torch.argmax(sample @ centres.T, dim=1)
        sums = torch.zeros_like(centres).index_add_(0, near, sample)
        length = sums.norm(dim=1, keepdim=True)
        centres = torch.where(length > 0, sums / length.clamp_min(1e-30), centres)
    cell = torch.cat([torch.argmax(U[s : s + 16_384] @ centres.T, dim=1) for s in range(0, n, 16_384)])
    return centres, cell


def cell_knn_graph(X: np.ndarray, k: int, progress: Callable[[float], None] | None = None,
                   seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Approximate, for maps too large for ``knn_graph`` (its top-k over every row is 60 s at 128,256 points):
    the rows fall into about √N cells (``cells_of``); each row is compared exactly with the rows of the
    PROBE_CELLS cells whose centres are nearest to it, then its list is improved by its neighbours' neighbours
    (REFINE_ROUNDS). Seeded, so the same rows give the same graph. ``progress(fraction)`` as the cells are
    searched (to 0.8), then the refinement."""
    import torch

    n = X.shape[0]
    cells = max(2, int(round(CELLS_PER_ROOT * np.sqrt(n))))
    probes = min(PROBE_CELLS, cells)
    if n <= 4 * k * cells:
        return knn_graph(X, k, progress)
    report = progress or (lambda f: None)
    U = _units(X)
    centres, cell = cells_of(U, cells, seed)
    order = torch.argsort(cell, stable=True)
    starts = np.concatenate([[0], np.cumsum(torch.bincount(cell, minlength=cells).numpy())])
    near = torch.cat([torch.topk(U[s : s + 16_384] @ centres.T, probes, dim=1).indices for s in range(0, n, 16_384)])
    report(0.05)
    flat = near.reshape(-1)
    by_cell = torch.argsort(flat, stable=True)  # (row, slot) pairs, the rows that probe cell 0 first
    asked = np.concatenate([[0], np.cumsum(torch.bincount(flat, minlength=cells).numpy())])
    found_idx = torch.zeros((n, probes, k), dtype=torch.int64)
    found_sim = torch.full((n, probes, k), -np.inf, dtype=torch.float32)
    for c in range(cells):
        members = order[starts[c] : starts[c + 1]]
        pairs = by_cell[asked[c] : asked[c + 1]]
        if not len(members) or not len(pairs):
            continue
        take = min(k, len(members))
        M = U[members]
        for s in range(0, len(pairs), 4 * ROW_BLOCK):
            pair = pairs[s : s + 4 * ROW_BLOCK]
            rows, slot = pair // probes, pair % probes
            sim = U[rows] @ M.T
            own = torch.nonzero(cell[rows] == c).squeeze(1)  # a row is not its own neighbour (members are in order)
            sim[own, torch.searchsorted(members, rows[own])] = -np.inf
            best, at = torch.topk(sim, take, dim=1)
            found_idx[rows, slot, :take], found_sim[rows, slot, :take] = members[at], best
        report(0.05 + 0.75 * float(asked[c + 1]) / len(flat))
    best, at = torch.topk(found_sim.reshape(n, -1), k - 1, dim=1)  # the cells are disjoint: no row twice
    idx = torch.empty((n, k), dtype=torch.int64)
    sims = torch.empty((n, k), dtype=torch.float32)
    idx[:, 0], sims[:, 0] = torch.arange(n), 1.0
    idx[:, 1:], sims[:, 1:] = torch.gather(found_idx.reshape(n, -1), 1, at), best
    for r in range(REFINE_ROUNDS):
        idx, sims = _refine(U, idx, sims, lambda f, r=r: report(0.8 + 0.2 * (r + f) / REFINE_ROUNDS))
    report(1.0)
    return idx.numpy(), np.clip(1 - sims.numpy(), 0, 2)


def _refine(U, idx, sims, report: Callable[[float], None], block: int = 4_096):
    """One round of "my neighbours' neighbours": each row's candidates are its list and its neighbours' lists;
    the k − 1 nearest of them (each counted once, itself excluded) become its list."""
    import torch

    n, k = idx.shape
    out_idx, out_sims = idx.clone(), sims.clone()
    for s in range(0, n, block):
        e = min(n, s + block)
        mine = idx[s:e, 1:]
        cand = torch.cat([mine, idx[mine, 1:].reshape(e - s, -1)], dim=1)
        cand, _ = torch.sort(cand, dim=1)
        sim = torch.einsum("nd,nmd->nm", U[s:e], U[cand])
        repeat = torch.zeros_like(cand, dtype=torch.bool)
        repeat[:, 1:] = cand[:, 1:] == cand[:, :-1]
        sim[repeat | (cand == torch.arange(s, e)[:, None])] = -np.inf
        best, at = torch.topk(sim, k - 1, dim=1)
        out_idx[s:e, 1:], out_sims[s:e, 1:] = torch.gather(cand, 1, at), best
        report(e / n)
    return out_idx, out_sims
