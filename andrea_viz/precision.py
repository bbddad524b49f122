"""What a lower precision keeps of each token's neighbourhood.

The token table is rounded to a precision (bf16, fp16, int8 with one scale per row, or GGUF's Q8_0 and
Q4_0 made by the ``gguf`` package's own ``quants.quantize``), or read from a GGUF file of any type; for
every token, the Jaccard overlap of its k = 10 exact cosine neighbours (over the whole table, itself
left out) in that table against the float32 table's. Reported per precision: the median, the 5th
percentile, the tokens that lost most, and the lesson's pairs (cat/dog, cat/tuesday).

The search is the neighbour kit's (``neighbours.argkmin``): a block of rows against the whole table at a time, so
memory stays one block of scores (about 128 MB) whatever V is; on torch when torch is there (on the GPU when CUDA is
available), else on numpy; ``backend="numpy"`` is the plain reference the benchmark compares with. A row that holds
NaN or Inf at a precision (fp16 overflows past 65,504) has no neighbours there and is nobody's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .errors import QueryError, not_one_of
from .geometry import resolve_ids
from .i18n import Msg
from .model import Embeddings
from .neighbours import BACKENDS, argkmin, jaccard_rows, torch_device  # noqa: F401 (named here for the bench)
from .model_words import default_pairs

PRECISIONS = ("bf16", "fp16", "int8", "q8_0", "q4_0")
K = 10
WORST = 100


# --- a table at a precision ----------------------------------------------------------------------
def int8_rows(table: np.ndarray) -> np.ndarray:
    """Symmetric int8 with one scale per row (max |x| / 127), back to float32."""
    scale = np.abs(table).max(axis=1, keepdims=True) / np.float32(127)
    scale[scale == 0] = 1
    return (np.clip(np.rint(table / scale), -127, 127) * scale).astype(np.float32)


def _gguf_round_trip(table: np.ndarray, qtype_name: str) -> np.ndarray:
    from gguf import GGMLQuantizationType, quants
    from gguf.constants import GGML_QUANT_SIZES

    qtype = GGMLQuantizationType[qtype_name]
    block = GGML_QUANT_SIZES[qtype][0]
    if table.shape[1] % block:
        raise QueryError("{name} quantizes rows in blocks of {block} values; this table's rows have d = {d}",
                         name=qtype_name, block=block, d=table.shape[1])
    return quants.dequantize(quants.quantize(np.ascontiguousarray(table, np.float32), qtype), qtype).reshape(table.shape)


def at_precision(table: np.ndarray, name: str) -> np.ndarray:
    """(V, d) float32: ``table`` stored at precision ``name`` (one of PRECISIONS, any case) and read back."""
    key = name.lower()
    if key == "bf16":
        return _gguf_round_trip(table, "BF16")  # round to nearest even, as gguf writes BF16
    if key == "fp16":
        return table.astype(np.float16).astype(np.float32)
    if key == "int8":
        return int8_rows(table)
    if key in ("q8_0", "q4_0"):
        return _gguf_round_trip(table, key.upper())
    raise not_one_of("precision", name, PRECISIONS)


# --- exact neighbours over the whole table, blocked: the neighbour kit ------------------------------------
def neighbour_ids(table: np.ndarray, k: int = K, rows: np.ndarray | None = None, backend: str = "auto",
                  progress: Callable[[float], None] | None = None) -> np.ndarray:
    """(n, k) int64 exact cosine neighbours of ``rows`` (all rows by default), best first, each row left out
    (``neighbours.argkmin``: ties to the smaller id; a row holding NaN or Inf is never chosen and gets -1s).
    ``backend``: torch (on the GPU when CUDA is available), numpy (the plain reference), or auto."""
    if not 1 <= k < table.shape[0]:
        raise QueryError("k must be between 1 and {most:,} (the table's rows less one); got {k}", most=table.shape[0] - 1,
                         k=k)
    return argkmin(table, k, rows, backend=backend, progress=progress).ids


# --- the report ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class PrecisionResult:
    """One precision against float32: every token's Jaccard@k and what sums it up."""

    name: str
    jaccard: np.ndarray  # (V,) float64
    k: int
    pairs: dict[str, tuple[float, float]]  # "cat/dog" -> (cosine at fp32, cosine here)
    seconds: float

    @property
    def median(self) -> float:
        return float(np.median(self.jaccard))

    @property
    def p05(self) -> float:
        return float(np.percentile(self.jaccard, 5))

    def worst(self, n: int = WORST) -> np.ndarray:
        """The ids of the n tokens that kept least of their neighbourhood, least first (ties by id)."""
        return np.lexsort((np.arange(self.jaccard.size), self.jaccard))[:n]


