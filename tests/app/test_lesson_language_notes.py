"""The Lesson's first step looks up the language's own word (kat in nl, not cat), and the tying step says, outside
English, that its measured pair of runs was grown on the English corpus (the figures are the English model's)."""

import pytest

from andrea_viz import lexicon
from andrea_viz.i18n import translate

from .test_language_words import default_start, text_inputs

NOTE = ("These two runs were grown on the English corpus; no tied and untied pair was grown in this language, so the "
        "figures above are the English model's.")


@pytest.mark.parametrize("lang", ["nl", "zh-TW"])
def test_step_one_looks_up_the_languages_word(lang):
    at = default_start("0_Lesson.py", lang, query={"step": "1"})
    shown = text_inputs(at)
    assert lexicon.word(lang, "cat") in shown and "cat" not in shown, shown


@pytest.mark.parametrize("lang,said", [("en", False), ("pt-BR", True)])
def test_the_tying_step_says_whose_figures_it_shows(lang, said):
    at = default_start("0_Lesson.py", lang, query={"step": "11"})
    captions = [c.value for c in at.caption]
    assert (translate(NOTE, lang) in captions) is said
