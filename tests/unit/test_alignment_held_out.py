"""The held-out figures of real pairs of grown models (issue 34's benchmark), measured on the anchors whose rows both
runs fed in (a row never fed in keeps its random step-0 value), medians over 5 seeded 80/20 splits, the map chosen by
cross-validation inside each 80% only.

The issue's targets are NOT met, and these tests say so by asserting what was measured instead: ≥ 0.8 for two seeds
of one tokenizer (measured 0.749) and ≥ 0.6 for two tokenizers of one corpus (measured 0.566). What they assert is
that the chosen map beats both the orthogonal Procrustes map (0.507 and 0.393) and the nearest-anchor baseline of the
tokensurgeon kind (0.726 and 0.524) on the same held-out anchors.

Beside them an oracle (``oracle_cosine``): each held-out B row guessed as the mean of its nearest training anchors'
rows *in B*, the neighbours no map can know. For two seeds it reaches 0.791: the 0.8 lies above what averaging the
anchors' B rows reaches even with B's own answer in hand (and growing longer lowers it: 0.737, 0.679, 0.596 for
two seeds grown 600, 1,200 and 2,400 steps). The Dutch model onto the English one: the map reaches its oracle
(0.743 and 0.743); two tokenizers: 0.566 against 0.724, room the maps do not find."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import andrea_viz
from andrea_viz.alignment import Anchors, find_anchors, split
from andrea_viz.bench.audit import MICRO_SEED, ORACLE_KS, OTHER_SEGMENTS, SPLITS, fed_in, held_out_figures, oracle_cosine
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


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "segments", "n", "floor", "margin", "oracle"), [
    (2, None, 305, 0.73, 0.015, 0.791),  # two seeds of one tokenizer: 0.749 against 0.726 (target 0.8: not met)
    (MICRO_SEED, OTHER_SEGMENTS, 155, 0.55, 0.03, 0.724),  # two tokenizers of one corpus: 0.566 against 0.524 (0.6)
])
def test_grown_pairs_of_one_corpus_held_out(en, tmp_path, seed, segments, n, floor, margin, oracle):
    from andrea_viz.grow import train
    from andrea_viz.grow.corpus import generate
    from andrea_viz.grow.trainer import PRESETS

    corpus = generate(MICRO_SEED, PRESETS["micro"].sentences, "en")  # andrea-micro's own corpus
    r = train(tmp_path / "run", preset="micro", corpus=corpus, seed=seed, steps=600, snapshot_at=[600],
              max_segments=segments)
    a = andrea_viz.load(r.snapshots[-1][1])
    anchors = fed_in(find_anchors(a, en), r.unseen_ids, unseen(MICRO_DIR))
    f = held_out_figures(a, en, anchors)
    assert f["anchors"] == n
    assert f["map"] > floor and f["map"] > f["procrustes"] + 0.15 and f["map"] > f["baseline"] + margin, f
    assert abs(f["oracle"] - oracle) < 0.01 and f["map"] < f["oracle"], f  # two seeds: the oracle itself under 0.8
