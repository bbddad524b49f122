"""The forward pass so far: ``x[b, t] = token_table[ids[b, t]] + position_table[t]``.

Backends, fastest first: ``cuda`` (the compiled CUDA kernel), ``cpu`` (the compiled C++ kernel),
``torch`` (``F.embedding`` + add), ``numpy`` (the reference). ``auto`` takes the first available.
Every backend gets the same checks first, so bad input gives the same sentence on each.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .errors import QueryError
from .model import Embeddings

BACKENDS = ("cuda", "cpu", "torch", "numpy")


@dataclass(frozen=True)
class BackendStatus:
    name: str
    available: bool
    reason: str  # why not, when not available
    label: str


LABELS = {"cuda": "CUDA kernel (compiled)", "cpu": "CPU kernel (compiled C++, OpenMP)",
          "torch": "torch: F.embedding + add", "numpy": "numpy reference"}


def status_of(name: str) -> BackendStatus:
    """One backend's availability and, when not available, the reason. For ``cuda`` and ``cpu`` this
    compiles the kernel if this process has not tried yet (slow the first time, cached after)."""
    if name in ("cuda", "cpu"):
        import cuda_ext

        mod, why = cuda_ext.load_kernel(name)
        return BackendStatus(name, mod is not None, why, LABELS[name])
    if name == "torch":
        try:
            import torch  # noqa: F401
        except ImportError as exc:
            return BackendStatus(name, False, f"torch is not installed: {exc}", LABELS[name])
    return BackendStatus(name, True, "", LABELS[name])


def backend_status() -> list[BackendStatus]:
    """Every backend, fastest first."""
    return [status_of(name) for name in BACKENDS]


def choose_backend(backend: str = "auto") -> str:
    """``auto``: the first available in BACKENDS order; a named one only builds and checks itself."""
    if backend == "auto":
        return next(name for name in BACKENDS if status_of(name).available)
    if backend not in BACKENDS:
        raise QueryError(f"backend must be auto or one of {', '.join(BACKENDS)}; got {backend!r}")
    status = status_of(backend)
    if not status.available:
        raise QueryError(f"the {backend} backend is not available here: {status.reason}")
    return backend


def check_ids(ids: np.ndarray, V: int, T_max: int | None) -> np.ndarray:
    """ids as a (B, T) int64 array, every id in [0, V) and T within the position table."""
    a = np.asarray(ids)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2 or not np.issubdtype(a.dtype, np.integer):
        raise QueryError(f"ids must be a (T,) or (B, T) array of integers; got shape {a.shape}, dtype {a.dtype}")
    if T_max is not None and a.shape[1] > T_max:
        raise QueryError(f"T = {a.shape[1]:,} positions is larger than the position table ({T_max:,} rows)")
    if a.size:
        lo, hi = int(a.min()), int(a.max())
        if lo < 0 or hi >= V:
            flat = int(np.flatnonzero((a < 0) | (a >= V))[0])
            b, t = divmod(flat, a.shape[1])
            raise QueryError(f"token id {int(a.reshape(-1)[flat])} at (batch {b}, position {t}) is out of range: "
                             f"the table has ids 0 to {V - 1:,}")
    return a.astype(np.int64, copy=False)


def forward_numpy(ids: np.ndarray, wte: np.ndarray, wpe: np.ndarray) -> np.ndarray:
    """The reference: one gather, one broadcast add, in float32."""
    T = ids.shape[1]
    return (wte[ids] + wpe[None, :T]).astype(np.float32, copy=False)  # (B, T, d)


def _run(backend: str, ids: np.ndarray, wte: np.ndarray, wpe: np.ndarray) -> np.ndarray:
    if backend == "numpy":
        return forward_numpy(ids, wte, wpe)
    import warnings

    import torch

    with warnings.catch_warnings():  # the tables are read-only numpy arrays; nothing here writes to them
        warnings.simplefilter("ignore", UserWarning)
        t_ids, t_wte, t_wpe = torch.from_numpy(ids), torch.from_numpy(wte), torch.from_numpy(wpe)
    if backend == "torch":
        T = ids.shape[1]
        return (torch.nn.functional.embedding(t_ids, t_wte) + t_wpe[:T]).numpy()
    import cuda_ext

    mod, _ = cuda_ext.load_kernel(backend)
    if backend == "cpu":
        return mod.forward_cpu(t_ids, t_wte, t_wpe).numpy()
    dev = torch.device("cuda")
    return mod.forward_cuda(t_ids.to(dev), t_wte.to(dev), t_wpe.to(dev), True).cpu().numpy()


@dataclass(frozen=True)
class ForwardResult:
    x: np.ndarray  # (B, T, d) float32, or (T, d) when ids were (T,)
    backend: str
    seconds: float
    bytes_moved: int  # B·T·(3·d·4 + 8): token row + position row + output row + the id

    @property
    def gbps(self) -> float:
        return self.bytes_moved / self.seconds / 1e9 if self.seconds > 0 else float("nan")


def bytes_moved(B: int, T: int, d: int, elem: int = 4, out_elem: int = 4, id_bytes: int = 8) -> int:
    """The honest byte count of one call: each token row, position row and output row once, and the id."""
    return B * T * (2 * d * elem + d * out_elem + id_bytes)


def forward(emb: Embeddings, ids, backend: str = "auto", positions: bool = True) -> ForwardResult:
    """x = token_table[ids] + position_table[:T] on the chosen backend (``auto``: the fastest available).

    ``positions=False`` gives the token part alone (what a model without position information sees).
    """
    if positions and emb.position_table is None:
        raise QueryError(f"this model has no learned position table (its positions are {emb.position_kind}); "
                         "compute the token part alone with positions=False")
    squeeze = np.asarray(ids).ndim == 1
    a = check_ids(ids, emb.vocab_size, emb.context if positions else None)
    name = choose_backend(backend)
    wte = emb.token_table
    wpe = emb.position_table if positions else np.zeros((a.shape[1], emb.d_model), np.float32)
    t = time.perf_counter()
    x = _run(name, a, wte, wpe)
    seconds = time.perf_counter() - t
    B, T = a.shape
    return ForwardResult(x[0] if squeeze else x, name, seconds, bytes_moved(B, T, emb.d_model))


def time_backends(emb: Embeddings, B: int = 8, repeats: int = 3, seed: int = 0) -> list[dict]:
    """A full context (B sequences × the model's T random ids) on every available backend: the best
    of ``repeats`` timed calls after one warm-up call. For medians against torch, see ``bench``."""
    if emb.context is None:
        raise QueryError("this model has no learned position table, so there is no full context to run")
    ids = np.random.default_rng(seed).integers(0, emb.vocab_size, (B, emb.context))
    rows = []
    for s in backend_status():
        if s.available:
            forward(emb, ids, s.name)
            r = min((forward(emb, ids, s.name) for _ in range(repeats)), key=lambda r: r.seconds)
            rows.append({"backend": s.name, f"best of {repeats} (ms)": round(r.seconds * 1e3, 2),
                         "GB/s": round(r.gbps, 1)})
    return rows
