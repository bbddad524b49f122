"""Tokenizers: text to ids and back, behind one small protocol.

Every tokenizer answers three questions:

- ``encode(text) -> list[int]``: the ids of a text, no special tokens added;
- ``token(id) -> str``: how one id is shown;
- ``lookup(word) -> list[int]``: the ids a word is made of (one or several pieces).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Protocol, runtime_checkable

from .errors import QueryError

ID_PATTERN = re.compile(r"^#(\d+)$")
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "harris_segments.json")  # looked for beside a checkpoint


@runtime_checkable
class Tokenizer(Protocol):
    """What the explorer needs from a tokenizer."""

    description: str
    vocab_size: int
    unknown_id: int | None

    def encode(self, text: str) -> list[int]: ...

    def token(self, token_id: int) -> str: ...

    def lookup(self, word: str) -> list[int]: ...


class HFTokenizer:
    """A Hugging Face ``tokenizer.json`` read with the ``tokenizers`` package.

    Padding and truncation are turned off so that ids are exactly the pieces of the text.
    """

    def __init__(self, path: str | Path):
        from tokenizers import Tokenizer as _Tok

        self.path = Path(path)
        self._tok = _Tok.from_file(str(self.path))
        self._tok.no_padding()
        self._tok.no_truncation()
        self.vocab_size = self._tok.get_vocab_size()
        model = type(self._tok.model).__name__
        unk = getattr(self._tok.model, "unk_token", None)
        self.unknown_id = self._tok.token_to_id(unk) if unk else None
        self.description = f"Hugging Face tokenizer.json ({model}, {self.vocab_size:,} tokens)"

    def encode(self, text: str) -> list[int]:
        return list(self._tok.encode(text, add_special_tokens=False).ids)

    def token(self, token_id: int) -> str:
        tok = self._tok.id_to_token(int(token_id))
        return tok if tok is not None else f"#{token_id}"

    def lookup(self, word: str) -> list[int]:
        return self.encode(word.strip())


def _byte_label(b: int) -> str:
    ch = chr(b)
    return ch if 0x21 <= b <= 0x7E else f"<0x{b:02X}>"


class ByteTokenizer:
    """ANDREA's id layout: 256 byte ids, then the Harris segments, then one BOS id.

    With no segment list (an untrained table), text is encoded byte by byte and the segment
    ids show as ``seg#id``. With one, words are matched greedily, longest segment first, with
    bytes as the fallback.
    """

    def __init__(self, vocab_size: int, segments: list[str] | None = None):
        if vocab_size < 257:
            raise ValueError(f"an ANDREA vocabulary has at least 257 ids (256 bytes + BOS), got {vocab_size}")
        self.vocab_size = vocab_size
        self.segments = list(segments) if segments is not None else None
        self.bos_id = vocab_size - 1
        self.unknown_id = None
        n_seg = vocab_size - 257
        if self.segments is None:
            self.description = (
                f"ANDREA byte ids 0-255 and BOS ({vocab_size - 1:,}); the {n_seg:,} segment ids "
                "(256-{:,}) are unnamed: the segment list of an untrained table is not known".format(
                    vocab_size - 2
                )
            )
            self._index: dict[str, int] = {}
            self._max_len = 0
        else:
            self.description = f"ANDREA Harris segments ({len(self.segments):,}) + 256 bytes + BOS"
            self._index = {s: 256 + i for i, s in enumerate(self.segments) if s}
            self._max_len = max((len(s) for s in self._index), default=0)

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        i = 0
        while i < len(text):
            for n in range(min(self._max_len, len(text) - i), 0, -1):
                seg_id = self._index.get(text[i : i + n])
                if seg_id is not None:
                    ids.append(seg_id)
                    i += n
                    break
            else:
                ids.extend(text[i].encode("utf-8"))
                i += 1
        return ids

    def token(self, token_id: int) -> str:
        token_id = int(token_id)
        if 0 <= token_id < 256:
            return _byte_label(token_id)
        if token_id == self.bos_id:
            return "<BOS>"
        if self.segments is not None and 0 <= token_id - 256 < len(self.segments):
            return self.segments[token_id - 256]
        return f"seg#{token_id}"

    def lookup(self, word: str) -> list[int]:
        return self.encode(word.strip())


class IdTokenizer:
    """No vocabulary is known: tokens show as ``#id`` and words cannot be looked up."""

    unknown_id = None

    def __init__(self, vocab_size: int):
        self.vocab_size = vocab_size
        self.description = "none: tokens show as #id; give ids such as #42 (a tokenizer file is needed for words)"

    def encode(self, text: str) -> list[int]:
        raise QueryError(
            "this model has no tokenizer, so text cannot be turned into ids; "
            "give token ids such as #42 instead, or load a tokenizer with the checkpoint"
        )

    def token(self, token_id: int) -> str:
        return f"#{int(token_id)}"

    lookup = encode


