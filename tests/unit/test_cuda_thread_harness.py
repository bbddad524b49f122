"""The CUDA kernels' own per-thread code, run on the CPU for every thread index of a launch.

cuda_ext/thread_harness.cpp compiles embed_forward_thread.h (the bodies the __global__ kernels
call) with the host compiler and walks every block and thread of the launch that embed_forward.cu
would make, for each version of the ladder (v1, v2, v3) and block size. Each case is compared with
the numpy reference, element by element, and the number of threads launched with a count made here
from the versions' definitions.
"""

import ctypes
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCK = 256
BLOCKS = (64, 128, 256, 512, 1024)  # bench-gpu's sweep
VERSIONS = (1, 2, 3)
V2_UNITS = 4  # units per thread in v2 (checked against the header below)
F32, BF16, F16 = 0, 1, 2


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    gxx = shutil.which("g++")
    assert gxx, "a C++ compiler (g++) must be on PATH"
    lib = tmp_path_factory.mktemp("harness") / "harness.so"
    r = subprocess.run([gxx, "-O1", "-std=c++17", "-shared", "-fPIC", "-Wall", "-Werror", f"-I{ROOT / 'cuda_ext'}",
                        str(ROOT / "cuda_ext" / "thread_harness.cpp"), "-o", str(lib)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    h = ctypes.CDLL(str(lib))
    h.emb_forward_simulated.restype = ctypes.c_int
    return h


def simulate(h, wte, wpe, ids, dtype_code, out=None, version=1, block=BLOCK):
    """Run the launch on the CPU: (out, bad flag, vector path?, threads run)."""
    B, T = ids.shape
    C = wpe.shape[1]
    if out is None:
        out = np.full((B, T, C), np.nan, np.float32)
    bad = ctypes.c_int64(0)
    vec = ctypes.c_int(-1)
    threads = ctypes.c_int64(-1)
    rc = h.emb_forward_simulated(
        ctypes.c_int(version), ctypes.c_int(block), ctypes.c_void_p(wte.ctypes.data), ctypes.c_void_p(wpe.ctypes.data), ctypes.c_int(dtype_code),
        ctypes.c_void_p(ids.ctypes.data), ctypes.c_int(ids.dtype.itemsize), ctypes.c_void_p(out.ctypes.data),
        ctypes.c_int64(B), ctypes.c_int64(T), ctypes.c_int64(C), ctypes.c_int64(wte.shape[0]), ctypes.byref(bad),
        ctypes.byref(vec), ctypes.byref(threads))
    assert rc == 0, f"the harness refused version {version}, block {block} (code {rc})"
    return out, bad.value, bool(vec.value), threads.value


def aligned(shape, dtype, offset_bytes=0):
    """An array whose data starts ``offset_bytes`` past a 64-byte boundary."""
    n = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.empty(n + 64 + offset_bytes, np.uint8)
    start = (-raw.ctypes.data) % 64 + offset_bytes
    return raw[start : start + n].view(dtype).reshape(shape)


def tables(V, T, C, dtype, seed=0, offset_bytes=0):
    g = np.random.default_rng(seed)
    wte, wpe = aligned((V, C), dtype, offset_bytes), aligned((T, C), dtype)
    wte[...] = g.standard_normal((V, C)).astype(dtype)
    wpe[...] = g.standard_normal((T, C)).astype(dtype)
    return wte, wpe


def bf16(a32):
    """float32 -> bfloat16 bits (truncation), and the float32 values those bits hold."""
    bits = (a32.view(np.uint32) >> 16).astype(np.uint16)
    return bits, (bits.astype(np.uint32) << 16).view(np.float32)


def threads_expected(version, block, B, T, C, width):
    """The threads a launch of ``version`` must run, from the versions' definitions: v1 one unit
    (``width`` values) of the output per thread, v2 ``V2_UNITS`` units, v3 one unit of the position
    table per thread, looping over the batch; whole blocks of ``block`` threads."""
    units = (T * C if version == 3 else B * T * C) // width
    per_thread = V2_UNITS if version == 2 else 1
    blocks = -(-units // (block * per_thread))
    return blocks * block, units, per_thread


def test_the_header_says_what_the_tests_assume(harness):
    assert harness.emb_versions() == len(VERSIONS)
    assert harness.emb_v2_units() == V2_UNITS


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("C,vector", [(776, True), (13, False), (4, True), (6, False)])
@pytest.mark.parametrize("id_dtype", [np.int32, np.int64])
def test_fp32_every_thread_of_every_version_matches_the_reference(harness, C, vector, id_dtype, version, block):
    V, B, T = 300, 3, 37  # no unit count is a multiple of a block (d = 768 would fill blocks of 64): partial blocks
    wte, wpe = tables(V, T, C, np.float32)
    ids = np.random.default_rng(1).integers(0, V, (B, T)).astype(id_dtype)
    out, bad, vec, threads = simulate(harness, wte, wpe, ids, F32, version=version, block=block)
    assert vec == vector and bad == 0
    want, units, per_thread = threads_expected(version, block, B, T, C, 4 if vector else 1)
    assert threads == want
    assert threads * per_thread > units  # the last block has idle threads (or idle units in v2)
    np.testing.assert_array_equal(out, wte[ids] + wpe[None, :T])


@pytest.mark.parametrize("version,block", [(1, 0), (1, 48), (1, 2048), (0, 256), (4, 256)])
def test_a_version_or_block_outside_the_ladder_is_refused(harness, version, block):
    wte, wpe = tables(10, 4, 8, np.float32)
    ids = np.zeros((1, 4), np.int64)
    out = np.zeros((1, 4, 8), np.float32)
    bad = ctypes.c_int64(0)
    vec, threads = ctypes.c_int(-1), ctypes.c_int64(-1)
    rc = harness.emb_forward_simulated(
        ctypes.c_int(version), ctypes.c_int(block), ctypes.c_void_p(wte.ctypes.data), ctypes.c_void_p(wpe.ctypes.data),
        ctypes.c_int(F32), ctypes.c_void_p(ids.ctypes.data), ctypes.c_int(8), ctypes.c_void_p(out.ctypes.data),
        ctypes.c_int64(1), ctypes.c_int64(4), ctypes.c_int64(8), ctypes.c_int64(10), ctypes.byref(bad),
        ctypes.byref(vec), ctypes.byref(threads))
    assert rc == 2  # EMB_BAD_ARG
    assert (out == 0).all()


@pytest.mark.parametrize("version", VERSIONS)
def test_unaligned_rows_take_the_scalar_path(harness, version):
    V, B, T, C = 50, 2, 8, 16
    wte, wpe = tables(V, T, C, np.float32, offset_bytes=4)  # 16 values per row, but rows start 4 bytes off
    ids = np.random.default_rng(2).integers(0, V, (B, T))
    out, bad, vec, _ = simulate(harness, wte, wpe, ids, F32, version=version, block=64)
    assert not vec and bad == 0
    np.testing.assert_array_equal(out, wte[ids] + wpe[None, :T])


@pytest.mark.parametrize("block", [64, 1024])
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("C,vector", [(16, True), (12, False), (776, True)])
def test_bf16_and_fp16_convert_exactly(harness, C, vector, version, block):
    V, B, T = 40, 3, 9
    g = np.random.default_rng(3)
    w32, p32 = g.standard_normal((V, C)).astype(np.float32), g.standard_normal((T, C)).astype(np.float32)
    ids = g.integers(0, V, (B, T))
    wb, wbf = bf16(w32)
    pb, pbf = bf16(p32)
    wte, wpe = aligned((V, C), np.uint16), aligned((T, C), np.uint16)
    wte[...], wpe[...] = wb, pb
    out, _, vec, threads = simulate(harness, wte, wpe, ids, BF16, version=version, block=block)
    assert vec == vector
    assert threads == threads_expected(version, block, B, T, C, 8 if vector else 1)[0]
    np.testing.assert_array_equal(out, wbf[ids] + pbf[None, :T])
    w16, p16 = w32.astype(np.float16), p32.astype(np.float16)
    w16[0, :4] = [0.0, -0.0, np.float16(6e-8), np.inf]  # a zero of each sign, a subnormal, an infinity
    wte[...], wpe[...] = w16.view(np.uint16), p16.view(np.uint16)
    ids[0, 0] = 0
    out, _, _, _ = simulate(harness, wte, wpe, ids, F16, version=version, block=block)
    np.testing.assert_array_equal(out, w16.astype(np.float32)[ids] + p16.astype(np.float32)[None, :T])


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("C", [8, 7])
def test_a_bad_id_is_flagged_and_its_row_not_written(harness, C, version):
    V, B, T = 20, 2, 5
    wte, wpe = tables(V, T, C, np.float32)
    ids = np.random.default_rng(4).integers(0, V, (B, T))
    ids[1, 3] = V  # flat index 8
    ids[1, 4] = -1
    out, bad, _, _ = simulate(harness, wte, wpe, ids, F32, version=version, block=64)
    assert bad == 1 * T + 3 + 1  # flat index + 1 of the first bad id a thread met
    assert np.isnan(out[1, 3]).all() and np.isnan(out[1, 4]).all()  # nothing written for a bad id
    ok = np.ones((B, T), bool)
    ok[1, 3:] = False
    ref = wte[np.clip(ids, 0, V - 1)] + wpe[None, :T]
    np.testing.assert_array_equal(out[ok], ref[ok])


@pytest.mark.parametrize("version", VERSIONS)
def test_threads_past_the_end_write_nothing(harness, version):
    V, B, T, C = 30, 1, 3, 12  # 9 packs in a block of 256 threads
    wte, wpe = tables(V, T, C, np.float32)
    ids = np.array([[1, 2, 3]])
    guarded = aligned((B * T * C + 64,), np.float32)
    guarded[...] = 7.0
    out = guarded[: B * T * C].reshape(B, T, C)
    simulate(harness, wte, wpe, ids, F32, out=out, version=version)
    np.testing.assert_array_equal(out, wte[ids] + wpe[None, :T])
    assert (guarded[B * T * C :] == 7.0).all()


class HarnessAsKernel:
    """The extension's forward_cuda, on CPU tensors, by the host harness: bench-gpu's sweep runs
    unchanged on it. ``broken`` is a version whose output gets one value wrong after each launch."""

    def __init__(self, h, broken=None):
        self.h, self.broken, self.launches = h, broken, []

    def forward_cuda(self, ids, wte, wpe, check_ids=True, out=None, version=1, block=256):
        import torch

        B, T = ids.shape
        C = wte.shape[1]
        o = torch.empty(B, T, C, dtype=torch.float32) if out is None else out
        bad, vec, threads = ctypes.c_int64(0), ctypes.c_int(-1), ctypes.c_int64(-1)
        code = {torch.float32: F32, torch.bfloat16: BF16}[wte.dtype]
        rc = self.h.emb_forward_simulated(
            ctypes.c_int(version), ctypes.c_int(block), ctypes.c_void_p(wte.data_ptr()),
            ctypes.c_void_p(wpe.data_ptr()), ctypes.c_int(code), ctypes.c_void_p(ids.data_ptr()),
            ctypes.c_int(ids.element_size()), ctypes.c_void_p(o.data_ptr()), ctypes.c_int64(B), ctypes.c_int64(T),
            ctypes.c_int64(C), ctypes.c_int64(wte.shape[0]), ctypes.byref(bad), ctypes.byref(vec),
            ctypes.byref(threads))
        assert rc == 0 and bad.value == 0 and vec.value == 1
        self.launches.append((version, block))
        if version == self.broken:
            o[-1, -1, -1] += 1.0
        return o


@pytest.mark.parametrize("broken", [None, 3])
def test_the_ladder_sweep_checks_every_version_and_block_against_the_reference(harness, capsys, broken):
    from andrea_viz.bench.gpu import ladder_sweep
    from cuda_ext import ladder

    kernel = HarnessAsKernel(harness, broken)
    failures = ladder_sweep(kernel, repeats=1, B=3, T=37, d=776, V=300, device="cpu", compile_torch=False)
    swept = {(v, b) for v in ladder.VERSIONS for b in ladder.BLOCKS}
    assert set(kernel.launches) == swept and ladder.VERSIONS == VERSIONS and ladder.BLOCKS == BLOCKS
    assert failures == (0 if broken is None else 2 * len(BLOCKS))  # every block of the broken version, fp32 and bf16
    printed = capsys.readouterr().out
    for table in ("float32", "bfloat16"):
        for v, b in swept:
            want = "NO" if v == broken else "yes"
            assert [ln for ln in printed.splitlines() if ln.startswith(f"| {table} | v{v}, {b} threads |")
                    and ln.endswith(f"| {want} |")], (table, v, b)
    choice = printed[printed.index("CHOICE: dict"):]
    kept: dict = {}
    exec(choice, {}, kept)  # the printed lines are the Python that cuda_ext/ladder.py would hold
    assert set(kept["CHOICE"]) == {"float32", "bfloat16", "float16"}
    assert all(c in swept and c[0] != broken for c in kept["CHOICE"].values())
    assert "CPU stand-in" in kept["MEASURED"]


def test_the_ladder_table_names_a_version_and_block_for_every_dtype():
    from cuda_ext import ladder, launch_for

    for dtype in ("float32", "bfloat16", "float16"):
        version, block = launch_for(dtype)
        assert version in ladder.VERSIONS and block in ladder.BLOCKS
    with pytest.raises(ValueError, match="float32, bfloat16, float16; got 'int8'"):
        launch_for("int8")
