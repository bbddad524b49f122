"""Every parameter count the lesson states, computed by the library."""

import pytest

from andrea_viz.errors import QueryError
from andrea_viz.family import FAMILY, NOMINAL_120M, bos_id, count_params, count_shape, vocab_size
from andrea_viz.sizing import human_bytes, product_arithmetic, table_bytes, token_table_params, tying_saving


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