class VocabTokenizer:
    """A ``vocab.txt`` (one token per line, id = line number): WordPiece's greedy longest match,
    continuation pieces written ``##piece``; words are tried as typed, then lower-cased."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.tokens = self.path.read_text(encoding="utf-8").splitlines()
        self.vocab_size = len(self.tokens)
        self._ids = {t: i for i, t in enumerate(self.tokens)}
        self.unknown_id = self._ids.get("[UNK]")
        self.description = f"vocab.txt ({self.vocab_size:,} tokens, greedy WordPiece)"

    def _word(self, word: str) -> list[int]:
        for w in (word, word.lower()):
            ids, start = [], 0
            while start < len(w):
                for end in range(len(w), start, -1):
                    piece = w[start:end] if start == 0 else "##" + w[start:end]
                    if piece in self._ids:
                        ids.append(self._ids[piece])
                        start = end
                        break
                else:
                    ids = None
                    break
            if ids:
                return ids
        return [self.unknown_id] if self.unknown_id is not None else []

    def encode(self, text: str) -> list[int]:
        return [i for w in re.findall(r"\w+|[^\w\s]", text) for i in self._word(w)]

    def token(self, token_id: int) -> str:
        return self.tokens[token_id] if 0 <= token_id < self.vocab_size else f"#{token_id}"

    def lookup(self, word: str) -> list[int]:
        return self.encode(word.strip())


def _segments_from_json(data) -> list[str] | None:
    """harris_segments.json: a list of strings, or an object holding one."""
    if isinstance(data, list) and all(isinstance(s, str) for s in data):
        return data
    if isinstance(data, dict):
        for v in data.values():
            if isinstance(v, list) and v and all(isinstance(s, str) for s in v):
                return v
    return None


def tokenizer_from_file(path: str | Path, vocab_size: int) -> tuple[Tokenizer, list[str]]:
    """Read a tokenizer file for a table of ``vocab_size`` rows: (tokenizer, notes on what was assumed).

    Accepts a Hugging Face ``tokenizer.json``, a ``vocab.txt``, or ANDREA's ``harris_segments.json``.
    """
    import json

    from .errors import CheckpointError

    p = Path(path)
    notes: list[str] = []
    if not p.is_file():
        raise CheckpointError(f"the tokenizer {p} is not a file")
    if p.stat().st_size > 200_000_000:
        raise CheckpointError(f"the tokenizer {p.name} is {p.stat().st_size:,} bytes; a tokenizer file is far smaller")
    raw = p.read_bytes()
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        data = None
    if isinstance(data, dict) and "model" in data:
        try:
            return HFTokenizer(p), notes
        except Exception as exc:
            raise CheckpointError(f"{p.name} looks like a Hugging Face tokenizer.json but could not be read: "
                                  f"{str(exc).splitlines()[0]}") from exc
    segments = _segments_from_json(data) if data is not None else None
    if segments is not None:
        notes.append(f"{p.name}: {len(segments):,} Harris segments; ids assumed to be 256 bytes, then the segments "
                     "in file order, then BOS")
        if len(segments) + 257 != vocab_size:
            notes.append(f"the segments give 256 + {len(segments):,} + 1 = {len(segments) + 257:,} ids but the table "
                         f"has {vocab_size:,} rows: the id layout is a guess")
        if vocab_size < 257:
            raise CheckpointError(f"a Harris-segment tokenizer needs at least 257 rows; the table has {vocab_size}")
        return ByteTokenizer(vocab_size, segments[: max(vocab_size - 257, 0)]), notes
    if data is not None:
        raise CheckpointError(f"{p.name} is JSON but neither a Hugging Face tokenizer.json (with a 'model') nor a "
                              "list of segments (or an object holding one)")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CheckpointError(f"{p.name} is neither JSON nor a UTF-8 vocab.txt") from exc
    return VocabTokenizer(p), notes
