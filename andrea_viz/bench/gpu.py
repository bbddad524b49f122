"""``python -m andrea_viz bench-gpu``: the GPU check, for a machine with a CUDA device and a CUDA build
of torch. Exit code 0 only when every check passes.

1. Builds the CUDA extension (the time is printed).
2. Compares the kernel with the reference: fp32 (bitwise), bf16 and fp16, int32 and int64 ids, a d
   that takes the vector path and one that takes the scalar path, rows that are not 16-byte aligned,
   a batch whose last block is partial, and an out-of-range id that must be reported.
3. Runs ``andrea_viz.forward`` on the cuda backend: equal to the reference, the model's tables copied
   to the device once and kept there, the kernel timed with CUDA events.
4. Runs the forward benchmark (fp32 at B = 8 and 64, bf16 at B = 64, T = 1,024, d = 768, V = 8,449; and
   GPT-2's V = 50,257, a table larger than L2) against
   the device-to-device copy bandwidth, torch eager and torch.compile, side by side.

It is not part of the test suite because CI has no GPU.
"""

from __future__ import annotations

import sys
import time

from ..family import CONTEXT, FAMILY
from ..forward_pass import forward
from ..loading import load
from .forward import run

SHAPE = FAMILY["ANDREA-120M"]
GPT2_VOCAB = 50_257  # a token table (154 MB in fp32) larger than the H200's 60 MB L2


def _check(label: str, ok: bool, detail: str = "") -> int:
    print(f"{'ok  ' if ok else 'FAIL'} {label}{'  ' + detail if detail else ''}", flush=True)
    return 0 if ok else 1


def kernel_checks(mod) -> int:
    import torch

    failures = 0
    g = torch.Generator().manual_seed(0)
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        for d in (768, 13):
            for id_dtype in (torch.int32, torch.int64):
                wte = torch.randn(5000, d, generator=g).to(dtype)
                wpe = torch.randn(256, d, generator=g).to(dtype)
                ids = torch.randint(0, 5000, (3, 251), generator=g, dtype=id_dtype)  # B·T·d leaves a partial block
                out = mod.forward_cuda(ids.cuda(), wte.cuda(), wpe.cuda(), True).cpu()
                ref = wte.float()[ids.long()] + wpe.float()[:251]
                ok = torch.equal(out, ref) if dtype == torch.float32 else torch.allclose(out, ref, rtol=0, atol=1e-6)
                failures += _check(f"{str(dtype):15} d={d:<4} ids {str(id_dtype):11}", ok,
                                   f"max |diff| {float((out - ref).abs().max()):.3g}")
    # rows that start 4 bytes past a 16-byte boundary: the launcher must take the scalar path
    base = torch.randn(5000 * 768 + 1, generator=g).cuda()
    wte = base[1:].view(5000, 768)
    wpe = torch.randn(64, 768, generator=g).cuda()
    ids = torch.randint(0, 5000, (2, 64), generator=g).cuda()
    out = mod.forward_cuda(ids, wte, wpe, True)
    failures += _check("unaligned rows (scalar path)", torch.equal(out, wte[ids] + wpe[:64]))
    try:
        mod.forward_cuda(torch.tensor([[0, 5000]]).cuda(), wte.contiguous(), wpe, True)
        failures += _check("an out-of-range id is reported", False)
    except RuntimeError as exc:
        failures += _check("an out-of-range id is reported", "out of range" in str(exc), str(exc).splitlines()[0])
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
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, CUDA {torch.version.cuda}", flush=True)
    t = time.perf_counter()
    mod, why = cuda_ext.load_kernel("cuda")
    if mod is None:
        print(f"FAIL build: {why}")
        return 1
    print(f"built the CUDA extension in {time.perf_counter() - t:.0f} s", flush=True)
    failures = kernel_checks(mod) + library_checks()
    for B, V, dtype in ((8, SHAPE.V, "float32"), (64, SHAPE.V, "float32"), (64, SHAPE.V, "bfloat16"),
                        (64, GPT2_VOCAB, "float32")):
        run(B=B, T=CONTEXT, d=SHAPE.d, V=V, dtype=dtype, repeats=repeats, cpu=False)
        print(flush=True)
    print("ALL CHECKS PASSED" if failures == 0 else f"{failures} CHECKS FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(gpu_check())
