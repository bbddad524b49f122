"""Vector geometry on a model's tables: lengths, dot products, cosines, neighbours, analogies.

All searches are exact, over every row of the table. A *space* is the table searched:
``"input"`` (the token table) or ``"output"`` (an untied output projection); ``centered``
subtracts the table's mean row first (mean-centred cosine).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .errors import QueryError, not_one_of
from .i18n import Msg
from .model import Embeddings, f32, is_narrow, row_blocks, torch_view
from .neighbours import argkmin, jaccard, top_k, unit_rows  # noqa: F401 (jaccard: named here for the pages)
from .tokenizer import ID_PATTERN

MAX_QUERY_CHARS = 200  # a word or #id: longer text is refused before it is tokenized

METRICS = ("cosine", "dot", "euclidean")
SPACES = ("input", "output")


def norm(v: np.ndarray) -> float:
    """||v|| = sqrt(sum v_i^2)."""
    return float(np.sqrt(np.dot(v.astype(np.float64), v.astype(np.float64))))


def dot(u: np.ndarray, v: np.ndarray) -> float:
    """u·v = sum u_i v_i (accumulated in float64)."""
    return float(np.dot(u.astype(np.float64), v.astype(np.float64)))


def cosine(u: np.ndarray, v: np.ndarray) -> float:
    """cos θ = u·v / (||u|| ||v||); 0 when either vector is all zeros."""
    nu, nv = norm(u), norm(v)
    return 0.0 if nu == 0 or nv == 0 else dot(u, v) / (nu * nv)


def angle_degrees(u: np.ndarray, v: np.ndarray) -> float:
    return float(np.degrees(np.arccos(np.clip(cosine(u, v), -1.0, 1.0))))


# --- the tables searched ----------------------------------------------------------------------
def table_of(emb: Embeddings, space: str = "input") -> np.ndarray:
    if space == "input":
        return emb.token_table
    if space == "output":
        if emb.output_table is None:
            raise QueryError("this model has no separate output table (it is {kind}); only the input table can be "
                             "searched", kind=emb.output_kind)
        return emb.output_table
    raise not_one_of("space", space, SPACES)


def mean_row(emb: Embeddings, space: str = "input") -> np.ndarray:
    """(d,) float32: the average row, the direction every vector shares."""
    return emb.memo(("mean", space), lambda: table_of(emb, space).mean(axis=0, dtype=np.float64).astype(np.float32))


def unit_space(emb: Embeddings, space: str = "input", centered: bool = False) -> np.ndarray:
    """(V, d) float32 rows of a space scaled to length 1, optionally after subtracting the mean row
    (computed once per model, read-only)."""

    def compute() -> np.ndarray:
        t = table_of(emb, space)
        u = unit_rows(t - mean_row(emb, space) if centered else t)
        u.flags.writeable = False
        return u

    return emb.memo(("unit", space, centered), compute)


def sq_norms(emb: Embeddings, space: str = "input") -> np.ndarray:
    return emb.memo(("sqnorm", space), lambda: np.concatenate([np.einsum("ij,ij->i", b, b)
                                                               for b in row_blocks(table_of(emb, space))]))


def matvec(table: np.ndarray, v: np.ndarray) -> np.ndarray:
    """(V,) float32 ``table @ v``; a bfloat16 / float16 table is widened one block of rows at a time."""
    if not is_narrow(table):
        return table @ v
    return np.concatenate([b @ v for b in row_blocks(table)])


# A bfloat16 / float16 table too large for a unit copy: its cosines are first estimated by torch in the table's own
# dtype (one pass over its bytes, no float32 copy), then every row that could be among the k best is scored exactly.
# The estimate's error is bounded: the query rounded to 16 bits moves a cosine by at most 2^-9 (Cauchy-Schwarz, each
# component off by at most 2^-9 of itself), and the 16-bit dot product and norm are each off by at most 2^-8 of
# themselves (rounding; float32 accumulation adds far less). NARROW_MARGIN doubles that.
NARROW_MARGIN_ABS, NARROW_MARGIN_REL = 2.0 ** -8, 2.0 ** -6


def _narrow_view(emb: Embeddings):
    """The 16-bit table as torch sees it and its rows' 16-bit lengths (one pass over its bytes, kept per model)."""
    import warnings

    import torch

    with warnings.catch_warnings():  # the table is read-only; nothing here writes to it
        warnings.simplefilter("ignore", UserWarning)
        t = emb.memo(("torch view",), lambda: torch_view(emb.token_table))
        return t, emb.memo(("approx norms",), lambda: torch.linalg.vector_norm(t, dim=1).float().numpy())


