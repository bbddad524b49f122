"""The trust score: how much of each point's neighbourhood in the full space survives the projection."""

from __future__ import annotations


import numpy as np

from ..errors import QueryError
from ..model import f32
from ..neighbours import Found, argkmin

TRUST_K = 10  # neighbours whose survival the trust score counts
TRUST_SAMPLE = 5_000  # above this many points, trust is computed on a seeded sample of them


def trust_scores(X: np.ndarray, Y: np.ndarray, k: int = TRUST_K, max_points: int = TRUST_SAMPLE,
                 seed: int = 0, graph: Found | None = None) -> tuple[np.ndarray, float]:
    """Per point: the share of its k nearest neighbours in the full space (by cosine, as everywhere in the
    app) that stay among its k nearest in the map. Above ``max_points`` a seeded subset is scored
    (neighbours within that subset) and the others get NaN. Returns (scores (N,), mean).

    ``graph``: the map's neighbour graph (``map_graph`` of X), sliced instead of searching the full space again
    (up to ``max_points`` points: above, the subset's own neighbours are searched)."""
    n = X.shape[0]
    if n <= k:
        raise QueryError("a trust score with k = {k} needs more than {k} points, got {n}", k=k, n=n)
    idx = np.arange(n) if n <= max_points else np.sort(np.random.default_rng(seed).choice(n, max_points, replace=False))
    whole = graph is not None and n <= max_points and graph.ids.shape[1] >= k
    a = graph.ids[:, :k] if whole else argkmin(f32(X[idx]), k).ids
    b = argkmin(Y[idx], k, metric="euclidean").ids
    kept = ((a[:, :, None] == b[:, None, :]) & (a[:, :, None] >= 0)).any(axis=2).sum(axis=1) / k
    out = np.full(n, np.nan)
    out[idx] = kept
    return out, float(kept.mean())
