"""Analogies, anisotropy, input-vs-output, the quiz, and the plane demo, against plain references."""

import math

import numpy as np
import pytest

from andrea_viz.lesson.angles import case_of, plane_pair
from andrea_viz.errors import QueryError
from andrea_viz.geometry import (
    analogy, anisotropy, input_output_cosines, jaccard, mean_row, neighbours, resolve, unit_space,
)
from andrea_viz.lesson.quiz import LESSON_PAIRS, draw_round, score_round


def test_king_minus_man_plus_woman_gives_queen_in_top_5(minilm):
    _, found = analogy(minilm, "king", "man", "woman", k=5)
    assert "queen" in [n.token for n in found]


def test_analogy_agrees_with_brute_force_and_excludes_inputs(minilm):
    inputs, found = analogy(minilm, "paris", "france", "italy", k=5)
    unit = [q.vector / np.linalg.norm(q.vector) for q in inputs]
    target = (unit[0] - unit[1] + unit[2]).astype(np.float64)
    excluded = {i for q in inputs for i in q.ids}
    ref = []
    for i in range(minilm.vocab_size):
        if i in excluded:
            continue
        r = minilm.token_table[i].astype(np.float64)
        ref.append((float(r @ target) / (math.sqrt(float(r @ r)) * math.sqrt(float(target @ target))), i))
    ref.sort(key=lambda t: (-t[0], t[1]))
    assert [n.id for n in found] == [i for _, i in ref[:5]]
    assert not excluded & {n.id for n in found}


def _pairs_reference(table: np.ndarray) -> float:
    """The mean cosine over every ordered pair of two different finite rows, one row against all the others at a
    time (a zero row's cosines 0)."""
    t = table[np.isfinite(table).all(axis=1)].astype(np.float64)
    lengths = np.linalg.norm(t, axis=1)
    total = 0.0
    for i in range(t.shape[0]):
        with np.errstate(invalid="ignore", divide="ignore"):
            cos = (t @ t[i]) / (lengths * lengths[i])
        cos[~np.isfinite(cos)] = 0.0
        total += float(cos.sum() - cos[i])
    return total / (t.shape[0] * (t.shape[0] - 1))


def test_anisotropy_is_the_mean_over_every_pair_and_the_anatomy_pages_average_cosine(load_model):
    from dataclasses import replace

    from andrea_viz.anatomy.dims import dim_stats

    emb = load_model("andrea-micro")
    table = np.array(emb.token_table)
    assert anisotropy(emb) == pytest.approx(_pairs_reference(table), abs=1e-9)
    centred = table - table.mean(axis=0, dtype=np.float64)
    assert anisotropy(emb, centered=True) == pytest.approx(_pairs_reference(centred), abs=1e-9)
    # the figure the Anatomy page gives above its own anisotropy card ("the average cosine … here"): one number
    assert anisotropy(emb) == pytest.approx(dim_stats(emb.token_table).avg_cosine, abs=1e-7)
    # a zero row counts with cosine 0, a row with a NaN is left out
    table[3], table[7, 2] = 0.0, np.nan
    odd = replace(emb, token_table=table, key="andrea-micro|zero-and-nan")
    assert anisotropy(odd) == pytest.approx(_pairs_reference(table), abs=1e-9)
    assert abs(anisotropy(load_model("andrea-12m-init"))) < 0.005  # random directions: almost perpendicular


def test_mean_centred_rows_have_zero_mean_direction(minilm):
    u = unit_space(minilm, "input", centered=True)
    assert np.allclose(np.linalg.norm(u, axis=1)[:100], 1.0, atol=1e-5)
    centred = minilm.token_table.astype(np.float64) - minilm.token_table.mean(axis=0, dtype=np.float64)
    np.testing.assert_allclose(mean_row(minilm), minilm.token_table.mean(axis=0), atol=1e-6)
    np.testing.assert_allclose(u[7], centred[7] / np.linalg.norm(centred[7]), atol=1e-5)
    q, found = neighbours(minilm, "cat", centered=True)
    assert "kitten" in [n.token for n in found]


def _brute_neighbours(table, query_id, k):
    """The k rows of ``table`` with the largest cosine to row ``query_id``, by a loop over every row."""
    q = table[query_id].astype(np.float64)
    cos = []
    for i, r in enumerate(table.astype(np.float64)):
        if i != query_id:
            cos.append((float(r @ q) / (np.linalg.norm(r) * np.linalg.norm(q)), i))
    cos.sort(key=lambda t: (-t[0], t[1]))
    return [i for _, i in cos[:k]]


