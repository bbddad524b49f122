"""A map's quality card: how well a 2-D (or 3-D) map keeps the table's own neighbourhoods, measured on every point.

- trustworthiness T@k: are the map's k nearest of a point also near in the table? Each map neighbour that is not
  among the table's k nearest costs its rank there beyond k (Venna & Kaski; scikit-learn's ``trustworthiness``);
- continuity C@k: the same the other way round: each of the table's k nearest that the map tore away costs its rank
  in the map beyond k;
- triplet accuracy: of TRIPLETS seeded random triplets (i, j, l), the share where the map agrees with the table on
  which of j and l is nearer to i;
- kept: the mean share of each point's k nearest in the table that are among its k nearest in the map.

The table's side is cosine in its own d dimensions (not PCA-50); the map's side is Euclidean in its plane. A rank is
1 + the number of other points strictly nearer (ties share the better rank). Every point is scored in blocks of
rows: a block's cosines with every row (one BLAS product) and its distances in the map, each point's k nearest on
both sides (torch's top-k), and the ranks of the other side's k nearest by ``torch.searchsorted`` against those k
values — no (N, N) matrix and no sort of a whole row. Above FULL_BUDGET (N² · (d + dims) products) the full card is
too costly to compute unasked, and the card holds the estimate on a seeded SAMPLE_ROWS-row sample (neighbours within
the sample) instead; ``card(..., full=True)`` computes it anyway.

The card takes (table rows, coordinates, optionally each point's precomputed k nearest in d: ``knn.knn_graph``'s
ids, self first or not), so that a map which keeps its neighbour graph can hand it over.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..errors import QueryError
from ..geometry import unit_rows
from ..neighbours import select_k

K = 10  # neighbours every measure counts
TRIPLETS = 100_000  # random triplets of the triplet accuracy
SAMPLE_ROWS = 5_000  # rows of the estimate shown when the full card is too costly
FULL_BUDGET = 4e11  # the most N² · (d + dims) products computed unasked: MiniLM's whole table (30,522 × 384) fits
ROW_BLOCK = 256  # rows per block: their cosines with every row (and their ranks) are one (block, N) matrix
TRIPLET_BLOCK = 8_192  # triplets whose rows are gathered at once


@dataclass(frozen=True)
class Scores:
    """The four measures on one set of points (every point, or a sample)."""

    points: int
    trustworthiness: float
    continuity: float
    triplets: float  # triplet accuracy
    kept: float  # mean share of each point's k nearest in d that are among its k nearest in the map

    def as_json(self) -> dict:
        return {"points": self.points, "trustworthiness": self.trustworthiness, "continuity": self.continuity,
                "triplet_accuracy": self.triplets, "kept": self.kept}


@dataclass(frozen=True)
class QualityCard:
    """The full card (None when too costly and not asked for) and, for a map of more than SAMPLE_ROWS points, the
    estimate on a seeded sample of them."""

    k: int
    full: Scores | None
    sample: Scores | None
    seconds: float

    @property
    def best(self) -> Scores:
        """The full scores when computed, else the sample's."""
        return self.full if self.full is not None else self.sample

    def as_json(self) -> dict:
        return {"k": self.k, "triplets": TRIPLETS, "sample_rows": SAMPLE_ROWS, "seconds": self.seconds,
                "full": None if self.full is None else self.full.as_json(),
                "sample": None if self.sample is None else self.sample.as_json()}


def triplets(n: int, count: int = TRIPLETS, seed: int = 0) -> np.ndarray:
    """(count, 3) int64 seeded random triplets (i, j, l) of three different points of n."""
    if n < 3:
        raise QueryError("a triplet needs 3 points, got {n}", n=n)
    rng = np.random.default_rng(seed)
    i = rng.integers(0, n, count)
    j = rng.integers(0, n - 1, count)
    j += j >= i
    low, high = np.minimum(i, j), np.maximum(i, j)
    m = rng.integers(0, n - 2, count)
    m += m >= low
    m += m >= high
    return np.stack([i, j, m], axis=1)


def triplet_accuracy(U, Y, picks: np.ndarray) -> float:
    """The share of triplets (i, j, l) on which the map (Euclidean) agrees with the table (cosine of the unit rows
    ``U``) about which of j and l is nearer to i (a tie on both sides agrees)."""
    import torch

    agree = 0
    for s in range(0, picks.shape[0], TRIPLET_BLOCK):
        i, j, m = (torch.from_numpy(c) for c in picks[s:s + TRIPLET_BLOCK].T)
        ui = U[i]
        table = torch.sign((ui * U[j]).sum(1).double() - (ui * U[m]).sum(1).double())  # +1: j nearer in the table
        yi = Y[i]
        plane = torch.sign(((Y[m] - yi) ** 2).sum(1) - ((Y[j] - yi) ** 2).sum(1))  # +1: j nearer in the map
        agree += int((table == plane).sum())
    return agree / picks.shape[0]


