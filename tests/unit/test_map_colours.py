"""Colouring a map by a score of the table: each point gets its own token's score, the same as the page that owns
the score computes (the Anatomy page's under-trained score, the Neighbours page's Jaccard@10 at a precision)."""

from __future__ import annotations

import numpy as np

from andrea_viz.anatomy.report import undertrained_of
from andrea_viz.maps.colours import COLOURINGS, colouring_label, token_scores
from andrea_viz.neighbours import normalise
from andrea_viz.precision import at_precision


def test_under_trained_colours_are_the_anatomy_scores_of_the_same_ids(load_model):
    emb = load_model("andrea-micro")
    ids = np.array([5, 300, 0, 554, 5])
    np.testing.assert_array_equal(token_scores(emb, "undertrained", ids), undertrained_of(emb).ranked.scores[ids])


def test_kept_at_q4_0_is_each_tokens_jaccard_against_a_brute_force_search(load_model):
    emb = load_model("andrea-micro")
    ids = np.array([3, 260, 400, 554])
    got = token_scores(emb, "kept:q4_0", ids)
    ref, low = normalise(emb.token_table).rows.astype(np.float64), normalise(at_precision(emb.token_table, "q4_0")).rows
    low = low.astype(np.float64)
    for i, j in zip(ids, got, strict=True):
        a = [x for x in np.argsort(-(ref @ ref[i]), kind="stable") if x != i][:10]
        b = [x for x in np.argsort(-(low @ low[i]), kind="stable") if x != i][:10]
        assert j == len(set(a) & set(b)) / len(set(a) | set(b)), i
    assert got.min() < 1.0  # q4_0 moves some neighbourhoods of this small table


def test_every_colouring_has_a_label_in_words():
    assert str(colouring_label("kept:q4_0")) == "neighbours kept at q4_0"
    assert set(COLOURINGS) >= {"trust", "undertrained", "kept:bf16", "kept:q4_0"}
