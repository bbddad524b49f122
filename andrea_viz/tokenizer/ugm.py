"""A GGUF ``t5`` tokenizer: SentencePiece's Unigram model (UGM) as llama.cpp runs it (``llm_tokenizer_ugm_session`` in
src/llama-vocab.cpp), step for step on the UTF-8 bytes:

0. the user-defined tokens are split out of the text first, the longest first (``tokenizer_st_partition``, as
   Hugging Face tokenizers split added tokens), and each piece of text between them is tokenized on its own;
1. normalization: at each point of the text, the longest prefix that is a path of the user-defined tokens' trie is
   kept as it is; else the longest match in the ``precompiled_charsmap`` (SentencePiece's XOR-compressed double array
   of the NFKC rules, with its NUL-terminated replacements) is replaced; else one character is kept (a byte that
   starts no valid UTF-8 character becomes U+FFFD). Spaces become ``▁``; ``add_space_prefix`` puts one in front of the
   first word; ``remove_extra_whitespaces`` drops runs of spaces and puts one ``▁`` in front of every word;
2. Viterbi over the bytes: at each character start every token of the vocabulary (normal, user-defined and unused
   tokens; the last id wins for a text stored twice) that starts there competes for the position after it, with the
   summed score (a user-defined token scores 0); a character no single token covers is the unknown token, scored the
   lowest normal score minus 10; the best path is read back from the end, consecutive unknown tokens as one.

Where llama.cpp differs from SentencePiece itself, this follows llama.cpp: the user-defined prefix is the longest
*path* of their trie (SentencePiece takes the longest whole token); a user-defined token in the text is its own token
with the text on either side tokenized apart (so a ``▁`` may go in front of the text after it); with
``remove_extra_whitespaces`` a ``▁`` goes in front of the first word even when ``add_space_prefix`` is off (T5 models
have both on, and agree); and without ``remove_extra_whitespaces`` the ``add_space_prefix`` ``▁`` goes in front of the
first word, so a text of spaces only gets one ``▁`` fewer than SentencePiece gives it (llama-tokenize agrees)."""

from __future__ import annotations

import numpy as np

from ..errors import CheckpointError, QueryError
from ..i18n import N_, Msg
from .gguf_exact import SPACE, GgufVocab

NORMAL, USER_DEFINED, UNUSED = 1, 4, 5  # llama_token_type values
SPACE_BYTES = SPACE.encode("utf-8")
UNKNOWN_PENALTY = np.float32(10.0)
DAMAGED = N_("{name}: the GGUF tokenizer's precompiled_charsmap is damaged (it points outside itself)")
UTF8_LENGTH = (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4)  # llama.cpp's unicode_len_utf8, by the high nibble


def utf8_char_length(data: bytes, at: int) -> int:
    """The length of the valid UTF-8 character starting at ``at`` (llama.cpp's unicode_cpt_from_utf8), else 0."""
    lead = data[at]
    if lead < 0x80:
        return 1
    n = 2 if lead & 0xE0 == 0xC0 else 3 if lead & 0xF0 == 0xE0 else 4 if lead & 0xF8 == 0xF0 else 0
    if n == 0 or at + n > len(data) or any(b & 0xC0 != 0x80 for b in data[at + 1 : at + n]):
        return 0
    return n


