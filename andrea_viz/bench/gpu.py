"""``python -m andrea_viz bench-gpu``: the GPU check, for a machine with a CUDA device and a CUDA build
of torch. Exit code 0 only when every check passes.

1. Builds the CUDA extension (the time is printed).
2. Compares the kernel with the reference: fp32 (bitwise), bf16 and fp16, int32 and int64 ids, a d
   that takes the vector path and one that takes the scalar path, rows that are not 16-byte aligned,
   a batch whose last block is partial, and an out-of-range id that must be reported.
3. Runs ``andrea_viz.forward`` on the cuda backend: equal to the reference, the model's tables copied
   to the device once and kept there, the kernel timed with CUDA events.
4. Runs the ladder (``ladder_sweep``): every kernel version (cuda_ext/embed_forward_thread.h) at every
   block size from 64 to 1,024, fp32 and bf16 tables, B = 64, T = 1,024, d = 768, V = 8,449; each launch
   checked against the reference (bitwise), then timed beside torch eager, ``torch.compile`` and a
   device-to-device copy of the same byte count, in one run. It prints the table for the README and
   the ``CHOICE`` lines for cuda_ext/ladder.py (the version ``andrea_viz.forward`` launches).
5. Runs the forward benchmark (fp32 at B = 8 and 64, bf16 at B = 64, T = 1,024, d = 768, V = 8,449; and
   GPT-2's V = 50,257, a table larger than L2) against
   the device-to-device copy bandwidth, torch eager and torch.compile, side by side.

It is not part of the test suite because CI has no GPU.
"""

from __future__ import annotations

import subprocess
import sys
import time

from ..family import CONTEXT, FAMILY
from ..forward_pass import forward
from ..loading import load
from .forward import _time_cuda, run
from .timer import median_seconds

SHAPE = FAMILY["ANDREA-120M"]
GPT2_VOCAB = 50_257  # a token table (154 MB in fp32) larger than the H200's 60 MB L2


def _check(label: str, ok: bool, detail: str = "") -> int:
    print(f"{'ok  ' if ok else 'FAIL'} {label}{'  ' + detail if detail else ''}", flush=True)
    return 0 if ok else 1


def kernel_checks(mod) -> int:
    import torch

    from cuda_ext.ladder import VERSIONS

    failures = 0
    g = torch.Generator().manual_seed(0)
    for version in VERSIONS:
        for dtype in (torch.float32, torch.bfloat16, torch.float16):
            for d in (768, 13):
                for id_dtype in (torch.int32, torch.int64):
                    wte = torch.randn(5000, d, generator=g).to(dtype)
                    wpe = torch.randn(256, d, generator=g).to(dtype)
                    ids = torch.randint(0, 5000, (3, 251), generator=g, dtype=id_dtype)  # a partial last block
                    out = mod.forward_cuda(ids.cuda(), wte.cuda(), wpe.cuda(), True, None, version, 128).cpu()
                    ref = wte.float()[ids.long()] + wpe.float()[:251]  # both halves exact in fp32: bitwise equal
                    failures += _check(f"v{version} {str(dtype):15} d={d:<4} ids {str(id_dtype):11}",
                                       torch.equal(out, ref), f"max |diff| {float((out - ref).abs().max()):.3g}")
    # rows that start 4 bytes past a 16-byte boundary: the launcher must take the scalar path
    base = torch.randn(5000 * 768 + 1, generator=g).cuda()
    wte = base[1:].view(5000, 768)
    wpe = torch.randn(64, 768, generator=g).cuda()
    ids = torch.randint(0, 5000, (2, 64), generator=g).cuda()
    for version in VERSIONS:
        out = mod.forward_cuda(ids, wte, wpe, True, None, version, 256)
        failures += _check(f"v{version} unaligned rows (scalar path)", torch.equal(out, wte[ids] + wpe[:64]))
        try:
            mod.forward_cuda(torch.tensor([[0, 5000]]).cuda(), wte.contiguous(), wpe, True, None, version, 256)
            failures += _check(f"v{version} an out-of-range id is reported", False)
        except RuntimeError as exc:
            failures += _check(f"v{version} an out-of-range id is reported", "out of range" in str(exc),
                               str(exc).splitlines()[0])
    try:
        mod.forward_cuda(ids, wte, wpe, True, None, 4, 256)
        failures += _check("a version outside the ladder is refused", False)
    except RuntimeError as exc:
        failures += _check("a version outside the ladder is refused", "refused version 4" in str(exc))
    return failures


