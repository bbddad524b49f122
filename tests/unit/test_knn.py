"""The neighbour graphs handed to umap-learn, against every cosine computed the slow way in float64."""

import numpy as np

from andrea_viz.maps.knn import cell_knn_graph, knn_graph


def _true_neighbours(X: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    U = X.astype(np.float64) / np.linalg.norm(X.astype(np.float64), axis=1, keepdims=True)
    cos = U @ U.T
    np.fill_diagonal(cos, -np.inf)
    return np.argsort(-cos, axis=1, kind="stable")[:, : k - 1], cos


def test_the_cell_graph_finds_most_true_neighbours_and_says_each_ones_true_distance(minilm):
    X = np.asarray(minilm.token_table[2_000:8_000], dtype=np.float32)  # 6,000 real rows: 39 cells
    seen = []
    idx, dist = cell_knn_graph(X, 15, progress=seen.append)
    truth, cos = _true_neighbours(X, 15)
    n = X.shape[0]
    assert idx.shape == dist.shape == (n, 15) and idx.dtype == np.int64 and dist.dtype == np.float32
    assert np.array_equal(idx[:, 0], np.arange(n)) and not dist[:, 0].any()  # each row first, at distance 0
    others = idx[:, 1:]
    assert not (others == np.arange(n)[:, None]).any()  # and nowhere else
    assert all(len(set(row)) == 14 for row in others)  # no neighbour twice
    np.testing.assert_allclose(dist[:, 1:], 1 - np.take_along_axis(cos, others, axis=1), atol=2e-6)
    assert (np.diff(dist[:, 1:], axis=1) >= -1e-7).all()  # nearest first
    found = np.mean([len(set(a) & set(b)) / 14 for a, b in zip(others, truth, strict=True)])
    assert found >= 0.9, found  # pynndescent's NN-descent finds 0.93 of them on MiniLM's 50 principal components
    assert seen[-1] == 1.0 and seen == sorted(seen) and len(seen) > 30
    again = cell_knn_graph(X, 15)
    assert np.array_equal(again[0], idx) and np.array_equal(again[1], dist)  # seeded: the same graph


def test_a_table_too_small_for_cells_gets_the_exact_graph():
    X = np.random.default_rng(4).standard_normal((600, 12)).astype(np.float32)
    idx, dist = cell_knn_graph(X, 15)
    want = knn_graph(X, 15)
    assert np.array_equal(idx, want[0]) and np.array_equal(dist, want[1])
