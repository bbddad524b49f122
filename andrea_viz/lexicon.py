"""The lesson's words in the app's four languages, and the built-in model that speaks each one.

A ground floor: nothing here imports the rest of the app. The words are the generated corpora's own (``grow.corpus``
for English, ``grow.corpora`` for the others), at the same place in the same class, so every one is a single id of
that language's grown model (andrea-micro, andrea-micro-nl, -pt-BR, -zh-TW); ``tests/unit/test_lexicon.py`` checks
both. The order-blindness sentence of a language other than English is one of its corpus's own sentences (the
English one is the lesson's, "the cat sat on a mat"), and its scrambled form is the same words in reverse.
"""

from __future__ import annotations

ENGLISH = "en"
LANGUAGES = (ENGLISH, "nl", "pt-BR", "zh-TW")

MODEL = {  # the built-in grown model of each language (names as in andrea_viz.builtin)
    "en": "andrea-micro",
    "nl": "andrea-micro-nl",
    "pt-BR": "andrea-micro-pt-BR",
    "zh-TW": "andrea-micro-zh-TW",
}

# the lesson's words, by their English name
WORDS: dict[str, dict[str, str]] = {
    "en": {"cat": "cat", "dog": "dog", "pet": "pet", "kitten": "kitten", "monday": "monday", "tuesday": "tuesday",
           "xylophone": "xylophone", "king": "king", "man": "man", "woman": "woman", "queen": "queen"},
    "nl": {"cat": "kat", "dog": "hond", "pet": "huisdier", "kitten": "katje", "monday": "maandag",
           "tuesday": "dinsdag", "xylophone": "xylofoon", "king": "koning", "man": "man", "woman": "vrouw",
           "queen": "koningin"},
    "pt-BR": {"cat": "gato", "dog": "cachorro", "pet": "bichinho", "kitten": "gatinho", "monday": "segunda-feira",
              "tuesday": "terça-feira", "xylophone": "xilofone", "king": "rei", "man": "homem", "woman": "mulher",
              "queen": "rainha"},
    "zh-TW": {"cat": "貓", "dog": "狗", "pet": "寵物", "kitten": "小貓", "monday": "星期一", "tuesday": "星期二",
              "xylophone": "木琴", "king": "國王", "man": "男人", "woman": "女人", "queen": "王后"},
}

SENTENCE = {  # the order-blindness sentence: one order (words separated by spaces)
    "en": "the cat sat on a mat",
    "nl": "mijn kat slaapt bij de deur",
    "pt-BR": "cada gato dorme perto da porta",
    "zh-TW": "貓 睡 在 門 邊",
}

# Predict similarity: the lesson's own pairs (by English name), then the pool later rounds draw from
LESSON_PAIRS = (("cat", "dog"), ("cat", "tuesday"), ("cat", "xylophone"), ("king", "queen"), ("monday", "tuesday"))
MORE_PAIRS: dict[str, tuple[tuple[str, str], ...]] = {
    "en": (
        ("red", "blue"), ("car", "banana"), ("happy", "glad"), ("paris", "london"), ("one", "two"), ("hot", "cold"),
        ("apple", "orange"), ("piano", "guitar"), ("doctor", "nurse"), ("coffee", "tea"), ("water", "fire"),
        ("man", "woman"), ("big", "large"), ("computer", "river"), ("bread", "butter"), ("january", "february"),
        ("dog", "puppy"), ("music", "mathematics"), ("ship", "boat"), ("tiger", "violin"), ("run", "walk"),
        ("spoon", "democracy"), ("mother", "father"), ("green", "tuesday"), ("horse", "pony"), ("table", "cloud"),
    ),
    "nl": (
        ("rood", "blauw"), ("auto", "banaan"), ("blij", "vrolijk"), ("parijs", "londen"), ("één", "twee"),
        ("heet", "koud"), ("appel", "sinaasappel"), ("piano", "gitaar"), ("dokter", "verpleegster"),
        ("koffie", "thee"), ("water", "vuur"), ("man", "vrouw"), ("groot", "ruim"), ("computer", "rivier"),
        ("brood", "boter"), ("januari", "februari"), ("hond", "puppy"), ("muziek", "wiskunde"), ("schip", "boot"),
        ("tijger", "viool"), ("rennen", "lopen"), ("lepel", "democratie"), ("moeder", "vader"), ("groen", "dinsdag"),
        ("paard", "pony"), ("tafel", "wolk"),
    ),
    "pt-BR": (
        ("vermelho", "azul"), ("carro", "banana"), ("feliz", "contente"), ("paris", "londres"), ("um", "dois"),
        ("quente", "frio"), ("maçã", "laranja"), ("piano", "violão"), ("médico", "enfermeira"), ("café", "chá"),
        ("água", "fogo"), ("homem", "mulher"), ("grande", "amplo"), ("computador", "rio"), ("pão", "manteiga"),
        ("janeiro", "fevereiro"), ("cachorro", "filhote"), ("música", "matemática"), ("navio", "barco"),
        ("tigre", "violino"), ("correr", "andar"), ("colher", "democracia"), ("mãe", "pai"),
        ("verde", "terça-feira"), ("cavalo", "pônei"), ("mesa", "nuvem"),
    ),
    "zh-TW": (
        ("紅色", "藍色"), ("汽車", "香蕉"), ("開心", "高興"), ("巴黎", "倫敦"), ("一", "二"), ("熱", "冷"),
        ("蘋果", "柳橙"), ("鋼琴", "吉他"), ("醫生", "護士"), ("咖啡", "茶"), ("水", "火"), ("男人", "女人"),
        ("大", "寬大"), ("電腦", "河"), ("麵包", "奶油"), ("一月", "二月"), ("狗", "小狗"), ("音樂", "數學"),
        ("輪船", "小船"), ("老虎", "小提琴"), ("跑步", "走路"), ("湯匙", "民主"), ("母親", "父親"), ("綠色", "星期二"),
        ("馬", "小馬"), ("桌子", "雲"),
    ),
}


def lexicon_language(language: str | None) -> str:
    """``language`` when the lexicon has it, else English (MiniLM, the untrained tables, an unknown model)."""
    return language if language in WORDS else ENGLISH


def word(language: str | None, english: str) -> str:
    """One of the lesson's words (by its English name: cat, tuesday, king …) in ``language``."""
    return WORDS[lexicon_language(language)][english]


def order_sentence(language: str | None) -> str:
    """The order-blindness sentence in ``language``."""
    return SENTENCE[lexicon_language(language)]


def order_scrambled(language: str | None) -> str:
    """The same words in another order: the English lesson's "mat a on sat cat the", the others' reversed."""
    return " ".join(reversed(order_sentence(language).split()))


def lesson_pairs(language: str | None) -> list[tuple[str, str]]:
    """Predict similarity's first round in ``language``: cat/dog, cat/tuesday, cat/xylophone, king/queen,
    monday/tuesday."""
    return [(word(language, a), word(language, b)) for a, b in LESSON_PAIRS]


def more_pairs(language: str | None) -> list[tuple[str, str]]:
    """The pairs later rounds of Predict similarity draw from, in ``language``."""
    return list(MORE_PAIRS[lexicon_language(language)])


def model_of(language: str | None) -> str:
    """The built-in model grown on ``language``'s corpus (andrea-micro for English and unknown languages)."""
    return MODEL[lexicon_language(language)]


def language_of(model: str) -> str | None:
    """The language a built-in grown model speaks (its name), or None for any other name."""
    return next((lang for lang, name in MODEL.items() if name == model), None)
