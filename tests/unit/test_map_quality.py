"""The map quality card against a slow float64 reference: plain loops and ranks over every pair (and
scikit-learn's trustworthiness for T), on small seeded tables and maps."""

import numpy as np
import pytest
from sklearn.manifold import trustworthiness

from andrea_viz.maps import quality as mq
from andrea_viz.errors import QueryError


def _reference(X: np.ndarray, Y: np.ndarray, k: int, picks: np.ndarray) -> dict:
    """T, C, triplet accuracy and the kept share by the definitions, in float64, one point at a time."""
    X = np.asarray(X, np.float64)
    Y = np.asarray(Y, np.float64)
    n = X.shape[0]
    lengths = [np.sqrt(sum(v * v for v in row)) or 1.0 for row in X]
    U = [row / length for row, length in zip(X, lengths, strict=True)]

    def table(i, j):  # cosine distance
        return 1.0 - float(np.dot(U[i], U[j]))

    def plane(i, j):
        return float(sum((a - b) ** 2 for a, b in zip(Y[i], Y[j], strict=True)))

    T = [[table(i, j) for j in range(n)] for i in range(n)]
    P = [[plane(i, j) for j in range(n)] for i in range(n)]
    t_sum = c_sum = kept = 0
    for i in range(n):
        others = [j for j in range(n) if j != i]
        dt = {j: T[i][j] for j in others}
        dp = {j: P[i][j] for j in others}
        rank_t = {j: 1 + sum(1 for m in others if dt[m] < dt[j]) for j in others}
        rank_p = {j: 1 + sum(1 for m in others if dp[m] < dp[j]) for j in others}
        near_t = set(sorted(others, key=lambda j: dt[j])[:k])
        near_p = set(sorted(others, key=lambda j: dp[j])[:k])
        t_sum += sum(rank_t[j] - k for j in near_p - near_t)
        c_sum += sum(rank_p[j] - k for j in near_t - near_p)
        kept += len(near_t & near_p)
    scale = 2.0 / (n * k * (2 * n - 3 * k - 1))
    agree = 0
    for i, j, m in picks:
        a = np.sign(T[i][m] - T[i][j])
        b = np.sign(P[i][m] - P[i][j])
        agree += a == b
    return {"T": 1 - scale * t_sum, "C": 1 - scale * c_sum, "triplets": agree / len(picks), "kept": kept / (n * k)}


def _table_and_map(n: int, d: int, seed: int):
    """Rows near a few centres, and a map that keeps some of that (the first two coordinates, plus noise)."""
    rng = np.random.default_rng(seed)
    X = (rng.normal(size=(6, d))[rng.integers(0, 6, n)] + 0.6 * rng.normal(size=(n, d))).astype(np.float32)
    Y = X[:, :2] + 0.5 * rng.normal(size=(n, 2))
    return X, Y.astype(np.float32)


@pytest.mark.parametrize(("n", "d", "seed", "block"), [(60, 8, 0, 256), (90, 16, 1, 7), (130, 5, 2, 32)])
def test_card_matches_the_slow_reference(n, d, seed, block):
    X, Y = _table_and_map(n, d, seed)
    got = mq.map_scores(X, Y, k=10, seed=seed, block=block)
    ref = _reference(X, Y, 10, mq.triplets(n, seed=seed))
    assert got.points == n
    assert got.trustworthiness == pytest.approx(ref["T"], abs=1e-12)
    assert got.continuity == pytest.approx(ref["C"], abs=1e-12)
    assert got.triplets == pytest.approx(ref["triplets"], abs=1e-12)
    assert got.kept == pytest.approx(ref["kept"], abs=1e-12)
    assert 0.3 < got.trustworthiness < 1 and 0.3 < got.continuity < 1 and 0.5 < got.triplets < 1  # real values
    assert got.trustworthiness == pytest.approx(trustworthiness(X.astype(np.float64), Y.astype(np.float64),
                                                                n_neighbors=10, metric="cosine"), abs=1e-9)


def test_reference_on_a_table_close_to_its_map():
    """A table whose cosine order nearly follows the map's plane: high T and C, still equal to the reference."""
    rng = np.random.default_rng(3)
    Y = rng.normal(size=(80, 2)).astype(np.float32)
    X = np.concatenate([Y, np.full((80, 1), 50.0, np.float32)], axis=1)  # far along a third axis: cosine ≈ plane
    got = mq.map_scores(X, Y, k=10)
    ref = _reference(X, Y, 10, mq.triplets(80))
    assert got.continuity == pytest.approx(ref["C"], abs=1e-12)
    assert got.trustworthiness == pytest.approx(ref["T"], abs=1e-12)
    assert got.trustworthiness > 0.95 and got.continuity > 0.95


def test_a_map_that_is_the_table_scores_one():
    rng = np.random.default_rng(4)
    angles = rng.uniform(0, 2 * np.pi, 70)
    X = np.stack([np.cos(angles), np.sin(angles)], axis=1).astype(np.float32)  # on the circle: cosine order = plane order
    got = mq.map_scores(X, X, k=10)
    assert (got.trustworthiness, got.continuity, got.kept, got.triplets) == (1.0, 1.0, 1.0, 1.0)


