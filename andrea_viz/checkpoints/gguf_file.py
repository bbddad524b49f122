"""GGUF (llama.cpp, Ollama, LM Studio): a header of metadata and tensor infos, then aligned tensor data.

Read with the ``gguf`` package's memory-mapped ``GGUFReader``, and dequantized with its own
``quants.dequantize``, a block of rows at a time into one float32 table. GGUF lists shapes innermost
first: ``token_embd.weight`` is ``[d, V]`` in the file and a (V, d) table here. ``output.weight`` is
absent when the head is tied. The tokenizer lives in the metadata (``tokenizer.ggml.*``).

``GGUFReader`` trusts every count and length in the header (a lying array count makes it loop and
allocate without end), so ``check_header`` walks the header first, without allocating: every string,
array, dimension and tensor offset must fit the bytes the file has, and every tensor type must be one
that ``gguf`` knows; the first that does not is one sentence.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import CheckpointError
from ..i18n import Msg
from .tables import Found

MAGIC = b"GGUF"
VERSIONS = (2, 3)  # what gguf's reader reads; version 1 had 32-bit counts
SCALAR_BYTES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}  # GGUFValueType -> bytes
STRING, ARRAY, UINT32 = 8, 9, 4
MAX_DIMS = 4  # GGML_MAX_DIMS
DEFAULT_ALIGNMENT = 32
ROW_BLOCK_BYTES = 8 * 2**20  # quantized bytes dequantized at a time: the temporaries stay near 100 MB
# architectures with no output head: a missing output.weight means no head, not a tied one
ENCODER_ARCHS = ("bert", "nomic-bert", "nomic-bert-moe", "jina-bert-v2", "jina-bert-v3", "t5encoder", "modern-bert")


def looks_like(head: bytes, size: int = 0) -> bool:
    return head[:4] == MAGIC


@dataclass(frozen=True)
class Header:
    """What the header walk saw: version, byte order, counts, and each tensor's (name, dims, type, offset)."""

    version: int
    order: str  # "<" or ">"
    n_kv: int
    tensors: tuple[tuple[str, tuple[int, ...], int, int], ...]
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

    def value(self, vtype: int, key: str, depth: int = 0) -> bytes | None:
        """Skip one value of type ``vtype``; return its bytes when it is a small scalar or string (else None)."""
        if vtype in SCALAR_BYTES:
            p = self.need(SCALAR_BYTES[vtype], key)
            return bytes(self.buf[p : self.pos])
        if vtype == STRING:
            self.string(key)
            return None
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
                self.need(count * SCALAR_BYTES[itype], key)
            else:
                for _ in range(count):
                    self.value(itype, key, depth + 1)
            return None
        raise CheckpointError("{name}: the GGUF key {key} has value type {vtype}, which is not one of GGUF's types 0 to "
                              "12", name=self.name, key=key, vtype=vtype)


def check_header(path: Path) -> Header:
    """Walk the header without allocating; raise one CheckpointError for the first thing that does not fit."""
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
        for count, least, field in ((n_kv, 13, "metadata_kv_count"), (n_tensors, 24, "tensor_count")):
            if count * least > size:
                raise CheckpointError("{name}: the GGUF header's {field} is {count:,}, more than its {size:,} bytes can "
                                      "hold: the header lies or the file is cut", name=path.name, count=count, field=field,
                                      size=size)
        alignment = DEFAULT_ALIGNMENT
        for _ in range(n_kv):
            key = w.string("metadata_kv").decode("utf-8", errors="replace")
            vtype = w.uint(4, key)
            raw = w.value(vtype, key)
            if key == "general.alignment":
                alignment = int.from_bytes(raw, "little" if w.order == "<" else "big") if vtype == UINT32 else 0
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
            ttype = w.uint(4, tname)
            offset = w.uint(8, tname)
            tensors.append((tname, dims, ttype, offset))
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
        n_bytes = int(np.prod(dims, dtype=np.float64)) // block * type_bytes
        if offset + n_bytes > available:
            raise CheckpointError("{name}: tensor {tensor} ({type}, shape {shape}) needs bytes {start:,} to {end:,} of the "
                                  "data, but the file holds only {available:,}: it is truncated or its header lies",
                                  name=path.name, tensor=tname, type=qtype.name, shape=str(list(dims)), start=offset,
                                  end=offset + n_bytes, available=max(available, 0))
    return Header(version, w.order, n_kv, tuple(tensors), data_start)


def _field(reader, key: str):
    """A metadata value: a scalar, a string, or a list; None when absent or unreadable."""
    f = reader.fields.get(key)
    if f is None:
        return None
    try:
        return f.contents()
    except (UnicodeDecodeError, IndexError, ValueError):
        return None


