"""Under-trained token rows, by Magikarp's indicators (Land & Bartolo 2024, "Fishing for Magikarp").

The score is computed from the table and the reference set only; higher means more under-trained.

- ``norm`` (untied models and models without an output head): ``1 − ‖e_i‖ / median_j ‖e_j‖`` over the
  input rows: 0 for a row of typical length, 1 for a zero row. A row that no batch held keeps its
  initial length (or decays), while trained rows grow or shrink together.
- ``cosine`` (tied models): the rows with the table's first principal component removed, then each row's
  cosine to the mean of the reference rows. The first component is the direction every row shares, so
  removing it leaves the direction the never-trained rows have in common.

The threshold: the 10th percentile of the reference rows' own scores (nine in ten rows known to be
unreachable score at least this), or, with no reference set, median + 3 robust deviations of all scores.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import QueryError, choices
from ..i18n import Msg
from ..model import Embeddings, torch_view
from .reference import ReferenceSet

INDICATORS = ("norm", "cosine")
REFERENCE_QUANTILE = 0.10
MAD_SCALE = 1.4826  # a normal distribution's standard deviation is 1.4826 × its median absolute deviation
OUTLIER_MADS = 3.0
PC_ITERATIONS = 12  # subspace iterations for the first principal component


def indicator_for(emb: Embeddings, reference: ReferenceSet) -> str:
    """Magikarp's choice: cosine for tied models (when there is a reference set), else the norm."""
    return "cosine" if emb.output_kind == "tied" and reference.ids else "norm"


def as_tensor(table):
    """A torch view of a numpy table (read-only tables are only read here), or the tensor itself."""
    import torch

    if isinstance(table, torch.Tensor):
        return table
    return torch_view(table)  # bfloat16 tables too


def _as_torch(table):
    import torch

    t = as_tensor(table)
    return t if t.dtype == torch.float32 else t.float()


def row_norms(table) -> np.ndarray:
    """(V,) float32 ‖e_i‖ of a (V, d) numpy array or torch tensor (bf16 read in blocks)."""
    import torch

    t = as_tensor(table)
    out = torch.empty(t.shape[0], dtype=torch.float32, device=t.device)
    step = 8192
    for s in range(0, t.shape[0], step):
        out[s:s + step] = torch.linalg.vector_norm(t[s:s + step].float(), dim=1)
    return out.cpu().numpy()


def norm_score(table) -> np.ndarray:
    n = row_norms(table).astype(np.float64)
    med = float(np.median(n))
    return (1.0 - n / med) if med > 0 else np.zeros_like(n)


def _covariance_times(t, mean, q, block: int = 512):
    """(Xcᵀ Xc q, (Xc q)ᵀ (Xc q)) for the centred rows Xc = t − mean, in one pass over row blocks (each block
    is read once and used twice while it is in cache)."""
    import torch

    y = torch.zeros_like(q)
    g = torch.zeros(q.shape[1], q.shape[1], dtype=q.dtype, device=q.device)
    mq = mean @ q
    for a in range(0, t.shape[0], block):
        x = t[a:a + block]
        z = x @ q - mq[None, :]  # (b, 4) centred rows times q
        y += x.T @ z - mean[:, None] * z.sum(dim=0)[None, :]
        g += z.T @ z
    return y, g


def first_pc(table, seed: int = 0, iterations: int = PC_ITERATIONS) -> np.ndarray:
    """(d,) the first principal direction of the centred rows (block power iteration with 4 vectors, seeded,
    then the best direction inside the subspace found)."""
    import torch

    t = _as_torch(table)
    mean = t.mean(dim=0)
    g = torch.Generator(device="cpu").manual_seed(seed)
    q, _r = torch.linalg.qr(torch.randn(t.shape[1], 4, generator=g).to(t.device))  # (d, 4) orthonormal
    for _ in range(iterations):
        y, gram = _covariance_times(t, mean, q)
        q_new, _r = torch.linalg.qr(y)
        done = float(torch.abs(q_new[:, 0] @ q[:, 0])) > 1 - 1e-6
        if done:  # the leading direction has settled: the Ritz step below uses this q and its Gram matrix
            break
        q = q_new
    else:
        y, gram = _covariance_times(t, mean, q)
    _w, v = torch.linalg.eigh(gram)  # qᵀ Xcᵀ Xc q: the best direction inside the subspace of q
    pc = q @ v[:, -1]
    return (pc / torch.linalg.vector_norm(pc)).cpu().numpy()


