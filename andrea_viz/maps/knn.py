"""Each point's nearest neighbours by cosine, as umap-learn's ``precomputed_knn`` takes them: (indices (N, k) int64,
cosine distances (N, k) float32), each point first (distance 0), then its k − 1 nearest other points, nearest
first. ``knn_graph`` is exact; ``cell_knn_graph`` is the approximate graph of larger maps.

Why not umap-learn's own search (pynndescent's NN-descent): its numba code compiles in every process (it cannot
be kept on disk, see ``maps.compile``), about 35 s on 2 cores, and holds the interpreter's lock while it runs, so a
bar cannot move meanwhile. The graphs here are calls into the neighbour kit (``neighbours``: BLAS products and its
``select_k``): no compile, and the lock is let go. The kit's rules hold: equal cosines go to the smaller id, and a row
that holds NaN or Inf is left out (never anyone's neighbour; its own row is itself, then -1s at distance 2).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..neighbours import Found, argkmin, normalise, select_k

ROW_BLOCK = 1_024  # rows whose cosines with every candidate are one BLAS product
PROBE_CELLS = 12  # each row is compared with the rows of this many cells whose centres are nearest to it
KMEANS_STEPS = 8  # Lloyd steps of the spherical k-means that makes the cells
KMEANS_ROWS_PER_CELL = 64  # the k-means is fitted on a seeded sample of this many rows per cell
CELLS_PER_ROOT = 0.5  # a table of N rows falls into CELLS_PER_ROOT × √N cells
REFINE_ROUNDS = 1  # rounds of "my neighbours' neighbours" after the cells' search


def umap_knn(found: Found, k: int) -> tuple[np.ndarray, np.ndarray]:
    """A search's result (``neighbours.argkmin`` by cosine, at least k − 1 neighbours a row) as umap-learn takes it:
    each row first at distance 0, then its first k − 1 neighbours at their cosine distance (2 where there is none)."""
    n = found.ids.shape[0]
    idx = np.empty((n, k), np.int64)
    sims = np.empty((n, k), np.float32)
    idx[:, 0], sims[:, 0] = np.arange(n), 1
    idx[:, 1:], sims[:, 1:] = found.ids[:, : k - 1], np.nan_to_num(found.scores[:, : k - 1], nan=-1.0)
    return idx, np.clip(1 - sims, 0, 2)


def knn_graph(X: np.ndarray, k: int, progress: Callable[[float], None] | None = None,
              block: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Exact: each row, then its k − 1 nearest by cosine (``neighbours.argkmin``). ``progress(fraction done)``
    after each block of ``block`` rows."""
    return umap_knn(argkmin(X, k - 1, block=block, progress=progress), k)


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
    units = normalise(X)
    if not units.finite.all():  # the rows left out: the graph of the others, then their own rows of -1s
        keep = units.finite.nonzero()[0]
        sub_idx, sub_dist = cell_knn_graph(X[keep], k, progress, seed)
        idx, dist = np.full((n, k), -1, np.int64), np.full((n, k), 2, np.float32)
        idx[:, 0], dist[:, 0] = np.arange(n), 0
        idx[keep], dist[keep] = np.where(sub_idx >= 0, keep[sub_idx], -1), sub_dist
        return idx, dist
    report = progress or (lambda f: None)
    U = torch.from_numpy(units.rows)
    centres, cell = cells_of(U, cells, seed)
    order = torch.argsort(cell, stable=True)
    starts = np.concatenate([[0], np.cumsum(torch.bincount(cell, minlength=cells).numpy())])
    near = torch.cat([select_k(U[s : s + 16_384] @ centres.T, probes, checked=True)[0] for s in range(0, n, 16_384)])
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
            at, best = select_k(sim, take, ids=members, checked=True)
            found_idx[rows, slot, :take] = torch.where(at >= 0, members[at.clamp_min(0)], -1)
            found_sim[rows, slot, :take] = best.nan_to_num(nan=-torch.inf)  # none: never chosen
        report(0.05 + 0.75 * float(asked[c + 1]) / len(flat))
    found = found_idx.reshape(n, -1)
    at, best = select_k(found_sim.reshape(n, -1), k - 1, ids=found, checked=True)  # the cells are disjoint: no row twice
    idx = torch.empty((n, k), dtype=torch.int64)
    sims = torch.empty((n, k), dtype=torch.float32)
    idx[:, 0], sims[:, 0] = torch.arange(n), 1.0
    idx[:, 1:], sims[:, 1:] = torch.where(at >= 0, torch.gather(found, 1, at.clamp_min(0)), -1), best
    for r in range(REFINE_ROUNDS):
        idx, sims = _refine(U, idx, sims, lambda f, r=r: report(0.8 + 0.2 * (r + f) / REFINE_ROUNDS))
    report(1.0)
    return idx.numpy(), np.clip(1 - np.nan_to_num(sims.numpy(), nan=-1.0), 0, 2)


def _refine(U, idx, sims, report: Callable[[float], None], block: int = 4_096):
    """One round of "my neighbours' neighbours": each row's candidates are its list and its neighbours' lists;
    the k − 1 nearest of them (each counted once, itself excluded) become its list."""
    import torch

    n, k = idx.shape
    out_idx, out_sims = idx.clone(), sims.clone()
    for s in range(0, n, block):
        e = min(n, s + block)
        mine = idx[s:e, 1:]
        theirs = idx[mine.clamp_min(0), 1:]
        theirs[mine < 0] = -1  # no neighbour: no neighbours' neighbours
        cand = torch.cat([mine, theirs.reshape(e - s, -1)], dim=1)
        cand, _ = torch.sort(cand, dim=1)
        sim = torch.einsum("nd,nmd->nm", U[s:e], U[cand.clamp_min(0)])
        repeat = torch.zeros_like(cand, dtype=torch.bool)
        repeat[:, 1:] = cand[:, 1:] == cand[:, :-1]
        sim[repeat | (cand == torch.arange(s, e)[:, None]) | (cand < 0)] = -torch.inf
        at, best = select_k(sim, k - 1, ids=cand, checked=True)
        out_idx[s:e, 1:] = torch.where(at >= 0, torch.gather(cand, 1, at.clamp_min(0)), -1)
        out_sims[s:e, 1:] = best
        report(e / n)
    return out_idx, out_sims
