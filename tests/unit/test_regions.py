"""Region labels of a large map: every row clustered on the map's own neighbour graph, recovering a planted
table's classes, with zoom levels that nest; the planted table itself."""

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from andrea_viz.bench.planted import (
    MINILM_WITHIN, PLANTED_LARGEST, PLANTED_SMALLEST, PLANTED_V, planted_table, within_cosine, zipf_sizes,
)
from andrea_viz.errors import QueryError
from andrea_viz.maps import clusters, regions
from andrea_viz.maps.knn import cell_knn_graph
from andrea_viz.maps.pca import PCA_INPUT_DIMS, pca_fit_sampled
from andrea_viz.maps.umap_run import UMAP_NEIGHBOURS
from andrea_viz.model import Embeddings, Provenance
from andrea_viz.tokenizer.vocab_txt import VocabTokenizer

ROWS, DIMS = 20_000, 256  # the planted recipe at a size a test runs in seconds


def test_zipf_sizes_of_the_whole_vocabulary_run_from_40_to_40000_rows_and_add_up():
    sizes = zipf_sizes(PLANTED_V)
    assert sizes.sum() == PLANTED_V and sizes.size >= 64
    assert sizes[-1] == PLANTED_SMALLEST and PLANTED_LARGEST - 200 <= sizes[0] <= PLANTED_LARGEST
    assert (np.diff(sizes) <= 0).all()
    ranks = np.arange(1, sizes.size + 1)  # Zipf: log size falls in a straight line with log rank
    assert np.corrcoef(np.log(ranks[1:]), np.log(sizes[1:]))[0, 1] < -0.999
    small = zipf_sizes(ROWS)
    assert small.sum() == ROWS and small.size >= 64 and small[-1] == PLANTED_SMALLEST


def test_zipf_sizes_say_what_they_need():
    with pytest.raises(QueryError, match="smallest 40, largest 30, rows 1,000"):
        zipf_sizes(1_000, 40, 30)


@pytest.fixture(scope="module")
def planted():
    table, labels = planted_table(ROWS, DIMS, seed=0)
    return table.float().numpy(), labels


def test_a_planted_table_is_seeded_and_its_classes_no_tighter_than_minilms(planted):
    X, labels = planted
    assert X.shape == (ROWS, DIMS) and labels.shape == (ROWS,)
    assert np.array_equal(np.bincount(labels), zipf_sizes(ROWS))
    again, same = planted_table(ROWS, DIMS, seed=0)
    assert np.array_equal(again.float().numpy(), X) and np.array_equal(same, labels)
    within = within_cosine(X, labels)
    assert 0.2 < within <= MINILM_WITHIN
    # slow reference: every pair of the first rows of two classes, in plain float64
    U = X / np.linalg.norm(X.astype(np.float64), axis=1, keepdims=True)
    for c in (0, 50):
        rows = np.flatnonzero(labels == c)[:30]
        pairs = [float(U[a] @ U[b]) for i, a in enumerate(rows) for b in rows[i + 1:]]
        assert abs(np.mean(pairs) - within) < 0.03
    other = [float(U[a] @ U[b]) for a, b in zip(np.flatnonzero(labels == 0)[:200], np.flatnonzero(labels == 1)[:200],
                                                strict=True)]
    assert abs(np.mean(other)) < within / 2


def test_edge_distances_are_the_chords_between_unit_rows_in_d(planted):
    X, _ = planted
    ids = np.arange(300, 400)
    near = np.random.default_rng(0).integers(-1, ids.size, (ids.size, 5))
    got = regions.edge_distances(X, ids, near, block=7)
    for i in range(ids.size):  # slow reference: plain float64, one pair at a time
        for j in range(5):
            if near[i, j] < 0:
                assert np.isnan(got[i, j])
                continue
            u, v = X[ids[i]].astype(np.float64), X[ids[near[i, j]]].astype(np.float64)
            want = np.linalg.norm(u / np.linalg.norm(u) - v / np.linalg.norm(v))
            assert got[i, j] ** 2 == pytest.approx(want ** 2, abs=1e-6)  # squared: √(2 − 2cos) of a float32 cosine


def test_noise_takes_the_cluster_most_of_its_neighbours_are_in():
    labels = np.array([0, 0, 1, 1, -1, -1, -1])
    near = np.array([[1, 4, -1], [0, 2, -1], [3, 1, -1], [2, 4, -1], [0, 1, 2], [4, 6, -1], [5, -1, -1]])
    got = regions.spread_labels(labels, near)
    # slow reference: one row at a time, round after round, counts by hand, ties to the smaller cluster
    want = labels.copy()
    while True:
        before = want.copy()
        for i in np.flatnonzero(before < 0):
            votes = [before[j] for j in near[i] if j >= 0 and before[j] >= 0]
            if votes:
                want[i] = min(set(votes), key=lambda c: (-votes.count(c), c))
        if np.array_equal(before, want):
            break
    assert np.array_equal(got, want) and got.tolist() == [0, 0, 1, 1, 0, 0, 0]


