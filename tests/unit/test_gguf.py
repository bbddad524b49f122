"""GGUF files written by the gguf package's own GGUFWriter (and quants.quantize, or K-quant blocks packed here),
read back by the app and compared with gguf's own quants.dequantize of the bytes that were written."""

import struct

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from gguf import GGMLQuantizationType, quants

import andrea_viz
from andrea_viz import CheckpointError
from andrea_viz.geometry import resolve
from tests.checkpoint_files import makers
from tests.unit.test_checkpoint_fuzz import SETTINGS, VALID, load_bytes

QUANTIZED_BY_GGUF = ["F32", "F16", "BF16", "Q8_0", "Q4_0"]
PACKED_HERE = ["Q4_K", "Q6_K"]


@pytest.mark.parametrize("qtype", QUANTIZED_BY_GGUF + PACKED_HERE)
def test_token_table_equals_ggufs_own_dequantize(tmp_path, qtype):
    d = 256 if qtype in PACKED_HERE else 64  # a K-quant row is whole 256-value super-blocks
    info = makers.gguf_model(tmp_path / "m.gguf", V=320, d=d, qtype=qtype)
    emb = andrea_viz.load(tmp_path / "m.gguf")
    want = quants.dequantize(info["raw"], info["qtype"]).reshape(320, d)
    assert emb.token_table.shape == (320, d)  # the file lists [d, V]
    assert emb.token_table.dtype == np.float32 and np.array_equal(emb.token_table, want)
    if qtype in QUANTIZED_BY_GGUF[1:]:  # quantized from a known table: close to it, not equal
        assert not np.array_equal(emb.token_table, info["table"])
        assert np.abs(emb.token_table - info["table"]).max() < 0.05
    assert emb.card["stored_type"] == qtype
    assert dict((n, t) for n, _, t in emb.provenance.tensors)["token_embd.weight"] == qtype
    if qtype != "F32":
        assert f"token_embd.weight is stored as {qtype}" in emb.provenance.text()


def test_metadata_gives_architecture_layers_context_and_tying(tmp_path):
    makers.gguf_model(tmp_path / "m.gguf", layers=3, context=512)
    emb = andrea_viz.load(tmp_path / "m.gguf")
    assert str(emb.provenance.format) == "GGUF v3 (llama)"
    assert (emb.card["layers"], emb.card["context_length"], emb.card["family"]) == (3, 512, "llama")
    assert emb.tied and emb.output_kind == "tied" and emb.position_kind == "rope" and emb.position_table is None
    assert emb.card["total_params"] == 320 * 64 + 64 * 64


def test_an_untied_output_weight_is_the_output_table(tmp_path):
    info = makers.gguf_model(tmp_path / "m.gguf", untied=True)
    emb = andrea_viz.load(tmp_path / "m.gguf")
    assert not emb.tied and np.array_equal(emb.output_table, info["output"])


def test_the_metadata_tokenizer_encodes_a_word_to_the_id_the_file_says(tmp_path):
    info = makers.gguf_model(tmp_path / "m.gguf")
    emb = andrea_viz.load(tmp_path / "m.gguf")
    tokens = info["tokens"]
    assert emb.tokenizer.vocab_size == len(tokens)
    for word in makers.SPM_WORDS:
        assert emb.tokenizer.lookup(word) == [tokens.index("\u2581" + word)]
    assert emb.tokenizer.encode("the cat") == [tokens.index("\u2581the"), tokens.index("\u2581cat")]
    assert emb.tokenizer.encode("\n") == [tokens.index("\u2581"), tokens.index("<0x0A>")]  # byte fallback
    q = resolve(emb, "cat")
    assert q.ids == (tokens.index("\u2581cat"),) and emb.token(q.ids[0]) == " cat"
    assert np.array_equal(q.vector, emb.token_table[q.ids[0]])


def test_a_gpt2_bpe_tokenizer_from_metadata(tmp_path):
    from tokenizers import Tokenizer

    info = makers.gguf_model(tmp_path / "m.gguf", V=320, tokenizer="gpt2")
    emb = andrea_viz.load(tmp_path / "m.gguf")
    hf = Tokenizer.from_file(str(tmp_path / "bpe" / "tokenizer.json"))
    assert emb.tokenizer.lookup("cat") == [info["tokens"].index("cat")] == hf.encode("cat").ids
    assert emb.tokenizer.encode(" dog") == [info["tokens"].index("\u0120dog")] == hf.encode(" dog").ids
    assert emb.tokenizer.encode("the dog sat") == hf.encode("the dog sat").ids


