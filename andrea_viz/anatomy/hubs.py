"""Hubs: tokens that appear in many other tokens' neighbour lists.

A token's k-occurrence N_k(i) is the number of other rows j whose k nearest rows by cosine (j itself left
out) include i. It is computed exactly over the whole table in blocks of query rows by the neighbour kit
(``neighbours.argkmin``), so memory grows with the block, not with V²; ties at the k-th place go to the smaller id.
The counts sum to V·k, less k for each row that holds NaN or Inf (left out: in no list, with no list of its own).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import QueryError, not_one_of
from ..neighbours import argkmin
from .undertrained import as_tensor

EXACT_LIMIT_CPU = 1.0e12  # multiply-adds (V² · d) an exact pass may take on a CPU: MiniLM is 3.6e11
EXACT_LIMIT_CUDA = 2.0e14
SAMPLE_ROWS = 20_000
VARIANTS = ("raw", "centred", "removed")


def device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def exact_cost(V: int, d: int) -> float:
    return float(V) * V * d


def fits_exact(V: int, d: int, on: str | None = None) -> bool:
    return exact_cost(V, d) <= (EXACT_LIMIT_CUDA if (on or device()) == "cuda" else EXACT_LIMIT_CPU)


def k_occurrence(table, k: int = 10, block: int | None = None, on: str | None = None,
                 progress: Callable[[float], None] | None = None) -> np.ndarray:
    """(V,) int64 N_k of every row, exact: every row's k nearest by cosine among all the others, from the
    neighbour kit (``neighbours.argkmin`` on torch, on ``on``: ties to the smaller id; a row holding NaN or Inf is
    in nobody's list, so its count is 0, and has no list of its own). ``block``: rows per product."""
    t = as_tensor(table)
    V = t.shape[0]
    if not 1 <= k < V:
        raise QueryError("k must be between 1 and {most:,} (the rows minus one), got {k}", most=V - 1, k=k)
    found = argkmin(t.float().cpu().numpy(), k, backend="torch", device=on or device(), block=block,
                    progress=progress)
    return np.bincount(found.ids[found.ids >= 0], minlength=V).astype(np.int64)


def sample_ids(V: int, n: int = SAMPLE_ROWS, seed: int = 0) -> np.ndarray:
    """A seeded sample of n row ids (sorted), or every id when V ≤ n."""
    if V <= n:
        return np.arange(V)
    return np.sort(np.random.default_rng(seed).choice(V, n, replace=False))


def skewness(counts: np.ndarray) -> float:
    """The skewness of the k-occurrence distribution (about 0 without hubs; large and positive with them)."""
    c = counts.astype(np.float64)
    s = c.std()
    return float(((c - c.mean()) ** 3).mean() / s**3) if s > 0 else 0.0


@dataclass(frozen=True)
class Hubs:
    counts: np.ndarray  # (n,) int64 over the rows searched
    ids: np.ndarray  # (n,) the table ids of those rows (all ids for an exact pass)
    k: int
    exact: bool

    def top(self, n: int = 20) -> list[tuple[int, int]]:
        """(id, count) of the n largest counts, largest first (ties by the smaller id)."""
        order = np.lexsort((self.ids, -self.counts))[:n]
        return [(int(self.ids[i]), int(self.counts[i])) for i in order]

    @property
    def skewness(self) -> float:
        return skewness(self.counts)

    @property
    def never(self) -> int:
        """Rows in no other row's k nearest (anti-hubs)."""
        return int((self.counts == 0).sum())


def hubs(table, k: int = 10, sample: int | None = None, seed: int = 0, on: str | None = None,
         progress: Callable[[float], None] | None = None) -> Hubs:
    """k-occurrence over the whole table, or over a seeded sample of ``sample`` rows (neighbours among them)."""
    t = as_tensor(table)
    ids = np.arange(t.shape[0]) if sample is None else sample_ids(t.shape[0], sample, seed)
    rows = t if sample is None else t[ids]
    return Hubs(k_occurrence(rows, k, on=on, progress=progress), ids, k, sample is None or ids.size == t.shape[0])


def variant_table(table: np.ndarray, variant: str, dims: tuple[int, ...] = ()) -> np.ndarray:
    """The table as searched: ``raw``, ``centred`` (the mean row subtracted) or ``removed`` (columns dims zeroed)."""
    if variant == "raw":
        return table
    if variant == "centred":
        return table - table.mean(axis=0, dtype=np.float64).astype(np.float32)
    if variant == "removed":
        t = np.array(table)
        t[:, list(dims)] = 0.0
        return t
    raise not_one_of("variant", variant, VARIANTS)
