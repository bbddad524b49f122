"""Aligning two tables of different vocabularies: anchors, the Procrustes map with scale and the anchor maps against
slow references, the choice between them made inside the fit set only, their held-out judgement beside the
nearest-anchor baseline, and the lesson's picture (kat lands beside cat)."""

from __future__ import annotations

import numpy as np
import pytest

import andrea_viz
from andrea_viz.alignment import (
    HUB_K,
    PROCRUSTES,
    AnchorMap,
    Anchors,
    CheckProducts,
    row_cosines,
    align,
    align_tables,
    anchor_drift,
    anchor_maps,
    baseline_guess,
    choose_map,
    find_anchors,
    fit_map,
    fold_token,
    place,
    split,
    string_anchors,
)
from andrea_viz.errors import QueryError
from andrea_viz.lexicon import MORE_PAIRS, WORDS
from andrea_viz.neighbours import argkmin, jaccard_rows, normalise, unit_rows


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


def test_a_wide_maps_float32_polar_factor_recovers_the_rotation_as_the_float64_reference_does():
    from andrea_viz.alignment import WIDE_SVD

    d = WIDE_SVD + 16  # both sides wide: the polar factor is found in float32
    rng = np.random.default_rng(7)
    x = rng.normal(size=(1_500, d)).astype(np.float32)
    q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    y = (2.5 * x @ q + rng.normal(size=d) + rng.normal(scale=0.01, size=(1_500, d))).astype(np.float32)
    m = fit_map(x, y)
    r_ref, s_ref = slow_fit(x.astype(np.float64), y.astype(np.float64))
    np.testing.assert_allclose(m.rotation, r_ref, atol=2e-4)
    np.testing.assert_allclose(m.scale, s_ref, rtol=1e-5)
    np.testing.assert_allclose(m.rotation.T @ m.rotation, np.eye(d), atol=1e-4)


def cross_moment(rows: int, da: int, db: int, spread: float, seed: int) -> np.ndarray:
    """A centred xᵀy of A's rows (columns scaled over ``spread`` decades, so its singular values spread) against B =
    a scaled rotation of A plus noise."""
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=(rows, da)) * np.logspace(0, -spread, da)).astype(np.float32)
    q, _ = np.linalg.qr(rng.normal(size=(max(da, db), max(da, db))))
    y = 0.7 * x @ q[:da, :db] + rng.normal(scale=0.01 * 10 ** -spread, size=(rows, db))
    return (x - x.mean(0)).astype(np.float64).T @ (y - y.mean(0))


@pytest.mark.parametrize(("da", "db", "spread"), [(1_040, 1_040, 0.0), (1_100, 1_040, 0.0), (1_040, 1_100, 0.0),
                                                  (1_040, 1_040, 0.7)])
def test_a_wide_polar_factor_from_the_gram_matrix_is_the_float64_svds(da, db, spread):
    """The eigh road (float32) against numpy's float64 SVD: the same R = U·Vᵀ and sum of singular values, tall, wide
    and square; singular values 90 times apart take Newton–Schulz steps to come out orthonormal."""
    from andrea_viz.alignment import polar_by_eigh

    m = cross_moment(3_000, da, db, spread, seed=da + db)
    u, s, vt = np.linalg.svd(m, full_matrices=False)
    found = polar_by_eigh(m)
    assert found is not None  # singular values within EIGH_COND of each other: this road
    r, total = found
    np.testing.assert_allclose(r, u @ vt, atol=1e-5)
    np.testing.assert_allclose(total, s.sum(), rtol=1e-5)


def test_a_wide_polar_factor_whose_singular_values_spread_too_far_comes_from_torchs_svd():
    """Beyond EIGH_COND float32's Gram matrix cannot resolve the smallest singular values: the eigh road declines and
    torch's SVD gives a rotation whose fit (trace Rᵀm, the sum of singular values at the optimum) is float64's."""
    from andrea_viz.alignment import EIGH_COND, polar_by_eigh, polar

    m = cross_moment(3_000, 1_040, 1_040, 3.0, seed=3)
    s = np.linalg.svd(m, compute_uv=False)
    assert s[0] / s[-1] > EIGH_COND and polar_by_eigh(m) is None
    r, total = polar(m)
    np.testing.assert_allclose(r.T @ r, np.eye(1_040), atol=1e-4)
    np.testing.assert_allclose(np.sum(r * m), s.sum(), rtol=1e-5)
    np.testing.assert_allclose(total, s.sum(), rtol=1e-5)


