"""llm.c's ``gpt2_tokenizer.bin`` (train_gpt2.py's write_tokenizer): a 256 × int32 header (magic, version
1 or 2, the token count, and in version 2 the EOT id), then per token a uint8 length and its bytes.

Tokens are GPT-2's byte strings: a leading space is part of a token, and some tokens are not valid
UTF-8 on their own (they show with ``\\x`` escapes). The file holds no merges, so text is encoded by the
longest token that matches (not GPT-2's merge order), and a typed word is looked up as its exact token
or its " word" form.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import CheckpointError, QueryError
from ..i18n import Msg
from ..llmc_format import HEADER_BYTES, HEADER_INTS, TOKENIZER_MAGIC

VERSIONS = (1, 2)


def shown_bytes(b: bytes) -> str:
    """A token's bytes as text: UTF-8 where they decode, ``\\xNN`` for the bytes that do not."""
    return b.decode("utf-8", errors="backslashreplace")


class LlmcTokenizer:
    unknown_id = None

    def __init__(self, tokens: list[bytes], eot: int | None, source: str):
        self.tokens = tokens
        self.vocab_size = len(tokens)
        self.eot_id = eot
        self._ids = {}
        for i, t in enumerate(tokens):
            self._ids.setdefault(t, i)
        self._max_len = max((len(t) for t in tokens), default=0)
        self.description = Msg("llm.c tokenizer {name} ({n:,} GPT-2 byte tokens; text is matched longest token first, "
                               "not by GPT-2's merges)", name=source, n=self.vocab_size)

    def encode(self, text: str) -> list[int]:
        data = text.encode("utf-8")
        ids, i = [], 0
        while i < len(data):
            for n in range(min(self._max_len, len(data) - i), 0, -1):
                t = self._ids.get(data[i : i + n])
                if t is not None:
                    ids.append(t)
                    i += n
                    break
            else:
                raise QueryError("“{text}” holds a byte ({byte:#04x}) that no token of this vocabulary starts with",
                                 text=text[:60], byte=data[i])
        return ids

    def token(self, token_id: int) -> str:
        i = int(token_id)
        return shown_bytes(self.tokens[i]) if 0 <= i < self.vocab_size else f"#{i}"

    def lookup(self, word: str) -> list[int]:
        """The word's exact token, or its " word" form (GPT-2's tokens carry their leading space)."""
        w = word.strip().encode("utf-8")
        for form in (w, b" " + w):
            if form in self._ids:
                return [self._ids[form]]
        return self.encode(word.strip())


def read_llmc_tokenizer(path: Path) -> LlmcTokenizer:
    data = path.read_bytes()
    if len(data) < HEADER_BYTES:
        raise CheckpointError("{name}: an llm.c tokenizer starts with a {header}-byte header; the file has {size:,} bytes",
                              name=path.name, header=HEADER_BYTES, size=len(data))
    header = np.frombuffer(data[:HEADER_BYTES], "<i4", count=HEADER_INTS)
    magic, version, n = (int(x) for x in header[:3])
    if magic != TOKENIZER_MAGIC:
        raise CheckpointError("{name} is not an llm.c tokenizer: its magic number is {magic}, expected {want}",
                              name=path.name, magic=magic, want=TOKENIZER_MAGIC)
    if version not in VERSIONS:
        raise CheckpointError("{name}: llm.c tokenizer version {version} is not 1 or 2", name=path.name, version=version)
    if n <= 0:
        raise CheckpointError("{name} declares {n} tokens; expected a positive count", name=path.name, n=n)
    tokens, pos = [], HEADER_BYTES
    for i in range(n):
        if pos >= len(data):
            raise CheckpointError("{name} declares {n:,} tokens but ends after {got:,}: it is cut short or its count is "
                                  "wrong", name=path.name, n=n, got=i)
        length = data[pos]
        if pos + 1 + length > len(data):
            raise CheckpointError("{name}: token {i:,} declares {length} bytes but the file ends first", name=path.name,
                                  i=i, length=length)
        tokens.append(data[pos + 1 : pos + 1 + length])
        pos += 1 + length
    if pos != len(data):
        raise CheckpointError("{name} declares {n:,} tokens but {extra:,} more bytes follow them: its count is wrong",
                              name=path.name, n=n, extra=len(data) - pos)
    eot = int(header[3]) if version == 2 else None
    if eot is not None and not 0 <= eot < n:
        raise CheckpointError("{name}: the EOT id {eot} is outside the {n:,} tokens", name=path.name, eot=eot, n=n)
    return LlmcTokenizer(tokens, eot, path.name)
