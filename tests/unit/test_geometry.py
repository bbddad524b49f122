"""Norms, dot products, cosines and exact neighbours, against brute-force references."""

import math

import numpy as np
import pytest

from andrea_viz.errors import QueryError
from andrea_viz.geometry import cosine, dot, nearest, nearest_in, neighbours, norm, resolve, top_k, unit_rows


def brute_force(emb, vector, metric, exclude, k):
    """Row by row in float64 Python: the obvious implementation."""
    v = vector.astype(np.float64)
    scored = []
    for i in range(emb.vocab_size):
        if i in exclude:
            continue
        r = emb.token_table[i].astype(np.float64)
        if metric == "cosine":
            s = float(r @ v) / (math.sqrt(float(r @ r)) * math.sqrt(float(v @ v)))
        elif metric == "dot":
            s = float(r @ v)
        else:
            s = math.sqrt(float((r - v) @ (r - v)))
        scored.append((s, i))
    scored.sort(key=lambda t: (-t[0], t[1]) if metric != "euclidean" else (t[0], t[1]))
    return scored[:k]


def test_norm_dot_cosine_by_the_formulas():
    u, v = np.array([3.0, 4.0], np.float32), np.array([4.0, -3.0], np.float32)
    assert norm(u) == 5.0
    assert dot(u, v) == 0.0  # perpendicular
    assert cosine(u, u) == pytest.approx(1.0)
    assert cosine(u, -u) == pytest.approx(-1.0)
    assert dot(u, 2 * u) == pytest.approx(norm(u) * norm(2 * u) * cosine(u, 2 * u))


@pytest.mark.parametrize("metric", ["cosine", "dot", "euclidean"])
@pytest.mark.parametrize("name,word", [("minilm-l6", "cat"), ("minilm-l6", "xylophone"), ("andrea-12m-init", "#300")])
def test_neighbors_agree_with_brute_force(load_model, name, word, metric):
    emb = load_model(name)
    q, found = neighbours(emb, word, k=10, metric=metric)
    ref = brute_force(emb, q.vector, metric, set(q.ids), 10)
    assert len(found) == 10
    for n, (s, _) in zip(found, ref, strict=True):
        assert n.score == pytest.approx(s, rel=1e-4, abs=1e-5)
    # the same ids, unless two scores tie to float32 precision
    kth = ref[-1][0]
    for n in found:
        if n.id not in {i for _, i in ref}:
            assert n.score == pytest.approx(kth, rel=1e-4, abs=1e-5)


def test_query_row_is_excluded(minilm):
    q, found = neighbours(minilm, "cat", k=50)
    assert q.ids == (4937,)
    assert all(n.id != 4937 for n in found)


def test_neighbours_of_cat_include_dog_and_kitten(minilm):
    _, found = neighbours(minilm, "cat", k=10)
    tokens = [n.token for n in found]
    assert "dog" in tokens and "kitten" in tokens


def test_cat_is_closer_to_dog_than_to_tuesday(minilm):
    cat, dog, tue = (resolve(minilm, w).vector for w in ("cat", "dog", "tuesday"))
    assert cosine(cat, dog) > cosine(cat, tue) + 0.2


def test_multi_piece_word_uses_the_mean_of_its_rows(minilm):
    q = resolve(minilm, "xylophone")
    assert q.pieces == ("x", "##yl", "##ophone")
    np.testing.assert_allclose(q.vector, minilm.token_table[list(q.ids)].mean(axis=0), atol=1e-7)
    assert "mean of their rows" in q.note


def test_ids_and_errors(minilm):
    assert resolve(minilm, "#4937").ids == (4937,)
    assert resolve(minilm, 4937).pieces == ("cat",)
    with pytest.raises(QueryError, match="out of range"):
        resolve(minilm, "#30522")
    with pytest.raises(QueryError, match="empty"):
        resolve(minilm, "  ")
    with pytest.raises(QueryError, match="metric must be one of"):
        neighbours(minilm, "cat", metric="manhattan")
    with pytest.raises(QueryError, match="k must be"):
        neighbours(minilm, "cat", k=0)


def _slow_nearest(X, i, k, metric):
    """The k nearest other rows of row i, by a loop: cosine in float64, or squared Euclidean distance."""
    x = X.astype(np.float64)
    if metric == "cosine":
        key = [(-float(x[i] @ x[j]) / (np.linalg.norm(x[i]) * np.linalg.norm(x[j])), j) for j in range(len(x)) if j != i]
    else:
        key = [(float(np.sum((x[i] - x[j]) ** 2)), j) for j in range(len(x)) if j != i]
    return [j for _, j in sorted(key)[:k]]


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
def test_nearest_rows_match_a_loop_in_every_block(metric):
    X = np.random.default_rng(0).standard_normal((300, 8)).astype(np.float32)
    nn = nearest(X, 5, metric=metric, block=64)
    assert nn.shape == (300, 5)
    for i in (0, 17, 64, 299):
        assert nn[i].tolist() == _slow_nearest(X, i, 5, metric)
    assert nearest(X, 5, np.array([17, 299]), metric=metric).tolist() == nn[[17, 299]].tolist()


