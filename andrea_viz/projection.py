"""Trained vectors in 2-D or 3-D: exact PCA, t-SNE and UMAP, a sample that keeps the words asked for (or
the whole table), and a trust score for how much of each point's neighbourhood survives the projection.

Method choices (``python -m andrea_viz bench-geometry`` prints today's times and trust scores): t-SNE is
openTSNE's Barnes-Hut with exact affinities up to TSNE_EXACT_MAX points, then approximate neighbours (Annoy)
and the FFT gradient; UMAP is umap-learn on the cosine metric with 120 epochs from a PCA start, which keeps
about the trustworthiness of its default 200 epochs in clearly less time once numba has compiled. With a
seed, umap-learn runs single-threaded, which makes it reproducible. A UMAP map of more than
``map_process.CHILD_ABOVE`` points is laid out in a child process, one at a time per server (``map_process``), so
that umap-learn's epochs never hold the server's interpreter lock.
"""

from __future__ import annotations

import functools

import contextlib
import io
import json
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .errors import QueryError
from .geometry import nearest_in, neighbours, resolve_ids
from .i18n import N_, Msg, tr
from .knn import cell_knn_graph, knn_graph, umap_knn
from .map_cache import cache_dir, fingerprint, load_map, map_key, save_map
from .model import Embeddings, f32, gather_rows
from .neighbours import Found, argkmin
from . import map_process, umap_compile

WORD_GROUPS: dict[str, list[str]] = {
    "animals": ["cat", "dog", "horse", "cow", "pig", "sheep", "lion", "tiger", "bear", "wolf", "fox", "rabbit",
                "mouse", "elephant", "monkey", "bird", "fish", "snake", "kitten", "puppy"],
    "weekdays": ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"],
    "months": ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
               "november", "december"],
    "numbers": ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "hundred", "thousand"],
    "colours": ["red", "blue", "green", "yellow", "black", "white", "orange", "purple", "pink", "brown", "grey"],
    "countries": ["france", "germany", "italy", "spain", "china", "japan", "india", "canada", "brazil", "mexico",
                  "russia", "england"],
    "family": ["mother", "father", "sister", "brother", "son", "daughter", "uncle", "aunt", "wife", "husband"],
}
# a sample's groups are these keys (and "neighbour of <word>"); the legend names them in the reader's language
GROUP_NAMES = {"animals": N_("animals"), "weekdays": N_("weekdays"), "months": N_("months"), "numbers": N_("numbers"),
               "colours": N_("colours"), "countries": N_("countries"), "family": N_("family"), "query": N_("query"),
               "included": N_("included"), "other": N_("other")}
NEIGHBOUR_OF = "neighbour of "
ALL = "all"  # n = "all": every row of the table
BH_THETA = 0.8  # Barnes-Hut accuracy: 0.8 is 1.4x faster than 0.5 at the same trustworthiness (bench-geometry)
DEFAULT_SAMPLE = 5_000  # tokens in a map unless asked otherwise
TSNE_EXACT_MAX = 10_000  # above this, t-SNE's affinities use approximate neighbours and an FFT gradient
PCA_INPUT_DIMS = 50  # t-SNE's usual first step: the first 50 exact principal components
PCA_EXACT_MAX_DIMS = 1_024  # wider tables: scikit-learn's randomized SVD instead of the (d, d) covariance
UMAP_EPOCHS = 120
UMAP_NEIGHBOURS = 15
PCA_FIT_ROWS = 32_768  # a map of more points than UMAP_PCA_FIRST fits its PCA on a seeded sample of this many rows
UMAP_ALL_DISTANCES_BELOW = 4_096  # umap-learn's own rule: below this many points it computes every distance itself
TRUST_K = 10  # neighbours whose survival the trust score counts
TRUST_SAMPLE = 5_000  # above this many points, trust is computed on a seeded sample of them
LARGE_MAP = 50_000  # above this many points the browser may draw slowly: warn, then go on
UMAP_PCA_FIRST = 50_000  # up to this many points UMAP runs on the table itself and its exact neighbour graph
# (``knn_graph``); above, on the first PCA_INPUT_DIMS principal components and the approximate ``cell_knn_graph``
# the most points each method maps here (2 cores): beyond, a map is refused before it starts (a sample, or PCA)
MOST_POINTS = {"tsne": 50_000, "umap": 300_000}
# A map's neighbour graph: each point's GRAPH_K nearest by cosine among the map's points (exact), searched once and
# kept with the map (``ProjectionResult.neighbour_graph``). UMAP's graph takes its first UMAP_NEIGHBOURS − 1, the
# labels' clusters (``clusters.CLUSTER_K``) its 15, the trust score and the lines its first TRUST_K.
GRAPH_K = 15
GRAPH_MAX = UMAP_PCA_FIRST  # larger maps keep no exact graph (UMAP's is approximate there, and the labels refuse)
CPU_JOBS = max(1, min(2, os.cpu_count() or 1))


