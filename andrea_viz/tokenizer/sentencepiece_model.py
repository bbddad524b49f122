"""SentencePiece's ``tokenizer.model`` (Llama 1-2, Mistral, Gemma, T5): a serialized ModelProto (protobuf), read
by the sentencepiece package from its bytes. A protobuf is data, not code: nothing in the file is executed."""

from __future__ import annotations

from pathlib import Path

from ..errors import CheckpointError
from ..i18n import Msg

PIECE_FIELDS = (0x15, 0x18)  # after a piece's text: its score (field 2, a float) or its type (field 3, a varint)


def _varint(raw: bytes, at: int) -> tuple[int, int]:
    """(value, the position after it) of a protobuf varint, or (-1, at) when none fits."""
    value = shift = 0
    for i in range(at, min(at + 10, len(raw))):
        value |= (raw[i] & 0x7F) << shift
        shift += 7
        if not raw[i] & 0x80:
            return value, i + 1
    return -1, at


def looks_like_sentencepiece(raw: bytes) -> bool:
    """A ModelProto's first bytes: field 1 (a piece, length-delimited), inside it field 1 (the piece's text), then
    the piece's score or type."""
    if raw[:1] != b"\x0a":
        return False
    outer, at = _varint(raw, 1)
    if outer <= 0 or raw[at:at + 1] != b"\x0a":
        return False
    inner, at = _varint(raw, at + 1)
    return 0 <= inner < outer and at + inner < len(raw) and raw[at + inner] in PIECE_FIELDS


class SentencePieceTokenizer:
    """ids and pieces as sentencepiece gives them: ``encode`` is sentencepiece's own encode (no BOS/EOS added),
    pieces keep their ▁ (a word's leading space); control and unknown pieces (<s>, </s>, <unk>) show by their names."""

    def __init__(self, path: str | Path, raw: bytes):
        import sentencepiece as spm

        self.path = Path(path)
        self._sp = spm.SentencePieceProcessor()
        try:
            self._sp.LoadFromSerializedProto(raw)
        except Exception as exc:  # sentencepiece raises RuntimeError or OSError with its parser's words
            detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
            raise CheckpointError("{name} looks like a SentencePiece model but could not be read: {detail}",
                                  name=self.path.name, detail=detail) from exc
        self.vocab_size = int(self._sp.get_piece_size())
        unk = int(self._sp.unk_id())
        self.unknown_id = unk if 0 <= unk < self.vocab_size else None
        self.description = Msg("SentencePiece {name} ({n:,} pieces)", name=self.path.name, n=self.vocab_size)

    def encode(self, text: str) -> list[int]:
        return [int(i) for i in self._sp.encode(text, out_type=int)]

    def token(self, token_id: int) -> str:
        i = int(token_id)
        return str(self._sp.id_to_piece(i)) if 0 <= i < self.vocab_size else f"#{token_id}"

    def lookup(self, word: str) -> list[int]:
        return self.encode(word.strip())
