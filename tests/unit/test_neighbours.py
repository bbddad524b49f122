"""The neighbour kit (``andrea_viz.neighbours``) against a slow float64 reference (plain Python over the whole
matrix, a stable sort), and the twin-with-NaN table answered the same way by every search of the library."""

import math

import numpy as np
import pytest
import torch

from andrea_viz import precision
from andrea_viz.anatomy import hubs
from andrea_viz.geometry import nearest
from andrea_viz.maps.knn import cell_knn_graph, knn_graph
from andrea_viz.neighbours import argkmin, argkmin_each, jaccard, jaccard_rows, normalise, select_k, top_k


def slow_argkmin(X: np.ndarray, k: int, metric: str = "cosine", rows=None, among=None) -> list[list[int]]:
    """Row by row in float64: every other finite row (of ``among``, when given) scored, sorted (stable) by score then
    id, the k first; a row holding NaN or Inf gets k times -1 and is never chosen."""
    X = np.asarray(X, np.float64)
    finite = [all(math.isfinite(v) for v in row) for row in X]
    k = min(k, len(X) - 1 if among is None else len(set(among)))
    out = []
    for i in (range(len(X)) if rows is None else rows):
        if not finite[i]:
            out.append([-1] * k)
            continue
        scored = []
        for j in (range(len(X)) if among is None else sorted(set(among))):
            if j == i or not finite[j]:
                continue
            if metric == "cosine":
                ni, nj = math.sqrt(float(X[i] @ X[i])), math.sqrt(float(X[j] @ X[j]))
                s = 0.0 if ni == 0 or nj == 0 else float(X[i] @ X[j]) / (ni * nj)
            else:
                s = -float((X[i] - X[j]) @ (X[i] - X[j]))
            scored.append((-s, j))
        best = [j for _, j in sorted(scored)][:k]
        out.append(best + [-1] * (k - len(best)))
    return out


def awkward_table(n: int = 120, d: int = 6, seed: int = 0) -> np.ndarray:
    """Random rows, with exact twins (ties), all-zero rows (cosine 0 with every row) and rows holding NaN / Inf."""
    X = np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32)
    X[7] = X[2]
    X[50] = X[2]  # three equal rows: whoever has one of them near has all three, smaller id first
    X[11] = 0.0
    X[12] = 0.0
    X[20, 3] = np.nan
    X[31, 0] = np.inf
    return X


@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize(("block", "k"), [(None, 8), (1, 8), (17, 8), (None, 70), (17, 70)])
def test_argkmin_is_the_slow_reference_on_twins_zero_rows_and_nan_rows(backend, block, k):
    X = awkward_table()  # k = 70 of 119: cosines around 0 are chosen, where a NaN row made zero would come in
    found = argkmin(X, k, backend=backend, block=block)
    assert found.ids.tolist() == slow_argkmin(X, k)
    assert found.left_out.tolist() == [20, 31]
    assert (found.ids[20] == -1).all() and np.isnan(found.scores[20]).all()
    assert not np.isin([20, 31], found.ids).any()  # never chosen
    ok = found.ids >= 0
    U = normalise(X).rows.astype(np.float64)
    want = np.einsum("nd,nkd->nk", U, U[np.where(ok, found.ids, 0)])
    np.testing.assert_allclose(found.scores[ok], want[ok], atol=1e-6)  # the cosines said are the true ones
    rows = np.array([2, 20, 11, 119])
    assert argkmin(X, k, rows, backend=backend, block=block).ids.tolist() == slow_argkmin(X, k, rows=rows)


