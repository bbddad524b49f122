"""Tied against untied, measured on ANDREA: two runs of one preset and seed that differ only in the output head (its own
table, or the token table itself as in GPT-2), each scored on sentences it never trained on.

``python -m andrea_viz bench-tying`` makes the two runs side by side and prints their losses; ``--write`` keeps the
figures in ``andrea_viz/data/tying.json``, which the Lesson's tying step shows. The held-out text is the corpus
generator's own sentences for another seed, encoded with the run's tokenizer (the same corpus and seed give the same
segments, so both runs read the same ids). A test replays the first losses of both runs from the kept file.
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..i18n import Msg
from .corpus import generate
from .trainer import DEFAULT_PRESET, PRESETS, encode_lines, prepare, train

RESULT = Path(__file__).resolve().parents[1] / "data" / "tying.json"
HELD_OUT_SEED = 1_000  # added to the run's seed: the held-out sentences come from another draw of the generator
HELD_OUT_SHARE = 5  # one held-out sentence per this many training sentences
FIRST = 10  # first training losses kept, for the replay test
LAST = 50  # the training loss reported is the mean of the last this many steps


def held_out_loss(model, stream: np.ndarray, context: int, batch: int = 64) -> float:
    """Mean next-token cross-entropy (nats) of ``model`` over the consecutive windows of ``context`` ids that tile
    ``stream`` (N,): every id after a window's first is predicted once, from the ids before it in its window."""
    import torch

    n = (stream.size - 1) // context
    x = torch.from_numpy(stream[: n * context].reshape(n, context))  # (n, T)
    y = torch.from_numpy(stream[1 : n * context + 1].reshape(n, context))  # (n, T)
    total = 0.0
    with torch.no_grad():
        for i in range(0, n, batch):
            logits = model(x[i : i + batch])  # (b, T, V)
            total += float(torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y[i : i + batch].reshape(-1),
                                                             reduction="sum"))
    return total / (n * context)


def measure_pair(preset: str = DEFAULT_PRESET, seed: int = 0, steps: int | None = None,
            progress: Callable[[str, int, int], None] | None = None) -> dict:
    """Train the untied and the tied model (same preset, corpus, seed and steps) and score both on the held-out text.
    Returns the figures ``bench-tying`` prints and keeps; ``progress(which, step, steps)`` after each step."""
    p = PRESETS[preset]
    data = prepare(p, None, seed)
    held = encode_lines(data.tokenizer, generate(seed + HELD_OUT_SEED, p.sentences // HELD_OUT_SHARE))
    out = {"preset": preset, "seed": seed, "held_out_seed": seed + HELD_OUT_SEED, "held_out_tokens": int(held.size)}
    for name, tied in (("untied", False), ("tied", True)):
        final = {}
        with tempfile.TemporaryDirectory(prefix="andrea_tying_") as folder:
            r = train(Path(folder) / "run", preset=preset, seed=seed, steps=steps, tied=tied,
                      snapshot_at=[steps or p.steps], observe=lambda _step, model, final=final: final.update(model=model),
                      progress=None if progress is None else (lambda s, n, _loss, which=name: progress(which, s, n)))
        model = final["model"]
        out["steps"] = r.steps_done
        out[name] = {"params": sum(t.numel() for t in model.parameters()),  # a tied head is one tensor, counted once
                     "train_loss": float(np.mean(r.losses[-LAST:])), "held_out_loss": held_out_loss(model, held, p.T),
                     "first_losses": r.losses[:FIRST]}
        out[name]["held_out_perplexity"] = math.exp(out[name]["held_out_loss"])
    return out


def keep_result(result: dict, path: Path = RESULT) -> Path:
    path.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return path


def kept() -> dict | None:
    """The figures ``bench-tying --write`` kept, or None when there are none (or they cannot be read)."""
    try:
        return json.loads(RESULT.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def finding(result: dict) -> Msg:
    """What the kept figures say: which head scored lower on the held-out text, by how much, and that it is one seed."""
    u, t = result["untied"], result["tied"]
    params = {"steps": result["steps"], "seed": result["seed"], "untied": u["held_out_loss"], "tied": t["held_out_loss"],
              "pu": u["held_out_perplexity"], "pt": t["held_out_perplexity"], "saved": u["params"] - t["params"],
              "rel": abs(t["held_out_loss"] / u["held_out_loss"] - 1)}
    if t["held_out_loss"] < u["held_out_loss"]:
        return Msg("Measured here on two andrea-micro runs that differ only in the head ({steps:,} steps, seed {seed}): "
                   "on sentences neither saw in training the tied one scores {tied:.4f} nats per token against "
                   "{untied:.4f} untied (perplexity {pt:.3f} against {pu:.3f}), {rel:.1%} lower with {saved:,} fewer "
                   "parameters. One seed of one small model: a difference this size may be chance.", **params)
    return Msg("Measured here on two andrea-micro runs that differ only in the head ({steps:,} steps, seed {seed}): "
               "on sentences neither saw in training the untied one scores {untied:.4f} nats per token against "
               "{tied:.4f} tied (perplexity {pu:.3f} against {pt:.3f}), {rel:.1%} lower, though the tied one has "
               "{saved:,} fewer parameters. One seed of one small model: a difference this size may be chance.", **params)
