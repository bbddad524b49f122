"""A map's sample: which rows of the token table are drawn (the words asked for, their neighbours, the word
groups, a seeded fill, or every row), and the group each one is drawn in."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import lexicon
from ..errors import QueryError
from ..geometry import neighbours, resolve_ids
from ..i18n import N_, Msg, tr
from ..model import Embeddings
from ..model_words import model_language

WORD_GROUPS: dict[str, list[str]] = {
    "animals": ["cat", "dog", "horse", "cow", "pig", "sheep", "lion", "tiger", "bear", "wolf", "fox", "rabbit",
                "mouse", "elephant", "monkey", "bird", "fish", "snake", "kitten", "puppy"],
    "weekdays": ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"],
    "months": ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
               "november", "december"],
    "numbers": ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "hundred", "thousand"],
    "colours": ["red", "blue", "green", "yellow", "black", "white", "orange", "purple", "pink", "brown", "grey"],
    "countries": ["france", "germany", "italy", "spain", "china", "japan", "india", "canada", "brazil", "mexico",
                  "russia", "england"],
    "family": ["mother", "father", "sister", "brother", "son", "daughter", "uncle", "aunt", "wife", "husband"],
}
# In the lesson's other languages the groups are the lexicon's classes of those names (their corpora have no countries
# or family; their people stand in), so the grown nl, pt-BR and zh-TW models' maps show their own words in colour.
LESSON_GROUPS = ("animals", "weekdays", "months", "numbers", "colours", "people")
# a sample's groups are these keys (and "neighbour of <word>"); the legend names them in the reader's language
GROUP_NAMES = {"animals": N_("animals"), "weekdays": N_("weekdays"), "months": N_("months"), "numbers": N_("numbers"),
               "colours": N_("colours"), "countries": N_("countries"), "family": N_("family"), "people": N_("people"),
               "query": N_("query"), "included": N_("included"), "other": N_("other")}
NEIGHBOUR_OF = "neighbour of "
# the named groups' places in a map's palette, after the first "neighbour of …" group's: the same on every map, so
# that a group absent from one map does not hand its colour to the next (weekdays never take the animals' colour)
COLOUR_ORDER = ("animals", "weekdays", "months", "numbers", "colours", "countries", "family", "people", "included",
                # the rest of the lexicon's classes, which Grow's class map draws: the same colour there as here
                "instruments", "foods", "drinks", "cities", "objects", "vehicles", "feelings", "sizes", "temperatures",
                "verbs", "nature", "subjects")
ALL = "all"  # n = "all": every row of the table
DEFAULT_SAMPLE = 5_000  # tokens in a map unless asked otherwise


@dataclass(frozen=True)
class Sample:
    """Which rows are projected, and the group each one is drawn in."""

    ids: np.ndarray  # (N,) int64, unique
    groups: tuple[str, ...]  # (N,) "query", "neighbour of …", a word group, or "other"

    def __len__(self) -> int:
        return int(self.ids.size)


def word_groups(language: str) -> dict[str, list[str]]:
    """The groups a map colours, in one of the lesson's languages: English's broad lists, else LESSON_GROUPS."""
    if language == lexicon.ENGLISH:
        return WORD_GROUPS
    return {name: lexicon.classes_of(language)[name] for name in LESSON_GROUPS}


def colour_slots(groups) -> tuple[int, ...]:
    """Each of a map's word groups' place in its palette (``plots.style.entry_colours``): the first "neighbour of …"
    group 0, each named group its own place in COLOUR_ORDER after it, every further "neighbour of …" group and any
    other group the places after those, in order of appearance."""
    rest = [g for g in groups if g not in COLOUR_ORDER]  # the "neighbour of …" groups, and any group not named
    slots = []
    for g in groups:
        if g in COLOUR_ORDER:
            slots.append(1 + COLOUR_ORDER.index(g))
        else:
            k = rest.index(g)
            slots.append(0 if k == 0 and g.startswith(NEIGHBOUR_OF) else len(COLOUR_ORDER) + k)
    return tuple(slots)


def group_ids(emb: Embeddings) -> dict[str, list[int]]:
    """The words of each group that are one token in this model (multi-piece words are left out), in the language
    of the model's words (``model_words.model_language``; English when it has none): a model grown on Dutch gets
    Dutch groups."""
    out: dict[str, list[int]] = {}
    for name, words in word_groups(model_language(emb) or lexicon.ENGLISH).items():
        ids = []
        for w in words:
            try:
                _, i = resolve_ids(emb, w)
            except QueryError:
                continue
            if len(i) == 1:
                ids.append(i[0])
        if ids:
            out[name] = ids
    return out


def group_label(group: str, escape=None) -> str:
    """A sample's group as the legend names it, in the current language; ``escape`` (e.g. ``safe_text.plot``) is
    applied to the label's text, and to the typed word of "neighbour of …" before it is placed in the sentence."""
    if group.startswith(NEIGHBOUR_OF):
        return tr(Msg("neighbour of {word}", word=group[len(NEIGHBOUR_OF):]), escape=escape)
    label = tr(GROUP_NAMES.get(group, group))
    return escape(label) if escape is not None else label


def sample_size(emb: Embeddings, n: int | str) -> int:
    """n rows, or every row for ``"all"``."""
    if n == ALL:
        return emb.vocab_size
    if not isinstance(n, int | np.integer) or isinstance(n, bool):
        raise QueryError("the sample size must be a whole number or all, got '{n}'", n=n)
    return int(n)


def build_sample(emb: Embeddings, n: int | str, include: tuple[str, ...] = (), seed: int = 0, k: int = 10) -> Sample:
    """N rows: the included words (the first is the query) and its k neighbours, the word groups,
    then a random fill. The words asked for are always kept, even when N is smaller."""
    n = sample_size(emb, n)
    if n < 1:
        raise QueryError("the sample size must be at least 1, got {n}", n=n)
    chosen: dict[int, str] = {}
    for j, word in enumerate(include):
        _, ids = resolve_ids(emb, word)
        for i in ids:
            chosen.setdefault(i, "query" if j == 0 else "included")
        if j == 0:
            for nb in neighbours(emb, word, k=k)[1]:
                chosen.setdefault(nb.id, NEIGHBOUR_OF + word)
    for name, ids in group_ids(emb).items():
        for i in ids:
            chosen.setdefault(i, name)
    n = max(n, len(chosen))
    if n > len(chosen):
        rng = np.random.default_rng(seed)
        rest = np.setdiff1d(np.arange(emb.vocab_size), np.fromiter(chosen, np.int64), assume_unique=False)
        for i in rng.choice(rest, size=min(n - len(chosen), rest.size), replace=False):
            chosen[int(i)] = "other"
    ids = np.fromiter(chosen, dtype=np.int64)
    return Sample(ids=ids, groups=tuple(chosen.values()))
