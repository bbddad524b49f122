"""The forward pass so far: what block 1 receives. ``x[b, t] = token_table[ids[b, t]] + position_table[t]`` for
GPT-2 and ANDREA; other families' embedding modules do more around that sum (``model.BlockInput``: a √d scale, a
projection, a token-type row, a LayerNorm), and ``forward`` does it too.

The sum itself (``embedding_sum``) runs on one of these backends, fastest first: ``cuda`` (the compiled CUDA kernel), ``cpu`` (the compiled C++ kernel),
``torch`` (``F.embedding`` + add), ``numpy`` (the reference). ``auto`` takes the first available.
Every backend gets the same checks first, so bad input gives the same sentence on each.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from .errors import choices, QueryError
from .i18n import Msg, N_
from .model import BlockInput, Embeddings, f32, is_narrow, torch_view

@dataclass(frozen=True)
class BackendStatus:
    name: str
    available: bool
    reason: Msg | str  # why not, when not available
    label: str  # a msgid


KERNEL_REASONS = {  # cuda_ext's Reason keys -> the msgid each reaches the screen through
    "no_torch": N_("torch is not importable: {detail}"),
    "cpu_torch": N_("no GPU: torch.cuda.is_available() is False (this torch is a CPU build)"),
    "no_device": N_("no GPU: torch.cuda.is_available() is False (no CUDA device is visible)"),
    "build_failed": N_("the {kind} kernel could not be built: {detail}"),
    "building": N_("the {kind} kernel is being built by another process (pid {pid})"),
    "wait_timeout": N_("waited {seconds:.0f} s for another process (pid {pid}) to build the {kind} kernel; gave up"),
}


def kernel_reason(why) -> Msg | str:
    """cuda_ext's reason as a Msg of the catalogue (its English sentence stays for the command line)."""
    key = getattr(why, "key", None)
    if key in KERNEL_REASONS:
        return Msg(KERNEL_REASONS[key], **why.fields)
    return Msg("the compiled kernel is not available: {reason}", reason=str(why)) if why else ""


def _kernel_status(name: str) -> tuple[bool, Msg | str]:
    """A compiled kernel's availability (compiled the first time this process asks; cached after). While another
    process builds it (the server's background build, ``cuda_ext.start_background_build``), not available now,
    without waiting."""
    import cuda_ext

    if cuda_ext.building(name) and (name == "cpu" or _cuda_visible()):
        return False, kernel_reason(cuda_ext.Reason("building", kind=name.upper(),
                                                    pid=cuda_ext.loader.lock_owner(cuda_ext.build_dir(name))[0]))
    mod, why = cuda_ext.load_kernel(name)
    if mod is None:
        return False, kernel_reason(why)
    return True, ""


def _cuda_visible() -> bool:
    import torch

    return torch.cuda.is_available()


def _torch_status() -> tuple[bool, Msg | str]:
    try:
        import torch  # noqa: F401
    except ImportError as exc:
        return False, Msg("torch is not installed: {detail}", detail=str(exc))
    return True, ""


def check_ids(ids: np.ndarray, V: int, T_max: int | None) -> np.ndarray:
    """ids as a (B, T) int64 array, every id in [0, V) and T within the position table."""
    a = np.asarray(ids)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2 or not np.issubdtype(a.dtype, np.integer):
        raise QueryError("ids must be a (T,) or (B, T) array of integers; got shape {shape}, dtype {dtype}",
                         shape=str(a.shape), dtype=str(a.dtype))
    if T_max is not None and a.shape[1] > T_max:
        raise QueryError("T = {T:,} positions is larger than the position table ({rows:,} rows)", T=a.shape[1], rows=T_max)
    if a.size:
        lo, hi = int(a.min()), int(a.max())
        if lo < 0 or hi >= V:
            flat = int(np.flatnonzero((a < 0) | (a >= V))[0])
            b, t = divmod(flat, a.shape[1])
            raise QueryError("token id {id} at (batch {b}, position {t}) is out of range: the table has ids 0 to "
                             "{last}", id=int(a.reshape(-1)[flat]), b=b, t=t, last=V - 1)
    return a.astype(np.int64, copy=False)


