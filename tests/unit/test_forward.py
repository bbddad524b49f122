"""The forward pass on every backend against the numpy reference, and the compiled extension."""

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
import torch

import andrea_viz
import cuda_ext
from andrea_viz.errors import QueryError
from andrea_viz.forward_pass import backend_status, bytes_moved, choose_backend, forward, forward_numpy

ROOT = Path(__file__).resolve().parents[2]
LOCAL = ["cpu", "torch", "numpy"]


@pytest.fixture(scope="module")
def cpu_kernel():
    mod, why = cuda_ext.load_kernel("cpu")
    assert mod is not None, f"the CPU kernel must build on CI: {why}"
    return mod


def slow_reference(ids, wte, wpe):
    """Row by row, element by element: x[b, t, c] = wte[ids[b, t], c] + wpe[t, c] in float32."""
    B, T = ids.shape
    out = np.empty((B, T, wte.shape[1]), np.float32)
    for b in range(B):
        for t in range(T):
            out[b, t] = np.float32(wte[ids[b, t]]) + np.float32(wpe[t])
    return out


@pytest.mark.parametrize("backend", LOCAL)
def test_every_backend_equals_the_reference_bitwise(load_model, cpu_kernel, backend):
    emb = load_model("andrea-12m-init")
    ids = np.random.default_rng(0).integers(0, emb.vocab_size, (3, 50))
    got = forward(emb, ids, backend)
    assert got.backend == backend and got.x.dtype == np.float32 and got.x.shape == (3, 50, 384)
    np.testing.assert_array_equal(got.x, slow_reference(ids, emb.token_table, emb.position_table))


