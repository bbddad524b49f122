"""The Lesson's step texts quote the lesson's words in the reader's language, the words its grown model is shown
with (kat, hond, huisdier in nl), not the English ones the published translations keep."""

import pytest

from andrea_viz import lexicon
from andrea_viz.i18n import LANGUAGES, render
from andrea_viz.lesson import STEPS, params

QUOTING = {"floats": ("cat", "dog", "pet", "tuesday", "xylophone"), "dot": ("cat", "dog", "tuesday")}


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_steps_quote_the_languages_words(lang):
    texts = {s.key: render(s.text, params(lang), lang) for s in STEPS}
    for key, words in QUOTING.items():
        for w in words:
            assert lexicon.word(lang, w) in texts[key], (lang, key, w)
    assert lexicon.order_sentence(lang) in texts["positions"]
    assert lexicon.order_scrambled(lang) in texts["positions"]
    if lang != "en":
        for key in QUOTING:
            assert "xylophone" not in texts[key] and "Tuesday" not in texts[key], (lang, key)
        assert "the cat sat on a mat" not in texts["positions"]


def test_english_keeps_the_lessons_own_sentence():
    text = render(next(s.text for s in STEPS if s.key == "positions"), params("en"), "en")
    assert "“the cat sat on a mat” and “mat a on sat cat the”" in text
