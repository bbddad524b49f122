"""GGUF (llama.cpp, Ollama, LM Studio): a header of metadata and tensor infos, then aligned tensor data.

The header is read here, in one bounded pass: ``gguf``'s own ``GGUFReader`` trusts every count and
length (a lying array count makes it loop and allocate without end) and makes a numpy array per
element of every metadata array (128,256 tokens and 128,000 merges took it 10.3 s and +413 MB here;
this pass, and the whole load after it, 0.88 s and +90 MB). Every string, array, dimension and
tensor offset must fit the bytes the file has, and every tensor type must be one that ``gguf`` knows;
the first that does not is one sentence, before anything is allocated. The tensors are memory-mapped
with ``gguf``'s block sizes and dequantized with its own ``quants.dequantize``, a block of rows at a
time into one float32 table. The tests check this reading against ``GGUFReader``.

GGUF lists shapes innermost first: ``token_embd.weight`` is ``[d, V]`` in the file and a (V, d) table
here. ``output.weight`` is absent when the head is tied. The tokenizer lives in the metadata
(``tokenizer.ggml.*``).

What block 1 receives follows llama.cpp's graph per architecture (``steps``): the learned ``position_embd``
rows, else RoPE when the metadata has ``<arch>.rope.*`` keys or the architecture is Gemma's (its converter
writes no rope key); Gemma multiplies the token rows by √d; BERT-family files add row 0 of
``token_types.weight`` and put the sum through the LayerNorm ``token_embd_norm``.
"""

from __future__ import annotations

import math
import mmap
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import CheckpointError
from ..i18n import Msg
from ..tokenizer.gguf_vocab import field, tokenizer_from_gguf
from .architectures import Norm, Recipe
from .tables import Found

MAGIC = b"GGUF"
VERSIONS = (2, 3)  # version 1 had 32-bit counts (and gguf's own reader refuses it too)
SCALAR_CODES = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}  # GGUFValueType
SCALAR_BYTES = {t: struct.calcsize(c) for t, c in SCALAR_CODES.items()}
STRING, ARRAY, UINT32 = 8, 9, 4
MAX_DIMS = 4  # GGML_MAX_DIMS
DEFAULT_ALIGNMENT = 32
ROW_BLOCK_BYTES = 8 * 2**20  # quantized bytes dequantized at a time: the temporaries stay near 100 MB
# architectures with no output head: a missing output.weight means no head, not a tied one
ENCODER_ARCHS = ("bert", "nomic-bert", "nomic-bert-moe", "jina-bert-v2", "jina-bert-v3", "t5encoder", "modern-bert")
# llama.cpp's Gemma graphs scale the lookup by √d and rotate positions, though the converter writes no gemma.rope.* key
SQRT_D_ARCHS = ("gemma", "gemma2", "gemma3", "gemma3n", "gemma-embedding")
TOKEN, OUTPUT, POSITION = "token_embd.weight", "output.weight", "position_embd.weight"
TOKEN_TYPES, NORM = "token_types.weight", "token_embd_norm"
DEFAULT_NORM_EPS = 1e-12  # BERT's layer_norm_eps, which llama.cpp's converter writes as <arch>.attention.layer_norm_epsilon


def looks_like(head: bytes, size: int = 0) -> bool:
    return head[:4] == MAGIC


@dataclass(frozen=True)
class Header:
    """What the header holds: version, byte order, the metadata, and each tensor's (name, dims, type, offset)."""

    version: int
    order: str  # "<" or ">"
    meta: dict  # key -> int, float, bool, str, a numpy array (arrays of numbers) or a list of str
    tensors: tuple[tuple[str, tuple[int, ...], int, int], ...]  # (name, dims innermost first, GGML type, offset)
    data_start: int


