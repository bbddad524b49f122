"""Two token tables of different vocabularies (or widths) put in one space.

- Anchors: pairs of ids (one in A, one in B) that mean the same token. Tokens whose normalised strings match
  (``fold_token``: the word-start signs ``Ġ`` and ``▁`` and the word-piece sign ``##`` folded, case kept), and, for
  two languages the lexicon knows, the lesson's words across the four grown models (``andrea_viz.lexicon``: kat and
  cat, hond and dog …). A model without a tokenizer has no strings, so no anchors.
- The maps, each fitted on 80% of the anchors (a seeded split): the orthogonal Procrustes map with scale,
  ``x ↦ s·(x − μ_A)·R + μ_B`` (R a d_A × d_B matrix with orthonormal rows or columns, so widths may differ), and two
  anchor maps that place a row from its cosines to the fitted anchors' A rows (``AnchorMap``): kernel ridge regression
  on the kernel exp((cos − 1)/τ), and the softmax-weighted mean of the k nearest anchors (tokensurgeon's average with
  its k and temperature tuned). Each predicts a direction (the mean of unit B rows) and a length apart, so a mapped
  row has B's scale. The map used (``Alignment.map``) is the one whose held-in median cosine is best by
  cross-validation inside the 80% (``choose_map``); the held-out 20% is never seen by the choice. Grown 64-wide
  tables are not rotations of each other (two seeds of one tokenizer: Procrustes 0.51 held out, anchor maps 0.74),
  but the Procrustes map stays at hand (``Alignment.procrustes``) for the picture of one table rotated onto another.
- Its quality, on the 20% held out: the median cosine of each mapped A row against its true B row, and Jaccard@10
  of neighbour sets mapped through the anchors (an anchor's 10 nearest anchors in A, taken to their B ids, against
  its 10 nearest anchors in B). Beside it, the nearest-anchor baseline of mergekit's tokensurgeon: a held-out
  token's B row guessed as the cosine-weighted mean of the B rows of its nearest training anchors in A.
- Every other token of A placed in B's space (``Alignment.place``), with its nearest B token and a confidence: the
  cosine of the mapped row to that nearest B row.

Large tables: the Procrustes fit is one d_A × d_B product over the training anchors; an anchor map keeps at most
``MEMORY`` of them (a seeded sample); tables wider than ``CV_WIDTH`` are cross-validated on one inner split instead of
``FOLDS`` (each fold costs a d_A × d_B polar factor, ``polar``), on at most ``CV_CHECK`` anchors; neighbour sets and the
baseline are computed on a stated, seeded sample of held-out anchors (``JUDGE_SAMPLE``), in blocks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .errors import QueryError
from .geometry import unit_rows
from .i18n import N_
from .lexicon import MORE_PAIRS, WORDS, language_of
from .model import Embeddings
from .neighbours import Found, Units, argkmin, argkmin_each, jaccard_rows, normalise, select_k
from .tokenizer import IdTokenizer

FOLDED = ("Ġ", "▁", "##", " ")  # GPT-2's and SentencePiece's word-start signs, WordPiece's continuation sign, a space
TRAIN_SHARE = 0.8
JACCARD_K = 10
BASELINE_K = 8  # training anchors a held-out token's baseline guess is made from
JUDGE_SAMPLE = 1_000  # held-out anchors whose neighbour sets and baseline guess are computed when there are more
MIN_ANCHORS = 10  # fewer cannot be split 80/20 into a fit and a judgement worth a number
BLOCK = 2_048
# the anchor maps' candidates, every one tried by cross-validation inside the fit set
KERNEL_TAUS = (0.1, 0.2, 0.5, 1.0)
KERNEL_LAMBDAS = (0.01, 0.1, 1.0)
NEAREST_KS = (4, 8, 16, 32)
NEAREST_TAUS = (0.05, 0.1, 0.2)
NEAREST_BETAS = (0.0, 0.5, 1.0)  # the hubness correction (CSLS's): cos − β·(a memory anchor's mean cosine to its
HUB_K = 10  # HUB_K nearest other memory anchors), so an anchor near many others is not everyone's neighbour
FOLDS = 5
CV_WIDTH = 1_024  # tables wider than this (d_A or d_B) are cross-validated on one inner 80/20 split, not FOLDS
CV_CHECK = 1_000  # validation anchors per fold at most (a seeded sample)
MEMORY = 1_024  # fitted anchors an anchor map keeps at most (a seeded sample)


def fold_token(token: str) -> str:
    """A token's string with one leading ``Ġ``, ``▁`` or ``##`` folded away (case kept); the sign alone stays."""
    for sign in FOLDED:
        if token.startswith(sign) and len(token) > len(sign):
            return token[len(sign):]
    return token


def _by_string(tokens: list[str]) -> dict[str, int]:
    """normalised string → id; a string that several ids share goes to the id whose token is the string itself,
    else to the smallest id."""
    out: dict[str, int] = {}
    for i, t in enumerate(tokens):
        n = fold_token(t)
        if n not in out or (t == n and tokens[out[n]] != n):
            out[n] = i
    return out


