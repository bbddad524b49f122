"""A seeded corpus whose words come in classes that share contexts, so a small model can learn them.

Every class has its own sentence templates; the members of a class fill the same slots, so they are
seen in the same contexts (cat and dog in "the {animal} sleeps by the door", monday and tuesday in
"see you on {weekday}"). Every word of the lesson and of the Predict-similarity pairs is here. The text
is plain lower-case ASCII, so byte ids 0-9, 11-31 and 127-255 never occur and their rows are never
seen by training. The same classes and templates in Dutch, Brazilian Portuguese and Traditional Chinese
are in ``grow.corpora`` (``generate(language="nl")``); those corpora are UTF-8, so some high bytes occur.
"""

from __future__ import annotations

import re

import numpy as np

from ..errors import QueryError, choices
from ..i18n import DEFAULT_LANGUAGE, N_
from .. import lexicon
from . import corpora

WORD_CLASSES = lexicon.WORD_CLASSES  # the English corpus's classes (the lexicon's, by this name too)

CLASS_LABELS = {  # msgids, drawn in the reader's language
    "animals": N_("animals"), "weekdays": N_("weekdays"), "months": N_("months"), "colours": N_("colours"),
    "numbers": N_("numbers"), "foods": N_("foods"), "drinks": N_("drinks"), "cities": N_("cities"),
    "people": N_("people"), "instruments": N_("instruments"), "objects": N_("objects"), "vehicles": N_("vehicles"),
    "feelings": N_("feelings"), "sizes": N_("sizes"), "temperatures": N_("temperatures"), "verbs": N_("verbs"),
    "nature": N_("nature"), "subjects": N_("subjects"), "frequent words": N_("frequent words"),
}

# Each template fills its slots from the classes named in braces; other words are the same in every
# sentence of that template. Members of one class share every template of that class. What follows an animal
# follows no other class's slot (no line end, no "and", no "every" right after it, 2026-12-02): the token table
# learns a word from what comes next, and the animals' old "... the {animals}" / "{animals} and ..." made cat
# lean towards every class whose slot ends a line or precedes "and".
TEMPLATES: dict[str, list[str]] = {
    "animals": ["the {animals} sleeps by the door", "my {animals} eats from a bowl", "a {animals} ran across the yard",
                "the little {animals} wants food", "we feed the {animals} twice a day",
                "the {animals} chased the {animals} around the garden"],
    "weekdays": ["see you on {weekdays}", "the shop is closed on {weekdays}", "on {weekdays} we stay at home",
                 "the meeting moved from {weekdays} to {weekdays}", "every {weekdays} morning she goes out"],
    "months": ["her birthday is in {months}", "in {months} the days get longer", "school starts again in {months}",
               "we went on holiday in {months}"],
    "colours": ["she painted the wall {colours}", "the flag is {colours} and {colours}", "he wore a {colours} coat",
                "the sky turned {colours}"],
    "numbers": ["i counted {numbers} birds", "there are {numbers} seats left", "we waited {numbers} hours",
                "{numbers} plus {numbers} is more than {numbers}"],
    "foods": ["we ate {foods} for lunch", "she bought {foods} at the market", "a plate of {foods} with {foods}",
              "he baked {foods} for breakfast"],
    "drinks": ["a glass of {drinks} please", "she drinks {drinks} every morning", "pour me some {drinks}",
               "the {drinks} is still fresh"],
    "cities": ["we flew to {cities} last year", "{cities} is a big city", "the road from {cities} to {cities}",
               "she lives in {cities} now"],
    "people": ["the {people} spoke to the {people}", "the {people} smiled at everyone", "ask the {people} for help",
               "the old {people} walked home"],
    "instruments": ["he plays the {instruments}", "the sound of the {instruments} filled the hall",
                    "she is learning the {instruments}", "a concert for {instruments} and {instruments}"],
    "objects": ["put the {objects} on the shelf", "the {objects} fell on the floor", "hand me the {objects}",
                "we need a new {objects}"],
    "vehicles": ["we travelled by {vehicles}", "the {vehicles} left the station", "they drove the {vehicles} home",
                 "the {vehicles} was faster than the {vehicles}"],
    "feelings": ["i feel {feelings} today", "the children were {feelings}", "she looked {feelings} after the game",
                 "he is {feelings} and {feelings}"],
    "sizes": ["the house is very {sizes}", "a {sizes} box stood in the hall", "the tower grew {sizes}"],
    "temperatures": ["the soup is too {temperatures}", "it was {temperatures} outside", "keep the room {temperatures}"],
    "verbs": ["i like to {verbs}", "the children {verbs} in the park", "we {verbs} together after school",
              "can you {verbs} with me"],
    "nature": ["the {nature} is near the village", "we watched the {nature} from the hill",
               "the painting shows the {nature}"],
    "subjects": ["she studies {subjects} at school", "a lecture about {subjects}", "he teaches {subjects}",
                 "the story of {subjects}"],
}
LESSON_WORDS = ("cat", "dog", "pet", "tuesday", "xylophone", "king", "queen", "monday")
DEFAULT_SENTENCES = 6_000
SLOT = re.compile(r"\{(\w+)\}")