@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize(("block", "k"), [(None, 5), (3, 5), (None, 60), (None, 119)])
@pytest.mark.parametrize("most", [False, True], ids=["some", "most"])
def test_argkmin_among_some_rows_is_the_slow_reference(backend, block, k, most):
    """Candidates given (unsorted, repeated, the NaN row and some query rows among them): only they are chosen, a
    row is still not its own neighbour, ties still go to the smaller id; k = 60 is more than the 52 candidates.
    ``most``: 82 of the 120 rows, scored against the whole table with the rest dropped rather than gathered."""
    X = awkward_table()
    among = np.r_[np.arange(60, 10, -1), 7, 7, 2, 20]  # the twins 2, 7 and 50, the zero rows 11 and 12, NaN row 20
    if most:
        among = np.r_[among, np.arange(119, 89, -1)]
    rows = np.array([2, 7, 20, 11, 119, 0, 50])
    found = argkmin(X, k, rows, backend=backend, block=block, among=among)
    assert found.ids.tolist() == slow_argkmin(X, k, rows=rows, among=among)
    assert set(found.ids[found.ids >= 0].tolist()) <= set(among.tolist()) - {20}
    ok = found.ids >= 0
    U = normalise(X).rows.astype(np.float64)
    want = np.einsum("nd,nkd->nk", U[rows], U[np.where(ok, found.ids, 0)])
    np.testing.assert_allclose(found.scores[ok], want[ok], atol=1e-6)
    Y = np.random.default_rng(3).integers(-4, 5, (40, 2)).astype(np.float32)  # by distance, among every other row
    assert argkmin(Y, 4, metric="euclidean", backend=backend, among=np.arange(0, 40, 2)).ids.tolist() == \
        slow_argkmin(Y, 4, "euclidean", among=range(0, 40, 2))


@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize("block", [None, 3])
def test_argkmin_each_is_the_slow_reference_for_every_selection_of_one_product(backend, block):
    """Several (k, among) of the same rows from one product: each selection is the slow reference's, whether its
    candidates are every row, most rows or a few (scored against the whole table here, never gathered), and a
    selection of k = 0 comes back empty beside the others."""
    X = awkward_table()
    few = np.r_[np.arange(60, 10, -1), 7, 7, 2, 20]
    most = np.r_[few, np.arange(119, 89, -1)]
    rows = np.array([2, 7, 20, 11, 119, 0, 50])
    wanted = [(5, few), (10, None), (0, few), (8, most), (60, few)]  # a few candidates before all of them
    found = argkmin_each(X, wanted, rows, backend=backend, block=block)
    for (k, among), f in zip(wanted, found, strict=True):
        assert f.ids.tolist() == slow_argkmin(X, k, rows=rows, among=among)
        assert f.ids.tolist() == argkmin(X, k, rows, backend=backend, among=among).ids.tolist()
        ok = f.ids >= 0
        U = normalise(X).rows.astype(np.float64)
        want = np.einsum("nd,nkd->nk", U[rows], U[np.where(ok, f.ids, 0)])
        np.testing.assert_allclose(f.scores[ok], want[ok], atol=1e-6)
        assert f.left_out.tolist() == [20, 31]
    Y = np.random.default_rng(3).integers(-4, 5, (40, 2)).astype(np.float32)  # by distance
    even, near = argkmin_each(Y, [(4, np.arange(0, 40, 2)), (4, None)], metric="euclidean", backend=backend)
    assert near.ids.tolist() == slow_argkmin(Y, 4, "euclidean")
    assert even.ids.tolist() == slow_argkmin(Y, 4, "euclidean", among=range(0, 40, 2))


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_argkmin_by_distance_for_the_points_of_a_map(backend):
    Y = np.random.default_rng(1).integers(-6, 7, (90, 2)).astype(np.float32)  # whole numbers: many equal distances
    Y[5] = Y[9]
    Y[40, 1] = np.nan
    assert argkmin(Y, 6, metric="euclidean", backend=backend).ids.tolist() == slow_argkmin(Y, 6, "euclidean")


def test_k_is_cut_to_the_other_rows_and_a_table_of_one_row_has_none():
    X = np.random.default_rng(2).standard_normal((5, 3)).astype(np.float32)
    assert argkmin(X, 10).ids.shape == (5, 4)
    assert argkmin(X[:1], 3).ids.shape == (1, 0)