def test_zoom_levels_of_8_16_32_64_nest():
    rng = np.random.default_rng(3)
    centres = rng.standard_normal((150, 40))
    levels = regions.zoom_levels(centres / np.linalg.norm(centres, axis=1, keepdims=True))
    assert [len(np.unique(levels[k])) for k in regions.ZOOM_LABELS] == [8, 16, 32, 64]
    for fine, coarse in zip(regions.ZOOM_LABELS[1:], regions.ZOOM_LABELS[:-1], strict=True):
        for g in range(fine):  # every group of a level lies within one group of the level above
            assert len(np.unique(levels[coarse][levels[fine] == g])) == 1, (fine, g)
    few = regions.zoom_levels(centres[:5])
    assert [len(np.unique(few[k])) for k in regions.ZOOM_LABELS] == [5, 5, 5, 5]


def _the_maps_graph(X: np.ndarray) -> np.ndarray:
    """The graph UMAP builds for a large map (``umap_run.umap_layout``): PCA to 50 dimensions, then cell by cell;
    each point's nearest others (its own column dropped), positions in X."""
    idx, _dist = cell_knn_graph(pca_fit_sampled(X, PCA_INPUT_DIMS, seed=0), UMAP_NEIGHBOURS, seed=0)
    return idx[:, 1:]


def _planted_emb(X: np.ndarray) -> tuple[Embeddings, list[str]]:
    tokens = [f"tok{i:05d}" for i in range(ROWS)]
    return Embeddings("planted", X, None, "none", None, False, VocabTokenizer("vocab.txt", "\n".join(tokens)),
                      Provenance("test")), tokens


@pytest.fixture(scope="module")
def planted_found(planted):
    """The planted table's clustering on its map's graph (counted as a large map's here)."""
    X, _labels = planted
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(clusters, "EXACT_NEIGHBOURS_MAX", ROWS - 1)
        return clusters.cluster_ids(_planted_emb(X)[0], near=_the_maps_graph(X))


def test_a_large_table_without_its_maps_graph_is_refused(planted, monkeypatch):
    monkeypatch.setattr(clusters, "EXACT_NEIGHBOURS_MAX", ROWS - 1)
    with pytest.raises(QueryError, match="too many to cluster"):
        clusters.cluster_ids(_planted_emb(planted[0])[0])


def test_every_row_of_a_planted_table_is_labelled_and_its_classes_recovered(planted, planted_found):
    X, labels = planted
    tokens = _planted_emb(X)[1]
    found = planted_found
    assert (found.assignment >= 0).all()  # every row labelled: no noise
    ari = adjusted_rand_score(labels, found.assignment)
    assert ari >= 0.8, ari
    assert sorted(found.levels) == list(regions.ZOOM_LABELS)
    for level in regions.ZOOM_LABELS:
        groups = found.level_of[level][found.assignment]
        assert len(found.levels[level]) == len(np.unique(groups)) == min(level, len(found.clusters))
        assert sum(c.size for c in found.levels[level]) == ROWS
        assert [c.id for c in found.levels[level]] == list(range(len(found.levels[level])))
        assert [c.size for c in found.levels[level]] == [int((groups == g).sum()) for g in range(len(found.levels[level]))]
        assert [c.size for c in found.levels[level]] == sorted((c.size for c in found.levels[level]), reverse=True)
    for fine, coarse in zip(regions.ZOOM_LABELS[1:], regions.ZOOM_LABELS[:-1], strict=True):
        pairs = set(zip(found.level_of[fine][found.assignment], found.level_of[coarse][found.assignment], strict=True))
        assert len(pairs) == len({f for f, _c in pairs})  # each fine group in one coarse group
    top = found.clusters[0]
    assert top.medoids[0] in tokens and top.label().endswith(" ".join(top.medoids[:clusters.LABEL_MEDOIDS]))


def test_a_large_maps_graph_is_kept_with_it_in_the_map_cache_and_a_bad_one_refused(tmp_path, monkeypatch):
    from andrea_viz.maps.cache import load_map, save_map

    monkeypatch.setenv("ANDREA_VIZ_CACHE_DIR", str(tmp_path / "maps"))
    n = 40
    graph = np.random.default_rng(0).integers(-1, n, (n, 14))
    meta = {"method": "umap", "seconds": 1.0, "trust_mean": 0.5, "note": None}
    args = (np.arange(n), ("other",) * n, np.zeros((n, 2), np.float32), np.full(n, 0.5), None)
    save_map("a" * 40, meta, *args, graph=graph)
    kept = load_map("a" * 40, n)
    assert kept["graph"].dtype == np.int32 and np.array_equal(kept["graph"], graph)
    save_map("b" * 40, meta, *args)  # a map without one keeps an empty graph
    assert load_map("b" * 40, n)["graph"].shape == (0, 0)
    graph[3, 2] = n  # a point the map has not
    save_map("c" * 40, meta, *args, graph=graph)
    assert load_map("c" * 40, n) is None


