"""Random and damaged files: the only exception that leaves andrea_viz.load is CheckpointError with a
message, nothing hangs, and no declared size makes the loader allocate more than the file holds."""

import json
import struct
import tempfile
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import andrea_viz
from andrea_viz import CheckpointError
from tests.checkpoint_files import makers

SETTINGS = settings(max_examples=40, deadline=10_000, suppress_health_check=[HealthCheck.too_slow],
                    derandomize=True)


def _valid_files() -> dict[str, tuple[bytes, dict[str, bytes]]]:
    """format -> (file bytes, sidecar files that stay intact)"""
    from safetensors.numpy import save_file

    out = {}
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        g = np.random.default_rng(0)
        makers.andrea_bin(d / "a.bin", 300, 16, 32, 1, config=True)
        out["andrea"] = ((d / "a.bin").read_bytes(), {"a.json": (d / "a.json").read_bytes()})
        makers.llmc_bin(d / "l.bin")
        out["llmc"] = ((d / "l.bin").read_bytes(), {})
        save_file({"wte.weight": g.standard_normal((60, 8), np.float32),
                   "wpe.weight": g.standard_normal((16, 8), np.float32)}, str(d / "s.safetensors"))
        out["safetensors"] = ((d / "s.safetensors").read_bytes(), {})
        makers.nanogpt_ckpt(d / "ckpt.pt")
        out["torch"] = ((d / "ckpt.pt").read_bytes(), {})
        np.save(d / "t.npy", g.standard_normal((40, 8), np.float32))
        out["npy"] = ((d / "t.npy").read_bytes(), {})
        np.savez(d / "t.npz", wte=g.standard_normal((40, 8), np.float32), wpe=g.standard_normal((8, 8), np.float32))
        out["npz"] = ((d / "t.npz").read_bytes(), {})
    return out


VALID = _valid_files()


def load_bytes(data: bytes, name: str, sidecars: dict[str, bytes] | None = None) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / name
        p.write_bytes(data)
        for n, b in (sidecars or {}).items():
            (Path(d) / n).write_bytes(b)
        tracemalloc.start()
        try:
            emb = andrea_viz.load(p)
            assert emb.token_table.ndim == 2
        except CheckpointError as exc:
            assert str(exc).strip(), "a CheckpointError must carry a message"
        finally:
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        assert peak < 64 * 2**20 + 8 * len(data), f"peak {peak:,} bytes for a {len(data):,}-byte file"


def test_every_valid_file_loads():
    for fmt, (data, side) in VALID.items():
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / ("a.bin" if fmt == "andrea" else f"f.{fmt}")
            p.write_bytes(data)
            for n, b in side.items():
                (Path(d) / n).write_bytes(b)
            assert andrea_viz.load(p).token_table.shape[0] > 0, fmt


@SETTINGS
@given(st.binary(max_size=4096))
def test_random_bytes(data):
    load_bytes(data, "random.bin")


@SETTINGS
@given(st.sampled_from(sorted(VALID)), st.data())
def test_truncated_files(fmt, data):
    raw, side = VALID[fmt]
    cut = data.draw(st.integers(0, len(raw) - 1))
    load_bytes(raw[:cut], "a.bin" if fmt == "andrea" else f"f.{fmt}", side)


@SETTINGS
@given(st.sampled_from(sorted(VALID)), st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 255)), max_size=12))
def test_flipped_bytes(fmt, flips):
    raw, side = VALID[fmt]
    b = bytearray(raw)
    for pos, val in flips:
        b[pos % min(len(b), 4096)] = val  # the headers live in the first bytes
    load_bytes(bytes(b), "a.bin" if fmt == "andrea" else f"f.{fmt}", side)


HUGE = [2**31 - 1, -1, -(2**31), 2**30, 0]


@SETTINGS
@given(st.sampled_from(sorted(VALID)), st.integers(0, 15), st.sampled_from(HUGE), st.booleans())
def test_wrong_sizes_in_headers(fmt, slot, value, wide):
    raw, side = VALID[fmt]
    b = bytearray(raw)
    if wide:
        b[slot * 8 : slot * 8 + 8] = struct.pack("<q", value * 2**20 if value > 0 else value)
    else:
        b[slot * 4 : slot * 4 + 4] = struct.pack("<i", value)
    load_bytes(bytes(b), "a.bin" if fmt == "andrea" else f"f.{fmt}", side)


@SETTINGS
@given(st.sampled_from(["andrea", "llmc", "npy"]), st.lists(st.integers(0, 10**9), min_size=1, max_size=20),
       st.sampled_from([np.nan, np.inf, -np.inf]))
def test_nan_and_inf_in_tables_are_loaded_with_a_warning(fmt, positions, value):
    raw, side = VALID[fmt]
    b = bytearray(raw)
    start = {"andrea": 8, "llmc": 1024, "npy": 128}[fmt]
    for p in positions:
        off = start + 4 * (p % ((len(b) - start) // 4))
        b[off : off + 4] = struct.pack("<f", value)
    load_bytes(bytes(b), "a.bin" if fmt == "andrea" else f"f.{fmt}", side)


def test_huge_declared_shapes_are_refused_before_allocating(tmp_path):
    # an .npy header that declares 10^12 floats in a file of a few hundred bytes
    p = tmp_path / "huge.npy"
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000), }"
    header += " " * (118 - len(header)) + "\n"
    p.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + b"\0" * 64)
    with pytest.raises(CheckpointError, match=r"declares shape \[1000000, 1000000\]"):
        andrea_viz.load(p)
    # an llm.c header that declares a 50,000 × 100,000 table
    q = tmp_path / "huge_llmc.bin"
    h = np.zeros(256, "<i4")
    h[:8] = [20240326, 3, 1024, 50_000, 12, 12, 100_000, 50_000]
    q.write_bytes(h.tobytes() + b"\0" * 1000)
    with pytest.raises(CheckpointError, match="but the file has only"):
        andrea_viz.load(q)
    # a safetensors header that declares more data than the file holds
    r = tmp_path / "huge.safetensors"
    meta = json.dumps({"wte": {"dtype": "F32", "shape": [100000, 100000], "data_offsets": [0, 40_000_000_000]}})
    r.write_bytes(struct.pack("<Q", len(meta)) + meta.encode() + b"\0" * 64)
    with pytest.raises(CheckpointError):
        andrea_viz.load(r)


def test_empty_file_and_empty_folder(tmp_path):
    (tmp_path / "empty.pt").write_bytes(b"")
    with pytest.raises(CheckpointError, match="is empty"):
        andrea_viz.load(tmp_path / "empty.pt")
    (tmp_path / "folder").mkdir()
    with pytest.raises(CheckpointError, match="has no weights"):
        andrea_viz.load(tmp_path / "folder")


def test_torch_zip_with_a_bad_pickle_inside(tmp_path):
    torch.save({"model": {"wte": torch.zeros(4, 2)}}, tmp_path / "ok.pt")
    data = bytearray((tmp_path / "ok.pt").read_bytes())
    i = data.find(b"data.pkl")
    data[i + 60 : i + 70] = b"\xff" * 10
    (tmp_path / "bad.pt").write_bytes(bytes(data))
    with pytest.raises(CheckpointError):
        andrea_viz.load(tmp_path / "bad.pt")