def cosine_score(table, reference_ids, seed: int = 0) -> np.ndarray:
    """cos(r_i, mean of r over the reference) with r = rows minus their part along the first principal component."""
    import torch

    if len(reference_ids) == 0:
        raise QueryError("the cosine indicator needs a reference set; none was found or given")
    t = _as_torch(table)
    pc = torch.from_numpy(first_pc(t, seed)).to(t.device)
    idx = torch.as_tensor(list(reference_ids), dtype=torch.long, device=t.device)
    ref = t[idx]
    m = (ref - (ref @ pc)[:, None] * pc[None, :]).mean(dim=0)
    m = m / torch.linalg.vector_norm(m).clamp_min(1e-30)
    # r_i = x_i − (x_i·pc) pc, so r_i·m = x_i·m − (x_i·pc)(pc·m) and ‖r_i‖² = ‖x_i‖² − (x_i·pc)²: no copy of the rows
    both = torch.stack([m, pc], dim=1)  # (d, 2)
    pm = float(pc @ m)
    out = torch.empty(t.shape[0], dtype=torch.float64, device=t.device)
    step = 1024
    for a in range(0, t.shape[0], step):
        x = t[a:a + step]
        xm, xp = (x @ both).double().unbind(dim=1)
        sq = torch.linalg.vector_norm(x, dim=1).double() ** 2 - xp * xp
        out[a:a + step] = (xm - xp * pm) / sq.clamp_min(0).sqrt().clamp_min(1e-30)
    return out.cpu().numpy()


def threshold(scores: np.ndarray, reference_ids) -> tuple[float, Msg]:
    """(threshold, why): scores at or above it are flagged as under-trained."""
    if len(reference_ids):
        t = float(np.quantile(scores[list(reference_ids)], REFERENCE_QUANTILE))
        return t, Msg("the 10th percentile of the {n:,} reference rows' scores: nine in ten rows that cannot have "
                      "trained score at least {t:.3f}", n=len(reference_ids), t=t)
    med = float(np.median(scores))
    mad = float(np.median(np.abs(scores - med))) * MAD_SCALE
    t = med + OUTLIER_MADS * mad
    return t, Msg("no reference set: the median score {med:.3f} plus 3 robust standard deviations ({mad:.3f} each)",
                  med=med, mad=mad)


def auroc(scores: np.ndarray, positive: np.ndarray, keep: np.ndarray | None = None) -> float | None:
    """Area under the ROC curve of ``scores`` for the boolean ``positive`` over the ids in ``keep``
    (the chance that a positive outscores a negative; ties count one half). None without both classes."""
    from scipy.stats import rankdata

    s, p = np.asarray(scores, np.float64), np.asarray(positive, bool)
    if keep is not None:
        s, p = s[keep], p[keep]
    n_pos, n_neg = int(p.sum()), int((~p).sum())
    if n_pos == 0 or n_neg == 0:
        return None
    r = rankdata(s)
    return float((r[p].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


@dataclass(frozen=True)
class Ranked:
    indicator: str
    scores: np.ndarray  # (V,) float64, higher = more under-trained
    order: np.ndarray  # (V,) ids, most under-trained first (ties by the smaller id)
    threshold: float
    why: Msg
    reference: ReferenceSet

    @property
    def flagged(self) -> np.ndarray:
        return self.order[self.scores[self.order] >= self.threshold]

    @property
    def meaning(self) -> Msg:
        """What a score is, said once for the whole ranked list (a table's column help)."""
        if self.indicator == "norm":
            return Msg("1 − the row's length ÷ the median row's length: 0 for a row of the median length, more the "
                       "shorter the row")
        return Msg("the row's cosine to the reference rows' mean direction (first principal component removed)")

    def describe(self, i: int, norms: np.ndarray | None = None) -> Msg:
        """Why one row has its score."""
        if self.indicator == "norm":
            return Msg("length {n:.3f}: {r:.2f}× the median row's", n=float(norms[i]) if norms is not None else 0.0,
                       r=1.0 - float(self.scores[i]))
        return Msg("cosine {c:+.3f} to the reference rows' mean direction (first principal component removed)",
                   c=float(self.scores[i]))


def rank(emb: Embeddings, reference: ReferenceSet, indicator: str | None = None, seed: int = 0) -> Ranked:
    """Every id scored and ranked, most under-trained first."""
    indicator = indicator or indicator_for(emb, reference)
    choices("indicator", indicator, INDICATORS)
    table = emb.token_table
    scores = norm_score(table) if indicator == "norm" else cosine_score(table, reference.ids, seed)
    order = np.lexsort((np.arange(scores.size), -scores))
    t, why = threshold(scores, reference.ids)
    return Ranked(indicator, scores, order, t, why, reference)