def forward_numpy(ids: np.ndarray, wte: np.ndarray, wpe: np.ndarray) -> np.ndarray:
    """The reference: one gather, one broadcast add, in float32."""
    T = ids.shape[1]
    return (wte[ids] + wpe[None, :T]).astype(np.float32, copy=False)  # (B, T, d)


def kernels_ready() -> bool:
    """True when asking for the backends' status is instant: this process has already built (or failed to build)
    both compiled kernels, or another process is building them (then they are shown as being built, and not
    waited for). False means the first ask builds them here."""
    import cuda_ext

    return all(cuda_ext.is_built(k) or cuda_ext.building(k) for k in ("cpu", "cuda"))


def kernels_building() -> bool:
    """Another process (the server's background build) is building a compiled kernel now."""
    import cuda_ext

    return any(cuda_ext.building(k) for k in ("cpu", "cuda"))


def _torch_view(a: np.ndarray):
    return torch_view(a)


def _device_tables(emb: Embeddings, positions: bool, T: int):
    """The model's tables on the GPU, copied once per model and kept there (not on every call)."""
    import torch

    def copy():
        dev = torch.device("cuda")
        wte = _torch_view(emb.token_table).to(dev)
        wpe = _torch_view(emb.position_table).to(dev) if emb.position_table is not None else None
        return wte, wpe

    wte, wpe = emb.memo(("cuda tables",), copy)
    if positions:
        return wte, wpe
    return wte, emb.memo(("cuda zeros", T), lambda: torch.zeros(T, emb.d_model, device="cuda"))


def _tables(emb: Embeddings, T: int, positions: bool) -> tuple[np.ndarray, np.ndarray]:
    """(V, d) token table and (≥T, d) position rows: the model's, or zeros for the token part alone."""
    return emb.token_table, emb.position_table if positions else np.zeros((T, emb.d_model), np.float32)


def _run_numpy(emb: Embeddings, ids: np.ndarray, positions: bool, out: np.ndarray | None) -> tuple[np.ndarray, float]:
    T = ids.shape[1]
    wte, wpe = _tables(emb, T, positions)
    t = time.perf_counter()
    x = forward_numpy(ids, wte, wpe) if out is None else np.add(np.take(wte, ids, axis=0), wpe[None, :T], out=out)
    return x, time.perf_counter() - t


def _run_torch(emb: Embeddings, ids: np.ndarray, positions: bool, out: np.ndarray | None) -> tuple[np.ndarray, float]:
    import torch

    T = ids.shape[1]
    wte, wpe = (_torch_view(a) for a in _tables(emb, T, positions))
    t_out = _torch_view(out) if out is not None else None
    t = time.perf_counter()
    x = torch.add(torch.nn.functional.embedding(_torch_view(ids), wte), wpe[:T], out=t_out)
    return x.numpy(), time.perf_counter() - t


def _run_cpu(emb: Embeddings, ids: np.ndarray, positions: bool, out: np.ndarray | None) -> tuple[np.ndarray, float]:
    import cuda_ext

    mod, _ = cuda_ext.load_kernel("cpu")
    wte, wpe = (_torch_view(a) for a in _tables(emb, ids.shape[1], positions))
    t_out = _torch_view(out) if out is not None else None
    t = time.perf_counter()
    x = mod.forward_cpu(_torch_view(ids), wte, wpe, out=t_out)
    return x.numpy(), time.perf_counter() - t


