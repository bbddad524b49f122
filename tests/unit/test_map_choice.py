"""The default method chosen by measurement (``map_choice``) and the bench's class accuracy (``bench.map_methods``),
on small figures worked by hand."""

import numpy as np
import pytest

from andrea_viz.maps import choice as map_choice
from andrea_viz.bench.map_methods import knn_accuracy, token_classes


def test_the_fastest_app_method_within_the_bar_of_the_best_is_chosen():
    figures = {"pca": (1.0, 0.70, 0.75), "umap": (9.0, 0.900, 0.905), "tsne": (30.0, 0.915, 0.910),
               "pacmap": (5.0, 0.919, 0.920), "trimap": (4.0, 0.80, 0.90)}
    # best T 0.919 and best C 0.920 (PaCMAP, not offered): UMAP is 0.019 and 0.015 short, t-SNE closer but slower
    assert map_choice.choose(figures) == "umap"
    figures["umap"] = (9.0, 0.898, 0.905)  # 0.021 short on T: out
    assert map_choice.choose(figures) == "tsne"
    figures["tsne"] = (30.0, 0.85, 0.95)
    # none within: the one least short on its worse measure (UMAP 0.021 short, t-SNE 0.069, PCA 0.219)
    assert map_choice.choose(figures) == "umap"
    assert map_choice.choose({"pca": (1.0, 0.9, 0.9), "umap": (2.0, 0.91, 0.91)}) == "pca"


def test_a_size_takes_the_choice_of_the_nearest_measured_size():
    measured = {500: ("small", 8, {"pca": (1.0, 0.7, 0.7), "umap": (5.0, 0.8, 0.85)}),
                30_000: ("large", 16, {"pca": (2.0, 0.6, 0.7), "umap": (60.0, 0.9, 0.9), "tsne": (40.0, 0.89, 0.91)})}
    small, large = map_choice.default_for(100, measured), map_choice.default_for(20_000, measured)
    assert (small.method, small.points, large.method, large.points) == ("umap", 500, "tsne", 30_000)
    assert map_choice.default_for(3_000, measured).points == 500  # 3,000 is nearer 500 than 30,000 on a log scale
    assert map_choice.default_for(5_000, measured).points == 30_000
    assert (large.trustworthiness, large.best_continuity, large.seconds) == (0.89, 0.91, 40.0)
    assert "0.890" in str(large.why) and "on large (30,000 × 16)" in str(large.why) and large.table == "large (30,000 × 16)"
    assert map_choice.default_for(10, {}) is None
    assert large.close and "were both within 0.02 of the best" in str(large.why)
    short = map_choice.default_for(1_000, {1_000: ("x", 4, {"pca": (1.0, 0.6, 0.7), "umap": (5.0, 0.8, 0.8),
                                                          "trimap": (1.0, 0.9, 0.9)})})
    # UMAP is 0.1 short on both, PCA 0.3: UMAP is chosen, and the reason says none came within the bar
    assert short.method == "umap" and not short.close
    assert str(short.why) == ("It was measured once on x (1,000 × 4), a reference table, not this map (this map's own "
                              "figures are in the card under it): none of the app's methods was within 0.02 of the best "
                              "on both trustworthiness and continuity (the best T@10 any method reached was 0.900, the "
                              "best C@10 0.900); this one came closest (0.800 and 0.800; 5.0 s on two cores).")


def test_measured_figures_choose_an_app_method_at_every_size():
    for points, (model, dims, figures) in map_choice.MEASURED.items():
        chosen = map_choice.default_for(points)
        assert chosen.method in map_choice.APP_METHOD.values() and (chosen.model, chosen.dims) == (model, dims)
        assert set(figures) == {"pca", "umap", "tsne", "tsne-fft", "pacmap", "trimap"}
    # openTSNE with its own defaults sets the bar like PaCMAP and TriMap; the app's t-SNE is "tsne"
    assert map_choice.choose({"pca": (1.0, 0.5, 0.5), "tsne-fft": (1.0, 0.9, 0.9)}) == "pca"


def test_token_classes():
    c = token_classes(["##ing", "cat", "42", "!?", "Ġdog", "猫", "[CLS]"])
    assert c["script"] == ["LATIN", "LATIN", None, None, "LATIN", "CJK", None]
    assert c["digits"] == ["no", "no", "yes", "no", "no", "no", "no"]
    assert c["punctuation"] == ["no", "no", "no", "yes", "no", "no", "no"]
    assert c["word-initial"] == ["piece", "plain", "plain", "plain", "space", "plain", "plain"]


def test_knn_accuracy_against_a_loop():
    rng = np.random.default_rng(0)
    coords = rng.normal(size=(60, 2))
    labels = ["a" if x > 0 else "b" for x in coords[:, 0]]
    labels[5] = None
    got = knn_accuracy(coords, labels, k=5)
    hits = scored = 0
    for i in range(60):
        if labels[i] is None:
            continue
        d = ((coords - coords[i]) ** 2).sum(1)
        d[i] = np.inf
        near = np.argsort(d)[:5]
        votes = [labels[j] for j in near]
        counts = {v: votes.count(v) for v in votes}
        top = max(counts.values())
        guess = next(v for v in votes if counts[v] == top)
        hits += guess == labels[i]
        scored += 1
    assert got == pytest.approx(hits / scored) and 0.7 < got < 1
    assert knn_accuracy(coords, [None] * 60) is None


def test_the_page_opens_on_the_measured_choice_when_it_can_map_that_many_points():
    assert [map_choice.opens_on(n) for n in (5_000, 557, 262_144)] == ["umap"] * 3  # UMAP at every measured size
    assert map_choice.opens_on(15) == "pca" and map_choice.opens_on(16) == "umap"  # UMAP needs more than 15 points
    measured = {500: ("m", 8, {"pca": (1.0, 0.5, 0.5), "tsne": (2.0, 0.9, 0.9)})}
    assert map_choice.opens_on(91, measured) == "tsne" and map_choice.opens_on(90, measured) == "pca"  # perplexity 30
    from andrea_viz.maps.tsne import tsne
    from andrea_viz.errors import QueryError

    points = np.random.default_rng(0).standard_normal((91, 8)).astype(np.float32)
    assert tsne(points, n_iter=50).coords.shape == (91, 2)  # the fewest it opens t-SNE on are mapped
    with pytest.raises(QueryError):
        tsne(points[:90], n_iter=50)  # and one fewer is refused, so the page falls back to PCA there
    assert map_choice.opens_on(100, {}) == "pca"  # nothing measured
