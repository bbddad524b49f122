"""The held-out figures of real pairs of grown models (issue 34's benchmark), measured on the anchors whose rows both
runs fed in (a row never fed in keeps its random step-0 value), medians over 5 seeded 80/20 splits, the map chosen by
cross-validation inside each 80% only.

The grown pairs share one corpus of 48,000 generated sentences, which 600 micro steps read about once
(``bench.audit.held_out_corpus``): two seeds of one tokenizer reach the issue's 0.8 (measured 0.838-0.839), two tokenizers
of one corpus (the second of 200 segments against 300, the runs sharing nothing but the corpus) its 0.6 (0.664),
each above the orthogonal Procrustes map (0.60, 0.492) and the nearest-anchor baseline of the tokensurgeon kind
(0.81, 0.627). On andrea-micro's own 6,000 sentences, read nine times over, the same two seeds gave 0.749.

Beside them an oracle (``oracle_cosine``): each held-out B row guessed as the mean of its nearest training anchors'
rows *in B*, the neighbours no map can know (0.849 and 0.769; the maps stay under it). The Dutch model onto the
English one (the shipped models): the map reaches its oracle (0.743 and 0.743)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import andrea_viz
from andrea_viz.alignment import Anchors, find_anchors, split
from andrea_viz.bench.audit import (A_SEED, B_SEED, ORACLE_KS, OTHER_SEGMENTS, SPLITS, fed_in, grow_for_held_out,
                                    held_out_figures, oracle_cosine)
from andrea_viz.builtin import MICRO_DIR, micro_name


def unseen(folder: Path) -> list[int]:
    return json.loads((folder / "run.json").read_text())["unseen_ids"]


@pytest.fixture(scope="module")
def en():
    return andrea_viz.load("andrea-micro")


def test_the_dutch_model_onto_the_english_one_beats_procrustes_and_the_baseline_held_out(en):
    nl = andrea_viz.load(micro_name("nl"))
    anchors = fed_in(find_anchors(nl, en), unseen(MICRO_DIR.parent / micro_name("nl")), unseen(MICRO_DIR))
    f = held_out_figures(nl, en, anchors)
    assert f["anchors"] == 81
    # measured 0.743 (chosen map), 0.509 (Procrustes), 0.626 (baseline), 0.743 (the oracle)
    assert f["map"] > 0.72 and f["map"] > f["procrustes"] + 0.2 and f["map"] > f["baseline"] + 0.08, f
    assert abs(f["oracle"] - 0.743) < 0.01 and f["map"] <= f["oracle"] + 0.005, f


def test_the_oracle_against_a_plain_loop():
    """``oracle_cosine`` against a slow reference: for each split, each held-out anchor's k nearest training anchors
    by cosine in B found by sorting in a Python loop, their unit rows averaged, the cosine to the true row."""
    rng = np.random.default_rng(5)
    centres = rng.normal(size=(6, 12))
    b_table = np.repeat(centres, 10, axis=0) + 0.6 * rng.normal(size=(60, 12))
    anchors = Anchors(np.arange(60), rng.permutation(60), np.array(["string"] * 60, dtype=object))
    unit = b_table / np.linalg.norm(b_table, axis=1, keepdims=True)
    per_k = {}
    for s in range(SPLITS):
        train, held = split(60, s)
        for k in ORACLE_KS:
            cos = []
            for h in held:
                row = anchors.b[h]
                near = sorted(train, key=lambda t: (-float(unit[row] @ unit[anchors.b[t]]), anchors.b[t]))[:k]
                guess = unit[anchors.b[near]].mean(axis=0)
                cos.append(float(guess @ b_table[row] / np.linalg.norm(guess) / np.linalg.norm(b_table[row])))
            per_k.setdefault(k, []).append(float(np.median(cos)))
    want = max(float(np.median(v)) for v in per_k.values())
    assert oracle_cosine(b_table, anchors) == pytest.approx(want, abs=1e-6)
    assert 0.6 < want < 0.99  # clusters: a row's neighbours' mean is near it, not it


@pytest.fixture(scope="module")
def grown_b(tmp_path_factory):
    """The pairs' B: a micro run of 600 steps on the held-out corpus, seed 1 (the table and its never-fed rows)."""
    r = grow_for_held_out(tmp_path_factory.mktemp("held-out-b") / "run", B_SEED)
    return andrea_viz.load(r.snapshots[-1][1]), r.unseen_ids


@pytest.mark.slow
@pytest.mark.parametrize(("segments", "n", "target", "oracle"), [
    (None, 305, 0.8, 0.849),  # two seeds of one tokenizer: 0.838 against the baseline's 0.806
    (OTHER_SEGMENTS, 205, 0.6, 0.769),  # two tokenizers of one corpus: 0.664 against 0.627
])
def test_grown_pairs_of_one_corpus_reach_the_targets_held_out(grown_b, tmp_path, segments, n, target, oracle):
    b, b_unseen = grown_b
    r = grow_for_held_out(tmp_path / "run", A_SEED, segments=segments)
    a = andrea_viz.load(r.snapshots[-1][1])
    anchors = fed_in(find_anchors(a, b), r.unseen_ids, b_unseen)
    f = held_out_figures(a, b, anchors)
    assert f["anchors"] == n
    assert f["map"] >= target and f["map"] > f["procrustes"] + 0.15 and f["map"] > f["baseline"] + 0.02, f
    assert abs(f["oracle"] - oracle) < 0.01 and f["map"] < f["oracle"], f
