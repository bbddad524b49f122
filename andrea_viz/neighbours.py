"""The one neighbour kit: every "each row's k nearest" of the library is a call into this module.

Modelled on scikit-learn's ArgKmin pairwise-reduction engine (a block of query rows against every candidate, one
matrix product, then each row's k best) and the TensorFlow projector's ``knn.ts`` (unit rows, cosine by a dot
product). One of each:

- one normaliser, ``unit_rows`` (rows scaled to length 1; an all-zero row stays zero), and ``normalise``, which
  also says which rows are all zero (kept: cosine 0 with every row) and which hold NaN or Inf;
- one selection, ``select_k``: the k best of each row of a block of scores, on numpy or torch (CPU or CUDA),
  with ONE tie rule (equal scores: the smaller id first) and non-finite scores never chosen;
- one blocked search, ``argkmin``, by cosine (or, for the points of a map, by straight-line distance), with ONE
  NaN rule: a row holding any NaN or Inf is left out. It is never chosen as anyone's neighbour and its own
  result row is all -1 (scores NaN), so a search says which rows it left out;
- one overlap of neighbour sets, ``jaccard`` (two lists) and ``jaccard_rows`` (row by row; -1 is no id).

The numpy and the torch backends give the same ids (the same products, the same tie rule). A block of scores
holds at most SCORE_BLOCK_BYTES on the CPU (GPU_SCORE_BLOCK_BYTES on a GPU), whatever the table's size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .errors import choices, not_one_of

SCORE_BLOCK_BYTES = 128 * 2**20  # one block of float32 scores on the CPU
GPU_SCORE_BLOCK_BYTES = 4 * 2**30  # and on a GPU
BACKENDS = ("auto", "torch", "numpy")
METRICS = ("cosine", "euclidean")


# --- the normaliser ------------------------------------------------------------------------------------------
NORM_BLOCK_BYTES = 8 * 2**20  # rows whose lengths are taken at once: numpy's norm squares a copy of them, and a
# copy this small comes back from malloc's heap block after block (a larger one is fresh memory each time, whose
# first touch costs more than the arithmetic: 1.4 s against 0.2 s for 50,000 × 4,096 on a 2-core VM)


def _row_lengths(a: np.ndarray) -> np.ndarray:
    """(…, 1) the length of each row (the last axis) of ``a``, taken a block of rows at a time."""
    if a.ndim != 2:
        return np.linalg.norm(a, axis=-1, keepdims=True)
    step = max(1, NORM_BLOCK_BYTES // max(1, a.shape[1] * a.itemsize))
    n = np.empty((a.shape[0], 1), a.dtype)
    for s in range(0, a.shape[0], step):
        n[s:s + step] = np.linalg.norm(a[s:s + step], axis=-1, keepdims=True)
    return n


def unit_rows(a: np.ndarray, overwrite: bool = False) -> np.ndarray:
    """Rows (the last axis) scaled to length 1, in float32 or wider (float64 stays float64): all-zero rows
    stay zero and rows holding NaN or Inf stay non-finite. The one row normaliser of the library. ``overwrite``:
    scale ``a`` itself when it is a writable float32 or float64 array (no second table in memory)."""
    a = np.asarray(a)
    a = a.astype(np.result_type(a.dtype, np.float32), copy=False)
    n = _row_lengths(a)
    n[n == 0] = 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        if overwrite and a.flags.writeable:
            return np.divide(a, n, out=a)
        return a / n


@dataclass(frozen=True)
class Units:
    """A table's rows as a search uses them."""

    rows: np.ndarray  # (N, d) float32 unit rows; all-zero rows and the rows left out are zero
    finite: np.ndarray  # (N,) bool: False where the row holds NaN or Inf (left out of every search)
    zero: np.ndarray  # (N,) bool: all-zero rows, kept (cosine 0 with every row)

    @property
    def left_out(self) -> np.ndarray:
        """The ids of the rows left out (they hold NaN or Inf)."""
        return np.flatnonzero(~self.finite)