class Charsmap:
    """SentencePiece's precompiled_charsmap: a uint32 blob size, the XCDA entries, then the replacement strings."""

    def __init__(self, blob: bytes):
        self.xcda = np.zeros(0, np.uint32)
        self.replacements = b""
        if len(blob) >= 4:
            size = int.from_bytes(blob[:4], "little")
            if size + 4 >= len(blob):
                raise ValueError("the XCDA blob is larger than the charsmap")
            self.xcda = np.frombuffer(blob, "<u4", size // 4, 4).astype(np.uint32)
            self.replacements = blob[4 + size:]

    def _node(self, i: int) -> int:
        if i >= self.xcda.size:
            raise ValueError(f"entry {i} of {self.xcda.size}")
        return int(self.xcda[i])

    def _base(self, i: int) -> int:
        p = self._node(i)
        return (p >> 10) << ((p & (1 << 9)) >> 6)

    def longest(self, data: bytes, at: int) -> tuple[bytes, int] | None:
        """(replacement, bytes matched) for the longest prefix of ``data[at:]`` the map replaces, else None."""
        if not self.xcda.size:
            return None
        length, offset = 0, 0
        node = self._base(0)
        for p in range(at, len(data)):
            c = data[p]
            if c == 0:
                break
            node ^= c
            if self._node(node) & ((1 << 31) | 0xFF) != c:
                break
            leaf = (self._node(node) >> 8) & 1
            node ^= self._base(node)
            if leaf:
                length, offset = p - at + 1, self._node(node) & ((1 << 31) - 1)
        if not length:
            return None
        end = self.replacements.find(b"\0", offset)
        if offset >= len(self.replacements) or end < 0:
            raise ValueError(f"replacement at {offset}")
        return self.replacements[offset:end], length


class UgmTokenizer(GgufVocab):
    """llama.cpp's UGM tokenizer (``tokenizer.ggml.model = t5``)."""

    def __init__(self, tokens: list[str], scores: list[float], types: list[int] | None, source: str, charsmap: bytes,
                 add_space_prefix: bool, remove_extra_whitespaces: bool, unknown_id: int | None = None):
        super().__init__(tokens, "t5", source, unknown_id)
        self.source = source
        types = types or [NORMAL] * len(tokens)
        self.add_space_prefix, self.remove_extra_whitespaces = add_space_prefix, remove_extra_whitespaces
        try:
            self.charsmap = Charsmap(charsmap)
        except ValueError as exc:
            raise CheckpointError(DAMAGED, name=source) from exc
        self._pieces: dict[bytes, tuple[int, float]] = {}  # text -> (id, score); the last id wins, as in llama.cpp's trie
        self._user_paths: set[bytes] = set()  # every prefix of a user-defined token's text
        normal = [np.float32(s) for s, k in zip(scores, types, strict=True) if k == NORMAL]
        lowest = min(normal) if normal else np.float32(np.finfo(np.float32).max)
        self.unknown_score = float(np.float32(lowest - UNKNOWN_PENALTY))
        for i, (t, k) in enumerate(zip(tokens, types, strict=True)):
            b = t.encode("utf-8")
            if k in (NORMAL, USER_DEFINED, UNUSED) and b:
                self._pieces[b] = (i, 0.0 if k == USER_DEFINED else float(np.float32(scores[i])))
            if k == USER_DEFINED:
                self._user_paths.update(b[:n] for n in range(1, len(b) + 1))
        self.longest_piece = max(map(len, self._pieces), default=0)
        user = [(t, i) for i, (t, k) in enumerate(zip(tokens, types, strict=True)) if k == USER_DEFINED and t]
        self._user = sorted(user, key=lambda ti: -len(ti[0].encode("utf-8")))  # longest first, as llama.cpp's cache
        self.description = Msg("GGUF metadata of {name}: SentencePiece Unigram (tokenizer.ggml.model = t5), {n:,} tokens",
                               name=source, n=self.vocab_size)

    def _normalize_prefix(self, data: bytes, at: int) -> tuple[bytes, int]:
        user = 0
        while at + user < len(data) and data[at : at + user + 1] in self._user_paths:
            user += 1
        if user:
            return data[at : at + user], user
        try:
            found = self.charsmap.longest(data, at)
        except ValueError as exc:  # llama.cpp throws there too
            raise QueryError(DAMAGED, name=self.source) from exc
        if found is not None:
            return found
        n = utf8_char_length(data, at)
        return (data[at : at + n], n) if n else ("\ufffd".encode(), 1)

    def normalize(self, text: str) -> bytes:
        """The text as the Viterbi pass sees it (llama.cpp's ``normalize``)."""
        data, out = text.encode("utf-8"), bytearray()
        prepended = in_word = False
        at = 0
        while at < len(data):
            piece, used = self._normalize_prefix(data, at)
            for c in piece:
                if c != 0x20:
                    if not in_word:
                        in_word = True
                        if (self.add_space_prefix and not prepended) or self.remove_extra_whitespaces:
                            out += SPACE_BYTES
                            prepended = True
                    out.append(c)
                else:
                    in_word = False
                    if not self.remove_extra_whitespaces:
                        out += SPACE_BYTES
            at += used
        return bytes(out)

    def fragments(self, text: str) -> list[str | int]:
        """The text cut at every user-defined token (each token's occurrences, the longest token first): pieces of
        text and token ids, in order (llama.cpp's ``tokenizer_st_partition`` without parse_special)."""
        parts: list[str | int] = [text]
        for token, i in self._user:
            cut: list[str | int] = []
            for part in parts:
                while isinstance(part, str) and (at := part.find(token)) >= 0:
                    cut += [part[:at], i] if at else [i]
                    part = part[at + len(token):]
                if part != "":
                    cut.append(part)
            parts = cut
        return parts

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        for part in self.fragments(text):
            ids += [part] if isinstance(part, int) else self._viterbi(part)
        if None in ids:  # a character no token covers, and the file names no unknown token
            raise QueryError("“{text}” holds a character that this vocabulary has neither as a token nor as byte "
                             "tokens", text=text[:60])
        return ids

    def _viterbi(self, text: str) -> list[int]:
        data = self.normalize(text)
        n = len(data)
        if not n:
            return []
        best: list[tuple[int, int, float]] = [(self.unknown_id, 0, -np.inf)] * (n + 1)  # (token, start, score sum)
        best[0] = (self.unknown_id, 0, 0.0)
        at = 0
        while at < n:
            char = min(UTF8_LENGTH[data[at] >> 4], n - at)
            here = best[at][2]
            whole_char = False
            for end in range(at + 1, min(n, at + self.longest_piece) + 1):
                hit = self._pieces.get(data[at:end])
                if hit is None:
                    continue
                whole_char |= end - at == char
                if here + hit[1] > best[end][2]:
                    best[end] = (hit[0], at, here + hit[1])
            if not whole_char and here + self.unknown_score > best[at + char][2]:
                best[at + char] = (self.unknown_id, at, here + self.unknown_score)
            at += char
        ids, end, previous_unknown = [], n, False
        while True:
            token, start, _score = best[end]
            unknown = token == self.unknown_id
            if not (previous_unknown and unknown):
                ids.append(token)
            if start == 0:
                break
            previous_unknown, end = unknown, start
        return ids[::-1]

    def lookup(self, word: str) -> list[int]:
        return self.encode(word.strip())
