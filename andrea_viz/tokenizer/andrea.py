"""ANDREA's id layout: 256 byte ids, then the Harris segments, then one BOS id.

With no segment list (an untrained table), text is encoded byte by byte and the segment ids show
as ``seg#id``. With one, words are matched greedily, longest segment first, with the UTF-8 bytes
of a character as the fallback, so any text round-trips through ``encode`` and ``decode``.
"""

from __future__ import annotations

from ..errors import CheckpointError
from ..family import BYTE_TOKENS, FIRST_SEGMENT_ID, bos_id, segment_count, vocab_size
from ..i18n import Msg

PRINTABLE = range(0x21, 0x7F)  # bytes shown as their character; the others as <0xNN>


def byte_label(b: int) -> str:
    return chr(b) if b in PRINTABLE else f"<0x{b:02X}>"


class ByteTokenizer:
    def __init__(self, vocab: int, segments: list[str] | None = None):
        if vocab < vocab_size(0):
            raise CheckpointError("an ANDREA vocabulary has at least {n} ids ({bytes} bytes + BOS), got {got}",
                                  n=vocab_size(0), bytes=BYTE_TOKENS, got=vocab)
        self.vocab_size = vocab
        self.segments = list(segments) if segments is not None else None
        self.bos_id = bos_id(vocab)
        self.unknown_id = None
        if self.segments is None:
            self.description = Msg(
                "ANDREA byte ids 0-{last_byte} and BOS ({bos}); the {n:,} segment ids ({first}-{last}) are "
                "unnamed: the segment list of an untrained table is not known", last_byte=BYTE_TOKENS - 1,
                bos=self.bos_id, n=segment_count(vocab), first=FIRST_SEGMENT_ID, last=self.bos_id - 1)
            self._index: dict[str, int] = {}
            self._max_len = 0
        else:
            self.description = Msg("ANDREA Harris segments ({n:,}) + {bytes} bytes + BOS", n=len(self.segments),
                                   bytes=BYTE_TOKENS)
            self._index = {}
            for i, s in enumerate(self.segments):
                if s and s not in self._index:
                    self._index[s] = FIRST_SEGMENT_ID + i
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

    def decode(self, ids: list[int]) -> str:
        """The text of a list of ids (BOS is dropped): the inverse of ``encode``."""
        out = bytearray()
        for t in ids:
            t = int(t)
            if 0 <= t < BYTE_TOKENS:
                out.append(t)
            elif t != self.bos_id:
                out += self.token(t).encode("utf-8")
        return out.decode("utf-8", errors="replace")

    def token(self, token_id: int) -> str:
        token_id = int(token_id)
        if 0 <= token_id < BYTE_TOKENS:
            return byte_label(token_id)
        if token_id == self.bos_id:
            return "<BOS>"
        if self.segments is not None and 0 <= token_id - FIRST_SEGMENT_ID < len(self.segments):
            return self.segments[token_id - FIRST_SEGMENT_ID]
        return f"seg#{token_id}"

    def lookup(self, word: str) -> list[int]:
        return self.encode(word.strip())
