"""The lexicon's words are the corpora's words, and each is one id of its language's shipped grown model."""

import json

import pytest

from andrea_viz import lexicon
from andrea_viz.builtin import BUILTINS, MICRO_DIR, load_builtin, micro_name
from andrea_viz.grow.corpus import CLASSES_IN, SLOT, TEMPLATES_IN, WORD_CLASSES

OTHER = [lang for lang in lexicon.LANGUAGES if lang != lexicon.ENGLISH]


def places(english: str) -> list[tuple[str, int]]:
    """Where an English word sits in the English corpus's classes: (class, index), every place."""
    return [(c, ws.index(english)) for c, ws in WORD_CLASSES.items() if english in ws]


def corpus_words(lang: str, english: str) -> set[str]:
    return {CLASSES_IN[lang][c][i] for c, i in places(english)}


@pytest.fixture(scope="module")
def models():
    return {lang: load_builtin(lexicon.model_of(lang)) for lang in lexicon.LANGUAGES}


def ids_of(emb, text: str) -> list[int]:
    return list(emb.tokenizer.encode(text))


@pytest.mark.parametrize("lang", lexicon.LANGUAGES)
def test_every_word_is_one_id_of_its_languages_model(models, lang):
    emb = models[lang]
    words = set(lexicon.WORDS[lang].values()) | {w for p in lexicon.lesson_pairs(lang) + lexicon.more_pairs(lang)
                                                 for w in p}
    split = {w: [emb.token(i) for i in ids_of(emb, w)] for w in sorted(words) if len(ids_of(emb, w)) != 1}
    assert split == {}
    if lang != lexicon.ENGLISH:  # the English sentence is the lesson's own (sat and mat are not corpus words)
        for w in lexicon.order_sentence(lang).split():
            assert len(ids_of(emb, w)) == 1, w
        # the sentence and its scramble: the same ids, words and single spaces only
        a, b = ids_of(emb, lexicon.order_sentence(lang)), ids_of(emb, lexicon.order_scrambled(lang))
        assert sorted(a) == sorted(b) and a != b


@pytest.mark.parametrize("lang", lexicon.LANGUAGES)
def test_the_lexicon_agrees_with_the_corpus_classes(lang):
    assert set(lexicon.WORDS[lang]) == set(lexicon.WORDS[lexicon.ENGLISH])
    for english, w in lexicon.WORDS[lang].items():
        assert w in corpus_words(lang, english), (english, w)
    assert len(lexicon.MORE_PAIRS[lang]) == len(lexicon.MORE_PAIRS[lexicon.ENGLISH])
    for (ea, eb), (a, b) in zip(lexicon.MORE_PAIRS[lexicon.ENGLISH], lexicon.MORE_PAIRS[lang], strict=True):
        assert a in corpus_words(lang, ea) and b in corpus_words(lang, eb), (ea, eb, a, b)
    # the places the issue fixes: cat and dog first in animals, tuesday second in weekdays, xylophone first
    classes = CLASSES_IN[lang]
    assert classes["animals"][:2] == [lexicon.word(lang, "cat"), lexicon.word(lang, "dog")]
    assert classes["weekdays"][1] == lexicon.word(lang, "tuesday")
    assert classes["instruments"][0] == lexicon.word(lang, "xylophone")


@pytest.mark.parametrize("lang", OTHER)
def test_the_sentence_is_one_of_the_corpus_sentences_with_the_cat_word(lang):
    cat = lexicon.word(lang, "cat")
    made = {SLOT.sub(cat, t) for t in TEMPLATES_IN[lang]["animals"]}
    assert lexicon.order_sentence(lang) in made


@pytest.mark.parametrize("lang", lexicon.LANGUAGES)
def test_each_language_names_the_model_grown_on_it(lang):
    name = lexicon.model_of(lang)
    assert name == micro_name(lang) and lexicon.language_of(name) == lang
    assert BUILTINS[name].language == (None if lang == lexicon.ENGLISH else lang)
    run = json.loads((MICRO_DIR.parent / name / "run.json").read_text())
    assert run.get("corpus_language", lexicon.ENGLISH) == lang


def test_an_unknown_language_or_model_falls_back_to_english():
    assert lexicon.word("fr", "cat") == "cat" and lexicon.model_of(None) == "andrea-micro"
    assert lexicon.language_of("minilm-l6") is None
    assert lexicon.order_scrambled("en") == "mat a on sat cat the"


def test_every_word_has_one_class_across_the_languages():
    """A word that two languages share (piano, water, man …) is in the same class in both, so a grown model's word
    classes read the same whatever language it was grown on; within one language the first class wins (orange)."""
    seen: dict[str, set[str]] = {}
    for lang in lexicon.LANGUAGES:
        for name, words in lexicon.classes_of(lang).items():
            for w in words:
                seen.setdefault(w, set()).add(name)
    assert {w for w, names in seen.items() if len(names) > 1} == {"orange", "water", "laranja", "água", "水"}
    of = lexicon.class_of_words()
    assert of["kat"] == of["gato"] == of["貓"] == of["cat"] == "animals"
    assert of["orange"] == "colours" and of["水"] == "drinks" and of["dinsdag"] == "weekdays"
    assert lexicon.classes_of("fr") is lexicon.WORD_CLASSES