def test_top_k_breaks_ties_by_the_smaller_index_in_one_row_and_in_many():
    v = np.array([0.5, 1.0, 0.5, 0.5, np.nan, 0.5, 2.0])
    assert top_k(v, 3).tolist() == [6, 1, 0]
    assert top_k(v, 4, largest=False).tolist() == [0, 2, 3, 5]
    assert top_k(v, 3, exclude=(1,)).tolist() == [6, 0, 2]
    assert top_k(v, 10).tolist() == [6, 1, 0, 2, 3, 5]  # the NaN is never chosen
    rows = np.array([v, v[::-1], [np.nan] * 7])
    assert top_k(rows, 3).tolist() == [[6, 1, 0], [0, 5, 1], [-1, -1, -1]]


def test_nearest_skips_rows_that_are_not_finite_and_pads_with_minus_one():
    X = np.array([[1, 0], [0.9, 0.1], [np.nan, 1], [0, 1], [0, 0]], np.float32)
    nn = nearest(X, 3)
    assert nn[0].tolist() == [1, 3, 4]  # rows 3 and 4 (all zero) both have cosine 0 with row 0: the smaller id first
    assert nn[2].tolist() == [-1, -1, -1]
    assert 2 not in nn


def test_unit_rows_keeps_zero_rows_zero_and_float64_wide():
    u = unit_rows(np.array([[3, 4], [0, 0]], np.float64))
    assert u.dtype == np.float64 and u.tolist() == [[0.6, 0.8], [0.0, 0.0]]
    assert unit_rows(np.array([3, 4], np.float16)).dtype == np.float32


def test_unit_rows_of_a_long_table_taken_in_blocks_are_row_by_row_lengths():
    """Above a block of NORM_BLOCK_BYTES the lengths are taken a block at a time: each row equal, bit for bit, to
    itself scaled alone; zero rows stay zero, a row holding NaN stays non-finite, in every block; scaled in place
    (``normalise(overwrite=True)``) the same bits, in the caller's own array."""
    from andrea_viz.neighbours import NORM_BLOCK_BYTES, normalise

    block = NORM_BLOCK_BYTES // (16 * 4)  # rows of 16 float32 in one block
    rng = np.random.default_rng(4)
    table = rng.standard_normal((2 * block + 5, 16)).astype(np.float32)
    table[[3, block + 1]] = 0.0
    table[2 * block + 2, 5] = np.nan
    u = unit_rows(table)
    for i in (0, 3, block - 1, block, block + 1, 2 * block + 4):
        np.testing.assert_array_equal(u[i], unit_rows(table[i:i + 1])[0])
    assert not u[[3, block + 1]].any() and not np.isfinite(u[2 * block + 2]).all()
    np.testing.assert_allclose(np.linalg.norm(np.delete(u, [3, block + 1, 2 * block + 2], 0), axis=1), 1.0,
                               rtol=1e-6)
    copied, own = normalise(table), table.copy()
    in_place = normalise(own, overwrite=True)
    assert in_place.rows is own and copied.rows is not table  # the caller's array scaled, or a copy when not asked
    np.testing.assert_array_equal(in_place.rows, copied.rows)
    np.testing.assert_array_equal(in_place.finite, copied.finite)
    np.testing.assert_array_equal(in_place.zero, copied.zero)
    assert not in_place.rows[2 * block + 2].any()  # the left-out row zeroed in place too


def test_nearest_in_is_nearest_over_the_chosen_rows_with_or_without_kept_lengths():
    rng = np.random.default_rng(3)
    table = rng.standard_normal((500, 24)).astype(np.float32)
    table[17] = 0.0  # an all-zero row: cosine 0 to everything, as unit_rows makes it
    lengths = np.linalg.norm(table, axis=1).astype(np.float32)
    for ids in (np.arange(500), np.sort(rng.choice(500, 60, replace=False))):  # the whole table, and a sample
        X = table[ids]
        for index in (0, 5, len(ids) - 1, *np.flatnonzero(ids == 17)):  # the zero row's own: all ties, smaller first
            want = nearest(X, 10, np.array([index]))[0].tolist()
            assert nearest_in(table, ids, index, 10).tolist() == want
            assert nearest_in(table, ids, index, 10, lengths).tolist() == want