@dataclass(frozen=True)
class Sample:
    """Which rows are projected, and the group each one is drawn in."""

    ids: np.ndarray  # (N,) int64, unique
    groups: tuple[str, ...]  # (N,) "query", "neighbour of …", a word group, or "other"

    def __len__(self) -> int:
        return int(self.ids.size)


def group_ids(emb: Embeddings) -> dict[str, list[int]]:
    """The words of each group that are one token in this model (multi-piece words are left out)."""
    out: dict[str, list[int]] = {}
    for name, words in WORD_GROUPS.items():
        ids = []
        for w in words:
            try:
                _, i = resolve_ids(emb, w)
            except QueryError:
                continue
            if len(i) == 1:
                ids.append(i[0])
        if ids:
            out[name] = ids
    return out


def group_label(group: str, escape=None) -> str:
    """A sample's group as the legend names it, in the current language; ``escape`` (e.g. ``safe_text.plot``) is
    applied to the label's text, and to the typed word of "neighbour of …" before it is placed in the sentence."""
    if group.startswith(NEIGHBOUR_OF):
        return tr(Msg("neighbour of {word}", word=group[len(NEIGHBOUR_OF):]), escape=escape)
    label = tr(GROUP_NAMES.get(group, group))
    return escape(label) if escape is not None else label


def sample_size(emb: Embeddings, n: int | str) -> int:
    """n rows, or every row for ``"all"``."""
    if n == ALL:
        return emb.vocab_size
    if not isinstance(n, int | np.integer) or isinstance(n, bool):
        raise QueryError("the sample size must be a whole number or all, got '{n}'", n=n)
    return int(n)


def build_sample(emb: Embeddings, n: int | str, include: tuple[str, ...] = (), seed: int = 0, k: int = 10) -> Sample:
    """N rows: the included words (the first is the query) and its k neighbours, the word groups,
    then a random fill. The words asked for are always kept, even when N is smaller."""
    n = sample_size(emb, n)
    if n < 1:
        raise QueryError("the sample size must be at least 1, got {n}", n=n)
    chosen: dict[int, str] = {}
    for j, word in enumerate(include):
        _, ids = resolve_ids(emb, word)
        for i in ids:
            chosen.setdefault(i, "query" if j == 0 else "included")
        if j == 0:
            for nb in neighbours(emb, word, k=k)[1]:
                chosen.setdefault(nb.id, NEIGHBOUR_OF + word)
    for name, ids in group_ids(emb).items():
        for i in ids:
            chosen.setdefault(i, name)
    n = max(n, len(chosen))
    if n > len(chosen):
        rng = np.random.default_rng(seed)
        rest = np.setdiff1d(np.arange(emb.vocab_size), np.fromiter(chosen, np.int64), assume_unique=False)
        for i in rng.choice(rest, size=min(n - len(chosen), rest.size), replace=False):
            chosen[int(i)] = "other"
    ids = np.fromiter(chosen, dtype=np.int64)
    return Sample(ids=ids, groups=tuple(chosen.values()))


@dataclass(frozen=True)
class Projection:
    coords: np.ndarray  # (N, dims) float32
    method: str
    explained_variance_ratio: np.ndarray | None  # PCA: the share of variance of each component shown
    seconds: float
    note: Msg | None = None
    graph: Found | None = field(default=None, compare=False, repr=False)  # the map's neighbour graph, when searched