def test_auto_picks_the_fastest_available(cpu_kernel):
    assert choose_backend("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    status = {s.name: s for s in backend_status()}
    assert status["cpu"].available and status["numpy"].available
    if not torch.cuda.is_available():
        assert not status["cuda"].available and str(status["cuda"].reason).count("is False") == 1  # once, not "() is False"


def test_one_sentence_gives_a_T_by_d_matrix(minilm):
    """MiniLM is BERT: block 1 gets LayerNorm(tok + pos + token_type[0]), not the bare sum."""
    ids = minilm.tokenizer.encode("the cat sat on a mat")
    r = forward(minilm, ids)
    assert r.x.shape == (6, 384)
    s = (minilm.token_table[4937] + minilm.position_table[1] + minilm.block_input.token_type).astype(np.float64)
    w, b, eps, rms = minilm.block_input.norm
    want = (s - s.mean()) / np.sqrt(s.var() + eps) * w + b
    assert not rms and eps == 1e-12
    np.testing.assert_allclose(r.x[1], want, rtol=0, atol=2e-6)
    assert np.abs(r.x[1] - (minilm.token_table[4937] + minilm.position_table[1])).max() > 0.1  # not the bare sum
    assert r.bytes_moved == bytes_moved(1, 6, 384) == 6 * (3 * 384 * 4 + 8)


@pytest.mark.parametrize("backend", LOCAL)
def test_ids_out_of_range_are_refused_in_one_sentence_before_any_backend_runs(load_model, backend, monkeypatch):
    import dataclasses

    from andrea_viz import forward_pass

    emb = load_model("andrea-12m-init")
    runs = []
    real = forward_pass.BACKENDS[backend]
    monkeypatch.setitem(forward_pass.BACKENDS, backend, dataclasses.replace(
        real, run=lambda *a: runs.append(a) or real.run(*a)))
    with pytest.raises(QueryError, match=r"token id 4353 at \(batch 0, position 2\) is out of range: .* 0 to 4352"):
        forward(emb, [1, 2, 4353], backend)
    with pytest.raises(QueryError, match="token id -1"):
        forward(emb, [[1], [-1]], backend)
    assert runs == []  # the same check for every backend, made once before it
    assert forward(emb, [1, 2, 3], backend).backend == backend and len(runs) == 1


@pytest.mark.parametrize("backend", LOCAL)
def test_T_larger_than_the_position_table_is_a_clear_error(load_model, backend):
    emb = load_model("andrea-12m-init")
    with pytest.raises(QueryError, match=r"T = 1,025 positions is larger than the position table \(1,024 rows\)"):
        forward(emb, np.zeros(1025, np.int64), backend)


def test_kernel_guards_ids_itself(cpu_kernel):
    wte, wpe = torch.randn(10, 8), torch.randn(4, 8)
    with pytest.raises(RuntimeError, match=r"token id 10 at \(batch 1, position 0\) is out of range"):
        cpu_kernel.forward_cpu(torch.tensor([[0, 1], [10, 2]]), wte, wpe)
    with pytest.raises(RuntimeError, match="larger than the position table"):
        cpu_kernel.forward_cpu(torch.zeros((1, 5), dtype=torch.long), wte, wpe)


@pytest.mark.parametrize("id_dtype", [torch.int32, torch.int64])
@pytest.mark.parametrize("d", [768, 13, 1])  # 13 and 1: not a multiple of any vector width
def test_cpu_kernel_fp32_bitwise_for_any_width(cpu_kernel, id_dtype, d):
    g = torch.Generator().manual_seed(d)
    wte, wpe = torch.randn(97, d, generator=g), torch.randn(33, d, generator=g)
    ids = torch.randint(0, 97, (4, 33), generator=g, dtype=id_dtype)
    out = cpu_kernel.forward_cpu(ids, wte, wpe)
    assert torch.equal(out, torch.from_numpy(forward_numpy(ids.long().numpy(), wte.numpy(), wpe.numpy())))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_cpu_kernel_half_tables_accumulate_in_fp32(cpu_kernel, dtype):
    g = torch.Generator().manual_seed(1)
    wte, wpe = torch.randn(50, 24, generator=g).to(dtype), torch.randn(16, 24, generator=g).to(dtype)
    wte[3, 0] = torch.tensor(6.1e-5, dtype=dtype)  # a subnormal in fp16
    ids = torch.randint(0, 50, (2, 16), generator=g)
    ids[0, 0] = 3
    out = cpu_kernel.forward_cpu(ids, wte, wpe)
    ref = wte.float()[ids] + wpe.float()[:16]
    assert out.dtype == torch.float32
    torch.testing.assert_close(out, ref, rtol=0, atol=1e-6)


def test_stale_build_lock_is_cleared(tmp_path):
    lock = tmp_path / "lock"
    lock.write_text("")
    assert not cuda_ext.clear_stale_lock(tmp_path)  # a fresh lock is a build in progress: kept
    old = time.time() - 3600
    os.utime(lock, (old, old))
    assert cuda_ext.clear_stale_lock(tmp_path) and not lock.exists()


def test_a_build_with_a_stale_lock_still_finishes(tmp_path, cpu_kernel):
    """A fresh process with its own build folder holding torch's lock left by a killed build 3 minutes ago (the
    loader once removed only locks older than 300 s, and torch's FileBaton.wait() then polled this one forever).
    The folder starts as a copy of this session's finished build (objects and ninja's log, times kept), so torch
    still takes the lock and runs ninja, which finds nothing to compile: the lock is what is tested, not gcc."""
    folder = tmp_path / "ext"
    shutil.copytree(cuda_ext.build_dir("cpu"), folder / cuda_ext.build_dir("cpu").name)
    env = {**os.environ, "TORCH_EXTENSIONS_DIR": str(folder)}
    code = ("import cuda_ext, os, time; d = cuda_ext.build_dir('cpu'); d.mkdir(parents=True, exist_ok=True); "
            "(d / 'lock').write_text(''); t = time.time() - 180; os.utime(d / 'lock', (t, t)); "
            "m, why = cuda_ext.load_kernel('cpu'); print('OK' if m else why)")
    r = subprocess.run(["python", "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert r.stdout.strip().endswith("OK"), r.stdout + r.stderr


def test_a_failed_build_returns_the_reason_not_an_exception(tmp_path, monkeypatch):
    from cuda_ext import loader

    monkeypatch.setattr(loader, "CPU_SOURCES", ["binding.cpp", "no_such_file.cpp"])
    monkeypatch.setattr(loader, "_results", {})
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path))
    monkeypatch.setattr(loader, "_source_hash", lambda sources: "broken")
    mod, why = loader.load_kernel("cpu")
    assert mod is None and why.startswith("the CPU kernel could not be built")


def test_cuda_file_compiles_with_nvcc(tmp_path):
    nvcc = shutil.which("nvcc")
    assert nvcc, "nvcc (the CUDA toolkit) must be on PATH so that a broken kernel cannot land"
    out = tmp_path / "embed_forward.o"
    r = subprocess.run([nvcc, "-c", "-O3", "--use_fast_math", "-std=c++17", "-arch=sm_90", "-Xptxas", "-v",
                        str(ROOT / "cuda_ext" / "embed_forward.cu"), "-o", str(out)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 10_000
    # ptxas's report per kernel: every version × dtype × id type × path fits 1,024 threads of an SM's
    # 65,536 registers (the sweep's largest block) and none spills to local memory
    registers = [int(n) for n in re.findall(r"Used (\d+) registers", r.stderr)]
    spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", r.stderr)
    assert len(registers) == 3 * 3 * 2 * 2 == len(spills), r.stderr[-2000:]
    assert max(registers) * 1024 <= 65536, max(registers)
    assert {s for pair in spills for s in pair} == {"0"}, r.stderr[-2000:]


def test_cuda_branch_of_the_binding_compiles(tmp_path):
    """binding.cpp's WITH_CUDA half, syntax-checked against torch's headers and the CUDA toolkit's.
    The CPU build of torch lacks one generated header (cuda_cmake_macros.h); an empty one stands in."""
    import sysconfig

    from torch.utils.cpp_extension import include_paths


    nvcc = shutil.which("nvcc")
    assert nvcc, "nvcc (the CUDA toolkit) must be on PATH"
    dry = subprocess.run([nvcc, "--dryrun", "-c", "-x", "cu", "/dev/null"], capture_output=True, text=True)
    found = re.search(r'INCLUDES="-I([^"]+)"', dry.stdout + dry.stderr)  # nvcc's own include folder
    assert found, dry.stdout + dry.stderr
    cuda_include = Path(found.group(1).strip()).resolve()
    assert (cuda_include / "cuda_runtime_api.h").is_file(), cuda_include
    stub = tmp_path / "c10" / "cuda" / "impl"
    stub.mkdir(parents=True)
    (stub / "cuda_cmake_macros.h").write_text("")
    includes = [f"-I{p}" for p in [*include_paths(), tmp_path, cuda_include, sysconfig.get_paths()["include"],
                                    ROOT / "cuda_ext"]]
    r = subprocess.run(["g++", "-std=c++17", "-w", "-fsyntax-only", "-DWITH_CUDA", "-DTORCH_EXTENSION_NAME=x",
                        *includes, str(ROOT / "cuda_ext" / "binding.cpp")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]


def test_cuda_file_includes_no_torch_header():
    for name in ("embed_forward.cu", "embed_forward.h", "embed_forward_cpu.cpp", "embed_convert.h",
                 "embed_forward_thread.h", "thread_harness.cpp"):
        includes = [ln for ln in (ROOT / "cuda_ext" / name).read_text().splitlines() if ln.startswith("#include")]
        assert includes and not [ln for ln in includes if any(w in ln for w in ("torch", "ATen", "c10"))], name


def test_public_forward_is_the_function(load_model):
    emb = load_model("andrea-12m-init")
    r = andrea_viz.forward(emb, [5, 6, 7], backend="numpy")
    np.testing.assert_array_equal(r.x[2], emb.token_table[7] + emb.position_table[2])

