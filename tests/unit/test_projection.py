"""PCA, t-SNE, samples, trust scores and the exported files."""

import csv
import io
import sys

import numpy as np
import pytest
from sklearn.decomposition import PCA

from andrea_viz.errors import QueryError
from andrea_viz.geometry import nearest, unit_rows
from andrea_viz.maps.export import coordinates_csv, projector_tsv
from andrea_viz.maps.pca import pca, pca_fit
from andrea_viz.maps.project import project_model
from andrea_viz import lexicon
from andrea_viz.maps.sample import WORD_GROUPS, build_sample, word_groups
from andrea_viz.maps.trust import trust_scores
from andrea_viz.maps.tsne import tsne


def test_pca_explained_variance_equals_scikit_learns(minilm):
    X = minilm.token_table
    ours = pca(X, (0, 1, 2))
    sk = PCA(3, svd_solver="full").fit(X.astype(np.float64))
    np.testing.assert_allclose(ours.explained_variance_ratio, sk.explained_variance_ratio_, rtol=1e-6)
    # the same coordinates up to the sign of each axis
    coords = sk.transform(X.astype(np.float64))
    for j in range(3):
        assert abs(np.corrcoef(ours.coords[:, j], coords[:, j])[0, 1]) > 0.9999


def test_pca_on_chosen_components(minilm):
    p = pca(minilm.token_table[:2000], (2, 4))
    full = pca_fit(minilm.token_table[:2000], 5)
    np.testing.assert_allclose(p.coords, full[0][:, [2, 4]])
    with pytest.raises(QueryError, match="does not exist"):
        pca(minilm.token_table[:10], (0, 40))


def test_sample_always_keeps_the_words_asked_for(minilm):
    s = build_sample(minilm, 50, ("cat", "xylophone"), seed=3)
    ids = set(s.ids.tolist())
    assert 4937 in ids and {1060, 8516, 25232} <= ids
    assert s.groups[list(s.ids).index(4937)] == "query"
    assert "weekdays" in s.groups and "neighbour of cat" in s.groups
    assert len(ids) == len(s) >= 50
    big = build_sample(minilm, 5000, ("cat",), seed=0)
    assert len(big) == 5000 and len(set(big.ids.tolist())) == 5000


@pytest.mark.parametrize("lang", lexicon.LANGUAGES)
def test_a_grown_models_map_colours_the_word_groups_of_its_own_language(load_model, lang):
    """Each grown model's sample colours its own language's words: andrea-micro-nl's weekdays are maandag …
    zondag, its people koning, koningin …; English keeps its broad lists (countries, family); MiniLM is English."""
    emb = load_model(lexicon.model_of(lang))
    s = build_sample(emb, 100, seed=0)
    words = {}
    for i, g in zip(s.ids.tolist(), s.groups, strict=True):
        words.setdefault(g, set()).add(emb.token(i))
    expected = set(word_groups(lang))
    assert expected - {"countries"} <= set(words) - {"other"}  # andrea-micro's corpus has no countries
    assert words["weekdays"] == set(lexicon.classes_of(lang)["weekdays"])
    assert lexicon.word(lang, "cat") in words["animals"]
    assert ("people" in words) == (lang != lexicon.ENGLISH)


def test_minilms_map_keeps_the_english_groups(minilm):
    groups = set(build_sample(minilm, 100, seed=0).groups)
    assert set(WORD_GROUPS) <= groups and "people" not in groups


def test_true_nearest_of_a_point_are_its_cosine_nearest_in_the_sample(minilm):
    r = project_model(minilm, "pca", n=300, include=("cat",), seed=2)
    X = minilm.token_table[r.sample.ids].astype(np.float64)
    cos = X @ X[0] / (np.linalg.norm(X, axis=1) * np.linalg.norm(X[0]))
    ref = sorted((-c, j) for j, c in enumerate(cos) if j != 0)[:10]
    assert r.true_nearest(minilm, 0).tolist() == [j for _, j in ref]


