"""UMAP maps: umap-learn on the cosine metric with 120 epochs from a PCA start, which keeps about the
trustworthiness of its default 200 epochs in clearly less time once numba has compiled. With a seed, umap-learn
runs single-threaded, which makes it reproducible; a map of more than EVERY_CORE_ABOVE points (approximate already:
its neighbours found cell by cell) runs its epochs on every core instead (``_every_core``), about twice as fast on
two cores, its start still seeded but its epochs not repeated bit for bit (the map cache keeps the first). A UMAP map
of more than ``process.CHILD_ABOVE`` points is laid
out in a child process, one at a time per server (``maps.process``), so that umap-learn's epochs never hold the
server's interpreter lock."""

from __future__ import annotations

import contextlib
import functools
import re
import threading
import time
from collections.abc import Callable

import numpy as np

from ..errors import QueryError
from ..i18n import Msg
from ..neighbours import Found
from . import compile as umap_compile, process as map_process
from .knn import cell_knn_graph, knn_graph, umap_knn
from .layout import Projection, map_graph
from .pca import PCA_FIT_ROWS, PCA_INPUT_DIMS, pca_fit_sampled

UMAP_EPOCHS = 120
UMAP_NEIGHBOURS = 15
UMAP_ALL_DISTANCES_BELOW = 4_096  # umap-learn's own rule: below this many points it computes every distance itself
UMAP_PCA_FIRST = 50_000  # up to this many points UMAP runs on the table itself and its exact neighbour graph
# (``knn_graph``); above, on the first PCA_INPUT_DIMS principal components and the approximate ``cell_knn_graph``
EVERY_CORE_ABOVE = 50_000  # above this many points the layout's epochs run on every core (``_every_core``): 85 s →
# 50 s for Gemma-3's 262,144 rows on 2 cores, trustworthiness 0.895 (0.892 on one core), not the same map bit for bit


def umap_fits(n: int) -> bool:
    """Whether UMAP maps ``n`` points: more than its UMAP_NEIGHBOURS neighbours."""
    return n > UMAP_NEIGHBOURS


def umap_takes_graph(n: int) -> bool:
    """Whether a UMAP map of n points runs on the exact graph of its points (below UMAP_ALL_DISTANCES_BELOW
    umap-learn computes every distance itself; above UMAP_PCA_FIRST the graph is approximate, cell by cell)."""
    return UMAP_ALL_DISTANCES_BELOW <= n <= UMAP_PCA_FIRST


_warm_thread: dict = {"thread": None}  # with the disk cache off: the in-process warm-up of before
_warm_lock = threading.Lock()


def umap_is_warm() -> bool:
    """True once umap-learn's numba code is compiled in this process, or on this machine's disk (a process then
    loads it in about a second: ``maps.compile``)."""
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
              knn: tuple[np.ndarray, np.ndarray] | None = None):
    """The UMAP of ``X`` (after the PCA to ``PCA_INPUT_DIMS`` when ``pca_first``): what a map's child process runs,
    or the server itself for a small map. ``knn``: the exact graph, searched already. Returns the (N, dims)
    coordinates, or with a graph searched here cell by cell, ``(coords, {"ids": (N, k), "distances": (N, k)})``:
    umap-learn's graph (each point first), kept with the map (``approximate_graph``)."""
    kept: dict = {}
    coords = umap_layout(reduce_first(X, seed, report) if pca_first else np.asarray(X), dims, seed, report, exact, knn,
                         kept=kept)
    return (coords, kept) if kept else coords


def approximate_graph(kept: dict[str, np.ndarray]) -> Found:
    """A large map's graph as umap-learn took it (``kept``: "ids" and "distances", each point first) as the
    neighbour kit gives one: each point's nearest others by cosine (in the PCA_INPUT_DIMS components it was searched
    in), best first, -1 (score NaN) where there is none."""
    ids, dist = np.asarray(kept["ids"])[:, 1:], np.asarray(kept["distances"], np.float32)[:, 1:]
    return Found(ids=ids, scores=np.where(ids >= 0, 1 - dist, np.nan).astype(np.float32),
                 left_out=np.zeros(0, np.int64))