def map_graph(X: np.ndarray, progress: Callable[[float], None] | None = None) -> Found:
    """The neighbour graph of a map's points X (N, d): each point's GRAPH_K nearest others by cosine, exact
    (``neighbours.argkmin``)."""
    return argkmin(f32(X), GRAPH_K, progress=progress)


def umap_takes_graph(n: int) -> bool:
    """Whether a UMAP map of n points runs on the exact graph of its points (below UMAP_ALL_DISTANCES_BELOW
    umap-learn computes every distance itself; above UMAP_PCA_FIRST the graph is approximate, cell by cell)."""
    return UMAP_ALL_DISTANCES_BELOW <= n <= UMAP_PCA_FIRST


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


def tsne(X: np.ndarray, dims: int = 2, perplexity: float = 30.0, n_iter: int = 500, seed: int = 0,
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
    if not 2 <= perplexity < n / 3:
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


_warm_thread: dict = {"thread": None}  # with the disk cache off: the in-process warm-up of before
_warm_lock = threading.Lock()


def umap_is_warm() -> bool:
    """True once umap-learn's numba code is compiled in this process, or on this machine's disk (a process then
    loads it in about a second: ``umap_compile``)."""
    return umap_compile.compiled_here() or umap_compile.compiled_on_disk()


def warm_umap(background: bool = True) -> None:
    """Have umap-learn's numba code compiled. With the disk cache on: in a process of its own at the lowest
    priority (``background``, once per machine; the server does this when it starts), or here and now. With
    ``ANDREA_VIZ_CACHE_DIR=off``: in a thread of this process (numba holds the interpreter lock while it
    compiles, so pages wait meanwhile), or here and now."""
    if umap_compile.numba_folder() is not None:
        if background:
            umap_compile.start_compile_process()
        else:
            umap_compile.compile_all()
        return
    umap_compile.enable_disk_cache()  # imports umap-learn (and pandas under it) in this thread, before any other
    with _warm_lock:
        if umap_compile.compiled_here():
            return
        if _warm_thread["thread"] is None:
            _warm_thread["thread"] = threading.Thread(target=umap_compile.compile_all, name="umap-warm-up", daemon=True)
            _warm_thread["thread"].start()
        thread = _warm_thread["thread"]
    if not background:
        thread.join()


class _UmapProgress:
    """Where umap-learn's verbose output goes during a map, read a line at a time (``print`` writes its pieces one
    by one; tqdm redraws its bar after a carriage return): its two stages are said, and the epochs (tqdm's "
    54/120 [", or "completed 48 / 120 epochs") move the bar from 35% to 95%; the rest is dropped."""

    STAGES = ((re.compile(r"Construct fuzzy simplicial set"),
               (0.3, Msg("UMAP's fuzzy graph: each point joined to its neighbours"))),
              (re.compile(r"Construct embedding"), (0.35, Msg("laying out: from a PCA start"))))
    EPOCHS = (re.compile(r"(?<![\d/])(\d+)/(\d+) \["), re.compile(r"completed\s+(\d+)\s*/\s*(\d+)\s+epochs"))

    def __init__(self, report: Callable[[float, Msg], None]):
        self.report = report
        self.pending = ""

    def write(self, text: str) -> None:
        *done, self.pending = re.split(r"[\r\n]", self.pending + text)
        for line in done:
            self._read(line)
        if self.EPOCHS[0].search(self.pending):  # a tqdm bar is written whole: read it before its next redraw
            self._read(self.pending)
            self.pending = ""

    def _read(self, line: str) -> None:
        for pattern, (fraction, say) in self.STAGES:
            if pattern.search(line):
                self.report(fraction, say)
                return
        for pattern in self.EPOCHS:
            found = pattern.search(line)
            if found:
                done, total = (int(x) for x in found.groups())
                if total:
                    self.report(0.35 + 0.6 * done / total, Msg("laying out: epoch {done} of {total}", done=done,
                                                               total=total))
                return

    def flush(self) -> None:
        pass


def _umap_run(X: np.ndarray, report, *, dims: int, seed: int, exact: bool, pca_first: bool,
              knn: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """The UMAP of ``X`` (after the PCA to ``PCA_INPUT_DIMS`` when ``pca_first``): what a map's child process runs,
    or the server itself for a small map. ``knn``: the exact graph, searched already."""
    return umap_layout(reduce_first(X, seed, report) if pca_first else np.asarray(X), dims, seed, report, exact, knn)


def umap_map(X: np.ndarray, dims: int = 2, seed: int = 0, progress: Callable[[float, Msg], None] | None = None,
             in_child: bool | None = None, graph: Found | None = None) -> Projection:
    """umap-learn, cosine metric, 120 epochs from a PCA start, seeded (single-threaded, so reproducible); up to
    UMAP_PCA_FIRST points on the exact neighbour graph (``knn.knn_graph``), above on the approximate one
    (``knn.cell_knn_graph``) over the first PCA_INPUT_DIMS principal components (as t-SNE always is); umap-learn's
    own search (pynndescent's NN-descent) is never used. ``progress(fraction, text)``: the stages, the graph's
    blocks, then every epoch.

    Above ``map_process.CHILD_ABOVE`` points (``in_child`` None), or when ``in_child`` says so, the layout runs in a
    child process, one at a time per server (``map_process``), the PCA first included: umap-learn's epochs and parts
    of scikit-learn's PCA hold the interpreter's lock, which in the server stalls every other page.

    The exact graph is the map's neighbour graph (``map_graph``): searched here, before any child starts, unless
    ``graph`` is given, and returned with the projection, so that the trust, the labels and the lines slice it."""
    n = X.shape[0]
    if n <= UMAP_NEIGHBOURS:
        raise QueryError("UMAP needs more than {k} points, got {n}", k=UMAP_NEIGHBOURS, n=n)
    t = time.perf_counter()
    report = progress or (lambda f, s: None)
    if not umap_compile.wait_for_compile_process(lambda: report(0.02, Msg("UMAP's code is compiling in the "
                                                                           "background: once per machine"))) \
            and not umap_is_warm():
        report(0.02, Msg("compiling UMAP's numba code: once per machine"))
    n_dims = X.shape[1]
    pca_first = n > UMAP_PCA_FIRST and n_dims > PCA_INPUT_DIMS
    exact = n <= UMAP_PCA_FIRST
    if umap_takes_graph(n) and graph is None:
        report(0.1, Msg("nearest neighbours in the full space"))
        graph = map_graph(X, progress=lambda f: report((1 + 2 * f) / 10, Msg("nearest neighbours in the full space "
                                                                             "(exact): {f:.0%}", f=f)))
    knn = umap_knn(graph, UMAP_NEIGHBOURS) if umap_takes_graph(n) else None
    run = functools.partial(_umap_run, dims=dims, seed=seed, exact=exact, pca_first=pca_first, knn=knn)
    coords = map_process.layout_in_child(X, run, report) if (map_process.CHILD_ABOVE < n if in_child is None
                                                              else in_child) else run(X, report)
    report(1.0, Msg("done"))
    if exact:
        note = Msg("umap-learn, cosine metric, {k} neighbours found exactly, {epochs} epochs from a PCA start, seed "
                   "{seed}", k=UMAP_NEIGHBOURS, epochs=UMAP_EPOCHS, seed=seed)
    elif n_dims <= PCA_INPUT_DIMS:  # no PCA first
        note = Msg("umap-learn, cosine metric, {k} neighbours found approximately (cell by cell), {epochs} epochs "
                   "from a PCA start, seed {seed}",
                   k=UMAP_NEIGHBOURS, epochs=UMAP_EPOCHS, seed=seed)
    else:
        note = Msg("umap-learn on the first {d} principal components of {rows:,} of the points ({n:,} are more than "
                   "{most:,}), cosine metric, {k} neighbours found approximately (cell by cell), {epochs} epochs from a "
                   "PCA start, seed {seed}",
                   d=PCA_INPUT_DIMS, rows=min(n, PCA_FIT_ROWS), n=n, most=UMAP_PCA_FIRST, k=UMAP_NEIGHBOURS,
                   epochs=UMAP_EPOCHS, seed=seed)
    return Projection(np.asarray(coords, dtype=np.float32), "umap", None, time.perf_counter() - t, note, graph)


def reduce_first(X: np.ndarray, seed: int, report: Callable[[float, Msg], None]) -> np.ndarray:
    """A large map's points on their first PCA_INPUT_DIMS principal components (``pca_fit_sampled``), the bar moved
    from 3% to 10% as it goes."""
    report(0.03, Msg("PCA to {k} dimensions first", k=PCA_INPUT_DIMS))
    return pca_fit_sampled(X, PCA_INPUT_DIMS, seed=seed,
                           progress=lambda f: report(0.03 + 0.07 * f, Msg("PCA to {k} dimensions first",
                                                                          k=PCA_INPUT_DIMS)))


def umap_layout(X: np.ndarray, dims: int, seed: int, report: Callable[[float, Msg], None], exact: bool,
                knn: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """UMAP's part of ``umap_map`` (in the server, or in its child process): the neighbour graph (``knn`` when
    given; else ``exact``: every cosine, or cell by cell), then umap-learn's fuzzy graph and layout. Returns (N, dims)
    coordinates."""
    import warnings

    n = X.shape[0]
    umap_compile.enable_disk_cache()  # after the server's compiling process ended: its code is on disk now
    import umap

    report(0.1, Msg("nearest neighbours in the full space"))
    graph = {}
    if knn is not None:
        graph["precomputed_knn"] = knn
    elif exact and n >= UMAP_ALL_DISTANCES_BELOW:  # below, umap-learn computes every distance itself
        graph["precomputed_knn"] = knn_graph(
            X, UMAP_NEIGHBOURS, progress=lambda f: report((1 + 2 * f) / 10, Msg("nearest neighbours in the full space "
                                                                               "(exact): {f:.0%}", f=f)))
    elif n >= UMAP_ALL_DISTANCES_BELOW:
        graph["precomputed_knn"] = cell_knn_graph(
            X, UMAP_NEIGHBOURS, seed=seed, progress=lambda f: report((1 + 2 * f) / 10, Msg(
                "nearest neighbours (approximate, cell by cell): {f:.0%}", f=f)))
    with warnings.catch_warnings():  # "n_jobs overridden by setting random_state": the price of reproducibility
        warnings.simplefilter("ignore")
        sink = _UmapProgress(report)
        model = umap.UMAP(n_components=dims, metric="cosine", n_neighbors=UMAP_NEIGHBOURS, n_epochs=UMAP_EPOCHS,
                          init="pca", random_state=seed, verbose=True,
                          tqdm_kwds={"file": sink, "mininterval": 0.25}, **graph)
        with contextlib.redirect_stdout(sink):  # verbose prints: epoch counts, read for progress
            coords = model.fit_transform(X)
    umap_compile.compiled_now()
    return np.asarray(coords, dtype=np.float32)


@dataclass(frozen=True)
class Method:
    """One way to draw a map: its label (a msgid), the name of its axes ("PC" → PC1, PC2), the function that
    makes it, the settings it reads (besides the sample, its seed and dims, which every method uses), and
    its title."""

    label: str
    axis: str
    run: Callable[..., Projection]  # run(X, dims=, seed=, progress=, **the settings it uses)
    uses: tuple[str, ...]
    title: Callable[[Projection, dict], Msg]

    def axes(self, dims: int) -> list[str]:
        return [f"{self.axis}{j}" for j in range(1, dims + 1)]


def _pca_title(proj: Projection, s: dict) -> Msg:
    axes = [Msg("PC{k} ({r:.1%} of variance)", k=a + 1, r=float(r))  # its own statement: Babel's extraction
            for a, r in zip(s["axes"], proj.explained_variance_ratio, strict=False)]  # skips a nested Msg
    return Msg("PCA: {axes}", axes=", ".join(tr(m) for m in axes))


METHODS: dict[str, Method] = {
    "pca": Method(N_("PCA"), "PC", lambda X, axes, **_: pca(X, axes), ("axes",), _pca_title),
    "tsne": Method("t-SNE", "t-SNE ", tsne, ("perplexity", "n_iter"),
                   lambda p, s: Msg("t-SNE, perplexity {p}, {n} iterations, seed {seed}", p=s["perplexity"],
                                    n=s["n_iter"], seed=s["seed"])),
    "umap": Method("UMAP", "UMAP ", umap_map, (), lambda p, s: Msg("UMAP, seed {seed}", seed=s["seed"])),
}
SHARED_SETTINGS = ("n", "include", "seed", "dims")  # what every map depends on: the sample and its size


def method_of(name: str) -> Method:
    if name not in METHODS:
        raise QueryError("method must be one of {allowed}; got '{method}'", allowed=", ".join(METHODS), method=name)
    return METHODS[name]


def check_map_size(method: str, points: int) -> None:
    """Refuse, before anything starts, a map of more points than the method maps here (MOST_POINTS), with what
    would work instead: a sample of at most that many, or PCA (any size; UMAP and t-SNE above a size run on PCA
    first)."""
    most = MOST_POINTS.get(method)
    if most is not None and points > most:
        raise QueryError("{method} maps at most {most:,} points here and this map has {n:,}: choose a sample of at "
                         "most {most:,} tokens, or PCA, which maps any number (UMAP runs on the first {k} principal "
                         "components above {pca_first:,} points).", method=METHODS[method].label, most=most, n=points,
                         k=PCA_INPUT_DIMS, pca_first=UMAP_PCA_FIRST)


def settings_for(method: str, **settings) -> dict:
    """Only the settings a method reads (and the shared ones): the cache key of its map, so that a t-SNE
    setting never recomputes a UMAP map. PCA's axes are cut to ``dims``."""
    m = method_of(method)
    out = {k: settings[k] for k in (*SHARED_SETTINGS, *m.uses) if k in settings}
    if "axes" in out:
        out["axes"] = tuple(out["axes"])[: out.get("dims", 2)]
    return out


def trust_scores(X: np.ndarray, Y: np.ndarray, k: int = TRUST_K, max_points: int = TRUST_SAMPLE,
                 seed: int = 0, graph: Found | None = None) -> tuple[np.ndarray, float]:
    """Per point: the share of its k nearest neighbours in the full space (by cosine, as everywhere in the
    app) that stay among its k nearest in the map. Above ``max_points`` a seeded subset is scored
    (neighbours within that subset) and the others get NaN. Returns (scores (N,), mean).

    ``graph``: the map's neighbour graph (``map_graph`` of X), sliced instead of searching the full space again
    (up to ``max_points`` points: above, the subset's own neighbours are searched)."""
    n = X.shape[0]
    if n <= k:
        raise QueryError("a trust score with k = {k} needs more than {k} points, got {n}", k=k, n=n)
    idx = np.arange(n) if n <= max_points else np.sort(np.random.default_rng(seed).choice(n, max_points, replace=False))
    whole = graph is not None and n <= max_points and graph.ids.shape[1] >= k
    a = graph.ids[:, :k] if whole else argkmin(f32(X[idx]), k).ids
    b = argkmin(Y[idx], k, metric="euclidean").ids
    kept = ((a[:, :, None] == b[:, None, :]) & (a[:, :, None] >= 0)).any(axis=2).sum(axis=1) / k
    out = np.full(n, np.nan)
    out[idx] = kept
    return out, float(kept.mean())


def projector_tsv(vectors: np.ndarray, tokens: list[str], ids: np.ndarray, groups: tuple[str, ...]) -> tuple[str, str]:
    """The TensorFlow Embedding Projector's two files: vectors.tsv (no header, one row per
    vector) and metadata.tsv (a header, then token, id, group)."""
    buf = io.StringIO()
    np.savetxt(buf, vectors, delimiter="\t", fmt="%.6g")
    return buf.getvalue(), projector_metadata(tokens, ids, groups)


def projector_metadata(tokens: list[str], ids: np.ndarray, groups: tuple[str, ...]) -> str:
    """metadata.tsv: a header, then token, id, group (tabs and newlines in tokens become spaces)."""

    def clean(s: str) -> str:
        return s.replace("\t", " ").replace("\n", " ").replace("\r", " ")

    return "token\tid\tgroup\n" + "".join(f"{clean(t)}\t{i}\t{g}\n" for t, i, g in zip(tokens, ids, groups, strict=True))


def coordinates_csv(coords: np.ndarray, tokens: list[str], ids: np.ndarray, groups: tuple[str, ...],
                    sep: str = ",", trust: np.ndarray | None = None, columns: dict[str, list] | None = None) -> str:
    """id, token, group, the coordinates, (when given) each point's trust: the share of its 10 nearest
    neighbours kept in the map, empty where it was not scored, then any further ``columns`` (name → one
    value per point)."""
    import csv

    more = columns or {}
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=sep, lineterminator="\n")
    w.writerow(["id", "token", "group", *[f"x{j + 1}" for j in range(coords.shape[1])],
                *(["trust"] if trust is not None else []), *more])
    for k, (i, t, g, c) in enumerate(zip(ids, tokens, groups, coords, strict=True)):
        extra = [] if trust is None else ["" if np.isnan(trust[k]) else f"{trust[k]:.2f}"]
        w.writerow([int(i), t, g, *[f"{v:.6g}" for v in c], *extra, *(values[k] for values in more.values())])
    return buf.getvalue()


@dataclass(frozen=True)
class ProjectionResult:
    sample: Sample
    tokens: list[str]
    projection: Projection
    trust: np.ndarray  # (N,) share of 10 nearest neighbours kept, NaN where not scored
    trust_mean: float
    settings: dict = field(default_factory=dict)  # what the map was drawn with: settings_for(method, …)
    from_cache: bool = False  # read from the map cache on disk (map_cache), not computed in this process
    kept: dict = field(default_factory=lambda: {"lock": threading.Lock()}, compare=False, repr=False)  # the graph

    def neighbour_graph(self, emb: Embeddings, compute: bool = True) -> Found | None:
        """The map's neighbour graph (``map_graph`` of its points in d dimensions): searched once, when the map
        was made (UMAP's, or the trust's) or on the first call here (a map read from the cache), and kept with the
        map; the trust, the labels and the lines slice it. None for a map of more than GRAPH_MAX points, or when
        it is not searched yet and ``compute`` is False."""
        if len(self.sample) > GRAPH_MAX:
            return None
        with self.kept["lock"]:
            if "graph" not in self.kept and compute:
                self.kept["graph"] = map_graph(gather_rows(emb.token_table, self.sample.ids))
            return self.kept.get("graph")

    def graph_ids(self, emb: Embeddings) -> np.ndarray | None:
        """(N, GRAPH_K) the ids (positions in the sample) of the map's neighbour graph, or None above GRAPH_MAX."""
        graph = self.neighbour_graph(emb)
        return None if graph is None else graph.ids

    @property
    def title(self) -> Msg:
        """The map's title: PCA's components and their variance, or the method's settings."""
        return METHODS[self.projection.method].title(self.projection, self.settings)

    def position_of(self, text: str) -> int | None:
        """Where a token (``"cat"``) or an id (``"#4937"``) sits in the sample, or None when it is not in it."""
        wanted = int(text[1:]) if text.startswith("#") and text[1:].isascii() and text[1:].isdigit() else None
        if wanted is not None:
            hit = np.flatnonzero(self.sample.ids == wanted)
        else:
            hit = [k for k, t in enumerate(self.tokens) if t == text][:1]
        return int(hit[0]) if len(hit) else None

    def true_nearest(self, emb: Embeddings, index: int, k: int = TRUST_K) -> np.ndarray:
        """Positions in the sample of the k points nearest to point ``index`` in the full d dimensions (by
        cosine, as the trust score counts them): the lines a map draws to show what it tore apart. A row of the map's
        neighbour graph (searched now for a map of up to TRUST_SAMPLE points read from the cache); for a larger map
        whose graph was not searched, one product over the table."""
        graph = self.neighbour_graph(emb, compute=len(self.sample) <= TRUST_SAMPLE)
        if graph is not None and k <= graph.ids.shape[1]:
            row = graph.ids[index, :k]
            return row[row >= 0]
        return nearest_in(emb.token_table, self.sample.ids, index, k, emb.row_norms)  # the lengths kept per model


def _note_json(note: Msg | None) -> dict | None:
    return None if note is None else {"msgid": note.msgid, "params": note.params}


def _note_of(saved: dict | None) -> Msg | None:
    return None if not saved else Msg(str(saved["msgid"]), **dict(saved.get("params") or {}))


def _import_ahead(module: str) -> None:
    """Start importing ``module`` in a daemon thread (scikit-learn: about 1.2 s of a fresh process), so that it
    loads while the table is fingerprinted (the hash lets go of the interpreter's lock); whoever imports it next
    finds it loaded or waits for it. A failure is left to that next import to report."""
    import importlib
    import sys

    def load() -> None:
        with contextlib.suppress(Exception):
            importlib.import_module(module)

    if module not in sys.modules:
        threading.Thread(target=load, name=f"import {module}", daemon=True).start()


def project_model(emb: Embeddings, method: str = "pca", n: int | str = DEFAULT_SAMPLE, include: tuple[str, ...] = (),
                  seed: int = 0, dims: int = 2, axes: tuple[int, ...] | None = None, perplexity: float = 30.0,
                  n_iter: int = 500, progress: Callable[[float, Msg], None] | None = None) -> ProjectionResult:
    """Sample the token table (``n="all"``: every row), project it, and score how much of each
    neighbourhood survives (on a seeded sample of 5,000 points for larger maps).

    The map is kept on disk (``map_cache``) under the model's fingerprint and the settings this method reads;
    the same map asked for again, in this process or another, is read from there (``from_cache``)."""
    m = method_of(method)
    if dims not in (2, 3):
        raise QueryError("dims must be 2 or 3, got {dims}", dims=dims)
    check_map_size(method, sample_size(emb, n))
    given = {"axes": tuple(axes) if axes else tuple(range(dims)), "perplexity": perplexity, "n_iter": n_iter}
    used = settings_for(method, n=n, include=include, seed=seed, dims=dims, **given)
    if cache_dir() is not None:  # every method runs scikit-learn's PCA (UMAP and t-SNE on its 50 components)
        _import_ahead("sklearn.decomposition")
    key = map_key(fingerprint(emb), method, used) if cache_dir() is not None else None
    kept = load_map(key, emb.vocab_size) if key else None
    if kept is not None:
        meta = kept["meta"]
        sample = Sample(ids=kept["ids"], groups=tuple(str(g) for g in kept["groups"]))
        ratio = kept["ratio"] if kept["ratio"].size else None
        proj = Projection(kept["coords"], method, ratio, float(meta["seconds"]), _note_of(meta.get("note")))
        if progress:
            progress(1.0, Msg("read from the map cache"))
        return ProjectionResult(sample, [emb.token(i) for i in sample.ids], proj, kept["trust"],
                                float(meta["trust_mean"]), used, from_cache=True)
    sample = build_sample(emb, n, include, seed)
    X = gather_rows(emb.token_table, sample.ids)  # in blocks: other pages keep the interpreter's lock meanwhile
    proj = m.run(X, dims=dims, seed=seed, progress=progress, **{k: given[k] for k in m.uses})
    if progress:
        progress(1.0, Msg("scoring how many neighbours each point keeps"))
    graph = proj.graph if proj.graph is not None or len(sample) > TRUST_SAMPLE else map_graph(X)
    trust, mean = trust_scores(X, proj.coords, seed=seed, graph=graph)
    if key:
        try:
            meta = {"method": method, "seconds": proj.seconds, "trust_mean": mean, "note": _note_json(proj.note)}
            json.dumps(meta)
        except TypeError:  # a note whose parameters are not plain values: not kept
            meta = None
        if meta is not None:
            save_map(key, meta, sample.ids, sample.groups, proj.coords, trust, proj.explained_variance_ratio)
    result = ProjectionResult(sample, [emb.token(i) for i in sample.ids], proj, trust, mean, used)
    if graph is not None:
        result.kept["graph"] = graph
    return result
