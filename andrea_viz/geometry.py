"""Vector geometry on a model's token table: lengths, dot products, cosines, neighbours.

All searches are exact, over every row of the table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import QueryError
from .model import Embeddings
from .tokenizer import ID_PATTERN

METRICS = ("cosine", "dot", "euclidean")


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


@dataclass(frozen=True)
class Query:
    """A word or id resolved against a model: its ids, their pieces, and the vector used."""

    text: str
    ids: tuple[int, ...]
    pieces: tuple[str, ...]
    vector: np.ndarray  # (d,) float32

    @property
    def note(self) -> str:
        if len(self.ids) == 1:
            return ""
        return f"“{self.text}” is {len(self.ids)} tokens ({' + '.join(self.pieces)}): its vector is the mean of their rows"


def resolve(emb: Embeddings, query: str | int, table: np.ndarray | None = None) -> Query:
    """Turn a word, ``#id`` or int into ids and a vector (the mean of the rows of its pieces)."""
    table = emb.token_table if table is None else table
    if isinstance(query, (int, np.integer)):
        ids = [int(query)]
        text = f"#{int(query)}"
    else:
        text = str(query).strip()
        if not text:
            raise QueryError("type a word or a token id such as #42; the box is empty")
        m = ID_PATTERN.match(text)
        if m:
            ids = [int(m.group(1))]
        else:
            ids = emb.tokenizer.lookup(text)
            if not ids:
                raise QueryError(f"“{text}” gives no tokens with this model's tokenizer")
            unk = emb.tokenizer.unknown_id
            if unk is not None and all(i == unk for i in ids):
                raise QueryError(f"“{text}” is not in this model's vocabulary (it maps to the unknown token)")
    for i in ids:
        if not 0 <= i < emb.vocab_size:
            raise QueryError(f"token id {i} is out of range: this model has ids 0 to {emb.vocab_size - 1:,}")
    vec = table[ids].mean(axis=0, dtype=np.float64).astype(np.float32)
    return Query(text=text, ids=tuple(ids), pieces=tuple(emb.token(i) for i in ids), vector=vec)


@dataclass(frozen=True)
class Neighbor:
    id: int
    token: str
    score: float


def scores(emb: Embeddings, vector: np.ndarray, metric: str = "cosine") -> np.ndarray:
    """(V,) float32 score of every token row against ``vector``.

    cosine and dot: higher is closer. euclidean: the distance, lower is closer.
    """
    if metric == "cosine":
        n = np.linalg.norm(vector)
        return emb.unit_table @ (vector / n if n > 0 else vector)
    if metric == "dot":
        return emb.token_table @ vector
    if metric == "euclidean":
        sq = emb.row_norms.astype(np.float32) ** 2 - 2.0 * (emb.token_table @ vector) + np.float32(vector @ vector)
        return np.sqrt(np.maximum(sq, 0.0))
    raise QueryError(f"metric must be one of {', '.join(METRICS)}; got {metric!r}")


def top_k(values: np.ndarray, k: int, largest: bool = True, exclude: tuple[int, ...] = ()) -> np.ndarray:
    """Indices of the k best values, best first; ties broken by the smaller index."""
    v = values.astype(np.float64, copy=True)
    bad = -np.inf if largest else np.inf
    if exclude:
        v[list(exclude)] = bad
    v[~np.isfinite(v)] = bad
    k = max(0, min(k, v.size - len(set(exclude))))
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    key = -v if largest else v
    part = np.argpartition(key, k - 1)[:k] if k < v.size else np.arange(v.size)
    cut = key[part].max()
    # take every index tied with the k-th value so the tie-break below is by index
    cand = np.flatnonzero(key <= cut)
    order = np.lexsort((cand, key[cand]))
    return cand[order][:k]


def neighbors(emb: Embeddings, query: str | int, k: int = 10, metric: str = "cosine") -> tuple[Query, list[Neighbor]]:
    """The k rows closest to a word or id, exact over the whole table, the query's own ids excluded."""
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise QueryError(f"k must be a whole number ≥ 1, got {k!r}")
    q = resolve(emb, query)
    s = scores(emb, q.vector, metric)
    idx = top_k(s, int(k), largest=metric != "euclidean", exclude=q.ids)
    return q, [Neighbor(int(i), emb.token(i), float(s[i])) for i in idx]
