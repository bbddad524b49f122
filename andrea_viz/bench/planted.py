"""A seeded token table with planted classes, for measuring whether a map's region labels find them.

The recipe (``planted_table``): the classes' sizes follow Zipf's law from PLANTED_LARGEST rows down to
PLANTED_SMALLEST (``zipf_sizes``: as many classes, and the exponent, as make the sizes add up to the table's rows;
797 classes for 262,144 rows, 118 for 20,000, the largest scaled with the rows); every class has a unit centre,
drawn at random in one random PLANTED_RANK-dimensional subspace of the d dimensions (a token table's classes are
not all orthogonal: near classes share directions); each row is its class's centre times √w plus independent noise
of length √(1 − w), times a seeded length of its own (lognormal). Two rows of one class then have a cosine of about
w = PLANTED_WITHIN, below MiniLM's word classes (MINILM_WITHIN); two rows of different classes about w × the
cosine of their centres (0 on average). Rows are in a seeded random order, so a class is not a run of ids.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import QueryError

PLANTED_V, PLANTED_D = 262_144, 2_560  # Gemma-3's vocabulary and width
PLANTED_SMALLEST, PLANTED_LARGEST = 40, 40_000  # class sizes at PLANTED_V rows (the largest scales with the rows)
PLANTED_RANK = 40  # the class centres lie in a random subspace of this many dimensions
PLANTED_WITHIN = 0.25  # the mean cosine of two rows of one class (w above)
# The mean cosine of two words of one of the lesson's word classes (``lexicon.WORD_CLASSES``, the words that are one
# MiniLM token: 152 words, 18 classes) in MiniLM's token table, over all such pairs (0.304 as the mean of the 18
# classes' means; two random MiniLM tokens: 0.019). Measured 2026-12-02; PLANTED_WITHIN stays below it.
MINILM_WITHIN = 0.283


def zipf_sizes(rows: int, smallest: int = PLANTED_SMALLEST, largest: int | None = None) -> np.ndarray:
    """(classes,) class sizes, largest first, adding up to ``rows``: ``largest`` × r^−α for the r-th class, with α
    such that the last is ``smallest``, for the fewest classes whose sizes reach ``rows`` (what is over is taken
    from the largest). ``largest`` defaults to PLANTED_LARGEST scaled by rows / PLANTED_V (at least 4 × smallest)."""
    if largest is None:
        largest = max(4 * smallest, round(PLANTED_LARGEST * rows / PLANTED_V))
    if not 2 <= smallest < largest or rows < largest + smallest:
        raise QueryError("planted classes need 2 ≤ smallest < largest ≤ rows − smallest, got smallest {s:,}, "
                         "largest {l:,}, rows {r:,}", s=smallest, l=largest, r=rows)
    for n in range(2, rows // smallest + 1):
        alpha = np.log(largest / smallest) / np.log(n)
        sizes = np.round(largest * np.arange(1, n + 1, dtype=np.float64) ** -alpha).astype(np.int64)
        if sizes.sum() >= rows:
            sizes[0] -= sizes.sum() - rows
            return sizes
    raise QueryError("{r:,} rows cannot be split into Zipf-sized classes from {l:,} down to {s:,}",
                     r=rows, l=largest, s=smallest)


def planted_table(rows: int = PLANTED_V, dims: int = PLANTED_D, seed: int = 0, within: float = PLANTED_WITHIN,
                  rank: int = PLANTED_RANK, smallest: int = PLANTED_SMALLEST, largest: int | None = None,
                  block: int = 8_192):
    """(table, labels): a seeded (rows, dims) bf16 torch tensor of planted classes (the module's recipe) and each
    row's class, (rows,) int64, class 0 the largest. The same arguments give the same table, bit for bit."""
    import torch

    if not 0 < within < 1:
        raise QueryError("the within-class cosine must lie between 0 and 1, got {w}", w=within)
    if not 2 <= rank <= dims:
        raise QueryError("the centres' subspace needs 2 to {d:,} dimensions, got {r:,}", d=dims, r=rank)
    sizes = zipf_sizes(rows, smallest, largest)
    g = torch.Generator().manual_seed(seed)
    basis, _ = torch.linalg.qr(torch.randn(dims, rank, generator=g, dtype=torch.float64))  # (dims, rank)
    coords = torch.randn(sizes.size, rank, generator=g, dtype=torch.float64)
    centres = (coords / coords.norm(dim=1, keepdim=True)) @ basis.T  # (classes, dims), unit
    labels = torch.repeat_interleave(torch.arange(sizes.size), torch.from_numpy(sizes))
    labels = labels[torch.randperm(rows, generator=g)]
    table = torch.empty(rows, dims, dtype=torch.bfloat16)
    for s in range(0, rows, block):
        which = labels[s : s + block]
        noise = torch.randn(which.numel(), dims, generator=g, dtype=torch.float32)
        noise /= noise.norm(dim=1, keepdim=True)
        length = torch.exp(0.2 * torch.randn(which.numel(), 1, generator=g, dtype=torch.float32))
        row = (within ** 0.5) * centres[which].float() + ((1 - within) ** 0.5) * noise
        table[s : s + which.numel()] = (length * row).bfloat16()
    return table, labels.numpy()


def within_cosine(table, labels: np.ndarray, pairs: int = 100_000, seed: int = 0) -> float:
    """The mean cosine, in float64, of ``pairs`` seeded random pairs of distinct rows of one class (a random row,
    and another row of its class); every class of the recipe has the same expected cosine, so how the classes are
    weighted does not matter."""
    rng = np.random.default_rng(seed)
    labels = np.asarray(labels)
    order = np.argsort(labels, kind="stable")
    starts = np.searchsorted(labels[order], np.arange(labels.max() + 2))
    a = rng.integers(0, labels.size, pairs)
    cls = labels[a]
    lo, n = starts[cls], starts[cls + 1] - starts[cls]
    b = order[lo + (order.argsort()[a] - lo + rng.integers(1, n, pairs)) % n]  # another row of a's class
    rows = table[np.concatenate([a, b])]
    X = np.asarray(rows.float().numpy() if hasattr(rows, "float") else rows, np.float64)  # a torch or numpy table
    A, B = X[:pairs], X[pairs:]
    return float(np.mean(np.sum(A * B, 1) / (np.linalg.norm(A, axis=1) * np.linalg.norm(B, axis=1))))


def write_planted(folder: Path, rows: int = PLANTED_V, dims: int = PLANTED_D, seed: int = 0) -> tuple[Path, Path]:
    """The planted table as a one-tensor safetensors file (as ``safetensors.torch.save_file`` writes it) and its
    labels beside it (``labels.npy``, (rows,) int64). Returns the two paths."""
    from safetensors.torch import save_file

    table, labels = planted_table(rows, dims, seed)
    path, label_path = folder / "model.safetensors", folder / "labels.npy"
    save_file({"model.embed_tokens.weight": table}, str(path))
    np.save(label_path, labels)
    return path, label_path
