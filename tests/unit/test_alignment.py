"""Aligning two tables of different vocabularies: anchors, the Procrustes map with scale against a slow reference, its
held-out judgement beside the nearest-anchor baseline, and the lesson's picture (kat lands beside cat)."""

from __future__ import annotations

import numpy as np
import pytest

import andrea_viz
from andrea_viz.alignment import (
    Anchors,
    align,
    align_tables,
    anchor_drift,
    baseline_guess,
    find_anchors,
    fit_map,
    fold_token,
    place,
    split,
    string_anchors,
)
from andrea_viz.errors import QueryError
from andrea_viz.lexicon import MORE_PAIRS, WORDS


def test_word_signs_are_folded_and_case_is_kept():
    assert [fold_token(t) for t in ("Ġcat", "▁Cat", "##at", "cat", "Ġ", "##", "ĠĠx")] == [
        "cat", "Cat", "at", "cat", "Ġ", "##", "Ġx"]
    gpt2 = ["Ġcat", "cat", "Ġdog", "The", "!"]
    sp = ["▁dog", "▁cat", "the", "!", "▁The"]
    # "cat" is held by Ġcat (1st) and cat (2nd) in A: the bare string wins; "The" and "the" differ (case kept)
    assert string_anchors(gpt2, sp) == [(1, 1), (2, 0), (3, 4), (4, 3)]


def slow_fit(x: np.ndarray, y: np.ndarray):
    """The same map by another road: both sides padded with zero columns to one width, scipy's orthogonal_procrustes,
    the block of R that maps A's columns to B's, and the scale minimising ||s·xc·R − yc||² one term at a time."""
    from scipy.linalg import orthogonal_procrustes

    d = max(x.shape[1], y.shape[1])
    xc = x - x.mean(0)
    yc = y - y.mean(0)
    xp = np.zeros((x.shape[0], d))
    yp = np.zeros((y.shape[0], d))
    xp[:, :x.shape[1]] = xc
    yp[:, :y.shape[1]] = yc
    r, _ = orthogonal_procrustes(xp, yp)
    r = r[:x.shape[1], :y.shape[1]]
    xr = xc @ r
    num = sum(float(xr[i] @ yc[i]) for i in range(x.shape[0]))
    den = sum(float(xc[i] @ xc[i]) for i in range(x.shape[0]))
    return r, num / den


@pytest.mark.parametrize(("da", "db"), [(12, 12), (8, 12), (12, 8)])
def test_the_map_matches_a_slow_reference_and_recovers_a_known_scaled_rotation(da, db):
    rng = np.random.default_rng(da * 100 + db)
    x = rng.normal(size=(200, da))
    q, _ = np.linalg.qr(rng.normal(size=(max(da, db), max(da, db))))
    r_true = q[:da, :db]  # orthonormal rows (da ≤ db) or a projection (da > db)
    y = 2.5 * x @ r_true + rng.normal(size=db)
    m = fit_map(x, y)
    r_ref, s_ref = slow_fit(x, y)
    np.testing.assert_allclose(m(x), s_ref * (x - x.mean(0)) @ r_ref + y.mean(0), atol=1e-3)
    assert m.rotation.shape == (da, db)
    if da <= db:  # an isometry up to scale exists: recovered exactly
        np.testing.assert_allclose(m.scale, 2.5, rtol=1e-4)
        np.testing.assert_allclose(m(x), y, atol=1e-3)


def test_held_out_judgement_on_a_rotated_copy_and_the_baseline_beside_it():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(300, 16)).astype(np.float32)
    q, _ = np.linalg.qr(rng.normal(size=(16, 16)))
    b = (0.5 * a @ q + rng.normal(scale=0.005, size=(300, 16))).astype(np.float32)
    perm = rng.permutation(300)  # B's ids in another order: the anchors say which is which
    b_ids = np.empty(300, np.int64)
    b_ids[perm] = np.arange(300)
    anchors = Anchors(np.arange(300), b_ids, np.array(["string"] * 300, object))
    al = align_tables(a, b[perm], anchors, seed=3)
    assert al.train.size == 240 and al.held_out.size == 60 and not set(al.train) & set(al.held_out)
    assert al.median_cosine > 0.99  # a rotation and a scale, up to the noise
    assert al.median_jaccard > 0.9
    assert al.median_baseline < al.median_cosine - 0.05  # a blend of neighbours is not the row itself
    again = align_tables(a, b[perm], anchors, seed=3)
    np.testing.assert_array_equal(al.held_out, again.held_out)  # a seeded split
    assert not np.array_equal(split(300, 4)[1], al.held_out)