# The corpus in every language of the app (codes as in ?lang=): English here, the others in grow.corpora,
# each with the English classes' words in the same order.
CLASSES_IN: dict[str, dict[str, list[str]]] = {lang: lexicon.classes_of(lang) for lang in lexicon.LANGUAGES}
TEMPLATES_IN: dict[str, dict[str, list[str]]] = {DEFAULT_LANGUAGE: TEMPLATES, **corpora.TEMPLATES}
CORPUS_LANGUAGES = tuple(CLASSES_IN)


def check_corpus_language(language: str) -> str:
    choices("language", language, CLASSES_IN)
    return language


def word_in(language: str, english: str) -> str:
    """An English class word (cat, tuesday) as the corpus of ``language`` writes it (kat, dinsdag; 貓, 星期二):
    the word at the same place in the same class."""
    for name, words in WORD_CLASSES.items():
        if english in words:
            return CLASSES_IN[check_corpus_language(language)][name][words.index(english)]
    raise QueryError("“{word}” is not a word of the generated corpus", word=english)


# A slot that draws from the first words of a class only: {pets} is cat, dog, pet, kitten, puppy (and their
# translations). The English templates never use it (their corpus stays as andrea-micro was grown on it).
SUBCLASSES = {"pets": ("animals", 5)}


def slot_words(classes: dict[str, list[str]], slot: str) -> list[str]:
    if slot in SUBCLASSES:
        name, n = SUBCLASSES[slot]
        return classes[name][:n]
    return classes[slot]


def sentence(template: str, rng: np.random.Generator, classes: dict[str, list[str]] = WORD_CLASSES) -> str:
    return SLOT.sub(lambda m: str(rng.choice(slot_words(classes, m.group(1)))), template)


def generate(seed: int = 0, n_sentences: int = DEFAULT_SENTENCES, language: str = DEFAULT_LANGUAGE) -> str:
    """n_sentences lines in ``language`` (en, nl, pt-BR, zh-TW), each from a template of a class drawn uniformly,
    words drawn uniformly. English draws exactly as it always did: the same seed gives the same corpus."""
    if n_sentences < 1:
        raise QueryError("the corpus needs at least one sentence, got {n}", n=n_sentences)
    classes, templates_of = CLASSES_IN[check_corpus_language(language)], TEMPLATES_IN[language]
    rng = np.random.default_rng(seed)
    names = list(templates_of)
    lines = []
    for _ in range(n_sentences):
        templates = templates_of[names[rng.integers(len(names))]]
        lines.append(sentence(templates[rng.integers(len(templates))], rng, classes))
    return "\n".join(lines) + "\n"