def test_a_shuffled_map_scores_about_chance():
    X, Y = _table_and_map(400, 12, 5)
    got = mq.map_scores(X, np.random.default_rng(0).permutation(Y), k=10)
    assert 0.4 < got.triplets < 0.6
    assert got.kept < 0.1


def test_precomputed_neighbours_give_the_same_card():
    from andrea_viz.maps.knn import knn_graph

    X, Y = _table_and_map(150, 10, 6)
    ids, _ = knn_graph(X, 11)  # self first, then 10
    a, b = mq.map_scores(X, Y), mq.map_scores(X, Y, neighbour_ids=ids)
    assert a == b
    assert mq.map_scores(X, Y, neighbour_ids=ids[:, 1:]) == a
    with pytest.raises(QueryError, match="at least 10 neighbours"):
        mq.map_scores(X, Y, neighbour_ids=ids[:, :5])
    with pytest.raises(QueryError, match="one row per point"):
        mq.map_scores(X, Y, neighbour_ids=ids[:9])


def test_triplets_are_three_different_points_and_seeded():
    t = mq.triplets(5, 20_000, seed=7)
    assert t.shape == (20_000, 3)
    assert (t[:, 0] != t[:, 1]).all() and (t[:, 0] != t[:, 2]).all() and (t[:, 1] != t[:, 2]).all()
    assert t.min() == 0 and t.max() == 4
    assert np.array_equal(t, mq.triplets(5, 20_000, seed=7))
    counts = np.bincount(t.ravel(), minlength=5) / t.size
    assert np.allclose(counts, 0.2, atol=0.01)  # every point as often


def test_rank_excess_counts_strictly_larger_entries():
    import torch

    sim = torch.tensor([[5.0, 4.0, 4.0, 3.0, -np.inf, 1.0]])
    cols = torch.tensor([[5, 3, 1]])  # ranks 5 (four above 1.0), 4, 2 (only 5.0 above 4.0)
    assert mq.rank_excess(sim, cols, 2).tolist() == [(5 - 2) + (4 - 2) + 0]


def test_sample_estimate_beside_the_full_value(monkeypatch):
    monkeypatch.setattr(mq, "SAMPLE_ROWS", 100)
    X, Y = _table_and_map(260, 6, 8)
    c = mq.card(X, Y)  # affordable: both
    assert c.full is not None and c.sample is not None and c.best is c.full
    assert c.full == mq.map_scores(X, Y)
    pick = np.sort(np.random.default_rng(0).choice(260, 100, replace=False))
    assert c.sample == mq.map_scores(X[pick], Y[pick])
    assert abs(c.sample.trustworthiness - c.full.trustworthiness) < 0.1
    monkeypatch.setattr(mq, "FULL_BUDGET", 10.0)
    c = mq.card(X, Y)  # too costly: the estimate only, unless asked
    assert c.full is None and c.best is c.sample
    assert mq.card(X, Y, full=True).full == mq.map_scores(X, Y)
    small = mq.card(X[:80], Y[:80])
    assert small.sample is None and small.full is not None  # no sample of a map smaller than it
    js = mq.card(X, Y, full=True).as_json()
    assert set(js) == {"k", "triplets", "sample_rows", "seconds", "full", "sample"}
    assert set(js["full"]) == {"points", "trustworthiness", "continuity", "triplet_accuracy", "kept"}


def test_bad_input_is_a_sentence():
    X, Y = _table_and_map(60, 4, 9)
    with pytest.raises(QueryError, match="more than 20 points"):
        mq.map_scores(X[:15], Y[:15])
    with pytest.raises(QueryError, match="the map has 59 points"):
        mq.map_scores(X, Y[:59])


def test_budget_lets_minilm_whole_table_through():
    assert mq.full_affordable(30_522, 384)
    assert not mq.full_affordable(128_256, 4_096)


def test_project_json_holds_the_card(tmp_path):
    """The CLI's project --json: the card over every point of the map it wrote (its kept share is the map's mean
    trust, both counted over every point of a map this small), equal to the card of the written coordinates."""
    import json
    import subprocess
    import sys

    from andrea_viz.builtin import load_builtin

    out = tmp_path / "map.tsv"
    r = subprocess.run([sys.executable, "-m", "andrea_viz", "project", "andrea-micro", "--method", "pca", "--n", "all",
                        "--out", str(out), "--json"], capture_output=True, text=True, timeout=600,
                       env={**__import__("os").environ, "ANDREA_VIZ_CACHE_DIR": "off"})
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    q = got["quality"]
    assert q["k"] == 10 and q["triplets"] == 100_000 and q["sample"] is None
    assert q["full"]["points"] == got["points"] == 557
    assert q["full"]["kept"] == pytest.approx(got["trust_mean"], abs=1e-12)
    rows = [line.split("\t") for line in out.read_text(encoding="utf-8").splitlines()[1:]]
    ids = np.array([int(row[0]) for row in rows])
    coords = np.array([[float(row[3]), float(row[4])] for row in rows])
    emb = load_builtin("andrea-micro")
    again = mq.map_scores(emb.token_table[ids], coords)
    assert q["full"]["trustworthiness"] == pytest.approx(again.trustworthiness, abs=2e-3)  # coordinates written to 6 digits
    assert q["full"]["continuity"] == pytest.approx(again.continuity, abs=2e-3)
    assert 0.5 < q["full"]["trustworthiness"] < 1
