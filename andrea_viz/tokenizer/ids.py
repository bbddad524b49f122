"""No vocabulary is known: tokens show as ``#id`` and words cannot be looked up."""

from __future__ import annotations

from ..errors import QueryError
from ..i18n import Msg


class IdTokenizer:
    unknown_id = None

    def __init__(self, vocab_size: int, reason: Msg | None = None):
        """``reason``: why a tokenizer that was found or given could not be used."""
        self.vocab_size = vocab_size
        self.reason = reason
        self.description = (Msg("none: tokens show as #id; give ids such as #42 (a tokenizer file is needed for words)")
                            if reason is None else Msg("none usable ({reason}): tokens show as #id", reason=reason))

    def encode(self, text: str) -> list[int]:
        if self.reason is not None:
            raise QueryError("this model's tokenizer could not be used ({reason}), so text cannot be turned into ids; "
                             "give token ids such as #42", reason=self.reason)
        raise QueryError("this model has no tokenizer, so text cannot be turned into ids; give token ids such as #42 "
                         "instead, or load a tokenizer with the checkpoint")

    def token(self, token_id: int) -> str:
        return f"#{int(token_id)}"

    lookup = encode