@dataclass(frozen=True)
class Anchors:
    a: np.ndarray  # (n,) ids in A
    b: np.ndarray  # (n,) ids in B, b[i] the same token as a[i]
    kind: np.ndarray  # (n,) "string" or "lexicon"

    def __len__(self) -> int:
        return int(self.a.size)

    def count(self, kind: str) -> int:
        return int((self.kind == kind).sum())


def string_anchors(tokens_a: list[str], tokens_b: list[str]) -> list[tuple[int, int]]:
    """(id in A, id in B) for every normalised string both vocabularies hold, in A's id order."""
    ia, ib = _by_string(tokens_a), _by_string(tokens_b)
    return sorted((ia[s], ib[s]) for s in ia.keys() & ib.keys())


def lexicon_anchors(tokens_a: list[str], tokens_b: list[str], lang_a: str | None, lang_b: str | None
                    ) -> list[tuple[int, int]]:
    """(id in A, id in B) for each of the lexicon's words that both models hold, when both languages are known and
    differ (the lesson's words and Predict similarity's pairs, which stand in the same place in every language)."""
    if lang_a is None or lang_b is None or lang_a == lang_b or lang_a not in WORDS or lang_b not in WORDS:
        return []
    words = [(WORDS[lang_a][k], WORDS[lang_b][k]) for k in WORDS[lang_a]]
    for (x, y), (u, v) in zip(MORE_PAIRS[lang_a], MORE_PAIRS[lang_b], strict=True):
        words += [(x, u), (y, v)]
    ia, ib = _by_string(tokens_a), _by_string(tokens_b)
    return sorted({(ia[x], ib[y]) for x, y in words if x in ia and y in ib})


def _tokens(emb: Embeddings) -> list[str]:
    """Every token's string; none for a model without a tokenizer (its "#42" names ids, not strings)."""
    tok = emb.tokenizer
    return [] if isinstance(tok, IdTokenizer) else [str(tok.token(i)) for i in range(emb.vocab_size)]


def find_anchors(a: Embeddings, b: Embeddings) -> Anchors:
    """Every anchor of two models: the lexicon's word pairs first (they win over a shared string), then shared
    strings; each id of A and of B in one anchor at most."""
    ta, tb = _tokens(a), _tokens(b)
    lex = lexicon_anchors(ta, tb, language_of(a.key) or language_of(a.name), language_of(b.key) or language_of(b.name))
    pairs, kinds, used_a, used_b = [], [], set(), set()
    for kind, found in (("lexicon", lex), ("string", string_anchors(ta, tb))):
        for x, y in found:
            if x not in used_a and y not in used_b:
                pairs.append((x, y))
                kinds.append(kind)
                used_a.add(x)
                used_b.add(y)
    order = np.argsort([x for x, _ in pairs], kind="stable")
    arr = np.asarray(pairs, np.int64).reshape(-1, 2)[order]
    return Anchors(arr[:, 0], arr[:, 1], np.asarray(kinds, dtype=object)[order] if kinds else np.zeros(0, object))


def check_anchors(anchors: Anchors, a_name: str, b_name: str) -> None:
    if len(anchors) < MIN_ANCHORS:
        raise QueryError("expected two models whose vocabularies share at least {need} tokens (the same string, or "
                         "one of the lesson's words in both languages) to align them on, but {a} and {b} share {n}",
                         need=MIN_ANCHORS, a=a_name, b=b_name, n=len(anchors))


# --- the map ---------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Map:
    """x ↦ scale·(x − mean_a)·rotation + mean_b."""

    rotation: np.ndarray  # (d_A, d_B), orthonormal columns (d_A ≥ d_B) or rows (d_A ≤ d_B)
    scale: float
    mean_a: np.ndarray
    mean_b: np.ndarray

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        x = np.asarray(rows, np.float32) - self.mean_a.astype(np.float32)
        return np.float32(self.scale) * (x @ np.asarray(self.rotation, np.float32)) + self.mean_b.astype(np.float32)


@dataclass(frozen=True)
class Moments:
    """What a Procrustes fit reads of its anchors' rows: their count, column sums, the uncentred xᵀy (d_A × d_B)
    and ‖x‖²; two disjoint sets' moments add up to their union's, so a fit on all the training anchors reuses the
    inner split's products (xᵀy is most of a wide fit's time)."""

    n: int
    sx: np.ndarray
    sy: np.ndarray
    xy: np.ndarray
    sq: float

    def __add__(self, other: Moments) -> Moments:
        return Moments(self.n + other.n, self.sx + other.sx, self.sy + other.sy, self.xy + other.xy,
                       self.sq + other.sq)

    @property
    def means(self) -> tuple[np.ndarray, np.ndarray]:
        """(μ_x, μ_y), the column means of either side."""
        return self.sx / max(self.n, 1), self.sy / max(self.n, 1)

    def centred(self) -> np.ndarray:
        """xcᵀyc, both sides centred: xᵀy − n·μ_x·μ_yᵀ (no centred copy of either side is made)."""
        mx, my = self.means
        return self.xy - self.n * np.outer(mx, my)