@pytest.mark.parametrize(("n", "d"), [(400, 16), (1_600, 1_040)])  # narrow (5 folds); wide (one inner split)
def test_the_training_fit_reuses_the_inner_splits_products_and_equals_a_fit_on_all_of_them(n, d, monkeypatch):
    """align_tables's Procrustes map is the fit on every training anchor, though each row's xᵀy is computed once:
    moments(fit) + moments(rest) is moments(train), and the map from them equals fit_map(train) (slow reference:
    the fit read afresh)."""
    from andrea_viz import alignment

    rng = np.random.default_rng(d)
    a = rng.normal(size=(n, d)).astype(np.float32)
    q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    b = (0.7 * a @ q + rng.normal(scale=0.05, size=(n, d))).astype(np.float32)
    ids = np.arange(n)
    read = []
    real = alignment.moments
    monkeypatch.setattr(alignment, "moments", lambda x, y, rows=None: read.append(len(rows)) or real(x, y, rows))
    al = align_tables(a, b, Anchors(ids, ids, np.array(["string"] * n, object)), sample=50)
    assert read[0] + read[1] == al.train.size  # the first fold's fit part, then the rest of the training anchors
    wide = d > alignment.CV_WIDTH
    assert sum(read) == (al.train.size if wide else al.train.size + sum(read[2:]))  # no training row read twice
    monkeypatch.undo()
    ref = fit_map(a, b, al.train)
    np.testing.assert_allclose(al.procrustes.rotation, ref.rotation, atol=2e-4)
    np.testing.assert_allclose(al.procrustes.scale, ref.scale, rtol=1e-6)
    np.testing.assert_allclose(al.procrustes.mean_a, ref.mean_a, atol=1e-6)


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
    assert al.method == PROCRUSTES  # chosen by cross-validation inside the 240: a rotation is what Procrustes fits
    assert al.median_cosine > 0.99 and al.median_procrustes == al.median_cosine  # a rotation and a scale, up to noise
    assert al.median_jaccard > 0.9
    assert al.median_baseline < al.median_cosine - 0.05  # a blend of neighbours is not the row itself
    # the judge's one product for both of A's searches gives what the two searches apart give
    xa, yb, rows = a[anchors.a], b[perm][anchors.b], al.held_out[al.judged]
    np.testing.assert_array_equal(al.jaccard, jaccard_rows(argkmin(normalise(xa), 10, rows).ids,
                                                           argkmin(normalise(yb), 10, rows).ids))
    np.testing.assert_array_equal(al.baseline_cosine,
                                  row_cosines(baseline_guess(normalise(xa), yb, rows, al.train), yb[rows]))
    again = align_tables(a, b[perm], anchors, seed=3)
    np.testing.assert_array_equal(al.held_out, again.held_out)  # a seeded split
    assert not np.array_equal(split(300, 4)[1], al.held_out)


