"""Exact PCA (scikit-learn), the first of every map's steps: the PCA map, and the reduction t-SNE and a large
UMAP map run on."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ..errors import QueryError
from ..i18n import Msg
from ..model import f32
from .layout import Projection

PCA_INPUT_DIMS = 50  # t-SNE's usual first step: the first 50 exact principal components
PCA_EXACT_MAX_DIMS = 1_024  # wider tables: scikit-learn's randomized SVD instead of the (d, d) covariance
PCA_FIT_ROWS = 32_768  # a map of more points than UMAP_PCA_FIRST fits its PCA on a seeded sample of this many rows


def pca_solver(d: int) -> str:
    """scikit-learn's PCA solver for a table d wide: the exact eigen-decomposition of the (d, d) covariance up
    to PCA_EXACT_MAX_DIMS, its randomized SVD above (the covariance would cost d² memory and d³ time)."""
    return "covariance_eigh" if d <= PCA_EXACT_MAX_DIMS else "randomized"


def _sk_pca(X: np.ndarray, n_components: int):
    """scikit-learn's PCA for rows like X (solver ``pca_solver(d)``, seeded) and X in the dtype it runs in: float64
    for the exact solver, float32 for the randomized one."""
    from sklearn.decomposition import PCA

    solver = pca_solver(X.shape[1])
    return (PCA(n_components, svd_solver=solver, random_state=0),
            X.astype(np.float64 if solver == "covariance_eigh" else np.float32))


def pca_fit(X: np.ndarray, n_components: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """scikit-learn's PCA (solver: ``pca_solver(d)``; seeded, so the randomized one repeats): the exact one in
    float64, the randomized one in float32 (an approximation already; float32 halves the bytes each of its
    passes reads, about 4× faster on 5,000 × 4,096 rows, coordinates within 1e-4 of float64's).

    Returns (coords (N, k) float32, components (k, d), explained_variance_ratio (k,), mean (d,)); the largest
    |loading| of each component is positive.
    """
    fit, X = _sk_pca(X, n_components)
    coords = fit.fit_transform(X)
    return coords.astype(np.float32), fit.components_, fit.explained_variance_ratio_, fit.mean_


def pca_fit_sampled(X: np.ndarray, n_components: int, rows: int = PCA_FIT_ROWS, seed: int = 0,
                    progress: Callable[[float], None] | None = None) -> np.ndarray:
    """(N, k) float32: every row on the first k principal components of a seeded sample of ``rows`` of them (of all
    rows when there are no more): the PCA that reduces a large map's points before UMAP. Its fit costs what the
    sample costs (a 128,256 × 4,096 table: 5.5 s instead of 15.8 s, and the 50 components of 32,768 rows keep
    99.9% of the variance the whole table's keep); every row is then projected a block at a time
    (``progress(fraction)`` after the fit and after each block)."""
    if X.shape[0] <= rows:
        return pca_fit(X, n_components)[0]
    pick = np.sort(np.random.default_rng(seed).choice(X.shape[0], rows, replace=False))
    fit, sample = _sk_pca(X[pick], n_components)
    fit.fit(sample)
    report = progress or (lambda f: None)
    report(0.5)
    comps, mean = fit.components_.astype(np.float32), fit.mean_.astype(np.float32)
    out = np.empty((X.shape[0], n_components), np.float32)
    step = max(1, 2**24 // X.shape[1])  # rows per block: 64 MB of float32
    for s in range(0, X.shape[0], step):
        out[s:s + step] = (f32(X[s:s + step]) - mean) @ comps.T
        report(0.5 + 0.5 * min(X.shape[0], s + step) / X.shape[0])
    return out


def pca(X: np.ndarray, axes: tuple[int, ...] = (0, 1)) -> Projection:
    """PCA coordinates on the chosen components (0-based), with each one's explained variance."""
    t = time.perf_counter()
    if max(axes) >= min(X.shape):
        raise QueryError("component {c} does not exist: at most {most} for this sample", c=max(axes) + 1, most=min(X.shape))
    coords, _, ratio, _ = pca_fit(X, max(axes) + 1)
    note = (Msg("scikit-learn's PCA, exact: the eigenvectors of the {d:,} × {d:,} covariance", d=X.shape[1])
            if pca_solver(X.shape[1]) == "covariance_eigh" else
            Msg("scikit-learn's PCA by randomized SVD: {d:,} dimensions are too many for an exact covariance",
                d=X.shape[1]))
    return Projection(coords[:, list(axes)], "pca", ratio[list(axes)], time.perf_counter() - t, note)
