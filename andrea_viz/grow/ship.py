"""How ``andrea-micro`` ships: its first (step 0) and final snapshots as weights alone (ANDREA's .bin
allows it), with its config, its segments and the run's manifest (whose first losses let a test
reproduce the run). Step 0 beside the final step is what Compare and the Lesson compare."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from . import snapshots as snap
from .trainer import GrowResult

FIRST_LOSSES = 20  # the losses a reproduction test replays


def keep_final_weights_only(r: GrowResult) -> Path:
    """Rewrite the run folder to hold the first and the final snapshot, weights only; drop the others.
    Returns the final one."""
    kept = [r.snapshots[0], r.snapshots[-1]] if len(r.snapshots) > 1 else [r.snapshots[-1]]
    weights = []
    for step, path in kept:
        head = np.fromfile(path, "<i4", count=2)
        weights.append((step, np.fromfile(path, "<f4", count=int(head[1]), offset=8)))
    for _, p in r.snapshots:
        p.unlink()
    written = [snap.write_bin(r.folder / snap.snapshot_name(step), step, [w]) for step, w in weights]
    final = written[-1]
    manifest = snap.read_manifest(r.folder) or {}
    manifest.update({"snapshots": [{"step": step, "file": p.name} for (step, _w), p in zip(weights, written, strict=True)],
                     "first_losses": r.losses[:FIRST_LOSSES],
                     "shipped": "the first and the final snapshot, weights without Adam state"})
    snap.write_json(r.folder / snap.MANIFEST, manifest)
    return final