def moments(x: np.ndarray, y: np.ndarray, rows: np.ndarray | None = None) -> Moments:
    """The moments of rows ``x`` (n, d_A) and ``y`` (n, d_B) (only ``rows`` of both, when given), summed over blocks
    of rows: xᵀy in float32 per block, summed in float64."""
    idx = np.arange(x.shape[0]) if rows is None else np.asarray(rows, np.int64)
    sx, sy = np.zeros(x.shape[1]), np.zeros(y.shape[1])
    xy, sq = np.zeros((x.shape[1], y.shape[1])), 0.0
    step = BLOCK * 4
    # one buffer each for the gathered rows and the block's product, reused: a fresh 128 MiB array per block is
    # memory the kernel must fault in again (a third of the products' time at 50,000 × 4,096)
    bufs = [np.empty((min(step, idx.size), t.shape[1]), np.float32) for t in (x, y)]
    prod = np.empty((x.shape[1], y.shape[1]), np.float32)
    for i in range(0, idx.size, step):
        part = idx[i:i + step]
        xb, yb = (_gather(t, part, buf[:part.size]) for t, buf in zip((x, y), bufs, strict=True))
        xy += np.matmul(xb.T, yb, out=prod)
        sx += xb.sum(axis=0, dtype=np.float64)
        sy += yb.sum(axis=0, dtype=np.float64)
        sq += float(np.einsum("ij,ij->", xb, xb, dtype=np.float64))
    return Moments(int(idx.size), sx, sy, xy, sq)