def slow_anchor_map(m: AnchorMap, x_mem: np.ndarray, y_mem: np.ndarray, q: np.ndarray) -> np.ndarray:
    """An anchor map's rows one at a time, from the memory's raw rows: cosines by hand; the kernel's coefficients by
    solving (K + λI)·c = targets − mean for the direction (unit B rows) and the length apart; the nearest average by
    sorting each row's hubness-corrected scores."""
    def cos(u, v):
        return float(u @ v / np.linalg.norm(u) / np.linalg.norm(v))

    m_n = x_mem.shape[0]
    c_mm = np.array([[cos(x_mem[i], x_mem[j]) for j in range(m_n)] for i in range(m_n)])
    dirs = np.array([y / np.linalg.norm(y) for y in y_mem])
    lens = np.linalg.norm(y_mem, axis=1)
    out = []
    for row in q:
        c = np.array([cos(row, x_mem[j]) for j in range(m_n)])
        if m.kind == "kernel":
            kern = np.exp((c_mm - 1) / m.tau)
            solve = np.linalg.solve(kern + m.lam * np.eye(m_n), np.column_stack([dirs - dirs.mean(0), lens - lens.mean()]))
            z = np.exp((c - 1) / m.tau) @ solve + np.append(dirs.mean(0), lens.mean())
            d, n = z[:-1], z[-1]
        else:
            hub = [np.mean(sorted(c_mm[j][np.arange(m_n) != j])[-HUB_K:]) for j in range(m_n)]
            score = [c[j] - m.beta * hub[j] for j in range(m_n)]
            top = sorted(range(m_n), key=lambda j: (-score[j], j))[:m.k]
            w = np.exp([(score[j] - score[top[0]]) / m.tau for j in top])
            d = sum(wi * dirs[j] for wi, j in zip(w, top, strict=True)) / w.sum()
            n = sum(wi * lens[j] for wi, j in zip(w, top, strict=True)) / w.sum()
        out.append(d / np.linalg.norm(d) * max(n, 0.0))
    return np.array(out)


def test_every_anchor_map_matches_a_row_by_row_reference():
    rng = np.random.default_rng(5)
    x, y, q = rng.normal(size=(40, 6)), rng.normal(size=(40, 5)) + 0.3, rng.normal(size=(9, 6))
    maps = anchor_maps(x, y, np.arange(40))
    assert {m.kind for m in maps} == {"kernel", "nearest"} and len({m.label for m in maps}) == len(maps)
    assert any(m.kind == "nearest" and m.beta > 0 for m in maps)  # the hubness correction is among them
    for m in maps:
        np.testing.assert_allclose(m(q), slow_anchor_map(m, x, y, q), atol=2e-4, err_msg=m.label)


def test_the_nearest_maps_cross_validation_cosines_are_those_of_the_mapped_rows():
    """``check_cosines`` (the choice's road: no row mapped) against ``row_cosines`` of the rows each nearest map
    places, for every k, τ and β, on a memory larger than the largest k and on one smaller (k cut to it), with a
    check row of B all zeros (cosine 0) and a cluster whose memory anchors' B rows are all zero (no direction, length
    0: a check row of it that a map places by them alone is placed at 0, cosine 0)."""
    rng = np.random.default_rng(11)
    label = rng.integers(0, 5, 90)
    x = (rng.normal(size=(5, 8))[label] + 0.3 * rng.normal(size=(90, 8))).astype(np.float32)
    y = (rng.normal(size=(5, 10))[label] + 0.3 * rng.normal(size=(90, 10))).astype(np.float32)
    y[:60][label[:60] == label[65]] = 0.0  # check row 5's cluster: no direction among the memory anchors
    q, yc = x[60:], y[60:].copy()
    yc[3] = 0.0
    for memory in (np.arange(60), np.arange(20)):
        maps = [m for m in anchor_maps(x, y, memory) if m.kind == "nearest"]
        cos = unit_rows(q) @ maps[0].memory.T
        near = CheckProducts.of(maps[0].coef, yc)
        placed_at_zero = 0
        for m in maps:
            ranked = m.ranked(cos, 32)
            want = row_cosines(m.from_cosines(cos, ranked), yc)
            np.testing.assert_allclose(m.check_cosines(ranked, near), want, atol=2e-6, err_msg=m.label)
            assert want[3] == 0.0
            placed_at_zero += want[5] == 0.0
        assert placed_at_zero >= 9  # k = 4 at every τ and β, at least