class _Walk:
    """A cursor over the file's bytes that never reads, nor promises to read, past the end."""

    def __init__(self, buf, name: str):
        self.buf, self.name, self.pos, self.order = buf, name, 0, "<"

    def need(self, n: int, field: str) -> int:
        """Take n bytes for ``field`` (a key, a tensor, or the name of a header field in GGUF's spec)."""
        left = len(self.buf) - self.pos
        if n < 0 or n > left:
            raise CheckpointError("{name}: the GGUF header needs {n:,} bytes for {field} at byte {pos:,} but only {left:,} "
                                  "remain: the file is truncated or its header is wrong", name=self.name, field=field,
                                  n=n, pos=self.pos, left=left)
        p = self.pos
        self.pos += n
        return p

    def uint(self, size: int, field: str) -> int:
        p = self.need(size, field)
        return struct.unpack_from(self.order + {4: "I", 8: "Q"}[size], self.buf, p)[0]

    def string(self, field: str) -> bytes:
        n = self.uint(8, field)
        p = self.need(n, field)
        return bytes(self.buf[p : p + n])

    def value(self, vtype: int, key: str, depth: int = 0):
        """Read one value of type ``vtype``: a Python scalar or str, a numpy array for an array of numbers, a list
        of str for an array of strings (an array of arrays is skipped: None)."""
        if vtype in SCALAR_BYTES:
            p = self.need(SCALAR_BYTES[vtype], key)
            return struct.unpack_from(self.order + SCALAR_CODES[vtype], self.buf, p)[0]
        if vtype == STRING:
            return self.string(key).decode("utf-8", errors="replace")
        if vtype == ARRAY and depth == 0:
            itype = self.uint(4, key)
            count = self.uint(8, key)
            least = SCALAR_BYTES.get(itype, 8 if itype == STRING else 12)  # a string is at least its length
            if count * least > len(self.buf) - self.pos:
                raise CheckpointError("{name}: the GGUF key {key} declares {count:,} elements, at least {need:,} bytes, "
                                      "but only {left:,} bytes remain: the header lies or the file is cut",
                                      name=self.name, key=key, count=count, need=count * least,
                                      left=len(self.buf) - self.pos)
            if itype in SCALAR_BYTES:
                p = self.need(count * SCALAR_BYTES[itype], key)
                dtype = np.dtype(SCALAR_CODES[itype]).newbyteorder(self.order)
                return np.frombuffer(self.buf, dtype, count, p).astype(dtype.newbyteorder("="))
            return [self.value(itype, key, depth + 1) for _ in range(count)]
        raise CheckpointError("{name}: the GGUF key {key} has value type {vtype}, which is not one of GGUF's types 0 to "
                              "12", name=self.name, key=key, vtype=vtype)


