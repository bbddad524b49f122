"""How ``andrea-micro`` ships: the final snapshot as weights alone (ANDREA's .bin allows it), with its
config, its segments and the run's manifest (whose first losses let a test reproduce the run)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from . import snapshots as snap
from .trainer import GrowResult

FIRST_LOSSES = 20  # the losses a reproduction test replays


def keep_final_weights_only(r: GrowResult) -> Path:
    """Rewrite the run folder to hold the final snapshot, weights only; drop the other snapshots."""
    step, path = r.snapshots[-1]
    head = np.fromfile(path, "<i4", count=2)
    weights = np.fromfile(path, "<f4", count=int(head[1]), offset=8)
    for _, p in r.snapshots:
        p.unlink()
    final = snap.write_bin(r.folder / snap.snapshot_name(step), step, [weights])
    manifest = snap.read_manifest(r.folder) or {}
    manifest.update({"snapshots": [{"step": step, "file": final.name}], "first_losses": r.losses[:FIRST_LOSSES],
                     "shipped": "the final snapshot only, weights without Adam state"})
    snap.write_json(r.folder / snap.MANIFEST, manifest)
    return final