def test_baseline_guess_matches_a_row_by_row_reference():
    rng = np.random.default_rng(1)
    ka, kb, q = rng.normal(size=(40, 6)), rng.normal(size=(40, 5)), rng.normal(size=(7, 6))
    fast = baseline_guess(q, ka, kb, k=4)
    for n in range(7):
        cos = [float(q[n] @ ka[j] / np.linalg.norm(q[n]) / np.linalg.norm(ka[j])) for j in range(40)]
        top = sorted(range(40), key=lambda j: -cos[j])[:4]
        w = [max(cos[j], 0) + 1e-12 for j in top]
        np.testing.assert_allclose(fast[n], sum(wi * kb[j] for wi, j in zip(w, top, strict=True)) / sum(w), atol=1e-5)


def test_placement_matches_a_row_by_row_reference():
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(30, 6)), rng.normal(size=(5000, 4))  # B longer than one block
    m = fit_map(a[:20], b[:20])
    p = place(a, b, m, np.array([0, 7, 29]))
    for n, i in enumerate((0, 7, 29)):
        v = m(a[i:i + 1])[0]
        cos = [float(v @ b[j] / np.linalg.norm(v) / np.linalg.norm(b[j])) for j in range(b.shape[0])]
        assert p.nearest[n] == int(np.argmax(cos))
        np.testing.assert_allclose(p.confidence[n], max(cos), atol=1e-5)


@pytest.fixture(scope="module")
def nl_en():
    return andrea_viz.load("andrea-micro-nl"), andrea_viz.load("andrea-micro")


def test_the_dutch_table_rotated_onto_the_english_one_puts_kat_beside_cat(nl_en):
    nl, en = nl_en
    anchors = find_anchors(nl, en)
    lexicon = {(nl.token(int(x)), en.token(int(y))) for x, y, k in zip(anchors.a, anchors.b, anchors.kind, strict=True)
               if k == "lexicon"}
    assert ("kat", "cat") in lexicon and ("hond", "dog") in lexicon and ("koningin", "queen") in lexicon
    words = {WORDS["nl"][k]: WORDS["en"][k] for k in WORDS["nl"]}
    for (x, y), (u, v) in zip(MORE_PAIRS["nl"], MORE_PAIRS["en"], strict=True):
        words.update({x: u, y: v})
    assert all(words[a] == b for a, b in lexicon)  # every lexicon anchor is a translation
    shared = {nl.token(int(x)) for x, k in zip(anchors.a, anchors.kind, strict=True) if k == "string"}
    assert {"school", "park", "amsterdam", "!"} <= shared
    al = align(nl, en)
    # the teaching picture: kat's nearest English row, once mapped, is cat; hond's is dog
    for word, english in (("kat", "cat"), ("hond", "dog")):
        wid = nl.tokenizer.encode(word)
        assert len(wid) == 1
        p = place(nl.token_table, en.token_table, al.map, np.array(wid))
        assert en.token(int(p.nearest[0])) == english, (word, en.token(int(p.nearest[0])))
        assert p.confidence[0] > 0.5
    # the held-out figures, measured here on this pair (not a target: 64 wide, 600 steps of training)
    assert 0.3 < al.median_cosine < 1 and 0 < al.median_jaccard <= 1 and np.isfinite(al.median_baseline)
    drift = anchor_drift(nl.token_table, en.token_table, al.map, anchors)
    assert drift.shape == (len(anchors),) and np.all((drift >= 0) & (drift <= 2))


def test_two_models_with_nothing_in_common_get_one_sentence():
    from andrea_viz.model import Embeddings, Provenance
    from andrea_viz.tokenizer import IdTokenizer

    class Words:
        def __init__(self, words):
            self.words, self.vocab_size = words, len(words)

        def token(self, i):
            return self.words[i]

    def model(name, tokenizer):
        return Embeddings(name=name, token_table=np.ones((tokenizer.vocab_size, 4), np.float32), position_table=None,
                          position_kind="none", output_table=None, tied=True, tokenizer=tokenizer,
                          provenance=Provenance(format="test"))

    a, b = model("left", Words(["a", "b", "c"] * 4)), model("right", Words(["x", "y", "z", "Ġa"]))
    with pytest.raises(QueryError, match="share at least 10 tokens .* but left and right share 1"):
        align(a, b)
    # tables without a tokenizer: their ids (#0, #1 …) are not strings, so nothing is shared
    with pytest.raises(QueryError, match="but ids and ids2 share 0"):
        align(model("ids", IdTokenizer(30)), model("ids2", IdTokenizer(40)))
