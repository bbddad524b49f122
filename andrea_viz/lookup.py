"""The embedding layer as a lookup table: row selection, its one-hot equivalent, value statistics."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import QueryError
from .model import block_rows, row_blocks


def row(table: np.ndarray, token_id: int) -> np.ndarray:
    """Row ``token_id`` of a (V, d) table: the whole embedding layer is this index."""
    if not 0 <= token_id < table.shape[0]:
        raise QueryError("token id {id} is out of range: the table has rows 0 to {last}", id=token_id,
                         last=table.shape[0] - 1)
    return table[token_id]


def unchanged_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Ids whose rows are bit-for-bit equal in two tables of the same shape: a row is only read, and so only
    trained, when its id is looked up, so a row never looked up stays as it was."""
    if a.shape != b.shape:
        raise QueryError("the tables have shapes {a} and {b}; they must be equal", a=str(a.shape), b=str(b.shape))
    return np.flatnonzero((a == b).all(axis=1))


def one_hot(token_id: int, V: int) -> np.ndarray:
    """(V,) float32 vector with a single 1 at ``token_id``."""
    e = np.zeros(V, dtype=np.float32)
    e[token_id] = 1.0
    return e


@dataclass(frozen=True)
class OneHotCheck:
    product: np.ndarray  # (d,) one_hot(id) @ table
    row: np.ndarray  # (d,) table[id]
    max_abs_diff: float
    multiply_adds: int  # what the matrix product costs: V·d


def one_hot_product(table: np.ndarray, token_id: int) -> OneHotCheck:
    """Compute one_hot(id) @ table the long way and compare it with the row lookup."""
    r = row(table, token_id)
    product = one_hot(token_id, table.shape[0]) @ table  # (V,) @ (V, d) -> (d,)
    diff = float(np.max(np.abs(product - r))) if r.size else 0.0
    return OneHotCheck(product=product, row=r, max_abs_diff=diff, multiply_adds=table.size)


def block_average(table: np.ndarray, max_rows: int = 512, max_cols: int = 384) -> tuple[np.ndarray, int, int]:
    """Average (rb × cb) blocks so the result has at most max_rows × max_cols cells.

    Returns (averaged, rb, cb); the last partial block of rows or columns is averaged as is.
    """
    V, d = table.shape
    rb = -(-V // max_rows)
    cb = -(-d // max_cols)

    def _avg(a: np.ndarray, b: int, axis: int) -> np.ndarray:
        if b == 1:
            return a
        n = a.shape[axis]
        starts = np.arange(0, n, b)
        sums = np.add.reduceat(a, starts, axis=axis, dtype=np.float64)
        counts = np.diff(np.append(starts, n))
        shape = [1, 1]
        shape[axis] = -1
        return sums / counts.reshape(shape)

    step = max(1, block_rows(d) // rb) * rb  # whole row-blocks at a time: no float64 copy of the whole table
    rows = np.concatenate([_avg(table[i:i + step], rb, 0) for i in range(0, V, step)])
    out = _avg(rows, cb, 1).astype(np.float32)
    return out, rb, cb


@dataclass(frozen=True)
class ValueStats:
    counts: np.ndarray  # (bins,)
    edges: np.ndarray  # (bins + 1,)
    mean: float
    std: float
    init_std: float | None  # the standard deviation of the family's init, when it is known
    excess_kurtosis: float  # 0 for a normal distribution

    @property
    def density(self) -> np.ndarray:
        widths = np.diff(self.edges)
        return self.counts / (self.counts.sum() * widths)


def value_stats(table: np.ndarray, init: float | None = None, bins: int = 120) -> ValueStats:
    """Histogram of every entry with its mean and std, beside the standard deviation ``init`` of the
    family's initialisation (1/sqrt(d) for ANDREA, 0.02 for GPT-2 and BERT) when it is known."""
    blocks = row_blocks(table)  # no copy of the whole table
    n = table.size
    mean = sum(float(b.sum(dtype=np.float64)) for b in blocks) / n
    m2 = m4 = 0.0
    for b in blocks:
        c = b.astype(np.float64) - mean
        c *= c
        m2 += float(c.sum())
        m4 += float((c * c).sum())
    std = (m2 / n) ** 0.5
    lim = max(6.0 * std, 6.0 * (init or 0.0)) or 1.0
    edges = np.histogram_bin_edges(np.zeros(0), bins=bins, range=(mean - lim, mean + lim))
    counts = sum(np.histogram(b, bins=edges)[0] for b in blocks)
    z4 = m4 / n / std**4 if std > 0 else 0.0
    return ValueStats(counts, edges, mean, std, init, z4 - 3.0)


def normal_pdf(x: np.ndarray, std: float) -> np.ndarray:
    return np.exp(-0.5 * (x / std) ** 2) / (std * np.sqrt(2 * np.pi))


def expected_init_norm(d: int, init: float | None) -> float | None:
    """Length of a row of d entries drawn with standard deviation ``init``: about sqrt(d)·init (1 for
    ANDREA's 1/sqrt(d)); None when the init is not known."""
    return None if init is None else float(np.sqrt(d) * init)
