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