def rank_excess(sim, cols, k: int):
    """Per row of ``sim`` (b, N), nearer = larger, the point itself already -inf: the sum over its columns ``cols``
    (b, m) of max(0, rank − k), a rank being 1 + the number of entries strictly larger. One vectorised comparison of
    the row against each of its m values, counted by numpy (2-4× faster than a searchsorted of every entry against
    the m sorted values, on float32 and float64 alike: ``bench-map --methods --full-quality`` times the card)."""
    import torch

    S = sim.numpy()
    values = np.take_along_axis(S, cols.numpy(), axis=1)

    def excess(q: int) -> np.ndarray:  # numpy lets go of the interpreter's lock while it compares and counts
        return np.maximum((S > values[:, q:q + 1]).sum(axis=1) + 1 - k, 0)

    return torch.from_numpy(np.sum(list(_pool().map(excess, range(values.shape[1]))), axis=0, dtype=np.int64))


@functools.cache
def _pool() -> ThreadPoolExecutor:
    """The threads that count ranks side by side (one per core)."""
    return ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="map-quality")


def _own_neighbours(given: np.ndarray | None, n: int, k: int) -> np.ndarray | None:
    """The given neighbour ids (N, ≥ k) without a first column of the points themselves, cut to k."""
    if given is None:
        return None
    ids = np.asarray(given)
    if ids.ndim != 2 or ids.shape[0] != n:
        raise QueryError("the neighbour ids must have one row per point ({n:,}), got shape {shape}", n=n,
                         shape=tuple(ids.shape))
    if ids.shape[1] and np.array_equal(ids[:, 0], np.arange(n)):
        ids = ids[:, 1:]
    if ids.shape[1] < k:
        raise QueryError("the neighbour ids must list at least {k} neighbours per point, got {m}", k=k, m=ids.shape[1])
    return np.ascontiguousarray(ids[:, :k], dtype=np.int64)


def map_scores(X: np.ndarray, Y: np.ndarray, k: int = K, neighbour_ids: np.ndarray | None = None, seed: int = 0,
           progress: Callable[[float], None] | None = None, block: int = ROW_BLOCK) -> Scores:
    """The four measures over every row of X (N, d) and its place in Y (N, dims), blocked and vectorised."""
    import torch

    n = X.shape[0]
    if Y.shape[0] != n:
        raise QueryError("the map has {m:,} points but the table {n:,} rows", m=Y.shape[0], n=n)
    if n <= 2 * k:
        raise QueryError("a quality card with k = {k} needs more than {most} points, got {n}", k=k, most=2 * k, n=n)
    given = _own_neighbours(neighbour_ids, n, k)
    U = torch.from_numpy(np.ascontiguousarray(np.nan_to_num(unit_rows(X).astype(np.float32, copy=False), nan=0.0,
                                                           posinf=0.0, neginf=0.0)))
    P = torch.from_numpy(np.ascontiguousarray(Y, dtype=np.float64))
    minus_sq = -(P**2).sum(1)
    finite_map = bool(torch.isfinite(P).all())  # the table's side is finite by construction (U above)
    t_sum = c_sum = kept = 0
    for s in range(0, n, block):
        e = min(n, s + block)
        rows = torch.arange(e - s)
        sim = U[s:e] @ U.T
        sim[rows, torch.arange(s, e)] = -np.inf  # a point is not its own neighbour
        near = torch.addmm(minus_sq, P[s:e], P.T, alpha=2)  # −|y_j|² + 2 y_i·y_j: −distance² + |y_i|², one call
        near[rows, torch.arange(s, e)] = -np.inf
        in_map = select_k(near, k, checked=finite_map)[0]  # the kit's selection (ties to the smaller id); checked:
        in_table = select_k(sim, k, checked=True)[0] if given is None else torch.from_numpy(given[s:e])  # no NaN
        t_sum += int(rank_excess(sim, in_map, k).sum())
        c_sum += int(rank_excess(near, in_table, k).sum())
        both = (in_table[:, :, None] == in_map[:, None, :]).any(2)
        kept += int(both.sum())
        if progress:
            progress(e / n)
    scale = 2.0 / (n * k * (2 * n - 3 * k - 1))
    return Scores(n, 1 - scale * t_sum, 1 - scale * c_sum, triplet_accuracy(U, P, triplets(n, seed=seed)),
                  kept / (n * k))


def full_affordable(n: int, d: int, dims: int = 2) -> bool:
    """Whether the full card of n points d wide costs at most FULL_BUDGET products."""
    return float(n) * n * (d + dims) <= FULL_BUDGET


def card(X: np.ndarray, Y: np.ndarray, k: int = K, neighbour_ids: np.ndarray | None = None, seed: int = 0,
         full: bool | None = None, progress: Callable[[float], None] | None = None) -> QualityCard:
    """The quality card of the map ``Y`` of the rows ``X``: over every point when ``full`` (None: when
    ``full_affordable``; always for at most SAMPLE_ROWS points), and on a seeded SAMPLE_ROWS-row sample when there are
    more points than that."""
    t = time.perf_counter()
    n = X.shape[0]
    report = progress or (lambda f: None)
    whole = n <= SAMPLE_ROWS or (full_affordable(n, X.shape[1], Y.shape[1]) if full is None else full)
    sample = None
    if n > SAMPLE_ROWS:
        pick = np.sort(np.random.default_rng(seed).choice(n, SAMPLE_ROWS, replace=False))
        share = 0.05 if whole else 1.0
        sample = map_scores(X[pick], Y[pick], k, seed=seed, progress=lambda f: report(share * f))
    done = 0.05 if sample is not None else 0.0
    every = map_scores(X, Y, k, neighbour_ids, seed, progress=lambda f: report(done + (1 - done) * f)) if whole else None
    return QualityCard(k, every, sample, time.perf_counter() - t)
