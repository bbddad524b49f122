"""Tokenizers: text to ids and back, behind one small protocol.

Every tokenizer answers three questions:

- ``encode(text) -> list[int]``: the ids of a text, no special tokens added;
- ``token(id) -> str``: how one id is shown;
- ``lookup(word) -> list[int]``: the ids a word is made of (one or several pieces).

One module per kind of file: ``hf`` (tokenizer.json, GPT-2's vocab.json + merges.txt), ``vocab_txt``,
``andrea`` (bytes, Harris segments, BOS), ``char_meta`` (nanoGPT's meta.pkl), ``llmc`` (llm.c's
gpt2_tokenizer.bin), ``ids`` (no vocabulary); ``files`` recognises any of them from its bytes.
"""

from __future__ import annotations

import re
from typing import Protocol, runtime_checkable

from ..i18n import Msg

ID_PATTERN = re.compile(r"^#(\d+)$")


@runtime_checkable
class Tokenizer(Protocol):
    """What the explorer needs from a tokenizer."""

    description: Msg
    vocab_size: int
    unknown_id: int | None

    def encode(self, text: str) -> list[int]: ...

    def token(self, token_id: int) -> str: ...

    def lookup(self, word: str) -> list[int]: ...


from .andrea import ByteTokenizer  # noqa: E402
from .files import (  # noqa: E402
    TOKENIZER_FILES, TOKENIZER_HELP, TOKENIZER_KINDS, TOKENIZER_SUFFIXES, tokenizer_from_file, tokenizer_from_files,
)
from .hf import HFTokenizer  # noqa: E402
from .ids import IdTokenizer  # noqa: E402
from .vocab_txt import VocabTokenizer  # noqa: E402

__all__ = ["ID_PATTERN", "TOKENIZER_FILES", "TOKENIZER_HELP", "TOKENIZER_KINDS", "TOKENIZER_SUFFIXES", "ByteTokenizer", "HFTokenizer", "IdTokenizer", "Tokenizer",
           "VocabTokenizer", "tokenizer_from_file", "tokenizer_from_files"]