def _cos(t: np.ndarray, i: int, j: int) -> float:
    u, v = t[i].astype(np.float64), t[j].astype(np.float64)
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    return 0.0 if nu == 0 or nv == 0 else float(u @ v / (nu * nv))


def reference_neighbours(emb: Embeddings, k: int = K, backend: str = "auto",
                         progress: Callable[[float], None] | None = None) -> np.ndarray:
    """(V, k) the float32 table's exact neighbours, computed once per model and k."""
    return emb.memo(("precision reference", k, backend),
                    lambda: neighbour_ids(emb.token_table, k, backend=backend, progress=progress))


def measure_table(emb: Embeddings, name: str, table: np.ndarray, k: int = K, backend: str = "auto",
                  progress: Callable[[str, float], None] | None = None) -> PrecisionResult:
    """One table of ``emb``'s shape (the token table at another precision) against the float32 table."""
    if table.shape != emb.token_table.shape:
        raise QueryError("{name} has a {v:,} × {d:,} token table but {ref} has {rv:,} × {rd:,}: compare one model at "
                         "two precisions", name=name, v=table.shape[0], d=table.shape[1], ref=emb.name,
                         rv=emb.vocab_size, rd=emb.d_model)
    reference = reference_neighbours(emb, k, backend, None if progress is None else (lambda f: progress("float32", f)))
    t0 = time.perf_counter()  # the float32 pass, done once per model, is not this precision's time
    ids = neighbour_ids(table, k, backend=backend, progress=None if progress is None else (lambda f: progress(name, f)))
    pairs = [(f"{a}/{b}", resolve_ids(emb, a)[1][0], resolve_ids(emb, b)[1][0]) for a, b in default_pairs(emb)]
    return PrecisionResult(name, jaccard_rows(reference, ids), k,
                           {label: (_cos(emb.token_table, i, j), _cos(table, i, j)) for label, i, j in pairs},
                           time.perf_counter() - t0)


def measure(emb: Embeddings, name: str, k: int = K, backend: str = "auto",
            progress: Callable[[float, Msg], None] | None = None) -> PrecisionResult:
    """``emb``'s token table at precision ``name`` (one of PRECISIONS) against its float32 table; ``progress(f,
    text)`` as the app's progress bars take it."""
    table = at_precision(emb.token_table, name)

    def report(label: str, f: float) -> None:
        if progress is not None:
            progress(f / 2 if label == "float32" else 0.5 + f / 2, Msg("neighbours at {name}", name=label))

    return measure_table(emb, name, table, k, backend, report)


def compare_precisions(emb: Embeddings, precisions: tuple[str, ...] | list[str] = PRECISIONS,
            against: dict[str, Embeddings] | None = None, k: int = K, backend: str = "auto",
            progress: Callable[[str, float], None] | None = None) -> dict[str, PrecisionResult]:
    """Every token's Jaccard@k against ``emb``'s float32 table: for each precision named (as typed) and each
    model of ``against`` (a name -> the same model read from another file, e.g. a GGUF of any type)."""
    for p in precisions:
        if p.lower() not in PRECISIONS:
            raise not_one_of("precision", p, PRECISIONS)
    for name, other in (against or {}).items():
        if other.token_table.shape != emb.token_table.shape:
            measure_table(emb, name, other.token_table)  # raises the shape sentence before any search
    out = {p: measure_table(emb, p, at_precision(emb.token_table, p), k, backend, progress) for p in precisions}
    for name, other in (against or {}).items():
        out[name] = measure_table(emb, name, other.token_table, k, backend, progress)
    return out


def result_json(emb: Embeddings, r: PrecisionResult, n_worst: int = WORST) -> dict:
    """The CLI's JSON for one precision: jaccard_median, jaccard_p05, worst [{id, token, jaccard}], pairs."""
    return {
        "jaccard_median": r.median,
        "jaccard_p05": r.p05,
        "k": r.k,
        "worst": [{"id": int(i), "token": emb.token(int(i)), "jaccard": float(r.jaccard[i])} for i in r.worst(n_worst)],
        "pairs": {label: {"fp32": round(a, 6), "here": round(b, 6)} for label, (a, b) in r.pairs.items()},
        "seconds": round(r.seconds, 2),
    }
