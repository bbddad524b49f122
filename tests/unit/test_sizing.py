"""Every parameter count the lesson states, computed by the library."""

import pytest

from andrea_viz.errors import QueryError
from andrea_viz.family import FAMILY, NOMINAL_120M, bos_id, count_params, count_shape, vocab_size
from andrea_viz.i18n import render, set_language
from andrea_viz.sizing import (check_table_answer, human_bytes, product_arithmetic, read_count, table_bytes,
                               token_table_params, tying_saving)


def test_andrea_120m_token_table_is_6_488_832():
    assert token_table_params(8_449, 768) == 6_488_832


def test_position_table_is_786_432_and_embeddings_7_275_264():
    pc = count_shape(FAMILY["ANDREA-120M"])
    assert pc.position == 786_432
    assert pc.embeddings == 7_275_264


def test_exercise_480m_and_12m_token_tables():
    assert token_table_params(16_641, 1_536) == 25_560_576
    assert token_table_params(4_353, 384) == 1_671_552
    assert product_arithmetic(16_641, 1_536) == "16,641 × 1,536 = 25,560,576"


def test_model_card_totals_98_698_752_and_12_780_288():
    assert count_shape(FAMILY["ANDREA-120M"]).total == 98_698_752
    assert count_params(V=2_305, d=384, T=1024, L=6).total == 12_780_288
    assert count_shape(FAMILY["ANDREA-12M (model card)"]).total == 12_780_288


def test_total_is_2Vd_plus_Td_plus_12Ld2():
    V, d, T, L = 1000, 64, 128, 3
    assert count_params(V, d, T, L).total == 2 * V * d + T * d + 12 * L * d * d
    assert count_params(V, d, T, L, tied=True).total == V * d + T * d + 12 * L * d * d


def test_lesson_shares_against_nominal_and_computed():
    pc = count_shape(FAMILY["ANDREA-120M"])
    assert round(pc.token / NOMINAL_120M * 100, 1) == 5.4
    assert round(pc.embeddings / NOMINAL_120M * 100) == 6
    assert round(pc.token / pc.total * 100, 1) == 6.6
    assert round(pc.embeddings / pc.total * 100, 1) == 7.4
    assert sum(pc.shares().values()) == pytest.approx(1.0)


def test_tying_saves_one_token_table():
    untied = count_params(8_449, 768, 1024, 12)
    tied = count_params(8_449, 768, 1024, 12, tied=True)
    assert untied.total - tied.total == tying_saving(8_449, 768) == 6_488_832


def test_bytes_fp32_and_bf16():
    assert table_bytes(6_488_832) == 25_955_328
    assert table_bytes(6_488_832, "bf16") == 12_977_664
    assert human_bytes(25_955_328) == "26.0 MB"
    with pytest.raises(QueryError, match="dtype must be one of"):
        table_bytes(1, "fp8")


def test_negative_size_is_refused_with_the_name():
    with pytest.raises(QueryError, match="V must be a whole number"):
        count_params(-1, 768, 1024, 12)


def test_family_vocabularies_are_bytes_plus_segments_plus_bos():
    assert [s.V for s in FAMILY.values()] == [4_353, 2_305, 8_449, 16_641]
    assert vocab_size(8_192) == 8_449 and bos_id(8_449) == 8_448
    assert [s.T for s in FAMILY.values()] == [1024] * 4


@pytest.mark.parametrize("lang,grouped,other", [("en", "25,560,576", "25.560.576"), ("zh-TW", "25,560,576", "25.560.576"),
                                                ("nl", "25.560.576", "25,560,576"), ("pt-BR", "25.560.576", "25,560,576")])
def test_a_count_is_read_the_languages_way_and_the_other_way_refused(lang, grouped, other):
    assert read_count(grouped, lang) == read_count("25560576", lang) == read_count(f"  {grouped} ", lang) == 25_560_576
    with pytest.raises(QueryError) as e:
        read_count(other, lang)
    said = render(e.value.msg.msgid, e.value.msg.params, lang)
    assert said.index(grouped) < said.rindex("25560576"), said  # both accepted forms named, the language's first


@pytest.mark.parametrize("lang,typed,forms", [("nl", "25,560.576", ("25.560.576", "25560576")),
                                              ("nl", "25.560,576.1", ("255.605.761", "255605761")),
                                              ("en", "25.560,576", ("25,560,576", "25560576")),
                                              ("pt-BR", "1.2.3", ("1.234.567", "1234567")),  # 123: nothing to group
                                              ("zh-TW", "一百", ("1,234,567", "1234567"))])
def test_mixed_or_misplaced_separators_are_refused_with_the_accepted_forms(lang, typed, forms):
    with pytest.raises(QueryError) as e:
        read_count(typed, lang)
    said = render(e.value.msg.msgid, e.value.msg.params, lang)
    assert said.startswith(f"“{typed}”") or said.startswith(f"「{typed}」")
    assert said.index(forms[0]) < said.rindex(forms[1]), said


@pytest.mark.parametrize("lang,typed", [("nl", "2,5"), ("en", "2.5"), ("en", "-3"), ("pt-BR", "25.560.576,1")])
def test_a_fraction_or_a_negative_count_is_refused(lang, typed):
    with pytest.raises(QueryError, match="whole number"):
        read_count(typed, lang)


@pytest.mark.parametrize("lang,typed,right,numbers", [
    ("nl", "25.560.576", True, ["25.560.576", "16.641 × 1.536 = 25.560.576"]),
    ("pt-BR", "25560576", True, ["25.560.576", "16.641 × 1.536 = 25.560.576"]),
    ("en", "25,560,576", True, ["Read as 25,560,576. Right: 16,641 × 1,536 = 25,560,576."]),
    ("zh-TW", "25560576", True, ["25,560,576", "16,641 × 1,536 = 25,560,576"]),
    ("nl", "18.177", False, ["18.177"]),  # V + d
])
def test_the_exercise_echoes_the_number_as_read(lang, typed, right, numbers):
    set_language(lang)
    try:
        ok, msg = check_table_answer(typed, "ANDREA-480M")
        said = render(msg.msgid, msg.params)
    finally:
        set_language("en")
    assert ok == right and msg.msgid == "Read as {n:,}. {verdict}"
    assert all(n in said for n in numbers), said
