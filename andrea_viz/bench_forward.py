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

from .forward_pass import LABELS, backend_status, bytes_moved
from .timing import median_seconds


def _dtype(name: str):
    import torch

    table = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
    if name not in table:
        raise ValueError(f"dtype must be one of {', '.join(table)}; got {name!r}")
    return table[name]


def _time_cuda(fn, repeats: int, warmup: int) -> float:
    import torch

    flush = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.float32, device="cuda")  # larger than any L2
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


def run(B: int = 8, T: int = 1024, d: int = 768, V: int = 8449, dtype: str = "float32", repeats: int = 20,
        warmup: int = 3, as_json: bool = False, compile_torch: bool = True) -> dict:
    import torch

    import cuda_ext

    tdt = _dtype(dtype)
    elem = torch.tensor([], dtype=tdt).element_size()
    gen = torch.Generator().manual_seed(0)
    wte = (torch.randn(V, d, generator=gen) / d**0.5).to(tdt)
    wpe = (torch.randn(T, d, generator=gen) / d**0.5).to(tdt)
    ids = torch.randint(0, V, (B, T), generator=gen, dtype=torch.int64)
    nbytes = bytes_moved(B, T, d, elem=elem, out_elem=4, id_bytes=8)
    eager_bytes = bytes_moved(B, T, d, elem=elem, out_elem=elem, id_bytes=8)  # eager writes the table dtype
    rows: list[dict] = []
    status = {s.name: s for s in backend_status()}
    ref = (wte.float()[ids] + wpe.float()[:T]).numpy()

    def record(name: str, label: str, seconds: float | None, moved: int, out=None, note: str = "") -> None:
        ok = None
        if out is not None:
            got = out.float().cpu().numpy() if hasattr(out, "cpu") else out
            ok = bool(np.array_equal(got, ref)) if dtype == "float32" else bool(np.allclose(got, ref, atol=1e-2))
        rows.append({"backend": name, "label": label, "median_ms": None if seconds is None else seconds * 1e3,
                     "gbps": None if seconds is None else moved / seconds / 1e9, "matches_reference": ok,
                     "note": note})

    # CPU side
    np_ids, np_wte, np_wpe = ids.numpy(), wte.float().numpy(), wpe.float().numpy()
    if dtype == "float32":
        t = median_seconds(lambda: np_wte[np_ids] + np_wpe[None, :T], repeats, warmup)
        record("numpy", LABELS["numpy"], t, nbytes, np_wte[np_ids] + np_wpe[None, :T])
    else:
        record("numpy", LABELS["numpy"], None, nbytes, note="numpy has no bfloat16/float16 path here")

    def eager(i=ids, w=wte, p=wpe):
        return torch.nn.functional.embedding(i, w) + p[:T]

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

    if compile_torch:
        try_compile("torch.compile", "torch.compile of the same (CPU)", eager, median_seconds)
    cpu_mod, why = cuda_ext.load_kernel("cpu")
    if cpu_mod is not None:
        record("cpu", LABELS["cpu"], median_seconds(lambda: cpu_mod.forward_cpu(ids, wte, wpe), repeats, warmup), nbytes,
               cpu_mod.forward_cpu(ids, wte, wpe))
    else:
        record("cpu", LABELS["cpu"], None, nbytes, note=why)

    # GPU side
    copy_gbps = None
    if status["cuda"].available:
        mod, _ = cuda_ext.load_kernel("cuda")
        dev = torch.device("cuda")
        g_ids, g_wte, g_wpe = ids.to(dev), wte.to(dev), wpe.to(dev)
        src = torch.empty(512 * 1024 * 1024 // 4, device=dev)
        dst = torch.empty_like(src)
        t_copy = _time_cuda(lambda: dst.copy_(src), repeats, warmup)
        copy_gbps = 2 * src.numel() * 4 / t_copy / 1e9  # read + write
        t_ge = _time_cuda(lambda: eager(g_ids, g_wte, g_wpe), repeats, warmup)
        record("torch eager (cuda)", "torch eager: F.embedding + add (GPU)", t_ge, eager_bytes, eager(g_ids, g_wte, g_wpe))
        if compile_torch:
            try_compile("torch.compile (cuda)", "torch.compile of the same (GPU)",
                        lambda: eager(g_ids, g_wte, g_wpe), _time_cuda)
        t_k = _time_cuda(lambda: mod.forward_cuda(g_ids, g_wte, g_wpe, False), repeats, warmup)
        record("cuda", LABELS["cuda"], t_k, nbytes, mod.forward_cuda(g_ids, g_wte, g_wpe, True))
    else:
        record("cuda", LABELS["cuda"], None, nbytes, note=status["cuda"].reason)

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
        + (f", {torch.cuda.get_device_name()}" if status["cuda"].available else ", no GPU"),
        "torch": torch.__version__, "threads": torch.get_num_threads(),
        "shape": {"B": B, "T": T, "d": d, "V": V, "dtype": dtype},
        "bytes_per_call": nbytes, "device_copy_gbps": copy_gbps, "repeats": repeats, "rows": rows,
    }
    if as_json:
        print(json.dumps(result, indent=2))
        return result
    print(f"{result['machine']}; torch {result['torch']}, {result['threads']} threads")
    print(f"B={B} T={T} d={d} V={V} {dtype}: {nbytes / 1e6:.1f} MB moved per call "
          f"(B·T·(2·d·{elem} + d·4 + 8)); median of {repeats} after {warmup} warm-up calls")
    if copy_gbps:
        print(f"device-to-device copy: {copy_gbps:.0f} GB/s (the ceiling)")
    print(f"{'backend':<42} {'median':>10} {'GB/s':>8} {'× eager':>8}  equal to reference")
    for r in rows:
        if r["median_ms"] is None:
            print(f"{r['label']:<42} {'—':>10} {'':>8} {'':>8}  {r['note']}")
            continue
        x = r.get("vs_gpu_eager", r.get("vs_cpu_eager"))
        extra = f"  ({r['gbps'] / copy_gbps:.0%} of copy)" if copy_gbps and "cuda" in r["backend"] else ""
        print(f"{r['label']:<42} {r['median_ms']:>8.3f}ms {r['gbps']:>8.1f} {x if x else float('nan'):>7.2f}×  "
              f"{r['matches_reference']}{extra}")
    return result
