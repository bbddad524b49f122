"""Which words to show for a model: the lesson's when the model knows them as single tokens, else the
model's own most frequent ones (an ANDREA tokenizer lists its segments most frequent first)."""

from __future__ import annotations

from .errors import QueryError
from .geometry import resolve_ids
from .model import Embeddings

TRACKED_PAIRS = [("cat", "dog"), ("cat", "tuesday")]  # the pairs a timeline follows
MIN_LETTERS = 3


def single_token(emb: Embeddings, word: str) -> bool:
    try:
        return len(resolve_ids(emb, word)[1]) == 1
    except QueryError:
        return False


def frequent_words(emb: Embeddings, n: int = 40) -> list[str]:
    """Up to n whole-word segments of an ANDREA tokenizer, most frequent first (empty for other tokenizers)."""
    segments = getattr(emb.tokenizer, "segments", None) or []
    return [s for s in segments if len(s) >= MIN_LETTERS and s.isalpha()][:n]


def default_pairs(emb: Embeddings) -> list[tuple[str, str]]:
    """cat/dog and cat/tuesday when the model has them, else pairs of its most frequent words."""
    pairs = [p for p in TRACKED_PAIRS if single_token(emb, p[0]) and single_token(emb, p[1])]
    if pairs:
        return pairs
    top = frequent_words(emb, 3)
    return [(top[0], top[1]), (top[0], top[2])] if len(top) >= 3 else []


def tracked_word(emb: Embeddings, preferred: str = "cat") -> str | None:
    """``preferred`` when it is one token of the model, else its most frequent word (None for neither)."""
    if single_token(emb, preferred):
        return preferred
    top = frequent_words(emb, 1)
    return top[0] if top else None


def class_words(emb: Embeddings, classes: dict[str, list[str]], fallback: int = 40) -> tuple[list[str], list[str]]:
    """(words, their class) for the words of ``classes`` that are single tokens; else the model's most
    frequent words as one group."""
    words, groups = [], []
    for c, members in classes.items():
        for w in members:
            if w not in words and single_token(emb, w):
                words.append(w)
                groups.append(c)
    if len(words) >= 2:
        return words, groups
    top = frequent_words(emb, fallback)
    return top, ["frequent words"] * len(top)
