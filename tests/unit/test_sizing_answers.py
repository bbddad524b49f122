"""The sizing exercise reads what a learner types in each language: full-width digits and the group marks of
Chinese input, scale words ("25,5 miljoen", "2556萬"), a minus sign; it echoes whole numbers as whole numbers,
calls only a near answer near, and refuses the unreadable with a sentence that names the digits form."""

import re

import pytest

from andrea_viz.errors import QueryError
from andrea_viz.i18n import LANGUAGES, read_number, read_scaled, render, set_language, typed_digits
from andrea_viz.sizing import CLOSE, check_table_answer, read_count

WANT = 25_560_576  # ANDREA-480M's token table: 16,641 × 1,536
LANGS = list(LANGUAGES)


def said(lang: str, typed: str) -> tuple[bool, str]:
    set_language(lang)
    try:
        ok, msg = check_table_answer(typed, "ANDREA-480M")
        return ok, render(msg.msgid, msg.params, lang)
    finally:
        set_language("en")


def refusal(lang: str, typed: str) -> str:
    with pytest.raises(QueryError) as e:
        read_count(typed, lang)
    return render(e.value.msg.msgid, e.value.msg.params, lang)


def slow_fullwidth(text: str) -> str:
    """The reference: full-width forms are U+FF01..U+FF5E, the ASCII character plus 0xFEE0."""
    return "".join(chr(ord(c) - 0xFEE0) if 0xFF01 <= ord(c) <= 0xFF5E else c for c in text)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("typed", ["２５５６０５７６", "２５，５６０，５７６", "25，560，576", "25、560、576", "２５、５６０、５７６"])
def test_what_chinese_input_types_is_read_in_every_language(lang, typed):
    assert read_count(typed, lang) == WANT
    ok, text = said(lang, typed)
    assert ok and ("25,560,576" if lang in ("en", "zh-TW") else "25.560.576") in text, text


def test_full_width_digits_match_the_slow_reference():
    typed = "０１２３４５６７８９－"
    assert typed_digits(typed, "en") == slow_fullwidth(typed) == "0123456789-"


@pytest.mark.parametrize("lang,typed,number,scale", [
    ("nl", "25,5 miljoen", "25.5", 10**6), ("pt-BR", "25,5 milhões", "25.5", 10**6), ("en", "25.5 million", "25.5", 10**6),
    ("zh-TW", "2556萬", "2556", 10**4), ("zh-TW", "2,556萬", "2556", 10**4), ("zh-TW", "２５５６万", "2556", 10**4),
    ("pt-BR", "25,56 mi", "25.56", 10**6), ("nl", "25.560 duizend", "25560", 10**3), ("en", "0.25 億", "0.25", 10**8)])
def test_a_scale_word_is_read_with_its_number_the_languages_way(lang, typed, number, scale):
    n, s = read_scaled(typed, lang)
    assert (str(n), s) == (number, scale)
    assert read_count(typed, lang) == int(n * s)


@pytest.mark.parametrize("lang,typed,echo", [
    ("nl", "25,5 miljoen", "25.500.000"), ("pt-BR", "25,5 milhões", "25.500.000"), ("en", "25.5 million", "25,500,000"),
    ("zh-TW", "2556萬", "25,560,000"), ("zh-TW", "2,556萬", "25,560,000")])
def test_a_rounded_answer_is_read_and_called_close_not_right(lang, typed, echo):
    ok, text = said(lang, typed)
    assert not ok and echo in text, text
    close = {"en": "Close", "nl": "Bijna", "pt-BR": "Quase", "zh-TW": "很接近"}[lang]
    read = read_count(typed, lang)
    off = f"{abs(read - WANT):,}" if lang in ("en", "zh-TW") else f"{abs(read - WANT):,}".replace(",", ".")
    assert close in text and f" {off}" in text, text  # how far off, as a whole number in the language's format


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("typed", ["123", "1000", str(WANT * 2 + 12345), str(int(WANT * (1 - 1.5 * CLOSE)))])
def test_a_far_answer_is_not_called_near_in_any_language(lang, typed):
    ok, text = said(lang, typed)
    near = {"en": "Close", "nl": "Bijna", "pt-BR": "Quase", "zh-TW": "接近"}[lang]
    assert not ok and near not in text, text
    assert {"en": "Not right", "nl": "Niet juist", "pt-BR": "Não está certo", "zh-TW": "不對"}[lang] in text, text


