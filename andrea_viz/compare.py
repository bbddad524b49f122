"""Two or more tables of one vocabulary: which rows moved, how far, and whether neighbours stayed.

- Rows that did not change at all (``lookup.unchanged_rows``): compared bit for bit, not assumed.
- Drift of each token: ``1 − cos(a_i·R, b_i)``, where R is the orthogonal Procrustes rotation that
  best maps table A onto table B (two runs, or a PCA drawn per snapshot, differ by a rotation), or
  the identity for snapshots of one run, which share their axes (``align="none"``).
- Neighbour overlap: the share of a token's k nearest in A that are among its k nearest in B (needs
  no alignment). On large vocabularies it is computed for a stated, seeded sample of tokens.
- Two tables of different vocabularies or widths (``vocab_drift``): the same figures over the anchors, the tokens
  both hold (``andrea_viz.alignment``), after the map of A onto B chosen by cross-validation on the fitted
  anchors (Procrustes with scale, or an anchor map); a neighbour set is then
  of anchors, taken from A to B through the anchors.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from .alignment import Alignment, align, anchor_drift
from .errors import QueryError, choices
from .geometry import Neighbour, cosine, nearest, resolve, scores, top_k, unit_rows
from .i18n import Msg
from .model import Embeddings
from .maps.pca import pca_fit

ALIGNMENTS = ("procrustes", "none")
ANCHORS = "anchors"  # the alignment of two vocabularies: a Drift over their anchors
OVERLAP_SAMPLE = 2_000  # tokens whose neighbour overlap is computed when V is larger


def pair_cosines(models: Sequence[Embeddings], pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], list[float]]:
    """cos(word a, word b) in each model, for each pair (a pair a model cannot look up gives NaN)."""
    out: dict[tuple[str, str], list[float]] = {}
    for a, b in pairs:
        series = []
        for emb in models:
            try:
                series.append(cosine(resolve(emb, a).vector, resolve(emb, b).vector))
            except QueryError:
                series.append(float("nan"))
        out[(a, b)] = series
    return out


def procrustes(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The orthogonal (d, d) R minimising ||a·R − b|| (scipy's orthogonal_procrustes), on finite rows.

    In float32: the (d, d) product AᵀB accumulates fine there, and float64 would double the time."""
    from scipy.linalg import orthogonal_procrustes

    ok = np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1)
    r, _ = orthogonal_procrustes(np.asarray(a[ok], np.float32), np.asarray(b[ok], np.float32))
    return r


@dataclass(frozen=True)
class Drift:
    drift: np.ndarray  # (V,) 1 − cos(a_i·R, b_i); NaN for rows that are not finite
    overlap: np.ndarray  # (V,) share of the k nearest kept; NaN outside the sample
    overlap_ids: np.ndarray  # the tokens whose overlap was computed
    aligned: str
    k: int
    rotation: np.ndarray | None  # (d, d) R, or None when not aligned
    seconds: float

    @property
    def median_drift(self) -> float:
        return float(np.nanmedian(self.drift))

    def most_moved(self, n: int) -> np.ndarray:
        """The ``n`` finite ids that moved most, most first (ties in id order). A row that is not finite has no drift
        to rank (a held-out-only drift is NaN off its anchors; ``drift --json`` would write NaN, which JSON lacks)."""
        order = np.argsort(-np.nan_to_num(self.drift, nan=-1.0), kind="stable")
        return order[np.isfinite(self.drift[order])][:n]

    def least_moved(self, n: int) -> np.ndarray:
        """The ``n`` finite ids that moved least, least first."""
        order = np.argsort(-np.nan_to_num(self.drift, nan=-1.0), kind="stable")
        return order[np.isfinite(self.drift[order])][::-1][:n]

    @property
    def max_drift(self) -> float:
        return float(np.nanmax(self.drift))

    @property
    def mean_overlap(self) -> float:
        return float(np.nanmean(self.overlap))


def drift(a: np.ndarray, b: np.ndarray, align: str = "procrustes", k: int = 10, sample: int = OVERLAP_SAMPLE,
          seed: int = 0, progress: Callable[[float, Msg], None] | None = None) -> Drift:
    """How far each token moved between table A and table B (same V and d)."""
    choices("align", align, ALIGNMENTS)
    if a.shape != b.shape:
        raise QueryError("the two tables must have the same vocabulary and width: A is {a_v:,} × {a_d:,}, B is "
                         "{b_v:,} × {b_d:,}", a_v=a.shape[0], a_d=a.shape[1], b_v=b.shape[0], b_d=b.shape[1])
    if not 1 <= k < a.shape[0]:
        raise QueryError("k must be between 1 and {most:,}, got {k}", most=a.shape[0] - 1, k=k)
    report = progress or (lambda f, s: None)
    t = time.perf_counter()
    r = None
    a32 = a.astype(np.float32)
    if align == "procrustes":
        report(0.05, Msg("fitting the rotation"))
        r = procrustes(a32, b)
        a32 = a32 @ r.astype(np.float32)
    report(0.15, Msg("drift of every token"))
    with np.errstate(invalid="ignore", divide="ignore"):
        cos = np.einsum("ij,ij->i", unit_rows(a32.astype(np.float64)), unit_rows(b.astype(np.float64)))
    d = 1.0 - cos
    if align == "none":  # a row that did not change at all has drift exactly 0, not 1 − (1 − 1e-16)
        d[(a == b).all(axis=1)] = 0.0
    d[~(np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1))] = np.nan
    V = a.shape[0]
    ids = np.arange(V) if V <= sample else np.sort(np.random.default_rng(seed).choice(V, sample, replace=False))
    report(0.3, Msg("nearest neighbours in A"))
    na = nearest(a, k, ids)
    report(0.65, Msg("nearest neighbours in B"))
    nb = nearest(b, k, ids)
    overlap = np.full(V, np.nan)
    overlap[ids] = [len(set(x) & set(y) - {-1}) / k for x, y in zip(na, nb, strict=True)]
    overlap[np.isnan(d)] = np.nan  # a row that is not finite has no neighbours to keep
    report(1.0, Msg("done"))
    return Drift(d, overlap, ids, align, k, r, time.perf_counter() - t)


