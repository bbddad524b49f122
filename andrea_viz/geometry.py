"""Vector geometry on a model's tables: lengths, dot products, cosines, neighbours, analogies.

All searches are exact, over every row of the table. A *space* is the table searched:
``"input"`` (the token table) or ``"output"`` (an untied output projection); ``centered``
subtracts the table's mean row first (mean-centred cosine).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import QueryError
from .i18n import Msg
from .model import Embeddings
from .tokenizer import ID_PATTERN

MAX_QUERY_CHARS = 200  # a word or #id: longer text is refused before it is tokenized

METRICS = ("cosine", "dot", "euclidean")
ANISOTROPY_PAIRS = 20_000  # random pairs of rows whose mean cosine measures how much every vector leans one way
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
    raise QueryError("space must be one of {allowed}; got {space!r}", allowed=", ".join(SPACES), space=space)


def mean_row(emb: Embeddings, space: str = "input") -> np.ndarray:
    """(d,) float32: the average row, the direction every vector shares."""
    return emb.memo(("mean", space), lambda: table_of(emb, space).mean(axis=0, dtype=np.float64).astype(np.float32))


def _unit(a: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(a, axis=-1, keepdims=True)
    n[n == 0] = 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return (a / n).astype(np.float32)


def unit_rows(emb: Embeddings, space: str = "input", centered: bool = False) -> np.ndarray:
    """(V, d) float32 rows scaled to length 1, optionally after subtracting the mean row."""
    if space == "input" and not centered:
        return emb.unit_table

    def compute() -> np.ndarray:
        t = table_of(emb, space)
        return _unit(t - mean_row(emb, space) if centered else t)

    return emb.memo(("unit", space, centered), compute)


def sq_norms(emb: Embeddings, space: str = "input") -> np.ndarray:
    return emb.memo(("sqnorm", space), lambda: np.einsum("ij,ij->i", table_of(emb, space), table_of(emb, space)))


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
                   n=len(self.ids), pieces=" + ".join(self.pieces))


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
                raise QueryError("token id {id} is out of range: this model has ids 0 to {last:,}",
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
            raise QueryError("token id {id} is out of range: this model has ids 0 to {last:,}", id=i, last=emb.vocab_size - 1)
    return text, ids


def resolve(emb: Embeddings, query: str | int, space: str = "input") -> Query:
    """Turn a word, ``#id`` or int into ids and a vector (the mean of the rows of its pieces)."""
    text, ids = resolve_ids(emb, query)
    vec = table_of(emb, space)[ids].mean(axis=0, dtype=np.float64).astype(np.float32)
    return Query(text=text, ids=tuple(ids), pieces=tuple(emb.token(i) for i in ids), vector=vec)


@dataclass(frozen=True)
class Neighbor:
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
                return (emb.token_table @ v) / np.where(norms == 0, 1.0, norms).astype(np.float32)
        return unit_rows(emb, space, centered) @ v
    if centered:
        raise QueryError("mean-centring applies to cosine similarity only; choose metric cosine")
    table = table_of(emb, space)
    if metric == "dot":
        return table @ vector
    if metric == "euclidean":
        sq = sq_norms(emb, space) - 2.0 * (table @ vector) + np.float32(vector @ vector)
        return np.sqrt(np.maximum(sq, 0.0))
    raise QueryError("metric must be one of {allowed}; got {metric!r}", allowed=", ".join(METRICS), metric=metric)


def top_k(values: np.ndarray, k: int, largest: bool = True, exclude: tuple[int, ...] = ()) -> np.ndarray:
    """Indices of the k best values, best first; ties broken by the smaller index."""
    v = values.astype(np.float64, copy=True)
    bad = -np.inf if largest else np.inf
    if exclude:
        v[list(exclude)] = bad
    v[~np.isfinite(v)] = bad
    k = max(0, min(k, int(np.isfinite(v).sum())))  # rows with NaN or Inf are never neighbours
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    key = -v if largest else v
    part = np.argpartition(key, k - 1)[:k] if k < v.size else np.arange(v.size)
    cut = key[part].max()
    cand = np.flatnonzero(key <= cut)  # every index tied with the k-th value, so ties go by index
    order = np.lexsort((cand, key[cand]))
    return cand[order][:k]


def _check_k(k: int) -> int:
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
        raise QueryError("k must be a whole number ≥ 1, got {k!r}", k=k)
    return int(k)


def neighbors(emb: Embeddings, query: str | int, k: int = 10, metric: str = "cosine", space: str = "input",
              centered: bool = False) -> tuple[Query, list[Neighbor]]:
    """The k rows closest to a word or id, exact over the whole table, the query's own ids excluded."""
    k = _check_k(k)
    q = resolve(emb, query, space)
    s = scores(emb, q.vector, metric, space, centered)
    idx = top_k(s, k, largest=metric != "euclidean", exclude=q.ids)
    return q, [Neighbor(int(i), emb.token(i), float(s[i])) for i in idx]


def analogy(emb: Embeddings, a: str | int, b: str | int, c: str | int, k: int = 10) -> tuple[list[Query], list[Neighbor]]:
    """A − B + C (king − man + woman ≈ queen): cosine search around the sum of unit vectors,
    the three inputs excluded from the answers."""
    k = _check_k(k)
    qa, qb, qc = (resolve(emb, w) for w in (a, b, c))
    target = _unit(qa.vector) - _unit(qb.vector) + _unit(qc.vector)
    s = scores(emb, target, "cosine")
    idx = top_k(s, k, exclude=tuple(sorted(set(qa.ids + qb.ids + qc.ids))))
    return [qa, qb, qc], [Neighbor(int(i), emb.token(i), float(s[i])) for i in idx]


def anisotropy(emb: Embeddings, n_pairs: int = ANISOTROPY_PAIRS, seed: int = 0, centered: bool = False) -> float:
    """Mean cosine of random pairs of distinct rows: 0 for directions spread evenly, larger when
    every vector leans the same way."""
    rng = np.random.default_rng(seed)
    i = rng.integers(0, emb.vocab_size, n_pairs)
    j = rng.integers(0, emb.vocab_size, n_pairs)
    keep = i != j
    i, j, t = i[keep], j[keep], emb.token_table
    cos = []
    for s in range(0, i.size, 4096):  # only the sampled rows, a few at a time: no unit copy of the whole table
        a, b = t[i[s:s + 4096]], t[j[s:s + 4096]]
        if centered:
            a, b = a - mean_row(emb), b - mean_row(emb)
        na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
        na[na == 0], nb[nb == 0] = 1.0, 1.0
        cos.append(np.einsum("ij,ij->i", a, b) / (na * nb))
    return float(np.concatenate(cos).mean())


def jaccard(a: list[int], b: list[int]) -> float:
    """|A ∩ B| / |A ∪ B| of two id lists (1 when both are empty)."""
    sa, sb = set(a), set(b)
    return 1.0 if not sa | sb else len(sa & sb) / len(sa | sb)


def input_output_cosines(emb: Embeddings) -> np.ndarray:
    """(V,) cos(input_i, output_i) for every token of an untied model."""
    return np.einsum("ij,ij->i", unit_rows(emb, "input"), unit_rows(emb, "output"))
