"""Which words to show for a model: the lesson's when the model knows them as single tokens, else the
model's own most frequent ones (an ANDREA tokenizer lists its segments most frequent first)."""

from __future__ import annotations

import json
from pathlib import Path

from . import lexicon
from .errors import QueryError
from .geometry import resolve_ids
from .grow.corpus import CLASSES_IN, CORPUS_LANGUAGES, word_in
from .model import Embeddings

TRACKED_PAIRS = [("cat", "dog"), ("cat", "tuesday")]  # the pairs a timeline follows, in the corpus's language
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


def corpus_language(emb: Embeddings) -> str | None:
    """The language of the generated corpus whose cat word this model has as one token (kat: nl, 貓: zh-TW), or None."""
    for lang in CORPUS_LANGUAGES:
        if single_token(emb, word_in(lang, "cat")):
            return lang
    return None


def model_language(emb: Embeddings) -> str | None:
    """The language a model's words are in: a built-in grown model's own (andrea-micro-nl: nl), else what its run
    says (config.json or run.json beside its file: ``corpus_language``), else the corpus language whose cat word it
    has as one token (MiniLM: en). None when none applies (the untrained tables): their words are English."""
    lang = lexicon.language_of(emb.key)
    if lang is not None:
        return lang
    if emb.provenance.file:
        for name in ("config.json", "run.json"):
            meta = Path(emb.provenance.file).parent / name
            try:
                said = json.loads(meta.read_text()).get("corpus_language") if meta.is_file() else None
            except (OSError, ValueError, AttributeError):
                said = None
            if said in lexicon.WORDS:
                return said
    return corpus_language(emb)


def lesson_word(emb: Embeddings, english: str) -> str:
    """One of the lesson's words (cat, dog, king …) in the model's own language (English when it has none)."""
    return lexicon.word(model_language(emb), english)


def corpus_classes(emb: Embeddings) -> dict[str, list[str]]:
    """The generated corpus's word classes in this model's language (English when it has none of them)."""
    return CLASSES_IN[corpus_language(emb) or CORPUS_LANGUAGES[0]]


def default_pairs(emb: Embeddings) -> list[tuple[str, str]]:
    """cat/dog and cat/tuesday, in the corpus language the model speaks (kat/hond …), else pairs of its most
    frequent words."""
    lang = corpus_language(emb) or CORPUS_LANGUAGES[0]
    pairs = [(word_in(lang, a), word_in(lang, b)) for a, b in TRACKED_PAIRS]
    pairs = [p for p in pairs if single_token(emb, p[0]) and single_token(emb, p[1])]
    if pairs:
        return pairs
    top = frequent_words(emb, 3)
    return [(top[0], top[1]), (top[0], top[2])] if len(top) >= 3 else []


def tracked_word(emb: Embeddings, preferred: str = "cat") -> str | None:
    """``preferred`` (a word of the English corpus) as the model's corpus language writes it when it is one token
    of the model, else its most frequent word (None for neither)."""
    lang = corpus_language(emb)
    if lang is not None and preferred in {w for ws in CLASSES_IN["en"].values() for w in ws}:
        preferred = word_in(lang, preferred)
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