def aligned_map(tables: Sequence[np.ndarray], ids: np.ndarray, align: str = "none") -> tuple[np.ndarray, np.ndarray]:
    """The rows ``ids`` of every table in one 2-D frame: ((S, n, 2) coordinates, explained variance of the 2 axes).

    Each table is first aligned onto the last (``procrustes``, fitted on all rows) or left in place
    (``none``: snapshots of one run share their axes); then one PCA, fitted on the last table's rows,
    projects every table, so the axes mean the same thing at every step.
    """
    last = tables[-1]
    rows = []
    for t in tables:
        x = t.astype(np.float64)
        if align == "procrustes" and t is not last:
            x = x @ procrustes(t, last)
        rows.append(x[ids])
    _, comps, ratio, mean = pca_fit(rows[-1], 2)
    return np.stack([(x - mean) @ comps.T for x in rows]).astype(np.float32), ratio


def same_vocabulary(a: Embeddings, b: Embeddings) -> bool:
    """Two tables compared id by id: the same V and d (else their anchors are aligned)."""
    return a.token_table.shape == b.token_table.shape


def vocab_drift(a: Embeddings, b: Embeddings, k: int = 10, sample: int = OVERLAP_SAMPLE, seed: int = 0,
                progress: Callable[[float, Msg], None] | None = None) -> tuple[Drift, Alignment]:
    """Drift and neighbour overlap of two models of different vocabularies or widths, over their anchors (position i
    of the Drift is anchor i: ``alignment.anchors.a[i]`` in A, ``.b[i]`` in B), with the map that aligns them."""
    report = progress or (lambda f, s: None)
    t = time.perf_counter()
    report(0.05, Msg("finding the anchors and fitting the map"))
    al = align(a, b, seed)
    n = len(al.anchors)
    if not 1 <= k < n:
        raise QueryError("k must be between 1 and {most:,}, got {k}", most=n - 1, k=k)
    report(0.4, Msg("drift of every anchor"))
    d = anchor_drift(a.token_table, b.token_table, al.map, al.anchors)
    xa, yb = np.asarray(a.token_table[al.anchors.a], np.float32), np.asarray(b.token_table[al.anchors.b], np.float32)
    ids = np.arange(n) if n <= sample else np.sort(np.random.default_rng(seed).choice(n, sample, replace=False))
    report(0.6, Msg("nearest neighbours in A and in B"))
    na, nb = nearest(xa, k, ids), nearest(yb, k, ids)
    overlap = np.full(n, np.nan)
    overlap[ids] = [len(set(x) & set(y) - {-1}) / k for x, y in zip(na, nb, strict=True)]
    report(1.0, Msg("done"))
    return Drift(d, overlap, ids, ANCHORS, k, None, time.perf_counter() - t), al


def held_out_only(r: Drift, al: Alignment) -> Drift:
    """Two vocabularies' drift (``vocab_drift``) for the anchors the map was not fitted on, NaN for the rest: what the
    histogram and the lists of tokens moved most and least show. The anchors it was fitted on land almost on their
    rows (drift about 0): they piled up at 0 beside a held-out median cosine of 0.92 and filled "moved least"."""
    drift = np.full_like(r.drift, np.nan)
    drift[al.held_out] = r.drift[al.held_out]
    return replace(r, drift=drift)


def vocab_map(a: np.ndarray, b: np.ndarray, al: Alignment, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The anchors at ``positions`` on one 2-D frame: A's rows mapped into B's space, and B's rows, both projected by
    one PCA fitted on those B rows. ((2, n, 2) coordinates, explained variance of the 2 axes)."""
    pa = al.map(np.asarray(a[al.anchors.a[positions]], np.float32)).astype(np.float64)
    pb = np.asarray(b[al.anchors.b[positions]], np.float64)
    _, comps, ratio, mean = pca_fit(pb, 2)
    return np.stack([(x - mean) @ comps.T for x in (pa, pb)]).astype(np.float32), ratio


def placed_neighbours(a: Embeddings, b: Embeddings, al: Alignment, query: str | int, k: int = 10
                      ) -> list[Neighbour]:
    """A word of A (text or #id; several tokens: the mean of their rows, as the Neighbours page takes it) mapped into
    B's space, and its k nearest B tokens by cosine: where the map places it."""
    v = al.map(resolve(a, query).vector[None])[0]
    s = scores(b, v, "cosine")
    return [Neighbour(int(i), b.token(int(i)), float(s[i])) for i in top_k(s, k)]
