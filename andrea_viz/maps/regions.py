"""Regions of a large map: every row clustered on the map's own neighbour graph, and the clusters merged into
a few labels per zoom.

Above ``clusters.EXACT_NEIGHBOURS_MAX`` rows nobody searches every row against every row: the graph UMAP built for
the map (each point's nearest, cell by cell, ``knn.cell_knn_graph``, kept with the map) gives the edges, and each
edge is weighed again in the table's own d dimensions (the chord ‖u − v‖ between unit rows, a block of rows at a
time: N × k products, not N²). HDBSCAN runs on that graph (``graph_labels``) and keeps the leaves of its tree:
the finest clusters of at least GRAPH_MIN_CLUSTER rows (the zoom levels merge them). Its default choice ("excess of
mass") kept parents instead: a planted class's rows are far apart (a cosine of 0.25, as in MiniLM's word classes)
and two near classes meet at barely a longer distance, so their parent looked the more stable; on the planted
20,000 × 256 table it found 86 regions for 118 classes (adjusted Rand index 0.79) where the leaves find 118 (0.9999;
with a core distance of 3 neighbours instead of 5 the leaves fray: 0.71). Its noise takes the cluster most of its
neighbours are in, round after round (``spread_labels``). The leaves split a large even region into a few (the
planted 262,144-row table's 39,857-row class into 4, its next three into 3, 2 and 2: adjusted Rand index 0.61), so
two clusters that at least LINK_SHARE of the smaller one's graph edges join are merged (``merge_linked``; there,
fragments of one class were joined by 26% to 89% of their edges, two different classes by none). A row whose
neighbours are all noise takes the nearest cluster centre. So every row is labelled.

The zoom levels (``zoom_levels``): the clusters' unit centres joined by average linkage on their cosine distance
(scipy), one tree cut into ZOOM_LABELS groups: each cut of one tree nests in the cut above it, so the 64 groups
merge into the 32, the 32 into the 16 and the 16 into the 8.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph

from ..neighbours import normalise

NOISE = -1
GRAPH_MIN_CLUSTER = 20  # HDBSCAN's smallest cluster on a large map's graph (half the smallest planted class)
GRAPH_MIN_SAMPLES = 5  # and its core distance: the 5th nearest neighbour
SPREAD_ROUNDS = 20  # rounds of "noise takes its neighbours' cluster" at most
ZOOM_LABELS = (8, 16, 32, 64)  # groups of clusters labelled at each zoom, most zoomed out first
EDGE_BLOCK = 2_048  # rows whose edges are weighed in one product
LINK_SHARE = 0.1  # two clusters joined by this share of the smaller one's graph edges are one region


def unit_block(table, ids: np.ndarray) -> np.ndarray:
    """(len(ids), d) float32 unit rows of ``table`` (NaN or Inf rows, and zero rows, as zeros): the library's one
    normaliser (``neighbours.normalise``) on the block."""
    return normalise(np.asarray(table[ids], dtype=np.float32)).rows


def row_lengths(table, ids: np.ndarray, block: int = 16_384) -> np.ndarray:
    """(len(ids),) float64 length of each row ``table[ids]`` (NaN where a row holds NaN or Inf)."""
    out = np.empty(ids.size, np.float64)
    for s in range(0, ids.size, block):
        X = np.asarray(table[ids[s : s + block]], dtype=np.float32)
        out[s : s + block] = np.sqrt(np.einsum("id,id->i", X, X, dtype=np.float64))
    return out


def edge_distances(table, ids: np.ndarray, near: np.ndarray, progress: Callable[[float], None] | None = None,
                   block: int = EDGE_BLOCK) -> np.ndarray:
    """(N, k) the chord distance ‖u − v‖ in d dimensions between each row ``table[ids[i]]`` and each of its graph
    neighbours ``table[ids[near[i, j]]]`` (positions in ``ids``; -1: none, distance NaN), as unit rows: the lengths
    once, then for each block of rows one batched product of its rows with their neighbours' (float32, torch)."""
    import torch

    n, k = near.shape
    length = row_lengths(table, ids)
    inverse = np.where(np.isfinite(length) & (length > 0), 1 / np.where(length > 0, length, 1), np.nan)
    out = np.full((n, k), np.nan, dtype=np.float64)
    whole = isinstance(table, np.ndarray) and table.dtype == np.float32
    rows = None
    if whole:  # gathered by torch, on every core; only ever read (a model's table is read-only: torch warns)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            rows = torch.from_numpy(np.ascontiguousarray(table))
    for s in range(0, n, block):
        e = min(n, s + block)
        nb = near[s:e]
        has = nb >= 0
        at = np.where(has, nb, 0)
        if whole:
            U = rows.index_select(0, torch.from_numpy(ids[s:e]))
            V = rows.index_select(0, torch.from_numpy(ids[at.reshape(-1)])).reshape(e - s, k, -1)
        else:
            U = torch.from_numpy(np.asarray(table[ids[s:e]], dtype=np.float32))  # (b, d)
            V = torch.from_numpy(np.asarray(table[ids[at.reshape(-1)]], dtype=np.float32)).reshape(e - s, k, -1)
        dot = torch.bmm(V, U[:, :, None])[:, :, 0].numpy().astype(np.float64)  # (b, k)
        cos = dot * inverse[s:e, None] * inverse[at]
        out[s:e] = np.where(has & np.isfinite(cos), np.sqrt(np.clip(2.0 - 2.0 * cos, 0.0, None)), np.nan)
        if progress:
            progress(e / n)
    return out