# --- bad input -----------------------------------------------------------------------------------
def _tensor_type_offset(data: bytes, name: bytes = b"token_embd.weight") -> int:
    i = data.index(name) + len(name)
    n_dims = struct.unpack_from("<I", data, i)[0]
    return i + 4 + 8 * n_dims


def test_an_unknown_quantization_type_names_the_type_and_the_tensor(tmp_path):
    makers.gguf_model(tmp_path / "m.gguf")
    b = bytearray((tmp_path / "m.gguf").read_bytes())
    b[_tensor_type_offset(b) : _tensor_type_offset(b) + 4] = struct.pack("<I", 77)
    (tmp_path / "bad.gguf").write_bytes(bytes(b))
    with pytest.raises(CheckpointError, match=r"tensor token_embd.weight has GGML type 77, which the gguf package does "
                                              r"not know"):
        andrea_viz.load(tmp_path / "bad.gguf")


def test_a_type_gguf_cannot_dequantize_names_it(tmp_path):
    makers.gguf_model(tmp_path / "m.gguf", d=256)
    b = bytearray((tmp_path / "m.gguf").read_bytes())
    at = _tensor_type_offset(b)
    b[at : at + 4] = struct.pack("<I", int(GGMLQuantizationType.Q8_K))  # known, fits the bytes, never dequantized
    (tmp_path / "q8k.gguf").write_bytes(bytes(b))
    with pytest.raises(CheckpointError, match=r"tensor token_embd.weight is stored as Q8_K, which gguf .* cannot "
                                              r"dequantize"):
        andrea_viz.load(tmp_path / "q8k.gguf")


def test_a_truncated_file_is_one_sentence(tmp_path):
    makers.gguf_model(tmp_path / "m.gguf")
    raw = (tmp_path / "m.gguf").read_bytes()
    (tmp_path / "cut.gguf").write_bytes(raw[: len(raw) - 5000])
    with pytest.raises(CheckpointError, match=r"tensor .* needs bytes .* but the file holds only .*: it is truncated"):
        andrea_viz.load(tmp_path / "cut.gguf")
    (tmp_path / "head.gguf").write_bytes(raw[:3000])  # cut inside the token list
    with pytest.raises(CheckpointError, match=r"the file is truncated or its header is wrong|the header lies"):
        andrea_viz.load(tmp_path / "head.gguf")


def test_lying_counts_are_refused_before_anything_is_allocated(tmp_path):
    from tests.unit.test_checkpoint_fuzz import PeakResident

    makers.gguf_model(tmp_path / "m.gguf")
    raw = bytearray((tmp_path / "m.gguf").read_bytes())
    lies = {}
    b = bytearray(raw)
    b[8:16] = struct.pack("<Q", 2**62)  # tensor count
    lies["tensors"] = (b, r"tensor_count is 4,611,686,018,427,387,904, more than")
    b = bytearray(raw)
    i = b.index(b"tokenizer.ggml.tokens") + len(b"tokenizer.ggml.tokens") + 4 + 4  # value type, array type, count
    b[i : i + 8] = struct.pack("<Q", 10**15)
    lies["array"] = (b, r"tokenizer.ggml.tokens declares 1,000,000,000,000,000 elements")
    b = bytearray(raw)
    at = _tensor_type_offset(b)
    b[at + 4 : at + 12] = struct.pack("<Q", 2**40)  # the tensor's data offset
    lies["offset"] = (b, r"token_embd.weight .* needs bytes 1,099,511,627,776 to")
    b = bytearray(raw)
    at = _tensor_type_offset(b)
    b[at - 8 : at] = struct.pack("<Q", 2**33)  # V
    lies["dims"] = (b, r"token_embd.weight .* needs bytes")
    for what, (data, message) in lies.items():
        (tmp_path / f"{what}.gguf").write_bytes(bytes(data))
        with PeakResident() as peak, pytest.raises(CheckpointError, match=message):
            andrea_viz.load(tmp_path / f"{what}.gguf")
        assert peak.bytes < 32 * 2**20, what