def read_header(path: Path) -> Header:
    """The header, every count and length checked against the bytes left before it is used; one CheckpointError
    for the first thing that does not fit."""
    from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

    size = path.stat().st_size
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        w = _Walk(buf, path.name)
        w.need(4, "magic")
        version = w.uint(4, "version")
        if version & 0xFFFF == 0:  # written on a big-endian machine
            w.order, version = ">", struct.unpack(">I", struct.pack("<I", version))[0]
        if version not in VERSIONS:
            raise CheckpointError("{name} is GGUF version {version}; this app reads versions 2 and 3", name=path.name,
                                  version=version)
        n_tensors, n_kv = w.uint(8, "tensor_count"), w.uint(8, "metadata_kv_count")
        for count, least, spec in ((n_kv, 13, "metadata_kv_count"), (n_tensors, 24, "tensor_count")):
            if count * least > size:
                raise CheckpointError("{name}: the GGUF header's {field} is {count:,}, more than its {size:,} bytes can "
                                      "hold: the header lies or the file is cut", name=path.name, count=count, field=spec,
                                      size=size)
        meta: dict = {}
        for _ in range(n_kv):
            key = w.string("metadata_kv").decode("utf-8", errors="replace")
            vtype = w.uint(4, key)
            meta[key] = w.value(vtype, key)
            if key == "general.alignment":
                alignment = meta[key] if vtype == UINT32 else 0
                if alignment <= 0 or alignment & (alignment - 1):
                    raise CheckpointError("{name}: general.alignment must be a power of two stored as uint32",
                                          name=path.name)
        tensors = []
        for _ in range(n_tensors):
            tname = w.string("tensor_info").decode("utf-8", errors="replace")
            n_dims = w.uint(4, tname)
            if not 1 <= n_dims <= MAX_DIMS:
                raise CheckpointError("{name}: tensor {tensor} declares {n} dimensions; GGUF allows 1 to {most}",
                                      name=path.name, tensor=tname, n=n_dims, most=MAX_DIMS)
            dims = tuple(w.uint(8, tname) for _ in range(n_dims))
            if min(dims) < 1:
                raise CheckpointError("{name}: tensor {tensor} has shape {shape} (innermost first); every dimension must "
                                      "be at least 1, and dimension {axis} is {dim:,}", name=path.name, tensor=tname,
                                      shape=str(list(dims)), axis=dims.index(min(dims)), dim=min(dims))
            ttype = w.uint(4, tname)
            offset = w.uint(8, tname)
            tensors.append((tname, dims, ttype, offset))
        alignment = meta.get("general.alignment", DEFAULT_ALIGNMENT)
        data_start = -(-w.pos // alignment) * alignment
    available = size - data_start
    for tname, dims, ttype, offset in tensors:
        try:
            qtype = GGMLQuantizationType(ttype)
            block, type_bytes = GGML_QUANT_SIZES[qtype]
        except (ValueError, KeyError):
            raise CheckpointError("{name}: tensor {tensor} has GGML type {type}, which the gguf package does not know; "
                                  "expected one of F32, F16, BF16, Q4_0 … Q8_0, the K-quants or the IQ types",
                                  name=path.name, tensor=tname, type=ttype) from None
        if dims[0] % block:
            raise CheckpointError("{name}: tensor {tensor} is {type} with rows of {n:,} values, not a whole number of its "
                                  "{block}-value blocks", name=path.name, tensor=tname, type=qtype.name, n=dims[0],
                                  block=block)
        n_bytes = math.prod(dims) // block * type_bytes  # exact, however large the header says
        if offset + n_bytes > available:
            raise CheckpointError("{name}: tensor {tensor} ({type}, shape {shape}) needs bytes {start:,} to {end:,} of the "
                                  "data, but the file holds only {available:,}: it is truncated or its header lies",
                                  name=path.name, tensor=tname, type=qtype.name, shape=str(list(dims)), start=offset,
                                  end=offset + n_bytes, available=max(available, 0))
    return Header(version, w.order, meta, tuple(tensors), data_start)


def type_name(qtype) -> str:
    return getattr(qtype, "name", str(qtype))


def bits_per_weight(qtype) -> float:
    from gguf.constants import GGML_QUANT_SIZES

    block, type_bytes = GGML_QUANT_SIZES[qtype]
    return 8 * type_bytes / block


@dataclass(frozen=True)
class Tensor:
    """One tensor of the file: where its bytes lie and how to read them as (rows, d) float32."""

    name: str
    dims: tuple[int, ...]  # innermost first, as GGUF lists them
    qtype: object  # gguf's GGMLQuantizationType
    start: int  # byte offset in the file
    order: str

    @property
    def n_elements(self) -> int:
        return int(np.prod(self.dims, dtype=np.int64))

    def mapped(self, path: Path) -> np.ndarray:
        """(rows, values or bytes per row), memory-mapped: numbers for F32/F16/F64, raw bytes for the block types."""
        from gguf.constants import GGML_QUANT_SIZES

        rows = int(np.prod(self.dims[1:], dtype=np.int64))
        plain = {"F32": "f4", "F16": "f2", "F64": "f8"}.get(type_name(self.qtype))
        if plain:
            return np.memmap(path, np.dtype(plain).newbyteorder(self.order), "r", self.start, (rows, self.dims[0]))
        block, type_bytes = GGML_QUANT_SIZES[self.qtype]
        return np.memmap(path, np.uint8, "r", self.start, (rows, self.dims[0] // block * type_bytes))

    def read(self, path: Path) -> np.ndarray:
        """(rows, d) float32: F32 as a view of the mapping, any other type dequantized by gguf, a block of rows at a
        time into one table (so the temporaries of dequantizing stay small)."""
        from gguf import quants

        data = self.mapped(path)
        d = self.dims[0]
        if type_name(self.qtype) in ("F32", "F64", "F16"):
            return data if data.dtype == np.dtype("=f4") else np.asarray(data, dtype=np.float32)
        try:  # one row first: a type gguf cannot dequantize is said before the table is allocated
            first = quants.dequantize(np.asarray(data[:1]), self.qtype).reshape(-1, d)
        except NotImplementedError:
            raise CheckpointError("{name}: tensor {tensor} is stored as {type}, which gguf {version} cannot dequantize",
                                  name=path.name, tensor=self.name, type=type_name(self.qtype),
                                  version=_gguf_version()) from None
        out = np.empty((data.shape[0], d), np.float32)
        out[:1] = first
        step = max(1, ROW_BLOCK_BYTES // max(1, data.shape[1]))
        for a in range(1, data.shape[0], step):
            out[a : a + step] = quants.dequantize(np.asarray(data[a : a + step]), self.qtype).reshape(-1, d)
        return out


def _gguf_version() -> str:
    from importlib.metadata import version

    return version("gguf")


def read(path: Path, found: Found) -> None:
    """Collect the tensors (shapes as (rows, d)), the architecture, layers, heads and context, and the tokenizer."""
    from gguf.constants import GGMLQuantizationType

    header = read_header(path)
    meta = header.meta
    arch = field(meta, "general.architecture", str) or "unknown"
    found.format = Msg("GGUF v{version} ({arch})", version=header.version, arch=arch)
    for key, role in (("block_count", "layers"), ("attention.head_count", "heads"), ("context_length", "context_length")):
        v = field(meta, f"{arch}.{key}", int)
        if v is not None:
            found.config[role] = v
    found.config["family"] = arch
    found.notes.append(Msg("GGUF metadata: general.name = {model}, architecture = {arch}, {layers} layers, context "
                           "length {context}; shapes are listed innermost first ([d, V]) and shown here as (V, d)",
                           model=field(meta, "general.name", str) or "—", arch=arch,
                           layers=found.config.get("layers", "—"), context=found.config.get("context_length", "—")))
    tensors = [Tensor(name, dims, GGMLQuantizationType(t), header.data_start + offset, header.order)
               for name, dims, t, offset in header.tensors]
    for t in tensors:
        found.add(t.name, tuple(reversed(t.dims)), type_name(t.qtype), lambda t=t: _stored_note(found, t, path))
    found.config["total_params"] = sum(t.n_elements for t in tensors)
    types = {t.name: type_name(t.qtype) for t in tensors}
    if "token_embd.weight" in types:
        found.config["stored_type"] = types["token_embd.weight"]
    if "output.weight" not in types:
        found.tied_hint = arch not in ENCODER_ARCHS
        if found.tied_hint:
            found.notes.append(Msg("no output.weight: llama.cpp then uses token_embd.weight as the output projection"))
    found.steps = steps(arch, meta, found.shapes)
    if found.steps.position_kind == "rope":
        found.position_kind_hint = "rope"
    try:
        found.tokenizer = tokenizer_from_gguf(meta, path.name)
    except CheckpointError as exc:
        found.tokenizer_reason = exc.msg


def steps(arch: str, meta: dict, shapes: dict[str, tuple[int, ...]]) -> Recipe:
    """What llama.cpp's graph for ``arch`` does between the lookup and block 1, named by the file's tensors."""
    tied = OUTPUT not in shapes and arch not in ENCODER_ARCHS
    d = shapes[TOKEN][1] if len(shapes.get(TOKEN, ())) == 2 else field(meta, f"{arch}.embedding_length", int)
    out: dict = {}
    if POSITION in shapes:
        rows = shapes[POSITION][0]
        out.update(position=POSITION, position_kind="learned",
                   position_reason=Msg("learned: {name}, one row per position 0 to {T1}", name=POSITION, T1=rows - 1))
    elif arch in SQRT_D_ARCHS or any(k.startswith(f"{arch}.rope.") for k in meta):
        out.update(position_kind="rope", position_reason=Msg(
            "RoPE: llama.cpp rotates queries and keys inside attention for the architecture {arch}; nothing is added "
            "to x", arch=arch))
    if arch in SQRT_D_ARCHS and d:
        out["scale"] = math.sqrt(d)
    if TOKEN_TYPES in shapes:
        out["token_type"] = TOKEN_TYPES
    if f"{NORM}.weight" in shapes:
        eps = meta.get(f"{arch}.attention.layer_norm_epsilon")
        out["norm"] = Norm(f"{NORM}.weight", f"{NORM}.bias" if f"{NORM}.bias" in shapes else None,
                           float(eps) if isinstance(eps, int | float) else DEFAULT_NORM_EPS)
    return Recipe(model_type=arch, model_class=f"llama.cpp {arch}", token=(TOKEN,),
                  output=() if tied or OUTPUT not in shapes else (OUTPUT,), tied=tied, **out)


def _stored_note(found: Found, tensor: Tensor, path: Path) -> np.ndarray:
    if type_name(tensor.qtype) != "F32":
        found.notes.append(Msg("{tensor} is stored as {type} ({bits:.2f} bits per weight); dequantized to float32 by "
                               "gguf.quants.dequantize", tensor=tensor.name, type=type_name(tensor.qtype),
                               bits=bits_per_weight(tensor.qtype)))
    table = tensor.read(path)
    return table.reshape(-1) if len(tensor.dims) == 1 else table  # a norm's weight is (d,), as found.shapes says