def narrow_cosine_top_k(emb: Embeddings, v: np.ndarray, k: int, exclude: tuple[int, ...] = ()) -> tuple[np.ndarray,
                                                                                                          np.ndarray]:
    """(ids, cosines) of the k rows of a 16-bit token table closest to v, best first: the same ids and scores as the
    exact float32 search (``scores`` then ``top_k``), from a 16-bit estimate and an exact rescoring of its candidates."""
    import warnings

    import torch

    table = emb.token_table
    t, approx_norms = _narrow_view(emb)
    with warnings.catch_warnings():  # the table is read-only; nothing here writes to it
        warnings.simplefilter("ignore", UserWarning)
        n = float(np.linalg.norm(v))
        u = (v / n if n > 0 else v).astype(np.float32)
        est = (t @ torch.from_numpy(u).to(t.dtype)).float().numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        est = est / np.where(approx_norms == 0, 1.0, approx_norms)
    order = top_k(est, k, exclude=exclude)
    if order.size == 0:
        return order, np.zeros(0, np.float32)
    margin = NARROW_MARGIN_ABS + NARROW_MARGIN_REL * float(np.nanmax(np.abs(est[order])))
    floor = float(est[order[-1]]) - 2 * margin
    with np.errstate(invalid="ignore"):
        cand = np.flatnonzero(est >= floor)
    rows = f32(table[cand])
    norms = np.sqrt(np.einsum("ij,ij->i", rows, rows, dtype=np.float64)).astype(np.float32)
    with np.errstate(invalid="ignore", divide="ignore"):
        exact = (rows @ u) / np.where(norms == 0, 1.0, norms)
    local = top_k(exact, k, exclude=tuple(int(j) for j in np.flatnonzero(np.isin(cand, exclude))))
    return cand[local], exact[local]


# --- queries ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Query:
    """A word or id resolved against a model: its ids, their pieces, and the vector used."""

    text: str
    ids: tuple[int, ...]
    pieces: tuple[str, ...]
    vector: np.ndarray  # (d,) float32

    @property
    def multi_piece(self) -> bool:
        return len(self.ids) > 1

    @property
    def note(self) -> Msg | None:
        if not self.multi_piece:
            return None
        return Msg("“{text}” is {n} tokens ({pieces}): its vector is the mean of their rows", text=self.text,
                   n=len(self.ids), pieces=" + ".join(f"“{p}”" for p in self.pieces))


def resolve_ids(emb: Embeddings, query: str | int) -> tuple[str, list[int]]:
    """A word, ``#id`` or int -> (text shown, ids). Raises QueryError with the reason."""
    if isinstance(query, (int, np.integer)):
        ids, text = [int(query)], f"#{int(query)}"
    else:
        text = str(query).strip()
        if not text:
            raise QueryError("type a word or a token id such as #42; the box is empty")
        if len(text) > MAX_QUERY_CHARS:
            raise QueryError("a word or #id of at most {limit:,} characters was expected; this one has {n:,}",
                             limit=MAX_QUERY_CHARS, n=len(text))
        m = ID_PATTERN.match(text)
        if m:
            if len(m.group(1)) > 18:  # more digits than any id of any table
                raise QueryError("token id {id} is out of range: this model has ids 0 to {last}",
                                 id=m.group(1)[:20] + "…", last=emb.vocab_size - 1)
            ids = [int(m.group(1))]
        else:
            ids = emb.tokenizer.lookup(text)
            if not ids:
                raise QueryError("“{text}” gives no tokens with this model's tokenizer", text=text)
            unk = emb.tokenizer.unknown_id
            if unk is not None and all(i == unk for i in ids):
                raise QueryError("“{text}” is not in this model's vocabulary (it maps to the unknown token)", text=text)
    for i in ids:
        if not 0 <= i < emb.vocab_size:
            raise QueryError("token id {id} is out of range: this model has ids 0 to {last}", id=i, last=emb.vocab_size - 1)
    return text, ids


def resolve(emb: Embeddings, query: str | int, space: str = "input") -> Query:
    """Turn a word, ``#id`` or int into ids and a vector (the mean of the rows of its pieces)."""
    text, ids = resolve_ids(emb, query)
    vec = f32(table_of(emb, space)[ids]).mean(axis=0, dtype=np.float64).astype(np.float32)
    return Query(text=text, ids=tuple(ids), pieces=tuple(emb.token(i) for i in ids), vector=vec)


@dataclass(frozen=True)
class Neighbour:
    id: int
    token: str
    score: float