def test_true_nearest_of_a_whole_table_map_equal_the_search_over_its_rows(load_model):
    micro = load_model("andrea-micro")
    r = project_model(micro, "pca", n="all", seed=0)  # every row: the product over the table, then the sample's
    X = micro.token_table[r.sample.ids]
    for index in (0, 7, len(r.sample) // 2, len(r.sample) - 1):
        assert r.true_nearest(micro, index).tolist() == nearest(X, 10, np.array([index]))[0].tolist()


def test_trust_of_an_identity_projection_is_1_and_of_noise_is_low():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((800, 16)).astype(np.float32)
    scores, mean = trust_scores(X, unit_rows(X))  # the map of the cosine geometry that keeps every distance
    assert mean == 1.0 and np.all(scores == 1.0)
    _, noise = trust_scores(X, rng.standard_normal((800, 2)).astype(np.float32))
    assert noise < 0.1


def test_tsne_keeps_clusters_apart():
    rng = np.random.default_rng(0)
    centres = rng.standard_normal((3, 20)) * 10
    X = np.concatenate([c + rng.standard_normal((100, 20)) for c in centres]).astype(np.float32)
    seen = []
    proj = tsne(X, 2, perplexity=20, n_iter=250, seed=0, progress=lambda f, s: seen.append(f))
    assert proj.coords.shape == (300, 2) and seen and seen[-1] == pytest.approx(1.0)
    _, mean = trust_scores(X, proj.coords)
    assert mean > 0.3
    labels = np.repeat([0, 1, 2], 100)
    nn = nearest(proj.coords, 5, metric="euclidean")
    assert np.mean(labels[nn] == labels[:, None]) > 0.95


def test_projector_tsv_round_trips(minilm):
    r = project_model(minilm, "pca", n=200, include=("cat",), seed=1)
    vecs = minilm.token_table[r.sample.ids]
    v_tsv, m_tsv = projector_tsv(vecs, r.tokens, r.sample.ids, r.sample.groups)
    back = np.loadtxt(io.StringIO(v_tsv), delimiter="\t", dtype=np.float32)
    np.testing.assert_allclose(back, vecs, rtol=1e-5, atol=1e-7)
    rows = list(csv.reader(io.StringIO(m_tsv), delimiter="\t", quoting=csv.QUOTE_NONE))
    assert rows[0] == ["token", "id", "group"] and len(rows) == len(vecs) + 1
    assert [int(x[1]) for x in rows[1:]] == r.sample.ids.tolist()
    out = coordinates_csv(r.projection.coords, r.tokens, r.sample.ids, r.sample.groups)
    parsed = list(csv.DictReader(io.StringIO(out)))
    assert parsed[0]["token"] == "cat" and float(parsed[0]["x1"]) == pytest.approx(r.projection.coords[0, 0], rel=1e-5)


def test_project_cli_writes_the_tsv(cli, tmp_path):
    out = tmp_path / "p.tsv"
    r = cli("project", "minilm-l6", "--method", "pca", "--n", "300", "--dims", "3", "--include", "cat", "dog", "--out", str(out),
            "--quality")
    assert r.returncode == 0, r.stderr
    assert "explained variance: PC1" in r.stdout and "quality on every point: T@10 0." in r.stdout
    rows = list(csv.reader(out.open(), delimiter="\t"))
    assert rows[0] == ["id", "token", "group", "x1", "x2", "x3", "trust"] and len(rows) == 301
    assert {"cat", "dog"} <= {row[1] for row in rows[1:]}
    # each point's trust, recounted slowly from the file: its 10 nearest by cosine in 384 dimensions against
    # its 10 nearest in the written map
    import andrea_viz

    X = andrea_viz.load("minilm-l6").token_table[[int(r[0]) for r in rows[1:]]].astype(np.float64)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    Y = np.array([[float(v) for v in r[3:6]] for r in rows[1:]])

    def near(M: np.ndarray, i: int) -> set[int]:
        return set(sorted((j for j in range(300) if j != i), key=lambda j: float(((M[i] - M[j]) ** 2).sum()))[:10])

    for i in (0, 1, 150, 299):
        assert float(rows[1 + i][6]) == pytest.approx(len(near(X, i) & near(Y, i)) / 10)


def test_project_cli_scores_trust_on_a_sample_of_5000(cli, tmp_path):
    out = tmp_path / "p.tsv"
    r = cli("project", "minilm-l6", "--method", "pca", "--n", "6000", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "quality on" not in r.stdout and "--quality adds the map's quality card" in r.stdout  # asked for, not paid
    trust = [row[-1] for row in list(csv.reader(out.open(), delimiter="\t"))[1:]]
    assert len(trust) == 6000 and sum(t == "" for t in trust) == 1000
    assert all(0 <= float(t) <= 1 for t in trust if t)


def test_analogy_cli_json(cli):
    import json

    r = cli("analogy", "minilm-l6", "king", "man", "woman", "-k", "5", "--json")
    assert r.returncode == 0, r.stderr
    assert "queen" in [a["token"] for a in json.loads(r.stdout)["answers"]]


@pytest.mark.slow
def test_umap_with_a_seed_gives_the_same_map_twice_and_keeps_neighbourhoods(minilm):
    from andrea_viz.maps.umap_run import umap_map

    X = minilm.token_table[np.random.default_rng(0).choice(minilm.vocab_size, 1_500, replace=False)]
    seen = []
    a = umap_map(X, 2, seed=7, progress=lambda f, s: seen.append(f))
    b = umap_map(X, 2, seed=7)
    assert a.coords.shape == (1_500, 2) and np.array_equal(a.coords, b.coords)
    assert seen and seen[-1] == pytest.approx(1.0) and seen == sorted(seen)
    c = umap_map(X, 2, seed=8)
    assert not np.array_equal(a.coords, c.coords)  # the seed is what fixes it
    _, kept = trust_scores(X, a.coords)
    _, noise = trust_scores(X, np.random.default_rng(0).standard_normal((1_500, 2)))
    assert kept > 10 * noise  # chance keeps about 10 / 1,499 of them


@pytest.mark.slow
def test_project_cli_umap_writes_the_whole_table(cli, tmp_path):
    out = tmp_path / "u.tsv"
    r = cli("project", "andrea-micro", "--method", "umap", "--n", "all", "--out", str(out))
    assert r.returncode == 0, r.stderr
    rows = list(csv.reader(out.open(), delimiter="\t"))
    assert rows[0] == ["id", "token", "group", "x1", "x2", "trust"] and len(rows) == 1 + 557
    assert sorted(int(r[0]) for r in rows[1:]) == list(range(557))


def test_pca_says_which_solver_it_used_and_the_randomized_one_agrees_with_the_exact():
    rng = np.random.default_rng(0)
    narrow, wide = pca(rng.standard_normal((300, 64)).astype(np.float32)), None
    assert "exact" in narrow.note and "1,024" not in str(narrow.note)
    X = (rng.standard_normal((400, 8)) @ rng.standard_normal((8, 1100)) * [1.0] + 0.01 * rng.standard_normal((400, 1100)))
    wide = pca(X.astype(np.float32), (0, 1))
    assert "randomized" in wide.note
    exact = PCA(2, svd_solver="full").fit(X)
    np.testing.assert_allclose(wide.explained_variance_ratio, exact.explained_variance_ratio_, rtol=1e-3)
    want = exact.transform(X)  # the randomized solver runs in float32: its coordinates, up to each axis's sign
    got = wide.coords * np.sign(np.sum(wide.coords * want, axis=0))
    np.testing.assert_allclose(got, want, atol=1e-3 * np.abs(want).max())


def test_a_map_too_large_for_its_method_is_refused_before_it_starts_with_what_would_work(load_model, monkeypatch):
    from andrea_viz.i18n import render
    from andrea_viz.maps import methods, project

    micro = load_model("andrea-micro")

    def never(*a, **k):
        raise AssertionError("the map was started")

    monkeypatch.setitem(methods.MOST_POINTS, "umap", 500)
    monkeypatch.setattr(project, "build_sample", never)
    with pytest.raises(QueryError) as refused:
        project_model(micro, "umap", n="all")
    assert str(refused.value) == ("UMAP maps at most 500 points here and this map has 557: choose a sample of at most "
                                  "500 tokens, or PCA, which maps any number (UMAP runs on the first 50 principal "
                                  "components above 50,000 points).")
    dutch = render(refused.value.msg.msgid, refused.value.msg.params, "nl")
    assert dutch.startswith("UMAP brengt hier hoogstens 500 punten in kaart") and "557" in dutch


def test_the_cli_refuses_a_table_too_large_for_t_sne_with_exit_code_2(cli, tmp_path):
    big = tmp_path / "big.npy"
    np.save(big, np.random.default_rng(0).standard_normal((50_001, 8)).astype(np.float32))
    r = cli("project", str(big), "--method", "tsne", "--n", "all", "--out", str(tmp_path / "m.tsv"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip() == ("error: t-SNE maps at most 50,000 points here and this map has 50,001: choose a "
                                "sample of at most 50,000 tokens, or PCA, which maps any number (UMAP runs on the "
                                "first 50 principal components above 50,000 points).")
    assert not (tmp_path / "m.tsv").exists()


def test_umap_above_its_size_runs_on_50_principal_components_as_pca_then_umap_by_hand(minilm, monkeypatch):
    from andrea_viz.maps import umap_run
    from andrea_viz.maps.umap_run import umap_map

    X = minilm.token_table[np.random.default_rng(1).choice(minilm.vocab_size, 1_200, replace=False)]
    monkeypatch.setattr(umap_run, "UMAP_PCA_FIRST", 1_000)
    by_hand = umap_map(pca_fit(X, 50)[0], 2, seed=3)  # 50 dimensions: no PCA again
    seen, texts = [], []
    first = umap_map(X, 2, seed=3, progress=lambda f, s: (seen.append(f), texts.append(s.msgid)))
    assert np.array_equal(first.coords, by_hand.coords)
    assert "PCA to {k} dimensions first" in texts and "principal components" in first.note.msgid
    assert seen == sorted(seen) and seen[-1] == pytest.approx(1.0)
    assert sum(t == "laying out: epoch {done} of {total}" for t in texts) >= 2  # the epochs move the bar


def test_a_map_above_every_core_above_runs_its_epochs_on_every_core_and_keeps_its_neighbourhoods(minilm, monkeypatch):
    """Above EVERY_CORE_ABOVE points umap-learn's parallel epoch runs with numba's every thread, the seed kept for the
    start; numba's threads are given back after, the note says so, and the map keeps as many neighbours."""
    import numba
    import umap.layouts

    from andrea_viz.maps import umap_run
    from andrea_viz.maps.umap_run import umap_map

    X = minilm.token_table[np.random.default_rng(4).choice(minilm.vocab_size, 1_200, replace=False)]
    monkeypatch.setattr(umap_run, "UMAP_PCA_FIRST", 1_000)
    used = []
    real = umap.layouts._get_optimize_layout_euclidean_single_epoch_fn
    monkeypatch.setattr(umap.layouts, "_get_optimize_layout_euclidean_single_epoch_fn",
                        lambda parallel=False: used.append((parallel, numba.get_num_threads())) or real(parallel))
    one = umap_map(X, 2, seed=3)  # 1,200 points: up to EVERY_CORE_ABOVE, one thread
    assert used == [(False, 1)] and "on every core" not in one.note.msgid
    monkeypatch.setattr(umap_run, "EVERY_CORE_ABOVE", 1_000)
    threads = numba.get_num_threads()
    every = umap_map(X, 2, seed=3)
    assert used[1:] == [(True, numba.config.NUMBA_NUM_THREADS)] and numba.get_num_threads() == threads
    assert "{epochs} epochs on every core from a PCA start seeded {seed}" in every.note.msgid
    _, kept_one = trust_scores(X, one.coords)
    _, kept_every = trust_scores(X, every.coords)
    assert kept_every > kept_one - 0.03


def test_the_exact_neighbour_graph_of_umap_is_each_point_then_its_nearest_by_cosine():
    from andrea_viz.maps.knn import knn_graph

    rng = np.random.default_rng(5)
    X = rng.standard_normal((400, 24)).astype(np.float32)
    X[7] = X[3] * 2.5  # a point in the same direction as another: cosine distance 0 from it
    seen = []
    idx, dist = knn_graph(X, 15, progress=seen.append)
    U = X.astype(np.float64) / np.linalg.norm(X.astype(np.float64), axis=1, keepdims=True)
    for i in range(X.shape[0]):  # the slow way: every cosine of the point in float64, sorted
        cos = U @ U[i]
        cos[i] = -np.inf
        best = np.sort(cos)[::-1][:14]
        assert idx[i, 0] == i and dist[i, 0] == 0
        np.testing.assert_allclose(cos[idx[i, 1:]], best, atol=1e-6)  # the 14 nearest, nearest first (3 and 7 tie)
        np.testing.assert_allclose(dist[i, 1:], 1 - best, atol=1e-5)
    assert idx[3, 1] == 7 and dist[3, 1] == pytest.approx(0, abs=1e-6)
    assert seen and seen[-1] == 1.0 and seen == sorted(seen)


def test_umap_up_to_its_size_uses_the_exact_graph_above_it_the_cell_graph_and_never_umap_learns_own_search(
        minilm, monkeypatch):
    import umap.umap_

    from andrea_viz.maps import umap_run
    from andrea_viz.maps.umap_run import umap_map

    def no_search(*a, **k):
        raise AssertionError("umap-learn searched for neighbours itself")

    monkeypatch.setattr(umap.umap_, "nearest_neighbors", no_search)
    X = minilm.token_table[:4_200]  # from 4,096 points (below, umap-learn computes every distance itself)
    texts = []
    exact = umap_map(X, 2, seed=0, progress=lambda f, s: texts.append(s.msgid))
    assert "found exactly" in exact.note.msgid and np.isfinite(exact.coords).all()
    assert "nearest neighbours in the full space (exact): {f:.0%}" in texts
    monkeypatch.setattr(umap_run, "UMAP_PCA_FIRST", 4_000)
    seen = []
    cells = umap_map(X, 2, seed=0, progress=lambda f, m: seen.append((f, m.msgid)))
    assert "found approximately (cell by cell)" in cells.note.msgid and np.isfinite(cells.coords).all()
    steps = [f for f, m in seen if m == "nearest neighbours (approximate, cell by cell): {f:.0%}"]
    assert len(steps) >= 10 and all(0.1 < f <= 0.35 for f in steps)  # the bar moves as the cells are searched
    assert [f for f, _ in seen] == sorted(f for f, _ in seen)
    assert np.array_equal(umap_map(X, 2, seed=0).coords, cells.coords)  # seeded: the same graph, the same map


def test_a_large_maps_pca_is_fitted_on_a_seeded_sample_and_projects_every_row():
    from andrea_viz.maps.pca import pca_fit_sampled

    rng = np.random.default_rng(2)
    X = (rng.standard_normal((3_000, 6)) @ rng.standard_normal((6, 1_100)) + 0.05 * rng.standard_normal((3_000, 1_100)))
    X = X.astype(np.float32)
    got = pca_fit_sampled(X, 4, rows=1_000, seed=7)
    pick = np.sort(np.random.default_rng(7).choice(3_000, 1_000, replace=False))
    ref = PCA(4, svd_solver="full").fit(X[pick].astype(np.float64))  # the slow, exact fit of the same rows
    want = ref.transform(X.astype(np.float64))
    got = got * np.sign(np.sum(got * want, axis=0))  # each axis up to its sign
    np.testing.assert_allclose(got, want, atol=1e-3 * np.abs(want).max())
    assert np.array_equal(pca_fit_sampled(X[:900], 4, rows=1_000), pca_fit(X[:900], 4)[0])  # fewer rows: all of them


def test_umap_learns_output_says_its_stages_and_moves_the_bar_by_epoch():
    import contextlib

    from andrea_viz.maps.umap_run import _UmapProgress

    got = []
    sink = _UmapProgress(lambda f, m: got.append((round(f, 4), m.msgid, dict(m.params))))
    with contextlib.redirect_stdout(sink):  # as print writes: one piece at a time
        print("Tue Dec  1 20:00:00 2026", "Construct fuzzy simplicial set")
        print("Tue Dec  1 20:00:06 2026", "Construct embedding")
        print("\tcompleted ", 0, " / ", 120, "epochs")
    sink.write("\r  0%|          | 0/120 [00:00<?, ?it/s]")  # tqdm: a whole bar after a carriage return
    sink.write("\rEpochs completed:   2%| 2          3/120 [00:01]")  # umap-learn's own bar format
    sink.write("\r 50%|█████     | 60/120 [00:04<00:04, 14.2it/s]")
    epoch = "laying out: epoch {done} of {total}"
    assert got == [(0.3, "UMAP's fuzzy graph: each point joined to its neighbours", {}),
                   (0.35, "laying out: from a PCA start", {}),
                   (0.35, epoch, {"done": 0, "total": 120}), (0.35, epoch, {"done": 0, "total": 120}),
                   (0.365, epoch, {"done": 3, "total": 120}), (0.65, epoch, {"done": 60, "total": 120})]


def test_a_maps_neighbour_graph_is_searched_once_for_its_layout_trust_labels_and_a_click(minilm, monkeypatch):
    """A 5,000-point UMAP map with labels and a click: one search of the full space (a counter on every call into
    the neighbour kit by cosine), and what the trust, the labels and the lines slice of it is what their own
    searches would give."""
    from andrea_viz import neighbours
    from andrea_viz.maps.clusters import CLUSTER_K, cluster_ids
    from andrea_viz.maps.layout import GRAPH_K
    from andrea_viz.maps.trust import TRUST_K
    from andrea_viz.maps.umap_run import UMAP_NEIGHBOURS

    assert GRAPH_K >= max(CLUSTER_K, TRUST_K, UMAP_NEIGHBOURS - 1)
    monkeypatch.setenv("ANDREA_VIZ_CACHE_DIR", "off")  # made here, not read from the disk
    real, searches = neighbours.argkmin, []

    def counted(X, k, rows=None, metric="cosine", **kw):
        if metric == "cosine":
            searches.append((np.shape(X), k, rows))
        return real(X, k, rows, metric, **kw)

    for name, module in list(sys.modules.items()):
        if name.startswith("andrea_viz") and getattr(module, "argkmin", None) is real:
            monkeypatch.setattr(module, "argkmin", counted)
    r = project_model(minilm, "umap", n=5_000, include=("cat",), seed=0)
    found = cluster_ids(minilm, r.sample.ids, near=r.graph_ids(minilm))  # the Projection page's labels
    index = r.position_of("dog")
    lines = r.true_nearest(minilm, index)  # a click on dog
    assert searches == [((5_000, minilm.d_model), GRAPH_K, None)]
    monkeypatch.undo()
    X = minilm.token_table[r.sample.ids]
    assert lines.tolist() == nearest(X, TRUST_K, np.array([index]))[0].tolist()
    trust, mean = trust_scores(X, r.projection.coords)
    np.testing.assert_array_equal(trust, r.trust)
    assert mean == r.trust_mean
    alone = cluster_ids(minilm, r.sample.ids)
    np.testing.assert_array_equal(found.assignment, alone.assignment)
