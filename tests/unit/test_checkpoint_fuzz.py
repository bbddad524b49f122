"""Random and damaged files: the only exception that leaves andrea_viz.load is CheckpointError with a
message, a reader's own (the dispatcher's catch-all, SAFETY_NET, never has to turn a foreign one into it), nothing hangs, and no declared size makes the loader allocate more than the file holds.

Memory is the process's peak resident size (Linux's VmHWM, reset before each load through
/proc/self/clear_refs), so numpy's and torch's allocations count, not only Python's."""

import json
import re
import struct
import tempfile
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import andrea_viz
from andrea_viz import CheckpointError
from andrea_viz.checkpoints import SAFETY_NET
from andrea_viz.testing_harness import PeakResident
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
        makers.gguf_model(d / "m.gguf", V=300, d=32, qtype="Q8_0")
        out["gguf"] = ((d / "m.gguf").read_bytes(), {})
    return out


VALID = _valid_files()


BOUND = 64 * 2**20  # bytes of resident growth allowed beyond 8 × the file's size


def load_bytes(data: bytes, name: str, sidecars: dict[str, bytes] | None = None, tokenizer: str | None = None) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / name
        p.write_bytes(data)
        for n, b in (sidecars or {}).items():
            (Path(d) / n).write_bytes(b)
        net = sum(SAFETY_NET.values())
        with PeakResident() as peak:
            try:
                emb = andrea_viz.load(p, tokenizer=Path(d) / tokenizer if tokenizer else None)
                assert emb.token_table.ndim == 2
            except CheckpointError as exc:
                assert str(exc).strip(), "a CheckpointError must carry a message"
                # the reader said what is wrong in its own sentence: the dispatcher's catch-all did not have to
                assert sum(SAFETY_NET.values()) == net, f"a foreign exception reached the safety net: {exc}"
        assert peak.bytes < BOUND + 8 * len(data), f"peak +{peak.bytes:,} bytes for a {len(data):,}-byte file"


def test_the_memory_bound_sees_numpy_allocations():
    with PeakResident() as peak:
        big = np.ones(BOUND // 8 * 2)  # twice the bound, in one numpy array (tracemalloc would not see it)
        del big
    assert peak.bytes > BOUND


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


# --- tokenizer files ---------------------------------------------------------------------------
def _tokenizer_files() -> dict[str, bytes]:
    """One file of each tokenizer kind, written by its real tool (or a copy of its writer)."""
    import sentencepiece as spm
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {"[UNK]": 0, "the": 1, "cat": 2, "dog": 3, "##s": 4, "sat": 5}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    with tempfile.TemporaryDirectory() as d:
        meta = makers.nanogpt_char_prepare(Path(d), "the cat sat on the mat\n")
        assert meta["vocab_size"] == 11
        pkl = (Path(d) / "meta.pkl").read_bytes()
        makers.llmc_write_tokenizer(makers.GPT2_LIKE_TOKENS, Path(d) / "gpt2_tokenizer.bin")
        llmc = (Path(d) / "gpt2_tokenizer.bin").read_bytes()
        (Path(d) / "corpus.txt").write_text("the cat sat on the mat\n" * 40 + "\n".join(  # many words: room for 120
            " ".join("".join(chr(97 + (i * 7 + j * 3 + k) % 26) for k in range(3 + (i + j) % 5)) for j in range(8))
            for i in range(400)), encoding="utf-8")
        spm.SentencePieceTrainer.train(input=str(Path(d) / "corpus.txt"), model_prefix=str(Path(d) / "sp"),
                                       vocab_size=120, minloglevel=2)
        sentencepiece = (Path(d) / "sp.model").read_bytes()
    return {"tokenizer.json": tok.to_str().encode(), "vocab.txt": "\n".join(vocab).encode() + b"\n",
            "harris_segments.json": json.dumps({"segments": ["the", "cat", "dog", "sat"]}).encode(),
            "meta.pkl": pkl, "gpt2_tokenizer.bin": llmc, "tokenizer.model": sentencepiece}


TOKENIZERS = _tokenizer_files()
def _table_bytes(rows: int = 300) -> bytes:  # enough rows for ANDREA's 256 bytes + segments + BOS
    import io

    buf = io.BytesIO()
    np.save(buf, np.random.default_rng(1).standard_normal((rows, 8)).astype(np.float32))
    return buf.getvalue()


TABLE = _table_bytes()


def use_tokenizer(name: str, data: bytes) -> None:
    """Load the table with this tokenizer file; look up a word. Only the library's own errors may leave."""
    from andrea_viz.errors import QueryError
    from andrea_viz.geometry import neighbours

    with tempfile.TemporaryDirectory() as d:
        (Path(d) / name).write_bytes(data)
        np_path = Path(d) / "t.npy"
        np_path.write_bytes(TABLE)
        net = sum(SAFETY_NET.values())
        try:
            emb = andrea_viz.load(np_path, tokenizer=Path(d) / name)
        except CheckpointError as exc:
            assert str(exc).strip()
            return
        finally:
            assert sum(SAFETY_NET.values()) == net, "a tokenizer reader let a foreign exception through"
        for word in ("cat", "zqx", "the cats", "#3"):
            try:
                neighbours(emb, word, k=3)
            except QueryError as exc:
                assert str(exc).strip()


def test_every_valid_tokenizer_file_loads():
    from andrea_viz.geometry import neighbours

    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "t.npy").write_bytes(TABLE)
        for name, data in TOKENIZERS.items():
            (Path(d) / name).write_bytes(data)
            emb = andrea_viz.load(Path(d) / "t.npy", tokenizer=Path(d) / name)
            assert len(neighbours(emb, "cat", k=3)[1]) == 3, name


