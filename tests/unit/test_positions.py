"""Position tables, RoPE and order blindness, against the formulas written out."""

import math

import numpy as np
import pytest

from andrea_viz.errors import QueryError
from andrea_viz.positions import (
    cosine_matrix, order_blindness, position_path, position_table_of, rope_scores, schemes, sinusoidal_table,
)


def test_sinusoidal_table_is_vaswanis_formula():
    T, d = 50, 16
    pe = sinusoidal_table(T, d)
    for t in (0, 7, 49):
        for i in range(d // 2):
            assert pe[t, 2 * i] == pytest.approx(math.sin(t / 10_000 ** (2 * i / d)), abs=1e-6)
            assert pe[t, 2 * i + 1] == pytest.approx(math.cos(t / 10_000 ** (2 * i / d)), abs=1e-6)
    assert np.allclose(np.linalg.norm(pe, axis=1), math.sqrt(d / 2), atol=1e-5)
    assert sinusoidal_table(3, 5).shape == (3, 5)  # odd d


def test_cosine_matrix_matches_pairwise_cosines():
    table = np.random.default_rng(0).standard_normal((20, 6)).astype(np.float32)
    cos, pos = cosine_matrix(table, step=3)
    assert list(pos) == [0, 3, 6, 9, 12, 15, 18]
    a, b = table[3], table[12]
    assert cos[1, 4] == pytest.approx(float(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b)), abs=1e-6)
    assert np.allclose(np.diag(cos), 1.0, atol=1e-6)


def test_rope_dot_product_depends_only_on_the_offset():
    q, k = np.array([1.0, 0.2]), np.array([0.8, 0.6])
    same_offset = rope_scores(q, k, [(2, 0), (5, 3), (9, 7)])
    assert max(same_offset) - min(same_offset) < 1e-12
    assert abs(rope_scores(q, k, [(3, 0)])[0] - same_offset[0]) > 1e-3


def test_order_blindness_on_the_lessons_sentence(minilm):
    c = order_blindness(minilm, "the cat sat on a mat", "mat a on sat cat the")
    assert c.same_rows_without_positions
    assert c.max_diff_with_positions > 0.1
    assert sorted(c.ids_a) == sorted(c.ids_b) and c.ids_a != c.ids_b
    with pytest.raises(QueryError, match="same tokens in another order"):
        order_blindness(minilm, "the cat sat", "the dog sat")


def test_position_tables_and_paths(minilm):
    assert position_table_of(minilm, "learned") is minilm.position_table
    sin = position_table_of(minilm, "sinusoidal")
    assert sin.shape == (512, 384)
    coords, ratio = position_path(minilm, "sinusoidal")
    assert coords.shape == (512, 2) and 0 < ratio[1] <= ratio[0] < 1


def test_scheme_table_has_this_models_numbers(load_model):
    rows = {str(r[0]): r for r in schemes(load_model("andrea-120m-init"))}
    assert str(rows["learned"][1]) == "1,024 × 768 = 786,432"
    assert str(rows["RoPE (rotary)"][1]) == "0"
    assert str(rows["learned"][3]) == "none past 1,023"