def test_a_large_umap_maps_own_graph_is_kept_with_it_and_clustered_after_the_cache(monkeypatch):
    """A map counts as large here from 2,000 points: UMAP runs on PCA-50 and its graph cell by cell; that graph is
    what the labels cluster, from the map just made and from the map read back from the cache (as between 50,000
    and 60,000 points, where the exact path would slice 15 neighbours of a 14-neighbour graph)."""
    from andrea_viz.maps import project, result as map_result, umap_run

    monkeypatch.setattr(umap_run, "UMAP_PCA_FIRST", 2_000)
    monkeypatch.setattr(map_result, "GRAPH_MAX", 2_000)
    rows = 5_000  # fewer than EXACT_NEIGHBOURS_MAX: the approximate graph alone sends the labels to it
    table, labels = planted_table(rows, DIMS, seed=1)
    X = table.float().numpy()
    emb = Embeddings("planted-5k", X, None, "none", None, False,
                     VocabTokenizer("vocab.txt", "\n".join(f"tok{i:04d}" for i in range(rows))), Provenance("test"))
    made = project.project_model(emb, "umap", n="all", seed=0)
    assert made.projection.approximate and not made.from_cache
    near = made.graph_ids(emb)
    assert near.shape == (rows, UMAP_NEIGHBOURS - 1)
    # the very graph UMAP took (positions in the map's sample), not searched again
    assert np.array_equal(near, _the_maps_graph(X[made.sample.ids]))
    assert made.neighbour_graph(emb) is None  # never the lines' true nearest
    again = project.project_model(emb, "umap", n="all", seed=0)
    assert again.from_cache and np.array_equal(again.graph_ids(emb), near)
    found = clusters.cluster_ids(emb, again.sample.ids, near=again.graph_ids(emb))
    assert (found.assignment >= 0).all() and adjusted_rand_score(labels[again.sample.ids], found.assignment) >= 0.8


def test_clusters_joined_by_a_share_of_their_edges_are_one_region():
    # 0 and 1: two halves of one region (5 edges between them); 2: apart (one edge to 1, 1/6
    # of its own, kept at share 0.2); 3: no edges out
    labels = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    near = np.array([[1, 2, -1], [0, 3, -1], [0, 1, 3], [2, 1, 4], [5, -1, -1], [4, -1, -1], [7, -1, -1],
                     [6, -1, -1]])
    got = regions.merge_linked(labels, near, share=0.2)

    def links(a, b):  # slow reference: every edge, by hand
        return sum(1 for i in range(8) for j in near[i] if j >= 0 and {labels[i], labels[j]} == {a, b})

    want = labels.copy()
    for a in range(4):
        for b in range(a + 1, 4):
            if links(a, b) >= 0.2 * 3 * min((labels == a).sum(), (labels == b).sum()):
                want[want == want[labels == b][0]] = want[labels == a][0]
    _, want = np.unique(want, return_inverse=True)
    assert got.tolist() == want.tolist() == [0, 0, 0, 0, 1, 1, 2, 2]


def test_the_canvas_offers_exactly_one_zoom_levels_groups_at_each_zoom(planted, planted_found):
    """``clusters.zoom_labels``: at zoom level k the labels offered (level ≤ k < until) are exactly the groups of
    the k-th level (8, 16, 32, 64), each once, at its most central token; a group unchanged from one level to the next
    keeps its one label."""
    found = planted_found
    coords = np.random.default_rng(0).normal(size=(ROWS, 2)).astype(np.float32)  # any map of the same rows
    labels = clusters.zoom_labels(found, coords)
    where = {int(i): k for k, i in enumerate(found.ids)}
    members = {}  # label → the set of clusters it stands for, read back from its level's groups
    for x, y, group, level, until in labels:
        size = regions.ZOOM_LABELS[level]
        assert found.levels[size][group.id] is group
        members[id(group)] = frozenset(np.flatnonzero(found.level_of[size] == group.id).tolist())
        assert (x, y) == tuple(float(v) for v in coords[where[group.medoid_ids[0]]])
        assert until is None or until > level
    for k, size in enumerate(regions.ZOOM_LABELS):
        offered = [g for _x, _y, g, level, until in labels if level <= k and (until is None or k < until)]
        want = {frozenset(np.flatnonzero(found.level_of[size] == g).tolist()) for g in range(len(found.levels[size]))}
        assert len(offered) == len(want) == min(size, len(found.clusters))
        assert {members[id(g)] for g in offered} == want
    assert [g.size for _x, _y, g, _l, _u in labels] == sorted((g.size for _x, _y, g, _l, _u in labels), reverse=True)
    assert len(labels) < sum(regions.ZOOM_LABELS)  # groups kept whole from one level to the next share a label
