"""Growing a small ANDREA: a seeded corpus, Harris segments, ANDREA's exact layout, AdamW, and real
ANDREA .bin snapshots that every other part of the library opens like any checkpoint."""

from .trainer import DEFAULT_PRESET, PRESETS, GrowResult, corpus_text, grow_json, snapshot_steps, train

__all__ = ["DEFAULT_PRESET", "PRESETS", "GrowResult", "corpus_text", "grow_json", "snapshot_steps", "train"]