def test_input_and_output_tables_of_an_untied_model(load_model):
    emb = load_model("andrea-12m-init")
    _, nin = neighbours(emb, "#300", k=10, space="input")
    _, nout = neighbours(emb, "#300", k=10, space="output")
    ref_in, ref_out = _brute_neighbours(emb.token_table, 300, 10), _brute_neighbours(emb.output_table, 300, 10)
    assert [n.id for n in nin] == ref_in and [n.id for n in nout] == ref_out
    overlap = len(set(ref_in) & set(ref_out)) / len(set(ref_in) | set(ref_out))
    assert jaccard([n.id for n in nin], [n.id for n in nout]) == pytest.approx(overlap)
    assert overlap < 1.0  # two independent random tables: their neighbour lists differ
    cos = input_output_cosines(emb)
    assert cos.shape == (emb.vocab_size,)
    i = 123
    a, b = emb.token_table[i], emb.output_table[i]
    assert cos[i] == pytest.approx(float(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b)), abs=1e-5)
    assert jaccard([1, 2, 3], [3, 4]) == pytest.approx(1 / 4) and jaccard([], []) == 1.0


def test_output_space_of_a_model_without_one_is_a_sentence(minilm):
    with pytest.raises(QueryError, match="no separate output table"):
        neighbours(minilm, "cat", space="output")


def test_plane_pair_dot_equals_lengths_times_cosine():
    for theta in (0, 30, 90, 135, 180):
        p = plane_pair(1.5, 1.2, theta)
        assert p.dot == pytest.approx(1.5 * 1.2 * math.cos(math.radians(theta)), abs=1e-9)
    assert plane_pair(1, 1, 90).dot == pytest.approx(0.0, abs=1e-12)
    assert "perpendicular" in case_of(90) and "opposite" in case_of(180) and "same" in case_of(0)


def test_first_quiz_round_is_the_lessons_pairs_with_real_cosines(minilm):
    pairs = draw_round(minilm, 0)
    assert [(p.a, p.b) for p in pairs] == LESSON_PAIRS
    by = {(p.a, p.b): p for p in pairs}
    assert by[("cat", "dog")].cosine > by[("cat", "tuesday")].cosine
    assert by[("cat", "xylophone")].multi_piece and not by[("cat", "dog")].multi_piece
    c, d = resolve(minilm, "cat").vector, resolve(minilm, "dog").vector
    assert by[("cat", "dog")].cosine == pytest.approx(float(c @ d) / (np.linalg.norm(c) * np.linalg.norm(d)), abs=1e-6)


def test_new_rounds_draw_other_pairs(minilm):
    r1, r2 = draw_round(minilm, 1), draw_round(minilm, 2)
    assert len(r1) == 5 and {(p.a, p.b) for p in r1} != {(p.a, p.b) for p in r2}
    assert not {(p.a, p.b) for p in r1} & set(LESSON_PAIRS)


def test_quiz_score_is_the_rank_agreement(minilm):
    pairs = draw_round(minilm, 0)
    real = [p.cosine for p in pairs]
    assert score_round(real, pairs).points == 100
    assert score_round([-c for c in real], pairs).points == 0
    one_moved = score_round([0.5, 0.5, 0.5, 0.5, 0.9], pairs)
    assert one_moved.points <= 40 and one_moved.comparisons == 10  # four left at 0.5 order nothing among them
    order = sorted(range(5), key=lambda i: real[i])
    ranked = [0.0] * 5
    for r, i in enumerate(order):
        ranked[i] = r / 4
    assert score_round(ranked, pairs).points == 100  # only the order counts, not the values
    tie = score_round([0.5] * 5, pairs)
    assert tie.points == 0 and "different guesses" in tie.message


def test_the_anisotropy_note_says_the_mean_rows_share_only_where_subtracting_it_takes_some_away():
    from andrea_viz.geometry import anisotropy_note
    from andrea_viz.i18n import tr

    both = [tr(m) for m in anisotropy_note(0.5, 0.125)]
    assert both[0].startswith("Anisotropy (the mean cosine of every pair of two different rows): +0.5000 raw, +0.1250")
    assert both[1] == "On this table subtracting the mean row takes away 75% of it."
    assert len(anisotropy_note(0.1, 0.2)) == 1 and len(anisotropy_note(-0.01, -0.02)) == 1  # nothing taken away