def _run_cuda(emb: Embeddings, ids: np.ndarray, positions: bool, out: np.ndarray | None) -> tuple[np.ndarray, float]:
    """One checked launch, timed by CUDA events around it (the time includes reading back its 8-byte
    bad-id flag); the tables are already on the device, and only the ids go there and x comes back."""
    import cuda_ext
    import torch

    mod, _ = cuda_ext.load_kernel("cuda")
    g_wte, g_wpe = _device_tables(emb, positions, ids.shape[1])
    g_ids = _torch_view(ids).to("cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    version, block = cuda_ext.launch_for(str(g_wte.dtype).removeprefix("torch."))  # the ladder's choice (cuda_ext/ladder.py)
    x = mod.forward_cuda(g_ids, g_wte, g_wpe, True, None, version, block)  # checked: a bad id is reported, not read
    end.record()
    end.synchronize()
    x = x.cpu().numpy()
    if out is not None:
        out[...] = x
        x = out
    return x, start.elapsed_time(end) / 1e3


Runner = Callable[[Embeddings, np.ndarray, bool, "np.ndarray | None"], tuple[np.ndarray, float]]


@dataclass(frozen=True)
class Backend:
    """One way to compute x: its label (a msgid), whether it is available here (and why not), and its runner
    ``run(emb, ids (B, T) int64 already checked, positions, out) -> (x, seconds of the computation alone)``."""

    label: str
    status: Callable[[], tuple[bool, Msg | str]]
    run: Runner


BACKENDS: dict[str, Backend] = {  # fastest first: "auto" takes the first available
    "cuda": Backend(N_("CUDA kernel (compiled)"), lambda: _kernel_status("cuda"), _run_cuda),
    "cpu": Backend(N_("CPU kernel (compiled C++, OpenMP)"), lambda: _kernel_status("cpu"), _run_cpu),
    "torch": Backend(N_("torch: F.embedding + add"), _torch_status, _run_torch),
    "numpy": Backend(N_("numpy reference"), lambda: (True, ""), _run_numpy),
}


def status_of(name: str) -> BackendStatus:
    """One backend's availability and, when not available, the reason. For ``cuda`` and ``cpu`` this
    compiles the kernel if this process has not tried yet (slow the first time, cached after)."""
    available, why = BACKENDS[name].status()
    return BackendStatus(name, available, "" if available else why, BACKENDS[name].label)


def backend_status() -> list[BackendStatus]:
    """Every backend, fastest first."""
    return [status_of(name) for name in BACKENDS]


def choose_backend(backend: str = "auto") -> str:
    """``auto``: the first available in BACKENDS order; a named one only builds and checks itself."""
    if backend == "auto":
        return next(name for name in BACKENDS if status_of(name).available)
    choices("backend", backend, ("auto", *BACKENDS))
    status = status_of(backend)
    if not status.available:
        raise QueryError("the {backend} backend is not available here: {reason}", backend=backend, reason=status.reason)
    return backend


MIN_BYTES_FOR_BANDWIDTH = 4_000_000  # below this a call's time is mostly overhead, and GB/s means nothing


@dataclass(frozen=True)
class ForwardResult:
    x: np.ndarray  # (B, T, d) float32, or (T, d) when ids were (T,)
    backend: str
    seconds: float
    bytes_moved: int  # B·T·(3·d·4 + 8): token row + position row + output row + the id

    @property
    def gbps(self) -> float | None:
        """Bandwidth against the honest byte count; None for calls too small for it to mean anything."""
        if self.seconds <= 0 or self.bytes_moved < MIN_BYTES_FOR_BANDWIDTH:
            return None
        return self.bytes_moved / self.seconds / 1e9


def bytes_moved(B: int, T: int, d: int, elem: int = 4, out_elem: int = 4, id_bytes: int = 8) -> int:
    """The honest byte count of one call: each token row, position row and output row once, and the id."""
    return B * T * (2 * d * elem + d * out_elem + id_bytes)


def embedding_sum(emb: Embeddings, ids, backend: str = "auto", positions: bool = True,
                  out: np.ndarray | None = None) -> ForwardResult:
    """token_table[ids] + position_table[:T] on the chosen backend (``auto``: the fastest available): the lookup
    and the sum alone, before anything the model's embedding module does after them.

    ``positions=False`` gives the token part alone (what a model without position information sees).
    ``out``, a float32 (B, T, d) array, is written in place (a buffer the caller reuses).
    """
    if positions and emb.position_table is None:
        raise QueryError("this model has no learned position table (its positions are {kind}); compute the token "
                         "part alone with positions=False", kind=emb.position_kind)
    squeeze = np.asarray(ids).ndim == 1
    a = check_ids(ids, emb.vocab_size, emb.context if positions else None)
    B, T = a.shape
    if out is not None and (out.shape != (B, T, emb.d_model) or out.dtype != np.float32 or not out.flags.c_contiguous):
        raise QueryError("out must be a contiguous float32 array of shape {want}; got {shape} {dtype}",
                         want=str((B, T, emb.d_model)), shape=str(out.shape), dtype=str(out.dtype))
    name = choose_backend(backend)
    emb, a = widened_rows(emb, a, T)
    x, seconds = BACKENDS[name].run(emb, a, positions, out)
    return ForwardResult(x[0] if squeeze else x, name, seconds, bytes_moved(B, T, emb.d_model))


def widened_rows(emb: Embeddings, ids: np.ndarray, T: int) -> tuple[Embeddings, np.ndarray]:
    """For a bfloat16 / float16 model: a float32 model of just the rows these ids use (and the first T positions),
    with the ids renumbered into it, so every backend sums float32 rows exactly and the whole table is never widened.
    A float32 model comes back as it is."""
    pos = emb.position_table
    if not is_narrow(emb.token_table) and (pos is None or not is_narrow(pos)):
        return emb, ids
    used, local = np.unique(ids, return_inverse=True)
    small = replace(emb, token_table=f32(emb.token_table[used]), output_table=None, tied=False,
                    position_table=None if pos is None else f32(pos[:T]), key=f"{emb.key}|rows")
    return small, local.reshape(ids.shape).astype(ids.dtype)


def _linear(x: np.ndarray, layer: tuple[np.ndarray, np.ndarray | None]) -> np.ndarray:
    w, b = layer  # (out, in), (out,)
    y = x.astype(np.float64) @ w.T.astype(np.float64)
    return (y if b is None else y + b).astype(np.float32)


def layer_norm(x: np.ndarray, norm: tuple[np.ndarray | None, np.ndarray | None, float, bool]) -> np.ndarray:
    """LayerNorm (or RMSNorm) over the last axis, in float64, returned as float32."""
    w, b, eps, rms = norm
    x = x.astype(np.float64)
    if rms:
        y = x / np.sqrt((x * x).mean(-1, keepdims=True) + eps)
    else:
        c = x - x.mean(-1, keepdims=True)
        y = c / np.sqrt((c * c).mean(-1, keepdims=True) + eps)
    y = y if w is None else y * w  # a norm without weights (NanoChat's, ANDREA's) scales nothing
    return (y if b is None else y + b).astype(np.float32)


def trigram(tok: np.ndarray) -> np.ndarray:
    """MobileBERT's trigram input: each position's row beside the next position's and the previous one's,
    ``[tok[t+1], tok[t], tok[t-1]]``, zeros past either end of the sequence; (…, T, d) -> (…, T, 3·d)."""
    nxt, prev = np.zeros_like(tok), np.zeros_like(tok)
    nxt[..., :-1, :], prev[..., 1:, :] = tok[..., 1:, :], tok[..., :-1, :]
    return np.concatenate([nxt, tok, prev], axis=-1)


def before_positions(bi: BlockInput, tok: np.ndarray) -> np.ndarray:
    """The token rows as the model has them when positions are added: scaled (Gemma), side by side with their
    neighbours (MobileBERT), projected (OPT, MobileBERT)."""
    for step in taken(bi, before=True):
        tok = step.apply(bi, tok)
    return tok


def after_positions(bi: BlockInput, x: np.ndarray) -> np.ndarray:
    """The sum as block 1 receives it: + the token-type row, the norm, the projection (ALBERT)."""
    for step in taken(bi, before=False):
        x = step.apply(bi, x)
    return x


def affine(x: np.ndarray, wb: tuple[np.ndarray, np.ndarray | None]) -> np.ndarray:
    """x·weight + bias per column, nothing normalised (MobileBERT's NoNorm), in float64, returned as float32."""
    w, b = wb
    y = x.astype(np.float64) * w
    return (y if b is None else y + b).astype(np.float32)


def _is_root_d(scale: float, d: int) -> bool:
    return abs(scale ** 2 - d) < 1e-6 * d


def _trigram_formula(f: str) -> str:
    t = f.replace("[id_t]", "")
    return rf"[{t}[id_{{t+1}}];\,{t}[id_t];\,{t}[id_{{t-1}}]]"


def _norm_name(bi: BlockInput) -> str:
    return "RMSNorm" if bi.norm[3] else "LayerNorm"


@dataclass(frozen=True)
class Step:
    """One step of the block-1 input beyond ``tok + pos`` (a field of ``model.BlockInput``), as every reader of the
    list takes it: ``apply`` to the rows, its picture's ``label`` (given the columns before and after and d), its
    ``sentence`` (given d) and its ``formula`` (the LaTeX so far, given d). ``before``: taken on the token rows before
    the position rows are added; ``term``: the row a step adds (drawn as a term of the sum, not as a step's result)."""

    field: str
    before: bool
    apply: Callable[[BlockInput, np.ndarray], np.ndarray]
    label: Callable[[BlockInput, int, int, int], Msg | str]
    sentence: Callable[[BlockInput, int], Msg]
    formula: Callable[[BlockInput, int, str], str]
    term: Callable[[BlockInput], np.ndarray] | None = None


STEPS = (  # in the order the model takes them: x = project_out(affine(norm(project_in(trigram(scale · tok)) + pos + type)))
    Step("scale", True,
         lambda bi, x: (x * np.float32(bi.scale)).astype(np.float32),
         lambda bi, a, b, d: Msg("× {s:.4g} (√d, d = {d})", s=bi.scale, d=d) if _is_root_d(bi.scale, d)
         else Msg("× {s:.4g}", s=bi.scale),
         lambda bi, d: Msg("the token rows are multiplied by {s:.4g} (√d, d = {d})", s=bi.scale, d=d)
         if _is_root_d(bi.scale, d) else Msg("the token rows are multiplied by {s:.4g}", s=bi.scale),
         lambda bi, d, f: (r"\sqrt{d}\," if _is_root_d(bi.scale, d) else rf"{bi.scale:.4g}\,") + f),
    Step("trigram", True,
         lambda bi, x: trigram(x),
         lambda bi, a, b, d: Msg("[next, this, previous] token rows side by side: {a} → {b} columns", a=a, b=b),
         lambda bi, d: Msg("each token's row is set beside the next token's and the previous one's (zeros past the "
                           "ends): {a} → {b} columns (MobileBERT's trigram input)", a=d, b=3 * d),
         lambda bi, d, f: _trigram_formula(f)),
    Step("project_in", True,
         lambda bi, x: _linear(x, bi.project_in),
         lambda bi, a, b, d: Msg("project_in: {a} → {b} columns", a=a, b=b),
         lambda bi, d: Msg("the token rows are projected from {a} to {b} columns before the position rows are added "
                           "(project_in)", a=bi.project_in[0].shape[1], b=bi.project_in[0].shape[0]),
         lambda bi, d, f: rf"W_{{\mathrm{{in}}}}\,{f}"),
    Step("token_type", False,
         lambda bi, x: (x + bi.token_type).astype(np.float32),
         lambda bi, a, b, d: Msg("+ token type 0 row"),
         lambda bi, d: Msg("row 0 of the token-type table is added at every position (every token here is of type 0)"),
         lambda bi, d, f: f + r" + \mathrm{type}[0]", term=lambda bi: bi.token_type),
    Step("norm", False,
         lambda bi, x: layer_norm(x, bi.norm),
         lambda bi, a, b, d: _norm_name(bi),
         lambda bi, d: Msg("the sum goes through a {norm} (eps = {eps:g}) before block 1", eps=bi.norm[2],
                           norm=_norm_name(bi)),
         lambda bi, d, f: rf"\mathrm{{{_norm_name(bi)}}}({f})"),
    Step("affine", False,
         lambda bi, x: affine(x, bi.affine),
         lambda bi, a, b, d: "NoNorm",
         lambda bi, d: Msg("NoNorm: each column of the sum is multiplied by its weight and its bias is added, with "
                           "nothing normalised, before block 1"),
         lambda bi, d, f: rf"\mathrm{{NoNorm}}({f})"),
    Step("project_out", False,
         lambda bi, x: _linear(x, bi.project_out),
         lambda bi, a, b, d: Msg("projection: {a} → {b} columns", a=bi.project_out[0].shape[1], b=b),
         lambda bi, d: Msg("a projection from {a} to {b} columns follows (the embedding is narrower than the blocks)",
                           a=bi.project_out[0].shape[1], b=bi.project_out[0].shape[0]),
         lambda bi, d, f: rf"W_{{\mathrm{{proj}}}}\,{f}"),
)


def taken(bi: BlockInput, before: bool | None = None) -> list[Step]:
    """The steps this model takes, in order (those before the position rows are added, or after, or all)."""
    def takes(v) -> bool:
        return v if isinstance(v, bool) else v is not None

    return [s for s in STEPS if (before is None or s.before == before) and takes(getattr(bi, s.field))]


def forward(emb: Embeddings, ids, backend: str = "auto", positions: bool = True,
            out: np.ndarray | None = None) -> ForwardResult:
    """x, the input to block 1, as the model's own embedding module computes it: for GPT-2 and ANDREA
    ``token_table[ids] + position_table[:T]`` on the chosen backend; for other families that sum with their
    extra steps around it (``emb.block_input``: scale, projection, token-type row, LayerNorm), in numpy.

    ``positions=False``, or a model without a position table (RoPE, ALiBi, relative), adds no position rows.
    ``out``, a float32 (B, T, d) array, is written in place (a buffer the caller reuses) for a plain model.
    """
    bi = emb.block_input
    if bi.unstated is not None:
        raise QueryError("x, the input to block 1, cannot be stated for {cls}: {reason}", cls=bi.module or emb.name,
                         reason=bi.unstated)
    add = positions and emb.position_table is not None
    if bi.plain:
        return embedding_sum(emb, ids, backend, add, out)
    if not taken(bi, before=True):
        r = embedding_sum(emb, ids, backend, add)
        x = after_positions(bi, r.x)
    else:
        r = embedding_sum(emb, ids, backend, False)
        x = before_positions(bi, r.x)
        if add:
            x = (x + f32(emb.position_table[: x.shape[-2]])).astype(np.float32)
        x = after_positions(bi, x)
    if out is not None and out.shape == x.shape:
        out[...] = x
        x = out
    return ForwardResult(x, r.backend, r.seconds, r.bytes_moved)


@dataclass(frozen=True)
class Part:
    """One term or step of the block-1 input, for a page to draw beside the others."""

    label: Msg | str  # a Msg, or a module's name (LayerNorm)
    values: np.ndarray  # (T, width)
    step: bool = False  # True: a step applied to what came before (scale, norm, projection); False: a term added


def block_input_parts(emb: Embeddings, ids) -> list[Part]:
    """The block-1 input of one sequence term by term and step by step, the last part x itself (numpy)."""
    bi = emb.block_input
    if bi.unstated is not None:
        forward(emb, ids, "numpy")  # the sentence that says why
    a = check_ids(ids, emb.vocab_size, emb.context)[0]
    tok = emb.token_table[a]
    d = tok.shape[1]
    parts = [Part(Msg("token part ({n} × {d})", n=len(a), d=d), tok)]
    x = tok
    for step in taken(bi, before=True):
        cols, x = x.shape[1], step.apply(bi, x)
        parts.append(Part(step.label(bi, cols, x.shape[1], d), x, True))
    if emb.position_table is not None:
        pos = emb.position_table[: len(a)]
        parts.append(Part(Msg("+ position part"), pos))
        x = (x + pos).astype(np.float32)
    for step in taken(bi, before=False):
        cols, y = x.shape[1], step.apply(bi, x)
        label = step.label(bi, cols, y.shape[1], d)
        parts.append(Part(label, np.broadcast_to(step.term(bi), x.shape)) if step.term else Part(label, y, True))
        x = y
    if parts[-1].step:  # the last step's result is x itself: one picture, named for both
        return [*parts[:-1], Part(Msg("{step} = x, into block 1", step=parts[-1].label), x, True)]
    return [*parts, Part(Msg("= x, into block 1"), x)]


def block_input_steps(emb: Embeddings) -> list[Msg]:
    """What this model does beyond x = tok + pos, one sentence per step (empty for GPT-2 and ANDREA)."""
    bi, d = emb.block_input, emb.d_model
    if bi.unstated is not None:
        return [Msg("the input to block 1 cannot be stated for {cls}: {reason}", cls=bi.module or emb.name,
                    reason=bi.unstated)]
    out = []
    if emb.position_table is None:
        reason = emb.card.position_reason
        out.append(Msg("no position rows are added: {reason}", reason=reason) if reason else
                   Msg("no position rows are added (positions: {kind})", kind=emb.position_kind))
    return out + [step.sentence(bi, d) for step in taken(bi)]


def block_input_formula(emb: Embeddings) -> str:
    """What block 1 receives, as LaTeX: x = tok + pos for GPT-2, LayerNorm(tok + pos + type_0) for BERT, …"""
    bi = emb.block_input
    if bi.unstated is not None:  # never a formula the model does not compute
        return r"x_t = \;?"
    x = r"\mathrm{tok}[id_t]"
    for step in taken(bi, before=True):
        x = step.formula(bi, emb.d_model, x)
    if emb.position_table is not None:
        x += r" + \mathrm{pos}[t]"
    for step in taken(bi, before=False):
        x = step.formula(bi, emb.d_model, x)
    return f"x_t = {x}"


_scratch = threading.local()


def scratch_buffer(shape: tuple[int, int, int]) -> np.ndarray:
    """A float32 output buffer kept per thread and reused by timing runs, so they time the kernel and
    not the page faults of a fresh 25 MB allocation (each app session runs in its own thread)."""
    buffers = _scratch.__dict__.setdefault("buffers", {})
    if shape not in buffers:
        buffers.clear()
        buffers[shape] = np.empty(shape, np.float32)
    return buffers[shape]


def time_backends(emb: Embeddings, B: int = 8, repeats: int = 3, seed: int = 0) -> list[dict]:
    """A full context (B sequences × the model's T random ids) on every available backend: the best
    of ``repeats`` timed calls after one warm-up call, all writing into one reused output buffer.
    For medians against torch, see ``bench``."""
    if emb.context is None:
        raise QueryError("this model has no learned position table, so there is no full context to run")
    ids = np.random.default_rng(seed).integers(0, emb.vocab_size, (B, emb.context))
    out = scratch_buffer((B, emb.context, emb.d_model))
    rows = []
    for s in backend_status():
        if s.available:
            embedding_sum(emb, ids, s.name, out=out)
            r = min((embedding_sum(emb, ids, s.name, out=out) for _ in range(repeats)), key=lambda r: r.seconds)
            rows.append({"backend": s.name, "seconds": r.seconds, "gbps": r.gbps})
    return rows