def string_list(reader, key: str) -> list[str] | None:
    """An array of strings, decoded one by one (a token that is not valid UTF-8 keeps replacement marks)."""
    f = reader.fields.get(key)
    if f is None or len(f.types) < 2 or f.types[-1] != STRING:
        return None
    return [bytes(f.parts[i]).decode("utf-8", errors="replace") for i in f.data]


def type_name(qtype) -> str:
    return getattr(qtype, "name", str(qtype))


def bits_per_weight(qtype) -> float:
    from gguf.constants import GGML_QUANT_SIZES

    block, type_bytes = GGML_QUANT_SIZES[qtype]
    return 8 * type_bytes / block


def dequantized(tensor, path: Path) -> np.ndarray:
    """(rows, d) float32 of one tensor: F32 as a view of the mapping, any other type dequantized by gguf, a block
    of rows at a time into one table (so the temporaries of dequantizing stay small)."""
    from gguf import quants
    from gguf.constants import GGMLQuantizationType

    d = int(tensor.shape[0])
    rows = int(np.prod(tensor.shape[1:], dtype=np.int64))
    data = tensor.data.reshape(rows, -1)
    if tensor.tensor_type in (GGMLQuantizationType.F32, GGMLQuantizationType.F64):
        return np.asarray(data, dtype=np.float32)
    out = np.empty((rows, d), np.float32)
    step = max(1, ROW_BLOCK_BYTES // max(1, data.shape[1] * data.itemsize))
    try:
        for a in range(0, rows, step):
            out[a : a + step] = quants.dequantize(np.asarray(data[a : a + step]), tensor.tensor_type).reshape(-1, d)
    except NotImplementedError:
        raise CheckpointError("{name}: tensor {tensor} is stored as {type}, which gguf {version} cannot dequantize",
                              name=path.name, tensor=tensor.name, type=type_name(tensor.tensor_type),
                              version=_gguf_version()) from None
    return out


def _gguf_version() -> str:
    from importlib.metadata import version

    return version("gguf")


def read(path: Path, found: Found) -> None:
    """Collect the tensors (shapes as (rows, d)), the architecture, layers, heads and context, and the tokenizer."""
    from gguf import GGUFReader

    header = check_header(path)
    reader = GGUFReader(path)
    arch = _field(reader, "general.architecture")
    arch = arch if isinstance(arch, str) else "unknown"
    found.format = Msg("GGUF v{version} ({arch})", version=header.version, arch=arch)
    for key, role in (("block_count", "layers"), ("attention.head_count", "heads"), ("context_length", "context_length")):
        v = _field(reader, f"{arch}.{key}")
        if isinstance(v, int):
            found.config[role] = v
    found.config["family"] = arch
    name = _field(reader, "general.name")
    found.notes.append(Msg("GGUF metadata: general.name = {model}, architecture = {arch}, {layers} layers, context "
                           "length {context}; shapes are listed innermost first ([d, V]) and shown here as (V, d)",
                           model=name if isinstance(name, str) else "—", arch=arch,
                           layers=found.config.get("layers", "—"), context=found.config.get("context_length", "—")))
    types = {}
    for t in reader.tensors:
        dims = tuple(int(x) for x in t.shape)
        shape = tuple(reversed(dims))
        types[t.name] = t.tensor_type
        found.add(t.name, shape, type_name(t.tensor_type), lambda t=t: _stored_note(found, t, path))
    found.config["total_params"] = sum(int(t.n_elements) for t in reader.tensors)
    if "token_embd.weight" in types:
        found.config["stored_type"] = type_name(types["token_embd.weight"])
    if "output.weight" not in types:
        found.tied_hint = arch not in ENCODER_ARCHS
        if found.tied_hint:
            found.notes.append(Msg("no output.weight: llama.cpp then uses token_embd.weight as the output projection"))
    if "position_embd.weight" not in types and any(k.startswith(f"{arch}.rope.") for k in reader.fields):
        found.position_kind_hint = "rope"
    from ..tokenizer.gguf_vocab import tokenizer_from_gguf

    try:
        found.tokenizer = tokenizer_from_gguf(reader, path.name)
    except CheckpointError as exc:
        found.tokenizer_reason = exc.msg
    except (ValueError, TypeError, IndexError, KeyError) as exc:  # metadata of the wrong types: the weights still open
        found.tokenizer_reason = Msg("its tokenizer metadata could not be read: {detail}",
                                     detail=(str(exc).splitlines() or [type(exc).__name__])[0][:200])


def _stored_note(found: Found, tensor, path: Path) -> np.ndarray:
    if type_name(tensor.tensor_type) != "F32":
        found.notes.append(Msg("{tensor} is stored as {type} ({bits:.2f} bits per weight); dequantized to float32 by "
                               "gguf.quants.dequantize", tensor=tensor.name, type=type_name(tensor.tensor_type),
                               bits=bits_per_weight(tensor.tensor_type)))
    return dequantized(tensor, path)
