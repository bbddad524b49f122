"""t-SNE maps: openTSNE's Barnes-Hut with exact affinities up to TSNE_EXACT_MAX points, then approximate
neighbours (Annoy) and the FFT gradient; on the first PCA_INPUT_DIMS exact principal components."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import numpy as np

from ..errors import QueryError
from ..i18n import Msg
from .layout import Projection
from .pca import PCA_INPUT_DIMS, pca_fit

BH_THETA = 0.8  # Barnes-Hut accuracy: 0.8 is 1.4x faster than 0.5 at the same trustworthiness (bench-geometry)
TSNE_EXACT_MAX = 10_000  # above this, t-SNE's affinities use approximate neighbours and an FFT gradient
CPU_JOBS = max(1, min(2, os.cpu_count() or 1))


PERPLEXITY = 30.0  # the default, the Projection page's too


def tsne_fits(n: int, perplexity: float = PERPLEXITY) -> bool:
    """Whether t-SNE maps ``n`` points at ``perplexity`` (at least 5 points; perplexity from 2 to under a third)."""
    return n >= 5 and 2 <= perplexity < n / 3


def tsne(X: np.ndarray, dims: int = 2, perplexity: float = PERPLEXITY, n_iter: int = 500, seed: int = 0,
         progress: Callable[[float, Msg], None] | None = None) -> Projection:
    """openTSNE on the first 50 exact principal components: exact affinities and Barnes-Hut (θ = 0.8) up to
    TSNE_EXACT_MAX points, approximate neighbours (Annoy) and the FFT gradient above.

    The first half of n_iter (at most 250) is early exaggeration. ``progress(fraction, text)`` is
    called as the layout improves.
    """
    from openTSNE import TSNEEmbedding, affinity, initialization

    n = X.shape[0]
    if n < 5:
        raise QueryError("t-SNE needs at least 5 points, got {n}", n=n)
    if not tsne_fits(n, perplexity):
        raise QueryError("perplexity must be between 2 and a third of the points ({most:.0f}); got {perplexity}",
                         most=n / 3, perplexity=perplexity)
    if n_iter < 50:
        raise QueryError("t-SNE needs at least 50 iterations, got {n}", n=n_iter)
    t = time.perf_counter()
    report = progress or (lambda f, s: None)
    exact = n <= TSNE_EXACT_MAX
    X50 = pca_fit(X, min(PCA_INPUT_DIMS, *X.shape))[0].astype(np.float64)
    report(0.02, Msg("neighbours in the full space"))
    aff = affinity.PerplexityBasedNN(X50, perplexity=perplexity, method="exact" if exact else "annoy", n_jobs=CPU_JOBS,
                                     random_state=seed)
    init = initialization.pca(X50, n_components=dims, random_state=seed)
    ee = min(250, n_iter // 2)
    offset = [0]  # iterations finished in earlier phases

    def cb(iteration: int, error: float, embedding) -> bool:
        done = offset[0] + iteration + 1
        report(min(0.05 + 0.95 * done / n_iter, 1.0), Msg("iteration {done} of {n}, KL {kl:.3f}", done=done, n=n_iter,
                                                           kl=error))
        return False

    callbacks = {"callbacks": cb, "callbacks_every_iters": 50} if progress else {}
    gradient = {"negative_gradient_method": "bh", "theta": BH_THETA} if exact else {"negative_gradient_method": "fft"}
    result = TSNEEmbedding(init, aff, n_jobs=CPU_JOBS, random_state=seed, **gradient, **callbacks)
    result = result.optimize(n_iter=ee, exaggeration=12, momentum=0.5)
    offset[0] = ee
    result = result.optimize(n_iter=n_iter - ee, momentum=0.8)
    report(1.0, Msg("iteration {done} of {n}", done=n_iter, n=n_iter))
    note = (Msg("openTSNE, Barnes-Hut (θ = {theta}), on the first {k} exact principal components", theta=BH_THETA,
                k=min(PCA_INPUT_DIMS, *X.shape)) if exact else
            Msg("openTSNE, approximate neighbours (Annoy) and the FFT gradient, on the first {k} exact principal "
                "components", k=min(PCA_INPUT_DIMS, *X.shape)))
    return Projection(np.asarray(result, dtype=np.float32), "tsne", None, time.perf_counter() - t, note)