@pytest.mark.parametrize("lang", LANGS)
def test_the_close_rule_is_relative_and_the_same_in_every_language(lang):
    inside, outside = int(WANT * (1 + CLOSE)) - 1, int(WANT * (1 + CLOSE)) + 2
    near = {"en": "Close", "nl": "Bijna", "pt-BR": "Quase", "zh-TW": "很接近"}[lang]
    assert near in said(lang, str(inside))[1] and near not in said(lang, str(outside))[1]


@pytest.mark.parametrize("lang,typed,echo", [("nl", "−25560576", "-25.560.576"), ("pt-BR", "-25.560.576", "-25.560.576"),
                                             ("en", "−25,560,576", "-25,560,576"), ("zh-TW", "－２５５６０５７６", "-25,560,576"),
                                             ("en", "-25.5 million", "-25,500,000"), ("nl", "2,5", "2,5"),
                                             ("en", "2.25", "2.25"), ("pt-BR", "0,5 mil", "500")])
def test_a_negative_or_a_fraction_is_echoed_as_read(lang, typed, echo):
    if echo == "500":  # half a thousand is a whole, non-negative number: read, not refused
        assert read_count(typed, lang) == 500
        return
    text = refusal(lang, typed).replace(typed, "", 1)  # what the app says, less the echo of what was typed
    assert f" {echo}:" in text or f" {echo}：" in text, text
    assert ".0:" not in text and "25560576" not in text, text
    assert "whole number" in text or "geheel" in text or "inteiro" in text or "整數" in text


@pytest.mark.parametrize("lang,typed", [("en", "25,5 miljoen"), ("nl", "25.5 miljoen"), ("nl", "veel"),
                                        ("pt-BR", "vinte e cinco milhões"), ("zh-TW", "兩千五百萬"), ("en", "2,5"),
                                        ("zh-TW", "25 lakh")])
def test_the_unreadable_is_refused_with_the_digits_form_not_its_own_digits(lang, typed):
    text = refusal(lang, typed)
    example = "1,234,567" if lang in ("en", "zh-TW") else "1.234.567"
    assert example in text and "1234567" in text, text
    assert not re.search(r"\b(255|25)\b", text.replace(typed, "")), text  # never "type 255 or 255"


def test_read_number_takes_no_scale_word():  # the plain reader stays plain: tables' cells are checked with it
    assert read_number("25,5 miljoen", "nl") is None and read_number("25,5", "nl") == read_number("25.5", "en")


INPUTS = ["２５５６０５７６", "25，560，576", "25、560、576", "25,5 miljoen", "25,5 milhões", "25.5 million", "2556萬",
          "2,556萬", "−25560576", "123"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("typed", INPUTS)
def test_every_listed_input_in_every_language_is_read_or_told_the_digits_form(lang, typed):
    """Each answer the issue lists, typed in each language: either read (and echoed as a whole number in the
    language's format) or refused with a sentence naming the digits form; never a traceback, never "255 of 255"."""
    set_language(lang)
    try:
        ok, msg = check_table_answer(typed, "ANDREA-480M")
        text = render(msg.msgid, msg.params, lang)
    finally:
        set_language("en")
    group = "," if lang in ("en", "zh-TW") else "."
    if msg.msgid == "Read as {n:,}. {verdict}":
        n = read_count(typed, lang)
        assert text.split(" ")[0] != "" and f"{n:,}".replace(",", group) in text, text
        assert ok == (n == WANT)
    else:  # refused: the digits form named, the typed text echoed
        assert not ok and ("1234567" in text or "25560576" in text or "25.560.576" in text.replace(typed, "", 1)
                           or "-25" in text), text
    assert not re.search(r"\b255\b", text.replace(typed, "", 1)), text