def umap_map(X: np.ndarray, dims: int = 2, seed: int = 0, progress: Callable[[float, Msg], None] | None = None,
             in_child: bool | None = None, graph: Found | None = None) -> Projection:
    """umap-learn, cosine metric, 120 epochs from a PCA start, seeded (single-threaded, so reproducible, up to
    EVERY_CORE_ABOVE points; above, its epochs on every core: ``_every_core``); up to
    UMAP_PCA_FIRST points on the exact neighbour graph (``knn.knn_graph``), above on the approximate one
    (``knn.cell_knn_graph``) over the first PCA_INPUT_DIMS principal components (as t-SNE always is); umap-learn's
    own search (pynndescent's NN-descent) is never used. ``progress(fraction, text)``: the stages, the graph's
    blocks, then every epoch.

    Above ``map_process.CHILD_ABOVE`` points (``in_child`` None), or when ``in_child`` says so, the layout runs in a
    child process, one at a time per server (``maps.process``), the PCA first included: umap-learn's epochs and parts
    of scikit-learn's PCA hold the interpreter's lock, which in the server stalls every other page.

    The exact graph is the map's neighbour graph (``map_graph``): searched here, before any child starts, unless
    ``graph`` is given, and returned with the projection, so that the trust, the labels and the lines slice it."""
    n = X.shape[0]
    if not umap_fits(n):
        raise QueryError("UMAP needs more than {k} points, got {n}", k=UMAP_NEIGHBOURS, n=n)
    t = time.perf_counter()
    report = progress or (lambda f, s: None)
    waited = umap_compile.wait_for_compile_process(lambda: report(0.02, Msg("UMAP's code is compiling in the "
                                                                            "background: once per machine")))
    if not waited and not umap_is_warm():
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
    out = map_process.layout_in_child(X, run, report) if (map_process.CHILD_ABOVE < n if in_child is None
                                                           else in_child) else run(X, report)
    coords, kept = out if isinstance(out, tuple) else (out, None)
    if kept and graph is None:
        graph = approximate_graph(kept)
    report(1.0, Msg("done"))
    if exact:
        note = Msg("umap-learn, cosine metric, {k} neighbours found exactly, {epochs} epochs from a PCA start, seed "
                   "{seed}", k=UMAP_NEIGHBOURS, epochs=UMAP_EPOCHS, seed=seed)
    elif n_dims <= PCA_INPUT_DIMS and n > EVERY_CORE_ABOVE:  # no PCA first
        note = Msg("umap-learn, cosine metric, {k} neighbours found approximately (cell by cell), {epochs} epochs "
                   "on every core from a PCA start seeded {seed}",
                   k=UMAP_NEIGHBOURS, epochs=UMAP_EPOCHS, seed=seed)
    elif n_dims <= PCA_INPUT_DIMS:
        note = Msg("umap-learn, cosine metric, {k} neighbours found approximately (cell by cell), {epochs} epochs "
                   "from a PCA start, seed {seed}",
                   k=UMAP_NEIGHBOURS, epochs=UMAP_EPOCHS, seed=seed)
    elif n > EVERY_CORE_ABOVE:
        note = Msg("umap-learn on the first {d} principal components of {rows:,} of the points ({n:,} are more than "
                   "{most:,}), cosine metric, {k} neighbours found approximately (cell by cell), {epochs} epochs on "
                   "every core from a PCA start seeded {seed}",
                   d=PCA_INPUT_DIMS, rows=min(n, PCA_FIT_ROWS), n=n, most=UMAP_PCA_FIRST, k=UMAP_NEIGHBOURS,
                   epochs=UMAP_EPOCHS, seed=seed)
    else:
        note = Msg("umap-learn on the first {d} principal components of {rows:,} of the points ({n:,} are more than "
                   "{most:,}), cosine metric, {k} neighbours found approximately (cell by cell), {epochs} epochs from a "
                   "PCA start, seed {seed}",
                   d=PCA_INPUT_DIMS, rows=min(n, PCA_FIT_ROWS), n=n, most=UMAP_PCA_FIRST, k=UMAP_NEIGHBOURS,
                   epochs=UMAP_EPOCHS, seed=seed)
    return Projection(np.asarray(coords, dtype=np.float32), "umap", None, time.perf_counter() - t, note, graph,
                      approximate=not exact and graph is not None)


