"""``python -m andrea_viz bench``: every forward backend on the same tensors, in one run.

Medians over repeated calls after a warm-up; bandwidth against the honest byte count
``B·T·(2·d·elem + d·4 + id_bytes)`` (token row + position row read once, fp32 output written
once, the id read once; for fp32 tables that is ``B·T·(3·d·4 + id_bytes)``). On a GPU, calls are
timed with CUDA events and L2 is flushed between them; the device-to-device copy bandwidth is
measured in the same run as the ceiling.
"""

from __future__ import annotations

import json
import os
import platform
from statistics import median

import numpy as np

from ..family import CONTEXT, FAMILY
from ..forward_pass import BACKENDS, bytes_moved, status_of
from .timer import median_seconds

SHAPE = FAMILY["ANDREA-120M"]


DTYPES = ("float32", "bfloat16", "float16")
L2_FLUSH_BYTES = 256 * 2**20  # larger than any GPU's L2 cache
COPY_BYTES = 512 * 2**20  # the device-to-device copy that measures the ceiling


def _dtype(name: str):
    import torch

    return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[name]


def _time_cuda(fn, repeats: int, warmup: int) -> float:
    import torch

    flush = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.float32, device="cuda")
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        flush.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return median(times)


def run(B: int = 8, T: int = CONTEXT, d: int = SHAPE.d, V: int = SHAPE.V, dtype: str = "float32", repeats: int = 20,
        warmup: int = 3, as_json: bool = False, compile_torch: bool = True, cpu: bool = True) -> dict:
    """Every backend on the same tensors; ``cpu=False`` times the GPU side only."""
    import torch

    import cuda_ext

    tdt = _dtype(dtype)
    elem = torch.tensor([], dtype=tdt).element_size()
    gen = torch.Generator().manual_seed(0)
    wte = (torch.randn(V, d, generator=gen) / d**0.5).to(tdt)
    wpe = (torch.randn(T, d, generator=gen) / d**0.5).to(tdt)
    ids = torch.randint(0, V, (B, T), generator=gen, dtype=torch.int64)
    nbytes = bytes_moved(B, T, d, elem=elem, out_elem=4, id_bytes=8)
    # the least that must cross DRAM: each distinct token row and each position row once, the output, the ids
    unique = int(torch.unique(ids).numel())
    dram = B * T * d * 4 + (unique + T) * d * elem + B * T * 8
    eager_bytes = bytes_moved(B, T, d, elem=elem, out_elem=elem, id_bytes=8)  # eager writes the table dtype
    rows: list[dict] = []
    cuda = status_of("cuda")
    ref = (wte.float()[ids] + wpe.float()[:T]).numpy()

    def record(name: str, label: str, seconds: float | None, moved: int, out=None, note: str = "") -> None:
        ok = None
        if out is not None:
            got = out.float().cpu().numpy() if hasattr(out, "cpu") else out
            ok = bool(np.array_equal(got, ref)) if dtype == "float32" else bool(np.allclose(got, ref, atol=1e-2))
        rows.append({"backend": name, "label": label, "median_ms": None if seconds is None else seconds * 1e3,
                     "gbps": None if seconds is None else moved / seconds / 1e9,
                     "dram_gbps": None if seconds is None else dram / seconds / 1e9, "matches_reference": ok,
                     "note": note})

    # CPU side
    np_ids, np_wte, np_wpe = ids.numpy(), wte.float().numpy(), wpe.float().numpy()
    if cpu and dtype == "float32":
        t = median_seconds(lambda: np_wte[np_ids] + np_wpe[None, :T], repeats, warmup)
        record("numpy", BACKENDS["numpy"].label, t, nbytes, np_wte[np_ids] + np_wpe[None, :T])
    elif cpu:
        record("numpy", BACKENDS["numpy"].label, None, nbytes, note="numpy has no bfloat16/float16 path here")

    def eager(i=ids, w=wte, p=wpe):
        return torch.nn.functional.embedding(i, w) + p[:T]

    if cpu:
        t_eager = median_seconds(eager, repeats, warmup)
        record("torch eager", "torch eager: F.embedding + add (CPU)", t_eager, eager_bytes, eager())
    def try_compile(name: str, label: str, fn, timer) -> None:
        """torch.compile where it works; the reason in the table where it does not."""
        try:
            compiled = torch.compile(fn)
            compiled()
            record(name, label, timer(compiled, repeats, warmup), eager_bytes, compiled())
        except Exception as exc:
            record(name, label, None, eager_bytes, note=f"unavailable: {str(exc).splitlines()[0][:120]}")

    if cpu and compile_torch:
        try_compile("torch.compile", "torch.compile of the same (CPU)", eager, median_seconds)
    cpu_mod, why = cuda_ext.load_kernel("cpu") if cpu else (None, "")
    if cpu_mod is not None:
        record("cpu", BACKENDS["cpu"].label, median_seconds(lambda: cpu_mod.forward_cpu(ids, wte, wpe), repeats, warmup), nbytes,
               cpu_mod.forward_cpu(ids, wte, wpe))
    elif cpu:
        record("cpu", BACKENDS["cpu"].label, None, nbytes, note=str(why))

    # GPU side
    copy_gbps = None
    if cuda.available:
        mod, _ = cuda_ext.load_kernel("cuda")
        dev = torch.device("cuda")
        g_ids, g_wte, g_wpe = ids.to(dev), wte.to(dev), wpe.to(dev)
        src = torch.empty(COPY_BYTES // 4, device=dev)
        dst = torch.empty_like(src)
        t_copy = _time_cuda(lambda: dst.copy_(src), repeats, warmup)
        copy_gbps = 2 * src.numel() * 4 / t_copy / 1e9  # read + write
        t_ge = _time_cuda(lambda: eager(g_ids, g_wte, g_wpe), repeats, warmup)
        record("torch eager (cuda)", "torch eager: F.embedding + add (GPU)", t_ge, eager_bytes, eager(g_ids, g_wte, g_wpe))
        if compile_torch:
            try_compile("torch.compile (cuda)", "torch.compile of the same (GPU)",
                        lambda: eager(g_ids, g_wte, g_wpe), _time_cuda)
        version, block = cuda_ext.launch_for(dtype)  # the version andrea_viz.forward launches
        t_k = _time_cuda(lambda: mod.forward_cuda(g_ids, g_wte, g_wpe, False, None, version, block), repeats, warmup)
        record("cuda", f"{BACKENDS['cuda'].label} v{version}/{block}", t_k, nbytes,
               mod.forward_cuda(g_ids, g_wte, g_wpe, True, None, version, block))
    else:
        record("cuda", BACKENDS["cuda"].label, None, nbytes, note=str(cuda.reason))

    def ratio(base: str) -> None:
        b = next((r for r in rows if r["backend"] == base and r["median_ms"]), None)
        for r in rows:
            key = "vs_gpu_eager" if "cuda" in base else "vs_cpu_eager"
            if b and r["median_ms"] and (("cuda" in r["backend"]) == ("cuda" in base)):
                r[key] = b["median_ms"] / r["median_ms"]

    ratio("torch eager")
    ratio("torch eager (cuda)")
    result = {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores"
        + (f", {torch.cuda.get_device_name()}" if cuda.available else ", no GPU"),
        "torch": torch.__version__, "threads": torch.get_num_threads(),
        "shape": {"B": B, "T": T, "d": d, "V": V, "dtype": dtype},
        "bytes_per_call": nbytes, "dram_bytes_per_call": dram, "device_copy_gbps": copy_gbps, "repeats": repeats,
        "rows": rows,
    }
    if as_json:
        print(json.dumps(result, indent=2))
        return result
    print(f"{result['machine']}; torch {result['torch']}, {result['threads']} threads")
    print(f"B={B} T={T} d={d} V={V} {dtype}: {nbytes / 1e6:.1f} MB moved per call "
          f"(B·T·(2·d·{elem} + d·4 + 8)); median of {repeats} after {warmup} warm-up calls")
    if copy_gbps:
        print(f"device-to-device copy: {copy_gbps:.0f} GB/s (the ceiling); at least {dram / 1e6:.1f} MB must cross "
              f"DRAM per call ({unique:,} distinct token rows, {T:,} position rows, the output, the ids): rows "
              "repeated within a call can come from cache, so the formula's GB/s can pass the copy's")
    print(f"{'backend':<42} {'median':>10} {'GB/s':>8} {'× eager':>8}  equal to reference")
    for r in rows:
        if r["median_ms"] is None:
            print(f"{r['label']:<42} {'—':>10} {'':>8} {'':>8}  {r['note']}")
            continue
        x = r.get("vs_gpu_eager", r.get("vs_cpu_eager"))
        extra = (f"  (DRAM ≥ {r['dram_gbps']:.0f} GB/s, {r['dram_gbps'] / copy_gbps:.0%} of copy)"
                 if copy_gbps and "cuda" in r["backend"] else "")
        print(f"{r['label']:<42} {r['median_ms']:>8.3f}ms {r['gbps']:>8.1f} {x if x else float('nan'):>7.2f}×  "
              f"{r['matches_reference']}{extra}")
    return result
