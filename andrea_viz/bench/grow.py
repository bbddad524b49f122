"""``python -m andrea_viz bench-grow``: the micro preset's training speed, and how soon cat's 10 nearest
neighbours include dog, through the trainer and through a plain PyTorch eager loop of the same steps
(same corpus, model, optimiser and batches, no snapshots, manifest or callbacks), medians over runs.

Both loops look at the token table every CHECK_EVERY steps (the same cost in both); the trainer's
time includes preparing the corpus and writing its snapshots, which is the overhead this shows.
"""

from __future__ import annotations

import os
import platform
import tempfile
import time
from pathlib import Path
from statistics import median

import numpy as np

from ..grow.trainer import DEFAULT_PRESET, PRESETS, batch, build_model, learning_rate, prepare, step_once, train

CHECK_EVERY = 10


def _cat_near_dog(wte: np.ndarray, cat: int, dog: int, k: int = 10) -> bool:
    unit = wte / np.linalg.norm(wte, axis=1, keepdims=True)
    cos = unit @ unit[cat]
    cos[cat] = -np.inf
    return dog in np.argpartition(-cos, k)[:k]


class _Watch:
    """Records when cat's 10 nearest first include dog, checking every CHECK_EVERY steps."""

    def __init__(self, cat: int, dog: int, t0: float):
        self.cat, self.dog, self.t0 = cat, dog, t0
        self.step = self.seconds = None

    def __call__(self, step: int, model) -> None:
        if self.step is None and step % CHECK_EVERY == 0:
            if _cat_near_dog(model.wte.detach().numpy(), self.cat, self.dog):
                self.step, self.seconds = step, time.perf_counter() - self.t0


def trainer_run(seed: int) -> dict:
    p = PRESETS[DEFAULT_PRESET]
    data = prepare(p, None, seed)  # only to learn cat's and dog's ids; the trainer prepares its own
    cat, dog = data.tokenizer.lookup("cat")[0], data.tokenizer.lookup("dog")[0]
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        watch = _Watch(cat, dog, t0)
        marks = {}
        r = train(Path(d) / "run", seed=seed, observe=watch, progress=lambda s, n, loss: marks.setdefault(s, time.perf_counter()))
        total = time.perf_counter() - t0
    loop = marks[p.steps] - marks[1]
    return {"seconds": total, "steps_per_s": (p.steps - 1) / loop, "dog_step": watch.step, "dog_seconds": watch.seconds,
            "snapshots": len(r.snapshots)}


def plain_run(seed: int) -> dict:
    """The same steps as a bare loop: build, then step; nothing else."""
    import torch

    p = PRESETS[DEFAULT_PRESET]
    t0 = time.perf_counter()
    data = prepare(p, None, seed)
    cat, dog = data.tokenizer.lookup("cat")[0], data.tokenizer.lookup("dog")[0]
    model, opt = build_model(p, data.tokenizer.vocab_size, seed)
    rng = np.random.default_rng(seed)
    watch = _Watch(cat, dog, t0)
    t1 = time.perf_counter()
    for step in range(1, p.steps + 1):
        x, y = batch(data.stream, rng, p)
        step_once(model, opt, x, y, learning_rate(step - 1, p, p.steps))
        with torch.no_grad():
            watch(step, model)
    loop = time.perf_counter() - t1
    return {"seconds": time.perf_counter() - t0, "steps_per_s": p.steps / loop, "dog_step": watch.step,
            "dog_seconds": watch.seconds}


def run(repeats: int = 3) -> None:
    import torch

    p = PRESETS[DEFAULT_PRESET]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, torch {torch.__version__} ({torch.get_num_threads()} "
          f"threads); preset {p.name}: d = {p.d}, L = {p.L}, T = {p.T}, batch {p.batch}, {p.steps} steps, "
          f"{p.snapshots} snapshots; medians of {repeats} runs each, alternating", flush=True)
    rows: dict[str, list[dict]] = {"trainer": [], "plain": []}
    for i in range(repeats):
        rows["trainer"].append(trainer_run(0))
        rows["plain"].append(plain_run(0))
        print(f"  run {i + 1}: trainer {rows['trainer'][-1]['seconds']:.1f} s, plain {rows['plain'][-1]['seconds']:.1f} s",
              flush=True)
    print(f"{'':<46} {'steps/s':>9} {'whole run':>10} {'cat ~ dog at':>14}")
    for name, label in (("trainer", "andrea_viz.grow.train (snapshots, manifest)"), ("plain", "plain PyTorch eager loop")):
        r = rows[name]
        dog = [x["dog_seconds"] for x in r if x["dog_seconds"] is not None]
        steps = [x["dog_step"] for x in r if x["dog_step"] is not None]
        when = f"{median(dog):.1f} s (step {int(median(steps))})" if dog else "never"
        print(f"{label:<46} {median(x['steps_per_s'] for x in r):>9.1f} {median(x['seconds'] for x in r):>9.1f}s "
              f"{when:>14}")
    ratio = median(x["steps_per_s"] for x in rows["plain"]) / median(x["steps_per_s"] for x in rows["trainer"])
    print(f"plain / trainer steps per second: {ratio:.2f}× (the trainer's overhead per step)")