def _dims_at(data: bytes, name: bytes = b"token_embd.weight") -> tuple[int, int]:
    """Where the tensor's dims start in the header, and how many there are."""
    i = data.index(name) + len(name)
    return i + 4, struct.unpack_from("<I", data, i)[0]


@pytest.mark.parametrize(("dims", "message"), [
    ((64, 0), r"token_embd.weight has shape \[64, 0\] \(innermost first\); every dimension must be at least 1, "
              r"and dimension 1 is 0"),
    ((0, 320), r"token_embd.weight has shape \[0, 320\] .* dimension 0 is 0"),
    ((2**63, 0), r"token_embd.weight has shape \[9223372036854775808, 0\] .* dimension 1 is 0"),
    ((64, 2**63), r"token_embd.weight \(F32, shape \[64, 9223372036854775808\]\) needs bytes 0 to "
                  r"2,361,183,241,434,822,606,848 of the data, but the file holds only"),
    ((2**63, 1), r"token_embd.weight \(F32, shape \[9223372036854775808, 1\]\) needs bytes 0 to "),
])
def test_every_dimension_is_at_least_one_and_inside_the_file_at_the_header(tmp_path, dims, message):
    """A GGUFWriter file whose token table's dims are patched: a 0 or 2**63 is one sentence naming the tensor, the
    shape that came and what was expected, from the header (before a byte of data is mapped)."""
    from andrea_viz.checkpoints.gguf_file import read_header

    makers.gguf_model(tmp_path / "m.gguf")
    b = bytearray((tmp_path / "m.gguf").read_bytes())
    at, n = _dims_at(b)
    assert n == 2 and struct.unpack_from("<QQ", b, at) == (64, 320)
    b[at : at + 16] = struct.pack("<QQ", *dims)
    (tmp_path / "bad.gguf").write_bytes(bytes(b))
    with pytest.raises(CheckpointError, match=message):
        read_header(tmp_path / "bad.gguf")
    with pytest.raises(CheckpointError, match=message):  # and through the loader: the sentence, no other error
        andrea_viz.load(tmp_path / "bad.gguf")


def test_a_tensor_whose_bytes_run_past_the_end_is_refused_at_the_header(tmp_path):
    """The last tensor's offset moved one alignment step on: its bytes end 32 past the file's end; one step back (its
    own offset) it ends exactly at the end and is read."""
    from andrea_viz.checkpoints.gguf_file import read_header

    makers.gguf_model(tmp_path / "m.gguf", untied=True)
    good = read_header(tmp_path / "m.gguf")
    name, dims, qtype, offset = max(good.tensors, key=lambda t: t[3])
    size = (tmp_path / "m.gguf").stat().st_size
    n_bytes = 4 * dims[0] * dims[1]
    assert qtype == 0 and good.data_start + offset + n_bytes == size  # F32, the file's last bytes
    b = bytearray((tmp_path / "m.gguf").read_bytes())
    at, n = _dims_at(b, name.encode())
    off_at = at + 8 * n + 4
    assert struct.unpack_from("<Q", b, off_at)[0] == offset
    b[off_at : off_at + 8] = struct.pack("<Q", offset + 32)
    (tmp_path / "past.gguf").write_bytes(bytes(b))
    end = offset + 32 + n_bytes
    with pytest.raises(CheckpointError, match=rf"{name} \(F32, shape \[{dims[0]}, {dims[1]}\]\) needs bytes "
                                              rf"{offset + 32:,} to {end:,} of the data, but the file holds only "
                                              rf"{size - good.data_start:,}"):
        read_header(tmp_path / "past.gguf")


