"""The GPU check, run on a machine with a CUDA device and a CUDA build of torch:

    python -m cuda_ext.check_gpu          # exit 0 only when every check passes

Builds the CUDA extension, compares it with the reference on fp32 (bitwise), bf16 and fp16,
int32 and int64 ids, a d that takes the vector path and one that takes the scalar path, checks
that a bad id is reported, then runs the benchmark (fp32 and bf16, B=64, T=1024, d=768).
It is not part of the test suite because CI has no GPU.
"""

from __future__ import annotations

import sys


def main() -> int:
    import torch

    from andrea_viz.bench_forward import run
    from cuda_ext import load_kernel

    if not torch.cuda.is_available():
        print(f"no CUDA device (torch {torch.__version__}, CUDA build: {torch.version.cuda})")
        return 1
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, CUDA {torch.version.cuda}", flush=True)
    mod, why = load_kernel("cuda", verbose=False)
    if mod is None:
        print(f"FAIL build: {why}")
        return 1
    failures = 0
    g = torch.Generator().manual_seed(0)
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        for d in (768, 13):
            for id_dtype in (torch.int32, torch.int64):
                wte = torch.randn(5000, d, generator=g).to(dtype)
                wpe = torch.randn(256, d, generator=g).to(dtype)
                ids = torch.randint(0, 5000, (8, 256), generator=g, dtype=id_dtype)
                out = mod.forward_cuda(ids.cuda(), wte.cuda(), wpe.cuda(), True).cpu()
                ref = wte.float()[ids.long()] + wpe.float()[:256]
                ok = torch.equal(out, ref) if dtype == torch.float32 else torch.allclose(out, ref, rtol=0, atol=1e-6)
                failures += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {str(dtype):15} d={d:<4} ids {str(id_dtype):11} "
                      f"max |diff| {float((out - ref).abs().max()):.3g}", flush=True)
    try:
        mod.forward_cuda(torch.tensor([[0, 5000]]).cuda(), wte.cuda(), wpe.cuda(), True)
        print("FAIL an out-of-range id was not reported")
        failures += 1
    except RuntimeError as exc:
        print(f"ok   bad id reported: {str(exc).splitlines()[0]}")
    for dtype in ("float32", "bfloat16"):
        run(B=64, T=1024, d=768, V=8449, dtype=dtype, repeats=50)
    print("ALL CHECKS PASSED" if failures == 0 else f"{failures} CHECKS FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
