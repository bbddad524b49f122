"""What a Grow run knows for certain about its rows: how often each id occurs in its corpus, and which ids
were never in a batch. Shown beside a score, and used to measure it (AUROC); never an input to it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..grow.corpus import CORPUS_LANGUAGES
from ..grow import snapshots as snap
from ..model import Embeddings
from ..grow.trainer import PRESETS, prepare


@dataclass(frozen=True)
class GrowTruth:
    never_in_batch: np.ndarray  # (V,) bool: the run's manifest lists the id as never an input of any batch
    counts: np.ndarray | None  # (V,) int64: the id's count in the corpus token stream, when it can be made again
    step: int


def grow_truth(emb: Embeddings) -> GrowTruth | None:
    """The truth of the run a snapshot belongs to, for the run's final snapshot (earlier ones had seen fewer ids);
    None for anything else. Corpus counts when the run trained on the generated corpus (made again from its
    preset and seed, and checked against the manifest's character and token counts)."""
    if not emb.provenance.file or "step" not in emb.card:
        return None
    folder = Path(emb.provenance.file).parent
    manifest = snap.read_manifest(folder)
    if not manifest or "unseen_ids" not in manifest or manifest.get("steps_done") != emb.card.step:
        return None
    unseen = np.zeros(emb.vocab_size, bool)
    ids = [i for i in manifest["unseen_ids"] if isinstance(i, int) and 0 <= i < emb.vocab_size]
    unseen[ids] = True
    return GrowTruth(unseen, _corpus_counts(manifest, emb.vocab_size), int(emb.card.step))


def _corpus_counts(manifest: dict, V: int) -> np.ndarray | None:
    preset = PRESETS.get(manifest.get("preset"))
    if preset is None or not isinstance(manifest.get("seed"), int):
        return None
    language = manifest.get("corpus_language") or "en"  # runs written before the corpus had languages were English
    if language not in CORPUS_LANGUAGES:
        return None
    data = prepare(preset, None, manifest["seed"], language)
    if len(data.text) != manifest.get("corpus_chars") or data.stream.size != manifest.get("corpus_tokens"):
        return None  # an uploaded corpus: its text is not kept
    if data.tokenizer.vocab_size != V:
        return None
    return np.bincount(data.stream, minlength=V).astype(np.int64)
