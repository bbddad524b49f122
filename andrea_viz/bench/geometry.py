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

from ..geometry import neighbors, resolve_ids, scores
from ..loading import load
from ..projection import BH_THETA, build_sample, pca, pca_fit, tsne
from .timer import median_seconds


def run(repeats: int = 5, tsne_points: int = 5000, tsne_repeats: int = 3) -> None:
    from sklearn.decomposition import PCA
    from sklearn.manifold import TSNE, trustworthiness

    emb = load("minilm-l6")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"table {emb.vocab_size:,} × {emb.d_model}")
    neighbors(emb, "cat")  # warm: the row-normalised table is computed once
    q = emb.unit_table[resolve_ids(emb, "cat")[1][0]]  # the query of the timed neighbour searches
    t_nb = median_seconds(lambda: neighbors(emb, "cat", k=10), repeats * 10)
    t_brute = median_seconds(lambda: np.argsort(-np.array([float(r @ q) for r in emb.unit_table[:3000]])), 3)
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
