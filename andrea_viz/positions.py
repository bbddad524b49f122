"""Position information: the sinusoidal table, position-by-position cosines, RoPE, order blindness."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import QueryError, not_one_of
from .family import CONTEXT
from .i18n import Msg, N_
from .model import Embeddings
from .forward_pass import forward
from .maps.pca import pca_fit


def sinusoidal_table(T: int, d: int, base: float = 10_000.0) -> np.ndarray:
    """(T, d) float32, Vaswani et al. 2017: PE[t, 2i] = sin(t / base^(2i/d)), PE[t, 2i+1] = cos(…).
    Never trained, defined for any t."""
    if T < 1 or d < 1:
        raise QueryError("T and d must be at least 1; got T = {T}, d = {d}", T=T, d=d)
    t = np.arange(T, dtype=np.float64)[:, None]
    i = np.arange(0, d, 2, dtype=np.float64)[None, :]
    angle = t / base ** (i / d)
    pe = np.zeros((T, d))
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle[:, : d // 2])
    return pe.astype(np.float32)


def cosine_matrix(table: np.ndarray, step: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """cos between rows 0, step, 2·step, … of a position table: ((n, n) matrix, the positions)."""
    pos = np.arange(0, table.shape[0], step)
    rows = table[pos].astype(np.float64)
    n = np.linalg.norm(rows, axis=1, keepdims=True)
    n[n == 0] = 1.0
    u = rows / n
    return (u @ u.T).astype(np.float32), pos


def rope_rotate(v: np.ndarray, position: int, theta: float = 0.3) -> np.ndarray:
    """Rotate a 2-D vector by position·θ radians: RoPE's operation on one pair of dimensions."""
    a = position * theta
    c, s = np.cos(a), np.sin(a)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def rope_scores(q: np.ndarray, k: np.ndarray, positions: list[tuple[int, int]], theta: float = 0.3) -> list[float]:
    """q·k after rotating q by its position m and k by n, for each (m, n): equal whenever m − n is."""
    return [float(rope_rotate(q, m, theta) @ rope_rotate(k, n, theta)) for m, n in positions]


@dataclass(frozen=True)
class OrderCheck:
    ids_a: list[int]
    ids_b: list[int]
    same_rows_without_positions: bool  # the token parts hold the same rows, in another order
    max_diff_with_positions: float  # after sorting rows: positions make the two matrices differ
    frobenius_with_positions: float


def _sorted_rows(x: np.ndarray) -> np.ndarray:
    return x[np.lexsort(x.T[::-1])]


def order_blindness(emb: Embeddings, text_a: str, text_b: str) -> OrderCheck:
    """Compare two orderings of the same tokens without and with position rows."""
    a, b = emb.tokenizer.encode(text_a), emb.tokenizer.encode(text_b)
    if sorted(a) != sorted(b):
        raise QueryError("the two texts must hold the same tokens in another order; “{text_a}” gives {a}, “{text_b}” "
                         "gives {b}", text_a=text_a, a=str(a), text_b=text_b, b=str(b))
    if emb.position_table is None:
        raise QueryError("this model has no learned position table to add")
    tok_a = forward(emb, a, "numpy", positions=False).x
    tok_b = forward(emb, b, "numpy", positions=False).x
    x_a, x_b = forward(emb, a, "numpy").x, forward(emb, b, "numpy").x
    same = bool(np.array_equal(_sorted_rows(tok_a), _sorted_rows(tok_b)))
    diff = _sorted_rows(x_a) - _sorted_rows(x_b)
    return OrderCheck(a, b, same, float(np.abs(diff).max()), float(np.linalg.norm(diff)))


POSITION_KINDS_SHOWN = ("learned", "sinusoidal")


def position_table_of(emb: Embeddings, kind: str) -> np.ndarray:
    """The model's learned table, or a sinusoidal table of the same (T, d) (T = 1,024 without one): the model's own
    when its positions are sinusoidal (Marian, XGLM: rows computed as the model computes them)."""
    if kind == "learned":
        if emb.position_table is None or emb.position_kind != "learned":
            raise QueryError("this model has no learned position table (its positions are {kind})", kind=emb.position_kind)
        return emb.position_table
    if kind == "sinusoidal" and emb.position_kind == "sinusoidal" and emb.position_table is not None:
        return emb.position_table
    if kind == "sinusoidal":
        return emb.memo(("sinusoidal",), lambda: sinusoidal_table(emb.context or CONTEXT, emb.d_model))
    raise not_one_of("kind", kind, POSITION_KINDS_SHOWN)


def position_cosines(emb: Embeddings, kind: str, step: int = 1) -> tuple[np.ndarray, np.ndarray]:
    return cosine_matrix(position_table_of(emb, kind), step)


def position_path(emb: Embeddings, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Positions through their first two principal components: ((T, 2) coordinates, variance ratios)."""
    coords, _, ratio, _ = pca_fit(position_table_of(emb, kind), 2)
    return coords, ratio


SCHEME_COLUMNS = (N_("scheme"), N_("parameters"), N_("trained"), N_("longer inputs"), N_("acts on"), N_("used by"))


def schemes(emb: Embeddings) -> list[tuple[Msg | str, ...]]:
    """The three ways to add position, with this model's numbers: one row per scheme, in SCHEME_COLUMNS' order,
    each cell a Msg or a name."""
    T, d = emb.context or CONTEXT, emb.d_model
    return [
        (Msg("sinusoidal (Vaswani 2017)"), "0", Msg("no (a formula)"), Msg("any position"), Msg("input vectors"),
         Msg("the original Transformer")),
        (Msg("RoPE (rotary)"), "0", Msg("no"), Msg("any position"), Msg("queries and keys"), "LLaMA, Qwen"),
        (Msg("learned"), Msg("{T:,} × {d:,} = {n:,}", T=T, d=d, n=T * d), Msg("yes"), Msg("none past {last:,}", last=T - 1),
         Msg("input vectors"), "GPT-2, nanoGPT, microGPT, ANDREA, BERT"),
    ]
