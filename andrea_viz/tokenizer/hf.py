"""A Hugging Face ``tokenizer.json`` read with the ``tokenizers`` package.

Padding and truncation are turned off so that ids are exactly the pieces of the text. The file is
checked when it is loaded (a probe text with an unknown word is encoded), and any error the
``tokenizers`` package raises later becomes the library's own one-sentence error.
"""

from __future__ import annotations

import json

from pathlib import Path

from ..errors import CheckpointError, QueryError
from ..i18n import Msg

PROBE = "the zqxjvw Ꙃ test"  # holds a word no vocabulary has, so an unknown-token fallback is exercised


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]


def bpe_from_files(vocab: Path, merges: Path):
    """GPT-2's byte-level BPE from its vocab.json and merges.txt (what nanoGPT's GPT-2 runs use through tiktoken)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    try:
        tok = Tokenizer(models.BPE.from_file(str(vocab), str(merges)))
    except Exception as exc:
        raise CheckpointError("{vocab} and {merges} could not be read as a byte-level BPE: {detail}", vocab=vocab.name,
                              merges=merges.name, detail=_first_line(exc)) from exc
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    return tok


class HFTokenizer:
    def __init__(self, path: str | Path, tokenizer=None, name: str | None = None):
        """From a tokenizer.json, or from a ``tokenizers.Tokenizer`` already made (``name`` says from what)."""
        from tokenizers import Tokenizer as _Tok

        self.path = Path(path)
        name = name or self.path.name
        if tokenizer is not None:
            self._tok = tokenizer
        else:
            try:
                self._tok = _Tok.from_file(str(self.path))
            except Exception as exc:
                raise CheckpointError("{name} looks like a Hugging Face tokenizer.json but could not be read: {detail}",
                                      name=name, detail=_first_line(exc)) from exc
        self._tok.no_padding()
        self._tok.no_truncation()
        ids = self._tok.get_vocab(with_added_tokens=True).values()
        self.vocab_size = max(self._tok.get_vocab_size(with_added_tokens=True), max(ids, default=-1) + 1)  # ids, not a count
        self._special = {i for i, t in self._tok.get_added_tokens_decoder().items() if t.special}
        model = type(self._tok.model).__name__
        unk = getattr(self._tok.model, "unk_token", None)
        self.unknown_id = self._tok.token_to_id(unk) if unk else None
        try:
            self._tok.encode(PROBE, add_special_tokens=False)
        except Exception as exc:
            raise CheckpointError(
                "{name} cannot encode a text with an unknown word ({detail}); its unknown token '{unk}' is probably "
                "missing from its vocabulary", name=name, detail=_first_line(exc), unk=unk or "") from exc
        self.byte_level = is_byte_level(self._tok.pre_tokenizer)
        self.description = (Msg("Hugging Face tokenizer.json ({model}, {n:,} tokens)", model=model, n=self.vocab_size)
                            if tokenizer is None else
                            Msg("byte-level BPE from {name} ({n:,} tokens)", name=name, n=self.vocab_size))

    def encode(self, text: str) -> list[int]:
        try:
            return list(self._tok.encode(text, add_special_tokens=False).ids)
        except Exception as exc:
            raise QueryError("the tokenizer could not encode “{text}”: {detail}", text=text[:60],
                             detail=_first_line(exc)) from exc

    def token(self, token_id: int) -> str:
        tok = self._tok.id_to_token(int(token_id))
        if tok is None:
            return f"#{token_id}"
        if int(token_id) in self._special:  # <|endoftext|>, Llama-3's reserved tokens: by their names (decode drops them)
            return tok
        if self.byte_level:  # GPT-2's "Ġcat" is " cat"; a piece of a character keeps its raw form
            text = self._tok.decode([int(token_id)])
            return tok if "\ufffd" in text else text
        return tok

    def lookup(self, word: str) -> list[int]:
        """The word's pieces; for a byte-level BPE (GPT-2) its " word" form when that is one token."""
        ids = self.encode(word.strip())
        if self.byte_level and len(ids) > 1:
            spaced = self.encode(" " + word.strip())
            if len(spaced) == 1:
                return spaced
        return ids


def is_byte_level(pre_tokenizer) -> bool:
    """Whether a ``tokenizers`` pre-tokenizer maps bytes to GPT-2's characters (``Ġ`` for a space): ByteLevel
    itself, or a Sequence holding it after its own splits (Llama-3's and Qwen2's tokenizer.json)."""
    if pre_tokenizer is None:
        return False

    def has(node) -> bool:
        if isinstance(node, dict):
            return node.get("type") == "ByteLevel" or any(has(v) for v in node.values())
        return isinstance(node, list) and any(has(v) for v in node)

    try:
        return has(json.loads(pre_tokenizer.__getstate__()))
    except (AttributeError, TypeError, ValueError):
        return type(pre_tokenizer).__name__ == "ByteLevel"