def test_the_choice_reads_only_the_fit_set_and_prefers_anchor_maps_where_no_rotation_holds():
    rng = np.random.default_rng(6)
    centres = rng.normal(size=(12, 8))  # A: 12 clusters; B: each cluster sent somewhere no linear map reaches
    label = rng.integers(0, 12, 400)
    a = (centres[label] + 0.15 * rng.normal(size=(400, 8))).astype(np.float32)
    b = (rng.normal(size=(12, 10))[label] * 2.0 + 0.15 * rng.normal(size=(400, 10))).astype(np.float32)
    anchors = Anchors(np.arange(400), np.arange(400), np.array(["string"] * 400, object))
    al = align_tables(a, b, anchors, seed=1)
    assert al.method != PROCRUSTES and al.scores[al.method] == max(al.scores.values())
    assert al.median_cosine > 0.95 > al.median_procrustes + 0.1  # held out: the anchor map places each cluster
    # the held-out B rows are never read by the choice: scrambling them leaves the choice, its scores and the map
    b2 = b.copy()
    b2[anchors.b[al.held_out]] = rng.normal(size=(al.held_out.size, 10))
    best, scores = choose_map(a[anchors.a], b2[anchors.b], al.train, seed=1)
    assert best is not None and best.label == al.method and scores == al.scores
    again = align_tables(a, b2, anchors, seed=1)
    np.testing.assert_array_equal(again.map(a[:50]), al.map(a[:50]))


def test_baseline_guess_matches_a_row_by_row_reference():
    rng = np.random.default_rng(1)
    ka, kb, q = rng.normal(size=(40, 6)), rng.normal(size=(40, 5)), rng.normal(size=(7, 6))
    a, b = np.vstack([ka, q]), np.vstack([kb, rng.normal(size=(7, 5))])  # anchors 0-39 known, 40-46 guessed
    fast = baseline_guess(normalise(a), b, np.arange(40, 47), np.arange(40), k=4)
    for n in range(7):
        cos = [float(q[n] @ ka[j] / np.linalg.norm(q[n]) / np.linalg.norm(ka[j])) for j in range(40)]
        top = sorted(range(40), key=lambda j: -cos[j])[:4]
        w = [max(cos[j], 0) + 1e-12 for j in top]
        np.testing.assert_allclose(fast[n], sum(wi * kb[j] for wi, j in zip(w, top, strict=True)) / sum(w), atol=1e-5)


def test_row_cosines_are_each_pairs_cosine_zero_for_a_zero_row_and_nan_for_a_nan_row():
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=(6, 5)).astype(np.float32), rng.normal(size=(6, 5)).astype(np.float32)
    x[2], y[3, 1], x[4, 0] = 0.0, np.nan, np.inf
    got = row_cosines(x, y)
    for i in (0, 1, 5):
        a, b = x[i].astype(np.float64), y[i].astype(np.float64)
        assert got[i] == pytest.approx(float(a @ b) / np.sqrt(float(a @ a) * float(b @ b)), abs=1e-12)
    assert got[2] == 0.0 and np.isnan(got[3]) and np.isnan(got[4])


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
    # the teaching picture: kat's nearest English row, once mapped, is cat; hond's is dog (by the chosen map and by
    # the Procrustes rotation alike)
    for word, english in (("kat", "cat"), ("hond", "dog")):
        wid = nl.tokenizer.encode(word)
        assert len(wid) == 1
        for m in (al.map, al.procrustes):
            p = place(nl.token_table, en.token_table, m, np.array(wid))
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


def test_the_held_out_drift_is_the_held_out_anchors_and_not_those_the_map_was_fitted_on():
    """An anchor map comes nearer the anchors it was fitted on than the others, so a median drift over every anchor
    is pulled towards 0 (Compare showed ~0.003 beside a held-out median cosine of 0.92): the headline drift is the
    held out's. Here B is a noisy non-linear image of A: the map's drift is ~0.18 on its own anchors, ~0.37 held out."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=(400, 16)).astype(np.float32)
    b = (np.tanh(a @ rng.normal(size=(16, 12))) + 0.8 * rng.normal(size=(400, 12))).astype(np.float32)
    anchors = Anchors(np.arange(400), np.arange(400), np.array(["string"] * 400, object))
    al = align_tables(a, b, anchors, seed=1)
    every = anchor_drift(a, b, al.map, anchors)  # position i: anchor i
    assert al.held_out_drift == pytest.approx(float(np.median(every[al.held_out])), abs=1e-6)
    assert al.held_out_drift == pytest.approx(1 - al.median_cosine, abs=1e-6)  # beside the note's median cosine
    assert float(np.median(every)) < 0.6 * al.held_out_drift  # every anchor's median: the fitted ones pull it down
