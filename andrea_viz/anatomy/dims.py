"""Dimensions that dominate: per-dimension moments, and how much of the average cosine each carries.

The average cosine over all pairs of distinct rows splits exactly by dimension: with unit rows u_i,
``mean_{i≠j} u_i·u_j = Σ_k c_k`` where ``c_k = ((Σ_i u_ik)² − Σ_i u_ik²) / (V (V − 1))``. A "rogue"
dimension has a large c_k: a large mean or variance that every row shares, which inflates every raw cosine.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import Embeddings
from .undertrained import as_tensor
from ..errors import QueryError
from .. import lexicon
from ..geometry import anisotropy, cosine, mean_row, neighbours, resolve
from ..model_words import model_language

BLOCK_ROWS = 1024


@dataclass(frozen=True)
class DimStats:
    mean: np.ndarray  # (d,) float64
    std: np.ndarray  # (d,) float64
    kurtosis: np.ndarray  # (d,) float64, excess (0 for a normal distribution)
    contribution: np.ndarray  # (d,) float64: c_k, each dimension's part of the average cosine
    rows: int

    @property
    def avg_cosine(self) -> float:
        return float(self.contribution.sum())

    @property
    def order(self) -> np.ndarray:
        """Dimensions by their part of the average cosine, largest first (ties by the smaller index)."""
        return np.lexsort((np.arange(self.contribution.size), -self.contribution))

    def top(self, k: int) -> tuple[int, ...]:
        return tuple(int(i) for i in self.order[:k])

    def share(self, k: int) -> float | None:
        """The share of the average cosine carried by the top k dimensions; None when the average is not above 0 (its
        parts then cancel, and a share of it, −216% on a table whose average is −0.001, says nothing)."""
        total = self.avg_cosine
        return float(self.contribution[self.order[:k]].sum() / total) if total > 0 else None


def dim_stats(table) -> DimStats:
    """Moments and cosine parts of a (V, d) table (numpy, or a torch tensor of any float dtype), in row blocks.

    Column sums are matrix-vector products (fast on a CPU); moments are taken about the first block's mean
    so that float32 block sums stay exact enough before they are added up in float64."""
    import torch

    t = as_tensor(table)
    V, d = t.shape
    dev = t.device
    shift = t[: min(V, BLOCK_ROWS)].float().mean(dim=0)  # (d,)
    s = torch.zeros(4, d, dtype=torch.float64, device=dev)  # Σ x, x², x³, x⁴ about the shift
    uu = torch.zeros(2, d, dtype=torch.float64, device=dev)  # Σ u, Σ u² of the unit rows
    for a in range(0, V, BLOCK_ROWS):
        blk = t[a:a + BLOCK_ROWS]
        xs = blk - shift if blk.dtype == torch.float32 else blk.float().sub_(shift)  # (b, d), a fresh buffer
        xp = xs * xs  # x², then x³ and x⁴ in place
        sq = xp.sum(dim=1) + 2.0 * (xs @ shift) + shift @ shift  # (b,) ‖x‖²
        w = torch.where(sq > 0, sq.rsqrt(), torch.zeros_like(sq))  # (b,) 1/‖x‖
        W = torch.stack([torch.ones_like(w), w, w * w])  # (3, b)
        a1, a2 = W @ xs, W @ xp  # (3, d) each: Σ x, Σ w x, Σ w² x and the same of x²
        uu[0] += (a1[1] + w.sum() * shift).double()  # Σ x/‖x‖
        uu[1] += (a2[2] + 2.0 * shift * a1[2] + shift * shift * W[2].sum()).double()  # Σ x²/‖x‖²
        s3 = W[0] @ xp.mul_(xs)
        s4 = W[0] @ xp.mul_(xs)
        s += torch.stack([a1[0], a2[0], s3, s4]).double()
    m1, m2, m3, m4 = (v.cpu().numpy() / V for v in s)
    var = np.maximum(m2 - m1**2, 0.0)
    mu4 = m4 - 4 * m1 * m3 + 6 * m1**2 * m2 - 3 * m1**4
    with np.errstate(invalid="ignore", divide="ignore"):
        kurt = np.where(var > 0, mu4 / np.where(var > 0, var, 1.0) ** 2 - 3.0, 0.0)
    usum, usq = uu.cpu().numpy()
    contribution = (usum**2 - usq) / (V * (V - 1)) if V > 1 else np.zeros(d)
    return DimStats(shift.double().cpu().numpy() + m1, np.sqrt(var), kurt, contribution, V)


def stats_of(emb: Embeddings) -> DimStats:
    return emb.memo(("anatomy", "dims"), lambda: dim_stats(emb.token_table))


def without_dims(emb: Embeddings, dims: tuple[int, ...]) -> Embeddings:
    """The model with the token table's columns ``dims`` set to zero (so they count in no cosine); the same
    tokenizer, a key of its own."""
    from dataclasses import replace

    dims = tuple(sorted(int(i) for i in dims))
    if not dims:
        return emb

    def make() -> Embeddings:
        t = np.array(emb.token_table)
        t[:, list(dims)] = 0.0
        return replace(emb, token_table=t, key=f"{emb.key}|without:{','.join(map(str, dims))}")

    return emb.memo(("anatomy", "without", dims), make)


@dataclass(frozen=True)
class View:
    """One way of measuring cosines: the raw table, the mean-centred one, or the table without some dimensions."""

    name: str  # "raw" | "centred" | "removed"
    anisotropy: float
    neighbours: list  # geometry.Neighbour of the word, or [] when it cannot be looked up
    pairs: list[tuple[str, str, float]]  # (a, b, cosine) for the lesson's pairs the model knows


def word_pair_cosines(emb: Embeddings, pairs, centered: bool = False) -> list[tuple[str, str, float]]:
    out = []
    for a, b in pairs:
        try:
            va, vb = resolve(emb, a).vector, resolve(emb, b).vector
        except QueryError:
            continue
        if centered:
            va, vb = va - mean_row(emb), vb - mean_row(emb)
        out.append((a, b, cosine(va, vb)))
    return out


def views(emb: Embeddings, word: str | None, remove: int, k: int = 10) -> list[View]:
    """Raw, mean-centred, and with the ``remove`` dimensions that carry most of the average cosine zeroed:
    each with its anisotropy, the word's k nearest and the lesson's pairs."""
    pairs = lexicon.lesson_pairs(model_language(emb))  # the lesson's pairs in the model's own language (kat / hond)
    stripped = without_dims(emb, stats_of(emb).top(remove))
    out = []
    for name, model, centred in (("raw", emb, False), ("centred", emb, True), ("removed", stripped, False)):
        try:
            found = neighbours(model, word, k, "cosine", "input", centred)[1] if word else []
        except QueryError:
            found = []
        out.append(View(name, anisotropy(model, centred), found,
                        word_pair_cosines(model, pairs, centred)))
    return out
