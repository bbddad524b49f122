"""A ``vocab.txt`` (one token per line, id = line number): WordPiece's greedy longest match,
continuation pieces written ``##piece``; words are tried as typed, then lower-cased."""

from __future__ import annotations

import re
from pathlib import Path

from ..i18n import Msg


class VocabTokenizer:
    def __init__(self, path: str | Path, text: str | None = None):
        self.path = Path(path)
        self.tokens = (text if text is not None else self.path.read_text(encoding="utf-8")).splitlines()
        self.vocab_size = len(self.tokens)
        self._ids = {t: i for i, t in enumerate(self.tokens)}
        self.unknown_id = self._ids.get("[UNK]")
        self.description = Msg("vocab.txt ({n:,} tokens, greedy WordPiece)", n=self.vocab_size)

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
