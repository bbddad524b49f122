"""A Hugging Face ``tokenizer.json`` read with the ``tokenizers`` package.

Padding and truncation are turned off so that ids are exactly the pieces of the text. The file is
checked when it is loaded (a probe text with an unknown word is encoded), and any error the
``tokenizers`` package raises later becomes the library's own one-sentence error.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import CheckpointError, QueryError
from ..i18n import Msg

PROBE = "the zqxjvw Ꙃ test"  # holds a word no vocabulary has, so an unknown-token fallback is exercised


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]


class HFTokenizer:
    def __init__(self, path: str | Path):
        from tokenizers import Tokenizer as _Tok

        self.path = Path(path)
        try:
            self._tok = _Tok.from_file(str(self.path))
        except Exception as exc:
            raise CheckpointError("{name} looks like a Hugging Face tokenizer.json but could not be read: {detail}",
                                  name=self.path.name, detail=_first_line(exc)) from exc
        self._tok.no_padding()
        self._tok.no_truncation()
        self.vocab_size = self._tok.get_vocab_size()
        model = type(self._tok.model).__name__
        unk = getattr(self._tok.model, "unk_token", None)
        self.unknown_id = self._tok.token_to_id(unk) if unk else None
        try:
            self._tok.encode(PROBE, add_special_tokens=False)
        except Exception as exc:
            raise CheckpointError(
                "{name} cannot encode a text with an unknown word ({detail}); its unknown token {unk!r} is probably "
                "missing from its vocabulary", name=self.path.name, detail=_first_line(exc), unk=unk or "") from exc
        self.description = Msg("Hugging Face tokenizer.json ({model}, {n:,} tokens)", model=model, n=self.vocab_size)

    def encode(self, text: str) -> list[int]:
        try:
            return list(self._tok.encode(text, add_special_tokens=False).ids)
        except Exception as exc:
            raise QueryError("the tokenizer could not encode “{text}”: {detail}", text=text[:60],
                             detail=_first_line(exc)) from exc

    def token(self, token_id: int) -> str:
        tok = self._tok.id_to_token(int(token_id))
        return tok if tok is not None else f"#{token_id}"

    def lookup(self, word: str) -> list[int]:
        return self.encode(word.strip())
