"""Reading a tokenizer file, whatever its kind, for a table of a known number of rows."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import CheckpointError
from ..family import BYTE_TOKENS, segment_count, vocab_size
from ..i18n import Msg
from .andrea import ByteTokenizer
from .hf import HFTokenizer
from .vocab_txt import VocabTokenizer

TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "harris_segments.json")  # looked for beside a checkpoint
MAX_BYTES = 200_000_000


def segments_from_json(data) -> list[str] | None:
    """harris_segments.json: a list of strings, or an object holding one."""
    if isinstance(data, list) and all(isinstance(s, str) for s in data):
        return data
    if isinstance(data, dict):
        for v in data.values():
            if isinstance(v, list) and v and all(isinstance(s, str) for s in v):
                return v
    return None


def tokenizer_from_file(path: str | Path, vocab_size_: int):
    """Read a tokenizer file for a table of ``vocab_size_`` rows: (tokenizer, notes on what was assumed).

    Accepts a Hugging Face ``tokenizer.json``, a ``vocab.txt``, or ANDREA's ``harris_segments.json``.
    """
    p = Path(path)
    notes: list[Msg] = []
    if not p.is_file():
        raise CheckpointError("the tokenizer {path} is not a file", path=str(p))
    size = p.stat().st_size
    if size > MAX_BYTES:
        raise CheckpointError("the tokenizer {name} is {size:,} bytes; a tokenizer file is far smaller",
                              name=p.name, size=size)
    raw = p.read_bytes()
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        data = None
    if isinstance(data, dict) and "model" in data:
        return HFTokenizer(p), notes
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
