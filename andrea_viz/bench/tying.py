"""``python -m andrea_viz bench-tying``: tied against untied, two grown ANDREAs that differ only in the head, their
training and held-out losses side by side (``--write`` keeps the figures for the Lesson)."""

from __future__ import annotations

import sys
import time

from ..grow import tying


def run(preset: str, seed: int = 0, steps: int | None = None, write: bool = False) -> dict:
    def tick(which: str, step: int, steps: int) -> None:
        if step == steps or step % 100 == 0:
            print(f"  {which}: step {step:,} of {steps:,}", file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    r = tying.measure_pair(preset=preset, seed=seed, steps=steps, progress=tick)
    print(f"bench-tying: preset {r['preset']}, seed {r['seed']}, {r['steps']:,} steps each; held-out text: the generator's "
          f"sentences of seed {r['held_out_seed']} ({r['held_out_tokens']:,} tokens); {time.perf_counter() - t0:.0f} s")
    print("| head | parameters | training loss (last 50 steps) | held-out loss | held-out perplexity |")
    print("|---|---|---|---|---|")
    for name in ("untied", "tied"):
        m = r[name]
        print(f"| {name} | {m['params']:,} | {m['train_loss']:.4f} | {m['held_out_loss']:.4f} | {m['held_out_perplexity']:.2f} |")
    print(f"tied / untied held-out loss: {r['tied']['held_out_loss'] / r['untied']['held_out_loss']:.3f}")
    if write:
        print(f"kept in {tying.keep_result(r)}")
    return r
