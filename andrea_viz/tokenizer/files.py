"""Reading a tokenizer file, whatever its kind, for a table of a known number of rows."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import CheckpointError
from ..family import BYTE_TOKENS, segment_count, vocab_size
from ..i18n import Msg
from ..llmc_format import TOKENIZER_MAGIC
from .andrea import ByteTokenizer
from .char_meta import read_meta
from .hf import HFTokenizer, bpe_from_files
from .llmc import read_llmc_tokenizer
from .vocab_txt import VocabTokenizer

# looked for beside a checkpoint, in this order
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "harris_segments.json", "meta.pkl", "gpt2_tokenizer.bin")
MAX_BYTES = 200_000_000
PICKLE_PROTOCOL_2_OR_LATER = 0x80


def segments_from_json(data) -> list[str] | None:
    """harris_segments.json: a list of strings, or an object holding one."""
    if isinstance(data, list) and all(isinstance(s, str) for s in data):
        return data
    if isinstance(data, dict):
        for v in data.values():
            if isinstance(v, list) and v and all(isinstance(s, str) for s in v):
                return v
    return None


def _is_vocab_json(data) -> bool:
    return isinstance(data, dict) and bool(data) and all(isinstance(v, int) for v in data.values())


def _read(p: Path) -> bytes:
    if not p.is_file():
        raise CheckpointError("the tokenizer {path} is not a file", path=str(p))
    size = p.stat().st_size
    if size > MAX_BYTES:
        raise CheckpointError("the tokenizer {name} is {size:,} bytes; a tokenizer file is far smaller",
                              name=p.name, size=size)
    return p.read_bytes()


def _json(raw: bytes):
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


def _fits(tok, name: str, rows: int):
    """A vocabulary of a fixed size may be smaller than the table (padding rows), never larger."""
    if tok.vocab_size > rows:
        raise CheckpointError("{name} holds {n:,} tokens but the table has only {rows:,} rows: it belongs to another "
                              "model", name=name, n=tok.vocab_size, rows=rows)
    return tok


def tokenizer_from_files(paths, vocab_size_: int):
    """One tokenizer file, or GPT-2's vocab.json with its merges.txt: (tokenizer, notes)."""
    paths = [Path(p) for p in ([paths] if isinstance(paths, str | Path) else paths)]
    if len(paths) == 1:
        return tokenizer_from_file(paths[0], vocab_size_)
    if len(paths) == 2:
        parsed = [(p, _json(_read(p))) for p in paths]
        vocab = [p for p, d in parsed if _is_vocab_json(d)]
        merges = [p for p, d in parsed if d is None]
        if len(vocab) == 1 and len(merges) == 1:
            tok = HFTokenizer(vocab[0], bpe_from_files(vocab[0], merges[0]), f"{vocab[0].name} + {merges[0].name}")
            return _fits(tok, vocab[0].name, vocab_size_), []
    raise CheckpointError("expected one tokenizer file, or a vocab.json with its merges.txt; got {names}",
                          names=", ".join(p.name for p in paths))


def tokenizer_from_file(path: str | Path, vocab_size_: int):
    """Read a tokenizer file for a table of ``vocab_size_`` rows: (tokenizer, notes on what was assumed).

    Recognised from its bytes: a Hugging Face ``tokenizer.json``, a ``vocab.txt``, ANDREA's
    ``harris_segments.json``, nanoGPT's ``meta.pkl`` and llm.c's ``gpt2_tokenizer.bin``.
    """
    p = Path(path)
    notes: list[Msg] = []
    raw = _read(p)
    if len(raw) >= 4 and int.from_bytes(raw[:4], "little") == TOKENIZER_MAGIC:
        return _fits(read_llmc_tokenizer(p), p.name, vocab_size_), notes
    if raw[:1] == bytes([PICKLE_PROTOCOL_2_OR_LATER]) or p.suffix == ".pkl":
        return _fits(read_meta(p), p.name, vocab_size_), notes
    data = _json(raw)
    if isinstance(data, dict) and "model" in data:
        return HFTokenizer(p), notes
    if _is_vocab_json(data):
        raise CheckpointError("{name} is a vocab.json: give its merges.txt with it (--tokenizer twice, or both files in "
                              "the upload)", name=p.name)
    segments = segments_from_json(data) if data is not None else None
    if segments is not None:
        notes.append(Msg("{name}: {n:,} Harris segments; ids assumed to be {bytes} bytes, then the segments in file "
                         "order, then BOS", name=p.name, n=len(segments), bytes=BYTE_TOKENS))
        if vocab_size_ < vocab_size(0):
            raise CheckpointError("a Harris-segment tokenizer needs at least {n} rows; the table has {rows}",
                                  n=vocab_size(0), rows=vocab_size_)
        if vocab_size(len(segments)) != vocab_size_:
            notes.append(Msg("the segments give {bytes} + {n:,} + 1 = {total:,} ids but the table has {rows:,} rows: "
                             "the id layout is a guess", bytes=BYTE_TOKENS, n=len(segments),
                             total=vocab_size(len(segments)), rows=vocab_size_))
        return ByteTokenizer(vocab_size_, segments[: segment_count(vocab_size_)]), notes
    if data is not None:
        raise CheckpointError("{name} is JSON but neither a Hugging Face tokenizer.json (with a 'model') nor a list of "
                              "segments (or an object holding one)", name=p.name)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CheckpointError("{name} is neither JSON nor a UTF-8 vocab.txt", name=p.name) from exc
    return VocabTokenizer(p, text), notes