def scores(emb: Embeddings, vector: np.ndarray, metric: str = "cosine", space: str = "input",
           centered: bool = False) -> np.ndarray:
    """(V,) float32 score of every row against ``vector``.

    cosine and dot: higher is closer. euclidean: the distance, lower is closer. ``centered``
    (cosine only) measures directions after removing the mean row from the rows and the query.
    """
    if metric == "cosine":
        v = vector - mean_row(emb, space) if centered else vector
        n = np.linalg.norm(v)
        v = v / n if n > 0 else v
        if space == "input" and not centered and not emb.keeps_unit_copy:  # a large table: no second copy of it
            norms = emb.row_norms
            with np.errstate(invalid="ignore", divide="ignore"):
                return matvec(emb.token_table, v) / np.where(norms == 0, 1.0, norms).astype(np.float32)
        return unit_space(emb, space, centered) @ v
    if centered:
        raise QueryError("mean-centring applies to cosine similarity only; choose metric cosine")
    table = table_of(emb, space)
    if metric == "dot":
        return matvec(table, vector)
    if metric == "euclidean":
        sq = sq_norms(emb, space) - 2.0 * matvec(table, vector) + np.float32(vector @ vector)
        return np.sqrt(np.maximum(sq, 0.0))
    raise not_one_of("metric", metric, METRICS)


def nearest(X: np.ndarray, k: int, rows: np.ndarray | None = None, metric: str = "cosine",
            block: int | None = None, progress: Callable[[float], None] | None = None) -> np.ndarray:
    """(len(rows), k) int64: for each of ``rows`` (default: every row) the k nearest *other* rows of X, exact,
    nearest first, ties to the smaller index; a row holding NaN or Inf is never chosen and its own row is all -1
    (``neighbours.argkmin``, whose rules these are).

    ``cosine``: by the angle (rows scaled to unit length first); ``euclidean``: by the straight-line
    distance (for points of a 2-D or 3-D map). ``block`` rows at a time; ``progress(fraction done)`` after each
    block. Queries of a model go through ``neighbours``.
    """
    return argkmin(X, k, rows, metric=metric, block=block, progress=progress).ids


def nearest_in(table: np.ndarray, ids: np.ndarray, index: int, k: int, lengths: np.ndarray | None = None) -> np.ndarray:
    """Positions in ``ids`` of the k rows of ``table[ids]`` nearest to its row ``index`` by cosine, nearest first
    (the same as ``nearest(table[ids], k, [index])[0]`` without its -1 padding), from one product over the table:
    no copy of the rows scaled to unit length. ``lengths``: every row's length of ``table``, when already known."""
    ids = np.asarray(ids, dtype=np.int64)
    query = np.asarray(table[ids[index]], np.float32)
    dots = matvec(table, query)[ids] if ids.size * 4 > table.shape[0] else matvec(table[ids], query)
    norms = (lengths[ids] if lengths is not None else
             np.sqrt(np.einsum("ij,ij->i", *(2 * [np.asarray(table[ids], np.float32)]))))
    scale = norms * np.float32(np.linalg.norm(query))
    with np.errstate(invalid="ignore", divide="ignore"):
        cos = np.where(scale > 0, dots / scale, np.float32(0))  # an all-zero row: cosine 0, as unit_rows says
    cos[index] = np.nan  # a row is not its own neighbour
    return top_k(cos, k)


def _whole_narrow(emb: Embeddings, ids: np.ndarray) -> bool:
    """Whether ``nearest_of`` searches these ids through the 16-bit estimate: every row of a 16-bit table once, the
    table too large for a unit copy."""
    table = emb.token_table
    return (is_narrow(table) and not emb.keeps_unit_copy and ids.size == table.shape[0]
            and bool((np.bincount(ids, minlength=ids.size) == 1).all()))


def ready_to_search(emb: Embeddings, ids: np.ndarray) -> None:
    """Compute now, once per model, what ``nearest_of`` over these ids reads besides the table (the rows' lengths),
    so that the first click on a map is as quick as the next (262,144 × 2,560 bf16: one pass, about 0.1 s)."""
    ids = np.asarray(ids, dtype=np.int64)
    if _whole_narrow(emb, ids):
        _narrow_view(emb)
    else:
        emb.row_norms  # noqa: B018 (a property computed once and kept)


def nearest_of(emb: Embeddings, ids: np.ndarray, index: int, k: int) -> np.ndarray:
    """``nearest_in`` over the model's token table (positions in ``ids`` of the k rows nearest to row ``index``). When
    ``ids`` hold every row of a 16-bit table once (a whole-table map) too large for a unit copy, through its 16-bit
    estimate and the exact rescoring of its candidates (``narrow_cosine_top_k``: the same neighbours as the float32
    search, from one pass over the table's own bytes; on 262,144 × 2,560 bf16 0.08 s against 0.55 s widening it)."""
    ids = np.asarray(ids, dtype=np.int64)
    table = emb.token_table
    if _whole_narrow(emb, ids):
        found, _ = narrow_cosine_top_k(emb, np.asarray(table[ids[index]], np.float32), k, (int(ids[index]),))
        where = np.empty(ids.size, np.int64)
        where[ids] = np.arange(ids.size)
        return where[found]
    return nearest_in(table, ids, index, k, emb.row_norms)  # the lengths kept per model


