"""A GGUF vocabulary without an encoder (``tokenizer.ggml.model`` that the app does not run, such as ``plamo2``): each
token shows as itself and a word is found as an exact token (or its ``▁`` / ``Ġ`` form); the base of the GGUF
tokenizers that do encode text."""

from __future__ import annotations

from ..errors import QueryError
from ..i18n import Msg

SPACE = "\u2581"  # ▁, SentencePiece's space


class GgufVocab:
    """A GGUF vocabulary without an encoder: exact look-ups only."""

    def __init__(self, tokens: list[str], model: str, source: str, unknown_id: int | None = None):
        self.tokens = tokens
        self.vocab_size = len(tokens)
        self.model = model
        self.unknown_id = unknown_id
        self._ids: dict[str, int] = {}
        for i, t in enumerate(tokens):
            self._ids.setdefault(t, i)
        self.description = Msg("GGUF metadata of {name}: tokenizer.ggml.model = {model}, {n:,} tokens (words are found "
                               "as exact tokens)", name=source, model=model, n=self.vocab_size)

    def token(self, token_id: int) -> str:
        i = int(token_id)
        return self.tokens[i].replace(SPACE, " ") if 0 <= i < self.vocab_size else f"#{i}"

    def encode(self, text: str) -> list[int]:
        if text in self._ids:
            return [self._ids[text]]
        raise QueryError("this GGUF tokenizer ({model}) is not one the app can run on text; “{text}” is not one of its "
                         "tokens", model=self.model, text=text[:60])

    def lookup(self, word: str) -> list[int]:
        w = word.strip()
        for form in (w, SPACE + w, "\u0120" + w):
            if form in self._ids:
                return [self._ids[form]]
        return self.encode(w)