def _gather(table: np.ndarray, rows: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``table[rows]`` as float32, into ``out`` when the table is float32 already."""
    if isinstance(table, np.ndarray) and table.dtype == np.float32:
        return np.take(table, rows, axis=0, out=out)
    return np.asarray(table[rows], np.float32)


def fit_moments(m: Moments) -> Map:
    """The orthogonal Procrustes map with scale of anchors with moments ``m``: both sides centred, R = U·Vᵀ from the
    thin SVD of the centred xᵀy (its polar factor, ``polar``), scale = (sum of its singular values) / ||x − mean||².
    No centred copy of either side is made: xcᵀyc = xᵀy − n·μ_x·μ_yᵀ and ||xc||² = ||x||² − n·||μ_x||²."""
    mx, my = m.means
    rotation, singular_sum = polar(m.centred())
    total = m.sq - m.n * float(mx @ mx)
    return Map(rotation=rotation, scale=singular_sum / total if total > 0 else 1.0, mean_a=mx, mean_b=my)


def fit_map(x: np.ndarray, y: np.ndarray, rows: np.ndarray | None = None) -> Map:
    """The orthogonal Procrustes map with scale that best takes rows ``x`` (n, d_A) onto rows ``y`` (n, d_B) (only
    ``rows`` of both, when given)."""
    return fit_moments(moments(x, y, rows))


WIDE_SVD = 1_024  # above this many columns on both sides the polar factor is found in float32
EIGH_COND = 100.0  # the eigh road is taken up to this ratio of largest to smallest singular value: its rotation
# then stays within 10⁻⁵ of float64's SVD (an error that grows as the ratio's square); above it, torch's SVD
ORTHONORMAL = 1e-5  # the largest entry of RᵀR − I a float32 rotation may keep
REFINE_STEPS = 4  # Newton–Schulz steps at most


def polar(m: np.ndarray) -> tuple[np.ndarray, float]:
    """(R, sum of singular values) of ``m`` (d_A × d_B): R = U·Vᵀ from its thin SVD U·S·Vᵀ, the orthonormal factor
    of its polar decomposition, the rotation Procrustes asks for. Small matrices: numpy's SVD in float64. A wide one
    (both sides above WIDE_SVD): from the eigendecomposition of its Gram matrix in float32, R = m·V·S⁻¹·Vᵀ refined by
    Newton–Schulz steps until orthonormal (``polar_by_eigh``), when its singular values are within EIGH_COND of
    each other; else torch's SVD in float32. Measured side by side on 2 cores for 4,096 × 4,096 (``bench-audit``)."""
    if min(m.shape) <= WIDE_SVD:
        u, s, vt = np.linalg.svd(m, full_matrices=False)
        return u @ vt, float(s.sum())
    found = polar_by_eigh(m)
    return found if found is not None else polar_by_svd(m)


def polar_by_svd(m: np.ndarray) -> tuple[np.ndarray, float]:
    """``polar(m)`` from torch's thin SVD in float32 (the road of a wide ``m`` whose singular values spread)."""
    import torch  # only here: the app's other pages need no torch to start

    u, s, vt = torch.linalg.svd(torch.from_numpy(np.ascontiguousarray(m, np.float32)), full_matrices=False)
    return (u @ vt).numpy(), float(s.double().sum())


def polar_by_eigh(m: np.ndarray) -> tuple[np.ndarray, float] | None:
    """``polar(m)`` through mᵀm = V·S²·Vᵀ (of the narrower side; a wide m is done as its transpose): R = m·V·S⁻¹·Vᵀ,
    then R ← R·(I − (RᵀR − I)/2) (Newton–Schulz) until no entry of RᵀR − I exceeds ORTHONORMAL. An error in S
    alone leaves R's singular vectors right and is removed by those steps (their fixed point is m's own polar
    factor), so float32 suffices while S is well resolved; None when it is not (singular values further apart than
    EIGH_COND) or the steps do not reach ORTHONORMAL."""
    import scipy.linalg  # only here: a wide map is rare and scipy.linalg takes a moment to import

    if m.shape[0] < m.shape[1]:
        found = polar_by_eigh(m.T)
        return None if found is None else (np.ascontiguousarray(found[0].T), found[1])
    m32 = np.ascontiguousarray(m, np.float32)
    if not np.isfinite(m32).all():
        return None
    lam, v = scipy.linalg.eigh(m32.T @ m32, driver="evd", overwrite_a=True, check_finite=False)
    s = np.sqrt(np.maximum(lam, 0.0))
    if not np.isfinite(s).all() or s[-1] == 0 or s[0] * EIGH_COND < s[-1]:
        return None
    r = ((m32 @ v) / s.astype(np.float32)) @ v.T
    for step in range(REFINE_STEPS + 1):
        e = r.T @ r
        e[np.diag_indices_from(e)] -= 1.0
        if np.abs(e).max() <= ORTHONORMAL:
            return r, float(s.sum(dtype=np.float64))
        if step < REFINE_STEPS:
            r -= 0.5 * (r @ e)
    return None


def split(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(train, held out) positions of ``n`` anchors: a seeded shuffle, 80% / 20% (at least one of each)."""
    order = np.random.default_rng(seed).permutation(n)
    cut = min(max(1, int(round(TRAIN_SHARE * n))), n - 1)
    return np.sort(order[:cut]), np.sort(order[cut:])


def row_cosines(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(n,) the cosine of each row of ``x`` with the same row of ``y``, summed in float64 without a widened copy of
    either (0 where a row is all zero, NaN where one holds NaN or Inf)."""
    dot = np.einsum("ij,ij->i", x, y, dtype=np.float64)
    lengths = np.sqrt(np.einsum("ij,ij->i", x, x, dtype=np.float64) * np.einsum("ij,ij->i", y, y, dtype=np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = dot / lengths
    out[lengths == 0] = 0.0
    return out


# --- the anchor maps -------------------------------------------------------------------------------------------------

def _memory_cosines(rows: np.ndarray, memory: np.ndarray) -> np.ndarray:
    """(n, m) cosines of ``rows`` (A space) to ``memory`` (unit rows), float32, in blocks."""
    out = np.empty((rows.shape[0], memory.shape[0]), np.float32)
    for s in range(0, rows.shape[0], BLOCK):
        out[s:s + BLOCK] = unit_rows(np.asarray(rows[s:s + BLOCK], np.float32)) @ memory.T
    return np.nan_to_num(out, nan=0.0)


def _targets(y: np.ndarray) -> np.ndarray:
    """(n, d_B + 1): each B row's direction (unit row) and, in the last column, its length."""
    y = np.asarray(y, np.float64)
    return np.hstack([unit_rows(y), np.linalg.norm(y, axis=1, keepdims=True)])


@dataclass(frozen=True)
class CheckProducts:
    """What the nearest maps' cross-validation cosines are read from (``AnchorMap.check_cosines``), made once per
    memory: the check rows' unit B rows against the memory's B directions, and those directions' Gram matrix."""

    to_memory: np.ndarray  # (n, m) float64
    gram: np.ndarray  # (m, m) float64

    @classmethod
    def of(cls, targets: np.ndarray, y: np.ndarray) -> CheckProducts:
        dirs = np.asarray(targets[:, :-1], np.float64)
        return cls(unit_rows(np.asarray(y, np.float64)) @ dirs.T, dirs @ dirs.T)


@dataclass(frozen=True)
class AnchorMap:
    """A row of A placed in B's space from its cosines c to the ``memory`` anchors' A rows: z = w(c)·coef + offset,
    the first d_B columns of z a direction, the last its length; the mapped row is unit(direction)·length.
    ``kind`` "kernel": kernel ridge regression, w = exp((c − 1)/τ), coef = (K + λI)⁻¹(targets − offset) with K the
    memory's own kernel; "nearest": w the softmax at temperature τ of the k largest scores c − β·hub (others 0), hub
    each memory anchor's mean cosine to its HUB_K nearest others (CSLS's hubness correction), coef the targets
    themselves, offset 0."""

    kind: str
    memory: np.ndarray  # (m, d_A) unit rows of A at the memory anchors
    coef: np.ndarray  # (m, d_B + 1)
    offset: np.ndarray  # (d_B + 1,)
    tau: float
    lam: float = 0.0  # kernel only
    k: int = 0  # nearest only
    beta: float = 0.0  # nearest only
    hub: np.ndarray | None = None  # (m,) nearest only

    def ranked(self, cos: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(positions, scores) of the k best memory anchors of each row by its scores c − β·hub, best first."""
        return select_k(cos - np.float32(self.beta) * self.hub.astype(np.float32) if self.beta else cos, k, checked=True)

    def weights(self, ranked: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(positions (n, k), softmax weights (n, k) float64) of a nearest map's k best memory anchors, from its
        ``ranked`` of some k' ≥ k."""
        top, best = ranked[0][:, :self.k], ranked[1][:, :self.k].astype(np.float64)
        e = np.exp((best - best[:, :1]) / self.tau)
        return top, e / e.sum(1, keepdims=True)

    def check_cosines(self, ranked: tuple[np.ndarray, np.ndarray], near: CheckProducts) -> np.ndarray:
        """A nearest map's ``row_cosines(self.from_cosines(cos, ranked), y)`` for the rows ``near`` was made from,
        without mapping a row: the mapped direction is Σ e_j u_j over the memory's unit B rows u_j, so its dot with
        a unit y is e · (y·u_j) and its squared length eᵀ(u_j·u_l)e; a row whose mapped length is 0 has cosine 0."""
        top, e = self.weights(ranked)
        dot = np.einsum("nk,nk->n", e, np.take_along_axis(near.to_memory, top, 1))
        sq = np.einsum("nk,nkl,nl->n", e, near.gram[top[:, :, None], top[:, None, :]], e)
        length = np.einsum("nk,nk->n", e, self.coef[top, -1])
        with np.errstate(invalid="ignore", divide="ignore"):
            out = dot / np.sqrt(sq)
        out[(length <= 0) | (sq <= 0)] = 0.0
        return out

    def from_cosines(self, cos: np.ndarray, ranked: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """The mapped rows (n, d_B) of rows whose cosines to the memory are ``cos`` (n, m); ``ranked``: this map's
        ``ranked(cos, k')`` for some k' ≥ k, when already known (nearest only)."""
        if self.kind == "kernel":
            z = np.exp((cos.astype(np.float64) - 1.0) / self.tau) @ self.coef + self.offset
        else:  # the softmax weights of the k best anchors written into an (n, m) matrix, the rest 0: one product
            # (gathering one rank at a time was 9 s of 50,000 × 4,096)
            top, e = self.weights(ranked or self.ranked(cos, self.k))
            w = np.zeros((cos.shape[0], self.coef.shape[0]), np.float32)
            np.put_along_axis(w, top, e.astype(np.float32), axis=1)  # a row's k positions are distinct
            z = (w @ self.coef.astype(np.float32)).astype(np.float64)
        return (unit_rows(z[:, :-1]) * np.maximum(z[:, -1:], 0.0)).astype(np.float32)

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, np.float32)
        return np.concatenate([self.from_cosines(_memory_cosines(rows[s:s + BLOCK], self.memory))
                               for s in range(0, max(rows.shape[0], 1), BLOCK)])[:rows.shape[0]]

    @property
    def label(self) -> str:
        return (f"kernel ridge (τ = {self.tau:g}, λ = {self.lam:g})" if self.kind == "kernel"
                else f"nearest-anchor average (k = {self.k}, τ = {self.tau:g}, β = {self.beta:g})")


def _kernel_maps(memory: np.ndarray, targets: np.ndarray, cos_mm: np.ndarray, taus=KERNEL_TAUS,
                 lams=KERNEL_LAMBDAS) -> list[AnchorMap]:
    """Kernel candidates on one memory: K = exp((C − 1)/τ) = QΛQᵀ once per τ, coef = Q·(Qᵀ(T − μ)/(Λ + λ))."""
    mu = targets.mean(0)
    out = []
    for tau in taus:
        lam_k, q = np.linalg.eigh(np.exp((cos_mm.astype(np.float64) - 1.0) / tau))
        qt = q.T @ (targets - mu)
        out += [AnchorMap("kernel", memory, q @ (qt / (np.maximum(lam_k, 0.0) + lam)[:, None]), mu, tau, lam=lam)
                for lam in lams]
    return out


def _memory(x: np.ndarray, y: np.ndarray, rows: np.ndarray, seed: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(unit A rows, targets, their cosines to each other, hub) of at most ``MEMORY`` of anchors ``rows`` (a seeded
    sample); hub: each one's mean cosine to its HUB_K nearest others."""
    rows = np.asarray(rows, np.int64)
    if rows.size > MEMORY:
        rows = np.sort(np.random.default_rng(seed).choice(rows, MEMORY, replace=False))
    memory = unit_rows(np.asarray(x[rows], np.float32))
    cos_mm = np.nan_to_num(memory @ memory.T)
    others = cos_mm.copy()
    np.fill_diagonal(others, -np.inf)
    hub = np.sort(others, axis=1)[:, -min(HUB_K, rows.size - 1):].mean(1) if rows.size > 1 else np.zeros(1)
    return memory, _targets(y[rows]), cos_mm, hub


def _nearest_maps(memory, targets, hub, ks=NEAREST_KS, taus=NEAREST_TAUS, betas=NEAREST_BETAS) -> list[AnchorMap]:
    return [AnchorMap("nearest", memory, targets, np.zeros(targets.shape[1]), tau, k=k, beta=beta, hub=hub)
            for k in ks for tau in taus for beta in betas]  # k is cut to m when used


def anchor_maps(x: np.ndarray, y: np.ndarray, rows: np.ndarray, seed: int = 0) -> list[AnchorMap]:
    """Every anchor-map candidate fitted on anchors ``rows`` of ``x`` (A rows) and ``y`` (B rows), on a memory of at
    most ``MEMORY`` of them (a seeded sample)."""
    memory, targets, cos_mm, hub = _memory(x, y, rows, seed)
    return _kernel_maps(memory, targets, cos_mm) + _nearest_maps(memory, targets, hub)


def fit_anchor_map(x: np.ndarray, y: np.ndarray, rows: np.ndarray, like: AnchorMap, seed: int = 0) -> AnchorMap:
    """The anchor map of ``like``'s kind and parameters fitted on anchors ``rows``."""
    memory, targets, cos_mm, hub = _memory(x, y, rows, seed)
    if like.kind == "kernel":
        return _kernel_maps(memory, targets, cos_mm, (like.tau,), (like.lam,))[0]
    return _nearest_maps(memory, targets, hub, (like.k,), (like.tau,), (like.beta,))[0]


AnyMap = Callable[[np.ndarray], np.ndarray]  # a Map or an AnchorMap: (n, d_A) rows of A → (n, d_B) rows in B's space


PROCRUSTES = "orthogonal Procrustes with scale"
METHOD_NAMES = {  # msgids: each kind of map, as a sentence names it
    "procrustes": N_("the orthogonal Procrustes map with scale"),
    "kernel": N_("kernel ridge regression on cosines to the anchors"),
    "nearest": N_("a softmax-weighted mean of the nearest anchors' rows"),
}


def map_label(m: AnyMap) -> str:
    """The candidate a map is: ``PROCRUSTES`` or its AnchorMap's label (kind and parameters)."""
    return m.label if isinstance(m, AnchorMap) else PROCRUSTES


def _folds(train: np.ndarray, seed: int, wide: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    """(fit, check) positions inside ``train``: FOLDS folds of a seeded shuffle, or one 80/20 split when ``wide``;
    each check part cut to at most CV_CHECK (seeded)."""
    rng = np.random.default_rng(seed + 7)
    order = rng.permutation(train)
    parts = [split(train.size, seed + 7)[1]] if wide else np.array_split(np.arange(train.size), min(FOLDS, train.size))
    out = []
    for part in parts:
        check = order[part] if not wide else train[part]
        fit = np.setdiff1d(train, check)
        if check.size > CV_CHECK:
            check = np.sort(rng.choice(check, CV_CHECK, replace=False))
        out.append((fit, np.sort(check)))
    return out


def choose_map(x: np.ndarray, y: np.ndarray, train: np.ndarray, seed: int = 0
               ) -> tuple[AnchorMap | None, dict[str, float]]:
    """The best map for anchors ``train`` and every candidate's score: ``_choose_map``'s first two."""
    return _choose_map(x, y, train, seed)[:2]


def _choose_map(x: np.ndarray, y: np.ndarray, train: np.ndarray, seed: int = 0
                ) -> tuple[AnchorMap | None, dict[str, float], Moments]:
    """The best map for anchors ``train`` (an AnchorMap fitted on the last fold, to be refitted on them all, or None
    for Procrustes) and every candidate's median cosine by cross-validation inside them (Procrustes and each anchor map fitted on a fold's fit part, judged on its check part, the cosines of all
    folds pooled), and the moments of all of ``train`` (the first fold's fit part and the rest added: each row's
products once). Only ``train`` is read; ties go to the earlier candidate (Procrustes first)."""
    wide = max(x.shape[1], y.shape[1]) > CV_WIDTH
    pooled: dict[str, list[np.ndarray]] = {}
    kinds: dict[str, AnchorMap] = {}
    train = np.asarray(train, np.int64)
    whole = None
    for fit, check in _folds(train, seed, wide):
        xc, yc = np.asarray(x[check], np.float32), np.asarray(y[check], np.float32)
        fitted = moments(x, y, fit)
        if whole is None:
            whole = fitted + moments(x, y, np.setdiff1d(train, fit))
        pooled.setdefault(PROCRUSTES, []).append(row_cosines(fit_moments(fitted)(xc), yc))
        maps = anchor_maps(x, y, fit, seed)
        cos = _memory_cosines(xc, maps[0].memory)
        near = CheckProducts.of(next(m.coef for m in maps if m.kind == "nearest"), yc)  # their coef: the targets
        ranked = {}  # one selection of the most neighbours per hubness correction, sliced for each k
        for m in maps:
            if m.kind == "nearest":
                if m.beta not in ranked:
                    ranked[m.beta] = m.ranked(cos, max(NEAREST_KS))
                got = m.check_cosines(ranked[m.beta], near)
            else:
                got = row_cosines(m.from_cosines(cos), yc)
            pooled.setdefault(m.label, []).append(got)
            kinds[m.label] = m
    scores = {k: float(np.nanmedian(np.concatenate(v))) for k, v in pooled.items()}
    order = list(scores)
    best = max(order, key=lambda k: (np.nan_to_num(scores[k], nan=-2.0), -order.index(k)))
    return kinds.get(best), scores, whole


def baseline_guess(units_a: Units, b_rows: np.ndarray, rows: np.ndarray, known: np.ndarray, k: int = BASELINE_K
                   ) -> np.ndarray:
    """tokensurgeon's kind of transplant: each of anchors ``rows`` guessed in B space as the mean of the B rows
    (``b_rows``) of its ``k`` nearest anchors among ``known`` in A (``units_a``: the A rows, normalised), weighted by
    their cosines (those above 0)."""
    return baseline_from(argkmin(units_a, k, rows, among=known), b_rows)  # the kit's search: its tie and NaN rules too


def baseline_from(found: Found, b_rows: np.ndarray) -> np.ndarray:
    """``baseline_guess`` from its search in A already made: each row the mean of its ``found`` anchors' B rows,
    weighted by their cosines (those above 0)."""
    out = np.empty((found.ids.shape[0], b_rows.shape[1]), np.float32)
    for s in range(0, out.shape[0], BLOCK):
        top, best = found.ids[s:s + BLOCK], found.scores[s:s + BLOCK]
        w = np.where(top >= 0, np.maximum(np.nan_to_num(best), 0) + 1e-12, 0).astype(np.float32)
        out[s:s + top.shape[0]] = np.einsum("nk,nkd->nd", w, np.asarray(b_rows[np.maximum(top, 0)], np.float32)) \
            / w.sum(1)[:, None]
    return out


@dataclass(frozen=True)
class Alignment:
    anchors: Anchors
    map: AnyMap  # the map chosen by cross-validation inside the training anchors (a Map or an AnchorMap)
    train: np.ndarray  # positions in anchors
    held_out: np.ndarray
    held_out_cosine: np.ndarray  # (len(held_out),) cos(map(a), b)
    judged: np.ndarray  # positions in held_out whose neighbour sets and baseline were computed
    jaccard: np.ndarray  # (len(judged),) Jaccard@10 of neighbour sets mapped through the anchors
    baseline_cosine: np.ndarray  # (len(judged),) cos(baseline guess, b)
    seed: int
    procrustes: Map  # the Procrustes map with scale on the same training anchors, chosen or not
    procrustes_cosine: np.ndarray  # (len(held_out),) cos(procrustes(a), b)
    scores: dict[str, float]  # every candidate's median cosine by cross-validation inside the training anchors

    @property
    def method(self) -> str:
        """The chosen map: ``PROCRUSTES`` or an anchor map's kind and parameters."""
        return map_label(self.map)

    @property
    def method_name(self) -> str:
        """The chosen map's kind as a msgid (``METHOD_NAMES``)."""
        return METHOD_NAMES[self.map.kind if isinstance(self.map, AnchorMap) else "procrustes"]

    @property
    def median_cosine(self) -> float:
        return float(np.nanmedian(self.held_out_cosine))

    @property
    def held_out_drift(self) -> float:
        """The median drift, 1 − cos(map(a), b), of the anchors the map was not fitted on: how far a token it has
        not seen lands from its true row. Over every anchor the median says little: the map fits the 80% it was
        fitted on almost exactly (an anchor map all but remembers them), and they pull it towards 0."""
        return float(np.nanmedian(1.0 - self.held_out_cosine))

    @property
    def median_procrustes(self) -> float:
        return float(np.nanmedian(self.procrustes_cosine))

    @property
    def median_baseline(self) -> float:
        return float(np.nanmedian(self.baseline_cosine))

    @property
    def median_jaccard(self) -> float:
        return float(np.nanmedian(self.jaccard))

    @property
    def mapped_judged_cosine(self) -> float:
        """The map's median held-out cosine on the same anchors as the baseline's."""
        return float(np.nanmedian(self.held_out_cosine[self.judged]))


def judge_jaccard(near_a: Found, units_b: Units, rows: np.ndarray) -> np.ndarray:
    """Jaccard@k, for each position in ``rows``, of its k nearest anchors in A (``near_a``, that search of the same
    rows: positions, i.e. mapped through the anchors to B) against its k nearest anchors in B (``units_b``: the
    anchors' B rows, normalised)."""
    return jaccard_rows(near_a.ids, argkmin(units_b, near_a.ids.shape[1], rows).ids)


def align_tables(a: np.ndarray, b: np.ndarray, anchors: Anchors, seed: int = 0, sample: int = JUDGE_SAMPLE
                 ) -> Alignment:
    """Fit the maps of table A onto table B on 80% of the anchors, choose one by cross-validation inside those 80%,
    judge it (and the Procrustes map beside it, and the nearest-anchor baseline) on the 20% held out."""
    if len(anchors) < MIN_ANCHORS:
        raise QueryError("expected at least {need} anchors to align two tables on, got {n}", need=MIN_ANCHORS,
                         n=len(anchors))
    train, held = split(len(anchors), seed)
    # the anchors' rows, gathered once (rows of a memory map are read here) into arrays of this function's own
    xa = np.ascontiguousarray(a[np.asarray(anchors.a, np.int64)], np.float32)
    yb = np.ascontiguousarray(b[np.asarray(anchors.b, np.int64)], np.float32)
    best, scores, whole = _choose_map(xa, yb, train, seed)  # reads the training anchors only
    proc = fit_moments(whole)
    chosen = proc if best is None else fit_anchor_map(xa, yb, train, best, seed)

    def held_cos(m: AnyMap) -> np.ndarray:
        return np.concatenate([row_cosines(m(xa[held[s:s + BLOCK]]), yb[held[s:s + BLOCK]])
                               for s in range(0, held.size, BLOCK)])

    pcos = held_cos(proc)
    cos = pcos if chosen is proc else held_cos(chosen)
    judged = np.arange(held.size) if held.size <= sample else np.sort(
        np.random.default_rng(seed + 1).choice(held.size, sample, replace=False))
    # the gathered rows are this function's own and each side is done with its raw values at this point, so each
    # is scaled in place for the searches: two more tables of fresh memory cost more to touch than to compute
    units_a = normalise(xa, overwrite=True)  # once, for the neighbour sets and the baseline
    jk = min(JACCARD_K, len(anchors) - 1)
    # the judged anchors' neighbours in A among every anchor and among the training ones: one product serves both
    near_a, known_a = argkmin_each(units_a, [(jk, None), (BASELINE_K, train)], held[judged])
    base_cos = row_cosines(baseline_from(known_a, yb), yb[held[judged]])
    jac = judge_jaccard(near_a, normalise(yb, overwrite=True), held[judged])
    return Alignment(anchors, chosen, train, held, cos, judged, jac, base_cos, seed, proc, pcos, scores)


def align(a: Embeddings, b: Embeddings, seed: int = 0) -> Alignment:
    """Anchors of two models, checked (one sentence when they share too little), and the maps of A onto B."""
    anchors = find_anchors(a, b)
    check_anchors(anchors, a.key, b.key)
    return align_tables(a.token_table, b.token_table, anchors, seed)


@dataclass(frozen=True)
class Placement:
    ids: np.ndarray  # ids in A
    rows: np.ndarray  # (n, d_B) the mapped rows
    nearest: np.ndarray  # (n,) the nearest B id of each
    confidence: np.ndarray  # (n,) cosine to that nearest B row


def place(table_a: np.ndarray, table_b: np.ndarray, m: AnyMap, ids: np.ndarray) -> Placement:
    """Rows ``ids`` of A mapped into B's space, each with its nearest B token and the cosine to it (B in blocks)."""
    ids = np.asarray(ids, np.int64)
    rows = m(np.asarray(table_a[ids], np.float32))
    q = unit_rows(rows).astype(np.float32)
    best, where = np.full(ids.size, -np.inf, np.float32), np.zeros(ids.size, np.int64)
    for s in range(0, table_b.shape[0], BLOCK):
        sim = q @ unit_rows(np.asarray(table_b[s:s + BLOCK], np.float32)).T
        sim = np.nan_to_num(sim, nan=-np.inf)
        j = np.argmax(sim, axis=1)
        v = sim[np.arange(ids.size), j]
        better = v > best
        best[better], where[better] = v[better], j[better] + s
    return Placement(ids, rows, where, best.astype(np.float64))


def anchor_drift(table_a: np.ndarray, table_b: np.ndarray, m: AnyMap, anchors: Anchors) -> np.ndarray:
    """(n,) 1 − cos(map(a_i), b_i) of every anchor: how far each shared token sits from where the map puts it."""
    return 1.0 - row_cosines(m(np.asarray(table_a[anchors.a], np.float32)), np.asarray(table_b[anchors.b], np.float32))