def _driver() -> str:
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True,
                           text=True, timeout=30)
        return r.stdout.strip().splitlines()[0] if r.returncode == 0 and r.stdout.strip() else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _ladder_one(mod, name: str, repeats: int, shape: tuple[int, int, int, int], table: list[str], device: str,
                compile_torch: bool):
    """One table dtype of the sweep: (launches that differed from the reference, the fastest
    (version, block) among those equal to it, or None). Appends its rows to ``table``."""
    import torch

    from cuda_ext.ladder import BLOCKS, VERSIONS

    B, T, d, V = shape
    dev = torch.device(device)
    timer = _time_cuda if device == "cuda" else median_seconds
    tdt = {"float32": torch.float32, "bfloat16": torch.bfloat16}[name]
    g = torch.Generator().manual_seed(0)
    elem = torch.tensor([], dtype=tdt).element_size()
    wte = (torch.randn(V, d, generator=g) / d**0.5).to(tdt).to(dev)
    wpe = (torch.randn(T, d, generator=g) / d**0.5).to(tdt).to(dev)
    ids = torch.randint(0, V, (B, T), generator=g, dtype=torch.int64).to(dev)
    ref = wte.float()[ids] + wpe.float()[:T]
    formula = B * T * (2 * d * elem + d * 4 + 8)
    dram = B * T * d * 4 + (int(torch.unique(ids).numel()) + T) * d * elem + B * T * 8
    src = torch.empty(dram // 2, dtype=torch.uint8, device=dev)
    dst = torch.empty_like(src)
    copy_gbps = 2 * src.numel() / timer(lambda: dst.copy_(src), repeats, 3) / 1e9
    print(f"\n{name} tables, B={B} T={T} d={d} V={V}: {formula / 1e6:.1f} MB by the formula, "
          f"{dram / 1e6:.1f} MB DRAM lower bound; a copy of {2 * src.numel() / 1e6:.1f} MB (read + write): "
          f"{copy_gbps:.0f} GB/s; median of {repeats}, "
          + ("L2 flushed between calls, CUDA events" if device == "cuda" else "wall clock (a CPU stand-in)"), flush=True)
    print(f"  {'':<28} {'median':>11} {'formula':>8} {'DRAM lb':>8} {'share':>11} {'× eager':>7}  equal")

    def row(label: str, seconds: float, ok: bool | None, eager_s: float | None) -> None:
        gbps, lb = formula / seconds / 1e9, dram / seconds / 1e9
        x = f"{eager_s / seconds:.2f}×" if eager_s else "1.00×"
        eq = "—" if ok is None else ("yes" if ok else "NO")
        print(f"  {label:<28} {seconds * 1e3:>8.3f} ms {gbps:>8.0f} {lb:>8.0f} GB/s {lb / copy_gbps:>6.0%} {x:>7}  {eq}",
              flush=True)
        table.append(f"| {name} | {label} | {seconds * 1e3:.3f} ms | {gbps:,.0f} | {lb:,.0f} | "
                     f"{lb / copy_gbps:.0%} | {x} | {eq} |")

    def eager():
        return torch.nn.functional.embedding(ids, wte) + wpe[:T]

    t_eager = timer(eager, repeats, 3)
    row("torch eager", t_eager, None, None)
    try:
        if compile_torch:
            compiled = torch.compile(eager)
            compiled()
            row("torch.compile", timer(compiled, repeats, 3), None, t_eager)
    except Exception as exc:  # torch.compile needs a working Triton; its reason is printed, the run goes on
        print(f"  torch.compile unavailable: {str(exc).splitlines()[0][:120]}", flush=True)
    out = torch.empty(B, T, d, dtype=torch.float32, device=dev)
    failures, timed = 0, {}
    for version in VERSIONS:
        for block in BLOCKS:
            try:
                ok = bool(torch.equal(mod.forward_cuda(ids, wte, wpe, True, None, version, block), ref))
            except RuntimeError as exc:  # a launch the device refuses is a failure of the ladder, not of the run
                print(f"  v{version}, {block} threads: FAIL {str(exc).splitlines()[0][:160]}", flush=True)
                failures += 1
                continue
            failures += 0 if ok else 1
            t = timer(lambda v=version, b=block: mod.forward_cuda(ids, wte, wpe, False, out, v, b), repeats, 3)
            row(f"v{version}, {block} threads", t, ok, t_eager)
            if ok:
                timed[(version, block)] = t
    if not timed:
        return failures, None
    best = min(timed, key=timed.get)
    share = dram / timed[best] / 1e9 / copy_gbps
    print(f"  best: v{best[0]} at {best[1]} threads, {share:.0%} of the copy rate "
          f"({'meets' if share >= 0.85 else 'misses'} the target of 85%)", flush=True)
    return failures, best


def ladder_sweep(mod, repeats: int = 50, B: int = 64, T: int = CONTEXT, d: int = SHAPE.d, V: int = SHAPE.V,
                 device: str = "cuda", compile_torch: bool = True) -> int:
    """Every version × block size for fp32 and bf16 tables, beside torch eager, torch.compile and a copy.

    Bytes: the formula counts each row once, ``B·T·(2·d·elem + d·4 + 8)`` (= ``B·T·(3·d·4 + 8)`` for
    fp32; the output is fp32 for every table dtype); the DRAM lower bound is the least that must cross
    DRAM: each distinct token row and each position row once, the fp32 output, the int64 ids. Its share
    is (lower bound / time) over the rate of a device-to-device copy moving the same number of bytes
    (read + write), measured in the same run. Returns the number of launches that differed from the
    reference; prints the README's table and the CHOICE lines for cuda_ext/ladder.py.

    ``device="cpu"`` runs the same sweep on CPU tensors with a wall-clock timer: the tests drive it
    with the host harness standing in for ``mod`` (its figures say nothing about a GPU)."""
    import torch

    from cuda_ext.ladder import CHOICE, choice_source

    failures = 0
    best = dict(CHOICE)
    table = ["| table | kernel | median | formula GB/s | DRAM lower bound GB/s | share of copy | × eager | equal |",
             "|---|---|---|---|---|---|---|---|"]
    for name in ("float32", "bfloat16"):
        f, fastest = _ladder_one(mod, name, repeats, (B, T, d, V), table, device, compile_torch)
        failures += f
        if fastest:
            best[name] = fastest
    best["float16"] = best["bfloat16"]  # fp16 moves bf16's bytes; not swept
    where = (f"{torch.cuda.get_device_name()}, driver {_driver()}, torch {torch.__version__}, CUDA {torch.version.cuda}"
             if device == "cuda" else f"CPU stand-in, torch {torch.__version__}")
    print(f"\nThe ladder on {where} (paste into the README):\n" + "\n".join(table))
    print("\nFor cuda_ext/ladder.py (float16 takes bfloat16's choice):\n"
          + choice_source(best, f"bench-gpu, {where}, {time.strftime('%Y-%m-%d')}"), flush=True)
    return failures


def library_checks() -> int:
    import numpy as np


    emb = load("andrea-120m-init")
    ids = np.random.default_rng(0).integers(0, emb.vocab_size, (8, CONTEXT))
    ref = emb.token_table[ids] + emb.position_table[None, :CONTEXT]
    first = forward(emb, ids, "cuda")
    kept = emb.__dict__.get("_memo", {})  # read, never filled here: a check that fills it would pass by itself
    tables = kept.get(("cuda tables",))
    second = forward(emb, ids, "cuda")
    failures = _check("andrea_viz.forward on cuda equals the reference", np.array_equal(second.x, ref))
    failures += _check("the tables were copied to the device once",
                       tables is not None and tables[0].is_cuda and kept.get(("cuda tables",)) is tables,
                       "the first call kept no device tables" if tables is None else "")
    print(f"     forward(B=8, T={CONTEXT}): kernel {first.seconds * 1e6:.1f} µs (first call), "
          f"{second.seconds * 1e6:.1f} µs (second), {second.gbps:.0f} GB/s by CUDA events", flush=True)
    short = forward(emb, ids[0, :6], "cuda")
    failures += _check("a six-token sentence", np.array_equal(short.x, ref[0, :6]),
                       f"{short.seconds * 1e6:.1f} µs, GB/s not shown ({short.gbps})")
    return failures


def gpu_check(repeats: int = 50) -> int:
    import torch

    import cuda_ext


    if not torch.cuda.is_available():
        print(f"no CUDA device (torch {torch.__version__}, CUDA build: {torch.version.cuda})")
        return 1
    print(f"device: {torch.cuda.get_device_name()}, driver {_driver()}, torch {torch.__version__}, "
          f"CUDA {torch.version.cuda}", flush=True)
    t = time.perf_counter()
    mod, why = cuda_ext.load_kernel("cuda")
    if mod is None:
        print(f"FAIL build: {why}")
        return 1
    print(f"built the CUDA extension in {time.perf_counter() - t:.0f} s", flush=True)
    failures = kernel_checks(mod) + library_checks() + ladder_sweep(mod, repeats)
    for B, V, dtype in ((8, SHAPE.V, "float32"), (64, SHAPE.V, "float32"), (64, SHAPE.V, "bfloat16"),
                        (64, GPT2_VOCAB, "float32")):
        run(B=B, T=CONTEXT, d=SHAPE.d, V=V, dtype=dtype, repeats=repeats, cpu=False)
        print(flush=True)
    print("ALL CHECKS PASSED" if failures == 0 else f"{failures} CHECKS FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(gpu_check())
