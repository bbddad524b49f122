"""A GGUF ``plamo2`` tokenizer: PLaMo 2's tokenizer as llama.cpp runs it (``llm_tokenizer_plamo2`` in
src/llama-vocab.cpp, a port of PLaMo's own Aho–Corasick tokenizer). Over the text's code points (a leading U+FEFF
dropped), from the end to the start, each position takes the cheapest way on: a token of the vocabulary that starts
there (its score × 10⁴ rounded to an integer is what it saves; byte tokens are not candidates, nor a score that is
not finite or is −2,000 or lower), else the one character as its UTF-8 byte tokens (``<0xNN>``) at a cost of 10⁷.
Candidates are tried from the longest down, the first of equal cost kept.

The candidates at a position are the tokens among the prefixes of the longest *suffix of a token* that the text
there starts with, found from the one found at the next position, as llama.cpp's table finds it. That matters only
where a token's rounded score is exactly −10⁷ (the converter's ``[PADn]`` rows, score −1,000): llama.cpp's table takes
such a row for its end marker, so it ends both that search and the candidates there; this follows it.
A vocabulary without all 256 byte tokens is one llama.cpp refuses to load: the caller shows exact tokens instead."""

from __future__ import annotations

import math

import numpy as np

from ..i18n import Msg
from .gguf_exact import GgufVocab

BYTE = 6  # llama_token_type
INVALID_SCORE, UNKNOWN_SCORE = -20_000_000, -10_000_000
FAR = 1 << 60


def rounded(score: float) -> int:
    """``int32(std::round(score * 1e4))``, or INVALID_SCORE for a score that is not finite."""
    x = float(np.float32(score)) * 1e4
    if not math.isfinite(x):
        return INVALID_SCORE
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def byte_tokens(tokens: list[str], types: list[int] | None) -> list[int] | None:
    """The id of each byte's ``<0xNN>`` token (llama.cpp's bytes_), or None when one is missing (or has id 0)."""
    ids = [0] * 256
    for i, t in enumerate(tokens):
        if types is not None and types[i] == BYTE and len(t) == 6 and t.startswith("<0x") and t.endswith(">"):
            try:
                ids[int(t[3:5], 16)] = i
            except ValueError:
                continue
    return None if 0 in ids else ids


class Plamo2Tokenizer(GgufVocab):
    """llama.cpp's PLaMo 2 tokenizer (``tokenizer.ggml.model = plamo2``)."""

    def __init__(self, tokens: list[str], scores: list[float], types: list[int], bytes_ids: list[int], source: str,
                 unknown_id: int | None = None):
        super().__init__(tokens, "plamo2", source, unknown_id)
        self.bytes_ids = bytes_ids
        ids: dict[str, int] = {}
        costs: dict[str, int] = {}
        for i, t in enumerate(tokens):
            ids[t] = i  # every token's text, the last id kept (llama.cpp's token_to_id)
            if types[i] != BYTE:
                costs[t] = rounded(scores[i])
        self._pieces = {t: (ids[t], s) for t, s in costs.items() if t}
        self._suffixes = {t[k:] for t in self._pieces for k in range(len(t))}  # every suffix of a token (not "")
        self.description = Msg("GGUF metadata of {name}: PLaMo 2 (tokenizer.ggml.model = plamo2), {n:,} tokens",
                               name=source, n=self.vocab_size)

    def _rows(self, state: str):
        """llama.cpp's table rows for a suffix: its prefixes that are suffixes of tokens, the longest first, each with
        its rounded score (INVALID_SCORE for one that is no token), then the end marker."""
        for length in range(len(state), 0, -1):
            piece = state[:length]
            if piece in self._suffixes:
                hit = self._pieces.get(piece)
                yield piece, hit[0] if hit else -1, hit[1] if hit else INVALID_SCORE
        yield "", -1, UNKNOWN_SCORE

    def encode(self, text: str) -> list[int]:
        if text.startswith("\ufeff"):
            text = text[1:]
        n = len(text)
        cost = [FAR] * (n + 1)
        cost[n] = 0
        step: list[tuple[int, int]] = [(1, -1)] * (n + 1)  # (code points taken, token id or -1 for bytes)
        state = ""
        for i in range(n - 1, -1, -1):
            c, found = text[i], ""
            for piece, _token, score in self._rows(state):  # the longest token suffix the text starts with here
                if c + piece in self._suffixes:
                    found = c + piece
                    break
                if score == UNKNOWN_SCORE:
                    break
            state = found
            for piece, token, score in self._rows(state):
                length = len(piece) or 1
                if score > INVALID_SCORE and cost[i + length] - score < cost[i]:
                    cost[i], step[i] = cost[i + length] - score, (length, token)
                if score == UNKNOWN_SCORE:
                    break
        out, at = [], 0
        while at < n:
            length, token = step[at]
            out += [token] if token >= 0 else [self.bytes_ids[b] for b in text[at].encode("utf-8", "surrogatepass")]
            at += length
        return out

    def lookup(self, word: str) -> list[int]:
        return self.encode(word.strip())