def test_select_k_breaks_ties_by_id_on_numpy_and_torch_alike():
    s = np.array([[0.5, 1.0, 0.5, 0.5, np.nan, 0.5, 2.0], [1, 1, 1, 1, 1, 1, 1], [-np.inf] * 7], np.float32)
    ids = np.array([60, 50, 40, 30, 20, 10, 0])
    for k in (1, 3, 5, 7):
        pos, val = select_k(s, k, ids)
        tpos, tval = select_k(torch.from_numpy(s), k, torch.from_numpy(ids))
        assert pos.tolist() == tpos.tolist(), k
        np.testing.assert_array_equal(val, tval.numpy())
    pos, val = select_k(s, 5, ids)
    assert pos.tolist() == [[6, 1, 5, 3, 2], [6, 5, 4, 3, 2], [-1] * 5]  # equal scores: the smaller id first
    assert np.isnan(val[2]).all()
    assert top_k(s[0], 10).tolist() == [6, 1, 0, 2, 3, 5] and top_k(s[0], 2, largest=False).tolist() == [0, 2]


def test_the_normaliser_says_which_rows_are_zero_and_which_are_left_out():
    u = normalise(awkward_table())
    assert np.flatnonzero(u.zero).tolist() == [11, 12] and u.left_out.tolist() == [20, 31]
    lengths = np.linalg.norm(u.rows, axis=1)
    np.testing.assert_allclose(np.delete(lengths, [11, 12, 20, 31]), 1.0, rtol=1e-6)
    assert not u.rows[[11, 12, 20, 31]].any() and u.rows.dtype == np.float32


def test_jaccard_of_lists_and_of_rows_agree_and_minus_one_is_no_id():
    a = np.array([[1, 2, 3], [4, 5, 6], [-1, -1, -1], [7, 8, -1]])
    b = np.array([[3, 2, 9], [7, 8, 9], [-1, -1, -1], [1, 2, 3]])
    assert jaccard_rows(a, b).tolist() == [jaccard(x, y) for x, y in zip(a, b, strict=True)] == [0.5, 0.0, 1.0, 0.0]


# --- the twin with one NaN -------------------------------------------------------------------------------------
def twin_table() -> np.ndarray:
    """Row 3 is row 0's twin with one NaN: every search leaves it out (the loader says so)."""
    X = np.random.default_rng(3).standard_normal((60, 8)).astype(np.float32)
    X[3] = X[0]
    X[3, 5] = np.nan
    return X


@pytest.mark.parametrize("k", [4, 30])  # 30 of 59: a NaN row counted as a zero row (cosine 0) would be chosen
def test_the_twin_with_a_nan_gets_the_same_answer_from_every_search(k):
    X = twin_table()
    want = slow_argkmin(X, k)
    assert want[3] == [-1] * k and all(3 not in row for row in want)
    assert nearest(X, k).tolist() == want  # the Neighbours page, Compare, clusters
    idx, dist = knn_graph(X, k + 1)  # the map's graph (UMAP): each row first, then its k nearest
    assert idx[:, 0].tolist() == list(range(60)) and idx[:, 1:].tolist() == want
    assert (dist[3, 1:] == 2).all()
    for backend in ("numpy", "torch"):  # precision's top-k (the Neighbours page's Jaccard@10, bench-precision)
        assert precision.neighbour_ids(X, k, backend=backend).tolist() == want
    counts = hubs.k_occurrence(X, k, on="cpu")  # the Anatomy page's hubs
    assert counts.tolist() == np.bincount([j for row in want for j in row if j >= 0], minlength=60).tolist()
    assert counts[3] == 0 and counts.sum() == 59 * k


def test_the_cell_graph_leaves_a_nan_row_out_too():
    X = np.random.default_rng(5).standard_normal((2_000, 8)).astype(np.float32)  # 22 cells: the approximate path
    X[3] = X[0]
    X[3, 5] = np.nan
    idx, dist = cell_knn_graph(X, 5)
    assert idx[3].tolist() == [3, -1, -1, -1, -1] and (dist[3, 1:] == 2).all()
    assert not (idx[:, 1:] == 3).any() and (idx[np.arange(2_000) != 3, 1:] >= 0).all()
    exact = argkmin(X, 4).ids  # the exact search, checked against the slow reference above
    found = np.mean([len(set(a) & set(b)) / 4 for a, b in zip(idx[:, 1:], exact, strict=True)])
    assert found >= 0.9, found
