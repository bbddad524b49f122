"""No vocabulary is known: tokens show as ``#id`` and words cannot be looked up."""

from __future__ import annotations

from ..errors import QueryError
from ..i18n import Msg


class IdTokenizer:
    unknown_id = None

    def __init__(self, vocab_size: int):
        self.vocab_size = vocab_size
        self.description = Msg("none: tokens show as #id; give ids such as #42 (a tokenizer file is needed for words)")

    def encode(self, text: str) -> list[int]:
        raise QueryError("this model has no tokenizer, so text cannot be turned into ids; give token ids such as #42 "
                         "instead, or load a tokenizer with the checkpoint")

    def token(self, token_id: int) -> str:
        return f"#{int(token_id)}"

    lookup = encode
