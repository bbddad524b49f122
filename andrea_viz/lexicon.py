"""The lesson's words in the app's four languages, and the built-in model that speaks each one.

A ground floor: nothing here imports the rest of the app. It holds the generated corpora's word classes too
(``WORD_CLASSES``, English, and ``CLASSES``, the other languages: ``grow.corpus`` and ``grow.corpora`` read them
here, and keep them by those names); the lesson's words are those classes' own, at the same place in the same
class, so every one is a single id of that language's grown model (andrea-micro, andrea-micro-nl, -pt-BR, -zh-TW); ``tests/unit/test_lexicon.py`` checks
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


# The generated corpora's word classes: English (``grow.corpus.WORD_CLASSES``, by that name too), and the same
# words in the same order in each other language (``grow.corpora.CLASSES``, by that name too).
WORD_CLASSES: dict[str, list[str]] = {  # the first six are drawn on maps at first
    "animals": ["cat", "dog", "pet", "kitten", "puppy", "horse", "pony", "cow", "mouse", "tiger", "rabbit", "sheep"],
    "weekdays": ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"],
    "people": ["king", "queen", "man", "woman", "mother", "father", "doctor", "nurse", "teacher", "farmer", "boy",
               "girl"],
    "instruments": ["xylophone", "piano", "guitar", "violin", "drum", "flute", "trumpet", "harp"],
    "colours": ["red", "blue", "green", "yellow", "orange", "purple", "black", "white", "pink", "brown"],
    "numbers": ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"],
    "months": ["january", "february", "march", "april", "june", "july", "august", "october"],
    "foods": ["apple", "banana", "bread", "butter", "cheese", "rice", "soup", "cake", "orange", "egg"],
    "drinks": ["tea", "coffee", "milk", "juice", "water", "cocoa"],
    "cities": ["paris", "london", "rome", "berlin", "madrid", "tokyo", "lisbon", "amsterdam"],
    "objects": ["spoon", "table", "chair", "cup", "lamp", "book", "clock", "bottle", "computer"],
    "vehicles": ["car", "ship", "boat", "bus", "train", "bike", "plane", "truck"],
    "feelings": ["happy", "glad", "sad", "angry", "tired", "calm"],
    "sizes": ["big", "large", "small", "tiny", "huge", "tall"],
    "temperatures": ["hot", "cold", "warm", "cool"],
    "verbs": ["run", "walk", "jump", "swim", "dance", "sing", "read", "cook"],
    "nature": ["fire", "cloud", "river", "sun", "rain", "tree", "mountain", "sea", "water"],
    "subjects": ["music", "mathematics", "democracy", "history", "science", "art", "biology", "poetry"],
}

CLASSES: dict[str, dict[str, list[str]]] = {
    "nl": {
        "animals": ["kat", "hond", "huisdier", "katje", "puppy", "paard", "pony", "koe", "muis", "tijger", "konijn",
                    "schaap"],
        "weekdays": ["maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag", "zondag"],
        "people": ["koning", "koningin", "man", "vrouw", "moeder", "vader", "dokter", "verpleegster", "leraar", "boer",
                   "jongen", "meisje"],
        "instruments": ["xylofoon", "piano", "gitaar", "viool", "trommel", "fluit", "trompet", "harp"],
        "colours": ["rood", "blauw", "groen", "geel", "oranje", "paars", "zwart", "wit", "roze", "bruin"],
        "numbers": ["één", "twee", "drie", "vier", "vijf", "zes", "zeven", "acht", "negen", "tien"],
        "months": ["januari", "februari", "maart", "april", "juni", "juli", "augustus", "oktober"],
        "foods": ["appel", "banaan", "brood", "boter", "kaas", "rijst", "soep", "taart", "sinaasappel", "ei"],
        "drinks": ["thee", "koffie", "melk", "sap", "water", "cacao"],
        "cities": ["parijs", "londen", "rome", "berlijn", "madrid", "tokio", "lissabon", "amsterdam"],
        "objects": ["lepel", "tafel", "stoel", "kop", "lamp", "boek", "klok", "fles", "computer"],
        "vehicles": ["auto", "schip", "boot", "bus", "trein", "fiets", "vliegtuig", "vrachtwagen"],
        "feelings": ["blij", "vrolijk", "verdrietig", "boos", "moe", "kalm"],
        "sizes": ["groot", "ruim", "klein", "piepklein", "enorm", "lang"],
        "temperatures": ["heet", "koud", "warm", "koel"],
        "verbs": ["rennen", "lopen", "springen", "zwemmen", "dansen", "zingen", "lezen", "koken"],
        "nature": ["vuur", "wolk", "rivier", "zon", "regen", "boom", "berg", "zee", "water"],
        "subjects": ["muziek", "wiskunde", "democratie", "geschiedenis", "wetenschap", "kunst", "biologie", "poëzie"],
    },
    "pt-BR": {
        "animals": ["gato", "cachorro", "bichinho", "gatinho", "filhote", "cavalo", "pônei", "vaca", "rato", "tigre",
                    "coelho", "ovelha"],
        "weekdays": ["segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira", "sábado",
                     "domingo"],
        "people": ["rei", "rainha", "homem", "mulher", "mãe", "pai", "médico", "enfermeira", "professor", "fazendeiro",
                   "menino", "menina"],
        "instruments": ["xilofone", "piano", "violão", "violino", "tambor", "flauta", "trompete", "harpa"],
        "colours": ["vermelho", "azul", "verde", "amarelo", "laranja", "roxo", "preto", "branco", "rosa", "marrom"],
        "numbers": ["um", "dois", "três", "quatro", "cinco", "seis", "sete", "oito", "nove", "dez"],
        "months": ["janeiro", "fevereiro", "março", "abril", "junho", "julho", "agosto", "outubro"],
        "foods": ["maçã", "banana", "pão", "manteiga", "queijo", "arroz", "sopa", "bolo", "laranja", "ovo"],
        "drinks": ["chá", "café", "leite", "suco", "água", "chocolate"],
        "cities": ["paris", "londres", "roma", "berlim", "madri", "tóquio", "lisboa", "amsterdã"],
        "objects": ["colher", "mesa", "cadeira", "xícara", "lâmpada", "livro", "relógio", "garrafa", "computador"],
        "vehicles": ["carro", "navio", "barco", "ônibus", "trem", "bicicleta", "avião", "caminhão"],
        "feelings": ["feliz", "contente", "triste", "bravo", "cansado", "calmo"],
        "sizes": ["grande", "amplo", "pequeno", "minúsculo", "enorme", "alto"],
        "temperatures": ["quente", "frio", "morno", "fresco"],
        "verbs": ["correr", "andar", "pular", "nadar", "dançar", "cantar", "ler", "cozinhar"],
        "nature": ["fogo", "nuvem", "rio", "sol", "chuva", "árvore", "montanha", "mar", "água"],
        "subjects": ["música", "matemática", "democracia", "história", "ciência", "arte", "biologia", "poesia"],
    },
    "zh-TW": {
        "animals": ["貓", "狗", "寵物", "小貓", "小狗", "馬", "小馬", "牛", "老鼠", "老虎", "兔子", "羊"],
        "weekdays": ["星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"],
        "people": ["國王", "王后", "男人", "女人", "母親", "父親", "醫生", "護士", "老師", "農夫", "男孩", "女孩"],
        "instruments": ["木琴", "鋼琴", "吉他", "小提琴", "鼓", "長笛", "小號", "豎琴"],
        "colours": ["紅色", "藍色", "綠色", "黃色", "橙色", "紫色", "黑色", "白色", "粉紅色", "棕色"],
        "numbers": ["一", "二", "三", "四", "五", "六", "七", "八", "九", "十"],
        "months": ["一月", "二月", "三月", "四月", "六月", "七月", "八月", "十月"],
        "foods": ["蘋果", "香蕉", "麵包", "奶油", "起司", "米飯", "湯", "蛋糕", "柳橙", "雞蛋"],
        "drinks": ["茶", "咖啡", "牛奶", "果汁", "水", "可可"],
        "cities": ["巴黎", "倫敦", "羅馬", "柏林", "馬德里", "東京", "里斯本", "阿姆斯特丹"],
        "objects": ["湯匙", "桌子", "椅子", "杯子", "檯燈", "書", "時鐘", "瓶子", "電腦"],
        "vehicles": ["汽車", "輪船", "小船", "公車", "火車", "腳踏車", "飛機", "卡車"],
        "feelings": ["開心", "高興", "難過", "生氣", "疲倦", "平靜"],
        "sizes": ["大", "寬大", "小", "微小", "巨大", "高"],
        "temperatures": ["熱", "冷", "溫暖", "涼爽"],
        "verbs": ["跑步", "走路", "跳", "游泳", "跳舞", "唱歌", "讀書", "做飯"],
        "nature": ["火", "雲", "河", "太陽", "雨", "樹", "山", "海", "水"],
        "subjects": ["音樂", "數學", "民主", "歷史", "科學", "藝術", "生物", "詩歌"],
    },
}


def classes_of(language: str | None) -> dict[str, list[str]]:
    """The word classes of ``language``'s corpus (English's for English and unknown languages)."""
    return CLASSES.get(lexicon_language(language), WORD_CLASSES)


def class_of_words() -> dict[str, str]:
    """Every word of every language's classes, with its class. A word in two classes of one language (orange,
    water) counts for the first; no word is in two different classes across languages (tests/unit/test_lexicon.py)."""
    out: dict[str, str] = {}
    for language in LANGUAGES:
        for name, words in classes_of(language).items():
            for w in words:
                out.setdefault(w, name)
    return out