def normalise(X: np.ndarray, overwrite: bool = False) -> Units:
    """``X``'s rows scaled to unit length (float32), with which rows are all zero and which are left out.
    ``overwrite``: a caller done with X's own values lets a writable, C-contiguous float32 X be scaled in place (a
    large table then needs no second copy, whose fresh memory costs more to touch than the scaling does)."""
    X = np.asarray(X)
    finite = np.isfinite(X).all(axis=1) if X.ndim == 2 and X.shape[1] else np.ones(X.shape[0], bool)
    in_place = overwrite and X.ndim == 2 and X.dtype == np.float32 and X.flags.c_contiguous and X.flags.writeable
    rows = unit_rows(X, overwrite=True) if in_place else np.ascontiguousarray(unit_rows(X), dtype=np.float32)
    if not finite.all():
        rows = rows if in_place or (rows.flags.writeable and rows is not X) else rows.copy()
        rows[~finite] = 0.0
    zero = finite & ~rows.any(axis=1)
    return Units(rows, finite, zero)


def torch_device() -> str | None:
    """"cuda" or "cpu" when torch can be imported, else None."""
    try:
        import torch
    except ImportError:
        return None
    return "cuda" if torch.cuda.is_available() else "cpu"


# --- the selection -----------------------------------------------------------------------------------------
def _select_numpy(s: np.ndarray, k: int, ids: np.ndarray | None, checked: bool) -> tuple[np.ndarray, np.ndarray]:
    n, width = s.shape
    key = np.negative(s, dtype=np.result_type(s.dtype, np.float32))  # ascending: the best first
    if not checked:
        key[~np.isfinite(key)] = np.inf
    tie = np.broadcast_to(np.arange(width) if ids is None else ids, (n, width))
    wide = min(k + 1, width)  # one spare: a (k + 1)-th value equal to the k-th is a tie across the cut
    if wide < width:
        part = np.argpartition(key, wide - 1, axis=1)[:, :wide]
    else:
        part = np.broadcast_to(np.arange(width), (n, width)).copy()
    pk = np.take_along_axis(key, part, 1)
    order = np.lexsort((np.take_along_axis(tie, part, 1), pk), axis=1)
    pos, ordered = np.take_along_axis(part, order, 1), np.take_along_axis(pk, order, 1)
    if wide > k:  # rows whose values tie across the cut: sorted whole (rare: twins, zero rows)
        for r in np.flatnonzero(np.isfinite(ordered[:, k - 1]) & (ordered[:, k] == ordered[:, k - 1])):
            pos[r, :k] = np.lexsort((tie[r], key[r]))[:k]
    pos = pos[:, :k]
    vals = np.take_along_axis(s, pos, 1).astype(np.float32)
    bad = ~np.isfinite(np.take_along_axis(key, pos, 1))
    pos[bad], vals[bad] = -1, np.nan
    return pos, vals


def _select_torch(s, k: int, ids, checked: bool):
    import torch

    n, width = s.shape
    if not checked:
        s = torch.nan_to_num(s, nan=-torch.inf, posinf=-torch.inf, neginf=-torch.inf)  # never chosen
    wide = min(k + 1, width)  # one spare: a (k + 1)-th value equal to the k-th is a tie across the cut
    vals, pos = torch.topk(s, wide, dim=1)
    tied = (vals[:, 1:] == vals[:, :-1]) & torch.isfinite(vals[:, 1:])  # the order of equal values is torch's
    redo = torch.nonzero(tied.any(dim=1)).squeeze(1)
    if redo.numel():  # those rows sorted whole, by id, then (stable) by score: equal scores by the smaller id
        tie = (torch.arange(width, device=s.device) if ids is None else ids).expand(n, width)[redo]
        by_id = torch.argsort(tie, dim=1, stable=True)
        by_score = torch.argsort(-torch.gather(s[redo], 1, by_id), dim=1, stable=True)[:, :wide]
        pos[redo] = torch.gather(by_id, 1, by_score)
        vals[redo] = torch.gather(s[redo], 1, pos[redo])
    pos, vals = pos[:, :k], vals[:, :k]
    bad = ~torch.isfinite(vals)
    return pos.masked_fill(bad, -1), vals.float().masked_fill(bad, float("nan"))


