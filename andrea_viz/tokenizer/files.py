"""Reading a tokenizer file, whatever its kind, for a table of a known number of rows."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import CheckpointError
from ..family import BYTE_TOKENS, segment_count, vocab_size
from ..i18n import Msg
from ..llmc_format import TOKENIZER_MAGIC
from .andrea import ByteTokenizer
from .char_meta import read_meta
from .hf import HFTokenizer, bpe_from_files
from .llmc import read_llmc_tokenizer
from .sentencepiece_model import SentencePieceTokenizer, looks_like_sentencepiece
from .vocab_txt import VocabTokenizer

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


def _read_bytes(p: Path) -> bytes:
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


def _is_pickle(raw: bytes, p: Path) -> bool:
    return raw[:1] == bytes([PICKLE_PROTOCOL_2_OR_LATER]) or p.suffix == ".pkl"


def _is_llmc(raw: bytes) -> bool:
    return len(raw) >= 4 and int.from_bytes(raw[:4], "little") == TOKENIZER_MAGIC


def _is_text(raw: bytes, data, p: Path) -> bool:
    """Not JSON, not a pickle, not llm.c's binary file, not a SentencePiece model: a vocab.txt (its reader checks the
    UTF-8)."""
    return data is None and not _is_pickle(raw, p) and not _is_llmc(raw) and not looks_like_sentencepiece(raw)


def _read_harris(p: Path, raw: bytes, data, rows: int):
    segments = segments_from_json(data)
    notes = [Msg("{name}: {n:,} Harris segments; ids assumed to be {bytes} bytes, then the segments in file order, then "
                 "BOS", name=p.name, n=len(segments), bytes=BYTE_TOKENS)]
    if rows < vocab_size(0):
        raise CheckpointError("a Harris-segment tokenizer needs at least {n} rows; the table has {rows}",
                              n=vocab_size(0), rows=rows)
    if vocab_size(len(segments)) != rows:
        notes.append(Msg("the segments give {bytes} + {n:,} + 1 = {total:,} ids but the table has {rows:,} rows: "
                         "the id layout is a guess", bytes=BYTE_TOKENS, n=len(segments),
                         total=vocab_size(len(segments)), rows=rows))
    return ByteTokenizer(rows, segments[: segment_count(rows)]), notes


def _read_vocab_txt(p: Path, raw: bytes, data, rows: int):
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CheckpointError("{name} is neither JSON nor a UTF-8 vocab.txt", name=p.name) from exc
    return VocabTokenizer(p, text), []


@dataclass(frozen=True)
class TokenizerKind:
    """One kind of tokenizer file: the name it has beside a checkpoint, the suffix an upload of it has, how its
    bytes are recognised (``sniff(raw, parsed JSON or None, path)``) and its reader
    (``read(path, raw, parsed JSON, rows) -> (tokenizer, notes)``)."""

    file: str
    suffix: str
    sniff: Callable[[bytes, object, Path], bool]
    read: Callable[[Path, bytes, object, int], tuple]


# in the order they are looked for beside a checkpoint, and recognised (no two sniffs accept the same bytes)
TOKENIZER_KINDS: tuple[TokenizerKind, ...] = (
    TokenizerKind("tokenizer.json", "json", lambda raw, data, p: isinstance(data, dict) and "model" in data,
                  lambda p, raw, data, rows: (HFTokenizer(p), [])),
    TokenizerKind("vocab.txt", "txt", _is_text, _read_vocab_txt),
    TokenizerKind("harris_segments.json", "json", lambda raw, data, p: segments_from_json(data) is not None,
                  _read_harris),
    TokenizerKind("meta.pkl", "pkl", lambda raw, data, p: data is None and _is_pickle(raw, p),
                  lambda p, raw, data, rows: (read_meta(p), [])),
    TokenizerKind("gpt2_tokenizer.bin", "bin", lambda raw, data, p: _is_llmc(raw),
                  lambda p, raw, data, rows: (read_llmc_tokenizer(p), [])),
    TokenizerKind("tokenizer.model", "model", lambda raw, data, p: data is None and looks_like_sentencepiece(raw),
                  lambda p, raw, data, rows: (SentencePieceTokenizer(p, raw), [])),
)
TOKENIZER_FILES = tuple(k.file for k in TOKENIZER_KINDS)  # looked for beside a checkpoint, in this order
GPT2_PAIR = ("vocab.json", "merges.txt")  # GPT-2's two files, given together
TOKENIZER_SUFFIXES = tuple(sorted({k.suffix for k in TOKENIZER_KINDS} | {Path(f).suffix[1:] for f in GPT2_PAIR}))
TOKENIZER_HELP = f"{', '.join(TOKENIZER_FILES[:-1])} or {TOKENIZER_FILES[-1]}; give it twice for GPT-2's " \
    f"{GPT2_PAIR[0]} and {GPT2_PAIR[1]}"


def tokenizer_from_files(paths, vocab_size_: int):
    """One tokenizer file, or GPT-2's vocab.json with its merges.txt: (tokenizer, notes)."""
    paths = [Path(p) for p in ([paths] if isinstance(paths, str | Path) else paths)]
    if len(paths) == 1:
        return tokenizer_from_file(paths[0], vocab_size_)
    if len(paths) == 2:
        parsed = [(p, _json(_read_bytes(p))) for p in paths]
        vocab = [p for p, d in parsed if _is_vocab_json(d)]
        merges = [p for p, d in parsed if d is None]
        if len(vocab) == 1 and len(merges) == 1:
            tok = HFTokenizer(vocab[0], bpe_from_files(vocab[0], merges[0]), f"{vocab[0].name} + {merges[0].name}")
            return _fits(tok, vocab[0].name, vocab_size_), []
    raise CheckpointError("expected one tokenizer file, or a vocab.json with its merges.txt; got {names}",
                          names=", ".join(p.name for p in paths))


def tokenizer_from_file(path: str | Path, vocab_size_: int):
    """Read a tokenizer file for a table of ``vocab_size_`` rows: (tokenizer, notes on what was assumed).

    Recognised from its bytes by the first of TOKENIZER_KINDS whose sniff accepts it; every kind's vocabulary
    must fit the table.
    """
    p = Path(path)
    raw = _read_bytes(p)
    data = _json(raw)
    for kind in TOKENIZER_KINDS:
        if kind.sniff(raw, data, p):
            tok, notes = kind.read(p, raw, data, vocab_size_)
            return _fits(tok, p.name, vocab_size_), notes
    if _is_vocab_json(data):
        raise CheckpointError("{name} is a vocab.json: give its merges.txt with it (--tokenizer twice, or both files in "
                              "the upload)", name=p.name)
    raise CheckpointError("{name} is JSON but neither a Hugging Face tokenizer.json (with a 'model') nor a list of "
                          "segments (or an object holding one)", name=p.name)