@SETTINGS
@given(st.sampled_from(sorted(TOKENIZERS)), st.data())
def test_truncated_tokenizer_files(name, data):
    raw = TOKENIZERS[name]
    use_tokenizer(name, raw[: data.draw(st.integers(0, len(raw) - 1))])


@SETTINGS
@given(st.sampled_from(sorted(TOKENIZERS)), st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 255)), max_size=8))
def test_flipped_bytes_in_tokenizer_files(name, flips):
    b = bytearray(TOKENIZERS[name])
    for pos, val in flips:
        b[pos % len(b)] = val
    use_tokenizer(name, bytes(b))


@SETTINGS
@given(st.sampled_from(sorted(TOKENIZERS)), st.binary(max_size=2048))
def test_random_bytes_as_tokenizer_files(name, data):
    use_tokenizer(name, data)


def test_a_tokenizer_json_whose_unknown_token_is_missing_is_refused_when_loaded(cli, tmp_path):
    """tokenizers would raise a bare Exception at the first unknown word; the loader finds it first, keeps
    the weights with #id tokens, and says why in a warning and in any word look-up."""

    from andrea_viz.errors import QueryError
    from andrea_viz.geometry import neighbours

    d = json.loads(TOKENIZERS["tokenizer.json"])
    d["model"]["unk_token"] = "[NOPE]"
    (tmp_path / "tokenizer.json").write_text(json.dumps(d))
    (tmp_path / "T.npy").write_bytes(TABLE)
    emb = andrea_viz.load(tmp_path / "T.npy", tokenizer=tmp_path / "tokenizer.json")
    reason = r"cannot encode a text with an unknown word .*'\[NOPE\]'"
    assert any(re.search(reason, str(w)) for w in emb.provenance.warnings) and emb.token(3) == "#3"
    with pytest.raises(QueryError, match=reason):
        neighbours(emb, "zzz")
    r = cli("neighbors", str(tmp_path / "T.npy"), "zzz", "--tokenizer", str(tmp_path / "tokenizer.json"))
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "[NOPE]" in r.stderr


def test_each_tokenizer_kind_is_recognised_by_its_bytes_alone_and_by_no_other_kind(tmp_path):
    from andrea_viz.tokenizer import TOKENIZER_KINDS
    from andrea_viz.tokenizer.files import _json

    assert sorted(k.file for k in TOKENIZER_KINDS) == sorted(TOKENIZERS)  # a real file of every kind in the table
    for kind in TOKENIZER_KINDS:
        p = tmp_path / "renamed.dat"  # not its usual name nor its suffix
        raw = TOKENIZERS[kind.file]
        p.write_bytes(raw)
        assert [k.file for k in TOKENIZER_KINDS if k.sniff(raw, _json(raw), p)] == [kind.file]
        tok, _notes = kind.read(p, raw, _json(raw), 300)
        assert tok.encode("cat") and tok.token(tok.encode("cat")[0])