def select_k(scores, k: int, ids=None, checked: bool = False):
    """(positions (n, k), values (n, k)) of the k largest scores of each row of ``scores`` (n, m), best first: equal
    scores go to the smaller id (``ids``: each column's id, (m,) or (n, m); default the column's index); NaN, Inf and
    -Inf are never chosen, their places hold position -1 and value NaN. ``scores`` a numpy array gives numpy arrays,
    a torch tensor gives tensors on its device. k is cut to m. ``checked``: the caller knows the scores hold no NaN
    and no +Inf (only -Inf, for what is never chosen), so they are not looked over again."""
    k = max(0, min(int(k), scores.shape[1]))
    if isinstance(scores, np.ndarray):
        if k == 0 or scores.shape[0] == 0:
            return np.full((scores.shape[0], k), -1, np.int64), np.full((scores.shape[0], k), np.nan, np.float32)
        return _select_numpy(scores, k, None if ids is None else np.asarray(ids), checked)
    import torch

    if k == 0 or scores.shape[0] == 0:
        return (torch.full((scores.shape[0], k), -1, dtype=torch.int64, device=scores.device),
                torch.full((scores.shape[0], k), float("nan"), device=scores.device))
    return _select_torch(scores, k, ids, checked)


def top_k(values: np.ndarray, k: int, largest: bool = True, exclude: tuple[int, ...] = ()) -> np.ndarray:
    """Indices of the k best values, best first, ties broken by the smaller index (``select_k`` on numpy).

    ``values`` (V,) gives (≤ k,) indices; values that are NaN or Inf are never chosen, so fewer come back when
    fewer are finite. ``values`` (n, V) gives (n, k), one row per row, padded with -1 where a row has fewer
    than k finite values. ``exclude``: columns never chosen (in every row). ``largest=False``: the smallest.
    """
    v = np.asarray(values)
    one = v.ndim == 1
    v = v.reshape(1, -1) if one else v
    s = v.astype(np.result_type(v.dtype, np.float32), copy=True)
    if not largest:
        np.negative(s, out=s)
    if exclude:
        s[:, list(exclude)] = np.nan
    pos, _ = select_k(s, k)
    return pos[0][pos[0] >= 0] if one else pos


# --- the search --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Found:
    """Each query row's k nearest: ``ids`` (n, k) int64 best first, -1 where there is none; ``scores`` (n, k)
    float32: the cosine (``metric="cosine"``) or minus the squared distance (``"euclidean"``), NaN where no id.
    ``left_out``: the ids of the table's rows that hold NaN or Inf (never chosen; their own rows are all -1)."""

    ids: np.ndarray
    scores: np.ndarray
    left_out: np.ndarray


