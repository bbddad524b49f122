"""A GGUF ``rwkv`` tokenizer: RWKV's World tokenizer as llama.cpp runs it (``llm_tokenizer_rwkv_session`` in
src/llama-vocab.cpp). The converter (``_set_vocab_rwkv_world`` in convert_hf_to_gguf.py) stores each token's bytes as
Python writes them inside ``b'…'`` (``\\xe4\\xb8\\xad`` for 中, ``\\n``, ``\\\\``, ``\\'``); llama.cpp undoes that escape
(``llama_unescape_rwkv_token``) and cuts the text's UTF-8 bytes greedily, left to right, into the longest token that
matches, as RWKV's own TRIE_TOKENIZER does; a byte that starts no token is the unknown token."""

from __future__ import annotations

from ..errors import QueryError
from ..i18n import Msg
from .gguf_exact import GgufVocab

ESCAPES = {"t": 9, "n": 10, "r": 13}


def unescape(text: str) -> bytes:
    """llama.cpp's ``llama_unescape_rwkv_token``: ``\\t`` ``\\n`` ``\\r``, ``\\xNN`` (lower-case hex), ``\\`` + any
    other character that character; everything else its own bytes."""
    out = bytearray()
    escaping, hex_left, acc = False, 0, 0
    for c in text.encode("utf-8"):
        if hex_left:
            acc = ((acc << 4) + (c - 87 if c >= 97 else c - 48)) & 0xFF
            hex_left -= 1
            if not hex_left:
                out.append(acc)
                acc = 0
        elif escaping:
            if c == 0x78:  # x
                hex_left = 2
            else:
                out.append(ESCAPES.get(chr(c), c))
            escaping = False
        elif c == 0x5C:  # a backslash
            escaping = True
        else:
            out.append(c)
    return bytes(out)


class RwkvTokenizer(GgufVocab):
    """llama.cpp's RWKV tokenizer (``tokenizer.ggml.model = rwkv``): the longest matching token, left to right."""

    def __init__(self, tokens: list[str], source: str, unknown_id: int | None = None):
        super().__init__(tokens, "rwkv", source, unknown_id)
        self.raw = [unescape(t) for t in tokens]
        self._by_bytes: dict[bytes, int] = {}
        for i, b in enumerate(self.raw):
            if b:
                self._by_bytes[b] = i  # the last id wins, as in llama.cpp's trie
        self._prefixes = {b[:n] for b in self._by_bytes for n in range(1, len(b) + 1)}
        self.description = Msg("GGUF metadata of {name}: RWKV World (tokenizer.ggml.model = rwkv), {n:,} tokens",
                               name=source, n=self.vocab_size)

    def token(self, token_id: int) -> str:
        i = int(token_id)
        if not 0 <= i < self.vocab_size:
            return f"#{i}"
        try:
            return self.raw[i].decode("utf-8")
        except UnicodeDecodeError:  # part of a character: its bytes as stored
            return self.tokens[i]

    def encode(self, text: str) -> list[int]:
        data, ids, at = text.encode("utf-8"), [], 0
        while at < len(data):
            best = longest = None
            end = at + 1
            while end <= len(data) and data[at:end] in self._prefixes:
                hit = self._by_bytes.get(data[at:end])
                if hit is not None:
                    best, longest = hit, end
                end += 1
            if best is None:  # no token starts with this byte: llama.cpp's unknown token, for one byte
                if self.unknown_id is None:
                    raise QueryError("“{text}” holds a character that this vocabulary has neither as a token nor as "
                                     "byte tokens", text=text[:60])
                ids.append(self.unknown_id)
                at += 1
                continue
            ids.append(best)
            at = longest
        return ids

    def lookup(self, word: str) -> list[int]:
        """The word's tokens; its " word" form (as inside a sentence) when that is one token and the word is not."""
        ids = self.encode(word.strip())
        if len(ids) > 1:
            spaced = self.encode(" " + word.strip())
            if len(spaced) == 1:
                return spaced
        return ids