def reduce_first(X: np.ndarray, seed: int, report: Callable[[float, Msg], None]) -> np.ndarray:
    """A large map's points on their first PCA_INPUT_DIMS principal components (``pca_fit_sampled``), the bar moved
    from 3% to 10% as it goes."""
    report(0.03, Msg("PCA to {k} dimensions first", k=PCA_INPUT_DIMS))
    return pca_fit_sampled(X, PCA_INPUT_DIMS, seed=seed,
                           progress=lambda f: report(0.03 + 0.07 * f, Msg("PCA to {k} dimensions first",
                                                                          k=PCA_INPUT_DIMS)))


@functools.cache
def _every_core():
    """umap-learn's UMAP with the seed kept for its start and its epochs on every core. umap-learn ties parallel epochs
    to having no seed: ``_fit_embed_data`` passes ``parallel=self.random_state is None``, and ``fit`` sets numba's
    threads to ``n_jobs``, which a seed forces to 1. So the seed is set aside, and numba given its threads, only
    while the layout's epochs run (umap-learn 0.5.12, pinned). One such layout at a time per process: numba's
    fallback threading layer (workqueue, where neither OpenMP nor TBB is found) aborts on parallel code entered from
    two threads at once."""
    import numba
    import umap

    one_at_a_time = threading.Lock()

    class EveryCoreUMAP(umap.UMAP):
        def _fit_embed_data(self, X, n_epochs, init, random_state, **kwargs):
            with one_at_a_time:
                seed, threads = self.random_state, numba.get_num_threads()
                self.random_state = None  # random_state (the argument, made from the seed) still seeds the start
                numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
                try:
                    return super()._fit_embed_data(X, n_epochs, init, random_state, **kwargs)
                finally:
                    self.random_state = seed
                    numba.set_num_threads(threads)

    return EveryCoreUMAP


def umap_layout(X: np.ndarray, dims: int, seed: int, report: Callable[[float, Msg], None], exact: bool,
                knn: tuple[np.ndarray, np.ndarray] | None = None, kept: dict | None = None) -> np.ndarray:
    """UMAP's part of ``umap_map`` (in the server, or in its child process): the neighbour graph (``knn`` when
    given; else ``exact``: every cosine, or cell by cell), then umap-learn's fuzzy graph and layout. Returns (N, dims)
    coordinates; a graph searched here cell by cell is put in ``kept`` ("ids", "distances")."""
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
        if kept is not None:
            kept["ids"], kept["distances"] = graph["precomputed_knn"]
    with warnings.catch_warnings():  # "n_jobs overridden by setting random_state": the price of reproducibility
        warnings.simplefilter("ignore")
        sink = _UmapProgress(report)
        make = _every_core() if n > EVERY_CORE_ABOVE else umap.UMAP
        model = make(n_components=dims, metric="cosine", n_neighbors=UMAP_NEIGHBOURS, n_epochs=UMAP_EPOCHS,
                          init="pca", random_state=seed, verbose=True,
                          tqdm_kwds={"file": sink, "mininterval": 0.25}, **graph)
        with contextlib.redirect_stdout(sink):  # verbose prints: epoch counts, read for progress
            coords = model.fit_transform(X)
    umap_compile.compiled_now()
    return np.asarray(coords, dtype=np.float32)