def rows_per_block(columns: int, budget: int = SCORE_BLOCK_BYTES) -> int:
    """Query rows per block so that one block of float32 scores (rows × columns) fits ``budget`` bytes."""
    return max(64, budget // (4 * max(1, columns)))


def _backend(backend: str, device: str | None) -> str | None:
    """None for numpy, else the torch device."""
    choices("backend", backend, BACKENDS)
    if backend == "numpy":
        return None
    found = torch_device()
    if found is None:
        if backend == "torch":
            raise not_one_of("backend", backend, ("auto", "numpy"))  # PyTorch is not installed here
        return None
    return device or found


def argkmin(X: np.ndarray | Units, k: int, rows: np.ndarray | None = None, metric: str = "cosine",
            backend: str = "auto", device: str | None = None, block: int | None = None,
            progress: Callable[[float], None] | None = None, among: np.ndarray | None = None) -> Found:
    """For each of ``rows`` (default: every row) of the table X (N, d) its k nearest *other* rows, exact, nearest
    first, ties to the smaller id; a row that holds NaN or Inf is never chosen and gets -1s (``Found``). k is cut
    to N − 1.

    ``metric``: ``cosine`` (by the angle: rows scaled to unit length, ``normalise``; an all-zero row has cosine 0
    with every row) or ``euclidean`` (the straight-line distance, for the points of a 2-D or 3-D map).
    ``backend``: ``torch`` (on ``device``, default CUDA when torch has it), ``numpy``, or ``auto`` (torch when it
    can be imported). ``block``: query rows per product (default: a block of scores of SCORE_BLOCK_BYTES, or
    GPU_SCORE_BLOCK_BYTES on a GPU); ``progress(fraction done)`` after each block. ``among``: the only ids that may
    be chosen (default every row; a row is still never its own neighbour), k then cut to their count."""
    return argkmin_each(X, [(k, among)], rows, metric, backend, device, block, progress)[0]


@dataclass
class _Pick:
    """One selection of ``argkmin_each``: its k, the product's columns it reads, and what it has found so far."""

    k: int
    cols: np.ndarray | None  # each column's id when the product is over a gathered copy of the candidates' rows
    drop: np.ndarray  # columns never chosen (rows left out, ids not among the candidates)
    where: np.ndarray | None  # each id's column (-1: not a candidate), with ``cols``
    ids: np.ndarray
    scores: np.ndarray


def argkmin_each(X: np.ndarray | Units, wanted: list[tuple[int, np.ndarray | None]], rows: np.ndarray | None = None,
                 metric: str = "cosine", backend: str = "auto", device: str | None = None, block: int | None = None,
                 progress: Callable[[float], None] | None = None) -> list[Found]:
    """``argkmin`` once for each ``(k, among)`` of ``wanted``, the same ``rows`` of X searched: one product of those
    rows with the table serves every selection (two searches of the same rows among different candidates cost
    one). Each Found is the one ``argkmin(X, k, rows, ..., among=among)`` gives."""
    choices("metric", metric, METRICS)
    if isinstance(X, Units):
        units = X
    elif metric == "cosine":
        units = normalise(X)
    else:
        A = np.asarray(X, dtype=np.float32)
        finite = np.isfinite(A).all(axis=1)
        units = Units(np.where(finite[:, None], A, 0).astype(np.float32), finite, finite & ~A.any(axis=1))
    U, finite = units.rows, units.finite
    N = U.shape[0]
    ids = np.arange(N) if rows is None else np.asarray(rows, dtype=np.int64).reshape(-1)
    # each selection's candidates, ascending (so that ties by column are ties by id)
    sets = [None if among is None else np.unique(np.asarray(among, dtype=np.int64)) for _k, among in wanted]
    # one selection among fewer than half the rows scores a gathered copy of its candidates' rows; otherwise the
    # whole table is scored and the columns not among a selection's candidates dropped (a gathered copy of most
    # rows is fresh memory of nearly the table's size, slower to touch than the extra products)
    gather = len(sets) == 1 and sets[0] is not None and 2 * sets[0].size < N
    C = U[sets[0]] if gather else U
    picks = []
    for (k, _among), cols in zip(wanted, sets, strict=True):
        k = max(0, min(int(k), N - 1 if cols is None else cols.size))
        out = np.full((ids.size, k), -1, np.int64), np.full((ids.size, k), np.nan, np.float32)
        if gather:
            where = np.full(N, -1, np.int64)
            where[cols] = np.arange(cols.size)
            picks.append(_Pick(k, cols, np.flatnonzero(~finite[cols]), where, *out))
            continue
        keep = finite
        if cols is not None:
            keep = np.zeros(N, bool)
            keep[cols] = True
            keep &= finite
        picks.append(_Pick(k, None, np.flatnonzero(~keep), None, *out))
    left_out = np.flatnonzero(~finite)
    active = [p for p in picks if p.k > 0]
    if not active or ids.size == 0:
        return [Found(p.ids, p.scores, left_out) for p in picks]
    on = _backend(backend, device)
    on_gpu = on is not None and on != "cpu"
    step = block or rows_per_block(C.shape[0], GPU_SCORE_BLOCK_BYTES if on_gpu else SCORE_BLOCK_BYTES)
    sq = np.einsum("ij,ij->i", U, U) if metric == "euclidean" else None
    sqc = sq[sets[0]] if sq is not None and gather else sq
    # every row against every row in one symmetric product: X @ X.T is half the work (syrk)
    whole = rows is None and all(c is None for c in sets) and step >= N
    if on is not None:
        import torch

        if on_gpu:
            torch.backends.cuda.matmul.allow_tf32 = False
            Ut, Ct = torch.from_numpy(U).to(on), torch.from_numpy(np.ascontiguousarray(C)).to(on)
    for a in range(0, ids.size, step):
        r = ids[a : a + step]
        if on_gpu:
            rt = torch.from_numpy(r).to(on)
            s = Ut[rt] @ Ct.T
        else:
            s = U @ U.T if whole else U[r] @ C.T  # (b, number of candidates)
            if sq is not None:  # −‖x − y‖² = 2 x·y − ‖x‖² − ‖y‖²: larger is nearer, as for cosine
                s = 2 * s - sq[r, None] - sqc[None, :]
            if on is not None:
                s = torch.from_numpy(s)
        if on_gpu and sq is not None:
            s = 2 * s - torch.from_numpy(sq).to(on)[rt, None] - torch.from_numpy(sqc).to(on)[None, :]
        for i, p in enumerate(active):
            # the last selection marks the product itself, the others a copy
            t = s if i == len(active) - 1 else (s.copy() if on is None else s.clone())
            # the products of finite rows are finite: -Inf marks what is never chosen, and nothing else needs a look
            own = np.arange(r.size) if p.where is None else np.flatnonzero(p.where[r] >= 0)  # own column there
            own_col = r[own] if p.where is None else p.where[r[own]]
            if on is None:
                t[own, own_col] = -np.inf  # a row is not its own neighbour
                t[:, p.drop] = -np.inf
            else:
                t[torch.from_numpy(own).to(t.device), torch.from_numpy(own_col).to(t.device)] = -torch.inf
                t[:, torch.from_numpy(p.drop).to(t.device)] = -torch.inf
            pos, val = select_k(t, p.k, checked=True)
            if on is not None:
                pos, val = pos.cpu().numpy(), val.cpu().numpy()
            if p.cols is not None:
                pos = np.where(pos >= 0, p.cols[np.maximum(pos, 0)], -1)
            pos[~finite[r]], val[~finite[r]] = -1, np.nan  # a row left out has no neighbours
            p.ids[a : a + r.size], p.scores[a : a + r.size] = pos, val
        if progress:
            progress(min(1.0, (a + r.size) / ids.size))
    return [Found(p.ids, p.scores, left_out) for p in picks]


# --- the overlap of neighbour sets --------------------------------------------------------------------------
def jaccard(a, b) -> float:
    """|A ∩ B| / |A ∪ B| of two id lists (1 when both are empty); -1 (no neighbour) is not an id."""
    sa, sb = {int(i) for i in a if i >= 0}, {int(i) for i in b if i >= 0}
    return 1.0 if not sa | sb else len(sa & sb) / len(sa | sb)


def jaccard_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n,) ``jaccard`` of each row of two (n, k) id arrays whose rows hold distinct ids (and -1 for none)."""
    inter = np.empty(a.shape[0], np.int64)
    for s in range(0, a.shape[0], 4096):
        x, y = a[s : s + 4096], b[s : s + 4096]
        inter[s : s + 4096] = ((x[:, :, None] == y[:, None, :]) & (x[:, :, None] >= 0)).any(axis=2).sum(axis=1)
    union = (a >= 0).sum(axis=1) + (b >= 0).sum(axis=1) - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, inter / np.maximum(union, 1), 1.0)
