"""A timeline: snapshots of one vocabulary and width, ordered by the training step each one records.

Made from a Grow run's folder, or from any folder that holds two or more checkpoints (files, or
Hugging Face ``checkpoint-N/`` folders): ANDREA .bin snapshots (the header's step), nanoGPT ``ckpt.pt``
copies (``iter_num``), Hugging Face checkpoints (``trainer_state.json``'s ``global_step``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .checkpoints import load_path
from .checkpoints.folder import is_checkpoint_file
from .errors import CheckpointError
from .i18n import Msg
from .model import Embeddings



@dataclass(frozen=True)
class Snapshot:
    step: int
    path: Path

    @property
    def label(self) -> str:
        return self.path.name


@dataclass
class Timeline:
    """Snapshots in step order; each is loaded once, memory-mapped where the format allows."""

    snapshots: list[Snapshot]
    source: str
    models: dict[int, Embeddings] = field(default_factory=dict, repr=False)
    _memo: dict = field(default_factory=dict, repr=False)

    def memo(self, key: tuple, compute):
        """A value derived from the snapshots, computed once per timeline."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    @property
    def steps(self) -> list[int]:
        return [s.step for s in self.snapshots]

    def model(self, i: int) -> Embeddings:
        if i not in self.models:
            self.models[i] = load_path(self.snapshots[i].path)
        return self.models[i]

    @property
    def first(self) -> Embeddings:
        return self.model(0)

    @property
    def last(self) -> Embeddings:
        return self.model(len(self.snapshots) - 1)


def _candidates(folder: Path) -> list[Path]:
    """Checkpoint folders and files; a Trainer output_dir's top-level weights are its final model, read as a folder."""
    out = []
    trainer = final_model(folder)
    for p in sorted(folder.iterdir()):
        if p.is_dir() and (p / "config.json").is_file() or p.is_dir() and p.name.startswith("checkpoint-"):
            out.append(p)
        elif p.is_file() and is_checkpoint_file(p.name) and not trainer:
            out.append(p)
    return out


def final_model(folder: Path) -> bool:
    """A Trainer's output_dir: checkpoint-N/ folders and, after save_model(), the final model at the top level."""
    return (folder / "config.json").is_file() and any(p.is_dir() and p.name.startswith("checkpoint-")
                                                       for p in folder.iterdir())


def open_timeline(folder: str | Path) -> Timeline:
    """Every checkpoint in a folder, read once to learn its step and shape, in step order.

    Raises CheckpointError when fewer than two are found, when one cannot say its step, or when the
    shapes differ (the message lists which file differs).
    """

    folder = Path(folder)
    if not folder.is_dir():
        raise CheckpointError("{path} is not a folder", path=str(folder))
    found: list[tuple[int, Path, Embeddings]] = []
    for p in _candidates(folder):
        emb = load_path(p)
        step = emb.card.step
        if step is None:
            raise CheckpointError("{name} does not record a training step (an ANDREA header, nanoGPT's iter_num or "
                                  "trainer_state.json's global_step); a timeline orders its files by it", name=p.name)
        found.append((int(step), p, emb))
    found.sort(key=lambda t: t[0])
    if final_model(folder) and found:  # its step: the top-level trainer_state.json's, else assumed the last checkpoint's
        emb = load_path(folder)
        last = found[-1][0]
        step = emb.card.step if emb.card.step is not None else last
        if step < last:
            raise CheckpointError("the final model in {folder} records step {step:,}, before its checkpoint-{last}/; a "
                                  "timeline needs the final model last", folder=folder.name, step=step, last=last)
        if step == last:  # the last checkpoint and the final model: one step, the final model shown
            found.pop()
        found.append((int(step), folder, emb))
    if len(found) < 2:
        raise CheckpointError("{path} holds {n} checkpoint(s); a timeline needs two or more of one model",
                              path=str(folder), n=len(found))
    shape = found[0][2].token_table.shape
    odd = [f"{p.name} ({e.vocab_size:,} × {e.d_model:,})" for _, p, e in found if e.token_table.shape != shape]
    if odd:
        raise CheckpointError("the checkpoints in {folder} differ in shape: {first} is {V:,} × {d:,}, but {odd}",
                              folder=folder.name, first=found[0][1].name, V=shape[0], d=shape[1], odd=", ".join(odd))
    steps = [s for s, _, _ in found]
    if len(set(steps)) != len(steps):
        raise CheckpointError("two checkpoints in {folder} record the same step; a timeline needs one per step",
                              folder=folder.name)
    tl = Timeline([Snapshot(s, p) for s, p, _ in found], str(folder))
    tl.models.update({i: e for i, (_, _, e) in enumerate(found)})
    return tl


def describe(tl: Timeline) -> Msg:
    return Msg("{n} snapshots of {V:,} × {d:,}, steps {first:,} to {last:,}", n=len(tl.snapshots),
               V=tl.first.vocab_size, d=tl.first.d_model, first=tl.steps[0], last=tl.steps[-1])
