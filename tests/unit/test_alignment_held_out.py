"""The held-out figures of real pairs of grown models (issue 34's benchmark), measured on the anchors whose rows both
runs fed in (a row never fed in keeps its random step-0 value), medians over 5 seeded 80/20 splits, the map chosen by
cross-validation inside each 80% only.

The issue's targets are NOT met, and these tests say so by asserting what was measured instead: ≥ 0.8 for two seeds
of one tokenizer (measured 0.749) and ≥ 0.6 for two tokenizers of one corpus (measured 0.566). What they assert is
that the chosen map beats both the orthogonal Procrustes map (0.507 and 0.393) and the nearest-anchor baseline of the
tokensurgeon kind (0.726 and 0.524) on the same held-out anchors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import andrea_viz
from andrea_viz.alignment import find_anchors
from andrea_viz.bench.audit import MICRO_SEED, OTHER_SEGMENTS, fed_in, held_out_figures
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
    # measured 0.743 (chosen map), 0.509 (Procrustes), 0.626 (baseline)
    assert f["map"] > 0.72 and f["map"] > f["procrustes"] + 0.2 and f["map"] > f["baseline"] + 0.08, f


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "segments", "n", "floor", "margin"), [
    (2, None, 305, 0.73, 0.015),  # two seeds of one tokenizer: measured 0.749 against 0.726 (target 0.8: not met)
    (MICRO_SEED, OTHER_SEGMENTS, 155, 0.55, 0.03),  # two tokenizers of one corpus: 0.566 against 0.524 (target 0.6)
])
def test_grown_pairs_of_one_corpus_held_out(en, tmp_path, seed, segments, n, floor, margin):
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