def distance_graph(near: np.ndarray, dist: np.ndarray) -> sparse.csr_matrix:
    """(N, N) sparse symmetric graph of the edges ``near`` (positions, -1 none) at ``dist``; pieces that are not
    connected are joined, each by one edge of distance 2 (the chord of opposite rows, longer than any edge), to
    the largest, so that HDBSCAN's single tree joins them only at its top."""
    n, k = near.shape
    has = (near >= 0) & np.isfinite(dist) & (near != np.arange(n)[:, None])
    rows = np.repeat(np.arange(n), k).reshape(n, k)
    g = sparse.coo_matrix((np.maximum(dist[has], 1e-9), (rows[has], near[has])), shape=(n, n)).tocsr()
    g = g.maximum(g.T).tocsr()
    count, piece = csgraph.connected_components(g, directed=False)
    if count > 1:
        main = int(np.argmax(np.bincount(piece)))
        anchor = int(np.flatnonzero(piece == main)[0])
        firsts = np.array([int(np.flatnonzero(piece == p)[0]) for p in range(count) if p != main])
        extra = sparse.coo_matrix((np.full(2 * firsts.size, 2.0), (np.r_[firsts, np.full(firsts.size, anchor)],
                                                                  np.r_[np.full(firsts.size, anchor), firsts])),
                                  shape=(n, n)).tocsr()
        g = (g + extra).tocsr()
    return g


def graph_labels(graph: sparse.csr_matrix, min_size: int = GRAPH_MIN_CLUSTER,
                 samples: int = GRAPH_MIN_SAMPLES) -> np.ndarray:
    """(N,) scikit-learn's HDBSCAN on a sparse distance graph, the leaves of its tree: each row's cluster, NOISE for
    noise."""
    from sklearn.cluster import HDBSCAN

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return HDBSCAN(min_cluster_size=min_size, min_samples=samples, metric="precomputed", copy=True,
                       cluster_selection_method="leaf").fit_predict(graph)


def spread_labels(labels: np.ndarray, near: np.ndarray, rounds: int = SPREAD_ROUNDS) -> np.ndarray:
    """Noise rows take the cluster that most of their graph neighbours (``near``, positions, -1 none) are in (ties:
    the smaller cluster id), round after round, until none changes; rows whose neighbours are all noise stay NOISE."""
    labels = np.asarray(labels, dtype=np.int64).copy()
    n, k = near.shape
    clusters = int(labels.max()) + 1
    for _ in range(rounds):
        todo = np.flatnonzero(labels < 0)
        if not todo.size or clusters == 0:
            break
        nb = near[todo]
        got = np.where(nb >= 0, labels[np.where(nb >= 0, nb, 0)], NOISE)
        counts = np.zeros((todo.size, clusters + 1), dtype=np.int32)
        np.add.at(counts, (np.repeat(np.arange(todo.size), k), np.where(got >= 0, got, clusters).ravel()), 1)
        counts[:, clusters] = 0
        has = counts.max(axis=1) > 0
        if not has.any():
            break
        labels[todo[has]] = counts[has].argmax(axis=1)
    return labels


def merge_linked(labels: np.ndarray, near: np.ndarray, share: float | None = None) -> np.ndarray:
    """``labels`` (every row ≥ 0, or NOISE) with clusters that the graph ``near`` links strongly made one: two
    clusters whose edges between them (either way) are at least ``share`` (LINK_SHARE) of the smaller one's edges
    (its rows × k) are merged, and what they link to in turn (connected components of those pairs). Clusters
    renumbered 0, 1, … in the order of their smallest old number."""
    share = LINK_SHARE if share is None else share
    n, k = near.shape
    K = int(labels.max()) + 1
    if K < 2:
        return labels
    has = (near >= 0) & (labels[:, None] >= 0)
    has &= labels[np.where(near >= 0, near, 0)] >= 0
    a = np.broadcast_to(labels[:, None], near.shape)[has]
    b = labels[near[has]]
    links = sparse.coo_matrix((np.ones(a.size), (a, b)), shape=(K, K)).tocsr()
    links = (links + links.T).tocoo()
    sizes = np.bincount(labels[labels >= 0], minlength=K)
    strong = (links.row != links.col) & (links.data >= share * k * np.minimum(sizes[links.row], sizes[links.col]))
    pairs = sparse.coo_matrix((np.ones(int(strong.sum())), (links.row[strong], links.col[strong])), shape=(K, K))
    _count, joined = csgraph.connected_components(pairs, directed=False)
    _, first = np.unique(joined, return_index=True)
    renumber = np.empty(joined.max() + 1, np.int64)
    renumber[joined[np.sort(first)]] = np.arange(first.size)
    return np.where(labels >= 0, renumber[joined[np.maximum(labels, 0)]], NOISE)