def _check_k(k: int) -> int:
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
        raise QueryError("k must be a whole number ≥ 1, got '{k}'", k=k)
    return int(k)


def neighbours(emb: Embeddings, query: str | int, k: int = 10, metric: str = "cosine", space: str = "input",
              centered: bool = False) -> tuple[Query, list[Neighbour]]:
    """The k rows closest to a word or id, exact over the whole table, the query's own ids excluded."""
    k = _check_k(k)
    q = resolve(emb, query, space)
    if metric == "cosine" and space == "input" and not centered and is_narrow(emb.token_table) \
            and not emb.keeps_unit_copy:
        idx, best = narrow_cosine_top_k(emb, q.vector, k, q.ids)
        return q, [Neighbour(int(i), emb.token(i), float(c)) for i, c in zip(idx, best, strict=True)]
    s = scores(emb, q.vector, metric, space, centered)
    idx = top_k(s, k, largest=metric != "euclidean", exclude=q.ids)
    return q, [Neighbour(int(i), emb.token(i), float(s[i])) for i in idx]


def analogy(emb: Embeddings, a: str | int, b: str | int, c: str | int, k: int = 10) -> tuple[list[Query], list[Neighbour]]:
    """A − B + C (king − man + woman ≈ queen): cosine search around the sum of unit vectors,
    the three inputs excluded from the answers."""
    k = _check_k(k)
    qa, qb, qc = (resolve(emb, w) for w in (a, b, c))
    target = unit_rows(qa.vector) - unit_rows(qb.vector) + unit_rows(qc.vector)
    s = scores(emb, target, "cosine")
    idx = top_k(s, k, exclude=tuple(sorted(set(qa.ids + qb.ids + qc.ids))))
    return [qa, qb, qc], [Neighbour(int(i), emb.token(i), float(s[i])) for i in idx]


def anisotropy(emb: Embeddings, centered: bool = False) -> float:
    """The mean cosine over every pair of two different rows (the rows after subtracting the mean row when
    ``centered``): 0 for directions spread evenly, larger when every vector leans the same way. Exact, not sampled:
    with u_i the unit rows, the sum over pairs i ≠ j of u_i·u_j is ‖Σu_i‖² − Σ‖u_i‖², so one pass over the table in
    blocks (no unit copy of it) gives the mean of all V·(V − 1) of them, the same figure as the Anatomy page's
    average cosine. An all-zero row counts with cosine 0; a row holding NaN or Inf is left out."""
    total, squares, n = None, 0.0, 0
    shift = mean_row(emb) if centered else None
    for block in row_blocks(emb.token_table):  # float32 rows, summed in float64
        x = block - shift if centered else block
        u = unit_rows(x[np.isfinite(x).all(axis=1)], overwrite=centered)
        total = u.sum(axis=0, dtype=np.float64) + (0.0 if total is None else total)
        squares += float(np.einsum("ij,ij->", u, u, dtype=np.float64))
        n += u.shape[0]
    return float((total @ total - squares) / (n * (n - 1))) if n > 1 else 0.0


def anisotropy_note(raw: float, centred: float) -> list[Msg]:
    """What the two anisotropy figures (``anisotropy`` of the raw rows and of the mean-centred ones) say of a table:
    both figures and what the mean row does to cosines, then how much of the raw figure the mean row carries, said
    only where subtracting it takes some away (MiniLM 86%, andrea-micro 9%)."""
    said = [Msg("Anisotropy (the mean cosine of every pair of two different rows): {raw:+.4f} raw, {centred:+.4f} "
                "mean-centred. When every vector leans the same way, all raw cosines are inflated by that shared "
                "direction; subtracting the mean row removes it, so the neighbours that remain are similar for their "
                "own reasons.", raw=raw, centred=centred)]
    if raw > 0 and centred <= raw:
        said.append(Msg("On this table subtracting the mean row takes away {share:.0%} of it.", share=1 - centred / raw))
    return said


def input_output_cosines(emb: Embeddings) -> np.ndarray:
    """(V,) cos(input_i, output_i) for every token of an untied model."""
    return np.einsum("ij,ij->i", unit_space(emb, "input"), unit_space(emb, "output"))
