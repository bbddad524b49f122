"""Benchmark of the similarity pages' computations on the trained table, measured side by side.

Prints medians over repeated runs; the t-SNE libraries run on the same points, same PCA-50
input, same iterations, and their quality is compared by scikit-learn's trustworthiness.
"""

from __future__ import annotations

import os
import platform
import time
from statistics import median

import numpy as np

from ..geometry import neighbours, resolve_ids, scores, unit_space
from ..loading import load
from ..maps.pca import pca, pca_fit
from ..maps.sample import build_sample
from ..maps.tsne import BH_THETA, tsne
from .timer import median_seconds
from ..maps.trust import TRUST_SAMPLE
from ..maps.umap_run import UMAP_EPOCHS, umap_is_warm, umap_map


def whole_table(emb, repeats: int, sklearn_all: bool) -> None:
    """UMAP, openTSNE and scikit-learn's t-SNE on every row, side by side; trustworthiness (scikit-learn's,
    k = 10) on a seeded sample of 5,000 rows. UMAP's first call (numba compiling) is timed apart."""
    import warnings

    from sklearn.manifold import TSNE, trustworthiness


    X = emb.token_table
    sub = np.random.default_rng(0).choice(X.shape[0], TRUST_SAMPLE, replace=False)

    def tw(Y):
        return trustworthiness(X[sub], Y[sub], n_neighbors=10)

    print(f"the whole table, {X.shape[0]:,} rows (trustworthiness on {TRUST_SAMPLE:,} of them):", flush=True)
    cold = not umap_is_warm()
    t0 = time.perf_counter()
    first = umap_map(X, 2, 0)
    first_s = time.perf_counter() - t0
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        y_umap = umap_map(X, 2, 0).coords
        runs.append(time.perf_counter() - t0)
    assert np.array_equal(first.coords, y_umap), "a seeded UMAP map must be the same twice"
    print(f"  UMAP (umap-learn, cosine, {UMAP_EPOCHS} epochs, PCA start, seed 0)  median {median(runs):5.1f} s of "
          f"{repeats}, trustworthiness {tw(y_umap):.3f}; first call {first_s:.1f} s"
          + (" (numba compiling)" if cold else "") + "; the same map every time", flush=True)
    t0 = time.perf_counter()
    y_open = tsne(X, 2, 30.0, 500, 0).coords
    print(f"  openTSNE (Annoy neighbours, FFT gradient, 500 iterations)           {time.perf_counter() - t0:5.1f} s, "
          f"trustworthiness {tw(y_open):.3f} (one run)", flush=True)
    if sklearn_all:
        X50 = pca_fit(X, 50)[0]
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y_sk = TSNE(2, perplexity=30.0, max_iter=500, random_state=0, init="pca", n_jobs=2,
                        angle=BH_THETA).fit_transform(X50)
        print(f"  scikit-learn t-SNE (Barnes-Hut, 500 iterations)                    {time.perf_counter() - t0:5.1f} s, "
              f"trustworthiness {tw(y_sk):.3f} (one run)", flush=True)


def run(repeats: int = 5, tsne_points: int = 5000, tsne_repeats: int = 3, whole: bool = True,
        sklearn_all: bool = True) -> None:
    from sklearn.decomposition import PCA
    from sklearn.manifold import TSNE, trustworthiness

    emb = load("minilm-l6")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"table {emb.vocab_size:,} × {emb.d_model}")
    neighbours(emb, "cat")  # warm: the row-normalised table is computed once
    q = unit_space(emb)[resolve_ids(emb, "cat")[1][0]]  # the query of the timed neighbour searches
    t_nb = median_seconds(lambda: neighbours(emb, "cat", k=10), repeats * 10)
    t_brute = median_seconds(lambda: np.argsort(-np.array([float(r @ q) for r in unit_space(emb)[:3000]])), 3)
    t_scores = median_seconds(lambda: scores(emb, q), repeats * 10)
    print(f"neighbour query (cosine, k=10, whole table): median {t_nb * 1e3:.2f} ms "
          f"(matrix-vector product alone {t_scores * 1e3:.2f} ms; a Python loop over rows would take "
          f"{t_brute / 3000 * emb.vocab_size * 1e3:.0f} ms, {t_brute / 3000 * emb.vocab_size / t_nb:.0f}× slower)")

    X = emb.token_table
    t_ours = median_seconds(lambda: pca(X, (0, 1)), repeats)
    t_sk = median_seconds(lambda: PCA(2, svd_solver="full").fit_transform(X), repeats)
    print(f"PCA of the whole {X.shape[0]:,} × {X.shape[1]} table: ours (covariance eigh) median {t_ours:.2f} s, "
          f"scikit-learn full SVD {t_sk:.2f} s, ratio {t_sk / t_ours:.1f}×")

    sample = build_sample(emb, tsne_points, ("cat",), seed=0)
    S = emb.token_table[sample.ids]
    S50 = pca_fit(S, 50)[0]
    runs_open, runs_sk = [], []
    for _ in range(tsne_repeats):  # alternate the two so that machine noise hits both alike
        t0 = time.perf_counter()
        y_open = tsne(S, 2, 30.0, 500, 0).coords
        runs_open.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        y_sk = TSNE(2, perplexity=30.0, max_iter=500, random_state=0, init="pca", n_jobs=2,
                    angle=BH_THETA).fit_transform(S50)
        runs_sk.append(time.perf_counter() - t0)
    t_open, t_skt = median(runs_open), median(runs_sk)
    tw_open = trustworthiness(S, y_open, n_neighbors=10)
    tw_sk = trustworthiness(S, y_sk, n_neighbors=10)
    print(f"t-SNE of {len(sample):,} points (PCA-50 input, 500 iterations, Barnes-Hut angle {BH_THETA}, "
          f"median of {tsne_repeats} runs each):")
    print(f"  openTSNE Barnes-Hut   {t_open:6.1f} s   trustworthiness {tw_open:.3f}   (used by the app)")
    print(f"  scikit-learn BH       {t_skt:6.1f} s   trustworthiness {tw_sk:.3f}")
    print(f"  ratio scikit-learn / openTSNE: {t_skt / t_open:.2f}×")
    if whole:
        whole_table(emb, 3, sklearn_all)