def unit_sums(table, ids: np.ndarray, labels: np.ndarray, block: int = 16_384) -> np.ndarray:
    """(clusters, d) float64 sum of each cluster's unit rows (labels ≥ 0; NOISE rows left out)."""
    import torch

    k = int(labels.max()) + 1
    sums = torch.zeros((k, table.shape[1]), dtype=torch.float64)
    for s in range(0, ids.size, block):
        lab = labels[s : s + block]
        keep = lab >= 0
        U = torch.from_numpy(unit_block(table, ids[s : s + block][keep])).double()
        sums.index_add_(0, torch.from_numpy(lab[keep]), U)
    return sums.numpy()


def centres(table, ids: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """(clusters, d) float64 unit mean of each cluster's unit rows (labels ≥ 0; NOISE rows left out)."""
    sums = unit_sums(table, ids, labels)
    length = np.linalg.norm(sums, axis=1, keepdims=True)
    return sums / np.where(length > 0, length, 1)


def central_scores(table, ids: np.ndarray, scorings: list[tuple[np.ndarray, np.ndarray]],
                   block: int = 16_384) -> list[np.ndarray]:
    """For each (labels, totals) of ``scorings``: (N,) each row's cosine-sum centrality in its cluster, its unit row ·
    the sum of its cluster's unit rows (``totals`` (clusters, d), as ``unit_sums`` gives them), NaN for NOISE; all of
    them in one pass over the rows (each block made unit once). For unit rows that is the row's total cosine
    similarity to its cluster: the largest is the medoid (``clusters.medoid_order`` ranks the same way)."""
    outs = [np.full(ids.size, np.nan, dtype=np.float64) for _ in scorings]
    totals = [np.asarray(t, np.float32) for _labels, t in scorings]
    for s in range(0, ids.size, block):
        U = unit_block(table, ids[s : s + block])
        for (labels, _t), T, out in zip(scorings, totals, outs, strict=True):
            lab = labels[s : s + block]
            out[s : s + block] = np.where(lab >= 0, np.einsum("id,id->i", U, T[np.maximum(lab, 0)]), np.nan)
    return outs


def nearest_centre(table, ids: np.ndarray, labels: np.ndarray, block: int = 16_384) -> np.ndarray:
    """``labels`` with each NOISE row given the cluster whose unit centre is nearest by cosine."""
    labels = labels.copy()
    left = np.flatnonzero(labels < 0)
    if left.size and labels.max() >= 0:
        C = centres(table, ids, labels).astype(np.float32)
        for s in range(0, left.size, block):
            rows = left[s : s + block]
            labels[rows] = np.argmax(unit_block(table, ids[rows]) @ C.T, axis=1)
    return labels


def label_every_row(table, ids: np.ndarray, near: np.ndarray, progress: Callable[[float], None] | None = None,
                    min_size: int = GRAPH_MIN_CLUSTER, samples: int = GRAPH_MIN_SAMPLES) -> np.ndarray:
    """(N,) a cluster for every row ``table[ids]`` on the map's graph ``near`` ((N, k) positions in ``ids``, -1
    none): the module's recipe. Clusters are numbered as HDBSCAN found them; every row gets one (unless HDBSCAN
    found none: then all are NOISE)."""
    report = progress or (lambda f: None)
    dist = edge_distances(table, ids, near, progress=lambda f: report(0.5 * f))
    labels = graph_labels(distance_graph(near, dist), min_size, samples)
    report(0.8)
    labels = nearest_centre(table, ids, merge_linked(spread_labels(labels, near), near))
    report(1.0)
    return labels


def zoom_levels(centre_rows: np.ndarray, levels: tuple[int, ...] = ZOOM_LABELS) -> dict[int, np.ndarray]:
    """{level: (clusters,) the group (0 … level − 1, or fewer when there are fewer clusters) of each cluster}: the
    clusters' unit centres (clusters, d) joined by average linkage on cosine distance, the one tree cut at each
    level, so the groups of a level nest in those of the level above. Groups are numbered by their first cluster."""
    from scipy.cluster.hierarchy import fcluster, linkage

    k = centre_rows.shape[0]
    if k < 2:
        return {level: np.zeros(k, np.int64) for level in levels}
    tree = linkage(np.asarray(centre_rows, np.float64), method="average", metric="cosine")
    out = {}
    for level in levels:
        cut = fcluster(tree, t=min(level, k), criterion="maxclust")
        _, first = np.unique(cut, return_index=True)
        renumber = {int(cut[i]): j for j, i in enumerate(sorted(first))}
        out[level] = np.array([renumber[int(c)] for c in cut], np.int64)
    return out