def test_info_json_says_the_stored_type_and_the_context(cli, tmp_path):
    import json

    makers.gguf_model(tmp_path / "m.gguf", d=256, qtype="Q6_K", context=512)
    r = cli("info", str(tmp_path / "m.gguf"), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert (d["stored_type"], d["context_length"], d["layers"], d["output"]) == ("Q6_K", 512, 2, "tied")
    assert d["format"] == "GGUF v3 (llama)" and "SentencePiece" in d["tokenizer"]


def test_a_quantized_untied_output_table(tmp_path):
    info = makers.gguf_model(tmp_path / "m.gguf", untied=True, output_qtype="Q8_0")
    emb = andrea_viz.load(tmp_path / "m.gguf")
    assert not emb.tied and np.array_equal(emb.output_table, info["output"])
    assert "output.weight is stored as Q8_0" in emb.provenance.text()


def test_a_bert_gguf_has_learned_positions_wordpiece_and_no_head(tmp_path):
    info = makers.gguf_model(tmp_path / "b.gguf", V=120, d=32, arch="bert", tokenizer="bert", positions=40)
    emb = andrea_viz.load(tmp_path / "b.gguf")
    assert emb.position_kind == "learned" and np.array_equal(emb.position_table, info["positions"])
    assert emb.output_kind == "none" and emb.card["family"] == "bert"
    tokens = info["tokens"]
    assert emb.tokenizer.lookup("Cat") == [tokens.index("cat")]
    assert emb.tokenizer.encode("kittens") == [tokens.index(t) for t in ("kit", "##ten", "##s")]
    assert emb.tokenizer.unknown_id == tokens.index("[UNK]")


def test_a_big_endian_file(tmp_path):
    info = makers.gguf_model(tmp_path / "be.gguf", qtype="F32", big_endian=True)
    assert (tmp_path / "be.gguf").read_bytes()[4:8] == b"\0\0\0\3"
    emb = andrea_viz.load(tmp_path / "be.gguf")
    assert np.array_equal(emb.token_table, info["table"]) and emb.card["layers"] == 2
    assert emb.tokenizer.lookup("dog") == [info["tokens"].index("\u2581dog")]


# --- fuzzing GGUF on its own (the shared fuzz tests draw it among every format): its header is long (metadata, the token list), so cuts and flips land everywhere in it
@SETTINGS
@given(st.data())
def test_truncated_gguf(data):
    raw, _ = VALID["gguf"]
    load_bytes(raw[: data.draw(st.integers(0, len(raw) - 1))], "f.gguf")


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 255)), min_size=1, max_size=12))
def test_flipped_bytes_in_gguf(flips):
    raw, _ = VALID["gguf"]
    header_end = raw.index(b"blk.0.attn_q.weight") + 64  # the tensor infos end the header
    b = bytearray(raw)
    for pos, val in flips:
        b[pos % header_end] = val
    load_bytes(bytes(b), "f.gguf")


@pytest.mark.parametrize("kind", [dict(tokenizer="llama", qtype="Q4_0"), dict(tokenizer="gpt2", qtype="BF16"),
                                  dict(tokenizer="bert", arch="bert", positions=16, qtype="F16", V=120, d=32),
                                  dict(tokenizer="llama", qtype="F32", big_endian=True, untied=True)])
def test_the_header_reads_as_ggufs_own_reader_reads_it(tmp_path, kind):
    """GGUFReader is the slow reference: every key, every tensor's shape, type, offset and bytes."""
    from gguf import GGUFReader

    from andrea_viz.checkpoints.gguf_file import Tensor, read_header

    makers.gguf_model(tmp_path / "m.gguf", **kind)
    header = read_header(tmp_path / "m.gguf")
    reader = GGUFReader(tmp_path / "m.gguf")
    assert reader.data_offset == header.data_start
    keys = [k for k in reader.fields if not k.startswith("GGUF.")]
    assert keys == list(header.meta)
    for k in keys:
        want, got = reader.fields[k].contents(), header.meta[k]
        got = got.tolist() if isinstance(got, np.ndarray) else got
        assert got == pytest.approx(want) if isinstance(want, float) else got == want, k
    assert [(t.name, tuple(int(x) for x in t.shape), int(t.tensor_type), t.data_offset) for t in reader.tensors] == \
        [(n, dims, q, header.data_start + off) for n, dims, q, off in header.tensors]
    for t, (n, dims, q, off) in zip(reader.tensors, header.tensors, strict=True):
        mine = Tensor(n, dims, GGMLQuantizationType(q), header.data_start + off, header.order).mapped(tmp_path / "m.gguf")
        assert np.array_equal(mine.reshape(t.data.shape), t.data), n
